"""Joins and copies in reader/streams.py that a mutation audit found no test pinned: each test
names the behaviour it holds and fails if that code path is broken (see each docstring)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from converter.reader.build import build_account
from converter.reader.load import load
from converter.reader.model import Account, Stream
from converter.sources.tree import discover
from tests.test_pinned_behaviour import SID, _findings, _inspect, _tool, _Transcript, _usage

A = "a1111111111111111"
F = "a2222222222222222"
G = "a3333333333333333"
H = "a4444444444444444"


def _account(parent: Path) -> Account:
    return build_account(load(discover(parent), jobs=1))


def _agents(acc: Account) -> dict[str | None, Stream]:
    return {s.agent_id: s for s in acc.streams}


def _codes(acc: Account) -> set[str]:
    return {p.code for p in acc.refusals}


def _side(agent: str) -> dict[str, Any]:
    return {"isSidechain": True, "agentId": agent}


def _child(
    folder: Path,
    agent: str,
    prompt: str,
    msg_id: str,
    first: int,
    meta: dict[str, Any] | None = None,
) -> _Transcript:
    """A child that is given `prompt` and answers with one call, uuids c<first>, c<first+1>."""
    c = _Transcript()
    at = "2026-01-01T00:01:{:02d}.000Z".format
    c.prompt(prompt, uuid=f"c{first}", parentUuid=None, timestamp=at(first), **_side(agent))
    c.call(msg_id, uuid=f"c{first + 1}", timestamp=at(first + 1), **_side(agent))
    c.write(folder / f"agent-{agent}.jsonl")
    if meta is not None:
        (folder / f"agent-{agent}.meta.json").write_text(json.dumps(meta))
    return c


def _agent_progress(
    t: _Transcript, agent: str | None, tool_id: str | None, copy_of: str | None, **extra: Any
) -> None:
    """An `agent_progress` line; `copy_of` embeds a copy of that child call (with usage)."""
    data: dict[str, Any] = {"type": "agent_progress", "prompt": "", "agentId": agent}
    if copy_of is not None:
        message = {"id": copy_of, "role": "assistant", "model": "claude-opus-4-8"}
        data["message"] = {"type": "assistant", "message": {**message, "usage": _usage()}}
    t.rec(type="progress", data=data, parentToolUseID=tool_id, toolUseID="agent_msg_x", **extra)


def _fork_head() -> _Transcript:
    """A fork's transcript so far: its `fork-context-ref` head record (FORMAT-NOTES §2)."""
    f = _Transcript()
    f.raw(
        type="fork-context-ref",
        agentId=F,
        parentSessionId=SID,
        parentLastUuid="r1",
        sessionId=SID,
        timestamp="2026-01-01T00:00:30.000Z",
    )
    return f


def _interrupted(t: _Transcript, tool_id: str, **extra: Any) -> None:
    """The result of a delegation the user interrupted: an error, no `agentId` anywhere."""
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": "x", "is_error": True}
    t.rec(
        type="user",
        message={"role": "user", "content": [block]},
        toolUseResult="Error: [Request interrupted by user for tool use]",
        **extra,
    )


# --- (1) agent_progress lines as join evidence ----------------------------------------------


def test_agent_progress_lines_tell_apart_two_tasks_given_one_prompt(tmp_path: Path) -> None:
    """2.1.3x, no meta; both Task results are interruptions (no `agentId`) and both calls give
    the same prompt, so prompt equality names both calls for each child: only the progress
    lines (`Index.progress`, read in `_evidence`) join each child to its own call. A line
    with no `parentToolUseID` names no call (the `and` where `Index` takes an agent_progress line).

    Killed by: deleting `found |= index.progress...` (both children CC-TREE-JOIN-CONFLICT);
    that `and` -> `or` (a None tool id joins the evidence: CC-TREE-JOIN-CONFLICT)."""
    task = {"prompt": "look it up", "subagent_type": "general-purpose"}
    p = _Transcript()
    p.prompt("go")
    p.call("msg_1", [_tool("toolu_G", "Task", task), _tool("toolu_H", "Task", task)], stop=None)
    _agent_progress(p, G, "toolu_G", "msg_g1")
    _agent_progress(p, H, "toolu_H", "msg_h1")
    _agent_progress(p, H, None, None)  # no call named: no evidence
    _interrupted(p, "toolu_G")
    _interrupted(p, "toolu_H")
    p.call("msg_2")
    parent = p.write(tmp_path / f"{SID}.jsonl")
    folder = tmp_path / SID / "subagents"
    _child(folder, G, "look it up", "msg_g1", 10)
    _child(folder, H, "look it up", "msg_h1", 20)

    acc = _account(parent)
    assert not acc.refusals, _codes(acc)
    agents = _agents(acc)
    assert (agents[G].delegation, agents[G].kind, agents[G].depth) == ("toolu_G", "task", 1)
    assert (agents[H].delegation, agents[H].kind, agents[H].depth) == ("toolu_H", "task", 1)
    assert acc.findings["CC-REC-PROGRESS-COPY"] == 2  # the two lines embedding a call


def _fork_after_progress(root: Path) -> Path:
    """One parent call delegates to A and forks F in parallel; A's progress line (embedding a
    copy of A's call, with usage) follows. F's bootstrap copies that call, then that line."""
    agent_a = {"prompt": "child A", "subagent_type": "general-purpose"}
    fork_f = {"prompt": "fork F", "subagent_type": "fork"}
    both = [_tool("toolu_A", "Agent", agent_a), _tool("toolu_F", "Agent", fork_f)]
    p = _Transcript()
    p.prompt("go")
    p.call("msg_1", both, stop="tool_use")  # r2
    _agent_progress(p, A, "toolu_A", "msg_a1")  # r3
    p.result("toolu_A", {"agentId": A, "status": "completed"})
    p.result("toolu_F", {"agentId": F, "status": "completed"})
    p.call("msg_2")
    parent = p.write(root / f"{SID}.jsonl")
    folder = root / SID / "subagents"
    _child(folder, A, "child A", "msg_a1", 10)

    f = _fork_head()
    f.call("msg_1", both, stop="tool_use", uuid="r2", parentUuid="r1", **_side(F))
    _agent_progress(f, A, "toolu_A", "msg_a1", uuid="r3", **_side(F))
    f.prompt("fork F", uuid="f4", parentUuid="r3", **_side(F))
    f.call("msg_f1", uuid="f5", **_side(F))
    f.write(folder / f"agent-{F}.jsonl")
    (folder / f"agent-{F}.meta.json").write_text(
        json.dumps({"agentType": "fork", "toolUseId": "toolu_F"})
    )
    return parent


def test_a_progress_copy_after_a_forks_copied_calls_is_part_of_its_head(tmp_path: Path) -> None:
    """A non-call record after a fork's last copied call (here the copy of A's progress line)
    belongs to the copied head (`head = pos + 1 if copied`, in `copies`): it is no event of
    the fork, so CC-REC-PROGRESS-COPY counts the parent's line once. The copy names the same
    (agent, call) pair as the parent's line: A still joins its one call, and the fork's copy of
    the delegating call does not make F an owner of toolu_A.

    Killed by: that line -> `head = head` (the fork's copy is counted: PROGRESS-COPY 2)."""
    acc = _account(_fork_after_progress(tmp_path))
    assert not acc.refusals, _codes(acc)
    agents = _agents(acc)
    assert (agents[A].delegation, agents[A].parent, agents[A].kind) == ("toolu_A", 0, "agent")
    assert (agents[F].delegation, agents[F].parent, agents[F].kind) == ("toolu_F", 0, "agent")
    assert acc.findings["CC-REC-PROGRESS-COPY"] == 1
    assert acc.findings["CC-REC-FORK-BOOTSTRAP"] == 1
    assert sorted(c.msg_id for c in acc.calls.values() if c.stream == agents[F].index) == ["msg_f1"]


# --- (2) a child that re-delegates its own prompt -------------------------------------------


def test_a_child_joined_by_prompt_is_not_its_own_delegations_child(tmp_path: Path) -> None:
    """A child known only by its first prompt (no meta, a result without `agentId`) hands that
    same prompt on to a grandchild. Prompt equality names the parent's call and the child's own;
    the child cannot be the child of its own call (`s != stream.index`, in `_evidence`), so it
    joins the parent's call, and the grandchild (meta toolUseId) joins the child's, at depth 2,
    both in the task of the parent's delegating call.

    Killed by: dropping `if s != stream.index` (the child: CC-TREE-JOIN-CONFLICT)."""
    same = {"prompt": "check it", "subagent_type": "general-purpose"}
    p = _Transcript()
    p.prompt("first task")
    p.call("msg_0")
    p.prompt("second task")
    p.call("msg_1", [_tool("toolu_P", "Agent", same)], stop="tool_use")
    p.result("toolu_P")  # a bare tool_result: no toolUseResult, no agentId
    p.call("msg_2")
    parent = p.write(tmp_path / f"{SID}.jsonl")
    folder = tmp_path / SID / "subagents"

    c = _Transcript()
    c.prompt("check it", uuid="c1", parentUuid=None, **_side(F))
    c.call("msg_c1", [_tool("toolu_C", "Agent", same)], stop="tool_use", **_side(F))
    c.result("toolu_C", {"agentId": G, "status": "completed"}, **_side(F))
    c.call("msg_c2", **_side(F))
    c.write(folder / f"agent-{F}.jsonl")
    meta = {"agentType": "general-purpose", "toolUseId": "toolu_C", "parentAgentId": F}
    _child(folder, G, "check it", "msg_g1", 10, meta)

    acc = _account(parent)
    assert not acc.refusals, _codes(acc)
    agents = _agents(acc)
    child, grandchild = agents[F], agents[G]
    assert (child.delegation, child.parent, child.depth) == ("toolu_P", 0, 1)
    assert (grandchild.delegation, grandchild.parent, grandchild.depth) == (
        "toolu_C",
        child.index,
        2,
    )
    assert child.task == grandchild.task == acc.calls["msg_1"].task == 1
    assert acc.delegations_expanded == 2


# --- branches no test reached ---------------------------------------------------------------


def test_a_uuid_written_three_times_is_one_record(tmp_path: Path) -> None:
    """A record re-emitted twice (two compactions' re-emit blocks): both later copies drop, read
    against the first copy's fields cached on the second (streams.py:85, false branch); a third
    copy that gives other usage is no copy.

    Killed by: caching a wrong value in `dedup_uuids` (`first_read[rec.uuid] = {}`): the identical
    third copy becomes CC-REC-UUID-CONFLICT."""

    def tree(name: str, third_usage: dict[str, Any]) -> Path:
        t = _one_prompt_one_call()
        prompt, call = t.lines
        later = {"timestamp": "2026-01-01T00:00:09.000Z", "version": "2.1.11"}
        t.raw(**{**call, **later})
        third = {**call["message"], "usage": third_usage}
        t.raw(**{**call, **later, "message": third})
        t.raw(**{**prompt, **later})
        t.call("msg_2")
        return t.write(tmp_path / name / f"{SID}.jsonl")

    same = _account(tree("same", _usage()))
    assert not same.refusals, _codes(same)
    assert same.findings["CC-REC-DUPLICATE-UUID"] == 3
    assert len(same.calls) == 2

    other = _account(tree("other", _usage(output_tokens=6)))
    assert _codes(other) == {"CC-REC-UUID-CONFLICT"}


def _one_prompt_one_call() -> _Transcript:
    t = _Transcript()
    t.prompt("go")
    t.call("msg_1")
    return t


def test_a_sidechain_record_without_uuid_stays_in_its_sidechain(tmp_path: Path) -> None:
    """1.0.x: an in-file sidechain's assistant record with `uuid: null` follows its parentUuid
    into the sidechain; it only names no record for later ones (`split_streams`, the false branch of its uuid test).

    Killed by: appending a sidechain record to its stream only when it has a uuid (the call is
    lost: 2 sidechain calls -> 1)."""
    side: dict[str, Any] = {"isSidechain": True}
    p = _Transcript()
    p.prompt("go")
    p.call("msg_1", [_tool("toolu_T", "Task", {"prompt": "side job"})], stop="tool_use")
    p.prompt("side job", uuid="s1", parentUuid=None, **side)
    p.call("msg_s1", uuid="s2", **side)
    p.call("msg_s2", uuid=None, parentUuid="s2", **side)
    p.result("toolu_T", parentUuid="r2")
    p.call("msg_2")
    acc = _account(p.write(tmp_path / f"{SID}.jsonl"))
    assert not acc.refusals, _codes(acc)
    sidechain = _agents(acc)["s1"]
    assert (sidechain.kind, sidechain.delegation, sidechain.depth) == ("sidechain", "toolu_T", 1)
    mine = sorted(c.msg_id for c in acc.calls.values() if c.stream == sidechain.index)
    assert mine == ["msg_s1", "msg_s2"]


def test_a_skill_fork_joins_its_forked_skill_call(tmp_path: Path) -> None:
    """A skill fork: a `Skill` call whose result says `status: "forked"` and names the child;
    the meta has no toolUseId (FORMAT-NOTES §4). The forked result makes the call a delegation
    (`Index`, where a forked result is noted) and the child kind `skill-fork`
    (`_delegation_kind`).

    Killed by: not noting the forked result (CC-TREE-ORPHAN-CHILD: the call is no
    delegation); `_delegation_kind` "agent" (the kind)."""
    p = _Transcript()
    p.prompt("go")
    p.call("msg_1", [_tool("toolu_S", "Skill", {"skill": "review"})], stop="tool_use")
    p.result("toolu_S", {"status": "forked", "agentId": A})
    p.call("msg_2")
    parent = p.write(tmp_path / f"{SID}.jsonl")
    _child(tmp_path / SID / "subagents", A, "review this", "msg_a1", 10, {"agentType": "review"})
    acc = _account(parent)
    assert not acc.refusals, _codes(acc)
    child = _agents(acc)[A]
    assert (child.delegation, child.kind, child.depth) == ("toolu_S", "skill-fork", 1)
    assert acc.delegations_expanded == 1


def test_a_fork_that_stopped_after_its_bootstrap_has_no_calls(tmp_path: Path) -> None:
    """A fork interrupted before its first own call: every call in its file is a copy, so the
    scan for its head runs off the end of the records (`copies`, its loop exhausted) and the
    whole file is its head: no call of its own, and no call counted twice.

    Killed by: a `for ... else: continue` on that loop (no head when no own call: the copy is
    CC-REC-UNEXPLAINED-DUPLICATE)."""
    fork = {"prompt": "fork F", "subagent_type": "fork"}
    p = _Transcript()
    p.prompt("go")
    p.call("msg_1", [_tool("toolu_F", "Agent", fork)], stop="tool_use")
    _interrupted(p, "toolu_F")
    p.call("msg_2")
    parent = p.write(tmp_path / f"{SID}.jsonl")
    folder = tmp_path / SID / "subagents"
    f = _fork_head()
    f.call("msg_1", [_tool("toolu_F", "Agent", fork)], stop="tool_use", uuid="r2", **_side(F))
    f.write(folder / f"agent-{F}.jsonl")
    (folder / f"agent-{F}.meta.json").write_text(
        json.dumps({"agentType": "fork", "toolUseId": "toolu_F"})
    )
    acc = _account(parent)
    assert not acc.refusals, _codes(acc)
    fork_stream = _agents(acc)[F]
    assert (fork_stream.delegation, fork_stream.depth) == ("toolu_F", 1)
    assert acc.findings["CC-REC-FORK-BOOTSTRAP"] == 1
    assert sorted(acc.calls) == ["msg_1", "msg_2"]
    assert acc.calls["msg_1"].stream == 0


def test_a_progress_copy_of_a_call_no_transcript_holds_is_refused(tmp_path: Path) -> None:
    """Was: ignored like every progress copy (CC-REC-PROGRESS-COPY), so a child cut short of
    the call its parent's progress line copied lost that call's spend with no refusal."""
    task = {"prompt": "look it up", "subagent_type": "general-purpose"}
    p = _Transcript()
    p.prompt("go")
    p.call("msg_1", [_tool("toolu_G", "Task", task)], stop=None)
    _agent_progress(p, G, "toolu_G", "msg_g1")
    _agent_progress(p, G, "toolu_G", "msg_g2")  # the child's second call: cut from its file
    _interrupted(p, "toolu_G")
    p.call("msg_2")
    parent = p.write(tmp_path / f"{SID}.jsonl")
    _child(tmp_path / SID / "subagents", G, "look it up", "msg_g1", 10)
    acc = _account(parent)
    assert [(p.code, p.line) for p in acc.refusals] == [("CC-REC-PROGRESS-UNMATCHED", 4)]
    assert acc.findings["CC-REC-PROGRESS-COPY"] == 2


def test_a_progress_copy_of_an_api_error_placeholder_needs_no_call(tmp_path: Path) -> None:
    """Was CC-REC-PROGRESS-UNMATCHED (diff review): a child's `<synthetic>` API-error record,
    copied into a progress line, is grouped as no call anywhere, and carries no spend."""
    task = {"prompt": "look it up", "subagent_type": "general-purpose"}
    p = _Transcript()
    p.prompt("go")
    p.call("msg_1", [_tool("toolu_G", "Task", task)], stop=None)
    _agent_progress(p, G, "toolu_G", "msg_g1")
    error = {"id": "3f6c5a2e-0000-4000-8000-000000000001", "model": "<synthetic>"}
    zero = {"input_tokens": 0, "output_tokens": 0}
    data = {"type": "agent_progress", "prompt": "", "agentId": G}
    data["message"] = {"type": "assistant", "message": {**error, "usage": zero}}
    p.rec(type="progress", data=data, parentToolUseID="toolu_G", toolUseID="agent_msg_y")
    _interrupted(p, "toolu_G")
    p.call("msg_2")
    parent = p.write(tmp_path / f"{SID}.jsonl")
    _child(tmp_path / SID / "subagents", G, "look it up", "msg_g1", 10)
    acc = _account(parent)
    assert not acc.refusals, _codes(acc)
    assert acc.findings["CC-REC-PROGRESS-COPY"] == 2


def test_one_file_read_alone_does_not_ask_its_progress_copies_for_calls(tmp_path: Path) -> None:
    """Its children are not read (refused as such): the copies of their calls would all be
    unmatched, one cause said many times."""
    task = {"prompt": "look it up", "subagent_type": "general-purpose"}
    p = _Transcript()
    p.prompt("go")
    p.call("msg_1", [_tool("toolu_G", "Task", task)], stop=None)
    _agent_progress(p, G, "toolu_G", "msg_g1")
    _interrupted(p, "toolu_G")
    p.call("msg_2")
    parent = p.write(tmp_path / f"{SID}.jsonl")
    single = build_account(load(discover(parent, single_file=True), jobs=1), single_file=True)
    assert "CC-REC-PROGRESS-UNMATCHED" not in {x.code for x in single.problems}
    assert "CC-REC-PROGRESS-UNMATCHED" in {x.code for x in _account(parent).problems}


# --- (5) a turn re-emitted with zeroed counts before a manual compaction (2.1.211) ----------

# A final usage as 2.1.2xx writes it: the top-level counts, their cache-write split, and the one
# pass of `usage.iterations` they add up from.
_PASS = {
    "input_tokens": 4,
    "output_tokens": 917,
    "cache_read_input_tokens": 61200,
    "cache_creation_input_tokens": 1450,
}
_SPLIT = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 1450}
_ZEROED = dict.fromkeys(_PASS, 0)


def _final_usage(split: dict[str, int] | None = None, **top: int) -> dict[str, Any]:
    """That usage with the top-level counts given replaced (the split and the pass kept)."""
    return {
        **_PASS,
        **top,
        "cache_creation": dict(split or _SPLIT),
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
        "speed": "standard",
        "inference_geo": "not_available",
        "iterations": [{**_PASS, "cache_creation": dict(_SPLIT), "type": "message"}],
    }


_TURN = {"requestId": "req_t1", "version": "2.1.211", "gitBranch": "work"}


def _compacted(reemit: bool) -> _Transcript:
    """A turn of one call written in two records, its `turn_duration`, a manual compaction (the
    boundary and the summary), then a prompt and a call after it. `reemit`: between the summary
    and that prompt, the boundary, the summary (another `promptId`), the call's two records
    (their four counts 0, the split and the pass kept, the first hung on the summary) and the
    `turn_duration` are written again under their uuids, on another branch, as 2.1.211 does."""
    t = _Transcript()
    t.prompt("tidy the parser")  # r1
    thinking = [{"type": "thinking", "thinking": "", "signature": "s1"}]
    t.call("msg_t1", thinking, usage=_final_usage(), **_TURN)  # r2
    t.call("msg_t1", usage=_final_usage(), **_TURN)  # r3
    t.rec(type="system", subtype="turn_duration", durationMs=81000, messageCount=3)  # r4
    t.rec(
        type="system",
        subtype="compact_boundary",
        parentUuid=None,
        logicalParentUuid="r4",
        compactMetadata={"trigger": "manual", "preTokens": 62000},
    )  # r5
    summary = {"role": "user", "content": "what was done so far"}
    t.rec(type="user", message=summary, isCompactSummary=True, promptId="p1")  # r6
    if reemit:
        moved = {"gitBranch": "moved"}
        t.raw(**{**t.lines[4], **moved})
        t.raw(**{**t.lines[5], **moved, "promptId": "p2"})
        for line, parent in ((t.lines[1], "r6"), (t.lines[2], "r2")):
            zeroed = {**line["message"], "usage": _final_usage(**_ZEROED)}
            t.raw(**{**line, **moved, "parentUuid": parent, "message": zeroed})
        t.raw(**{**t.lines[3], **moved})
    after = {"parentUuid": "r6", "timestamp": "2026-01-01T00:01:00.000Z"}
    t.prompt("now the tests", uuid="r7", **after)
    t.call("msg_t2", uuid="r8", parentUuid="r7", timestamp="2026-01-01T00:01:01.000Z")
    return t


def test_a_turn_re_emitted_with_zeroed_counts_is_counted_once_as_written(
    cli: Any, tmp_path: Path
) -> None:
    """The five re-emitted records (two of them the call's, counts zeroed) are copies of the
    records before them (CC-REC-DUPLICATE-UUID 5): no refusal, and the session reads and prices
    exactly as it does without them (the call's usage is the first copy's, neither zero nor
    twice).

    Killed by: not reading a zeroed record as what its passes restore (`_unzeroed`), or not
    letting its parent link differ (both: CC-REC-BAD-TOKEN-COUNT at line 9); refusing a
    zeroed record as it is read (records.py `_zeroed`: line 9 and 10)."""
    folders = {
        name: _compacted(reemit).write(tmp_path / name / f"{SID}.jsonl")
        for name, reemit in (("plain", False), ("again", True))
    }
    acc = _account(folders["again"])
    assert not acc.refusals, [(p.code, p.line) for p in acc.refusals]
    assert acc.findings["CC-REC-DUPLICATE-UUID"] == 5
    assert (acc.calls["msg_t1"].usage.output_tokens, acc.calls["msg_t1"].usage.cache_1h) == (
        917,
        1450,
    )
    plain, again = (
        _inspect(cli, folders[name], "--price-card", "anthropic-2026-12")
        for name in ("plain", "again")
    )
    assert _findings(again) == {**_findings(plain), "CC-REC-DUPLICATE-UUID": 5}
    assert (plain["counts"]["model_calls"], plain["counts"]["tasks"]) == (2, 2)
    assert plain["usage"]["output_tokens"] == 917 + 5
    assert plain["card_cost"]["low_usd"] != "0"
    assert [p["line"] for p in again["finding_places"]["CC-REC-DUPLICATE-UUID"]["at"]] == [
        7,
        8,
        9,
        10,
        11,
    ]
    del plain["findings"], again["findings"], plain["finding_places"], again["finding_places"]
    assert again == plain


def _lone(t: _Transcript, usage: dict[str, Any], **extra: Any) -> None:
    t.call("msg_t1", usage=usage, **{**_TURN, **extra})


@pytest.mark.parametrize(
    ("case", "code"),
    [
        ("alone", "CC-REC-BAD-TOKEN-COUNT"),
        ("no split, passes only", "CC-REC-USAGE-ITERATIONS"),
        ("other passes than the first's", "CC-REC-BAD-TOKEN-COUNT"),
        ("another message id", "CC-REC-BAD-TOKEN-COUNT"),
        ("before the record it repeats", "CC-REC-BAD-TOKEN-COUNT"),
    ],
)
def test_a_zeroed_call_record_that_is_no_copy_is_refused(
    tmp_path: Path, case: str, code: str
) -> None:
    """A record with its four counts 0 and its split or passes kept is dropped only as a copy of
    the record of its uuid before it; any other is refused with the code reading it earns, at
    its line (3, or 2 where it comes first), as before such records were read at all, never as
    CC-REC-UUID-CONFLICT and never kept at zero cost.

    Killed by: keeping a zeroed record that repeats none as a free call (the first, second
    and last: no refusal); `_unzeroed` not comparing what the passes restore with the first
    record's usage (the third: no refusal); refusing a zeroed record that is no copy as
    CC-REC-UUID-CONFLICT (the third and fourth)."""
    t = _Transcript()
    t.prompt("go")
    zeroed = _final_usage(**_ZEROED)
    line = 3
    if case == "alone":
        _lone(t, zeroed)
        line = 2
    elif case == "no split, passes only":
        _lone(
            t,
            _final_usage(
                {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}, **_ZEROED
            ),
        )
        line = 2
    elif case == "before the record it repeats":
        _lone(t, zeroed, uuid="r2")
        t.call("msg_t1", usage=_final_usage(), uuid="r2", **_TURN)
        line = 2
    else:
        t.call("msg_t1", usage=_final_usage(), **_TURN)
        if case == "other passes than the first's":
            zeroed["iterations"][0]["output_tokens"] = 916
            _lone(t, zeroed, uuid="r2")
        else:  # and its own request (one request with two message ids is refused as such)
            t.call("msg_t9", usage=zeroed, uuid="r2", **{**_TURN, "requestId": "req_t9"})
    acc = _account(t.write(tmp_path / f"{SID}.jsonl"))
    assert [(p.code, p.file, p.line) for p in acc.refusals] == [(code, 0, line)]
