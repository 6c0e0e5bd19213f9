"""Strict JSON reading: one pass over the bytes, every byte hashed is a byte parsed.

orjson parses the common case. When it rejects a line, the standard library reads it exactly: a
line it accepts is taken from that reading (a lone UTF-16 surrogate escape such as `"\\ud83d"`
is valid JSON, and Node writes one when it cuts a string inside a character), and a line it
refuses gets a stable code. Duplicate keys are invisible to orjson (last one wins), so each parsed
line is tallied: the number of ':' bytes in the raw line must equal the number of keys plus the
':' characters inside decoded strings. A mismatch, or a '\\u003a'-style escape (which adds a
decoded ':' and could hide a duplicate), falls back to the exact check.

Numbers are JSON's, of any size: Node writes integers up to 10^21 in full. Both readers keep an
integer in [-2**63, 2**64) exact and read a larger one as a float; no count the converter reads
can be a float (records.py refuses it there), and content it skips is not judged by its numbers.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, overload

import orjson

if TYPE_CHECKING:
    from converter.sources.torn import Cut

MAX_DEPTH = 512
_INT64 = 2**63
_BOM = b"\xef\xbb\xbf"
_LINE_ENDS = (b"", b"\n", b"\r\n")  # what may follow a record on its line
# The start of a text in UTF-16 or UTF-32: a byte-order mark, or `{` written in two or four
# bytes (a file of NULs, as a crash can leave, is not taken for one). Claude Code writes UTF-8;
# such a file is a re-encoded copy (Windows PowerShell 5's `>` and Out-File write UTF-16), every
# line of which would be refused as bad UTF-8 or JSON, with a "damaged" fix that misleads.
_WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")


def wide_text(start: bytes) -> bool:
    """Whether bytes that start a file are UTF-16 or UTF-32 text (CC-LINE-UTF16)."""
    return start.startswith(_WIDE_BOMS) or start[:2] in (b"{\x00", b"\x00{")


# The longest line read (CC-LINE-TOO-LONG): 28 times the longest measured (4.6 MB, FORMAT-NOTES
# §8), four times the 32 MB the Messages API takes in a request. Parsing a line takes about three
# times its size; a line of gigabytes with no newline (garbage, a disk image) ran a reader out of
# memory (exit 70) where it is now refused, its bytes still hashed a piece at a time.
MAX_LINE = 128 << 20


@dataclass(frozen=True, slots=True)
class LongPiece:
    """A piece of a line longer than MAX_LINE, its line end not counted (`bounded_lines`):
    hashed, never parsed. `first` on the piece that starts the line. Not a bytes subclass:
    wrapping a piece copies nothing."""

    data: bytes
    first: bool


Piece = bytes | LongPiece


def piece_bytes(piece: Piece) -> bytes:
    """The bytes a piece holds, of a line read whole or of one too long to read."""
    return piece.data if isinstance(piece, LongPiece) else piece


_REST = 1 << 20


def bounded_lines(
    stream: BinaryIO, limit: int | None = None, size: int | None = None
) -> Iterator[Piece]:
    """A binary file's lines, as iterating it gives them, except that a line of more than
    `limit` bytes (MAX_LINE) before its `\n` comes as LongPieces: its first `limit + 1`
    bytes, then pieces of a MiB at most. Memory stays bounded by `limit`.

    `size`: read only the file's first `size` bytes, as it was when opened. Claude Code appends
    to a live session; a line half written when the reader reached it would else be read in
    two parts (a torn line, then its rest as a line of invalid JSON, every line after it
    numbered one too many), and the digest would bind bytes that were never the file at one
    moment. A line the cut leaves at `limit` bytes or fewer is read as any line cut short."""
    readline = stream.readline
    if limit is None:
        limit = MAX_LINE
    cap = limit + 1  # a line of `limit` bytes and its newline is read whole
    left = (1 << 62) if size is None else size
    while left > 0 and (raw := readline(cap if left > cap else left)):
        left -= len(raw)
        if len(raw) <= limit or raw.endswith(b"\n"):
            yield raw
            continue
        yield LongPiece(raw, first=True)
        while left > 0 and (raw := readline(_REST if left > _REST else left)):
            left -= len(raw)  # the rest in small pieces: only the first is large
            yield LongPiece(raw, first=False)
            if raw.endswith(b"\n"):
                break


JSONObject = dict[str, Any]


@dataclass(frozen=True, slots=True)
class BadLine:
    code: str
    line: int


@dataclass(frozen=True, slots=True)
class CutRecord:
    """A record cut short inside a file (`sources/torn.py`): the members its head holds whole."""

    line: int
    head: JSONObject
    at_end: bool = False  # the file's last line, no newline: perhaps still being written


class _Duplicate(Exception):
    pass


class _NonFinite(Exception):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Duplicate
    return obj


def _reject_constant(_: str) -> Any:
    raise _NonFinite


def _number(text: str) -> int | float:
    """An integer literal as orjson reads it: exact in [-2**63, 2**64), else a float; one past a
    double's range is refused like 1e400. The length test keeps Python's int digit limit out of
    reach."""
    if len(text) <= 20:
        value = int(text)
        if -_INT64 <= value < 2 * _INT64:
            return value
    return _strict_float(text)


def _strict_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):  # a literal such as 1e400 overflows to Infinity
        raise _NonFinite
    return value


def _depth(root: Any) -> int:
    """The deepest nesting of objects and arrays; no recursion."""
    depth_max = 0
    stack: list[tuple[Any, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            depth_max = max(depth_max, depth)
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            depth_max = max(depth_max, depth)
            stack.extend((v, depth + 1) for v in node)
    return depth_max


@dataclass(frozen=True, slots=True)
class _Failure:
    code: str


def _exact(raw: bytes) -> Any:
    """Read exactly with the standard library: the value, or a `_Failure` naming the code."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return _Failure("CC-LINE-INVALID-UTF8")
    try:
        value = json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_constant=_reject_constant,
            parse_int=_number,
            parse_float=_strict_float,
        )
    except _Duplicate:
        return _Failure("CC-LINE-DUPLICATE-KEY")
    except _NonFinite:
        return _Failure("CC-LINE-NONFINITE")
    except RecursionError:
        return _Failure("CC-LINE-TOO-DEEP")
    except ValueError:
        return _Failure("CC-LINE-INVALID-JSON")
    if _depth(value) > MAX_DEPTH:
        return _Failure("CC-LINE-TOO-DEEP")
    return value


def _needs_exact_check(raw: bytes, value: Any) -> bool:
    """True unless C-speed evidence proves the line has no duplicate key.

    A colon occurs in JSON text only as a key separator or inside a string, and orjson never
    escapes one. So with no duplicate keys and no `\\u003a` escapes, the raw line and orjson's
    re-serialization of the parsed value hold the same number of ':' bytes; a dropped duplicate
    always removes at least its separator. An escape could balance a duplicate, so it too sends
    the line to the exact check, as does nesting deeper than orjson's writer allows.

    Claude Code writes compact JSON the way orjson does (99.6% of the corpus's lines, all those
    of its transcripts), so the re-serialization is most often the raw line itself: one compare
    then proves what the counts would, as orjson never writes an escaped colon.
    """
    try:
        again = orjson.dumps(value)
    except orjson.JSONEncodeError:
        return True
    if raw.startswith(again) and raw[len(again) :] in _LINE_ENDS:  # its line end left on
        return False
    if b"\\u003" in raw:
        return True
    return raw.count(b":") != again.count(b":")


def parse_value(raw: bytes) -> Any:
    """Parse one JSON text strictly; a `_Failure` names the CC-LINE-* code when it is refused."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _exact(raw)
    if _needs_exact_check(raw, value):
        exact = _exact(raw)
        if isinstance(exact, _Failure) and exact.code != "CC-LINE-INVALID-JSON":
            return exact
    return value


def parse_object(raw: bytes) -> JSONObject | _Failure:
    value = parse_value(raw)
    if isinstance(value, _Failure):
        return value
    if not isinstance(value, dict):
        return _Failure("CC-LINE-NOT-OBJECT")
    return value


@dataclass(slots=True)
class Digest:
    """SHA-256 and size of the bytes read; `size` grows as lines are read, `sha256` is set once
    the reader is exhausted."""

    sha256: str = ""
    size: int = 0


def read_bounded(stream: BinaryIO, limit: int = MAX_LINE) -> tuple[bytes | None, Digest]:
    """A whole-file document's bytes (None past `limit`, CC-LINE-TOO-LONG) and their digest,
    hashed a piece at a time, so a huge file is bound without being held."""
    hasher = hashlib.sha256()
    kept: list[bytes] = []
    size = 0
    while piece := stream.read(1 << 20):
        hasher.update(piece)
        size += len(piece)
        if size <= limit:
            kept.append(piece)
        else:
            kept.clear()
    return (b"".join(kept) if size <= limit else None), Digest(hasher.hexdigest(), size)


def _cut_short(body: bytes, code: str) -> bool:
    """Could this unterminated last line be a write cut short? A cut can fall inside a UTF-8
    character (non-ASCII text is written raw), so invalid UTF-8 only at the very end counts too."""
    if code == "CC-LINE-INVALID-JSON":
        return True
    if code != "CC-LINE-INVALID-UTF8":
        return False
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as bad:
        return bad.end == len(body) and bad.reason == "unexpected end of data"
    return False


# What a record cut short inside a file looks like to the parser: the cut can fall anywhere, in
# a character too, and what follows it is the next record.
_MAYBE_CUT = frozenset({"CC-LINE-INVALID-JSON", "CC-LINE-INVALID-UTF8"})


@overload
def iter_lines(
    stream: Iterable[Piece], digest: Digest, cuts: None = None
) -> Iterator[tuple[int, JSONObject | BadLine]]: ...


@overload
def iter_lines(
    stream: Iterable[Piece], digest: Digest, cuts: Callable[[bytes], Cut | None]
) -> Iterator[tuple[int, JSONObject | BadLine | CutRecord]]: ...


def iter_lines(
    stream: Iterable[Piece], digest: Digest, cuts: Callable[[bytes], Cut | None] | None = None
) -> Iterator[tuple[int, JSONObject | BadLine | CutRecord]]:
    """Yield (line number, object or BadLine) for each non-blank line; fill `digest` at the end.

    Memory is bounded by the longest line. A BOM at the start and CRLF line ends are accepted;
    a file in UTF-16 or UTF-32 is one CC-LINE-UTF16, its bytes hashed and not read as lines.
    A final line without a newline that does not parse is a torn write (CC-LINE-TORN). `cuts`
    (`torn.split`, for transcripts): a line that does not parse may be a record cut short,
    followed by the next one or last; it yields a CutRecord, then the record glued after it.
    """
    hasher = hashlib.sha256()
    number = 0
    digest.size = 0
    lines = iter(stream)
    for raw in lines:
        if isinstance(raw, LongPiece):  # bound as it is, not read (MAX_LINE)
            if number == 0 and wide_text(raw.data):
                yield 1, BadLine("CC-LINE-UTF16", 1)
                _bind_rest(hasher, digest, raw, lines)
                break
            hasher.update(raw.data)
            digest.size += len(raw.data)
            if raw.first:
                number += 1
                yield number, BadLine("CC-LINE-TOO-LONG", number)
            continue
        number += 1
        body = raw
        if number == 1 and wide_text(raw):
            yield number, BadLine("CC-LINE-UTF16", number)
            _bind_rest(hasher, digest, raw, lines)
            break
        hasher.update(raw)
        digest.size += len(raw)  # kept current: a caller may pace work by bytes read
        if number == 1 and body.startswith(_BOM):
            body = body[len(_BOM) :]
        complete = body.endswith(b"\n")
        # Parsed with its line end, which JSON reads as the whitespace it is: stripped, a line
        # was copied whole (a resource audit: a 60 MB line held four times over, not three).
        if not body.lstrip(b" \t\r\n"):  # (no copy: a record starts with its `{`)
            yield number, BadLine("CC-LINE-BLANK", number)
            continue
        parsed = parse_object(body)
        if not isinstance(parsed, _Failure):
            yield number, parsed
            continue
        body = body.rstrip(b"\r\n")  # a line refused: its text as written, for what cut it
        cut = cuts(body) if cuts and parsed.code in _MAYBE_CUT else None
        if cut is not None:
            if cut.joined:
                yield number, BadLine("CC-LINE-JOINED", number)  # a finding: nothing was lost
                yield number, cut.head
            else:
                # With nothing after it, a file's last record cut: still being written, or a
                # crash the session never came back from.
                at_end = not complete and cut.record is None
                yield number, CutRecord(number, cut.head, at_end=at_end)
            if cut.record is not None:
                yield number, cut.record
            continue
        torn = not complete and _cut_short(body, parsed.code)
        yield number, BadLine("CC-LINE-TORN" if torn else parsed.code, number)
    digest.sha256 = hasher.hexdigest()


def _bind_rest(hasher: Any, digest: Digest, first: Piece, lines: Iterator[Piece]) -> None:
    """A file not read as lines (CC-LINE-UTF16) is still bound: every byte hashed."""
    for piece in itertools.chain((first,), lines):
        data = piece_bytes(piece)
        hasher.update(data)
        digest.size += len(data)


def cut_short(data: bytes) -> bool:
    """Whether a whole-file document that does not parse is a valid one's beginning, cut: it
    ends inside a UTF-8 character, or the parser runs out of text (inside the object, or in a
    string it opened). Anything wrong before its end (a bad byte, `,,`, a second document) is
    not. Only called on a failed parse: the standard parser says where it stopped."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as bad:
        return bad.end == len(data) and bad.reason == "unexpected end of data"
    try:
        json.loads(text)
    except json.JSONDecodeError as bad:
        return bad.pos >= len(text.rstrip()) or bad.msg.startswith("Unterminated string")
    except RecursionError:
        return False
    return False


def read_document(data: bytes) -> JSONObject | BadLine:
    """Parse a whole-file JSON object (meta files, manifests, contracts)."""
    if wide_text(data):
        return BadLine("CC-LINE-UTF16", 1)
    body = data[len(_BOM) :] if data.startswith(_BOM) else data
    parsed = parse_object(body)
    if isinstance(parsed, _Failure):
        return BadLine(parsed.code, 1)
    return parsed
