"""Building an account, steps 7-8 (SPEC §5.1, §5.3): tasks (root prompts), the task of every
call (a child's calls are in its delegation call's task), and typed edges between events.
Pure, iterative."""

from __future__ import annotations

from collections import defaultdict

from converter.errors import Problem
from converter.reader.model import Account, Call, Edge, EventKey, Stream, Task, ToolCall
from converter.reader.records import COORDINATOR, starts_task


def find_tasks(acc: Account) -> None:
    root = acc.streams[0]
    acc.first_prompt_digest = next((r.content_digest for r in root.records if starts_task(r)), None)
    if acc.task_unit == "session":
        first = next((r for r in root.records if r.timestamp), None)
        acc.tasks.append(
            Task(0, root.file, 1, 0, acc.tree.layout.session_id, first.timestamp if first else None)
        )
        return
    # A compaction's summary is the boundary's one child (every compaction of the corpus)
    boundaries = {
        r.uuid
        for r in root.records
        if r.type == "system" and r.subtype == "compact_boundary" and r.uuid is not None
    }
    for pos, rec in enumerate(root.records):
        if starts_task(rec) and rec.parent_uuid in boundaries:
            # Where the summary stands, yet not marked one (`isCompactSummary` renamed?): read
            # as a prompt it would start a phantom task, its calls moved into it (a FORMAT-NOTES
            # audit: exit 0, two tasks for one): refused, not guessed.
            acc.problems.append(Problem("CC-TASK-COMPACT-SUMMARY-UNMARKED", rec.file, rec.line))
        elif starts_task(rec) and (digest := rec.content_digest):
            acc.tasks.append(Task(len(acc.tasks), rec.file, rec.line, pos, digest, rec.timestamp))
            if rec.kind == "channel":  # said: such a task may be a person's, or a bot's
                acc.found("CC-TASK-CHANNEL-PROMPT", rec.file, rec.line)
        elif rec.type == "user" and rec.kind == "unknown":
            # A prompt or not? Either answer moves calls between tasks: refused, not guessed.
            acc.problems.append(Problem("CC-TASK-USER-CONTENT-UNKNOWN", rec.file, rec.line))
        elif rec.type == "user" and rec.kind == "other":
            # Sent by something this version does not know (`origin.kind`), not a person: a
            # request that starts a task, or not? Was read as none, its calls silently the task
            # before's (a format-drift review): refused, as unknown content is.
            acc.problems.append(Problem("CC-TASK-ORIGIN-UNKNOWN", rec.file, rec.line))
        elif rec.kind == "queued-prompt":
            # Not a task (SPEC §5.1 counts `user` prompts): the running task answers it. Said,
            # so a reader knows a task's calls may serve a prompt typed while it ran.
            acc.found("CC-REC-QUEUED-PROMPT", rec.file, rec.line)


def task_at(acc: Account, position: int) -> int | None:
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


def record_task(acc: Account, stream: Stream, position: int) -> int | None:
    """The task of a record of an agent's stream (after `assign`): its stream's, or, from
    where the agent took up a message sent from a later task, that task's."""
    return _in_segment(stream.task, acc.resume_splits.get(stream.index, []), position)


# Where an agent took up a message sent to it from a later task: for each stream, (position of
# the record that holds the message, the sending call's task), in stream order.
Splits = dict[int, list[tuple[int, int]]]


def _in_segment(base: int | None, splits: list[tuple[int, int]], position: int) -> int | None:
    """The task of a stream's record at `position`: the last split at or before it, else the
    stream's own."""
    task = base
    for at, split_task in splits:
        if at > position:
            break
        task = split_task
    return task


_BROADCAST = "*"  # a SendMessage to every teammate


def _message_targets(acc: Account) -> dict[str, list[int]]:
    """Each name a SendMessage can use for an agent of the tree: its agent id, a named spawn's
    name (an in-process teammate's meta), and `*` for every teammate (a broadcast)."""
    targets: dict[str, list[int]] = defaultdict(list)
    for stream in acc.streams[1:]:
        if stream.depth < 0 or stream.delegation is None:
            continue
        if stream.agent_id:
            targets[stream.agent_id].append(stream.index)
        meta = acc.tree.metas.get(stream.file)
        if meta is not None and meta.name:
            targets[_BROADCAST].append(stream.index)
            if meta.name != stream.agent_id:
                targets[meta.name].append(stream.index)
    return targets


def _first_own_call(stream: Stream) -> int | None:
    """Where the agent's own first call is: past the records it copies from its parent (a
    fork's head), which are no work of its own."""
    records = stream.records
    return next(
        (n for n in range(stream.head, len(records)) if records[n].type == "assistant"), None
    )


def _deliveries(stream: Stream, found: list[int]) -> list[int]:
    """The records that hand a message, one per delivery: Claude Code can write one message the
    main agent sends a running agent twice (a queued command, then the meta prompt it
    becomes), with no call of the agent's between them; the first stands for both. Any other
    repetition is two records, as before."""
    records = stream.records
    kept: list[int] = []
    for n in found:
        if (
            kept
            and records[kept[-1]].type == "attachment"
            and records[kept[-1]].kind == records[n].kind == COORDINATOR
            and not any(r.type == "assistant" for r in records[kept[-1] + 1 : n])
        ):
            continue
        kept.append(n)
    return kept


def _resumes(acc: Account) -> tuple[Splits, list[tuple[ToolCall, int, int]]]:
    """Where each agent took up a message the main transcript sent it (SendMessage, 2.1.77 on:
    a stopped agent resumes in its own transcript, which grows; a teammate gets its next
    work), found as the agent's one record that holds the message, after the agent's own
    first call. Its work from there on is the sending call's task. A message that failed (an
    error result) handed nothing. Messages found nowhere are returned (the call, the agent's
    stream, the call's task): refused unless the agent's own task is the sender's anyway, or
    the agent was given nothing after its first call; a broadcast (`*`) is followed only to
    the teammates whose transcripts hold it."""
    targets = _message_targets(acc)
    sent: dict[tuple[int, tuple[str, ...]], list[tuple[int, ToolCall, int]]] = defaultdict(list)
    unplaced: list[tuple[ToolCall, int, int]] = []
    for tool in acc.tools.values():
        call = acc.calls.get(tool.msg_id)
        if tool.send_to is None or tool.stream != 0 or tool.status == "error":
            continue
        if call is None or call.task is None:
            continue
        streams = targets.get(tool.send_to, [])
        if len(streams) > 1 and tool.send_to != _BROADCAST:
            unplaced += [(tool, index, call.task) for index in streams]
            continue
        for index in streams:
            sent[(index, tool.message_digests)].append((tool.position, tool, call.task))
    splits: Splits = defaultdict(list)
    for (index, digests), sends in sent.items():
        stream = acc.streams[index]
        first = _first_own_call(stream)
        found = _deliveries(
            stream,
            [
                n
                for n, rec in enumerate(stream.records)
                if first is not None and n > first and any(d in rec.said for d in digests)
            ],
        )
        sends.sort(key=lambda item: item[0])
        if len(found) != len(sends):  # the same message twice: paired in order, or not at all
            # a broadcast not found in a teammate's transcript did not reach it; found, but not
            # once per sending, it cannot be placed, like a message to that teammate alone
            unplaced += [
                (t, index, task) for _, t, task in sends if t.send_to != _BROADCAST or found
            ]
            continue
        splits[index] += [(at, task) for at, (_, _, task) in zip(found, sends, strict=True)]
    for entries in splits.values():
        entries.sort()
    return splits, unplaced


def _between_agents(acc: Account) -> None:
    """A message one agent sends another is not followed (`_resumes` follows the main
    transcript's: an agent's own task is known only once its tree is placed). Harmless when
    both work for one task; from another task, to an agent that took turns after its first
    call, the work it did for the sender cannot be told from its own task's: refused (an
    attribution audit: the same message moved the calls after it to the later task when the
    main transcript sent it, and kept them in the first, unremarked, when an agent did)."""
    targets = _message_targets(acc)
    for tool in acc.tools.values():
        if tool.send_to is None or tool.stream == 0 or tool.status == "error":
            continue
        call = acc.calls.get(tool.msg_id)
        if call is None or call.task is None:
            continue
        for index in targets.get(tool.send_to, []):
            target = acc.streams[index]
            if (
                index != tool.stream
                and target.task not in (None, call.task)
                and _takes_turns(target)
            ):
                acc.problems.append(
                    Problem("CC-TREE-AGENT-MESSAGE-UNFOLLOWED", tool.file, tool.line)
                )
                break


# What an agent's transcript records of a turn given to it (its own first prompt aside): a
# prompt, a notice, content of no known kind; and a coordinator's message, as a user record or
# a queued attachment (`_takes_turns`).
_TURNS = frozenset({"prompt", "channel", "command", "notification", "other", "unknown"})


def _takes_turns(stream: Stream) -> bool:
    """Whether the agent was given anything after its own first call: with nothing, all its
    calls are its first run's, wherever an unfound message would have been taken up."""
    first = _first_own_call(stream)
    records = stream.records[first + 1 :] if first is not None else []
    return any((r.type == "user" and r.kind in _TURNS) or r.kind == COORDINATOR for r in records)


def assign(acc: Account) -> None:
    """Task of each root call (the last prompt at or before its first fragment), then of each
    stream (a child inherits the task of its delegation call, SPEC §5.2; a child anchored by
    `parentUuid` the task at its anchor), then of each child's call: its stream's, or, from
    where the agent took up a message sent from a later task, that task's (`_resumes`)."""
    for call in acc.calls.values():
        if call.stream == 0:
            call.task = task_at(acc, call.position)
    splits, unplaced = _resumes(acc) if acc.task_unit == "prompt" else ({}, [])
    child_calls: dict[int, list[Call]] = defaultdict(list)
    for call in acc.calls.values():
        if call.stream != 0:
            child_calls[call.stream].append(call)
    order = sorted((s for s in acc.streams if s.depth >= 0), key=lambda s: s.depth)
    for stream in order:
        if stream.index == 0:
            continue
        parent = acc.streams[stream.parent] if stream.parent is not None else None
        if parent is None:
            continue
        if parent.index != 0:
            tool = acc.tools.get(stream.delegation) if stream.delegation else None
            at = tool.position if tool else stream.anchor[1] if stream.anchor else 0
            stream.task = _in_segment(parent.task, splits.get(parent.index, []), at)
        elif stream.delegation is not None:
            tool = acc.tools.get(stream.delegation)
            delegating = acc.calls.get(tool.msg_id) if tool else None
            # The call's task, not the task at the tool_use's line: they differ when a prompt
            # falls between the call's fragments.
            stream.task = delegating.task if delegating else task_at(acc, 0)
        else:
            stream.task = task_at(acc, stream.anchor[1] if stream.anchor else 0)
        own = splits.get(stream.index, [])
        for call in child_calls[stream.index]:
            call.task = _in_segment(stream.task, own, call.position)
    for tool, index, task in unplaced:
        target = acc.streams[index]
        if target.task != task and _takes_turns(target):
            acc.problems.append(Problem("CC-TREE-AGENT-RESUME-UNPLACED", tool.file, tool.line))
    if acc.task_unit == "prompt":
        _between_agents(acc)
    acc.resume_splits = dict(splits)
    first: Call | None = None  # the first call with no task: the refusal names its line
    for call in acc.calls.values():
        stream = acc.streams[call.stream]
        if call.task is None:
            if first is None and stream.depth >= 0:  # an orphan's calls: refused as an orphan
                first = call
            continue
        acc.tasks[call.task].calls += 1
    for stream in acc.streams[1:]:
        if stream.task is not None and stream.depth >= 0:
            # an agent that worked for later tasks too is one of each one's subagents
            worked_for = {stream.task, *(task for _, task in splits.get(stream.index, []))}
            for task in worked_for:
                acc.tasks[task].subagents += 1
    if first is not None and not _unsure_start_before(acc, first):
        acc.problems.append(Problem("CC-TASK-UNATTRIBUTED", first.file, first.line))


# A root user record refused because whether it starts a task cannot be told.
_UNSURE_STARTS = frozenset({"CC-TASK-USER-CONTENT-UNKNOWN", "CC-TASK-ORIGIN-UNKNOWN"})


def _unsure_start_before(acc: Account, first: Call) -> bool:
    """Whether a record refused as maybe a task's start comes before the first call no task
    holds: that call has no task only because that record was not taken as one (a review:
    CC-TASK-UNATTRIBUTED's "calls come before any root human prompt" beside it misled)."""
    return any(
        p.code in _UNSURE_STARTS and p.file == first.file and (p.line or 0) < first.line
        for p in acc.problems
    )


def _consumer(calls_by_pos: list[tuple[int, str]], position: int) -> str | None:
    """First call (of one stream, by position) whose first fragment comes after `position`."""
    low, high = 0, len(calls_by_pos)
    while low < high:
        mid = (low + high) // 2
        if calls_by_pos[mid][0] <= position:
            low = mid + 1
        else:
            high = mid
    return calls_by_pos[low][1] if low < len(calls_by_pos) else None


def link_edges(acc: Account) -> None:
    by_stream: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for call in acc.calls.values():
        if call.advisor_of is None:  # an advisor pass is part of its call, no event of the flow
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
            consumer = _consumer(by_stream[tool.stream], tool.result_position)
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
        if spawner.result_status in ("async_launched", "teammate_spawned"):
            continue  # launched, not waited for: no evidence of when its work is read
        successor = _consumer(by_stream[spawner.stream], spawner.result_position)
        if successor is None:
            continue
        # What the delegation call waited for is the agent's first run: work it took up later,
        # from a message sent from another task, returned to no one here (`_resumes`).
        ends = acc.resume_splits.get(stream.index)
        cut = ends[0][0] if ends else None
        calls = [c for c in by_stream[stream.index] if cut is None or c[0] < cut]
        tools = [t for t in tools_of[stream.index] if cut is None or acc.tools[t].position < cut]
        for event in _leaves(calls, tools, has_out):
            edges.append(Edge(event, ("model", successor), "returns"))
    acc.edges = edges


def _leaves(
    calls: list[tuple[int, str]], tools: list[str], has_out: set[EventKey]
) -> list[EventKey]:
    """A child's events with no outgoing edge inside the child."""
    events: list[EventKey] = [("model", msg) for _, msg in calls]
    events += [("tool", tool_id) for tool_id in tools]
    return [e for e in events if e not in has_out]
