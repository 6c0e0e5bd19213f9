"""inspect on our synthetic trees gives the hand-derived numbers in fixtures/expected.json."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, fixture_parent

EXPECTED = json.loads((FIXTURES / "expected.json").read_text())
COUNT_KEYS = (
    "transcript_files",
    "meta_files",
    "subagents",
    "delegations_expanded",
    "max_depth",
    "tasks",
    "model_calls",
    "usage_incomplete_calls",
    "tool_calls",
    "edges",
    "synthetic_records",
)
USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_5m_input_tokens",
    "cache_creation_1h_input_tokens",
    "cache_creation_unsplit_input_tokens",
)


@pytest.mark.parametrize("tree", ["synthetic_tree", "rich_tree"])
def test_counts_and_usage_match_hand_derivation(tree: str, cli: Any) -> None:
    result = cli("inspect", "--json", "--in", str(fixture_parent(tree)))
    assert result.code == 0, result.err
    report = result.json()
    expected = EXPECTED[tree]
    assert report["convertible"] is True
    want = {k: expected[k] for k in COUNT_KEYS}
    want["edges"] = expected["edges"]["total"]
    assert {k: report["counts"][k] for k in COUNT_KEYS} == want
    assert {k: report["usage"][k] for k in USAGE_KEYS} == {k: expected[k] for k in USAGE_KEYS}
    assert report["usage"]["web_search_requests"] == expected["web_search_requests_from_results"]
    assert report["bound_files"] == expected["bound_files"]
    assert {m: v["model_calls"] for m, v in report["by_model"].items()} == expected["by_model"]


def test_minimal_tree_is_the_conformance_shape(cli: Any) -> None:
    report = cli("inspect", "--json", "--in", str(fixture_parent("synthetic_tree"))).json()
    assert report["bound_files"] == 3
    assert report["counts"]["delegations_expanded"] == 1
    assert report["counts"]["model_calls"] == 4
    assert report["counts"]["tool_calls"] == 2
    assert report["counts"]["edges"] == 6
    assert {"code": "CC-REC-FORK-BOOTSTRAP", "count": 1} in report["findings"]


def test_text_summary_on_terminal(cli: Any) -> None:
    result = cli("inspect", "--in", str(fixture_parent("synthetic_tree")))
    assert result.code == 0
    assert "3 bound source files" in result.out
    assert "4 model calls" in result.out


@pytest.mark.parametrize("tree", ["synthetic_tree", "rich_tree"])
def test_no_canary_in_inspect_output(tree: str, cli: Any) -> None:
    result = cli("inspect", "--json", "--in", str(fixture_parent(tree)))
    assert "CANARY" not in result.out + result.err
    for value in (
        EXPECTED[tree]["ids"].values() if isinstance(EXPECTED[tree].get("ids"), dict) else []
    ):
        for item in value if isinstance(value, list) else [value]:
            assert str(item) not in result.out


def test_a_child_is_in_its_delegation_calls_task(tmp_path: Path) -> None:
    """SPEC §5.2: a child's calls inherit the task of its delegation call. Was: the task at the
    tool_use's line; with a prompt between the call's fragments, the Agent call counted to one
    task and its subagent (with the parent's next call) to the next."""
    from converter.firewall.keys import PseudonymKey
    from converter.firewall.pseudonyms import Pseudonymizer
    from tests.crossing import cross_tree
    from tests.damage import copy_tree, dump

    syn = copy_tree("synthetic_tree", tmp_path)
    lines = syn.lines("")
    text_fragment = json.loads(lines[5])  # A1's first fragment; line 7 holds its Agent call
    prompt = {
        "type": "user",
        "uuid": "0e5a0000-0000-4000-8000-000000000001",
        "parentUuid": text_fragment["uuid"],
        "sessionId": syn.session,
        "timestamp": text_fragment["timestamp"],
        "isSidechain": False,
        "userType": "external",
        "message": {"role": "user", "content": "a second prompt"},
    }
    syn.write_lines("", [*lines[:6], dump(prompt), *lines[6:]])
    _, public = cross_tree(syn.parent, Pseudonymizer(PseudonymKey(bytes(range(32)))))
    assert len(public.tasks) == 2
    root = next(a.id for a in public.agents if a.kind == "root")
    agent_call = next(t for t in public.tool_events if t.name == "Agent")
    delegating = next(e for e in public.model_events if e.id == agent_call.requested_by)
    children = [e for e in (*public.model_events, *public.tool_events) if e.agent != root]
    assert children
    assert {e.task for e in children} == {delegating.task}
    subagents = {t.id: t.subagents for t in public.tasks}
    assert subagents[delegating.task or ""] == 1


def _btw_replay(syn: Any) -> list[bytes]:
    """A `/btw` side question's file (FORMAT-NOTES §4): the parent's history replayed with the
    same message ids (new uuids, new request ids), then the side question and its own call."""
    replayed: list[bytes] = []
    previous = None
    for n, raw in enumerate(syn.lines("")):
        record = json.loads(raw)
        if record.get("type") not in ("user", "assistant"):
            continue
        previous = previous or record["uuid"]
        record.update(
            uuid=f"0b700000-0000-4000-8000-{n:012d}", parentUuid=previous, isSidechain=True
        )
        record["agentId"] = BTW_AGENT
        if record["type"] == "assistant":
            record["requestId"] = "req_btw_" + record["message"]["id"]
        previous = record["uuid"]
        replayed.append(_dump(record))
    side = {
        "type": "user",
        "uuid": "0b700000-0000-4000-8000-100000000001",
        "parentUuid": previous,
        "sessionId": syn.session,
        "isSidechain": True,
        "agentId": BTW_AGENT,
        "timestamp": "2026-07-21T09:30:00.000Z",
        "message": {"role": "user", "content": "a side question"},
    }
    answer = json.loads(syn.lines("")[-2])  # the parent's last call, as a new call
    answer.update(uuid="0b700000-0000-4000-8000-100000000002", parentUuid=side["uuid"])
    answer.update(isSidechain=True, agentId=BTW_AGENT, requestId="req_btwside")
    answer["message"]["id"] = "msg_btw_side_question_0001"
    return [*replayed, _dump(side), _dump(answer)]


BTW_AGENT = "a0b7000000000000e"


def _dump(record: dict[str, Any]) -> bytes:
    return json.dumps(record).encode() + b"\n"


@pytest.mark.parametrize(
    ("agent_id", "agent_type"),
    [
        (BTW_AGENT, "side-question"),
        ("aside_question-c5e5c961a7749e08", "side-question"),
        ("aprompt_suggestion-97438e", "prompt-suggestion"),
        ("aextract_memories-c5e5c961a7749e08", "memory-extraction"),
        ("anew_kind-c5e5c961a7749e08", None),  # a label not known: its pseudonym
    ],
    ids=["hex", "side-question", "prompt-suggestion", "memory-extraction", "unknown-label"],
)
def test_a_btw_replay_of_a_delegation_call_does_not_take_its_child(
    tmp_path: Path, agent_id: str, agent_type: str | None
) -> None:
    """Was: a `/btw` file replaying an Agent call held that tool_use too, the real child had two
    candidate owners (CC-TREE-AMBIGUOUS-JOIN) and the delegation stayed unexpanded: every
    session with a side question asked after a delegation refused. Claude Code 2.1.8x names the
    file `agent-aside_question-<16 hex>.jsonl`, and other forks it starts itself `a<label>-<hex>`
    (prompt suggestions, memory extraction), which were CC-TREE-BAD-ID: every session with one
    refused."""
    from converter.firewall.keys import PseudonymKey
    from converter.firewall.pseudonyms import Pseudonymizer
    from tests.crossing import cross_tree
    from tests.damage import copy_tree

    syn = copy_tree("synthetic_tree", tmp_path)
    btw = f"subagents/agent-{agent_id}.jsonl"
    lines = b"".join(_btw_replay(syn)).replace(BTW_AGENT.encode(), agent_id.encode())
    syn.path(btw).write_bytes(lines)
    account, public = cross_tree(syn.parent, Pseudonymizer(PseudonymKey(bytes(range(32)))))
    assert [p.code for p in account.problems] == []
    assert account.delegations_expanded == 1
    assert len(public.model_events) == 5  # the fixture's 4 and the side question's own
    assert account.findings["CC-REC-REPLAY"] == 3  # the parent's 3 assistant fragments
    kinds = sorted(a.kind for a in public.agents)
    assert kinds == ["agent", "root", "side"]
    shown = next(a.agent_type for a in public.agents if a.kind == "side")
    if agent_type is None:
        assert shown.startswith("agent-type-")  # keyed, not written
        assert "new" not in shown
    else:
        assert shown == agent_type


def test_parallel_forks_each_copying_both_delegation_calls(cli: Any) -> None:
    """Two fork calls in one message, each fork's bootstrap copying the whole message (both
    Agent calls): was CC-TREE-AMBIGUOUS-JOIN on both children and the copies refused as
    unexplained duplicates. (tests/trees/parallel_forks: an independent auditor's tree.)"""
    parent = next((Path(__file__).parent / "trees" / "parallel_forks").glob("*.jsonl"))
    report = cli("inspect", "--json", "--in", str(parent)).json()
    assert report["convertible"] is True, report["refusals"]
    counts = report["counts"]
    assert (counts["model_calls"], counts["subagents"], counts["delegations_expanded"]) == (4, 2, 2)
    assert {"code": "CC-REC-FORK-BOOTSTRAP", "count": 4} in report["findings"]


def test_fragments_naming_two_request_ids_are_a_finding(cli: Any, tmp_path: Path) -> None:
    """SPEC §4.2: requestId is a consistency check only. Was: never read at all."""
    from tests.damage import copy_tree

    syn = copy_tree("synthetic_tree", tmp_path)
    second = syn.find_line("", "toolu_01ioXEBA3evMyeizkjeRoygb")  # the Agent call's fragment
    assert syn.record("", second)["message"]["id"] == syn.record("", second - 1)["message"]["id"]
    syn.edit_record("", second, lambda r: r.update(requestId="req_another_request_0001"))
    report = cli("inspect", "--json", "--in", str(syn.parent)).json()
    assert report["convertible"] is True
    assert {"code": "CC-REC-REQUEST-ID-DISAGREE", "count": 1} in report["findings"]
    assert report["counts"]["model_calls"] == 4  # still one call: grouped by message id


def test_timestamps_are_instants_in_utc_or_a_finding(cli: Any, tmp_path: Path) -> None:
    """Was: a timestamp with an RFC 3339 offset, no zone, a leap second or words became null in
    the bundle with nothing said. An offset is the same instant (converted); the others are
    the finding CC-REC-BAD-TIMESTAMP."""
    from tests.damage import copy_tree

    syn = copy_tree("synthetic_tree", tmp_path)
    prompt = syn.find_line("", '"promptId"')
    original = syn.record("", prompt)["timestamp"]
    syn.edit_record("", prompt, lambda r: r.update(timestamp=original[:-1] + "+05:30"))
    first = syn.find_line("", "msg_011C4SjQDgtfTaGWwDkm1sfW")
    syn.edit_record("", first, lambda r: r.update(timestamp="2026-12-31T23:59:60Z"))
    last = syn.find_line("", "msg_011CpD5wpCu5FpNmW8QHVPia")
    syn.edit_record("", last, lambda r: r.update(timestamp="yesterday"))
    template = tmp_path / "t.json"
    result = cli("convert", "--in", str(syn.parent), "--template", str(template))
    assert result.code == 0, result.err
    from datetime import datetime, timedelta

    started = json.loads(template.read_text())["tasks"][0]["started_at"]
    earlier = datetime.fromisoformat(original[:19]) - timedelta(hours=5, minutes=30)
    assert started == earlier.strftime("%Y-%m-%dT%H:%M:%S") + original[19:]
    report = cli("inspect", "--json", "--in", str(syn.parent)).json()
    assert {"code": "CC-REC-BAD-TIMESTAMP", "count": 2} in report["findings"]


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("2026-03-04T05:06:07.891Z", "2026-03-04T05:06:07.891Z"),  # Claude Code's own form
        ("2026-03-04T05:06:07Z", "2026-03-04T05:06:07Z"),
        ("2026-03-04T05:06:07.8Z", "2026-03-04T05:06:07.8Z"),
        ("2026-03-04T05:06:07.123456789Z", "2026-03-04T05:06:07.123Z"),  # cut, not rounded
        ("2026-03-04T05:06:07.999999Z", "2026-03-04T05:06:07.999Z"),
        ("2026-03-04T10:36:07.123456789+05:30", "2026-03-04T05:06:07.123Z"),
        ("2026-03-04T05:06:07.1234567890Z", None),  # past nanoseconds: no RFC 3339 writer
        ("2026-03-04T23:59:60.5Z", None),
        ("2026-03-04 05:06:07Z", None),
    ],
)
def test_a_fraction_past_milliseconds_is_cut_to_them(written: str, read: str | None) -> None:
    """An adversary's find: a transcript rewritten with nanosecond timestamps (RFC 3339 allows
    any fraction) had every one called no instant (CC-REC-BAD-TIMESTAMP): the same instant,
    to the millisecond a bundle holds."""
    from converter.reader.records import utc_timestamp

    assert utc_timestamp(written) == read


@pytest.mark.parametrize(
    ("field", "value"),
    [("isApiErrorMessage", "true"), ("isApiErrorMessage", 1), ("stop_reason", False)],
)
def test_a_flag_of_another_type_is_a_bad_field(
    cli: Any, tmp_path: Path, field: str, value: Any
) -> None:
    """Was: `isApiErrorMessage: "true"` counted the record as a call, `stop_reason: false`
    marked a stub's usage final."""
    from tests.damage import copy_tree

    syn = copy_tree("synthetic_tree", tmp_path)
    line = syn.find_line("", "msg_011CpD5wpCu5FpNmW8QHVPia")

    def edit(record: dict[str, Any]) -> None:
        (record["message"] if field == "stop_reason" else record)[field] = value

    syn.edit_record("", line, edit)
    report = cli("inspect", "--json", "--in", str(syn.parent)).json()
    assert report["convertible"] is False
    assert [(r["code"], r["line"]) for r in report["refusals"]] == [("CC-REC-BAD-FIELD", line)]


@pytest.mark.parametrize(
    "usage",
    [{"input_tokens": 999_999}, {"output_tokens": 10**6}],
    ids=["other-input", "more-output"],
)
def test_a_copy_that_is_not_the_call_it_repeats_refuses(
    cli: Any, tmp_path: Path, usage: dict[str, int]
) -> None:
    """Was: a fork's bootstrap copy naming other input counters than the call it repeats was
    a finding only, and one stating more output than the call's final usage passed unseen: it
    is not counted, so its spend was left out with exit 0, where the same message id over two
    calls in one file refuses (SPEC §4.6; a SPEC audit)."""
    from tests.damage import copy_tree

    syn = copy_tree("synthetic_tree", tmp_path)
    child = next(p for p in syn.folder.rglob("agent-*.jsonl"))
    rel = child.relative_to(syn.folder).as_posix()
    line = syn.find_line(rel, "msg_011C4SjQDgtfTaGWwDkm1sfW")
    syn.edit_record(rel, line, lambda r: r["message"]["usage"].update(usage))
    report = cli("inspect", "--json", "--in", str(syn.parent)).json()
    assert report["convertible"] is False
    assert [(r["code"], r["line"]) for r in report["refusals"]] == [("CC-REC-COPY-DISAGREE", line)]
    assert report["usage"]["input_tokens"] == EXPECTED["synthetic_tree"]["input_tokens"]

    # A copy of a streaming stub (every input counter 0, as a gateway writes before the final
    # fragment) repeats that stub, not the final usage: it converts.
    stub = {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0}
    syn.edit_record(rel, line, lambda r: r["message"].update(usage=stub))
    again = cli("inspect", "--json", "--in", str(syn.parent)).json()
    assert again["convertible"] is True, again["refusals"]


def test_a_call_copied_into_another_file_unexplained_is_refused(cli: Any, tmp_path: Path) -> None:
    """A copy no documented rule explains (not a fork's leading bootstrap, not a replay) is
    refused, never merged into the call it repeats: a parent's last call appended to the end of
    its child, and a tool_use id written again under another call in the child."""
    from tests.damage import copy_tree, dump

    syn = copy_tree("synthetic_tree", tmp_path)
    child = next(p for p in syn.folder.rglob("agent-*.jsonl"))
    rel = child.relative_to(syn.folder).as_posix()
    parent_line = syn.find_line("", "msg_011CpD5wpCu5FpNmW8QHVPia")
    copy = syn.record("", parent_line)
    copy.update(uuid="00000000-0000-4000-8000-00000000c0de", isSidechain=True)
    copy["agentId"] = child.stem.removeprefix("agent-")
    copy["parentUuid"] = json.loads(syn.lines(rel)[-1])["uuid"]
    syn.write_lines(rel, [*syn.lines(rel), dump(copy)])
    report = cli("inspect", "--json", "--in", str(syn.parent)).json()
    assert report["convertible"] is False
    codes = {r["code"] for r in report["refusals"]}
    assert "CC-REC-UNEXPLAINED-DUPLICATE" in codes, report["refusals"]

    syn = copy_tree("synthetic_tree", tmp_path / "again")
    delegation = syn.record("", syn.find_line("", '"name":"Agent"'))
    tool_id = next(b["id"] for b in delegation["message"]["content"] if b["type"] == "tool_use")
    last = len(syn.lines(rel))
    while syn.record(rel, last).get("type") != "assistant":
        last -= 1

    def reuse(record: dict[str, Any]) -> None:
        blocks = record["message"]["content"]
        blocks.append({"type": "tool_use", "id": tool_id, "name": "Read", "input": {}})

    syn.edit_record(rel, last, reuse)
    again = cli("inspect", "--json", "--in", str(syn.parent)).json()
    assert again["convertible"] is False
    assert "CC-REC-UNEXPLAINED-DUPLICATE" in {r["code"] for r in again["refusals"]}


@pytest.mark.parametrize(
    ("iterations", "incomplete"),
    [([{"input_tokens": 3, "output_tokens": 9}], 0), ([], 0), (None, 1), ("[]", None)],
    ids=["list", "empty-list", "absent", "not-a-list"],
)
def test_a_usage_iterations_list_marks_the_final_usage_without_stop_reason(
    iterations: Any, incomplete: int | None, cli: Any, tmp_path: Path
) -> None:
    """2.1.3x writes no stop_reason but marks its final usage record with a list-valued
    `usage.iterations` (SPEC §4.4, FORMAT-NOTES §6). Was checked only by a real-corpus tree,
    which CI without the corpus skips. An `iterations` of another type is no shape passes are
    read in, and is refused (`incomplete` None): a fuzz run found an advisor's pass in one
    left out with exit 0."""
    from tests.damage import copy_tree

    syn = copy_tree("synthetic_tree", tmp_path)
    line = syn.find_line("", "msg_011CpD5wpCu5FpNmW8QHVPia")

    def strip(record: dict[str, Any]) -> None:
        record["message"]["stop_reason"] = None
        usage = record["message"]["usage"]
        usage.pop("iterations", None)
        if iterations is not None:
            usage["iterations"] = iterations

    syn.edit_record("", line, strip)
    report = cli("inspect", "--json", "--in", str(syn.parent)).json()
    if incomplete is None:
        assert [r["code"] for r in report["refusals"]] == ["CC-REC-USAGE-ITERATIONS"]
        return
    assert report["counts"]["usage_incomplete_calls"] == incomplete


def test_the_text_summary_says_what_each_finding_means(cli: Any) -> None:
    """A code and a count alone sent users to docs/refusals.md for every finding; the meaning
    is fixed text from the catalogue (content-free), one line each."""
    from converter.errors import CODES

    result = cli("inspect", "--in", str(fixture_parent("synthetic_tree")))
    assert result.code == 0
    line = next(x for x in result.out.splitlines() if x.strip().startswith("CC-REC-FORK-BOOTSTRAP"))
    message = CODES["CC-REC-FORK-BOOTSTRAP"].message
    assert line.strip() == f"CC-REC-FORK-BOOTSTRAP: 1 time. {message}"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0001-01-01T00:30:00+01:00", None),  # before year 1 in UTC
        ("9999-12-31T23:30:00-01:00", None),  # after year 9999 in UTC
        ("0001-01-01T02:00:00.5+01:00", "0001-01-01T01:00:00.5Z"),
        ("2026-01-01T00:30:00+01:00", "2025-12-31T23:30:00Z"),
    ],
)
def test_an_offset_that_leaves_the_calendar_is_no_instant(value: str, expected: str | None) -> None:
    """Was: an offset moving the instant out of years 1-9999 raised OverflowError: inspect and
    convert exited 70 (and scan showed an error row) instead of CC-REC-BAD-TIMESTAMP."""
    from converter.reader.records import utc_timestamp

    assert utc_timestamp(value) == expected


def test_a_timestamp_at_the_calendar_edge_is_a_finding(cli: Any, tmp_path: Path) -> None:
    from tests.damage import copy_tree

    syn = copy_tree("synthetic_tree", tmp_path)
    prompt = syn.find_line("", '"promptId"')
    syn.edit_record("", prompt, lambda r: r.update(timestamp="0001-01-01T00:30:00+01:00"))
    result = cli("inspect", "--json", "--in", str(syn.parent))
    assert result.code == 0, result.err
    assert {"code": "CC-REC-BAD-TIMESTAMP", "count": 1} in result.json()["findings"]


def test_a_loaded_tree_is_built_once() -> None:
    """Was: a second build_account of one loaded tree found its records released and gave an
    account of 0 calls, convertible, with no refusal."""
    from converter.reader.build import build_account
    from converter.reader.load import load
    from converter.sources.tree import discover
    from tests.conftest import fixture_parent

    tree = load(discover(fixture_parent("synthetic_tree")), jobs=1)
    assert build_account(tree).calls
    with pytest.raises(ValueError, match="already taken"):
        build_account(tree)


def test_the_price_card_figure_says_how_much_of_its_width_is_incomplete_calls(
    cli: Any, tmp_path: Path
) -> None:
    """A walkthrough met `$6 – $141` and could not tell why it was so wide: the width the
    usage-incomplete calls make is said (their output up to the card's max_output_tokens),
    with the limit taken, and it is what the card's prices give by hand."""
    import shutil
    from decimal import Decimal

    shutil.copytree(FIXTURES / "synthetic_tree", tmp_path / "t")
    parent = next((tmp_path / "t").glob("*.jsonl"))
    lines = parent.read_bytes().splitlines(keepends=True)
    last = json.loads(lines[8])  # the last call, complete: now a stub the session never finished
    last["message"]["stop_reason"] = None
    del last["message"]["usage"]["iterations"]
    lines[8] = json.dumps(last).encode() + b"\n"
    parent.write_bytes(b"".join(lines))
    card_file = FIXTURES.parent / "contracts" / "price-cards" / "anthropic-2026-12.json"
    model = last["message"]["model"]
    entry = json.loads(card_file.read_text())["models"][model]
    limit = entry["max_output_tokens"]
    recorded = last["message"]["usage"]["output_tokens"]
    expected = Decimal(limit - recorded) * Decimal(entry["tiers"][0]["output"]) / 1_000_000
    card = ("--price-card", "anthropic-2026-12")
    cost = cli("inspect", "--in", str(parent), "--json", *card).json()["card_cost"]
    assert cost["model_calls_usage_incomplete"] == 1
    assert Decimal(cost["usage_incomplete_width_usd"]) == expected
    assert Decimal(cost["high_usd"]) - Decimal(cost["low_usd"]) == expected  # nothing assumed
    assert cost["by_model"][model]["max_output_tokens"] == limit
    text = cli("inspect", "--in", str(parent), *card).out
    width = f"${expected.quantize(Decimal('0.0001')):,}"
    assert f"width: {width} of it is in 1 usage-incomplete call, whose output" in text, text
    assert f"({model} {limit:,})" in text


def test_a_card_estimate_says_how_it_priced_cache_writes_with_no_split(
    cli: Any, tmp_path: Path
) -> None:
    """A walkthrough: the low end priced unsplit cache writes at the 5m rate, said nowhere,
    and the contract's "1h" then came out above it. The estimate says how it took them."""
    from tests.damage import copy_tree

    card = ("--price-card", "anthropic-2026-12")
    split = cli("inspect", "--in", str(fixture_parent("synthetic_tree")), *card)
    assert split.code == 0, split.err
    assert "unsplit:" not in split.out  # every write has its split
    tree = copy_tree("synthetic_tree", tmp_path / "projects")
    edited = 0
    for path in [tree.parent, *tree.parent.with_suffix("").rglob("*.jsonl")]:  # copies too
        lines = path.read_bytes().splitlines(keepends=True)
        for i, raw in enumerate(lines):
            record = json.loads(raw)
            message = record.get("message")
            usage = message.get("usage") if isinstance(message, dict) else None
            if isinstance(usage, dict) and usage.get("cache_creation_input_tokens"):
                usage.pop("cache_creation", None)
                lines[i] = json.dumps(record).encode() + b"\n"
                edited += 1
        path.write_bytes(b"".join(lines))
    assert edited
    shown = cli("inspect", "--in", str(tree.parent), *card)
    assert shown.code == 0, shown.err
    assert "    unsplit: " in shown.out
    assert "at the 5m rate in the low end and the 1h rate in the high" in shown.out


def test_a_card_file_whose_prices_pass_any_real_cost_leaves_those_calls_unpriced(
    cli: Any, tmp_path: Path
) -> None:
    """A pricing audit: a card file of 30-digit prices (allowed) made a call cost past the
    report's 30 integer digits, and inspect and scan ended in exit 70. Such a call is not
    priced (`cost-too-large`), as convert refuses it (PRICE-COST-TOO-LARGE)."""
    shipped = FIXTURES.parent / "contracts" / "price-cards" / "anthropic-2026-12.json"
    card = json.loads(shipped.read_text())
    card["id"] = "my-dear-card"
    for entry in card["models"].values():
        for tier in entry["tiers"]:
            tier["output"] = "9" * 30
    card_file = tmp_path / "card.json"
    card_file.write_text(json.dumps(card))
    parent = fixture_parent("synthetic_tree")
    calls = cli("inspect", "--in", str(parent), "--json").json()["counts"]["model_calls"]
    shown = cli("inspect", "--in", str(parent), "--json", "--price-card", str(card_file))
    assert shown.code == 0, shown.err
    cost = shown.json()["card_cost"]
    assert cost["not_priced_for_lack_of"] == {"cost-too-large": calls}
    text = cli("inspect", "--in", str(parent), "--price-card", str(card_file))
    assert "a cost of 10^20 USD or more" in text.out
    assert "PRICE-COST-TOO-LARGE" in text.out
    projects = tmp_path / "projects" / "-home-dev-alpha"
    shutil.copytree(parent.parent, projects)
    scanned = cli("scan", str(projects.parent), "--json", "--price-card", str(card_file))
    assert scanned.code == 0, scanned.err
