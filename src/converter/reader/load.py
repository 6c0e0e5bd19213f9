"""Read every file of a laid-out tree exactly once: hash and parse the same bytes."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from converter.errors import Problem
from converter.heap import cyclic_gc_paused
from converter.reader.records import BadField, Rec, extract
from converter.sources.jsonl import BadLine, Digest, iter_lines, read_document
from converter.sources.tree import SourceFile, TreeLayout

KNOWN_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "attachment",
        "summary",
        "mode",
        "permission-mode",
        "last-prompt",
        "file-history-snapshot",
        "ai-title",
        "custom-title",
        "queue-operation",
        "agent-name",
        "bridge-session",
        "progress",
        "fork-context-ref",
        "pr-link",
        "worktree-state",
        "tag",
    }
)


@dataclass(frozen=True, slots=True)
class Meta:
    agent_type: str | None
    tool_use_id: str | None
    parent_agent_id: str | None
    spawn_depth: int | None


@dataclass(slots=True)
class LoadedTree:
    layout: TreeLayout
    digests: dict[int, Digest] = field(default_factory=dict)
    records: dict[int, list[Rec]] = field(default_factory=dict)
    metas: dict[int, Meta] = field(default_factory=dict)  # keyed by the child's file index
    journal_started: dict[str, set[str]] = field(default_factory=dict)  # run id -> agent ids
    manifests: set[str] = field(default_factory=set)
    unbound: set[int] = field(default_factory=set)  # legacy siblings of another session
    problems: list[Problem] = field(default_factory=list)
    unknown_types: Counter[str] = field(default_factory=Counter)

    @property
    def bound_files(self) -> list[SourceFile]:
        return [f for f in self.layout.files if f.index not in self.unbound]


def _read_transcript(tree: LoadedTree, entry: SourceFile) -> None:
    digest = Digest()
    records: list[Rec] = []
    unreadable = False
    try:
        with entry.path.open("rb") as stream:
            for number, item in iter_lines(stream, digest):
                if isinstance(item, BadLine):
                    tree.problems.append(Problem(item.code, entry.index, number))
                    continue
                try:
                    rec = extract(item, entry.index, number)
                except BadField as bad:
                    tree.problems.append(Problem(bad.code, entry.index, number))
                    continue
                if rec.type not in KNOWN_TYPES:
                    tree.unknown_types[rec.type] += 1
                    if rec.unknown_with_usage:
                        tree.problems.append(
                            Problem("CC-REC-UNKNOWN-WITH-USAGE", entry.index, number)
                        )
                    continue
                records.append(rec)
    except OSError:
        tree.problems.append(Problem("CC-TREE-UNREADABLE", entry.index))
        unreadable = True
    tree.digests[entry.index] = digest
    tree.records[entry.index] = records
    if digest.size == 0 and not unreadable:
        code = "CC-TREE-EMPTY-FILE" if entry.role == "parent" else "CC-TREE-EMPTY-CHILD"
        tree.problems.append(Problem(code, entry.index))


def _read_bytes(tree: LoadedTree, entry: SourceFile) -> bytes | None:
    try:
        with entry.path.open("rb") as stream:
            data = stream.read()
    except OSError:
        tree.problems.append(Problem("CC-TREE-UNREADABLE", entry.index))
        return None

    tree.digests[entry.index] = Digest(hashlib.sha256(data).hexdigest(), len(data))
    if not data:
        tree.problems.append(Problem("CC-TREE-EMPTY-FILE", entry.index))
        return None
    return data


def _meta_value(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise BadField("CC-REC-BAD-FIELD")


def _read_meta(tree: LoadedTree, entry: SourceFile, child: int | None) -> None:
    data = _read_bytes(tree, entry)
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
            agent_type=_meta_value(doc, "agentType"),
            tool_use_id=_meta_value(doc, "toolUseId"),
            parent_agent_id=_meta_value(doc, "parentAgentId"),
            spawn_depth=depth,
        )
    except BadField as bad:
        tree.problems.append(Problem(bad.code, entry.index, 1))
        return
    if child is not None:
        tree.metas[child] = meta


def _read_journal(tree: LoadedTree, entry: SourceFile) -> None:
    digest = Digest()
    started: set[str] = set()
    try:
        with entry.path.open("rb") as stream:
            for number, item in iter_lines(stream, digest):
                if isinstance(item, BadLine):
                    tree.problems.append(Problem(item.code, entry.index, number))
                elif item.get("type") == "started" and isinstance(item.get("agentId"), str):
                    started.add(item["agentId"])
    except OSError:
        tree.problems.append(Problem("CC-TREE-UNREADABLE", entry.index))
        tree.digests[entry.index] = digest
        return
    tree.digests[entry.index] = digest
    if digest.size == 0:  # no `started` line to check a child against: not evidence of absence
        tree.problems.append(Problem("CC-TREE-EMPTY-FILE", entry.index))
        return
    tree.journal_started.setdefault(entry.run_id or "", set()).update(started)


def _read_manifest(tree: LoadedTree, entry: SourceFile) -> None:
    data = _read_bytes(tree, entry)
    if data is None:
        return
    doc = read_document(data)
    if isinstance(doc, BadLine):
        tree.problems.append(Problem(doc.code, entry.index, 1))
        return
    tree.manifests.add(entry.run_id or "")


def load(layout: TreeLayout) -> LoadedTree:
    with cyclic_gc_paused():
        return _load(layout)


def _load(layout: TreeLayout) -> LoadedTree:
    tree = LoadedTree(layout=layout, problems=list(layout.problems))
    child_of: dict[tuple[str | None, str | None], int] = {
        (f.run_id, f.agent_id): f.index for f in layout.files if f.role == "subagent"
    }
    for entry in layout.files:
        if entry.role in ("parent", "subagent"):
            _read_transcript(tree, entry)
        elif entry.role == "meta":
            _read_meta(tree, entry, child_of.get((entry.run_id, entry.agent_id)))
        elif entry.role == "journal":
            _read_journal(tree, entry)
        else:
            _read_manifest(tree, entry)
    for entry in layout.files:
        if entry.legacy and not any(
            r.session_id == layout.session_id for r in tree.records.get(entry.index, ())
        ):
            tree.unbound.add(entry.index)
    tree.problems = [p for p in tree.problems if p.file not in tree.unbound]
    return tree
