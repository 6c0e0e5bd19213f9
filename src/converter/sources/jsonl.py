"""Strict JSON reading: one pass over the bytes, every byte hashed is a byte parsed.

orjson parses the common case; when it rejects a line, a slower classifier names the reason so the
refusal can carry a stable code. Duplicate keys are invisible to orjson (last one wins), so each
parsed line is tallied: the number of ':' bytes in the raw line must equal the number of keys plus
the ':' characters inside decoded strings. A mismatch (duplicate keys, or '\\u003a' escapes) falls
back to an exact check.
"""

from __future__ import annotations

import hashlib
import json
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


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Duplicate
    return obj


def _reject_constant(_: str) -> Any:
    raise _NonFinite


def _tally(root: Any) -> tuple[int, int, int, bool]:
    """Return (keys, colons inside strings, max depth, has out-of-range int) without recursion."""
    keys = colons = depth_max = 0
    big = False
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
        elif isinstance(node, int) and not isinstance(node, bool):
            big = big or not (-_INT64 <= node < _INT64)
    return keys, colons, depth_max, big


def _classify_failure(raw: bytes) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "CC-LINE-INVALID-UTF8"
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
    except _Duplicate:
        return "CC-LINE-DUPLICATE-KEY"
    except _NonFinite:
        return "CC-LINE-NONFINITE"
    except RecursionError:
        return "CC-LINE-TOO-DEEP"
    except ValueError:
        return "CC-LINE-INVALID-JSON"
    _, _, depth, big = _tally(value)
    if big:
        return "CC-LINE-BIG-INTEGER"
    if depth > MAX_DEPTH:
        return "CC-LINE-TOO-DEEP"
    return "CC-LINE-INVALID-JSON"


@dataclass(frozen=True, slots=True)
class _Failure:
    code: str


def parse_value(raw: bytes) -> Any:
    """Parse one JSON text strictly; a `_Failure` names the CC-LINE-* code when it is refused.

    orjson reads integers beyond 2**64 as floats: token fields catch those by type later.
    """
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _Failure(_classify_failure(raw))
    keys, colons, depth, big = _tally(value)
    if big:
        return _Failure("CC-LINE-BIG-INTEGER")
    if depth > MAX_DEPTH:
        return _Failure("CC-LINE-TOO-DEEP")
    if raw.count(b":") != keys + colons:
        code = _classify_failure(raw)
        if code == "CC-LINE-DUPLICATE-KEY":
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
    """SHA-256 and size of the bytes read so far; final once the reader is exhausted."""

    sha256: str = ""
    size: int = 0


def iter_lines(stream: IO[bytes], digest: Digest) -> Iterator[tuple[int, JSONObject | BadLine]]:
    """Yield (line number, object or BadLine) for each non-blank line; fill `digest` at the end.

    Memory is bounded by the longest line. A BOM at the start and CRLF line ends are accepted.
    A final line without a newline that does not parse is a torn write (CC-LINE-TORN).
    """
    hasher = hashlib.sha256()
    size = 0
    number = 0
    for raw in stream:
        number += 1
        hasher.update(raw)
        size += len(raw)
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
            torn = not complete and parsed.code == "CC-LINE-INVALID-JSON"
            yield number, BadLine("CC-LINE-TORN" if torn else parsed.code, number)
        else:
            yield number, parsed
    digest.sha256 = hasher.hexdigest()
    digest.size = size


def read_document(data: bytes) -> JSONObject | BadLine:
    """Parse a whole-file JSON object (meta files, manifests, contracts)."""
    body = data[len(_BOM) :] if data.startswith(_BOM) else data
    parsed = parse_object(body)
    if isinstance(parsed, _Failure):
        return BadLine(parsed.code, 1)
    return parsed
