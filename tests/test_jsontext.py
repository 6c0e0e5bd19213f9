"""The fast integral reader refuses exactly what the exact reader refuses, plus any fraction."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from converter.codec.jsontext import NotStrictJSON, loads_exact, loads_integral

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
