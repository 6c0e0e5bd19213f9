"""Find every file of one Claude Code session tree from its parent transcript (SPEC §3).

Layouts (FORMAT-NOTES §1, corpus):
  <dir>/<sid>.jsonl                                   parent
  <dir>/<sid>/subagents/agent-<id>.jsonl [.meta.json] subagent (2.1.x), or a fork Claude Code
                                                      starts itself (compaction 2.1.3x, /btw side
                                                      question 2.1.8x, ...: `fork_label`)
  <dir>/<sid>/subagents/workflows/<run>/agent-<id>.jsonl [.meta.json], journal.jsonl
  <dir>/<sid>/workflows/<run>.json                    workflow run manifest
  <dir>/agent-<8 hex>.jsonl                           2.0.x child beside the parent (bound only
                                                      when its records name the parent's session)
  <dir>/<sid>/tool-results/, session-memory/, remote-agents/   no model call of this tree:
                                                      entries counted, never opened (NOT_READ)
  <dir>/../<other project>/<sid>/                     the same, in a worktree's project folder
                                                      that holds no <sid>.jsonl
Names are checked against their id shape before any path is built from them, and symlinks or
special files are refused. The one content read here is the start of a parent whose name is no
session id (`session_named_inside`), to say which session it holds; reading and hashing every
file is `reader/load.py`'s.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from converter.errors import Problem
from converter.regular import file_identity, open_regular
from converter.sources.jsonl import bounded_lines, piece_bytes

Role = Literal[
    "parent",
    "subagent",
    "meta",
    "journal",
    "workflow-manifest",
    "provider-index",  # this session's lines of a provider bodies folder's index (bodies.py)
    "provider-response",
    "provider-request",  # a hidden call's request (bodies.py `request_entry`)
]

# How Claude Code names a project folder: its working folder's path with every `/`, `\\`, `:`
# and `.` as `-` (`-home-dev-app`; on Windows `C--Users-dev-app`).
PROJECT_FOLDER_NAME = re.compile(r"-|[A-Za-z]--")
SESSION_ID = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)
# `a` + hex (Agent/Task children), or `a<label>-` + hex: a fork Claude Code starts itself, named
# by what it does (`acompact-`, compaction; `aside_question-`, a `/btw` side question, 2.1.8x;
# `aprompt_suggestion-`, `aextract_memories-`; `atm-`, a teammate). Claude Code's path builder
# takes a label of word characters and '-': none of them is a path separator or a dot.
AGENT_ID = re.compile(r"a(?:[A-Za-z0-9_-]{1,40}-)?[0-9a-f]{6,32}")
LEGACY_AGENT_ID = re.compile(r"[0-9a-f]{7,8}")  # 2.0.x; the corpus's 2.0.76 id has 7
RUN_ID = re.compile(r"wf_[0-9A-Za-z]{1,40}(?:-[0-9A-Za-z]{1,40}){0,4}")

# Folders Claude Code keeps in a session folder beside the transcripts with no model call of this
# tree in them, each with the finding that counts its entries; they are never opened. The full
# text of a tool output too long to keep inline (the transcript's tool result holds a preview
# and where it was saved; 2.1.37 writes `tool-results/<tool-use-id>.txt`,
# anthropics/claude-code#23948), the session's memory notes (`session-memory/summary.md`), and
# the restore metadata of agents that ran remotely (`remote-agents/remote-agent-<task>.meta.json`:
# their calls are recorded where they ran). A workflow's script source, saved as
# `workflows/scripts/<name>-<run>.js` (daaain/claude-code-log#174), is counted in `manifests`.
NOT_READ = {
    "tool-results": "CC-TREE-CONTENT-NOT-READ",
    "session-memory": "CC-TREE-CONTENT-NOT-READ",
    "remote-agents": "CC-TREE-REMOTE-AGENT",
}
# Files an operating system's file browser writes into any folder it shows (macOS Finder,
# Windows Explorer): no one's transcript. Counted (CC-TREE-OS-FILE), never opened.
# The argument that names the parent transcript, as a refusal's place when nothing is there.
IN = "--in"
OS_FILES = frozenset({".ds_store", "thumbs.db", "desktop.ini"})  # compared lowercased
_REMOTE_META = re.compile(r"remote-agent-[A-Za-z0-9_-]{1,80}\.meta\.json")

_CHILD = re.compile(r"agent-(?P<id>.+)\.jsonl")
_META = re.compile(r"agent-(?P<id>.+)\.meta\.json")


def fork_label(agent_id: str | None) -> str | None:
    """The label of a labelled agent id (`compact` of `acompact-fffbd0`), else None."""
    if agent_id is None or "-" not in agent_id:
        return None
    return agent_id[1:].rsplit("-", 1)[0]


@dataclass(frozen=True, slots=True)
class SourceFile:
    index: int
    role: Role
    path: Path  # local only: never crosses the firewall
    rel: str  # relative to the parent's folder, for --show-paths only
    agent_id: str | None = None
    run_id: str | None = None
    legacy: bool = False  # 2.0.x sibling: belongs only if its records name the session


@dataclass(slots=True)
class TreeLayout:
    session_id: str
    root: Path
    files: list[SourceFile] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    not_read: Counter[str] = field(default_factory=Counter)  # finding code -> entries left
    # How many other project folders hold a transcript of this session too
    # (`session_folders_elsewhere`): a call this tree does not record may be theirs.
    split: int = 0
    # Their paths relative to the parent's folder (`inspect --show-paths` names them, on
    # stderr only: they are local paths).
    other_parts: list[str] = field(default_factory=list)
    # The file given as the parent is a subagent transcript (CC-TREE-PARENT-IS-SUBAGENT): its
    # records are read as one stream, its own, not as a 1.0.x parent's in-file sidechains.
    parent_is_subagent: bool = False
    # Agent transcripts the tree has and does not read (a symlink, a special file, an entry
    # that cannot be looked at: refused by that code), by (run id, agent id); and the folders
    # of agent transcripts that could not be listed or were refused, by run id (None: any
    # agent's). What follows only from such a transcript being absent is not refused again
    # (`reader/unread.py`): its own refusal says the one thing to fix.
    refused_agents: set[tuple[str | None, str]] = field(default_factory=set)
    unseen: set[str | None] = field(default_factory=set)

    def rel(self, path: Path) -> str:
        """`path` relative to the parent's folder (`../<project>/…` for another project's)."""
        return Path(os.path.relpath(path, self.root)).as_posix()

    def other_parts_at(self, others: Sequence[Path]) -> None:
        """The session's other main transcripts, in other project folders."""
        self.split = len(others)
        self.other_parts = [self.rel(p) for p in others]

    def add(
        self, role: Role, path: Path, *, rel: str | None = None, **ids: str | bool | None
    ) -> SourceFile:
        """Lay out one file; `rel`: its relative name, when not relative to the parent's folder
        (a provider body's, `sources/bodies.py`)."""
        rel = self.rel(path) if rel is None else rel
        entry = SourceFile(len(self.files), role, path, rel, **ids)  # type: ignore[arg-type]
        self.files.append(entry)
        return entry


def parent_missing(parent: Path) -> Problem | None:
    """CC-TREE-PARENT-MISSING at `--in` when nothing is at `parent`, as `discover` says it:
    for a run that checks it with its options, before it makes anything (a pseudonym key)."""
    if entry_kind(Path(os.path.abspath(parent))) != "missing":
        return None
    return Problem("CC-TREE-PARENT-MISSING", where=IN)


def entry_kind(path: Path) -> str:
    """'file', 'dir', 'link', 'special', 'missing' or 'unreadable', without following symlinks."""
    try:
        mode = path.lstat().st_mode
    except (FileNotFoundError, NotADirectoryError, ValueError):  # ValueError: an embedded NUL
        return "missing"
    except OSError:  # no permission on a folder above it, a name too long, an I/O error
        return "unreadable"
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    return "special"


def _entries(folder: Path) -> list[Path] | None:
    try:
        return sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError:
        return None


class _Walker:
    def __init__(self, layout: TreeLayout) -> None:
        self.layout = layout

    def refuse_unsafe(self, path: Path) -> str:
        kind = entry_kind(path)
        if kind == "link":
            self.stray(path, "CC-TREE-SYMLINK")
        elif kind == "special":
            self.stray(path, "CC-TREE-SPECIAL-FILE")
        elif kind == "unreadable":
            self.stray(path, "CC-TREE-UNREADABLE")
        return kind

    def listing(self, folder: Path, agents: tuple[str | None, ...] = ()) -> list[Path]:
        """The folder's entries. `agents`: whose agent transcripts it may hold (a run id; None:
        any agent's), unseen when it cannot be listed."""
        entries = _entries(folder)
        if entries is None:
            self.stray(folder, "CC-TREE-UNREADABLE")
            self.layout.unseen.update(agents)
            return []
        return entries

    def tree_listing(self, folder: Path, agents: tuple[str | None, ...] = ()) -> list[Path]:
        """A folder of the session tree, less the files a file browser left there (counted)."""
        kept = []
        for entry in self.listing(folder, agents):
            if entry.name.lower() in OS_FILES and entry_kind(entry) == "file":
                self.layout.not_read["CC-TREE-OS-FILE"] += 1
            else:
                kept.append(entry)
        return kept

    def unread(self, folder: Path, code: str) -> None:
        """Count a not-read folder's files (`code`). What could hold spend is not counted
        away: a transcript's or a meta file's name (`*.jsonl`, `*.meta.json`), a folder within,
        a remote agent's entry of another name are stray; a symlink or special file is refused
        as anywhere in the tree."""
        for entry in self.tree_listing(folder):
            kind = self.refuse_unsafe(entry)
            if kind in ("link", "special", "unreadable"):
                continue
            name = entry.name
            remote = code == "CC-TREE-REMOTE-AGENT"
            if (
                kind != "file"
                or name.endswith(".jsonl")
                or (not _REMOTE_META.fullmatch(name) if remote else name.endswith(".meta.json"))
            ):
                self.stray(entry)
            else:
                self.layout.not_read[code] += 1

    def stray(self, path: Path, code: str = "CC-TREE-STRAY-FILE") -> None:
        self.layout.problems.append(Problem(code, local_path=self.layout.rel(path)))

    def refused_agent(self, entry: Path, run_id: str | None) -> None:
        """An entry of a folder of agents refused as a symlink, special file or unreadable: the
        agent transcript (or the folder of workflow runs) the tree does not read."""
        if run_id is None and entry.name == "workflows":
            self.layout.unseen.add(None)
            return
        match = _CHILD.fullmatch(entry.name)
        if match is not None and AGENT_ID.fullmatch(match.group("id")):
            self.layout.refused_agents.add((run_id, match.group("id")))

    def agents(self, folder: Path, run_id: str | None) -> None:
        children: dict[str, Path] = {}
        metas: dict[str, Path] = {}
        for entry in self.tree_listing(folder, (run_id,)):
            kind = self.refuse_unsafe(entry)
            if kind in ("link", "special", "unreadable"):
                self.refused_agent(entry, run_id)
                continue
            name = entry.name
            if kind == "dir":
                if run_id is None and name == "workflows":
                    self.workflow_runs(entry)
                else:
                    self.stray(entry)
                continue
            if run_id is not None and name == "journal.jsonl":
                self.layout.add("journal", entry, run_id=run_id)
                continue
            match = _CHILD.fullmatch(name) or _META.fullmatch(name)
            if match is None:
                self.stray(entry)
                continue
            agent_id = match.group("id")
            if not AGENT_ID.fullmatch(agent_id):
                self.stray(entry, "CC-TREE-BAD-ID")
                continue
            (children if name.endswith(".jsonl") else metas)[agent_id] = entry
        for agent_id, path in children.items():
            self.layout.add("subagent", path, agent_id=agent_id, run_id=run_id)
            if agent_id in metas:
                self.layout.add("meta", metas[agent_id], agent_id=agent_id, run_id=run_id)
        for agent_id in metas.keys() - children.keys():
            meta = self.layout.add("meta", metas[agent_id], agent_id=agent_id, run_id=run_id)
            if (run_id, agent_id) not in self.layout.refused_agents:  # refused by its own code
                self.layout.problems.append(Problem("CC-TREE-META-WITHOUT-CHILD", meta.index))

    def workflow_runs(self, folder: Path) -> None:
        for entry in self.tree_listing(folder, (None,)):
            kind = self.refuse_unsafe(entry)
            if kind != "dir":
                if kind == "file":
                    self.stray(entry)
                elif kind != "missing" and RUN_ID.fullmatch(entry.name):
                    self.layout.unseen.add(entry.name)  # a run's folder, refused: its agents
                continue
            if not RUN_ID.fullmatch(entry.name):
                self.stray(entry, "CC-TREE-BAD-ID")
                continue
            self.agents(entry, entry.name)

    def manifests(self, folder: Path) -> None:
        for entry in self.tree_listing(folder):
            kind = self.refuse_unsafe(entry)
            if kind in ("link", "special", "unreadable"):
                continue
            if kind == "dir" and entry.name == "scripts":  # a run's script source: no call
                self.unread(entry, "CC-TREE-CONTENT-NOT-READ")
                continue
            run = entry.name.removesuffix(".json")
            if kind != "file" or not entry.name.endswith(".json"):
                self.stray(entry)
            elif not RUN_ID.fullmatch(run):
                self.stray(entry, "CC-TREE-BAD-ID")
            else:
                self.layout.add("workflow-manifest", entry, run_id=run)

    def session_folder(self, folder: Path) -> None:
        for entry in self.tree_listing(folder, (None,)):
            kind = self.refuse_unsafe(entry)
            if kind in ("link", "special", "unreadable"):
                if entry.name == "subagents":
                    self.layout.unseen.add(None)
                continue
            if kind == "dir" and entry.name == "subagents":
                self.agents(entry, None)
            elif kind == "dir" and entry.name == "workflows":
                self.manifests(entry)
            elif kind == "dir" and entry.name in NOT_READ:
                self.unread(entry, NOT_READ[entry.name])
            else:
                self.stray(entry)

    def other_folders(self, folders: Sequence[Path]) -> None:
        """The session's folders in other project folders (`session_folders_elsewhere`), walked
        as its own folder is; a symlink or a file by that name is refused or stray, as there."""
        for folder in folders:
            self.session_folder_at(folder)

    def session_folder_at(self, folder: Path) -> None:
        """A session's folder: walked, stray when a file, refused (its agents unseen) when a
        symlink, a special file or unreadable."""
        kind = self.refuse_unsafe(folder)
        if kind == "dir":
            self.session_folder(folder)
        elif kind == "file":
            self.stray(folder)
        elif kind != "missing":
            self.layout.unseen.add(None)

    def legacy_siblings(self, entries: Iterable[Path]) -> None:
        for entry in entries:
            agent_id = legacy_agent_id(entry.name)
            if agent_id is None:
                continue
            kind = self.refuse_unsafe(entry)
            if kind == "file":
                self.layout.add("subagent", entry, agent_id=agent_id, legacy=True)
            elif kind in ("link", "special", "unreadable"):  # refused: an agent not read
                self.layout.refused_agents.add((None, agent_id))


def legacy_agent_id(name: str) -> str | None:
    """The agent id of an agent transcript beside the parents of its project folder (2.0.x:
    `agent-<7 or 8 hex>.jsonl`), else None. Every tree of that folder reads it: bound to the
    session it names, or unbound (one that cannot be read is neither: refused, load.py). A
    later id's form there (`agent-a<hex>`, `agent-acompact-<hex>`: a child written beside the
    parent, not in `<session>/subagents/`) is read the same way: a child of this session left
    unread would be its spend left out."""
    match = _CHILD.fullmatch(name)
    if match is None:
        return None
    agent_id = match.group("id")
    if not (LEGACY_AGENT_ID.fullmatch(agent_id) or AGENT_ID.fullmatch(agent_id)):
        return None
    return agent_id


def session_folders_elsewhere(
    project: Path, session_id: str, *, project_names_only: bool = False
) -> tuple[list[Path], list[Path]]:
    """The session's folders in the other project folders beside `project`: where Claude Code
    writes the children of an agent isolated in a git worktree, or every child after the
    session enters a worktree (the worktree is a project folder of its own; the parent
    transcript stays where the session began). A session id names one session, so such a
    folder is this tree's, unless the session is split: when another project folder holds a
    transcript of the session too, which part a folder belongs to cannot be told: the second
    value lists the other transcripts, and the folders found are none of this tree's
    (`discover` refuses them, CC-TREE-SPLIT-FOLDER, as `scan` refuses the session's row: a
    fork's spend there has no delegation call to say it is missing). A symlink or file by the
    session's id is returned too, to be refused as in the session's own folder (`scan` counts
    a symlinked one and does not follow it).

    Every folder beside is a project folder, as `scan` takes every folder in a projects
    folder; with `project_names_only` (`--from claude-code`, which reads no children) only
    those named as Claude Code names project folders, and only beside one (a review: dated
    copies of one export side by side, `evidence/2026-07-01/` and `-02/`, were each a part,
    INCOMPLETE forever). A transcript that is not a regular file may be a part; one that
    cannot be looked at is, in a folder so named only (a review: a lone export in a home
    folder counted another user's home beside it). An empty one is none, nor the parent, and
    one file is one part whichever names reach it. A symlinked project folder is not followed
    for children; a transcript in it is a part still (a review: a worktree's folder linked
    from elsewhere hid the part, SCALE on the other).
    The project folders are looked for beside `project` as given and beside the folder it
    names (a review: a parent given through a symlink to its project folder was read as a
    whole session, its other part unseen)."""
    found: list[Path] = []
    others: list[Path] = []
    seen: set[Path] = set()
    itself = _identity(project / f"{session_id}.jsonl")
    files = {itself}
    in_projects = project_names_only and is_project_folder_name(project)
    for projects in dict.fromkeys((project.parent, _real(project).parent)):
        for other in _entries(projects) or []:
            kind = entry_kind(other)
            if kind not in ("dir", "link") or same_folder(other, project):
                continue
            if _real(other) in seen or (kind == "link" and not _may_be_folder(other)):
                continue
            transcript = other / f"{session_id}.jsonl"
            held = entry_kind(transcript)
            if held != "missing":
                named = is_project_folder_name(other)
                if project_names_only:
                    part = named and in_projects
                else:
                    part = named or held != "unreadable"
                if not part:
                    # no project folder by this name: another name of it may be one (a review:
                    # a folder seen first by a name that is not a project folder's was never
                    # looked at again, SCALE on one part)
                    continue
            identity = transcript if held == "missing" else _identity(transcript)
            if identity == itself:
                # the parent by another name (a hard-linked copy of the project folder): its
                # folder is a copy of this one's, neither a part nor more children
                seen.add(_real(other))
            elif held != "missing" and not no_part(transcript):
                # another transcript of the session: the folder beside it is its own
                seen.add(_real(other))
                if identity not in files:
                    others.append(transcript)
                files.add(identity)
            elif kind == "dir":
                # an empty transcript is as if none were there: the folder's children are this
                # session's (a review: they went unread, SCALE). A symlinked folder is not
                # followed for children, nor marked seen: the folder it names, beside, is
                # read by its own name (a review: `~/wt` seen first hid `-…-worktrees-w`).
                seen.add(_real(other))
                if entry_kind(other / session_id) != "missing":
                    found.append(other / session_id)
    return found, others


def is_project_folder_name(folder: Path) -> bool:
    """Whether a folder is named as Claude Code names project folders, by the name it is
    given or the one a symlink to it names."""
    return any(PROJECT_FOLDER_NAME.match(f.name) for f in (folder, _real(folder)))


def _may_be_folder(link: Path) -> bool:
    """Whether a symlink names a folder, or may (what it names cannot be looked at)."""
    try:
        return stat.S_ISDIR(os.stat(link).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False  # broken: names nothing
    except OSError as error:
        return error.errno != errno.ELOOP  # a loop names nothing either
    except ValueError:
        return True


def _identity(path: Path) -> tuple[int, int] | Path:
    """A file's device and inode, symlinks followed (one file by two names is one part); its
    path when it cannot be looked at."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return path
    return (st.st_dev, st.st_ino)


def no_part(transcript: Path) -> bool:
    """Whether a transcript by the session's name beside is no other part: an empty regular
    file (no call in it, no bundle of it to add: a review found an empty part made every bundle
    of the session INCOMPLETE), or a symlink that names nothing (broken, a loop). Never
    opened: a FIFO would wait for a writer. Anything else that is not a regular file (a FIFO,
    a socket, a folder) may be one."""
    try:
        st = os.stat(transcript)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError as error:
        return error.errno == errno.ELOOP
    except ValueError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size == 0


def in_session_folder(path: Path, parent: Path) -> bool:
    """Whether `path` is in a session's folder, or named as a session's transcript or folder, in
    the parent's project folder or any beside it: a `<session-id>/` folder holds a session's
    subagents (its own, in its project folder; a worktree's project folder, its worktree
    agents'), whether or not it exists yet, and whichever session it is. A file written there
    is read with that session next time (a stray file, refused) or replaces one its contract
    binds (audits: `--out` onto a bound .meta.json wrote the bundle, and the contract was
    refused ever after; so did a template in another session's folder, or a bundle named as a
    session id). The project folders are those beside the parent as given and beside the folder
    it is in, symlinks followed (a review: a project folder reached by a symlink let outputs
    into the folder it names). Only a parent named by a session id is in a projects folder (a
    lone export's name has none).

    Another session's name is refused in the parent's own project folder, and in a folder
    beside it when that folder holds a session (a transcript, or a session folder with
    subagents) or that session is beside it (its transcript or session folder in any folder
    there: it reads its `<id>/` in every one). A review: beside a lone export
    `exports/<id>.jsonl`, a folder of the user's own such as `runs/<other-id>/` is read by no
    session; and one found `scratch/<other-id>/` read by that session as a stray."""
    own = parent.name.removesuffix(".jsonl")
    if not SESSION_ID.fullmatch(own):
        return False
    given = Path(os.path.abspath(parent))
    if _inside_by_identity(Path(os.path.abspath(path)), given.parent / own):
        return True
    out = _real(Path(os.path.abspath(path)))
    home = _real(given.parent)
    for projects in {_real(given.parent.parent), home.parent}:
        try:
            rel = out.relative_to(projects)
        except ValueError:
            continue
        if len(rel.parts) < 2:
            continue
        name = rel.parts[1].removesuffix(".jsonl")
        if not SESSION_ID.fullmatch(name):
            continue
        folder = projects / rel.parts[0]
        if name == own or same_folder(folder, home) or _is_project_folder(folder):
            return True
        if _session_beside(projects, name):
            return True
    return False


def _session_beside(projects: Path, session_id: str) -> bool:
    """Whether a folder in `projects` holds the session: the session reads its
    `<session-id>/` in every folder beside its own."""
    return any(
        _holds_session(folder, session_id)
        for folder in _entries(projects) or []
        if entry_kind(folder) in ("dir", "link")  # a symlinked project folder's too
    )


def _is_project_folder(folder: Path) -> bool:
    """Whether a folder holds any session."""
    names = {entry.name.removesuffix(".jsonl") for entry in _entries(folder) or []}
    return any(SESSION_ID.fullmatch(name) and _holds_session(folder, name) for name in names)


def _holds_session(folder: Path, session_id: str) -> bool:
    """Whether a folder holds the session's `<session-id>.jsonl` transcript, or its
    `<session-id>/subagents/` folder (a pruned session's)."""
    return entry_kind(folder / f"{session_id}.jsonl") != "missing" or (
        entry_kind(folder / session_id / "subagents") == "dir"
    )


def _inside_by_identity(path: Path, folder: Path) -> bool:
    """Whether a folder `path` is in is `folder` itself, told by device and inode: the same
    folder reached by another path (a bind mount, a second mount of its file system), which
    comparing paths misses (a hostile audit: `--out` through a bind mount of the project folder
    replaced a bound .meta.json, exit 0)."""
    target = file_identity(folder)
    return target is not None and any(file_identity(a) == target for a in path.parents)


def _real(path: Path) -> Path:
    """`path` with the symlinks of its existing part followed (as the file system will), or as
    given when they cannot be (a loop)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def same_folder(one: Path, other: Path) -> bool:
    """Whether two paths name one folder: by name, or by device and inode (a folder given by a
    symlink beside it, or in another case or Unicode form than it is stored in, is not a
    project folder of its own: a review found it read as its own sibling)."""
    if one == other:
        return True
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


def _holds_children(folder: Path) -> bool:
    """Whether a session's subagents/ folder (workflow runs included) holds a non-empty child
    transcript: one that records spend the single-file source would leave out."""
    for root, dirs, files in os.walk(folder):  # symlinked folders are not followed
        if len(Path(root).relative_to(folder).parts) >= 2:  # subagents/workflows/<run>/
            dirs.clear()
        for name in files:
            if not _CHILD.fullmatch(name):
                continue
            try:
                info = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and info.st_size > 0:
                return True
    return False


def _holds_sibling_child(project: Path, session_id: str) -> bool:
    """Whether an agent transcript beside the parent (2.0.x `agent-<hex>.jsonl`, such as its
    warm-up agent, or a later id's form written there) is a non-empty regular file whose records
    name this session: its spend the single-file source would leave out, with no delegation
    call to refuse on (a new-user review: `--from claude-code` dropped a 2.0.x warm-up agent's
    call, exit 0, where the tree source refuses CC-TREE-WARMUP-AGENT)."""
    try:
        names = sorted(os.listdir(project))
    except OSError:
        return False
    for name in names:
        if legacy_agent_id(name) is None:
            continue
        path = project / name
        try:
            info = os.lstat(path)
        except OSError:
            continue
        regular = stat.S_ISREG(info.st_mode) and info.st_size > 0
        if regular and session_named_inside(path) == session_id:
            return True
    return False


_SESSION_FIELD = re.compile(rb'"sessionId"\s*:\s*"([0-9A-Fa-f-]{36})"')
_PEEK = 1 << 20


def sessions_named_inside(path: Path) -> set[str] | None:
    """Every session id the file's records name, anywhere in it (a superset: a `sessionId` key
    nested in a record counts too); None when it cannot be read. One pass over its lines."""
    found: set[str] = set()
    try:
        with open_regular(path, follow=False) as stream:
            # a piece at a time, as the readers read (a review: a gigabyte with no newline
            # took twice its size in memory); an id across two pieces of a line too long to
            # read is missed, and that line is refused when the file is read
            for piece in bounded_lines(stream):
                found.update(m.decode("ascii") for m in _SESSION_FIELD.findall(piece_bytes(piece)))
    except OSError:
        return None
    return {sid for sid in found if SESSION_ID.fullmatch(sid)}


def session_named_inside(parent: Path) -> str | None:
    """The first session id the file's records name (within its first MiB), for a file whose
    name is not one: a renamed copy beside its session's folder still has children there."""
    try:
        with open_regular(parent, follow=False) as stream:
            head = stream.read(_PEEK)
    except OSError:
        return None
    found = _SESSION_FIELD.search(head)
    sid = found.group(1).decode("ascii") if found else None
    return sid if sid is not None and SESSION_ID.fullmatch(sid) else None


def discover(
    parent: Path,
    *,
    single_file: bool = False,
    elsewhere: Sequence[Path] | None = None,
    siblings: Sequence[Path] | None = None,
) -> TreeLayout:
    """Lay out the tree's files, parent first, children in sorted path order, then the
    session's folders in other project folders: `elsewhere`, or, when None, those
    `session_folders_elsewhere` finds (`scan` has found them already, for every session at
    once). `siblings`: the 2.0.x agent transcripts beside the parent that may be this
    session's (`scan` sorts a project folder's out once, by the session their records name:
    listing and reading the whole folder for each of its sessions was quadratic); None: every
    one of the parent's folder.

    `single_file` (the `claude-code` source) binds the one transcript only, whatever its name;
    it refuses when the session's folder holds children, and the reader refuses any delegation:
    nested spend would be missing.
    """
    parent = Path(os.path.abspath(parent))
    layout = TreeLayout(session_id="", root=parent.parent)
    walker = _Walker(layout)
    kind = entry_kind(parent)
    if kind == "link":
        layout.problems.append(Problem("CC-TREE-SYMLINK", local_path=parent.name))
        return layout
    if kind != "file" or not parent.name.endswith(".jsonl"):
        code = {"special": "CC-TREE-SPECIAL-FILE", "unreadable": "CC-TREE-UNREADABLE"}.get(
            kind, "CC-TREE-PARENT-MISSING"
        )
        if kind == "dir" and parent.name.endswith(".jsonl"):
            code = "CC-TREE-PARENT-IS-FOLDER"  # a folder named like a transcript
        # Labelled like a symlinked parent (`--show-paths` names it), unless there is nothing
        # at that path to name.
        # Nothing at that path: said at the argument that named it (`[--in]`), never the path.
        missing = kind == "missing"
        layout.problems.append(
            Problem(
                code, local_path=None if missing else parent.name, where=IN if missing else None
            )
        )
        return layout
    stem = parent.name.removesuffix(".jsonl")
    layout.add("parent", parent)
    if _CHILD.fullmatch(parent.name):
        # Read and account it (inspect shows its usage), but say what it is.
        layout.problems.append(Problem("CC-TREE-PARENT-IS-SUBAGENT", 0))
        layout.parent_is_subagent = True
        return layout
    if single_file:
        # The one file is the source: its records name the session (the reader takes it from
        # them), its file name does not. Children beside it would go unread: say so.
        sid = stem if SESSION_ID.fullmatch(stem) else session_named_inside(parent)
        if sid is not None and (
            _holds_children(parent.parent / sid / "subagents")
            or _holds_sibling_child(parent.parent, sid)
        ):
            layout.problems.append(Problem("CC-TREE-CHILDREN-NOT-READ", 0))
        if SESSION_ID.fullmatch(stem):
            # in a projects folder, as the tree source reads it: a split session's part read
            # alone is one part still (a review: `--from claude-code` left the finding out, and
            # evaluate decided on one part's spend), between folders named as project folders
            # (no children are read: nothing else says what a folder beside it is).
            _, others = session_folders_elsewhere(parent.parent, stem, project_names_only=True)
            layout.other_parts_at(others)
            layout.not_read["CC-TREE-SPLIT-SESSION"] += layout.split
        return layout
    if not SESSION_ID.fullmatch(stem):
        # Read and account it (so inspect shows its usage), but its children cannot be found.
        layout.problems.append(Problem("CC-TREE-PARENT-NAME", 0))
        return layout
    layout.session_id = stem
    walker.session_folder_at(parent.parent / stem)
    walker.legacy_siblings(walker.listing(parent.parent, (None,)) if siblings is None else siblings)
    if elsewhere is None:
        elsewhere, others = session_folders_elsewhere(parent.parent, stem)
        layout.other_parts_at(others)
    if layout.split:  # read by no part of the session: refused, as `scan` refuses its row
        # The other transcript is not read: its calls may be this session's too (an audit: a
        # copy of the parent in another project folder converted unremarked, where scan
        # refuses the pair). Bound, as a remote agent's spend is: a count, not a refusal.
        layout.not_read["CC-TREE-SPLIT-SESSION"] += layout.split  # one per other transcript
        for folder in elsewhere:
            # Said as what it is (a new-user audit: CC-TREE-PARENT-MISSING, "the parent
            # transcript does not exist", for a transcript given that was there and read).
            walker.stray(folder, "CC-TREE-SPLIT-FOLDER")
    else:
        walker.other_folders(elsewhere)
    _one_file_per_agent(layout)
    return layout


# Layout refusals that still list every file of the tree: its files can be compared with a
# contract's by their bytes (verify: a copied agent transcript is a file added, exit 5).
LISTS_EVERY_FILE = frozenset({"CC-TREE-AGENT-ID-TWICE"})


def _one_file_per_agent(layout: TreeLayout) -> None:
    """Each agent id names one transcript of the tree (a fuzz: a workflow agent's file copied
    into subagents/ converted, read as a side question of its own). A 2.0.x agent transcript
    beside the parents is not counted here: it may be another session's, and the reader binds
    it only by the session its records name."""
    by_id: dict[str, list[int]] = {}
    for entry in layout.files:
        if entry.role == "subagent" and not entry.legacy and entry.agent_id is not None:
            by_id.setdefault(entry.agent_id, []).append(entry.index)
    for files in by_id.values():
        if len(files) > 1:
            layout.problems += [Problem("CC-TREE-AGENT-ID-TWICE", index) for index in files]
