"""A tool result written before the tool_use it names (line order) is not that call's result:
matched, it made the call look answered and invented a `consumes` edge from the tool back to
the very model call that requested it (a two-event cycle, SPEC §5.3: no edge is invented)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from converter.errors.codes import SPEND_LEFT_OUT
from converter.reader.build import build_account
from converter.reader.load import load
from converter.sources.tree import discover
from converter.vocabulary import INCOMPLETE_NO_INPUT

SID = "11111111-2222-4333-8444-555555555555"


def _rec(n: int, parent: int | None, **fields: Any) -> dict[str, Any]:
    return {
        "uuid": f"00000000-0000-4000-8000-{n:012d}",
        "parentUuid": None if parent is None else f"00000000-0000-4000-8000-{parent:012d}",
        "sessionId": SID,
        "version": "2.1.216",
        "timestamp": f"2026-07-21T09:00:{n:02d}.000Z",
        **fields,
    }


def _call(n: int, parent: int, msg: str, content: list[dict[str, Any]]) -> dict[str, Any]:
    usage = {
        "input_tokens": 10,
        "output_tokens": 5,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
        "iterations": [],
    }
    message = {
        "id": msg,
        "role": "assistant",
        "model": "claude-opus-4-8",
        "content": content,
        "stop_reason": "end_turn",
        "usage": usage,
    }
    return _rec(n, parent, type="assistant", requestId=f"req_{n}", message=message)


def _result(n: int, parent: int, tool_id: str) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": "ok"}
    return _rec(n, parent, type="user", message={"role": "user", "content": [block]})


def test_a_result_before_its_call_is_an_orphan_and_makes_no_edge(tmp_path: Path) -> None:
    tool = {"type": "tool_use", "id": "toolu_Q", "name": "Bash", "input": {"command": "x"}}
    records = [
        _rec(1, None, type="user", message={"role": "user", "content": "go"}),
        _call(2, 1, "msg_01A", [{"type": "text", "text": "a"}]),
        _result(3, 2, "toolu_Q"),  # names a tool_use written only below
        _call(4, 3, "msg_01B", [tool]),
        _call(5, 4, "msg_01C", [{"type": "text", "text": "c"}]),
    ]
    parent = tmp_path / f"{SID}.jsonl"
    parent.write_text("".join(json.dumps(r) + "\n" for r in records))
    acc = build_account(load(discover(parent), jobs=1))
    assert acc.tools["toolu_Q"].status == "no-result"
    assert acc.findings["CC-REC-ORPHAN-TOOL-RESULT"] == 1
    consumes = [e for e in acc.edges if e.kind == "consumes"]
    assert consumes == []  # never ("tool", Q) -> ("model", msg_01B), its own requester


def test_a_second_result_of_one_call_is_a_finding_and_the_first_stays(tmp_path: Path) -> None:
    """An audit: a result written twice (a new uuid) was dropped unremarked. The first is the
    call's; the second is said (CC-REC-EXTRA-TOOL-RESULT), as one that names no call is."""
    tool = {"type": "tool_use", "id": "toolu_Q", "name": "Bash", "input": {"command": "x"}}
    error = {"type": "tool_result", "tool_use_id": "toolu_Q", "content": "x", "is_error": True}
    records = [
        _rec(1, None, type="user", message={"role": "user", "content": "go"}),
        _call(2, 1, "msg_01B", [tool]),
        _result(3, 2, "toolu_Q"),
        _rec(4, 3, type="user", message={"role": "user", "content": [error]}),
        _call(5, 4, "msg_01C", [{"type": "text", "text": "c"}]),
    ]
    parent = tmp_path / f"{SID}.jsonl"
    parent.write_text("".join(json.dumps(r) + "\n" for r in records))
    acc = build_account(load(discover(parent), jobs=1))
    assert acc.tools["toolu_Q"].status == "ok"  # the first result's, not the second's error
    assert acc.findings["CC-REC-EXTRA-TOOL-RESULT"] == 1
    assert acc.findings["CC-REC-ORPHAN-TOOL-RESULT"] == 0
    assert acc.finding_places["CC-REC-EXTRA-TOOL-RESULT"] == [(0, 4)]  # the parent's line 4
    once = tmp_path / "once" / f"{SID}.jsonl"
    once.parent.mkdir()
    once.write_text("".join(json.dumps(r) + "\n" for i, r in enumerate(records) if i != 3))
    assert build_account(load(discover(once), jobs=1)).findings["CC-REC-EXTRA-TOOL-RESULT"] == 0


def test_inspect_names_where_the_first_few_of_a_finding_are(tmp_path: Path, cli: Any) -> None:
    """SPEC §6.4: a diagnostic names a file and a line. A finding said only by its count left
    the user to search the tree for it (an audit); the first five places are named, by the
    file's label (its path with --show-paths, on stderr) and line, and whether there are more."""
    tool = {"type": "tool_use", "id": "toolu_Q", "name": "Bash", "input": {"command": "x"}}
    records = [
        _rec(1, None, type="user", message={"role": "user", "content": "go"}),
        _call(2, 1, "msg_01B", [tool]),
        _result(3, 2, "toolu_Q"),
        *(_result(n, n - 1, "toolu_Q") for n in range(4, 11)),  # seven results again
        _call(11, 10, "msg_01C", [{"type": "text", "text": "c"}]),
    ]
    parent = tmp_path / f"{SID}.jsonl"
    parent.write_text("".join(json.dumps(r) + "\n" for r in records))
    report = cli("inspect", "--in", str(parent), "--json").json()
    places = report["finding_places"]["CC-REC-EXTRA-TOOL-RESULT"]
    assert [p["line"] for p in places["at"]] == [4, 5, 6, 7, 8]
    assert places["more"] is True
    label = places["at"][0]["file"]
    assert label.startswith("parent/file-")
    text = cli("inspect", "--in", str(parent), "--show-paths")
    assert f"    at {label} lines 4, 5, 6, 7, 8, and more" in text.out
    assert f"file: {label} = {parent.name}" in text.err
    assert parent.name not in text.out


def test_per_record_findings_are_named_by_their_line(tmp_path: Path, cli: Any) -> None:
    """A walkthrough: a synthetic record, and a prompt no call followed, were counts alone in
    inspect, where every finding whose line is known is named by it."""
    synthetic = _call(3, 2, "msg_01S", [{"type": "text", "text": "No response requested."}])
    synthetic["message"]["model"] = "<synthetic>"
    synthetic["message"]["usage"] = dict.fromkeys(
        ("input_tokens", "output_tokens", "cache_read_input_tokens"), 0
    )
    records = [
        _rec(1, None, type="user", message={"role": "user", "content": "go"}),
        _call(2, 1, "msg_01B", [{"type": "text", "text": "b"}]),
        synthetic,
        _rec(4, 3, type="user", message={"role": "user", "content": "again"}),
    ]
    parent = tmp_path / f"{SID}.jsonl"
    parent.write_text("".join(json.dumps(r) + "\n" for r in records))
    places = cli("inspect", "--in", str(parent), "--json").json()["finding_places"]
    assert [p["line"] for p in places["CC-REC-SYNTHETIC"]["at"]] == [3]
    assert [p["line"] for p in places["CC-TASK-NO-CALLS"]["at"]] == [4]


def test_a_places_line_numbers_are_written_without_thousands_commas() -> None:
    """A walkthrough read `lines 1,475, 1,477` as lines 1, 475, 1 and 477."""
    from converter.run.inspection import _places

    at = [{"file": "parent/file-a", "line": 1475}, {"file": "parent/file-a", "line": 12030}]
    assert _places(at, False) == "at parent/file-a lines 1475, 12030"
    assert _places([{"file": "meta/file-b", "line": None}], True) == (
        "at meta/file-b, and more (the first found are named)"
    )


@pytest.mark.parametrize("code", sorted(SPEND_LEFT_OUT | {INCOMPLETE_NO_INPUT}))
def test_the_template_names_every_finding_that_leaves_spend_out(
    code: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each finding that keeps evaluate from meeting a cost gate is told at the template step,
    by code (a code review found CC-REC-SERVER-TOOL-UNPRICED left out of the notices: a
    filter of one table's copy had drifted from it)."""
    from converter.cli.convert import _say_left_out

    _say_left_out([(code, 1)])
    said = capsys.readouterr().err
    assert said.startswith("notice: ")
    assert f"({code}" in said or f"{code} 1" in said
    assert "EVAL-COST-" in said


def test_the_template_says_when_evaluate_will_meet_no_cost_gate(tmp_path: Path, cli: Any) -> None:
    """A walkthrough labelled every task of a session, then met EVAL-COST-LEFT-OUT: the
    template step says it first, for a finding that some spend is in no cost (a WebSearch whose
    result names no search count)."""
    tool = {"type": "tool_use", "id": "toolu_W", "name": "WebSearch", "input": {"query": "q"}}
    records = [
        _rec(1, None, type="user", message={"role": "user", "content": "go"}),
        _call(2, 1, "msg_01B", [tool]),
        _result(3, 2, "toolu_W"),  # no structured result: the search count is unknown
        _call(4, 3, "msg_01C", [{"type": "text", "text": "c"}]),
    ]
    # a projects folder of its own: the test folders beside tmp_path hold this session id too
    # (a split session, CC-TREE-SPLIT-SESSION, another spend in no cost)
    parent = tmp_path / "projects" / "p" / f"{SID}.jsonl"
    parent.parent.mkdir(parents=True)
    parent.write_text("".join(json.dumps(r) + "\n" for r in records))
    made = cli("convert", "--in", str(parent), "--template", str(tmp_path / "t.json"))
    assert made.code == 0, made.err
    assert (
        "notice: this session's findings say some spend is in no cost "
        "(CC-REC-WEBSEARCH-COUNT-UNKNOWN 1): evaluate will meet no cost gate"
    ) in made.err
    report = cli("inspect", "--in", str(parent), "--json", "--price-card", "anthropic-2026-12")
    assert report.json()["card_cost"]["spend_left_out"] == ["CC-REC-WEBSEARCH-COUNT-UNKNOWN"]
    text = cli("inspect", "--in", str(parent), "--price-card", "anthropic-2026-12").out
    assert "+ spend in no figure: CC-REC-WEBSEARCH-COUNT-UNKNOWN" in text  # as scan's `+`
    plain = [r for r in records if r["uuid"] != records[2]["uuid"]]
    plain[1]["message"]["content"] = [{"type": "text", "text": "b"}]
    other = tmp_path / "other-projects" / "plain" / f"{SID}.jsonl"
    other.parent.mkdir(parents=True)
    other.write_text("".join(json.dumps(r) + "\n" for r in plain))
    quiet = cli("convert", "--in", str(other), "--template", str(tmp_path / "u.json"))
    assert quiet.code == 0, quiet.err
    assert "in no cost" not in quiet.err
