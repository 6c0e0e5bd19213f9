"""Shapes of Claude Code 2.1.286-2.1.289 recordings (docs/claude-code-shapes.md §18), rebuilt
with content of our own: fields the reader must leave alone, a manual compaction whose command
records come after its summary, and a workflow run with 2.1.289's meta and journal keys. Each
tree is priced by hand from its own usage fields."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SID = "93816c4b-0000-4923-8a3d-9a3f9ccac721"
VERSION = "2.1.289"
MODEL = "claude-opus-4-5"


def _uuid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def _base(session: str, **fields: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "isSidechain": False,
        "userType": "external",
        "entrypoint": "sdk-cli",
        "cwd": "/w",
        "sessionId": session,
        "version": VERSION,
        "gitBranch": "HEAD",
    }
    record.update(fields)
    return record


def _usage(inp: int, write_1h: int, read: int, out: int) -> dict[str, Any]:
    """2.1.289's usage: `output_tokens_details` and `fallback_credit` beside the known fields."""
    return {
        "input_tokens": inp,
        "cache_creation_input_tokens": write_1h,
        "cache_read_input_tokens": read,
        "output_tokens": out,
        "output_tokens_details": {"thinking_tokens": 0},
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
        "cache_creation": {"ephemeral_1h_input_tokens": write_1h, "ephemeral_5m_input_tokens": 0},
        "inference_geo": "not_available",
        "iterations": [],
        "speed": "standard",
        "fallback_credit": None,
    }


def _assistant(
    session: str, n: int, parent: int, call: str, content: list[Any], usage: Any, **fields: Any
) -> dict[str, Any]:
    """An assistant record with 2.1.289's message keys; `diagnostics` holds a token count that
    is not usage (a cache miss's size) and must never be added to the account."""
    message = {
        "model": MODEL,
        "id": f"msg_{call}",
        "type": "message",
        "role": "assistant",
        "content": content,
        "container": None,
        "stop_reason": "tool_use" if content[0]["type"] == "tool_use" else "end_turn",
        "stop_sequence": None,
        "stop_details": None,
        "usage": usage,
        "input_transformations": [],
        "diagnostics": {
            "cache_miss_reason": {"type": "messages_changed", "cache_missed_input_tokens": 90_001}
        },
        "context_management": None,
    }
    return (
        _base(
            session,
            parentUuid=_uuid(parent) if parent else None,
            message=message,
            apiBlockIndex=0,
            requestId=f"req_{call}",
            type="assistant",
            uuid=_uuid(n),
            timestamp="2026-10-04T01:14:20.418Z",
            effort="medium",
            perTurnEffort="medium",
        )
        | fields
    )


def _user(
    session: str, n: int, parent: int | None, content: Any, prompt: str, at: str, **fields: Any
) -> dict[str, Any]:
    return (
        _base(
            session,
            parentUuid=_uuid(parent) if parent else None,
            promptId=prompt,
            type="user",
            message={"role": "user", "content": content},
            uuid=_uuid(n),
            timestamp=at,
        )
        | fields
    )


def _tool(n: int, name: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "tool_use",
            "id": f"toolu_{n}",
            "name": name,
            "input": {},
            "caller": {"type": "direct"},
        }
    ]


def _result(n: int) -> list[dict[str, Any]]:
    return [
        {"tool_use_id": f"toolu_{n}", "type": "tool_result", "content": "ok", "is_error": False}
    ]


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    return path


def _inspect(cli: Any, parent: Path) -> dict[str, Any]:
    result = cli("inspect", "--json", "--in", str(parent))
    assert result.code == 0, result.err
    report: dict[str, Any] = result.json()
    return report


def _compaction_tree(root: Path) -> Path:
    """One prompt (two calls), a manual /compact written the 2.1.289 way, one more prompt."""
    first, second, third = (f"{d * 8}-{d * 4}-4{d * 3}-8{d * 3}-{d * 12}" for d in "123")
    t = "2026-10-04T01:14:"
    records = [
        _user(SID, 1, None, "first prompt", first, t + "10.000Z", promptSource="sdk"),
        _assistant(SID, 2, 1, "A1", _tool(1, "Bash"), _usage(2, 2000, 10000, 70)),
        _user(SID, 3, 2, _result(1), first, t + "11.000Z", toolUseResult={"stdout": "ok"}),
        _assistant(SID, 4, 3, "A2", [{"type": "text", "text": "x"}], _usage(1, 100, 12000, 10)),
        _base(
            SID,
            parentUuid=None,
            logicalParentUuid=_uuid(4),
            type="system",
            subtype="compact_boundary",
            content="Conversation compacted",
            isMeta=False,
            level="info",
            timestamp=t + "17.968Z",
            uuid=_uuid(5),
            compactMetadata={
                "trigger": "manual",
                "preTokens": 17015,
                "durationMs": 4972,
                "preservedSegment": {"headUuid": _uuid(1), "anchorUuid": _uuid(6)},
                "preservedMessages": {"anchorUuid": _uuid(6), "allUuids": [_uuid(1), _uuid(4)]},
                "postTokens": 1065,
                "cumulativeDroppedTokens": 15950,
            },
        ),
        # the summary first, then the command's records with earlier timestamps, re-parented
        _user(SID, 6, 5, "summary", second, t + "17.967Z", isCompactSummary=True),
        _user(SID, 7, 6, "<local-command-caveat>c</local-command-caveat>", second, t + "12.996Z")
        | {"isMeta": True},
        _user(SID, 8, 7, "<command-name>/compact</command-name>", second, t + "12.996Z"),
        _user(
            SID, 9, 8, "<local-command-stdout>done</local-command-stdout>", second, t + "18.087Z"
        ),
        _user(SID, 10, 9, "second prompt", third, t + "18.000Z", promptSource="sdk"),
        _assistant(SID, 11, 10, "B1", [{"type": "text", "text": "y"}], _usage(2, 2373, 13193, 74)),
    ]
    return _write(root / "proj" / f"{SID}.jsonl", records)


def test_2_1_289_fields_beside_usage_are_not_counted(cli: Any, tmp_path: Path) -> None:
    """`diagnostics.cache_miss_reason.cache_missed_input_tokens` (90,001 on every call here),
    `output_tokens_details` and `fallback_credit` are not usage: the account is the sum of the
    four counts and the split, and the compaction adds one task with no call."""
    report = _inspect(cli, _compaction_tree(tmp_path))
    assert report["counts"]["model_calls"] == 3
    assert report["counts"]["tasks"] == 3  # two prompts and the /compact command
    assert report["usage"] == {
        "input_tokens": 2 + 1 + 2,
        "output_tokens": 70 + 10 + 74,
        "cache_read_input_tokens": 10000 + 12000 + 13193,
        "cache_creation_1h_input_tokens": 2000 + 100 + 2373,
        "cache_creation_5m_input_tokens": 0,
        "cache_creation_unsplit_input_tokens": 0,
        "web_search_requests": 0,
    }
    assert report["refusals"] == []
    assert {f["code"]: f["count"] for f in report["findings"]} == {"CC-TASK-NO-CALLS": 1}


def test_2_1_289_tool_fragments_each_followed_by_its_result(cli: Any, tmp_path: Path) -> None:
    """One response's three tool_use fragments (apiBlockIndex 0-2), each repeating the final
    usage with its tool result written before the next: one call, its usage once."""
    prompt = "5e60ace7-0000-4767-9247-51195d4d0fc0"
    at = "2026-10-04T01:14:10.000Z"
    usage = _usage(2, 5278, 11664, 301)
    records = [_user(SID, 1, None, "three tools", prompt, at, promptSource="sdk")]
    parent = 1
    for i, tool in enumerate(["Read", "Bash", "Write"]):
        records.append(
            _assistant(SID, 10 + i, parent, "X1", _tool(i, tool), usage, apiBlockIndex=i)
        )
        records.append(_user(SID, 20 + i, 10 + i, _result(i), prompt, at, toolUseResult={}))
        parent = 20 + i
    records.append(
        _assistant(
            SID, 30, parent, "X2", [{"type": "text", "text": "z"}], _usage(1, 500, 16942, 40)
        )
    )
    report = _inspect(cli, _write(tmp_path / "proj" / f"{SID}.jsonl", records))
    assert report["counts"]["model_calls"] == 2
    assert report["counts"]["tool_calls"] == 3
    assert report["usage"]["output_tokens"] == 301 + 40
    assert report["usage"]["cache_read_input_tokens"] == 11664 + 16942
    assert report["refusals"] == []


def test_2_1_289_workflow_run_with_phase_keys(cli: Any, tmp_path: Path) -> None:
    """A background Workflow run laid out as 2.1.289 writes it: metas of `workflow-subagent`
    with `workflowPhase`, `spawnDepth` and `requestShape`, journal lines with `label` and
    `phase`, a run manifest whose `totalTokens` is not spend, and a scripts folder. Every
    agent's calls count once, under the one prompt that launched the run."""
    session = "04b7d05b-0000-4d6a-91ce-207cb3a826f6"
    run = "wf_250b816f-e45"
    prompt = "90f19ade-0000-4ac8-a676-6e3c588a7232"
    at = "2026-10-04T01:14:10.000Z"
    project = tmp_path / "proj"
    launched = {
        "status": "async_launched",
        "taskId": "w67t7ovhy",
        "taskType": "local_workflow",
        "workflowName": "echo",
        "runId": run,
        "transcriptDir": f"/x/{session}/subagents/workflows/{run}",
    }
    notice = "<task-notification>\n<task-id>w67t7ovhy</task-id>\n</task-notification>"
    parent = _write(
        project / f"{session}.jsonl",
        [
            _user(session, 1, None, "run the workflow", prompt, at, promptSource="sdk"),
            _assistant(session, 2, 1, "M1", _tool(1, "Workflow"), _usage(3, 1000, 5000, 50)),
            _user(session, 3, 2, _result(1), prompt, at, toolUseResult=launched),
            _assistant(
                session, 4, 3, "M2", [{"type": "text", "text": "a"}], _usage(1, 10, 6000, 5)
            ),
            _user(
                session,
                5,
                4,
                notice,
                "44444444-0000-4444-8444-444444444444",
                at,
                origin={"kind": "task-notification"},
                promptSource="system",
                turnOrigin="task_notification",
            ),
            _assistant(
                session, 6, 5, "M3", [{"type": "text", "text": "b"}], _usage(1, 20, 6100, 7)
            ),
        ],
    )
    runs = project / session / "subagents" / "workflows" / run
    agents = ["acc569b1b4e757f67", "a3ec0bfb65b074891", "adbe167606b9275e1"]
    for k, agent in enumerate(agents):
        n = 100 + 10 * k
        side = {"isSidechain": True, "agentId": agent}
        _write(
            runs / f"agent-{agent}.jsonl",
            [
                _user(session, n, None, f"part {k}", prompt, at, **side),
                _assistant(session, n + 1, n, f"W{k}a", _tool(n, "Bash"), _usage(5, 300, 2000, 20))
                | side,
                _user(session, n + 2, n + 1, _result(n), prompt, at, toolUseResult={}, **side),
                _assistant(
                    session,
                    n + 3,
                    n + 2,
                    f"W{k}b",
                    [{"type": "text", "text": "c"}],
                    _usage(1, 30, 2300, 6),
                )
                | side,
            ],
        )
        meta = {
            "agentType": "workflow-subagent",
            "description": f"part {k}",
            "workflowPhase": "Echo",
            "spawnDepth": 1,
            "requestShape": "foreground",
            "requestNonInteractive": True,
        }
        (runs / f"agent-{agent}.meta.json").write_text(json.dumps(meta))
    journal = [
        {"type": "started", "key": f"v2:{k:064x}", "agentId": a, "label": f"l{k}", "phase": "Echo"}
        for k, a in enumerate(agents)
    ] + [{"type": "result", "key": f"v2:{k:064x}", "agentId": a} for k, a in enumerate(agents)]
    (runs / "journal.jsonl").write_text("".join(json.dumps(line) + "\n" for line in journal))
    manifest = {"runId": run, "status": "completed", "totalTokens": 78, "workflowProgress": []}
    (project / session / "workflows" / "scripts").mkdir(parents=True)
    (project / session / "workflows" / f"{run}.json").write_text(json.dumps(manifest))
    (project / session / "workflows" / "scripts" / f"echo-{run}.js").write_text("x\n")

    report = _inspect(cli, parent)
    assert report["refusals"] == []
    counts = report["counts"]
    assert (counts["model_calls"], counts["subagents"], counts["tasks"]) == (9, 3, 1)
    assert counts["delegations_expanded"] == 1
    assert report["bound_files"] == 1 + 3 * 2 + 1 + 1  # parent, agents and metas, journal, manifest
    assert report["usage"]["output_tokens"] == 50 + 5 + 7 + 3 * (20 + 6)
    assert report["usage"]["input_tokens"] == 3 + 1 + 1 + 3 * (5 + 1)
