"""Read every file of a laid-out tree exactly once: hash and parse the same bytes."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

import converter
from converter.errors import LineProblems, Problem
from converter.heap import Trimmer, cyclic_gc_paused
from converter.limits import MAX_LINE_PROBLEMS
from converter.reader.records import BadField, Rec
from converter.reader.transcript import (
    BadFrame,
    FileReading,
    read_frames,
    read_transcript,
    wire_fingerprint,
)
from converter.regular import open_regular
from converter.sources.jsonl import (
    BadLine,
    Digest,
    bounded_lines,
    iter_lines,
    read_bounded,
    read_document,
)
from converter.sources.tree import SourceFile, TreeLayout

if TYPE_CHECKING:
    from converter.reader.bodies import Response


@dataclass(frozen=True, slots=True)
class Meta:
    file: int  # the meta file's own index: where a refusal of what it says points
    agent_type: str | None
    tool_use_id: str | None
    parent_agent_id: str | None
    spawn_depth: int | None
    name: str | None = None  # a named spawn's name, written instead of toolUseId (teammates)
    task_kind: str | None = None  # `in_process_teammate` for a named spawn


@dataclass(slots=True)
class LoadedTree:
    layout: TreeLayout
    digests: dict[int, Digest] = field(default_factory=dict)
    records: dict[int, list[Rec]] = field(default_factory=dict)
    metas: dict[int, Meta] = field(default_factory=dict)  # keyed by the child's file index
    # a meta with no transcript laid out beside it, by (run id, agent id): the delegation a
    # refused transcript (a symlink, a special file) was written by (reader/unread.py)
    lone_metas: dict[tuple[str | None, str | None], Meta] = field(default_factory=dict)
    # files that could not be read to their end (CC-TREE-UNREADABLE): no digest binds them
    unread: set[int] = field(default_factory=set)
    # run id -> each agent its journal names -> the line that first names it
    journal_started: dict[str, dict[str, int]] = field(default_factory=dict)
    manifests: set[str] = field(default_factory=set)
    unbound: set[int] = field(default_factory=set)  # legacy siblings of another session
    problems: list[Problem] = field(default_factory=list)
    unknown_types: Counter[str] = field(default_factory=Counter)
    unknown_per_file: dict[int, int] = field(default_factory=dict)  # their count in each file
    consumed: bool = False  # build_account has taken (and released) the records
    # Kept only when provider bodies are read (`load(request_ids=True)`): per transcript file,
    # message id -> the request id it names; and the responses read (reader/bodies.py).
    request_ids: dict[int, dict[str, str]] = field(default_factory=dict)
    responses: list[Response] = field(default_factory=list)
    # ... and per transcript file, line -> the `promptId` of a turn starting there
    # (`transcript.read_transcript`): what attributes a hidden call (reader/hidden.py).
    turns: dict[int, dict[int, str]] = field(default_factory=dict)

    @property
    def bound_files(self) -> list[SourceFile]:
        return [f for f in self.layout.files if f.index not in self.unbound]


_SHARED_IDS = ("uuid", "parent_uuid", "msg_id", "session_id", "version", "agent_id")


def _absorb(
    tree: LoadedTree, entry: SourceFile, reading: FileReading, request_ids: bool = False
) -> None:
    """Take one file's reading into the tree. Ids repeated across records (a parent's uuid, a
    message id over its fragments, the session) become one string each: records sent by the
    worker arrive with a fresh string per field (8 MB on the bench tree)."""
    for rec in reading.records:
        rec.file = entry.index
        for name in _SHARED_IDS:
            value = getattr(rec, name)
            if value is not None:
                setattr(rec, name, sys.intern(value))
    tree.problems.extend(Problem(code, entry.index, line) for code, line in reading.problems)
    if ("CC-LINE-UTF16", 1) in reading.problems:
        # Bound as it is, but none of it read: what follows from its absence is not said
        # (reader/unread.py), as for a file that could not be read.
        tree.unread.add(entry.index)
    if reading.unreadable:
        tree.problems.append(Problem("CC-TREE-UNREADABLE", entry.index))
        tree.unread.add(entry.index)
    else:  # a file not read to its end is not bound by the digest of what was read of it
        tree.digests[entry.index] = Digest(reading.sha256, reading.size)
    tree.records[entry.index] = reading.records
    if request_ids:
        tree.request_ids[entry.index] = reading.request_ids
        tree.turns[entry.index] = {line: sys.intern(t) for line, t in reading.turns.items()}
    if reading.size == 0 and not reading.unreadable:
        code = "CC-TREE-EMPTY-FILE" if entry.role == "parent" else "CC-TREE-EMPTY-CHILD"
        tree.problems.append(Problem(code, entry.index))


def read_bytes(
    tree: LoadedTree, entry: SourceFile, empty: str = "CC-TREE-EMPTY-FILE"
) -> bytes | None:
    try:
        with open_regular(entry.path, follow=False) as stream:
            data, tree.digests[entry.index] = read_bounded(stream)
    except OSError:
        tree.problems.append(Problem("CC-TREE-UNREADABLE", entry.index))
        tree.unread.add(entry.index)
        return None
    if data is None:  # bound, not held: a document this long is no Claude Code file
        tree.problems.append(Problem("CC-LINE-TOO-LONG", entry.index, 1))
        tree.unread.add(entry.index)
        return None
    if not data:
        tree.problems.append(Problem(empty, entry.index))
        return None
    return data


def _meta_value(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise BadField("CC-REC-BAD-FIELD")


def _text_or_none(obj: dict[str, Any], key: str) -> str | None:
    """A field used only when present as text: another type is no name (a join that needs it
    then finds nothing and refuses), not a malformed meta that refuses the tree."""
    value = obj.get(key)
    return value if isinstance(value, str) else None


def _read_meta(tree: LoadedTree, entry: SourceFile, child: int | None) -> None:
    data = read_bytes(tree, entry)
    if data is None:
        return
    doc = read_document(data)
    if isinstance(doc, BadLine):
        tree.problems.append(Problem(doc.code, entry.index, 1))
        return
    depth = doc.get("spawnDepth")
    try:
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int)):
            raise BadField("CC-REC-BAD-FIELD")
        meta = Meta(
            file=entry.index,
            agent_type=_meta_value(doc, "agentType"),
            tool_use_id=_meta_value(doc, "toolUseId"),
            parent_agent_id=_meta_value(doc, "parentAgentId"),
            spawn_depth=depth,
            name=_text_or_none(doc, "name"),  # read only to join a spawn with no toolUseId
            task_kind=_text_or_none(doc, "taskKind"),
        )
    except BadField as bad:
        tree.problems.append(Problem(bad.code, entry.index, 1))
        return
    if child is not None:
        tree.metas[child] = meta
    else:
        tree.lone_metas[(entry.run_id, entry.agent_id)] = meta


def _read_journal(tree: LoadedTree, entry: SourceFile) -> None:
    digest = Digest()
    started: dict[str, int] = {}
    lines = LineProblems(tree.problems, entry.index, MAX_LINE_PROBLEMS)
    try:
        with open_regular(entry.path, follow=False) as stream:
            for number, item in iter_lines(bounded_lines(stream), digest):
                if isinstance(item, BadLine):
                    lines.add(item.code, number)
                elif item.get("type") in ("started", "result"):
                    agent = item.get("agentId")
                    if not isinstance(agent, str) or not agent:
                        # an agent's line that names it under no key this version reads (a
                        # format-drift review: `agent_id` refused the run's children as join
                        # conflicts, the journal unnamed)
                        lines.add("CC-TREE-JOURNAL-SHAPE", number)
                        continue
                    # `started`, or `result` alone: a respawned agent's journal has no `started`
                    # line of its own (anthropics/claude-code#80608, 2.1.207)
                    started.setdefault(agent, number)
    except OSError:
        tree.problems.append(Problem("CC-TREE-UNREADABLE", entry.index))
        tree.unread.add(entry.index)
        return
    lines.close()
    tree.digests[entry.index] = digest
    if digest.size == 0:  # no `started` line to check a child against: not evidence of absence
        tree.problems.append(Problem("CC-TREE-EMPTY-FILE", entry.index))
        return
    named = tree.journal_started.setdefault(entry.run_id or "", {})
    for agent, line in started.items():
        named.setdefault(agent, line)


def _read_manifest(tree: LoadedTree, entry: SourceFile) -> None:
    data = read_bytes(tree, entry)
    if data is None:
        return
    doc = read_document(data)
    if isinstance(doc, BadLine):
        tree.problems.append(Problem(doc.code, entry.index, 1))
        return
    tree.manifests.add(entry.run_id or "")


# Below this many transcript bytes a second process costs more (~60 ms to start) than it saves.
PARALLEL_MIN_BYTES = 32 * 10**6
READ_JOBS_ENV = "AGENT_EVIDENCE_READ_JOBS"
# -P: `-m` would otherwise put the working directory first on the import path, and a folder
# named `converter` there (a user's repository) would run in place of this worker.
WORKER_COMMAND = (sys.executable, "-P", "-m", "converter.reader.worker")


def read_jobs() -> int:
    """Reading processes: 2 on a machine with two cores or more, unless the environment says 1."""
    if os.environ.get(READ_JOBS_ENV) == "1":
        return 1
    return 2 if (os.cpu_count() or 1) >= 2 else 1


def load(
    layout: TreeLayout,
    jobs: int | None = None,
    min_bytes: int = PARALLEL_MIN_BYTES,
    *,
    request_ids: bool = False,
) -> LoadedTree:
    """Read the tree. With `jobs` 2 and enough bytes, a second process reads about half of the
    transcripts (by size) while this one reads the rest; the result is the same either way.
    `request_ids`: keep the request id each call names (for provider bodies)."""
    with cyclic_gc_paused():
        return _load(layout, read_jobs() if jobs is None else jobs, min_bytes, request_ids)


def _size(entry: SourceFile) -> int:
    try:
        return entry.path.stat().st_size
    except OSError:
        return 0  # read_transcript reports it


# The bytes this process and the worker read, as 5 to 4: the worker starts late (a new
# interpreter) and encodes each reading for the pipe. Split evenly, it finished last on most
# runs of the bench tree (0.1-0.3 s after this process), which waited at its reading's full
# size while the worker's 24 MB were still resident: their sum passed convert's memory target
# on one run in four (157.9-159.4 MB against 157.7). Split 5 to 4, it finishes first, and the
# reading took no longer (1.57-1.82 s against 1.62-1.92 s, four rounds each).
SHARES = (5, 4)


def _split(
    entries: list[SourceFile], sizes: dict[int, int]
) -> tuple[list[SourceFile], list[SourceFile]]:
    """Largest first, each file to the share further below its part of `SHARES`: (this
    process's, the worker's)."""
    mine: list[SourceFile] = []
    theirs: list[SourceFile] = []
    weight = [0, 0]
    for entry in sorted(entries, key=lambda e: sizes[e.index], reverse=True):
        side = 0 if weight[0] * SHARES[1] <= weight[1] * SHARES[0] else 1
        (mine, theirs)[side].append(entry)
        weight[side] += sizes[entry.index]
    return mine, theirs


def _worker_env(request_ids: bool) -> dict[str, str]:
    """The worker imports this very copy of the package (first on its path) and checks that its
    frame layout is the one expected here; `request_ids`: it keeps each call's request id."""
    from converter.reader.worker import FINGERPRINT_ENV, REQUEST_IDS_ENV

    package_root = str(Path(converter.__file__).resolve().parent.parent)
    path = os.environ.get("PYTHONPATH")
    return {
        **os.environ,
        "PYTHONPATH": package_root + (os.pathsep + path if path else ""),
        FINGERPRINT_ENV: wire_fingerprint(),
        REQUEST_IDS_ENV: "1" if request_ids else "0",
    }


class _Worker:
    """The second reading process. A thread feeds it its paths and decodes each file's reading
    as it arrives, so neither side waits on a pipe and no encoded backlog builds up."""

    def __init__(self, entries: list[SourceFile], request_ids: bool = False) -> None:
        self.entries = entries
        self.request_ids = request_ids
        self.got: list[FileReading | None] = []  # None: a file the worker could not send
        self.intact = False
        self.proc: subprocess.Popen[bytes] | None = None
        try:  # a file name that is not UTF-8 cannot be sent: this process reads them all then
            payload = msgspec.msgpack.encode([str(e.path) for e in entries])
        except UnicodeEncodeError:
            return
        try:
            self.proc = subprocess.Popen(
                list(WORKER_COMMAND),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=_worker_env(request_ids),
            )
        except OSError:
            self.proc = None
            return
        self.thread = threading.Thread(target=self._talk, args=(payload,), daemon=True)
        try:
            self.thread.start()
        except RuntimeError:  # no thread to be had: do without the worker
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def _talk(self, payload: bytes) -> None:
        proc = self.proc
        assert proc is not None
        assert proc.stdin is not None
        assert proc.stdout is not None
        try:
            with proc.stdin:
                proc.stdin.write(payload)
            self.got.extend(read_frames(proc.stdout))
            self.intact = True
        except (BadFrame, OSError):
            proc.kill()
        finally:
            proc.stdout.close()
            proc.wait()

    def readings(self) -> list[FileReading]:
        """The worker's readings; if it failed in any way, this process reads the files."""
        if self.proc is not None:
            self.thread.join()
            ok = self.intact and self.proc.returncode == 0
            if ok and len(self.got) == len(self.entries):
                trimmer = Trimmer()
                return [
                    got
                    if got is not None
                    else read_transcript(entry.path, trimmer, self.request_ids)
                    for got, entry in zip(self.got, self.entries, strict=True)
                ]
        return list(_read_here(self.entries, self.request_ids).values())


def _read_transcripts(
    entries: list[SourceFile], jobs: int, min_bytes: int, request_ids: bool = False
) -> dict[int, FileReading]:
    if jobs < 2 or len(entries) < 2:
        return _read_here(entries, request_ids)
    sizes = {e.index: _size(e) for e in entries}
    if sum(sizes.values()) < min_bytes:
        return _read_here(entries, request_ids)
    mine, theirs = _split(entries, sizes)
    worker = _Worker(theirs, request_ids)
    readings = _read_here(mine, request_ids)
    readings.update(zip((e.index for e in theirs), worker.readings(), strict=True))
    return readings


def _read_here(entries: list[SourceFile], request_ids: bool = False) -> dict[int, FileReading]:
    trimmer = Trimmer()
    return {entry.index: read_transcript(entry.path, trimmer, request_ids) for entry in entries}


def _load(layout: TreeLayout, jobs: int, min_bytes: int, request_ids: bool) -> LoadedTree:
    tree = LoadedTree(layout=layout, problems=list(layout.problems))
    child_of: dict[tuple[str | None, str | None], int] = {
        (f.run_id, f.agent_id): f.index for f in layout.files if f.role == "subagent"
    }
    transcripts = [e for e in layout.files if e.role in ("parent", "subagent")]
    readings = _read_transcripts(transcripts, jobs, min_bytes, request_ids)
    unknown: dict[int, Counter[str]] = {}  # per file: a sibling of another session's are not ours
    for entry in layout.files:
        if entry.role in ("parent", "subagent"):
            reading = readings.pop(entry.index)
            unknown[entry.index] = Counter(reading.unknown_types)
            _absorb(tree, entry, reading, request_ids)
        elif entry.role == "meta":
            _read_meta(tree, entry, child_of.get((entry.run_id, entry.agent_id)))
        elif entry.role == "journal":
            _read_journal(tree, entry)
        elif entry.role == "workflow-manifest":
            _read_manifest(tree, entry)
    for entry in layout.files:
        if entry.legacy and _another_sessions(tree, entry.index, layout.session_id):
            tree.unbound.add(entry.index)
    tree.problems = [p for p in tree.problems if p.file not in tree.unbound]
    for index, counts in unknown.items():
        if index not in tree.unbound:
            tree.unknown_types.update(counts)
            if counts:
                tree.unknown_per_file[index] = counts.total()
    return tree


def _another_sessions(tree: LoadedTree, index: int, session: str) -> bool:
    """Whether an agent transcript beside the parent (2.0.x's place) is another session's: its
    records name another session, never this one. One whose records name no session gives no
    sign of whose it is: this session's spend may be in it, unless it was read to its end and
    holds no call (one not read is refused, CC-TREE-UNREADABLE; one with a call is bound, and
    joined or refused as any child: a review found such a call converted left out)."""
    records = tree.records.get(index, ())
    named = {r.session_id for r in records if r.session_id is not None}
    if session in named:
        return False
    if named:
        return True
    return index not in tree.unread and not any(r.type == "assistant" for r in records)
