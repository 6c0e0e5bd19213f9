"""A record cut short inside a file: what an unclean shutdown leaves when the session goes on.

Claude Code appends one record per line. A crash mid-write leaves a line's head without its end;
when the session is resumed, the next record is appended after it, on the same line when no
newline was written (serpro69/capy#105) or on the next (anthropics/claude-code#50347), and
Claude Code itself skips the cut line from 2.1.121 on. Such a line is no valid JSON, but it is
two readable things: the cut record's head (the members written whole before the cut) and,
glued after it, a complete record.

`split` finds both, or says the line is not of that form (then it stays invalid JSON). What the
head held, and whether losing its end loses spend, is for the transcript reader to judge
(`reader/transcript.py`): only a record that names itself in its head can be judged at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from converter.sources.jsonl import JSONObject, parse_object, parse_value

_QUOTE, _BACKSLASH = 0x22, 0x5C
_OPEN = {0x7B: 0x7D, 0x5B: 0x5D}  # { } [ ]
_MARKS = re.compile(rb'["{}\[\]]')
# Forward tokens of a cut head: a whole string, a string the cut ends inside, a bracket, a comma.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|"(?:[^"\\]|\\.)*\\?\Z|[{}\[\],]', re.DOTALL)
_CLOSE = {"{": "}", "[": "]"}


@dataclass(frozen=True, slots=True)
class Cut:
    """A line holding a cut record: its head's whole members, and the record glued after it."""

    head: JSONObject
    record: JSONObject | None


def split(body: bytes) -> Cut | None:
    """The cut record's head and the complete record after it (None when the cut record is the
    whole line), or None when the line is not a cut record."""
    start = _record_at_end(body)
    if start is not None:
        record = parse_object(body[start:])
        if isinstance(record, dict):
            head = _head(body[:start])
            return None if head is None else Cut(head, record)
    head = _head(body)
    return None if head is None else Cut(head, None)


def _record_at_end(body: bytes) -> int | None:
    """Where the object that ends the line begins, found backwards (outside strings, brackets
    balance); None when it is the whole line or the line does not end with one."""
    if not body.endswith(b"}"):
        return None
    depth = 0
    in_string = False
    for match in reversed(list(_MARKS.finditer(body))):
        at = match.start()
        mark = body[at]
        if mark == _QUOTE:
            slashes = 0
            while at - slashes - 1 >= 0 and body[at - slashes - 1] == _BACKSLASH:
                slashes += 1
            if slashes % 2 == 0:
                in_string = not in_string
            continue
        if in_string:
            continue
        if mark in _OPEN:
            depth -= 1
            if depth < 0:
                return None
            if depth == 0:
                return at if mark == 0x7B and at > 0 else None
        else:
            depth += 1
    return None


def _head(cut: bytes) -> JSONObject | None:
    """The members of a JSON object written whole before a cut (nested ones too, up to the last
    comma outside strings), or None when `cut` is no object's beginning: it must open with `{`,
    stay open to its end and be valid JSON as far as it goes."""
    if not cut.startswith(b"{"):
        return None
    try:
        text = cut.decode("utf-8")
    except UnicodeDecodeError as bad:  # a cut inside a character is still a cut
        if bad.reason != "unexpected end of data" or bad.end != len(cut):
            return None
        text = cut[: bad.start].decode("utf-8", "surrogatepass")
    stack: list[str] = []
    last: tuple[int, tuple[str, ...]] | None = None  # the last comma and what was open there
    for token in _TOKENS.finditer(text):
        mark = token.group()
        if mark in _CLOSE:
            stack.append(mark)
        elif mark in ("}", "]"):
            if not stack or _CLOSE[stack.pop()] != mark or not stack:
                return None  # a bracket that closes nothing open, or the object itself
        elif mark == ",":
            last = (token.start(), tuple(stack))
    if not stack:
        return None
    whole = text[: last[0]] if last else "{"
    opened = last[1] if last else ("{",)
    value: Any = parse_value(
        (whole + "".join(_CLOSE[b] for b in reversed(opened))).encode("utf-8", "surrogatepass")
    )
    return value if isinstance(value, dict) else None


def names(head: JSONObject) -> tuple[str | None, str | None]:
    """What a cut record says of itself: its type and its message's id, when written whole."""
    kind = head.get("type")
    message = head.get("message")
    msg_id = message.get("id") if isinstance(message, dict) else None
    return (
        kind if isinstance(kind, str) else None,
        msg_id if isinstance(msg_id, str) else None,
    )
