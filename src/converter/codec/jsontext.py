"""One strict JSON reader for whole documents (contracts, bundles, price cards, envelopes).

Strict means: duplicate keys, NaN and Infinity are refused, and numbers with a fraction or an
exponent become exact `Decimal`s, never floats. The transcript line reader
(`sources/jsonl.py`) applies the same rules but also names which one a line broke.
"""

from __future__ import annotations

import json
import re
from array import array
from collections.abc import Callable, Iterator
from decimal import Decimal
from json.scanner import make_scanner
from typing import Any, NamedTuple

import orjson


class NotStrictJSON(ValueError):
    """The bytes are not one strict JSON document; `line` is where, when the parser knows.
    `parsed`: the bytes are JSON, but of a kind refused here (a repeated key, NaN, a fraction
    where only integers may be), rather than not JSON at all. `exceeds`: the parser stopped at
    its own limits (an integer of more digits than the interpreter converts, nesting deeper
    than its recursion limit), so whether the rest is JSON is not known."""

    def __init__(
        self, reason: str, line: int | None = None, *, parsed: bool = False, exceeds: bool = False
    ) -> None:
        super().__init__(reason)
        self.line = line
        self.parsed = parsed
        self.exceeds = exceeds


class _DuplicateKey(NotStrictJSON):
    """Raised by the pairs hook, which sees no position; `_scan` finds the line."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document = dict(pairs)
    if len(document) != len(pairs):
        raise _DuplicateKey("duplicate key", parsed=True)
    return document


# A JSON string, a structural character, NaN or Infinity: what the line finders step on.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\],:\n]|NaN|-?Infinity')


def _tokens(text: str) -> Iterator[tuple[int, str]]:
    """Each token of a refused document (strings whole, so nothing inside one is taken for
    structure) with the line it is on; line breaks are counted, not yielded."""
    line = 1
    for match in _TOKEN.finditer(text):
        piece = match.group()
        if piece == "\n":
            line += 1
        else:
            yield line, piece


def _duplicate_line(text: str) -> int | None:
    """The line of the first key an object repeats, found by walking the refused document's
    strings and structure again: a hand-edited contract is fixed at a line, not by a search."""
    keys: list[set[str] | None] = []  # per open container, the keys seen (None: an array)
    key_next = False
    for line, piece in _tokens(text):
        if piece[0] == '"':
            if key_next and keys and keys[-1] is not None:
                key = json.loads(piece)  # "a" and "\u0061" are one key
                if key in keys[-1]:
                    return line
                keys[-1].add(key)
            key_next = False
        elif piece in "{[":
            keys.append(set() if piece == "{" else None)
            key_next = piece == "{"
        elif piece in "}]":
            if keys:
                keys.pop()
            key_next = False
        elif piece in ",:":  # "," opens the next key of an object; ":" its value
            key_next = piece == "," and bool(keys) and keys[-1] is not None
    return None


def _error_line(text: str, bad: json.JSONDecodeError) -> int:
    """The line to fix. The parser stops at the token after a trailing comma (`"a": 1,` then
    `}`), a line late; a hand-edited contract is fixed where the comma is."""
    before = text[: bad.pos].rstrip()
    if before.endswith(",") and text[bad.pos : bad.pos + 1] in ("}", "]"):
        return before.count("\n") + 1
    return bad.lineno


def _long_integer(literal: str) -> int | Decimal:
    """An integer literal as an int, or, past the interpreter's digit limit for int conversion
    (4,300), as a Decimal: the model it is read into then names the field (a price too
    precise, a count out of range) instead of the whole document failing with no line. `-0`
    is the Decimal `-0`, whose sign the models refuse as they refuse `-0.0`'s."""
    if literal == "-0":  # a sign on zero, as `-0.0` keeps one: refused where `-0.0` is
        return Decimal(literal)  # (an audit: int("-0") is a plain 0, accepted as a price)
    return int(literal) if len(literal) <= 4000 else Decimal(literal)


class _Constant(NotStrictJSON):
    """Raised by the constant hook, which sees no position; `_scan` finds the line."""


def _no_constant(_: str) -> Any:
    raise _Constant("NaN and Infinity are not JSON numbers", parsed=True)


def _constant_line(text: str) -> int | None:
    """The line of the first NaN or Infinity outside a string."""
    return next((line for line, piece in _tokens(text) if piece[0] in "NI-"), None)


def _scan(data: bytes, **hooks: Any) -> Any:
    """The standard parser over UTF-8 `data` with `hooks`; every failure is NotStrictJSON."""
    text = ""
    try:
        text = data.decode("utf-8")
        return json.loads(text, parse_constant=_no_constant, **hooks)
    except _DuplicateKey:
        raise NotStrictJSON("duplicate key", _duplicate_line(text), parsed=True) from None
    except _Constant as bad:
        raise NotStrictJSON(str(bad), _constant_line(text), parsed=True) from None
    except NotStrictJSON:
        raise
    except json.JSONDecodeError as bad:
        raise NotStrictJSON("syntax", _error_line(text, bad)) from None
    except RecursionError:
        raise NotStrictJSON("nested deeper than the parser goes", exceeds=True) from None
    except ValueError as bad:
        # an integer literal past the interpreter's digit limit (`sys.get_int_max_str_digits`)
        exceeds = "integer string conversion" in str(bad)
        raise NotStrictJSON(type(bad).__name__, exceeds=exceeds) from None


def is_json_lines(data: bytes) -> bool:
    """Whether `data` reads as JSON Lines, a transcript's form: a JSON object on its first line
    and more after it. Said of a file given where one JSON document was wanted (a contract, a
    bundle), so the refusal names the mix-up, not a syntax error at line 2."""
    first, newline, rest = data.partition(b"\n")
    if not newline or not rest.strip():
        return False
    try:
        return isinstance(orjson.loads(first), dict)
    except orjson.JSONDecodeError:
        return False


def loads_exact(data: bytes) -> Any:
    """Parse strict JSON; raises NotStrictJSON (a ValueError) on anything else."""
    return _scan(data, parse_float=Decimal, parse_int=_long_integer, object_pairs_hook=_unique)


def loads_with_floats(data: bytes) -> Any:
    """Strict JSON (no repeated key, no NaN) whose fractions are floats, as another writer's
    encoder holds them: only to recompute a digest that writer made (`bundle.io`)."""
    return _scan(data, object_pairs_hook=_unique)


def _no_fraction(_: str) -> Any:
    raise NotStrictJSON("a number with a fraction or an exponent", parsed=True)


def loads_integral(data: bytes) -> Any:
    """Strict JSON whose numbers are all integers (a bundle writes money as text): the same
    refusals as `loads_exact`, and a fraction or exponent anywhere is refused too.

    C speed for the common case: the standard scanner runs with no per-object hook, and a
    duplicate key is found by the colon tally of `sources/jsonl.py` (a dropped duplicate takes
    its ':' with it; orjson re-writes the value with one ':' per key and every ':' in a string).
    A `\\u003a`-style escape, or a value orjson cannot write, falls back to the exact reader.
    The value holds no float, so it can be encoded canonically without a walk.
    """
    value = _scan(data, parse_float=_no_fraction)
    try:
        tallied = b"\\u003" not in data and _written_colons(value) == data.count(b":")
    except orjson.JSONEncodeError:
        tallied = False
    if not tallied:
        loads_exact(data)  # raises NotStrictJSON on a duplicate key
    return value


def _written_colons(value: Any) -> int:
    """The ':' bytes orjson writes for `value`; a top-level list member is written item by item,
    so a large document is never written whole."""
    if not isinstance(value, dict):
        return orjson.dumps(value).count(b":")
    total = 0
    for key, member in value.items():
        total += 1 + key.count(":")
        items = member if isinstance(member, list) else [member]
        total += sum(orjson.dumps(item).count(b":") for item in items)
    return total


def as_tuples(value: Any) -> Any:
    """The same JSON value with every array as a tuple (frozen models take tuples in strict
    mode). Post-order with an explicit stack: no recursion, whatever the nesting."""
    if not isinstance(value, dict | list):
        return value
    done: dict[int, Any] = {}  # id(node) -> converted node; nodes stay alive inside `value`

    def converted(child: Any) -> Any:
        return done[id(child)] if isinstance(child, dict | list) else child

    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        node, children_done = stack.pop()
        if children_done:
            if isinstance(node, dict):
                done[id(node)] = {key: converted(item) for key, item in node.items()}
            else:
                done[id(node)] = tuple(converted(item) for item in node)
            continue
        stack.append((node, True))
        members = node.values() if isinstance(node, dict) else node
        stack.extend((m, False) for m in members if isinstance(m, dict | list))
    return done[id(value)]


class Packed:
    """A JSON array as its canonical bytes (`[`, each item as `canonical.encode` writes it, or
    canonicaljson for `verify`: the same bytes; `,` between, `]`) and where each item begins:
    one buffer, not an object per item (orjson's output keeps a 4 KB buffer each: 70k of them
    would take 280 MB)."""

    __slots__ = ("data", "starts")

    def __init__(self) -> None:
        self.data = bytearray(b"[")
        self.starts = array("q")

    def add(self, item: bytes) -> None:
        if self.starts:
            self.data += b","
        self.starts.append(len(self.data))
        self.data += item

    def close(self) -> None:
        self.data += b"]"

    def __len__(self) -> int:
        return len(self.starts)

    def items(self) -> Iterator[bytes]:
        """Each item's bytes, in order."""
        starts, view = self.starts, memoryview(self.data)
        last = len(starts) - 1
        for index, start in enumerate(starts):
            # up to the comma before the next item, or to the closing bracket (one copy)
            end = starts[index + 1] - 1 if index < last else len(view) - 1
            yield bytes(view[start:end])


class Split(NamedTuple):
    """A JSON object read with some of its array members packed (`loads_integral_split`)."""

    members: dict[str, Any]  # every other member, as `loads_integral` reads it
    arrays: dict[str, Packed]


_SPACE = re.compile(r"[ \t\n\r]*")  # JSON's whitespace, and only it
_INTEGRAL = json.JSONDecoder(parse_float=_no_fraction, parse_constant=_no_constant)
# raw_decode's scanner, without its wrapping call (typeshed types make_scanner as a class)
_SCAN_ONE: Callable[[str, int], tuple[Any, int]] = make_scanner(_INTEGRAL)  # type: ignore[arg-type]


def loads_integral_split(
    data: bytes, split: tuple[str, ...], encoder: Callable[[Any], bytes] | None = None
) -> Split | None:
    """`loads_integral(data)` for an object whose members named in `split` are arrays, with
    their items held as canonical bytes: a bundle's 70k events and edges are never values all
    at once (75 MB for the bench tree's 19 MB bundle, beside a text copy of it: the peak of
    `evaluate`), and each item is encoded once, for its digest and its model alike. `encoder`
    writes each item (`canonical.encode` unless given: `verify` passes canonicaljson's).

    None for anything but such an object whose every value `loads_integral` takes (a repeated
    key, a fraction, NaN, invalid UTF-8, a `\\u003a`-style escape, a split member missing or
    not an array, a value orjson cannot write): then `loads_integral` decides, and refuses.
    """
    if b"\\u003" in data:  # the colon tally below cannot see a repeated key so escaped
        return None
    try:
        text = data.decode("utf-8")
        found = _split_members(text, split, encoder)
    except (ValueError, RecursionError, orjson.JSONEncodeError):  # NotStrictJSON is a ValueError
        return None
    if found is None or any(name not in found.arrays for name in split):
        return None
    del text
    # A repeated key anywhere: the colons a reader that dropped it writes are fewer than the
    # bytes hold (`loads_integral`'s tally, over the items' bytes as they are).
    written = 0
    try:  # (every key and value is encoded again: one orjson cannot write is not split)
        for name, member in found.members.items():
            written += 1 + orjson.dumps(name).count(b":") + orjson.dumps(member).count(b":")
    except orjson.JSONEncodeError:  # an integer past 64 bits, a lone surrogate, a key's too
        return None
    for name, packed in found.arrays.items():
        written += 1 + name.count(":") + packed.data.count(b":")
    return found if written == data.count(b":") else None


def _skip(text: str, at: int) -> int:
    """The position of the first byte at or after `at` that is not JSON whitespace."""
    space = _SPACE.match(text, at)
    assert space is not None  # it matches the empty string
    return space.end()


def _split_members(
    text: str, split: tuple[str, ...], encoder: Callable[[Any], bytes] | None
) -> Split | None:
    """The top-level object of `text`, walked member by member; None where it is not one
    object of distinct keys. Raises what the scanner or the encoder raise."""
    members: dict[str, Any] = {}
    arrays: dict[str, Packed] = {}
    at = _skip(text, 0)
    if text[at : at + 1] != "{":
        return None
    at = _skip(text, at + 1)
    following = text[at : at + 1]
    if following == "}":
        at += 1
    while following != "}":
        if text[at : at + 1] != '"':
            return None
        name, at = _INTEGRAL.raw_decode(text, at)
        at = _skip(text, at)
        if text[at : at + 1] != ":" or name in members or name in arrays:
            return None
        at = _skip(text, at + 1)
        if name in split:
            items = _encoded_items(text, at, encoder)
            if items is None:
                return None
            arrays[name], at = items
        else:
            members[name], at = _INTEGRAL.raw_decode(text, at)
        at = _skip(text, at)
        following = text[at : at + 1]
        if following not in ("}", ","):
            return None
        at = _skip(text, at + 1)
    return Split(members, arrays) if _skip(text, at) == len(text) else None


def _encoded_items(
    text: str, at: int, encoder: Callable[[Any], bytes] | None
) -> tuple[Packed, int] | None:
    """The array at `at`, packed, and the position after it; None where no array is there.
    (The loop runs once per event and edge: the scanner is called directly, and whitespace
    looked for only where a character that is not `,` or `]` follows an item.)"""
    from converter.codec.canonical import encode as fast  # (canonical does not import this)

    encode = encoder or fast
    if text[at : at + 1] != "[":
        return None
    packed = Packed()
    data, starts = packed.data, packed.starts
    scan = _SCAN_ONE
    at = _skip(text, at + 1)
    following = text[at : at + 1]
    while following != "]":
        try:
            item, at = scan(text, at)
        except StopIteration:  # no JSON value begins here
            return None
        if starts:
            data += b","
        starts.append(len(data))
        data += encode(item)
        following = text[at : at + 1]
        if following not in ("]", ","):
            at = _skip(text, at)
            following = text[at : at + 1]
            if following not in ("]", ","):
                return None
        if following == ",":
            at = _skip(text, at + 1)
    packed.close()
    return packed, at + 1
