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

import orjson

from converter.sources.jsonl import JSONObject, parse_object, parse_value

_QUOTE, _BACKSLASH, _OPEN_BRACE = 0x22, 0x5C, 0x7B
_MARKS = re.compile(rb'["{}\[\]]')
# One JSON token of a cut head, possessive (no backtracking state kept per character of a long
# string): a whole string, a string the cut ends inside, punctuation, a number, a literal,
# blanks, or anything else (a number or literal the cut ends inside, or not JSON at all). No
# string holds a raw control character, as in JSON: a crash on ext4 or NTFS can leave a run of
# NUL bytes standing for whole records lost (anthropics/claude-code#49876, #76059).
_TOKEN = re.compile(
    r'(?P<s>"[^"\\\x00-\x1f]*+(?:\\[^\x00-\x1f][^"\\\x00-\x1f]*+)*+")'
    r'|(?P<u>"[^"\\\x00-\x1f]*+(?:\\[^\x00-\x1f][^"\\\x00-\x1f]*+)*+\\?\Z)'
    r"|(?P<p>[{}\[\]:,])"
    r"|(?P<n>-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?(?:[eE][+-]?[0-9]++)?(?![0-9A-Za-z.+-]))"
    r"|(?P<l>(?:true|false|null)(?![0-9A-Za-z]))"
    r"|(?P<w>[ \t\r\n]++)"
    r'|(?P<x>[^"{}\[\]:,\s]++)',
    re.DOTALL,
)
# What the cut can leave of a number or literal (`-`, `12.`, `1e+`, `tr`, `fals`, `nu`).
_CUT_SCALAR = re.compile(
    r"-?[0-9]*(?:\.[0-9]*)?(?:[eE][+-]?[0-9]*)?|t(?:r(?:u)?)?|f(?:a(?:l(?:s)?)?)?|n(?:u(?:l)?)?"
)
# Every transcript record but bookkeeping ones opens so, and no whole line of the corpus holds
# it anywhere else: a head holding it holds the start of a second record (two cuts, or writers
# interleaved), which it would swallow.
_RECORD_START = '{"parentUuid":'
_CLOSE = {"{": "}", "[": "]"}


@dataclass(frozen=True, slots=True)
class Cut:
    """A line holding a cut record: its head's whole members, and the record glued after it.
    `joined`: the first record is whole too (a newline lost between two writes), so `head` is
    that record, complete."""

    head: JSONObject
    record: JSONObject | None
    joined: bool = False


def split(body: bytes) -> Cut | None:
    """The cut record's head and the complete record after it (None when the cut record is the
    whole line), or None when the line is not a cut record. A line that is itself a cut record's
    beginning is that, whatever object it happens to end with (a cut right after an inner `}`)."""
    whole, second = _head(body)
    if second:  # one cut record holding a record, or a cut one and the record after: unknown
        return None
    if whole is not None:
        return Cut(whole, None)
    start = _record_at_end(body)
    if start is None:
        return None
    record = parse_object(body[start:])
    if not isinstance(record, dict):
        return None
    first = _whole(body[:start])
    if first is not None:  # two whole records, no newline between (claude-code#81843)
        return Cut(first, record, joined=True)
    head, second = _head(body[:start])
    return None if head is None or second else Cut(head, record)


def _whole(before: bytes) -> JSONObject | None:
    """The record before the one that ends the line, when it is whole. Asked of orjson first:
    the exact reader's error path over a multi-MB cut head holds many times its size."""
    if not before.rstrip(b" \t").endswith(b"}"):
        return None
    try:
        orjson.loads(before)
    except orjson.JSONDecodeError:
        return None
    first = parse_object(before)
    return first if isinstance(first, dict) else None


def _record_at_end(body: bytes) -> int | None:
    """Where the object that ends the line begins, found backwards (outside strings, brackets
    balance); None when it is the whole line or the line does not end with one."""
    if not body.endswith(b"}"):
        return None
    depth = 0
    in_string = False
    last = len(body) - 1
    for match in _MARKS.finditer(body[::-1]):  # the marks from the end, one at a time
        at = last - match.start()
        mark = body[at]
        if mark == _QUOTE:
            slashes = 0
            while at - slashes - 1 >= 0 and body[at - slashes - 1] == _BACKSLASH:
                slashes += 1
            if slashes % 2 == 0:
                in_string = not in_string
        elif in_string:
            continue
        elif mark in (0x7B, 0x5B):  # { [
            depth -= 1
            if depth <= 0:
                return at if depth == 0 and mark == _OPEN_BRACE and at > 0 else None
        else:
            depth += 1
    return None


def _head(cut: bytes) -> tuple[JSONObject | None, bool]:
    """The members of a JSON object written whole before a cut (nested ones too, up to the last
    comma outside strings), or None when `cut` is no object's beginning: it must be valid JSON
    as far as it goes (every token, in an order JSON allows), open with `{` and stay open to
    its end. And whether it holds a second record's start (then it has two readings: a record
    holding one, or a record cut and another after it)."""
    if not cut.startswith(b"{"):
        return None, False
    try:
        text = cut.decode("utf-8")
    except UnicodeDecodeError as bad:  # a cut inside a character is still a cut
        if bad.reason != "unexpected end of data" or bad.end != len(cut):
            return None, False
        text = cut[: bad.start].decode("utf-8", "surrogatepass")
    comma = _last_comma(text)
    if comma is None:
        return None, False
    if text.find(_RECORD_START, 1) != -1:
        return None, True
    at, opened = comma
    whole = text[:at] if at else "{"
    value: Any = parse_value(
        (whole + "".join(_CLOSE[b] for b in reversed(opened))).encode("utf-8", "surrogatepass")
    )
    return (value if isinstance(value, dict) else None), False


def _last_comma(text: str) -> tuple[int, str] | None:
    """Check `text` as the beginning of a JSON object cut anywhere; the last comma outside
    strings and the brackets open there (0 and `{` when there is none: nothing whole yet), or
    None when it is not such a beginning. One pass: `levels` keeps the bracket last opened at
    each level, closed or not (the open ones are its first `len(expect)`), and none below a
    comma's level is opened again after the last comma (that takes another comma), so its
    first levels are the brackets open there."""
    levels: list[str] = []  # the bracket last opened at each level
    expect: list[str] = []  # per open level: "key", "colon", "value", "next" (comma or close)
    last = (0, 1)  # the last comma's position and depth
    end = len(text)
    at = 0  # where the next token must start: nothing between tokens goes unread
    for token in _TOKEN.finditer(text):
        if token.start() != at:
            return None
        at = token.end()
        kind, mark = token.lastgroup, token.group()
        if kind == "w":
            continue
        if not expect:
            if token.start() != 0 or mark != "{":
                return None  # something before or after the object itself
            levels.append("{")
            expect.append("key?")
            continue
        state = expect[-1]
        if kind in ("u", "x"):
            if token.end() != end:
                return None
            if kind == "x" and not _CUT_SCALAR.fullmatch(mark):
                return None
            ok = state in ("value", "value?") or (kind == "u" and state in ("key", "key?"))
            return (last[0], "".join(levels[: last[1]])) if ok else None
        if kind == "p" and mark in "]}":
            empty = "key?" if mark == "}" else "value?"  # a close right after the open
            if _CLOSE[levels[len(expect) - 1]] != mark or state not in ("next", empty):
                return None
            expect.pop()
            if not expect:
                return None  # the object closed: no cut
            expect[-1] = "next"
        elif kind == "p" and mark == ",":
            if state != "next":
                return None
            expect[-1] = "key" if levels[len(expect) - 1] == "{" else "value"
            last = (token.start(), len(expect))
        elif kind == "p" and mark == ":":
            if state != "colon":
                return None
            expect[-1] = "value"
        elif kind == "s" and state in ("key", "key?"):
            expect[-1] = "colon"
        elif state not in ("value", "value?"):
            return None  # a value where a key, a colon or a comma belongs
        elif mark in "{[":
            expect[-1] = "next"
            del levels[len(expect) :]
            levels.append(mark)
            expect.append("key?" if mark == "{" else "value?")
        else:  # a whole string, number or literal
            expect[-1] = "next"
    if not expect or at != end:
        return None
    return last[0], "".join(levels[: last[1]])


def names(head: JSONObject) -> tuple[str | None, str | None]:
    """What a cut record says of itself: its type and its message's id, when written whole."""
    kind = head.get("type")
    if kind is None and "attachment" in head:  # written before its type (148 of 148 corpus)
        kind = "attachment"
    message = head.get("message")
    msg_id = message.get("id") if isinstance(message, dict) else None
    return (
        kind if isinstance(kind, str) else None,
        msg_id if isinstance(msg_id, str) else None,
    )
