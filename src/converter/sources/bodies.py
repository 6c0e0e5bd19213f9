"""Select this tree's provider bodies from a `--provider-bodies` folder (SPEC §3, FORMAT-NOTES §5).

Claude Code with `OTEL_LOG_RAW_API_BODIES=file:<dir>` writes one flat folder for every session:
`<uuid>.request.json` per request attempt, `<request-id>.response.json` per successful response
(the final assembled message), and from 2.1.274 on `index.jsonl`, one line per successful
response: `timestamp, session_id, query_source, model, request_id, message_id, message_uuid,
request_file, response_file` (docs/claude-code-shapes.md, "Provider bodies").

Only this tree's bodies are selected, and nothing else in the folder is opened:
  with `index.jsonl` (a regular file): the lines whose `session_id` is the tree's session id,
      each naming its response file (shape-checked before a path is built from it);
  without it: `<request-id>.response.json` for each request id a transcript call names
      (shape-checked too), where such a file exists.
A request file is opened only for a hidden call (a response no transcript call has, named by an
index line): the line's `request_file`, shape-checked (`request_entry`). The folder is never
listed (but by `verify`, for names only: `response_names`).

The index is shared by every session and grows: what is bound for it is a derived entry whose
size and SHA-256 are those of this session's lines (each with its line end) concatenated in file
order, which anyone holding the folder can recompute. Reading and hashing each response is
`reader/bodies.py`'s.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import BinaryIO

from converter.errors import LineProblems, Problem
from converter.limits import MAX_LINE_PROBLEMS
from converter.regular import open_regular
from converter.sources.jsonl import (
    BadLine,
    Digest,
    JSONObject,
    Piece,
    bounded_lines,
    iter_lines,
    piece_bytes,
)
from converter.sources.tree import SourceFile, TreeLayout, entry_kind

INDEX_NAME = "index.jsonl"
# The relative name every body file is labelled by (and `--show-paths` shows): its name in the
# folder under this prefix, never where the folder lies, so a bundle re-derives on any machine.
# No file of a session tree is named so (the tree's are `<session>…` or `../<project>/…`).
PREFIX = "provider-bodies/"
# The option that names the folder, as a refusal's place when the folder itself is at fault.
BODIES_OPTION = "--provider-bodies"
# A request id as Claude Code names a response file by it (`request-id` header; restored source:
# `/^[A-Za-z0-9_-]+$/`, else a uuid), bounded.
REQUEST_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")
RESPONSE_NAME = re.compile(r"[A-Za-z0-9_-]{1,128}\.response\.json")
RESPONSE_SUFFIX = ".response.json"
# A request file as Claude Code names it: a random uuid (FORMAT-NOTES §5), bounded.
REQUEST_NAME = re.compile(r"[A-Za-z0-9_-]{1,128}\.request\.json")


@dataclass(frozen=True, slots=True)
class Selected:
    """One response file selected: where it is bound, and the index line naming it (if any)."""

    entry: SourceFile
    index_line: int | None = None
    message_id: str | None = None  # the index line's message_id
    # The index line's `request_file` (None: absent or null; unchecked until a hidden call's
    # request is read, `request_entry`) and `query_source` (what kind of call: a session title,
    # a compaction, another), each as written; neither ever crosses.
    request_file: object = None
    query_source: str | None = None


@dataclass(slots=True)
class Selection:
    index: SourceFile | None = None  # the derived index entry, when the folder has an index
    index_digest: Digest | None = None  # of this session's lines
    responses: list[Selected] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


class _Tap:
    """The raw lines of a stream as `iter_lines` takes them, the last one kept: the exact bytes
    of the line it has just yielded."""

    def __init__(self, stream: Iterable[Piece]) -> None:
        self.stream = stream
        self.last = b""

    def __iter__(self) -> Iterator[Piece]:
        for raw in self.stream:
            self.last = piece_bytes(raw)
            yield raw


def _index_lines(stream: BinaryIO) -> Iterator[tuple[int, JSONObject | BadLine, bytes]]:
    """Each line of an index as the strict line reader reads it, with its exact bytes."""
    tap = _Tap(bounded_lines(stream))
    for number, item in iter_lines(tap, Digest()):
        yield number, item, tap.last


class _SessionLines:
    """The size and SHA-256 of one session's index lines, each with its line end, in file order:
    what is bound for the index (`select`), and what `verify` recomputes."""

    def __init__(self) -> None:
        self.hasher = hashlib.sha256()
        self.size = 0

    def add(self, raw: bytes) -> None:
        self.hasher.update(raw)
        self.size += len(raw)

    def digest(self) -> Digest:
        return Digest(self.hasher.hexdigest(), self.size)


def select(
    folder: Path, layout: TreeLayout, session_id: str, request_ids: Iterable[str]
) -> Selection:
    """The bodies of session `session_id` in `folder`, each added to `layout` (roles
    `provider-index`, `provider-response`), and every problem met selecting them."""
    found = Selection()
    folder = Path(os.path.abspath(folder))
    if entry_kind(folder) != "dir":  # missing, a file, a symlink, a special file, unreachable
        found.problems.append(Problem("CC-BODY-DIR-UNREADABLE", where=BODIES_OPTION))
        return found
    index = folder / INDEX_NAME
    kind = entry_kind(index)
    if kind == "file":
        # every response name this session's index lines give, whatever its kind: one refused
        # there (a symlink, a folder) is not tried again by its request id (a provider-bodies
        # audit: one symlink refused twice, under two labels)
        taken: set[str] = set()
        _from_index(found, folder, layout, session_id, taken)
        # Responses written before the index existed (an older Claude Code, the same folder):
        # still the ones the transcripts name, so a contract made then survives the index.
        _by_request_id(found, folder, layout, request_ids, taken)
    elif kind == "missing":
        _by_request_id(found, folder, layout, request_ids)
    elif kind == "unreadable":  # the folder cannot be searched
        found.problems.append(Problem("CC-BODY-DIR-UNREADABLE", where=BODIES_OPTION))
    else:  # a symlink, a folder, a special file: not read as the index, never taken as none
        found.problems.append(Problem("CC-BODY-NOT-REGULAR", local_path=PREFIX + INDEX_NAME))
    return found


# A line's session field, up to where the line is cut: the whole id, or the part written.
_SESSION_FIELD = re.compile(rb'"session_id"\s*:\s*"([^"]*)("?)')
# Where a record starts. Claude Code appends each index line in one write: one it was stopped
# in is joined by the next line's, so a line that does not parse may hold several records, the
# first cut. (`{"` outside a string starts an object; one a string ends with splits too much,
# which only makes a line more likely to be taken as this session's.)
_RECORD_START = re.compile(rb'\{\s*"')


def _records(raw: bytes) -> list[bytes]:
    """The records a line that does not parse holds: its bytes cut at each record start (bytes
    before the first are a piece of their own)."""
    starts = [0, *(m.start() for m in _RECORD_START.finditer(raw)), len(raw)]
    pieces = (raw[a:b] for a, b in pairwise(starts))
    return [piece for piece in pieces if piece.strip()]


def _may_be_of(item: JSONObject | BadLine, raw: bytes, session_id: str) -> bool:
    """May a line be this session's? A whole record is if it names it. A line that does not
    parse (the last one cut while being written, or a cut one joined by the next line) is
    another session's only if each record it holds shows another id, or the start of one that
    is not this id's start: one cut before its id is written may be this session's, whatever
    the records joined to it show (a provider-bodies audit: the next session's line decided for
    a cut one, which converted "observed" and refused for good once its newline came). A call
    not yet looked for is never called observed (were the line another session's, a bundle
    re-derived once it is whole says "observed": `verify --contract --in` exit 5, in that
    window of a few bytes). Decided on the line's bytes alone: `verify` decides the same."""
    if not session_id:
        return False
    if not isinstance(item, BadLine):
        return item.get("session_id") == session_id
    mine = session_id.encode()
    return any(_record_may_be(record, mine) for record in _records(raw))


def _record_may_be(record: bytes, mine: bytes) -> bool:
    written = [m.groups() for m in _SESSION_FIELD.finditer(record)]
    if not written:
        return True
    # an unclosed value is compared up to its first byte no id holds: a crash can leave the
    # rest of the write as NUL bytes before the next line (a review: `<id start>\0\0...` read
    # as no start of this id, and the call left out, exit 0)
    return any(
        value == mine if closed else mine.startswith(_id_start(value)) for value, closed in written
    )


_ID_PART = re.compile(rb"[A-Za-z0-9_-]*")


def _id_start(value: bytes) -> bytes:
    """The leading bytes of `value` that an id can hold."""
    found = _ID_PART.match(value)
    return found.group() if found else b""


def _from_index(
    found: Selection, folder: Path, layout: TreeLayout, session_id: str, named: set[str]
) -> None:
    """Select the responses this session's index lines name; `named` gets every well-formed
    response name they give, selected or refused."""
    entry = layout.add("provider-index", folder / INDEX_NAME, rel=PREFIX + INDEX_NAME)
    found.index = entry
    ours = _SessionLines()
    messages: set[str] = set()
    lines = LineProblems(found.problems, entry.index, MAX_LINE_PROBLEMS)
    try:
        with open_regular(entry.path, follow=False) as stream:
            for number, item, raw in _index_lines(stream):
                if isinstance(item, BadLine) and item.code == "CC-LINE-TOO-LONG":
                    lines.add(item.code, number)
                    continue
                if not raw.endswith(b"\n") or (
                    isinstance(item, BadLine) and item.code == "CC-LINE-TORN"
                ):
                    # A last line still being written. Another session's: left for the next
                    # run, counted and not bound (it changes no byte of this session). Whole
                    # JSON before its newline is still being written too (a fuzz: bound, it
                    # made `verify` say 5 once Claude Code wrote the newline).
                    if _may_be_of(item, raw, session_id):
                        # It may name a call of this session not yet looked for (an audit: a
                        # title call's line left out, the bundle said "observed"); said
                        # "not-observed", a bundle made now and one made once the line is
                        # whole differed, and `verify` said 5 of sources no byte of which
                        # changed (an audit). Refused until it is whole: said, not guessed.
                        lines.add("CC-BODY-INDEX-PENDING", number)
                    else:
                        layout.not_read["CC-BODY-INDEX-TORN"] += 1
                    continue
                if isinstance(item, BadLine) and item.code == "CC-LINE-BLANK":
                    # no session's: counted, not bound (another session's writing must change
                    # no contract of this one)
                    layout.not_read["CC-BODY-INDEX-BLANK"] += 1
                    continue
                if isinstance(item, BadLine):
                    # Refused if it could be this session's, as in a transcript; made only of
                    # other sessions' records, their damage, left unread as a cut last line
                    # is (it was refused for good: a provider-bodies audit).
                    if _may_be_of(item, raw, session_id):
                        lines.add(item.code, number)
                    else:
                        layout.not_read["CC-BODY-INDEX-TORN"] += 1
                    continue
                session = item.get("session_id")
                if not isinstance(session, str):
                    lines.add("CC-BODY-INDEX-FIELD", number)
                    continue
                if session != session_id:
                    continue
                ours.add(raw)
                _take_line(found, folder, layout, entry, number, item, named, messages)
    except OSError:
        found.problems.append(Problem("CC-TREE-UNREADABLE", entry.index))
        return
    lines.close()
    found.index_digest = ours.digest()


def _take_line(
    found: Selection,
    folder: Path,
    layout: TreeLayout,
    index: SourceFile,
    number: int,
    item: dict[str, object],
    named: set[str],
    messages: set[str],
) -> None:
    name = item.get("response_file")
    message_id = item.get("message_id")
    # The name's shape is checked before any path is built from it (SPEC §3).
    if (
        not isinstance(name, str)
        or not RESPONSE_NAME.fullmatch(name)
        or not isinstance(message_id, str)
        or not message_id
    ):
        found.problems.append(Problem("CC-BODY-INDEX-FIELD", index.index, number))
        return
    if name in named or message_id in messages:  # two lines for one response, or one call
        found.problems.append(Problem("CC-BODY-DUPLICATE", index.index, number))
        return
    named.add(name)
    messages.add(message_id)
    path = folder / name
    kind = entry_kind(path)
    if kind == "missing":
        found.problems.append(Problem("CC-BODY-FILE-MISSING", index.index, number))
    elif kind == "file":
        entry = layout.add("provider-response", path, rel=PREFIX + name)
        source = item.get("query_source")
        found.responses.append(
            Selected(
                entry,
                number,
                message_id,
                request_file=item.get("request_file"),
                query_source=source if isinstance(source, str) else None,
            )
        )
    elif kind == "unreadable":
        found.problems.append(Problem("CC-BODY-DIR-UNREADABLE", index.index, number))
    else:
        found.problems.append(Problem("CC-BODY-NOT-REGULAR", index.index, number))


def _by_request_id(
    found: Selection,
    folder: Path,
    layout: TreeLayout,
    request_ids: Iterable[str],
    taken: frozenset[str] | set[str] = frozenset(),
) -> None:
    """The responses named by a request id this tree's calls record (a file is named by its
    request id), but those an index line has `taken`: before 2.1.274 no file says which session
    a response is of, and in every version such a response is the call's, unique by
    construction."""
    for request_id in sorted(set(request_ids)):
        if not REQUEST_ID.fullmatch(request_id):  # never a path from an unchecked name
            continue
        name = request_id + RESPONSE_SUFFIX
        if name in taken:
            continue
        path = folder / name
        kind = entry_kind(path)
        if kind == "missing":
            continue
        if kind == "file":
            found.responses.append(
                Selected(layout.add("provider-response", path, rel=PREFIX + name))
            )
        elif kind == "unreadable":
            found.problems.append(Problem("CC-BODY-DIR-UNREADABLE", where=BODIES_OPTION))
            return
        else:
            found.problems.append(Problem("CC-BODY-NOT-REGULAR", local_path=PREFIX + name))


def request_entry(
    folder: Path, layout: TreeLayout, selected: Selected, taken: set[str]
) -> SourceFile | Problem | None:
    """The request file a hidden call's index line names, added to `layout` (role
    `provider-request`) to be read and bound; None when the line names none (absent or null),
    a Problem at the line when its name is not a request file's, is one an earlier line of
    `taken` named, or the file cannot be read.
    Its name's shape is checked before a path is built from it (SPEC §3)."""
    name, line = selected.request_file, selected.index_line
    if name is None or line is None:
        return None
    index = next(f.index for f in layout.files if f.role == "provider-index")
    if not isinstance(name, str) or not REQUEST_NAME.fullmatch(name):
        return Problem("CC-BODY-INDEX-FIELD", index, line)
    if name in taken:
        # one request attempt has one response (a red team: bound twice, the template's own
        # contract refused it as a file listed twice)
        return Problem("CC-BODY-DUPLICATE", index, line)
    taken.add(name)
    path = Path(os.path.abspath(folder)) / name
    kind = entry_kind(path)
    if kind == "file":
        return layout.add("provider-request", path, rel=PREFIX + name)
    if kind == "missing":
        return Problem("CC-BODY-FILE-MISSING", index, line)
    if kind == "unreadable":
        return Problem("CC-BODY-DIR-UNREADABLE", index, line)
    return Problem("CC-BODY-NOT-REGULAR", index, line)


def body_names(folder: Path, *paths: Path) -> list[str]:
    """The names of `paths` that are in `folder` and named as a body of it could be (the
    index, a response, a request): outputs that could replace evidence read only later."""
    names = []
    for path in paths:
        try:
            same = os.path.samefile(path.parent if str(path.parent) else Path("."), folder)
        except OSError:
            continue
        name = path.name
        if same and (
            name == INDEX_NAME or RESPONSE_NAME.fullmatch(name) or name.endswith(".request.json")
        ):
            names.append(name)
    return names


def response_names(folder: Path) -> list[str]:
    """The names in `folder` a response or request file could have (for `verify` to find a
    bound body by its label when the sources no longer convert): names only, nothing opened."""
    try:
        return sorted(
            n for n in os.listdir(folder) if RESPONSE_NAME.fullmatch(n) or REQUEST_NAME.fullmatch(n)
        )
    except OSError:
        return []


def session_lines_digest(folder: Path, session_id: str) -> Digest | None:
    """Size and SHA-256 of the session's index lines, as `select` binds them; None when the
    index cannot be read as a regular file."""
    index = Path(os.path.abspath(folder)) / INDEX_NAME
    if entry_kind(index) != "file":
        return None
    ours = _SessionLines()
    try:
        with open_regular(index, follow=False) as stream:
            for _, item, raw in _index_lines(stream):
                if not isinstance(item, BadLine) and item.get("session_id") == session_id:
                    ours.add(raw)
    except OSError:
        return None
    return ours.digest()
