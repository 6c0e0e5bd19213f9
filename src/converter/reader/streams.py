"""Building an account, steps 1-5 (SPEC §4.1, §5.2): the session check and per-file uuid dedup
(first copy in line order wins); the streams (the parent's main stream, each child file, 1.0.x
in-file sidechains); each child joined to exactly one delegation call by tool-id evidence (meta
toolUseId, result agentId, agent_progress lines, workflow run id + journal, prompt equality),
else to the anchor record its first call descends from (2.1.3x compaction agents), else orphan; depth
by walking parents from the root, cycles refused; and a child's leading records that repeat an
ancestor's calls (fork bootstrap, replay), which are copies, not events. Pure, iterative."""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from datetime import datetime
from typing import Literal, TypeVar

import msgspec

from converter.errors import Problem
from converter.reader.load import Meta
from converter.reader.model import Account, Stream
from converter.reader.records import Rec, starts_task
from converter.recorded import DELEGATION_TOOLS
from converter.sources.tree import fork_label


def session_check(acc: Account) -> None:
    """Every record names the tree's session; the parent's file name is that session id."""
    sid = acc.tree.layout.session_id
    for file, records in acc.tree.records.items():
        if file in acc.tree.unbound:  # a 2.0.x sibling of another session: not part of the tree
            continue
        role = acc.tree.layout.files[file].role
        # a branch's copy may name the session it was copied from: it says so (`forkedFrom`)
        branch = role == "parent"
        seen = {
            r.session_id
            for r in records
            if r.session_id is not None and not (branch and r.branched)
        }
        if not seen or seen == {sid}:
            continue
        if role == "parent" and len(seen) == 1:
            code = "CC-TREE-PARENT-NAME"  # one session, but not the one the file is named for
        elif role == "parent":
            code = "CC-TREE-MULTIPLE-SESSIONS"
        else:
            code = "CC-TREE-SESSION-MISMATCH"
        line = next(
            r.line
            for r in records
            if r.session_id is not None and r.session_id != sid and not (branch and r.branched)
        )
        acc.problems.append(Problem(code, file, line))


# What a re-emitted copy may change: where it is, when it was written, by which version.
# Claude Code's copies before a compaction differ in a rewritten promptId and blanked stdout,
# neither of which a record keeps.
# A branch's copy written twice (with and without its `forkedFrom` mark) differs in the mark.
_COPY_MAY_CHANGE = frozenset({"file", "line", "timestamp", "version", "branched", "branch_origin"})


# What a tool result's `toolUseResult` gives: a copy with it blanked loses these (empty, None,
# 0), which is no conflict; a copy giving other values is.
_COPY_MAY_BLANK = (
    "result_agent_id",
    "result_status",
    "result_run_id",
    "result_usage",
    "result_states_usage",
    "web_searches",
)


def _read_as(rec: Rec) -> dict[str, object]:
    """Everything accounting takes from a record, except what a copy may change or blank."""
    fields = msgspec.structs.asdict(rec)
    for name in (*_COPY_MAY_CHANGE, *_COPY_MAY_BLANK):
        del fields[name]
    return fields


def _is_copy(earlier: Rec, read_as: dict[str, object], later: Rec) -> bool:
    """Whether the later record may be dropped (`read_as`: `_read_as(earlier)`): the first is
    kept, so the later one may blank what the first gives, never give what the first lacks or
    gives otherwise. A later record written with zeroed counts is read as what its passes
    restore (`_unzeroed`)."""
    if later.blanked is not None:
        unzeroed = _unzeroed(earlier, later)
        if unzeroed is None:
            return False
        later = unzeroed
    if read_as != _read_as(later):
        return False
    return all(
        not getattr(later, name) or getattr(later, name) == getattr(earlier, name)
        for name in _COPY_MAY_BLANK
    )


def _unzeroed(earlier: Rec, later: Rec) -> Rec | None:
    """`later`, a call record written with its counts zeroed (records.py `_zeroed`: Claude Code
    2.1.211 re-emits a turn's records so before a manual compaction, docs/claude-code-shapes.md
    §17), as the record it repeats when it is one: what its own passes restore is exactly
    `earlier`'s usage. Its parent link may differ (the re-emitted turn's first record hangs on
    the compaction summary); all else is compared as for any copy. None when it is no such
    copy: it is then refused with the code its usage earned."""
    if earlier.blanked is not None or later.restored is None or later.restored != earlier.usage:
        return None
    return msgspec.structs.replace(
        later,
        usage=earlier.usage,
        parent_uuid=earlier.parent_uuid,
        blanked=None,
        restored=None,
    )


def drop_branch_copies(acc: Account) -> None:
    """A branched session's copies of the session it was branched from are that session's
    calls, prompts and results, counted where they were made: not this tree's spend or tasks
    (counted as CC-REC-BRANCH-COPY). Accounting them here too would count them twice.

    The copies are the records a branch starts with, each marked `forkedFrom` naming the session
    copied (docs/claude-code-shapes.md §7). Some versions write each copy a second time without
    the mark under the same uuid (anthropics/claude-code#40363, #48936: with `parentUuid`
    null), and a leading copy may be written again later with its mark: copies too. A marked
    prompt or call that is none of them (after the branch's own prompts or calls, or naming no
    other session) is unexplained, and refused: dropping it could drop spend, keeping it could
    count another session's (CC-REC-BRANCH-COPY-UNEXPLAINED)."""
    session = acc.tree.layout.session_id
    for file, records in acc.tree.records.items():
        if acc.tree.layout.files[file].role != "parent":
            continue  # /branch writes a new main transcript; a child's records are read as ever
        if not any(rec.branched for rec in records):
            continue
        marked: dict[str, Rec] = {}
        for rec in records:
            if rec.branched and rec.uuid is not None:
                marked.setdefault(rec.uuid, rec)
        kept: list[Rec] = []
        own_work = False  # a prompt or call of the branch's own seen
        leading: dict[str, Rec] = {}  # the copies the branch starts with, by uuid
        for rec in records:
            if rec.branched:
                spend = rec.type in ("user", "assistant") or rec.progress_has_usage
                first = leading.get(rec.uuid) if rec.uuid is not None else None
                if first is not None and _is_twin(first, rec):
                    pass  # a leading copy written again later (a re-emit keeping its mark)
                elif rec.blanked is not None:  # zeroed counts, and no copy: refused as read
                    acc.problems.append(Problem(rec.blanked, file, rec.line))
                elif own_work or rec.branch_origin in (None, session):
                    if spend:
                        acc.problems.append(
                            Problem("CC-REC-BRANCH-COPY-UNEXPLAINED", file, rec.line)
                        )
                elif rec.uuid is not None:
                    leading.setdefault(rec.uuid, rec)
                acc.found("CC-REC-BRANCH-COPY", file, rec.line)
                continue
            twin = marked.get(rec.uuid) if rec.uuid is not None else None
            if twin is not None:
                if not _is_twin(twin, rec):
                    code = rec.blanked or "CC-REC-UUID-CONFLICT"
                    acc.problems.append(Problem(code, file, rec.line))
                acc.found("CC-REC-BRANCH-COPY", file, rec.line)
                continue
            if starts_task(rec) or (rec.type == "assistant" and rec.msg_id and not rec.synthetic):
                own_work = True
            kept.append(rec)
        acc.tree.records[file] = kept


def _is_twin(copy: Rec, other: Rec) -> bool:
    """Whether `other` is `copy` written again in a branch: the same record whichever session id
    each names and wherever its parent link points (a twin written without its mark has
    `parentUuid: null`, anthropics/claude-code#48936; a dropped copy's link leads nowhere)."""
    same = msgspec.structs.replace(other, session_id=copy.session_id, parent_uuid=copy.parent_uuid)
    return _is_copy(copy, _read_as(copy), same)


def dedup_uuids(acc: Account) -> None:
    """Keep the first record of each uuid (SPEC §4.1). A later one that differs in what is read
    (another call, other usage, another prompt) is no copy: dropping it would drop spend. A
    record written with zeroed counts (records.py `_zeroed`) is dropped only as a copy of the
    record of its uuid before it; any other is refused with the code its usage earned, where
    it is, and left out as a record refused when read is (a later record of its uuid is then
    the first)."""
    for file, records in acc.tree.records.items():
        first: dict[str, Rec] = {}
        first_read: dict[str, dict[str, object]] = {}  # once per uuid repeated, not per copy
        kept = []
        for rec in records:
            uuid = rec.uuid
            if uuid is not None:
                earlier = first.get(uuid)
                if earlier is not None:
                    read_as = first_read.get(uuid)
                    if read_as is None:
                        read_as = first_read[uuid] = _read_as(earlier)
                    if not _is_copy(earlier, read_as, rec):
                        code = rec.blanked or "CC-REC-UUID-CONFLICT"
                        acc.problems.append(Problem(code, file, rec.line))
                    acc.found("CC-REC-DUPLICATE-UUID", file, rec.line)
                    continue
            if rec.blanked is not None:  # zeroed counts, and no copy: refused as read
                acc.problems.append(Problem(rec.blanked, file, rec.line))
                continue
            if uuid is not None:
                first[uuid] = rec
            kept.append(rec)
        acc.tree.records[file] = kept


def split_streams(acc: Account) -> None:
    tree = acc.tree
    for entry in tree.layout.files:
        if entry.role not in ("parent", "subagent") or entry.index in tree.unbound:
            continue
        records = tree.records.get(entry.index, [])
        if entry.role == "subagent":
            if not entry.legacy:  # a 2.0.x sibling's name is not its agent id (a renamed copy)
                _own_agent_id(acc, entry.index, entry.agent_id, records)
            acc.streams.append(Stream(len(acc.streams), entry.index, entry.agent_id, list(records)))
            continue
        root = Stream(0, entry.index, None)
        acc.streams.insert(0, root)
        # A subagent transcript given as the parent: every record of it is `isSidechain`, and
        # all are its own, one stream (it is refused as such and still accounted).
        own = tree.layout.parent_is_subagent
        by_uuid: dict[str, Stream] = {}
        for rec in records:
            if own or not rec.sidechain:
                root.records.append(rec)
                continue
            stream = by_uuid.get(rec.parent_uuid) if rec.parent_uuid else None
            if stream is None and rec.parent_uuid is None and rec.type == "user":
                stream = Stream(-1, entry.index, rec.uuid, kind="sidechain")
                acc.streams.append(stream)
            if stream is None:
                acc.problems.append(Problem("CC-TREE-ORPHAN-CHILD", entry.index, rec.line))
                continue
            stream.records.append(rec)
            if rec.uuid:
                by_uuid[rec.uuid] = stream
    for index, stream in enumerate(acc.streams):
        stream.index = index


def _own_agent_id(acc: Account, file: int, agent_id: str | None, records: list[Rec]) -> None:
    """A child's records name the agent its file name does. Joins go by the file name: two
    transcripts renamed into each other's names would each join the other's delegation."""
    for rec in records:
        if rec.agent_id is not None and rec.agent_id != agent_id:
            acc.problems.append(Problem("CC-TREE-JOIN-CONFLICT", file, rec.line))
            return


class Index:
    """Where every tool_use id, tool result and uuid occurs, per stream."""

    def __init__(self, streams: list[Stream]) -> None:
        # One entry per id, a set or list only for the few ids seen more than once (memory).
        self.tool_streams: dict[str, int | list[int]] = {}
        # (stream, tool id) -> name, prompt digest, agent type, message id of the call
        self.tool_info: dict[tuple[int, str], tuple[str, str | None, str | None, str]] = {}
        self.results: dict[str, list[tuple[int, int, Rec]]] = defaultdict(list)
        self.uuid_at: dict[str, tuple[int, int] | list[tuple[int, int]]] = {}
        self.progress: dict[str, set[str]] = defaultdict(set)  # agent id -> tool ids
        self.tool_name: dict[str, str] = {}
        self.by_result_agent: dict[str, set[str]] = defaultdict(set)
        self.result_agents: dict[str, set[str]] = defaultdict(set)  # tool id -> agent ids named
        self.by_result_run: dict[str, set[str]] = defaultdict(set)
        self.forked: set[str] = set()
        self.by_prompt: dict[str, list[tuple[int, str]]] = defaultdict(list)  # delegations
        self.by_spawn_name: dict[str, list[tuple[int, str]]] = defaultdict(list)  # delegations
        self.resume_of: dict[str, str] = {}  # an Agent or Task call's tool id -> agent resumed
        self.message_streams: dict[str, int | list[int]] = {}  # message id -> streams holding it
        for stream in streams:
            for pos, rec in enumerate(stream.records):
                if rec.uuid:
                    self._place(rec.uuid, (stream.index, pos))
                if rec.type == "assistant" and not rec.synthetic:
                    if rec.msg_id:
                        _add_one(self.message_streams, rec.msg_id, stream.index)
                    for use in rec.tool_uses:
                        self._own(use.id, stream.index)
                        self.tool_name.setdefault(use.id, use.name)
                        if use.prompt_digest and use.name in DELEGATION_TOOLS:
                            self.by_prompt[use.prompt_digest].append((stream.index, use.id))
                        if use.spawn_name:  # an Agent or Task call's only (records.py)
                            self.by_spawn_name[use.spawn_name].append((stream.index, use.id))
                        if use.resume_of:
                            self.resume_of[use.id] = use.resume_of
                        self.tool_info[(stream.index, use.id)] = (
                            use.name,
                            use.prompt_digest,
                            use.agent_type,
                            rec.msg_id or "",
                        )
                elif rec.type == "user":
                    for result in rec.tool_results:
                        self.results[result.tool_use_id].append((stream.index, pos, rec))
                        if rec.result_agent_id:
                            self.by_result_agent[rec.result_agent_id].add(result.tool_use_id)
                            self.result_agents[result.tool_use_id].add(rec.result_agent_id)
                        if rec.result_run_id:
                            self.by_result_run[rec.result_run_id].add(result.tool_use_id)
                        if rec.result_status == "forked":
                            self.forked.add(result.tool_use_id)
                elif rec.type == "progress" and rec.progress_agent_id and rec.progress_tool_use_id:
                    self.progress[rec.progress_agent_id].add(rec.progress_tool_use_id)
        self.copied_heads = _copied_heads(streams, self.message_streams)
        self._launches: dict[frozenset[str], list[tuple[datetime, str]] | None] = {}

    def launch_times(
        self, streams: list[Stream], tool_ids: set[str]
    ) -> list[tuple[datetime, str]] | None:
        """(time, id) of each of these calls, in time order, from the record holding its
        tool_use; None if any is missing, the calls are in more than one stream or two share
        a time. Kept per set: every agent of a resumed run asks for its run's."""
        key = frozenset(tool_ids)
        if key not in self._launches:
            self._launches[key] = self._times(streams, key)
        return self._launches[key]

    def _times(
        self, streams: list[Stream], tool_ids: frozenset[str]
    ) -> list[tuple[datetime, str]] | None:
        owners = {s for tool_id in tool_ids for s in self.owners(tool_id)}
        if len(owners) != 1:
            return None
        times: dict[str, datetime | None] = {}
        for rec in streams[owners.pop()].records:
            for use in rec.tool_uses if rec.type == "assistant" else ():
                if use.id in tool_ids:
                    times.setdefault(use.id, _instant(rec.timestamp))
        found = sorted((at, tool_id) for tool_id, at in times.items() if at is not None)
        if len(found) != len(tool_ids) or len({at for at, _ in found}) != len(found):
            return None
        return found

    def _place(self, uuid: str, at: tuple[int, int]) -> None:
        _add_one(self.uuid_at, uuid, at)

    def places(self, uuid: str) -> list[tuple[int, int]]:
        return _all(self.uuid_at, uuid)

    def _own(self, tool_id: str, stream: int) -> None:
        _add_one(self.tool_streams, tool_id, stream)

    def owners(self, tool_id: str) -> set[int]:
        """The streams that made this tool call. A child whose first calls repeat another
        stream's (a fork's bootstrap, a `/btw` replay of the history) holds a copy of each of
        their tool calls: it made none of them, so it does not own them, unless no stream holds
        the call other than as such a copy (then all holders stay, and the join is ambiguous)."""
        held = set(_all(self.tool_streams, tool_id))
        if len(held) < 2:
            return held
        made = {
            s
            for s in held
            if self.tool_info[(s, tool_id)][3] not in self.copied_heads.get(s, frozenset())
        }
        return made or held


def _copied_heads(
    streams: list[Stream], holders: dict[str, int | list[int]]
) -> dict[int, frozenset[str]]:
    """Per child stream, the message ids of its leading calls that some other stream also holds
    (the head `copies` later marks, once the joins say which stream is whose ancestor)."""
    heads: dict[int, frozenset[str]] = {}
    for stream in streams[1:]:
        head: set[str] = set()
        for rec in stream.records:
            if rec.type != "assistant" or rec.synthetic:
                continue
            if not isinstance(holders.get(rec.msg_id or ""), list):
                break
            head.add(rec.msg_id or "")
        if head:
            heads[stream.index] = frozenset(head)
    return heads


# Most ids occur once: a table holds the one value itself, and a list only from a second,
# different value on (one list per id was most of the index's memory on the bench tree).
V = TypeVar("V")


def _add_one(table: dict[str, V | list[V]], key: str, value: V) -> None:
    seen = table.get(key)
    if seen is None:
        table[key] = value
    elif isinstance(seen, list):
        if value not in seen:
            seen.append(value)
    elif seen != value:
        table[key] = [seen, value]


def _all(table: dict[str, V | list[V]], key: str) -> list[V]:
    seen = table.get(key)
    return [] if seen is None else seen if isinstance(seen, list) else [seen]


def _is_delegation(index: Index, tool_id: str) -> bool:
    return index.tool_name.get(tool_id) in DELEGATION_TOOLS or tool_id in index.forked


def _first_prompt_digest(stream: Stream) -> str | None:
    for rec in stream.records:
        if rec.type == "user" and rec.kind == "prompt":
            return rec.content_digest
        if rec.type == "assistant":
            return None
    return None


def _evidence(acc: Account, index: Index, stream: Stream) -> tuple[set[str], bool] | None:
    """Tool-use ids that name this child's delegation call, from every kind of evidence, and
    whether they come from prompt equality alone (two calls of one prompt: which one is not
    written, an ambiguous join, not conflicting evidence); None when the child is refused
    already (which launch of a resumed run started it)."""
    tree = acc.tree
    found: set[str] = set()
    meta = tree.metas.get(stream.file)
    entry = tree.layout.files[stream.file]
    if meta and meta.tool_use_id:
        found.add(meta.tool_use_id)
    elif meta and meta.name:
        # A named spawn (an in-process teammate) has its name in the meta instead of the call's
        # id: the call is the Agent or Task call whose input asked for that name (two such
        # calls: the evidence conflicts; a fork's copy of one is the same call, the same id).
        found |= {tid for s, tid in index.by_spawn_name.get(meta.name, ()) if s != stream.index}
    if stream.kind != "sidechain" and stream.agent_id:
        found |= index.by_result_agent.get(stream.agent_id, set())
        found |= index.progress.get(stream.agent_id, set())
    if entry.run_id is not None:
        launches = index.by_result_run.get(entry.run_id, set())
        if sum(index.tool_name.get(t) == "Workflow" for t in launches) > 1:
            placed = _launch_of(acc, index, stream, launches)
            if placed is None:
                acc.problems.append(Problem("CC-TREE-WORKFLOW-RESUME-UNPLACED", stream.file))
                return None  # said once, by its own code; the join is not tried
            acc.found("CC-TREE-WORKFLOW-RESUMED", stream.file)
            launches = {placed}
        found |= launches
        started = tree.journal_started.get(entry.run_id)
        if started is not None and stream.agent_id not in started:
            acc.problems.append(Problem("CC-TREE-JOIN-CONFLICT", stream.file))
    resumes = {t for t in found if index.resume_of.get(t) == stream.agent_id}
    if resumes and len(found - resumes) == 1:
        # Spawned once, resumed by later calls naming it (`resume`, 2.0.28-2.1.76): one
        # transcript for every run. Joined to its spawn; which calls each later run made is not
        # written in a form read here, so under tasks by prompt it is refused (a run resumed from
        # a later prompt would count to the first one's task).
        if acc.task_unit != "session":
            line = stream.records[0].line if stream.records else None
            acc.problems.append(Problem("CC-TREE-AGENT-RESUMED-BY-TASK", stream.file, line))
        found -= resumes
    if found:
        return found, False
    digest = _first_prompt_digest(stream)
    if digest is not None:
        found = {tid for s, tid in index.by_prompt.get(digest, ()) if s != stream.index}
    return found, True


def _instant(timestamp: str | None) -> datetime | None:
    if timestamp is None:
        return None
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return None


def _launch_of(acc: Account, index: Index, stream: Stream, launches: set[str]) -> str | None:
    """Which of the Workflow calls that launched one run (a run resumed with
    `resumeFromRunId` keeps its id, folder and journal, and adds the agents it dispatches
    again; docs/claude-code-shapes.md §3) started this agent: the last launched at or before
    the agent's first timestamped record, by the times Claude Code wrote on both. None when
    that cannot be
    told: a time missing or unreadable, two launches at one time, calls in two streams, an
    agent that started before every launch, a result of another tool naming the run."""
    if any(index.tool_name.get(t) != "Workflow" for t in launches):
        return None
    times = index.launch_times(acc.streams, launches)
    first = next((r.timestamp for r in stream.records if r.timestamp is not None), None)
    begun = _instant(first)
    if times is None or begun is None:
        return None
    before = [(at, tool_id) for at, tool_id in times if at <= begun]
    return before[-1][1] if before else None


def _delegation_kind(
    name: str, entry_run: str | None
) -> Literal["agent", "task", "workflow", "skill-fork"]:
    if name == "Workflow" or entry_run is not None:
        return "workflow"
    if name == "Task":
        return "task"
    if name == "Agent":
        return "agent"
    return "skill-fork"


def join(acc: Account, index: Index) -> None:
    claimed: dict[str, list[int]] = defaultdict(list)
    # candidate calls -> the children there whose refused join names just those calls
    unjoined: Counter[frozenset[str]] = Counter()
    for stream in acc.streams[1:]:
        found = _evidence(acc, index, stream)
        line = stream.records[0].line if stream.records else None
        if found is None:
            continue
        evidence, by_prompt = found
        if len(evidence) > 1:
            code = "CC-TREE-AMBIGUOUS-JOIN" if by_prompt else "CC-TREE-JOIN-CONFLICT"
            acc.problems.append(Problem(code, stream.file, line))
            if by_prompt:
                unjoined[frozenset(evidence)] += 1
            else:
                _could_expand(index, stream, evidence, unjoined)
            continue
        if evidence:
            tool_id = next(iter(evidence))
            owners = index.owners(tool_id) - {stream.index}
            if len(owners) != 1 or not _is_delegation(index, tool_id):
                code = "CC-TREE-AMBIGUOUS-JOIN" if len(owners) > 1 else "CC-TREE-ORPHAN-CHILD"
                acc.problems.append(Problem(code, stream.file, line))
                _could_expand(index, stream, evidence, unjoined)
                continue
            if _names_another(index, stream, tool_id):
                # The call's result names another agent: the evidence disagrees on who ran it.
                acc.problems.append(Problem("CC-TREE-JOIN-CONFLICT", stream.file, line))
            if not stream.records:
                # An empty transcript is no record of the delegation's spend: the call stays
                # unexpanded (refused unless its result is an error), the file stays bound.
                continue
            owner = next(iter(owners))
            name = index.tool_info[(owner, tool_id)][0]
            entry = acc.tree.layout.files[stream.file]
            stream.parent, stream.delegation = owner, tool_id
            stream.kind = (
                "sidechain" if stream.kind == "sidechain" else _delegation_kind(name, entry.run_id)
            )
            meta = acc.tree.metas.get(stream.file)
            stream.agent_type = (meta.agent_type if meta else None) or index.tool_info[
                (owner, tool_id)
            ][2]
            claimed[tool_id].append(stream.index)
            continue
        anchor = _anchor(index, acc.streams, stream)
        if anchor is None:
            _unanchored(acc, stream, line)
            continue
        stream.parent, stream.anchor = anchor
        label = fork_label(stream.agent_id)
        stream.kind = "compaction" if label == "compact" else "side"
        # An unlabelled fork is a side question as 2.0-2.1.3x named it; another label is
        # shown as written, a pseudonym at the firewall unless it is a known kind.
        stream.agent_type = _FORK_TYPES.get(label or "side_question", label)
    _joined(acc, index, claimed, unjoined)


def _unanchored(acc: Account, stream: Stream, line: int | None) -> None:
    """A child no evidence joins and no record of the tree anchors: 2.0.x's warm-up agent, or an
    orphan."""
    if _is_warmup(stream):
        if acc.task_unit == "session":  # the session's, as the session is the one task
            stream.parent, stream.kind, stream.agent_type = 0, "warmup", "warmup"
        else:  # made before any prompt, for none: which task's is not a question to guess
            acc.problems.append(Problem("CC-TREE-WARMUP-AGENT", stream.file, line))
    elif stream.records:  # an empty child carries no spend: bound, counted, not an agent
        acc.problems.append(Problem("CC-TREE-ORPHAN-CHILD", stream.file, line))


# The one prompt of the agent Claude Code 2.0.x starts with a session, before any prompt, to
# warm its cache: "Warmup", a sidechain of its own with no delegation call (claude-code-shapes
# §2.2; the corpus's fasthooks 2.0.76 agent file).
_WARMUP_PROMPT = hashlib.sha256(b"Warmup").hexdigest()
_WARMUP_AGENT_ID = re.compile(r"[0-9a-f]{7,8}")


def _is_warmup(stream: Stream) -> bool:
    """A 2.0.x warm-up agent: an agent id of 2.0.x's form, every record a sidechain's, and its
    first record a root prompt of the literal warm-up text. Whoever typed "Warmup" to a
    subagent delegated it: such a child has its call, and is joined to it before this is asked."""
    records = stream.records
    return (
        bool(records)
        and stream.agent_id is not None
        and _WARMUP_AGENT_ID.fullmatch(stream.agent_id) is not None
        and all(r.sidechain for r in records)
        and records[0].type == "user"
        and records[0].parent_uuid is None
        and records[0].content_digest == _WARMUP_PROMPT
    )


def _could_expand(
    index: Index, stream: Stream, evidence: set[str], unjoined: Counter[frozenset[str]]
) -> None:
    """A child there whose join is refused by the evidence (it disagrees, or names a call held
    twice or nowhere): the delegation calls it names, but one whose result names another agent
    (that call's child is another, missing unless joined), could each be the one it expands.
    Which one is not written; a call so named is not also unexpanded when the children naming
    just those calls are as many as the calls (`_joined`). An empty child records no spend: its
    call stays unexpanded. A child naming no call (an orphan by its anchor) excuses none, nor
    does one naming a call it made itself: no call spawns the agent that made it."""
    if not stream.records:
        return
    calls = frozenset(
        tool_id
        for tool_id in evidence
        if _is_delegation(index, tool_id)
        and not _names_another(index, stream, tool_id)
        and stream.index not in index.owners(tool_id)
    )
    if calls:
        unjoined[calls] += 1


def _names_another(index: Index, stream: Stream, tool_id: str) -> bool:
    """Whether the call's result names another agent than this child (a 1.0.x in-file
    sidechain is named by no result)."""
    named = index.result_agents.get(tool_id)
    if not named or stream.kind == "sidechain":
        return False
    return stream.agent_id not in named


def _joined(
    acc: Account,
    index: Index,
    claimed: dict[str, list[int]],
    unjoined: Counter[frozenset[str]],
) -> None:
    """What the joins add up to: two children of one call refused, the delegations expanded,
    the calls the refused joins of children there name, the in-file sidechains joined."""
    shared = set()  # children that claim one call: refused, none of them joined
    for tool_id, children in claimed.items():
        if len(children) > 1 and index.tool_name.get(tool_id) != "Workflow":
            shared.update(children)
            for child in children:
                stream = acc.streams[child]
                line = stream.records[0].line if stream.records else None  # 1.0.x: one file
                acc.problems.append(Problem("CC-TREE-AMBIGUOUS-JOIN", stream.file, line))
    # a call expanded by a child of its own: not one whose children were refused for sharing it
    acc.delegations_expanded = sum(not shared.intersection(c) for c in claimed.values())
    for calls, naming in unjoined.items():
        if naming >= len(calls):  # a child for each call: none of them lacks its transcript
            acc.join_candidates |= calls
    # 1.0.x in-file sidechains joined to their delegation (one that is not is refused by its
    # own code, and is not said to have been joined)
    for s in acc.streams:
        if s.kind == "sidechain" and s.delegation is not None and s.index not in shared:
            acc.found("CC-REC-SIDECHAIN-IN-FILE", s.file, s.records[0].line if s.records else None)


# The agent type of each fork label Claude Code is known to write (`sources/tree.fork_label`).
_FORK_TYPES = {
    "compact": "compaction",
    "side_question": "side-question",
    "prompt_suggestion": "prompt-suggestion",
    "extract_memories": "memory-extraction",
}


Anchor = tuple[int, tuple[int, int]]


def _anchor(index: Index, streams: list[Stream], stream: Stream) -> Anchor | None:
    """Where a fork with no delegation call branched off: the stream and place it continues.

    A `fork-context-ref` says so itself (its `parentLastUuid`), when exactly one other stream
    holds that record. A fork that first replays the conversation it branched from (its head:
    calls another stream also holds) branched where that replay ends, wherever its first
    record points (`_replay_end`). Otherwise the record its first call descends from says
    where (`_first_call_exit`; with no such chain, its first record that names a parent), when
    exactly one other stream holds that record (two: refused, not chosen between); when none
    does, a labelled fork may still be placed by the prompts it replays."""
    first = stream.records[0] if stream.records else None
    if first is not None and first.type == "fork-context-ref" and first.fork_parent_uuid:
        hits = _places_elsewhere(index, stream, first.fork_parent_uuid)
        if len(hits) == 1:
            return hits[0][0], hits[0]
    if index.copied_heads.get(stream.index):
        return _replay_end(index, streams, stream)
    target = _first_call_exit(index, stream) or next(
        (t for rec in stream.records if (t := _parent_named(rec)) is not None), None
    )
    if target is not None:
        hits = _places_elsewhere(index, stream, target)
        if len(hits) == 1:
            return hits[0][0], hits[0]
        if hits:
            return None
    return _prompt_replay_end(index, streams, stream)


def _parent_named(rec: Rec) -> str | None:
    return rec.fork_parent_uuid if rec.type == "fork-context-ref" else rec.parent_uuid


def _first_call_exit(index: Index, stream: Stream) -> str | None:
    """The record of another stream the fork's first call descends from: its parent chain
    followed through the fork's own records to the first that names one outside them. A
    compaction agent opens with copies of context re-attached long before (hook reminders,
    `isMeta`, pointing hundreds of lines back, across earlier prompts); the call itself
    descends from the record just before `compact_boundary`. None when the fork makes no call
    or the chain ends inside it (no parent, a loop)."""
    rec = next((r for r in stream.records if r.type == "assistant" and not r.synthetic), None)
    for _ in range(len(stream.records)):  # a chain longer than the stream is a loop
        if rec is None:
            return None
        target = _parent_named(rec)
        if target is None:
            return None
        own = [pos for s, pos in index.places(target) if s == stream.index]
        if not own:
            return target
        rec = stream.records[own[0]]
    return None


def _places_elsewhere(index: Index, stream: Stream, uuid: str) -> list[tuple[int, int]]:
    return [(s, p) for s, p in index.places(uuid) if s != stream.index]


def _replayed(stream: Stream, head: frozenset[str]) -> tuple[str | None, list[str | None]]:
    """What a fork replays before its own first call: the last call of its head (the leading
    calls in `head`), and the prompts or commands it replays after that call: every one before
    its own first call but the last, which is its own question (a `/btw` asked while a
    prompt's first call was running replays that prompt)."""
    last: str | None = None
    prompts: list[str | None] = []
    for rec in stream.records:
        if rec.type == "assistant" and not rec.synthetic:
            if rec.msg_id not in head:
                break  # the fork's own first call
            last, prompts = rec.msg_id, []
        elif starts_task(rec):
            prompts.append(rec.content_digest)
    return last, prompts[:-1]


def _aligned(records: list[Rec], pos: int, prompts: list[str | None]) -> int:
    """Where `prompts` end when they follow `pos` in `records` one by one, no call between,
    else -1."""
    for digest in prompts:
        pos = _next_prompt(records, pos, digest)
        if pos < 0:
            return -1
    return pos


def _prompt_replay_end(index: Index, streams: list[Stream], stream: Stream) -> Anchor | None:
    """A fork Claude Code started itself (a labelled id), asked before any call of the
    conversation it replays, copies no call, only its prompts (`_replayed`). Placed where those
    prompts end in the one conversation that opens with them; other forks, which open with the
    same replayed prompts, are no such conversation. None when it replays no prompt, or no
    single conversation fits: a child that is no labelled fork stays an orphan."""
    if fork_label(stream.agent_id) is None:
        return None
    _, replayed = _replayed(stream, frozenset())
    if not replayed:
        return None
    fits: list[Anchor] = []
    for other in streams:
        forked = fork_label(other.agent_id) is not None or other.index in index.copied_heads
        if other.index == stream.index or forked:
            continue
        pos = _aligned(other.records, -1, replayed)
        if pos >= 0:
            fits.append((other.index, (other.index, pos)))
    return fits[0] if len(fits) == 1 else None


def _replay_end(index: Index, streams: list[Stream], stream: Stream) -> Anchor | None:
    """Where a replaying fork's replay ends in the stream it replays (`_replayed`): after the
    last call it copies and the prompts it replays past it. The stream is the one holding that
    call whose next prompts are those; of several, the one that made the call rather than
    copied it. None when no single stream fits: the fork is then an orphan, not placed by a
    guess."""
    last, replayed = _replayed(stream, index.copied_heads[stream.index])
    fits: list[Anchor] = []
    for holder in _all(index.message_streams, last or ""):
        if holder == stream.index:
            continue
        records = streams[holder].records
        pos = _aligned(records, max(p for p, r in enumerate(records) if r.msg_id == last), replayed)
        if pos >= 0:
            fits.append((holder, (holder, pos)))
    if len(fits) > 1:  # prefer the stream that made the call to those that copied it
        fits = [f for f in fits if last not in index.copied_heads.get(f[0], frozenset())]
    return fits[0] if len(fits) == 1 else None


def _next_prompt(records: list[Rec], pos: int, digest: str | None) -> int:
    """The position of the next prompt or command after `pos` when it has `digest` and no call
    comes before it, else -1."""
    for at in range(pos + 1, len(records)):
        rec = records[at]
        if rec.type == "assistant" and not rec.synthetic:
            return -1
        if starts_task(rec):
            return at if rec.content_digest == digest else -1
    return -1


def _lead_teammate(meta: Meta, depth: int) -> bool:
    """An in-process teammate the main session spawned: Claude Code counts the team from the
    lead, so its meta says depth 0 where the tree has it one below the main stream."""
    return meta.task_kind == "in_process_teammate" and meta.spawn_depth == 0 and depth == 1


def depths(acc: Account) -> None:
    """Depth by walking each chain of parents. A chain that comes back on itself is a cycle; one
    that ends at a stream with no parent (an orphan, refused as such) has no depth either."""
    resolved = {0: 0}
    for stream in acc.streams[1:]:
        chain: list[int] = []
        current: int | None = stream.index
        looped = False
        while current is not None and current not in resolved:
            if current in chain:
                looped = True
                break
            chain.append(current)
            current = acc.streams[current].parent
        if looped or current is None:
            if looped and current is not None:
                # said at the cycle's first child in path order: the chain may start at a
                # child hanging from it, no member of it and no place to fix it
                cycle = chain[chain.index(current) :]
                acc.problems.append(Problem("CC-TREE-CYCLE", acc.streams[min(cycle)].file))
            for member in chain:
                resolved.setdefault(member, -1)
            continue
        depth = resolved[current]
        for member in reversed(chain):
            depth = depth + 1 if depth >= 0 else -1
            resolved[member] = depth
    for stream in acc.streams:
        stream.depth = resolved.get(stream.index, -1)
        meta = acc.tree.metas.get(stream.file) if stream.index else None
        if (
            meta
            and meta.spawn_depth is not None
            and stream.depth >= 0
            and meta.spawn_depth != stream.depth
            and not _lead_teammate(meta, stream.depth)
        ):
            # said at the meta, which names the depth (a meta is one document: line 1)
            acc.problems.append(Problem("CC-TREE-DEPTH-MISMATCH", meta.file, 1))
        if meta and meta.parent_agent_id is not None and stream.parent is not None:
            parent = acc.streams[stream.parent]
            if parent.agent_id != meta.parent_agent_id:
                # the meta names another parent than the join found: said where it names it
                acc.problems.append(Problem("CC-TREE-JOIN-CONFLICT", meta.file, 1))


def _ancestors(acc: Account, stream: Stream) -> set[int]:
    """The streams above `stream`, up to the root (or a cycle, refused elsewhere). A set: the
    membership test on a list made a 2,500-deep chain of agents cubic (36 s)."""
    out: set[int] = set()
    current = stream.parent
    while current is not None and current not in out:
        out.add(current)
        current = acc.streams[current].parent
    return out


def copies(acc: Account, index: Index) -> None:
    """Mark each child's leading records that repeat an ancestor's calls as copies (its head)."""
    for stream in acc.streams[1:]:
        if stream.depth < 0:
            continue
        ancestors: set[int] | None = None  # only for a call another stream also holds
        head = 0
        copied = 0
        first: int | None = None  # the line of the first record copied
        for pos, rec in enumerate(stream.records):
            if rec.type == "assistant" and not rec.synthetic:
                held = index.message_streams.get(rec.msg_id or "")
                if isinstance(held, list):  # another stream holds this call too
                    if ancestors is None:
                        ancestors = _ancestors(acc, stream)
                    if ancestors.intersection(held):
                        copied += 1
                        first = rec.line if first is None else first
                        head = pos + 1
                        continue
                break
            head = pos + 1 if copied else head
        # a head that copied nothing is not a head: the child's own prompt and bookkeeping stay
        stream.head = head if copied else 0
        if copied:
            forked = bool(stream.records) and stream.records[0].type == "fork-context-ref"
            code = "CC-REC-FORK-BOOTSTRAP" if forked else "CC-REC-REPLAY"
            acc.found(code, stream.file, first, copied)
