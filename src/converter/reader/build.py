"""From loaded records to an attributed account (SPEC §4, §5.1–5.3). Pure: no I/O.

Order of work, each step iterative (no recursion on input depth):
  1. session check and per-file uuid dedup (first copy in line order wins);
  2. streams: the parent's main stream, each child file, and 1.0.x in-file sidechains;
  3. joins: each child to exactly one delegation tool call by tool-id evidence (meta toolUseId,
     tool result agentId, agent_progress lines, workflow run id + journal, prompt equality), else
     to an anchor record by its first parentUuid (2.1.3x compaction agents), else orphan;
  4. depth by walking parents from the root, cycles refused;
  5. copies: a child's leading records that repeat an ancestor's calls (fork bootstrap, replay)
     are not events; any other call seen in two streams is refused;
  6. calls grouped by message.id with last-fragment usage; tool calls and their results;
  7. tasks (root prompts) and the task of every call; 8. typed edges.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Literal, TypeVar

import msgspec

from converter.errors import Problem
from converter.reader.load import LoadedTree
from converter.reader.model import Account, Call, Edge, EventKey, Stream, Task, ToolCall
from converter.reader.records import Rec, Usage
from converter.recorded import DELEGATION_TOOLS


def _session_check(acc: Account) -> None:
    """Every record names the tree's session; the parent's file name is that session id."""
    sid = acc.tree.layout.session_id
    for file, records in acc.tree.records.items():
        if file in acc.tree.unbound:  # a 2.0.x sibling of another session: not part of the tree
            continue
        role = acc.tree.layout.files[file].role
        seen = {r.session_id for r in records if r.session_id is not None}
        if not seen or seen == {sid}:
            continue
        if role == "parent" and len(seen) == 1:
            code = "CC-TREE-PARENT-NAME"  # one session, but not the one the file is named for
        elif role == "parent":
            code = "CC-TREE-MULTIPLE-SESSIONS"
        else:
            code = "CC-TREE-SESSION-MISMATCH"
        line = next(r.line for r in records if r.session_id is not None and r.session_id != sid)
        acc.problems.append(Problem(code, file, line))


# What a re-emitted copy may change: where it is, when it was written, by which version.
# Claude Code's copies before a compaction differ in a rewritten promptId and blanked stdout,
# neither of which a record keeps.
_COPY_MAY_CHANGE = frozenset({"file", "line", "timestamp", "version"})
# What a tool result's `toolUseResult` gives: a copy with it blanked loses these (empty, None,
# 0), which is no conflict; a copy giving other values is.
_COPY_MAY_BLANK = ("result_agent_id", "result_status", "result_run_id", "web_searches")


def _read_as(rec: Rec) -> dict[str, object]:
    """Everything accounting takes from a record, except what a copy may change or blank."""
    fields = msgspec.structs.asdict(rec)
    for name in (*_COPY_MAY_CHANGE, *_COPY_MAY_BLANK):
        del fields[name]
    return fields


def _is_copy(earlier: Rec, read_as: dict[str, object], later: Rec) -> bool:
    """Whether the later record may be dropped (`read_as`: `_read_as(earlier)`): the first is
    kept, so the later one may blank what the first gives, never give what the first lacks or
    gives otherwise."""
    if read_as != _read_as(later):
        return False
    return all(
        not getattr(later, name) or getattr(later, name) == getattr(earlier, name)
        for name in _COPY_MAY_BLANK
    )


def _dedup_uuids(acc: Account) -> None:
    """Keep the first record of each uuid (SPEC §4.1). A later one that differs in what is read
    (another call, other usage, another prompt) is no copy: dropping it would drop spend."""
    for file, records in acc.tree.records.items():
        first: dict[str, Rec] = {}
        first_read: dict[str, dict[str, object]] = {}  # once per uuid repeated, not per copy
        kept = []
        for rec in records:
            if rec.uuid is not None:
                earlier = first.get(rec.uuid)
                if earlier is not None:
                    read_as = first_read.get(rec.uuid)
                    if read_as is None:
                        read_as = first_read[rec.uuid] = _read_as(earlier)
                    if not _is_copy(earlier, read_as, rec):
                        acc.problems.append(Problem("CC-REC-UUID-CONFLICT", file, rec.line))
                    acc.findings["CC-REC-DUPLICATE-UUID"] += 1
                    continue
                first[rec.uuid] = rec
            kept.append(rec)
        acc.tree.records[file] = kept


def _streams(acc: Account) -> None:
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
        by_uuid: dict[str, Stream] = {}
        for rec in records:
            if not rec.sidechain:
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
    if any(s.kind == "sidechain" for s in acc.streams):
        acc.findings["CC-REC-SIDECHAIN-IN-FILE"] += sum(s.kind == "sidechain" for s in acc.streams)


def _own_agent_id(acc: Account, file: int, agent_id: str | None, records: list[Rec]) -> None:
    """A child's records name the agent its file name does. Joins go by the file name: two
    transcripts renamed into each other's names would each join the other's delegation."""
    for rec in records:
        if rec.agent_id is not None and rec.agent_id != agent_id:
            acc.problems.append(Problem("CC-TREE-JOIN-CONFLICT", file, rec.line))
            return


class _Index:
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
    (the head `_copies` later marks, once the joins say which stream is whose ancestor)."""
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


def _is_delegation(index: _Index, tool_id: str) -> bool:
    return index.tool_name.get(tool_id) in DELEGATION_TOOLS or tool_id in index.forked


def _first_prompt_digest(stream: Stream) -> str | None:
    for rec in stream.records:
        if rec.type == "user" and rec.kind == "prompt":
            return rec.content_digest
        if rec.type == "assistant":
            return None
    return None


def _evidence(acc: Account, index: _Index, stream: Stream) -> set[str]:
    """Tool-use ids that name this child's delegation call, from every kind of evidence."""
    tree = acc.tree
    found: set[str] = set()
    meta = tree.metas.get(stream.file)
    entry = tree.layout.files[stream.file]
    if meta and meta.tool_use_id:
        found.add(meta.tool_use_id)
    if stream.kind != "sidechain" and stream.agent_id:
        found |= index.by_result_agent.get(stream.agent_id, set())
        found |= index.progress.get(stream.agent_id, set())
    if entry.run_id is not None:
        found |= index.by_result_run.get(entry.run_id, set())
        started = tree.journal_started.get(entry.run_id)
        if started is not None and stream.agent_id not in started:
            acc.problems.append(Problem("CC-TREE-JOIN-CONFLICT", stream.file))
    if not found:
        digest = _first_prompt_digest(stream)
        if digest is not None:
            found = {tid for s, tid in index.by_prompt.get(digest, ()) if s != stream.index}
    return found


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


def _join(acc: Account, index: _Index) -> None:
    claimed: dict[str, list[int]] = defaultdict(list)
    for stream in acc.streams[1:]:
        evidence = _evidence(acc, index, stream)
        line = stream.records[0].line if stream.records else None
        if len(evidence) > 1:
            acc.problems.append(Problem("CC-TREE-JOIN-CONFLICT", stream.file, line))
            continue
        if evidence:
            tool_id = next(iter(evidence))
            owners = index.owners(tool_id) - {stream.index}
            if len(owners) != 1 or not _is_delegation(index, tool_id):
                code = "CC-TREE-AMBIGUOUS-JOIN" if len(owners) > 1 else "CC-TREE-ORPHAN-CHILD"
                acc.problems.append(Problem(code, stream.file, line))
                continue
            named = index.result_agents.get(tool_id)
            if named and stream.kind != "sidechain" and stream.agent_id not in named:
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
        anchor = _anchor(index, stream)
        if anchor is None:
            if stream.records:  # an empty child carries no spend: bound, counted, not an agent
                acc.problems.append(Problem("CC-TREE-ORPHAN-CHILD", stream.file, line))
            continue
        stream.parent, stream.anchor = anchor
        is_compaction = (stream.agent_id or "").startswith("acompact-")
        stream.kind = "compaction" if is_compaction else "side"
        stream.agent_type = "compaction" if is_compaction else "side-question"
    for tool_id, children in claimed.items():
        if len(children) > 1 and index.tool_name.get(tool_id) != "Workflow":
            for child in children:
                acc.problems.append(Problem("CC-TREE-AMBIGUOUS-JOIN", acc.streams[child].file))
    acc.delegations_expanded = len(claimed)


def _anchor(index: _Index, stream: Stream) -> tuple[int, tuple[int, int]] | None:
    for rec in stream.records:
        target = rec.fork_parent_uuid if rec.type == "fork-context-ref" else rec.parent_uuid
        if target is None:
            continue
        hits = [(s, p) for s, p in index.places(target) if s != stream.index]
        if len(hits) == 1:
            return hits[0][0], hits[0]
        return None
    return None


def _depths(acc: Account) -> None:
    """Depth by walking each chain of parents; a chain that does not reach the root is a cycle."""
    resolved = {0: 0}
    for stream in acc.streams[1:]:
        chain: list[int] = []
        current: int | None = stream.index
        while current is not None and current not in resolved:
            if current in chain:
                break
            chain.append(current)
            current = acc.streams[current].parent
        if current is None or current not in resolved:
            if acc.streams[stream.index].parent is not None:
                acc.problems.append(Problem("CC-TREE-CYCLE", stream.file))
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
        ):
            acc.problems.append(Problem("CC-TREE-DEPTH-MISMATCH", stream.file))
        if meta and meta.parent_agent_id is not None and stream.parent is not None:
            parent = acc.streams[stream.parent]
            if parent.agent_id != meta.parent_agent_id:
                acc.problems.append(Problem("CC-TREE-JOIN-CONFLICT", stream.file))


def _ancestors(acc: Account, stream: Stream) -> set[int]:
    """The streams above `stream`, up to the root (or a cycle, refused elsewhere). A set: the
    membership test on a list made a 2,500-deep chain of agents cubic (36 s)."""
    out: set[int] = set()
    current = stream.parent
    while current is not None and current not in out:
        out.add(current)
        current = acc.streams[current].parent
    return out


def _copies(acc: Account, index: _Index) -> None:
    """Mark each child's leading records that repeat an ancestor's calls as copies (its head)."""
    for stream in acc.streams[1:]:
        if stream.depth < 0:
            continue
        ancestors: set[int] | None = None  # only for a call another stream also holds
        head = 0
        copied = 0
        for pos, rec in enumerate(stream.records):
            if rec.type == "assistant" and not rec.synthetic:
                held = index.message_streams.get(rec.msg_id or "")
                if isinstance(held, list):  # another stream holds this call too
                    if ancestors is None:
                        ancestors = _ancestors(acc, stream)
                    if ancestors.intersection(held):
                        copied += 1
                        head = pos + 1
                        continue
                break
            head = pos + 1 if copied else head
        # a head that copied nothing is not a head: the child's own prompt and bookkeeping stay
        stream.head = head if copied else 0
        if copied:
            forked = bool(stream.records) and stream.records[0].type == "fork-context-ref"
            acc.findings["CC-REC-FORK-BOOTSTRAP" if forked else "CC-REC-REPLAY"] += copied


def _copies_agree(acc: Account) -> None:
    """A copy (a fork's bootstrap, a `/btw` replay) is not counted: the call it repeats is. It
    must still be that call: a copy naming another model, or other input and cache counters
    (which, unlike output, never climb between fragments), is the finding
    CC-REC-COPY-DISAGREE rather than passing unseen."""
    for stream in acc.streams[1:]:
        for rec in stream.records[: stream.head]:
            if rec.type != "assistant" or rec.synthetic:
                continue
            call = acc.calls.get(rec.msg_id or "")
            if call is None or call.stream == stream.index:
                continue
            # A copy of a streaming stub (every input counter 0 before the final fragment, as
            # gateway calls write them) repeats that fragment, not the final usage: only a copy
            # that carries counters is compared with them.
            seen = (rec.usage or _ZERO).input_side()
            if rec.model != call.model or (any(seen) and seen != call.usage.input_side()):
                acc.findings["CC-REC-COPY-DISAGREE"] += 1


def _own_records(stream: Stream) -> list[tuple[int, Rec]]:
    return list(enumerate(stream.records))[stream.head :]


def _calls(acc: Account) -> None:
    owner: dict[str, int] = {}
    for stream in acc.streams:  # orphans too: their usage is shown even though the tree refuses
        for pos, rec in _own_records(stream):
            if rec.version:
                acc.versions.add(rec.version)
            if rec.type == "progress" and rec.progress_has_usage:
                acc.findings["CC-REC-PROGRESS-COPY"] += 1
            if rec.type != "assistant":
                continue
            if rec.synthetic:
                acc.synthetic_records += 1
                if rec.usage is not None and not rec.usage.is_zero():
                    acc.problems.append(Problem("CC-REC-SYNTHETIC-WITH-USAGE", rec.file, rec.line))
                continue
            _add_fragment(acc, owner, stream, pos, rec)


def _add_fragment(acc: Account, owner: dict[str, int], stream: Stream, pos: int, rec: Rec) -> None:
    msg_id = rec.msg_id or ""
    call = acc.calls.get(msg_id)
    if call is None:
        owner[msg_id] = stream.index
        acc.calls[msg_id] = Call(
            msg_id,
            stream.index,
            rec.file,
            rec.line,
            pos,
            rec.model,
            rec.usage or _ZERO,
            rec.final,
            rec.timestamp,
            [u.id for u in rec.tool_uses],
        )
    elif owner[msg_id] != stream.index:
        acc.problems.append(Problem("CC-REC-UNEXPLAINED-DUPLICATE", rec.file, rec.line))
        return
    else:
        new = rec.usage or _ZERO
        if new.input_side() != call.usage.input_side():
            acc.findings["CC-REC-FRAGMENT-DISAGREE"] += 1
        if rec.model != call.model:
            acc.problems.append(Problem("CC-REC-MODEL-DISAGREE", rec.file, rec.line))
        call.usage, call.final, call.fragments = new, rec.final, call.fragments + 1
        call.tool_ids.extend(u.id for u in rec.tool_uses if u.id not in call.tool_ids)
    for use in rec.tool_uses:
        if use.id in acc.tools:
            if acc.tools[use.id].stream != stream.index or acc.tools[use.id].msg_id != msg_id:
                acc.problems.append(Problem("CC-REC-UNEXPLAINED-DUPLICATE", rec.file, rec.line))
            continue
        acc.tools[use.id] = ToolCall(
            use.id,
            use.name,
            stream.index,
            msg_id,
            use.shape,
            pos,
            rec.file,
            rec.line,
            prompt_digest=use.prompt_digest,
            agent_type=use.agent_type,
        )


_ZERO = Usage()


def _results(acc: Account) -> None:
    for stream in acc.streams:
        if stream.depth < 0:
            continue
        for pos, rec in _own_records(stream):
            if rec.type != "user":
                continue
            for result in rec.tool_results:
                tool = acc.tools.get(result.tool_use_id)
                if tool is None:
                    acc.findings["CC-REC-ORPHAN-TOOL-RESULT"] += 1
                    continue
                if tool.result_position is not None or tool.stream != stream.index:
                    continue
                tool.status = "error" if result.is_error else "ok"
                tool.result_position = pos
                tool.result_agent_id = rec.result_agent_id
                tool.result_status = rec.result_status
                tool.result_run_id = rec.result_run_id
                tool.web_searches = rec.web_searches if tool.name == "WebSearch" else 0
    acc.findings["CC-REC-TOOL-NO-RESULT"] += sum(
        t.status == "no-result" for t in acc.tools.values()
    )


def _tasks(acc: Account) -> None:
    root = acc.streams[0]
    if acc.task_unit == "session":
        first = next((r for r in root.records if r.timestamp), None)
        acc.tasks.append(
            Task(0, root.file, 1, 0, acc.tree.layout.session_id, first.timestamp if first else None)
        )
        return
    for pos, rec in enumerate(root.records):
        if rec.type == "user" and rec.kind in ("prompt", "command") and rec.content_digest:
            acc.tasks.append(
                Task(len(acc.tasks), rec.file, rec.line, pos, rec.content_digest, rec.timestamp)
            )
        elif rec.kind == "queued-prompt":
            # Not a task (SPEC §5.1 counts `user` prompts): the running task answers it. Said,
            # so a reader knows a task's calls may serve a prompt typed while it ran.
            acc.findings["CC-REC-QUEUED-PROMPT"] += 1


def _task_at(acc: Account, position: int) -> int | None:
    """The task of the root stream record at `position`: the last prompt at or before it."""
    if acc.task_unit == "session":
        return 0
    best = None
    low, high = 0, len(acc.tasks) - 1
    while low <= high:
        mid = (low + high) // 2
        if acc.tasks[mid].position <= position:
            best, low = mid, mid + 1
        else:
            high = mid - 1
    return best


def _assign(acc: Account) -> None:
    """Task of each root call (the last prompt at or before its first fragment), then of each
    stream (a child inherits the task of its delegation call, SPEC §5.2; a child anchored by
    `parentUuid` the task at its anchor), then of each child's call."""
    for call in acc.calls.values():
        if call.stream == 0:
            call.task = _task_at(acc, call.position)
    order = sorted((s for s in acc.streams if s.depth >= 0), key=lambda s: s.depth)
    for stream in order:
        if stream.index == 0:
            continue
        parent = acc.streams[stream.parent] if stream.parent is not None else None
        if parent is None:
            continue
        if parent.index != 0:
            stream.task = parent.task
        elif stream.delegation is not None:
            tool = acc.tools.get(stream.delegation)
            delegating = acc.calls.get(tool.msg_id) if tool else None
            # The call's task, not the task at the tool_use's line: they differ when a prompt
            # falls between the call's fragments.
            stream.task = delegating.task if delegating else _task_at(acc, 0)
        else:
            stream.task = _task_at(acc, stream.anchor[1] if stream.anchor else 0)
    unattributed = 0
    for call in acc.calls.values():
        stream = acc.streams[call.stream]
        if stream.index != 0:
            call.task = stream.task
        if call.task is None:
            unattributed += stream.depth >= 0  # an orphan's calls are refused as an orphan
            continue
        acc.tasks[call.task].calls += 1
    for stream in acc.streams[1:]:
        if stream.task is not None and stream.depth >= 0:
            acc.tasks[stream.task].subagents += 1
    if unattributed:
        acc.problems.append(Problem("CC-TASK-UNATTRIBUTED", acc.streams[0].file))


def _consumer(stream: Stream, calls_by_pos: list[tuple[int, str]], position: int) -> str | None:
    """First call of `stream` whose first fragment comes after `position`."""
    low, high = 0, len(calls_by_pos)
    while low < high:
        mid = (low + high) // 2
        if calls_by_pos[mid][0] <= position:
            low = mid + 1
        else:
            high = mid
    return calls_by_pos[low][1] if low < len(calls_by_pos) else None


def _edges(acc: Account) -> None:
    by_stream: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for call in acc.calls.values():
        by_stream[call.stream].append((call.position, call.msg_id))
    for entries in by_stream.values():
        entries.sort()
    edges: list[Edge] = []
    has_out: set[EventKey] = set()
    tools_of: dict[int, list[str]] = defaultdict(list)
    for tool in acc.tools.values():
        tools_of[tool.stream].append(tool.id)
    for tool in acc.tools.values():
        model: EventKey = ("model", tool.msg_id)
        edges.append(Edge(model, ("tool", tool.id), "requests"))
        has_out.add(model)
        if tool.result_position is not None:
            consumer = _consumer(
                acc.streams[tool.stream], by_stream[tool.stream], tool.result_position
            )
            if consumer is not None:
                edges.append(Edge(("tool", tool.id), ("model", consumer), "consumes"))
                has_out.add(("tool", tool.id))
    for stream in acc.streams[1:]:
        if stream.delegation is None or stream.depth < 0 or not by_stream[stream.index]:
            continue
        first = by_stream[stream.index][0][1]
        edges.append(Edge(("tool", stream.delegation), ("model", first), "delegates"))
        spawner = acc.tools.get(stream.delegation)
        if spawner is None or spawner.result_position is None:
            continue
        if spawner.result_status == "async_launched":  # no evidence of when its work is read
            continue
        successor = _consumer(
            acc.streams[spawner.stream], by_stream[spawner.stream], spawner.result_position
        )
        if successor is None:
            continue
        for event in _leaves(by_stream[stream.index], tools_of[stream.index], has_out):
            edges.append(Edge(event, ("model", successor), "returns"))
    acc.edges = edges


def _leaves(
    calls: list[tuple[int, str]], tools: list[str], has_out: set[EventKey]
) -> list[EventKey]:
    """A child's events with no outgoing edge inside the child."""
    events: list[EventKey] = [("model", msg) for _, msg in calls]
    events += [("tool", tool_id) for tool_id in tools]
    return [e for e in events if e not in has_out]


def _unexpanded(acc: Account, single_file: bool) -> None:
    expanded = {s.delegation for s in acc.streams if s.delegation is not None and s.depth >= 0}
    for tool in acc.tools.values():
        is_delegation = tool.name in DELEGATION_TOOLS or tool.result_status == "forked"
        if single_file and is_delegation:
            acc.problems.append(Problem("CC-TREE-DELEGATION-IN-SINGLE-FILE", tool.file, tool.line))
            continue
        if not is_delegation or tool.id in expanded or tool.status == "error":
            continue
        acc.problems.append(Problem("CC-TREE-UNEXPANDED-DELEGATION", tool.file, tool.line))


def _workflow_manifests(acc: Account) -> None:
    launched = {t.result_run_id for t in acc.tools.values() if t.result_run_id}
    for entry in acc.tree.bound_files:
        if entry.role in ("workflow-manifest", "journal") and entry.run_id not in launched:
            acc.problems.append(Problem("CC-TREE-ORPHAN-WORKFLOW-RUN", entry.index))


def _summaries(acc: Account) -> None:
    incomplete = sum(not c.final for c in acc.calls.values())
    if incomplete:
        acc.findings["CC-REC-USAGE-INCOMPLETE"] += incomplete
    if acc.synthetic_records:
        acc.findings["CC-REC-SYNTHETIC"] += acc.synthetic_records
    searches = sum(t.web_searches for t in acc.tools.values())
    if searches:
        acc.findings["CC-REC-WEBSEARCH-FROM-RESULT"] += searches
    unpriced = sum(
        c.usage is not None and c.usage.unpriced_server_tools for c in acc.calls.values()
    )
    if unpriced:
        acc.findings["CC-REC-SERVER-TOOL-UNPRICED"] += unpriced
    unknown = sum(
        t.name == "WebSearch" and t.web_searches == 0 and t.status != "error"
        for t in acc.tools.values()
    )
    if unknown:
        acc.findings["CC-REC-WEBSEARCH-COUNT-UNKNOWN"] += unknown
    acc.findings["CC-REC-UNKNOWN-TYPE"] += acc.tree.unknown_types.total()
    for problem in acc.problems:
        if not problem.blocking:
            acc.findings[problem.code] += 1
    if not acc.calls and not acc.refusals:
        acc.problems.append(Problem("CC-TREE-NO-CALLS", 0))
    empty_tasks = sum(t.calls == 0 for t in acc.tasks)
    if empty_tasks:
        acc.findings["CC-TASK-NO-CALLS"] += empty_tasks


def build_account(
    tree: LoadedTree,
    task_unit: Literal["prompt", "session"] = "prompt",
    *,
    single_file: bool = False,
) -> Account:
    acc = Account(tree=tree, task_unit=task_unit, problems=list(tree.problems))
    if not tree.records:
        return acc
    if not tree.layout.session_id:  # a renamed parent: accounted, but already refused
        first = next((r.session_id for r in tree.records[0] if r.session_id), None)
        tree.layout.session_id = first or ""
    _session_check(acc)
    _dedup_uuids(acc)
    _streams(acc)
    index = _Index(acc.streams)
    _join(acc, index)
    _depths(acc)
    _copies(acc, index)
    _calls(acc)
    _copies_agree(acc)
    _results(acc)
    _tasks(acc)
    _assign(acc)
    _unexpanded(acc, single_file)
    _workflow_manifests(acc)
    _edges(acc)
    _summaries(acc)
    _release_records(acc)
    return acc


def _release_records(acc: Account) -> None:
    """The per-line records are dead once the account is built: memory then grows with the
    number of calls, not with the lines of the files (SPEC §13)."""
    for stream in acc.streams:
        stream.records = []
    acc.tree.records = {}
