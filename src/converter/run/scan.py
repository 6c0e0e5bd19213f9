"""`scan`: every session tree under a Claude Code projects folder, inspected in parallel.

Sessions first (FORMAT-NOTES §1): in each project folder, `<session-id>.jsonl` is a session's
parent transcript and `<session-id>/` its folder of children; `memory/` and anything not shaped
like a session id are not sessions. Files are grouped by session id (byte-exact) across project
folders: a session found under several project folders is one row, inspected once per parent file
and flagged `split`; a session folder with no parent transcript in any project folder (pruned) is
reported as an orphan (`CC-TREE-PARENT-MISSING`), never dropped; a parent found and then deleted
or moved before its tree is read is said as such (`CC-TREE-PARENT-VANISHED`), not as one that was
never there. One with its parent in another project folder (a git worktree's children) is read
by that parent's tree (`sources.tree`).
Given one project folder instead of the projects folder, what the project folders beside it hold
of its sessions is found as `inspect` finds it (`_Walk.beside`), so each tree gets `inspect`'s
verdict: a session's folder there is its tree's; a transcript there makes the session split.

A split session's parents are each their own tree (`convert` reads one parent and the folder
beside it), so its row counts every model call, tool call and subagent of its trees once: calls
are matched by id across the trees, the way one tree counts a call written in several files. Trees
that share any of them are copies of one session, not parts of it (a parent copied into another
project folder, before or after it grew): the row is refused (`CC-TREE-SPLIT-OVERLAP`), since
converting each would count the shared calls twice and which copy is the session cannot be told.

Each parent is inspected by `pipeline.summarize_tree` in a worker process (small trees sent
together, `batches`) or in this process:
`worker_count` gives never more workers than the `jobs` asked, the parent transcripts to inspect
or the CPUs this process may run on (one worker or none is this process). The pseudonym key is
loaded once by the caller and handed to workers as bytes. The result is content-free: keyed
session labels, codes and numbers; rows are ordered by label so the output does not depend on
`jobs` or on completion order.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import signal
import stat
import sys
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from converter.errors import Problem, Refused
from converter.files import RUNNER_STOPS, home_folder
from converter.firewall.boundary import cross, event_id, usage_totals
from converter.firewall.keys import PseudonymKey
from converter.firewall.pseudonyms import Pseudonymizer
from converter.firewall.types import decimal_text
from converter.limits import MONEY_SUMS, money_sum
from converter.reader.model import Account, Call
from converter.run.inspection import (
    TOKEN_KEYS,
    card_cost,
    cost_span,
    high_end,
    inspect_report,
    model_figure,
    money_span,
    spend_left_out,
)
from converter.run.outputs import ScanCost, ScanModelCost, ScanReport, checked
from converter.run.pipeline import summarize_tree
from converter.sources.tree import (
    OS_FILES,
    SESSION_ID,
    entry_kind,
    legacy_agent_id,
    no_part,
    same_folder,
    sessions_named_inside,
)
from converter.text import counted

if TYPE_CHECKING:  # pricing is loaded only for --price-card (tests/test_layering.py)
    from converter.pricing.card import PriceCard
    from converter.pricing.estimate import Estimate, ModelCost

ORPHAN_CODE = "CC-TREE-PARENT-MISSING"
# A main transcript found by the scan and gone when its tree was read (`parent_vanished`).
VANISHED_CODE = "CC-TREE-PARENT-VANISHED"
# A tree refused for these codes alone recorded no model call: nothing to convert, and no spend
# in it to miss. Its row says `empty`, not `refused` (on a real machine most such sessions are a
# `/clear`, a resumed-and-left session or a hook's side session, and a zero-byte transcript is
# a session that never wrote a line: not something to fix).
EMPTY_CODES = frozenset({"CC-TREE-NO-CALLS", "CC-TREE-EMPTY-FILE"})
OVERLAP_CODE = "CC-TREE-SPLIT-OVERLAP"
# A session folder of a split session in a project folder with no part of it: no tree reads it
# (`discover` refuses it in each part's tree; a row with no tree to say it, here).
SPLIT_FOLDER_CODE = "CC-TREE-SPLIT-FOLDER"
# `--jobs` above this is a usage error: each worker holds a whole tree's account, and a pool is
# started at its full size at once (a mistyped `--jobs 100000` once forked until memory ran out).
MAX_JOBS = 64
# A priced call's low and high, whether its high end is open, its model (`Estimate.by_event`).
CallCost = tuple[Decimal, Decimal, bool, str]
_NUMBERS = ("model_calls", "usage_incomplete_calls", "tool_calls", "subagents")


def default_projects_dir() -> Path | None:
    """`$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`; None with no home folder."""
    config = os.environ.get("CLAUDE_CONFIG_DIR")
    if config:
        return Path(config) / "projects"
    home = home_folder()
    return None if home is None else home / ".claude" / "projects"


@dataclass(slots=True)
class Session:
    session_id: str  # local only
    parents: list[Path] = field(default_factory=list)
    # `<project>/<sid>/` folders with no <sid>.jsonl in the same project folder (local only)
    orphan_dirs: list[str] = field(default_factory=list)
    projects: set[str] = field(default_factory=set)
    # One project folder given (`Found.one_project`): a main transcript of the session is in a
    # project folder beside it, not read (`_Walk.beside`); split if one is here too.
    beside: bool = False
    # Symlinks and files by the session's id in project folders (not folders): a tree refuses
    # them where it reads the session's folders, as `inspect` does (`sources.tree`).
    odd: list[Path] = field(default_factory=list)
    # One project folder given, the session split: its folders in the project folders beside,
    # which no tree reads and `inspect` refuses (CC-TREE-SPLIT-FOLDER, `_Walk.beside`).
    split_folders: int = 0

    @property
    def orphan_folders(self) -> int:
        return len(self.orphan_dirs)


@dataclass(slots=True)
class Found:
    sessions: list[Session]
    project_folders: int
    # Entries that are neither a session nor `memory/`: files beside the project folders, and in
    # them anything not shaped like `<session-id>.jsonl` or `<session-id>/`.
    skipped: int
    # Symlinked project or session folders: never followed (SPEC §3), so the sessions behind
    # them are not checked; counted on their own, not as "not a session".
    symlinks: int = 0
    # Of the skipped entries beside the project folders, those named like a session transcript:
    # the folder given is most likely one project folder, not the projects folder.
    top_level_sessions: int = 0
    # Project folders that could not be listed (permissions, a name past the OS's length
    # limit): the sessions in them were not checked.
    unreadable: int = 0
    # The folder given is Claude Code's config folder (`_is_config_folder`), and its
    # `projects/` is what was scanned (`root`).
    config_folder: bool = False
    # The folder given is itself one project folder (session transcripts in it, none in its
    # subfolders): scanned as that one project folder.
    one_project: bool = False
    # The folder given is one session's own folder (`<session-id>/`, `_is_session_folder`),
    # where no session is: its transcript is beside it.
    session_folder: bool = False
    # Of the skipped entries, the .jsonl files not named by a session id (an excerpt, a copy, a
    # renamed transcript): `inspect --from claude-code` reads one on its own.
    stray_transcripts: int = 0
    # Where each skipped entry is, relative to the projects folder: for --show-paths only.
    skipped_paths: list[str] = field(default_factory=list)
    # Where each symlinked and each unreadable folder counted above is (relative to the projects
    # folder): the folders the notes say to fix, for --show-paths only.
    symlink_paths: list[str] = field(default_factory=list)
    unreadable_paths: list[str] = field(default_factory=list)
    # Per parent transcript, the 2.0.x agent transcripts beside it that may be its session's:
    # those whose records name it, and those whose session could not be read (every tree of
    # the folder reads them, as `inspect` would).
    siblings: dict[Path, tuple[str, ...]] = field(default_factory=dict)
    # The folder scanned, which the paths above are relative to: the folder given, or its
    # `projects/` folder (`config_folder`).
    root: Path = Path()
    # Sessions left out by `scan --since` (`written_since`): last written before it.
    before_since: int = 0


def last_written(session: Session, found: Found) -> float | None:
    """When a session's files were last written (their newest modification time, seconds since
    the epoch): its main transcripts, the 2.0.x agent transcripts beside them that its tree
    reads, and its session folders, each folder and file in them (a resumed session appends to
    them; a folder's own time dates an empty one). Read from the file system, never from a
    transcript. None when any part of it cannot be told: a file or folder that cannot be read
    for its time, one that vanished, a symlink (never followed, SPEC §3): the session is then
    kept, and its row says what is wrong with it."""
    files = [*session.parents]
    files += [Path(f) for parent in session.parents for f in found.siblings.get(parent, ())]
    folders = [found.root / d for d in session.orphan_dirs]
    folders += [p.with_suffix("") for p in session.parents if os.path.lexists(p.with_suffix(""))]
    unknown: list[OSError] = []
    times = []
    for path in [*files, *folders]:
        try:
            info = os.stat(path, follow_symlinks=False)
        except OSError:
            return None
        if stat.S_ISLNK(info.st_mode):
            return None
        times.append(info.st_mtime)
    for folder in folders:
        for where, subfolders, names in os.walk(folder, onerror=unknown.append):
            for name in [*subfolders, *names]:  # a symlink among them is not followed, dated
                try:
                    times.append(os.stat(os.path.join(where, name), follow_symlinks=False).st_mtime)
                except OSError:
                    return None
        if unknown:  # a folder in it that could not be listed
            return None
    return max(times) if times else None


def instant_text(when: datetime) -> str:
    """A UTC instant as `scan --json` says it: to the second, or to the microsecond when it has
    a fraction (the instant used, not one near it)."""
    text = when.strftime("%Y-%m-%dT%H:%M:%S")
    if len(text) != len("2026-11-01T00:00:00"):  # (`_since` keeps to years 1970 on)
        raise ValueError("a year of four digits")
    return text + (f".{when.microsecond:06d}Z" if when.microsecond else "Z")


def written_since(found: Found, since: float) -> Found:
    """`found` with only the sessions written to at or after `since` (`last_written`); the
    others are counted (`before_since`), not inspected. A session whose time cannot be told is
    kept."""
    kept = []
    for session in found.sessions:
        written = last_written(session, found)
        if written is None or written >= since:
            kept.append(session)
    return replace(found, sessions=kept, before_since=len(found.sessions) - len(kept))


def find_sessions(projects_dir: Path) -> Found:
    """Sessions grouped by id across project folders; what else was there is counted. Given
    Claude Code's config folder, its `projects/` folder (`_is_config_folder`)."""
    if _is_config_folder(projects_dir):
        found = _find_sessions(projects_dir / "projects")
        found.config_folder = True
        return found
    found = _find_sessions(projects_dir)
    found.session_folder = not found.sessions and _is_session_folder(projects_dir)
    return found


def _is_session_folder(folder: Path) -> bool:
    """Whether `folder` is a session's own folder, `<session-id>/`: named by a session id, with
    its `subagents/` folder in it or its `<session-id>.jsonl` beside it. A walkthrough: scanning
    one said "0 sessions in 1 project folder, 0 model calls" of a session with 160 KB of
    subagent transcripts."""
    if not SESSION_ID.fullmatch(folder.name):
        return False
    beside = folder.parent / f"{folder.name}.jsonl"
    return entry_kind(folder / "subagents") == "dir" or entry_kind(beside) != "missing"


def _is_config_folder(folder: Path) -> bool:
    """Whether `folder` is Claude Code's config folder (`~/.claude`): it holds a `projects/`
    folder (no project folder is so named: each is its working directory's path, `-` for
    each separator) and no session transcript of its own. Told before walking it: its
    `file-history/<session-id>/` and `session-env/<session-id>/` would read as sessions' folders
    with no transcript."""
    projects = folder / "projects"
    kind = entry_kind(projects)
    # A `projects` that is a symlink to a folder (kept on another disk) is followed, as it is
    # when the scan finds it by $CLAUDE_CONFIG_DIR or ~/.claude: the folder was named by the
    # user, and it is the root of the scan (SPEC §3's symlinks are those inside a tree).
    if kind != "dir" and not (kind == "link" and os.path.isdir(projects)):  # never raises
        return False
    try:
        names = [entry.name for entry in os.scandir(folder)]
    except OSError:
        return False
    return not any(
        name.endswith(".jsonl") and SESSION_ID.fullmatch(name.removesuffix(".jsonl"))
        for name in names
    )


def _find_sessions(projects_dir: Path) -> Found:
    walk = _Walk(projects_dir)
    session_folders = 0
    for project in sorted(projects_dir.iterdir(), key=lambda p: p.name):
        kind = entry_kind(project)
        if kind == "file" and project.name.lower() in OS_FILES:
            continue  # a file browser's file, no session's (as the tree walker passes over it)
        if kind == "dir":
            # A session's folder beside the project folders: the folder given is most likely
            # one project folder (its transcripts pruned, or a git worktree's, which holds
            # only session folders).
            session_folders += SESSION_ID.fullmatch(project.name) is not None
            walk.project(project)
        elif project.is_symlink() and project.is_dir():
            walk.symlink(project)
        else:
            walk.skip(project, kind)
    if not walk.sessions and (walk.found.top_level_sessions or session_folders):
        walk = _Walk(projects_dir)  # one project folder given: scan it as one
        walk.project(projects_dir)
        walk.beside(projects_dir)
        walk.found.one_project = True
    found = walk.found
    for session in walk.sessions.values():
        _drop_empty_parts(session, found.root)
    for sid, entries in walk.odd.items():
        if sid in walk.sessions:  # a session of no transcript or folder has no tree to refuse
            walk.sessions[sid].odd += entries
    found.sessions = [walk.sessions[k] for k in sorted(walk.sessions)]
    return found


def _drop_empty_parts(session: Session, root: Path) -> None:
    """A session's transcripts that are no part of it beside one that is (an empty file, a
    symlink naming nothing: `sources.tree.no_part`), left out as `inspect` of that part leaves
    them out: the folder beside such a one is then the session's, read with its transcript (a
    review: the row said refused, CC-TREE-EMPTY-FILE and split, for a session `inspect`
    converts). A session of such transcripts only keeps them: its tree refuses them."""
    kept = [p for p in session.parents if not no_part(p)]
    if not kept or len(kept) == len(session.parents):
        return
    for parent in session.parents:
        folder = parent.with_suffix("")
        if parent not in kept and entry_kind(folder) != "missing":
            session.orphan_dirs.append(f"{_relative(folder, root)}/")
    session.parents = kept


class _Walk:
    """What `find_sessions` has found so far."""

    def __init__(self, projects_dir: Path) -> None:
        self.root = projects_dir
        self.sessions: dict[str, Session] = {}
        self.found = Found([], 0, 0, root=projects_dir)
        self.odd: dict[str, list[Path]] = {}  # `Session.odd`, by session id

    def skip(self, entry: Path, kind: str) -> None:
        found = self.found
        found.skipped += 1
        found.skipped_paths.append(_relative(entry, self.root))
        jsonl = entry.name.endswith(".jsonl")
        named = jsonl and SESSION_ID.fullmatch(entry.name.removesuffix(".jsonl")) is not None
        if entry.parent == self.root:  # beside the project folders: one was given, it seems
            found.top_level_sessions += named
        agent = legacy_agent_id(entry.name) is not None  # a 2.0.x child: no parent to read it
        found.stray_transcripts += kind == "file" and jsonl and not named and not agent

    def project(self, project: Path) -> None:
        """One project folder's sessions; the rest of it skipped or counted."""
        self.found.project_folders += 1
        parents: set[str] = set()
        session_dirs: list[str] = []
        legacy: list[Path] = []  # 2.0.x agent transcripts beside the parents: the trees read them
        readable_parent = False  # a tree that gets as far as its siblings (not a refused link)
        try:
            entries = [(e, entry_kind(e)) for e in sorted(project.iterdir(), key=lambda p: p.name)]
        except OSError:
            entries = [(project, "unreadable")]
        if any(kind == "unreadable" for _, kind in entries):
            self.found.unreadable += 1  # not listed, or listed but not searchable: nothing told
            self.found.unreadable_paths.append(_relative(project, self.root))
            return
        for entry, kind in entries:
            name = entry.name
            if name == "memory" or (kind == "file" and name.lower() in OS_FILES):
                continue  # notes; a file browser's file
            stem = name.removesuffix(".jsonl")
            if kind != "dir" and SESSION_ID.fullmatch(name):  # counted below as well
                self.odd.setdefault(name, []).append(entry)
            # A symlink, special file or folder named like a session transcript is a session
            # the tree refuses (CC-TREE-SYMLINK, -SPECIAL-FILE, -PARENT-IS-FOLDER): a row says
            # so, it is not skipped.
            if name.endswith(".jsonl") and SESSION_ID.fullmatch(stem):
                session = self.sessions.setdefault(stem, Session(stem))
                session.parents.append(entry)
                session.projects.add(project.name)
                parents.add(stem)
                readable_parent = readable_parent or kind == "file"
            elif kind == "dir" and SESSION_ID.fullmatch(name):
                session_dirs.append(name)
            elif entry.is_symlink() and entry.is_dir():
                self.symlink(entry)
            elif kind == "file" and legacy_agent_id(name) is not None:
                legacy.append(entry)
            else:
                self.skip(entry, kind)
        for entry in [] if readable_parent else legacy:  # else no tree reads them
            self.skip(entry, "file")
        self._siblings(project, parents, [e for e, _ in entries if legacy_agent_id(e.name)])
        for sid in session_dirs:
            if sid not in parents:
                session = self.sessions.setdefault(sid, Session(sid))
                folder = "" if project == self.root else f"{project.name}/"
                session.orphan_dirs.append(f"{folder}{sid}/")
                session.projects.add(project.name)

    def symlink(self, entry: Path) -> None:
        """A symlinked folder: not followed (SPEC §3), counted, and named by --show-paths."""
        self.found.symlinks += 1
        self.found.symlink_paths.append(_relative(entry, self.root))

    def beside(self, project: Path) -> None:
        """What the project folders beside the one given hold of its sessions, found as
        `inspect` finds a tree's (`sources.tree.session_folders_elsewhere`), so that each tree
        gets the verdict `inspect` gives it: the session's folder with no transcript beside it (a
        git worktree's children, or a stray copy) is read with the session's transcript here, as
        a scan of the whole projects folder reads it; a transcript of the session there (the
        session is split) means no such folder is this tree's, and the row says the session is
        split (its transcripts there are not read: they were not given). Nothing else of those
        folders is looked at or counted. A symlinked project folder is not followed."""
        here = Path(os.path.abspath(project))
        mine = set(self.sessions)
        if not mine or here.parent == here:
            return
        try:
            others = sorted(here.parent.iterdir(), key=lambda p: p.name)
        except OSError:
            return
        folders: dict[str, list[Path]] = defaultdict(list)
        for other in others:
            if entry_kind(other) != "dir" or same_folder(other, here):
                continue
            try:
                names = {entry.name for entry in os.scandir(other)}
            except OSError:
                continue
            for sid in mine:
                if f"{sid}.jsonl" in names and not no_part(other / f"{sid}.jsonl"):
                    self.sessions[sid].beside = True
                elif sid in names:
                    folders[sid].append(other / sid)
        for sid, found in folders.items():
            session = self.sessions[sid]
            if session.beside and session.parents:  # split: its tree refuses them, as inspect
                session.split_folders += sum(entry_kind(f) == "dir" for f in found)
                continue
            if not session.parents:
                continue  # no transcript here: no tree here reads them (as inspect)
            for folder in found:
                if entry_kind(folder) == "dir":
                    session.orphan_dirs.append(f"{_relative(folder, self.root)}/")
                    session.projects.add(folder.parent.name)
                    continue
                self.odd.setdefault(sid, []).append(folder)  # its tree refuses it
                if folder.is_symlink() and folder.is_dir():
                    self.symlink(folder)  # not followed, as anywhere in a scan

    def _siblings(self, project: Path, parents: set[str], named: list[Path]) -> None:
        """Which of a project folder's 2.0.x agent transcripts each of its sessions reads: one
        read of each file's head here, where each tree would list the folder and read every
        one of them (quadratic in a folder of many sessions)."""
        by_session: dict[str, list[str]] = defaultdict(list)
        # no session read from it (not a file, unreadable, or naming none): all read it, and
        # each tree binds it unless it holds no call (`reader/load.py`)
        unknown: list[str] = []
        for entry in named:
            sids = sessions_named_inside(entry) if entry_kind(entry) == "file" else None
            if not sids:
                unknown.append(str(entry))
            for sid in sids or ():
                by_session[sid].append(str(entry))
        for stem in parents:
            mine = sorted([*by_session.get(stem, ()), *unknown], key=lambda p: Path(p).name)
            self.found.siblings[project / f"{stem}.jsonl"] = tuple(mine)


def _relative(path: Path, root: Path) -> str:
    """`path` relative to the folder scanned (`../<project>/…` beside the one project folder
    given): for --show-paths only."""
    return Path(os.path.relpath(path, root)).as_posix()


def session_label(pseudo: Pseudonymizer, session_id: str) -> str:
    """The parent's own keyed label: the same as its `files[].label` in `inspect --json`."""
    return pseudo.name("file", f"{session_id}.jsonl")


def local_paths(found: Found, secret: bytes) -> list[tuple[str, list[str]]]:
    """For `scan --show-paths` (stderr only): each session's label and where it lies, relative to
    the projects folder scanned: its parent transcripts, and each of its folders with no parent beside
    it (a pruned session's, `CC-TREE-PARENT-MISSING`, or the stray half of a split one:
    `CC-TREE-SPLIT-FOLDER`)."""
    pseudo = Pseudonymizer(PseudonymKey(secret))
    out = []
    for session in found.sessions:
        places = [_relative(p, found.root) for p in session.parents]
        places += sorted(session.orphan_dirs)
        out.append((session_label(pseudo, session.session_id), places))
    return sorted(out)


# ------------------------------------------------------------------ one parent (worker side)

_WORKER: dict[str, Pseudonymizer] = {}
_CARD: dict[str, PriceCard | None] = {}  # `scan --price-card`'s, in every worker
_SECRET: dict[str, bytes] = {}  # keys the digests of a split session's ids (`_identities`)
_READ_JOBS: dict[str, int | None] = {"jobs": None}


def _init_worker(secret: bytes, card: PriceCard | None = None) -> None:
    _WORKER["pseudo"] = Pseudonymizer(PseudonymKey(secret))
    _CARD["card"] = card
    _SECRET["key"] = secret
    _READ_JOBS["jobs"] = 1  # --jobs counts every process of the scan: one reader per tree


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _init_pool_worker(secret: bytes, scan_pid: int, card: PriceCard | None) -> None:
    """A pool worker: Ctrl-C is the scan's to handle (it stops the workers), and on Linux the
    kernel kills the worker when the process that started it dies, even by SIGKILL or the OOM
    killer, so no worker is left behind as an orphan that holds a tree in memory."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A forked worker inherits the scan's handler of the stops a runner sends (an interrupt
    # raised in the worker, a traceback on its way out); the scan stops its workers with
    # SIGTERM, which must simply end them.
    for stop in RUNNER_STOPS:
        signal.signal(stop, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if not _alive(scan_pid):  # the scan died before the line above took effect
        os._exit(1)
    _init_worker(secret, card)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, as another user's process
    return True


def inspect_part(
    parent: str,
    identities: bool = False,
    elsewhere: tuple[str, ...] = (),
    siblings: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Inspect one parent transcript and the session's folders `elsewhere` (other project
    folders'); a small content-free summary (picklable). With `identities` (a split session's
    parents), also each model call, tool call and subagent under a keyed digest of its id, and
    each call's usage: what `_merge` needs to count them once."""
    pseudo = _WORKER["pseudo"]
    card = _CARD.get("card")
    try:
        folders = [Path(f) for f in elsewhere]
        account, summary = summarize_tree(
            Path(parent),
            pseudo,
            read_jobs=_READ_JOBS["jobs"],
            elsewhere=folders,
            siblings=[Path(f) for f in siblings],
        )
        if parent_vanished(Path(parent), account.refusals):  # nothing of it read: no count
            return {"codes": [VANISHED_CODE], "convertible": False}
        cost = None
        each: dict[str, CallCost] = {}  # each priced call's cost, by event id
        if card is not None and not identities and not account.refusals:  # as inspect does
            from converter.pricing.estimate import estimate

            found = estimate(cross(account, pseudo), card, each=True)
            cost = _cost(found)
            cost["spend_left_out"] = spend_left_out(account, found)  # as inspect says it
            each = found.by_event or {}
    except Refused as refused:
        return {"codes": sorted({p.code for p in refused.problems}), "convertible": False}
    except Exception as error:  # a bug: one tree's row says so, the scan goes on (exit 70)
        return {"error": type(error).__name__}
    report = inspect_report(summary)
    counts = report["counts"]
    part = {
        "convertible": report["convertible"],
        "codes": sorted({r["code"] for r in report["refusals"]}),
        **{k: counts[k] for k in _NUMBERS},
        "usage": {k: report["usage"][k] for k in TOKEN_KEYS},
    }
    if cost is not None:
        part["cost"] = cost
    if identities:
        part.update(_identities(parent, account))
    else:  # which calls other sessions have too, and each one's cost (`_shared_calls`)
        part["call_keys"] = {
            _keyed("call", c.msg_id): each.get(event_id(pseudo, ("model", c.msg_id)))
            if each
            else None
            for c in account.calls.values()
        }
    return part


def parent_vanished(parent: Path, refusals: list[Problem]) -> bool:
    """Whether a main transcript the scan found was gone when its tree was read (deleted, moved
    or renamed during the scan): its tree found nothing at its path (`discover`'s
    CC-TREE-PARENT-MISSING, of no file and no path) or could not open it (CC-TREE-UNREADABLE of
    the parent, file 0), and nothing is there now. Said apart (CC-TREE-PARENT-VANISHED): the
    tree's own code told of a pruned session, or of permissions to check, for a transcript that
    was there when the scan listed its folder (a scan audit). A file replaced in between is
    there: its tree says what it is."""
    at_parent = any(
        (p.code == ORPHAN_CODE and p.file is None and p.local_path is None)
        or (p.code == "CC-TREE-UNREADABLE" and p.file == 0)
        for p in refusals
    )
    return at_parent and not os.path.lexists(parent)


# A row's and the totals' figure: inspect --price-card's keys, those its model (outputs.py)
# names; a model's part likewise. The counts are what the totals add up.
_COST_KEYS = tuple(k for k in ScanCost.model_fields if k != "by_model")
_COST_COUNTS = tuple(k for k in _COST_KEYS if "_usd" not in k)
_MODEL_COST = tuple(ScanModelCost.model_fields)


def _model_part(m: ModelCost) -> dict[str, Any]:
    """A model's part of a row's or the totals' figure: `inspect`'s, without its breakdown."""
    whole = model_figure(m)
    return {k: whole[k] for k in _MODEL_COST}


def _cost(found: Estimate) -> dict[str, Any]:
    """A row's figure by the card: `inspect --price-card`'s, and its split by model."""
    whole = card_cost(found)
    by_model = {name: _model_part(m) for name, m in sorted(found.by_model.items())}
    return {**{k: whole[k] for k in _COST_KEYS}, "by_model": by_model}


def _keyed(kind: str, local: str) -> bytes:
    """A local id under the scan's key: content-free, the same in every tree of the scan."""
    value = f"{kind}:{local}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(
        value, key=_SECRET["key"], digest_size=16, person=b"scan-identity"
    ).digest()


def _identities(parent: str, account: Account) -> dict[str, Any]:
    def tokens(call: Call) -> tuple[int, ...]:
        usage = usage_totals(call.usage)
        return tuple(getattr(usage, k) for k in TOKEN_KEYS)

    root = account.streams[0] if account.streams else None
    return {
        "calls": {_keyed("call", c.msg_id): (c.final, tokens(c)) for c in account.calls.values()},
        "tools": [_keyed("tool", t) for t in account.tools],
        # A subagent is its stream as `inspect` counts them; one with no id is its own.
        "agents": [
            _keyed("agent", s.agent_id) if s.agent_id else _keyed("stream", f"{parent}:{s.index}")
            for s in account.streams
            if s.depth >= 0 and s is not root
        ],
    }


# ------------------------------------------------------------------ the scan


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def worker_count(jobs: int, parents: int, cpus: int) -> int:
    """Worker processes for a scan: the `jobs` asked, but never more than the parent transcripts
    to inspect (a worker with nothing to do is only memory), the CPUs (inspecting is CPU-bound:
    more workers than CPUs only hold more trees in memory at once) or MAX_JOBS. 1 or less: the
    scan runs in this process."""
    return max(min(jobs, parents, cpus, MAX_JOBS), 0)


@dataclass(frozen=True, slots=True)
class Part:
    """One parent transcript to inspect: with `identities` (a split session's), and with the
    session's folders in other project folders (`elsewhere`, read by its tree)."""

    parent: Path
    identities: bool = False
    elsewhere: tuple[str, ...] = ()
    siblings: tuple[str, ...] = ()  # the 2.0.x agent transcripts beside it that may be its

    def args(self) -> tuple[str, bool, tuple[str, ...], tuple[str, ...]]:
        return str(self.parent), self.identities, self.elsewhere, self.siblings


def inspect_parts(
    parts: list[tuple[str, bool, tuple[str, ...], tuple[str, ...]]],
) -> list[dict[str, Any]]:
    """`inspect_part` of each of a batch of trees, in one task of a worker."""
    return [inspect_part(*args) for args in parts]


# A task sent to a worker holds trees whose parent transcripts add up to this many bytes, or this
# many trees: one task per tree of a few KB cost more than inspecting it (an audit: 3,000 empty
# sessions took 1.3 s with --jobs 2, 1.0 s with --jobs 1).
_BATCH_BYTES = 1 << 20
_BATCH_TREES = 64


def batches(sizes: list[int], workers: int) -> list[list[int]]:
    """The indexes of `sizes` (each tree's parent transcript), largest first, in batches: a tree
    of `_BATCH_BYTES` or more alone, smaller ones together up to that many bytes or
    `_BATCH_TREES` trees, and never so many per batch that fewer than four batches per worker
    are left to share out (the last batch must not leave a worker idle for long)."""
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i])
    share = workers * 4
    most_bytes = max(min(_BATCH_BYTES, sum(sizes) // share), 1)
    most_trees = max(min(_BATCH_TREES, len(sizes) // share), 1)
    out: list[list[int]] = []
    batch: list[int] = []
    held = 0
    for i in order:
        if batch and (held + sizes[i] > most_bytes or len(batch) >= most_trees):
            out.append(batch)
            batch, held = [], 0
        batch.append(i)
        held += sizes[i]
    if batch:
        out.append(batch)
    return out


class _NoPool(Exception):
    """Worker processes could not be had: no process, pipe or thread to start them with (a
    limit on open files, processes or memory), or the pool's own thread died starting one."""


# How often a wait on the pool looks whether its managing thread is still alive.
_POLL_S = 1.0


def _run_parts(
    parts: list[Part],
    secret: bytes,
    jobs: int,
    tick: Callable[[], None],
    card: PriceCard | None = None,
) -> list[dict[str, Any]]:
    """Each part's `inspect_part`, in the order given. Where worker processes cannot be had
    (`_NoPool`), this process inspects the trees they left, as `--jobs 1` does: an audit found
    `ulimit -n 12` an internal error (exit 70), and a memory limit that left no thread to
    start a pool's queue a traceback and a scan that never ended."""
    results: list[dict[str, Any]] = [{} for _ in parts]
    workers = worker_count(jobs, len(parts), available_cpus())
    if workers > 1:
        try:
            with _pool_threads_quiet():
                _run_pool(parts, secret, workers, results, tick, card)
            return results
        except _NoPool:
            pass
    _init_worker(secret, card)
    for i, part in enumerate(parts):
        if not results[i]:
            results[i] = inspect_part(*part.args())
            tick()
    return results


@contextlib.contextmanager
def _pool_threads_quiet() -> Iterator[None]:
    """A pool's managing thread that dies (no thread to be had for its queue) would print
    Python's traceback: its failure is `_NoPool`'s to say, by what it does instead."""
    previous = threading.excepthook

    def hook(args: Any) -> None:
        if type(args.thread).__module__ != "concurrent.futures.process":
            previous(args)

    threading.excepthook = hook
    try:
        yield
    finally:
        threading.excepthook = previous


def _submit(pool: ProcessPoolExecutor, fn: Callable[..., Any], *args: Any) -> Future[Any]:
    """`pool.submit`, whose first call starts the pool's processes and its managing thread: a
    failure to start either is `_NoPool` (BrokenProcessPool, a pool that broke, is not)."""
    try:
        return pool.submit(fn, *args)
    except BrokenProcessPool:
        raise
    except (OSError, RuntimeError) as error:  # EMFILE, EAGAIN, ENOMEM; "can't start new thread"
        raise _NoPool from error


def _wait_some(
    pool_of: Callable[[Future[Any]], ProcessPoolExecutor], pending: set[Future[Any]]
) -> set[Future[Any]]:
    """The futures of `pending` done, waiting until one is. A pool whose managing thread died
    (it could not start the thread that feeds its queue) would leave them pending for ever:
    that is `_NoPool`, unless one is done by then."""
    while True:
        done, _ = wait(pending, timeout=_POLL_S, return_when=FIRST_COMPLETED)
        if done:
            return done
        if not all(_manager_alive(pool_of(f)) for f in pending):
            done, _ = wait(pending, timeout=0)
            if done:
                return done
            raise _NoPool


def _manager_alive(pool: ProcessPoolExecutor) -> bool:
    thread = getattr(pool, "_executor_manager_thread", None)  # (Python 3.9 to 3.14)
    return thread is None or thread.is_alive()


def _run_pool(
    parts: list[Part],
    secret: bytes,
    workers: int,
    results: list[dict[str, Any]],
    tick: Callable[[], None],
    card: PriceCard | None,
) -> None:
    # Largest first, so one big tree does not start last and leave a worker idle at the end.
    order = batches([_size(part.parent) for part in parts], workers)
    pool = _pool(workers, secret, card)
    try:
        futures = {_submit(pool, inspect_parts, [parts[i].args() for i in b]): b for b in order}
        pending = set(futures)
        while pending:
            for future in _wait_some(lambda _: pool, pending):
                pending.discard(future)
                for i, result in zip(futures[future], future.result(), strict=True):
                    results[i] = result
                    tick()
    except BrokenProcessPool:
        # A worker was killed (the OOM killer, a signal): the pool is gone, and with it every
        # tree it had not finished, not only the one that killed it.
        _stop(pool)
        left = [i for b in order for i in b if not results[i]]
        _each_alone(parts, left, secret, workers, results, tick, card)
        return
    except BaseException:
        _stop(pool)
        raise
    pool.shutdown()


def _each_alone(
    parts: list[Part],
    left: list[int],
    secret: bytes,
    workers: int,
    results: list[dict[str, Any]],
    tick: Callable[[], None],
    card: PriceCard | None,
) -> None:
    """The trees a dead worker's pool left unfinished, one at a time in each of `workers`
    processes of a pool of their own: a tree that kills its process again is the one row with
    an error (`WorkerDied`), not a scan lost (exit 70) nor the rest of the machine's trees. A
    process is started again only when one dies (an audit: a process per tree took 19.5 s for
    3,000 empty sessions after one kill, where the scan took 1.3 s)."""
    running: dict[Future[dict[str, Any]], tuple[int, ProcessPoolExecutor]] = {}
    idle: list[ProcessPoolExecutor] = []
    try:
        while left or running:
            while left and len(running) < workers:
                i = left.pop(0)
                alone = idle.pop() if idle else _pool(1, secret, card)
                try:
                    job = _submit(alone, inspect_part, *parts[i].args())
                except BrokenProcessPool:  # its process died while idle: a new one takes it
                    alone.shutdown()
                    alone = _pool(1, secret, card)
                    job = _submit(alone, inspect_part, *parts[i].args())
                except _NoPool:  # this process inspects it, and those running (`_run_parts`)
                    _stop(alone)
                    raise
                running[job] = (i, alone)
            done = _wait_some(lambda job: running[job][1], set(running))
            for job in done:
                i, alone = running.pop(job)
                try:
                    results[i] = job.result()
                    idle.append(alone)
                except BrokenProcessPool:
                    results[i] = {"error": WORKER_DIED}
                    alone.shutdown()
                tick()
    except BaseException:
        for _, alone in running.values():
            _stop(alone)
        for alone in idle:
            _stop(alone)
        raise
    for alone in idle:
        alone.shutdown()


def _pool(workers: int, secret: bytes, card: PriceCard | None) -> ProcessPoolExecutor:
    """Worker processes that ignore Ctrl-C and die with the scan (`_init_pool_worker`); a pool
    that cannot be made (no pipe for its queues) is `_NoPool`."""
    try:
        return ProcessPoolExecutor(
            max_workers=workers,
            initializer=_init_pool_worker,
            initargs=(secret, os.getpid(), card),
        )
    except (OSError, RuntimeError) as error:
        raise _NoPool from error


def _stop(pool: ProcessPoolExecutor) -> None:
    """An interrupted scan (Ctrl-C, a worker that died) stops now: the trees still queued are
    dropped and the running workers terminated. Leaving the pool's `with` block instead waits
    until every queued tree has been inspected, the interrupted ones included."""
    workers = list((pool._processes or {}).values())  # `terminate_workers()` from Python 3.14
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.join(timeout=5)
        if worker.is_alive():  # it survived SIGTERM (caught before its set-up reset it)
            worker.kill()
            worker.join(timeout=5)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _row(
    session: Session, parts: list[dict[str, Any]], pseudo: Pseudonymizer, priced: bool
) -> dict[str, Any]:
    codes: set[str] = set()
    errors = sorted({p["error"] for p in parts if "error" in p})
    for part in parts:
        codes.update(part.get("codes", ()))
    if session.orphan_folders and len(session.parents) != 1:
        # With one transcript, the session's folders in other project folders are its tree's
        # (a worktree's: `discover` binds them), and the tree says what they hold; with none
        # (pruned), or several (which part is a folder's cannot be told), no tree reads them.
        codes.add(SPLIT_FOLDER_CODE if session.parents else ORPHAN_CODE)
    if session.split_folders:  # one project folder given: as `inspect` of its tree says
        codes.add(SPLIT_FOLDER_CODE)
    if len(parts) > 1:
        numbers, usage, shared = _merge(parts)
        if shared:
            codes.add(OVERLAP_CODE)
    else:
        numbers = {k: sum(p.get(k, 0) for p in parts) for k in _NUMBERS}
        usage = {k: sum(p.get("usage", {}).get(k, 0) for p in parts) for k in TOKEN_KEYS}
    if errors:
        status = "error"
    elif not session.parents:
        status = "orphan"
    elif codes and codes <= EMPTY_CODES and not numbers["model_calls"]:
        status = "empty"
    elif codes or not all(p.get("convertible") for p in parts):
        status = "refused"
    else:
        status = "convertible"
    row: dict[str, Any] = {
        "session": session_label(pseudo, session.session_id),
        "status": status,
        "refusals": sorted(codes),
        "errors": errors,
        "parent_files": len(session.parents),
        "orphan_folders": session.orphan_folders,
        # main transcripts in several project folders (a worktree's folder of children alone
        # is read with its transcript: not split)
        "split": len({p.parent for p in session.parents}) > 1
        or (session.beside and bool(session.parents)),
        # One project folder given: a main transcript of the session is in a project folder
        # beside it, not read (with one here too, the session is split; with none, the row's
        # folder is a worktree's children, or a copy: not an orphan of any project folder).
        "transcript_beside": session.beside,
        **numbers,
        "tokens": sum(usage.values()),
        "usage": usage,
    }
    if priced:  # one tree that converts: a split session's trees are priced by inspecting each
        row["cost"] = parts[0].get("cost") if len(parts) == 1 and status == "convertible" else None
    return row


def _merge(parts: list[dict[str, Any]]) -> tuple[dict[str, int], dict[str, int], bool]:
    """A split session's trees together: each model call, tool call and subagent counted once,
    a call's usage taken from a copy that has its final usage when one does; and whether any of
    them is in more than one tree (the trees are copies, not parts, of the session)."""
    calls: dict[bytes, tuple[bool, tuple[int, ...]]] = {}
    seen: dict[str, set[bytes]] = {"tools": set(), "agents": set()}
    counts = {"tools": 0, "agents": 0}
    shared = False
    for part in parts:
        if "calls" not in part:  # refused before it was read, or failed: nothing counted
            continue
        for key, call in part["calls"].items():
            known = calls.get(key)
            shared |= known is not None
            if known is None or (call[0] and not known[0]):
                calls[key] = call
        for kind, before in seen.items():
            mine = part[kind]
            shared |= not before.isdisjoint(mine)
            counts[kind] += sum(key not in before for key in mine)
            before.update(mine)
    numbers = {
        "model_calls": len(calls),
        "usage_incomplete_calls": sum(not final for final, _ in calls.values()),
        "tool_calls": counts["tools"],
        "subagents": counts["agents"],
    }
    usage = {k: sum(t[i] for _, t in calls.values()) for i, k in enumerate(TOKEN_KEYS)}
    return numbers, usage, shared


def scan(
    projects_dir: Path,
    secret: bytes,
    jobs: int = 1,
    progress: Callable[[int], Callable[[], None]] | None = None,
    found: Found | None = None,
    card: PriceCard | None = None,
    since: datetime | None = None,
) -> dict[str, Any]:
    """Scan a projects folder (or the sessions already `found` in it); the JSON object
    `scan --json` prints. With a `card`, each convertible session's cost by it, as `inspect
    --price-card` says it. `since` (UTC): only the sessions last written then or later."""
    pseudo = Pseudonymizer(PseudonymKey(secret))
    if found is None:  # (the command finds them, and leaves out the older, itself)
        found = find_sessions(projects_dir)
        if since is not None:
            found = written_since(found, since.timestamp())
    sessions = found.sessions
    parents = [parent for s in sessions for parent in s.parents]
    parts = [
        Part(
            parent,
            identities=len(s.parents) > 1,
            # a session's folders elsewhere are its tree's only when it has one transcript
            # (`sources.tree.session_folders_elsewhere`)
            elsewhere=(
                tuple(str(found.root / d) for d in s.orphan_dirs)
                + tuple(str(e) for e in s.odd if e.parent != parent.parent)
            )
            if len(s.parents) == 1
            else (),
            siblings=found.siblings.get(parent, ()),
        )
        for s in sessions
        for parent in s.parents
    ]
    tick = progress(len(parents)) if progress else (lambda: None)
    results = _run_parts(parts, secret, jobs, tick, card)
    rows = []
    keys: list[set[bytes]] = []
    priced: list[dict[bytes, CallCost | None]] = []  # each priced row's calls
    at = 0
    for session in sessions:
        done = results[at : at + len(session.parents)]
        at += len(session.parents)
        row = _row(session, done, pseudo, card is not None)
        rows.append(row)
        keys.append({k for p in done for k in (*p.get("call_keys", ()), *p.get("calls", {}))})
        if row.get("cost") is not None:
            priced.append(done[0]["call_keys"])
    shared = _shared_calls(rows, keys)
    rows.sort(key=lambda r: str(r["session"]))
    statuses = Counter(r["status"] for r in rows)
    refusal_sessions: Counter[str] = Counter(
        c for r in rows if r["status"] != "empty" for c in r["refusals"]
    )
    totals = {
        "sessions": len(rows),
        "convertible": statuses["convertible"],
        "empty": statuses["empty"],  # refused for no model call alone: nothing to convert
        "refused": statuses["refused"] + statuses["orphan"],
        "orphan": statuses["orphan"],  # sessions with no main transcript in any project folder
        # session folders with no main transcript beside them: the sum of the rows' own
        "orphan_folders": sum(r["orphan_folders"] for r in rows),
        "errors": statuses["error"],
        "split": sum(r["split"] for r in rows),
        "parent_files": len(parents),
        **{k: sum(r[k] for r in rows) for k in _NUMBERS},
        "tokens": sum(r["tokens"] for r in rows),
        "usage": {k: sum(r["usage"][k] for r in rows) for k in TOKEN_KEYS},
        **shared,
        "refusal_codes": dict(sorted(refusal_sessions.items())),
        "skipped_entries": found.skipped,
        "skipped_session_files": found.top_level_sessions,
        "skipped_jsonl_files": found.stray_transcripts,
        "symlinked_folders": found.symlinks,
        "unreadable_folders": found.unreadable,
        "sessions_before_since": found.before_since,
    }
    if card is not None:
        cost, (again, again_by_model) = _total_cost(card.id, rows), _cost_counted_again(priced)
        for model, part in cost["by_model"].items():  # each model's copies, as the total's
            part.update(again_by_model.get(model) or _counted_again([]))
        totals["cost"] = {**cost, **again}
    report = {
        "key_id": pseudo.key_id,
        "project_folders": found.project_folders,
        "config_folder": found.config_folder,
        "one_project_folder": found.one_project,
        "session_folder": found.session_folder,
        "since": None if since is None else instant_text(since),
        "sessions": rows,
        "totals": totals,
    }
    return checked(ScanReport, report)


def _shared_calls(rows: list[dict[str, Any]], keys: list[set[bytes]]) -> dict[str, int]:
    """The model calls that are in more than one session's row: one API call (one message id)
    recorded in several transcripts, as a session resumed as a fork (`--fork-session`, `/bg`)
    or duplicated copies its original's. Each row says how many of its calls other rows have
    (`model_calls_in_other_sessions`); the totals, which sum the rows, how many calls are in
    several and how many times they are counted beyond once."""
    seen = Counter(k for mine in keys for k in mine)
    for row, mine in zip(rows, keys, strict=True):
        row["model_calls_in_other_sessions"] = sum(seen[k] > 1 for k in mine)
    return {
        "model_calls_in_several_sessions": sum(n > 1 for n in seen.values()),
        "model_calls_counted_again": sum(n - 1 for n in seen.values()),
        "sessions_sharing_calls": sum(r["model_calls_in_other_sessions"] > 0 for r in rows),
    }


def _cost_counted_again(
    priced: list[dict[bytes, CallCost | None]],
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """What the calls several priced rows hold cost beyond once, in all and by model: the
    totals' figures sum the rows, so hold each such call once per row (`_shared_calls`). Of a
    call's copies the one kept is the narrowest (a bounded one first: a copy cut off mid-call
    is usage-incomplete where the original is whole); the others are counted again."""
    copies: dict[bytes, list[CallCost]] = defaultdict(list)
    for calls in priced:
        for key, cost in calls.items():
            if cost is not None:
                copies[key].append(cost)
    again: list[CallCost] = []
    for found in copies.values():
        if len(found) > 1:
            kept = min(found, key=lambda c: (c[2], c[1] - c[0]))
            again += [c for c in found if c is not kept]
    by_model: dict[str, list[CallCost]] = defaultdict(list)
    for cost in again:
        by_model[cost[3]].append(cost)
    whole = _counted_again(again)
    whole["model_calls_counted_again_priced"] = whole.pop("model_calls_counted_again")
    return whole, {model: _counted_again(costs) for model, costs in by_model.items()}


def _counted_again(costs: list[CallCost]) -> dict[str, Any]:
    """The figure of the copies counted again: how many, the high end null when one of them
    has none (as `high_usd`), `high_usd_known_counted_again` never null."""
    high = money_sum(c[1] for c in costs)
    return {
        "model_calls_counted_again": len(costs),
        "low_usd_counted_again": decimal_text(money_sum(c[0] for c in costs)),
        "high_usd_counted_again": None if any(c[2] for c in costs) else decimal_text(high),
        "high_usd_known_counted_again": decimal_text(high),
    }


def _total_cost(card_id: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The priced sessions' figures summed (exactly), and how many sessions have none."""
    from converter.pricing.estimate import ModelCost  # a card was given: pricing is loaded

    low = high = Decimal(0)
    counts = dict.fromkeys(_COST_COUNTS, 0)
    models: dict[str, ModelCost] = {}
    add = MONEY_SUMS.add
    for row in rows:
        cost = row["cost"]
        if cost is None:
            continue
        low = add(low, Decimal(cost["low_usd"]))
        high = add(high, Decimal(cost["high_usd_known"]))
        for name in counts:
            counts[name] += cost[name]
        for model, part in cost["by_model"].items():
            into = models.setdefault(model, ModelCost())
            into.calls += part["model_calls"]
            into.low = add(into.low, Decimal(part["low_usd"]))
            into.high = add(into.high, Decimal(part["high_usd_known"]))
            into.unbounded += part["model_calls_unbounded"]
            into.no_max_output += part["model_calls_no_max_output"]
    return {
        "price_card": card_id,
        "low_usd": decimal_text(low),
        **high_end(high, counts["model_calls_unbounded"] + counts["model_calls_no_max_output"]),
        **counts,
        # the priced sessions' spend by model, costliest (high end) first in the text
        "by_model": {name: _model_part(m) for name, m in sorted(models.items())},
        # an empty session has nothing to price: not one of these
        "sessions_not_priced": sum(
            row["cost"] is None and row["status"] != "empty" for row in rows
        ),
        "sessions_with_spend_left_out": sum(
            bool(row["cost"] and row["cost"]["spend_left_out"]) for row in rows
        ),
    }


# The bar's time left is said only once it means something: click's own estimate comes after
# one second, from the trees finished so far with the workers' start-up counted in, and on a
# short scan it swung wildly. Ours starts when the first tree is done (start-up behind it) and
# is said from a few trees and seconds later.
ETA_AFTER_TREES = 5
ETA_AFTER_SECONDS = 5.0


def eta_text(total: int, done: int, first_done: int, since_first: float) -> str | None:
    """The bar's time left, `eta HH:MM:SS`, from the rate since the first tree was done
    (`first_done` trees then, `since_first` seconds ago); None while it would be a guess: fewer
    than ETA_AFTER_TREES trees done, or fewer than ETA_AFTER_SECONDS seconds since."""
    if done < ETA_AFTER_TREES or since_first < ETA_AFTER_SECONDS or not first_done < done < total:
        return None
    left = int(since_first / (done - first_done) * (total - done))
    hours, rest = divmod(left, 3600)
    return f"eta {hours:02}:{rest // 60:02}:{rest % 60:02}"


WORKER_DIED = "WorkerDied"  # a process killed (the OOM killer, a signal)
# Error rows that are the machine's, not a bug: a killed worker, memory run out.
_NOT_BUGS = frozenset({WORKER_DIED, "MemoryError"})


def bug_rows(result: dict[str, Any]) -> int:
    """Sessions whose inspection raised an exception: a bug, which makes the scan exit 70."""
    return sum(any(e not in _NOT_BUGS for e in r["errors"]) for r in result["sessions"])


def render_text(result: dict[str, Any]) -> str:
    """The table of sessions, the totals, then a note for each thing the scan left out. With
    no session, none of them but the notes: a table head, a legend, a line of zeros and "nothing
    priced" said nothing the count does not (a walkthrough)."""
    if not result["sessions"]:
        found = f"{counted(0, 'session')} in {counted(result['project_folders'], 'project folder')}"
        return "\n".join([found, *_notes(result)])
    statuses = {r["status"] for r in result["sessions"]}
    legend = "(" + "; ".join(part for status, part in _LEGEND if status in statuses or not status)
    legend += ")"
    marked = "cost" in result["totals"] and any(
        _row_cost(r["cost"]).endswith("+") for r in result["sessions"] if r["status"] != "empty"
    )
    if marked:  # one word for `+`, whichever of its two causes it has, where a row has one
        legend = legend[:-1] + "; cost +: may be more than the figure, the footnotes say why)"
    return "\n".join([*_table(result), legend, "", *_totals(result), *_notes(result)])


# The table's abbreviated headings, and what `tokens` adds up (cache reads are most of it, and
# cost a tenth of input: it is no proxy for spend; a walkthrough took it for one).
# Each part with the row status it explains, said only where a row has it ("": always).
_LEGEND = (
    (
        "orphan",
        "orphan: a session folder whose main transcript no project folder holds, so no tree "
        "to read",
    ),
    ("error", "error: the tree could not be inspected"),
    (
        "",
        "calls: model calls; incompl.: of them, usage-incomplete; tools: tool calls; subag.: "
        "subagents; tokens: input + output + cache read + cache write, a count of tokens, not "
        "of cost: a cache read costs a tenth of an input token",
    ),
)


def _table(result: dict[str, Any]) -> list[str]:
    priced = "cost" in result["totals"]
    costs = (
        # an empty session spent nothing the transcript records: not `-`, which is "not priced"
        [_row_cost(r["cost"]) if r["status"] != "empty" else "no calls" for r in result["sessions"]]
        if priced
        else []
    )
    title = "cost (USD, by the card)"
    wide = max([len(title), *map(len, costs)])  # $1,000 and up would push refusals out of line
    header = (
        f"{'session':<19} {'status':<12} {'calls':>7} {'incompl.':>8} {'tools':>7} "
        f"{'subag.':>6} {'tokens':>14}  " + (f"{title:<{wide}} " if priced else "")
    ) + "refusals"
    lines = [header]
    for n, r in enumerate(result["sessions"]):
        flags = " [split]" if r["split"] else ""
        if r["model_calls_in_other_sessions"]:
            flags += " [calls in other sessions]"
        if (r.get("cost") or {}).get("spend_left_out"):  # which `+` rows its footnote means
            flags += " [spend in no figure]"
        if _unread(r):  # nothing read: no count, not a count of 0
            counts = f"{'-':>7} {'-':>8} {'-':>7} {'-':>6} {'-':>14}"
        else:
            counts = (
                f"{r['model_calls']:>7,} {r['usage_incomplete_calls']:>8,} {r['tool_calls']:>7,} "
                f"{r['subagents']:>6,} {r['tokens']:>14,}"
            )
        # `-` for no refusal, unless a mark stands there (a new user read `- [split]` as one)
        refused = " ".join(r["refusals"] + r["errors"]) or ("" if flags else "-")
        cost = f"{costs[n]:<{wide}} " if priced else ""
        marks = f"{refused}{flags}".lstrip()
        lines.append(f"{r['session']:<19} {r['status']:<12} {counts}  {cost}{marks}")
    return lines


def _unread(row: dict[str, Any]) -> bool:
    """Whether nothing of a row's session was read, so the table shows no count (`-`), not a
    count of 0, which reads as no spend: an orphan, a session of one main transcript that
    failed before it was read, and one whose every main transcript vanished. A split session
    that kept a part is read: that part refuses with a code of its own, or counts a call (a
    part read with none is `CC-TREE-NO-CALLS`), so only the vanished code and no call is left
    when none was read (a review: all of a split session's parts vanished showed 0)."""
    alone = row["parent_files"] == 1
    codes = set(row["refusals"]) - {SPLIT_FOLDER_CODE}  # of folders no tree reads, none read
    gone = codes == {VANISHED_CODE} and not row["model_calls"]
    return row["status"] == "orphan" or (row["status"] == "error" and alone) or gone


def _row_cost(cost: dict[str, Any] | None) -> str:
    """A session's figure, with `+` when some of its model or tool calls are not in it (as
    inspect says them) or a finding says some spend is in no figure (`SPEND_LEFT_OUT`); `-` for
    a session not priced at all."""
    if cost is None:
        return "-"
    left_out = cost["model_calls_not_priced"] or cost["tool_calls_not_priced"]
    more = " +" if left_out or cost["spend_left_out"] else ""
    if not cost["model_calls_priced"] and cost["model_calls_not_priced"]:
        return "nothing priced +"  # not "$0.0000", which reads as free
    return cost_span(cost) + more


def _totals(result: dict[str, Any]) -> list[str]:
    t = result["totals"]
    return [
        f"{counted(t['sessions'], 'session')} in "
        f"{counted(result['project_folders'], 'project folder')}: "
        f"{t['convertible']:,} convertible, "
        + (f"{t['empty']:,} empty (no model call), " if t["empty"] else "")
        + f"{t['refused']:,} refused"
        # (a walkthrough: "(0 of them with no main transcript)" said nothing)
        + (f" ({t['orphan']:,} of them with no main transcript)" if t["orphan"] else "")
        + f", {counted(t['errors'], 'error')}; {t['split']:,} split across project folders",
        f"{counted(t['model_calls'], 'model call')} "
        f"({t['usage_incomplete_calls']:,} usage-incomplete), "
        f"{counted(t['tool_calls'], 'tool call')}, {counted(t['subagents'], 'subagent')}, "
        f"{counted(t['tokens'], 'token')}",
        *_cost_totals(t.get("cost")),
    ]


def _costliest_first(item: tuple[str, dict[str, Any]]) -> tuple[bool, Decimal, Decimal, str]:
    """By the high end: a model with no bound first (it may have cost the most; a walkthrough
    read one listed last, by the part of its high end known, as the cheapest), then the highest
    high end, then the highest low end, then by name."""
    model, part = item
    bounded = part["high_usd"] is not None
    return (bounded, -Decimal(part["high_usd_known"]), -Decimal(part["low_usd"]), model)


def _cost_totals(cost: dict[str, Any] | None) -> list[str]:
    if cost is None:
        return []
    priced, unpriced = cost["model_calls_priced"], cost["model_calls_not_priced"]
    tools = cost["tool_calls_not_priced"]
    again = cost["model_calls_counted_again_priced"]
    if priced and again:  # each call once first: the figure a reader copies (a walkthrough)
        figure = (
            f"{_once(cost)} for {counted(priced - again, 'model call')} of the convertible "
            f"sessions, each counted once (the rows sum to {cost_span(cost)} for {priced:,}: "
            f"{_again(cost)} of it is calls in more than one session's row, counted again; a "
            "note below says which rows)"
        )
    elif priced:
        figure = (
            f"{cost_span(cost)} for {counted(priced, 'model call')} of the convertible sessions"
        )
    else:  # not "$0.0000 for 0 model calls", which reads as free
        figure = "nothing priced of the convertible sessions"
    line = f"cost by price card {cost['price_card']}: {figure}"
    ranked = sorted(cost["by_model"].items(), key=_costliest_first)
    by_model = [
        f"  {model}: {cost_span(part)} ({counted(part['model_calls'], 'call')}"
        + (f"; {_again(part)} of it counted again" if part["model_calls_counted_again"] else "")
        + ")"
        for model, part in ranked
    ]
    left = []
    if unpriced:
        left.append(
            f"{counted(unpriced, 'model call')} (the card lacks their model, billing context, "
            "web-search price or long-context rate, or its prices pass any real cost)"
        )
    if tools:
        left.append(
            f"{counted(tools, 'tool call')} of tools not built in (MCP: a contract states "
            "their price)"
        )
    if left:
        line += (
            f"; not priced, and not in it: {' and '.join(left)}; `+` in the table, and "
            "`inspect --price-card` says which"
        )
    lines = [line, *by_model]
    if cost["model_calls_unbounded"]:
        lines.append(
            f"{counted(cost['model_calls_unbounded'], 'model call')} recorded no input "
            "(CC-REC-USAGE-INCOMPLETE-NO-INPUT): their input is in neither end, so the high end "
            "is no bound (`no bound` in the table)"
        )
    if cost["model_calls_no_max_output"]:
        lines.append(
            f"{counted(cost['model_calls_no_max_output'], 'model call')} usage-incomplete, of "
            "models the card states no max_output_tokens for: in the figure at the output they "
            "recorded, so the high end is no bound (`no bound` in the table)"
        )
    if cost["sessions_with_spend_left_out"]:
        lines.append(
            f"{counted(cost['sessions_with_spend_left_out'], 'session')} marked `+` and "
            "`[spend in no figure]` may have cost more than the figure: a finding says some "
            "spend is in no figure (a web search of unknown count, an unpriced server tool, a "
            "subagent cut short, hidden or remote calls, a call recorded with no input); "
            "`inspect` names the finding"
        )
    if cost["sessions_not_priced"]:
        lines.append(
            f"{counted(cost['sessions_not_priced'], 'session')} not priced (`-`): refused, "
            "unread, or split across project folders (each of a split session's transcripts: "
            "`inspect --price-card`)"
        )
    return lines


def _once(cost: dict[str, Any]) -> str:
    """A figure less its calls' copies in other rows: each call once, as `money_span` says it."""
    low = MONEY_SUMS.subtract(Decimal(cost["low_usd"]), Decimal(cost["low_usd_counted_again"]))
    high = MONEY_SUMS.subtract(
        Decimal(cost["high_usd_known"]), Decimal(cost["high_usd_known_counted_again"])
    )
    return money_span(decimal_text(low), decimal_text(high), cost["high_usd"] is None)


def _again(cost: dict[str, Any]) -> str:
    """What a figure's copies of calls add beyond once, as `money_span` says it."""
    low, high = cost["low_usd_counted_again"], cost["high_usd_counted_again"]
    return money_span(low, cost["high_usd_known_counted_again"], high is None)


def _notes(result: dict[str, Any]) -> list[str]:
    t = result["totals"]
    lines = []
    rows = result["sessions"]
    # A row with no transcript here may have one in a project folder beside the one given
    # (`_Walk.beside`): not pruned.
    pruned = sum(
        r["orphan_folders"] for r in rows if not r["parent_files"] and not r["transcript_beside"]
    )
    beside = sum(
        r["orphan_folders"] for r in rows if not r["parent_files"] and r["transcript_beside"]
    )
    unread = sum(r["orphan_folders"] for r in rows if r["parent_files"] > 1)
    elsewhere = t["orphan_folders"] - pruned - beside - unread
    if pruned:
        lines.append(
            f"{counted(pruned, 'session folder')} without {'its' if pruned == 1 else 'their'} "
            f"main transcript in any project folder ({ORPHAN_CODE}): pruned, or moved away; "
            "a subagent transcript in "
            f"{'it' if pruned == 1 else 'them'} is not read, its calls in no count (`-` in the "
            "table; 0 in --json), and one with none (only tool results or memory notes) "
            "recorded no call"
        )
    if beside:
        lines.append(
            f"{counted(beside, 'session folder')} with {'its' if beside == 1 else 'their'} main "
            f"transcript in a project folder beside the one given ({ORPHAN_CODE} here): "
            "`inspect` of that transcript reads it, as a scan of the projects folder does, "
            "unless the session's main transcript is in more than one project folder: then no "
            "tree reads it (CC-TREE-SPLIT-FOLDER)"
        )
    if unread:
        lines.append(
            f"{counted(unread, 'session folder')} of sessions split across project folders, "
            f"read by none of their transcripts ({SPLIT_FOLDER_CODE}): which part "
            f"{'it belongs' if unread == 1 else 'each belongs'} to cannot be told"
        )
    if elsewhere:
        lines.append(
            f"{counted(elsewhere, 'session folder')} with {'its' if elsewhere == 1 else 'their'} "
            "main transcript in another project folder, read with it (a git worktree's "
            "children; a copy of the session's folder refuses its row)"
        )
    vanished = sum(VANISHED_CODE in r["refusals"] for r in rows)
    if vanished:
        lines.append(
            f"{counted(vanished, 'session')} with a main transcript that was deleted or moved "
            f"while the scan ran ({VANISHED_CODE}): found, then gone when "
            f"{'its' if vanished == 1 else 'their'} tree was read, so the calls in it are in no "
            "count (`-` in the table where nothing else of the session was read; 0 in --json); "
            "scan again"
        )
    if t["model_calls_in_several_sessions"]:
        lines.append(
            f"{counted(t['model_calls_in_several_sessions'], 'model call')} (by message id) "
            f"{'is' if t['model_calls_in_several_sessions'] == 1 else 'are'} in more than one "
            f"session's row ({t['sessions_sharing_calls']:,} sessions, marked `[calls in other "
            "sessions]`): one call recorded in several transcripts, as a session resumed as a "
            "fork (`--fork-session`, `/bg`) or duplicated holds its original's; the totals sum "
            f"the rows, so they count {counted(t['model_calls_counted_again'], 'call')} again "
            "(and their tokens; with a card, the cost line says what of the cost)"
        )
    if result.get("since") is not None:
        n = t["sessions_before_since"]
        lines.append(
            f"--since {result['since']}: {counted(n, 'session')} last written before it "
            f"left out (by {'its' if n == 1 else 'their'} files' modification times), in no "
            "row or total"
        )
    if t["refusal_codes"]:
        lines.append(
            "Refusals (sessions): "
            + ", ".join(f"{code} {n}" for code, n in t["refusal_codes"].items())
        )
    if t["symlinked_folders"]:
        lines.append(
            f"{counted(t['symlinked_folders'], 'symlinked folder')} not followed "
            f"(CC-TREE-SYMLINK): the sessions behind {'it' if t['symlinked_folders'] == 1 else 'them'} "
            f"were not checked; scan the folder {'it points' if t['symlinked_folders'] == 1 else 'they point'} "
            f"to (--show-paths lists {'it' if t['symlinked_folders'] == 1 else 'them'})"
        )
    if t["unreadable_folders"]:
        lines.append(
            f"{counted(t['unreadable_folders'], 'project folder')} could not be read "
            f"(CC-TREE-UNREADABLE): the sessions in {'it' if t['unreadable_folders'] == 1 else 'them'}"
            " were not checked; fix the permissions and scan again (--show-paths lists "
            f"{'it' if t['unreadable_folders'] == 1 else 'them'})"
        )
    if result.get("one_project_folder"):
        lines.append(
            "the folder given is one project folder (its session transcripts are in it, not in "
            "project folders below it): scanned as one, with its sessions' folders in the "
            "project folders beside it, as inspect reads them"
        )
        parts = sum(r["split"] and r["parent_files"] > 0 for r in rows)
        if parts:
            lines.append(
                f"{counted(parts, 'session')} of it {'has' if parts == 1 else 'have'} a main "
                "transcript in a project folder beside it too: "
                f"{'its row counts' if parts == 1 else 'their rows count'} this folder's only; "
                "scan the projects folder for the whole session"
            )
    if result.get("session_folder"):
        lines.append(
            "the folder given is one session's own folder (<session-id>/: its subagents' "
            "transcripts), not a projects folder: no session is in it; `inspect --in` the "
            "<session-id>.jsonl beside it reads that session whole, subagents included, and "
            "`scan` of the projects folder reads every session"
        )
    if result.get("config_folder"):
        lines.append(
            "the folder given is Claude Code's config folder (a projects/ folder in it, no "
            "session transcript): its projects/ folder was scanned"
        )
    # (a session's own folder: its note above says what its entries are, and that no session is)
    if t["skipped_entries"] and not result.get("session_folder"):
        lines.append(
            f"{counted(t['skipped_entries'], 'entry', 'entries')} skipped: not a session "
            "transcript or folder in a project folder (--show-paths lists them; memory/ is not "
            "counted)"
        )
    if t.get("skipped_jsonl_files"):
        n = t["skipped_jsonl_files"]
        lines.append(
            f"{n} of them {'is a .jsonl file' if n == 1 else 'are .jsonl files'} not named by a "
            f"session id (an excerpt, a copy, a renamed transcript): {'its' if n == 1 else 'their'} "
            "calls are in no row; "
            "`inspect --from claude-code --in FILE` reads one on its own (a file that is "
            "no transcript, such as a hook's log, is refused as CC-REC-NOT-A-TRANSCRIPT)"
        )
    if t["skipped_session_files"]:
        n = t["skipped_session_files"]
        lines.append(
            f"{n} of them {'is a session transcript' if n == 1 else 'are session transcripts'} "
            "beside the project folders, where Claude Code writes none: "
            f"{'its' if n == 1 else 'their'} calls are in no row; move "
            f"{'it' if n == 1 else 'each'} into its project folder, or read "
            f"{'it' if n == 1 else 'one'} alone with `inspect --in FILE`"
        )
    if not (rows or result["project_folders"] or t["symlinked_folders"] or t["unreadable_folders"]):
        # A walkthrough: a folder of bundles said "0 sessions ... 8 entries skipped" and left
        # the user to guess it was not a projects folder.
        lines.append(
            "no project folder here: Claude Code's projects folder holds one folder per project, "
            "each with its sessions' <session-id>.jsonl transcripts (~/.claude/projects, or "
            "$CLAUDE_CONFIG_DIR/projects when set: `scan` with no folder reads it)"
        )
    elif not (
        rows
        or t["sessions_before_since"]
        or result.get("one_project_folder")
        or result.get("session_folder")
    ):
        # A new-user audit: `scan` of a source checkout said "0 sessions in 18 project folders"
        # and no more (its folders were taken for project folders, as any folder here is).
        lines.append(
            "no session here: a session is a <session-id>.jsonl transcript (and its "
            "<session-id>/ folder) in a project folder; if this is not Claude Code's projects "
            "folder (~/.claude/projects, or $CLAUDE_CONFIG_DIR/projects when set), give that"
        )
    return lines
