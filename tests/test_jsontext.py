"""The fast integral reader refuses exactly what the exact reader refuses, plus any fraction."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from converter.codec.canonical import encode
from converter.codec.jsontext import (
    NotStrictJSON,
    Split,
    loads_exact,
    loads_integral,
    loads_integral_split,
)

keys = st.text(st.characters(exclude_categories=("Cs",)), max_size=4)
values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | keys,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4),
    max_leaves=20,
)


@given(value=values)
def test_reads_what_it_is_given(value: Any) -> None:
    data = json.dumps(value, ensure_ascii=False).encode()
    assert loads_integral(data) == value == loads_exact(data)


@given(value=st.dictionaries(keys, values, min_size=1, max_size=4), data=st.data())
def test_every_duplicate_is_refused(value: dict[str, Any], data: st.DataObject) -> None:
    key = data.draw(st.sampled_from(sorted(value)))
    escaped = "".join(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else c for c in key)
    spelled = data.draw(st.sampled_from([json.dumps(key), f'"{escaped}"']))
    text = json.dumps(value, ensure_ascii=False)[:-1] + f", {spelled}: 1}}"
    doc = data.draw(st.sampled_from([text, f'{{"outer": [{text}]}}']))
    with pytest.raises(NotStrictJSON):
        loads_integral(doc.encode())


@pytest.mark.parametrize(
    "doc",
    [
        b'{"a": 1.5}',
        b'{"a": 1e3}',
        b'{"a": NaN}',
        b'{"a": -Infinity}',
        b'{"a": 1, "a": 1}',
        b'{"a": {"k\\u003a": 1, "k\\u003a": 2}}',
        b'{"x": ":", "a": 1, "a": 2, "z": "\\u003a"}',
        b'{"a": 1',
        b"\xff",
    ],
)
def test_refused(doc: bytes) -> None:
    with pytest.raises(NotStrictJSON):
        loads_integral(doc)


def test_escaped_colon_without_duplicate_is_read() -> None:
    assert loads_integral(b'{"a\\u003a": "\\u003a", "b": 2}') == {"a:": ":", "b": 2}


@pytest.mark.parametrize(
    ("doc", "line"),
    [
        (b'{"a": 1,\n "a": 2}', 2),
        (b'{"a": 1,\n "b": {"x": [1, {"a": 2}],\n "x": 3}}', 3),
        (b'{\n"q": "\\"a\\": {", \n"\\u0061": 1,\n"a": 2}', 4),  # escapes, braces in strings
        (b'[{}, {"k": 1,\n\n "k": 2}]', 3),
    ],
)
def test_a_duplicate_key_names_its_line(doc: bytes, line: int) -> None:
    """The pairs hook sees no position; a contract edited by hand is fixed at a line."""
    for reader in (loads_exact, loads_integral):
        with pytest.raises(NotStrictJSON) as refused:
            reader(doc)
        assert refused.value.line == line
        assert refused.value.parsed


@pytest.mark.parametrize(
    ("doc", "line"),
    [
        (b'{\n "a": 1,\n "b": 2,\n}\n', 3),
        (b'{\n "a": [\n  1,\n  2,\n\n ]\n}', 4),
        (b'{\n "a": 1\n "b": 2\n}', 3),  # a missing comma: the line of the token after it
    ],
)
def test_a_trailing_comma_is_named_at_its_own_line(doc: bytes, line: int) -> None:
    """Was: the line after it, where the parser met the closing bracket."""
    with pytest.raises(NotStrictJSON) as refused:
        loads_exact(doc)
    assert refused.value.line == line


@pytest.mark.parametrize(
    ("doc", "line"),
    [
        (b'{\n "a": 1,\n "b": NaN\n}', 3),
        (b'{"s": "NaN Infinity",\n"x": -Infinity}', 2),
        (b'{"s": "a\\"NaN",\n\n"x": [1, Infinity]}', 3),  # an escaped quote in a string
    ],
)
def test_nan_and_infinity_name_their_line(doc: bytes, line: int) -> None:
    """Was: refused with no line, and the fix then said the file could not be read at all."""
    for reader in (loads_exact, loads_integral):
        with pytest.raises(NotStrictJSON) as refused:
            reader(doc)
        assert refused.value.line == line
        assert refused.value.parsed


# --- loads_integral_split: a bundle's events and edges packed, never values all at once -------

SPLIT = ("events", "edges")
small_ints = st.integers(-(2**63), 2**63 - 1)  # what orjson writes (the split reader encodes)
items = st.recursive(
    st.none() | st.booleans() | small_ints | keys,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=3),
    max_leaves=10,
)
documents = st.builds(
    lambda head, events, edges: {**head, "events": events, "edges": edges},
    st.dictionaries(keys.filter(lambda k: k not in SPLIT), items, max_size=4),
    st.lists(items, max_size=4),
    st.lists(items, max_size=4),
)
layouts = st.sampled_from([{}, {"indent": 2}, {"indent": 0}, {"separators": (" ,", " : ")}])


def _joined(split: Split) -> dict[str, Any]:
    return {
        **split.members,
        **{name: [json.loads(item) for item in split.arrays[name].items()] for name in SPLIT},
    }


@given(document=documents, layout=layouts, data=st.data())
def test_split_reads_what_the_whole_reader_reads(
    document: dict[str, Any], layout: dict[str, Any], data: st.DataObject
) -> None:
    order = data.draw(st.permutations(sorted(document)))
    text = json.dumps({k: document[k] for k in order}, ensure_ascii=False, **layout)
    split = loads_integral_split(text.encode(), SPLIT)
    assert split is not None
    assert _joined(split) == document == loads_integral(text.encode())
    for name in SPLIT:
        packed = split.arrays[name]
        assert [*packed.items()] == [encode(item) for item in document[name]]
        assert bytes(packed.data) == encode(document[name])  # what the digest is taken over


@given(document=documents, layout=layouts)
def test_split_with_the_reference_encoder_packs_its_bytes(
    document: dict[str, Any], layout: dict[str, Any]
) -> None:
    """`verify`'s reading: each item written by canonicaljson, as it writes the whole array."""
    import canonicaljson

    from converter.codec.canonical import reference_encode

    text = json.dumps(document, ensure_ascii=False, **layout)
    split = loads_integral_split(text.encode(), SPLIT, reference_encode)
    assert split is not None
    for name in SPLIT:
        assert bytes(split.arrays[name].data) == canonicaljson.encode_canonical_json(document[name])


@given(document=documents, layout=layouts, data=st.data())
def test_split_never_reads_what_the_whole_reader_refuses(
    document: dict[str, Any], layout: dict[str, Any], data: st.DataObject
) -> None:
    """One character put anywhere (a repeated key's quote, a fraction, a stray comma...):
    the split reader reads the document only as `loads_integral` does, or leaves it to it."""
    text = json.dumps(document, ensure_ascii=False, **layout)
    at = data.draw(st.integers(0, len(text)))
    put = data.draw(st.sampled_from([*',:[]{}"1.eE- \\', "NaN", '"a":1,', '"events":[],']))
    edited = (text[:at] + put + text[at:]).encode()
    split = loads_integral_split(edited, SPLIT)
    try:
        whole = loads_integral(edited)
    except NotStrictJSON:
        assert split is None
        return
    if split is not None:
        assert _joined(split) == whole


@pytest.mark.parametrize(
    "doc",
    [
        b'{"events": [], "edges": [], "a": 1, "a": 2}',  # a repeated key, top level
        b'{"events": [{"k": 1, "k": 2}], "edges": []}',  # in an item
        b'{"events": [], "events": [], "edges": []}',  # a split member twice
        b'{"events": [1.5], "edges": []}',
        b'{"events": [], "edges": [], "x": 1e3}',
        b'{"events": [NaN], "edges": []}',
        b'{"events": [18446744073709551616], "edges": []}',  # past 64 bits: not encodable
        b'{"events": [], "edges": [], "x": [-18446744073709551616]}',  # outside the arrays too
        b'{"events": ["\\ud800"], "edges": []}',  # a lone surrogate: not encodable
        b'{"\\ud800": 0, "events": [], "edges": []}',  # in a top-level key (an audit: exit 70)
        b'{"events": [{"a\\u003a": 1}], "edges": []}',  # an escaped colon: no tally
        b'{"events": {}, "edges": []}',  # a split member that is no array
        b'{"events": []}',  # one missing
        b'{"events": [1,], "edges": []}',
        b'{"events": [], "edges": [],}',
        b'{"events": [], "edges": []} x',
        b'[{"events": [], "edges": []}]',
        b"\xff",
    ],
)
def test_split_leaves_to_the_whole_reader(doc: bytes) -> None:
    assert loads_integral_split(doc, SPLIT) is None


def test_split_empty_arrays() -> None:
    split = loads_integral_split(b' { "events" : [ ] , "edges":[]}\n', SPLIT)
    assert split is not None
    assert split.members == {}
    assert [len(split.arrays[name]) for name in SPLIT] == [0, 0]
    assert bytes(split.arrays["events"].data) == b"[]"
