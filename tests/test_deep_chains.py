"""Nothing recurses on input depth (issue 2, issue 4): 100,000 chained events in one subagent
inspect and convert, and a task of 100,000 events evaluates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from converter.devtools.bench.fill import fill
from converter.devtools.bench.generate import generate_chain


@pytest.fixture(scope="module")
def subagent_chain(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    root = tmp_path_factory.mktemp("chain")
    expected = generate_chain(root, 100_000, "subagent")
    return expected.parent, expected


def test_subagent_with_100k_chained_events_inspects(
    subagent_chain: tuple[Path, Any], cli: Any
) -> None:
    parent, expected = subagent_chain
    result = cli("inspect", "--json", "--in", str(parent))
    assert result.code == 0, result.err
    counts = result.json()["counts"]
    assert counts["model_calls"] == expected.model_calls
    assert counts["tool_calls"] == expected.tool_calls >= 50_000
    assert counts["edges"] >= 100_000


def test_100k_event_task_converts_and_evaluates(
    subagent_chain: tuple[Path, Any], cli: Any, tmp_path: Path
) -> None:
    parent, expected = subagent_chain
    template = tmp_path / "t.json"
    assert cli("convert", "--in", str(parent), "--template", str(template)).code == 0
    contract = tmp_path / "c.json"
    contract.write_text(json.dumps(fill(json.loads(template.read_text()))))
    bundle = tmp_path / "b.json"
    result = cli("convert", "--in", str(parent), "--contract", str(contract), "--out", str(bundle))
    assert result.code == 0, result.err
    evaluated = cli("evaluate", "--bundle", str(bundle), "--format", "json")
    assert "Traceback" not in evaluated.err
    report = json.loads(evaluated.out)
    # `fill` labels deterministically: the one task is decided, as every run decides it.
    assert (report["decision"], evaluated.code) == ("ASSIST", 3), evaluated.err
    (task,) = report["tasks"]
    assert task["model_calls"] == expected.model_calls
    assert task["tool_calls"] == expected.tool_calls


def test_one_call_of_100k_fragments_each_with_a_tool_is_read_in_linear_time(
    tmp_path: Path, cli: Any
) -> None:
    """A fuzz hunt: each fragment of a call looked its tool up in the call's list of tools so
    far, quadratic in the call's tools (Claude Code writes a call's parallel tool uses one
    record each). A tool id repeated by a later fragment of the same call is one tool."""
    import time

    session = "11111111-2222-4333-8444-555555555555"
    common = {"sessionId": session, "version": "2.1.100", "isSidechain": False}
    stamp = "2026-11-01T00:00:01.000Z"
    lines = [
        {**common, "type": "user", "uuid": "u-0", "parentUuid": None, "timestamp": stamp}
        | {"message": {"role": "user", "content": "go"}}
    ]
    for i in range(100_000):
        tool = {"type": "tool_use", "id": f"toolu_{min(i, 99_998)}", "name": "Read", "input": {}}
        message = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "stop_reason": None,
            "content": [tool],
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        lines.append(
            {**common, "type": "assistant", "uuid": f"u-{i + 1}", "parentUuid": f"u-{i}"}
            | {"timestamp": stamp, "requestId": "req_1", "message": message}
        )
    parent = tmp_path / f"{session}.jsonl"
    parent.write_text("".join(json.dumps(line) + "\n" for line in lines))
    began = time.process_time()
    result = cli("inspect", "--json", "--in", str(parent))
    spent = time.process_time() - began
    assert result.code == 0, result.err
    counts = result.json()["counts"]
    assert (counts["model_calls"], counts["tool_calls"]) == (1, 99_999)
    assert spent < 30  # seconds: ~3 s here; the list look-up took minutes
