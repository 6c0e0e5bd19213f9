"""Fuzzing the reader through the real CLI (issue 6 §3): mutate valid fixture trees byte-wise and
structurally; every run must accept (0) or refuse with a code (2) — never a traceback, an internal
error, leaked content or a written file. `HYPOTHESIS_PROFILE=fuzz` (`make fuzz`) runs 2000
examples per test; the default profile runs a bounded, derandomized few.
"""

from __future__ import annotations

import hashlib
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from converter.errors.codes import CODES
from converter.sources.jsonl import (
    BadLine,
    Digest,
    bounded_lines,
    iter_lines,
    parse_object,
    read_bounded,
    read_document,
)
from tests.conftest import FIXTURES
from tests.damage import COMMANDS, Outcome, Tree, copy_tree, dump, run_command

TREES = ("synthetic_tree", "rich_tree")
PLANTED = "CANARY-fuzz planted"  # not model-, version- or name-shaped: it may never cross

# Values a field can be turned into: every JSON type, edge numbers, and a planted marker.
ODD_VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    1.5,
    2**31,
    2**63 - 1,
    2**63,
    2**64 + 1,
    float("nan"),  # written as NaN
    "",
    PLANTED,
    "../" + PLANTED,
    [],
    [PLANTED],
    {},
    {"type": "text", "text": PLANTED},
]
SPECIAL_BYTES = [b'"', b"{", b"}", b"[", b"]", b":", b",", b"\\", b"\n", b"\r", b"\x00", b"\xff"]


def _files(tree: str) -> list[str]:
    root = FIXTURES / tree
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


FILES = {tree: _files(tree) for tree in TREES}


def _short_strings(tree: str) -> list[str]:
    """Ids, types, names and other short strings of a tree: swapping one for another makes
    records collide, join wrongly or change kind, which byte noise rarely reaches."""
    found: set[str] = set()
    for rel in FILES[tree]:
        for raw in (FIXTURES / tree / rel).read_bytes().splitlines():
            try:
                stack: list[Any] = [json.loads(raw)]
            except ValueError:
                continue
            while stack:
                node = stack.pop()
                if isinstance(node, dict):
                    found.update(k for k in node if "CANARY" not in k)
                    stack.extend(node.values())
                elif isinstance(node, list):
                    stack.extend(node)
                elif isinstance(node, str) and len(node) <= 64 and "CANARY" not in node:
                    found.add(node)
    return sorted(found)


POOL = {tree: _short_strings(tree) for tree in TREES}


def _nodes(root: Any) -> list[tuple[Any, Any]]:
    """Every (container, key-or-index) slot in a JSON value, iteratively."""
    slots: list[tuple[Any, Any]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            slots.append((node, key))
            if isinstance(value, (dict, list)):
                stack.append(value)
    return slots


def _mutate_bytes(data: st.DataObject, raw: bytes) -> bytes:
    size = len(raw)
    pos = data.draw(st.integers(0, size), label="pos")
    op = data.draw(
        st.sampled_from(["flip", "insert", "delete", "truncate", "special"]), label="byte-op"
    )
    if op == "flip" and size:
        pos = min(pos, size - 1)
        bit = data.draw(st.integers(0, 7), label="bit")
        return raw[:pos] + bytes([raw[pos] ^ (1 << bit)]) + raw[pos + 1 :]
    if op == "insert":
        extra = data.draw(st.binary(min_size=1, max_size=8), label="inserted")
        return raw[:pos] + extra + raw[pos:]
    if op == "delete":
        length = data.draw(st.integers(1, 64), label="length")
        return raw[:pos] + raw[pos + length :]
    if op == "truncate":
        return raw[:pos]
    special = data.draw(st.sampled_from(SPECIAL_BYTES), label="special")
    return raw[:pos] + special + raw[pos + 1 :]


def _mutate_lines(data: st.DataObject, lines: list[bytes], pool: list[str]) -> list[bytes]:
    if not lines:
        return lines
    index = data.draw(st.integers(0, len(lines) - 1), label="line")
    op = data.draw(
        st.sampled_from(["value", "reuse", "drop-key", "duplicate", "swap", "delete"]),
        label="line-op",
    )
    if op == "duplicate":
        return [*lines[: index + 1], lines[index], *lines[index + 1 :]]
    if op == "delete":
        return lines[:index] + lines[index + 1 :]
    if op == "swap":
        other = data.draw(st.integers(0, len(lines) - 1), label="other")
        lines = list(lines)
        lines[index], lines[other] = lines[other], lines[index]
        return lines
    try:
        obj = json.loads(lines[index])
    except ValueError:
        return lines
    slots = _nodes(obj) if isinstance(obj, (dict, list)) else []
    if not slots:
        return lines
    container, key = slots[data.draw(st.integers(0, len(slots) - 1), label="slot")]
    if op == "drop-key" and isinstance(container, dict):
        del container[key]
    elif op == "reuse":
        container[key] = data.draw(st.sampled_from(pool), label="reused")
    else:
        container[key] = data.draw(st.sampled_from(ODD_VALUES), label="value")
    lines = list(lines)
    lines[index] = dump(obj)
    return lines


def _mutate_file(data: st.DataObject, raw: bytes, is_lines: bool, pool: list[str]) -> bytes:
    structural = data.draw(st.booleans(), label="structural")
    if not structural:
        return _mutate_bytes(data, raw)
    if not is_lines:  # a whole-file JSON document (meta, manifest): one "line", no newline
        return b"".join(_mutate_lines(data, [raw], pool))
    final_newline = raw.endswith(b"\n")
    lines = raw.split(b"\n")[:-1] if final_newline else raw.split(b"\n")
    out = b"\n".join(_mutate_lines(data, lines, pool))
    return out + b"\n" if final_newline else out


def _check_no_leak(outcome: Outcome) -> None:
    """The guard already checked the marker; models are the one by-design exception (SPEC §6.3):
    a byte deletion can splice a marker into `message.model`, where a model-shaped name crosses."""
    text = outcome.out + outcome.err
    for model in (outcome.report or {}).get("by_model", {}):
        text = text.replace(model, "")
    assert "CANARY" not in text


@given(data=st.data())
def test_fuzz_mutated_tree_accepts_or_refuses(data: st.DataObject, cli: Any) -> None:
    tree_name = data.draw(st.sampled_from(TREES), label="tree")
    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        tree: Tree = copy_tree(tree_name, tmp / "src")
        for _ in range(data.draw(st.integers(1, 3), label="mutations")):
            rel = data.draw(st.sampled_from(FILES[tree_name]), label="file")
            path = tree.root / rel
            mutated = _mutate_file(data, path.read_bytes(), rel.endswith(".jsonl"), POOL[tree_name])
            path.write_bytes(mutated)
        for command in COMMANDS:
            outcome = run_command(cli, command, tree, tmp, markers=[PLANTED], allowed=(0, 2))
            _check_no_leak(outcome)
            if outcome.code == 2:
                assert outcome.refusals, "exit 2 without a coded refusal"


@given(raw=st.binary(max_size=512))
def test_fuzz_line_parser_never_raises(raw: bytes) -> None:
    parse_object(raw)
    read_document(raw)
    digest = Digest()
    numbers = []
    for number, item in iter_lines(io.BytesIO(raw), digest):
        numbers.append(number)
        # an object, or a line refused with a code of the catalogue at its own number
        assert isinstance(item, dict) or (item.code in CODES and item.line == number)
    assert numbers == sorted(set(numbers))
    assert digest.size == len(raw)


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)


def _as_read(node: Any) -> Any:
    """A value as a JSON reader gives it back: integers outside [-2**63, 2**64) as floats."""
    if isinstance(node, dict):
        return {k: _as_read(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_as_read(v) for v in node]
    if isinstance(node, int) and not isinstance(node, bool) and not -(2**63) <= node < 2**64:
        return float(node)
    return node


@given(value=st.dictionaries(st.text(max_size=4), _JSON, max_size=6))
def test_property_parser_agrees_with_an_exact_reading(value: dict[str, Any]) -> None:
    """Every JSON object without duplicate keys is accepted, lone surrogates and integers of any
    size included, and reads back equal to what an exact reader gives."""
    raw = json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    ascii_raw = json.dumps(value).encode()  # lone surrogates as `\\udXXX` escapes
    assert parse_object(ascii_raw) == _as_read(value)
    if any("\ud800" <= ch <= "\udfff" for ch in raw.decode("utf-8", "surrogatepass")):
        assert getattr(parse_object(raw), "code", None) == "CC-LINE-INVALID-UTF8"  # raw bytes
    else:
        assert parse_object(raw) == _as_read(value)


@given(data=st.data())
def test_fuzz_duplicate_keys_are_always_found(data: st.DataObject) -> None:
    """However a duplicate is spelled (escapes, nesting, colons in strings), it is refused."""
    key = data.draw(st.text(min_size=1, max_size=4), label="key")
    filler = data.draw(st.text(max_size=6), label="filler")
    spelled = json.dumps(key)
    escaped = "".join(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else c for c in key)
    second = data.draw(st.sampled_from([spelled, f'"{escaped}"']), label="second")
    inner = f'{{{spelled}:1,"f":{json.dumps(filler)},{second}:2}}'
    nested = data.draw(st.booleans(), label="nested")
    text = f'{{"a":{inner}}}' if nested else inner
    parsed = parse_object(text.encode("utf-8", "surrogatepass"))
    assert getattr(parsed, "code", None) == "CC-LINE-DUPLICATE-KEY"


@given(
    value=st.dictionaries(st.text(min_size=1, max_size=4), _JSON, min_size=1, max_size=5),
    data=st.data(),
)
def test_fuzz_a_duplicate_in_claude_codes_own_spelling_is_found(
    value: dict[str, Any], data: st.DataObject
) -> None:
    """Claude Code writes compact JSON the way orjson re-serializes it, and the parser takes
    that equality as proof of no duplicate: a line in exactly that spelling with one key
    repeated (same value or not, at the top or nested) is still refused."""
    key = data.draw(st.sampled_from(sorted(value)), label="key")
    again = data.draw(st.sampled_from([value[key], None, 0]), label="again")
    try:
        body = orjson.dumps(value)[:-1] + b"," + orjson.dumps({key: again})[1:]
    except orjson.JSONEncodeError:  # a lone surrogate: another test's matter
        return
    text = b'{"outer":' + body + b"}" if data.draw(st.booleans(), label="nested") else body
    assert getattr(parse_object(text), "code", None) == "CC-LINE-DUPLICATE-KEY"
    assert parse_object(orjson.dumps(value)) == _as_read(value)


def _string_slots(root: Any) -> list[tuple[Any, Any]]:
    return [(node, key) for node, key in _nodes(root) if isinstance(node[key], str)]


@pytest.mark.parametrize("odd", [[], {}], ids=["list", "object"])
@pytest.mark.parametrize("name", TREES)
def test_no_text_field_of_a_record_crashes_as_a_list_or_an_object(
    name: str, odd: Any, cli: Any, tmp_path: Path
) -> None:
    """A fuzz hunt: a tool_use block's name, a prompt's turnOrigin or a prompt block's type
    holding a list or an object was exit 70 (an unhashable value tested against a set). Every
    text field of every file of the fixture trees, turned into each in turn, is read or
    refused with a code."""
    tree = copy_tree(name, tmp_path / "src")
    parent_name = tree.parent.name
    for listed in FILES[name]:
        rel = "" if listed == parent_name else listed.split("/", 1)[1]
        path = tree.path(rel)
        original = path.read_bytes()
        whole = path.suffix == ".json"  # a metadata file or manifest: one document
        lines = [original] if whole else tree.lines(rel)
        for number, raw in enumerate(lines, 1):
            for slot in range(len(_string_slots(json.loads(raw)))):
                obj = json.loads(raw)
                node, key = _string_slots(obj)[slot]
                node[key] = odd
                if whole:
                    path.write_bytes(dump(obj))
                else:
                    tree.set_line(rel, number, dump(obj))
                outcome = run_command(cli, COMMANDS[0], tree, tmp_path)
                assert outcome.code in (0, 2), (rel, number, key, outcome.err[-400:])
            path.write_bytes(original)


@given(
    value=st.dictionaries(st.text(max_size=4), _JSON, max_size=4),
    lines=st.integers(min_value=1, max_value=5),
    encoding=st.sampled_from(["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le"]),
)
def test_property_a_wide_text_is_one_utf16_line_and_bound_whole(
    value: dict[str, Any], lines: int, encoding: str
) -> None:
    """JSON lines re-encoded to UTF-16 or UTF-32, with or without a byte-order mark: one
    CC-LINE-UTF16 at line 1 and nothing after it, the digest of every byte; whole-file
    documents (meta, manifests) are the same code."""
    line = json.dumps(value, separators=(",", ":"))
    raw = ("\n".join([line] * lines) + "\n").encode(encoding)
    digest = Digest()
    items = list(iter_lines(io.BytesIO(raw), digest))
    assert [(n, getattr(i, "code", None)) for n, i in items] == [(1, "CC-LINE-UTF16")]
    assert (digest.size, digest.sha256) == (len(raw), hashlib.sha256(raw).hexdigest())
    assert getattr(read_document(line.encode(encoding)), "code", None) == "CC-LINE-UTF16"


@given(
    lengths=st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=8),
    limit=st.integers(min_value=2, max_value=24),
    newline_at_end=st.booleans(),
)
def test_property_a_line_too_long_is_one_refusal_and_the_rest_read_as_before(
    lengths: list[int], limit: int, newline_at_end: bool
) -> None:
    """Lines of JSON of any length around the limit: each longer than it is one
    CC-LINE-TOO-LONG at its own number, held a piece at a time; every other line reads as the
    file read whole reads it, at the same number; the digest is of every byte (a fuzz hunt: a
    gigabyte with no newline ran the reader out of memory, exit 70)."""
    lines = [b'{"k":"' + b"x" * n + b'"}' for n in lengths]
    raw = b"\n".join(lines) + (b"\n" if newline_at_end else b"")
    whole = list(iter_lines(io.BytesIO(raw), Digest()))
    digest = Digest()
    bounded = list(iter_lines(bounded_lines(io.BytesIO(raw), limit), digest))
    # a line of more than `limit` bytes before its newline (or the file's end) is too long
    long = {n for n, line in enumerate(lines, 1) if len(line) > limit}
    expected = [(n, BadLine("CC-LINE-TOO-LONG", n) if n in long else item) for n, item in whole]
    assert bounded == expected
    assert (digest.size, digest.sha256) == (len(raw), hashlib.sha256(raw).hexdigest())


@given(size=st.integers(min_value=0, max_value=64), limit=st.integers(min_value=1, max_value=40))
def test_property_a_document_past_the_limit_is_bound_not_held(size: int, limit: int) -> None:
    raw = bytes(range(size))
    data, digest = read_bounded(io.BytesIO(raw), limit)
    assert data == (raw if size <= limit else None)
    assert (digest.size, digest.sha256) == (size, hashlib.sha256(raw).hexdigest())


@given(
    lengths=st.lists(st.integers(min_value=0, max_value=40), min_size=1, max_size=6),
    limit=st.integers(min_value=2, max_value=24),
    cut=st.floats(min_value=0, max_value=1),
)
def test_property_a_file_read_as_it_was_when_opened_reads_as_its_copy_then(
    lengths: list[int], limit: int, cut: float
) -> None:
    """A transcript being appended to is read up to its size when opened (`bounded_lines`'s
    `size`): exactly as a copy of those bytes reads, a line too long to read included (a
    review: the cut was judged on bytes past it, and a mutant marking every piece a line's
    start passed)."""
    raw = b"".join(b'{"k":"' + b"x" * n + b'"}\n' for n in lengths)
    size = int(len(raw) * cut)
    copy, live = Digest(), Digest()
    expected = list(iter_lines(bounded_lines(io.BytesIO(raw[:size]), limit), copy))
    got = list(iter_lines(bounded_lines(io.BytesIO(raw), limit, size), live))
    assert got == expected
    assert (live.size, live.sha256) == (copy.size, copy.sha256) == (size, _sha(raw[:size]))


@given(limit=st.integers(min_value=2, max_value=24), lines=st.integers(min_value=1, max_value=3))
def test_property_a_wide_text_whose_first_line_is_too_long_is_still_one_utf16(
    limit: int, lines: int
) -> None:
    """A review: a UTF-16 file whose first line passed the limit was TOO-LONG, TOO-LONG, TORN."""
    raw = ("\n".join(['{"key":"' + "v" * 40 + '"}'] * lines) + "\n").encode("utf-16")
    digest = Digest()
    items = list(iter_lines(bounded_lines(io.BytesIO(raw), limit), digest))
    assert [(n, getattr(i, "code", None)) for n, i in items] == [(1, "CC-LINE-UTF16")]
    assert (digest.size, digest.sha256) == (len(raw), _sha(raw))


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("end", [b"", b"\n", b"\r\n"])
def test_a_line_is_parsed_with_its_line_end_and_still_proved_free_of_duplicates(end: bytes) -> None:
    """A resource audit: each line was copied whole to strip its line end before parsing (a
    60 MB line held four times over). It is parsed with it, and the fast proof that it holds no
    repeated key (orjson writes it back as it stands) still takes it; a repeated key does not
    pass, whatever ends the line."""
    from converter.sources.jsonl import _Failure, _needs_exact_check, parse_object

    line = b'{"a":1,"b":[2,{"c":"x:y"}]}'
    assert parse_object(line + end) == {"a": 1, "b": [2, {"c": "x:y"}]}
    assert _needs_exact_check(line + end, parse_object(line + end)) is False
    repeated = b'{"a":1,"a":2}' + end
    assert parse_object(repeated) == _Failure("CC-LINE-DUPLICATE-KEY")
