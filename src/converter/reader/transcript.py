"""Read one transcript file: hash and parse the same bytes, keep each line's content-free `Rec`.

A pure function of the file, so any process can run it: `load` reads some transcripts itself and
hands the rest to a second process (`reader/worker.py`); both get the same `FileReading` for the
same bytes. Imports no model library, so that process starts in ~50 ms.
"""

from __future__ import annotations

import functools
import hashlib
import os
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import msgspec

from converter.heap import Trimmer
from converter.limits import MAX_LINE_PROBLEMS
from converter.reader.records import KNOWN_TYPES, BadField, Rec, extract, starts_task
from converter.regular import open_regular
from converter.sources import torn
from converter.sources.jsonl import (
    BadLine,
    CutRecord,
    Digest,
    bounded_lines,
    iter_lines,
)


class FileReading(msgspec.Struct, gc=False, array_like=True):
    """What one transcript holds for accounting, and what was wrong with it (code, line)."""

    sha256: str
    size: int
    records: list[Rec]
    problems: list[tuple[str, int]]
    unknown_types: dict[str, int]
    unreadable: bool
    # message id -> the request id its first fragment in this file names (`requestId`): which
    # response file names a call, for provider bodies without an index (reader/bodies.py)
    request_ids: dict[str, str] = msgspec.field(default_factory=dict)
    # line -> the `promptId` (2.1.167 on; FORMAT-NOTES §3) of a user record where a turn starts
    # (a record starting a task, or one whose turn is not the last one's): what a provider
    # request names as `cc_prompt_id` (reader/hidden.py). Kept with `request_ids` only.
    turns: dict[int, str] = msgspec.field(default_factory=dict)


# Problems listed for one transcript at most, records cut short and out of order among them
# (`limits.MAX_LINE_PROBLEMS`).
MAX_PROBLEMS = MAX_LINE_PROBLEMS


class _Problems(list[tuple[str, int]]):
    """A file's (code, line) problems and its records cut short (`cut`: line, at end, type,
    message id), MAX_PROBLEMS of them at most together; past that, the first line of each code
    not kept (a cut record's code is known only once the whole file is read: `CUT`)."""

    CUT = "cut"

    def __init__(self) -> None:
        super().__init__()
        self.cut: list[tuple[int, bool, str | None, str | None]] = []
        self.dropped: dict[str, int] = {}  # code -> the first line of it not kept

    def _room(self, code: str, line: int) -> bool:
        if len(self) + len(self.cut) < MAX_PROBLEMS:
            return True
        self.dropped.setdefault(code, line)
        return False

    def add(self, code: str, line: int) -> None:
        if self._room(code, line):
            self.append((code, line))

    def add_cut(self, line: int, at_end: bool, kind: str | None, msg_id: str | None) -> None:
        if self._room(self.CUT, line):
            self.cut.append((line, at_end, kind, msg_id))


def read_transcript(
    path: Path, trimmer: Trimmer | None = None, request_ids: bool = False
) -> FileReading:
    """`trimmer`: return the parse garbage's free pages to the OS every few MB read (a parent
    transcript alone can be half of a tree). `request_ids`: keep each call's request id in the
    reading (for provider bodies; otherwise the map is the file's garbage, ~3 MB on the bench
    tree held until every file is read)."""
    digest = Digest()
    counted = 0
    records: list[Rec] = []
    problems = _Problems()
    unknown: dict[str, int] = {}
    unreadable = False
    requests = _Requests()
    turns = _Turns()
    typed = False  # a line with a record's `type`: else the file may be no transcript at all
    try:
        with open_regular(path, follow=False) as stream:
            size = os.fstat(stream.fileno()).st_size
            for number, item in iter_lines(bounded_lines(stream, size=size), digest, torn.split):
                if trimmer is not None:
                    trimmer.read(digest.size - counted)
                    counted = digest.size
                if isinstance(item, BadLine):
                    problems.add(item.code, number)
                    continue
                if isinstance(item, CutRecord):
                    problems.add_cut(number, item.at_end, *torn.names(item.head))
                    continue
                typed = typed or isinstance(item.get("type"), str)
                try:
                    rec = extract(item, 0, number)
                except BadField as bad:
                    problems.add(bad.code, number)
                    continue
                # A prompt's or call's timestamp given, but no instant (`extract` kept none).
                if (
                    rec.timestamp is None
                    and rec.type in ("user", "assistant")
                    and item.get("timestamp") is not None
                ):
                    problems.add("CC-REC-BAD-TIMESTAMP", number)
                if rec.type == "assistant" and rec.msg_id and not rec.synthetic:
                    codes = requests.check(rec, rec.msg_id, item.get("requestId"))
                    if codes:
                        for code in codes:
                            problems.add(code, number)
                        if "CC-REC-MESSAGE-ID-REUSED" in codes:
                            continue  # refused here, like a bad field: not grouped
                if rec.type not in KNOWN_TYPES:
                    unknown[rec.type] = unknown.get(rec.type, 0) + 1
                    if rec.unknown_with_usage:
                        problems.add("CC-REC-UNKNOWN-WITH-USAGE", number)
                    continue
                if request_ids and rec.type == "user":
                    turns.see(rec, item.get("promptId"))
                records.append(rec)
    except OSError:
        unreadable = True
        digest = Digest()  # no size or digest for a file that could not be read to its end
    listed = _whole_file_codes(problems, records, typed=typed or unreadable)
    kept = requests.request_of if request_ids else {}
    return FileReading(
        digest.sha256, digest.size, records, listed, unknown, unreadable, kept, turns.starts
    )


def _whole_file_codes(
    problems: _Problems, records: list[Rec], *, typed: bool
) -> list[tuple[str, int]]:
    """The line codes with what only the whole file shows: records cut short, records out of
    order, or no record; and, past MAX_PROBLEMS, that the rest were not listed, at the first
    line not listed (CC-LINE-TOO-MANY-PROBLEMS). A file with no record's `type` is no
    transcript, said at its first field problem, listed or not."""
    cut = problems.cut
    order = _out_of_order(records)  # the records are held already; their codes are capped too
    room = max(0, MAX_PROBLEMS - len(problems) - len(cut))
    for code, line in order[room:]:
        problems.dropped.setdefault(code, line)
    listed = [*problems, *order[:room], *_cut_codes(records, cut)]
    dropped = problems.dropped
    if not (typed or cut or _Problems.CUT in dropped):
        field = dropped.pop("CC-REC-BAD-FIELD", None)
        if field is not None and not any(code == "CC-REC-BAD-FIELD" for code, _ in listed):
            listed.append(("CC-REC-BAD-FIELD", field))  # the first, though past the cap
        listed = _no_transcript(listed)
    if dropped:
        listed.append(("CC-LINE-TOO-MANY-PROBLEMS", min(dropped.values())))
    return listed


def _out_of_order(records: list[Rec]) -> list[tuple[str, int]]:
    """Records whose `parentUuid` names a record written later in the same file: Claude Code
    appends a record after its parent, and tasks follow line order (FORMAT-NOTES §3), so lines
    moved by an edit, sorted or merged would move calls between prompts unremarked (an
    adversarial review: a prompt moved 88 lines up took 60 calls and 7 subagents from the task
    before it, and converted). None in the corpus's 50 JSONL files. A parent in another file
    (a subagent's first record) or in none is not this."""
    first: dict[str, int] = {}
    for rec in records:
        if rec.uuid is not None:
            first.setdefault(rec.uuid, rec.line)
    return [
        ("CC-REC-LINE-ORDER", rec.line)
        for rec in records
        if rec.parent_uuid is not None and first.get(rec.parent_uuid, 0) > rec.line
    ]


def _no_transcript(problems: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """A file of JSON lines none of which has a record's `type` (a hook's log another tool left
    in the project folder) is no transcript: one CC-REC-NOT-A-TRANSCRIPT at its first such line,
    not a CC-REC-BAD-FIELD per line, whose fix ("edited or damaged") sent a walkthrough to
    restore a file that was never Claude Code's. Lines that are no JSON object keep their codes."""
    lines = [line for code, line in problems if code == "CC-REC-BAD-FIELD"]
    if not lines:  # every line was blank or bad JSON: said as such
        return problems
    rest = [(code, line) for code, line in problems if code != "CC-REC-BAD-FIELD"]
    return sorted([("CC-REC-NOT-A-TRANSCRIPT", min(lines)), *rest], key=lambda p: p[1])


class _Turns:
    """Where a file's turns start: a user record whose `promptId` is not the last one's, or
    that starts a task (its caveat can come first), not each record of the turn (its tool
    results)."""

    def __init__(self) -> None:
        self.starts: dict[int, str] = {}
        self.last: str | None = None
        self.seen: set[str] = set()  # uuids of the user records seen

    def see(self, rec: Rec, prompt: object) -> None:
        if rec.uuid is not None:
            if rec.uuid in self.seen:
                # a later record of a uuid is dropped (`streams.dedup_uuids`: Claude Code's
                # re-emitted copies carry a rewritten promptId): it neither starts a turn nor
                # ends one, so the next record of its id still starts where it is kept
                return
            self.seen.add(rec.uuid)
        if isinstance(prompt, str) and prompt and (prompt != self.last or starts_task(rec)):
            self.starts[rec.line] = self.last = prompt


class _Requests:
    """A file's request ids against its message ids (SPEC §4.2: never grouped by, only checked).
    Copies of a call in other files (a `/btw` replay) have new request ids; within one file
    they agree."""

    def __init__(self) -> None:
        # message id -> the request id its first fragment names
        self.request_of: dict[str, str] = {}
        # request id -> the message id it first names
        self.message_of: dict[str, str] = {}
        # message id -> its first fragment's input side
        self.inputs_of: dict[str, tuple[int, ...]] = {}

    def check(self, rec: Rec, msg_id: str, request: object) -> tuple[str, ...]:
        """The codes one call fragment earns (none, nearly always: no list is made for it);
        CC-REC-MESSAGE-ID-REUSED refuses the fragment (calls.py would say it again when its
        output falls)."""
        codes: tuple[str, ...] = ()
        if isinstance(request, str) and self.request_of.setdefault(msg_id, request) != request:
            # Two requests under one message id: with other input or cache counts too (both
            # recorded), two calls, one of which would be lost.
            first = self.inputs_of.get(msg_id)
            seen = rec.usage.input_side() if rec.usage else ()
            if first is not None and all((any(first), any(seen))) and first != seen:
                return ("CC-REC-MESSAGE-ID-REUSED",)
            codes = ("CC-REC-REQUEST-ID-DISAGREE",)
        if rec.usage is not None:
            self.inputs_of.setdefault(msg_id, rec.usage.input_side())
        # One request answers with one message: a request id naming a second message id in one
        # file is one call split under two ids, which would be counted twice (886 of 886 request
        # ids in the corpus name one message).
        if isinstance(request, str) and self.message_of.setdefault(request, msg_id) != msg_id:
            codes = (*codes, "CC-REC-REQUEST-ID-REUSED")
        return codes


# Record types that hold no spend and start no task when lost (a prompt cut short was the last
# thing written before the crash: no call answered it). Any other, or one whose type the head
# does not say, could be a call's only record.
_LOST_WITHOUT_SPEND = frozenset(
    {
        "user",
        "attachment",
        "progress",
        "file-history-snapshot",
        "queue-operation",
        "last-prompt",
        "summary",
        "custom-title",
        "ai-title",
        "tag",
        "mode",
        "permission-mode",
        "agent-name",
        "pr-link",
        "worktree-state",
    }
)


def _cut_codes(
    records: list[Rec], cut: list[tuple[int, bool, str | None, str | None]]
) -> list[tuple[str, int]]:
    """Whether each record cut short in the file (`sources/torn.py`) can be passed over: a
    fragment of a call another record of the file holds (its usage there is the call's, or the
    call stays usage-incomplete when the cut one was its last), or a record of a kind that holds
    no spend. Either way only if no later record descends from a record the file lacks: a cut
    that was not the last write before a crash (two writers) could have had records follow it.
    The file's last line, cut with nothing after it, may still be being written: when it cannot
    be passed over it is CC-LINE-TORN (convert again when idle), not lost yet.
    """
    if not cut:
        return []
    # Calls another record states the input of: a gateway's early fragments are stubs of 0
    # input, 0 cache (76 of the corpus's 754 calls of several fragments), its last the counts.
    calls = {
        r.msg_id
        for r in records
        if r.type == "assistant" and r.msg_id and r.usage is not None and any(r.usage.input_side())
    }
    uuids = {r.uuid for r in records if r.uuid}
    # the last line holding a record whose parent the file lacks (the glued one too: same line)
    orphaned = max(
        (r.line for r in records if r.parent_uuid and r.parent_uuid not in uuids), default=0
    )
    codes = []
    for line, at_end, kind, msg_id in cut:
        known = msg_id in calls if msg_id is not None else kind in _LOST_WITHOUT_SPEND
        if known and orphaned < line:
            codes.append(("CC-LINE-CUT-PASSED", line))
        else:
            codes.append(("CC-LINE-TORN" if at_end else "CC-LINE-CUT-LOST", line))
    return codes


# Between the two reading processes, each file's reading is one frame: a 4-byte big-endian
# length, then the reading as msgpack. Frames are decoded as they arrive, so neither side ever
# holds more than one file's encoded bytes. A frame of length 0 says "read this file yourself":
# its reading keeps a string msgpack cannot carry (a lone surrogate, which JSON allows).
_FRAME = struct.Struct(">I")
_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(FileReading)


@functools.cache
def wire_fingerprint() -> str:
    """What both reading processes must agree on: the layout of a frame. A worker started from
    another copy of this package (an upgrade mid-run, another checkout) could decode into the
    same array-like structs with fields silently missing; it refuses to start instead."""
    schema = msgspec.json.encode(msgspec.json.schema(FileReading))
    return hashlib.sha256(schema).hexdigest()


class BadFrame(Exception):
    """The stream of frames is cut short or does not decode."""


def frame(reading: FileReading) -> bytes:
    try:
        body = _ENCODER.encode(reading)
    except UnicodeEncodeError:  # a kept string with a lone surrogate: the reader reads it
        body = b""
    return _FRAME.pack(len(body)) + body


def read_frames(stream: IO[bytes]) -> Iterator[FileReading | None]:
    """Each reading in `stream`, up to its end (None: a file to read here); BadFrame if it is
    cut short or malformed."""
    while True:
        head = stream.read(_FRAME.size)
        if not head:
            return
        if len(head) != _FRAME.size:
            raise BadFrame
        (length,) = _FRAME.unpack(head)
        if not length:
            yield None
            continue
        body = stream.read(length)
        if len(body) != length:
            raise BadFrame
        try:
            yield _DECODER.decode(body)
        except msgspec.DecodeError:
            raise BadFrame from None
