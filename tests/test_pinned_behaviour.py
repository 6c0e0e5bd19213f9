"""Behaviours a mutation audit found no test pinned: each test fails if its line is mutated."""

from __future__ import annotations

import json
import os
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from converter.bundle.io import open_bundle
from converter.bundle.model import ModelEventOut
from converter.evaluate import evaluate, shape_key
from converter.firewall.names import model_crosses
from converter.run.workload import FactsBuilder, build_workload, used_prices, workload_problems
from tests.conftest import ROOT, fixture_parent
from tests.contract_helpers import fill, read_json, write_json
from tests.crossing import shape_of
from tests.damage import copy_tree
from tests.test_bundle_open import GOLDEN, _codes_at, _set
from tests.test_evaluate import make_task, make_workload
from tests.test_workload import HEAD, _other_session, _priced

SID = "11111111-2222-4333-8444-555555555555"
OPUS = "claude-opus-4-8"


# --- a small transcript builder ------------------------------------------------------------


def _usage(**counts: Any) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "input_tokens": 10,
        "output_tokens": 5,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
    }
    usage.update(counts)
    return usage


def _tool(tool_id: str, name: str, tool_input: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input or {}}


class _Transcript:
    """Records of one transcript file; uuids, parents and times follow on unless given."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.last: str | None = None

    def raw(self, **record: Any) -> None:
        self.lines.append(record)

    def rec(self, **record: Any) -> dict[str, Any]:
        n = len(self.lines) + 1
        record.setdefault("uuid", f"r{n}")
        record.setdefault("parentUuid", self.last)
        record.setdefault("sessionId", SID)
        record.setdefault("timestamp", f"2026-01-01T00:00:{n:02d}.000Z")
        record.setdefault("version", "2.1.10")
        self.last = record["uuid"]
        self.lines.append(record)
        return record

    def prompt(self, content: Any = "hello", **extra: Any) -> None:
        self.rec(type="user", message={"role": "user", "content": content}, **extra)

    def call(
        self,
        msg_id: str,
        content: list[dict[str, Any]] | None = None,
        *,
        model: str = OPUS,
        usage: dict[str, Any] | None = None,
        stop: str | None = "end_turn",
        **extra: Any,
    ) -> None:
        message = {
            "id": msg_id,
            "role": "assistant",
            "model": model,
            "content": content or [{"type": "text", "text": "x"}],
            "stop_reason": stop,
            "usage": usage or _usage(),
        }
        self.rec(type="assistant", message=message, **extra)

    def result(self, tool_id: str, tool_use_result: Any = None, **extra: Any) -> None:
        block = {"type": "tool_result", "tool_use_id": tool_id, "content": "ok"}
        if tool_use_result is not None:
            extra["toolUseResult"] = tool_use_result
        self.rec(type="user", message={"role": "user", "content": [block]}, **extra)

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(line) + "\n" for line in self.lines))
        return path


def _one_call(text: str = "hello", **call: Any) -> _Transcript:
    t = _Transcript()
    t.prompt(text)
    t.call("msg_1", **call)
    return t


def _inspect(cli: Any, parent: Path, *extra: str) -> dict[str, Any]:
    result = cli("inspect", "--json", "--in", str(parent), *extra)
    assert result.code in (0, 2), result.err
    report: dict[str, Any] = result.json()
    return report


def _refusals(report: dict[str, Any]) -> set[str]:
    return {r["code"] for r in report["refusals"]}


def _findings(report: dict[str, Any]) -> dict[str, int]:
    return {f["code"]: f["count"] for f in report["findings"]}


def _template(cli: Any, parent: Path, path: Path, *extra: str) -> dict[str, Any]:
    result = cli("convert", "--in", str(parent), "--template", str(path), *extra)
    assert result.code == 0, result.err
    template: dict[str, Any] = read_json(path)
    return template


def _convert(cli: Any, parent: Path, contract: dict[str, Any], tmp: Path) -> Any:
    path = tmp / "contract.json"
    write_json(path, contract)
    return cli(
        "convert", "--in", str(parent), "--contract", str(path), "--out", str(tmp / "b.json")
    )


# --- contract/validate.py ------------------------------------------------------------------


def test_a_task_of_exactly_one_model_call_cannot_be_excluded(cli: Any, tmp_path: Path) -> None:
    """`calls > 0`: one model call is spend an exclusion would hide."""
    t = _one_call("first task")
    t.prompt("second task")
    t.call("msg_2")
    parent = t.write(tmp_path / "src" / f"{SID}.jsonl")
    contract = fill(_template(cli, parent, tmp_path / "t.json"))
    [spent] = [task["id"] for task in contract["tasks"] if task["model_calls"] == 1][1:]
    del contract["claims"]["outcomes"][spent]
    contract["claims"]["excluded_tasks"] = {spent: "aborted"}
    result = _convert(cli, parent, contract, tmp_path)
    assert result.code == 2
    assert f"CONTRACT-EXCLUDED-HAS-CALLS [claims/excluded_tasks/{spent}]" in result.err


def test_an_excluded_task_with_one_label_filled_is_refused(cli: Any, tmp_path: Path) -> None:
    """`any(...)`: one filled outcome field (acceptable) is a label on an excluded task."""
    parent = fixture_parent("rich_tree")
    contract = fill(_template(cli, parent, tmp_path / "t.json"))
    idle = next(t["id"] for t in contract["tasks"] if t["model_calls"] == 0)
    outcome = dict.fromkeys(contract["claims"]["outcomes"][idle])
    outcome["acceptable"] = True
    contract["claims"]["outcomes"][idle] = outcome
    contract["claims"]["excluded_tasks"] = {idle: "not-an-attempt"}
    result = _convert(cli, parent, contract, tmp_path)
    assert result.code == 2
    assert f"CONTRACT-EXCLUDED-AND-LABELLED [claims/outcomes/{idle}]" in result.err


# --- bundle/integrity.py -------------------------------------------------------------------


def test_an_excluded_task_holding_only_a_tool_event_is_refused() -> None:
    """Events per task, not model calls per task: a tool event alone makes a task spent.

    The moved tool event is also away from its requesting model call's task, which is
    reported beside it: every finding of the run, not the first.
    """
    other = "task-" + "1" * 12

    def edit(body: dict[str, Any]) -> None:
        body["tasks"].append({**body["tasks"][0], "id": other, "model_calls": 0})
        body["receipt"]["counts"]["tasks"] = 2
        body["excluded_tasks"] = [{"task": other, "reason": "aborted"}]
        body["events"][5]["task"] = other  # a tool event

    assert _codes_at(edit) == [
        ("BUNDLE-DANGLING-REFERENCE", "events/5/task"),
        ("BUNDLE-OUTCOME-MISMATCH", "excluded_tasks/0/task"),
    ]


def test_a_receipt_max_depth_other_than_the_agents_is_refused() -> None:
    """The receipt's max_depth is checked against the agents' depths."""
    assert _codes_at(_set("receipt/counts/max_depth", 5)) == [
        ("BUNDLE-COUNT-MISMATCH", "receipt/counts/max_depth")
    ]


def test_a_delegation_naming_a_model_event_is_refused() -> None:
    """A delegation is a tool event; a model event's id there is dangling."""
    model_event = json.loads(GOLDEN.read_bytes())["events"][0]["id"]
    assert _codes_at(_set("agents/1/delegation", model_event)) == [
        ("BUNDLE-DANGLING-REFERENCE", "agents/1/delegation")
    ]


def test_a_token_count_of_two_to_the_32_is_refused() -> None:
    """The bound is exclusive: 2**32 is no count the reader takes."""
    assert _codes_at(_set("events/0/usage/input_tokens", 2**32)) == [
        ("BUNDLE-SHAPE", "events/0/usage")
    ]


# --- firewall and reader: web searches, token counts, duplicates ---------------------------


def test_a_search_both_usage_and_result_report_is_counted_once(cli: Any, tmp_path: Path) -> None:
    """max(), not a sum: usage says 1 search and the result lists the same one."""
    t = _Transcript()
    t.prompt("search something")
    searched = _usage(server_tool_use={"web_search_requests": 1, "web_fetch_requests": 0})
    t.call(
        "msg_1", [_tool("toolu_w", "WebSearch", {"query": "q"})], usage=searched, stop="tool_use"
    )
    t.result("toolu_w", {"query": "q", "results": [{"tool_use_id": "srvtoolu_1", "content": []}]})
    t.call("msg_2")
    report = _inspect(cli, t.write(tmp_path / f"{SID}.jsonl"))
    assert report["usage"]["web_search_requests"] == 1


@pytest.mark.parametrize(("said", "listed", "taken"), [(3, 1, 0), (1, 1, 0), (0, 2, 2), (1, 3, 2)])
def test_only_searches_the_usage_did_not_count_are_taken_from_results(
    said: int, listed: int, taken: int, cli: Any, tmp_path: Path
) -> None:
    """The finding counts the searches taken from results, those above what the usage says: a
    usage of 3 and a result listing 1 was told "taken from results (usage says 0)" (a user)."""
    t = _Transcript()
    t.prompt("search something")
    searched = _usage(server_tool_use={"web_search_requests": said, "web_fetch_requests": 0})
    t.call(
        "msg_1", [_tool("toolu_w", "WebSearch", {"query": "q"})], usage=searched, stop="tool_use"
    )
    hits = [{"tool_use_id": f"srvtoolu_{n}", "content": []} for n in range(listed)]
    t.result("toolu_w", {"query": "q", "results": hits})
    t.call("msg_2")
    report = _inspect(cli, t.write(tmp_path / f"{SID}.jsonl"))
    assert report["usage"]["web_search_requests"] == max(said, listed)
    assert _findings(report).get("CC-REC-WEBSEARCH-FROM-RESULT", 0) == taken


def test_a_result_list_of_another_tool_counts_no_search(cli: Any, tmp_path: Path) -> None:
    """Only a WebSearch result's server tool ids are searches."""
    t = _Transcript()
    t.prompt("read")
    t.call("msg_1", [_tool("toolu_r", "Read", {"file_path": "/x"})], stop="tool_use")
    t.result("toolu_r", {"results": [{"tool_use_id": "srvtoolu_9"}]})
    t.call("msg_2")
    report = _inspect(cli, t.write(tmp_path / f"{SID}.jsonl"))
    assert report["usage"]["web_search_requests"] == 0
    assert "CC-REC-WEBSEARCH-FROM-RESULT" not in _findings(report)


def test_a_1h_split_above_the_cache_write_total_is_refused(cli: Any, tmp_path: Path) -> None:
    """Both TTL splits count against the total, not the 5m one alone."""
    split = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 200}
    usage = _usage(cache_creation_input_tokens=100, cache_creation=split)
    report = _inspect(cli, _one_call(usage=usage).write(tmp_path / f"{SID}.jsonl"))
    assert "CC-REC-BAD-TOKEN-COUNT" in _refusals(report)


def test_one_tool_use_id_in_two_messages_of_a_stream_is_refused(cli: Any, tmp_path: Path) -> None:
    """The same stream is not enough: the tool_use id must also be in the same message."""
    t = _Transcript()
    t.prompt("k6")
    t.call("msg_1", [_tool("toolu_d", "Bash", {"command": "ls"})], stop="tool_use")
    t.result("toolu_d")
    t.call("msg_2", [_tool("toolu_d", "Bash", {"command": "ls"})], stop="tool_use")
    t.call("msg_3")
    report = _inspect(cli, t.write(tmp_path / f"{SID}.jsonl"))
    assert "CC-REC-UNEXPLAINED-DUPLICATE" in _refusals(report)


# --- reader/streams.py: joins --------------------------------------------------------------


def test_a_child_joined_by_a_call_that_is_not_a_delegation_is_an_orphan(
    cli: Any, tmp_path: Path
) -> None:
    """The delegating call renamed Agent -> Bash: its one owner is no delegation."""
    tree = copy_tree("synthetic_tree", tmp_path / "src")
    for path in tree.root.rglob("*.jsonl"):
        text = path.read_text()
        path.write_text(text.replace('"name":"Agent"', '"name":"Bash"'))
    report = _inspect(cli, tree.parent)
    assert "CC-TREE-ORPHAN-CHILD" in _refusals(report)


def _fork_tree(root: Path) -> Path:
    """A parent delegating to child A, then forking F; F's bootstrap copies both calls."""
    agent_a = {"prompt": "child A", "subagent_type": "general-purpose"}
    fork_f = {"prompt": "fork F", "subagent_type": "fork"}
    p = _Transcript()
    p.prompt("go")
    p.call("msg_1", [_tool("toolu_A", "Agent", agent_a)], stop="tool_use")
    p.result("toolu_A", {"agentId": "a1111111111111111", "status": "completed"})
    p.call("msg_2", [_tool("toolu_F", "Agent", fork_f)], stop="tool_use")
    p.result("toolu_F", {"agentId": "a2222222222222222", "status": "completed"})
    p.call("msg_3")
    parent = p.write(root / f"{SID}.jsonl")
    subagents = root / SID / "subagents"

    a = _Transcript()
    side = {"isSidechain": True, "agentId": "a1111111111111111"}
    a.prompt("child A", uuid="r21", parentUuid=None, timestamp="2026-01-01T00:00:21.000Z", **side)
    a.call("msg_a1", uuid="r22", timestamp="2026-01-01T00:00:22.000Z", **side)
    a.write(subagents / "agent-a1111111111111111.jsonl")

    f = _Transcript()
    side = {"isSidechain": True, "agentId": "a2222222222222222"}
    f.raw(
        type="fork-context-ref",
        agentId="a2222222222222222",
        parentSessionId=SID,
        parentLastUuid="r4",
        contextLength=2,
        sessionId=SID,
        timestamp="2026-01-01T00:00:41.000Z",
    )
    at = "2026-01-01T00:00:{:02d}.000Z".format
    copied = {"stop": "tool_use", **side}
    f.call(
        "msg_1",
        [_tool("toolu_A", "Agent", agent_a)],
        uuid="fr2",
        parentUuid="r1",
        timestamp=at(2),
        **copied,
    )
    f.call(
        "msg_2",
        [_tool("toolu_F", "Agent", fork_f)],
        uuid="fr4",
        parentUuid="r3",
        timestamp=at(4),
        **copied,
    )
    f.prompt("fork F", uuid="r41", parentUuid="fr4", timestamp=at(41), **side)
    f.call("msg_f1", uuid="r42", timestamp=at(42), **side)
    f.write(subagents / "agent-a2222222222222222.jsonl")
    (subagents / "agent-a1111111111111111.meta.json").write_text(
        json.dumps({"agentType": "general-purpose", "toolUseId": "toolu_A"})
    )
    (subagents / "agent-a2222222222222222.meta.json").write_text(
        json.dumps({"agentType": "fork", "toolUseId": "toolu_F"})
    )
    return parent


def test_a_side_question_of_a_fork_is_the_forks_child(tmp_path: Path) -> None:
    """A side question asked in fork F replays F's history: F's copies of the parent's calls,
    then F's own prompt. The parent made those calls, but it does not hold F's prompt after
    them: the side question is F's (it was the parent's, at depth 1: a diff review)."""
    from converter.run.pipeline import read_tree

    parent = _fork_tree(tmp_path)
    side_id = "aside_question-00112233445566aa"
    side = {"isSidechain": True, "agentId": side_id}
    q = _Transcript()
    q.call("msg_1", [_tool("toolu_A", "Agent", {"prompt": "child A"})], uuid="q1", **side)
    q.call("msg_2", [_tool("toolu_F", "Agent", {"prompt": "fork F"})], uuid="q2", **side)
    q.prompt("fork F", uuid="q3", **side)
    q.prompt("a side question", uuid="q4", **side)
    q.call("msg_side", uuid="q5", **side)
    q.write(tmp_path / SID / "subagents" / f"agent-{side_id}.jsonl")
    account = read_tree(parent)
    assert account.refusals == []
    streams = {s.agent_id: s for s in account.streams}
    assert streams[side_id].parent == streams["a2222222222222222"].index
    assert streams[side_id].depth == 2


def test_a_fork_copying_its_parents_calls_joins_unambiguously(cli: Any, tmp_path: Path) -> None:
    """`owners` drops copies whenever two streams hold a call (`< 2`): child A joins its maker."""
    report = _inspect(cli, _fork_tree(tmp_path))
    assert report["refusals"] == []
    assert report["convertible"] is True


# --- sources/tree.py: layouts --------------------------------------------------------------


def test_a_symlinked_2_0_sibling_is_refused(cli: Any, tmp_path: Path) -> None:
    """A 2.0.x `agent-<8 hex>.jsonl` sibling is only bound if it is a regular file."""
    parent = _one_call("d6").write(tmp_path / "src" / f"{SID}.jsonl")
    outside = _one_call("elsewhere").write(tmp_path / "outside" / "agent-1234abcd.jsonl")
    os.symlink(outside, tmp_path / "src" / "agent-1234abcd.jsonl")
    assert "CC-TREE-SYMLINK" in _refusals(_inspect(cli, parent))


def test_single_file_source_sees_a_child_in_a_workflow_run(cli: Any, tmp_path: Path) -> None:
    """`--from claude-code` with the only child under subagents/workflows/<run>/."""
    parent = _one_call("d1").write(tmp_path / f"{SID}.jsonl")
    run = tmp_path / SID / "subagents" / "workflows" / "wf_abc"
    _one_call("child").write(run / "agent-a1234567890abcdef.jsonl")
    report = _inspect(cli, parent, "--from", "claude-code")
    assert "CC-TREE-CHILDREN-NOT-READ" in _refusals(report)


@pytest.mark.parametrize(
    "layout",
    ["session-folder-is-a-file", "journal-outside-a-run", "workflows-inside-a-run"],
)
def test_a_stray_entry_in_the_session_folder_is_refused(
    layout: str, cli: Any, tmp_path: Path
) -> None:
    """A file named <sid>, subagents/journal.jsonl, or a workflows/ folder in a run folder."""
    parent = _one_call(layout).write(tmp_path / f"{SID}.jsonl")
    folder = tmp_path / SID
    if layout == "session-folder-is-a-file":
        folder.write_text("x")
    elif layout == "journal-outside-a-run":
        (folder / "subagents").mkdir(parents=True)
        (folder / "subagents" / "journal.jsonl").write_text("")
    else:
        (folder / "subagents" / "workflows" / "wf_abc" / "workflows").mkdir(parents=True)
    assert "CC-TREE-STRAY-FILE" in _refusals(_inspect(cli, parent))


# --- run/workload.py -----------------------------------------------------------------------


def _golden_model_event(**usage: int) -> ModelEventOut:
    raw = json.loads(GOLDEN.read_bytes())["events"][0]
    event = ModelEventOut.model_validate_json(json.dumps(raw))
    return event.model_copy(update={"usage": event.usage.model_copy(update=usage)})


def test_a_cap_a_usage_incomplete_call_used_must_agree() -> None:
    """A usage-incomplete call uses its model's max_output_tokens: two bundles must agree on it."""
    assert HEAD.pricing is not None
    opus = HEAD.pricing.models[OPUS]
    other = _priced(
        _other_session(HEAD), models={OPUS: opus.model_copy(update={"max_output_tokens": 1000})}
    )
    used = used_prices(_golden_model_event().model_copy(update={"usage_complete": False}))
    assert [(p.code, p.where) for p in workload_problems([HEAD, other], [used, used])] == [
        (
            "EVAL-WORKLOAD-MISMATCH",
            f"bundle 2 of 2: pricing/models/{OPUS}/max_output_tokens differs from bundle 1 of 2",
        )
    ]


def test_the_unsplit_rule_unsplit_cache_writes_used_must_agree() -> None:
    """Unsplit cache writes use the unsplit rule: two bundles must agree on it."""
    assert HEAD.pricing is not None
    assert HEAD.pricing.unsplit_cache_write_rule == "1h"
    other = _priced(_other_session(HEAD), unsplit_cache_write_rule="5m")
    used = used_prices(_golden_model_event(cache_creation_unsplit_input_tokens=7))
    assert [(p.code, p.where) for p in workload_problems([HEAD, other], [used, used])] == [
        (
            "EVAL-WORKLOAD-MISMATCH",
            "bundle 2 of 2: pricing/unsplit_cache_write_rule differs from bundle 1 of 2",
        )
    ]


def test_auxiliary_calls_are_observed_only_if_every_bundle_observed_them() -> None:
    """all(), not any(): one bundle not observing auxiliary calls keeps the finding."""
    first = FactsBuilder()
    head = open_bundle(GOLDEN.read_bytes(), sink=first)
    assert head.receipt.auxiliary_calls == "not-observed"
    other = _other_session(HEAD, auxiliary_calls="observed")
    [outcome] = HEAD.outcomes.values()
    other = other.model_copy(update={"outcomes": {other.tasks[0].id: outcome}})
    second = FactsBuilder()
    second.start(other)
    for loaded in ([(head, first), (other, second)], [(other, second), (head, first)]):
        workload = build_workload(loaded)
        assert workload.auxiliary_calls == "not-observed"
        assert "EVAL-AUXILIARY-NOT-OBSERVED" in {f.code for f in evaluate(workload).findings}


# --- pricing -------------------------------------------------------------------------------


def test_a_card_contract_with_an_extra_tier_is_a_card_mismatch(cli: Any, tmp_path: Path) -> None:
    """Tiers of another count differ from the card's: exit 2, not an internal error (70)."""
    parent = fixture_parent("synthetic_tree")
    template = _template(cli, parent, tmp_path / "t.json", "--price-card", "anthropic-2026-11")
    contract = fill(template)
    card_models = read_json(tmp_path / "t.json")["claims"]["pricing"][
        "models"
    ]  # fill's are its own
    contract["claims"]["pricing"]["models"] = card_models
    tiers = card_models[OPUS]["tiers"]
    tiers.append({**tiers[-1], "above_input_tokens": tiers[-1]["above_input_tokens"] + 500000})
    result = _convert(cli, parent, contract, tmp_path)
    assert result.code == 2, result.err
    assert "PRICE-CARD-MISMATCH" in result.err


def test_a_cap_equal_to_the_largest_recorded_output_converts(cli: Any, tmp_path: Path) -> None:
    """Below the observed output is refused; equal to it is not."""
    parent = _one_call(usage=_usage(output_tokens=700)).write(tmp_path / "src" / f"{SID}.jsonl")
    contract = fill(_template(cli, parent, tmp_path / "t.json"))
    contract["claims"]["pricing"]["models"][OPUS]["max_output_tokens"] = 700
    result = _convert(cli, parent, contract, tmp_path)
    assert result.code == 0, result.err
    assert "PRICE-MAX-OUTPUT-BELOW-OBSERVED" not in result.err


def test_two_surcharges_are_not_pre_filled(cli: Any, tmp_path: Path) -> None:
    """A context of fast mode and a US region: the card does not say how the two combine."""
    card = read_json(ROOT / "contracts" / "price-cards" / "anthropic-2026-11.json")
    card["id"] = "my-card-1"
    card["models"][OPUS].setdefault("context_multipliers", {})["speed=fast"] = "6"
    card_path = tmp_path / "card.json"
    write_json(card_path, card)
    usage = _usage(service_tier="standard", speed="fast", inference_geo="us")
    parent = _one_call(usage=usage).write(tmp_path / "src" / f"{SID}.jsonl")
    template = _template(cli, parent, tmp_path / "t.json", "--price-card", str(card_path))
    contexts = template["claims"]["pricing"]["models"][OPUS]["contexts"]
    assert contexts == {"standard|fast|us": None}


def test_a_fully_recorded_standard_call_is_not_assumed(cli: Any, tmp_path: Path) -> None:
    """Only a context with an unrecorded field is "assumed" standard."""
    usage = _usage(service_tier="standard", speed="standard", inference_geo="global")
    parent = _one_call(usage=usage).write(tmp_path / f"{SID}.jsonl")
    args = ("inspect", "--in", str(parent), "--price-card", "anthropic-2026-11")
    text = cli(*args)
    assert text.code == 0, text.err
    assert "cost by price card" in text.out
    assert "assumed:" not in text.out
    cost = cli(*args, "--json").json()["card_cost"]
    assert cost["model_calls_priced"] == 1
    assert cost["model_calls_assumed_standard"] == 0


# --- firewall/names.py ---------------------------------------------------------------------


def test_a_model_name_without_a_version_digit_crosses_as_a_pseudonym(
    cli: Any, tmp_path: Path
) -> None:
    """No version digit: pseudonymized, and the finding counts it."""
    report = _inspect(cli, _one_call(model="claude-opus").write(tmp_path / f"{SID}.jsonl"))
    assert _findings(report).get("CC-REC-MODEL-NAME-SHAPE") == 1
    assert "claude-opus" not in json.dumps(report)


def test_a_model_id_of_65_characters_is_pseudonymized() -> None:
    """64 characters at most cross as written."""
    name = "anthropic/claude-sonnet-4-6-20251101-thinking-preview-latest-fast"
    assert len(name) == 65
    assert model_crosses(name.removeprefix("anthropic/"))  # the shape alone would cross
    assert not model_crosses(name)


# --- reader/records.py ---------------------------------------------------------------------


def test_a_prompt_of_two_text_blocks_is_not_its_first_block(cli: Any, tmp_path: Path) -> None:
    """Only a single text block is digested as its text; two blocks are the whole list."""
    digests = []
    for name, blocks in (("one", ["A"]), ("two", ["A", "B"])):
        content = [{"type": "text", "text": text} for text in blocks]
        t = _Transcript()
        t.prompt(content)
        t.call("msg_1")
        parent = t.write(tmp_path / name / f"{SID}.jsonl")
        template = _template(cli, parent, tmp_path / f"{name}.json")
        digests.append(template["tasks"][0]["input_digest"])
    assert digests[0] != digests[1]


def test_a_document_only_user_message_starts_a_task(cli: Any, tmp_path: Path) -> None:
    """A document block is a prompt's attachment (a PDF, as a published parser's test of a real
    transcript shows): a prompt of documents alone is a prompt. Before 0.4.2 it was none, and
    its calls went to the task before it."""
    t = _one_call("first")
    document = {"type": "document", "source": {"type": "text", "data": "d"}}
    t.rec(type="user", message={"role": "user", "content": [document]})
    t.call("msg_2")
    report = _inspect(cli, t.write(tmp_path / f"{SID}.jsonl"))
    assert report["counts"]["tasks"] == 2


def test_a_queued_command_without_a_mode_is_a_queued_prompt(cli: Any, tmp_path: Path) -> None:
    """A missing commandMode means prompt."""
    t = _Transcript()
    t.prompt("r9")
    t.call("msg_1", stop=None)
    t.rec(type="attachment", attachment={"type": "queued_command", "prompt": "typed while busy"})
    t.call("msg_1")
    report = _inspect(cli, t.write(tmp_path / f"{SID}.jsonl"))
    assert _findings(report).get("CC-REC-QUEUED-PROMPT") == 1


# --- sources/jsonl.py ----------------------------------------------------------------------


@pytest.mark.parametrize(("arrays", "too_deep"), [(511, False), (512, True)])
def test_a_line_nested_513_deep_is_too_deep(
    arrays: int, too_deep: bool, cli: Any, tmp_path: Path
) -> None:
    """Depth 512 (an object and 511 arrays) is read; 513 is refused."""
    parent = _one_call().write(tmp_path / f"{SID}.jsonl")
    with parent.open("a") as f:
        f.write('{"type":"ai-title","n":' + "[" * arrays + "]" * arrays + "}\n")
    assert ("CC-LINE-TOO-DEEP" in _refusals(_inspect(cli, parent))) is too_deep


def test_an_unterminated_last_line_ending_in_a_bad_byte_is_invalid_utf8(
    cli: Any, tmp_path: Path
) -> None:
    """\\xff is no cut character: not a torn write."""
    parent = _one_call().write(tmp_path / f"{SID}.jsonl")
    with parent.open("ab") as f:
        f.write(b'{"type":"ai-title","aiTitle":"x"}\xff')
    refusals = _refusals(_inspect(cli, parent))
    assert "CC-LINE-INVALID-UTF8" in refusals
    assert "CC-LINE-TORN" not in refusals


# --- evaluate ------------------------------------------------------------------------------


def test_a_repeated_shape_extent_is_its_longest_run() -> None:
    """Read x4, Bash, Read x6: two runs, extent 6 (not the first run's 4)."""
    key = shape_key(shape_of({"path": "x"}))
    shapes = (("Read", key),) * 4 + (("Bash", key),) + (("Read", key),) * 6
    ev = evaluate(make_workload([make_task(0, tool_shapes=shapes), make_task(1), make_task(2)]))
    [found] = [f for f in ev.findings if f.code == "EVAL-REPEATED-TOOL-SHAPE"]
    assert (found.count, found.extent) == (2, 6)


def test_a_cycle_extent_is_the_largest_cycle() -> None:
    """A self-loop and a 3-cycle: extent 3, the largest component."""
    e = [f"event-{i:012x}" for i in range(4)]
    edges = ((e[0], e[0]), (e[1], e[2]), (e[2], e[3]), (e[3], e[1]))
    ev = evaluate(make_workload([make_task(0, edges=edges), make_task(1), make_task(2)]))
    [found] = [f for f in ev.findings if f.code == "EVAL-DEPENDENCY-CYCLE"]
    assert (found.count, found.extent) == (2, 3)


def test_a_straddling_reason_names_its_low_bound_then_its_high() -> None:
    """Net value falls as cost rises: the bounds are ordered, not taken at low/high cost."""
    tasks = [make_task(0, 2, 12, incomplete=1), *(make_task(i) for i in range(1, 4))]
    ev = evaluate(
        make_workload(
            tasks,
            min_expected_net_value_per_attempt_usd=Decimal("25"),
            max_trace_cost_per_task_usd=Decimal("100"),
        )
    )
    [reason] = ev.reasons
    assert reason.text() == (
        "expected-net-value: 1 usage-incomplete call leaves the expected net value per attempt "
        "between $23.5000 and $26.0000 (limit $25.0000)"
    )


def _with_advisor(path: Path, msg_id: str, passes: list[dict[str, Any]]) -> None:
    lines = []
    for raw in path.read_text().splitlines():
        record = json.loads(raw)
        message = record.get("message")
        if isinstance(message, dict) and message.get("id") == msg_id:
            message["usage"]["iterations"] = passes
        lines.append(json.dumps(record) + "\n")
    path.write_text("".join(lines))


def _passes_of(usage: dict[str, Any], advisor_input: int) -> list[dict[str, Any]]:
    own = {"type": "message", **{k: usage.get(k, 0) for k in _COUNTS}}
    aside = {"type": "advisor_message", "model": "claude-opus-4-7", **dict.fromkeys(_COUNTS, 0)}
    aside.update(input_tokens=advisor_input, output_tokens=1)
    return [own, aside]


_COUNTS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


def test_a_subagents_advisor_pass_returns_nothing_to_its_parent(tmp_path: Path) -> None:
    """An advisor pass is no step of the conversation: in a child it is no leaf that would
    return to the parent's next call (its call is)."""
    from converter.run.pipeline import read_tree

    parent = _fork_tree(tmp_path)
    child = tmp_path / SID / "subagents" / "agent-a1111111111111111.jsonl"
    _with_advisor(child, "msg_a1", _passes_of(_usage(), 500))
    account = read_tree(parent)
    assert account.refusals == []
    touched = [e for e in account.edges if ("model", "msg_a1#advisor-1") in (e.source, e.target)]
    assert touched == []
    assert any(e.kind == "returns" and e.source == ("model", "msg_a1") for e in account.edges)


def test_an_agent_result_speaks_of_its_childs_own_call_not_an_advisor_pass(
    tmp_path: Path,
) -> None:
    """The usage an Agent result states is of the child's last call: an advisor pass that
    happens to hold those counts is not that call (the disagreement is still seen)."""
    from converter.run.pipeline import read_tree

    parent = _fork_tree(tmp_path)
    stated = {**dict.fromkeys(_COUNTS, 0), "input_tokens": 777, "output_tokens": 1}
    lines = []
    for raw in parent.read_text().splitlines():
        record = json.loads(raw)
        result = record.get("toolUseResult")
        if isinstance(result, dict) and result.get("agentId") == "a1111111111111111":
            result["usage"] = stated
        lines.append(json.dumps(record) + "\n")
    parent.write_text("".join(lines))
    child = tmp_path / SID / "subagents" / "agent-a1111111111111111.jsonl"
    _with_advisor(child, "msg_a1", _passes_of(_usage(), 777))
    account = read_tree(parent)
    assert account.findings["CC-REC-AGENT-USAGE-DISAGREE"] == 1


def test_a_childs_records_marked_forked_from_are_still_its_spend(tmp_path: Path) -> None:
    """Only a branched main transcript's copies are another session's: a child's records are
    read as ever, whatever they carry (no spend dropped on a mark seen only in main files)."""
    from converter.run.pipeline import read_tree

    parent = _fork_tree(tmp_path)
    child = tmp_path / SID / "subagents" / "agent-a1111111111111111.jsonl"
    lines = []
    for raw in child.read_text().splitlines():
        record = json.loads(raw)
        record["forkedFrom"] = {"sessionId": SID, "messageUuid": record.get("uuid")}
        lines.append(json.dumps(record) + "\n")
    child.write_text("".join(lines))
    account = read_tree(parent)
    assert account.refusals == []
    assert "msg_a1" in account.calls
    assert account.findings["CC-REC-BRANCH-COPY"] == 0


def test_a_fork_subagent_replaying_the_parent_with_its_uuids_counts_each_call_once(
    tmp_path: Path,
) -> None:
    """A fork subagent (`subagent_type: "fork"`, meta `isFork`, 2.1.232 on) replays the parent's
    rows up to the fork call, keeping their uuids, then works: each replayed call is the
    parent's, counted once; the fork's own call is its own."""
    from converter.run.pipeline import read_tree

    parent = _fork_tree(tmp_path)
    fork_id = "a3333333333333333"
    p = _Transcript()
    p.lines = [json.loads(line) for line in parent.read_text().splitlines()]
    p.last = p.lines[-1]["uuid"]
    p.call("msg_9", [_tool("toolu_K", "Agent", {"prompt": "fork K", "subagent_type": "fork"})])
    p.result("toolu_K", {"agentId": fork_id, "status": "completed"})
    p.write(parent)
    replay = _Transcript()
    for record in p.lines[:-1]:  # every parent row up to and including the fork call
        replay.raw(**{**record, "isSidechain": True, "agentId": fork_id})
    replay.last = p.lines[-2]["uuid"]
    side = {"isSidechain": True, "agentId": fork_id}
    replay.prompt("fork K", uuid="k1", **side)
    replay.call("msg_k", uuid="k2", **side)
    subagents = tmp_path / SID / "subagents"
    replay.write(subagents / f"agent-{fork_id}.jsonl")
    meta = {"agentType": "fork", "toolUseId": "toolu_K", "isFork": True, "spawnDepth": 1}
    (subagents / f"agent-{fork_id}.meta.json").write_text(json.dumps(meta))
    account = read_tree(parent)
    assert account.refusals == []
    assert sorted(account.calls) == [
        "msg_1",
        "msg_2",
        "msg_3",
        "msg_9",
        "msg_a1",
        "msg_f1",
        "msg_k",
    ]
    assert account.calls["msg_k"].stream != account.calls["msg_9"].stream
