"""Tests for the codes no other test pinned down (STYLE §7: one test per code), and a check that
every code in the catalogue is named by some test.

Each test damages or extends a copy of a fixture tree as little as the code needs, then checks
the code, where it points (file label and line, or the finding's count) and the exit code its
`blocking` flag implies: a refusal exits 2 and writes nothing; a finding exits 0.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from converter.errors.codes import CODES
from converter.sources.jsonl import MAX_LINE
from tests.conftest import ROOT, Result
from tests.contract_helpers import fill, read_json, write_json
from tests.damage import (
    COMMANDS,
    Command,
    Outcome,
    Refusal,
    Tree,
    canary,
    copy_tree,
    dump,
    run_command,
    run_guarded,
)

SYN_CHILD = "subagents/agent-a3088bfe7965a5c04.jsonl"
SYN_META = "subagents/agent-a3088bfe7965a5c04.meta.json"
A1_TEXT_LINE = 6  # synthetic parent: A1's first fragment (text block)
A1_AGENT_LINE = 7  # synthetic parent: A1's second fragment (the Agent tool_use)
A2_LINE = 9  # synthetic parent: A2, the last model call
RICH_S1_LINE = 23  # rich parent: the `<synthetic>` API-error record S1
RICH_W2 = "subagents/workflows/wf_42728b42-182/agent-a3bd3ec704b646765.jsonl"
RICH_S2_LINE = 3  # rich W2: the `<synthetic>` record S2


@pytest.fixture(params=COMMANDS, ids=str)
def command(request: pytest.FixtureRequest) -> Command:
    return request.param  # type: ignore[no-any-return]


def expect_blocked(outcome: Outcome, code: str, file: str | None, line: int | None = None) -> None:
    """A blocking code: exit 2 (run_guarded saw nothing written), refused at exactly this place."""
    assert CODES[code].blocking
    assert outcome.code == 2, (outcome.code, outcome.err[-2000:])
    assert Refusal(code, file, line) in outcome.refusals, outcome.refusals


def expect_finding(outcome: Outcome, command: Command, code: str, count: int) -> None:
    """A non-blocking code: exit 0, nothing refused, and the finding counted `count` times."""
    assert not CODES[code].blocking
    assert outcome.code == 0, outcome.err[-2000:]
    assert outcome.refusals == []
    assert outcome.report is not None
    report = outcome.report if command.json_report else outcome.report["inventory"]
    assert {"code": code, "count": count} in report["findings"], report["findings"]


def insert_after(tree: Tree, rel: str, number: int, *records: dict[str, Any]) -> int:
    """Insert records after 1-based line `number`; the line number of the first one."""
    lines = tree.lines(rel)
    tree.write_lines(rel, [*lines[:number], *map(dump, records), *lines[number:]])
    return number + 1


def _record(tree: Tree, after: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A record of the tree's session in the 2.1.216 envelope, chained after `after`."""
    return {
        "parentUuid": after["uuid"],
        "isSidechain": False,
        **fields,
        "timestamp": after["timestamp"],
        "userType": "external",
        "entrypoint": "cli",
        "cwd": after["cwd"],
        "sessionId": tree.session,
        "version": after["version"],
        "gitBranch": after["gitBranch"],
    }


def _usage(**counts: int) -> dict[str, Any]:
    return {
        "input_tokens": 2,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 12000,
        "output_tokens": 40,
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
        "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
        "inference_geo": "not_available",
        "iterations": [],
        "speed": "standard",
        **counts,
    }


def _assistant(
    tree: Tree, after: dict[str, Any], uuid: str, msg_id: str, content: list[Any], stop: str
) -> dict[str, Any]:
    message = {
        "model": "claude-opus-4-8",
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": _usage(),
    }
    return _record(tree, after, message=message, type="assistant", uuid=uuid)


# --- files and layout ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rel",
    [
        "notes.txt",  # the session folder
        "subagents/agent-a3088bfe7965a5c04.jsonl.bak",
        "subagents/old/",  # a folder in subagents/ other than workflows/
        "subagents/workflows/notes.txt",  # a file beside the run folders
        "workflows/notes.txt",  # a manifest folder entry not named .json
    ],
)
def test_stray_file(rel: str, syn: Tree, cli: Any, command: Command, tmp_path: Path) -> None:
    """A file or folder no layout knows is refused, labelled as unbound, with no line."""
    folder, rel = rel.endswith("/"), rel.rstrip("/")
    path = syn.path(rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    if folder:
        path.mkdir()
    else:
        path.write_bytes(dump({"note": canary("stray")}) + b"\n")
    outcome = run_command(cli, command, syn, tmp_path)
    expect_blocked(outcome, "CC-TREE-STRAY-FILE", syn.label("unbound", rel))
    assert outcome.codes == {"CC-TREE-STRAY-FILE"}


def test_meta_without_child(syn: Tree, cli: Any, command: Command, tmp_path: Path) -> None:
    """A subagent's meta.json whose transcript is gone is refused at the meta file."""
    syn.path(SYN_CHILD).unlink()
    outcome = run_command(cli, command, syn, tmp_path)
    expect_blocked(outcome, "CC-TREE-META-WITHOUT-CHILD", syn.label("meta", SYN_META))
    assert outcome.codes == {"CC-TREE-META-WITHOUT-CHILD", "CC-TREE-UNEXPANDED-DELEGATION"}


def test_agent_id_twice(rich: Tree, cli: Any, command: Command, tmp_path: Path) -> None:
    """A fuzz: a workflow agent's transcript and meta copied into subagents/ converted, the copy
    read as a side question of its own (5 subagents for 4). One agent id, two transcripts:
    both are named, and nothing is written."""
    import shutil

    copy = "subagents/" + RICH_W2.rsplit("/", 1)[1]
    shutil.copy(rich.path(RICH_W2), rich.path(copy))
    meta = RICH_W2.removesuffix(".jsonl") + ".meta.json"
    shutil.copy(rich.path(meta), rich.path(copy.removesuffix(".jsonl") + ".meta.json"))
    outcome = run_command(cli, command, rich, tmp_path)
    expect_blocked(outcome, "CC-TREE-AGENT-ID-TWICE", rich.label("subagent", copy))
    expect_blocked(outcome, "CC-TREE-AGENT-ID-TWICE", rich.label("subagent", RICH_W2))


def _delegating_child(
    tree: Tree, agent: str, tool_id: str, calls: str, answered_by: str | None = None
) -> str:
    """A child transcript whose one call delegates (tool `tool_id`), and its meta naming the
    call `calls` as its own delegation; the child's path. With `answered_by`, the call has its
    result, naming that agent."""
    rel = f"subagents/agent-{agent}.jsonl"
    anchor = tree.record("", A2_LINE)
    prompt = _record(
        tree,
        anchor,
        agentId=agent,
        type="user",
        message={"role": "user", "content": canary(f"prompt-{agent}")},
        uuid=f"{agent[1:9]}-0000-4000-8000-000000000001",
    )
    prompt.update(parentUuid=None, isSidechain=True)
    use = {
        "type": "tool_use",
        "id": tool_id,
        "name": "Agent",
        "input": {"description": canary("d"), "prompt": canary("p"), "subagent_type": "Explore"},
    }
    call = _assistant(
        tree, prompt, f"{agent[1:9]}-0000-4000-8000-000000000002", f"msg_{agent}", [use], "tool_use"
    )
    call.update(isSidechain=True, agentId=agent)
    records = [prompt, call]
    if answered_by is not None:
        result = {"type": "tool_result", "tool_use_id": tool_id, "content": canary("done")}
        answer = _record(
            tree,
            call,
            agentId=agent,
            type="user",
            message={"role": "user", "content": [result]},
            toolUseResult={"status": "completed", "agentId": answered_by},
            uuid=f"{agent[1:9]}-0000-4000-8000-000000000003",
        )
        answer.update(isSidechain=True)
        records.append(answer)
    tree.write_lines(rel, map(dump, records))
    meta = {"agentType": "Explore", "description": canary("meta"), "toolUseId": calls}
    tree.path(rel.replace(".jsonl", ".meta.json")).write_bytes(dump(meta))
    return rel


def test_cycle(syn: Tree, cli: Any, command: Command, tmp_path: Path) -> None:
    """Two children whose metas each name the other's call as their delegation: the cycle is
    refused once, at the transcript of its first child in path order, and nothing else is said
    of it. Each call has its child transcript (in the cycle) and its result: each was also
    refused as CC-TREE-UNEXPANDED-DELEGATION ('has no child transcript') and counted as
    CC-REC-TOOL-NO-RESULT, the cycle's streams having no depth and their results never
    matched."""
    first = _delegating_child(
        syn, "a1111111111111111", "toolu_01Cycle1", "toolu_01Cycle2", "a2222222222222222"
    )
    _delegating_child(
        syn, "a2222222222222222", "toolu_01Cycle2", "toolu_01Cycle1", "a1111111111111111"
    )
    outcome = run_command(cli, command, syn, tmp_path)
    expect_blocked(outcome, "CC-TREE-CYCLE", syn.label("subagent", first))
    assert [r.code for r in outcome.refusals] == ["CC-TREE-CYCLE"]
    if command.json_report:
        assert outcome.report is not None
        codes = {f["code"] for f in outcome.report["findings"]}
        assert "CC-REC-TOOL-NO-RESULT" not in codes, outcome.report["findings"]


def _answered_call(
    tree: Tree, after: dict[str, Any], uuids: str, name: str, agent: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """An Agent call `toolu_01<name>` after `after` and its result naming `agent`, with the uuids
    `<uuids>4` and `<uuids>5`."""
    use = {"type": "tool_use", "id": f"toolu_01{name}", "name": "Agent", "input": {}}
    call = _assistant(tree, after, f"{uuids}4", f"msg_{name}", [use], "")
    result = {"type": "tool_result", "tool_use_id": use["id"], "content": canary(name)}
    answer = _record(
        tree,
        call,
        type="user",
        message={"role": "user", "content": [result]},
        toolUseResult={"status": "completed", "agentId": agent},
        uuid=f"{uuids}5",
    )
    return call, answer


@pytest.mark.parametrize("hanging", ["a0000000000000000", "a3333333333333333"])
def test_child_hanging_from_a_cycle(
    hanging: str, syn: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    """A child of a second call of a cycle's agent, itself delegating to no transcript: its own
    call is unexpanded (said), the call that spawned it is not (it is there), and no call of
    theirs is said to have no result, whichever of them the walk of depths meets first. The
    cycle is named at its own first child in path order: it was named at the hanging child
    when that came first (a0000...), a transcript no fix of the cycle touches."""
    cycle = "a1111111111111111"
    first = _delegating_child(syn, cycle, "toolu_01Cycle1", "toolu_01Cycle2", "a2222222222222222")
    _delegating_child(syn, "a2222222222222222", "toolu_01Cycle2", "toolu_01Cycle1", cycle)
    child = _delegating_child(syn, hanging, "toolu_01Lost", "toolu_01Extra", "a9999999999999999")
    last = json.loads(syn.lines(first)[-1])
    call, answer = _answered_call(
        syn, last, "11111111-0000-4000-8000-00000000000", "Extra", hanging
    )
    for record in (call, answer):
        record.update(isSidechain=True, agentId=cycle)
    syn.write_lines(first, [*syn.lines(first), dump(call), dump(answer)])
    outcome = run_command(cli, command, syn, tmp_path)
    assert [r.code for r in outcome.refusals].count("CC-TREE-CYCLE") == 1
    # at a child in the cycle (its first in path order), not at the one hanging from it
    expect_blocked(outcome, "CC-TREE-CYCLE", syn.label("subagent", first))
    expect_blocked(outcome, "CC-TREE-UNEXPANDED-DELEGATION", syn.label("subagent", child), 2)
    assert outcome.codes == {"CC-TREE-CYCLE", "CC-TREE-UNEXPANDED-DELEGATION"}
    assert len(outcome.refusals) == 2
    if command.json_report:
        assert outcome.report is not None
        codes = {f["code"] for f in outcome.report["findings"]}
        assert "CC-REC-TOOL-NO-RESULT" not in codes, outcome.report["findings"]


RICH_ADA = "subagents/agent-ada32aef20ac2c7e7.jsonl"


def test_a_child_whose_join_conflicts_is_refused_as_that_alone(
    rich: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    """A child whose meta names a call that is not there while the parent's call's result names
    it: the join evidence disagrees (CC-TREE-JOIN-CONFLICT), and that is all that is said. Was
    also CC-TREE-UNEXPANDED-DELEGATION twice ('has no child transcript': at the parent's call,
    whose child is there and named by its result, and at the child's own call, whose child is
    there and joined to it) and CC-REC-TOOL-NO-RESULT 2 (the child's calls, no result looked
    for): both from the child having no depth, and both sending the user to the wrong fix."""
    meta = rich.path(RICH_ADA.replace(".jsonl", ".meta.json"))
    meta.write_bytes(dump({**json.loads(meta.read_bytes()), "toolUseId": "toolu_01Nothing"}))
    outcome = run_command(cli, command, rich, tmp_path)
    expect_blocked(outcome, "CC-TREE-JOIN-CONFLICT", rich.label("subagent", RICH_ADA), 1)
    assert [r.code for r in outcome.refusals] == ["CC-TREE-JOIN-CONFLICT"], outcome.refusals
    if command.json_report:
        assert outcome.report is not None
        codes = {f["code"] for f in outcome.report["findings"]}
        assert "CC-REC-TOOL-NO-RESULT" not in codes, outcome.report["findings"]


def test_an_empty_child_whose_join_conflicts_leaves_its_call_unexpanded(
    rich: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    """As above, the child's transcript empty: no record of the delegation's spend, so the
    call its result names is still refused as unexpanded beside the join conflict."""
    meta = rich.path(RICH_ADA.replace(".jsonl", ".meta.json"))
    meta.write_bytes(dump({**json.loads(meta.read_bytes()), "toolUseId": "toolu_01Nothing"}))
    call = rich.find_line("", "toolu_01kLAwfMQ7fy4JB2LEvtLJZt")
    rich.path(RICH_ADA).write_bytes(b"")
    outcome = run_command(cli, command, rich, tmp_path)
    expect_blocked(outcome, "CC-TREE-JOIN-CONFLICT", rich.label("subagent", RICH_ADA))
    expect_blocked(outcome, "CC-TREE-UNEXPANDED-DELEGATION", rich.label("parent", ""), call)


def test_a_conflicting_child_does_not_expand_a_call_whose_result_names_another(
    syn: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    """A child whose meta names a second call of the parent, whose result names another agent
    (not in the tree), while the first call's result names the child: the child could be the
    first call's (not unexpanded, the join conflict says it), never the second's, whose child is
    missing: that one is still refused as unexpanded."""
    last = syn.record("", A2_LINE)
    call, answer = _answered_call(
        syn, last, "99999999-0000-4000-8000-00000000000", "Gone", "a7777777777777777"
    )
    lines = syn.lines()
    syn.write_lines("", [*lines, dump(call), dump(answer)])
    meta = json.loads(syn.path(SYN_META).read_bytes())
    syn.path(SYN_META).write_bytes(dump({**meta, "toolUseId": "toolu_01Gone"}))
    outcome = run_command(cli, command, syn, tmp_path)
    expect_blocked(outcome, "CC-TREE-JOIN-CONFLICT", syn.label("subagent", SYN_CHILD), 1)
    parent = syn.label("parent", "")
    expect_blocked(outcome, "CC-TREE-UNEXPANDED-DELEGATION", parent, len(lines) + 1)
    assert Refusal("CC-TREE-UNEXPANDED-DELEGATION", parent, A1_AGENT_LINE) not in outcome.refusals
    # (the child's leading copy of the parent's call: CC-REC-UNEXPLAINED-DUPLICATE, its
    # ancestors unknown while it is not joined)
    assert outcome.codes == {
        "CC-TREE-JOIN-CONFLICT",
        "CC-TREE-UNEXPANDED-DELEGATION",
        "CC-REC-UNEXPLAINED-DUPLICATE",
    }


def test_a_child_of_an_orphan_expands_its_call(
    syn: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    """An orphan (its meta names a call that is nowhere) whose call has its child, itself
    delegating to no transcript: the orphan is refused, the grandchild's call is unexpanded
    (its child is missing), the orphan's call is not (its child is there, with no depth only
    because the orphan has none), and no call of theirs is said to have no result."""
    orphan = _delegating_child(
        syn, "a4444444444444444", "toolu_01Deep", "toolu_01Nowhere", "a5555555555555555"
    )
    child = _delegating_child(
        syn, "a5555555555555555", "toolu_01Lost", "toolu_01Deep", "a9999999999999999"
    )
    outcome = run_command(cli, command, syn, tmp_path)
    expect_blocked(outcome, "CC-TREE-ORPHAN-CHILD", syn.label("subagent", orphan), 1)
    expect_blocked(outcome, "CC-TREE-UNEXPANDED-DELEGATION", syn.label("subagent", child), 2)
    assert len(outcome.refusals) == 2, outcome.refusals
    if command.json_report:
        assert outcome.report is not None
        codes = {f["code"] for f in outcome.report["findings"]}
        assert "CC-REC-TOOL-NO-RESULT" not in codes, outcome.report["findings"]


def test_an_orphan_naming_its_own_call_leaves_that_call_unexpanded(
    syn: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    """A child whose meta names its own Agent call, which has no child transcript: an orphan
    (no other stream made the call), and its call is unexpanded. A child cannot be the one its
    own call spawned, so the orphan's refusal does not stand for that call's: it was dropped,
    the missing grandchild said nowhere."""
    child = _delegating_child(syn, "a4444444444444444", "toolu_01Own", "toolu_01Own")
    outcome = run_command(cli, command, syn, tmp_path)
    expect_blocked(outcome, "CC-TREE-ORPHAN-CHILD", syn.label("subagent", child), 1)
    expect_blocked(outcome, "CC-TREE-UNEXPANDED-DELEGATION", syn.label("subagent", child), 2)


def test_a_chain_that_ends_at_an_orphan_is_no_cycle(cli: Any, tmp_path: Path) -> None:
    """Was CC-TREE-CYCLE beside the orphan's own refusal when the orphan's child sorted first:
    its chain of parents ended at a stream with no parent, and any chain not reaching the root
    was called a cycle."""

    rich = copy_tree("rich_tree", tmp_path)
    meta = next(rich.folder.rglob("agent-ada32aef20ac2c7e7.meta.json"))
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "toolUseId": "toolu_01Nothing"}))
    codes = {
        r["code"] for r in cli("inspect", "--json", "--in", str(rich.parent)).json()["refusals"]
    }
    assert "CC-TREE-CYCLE" not in codes
    assert codes  # the orphaned child is refused all the same


def test_depth_mismatch(syn: Tree, cli: Any, command: Command, tmp_path: Path) -> None:
    """A first-level child whose meta says spawnDepth 2 is refused at the meta file, line 1: the
    meta names the depth, the fix is there (SPEC §6.4: the file and line to fix). Was refused at
    the child's transcript, with no line."""
    meta = json.loads(syn.path(SYN_META).read_bytes())
    syn.path(SYN_META).write_bytes(dump({**meta, "spawnDepth": 2}))
    outcome = run_command(cli, command, syn, tmp_path)
    expect_blocked(outcome, "CC-TREE-DEPTH-MISMATCH", syn.label("meta", SYN_META), 1)
    assert outcome.codes == {"CC-TREE-DEPTH-MISMATCH"}


def test_meta_parent_conflict(syn: Tree, cli: Any, command: Command, tmp_path: Path) -> None:
    """A child joined to the main session's call whose meta names another agent as its parent
    (`parentAgentId`): the join evidence disagrees, refused at the meta file, line 1, where the
    other parent is named. Was refused at the child's transcript, with no line."""
    meta = json.loads(syn.path(SYN_META).read_bytes())
    syn.path(SYN_META).write_bytes(dump({**meta, "parentAgentId": "a0123456789abcdef"}))
    outcome = run_command(cli, command, syn, tmp_path)
    expect_blocked(outcome, "CC-TREE-JOIN-CONFLICT", syn.label("meta", SYN_META), 1)
    assert outcome.codes == {"CC-TREE-JOIN-CONFLICT"}


@pytest.mark.parametrize(
    ("role", "rel", "body"),
    [
        (
            "workflow-manifest",
            "workflows/wf_0a1b2c3d-4e5.json",
            {"runId": "wf_0a1b2c3d-4e5", "workflowName": canary("wf"), "status": "completed"},
        ),
        (
            "journal",
            "subagents/workflows/wf_0a1b2c3d-4e5/journal.jsonl",
            {"type": "started", "key": "v2:00", "agentId": "a1f8fcebbaf161ed3"},
        ),
    ],
    ids=["manifest", "journal"],
)
def test_orphan_workflow_run(
    role: str,
    rel: str,
    body: dict[str, Any],
    syn: Tree,
    cli: Any,
    command: Command,
    tmp_path: Path,
) -> None:
    """A run's manifest or journal that no Workflow call in the tree launched is refused there
    (and the agent a journal names with no transcript beside it, too)."""
    path = syn.path(rel)
    path.parent.mkdir(parents=True)
    path.write_bytes(dump(body) + b"\n")
    outcome = run_command(cli, command, syn, tmp_path)
    expect_blocked(outcome, "CC-TREE-ORPHAN-WORKFLOW-RUN", syn.label(role, rel))
    missing = {"CC-TREE-WORKFLOW-AGENT-MISSING"} if role == "journal" else set()
    assert outcome.codes == {"CC-TREE-ORPHAN-WORKFLOW-RUN", *missing}


RICH_RUN = "subagents/workflows/wf_42728b42-182"


@pytest.mark.parametrize("moved", ["a1f8fcebbaf161ed3", "a3bd3ec704b646765"])
def test_a_workflow_agent_its_journal_names_is_missing(
    moved: str, rich: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    """An agent of a workflow run whose transcript is not in the run's folder (a worktree
    agent's lands under the worktree's project folder): its spend was left out with exit 0.
    Refused at the journal line that names it (line 1 or 2 of the rich tree's journal)."""
    for suffix in (".jsonl", ".meta.json"):
        rich.path(f"{RICH_RUN}/agent-{moved}{suffix}").rename(tmp_path / f"away-{moved}{suffix}")
    outcome = run_command(cli, command, rich, tmp_path)
    line = 1 if moved == "a1f8fcebbaf161ed3" else 2
    journal = rich.label("journal", f"{RICH_RUN}/journal.jsonl")
    expect_blocked(outcome, "CC-TREE-WORKFLOW-AGENT-MISSING", journal, line)
    assert outcome.codes == {"CC-TREE-WORKFLOW-AGENT-MISSING"}


@pytest.mark.parametrize("body", [b"", b"\n \n"], ids=["empty", "blank-lines"])
def test_a_workflow_agent_its_journal_names_has_no_record(
    body: bytes, rich: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    """A fuzz hunt: an agent's transcript left empty (a crash's unflushed file, a pruner) was
    the finding CC-TREE-EMPTY-CHILD, or only CC-LINE-BLANK, and its calls left out with exit 0
    (corpus 32366bce: 42 calls, 33 with one agent emptied)."""
    rich.path(f"{RICH_RUN}/agent-a1f8fcebbaf161ed3.jsonl").write_bytes(body)
    outcome = run_command(cli, command, rich, tmp_path)
    journal = rich.label("journal", f"{RICH_RUN}/journal.jsonl")
    expect_blocked(outcome, "CC-TREE-WORKFLOW-AGENT-MISSING", journal, 1)


# --- lines -----------------------------------------------------------------------------------


@pytest.mark.parametrize("blank", [b"", b" \t", b"\r"], ids=["empty", "spaces", "cr"])
@pytest.mark.parametrize("rel", ["", SYN_CHILD], ids=["parent", "child"])
def test_blank_lines(
    blank: bytes, rel: str, syn: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    """Blank lines are skipped and counted, one finding each; nothing else changes."""
    baseline = run_command(cli, command, syn, tmp_path)
    lines = syn.lines(rel)
    syn.write_lines(rel, [lines[0], blank, *lines[1:-1], blank, lines[-1]])
    outcome = run_command(cli, command, syn, tmp_path)
    expect_finding(outcome, command, "CC-LINE-BLANK", 2)
    before, after = baseline.report, outcome.report
    assert before is not None
    assert after is not None
    if not command.json_report:  # a template's counts are in its inventory
        before, after = before["inventory"], after["inventory"]
    assert after["counts"] == before["counts"]


# --- records ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "rel", "line"),
    [("parent", "", RICH_S1_LINE), ("subagent", RICH_W2, RICH_S2_LINE)],
    ids=["parent", "workflow-child"],
)
def test_synthetic_record_with_usage(
    role: str, rel: str, line: int, rich: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    """A `<synthetic>` API-error record that carries tokens is refused at its line."""
    rich.edit_record(rel, line, lambda o: o["message"]["usage"].__setitem__("output_tokens", 12))
    outcome = run_command(cli, command, rich, tmp_path)
    expect_blocked(outcome, "CC-REC-SYNTHETIC-WITH-USAGE", rich.label(role, rel), line)
    assert outcome.codes == {"CC-REC-SYNTHETIC-WITH-USAGE"}


def _future_thing(tree: Tree, **extra: Any) -> dict[str, Any]:
    """A record of a type this converter does not know, after A2."""
    return _record(
        tree,
        tree.record("", A2_LINE),
        type="future-thing",
        payload={"note": canary("future")},
        uuid="0e5b0000-0000-4000-8000-000000000001",
        **extra,
    )


def test_unknown_type_with_usage(syn: Tree, cli: Any, command: Command, tmp_path: Path) -> None:
    """A record of an unknown type that carries usage is refused at its line."""
    message = {"id": "msg_01FutureThing", "model": "claude-opus-4-8", "usage": _usage()}
    line = insert_after(syn, "", A2_LINE, _future_thing(syn, message=message))
    outcome = run_command(cli, command, syn, tmp_path)
    expect_blocked(outcome, "CC-REC-UNKNOWN-WITH-USAGE", syn.label("parent", ""), line)
    assert outcome.codes == {"CC-REC-UNKNOWN-WITH-USAGE"}


def test_unknown_type(syn: Tree, cli: Any, command: Command, tmp_path: Path) -> None:
    """Records of an unknown type without usage are counted and skipped."""
    first = _future_thing(syn)
    second = {**first, "uuid": "0e5b0000-0000-4000-8000-000000000002"}
    insert_after(syn, "", A2_LINE, first, second)
    outcome = run_command(cli, command, syn, tmp_path)
    expect_finding(outcome, command, "CC-REC-UNKNOWN-TYPE", 2)


def test_fragments_disagree_on_input(syn: Tree, cli: Any, command: Command, tmp_path: Path) -> None:
    """Two fragments of one call (one request) with other input counters: one finding per
    differing fragment. Both are final, as a main stream writes them: input and cache counts
    do diverge within one call, rarely (FORMAT-NOTES §6: 13 of 201k records), so this is no
    refusal (diff review: it was CC-REC-MESSAGE-ID-REUSED for a while)."""
    syn.edit_record(
        "", A1_TEXT_LINE, lambda o: o["message"]["usage"].__setitem__("cache_read_input_tokens", 9)
    )
    outcome = run_command(cli, command, syn, tmp_path)
    expect_finding(outcome, command, "CC-REC-FRAGMENT-DISAGREE", 1)


def test_fragments_disagree_on_model(syn: Tree, cli: Any, command: Command, tmp_path: Path) -> None:
    """A call's later fragment naming another model is refused at that fragment."""
    syn.edit_record(
        "", A1_AGENT_LINE, lambda o: o["message"].__setitem__("model", "claude-sonnet-5")
    )
    outcome = run_command(cli, command, syn, tmp_path)
    expect_blocked(outcome, "CC-REC-MODEL-DISAGREE", syn.label("parent", ""), A1_AGENT_LINE)
    assert outcome.codes == {"CC-REC-MODEL-DISAGREE"}


def test_orphan_tool_result(syn: Tree, cli: Any, command: Command, tmp_path: Path) -> None:
    """A tool result naming a call no transcript records is counted, not refused."""
    anchor = syn.record("", A2_LINE)
    result = {"type": "tool_result", "tool_use_id": "toolu_01NoSuchCall", "content": canary("r")}
    record = _record(
        syn,
        anchor,
        promptId=syn.record("", 3)["promptId"],
        type="user",
        message={"role": "user", "content": [result]},
        uuid="0e5b0000-0000-4000-8000-000000000003",
    )
    insert_after(syn, "", A2_LINE, record)
    outcome = run_command(cli, command, syn, tmp_path)
    expect_finding(outcome, command, "CC-REC-ORPHAN-TOOL-RESULT", 1)


def test_tool_call_without_result(syn: Tree, cli: Any, command: Command, tmp_path: Path) -> None:
    """A parent cut off after its Agent call (the session ended before the result was written):
    the call counts as no-result."""
    syn.write_lines("", syn.lines()[:A1_AGENT_LINE])
    outcome = run_command(cli, command, syn, tmp_path)
    expect_finding(outcome, command, "CC-REC-TOOL-NO-RESULT", 1)


@pytest.mark.parametrize("model", ["acme-coder-2", "claude-CANARY-x planted"])
def test_model_name_not_a_known_family(
    model: str, syn: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    """A model name of no known family crosses as a pseudonym, counted once per call."""
    syn.edit_record("", A2_LINE, lambda o: o["message"].__setitem__("model", model))
    outcome = run_command(cli, command, syn, tmp_path, markers=["CANARY", model])
    expect_finding(outcome, command, "CC-REC-MODEL-NAME-SHAPE", 1)


def test_final_call_with_no_input(syn: Tree, cli: Any, command: Command, tmp_path: Path) -> None:
    """An audit: a call recorded as final whose usage counts no input was priced at $0 for it,
    unremarked. Every call reads input: it is counted, as spend left out of every figure."""
    from converter.errors.codes import SPEND_LEFT_OUT

    def blank(o: dict[str, Any]) -> None:
        usage = o["message"]["usage"]
        usage.update(input_tokens=0, cache_read_input_tokens=0, cache_creation_input_tokens=0)
        usage["cache_creation"] = {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}

    syn.edit_record("", A2_LINE, blank)
    outcome = run_command(cli, command, syn, tmp_path)
    expect_finding(outcome, command, "CC-REC-FINAL-NO-INPUT", 1)
    assert "CC-REC-FINAL-NO-INPUT" in SPEND_LEFT_OUT


@pytest.mark.parametrize("planted", ["CANARY-version", "", 216], ids=["text", "empty", "number"])
def test_version_not_a_version(
    syn: Tree, cli: Any, command: Command, tmp_path: Path, planted: object
) -> None:
    """A fuzz: every parent record's `version` made `CANARY…` converted with the parent's
    version gone from claude_code_versions and nothing said. It is left out, and counted once
    per distinct value (an empty one and one that is no string too, a review found); the value
    itself reaches no output."""
    lines = syn.lines()
    for n in range(1, len(lines) + 1):
        if b'"version"' in lines[n - 1]:
            syn.edit_record("", n, lambda o: o.__setitem__("version", planted))
    markers = ["CANARY", planted] if isinstance(planted, str) and planted else []
    outcome = run_command(cli, command, syn, tmp_path, markers=markers)
    expect_finding(outcome, command, "CC-REC-VERSION-SHAPE", 1)


def test_websearch_count_from_result(syn: Tree, cli: Any, command: Command, tmp_path: Path) -> None:
    """The searches a WebSearch result names (usage says 0) are counted, one per server search."""
    anchor = syn.record("", A2_LINE)
    use = {
        "type": "tool_use",
        "id": "toolu_01Search",
        "name": "WebSearch",
        "input": {"query": canary("query")},
    }
    call = _assistant(
        syn, anchor, "0e5b0000-0000-4000-8000-000000000004", "msg_01Search", [use], "tool_use"
    )
    hits = [{"title": canary("title"), "url": "https://example.com/x"}]
    result = _record(
        syn,
        call,
        promptId=syn.record("", 3)["promptId"],
        type="user",
        message={
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_01Search", "content": "x"}],
        },
        uuid="0e5b0000-0000-4000-8000-000000000005",
        toolUseResult={
            "query": canary("query"),
            "results": [
                {"tool_use_id": "srvtoolu_01A", "content": hits},
                {"tool_use_id": "srvtoolu_01B", "content": hits},
                canary("summary"),
            ],
            "durationSeconds": 3,
        },
        sourceToolAssistantUUID=call["uuid"],
    )
    insert_after(syn, "", A2_LINE, call, result)
    outcome = run_command(cli, command, syn, tmp_path)
    expect_finding(outcome, command, "CC-REC-WEBSEARCH-FROM-RESULT", 2)


SESSION_1X = "fe5e1c67-53e7-4862-81ae-d0e013e3270c"


def _line_1x(**record: Any) -> dict[str, Any]:
    """A 1.0.98 record (no promptId, no iterations)."""
    return {
        "isSidechain": False,
        "userType": "external",
        "cwd": "/path/to/CANARY-cwd planted",
        "sessionId": SESSION_1X,
        "version": "1.0.98",
        "gitBranch": "",
        **record,
        "timestamp": "2025-09-03T00:52:48.364Z",
    }


def _call_1x(
    uuid: str, parent: str, msg_id: str, content: list[Any], **more: Any
) -> dict[str, Any]:
    message = {
        "id": msg_id,
        "role": "assistant",
        "model": "claude-sonnet-4-20250514",
        "content": content,
        "stop_reason": None,
        "usage": {
            "input_tokens": 6,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 30,
        },
    }
    return _line_1x(parentUuid=parent, type="assistant", uuid=uuid, message=message, **more)


def _sidechain_tree(tmp_path: Path, prompts: list[str]) -> Tree:
    """A 1.0.x parent file that delegates one Task per prompt, each child's records kept in
    the file as a sidechain (isSidechain, linked to its call by the prompt alone)."""
    root = tmp_path / "src"
    root.mkdir()
    tree = Tree(root, root / f"{SESSION_1X}.jsonl")
    text = [{"type": "text", "text": canary("text")}]
    records = [
        _line_1x(
            parentUuid=None, type="user", uuid="u1", message={"role": "user", "content": "hi"}
        ),
    ]
    last = "u1"
    for n, task in enumerate(prompts):
        use = {
            "type": "tool_use",
            "id": f"toolu_01Task{n}",
            "name": "Task",
            "input": {"subagent_type": "general-purpose", "description": "d", "prompt": task},
        }
        result = {"type": "tool_result", "tool_use_id": use["id"], "content": canary("done")}
        records += [
            _call_1x(f"a{n}", last, f"msg_01A{n}", [use]),
            _line_1x(
                parentUuid=None,
                type="user",
                uuid=f"s{n}",
                message={"role": "user", "content": task},
                isSidechain=True,
            ),
            _call_1x(f"c{n}", f"s{n}", f"msg_01S{n}", text, isSidechain=True),
            _line_1x(
                parentUuid=f"a{n}",
                type="user",
                uuid=f"r{n}",
                message={"role": "user", "content": [result]},
            ),
        ]
        last = f"r{n}"
    records.append(_call_1x("z", last, "msg_01B", text))
    tree.write_lines("", map(dump, records))
    return tree


def test_sidechain_in_parent_file(cli: Any, command: Command, tmp_path: Path) -> None:
    """1.0.x subagent records kept in the parent file (isSidechain, joined by the Task prompt)
    are counted, one per sidechain."""
    tree = _sidechain_tree(tmp_path, [canary("task prompt"), canary("other prompt")])
    outcome = run_command(cli, command, tree, tmp_path)
    expect_finding(outcome, command, "CC-REC-SIDECHAIN-IN-FILE", 2)


def _without(tree: Tree, call: int | None = None, child: int | None = None) -> None:
    """`_sidechain_tree`'s file less its `call`-th Task call and result, or `child`-th
    sidechain."""
    marks = (
        (f"toolu_01Task{call}".encode(), f'"a{call}"'.encode())
        if call is not None
        else (f'"s{child}"'.encode(), f'"c{child}"'.encode())
    )
    lines = tree.lines("")
    kept = [line for line in lines if not any(mark in line for mark in marks)]
    assert len(kept) == len(lines) - 2
    tree.write_lines("", kept)


@pytest.mark.parametrize(
    ("calls", "children", "codes", "refusals"),
    [
        # An audit: each child was CC-TREE-JOIN-CONFLICT (evidence that disagrees: restore a
        # consistent copy, wrong for Claude Code's own files), both calls also unexpanded and
        # the sidechains said to be joined.
        (2, 2, {"CC-TREE-AMBIGUOUS-JOIN"}, 2),
        # A fuzz run: two sidechains of one call were refused, yet counted as joined.
        (1, 2, {"CC-TREE-AMBIGUOUS-JOIN"}, 2),
        # A review: more children than calls left the calls refused as unexpanded too.
        (2, 3, {"CC-TREE-AMBIGUOUS-JOIN"}, 3),
        # Fewer: one call has no transcript at all, a separate fault, said.
        (2, 1, {"CC-TREE-AMBIGUOUS-JOIN", "CC-TREE-UNEXPANDED-DELEGATION"}, None),
    ],
    ids=["2-calls-2-children", "1-call-2-children", "2-calls-3-children", "2-calls-1-child"],
)
def test_sidechains_of_one_prompt_are_an_ambiguous_join(
    cli: Any,
    command: Command,
    tmp_path: Path,
    calls: int,
    children: int,
    codes: set[str],
    refusals: int | None,
) -> None:
    """Delegation calls that gave one prompt, their children linked by the prompt alone
    (1.0.x sidechains): which child is whose is written nowhere. Each child is an ambiguous
    join; none is said to be joined (CC-REC-SIDECHAIN-IN-FILE)."""
    task = canary("same prompt")
    tree = _sidechain_tree(tmp_path, [task] * max(calls, children))
    for call in range(calls, children):
        _without(tree, call=call)
    for child in range(children, calls):
        _without(tree, child=child)
    outcome = run_command(cli, command, tree, tmp_path)
    assert outcome.code == 2
    assert outcome.codes == codes, outcome.refusals
    if refusals is not None:
        assert len(outcome.refusals) == refusals  # one per child, at its first record
    if outcome.report is not None and command.json_report:
        found = {f["code"] for f in outcome.report["findings"]}
        assert "CC-REC-SIDECHAIN-IN-FILE" not in found
        # a review: a call whose children were refused for sharing it was counted expanded
        assert outcome.report["counts"]["delegations_expanded"] == 0
    if refusals is not None:  # each child at its first record, the sidechain's root
        records = [json.loads(line) for line in tree.lines("")]
        roots = [
            n for n, r in enumerate(records, 1) if r.get("isSidechain") and not r["parentUuid"]
        ]
        lines = sorted(r.line for r in outcome.refusals if r.line is not None)
        assert lines == roots, outcome.refusals


def test_prompt_with_no_call(syn: Tree, cli: Any, command: Command, tmp_path: Path) -> None:
    """A last prompt that no call answered is a task of zero calls, counted."""
    first = syn.record("", 3)
    prompt = {
        **first,
        "parentUuid": syn.record("", A2_LINE)["uuid"],
        "promptId": "0e5b0000-0000-4000-8000-0000000000aa",
        "message": {"role": "user", "content": canary("unanswered")},
        "uuid": "0e5b0000-0000-4000-8000-000000000006",
    }
    insert_after(syn, "", A2_LINE, prompt)
    outcome = run_command(cli, command, syn, tmp_path)
    expect_finding(outcome, command, "CC-TASK-NO-CALLS", 1)


# --- contract against the sources ------------------------------------------------------------


def _convert_stale(syn: Tree, cli: Any, tmp_path: Path, change: Any, edit: Any = None) -> Outcome:
    """Fill a template of the tree, apply `change` to the tree (and `edit` to the contract),
    then convert: nothing may be written."""
    made = tmp_path / "made"
    made.mkdir()
    template = made / "template.json"
    result: Result = cli("convert", "--in", str(syn.parent), "--template", str(template))
    assert result.code == 0, result.err
    contract = fill(read_json(template))
    if edit is not None:
        edit(contract)
    write_json(made / "contract.json", contract)
    change(syn)
    out = tmp_path / "out" / "bundle.json"
    out.parent.mkdir()
    argv = ["convert", "--in", str(syn.parent), "--contract", str(made / "contract.json")]
    return run_guarded(cli, [*argv, "--out", str(out)], watch=[syn.root, made, out.parent])


def expect_contract_refusal(outcome: Outcome, code: str, where: str) -> None:
    """A blocking code: exit 2, and a `refused: CODE [where]:` line on stderr."""
    assert CODES[code].blocking
    assert outcome.code == 2, outcome.err[-2000:]
    found = re.findall(r"^refused: ([A-Z0-9-]+) \[([^\]]+)\]:", outcome.err, re.MULTILINE)
    assert (code, where) in found, outcome.err[-2000:]


def _file_label(tree: Tree, rel: str) -> str:
    return tree.label("any", rel).split("/", 1)[1]


def test_file_added_since_the_template(syn: Tree, cli: Any, tmp_path: Path) -> None:
    """A file bound now that the contract's inventory does not list is refused at its label."""
    rel = "subagents/agent-a0bbc77a137d21d99.jsonl"  # empty, joined to nothing: bound, no refusal
    outcome = _convert_stale(syn, cli, tmp_path, lambda t: t.path(rel).write_bytes(b""))
    expect_contract_refusal(
        outcome, "CONTRACT-FILE-ADDED", f"inventory/files/{_file_label(syn, rel)}"
    )


def test_file_removed_since_the_template(syn: Tree, cli: Any, tmp_path: Path) -> None:
    """A file the contract binds that is gone (the child's meta; the result still joins the
    child) is refused at its label."""
    outcome = _convert_stale(syn, cli, tmp_path, lambda t: t.path(SYN_META).unlink())
    expect_contract_refusal(
        outcome, "CONTRACT-FILE-REMOVED", f"inventory/files/{_file_label(syn, SYN_META)}"
    )


def test_file_renamed_since_the_template(syn: Tree, cli: Any, tmp_path: Path) -> None:
    """A bound file under another name, its bytes the same (the child's meta renamed beside its
    transcript renamed the same way), is refused once at its bound label, not added and
    removed."""
    child = SYN_CHILD.replace("c04.", "c05.")

    def rename(tree: Tree) -> None:
        for rel in (SYN_CHILD, SYN_META):
            tree.path(rel).rename(tree.path(rel.replace("c04.", "c05.")))

    outcome = _convert_stale(syn, cli, tmp_path, rename)
    expect_contract_refusal(
        outcome, "CONTRACT-FILE-RENAMED", f"inventory/files/{_file_label(syn, SYN_META)}"
    )
    renamed = f"refused: CONTRACT-FILE-RENAMED [inventory/files/{_file_label(syn, SYN_CHILD)}]"
    assert renamed in outcome.err  # the transcript too, at its bound label, not its new one
    assert f"inventory/files/{_file_label(syn, child)}" not in outcome.err
    assert "CONTRACT-FILE-ADDED" not in outcome.err


@pytest.mark.parametrize("name", ["model_calls", "edges"])
def test_count_differs_from_the_sources(name: str, syn: Tree, cli: Any, tmp_path: Path) -> None:
    """A count in the contract's inventory other than the sources' is refused at that count."""

    def one_more(contract: dict[str, Any]) -> None:
        contract["inventory"]["counts"][name] += 1

    outcome = _convert_stale(syn, cli, tmp_path, lambda t: None, one_more)
    expect_contract_refusal(outcome, "CONTRACT-COUNT-MISMATCH", f"inventory/counts/{name}")


# --- the catalogue ---------------------------------------------------------------------------


def test_every_code_is_named_by_a_test() -> None:
    """Every code in the catalogue appears in some test module other than the catalogue's own
    (which reads the table, and so names none): a new code comes with its test."""
    text = "\n".join(
        path.read_text(encoding="utf-8")
        for path in sorted((ROOT / "tests").rglob("test_*.py"))
        if path.name != "test_refusal_catalogue_doc.py"
    )
    named = set(re.findall(r"(?<![A-Z0-9-])[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+(?![A-Z0-9-])", text))
    assert [code for code in CODES if code not in named] == []


@pytest.mark.parametrize("adapter", ["claude-code-tree", "claude-code"])
def test_a_file_that_is_no_transcript(
    adapter: str, cli: Any, command: Command, tmp_path: Path
) -> None:
    """A hook's log (JSON lines, none with a record's `type`) given as a session: one
    CC-REC-NOT-A-TRANSCRIPT at its first JSON object, not a CC-REC-BAD-FIELD ("edited or
    damaged") per line (a walkthrough, following scan's hint), nor CC-TREE-PARENT-NAME, whose
    fix (restore its name) cannot help. A line that is no JSON keeps its own code."""
    root = tmp_path / "project"
    root.mkdir()
    log = root / "hook_logs.jsonl"
    lines = [
        b"not json " + canary("hook").encode(),
        dump({"hook_event_name": "PreToolUse", "tool_input": {"command": canary("cmd")}}),
        dump({"hook_event_name": "PostToolUse", "session_id": canary("sid")}),
    ]
    log.write_bytes(b"\n".join(lines) + b"\n")
    tree = Tree(root, log)

    def argv(parent: Path, out: Path) -> list[str]:
        args = [a for a in command.argv(parent, out) if a != "claude-code-tree"]
        args = [a for a in args if a != "--from"]
        return [*args, "--from", adapter]

    given = Command(command.name, argv, command.json_report)
    outcome = run_command(cli, given, tree, tmp_path)
    expect_blocked(outcome, "CC-REC-NOT-A-TRANSCRIPT", tree.label("parent", ""), 2)
    assert outcome.codes == {"CC-REC-NOT-A-TRANSCRIPT", "CC-LINE-INVALID-JSON"}
    # one typed line makes it a transcript, damaged: its other lines are said one by one
    log.write_bytes(b"\n".join([*lines[1:], dump({"type": "user", "canary": canary("u")})]) + b"\n")
    damaged = run_command(cli, given, tree, tmp_path)
    assert "CC-REC-NOT-A-TRANSCRIPT" not in damaged.codes
    assert Refusal("CC-REC-BAD-FIELD", tree.label("parent", ""), 1) in damaged.refusals


def test_a_result_naming_an_agent_with_no_transcript_is_a_delegation_whatever_its_tool(
    syn: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    """A format-drift review: the delegation tool renamed (`Subagent`), its child's files
    gone and its result `async_launched` with no usage: it converted, exit 0, the child's
    calls left out. A result that names an agent no transcript of the tree is refused as an
    unexpanded delegation, whatever the tool's name."""
    for path in syn.folder.rglob("*"):
        if path.is_file():
            path.unlink()
    lines = syn.lines("")
    renamed = []
    for raw in lines:
        record = json.loads(raw)
        outcome = record.get("toolUseResult")
        if isinstance(outcome, dict) and "agentId" in outcome:
            record["toolUseResult"] = {"status": "async_launched", "agentId": outcome["agentId"]}
        renamed.append(dump(record).replace(b'"name":"Agent"', b'"name":"Subagent"'))
    syn.write_lines("", renamed)
    assert b'"Subagent"' in b"".join(renamed)
    outcome = run_command(cli, command, syn, tmp_path)
    expect_blocked(outcome, "CC-TREE-UNEXPANDED-DELEGATION", syn.label("parent", ""), A1_AGENT_LINE)


RICH_JOURNAL = "subagents/workflows/wf_42728b42-182/journal.jsonl"


def test_a_journal_line_naming_no_agent_is_refused_at_its_line(
    rich: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    """A format-drift review: a journal whose agent lines name the agent as `agent_id` refused
    the run's children as join conflicts, with no word of the journal. Each such line is named."""
    journal = rich.path(RICH_JOURNAL)
    journal.write_text(journal.read_text().replace('"agentId"', '"agent_id"'))
    outcome = run_command(cli, command, rich, tmp_path)
    expect_blocked(outcome, "CC-TREE-JOURNAL-SHAPE", rich.label("journal", RICH_JOURNAL), 1)


@pytest.mark.parametrize(
    ("rel", "encoding"),
    [
        ("", "utf-16"),
        ("", "utf-16-le"),
        ("", "utf-16-be"),
        ("", "utf-32"),
        (SYN_CHILD, "utf-16"),
        (SYN_META, "utf-16-le"),
    ],
)
def test_a_file_in_utf16_is_said_once_as_such(
    encoding: str, rel: str, syn: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    """A transcript or meta re-encoded to UTF-16 (Windows PowerShell 5's `>`), with or without
    a byte-order mark, or to UTF-32: one CC-LINE-UTF16 at line 1, not a CC-LINE-INVALID-UTF8 and
    a CC-LINE-INVALID-JSON per line with "damaged"'s fix, nor the orphan and unexpanded
    delegation that only follow from none of its records being read."""
    path = syn.path(rel)
    path.write_bytes(path.read_bytes().decode("utf-8").encode(encoding))
    outcome = run_command(cli, command, syn, tmp_path)
    role = {"": "parent", SYN_CHILD: "subagent", SYN_META: "meta"}[rel]
    expect_blocked(outcome, "CC-LINE-UTF16", syn.label(role, rel), 1)
    assert outcome.codes == {"CC-LINE-UTF16"}


def test_a_file_of_nuls_is_not_taken_for_utf16(
    syn: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    """What a crash can leave (a block of NULs where lines were) is damage, not an encoding."""
    syn.path(SYN_CHILD).write_bytes(b"\x00" * 64 + b"\n")
    outcome = run_command(cli, command, syn, tmp_path)
    assert "CC-LINE-UTF16" not in outcome.codes
    assert outcome.code == 2


@pytest.mark.parametrize("rel", [SYN_CHILD, SYN_META], ids=["transcript", "meta"])
def test_a_line_longer_than_any_record_is_refused_unread(
    rel: str, syn: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    """Was exit 70: a gigabyte with no newline (garbage, a disk image) was read as one line,
    about three times its size in memory. A line, or a whole-file document, past MAX_LINE is
    refused at its line, bound by the file's digest, held a piece at a time."""
    path = syn.path(rel)
    garbage = b"CANARY" + b"x" * MAX_LINE  # no newline, as such garbage has none
    if rel == SYN_META:
        path.write_bytes(garbage)
        line = 1
    else:
        line = len(syn.lines(rel)) + 1
        path.write_bytes(path.read_bytes() + garbage)
    outcome = run_command(cli, command, syn, tmp_path)
    role = {SYN_CHILD: "subagent", SYN_META: "meta"}[rel]
    expect_blocked(outcome, "CC-LINE-TOO-LONG", syn.label(role, rel), line)
    if rel == SYN_CHILD:  # every record before it read, the line said once
        assert [r.code for r in outcome.refusals] == ["CC-LINE-TOO-LONG"]
