"""Strict JSON reading: one pass over the bytes, every byte hashed is a byte parsed.

orjson parses the common case; when it rejects a line, a slower classifier names the reason so the
refusal can carry a stable code. Duplicate keys are invisible to orjson (last one wins), so each
parsed line is tallied: the number of ':' bytes in the raw line must equal the number of keys plus
the ':' characters inside decoded strings. A mismatch, or a '\\u003a'-style escape (which adds a
decoded ':' and could hide a duplicate), falls back to an exact check. orjson also widens integers
outside [-2**63, 2**64) to floats; a float of that size sends the line to the exact check too, so
every integer literal outside the signed 64-bit range is refused alike.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import orjson

MAX_DEPTH = 512
_INT64 = 2**63
_BOM = b"\xef\xbb\xbf"

JSONObject = dict[str, Any]


@dataclass(frozen=True, slots=True)
class BadLine:
    code: str
    line: int


class _Duplicate(Exception):
    pass


class _NonFinite(Exception):
    pass


class _BigInteger(Exception):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Duplicate
    return obj


def _reject_constant(_: str) -> Any:
    raise _NonFinite


def _strict_int(text: str) -> int:
    # 20 characters hold every int64 (with its sign); longer literals are out of range, and
    # converting them could hit Python's int digit limit (a ValueError, not a refusal code).
    if len(text) > 20:
        raise _BigInteger
    value = int(text)
    if not -_INT64 <= value < _INT64:
        raise _BigInteger
    return value


def _strict_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):  # a literal such as 1e400 overflows to Infinity
        raise _NonFinite
    return value


def _tally(root: Any) -> tuple[int, int, int, bool, bool]:
    """(keys, colons inside strings, max depth, out-of-range int, int-sized float); no recursion."""
    keys = colons = depth_max = 0
    big = wide = False
    stack: list[tuple[Any, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            depth_max = max(depth_max, depth)
            keys += len(node)
            for k, v in node.items():
                colons += k.count(":")
                stack.append((v, depth + 1))
        elif isinstance(node, list):
            depth_max = max(depth_max, depth)
            stack.extend((v, depth + 1) for v in node)
        elif isinstance(node, str):
            colons += node.count(":")
        elif isinstance(node, float):
            wide = wide or not -_INT64 < node < _INT64  # -2**63 - 1 rounds to -2**63
        elif isinstance(node, int) and not isinstance(node, bool):
            big = big or not (-_INT64 <= node < _INT64)
    return keys, colons, depth_max, big, wide


def _strict_check(raw: bytes) -> str | None:
    """Re-parse exactly with the standard library; the code of what is wrong, or None."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "CC-LINE-INVALID-UTF8"
    try:
        value = json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_constant=_reject_constant,
            parse_int=_strict_int,
            parse_float=_strict_float,
        )
    except _Duplicate:
        return "CC-LINE-DUPLICATE-KEY"
    except _NonFinite:
        return "CC-LINE-NONFINITE"
    except _BigInteger:
        return "CC-LINE-BIG-INTEGER"
    except RecursionError:
        return "CC-LINE-TOO-DEEP"
    except ValueError:
        return "CC-LINE-INVALID-JSON"
    if _tally(value)[2] > MAX_DEPTH:
        return "CC-LINE-TOO-DEEP"
    return None


def _classify_failure(raw: bytes) -> str:
    return _strict_check(raw) or "CC-LINE-INVALID-JSON"


@dataclass(frozen=True, slots=True)
class _Failure:
    code: str


# An integer literal that may be outside int64 has 19+ digits (2**63 has 19); orjson keeps those
# below 2**64 as ints and widens larger ones to floats, so the exact check must decide. (orjson
# itself refuses a literal that overflows a double, such as 1e400.) A long digit run inside a
# string only costs the exact check.
_DIGIT_CLASS = bytes(48 if 48 <= b <= 57 else 32 for b in range(256))  # digits -> "0", else " "
_LONG_DIGIT_RUN = b"0" * 19


def _has_long_digit_run(raw: bytes) -> bool:
    return _LONG_DIGIT_RUN in raw.translate(_DIGIT_CLASS)


def _needs_exact_check(raw: bytes, value: Any) -> bool:
    """True unless C-speed evidence proves the line has no duplicate key and no bad number.

    A colon occurs in JSON text only as a key separator or inside a string, and orjson never
    escapes one. So with no duplicate keys and no `\\u003a` escapes, the raw line and orjson's
    re-serialization of the parsed value hold the same number of ':' bytes; a dropped duplicate
    always removes at least its separator. An escape could balance a duplicate, so it too sends
    the line to the exact check, as does nesting deeper than orjson's writer allows.
    """
    if b"\\u003" in raw or _has_long_digit_run(raw):
        return True
    try:
        again = orjson.dumps(value)
    except orjson.JSONEncodeError:
        return True
    return raw.count(b":") != again.count(b":")


def parse_value(raw: bytes) -> Any:
    """Parse one JSON text strictly; a `_Failure` names the CC-LINE-* code when it is refused."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _Failure(_classify_failure(raw))
    if _needs_exact_check(raw, value):
        code = _strict_check(raw)
        if code is not None and code != "CC-LINE-INVALID-JSON":
            return _Failure(code)
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


def iter_lines(stream: IO[bytes], digest: Digest) -> Iterator[tuple[int, JSONObject | BadLine]]:
    """Yield (line number, object or BadLine) for each non-blank line; fill `digest` at the end.

    Memory is bounded by the longest line. A BOM at the start and CRLF line ends are accepted.
    A final line without a newline that does not parse is a torn write (CC-LINE-TORN).
    """
    hasher = hashlib.sha256()
    number = 0
    digest.size = 0
    for raw in stream:
        number += 1
        hasher.update(raw)
        digest.size += len(raw)  # kept current: a caller may pace work by bytes read
        body = raw
        if number == 1 and body.startswith(_BOM):
            body = body[len(_BOM) :]
        complete = body.endswith(b"\n")
        body = body.rstrip(b"\r\n")
        if not body.strip(b" \t"):
            yield number, BadLine("CC-LINE-BLANK", number)
            continue
        parsed = parse_object(body)
        if isinstance(parsed, _Failure):
            torn = not complete and _cut_short(body, parsed.code)
            yield number, BadLine("CC-LINE-TORN" if torn else parsed.code, number)
        else:
            yield number, parsed
    digest.sha256 = hasher.hexdigest()


def read_document(data: bytes) -> JSONObject | BadLine:
    """Parse a whole-file JSON object (meta files, manifests, contracts)."""
    body = data[len(_BOM) :] if data.startswith(_BOM) else data
    parsed = parse_object(body)
    if isinstance(parsed, _Failure):
        return BadLine(parsed.code, 1)
    return parsed
