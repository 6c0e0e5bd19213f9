"""Calls only provider bodies show (SPEC §5.4; reader/bodies.py finds them): the task of each,
from what its request names. Pure; run by `build_account` once every transcript call has its
task (`tasks.assign`), before the per-line records are released.

A request's billing header names the turn it was sent in (`cc_prompt_id`, the transcript's
`promptId`) and the previous call of its chain (`cc_prev_req`, a request id: a transcript call's
`requestId`, or another hidden call's). Either names a task; the two naming different tasks,
or neither resolving, is refused, never guessed by time or position. Under `task_unit:
"session"` the one task is every call's, and no request is read (`read_bodies`).
"""

from __future__ import annotations

from collections import defaultdict

from converter.errors import Problem
from converter.reader.bodies import named_requests
from converter.reader.model import Account, HiddenCall
from converter.reader.tasks import record_task, task_at


def attribute_hidden(acc: Account) -> None:
    """Give each hidden call its task, count it in that task's calls, and refuse those with
    none (CC-BODY-HIDDEN-UNATTRIBUTED) or two (CC-BODY-HIDDEN-AMBIGUOUS), at the response."""
    if not acc.hidden:
        return
    if acc.task_unit == "session" and acc.tasks:
        for h in acc.hidden:
            h.task = 0
    else:
        _by_request(acc, [h for h in acc.hidden if h.advisor_of is None])
        owner = {h.msg_id: h.task for h in acc.hidden if h.advisor_of is None}
        for h in acc.hidden:  # an advisor pass is its call's
            if h.advisor_of is not None:
                h.task = owner.get(h.advisor_of)
    for h in acc.hidden:
        if h.refusal == "CC-BODY-HIDDEN-UNATTRIBUTED" and h.request_refused and acc.refusals:
            continue  # its request's refusal says why (a symlink, damaged, cut short)
        if h.refusal is not None:
            acc.problems.append(Problem(h.refusal, h.file))
        elif h.task is not None:
            acc.tasks[h.task].calls += 1


def _turns(acc: Account) -> dict[str, set[int]]:
    """Each `promptId` -> the tasks of the turn it names, from where its turns start
    (`LoadedTree.turns`). A turn that starts a task is that task's: Claude Code writes some of
    its records before its prompt (a command's local-command caveat, an interrupted call's tool
    result and the interruption marker: 8 of 27 turns of the corpus's 2.1.167+ files), in the
    task before. An id no main-transcript record carries (a workflow agent's own, in the
    corpus) is the task of the agent records carrying it; an id the main transcript carries
    keeps its task there (a fork's copies of its parent's records carry its parent's ids)."""
    turns: dict[str, set[int]] = defaultdict(set)
    opened: dict[str, set[int]] = defaultdict(set)
    starts = {t.position for t in acc.tasks}
    for position, prompt_id in _carried(acc, 0):
        if (task := task_at(acc, position)) is not None:
            turns[prompt_id].add(task)
            if position in starts:
                opened[prompt_id].add(task)
    turns.update(opened)
    agents: dict[str, set[int]] = defaultdict(set)
    for stream in acc.streams[1:]:
        if stream.depth < 0:
            continue
        for position, prompt_id in _carried(acc, stream.index):
            task = record_task(acc, stream, position)
            if task is not None:
                agents[prompt_id].add(task)
    return {**agents, **turns}


def _carried(acc: Account, index: int) -> list[tuple[int, str]]:
    """(position in the stream, promptId) of each of a stream's records where a turn starts."""
    stream = acc.streams[index] if index < len(acc.streams) else None
    if stream is None:
        return []
    known = acc.tree.turns
    return [
        (position, prompt_id)
        for position, rec in enumerate(stream.records)
        if (prompt_id := known.get(rec.file, {}).get(rec.line)) is not None
    ]


def _by_request(acc: Account, calls: list[HiddenCall]) -> None:
    """`attribute_hidden` when a task is a prompt. A chain is followed from the transcript's
    calls outwards: a call naming a hidden call waits for that one's task (a cycle, which no
    chain of Claude Code's makes, resolves by prompt only)."""
    turns = _turns(acc)
    # request id -> the tasks of the calls it names (a task None: a call before any prompt)
    chains: dict[str, set[int | None]] = defaultdict(set)
    for msg_id, request_ids in named_requests(acc).items():
        if (call := acc.calls.get(msg_id)) is not None:
            for request_id in request_ids:
                chains[request_id].add(call.task)
    pending = calls
    waiting = True  # calls naming a hidden call not yet attributed wait for it
    while pending:
        unresolved = {h.request_id for h in pending}
        left = []
        for h in pending:
            if waiting and h.prev_request in unresolved and h.prev_request != h.request_id:
                left.append(h)
                continue
            named = turns.get(h.prompt_id or "", set())
            chained = {t for t in chains.get(h.prev_request or "", ()) if t is not None}
            if len(named) > 1 or len(chained) > 1 or (named and chained and named != chained):
                h.refusal = "CC-BODY-HIDDEN-AMBIGUOUS"
            elif named or chained:
                h.task = next(iter(named or chained))
            else:
                h.refusal = "CC-BODY-HIDDEN-UNATTRIBUTED"
            chains[h.request_id].add(h.task)
        if len(left) == len(pending):
            waiting = False  # a cycle: what is left is attributed by its prompt alone
        pending = left
