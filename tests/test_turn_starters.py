"""What starts a task in the main transcript, for user records of current Claude Code versions
that the corpus does not hold (each shape as published parsers and captures describe it; see
docs/claude-code-shapes.md §11).

Every case is one parent: a prompt and its call, the record under test, then one more call.
The record either starts a task (the last call is in a second task) or does not (it stays in
the first prompt's task).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.test_agent_messages import assistant_call

SID = "11111111-2222-4333-8444-555555555555"


def _call(uuid: str, parent: str, msg_id: str) -> dict[str, Any]:
    return assistant_call(uuid, parent, msg_id, [{"type": "text", "text": "CANARY answer"}])


def _parent(folder: Path, record: dict[str, Any]) -> Path:
    """Prompt u1, call msg_1, `record` (uuid u2), call msg_2."""
    record = {"type": "user", "uuid": "u2", "parentUuid": "a1", **record}
    records = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "message": {"content": "CANARY 1"}},
        _call("a1", "u1", "msg_1"),
        record,
        _call("a2", "u2", "msg_2"),
    ]
    for n, rec in enumerate(records):
        rec.update(sessionId=SID, version="2.1.288", timestamp=f"2026-11-20T10:0{n}:00.000Z")
        if rec["type"] == "user":
            rec["message"]["role"] = "user"
    parent = folder / f"{SID}.jsonl"
    parent.write_text("".join(json.dumps(r) + "\n" for r in records))
    return parent


def _tasks(folder: Path, record: dict[str, Any]) -> tuple[int, bool]:
    """How many tasks, and whether the last call is in a task of its own."""
    from converter.run.pipeline import read_tree

    account = read_tree(_parent(folder, record))
    assert account.refusals == []
    calls = account.calls
    return len(account.tasks), calls["msg_2"].task != calls["msg_1"].task


def _text(text: str) -> dict[str, Any]:
    return {"message": {"content": text}}


@pytest.mark.parametrize(
    "record",
    [
        # bash mode (`! cmd`): what the command printed back, after its <bash-input> record
        _text("<bash-stdout>CANARY out</bash-stdout><bash-stderr></bash-stderr>"),
        _text("<bash-stderr>CANARY err</bash-stderr>"),
        # the Esc marker of 2.1.288 names the message it interrupted; a typed prompt has none
        {"interruptedMessageId": "msg_1", **_text("[Request interrupted by user]")},
        # before it, the marker is one text block of Claude Code's fixed text (11 in the
        # corpus; 258c7280's at line 495 took 124 of its 156 calls as a task of its own)
        {"message": {"content": [{"type": "text", "text": "[Request interrupted by user]"}]}},
        {
            "message": {
                "content": [{"type": "text", "text": "[Request interrupted by user for tool use]"}]
            }
        },
        # a teammate's report to the lead, a sentence before the tag
        _text('Another Claude session sent a message:\n<teammate-message teammate_id="r">x'),
        # turns no person started, named by `turnOrigin` alone
        {"turnOrigin": "task_notification", **_text("CANARY background agent done")},
        {"turnOrigin": "peer", **_text("CANARY from another session")},
        {"turnOrigin": "scheduled", **_text("CANARY wake up")},
    ],
    ids=[
        "bash-stdout",
        "bash-stderr",
        "interruption",
        "interruption-old-form",
        "interruption-old-form-tool-use",
        "teammate-report",
        "turn-task-notification",
        "turn-peer",
        "turn-scheduled",
    ],
)
def test_records_no_person_typed_start_no_task(tmp_path: Path, record: dict[str, Any]) -> None:
    """Each of these was a task of its own (zero calls or the next call's), to be labelled."""
    assert _tasks(tmp_path, record) == (1, False)


@pytest.mark.parametrize(
    "record",
    [
        _text("<bash-input>CANARY ls</bash-input>"),  # a `!` command, as a slash command is
        {"turnOrigin": "human", "promptSource": "typed", **_text("CANARY 2")},
        {"turnOrigin": "sdk", "promptSource": "sdk", **_text("CANARY 2")},
        {
            "message": {
                "content": [
                    {"type": "document", "source": {"type": "base64", "data": "CANARY"}},
                    {"type": "text", "text": "CANARY summarise this"},
                ]
            }
        },
        {"message": {"content": [{"type": "document", "source": {"type": "base64"}}]}},
        # a message sent through a channel (a chat bridge), as published parsers' fixtures
        # quote current transcripts: `isMeta`, `origin.kind: "channel"`, a <channel> wrapper
        {
            "isMeta": True,
            "origin": {"kind": "channel", "server": "plugin:telegram:telegram"},
            **_text('<channel source="plugin:telegram:telegram" chat_id="1">CANARY</channel>'),
        },
        # the marker's text typed by a person (a string), or with more beside it: a prompt
        _text("[Request interrupted by user]"),
        {
            "message": {
                "content": [
                    {"type": "text", "text": "[Request interrupted by user]"},
                    {"type": "text", "text": "CANARY and then"},
                ]
            }
        },
    ],
    ids=[
        "bash-input",
        "typed",
        "sdk",
        "document-and-text",
        "document-alone",
        "channel",
        "marker-text-typed",
        "marker-text-and-more",
    ],
)
def test_prompts_start_a_task(tmp_path: Path, record: dict[str, Any]) -> None:
    """A prompt with an attached PDF was no prompt: its calls went to the previous task (or,
    as a headless session's only prompt, to none: CC-TASK-UNATTRIBUTED). So was a message
    sent through a channel (`isMeta`), silently, exit 0 (a shapes hunt)."""
    assert _tasks(tmp_path, record) == (2, True)


def test_a_channel_message_is_counted_as_one(tmp_path: Path, cli: Any) -> None:
    """Such a task is said (a channel can be a bot's); one with content of no known kind is
    refused as any such user record is."""
    channel = {"isMeta": True, "origin": {"kind": "channel"}}
    parent = _parent(tmp_path, {**channel, **_text("<channel source='x'>CANARY</channel>")})
    result = cli("inspect", "--json", "--in", str(parent))
    assert result.code == 0, result.err
    findings = {f["code"]: f["count"] for f in result.json()["findings"]}
    assert findings["CC-TASK-CHANNEL-PROMPT"] == 1
    parent = _parent(tmp_path, {**channel, "message": {"content": [{"type": "CANARY"}]}})
    refused = cli("inspect", "--json", "--in", str(parent))
    assert [r["code"] for r in refused.json()["refusals"]] == ["CC-TASK-USER-CONTENT-UNKNOWN"]


@pytest.mark.parametrize(
    "content",
    [
        [{"type": "CANARY-block", "text": "CANARY"}],
        [{"type": "text", "text": "CANARY"}, {"type": "CANARY-block"}],
        [],
        {"type": "text", "text": "CANARY"},
        None,
    ],
    ids=["unknown-block", "text-and-unknown-block", "empty-list", "object", "none"],
)
def test_user_content_of_an_unknown_kind_is_refused(tmp_path: Path, cli: Any, content: Any) -> None:
    """Content of no known kind could be a prompt or not: it was read as not one, so the calls
    after it went silently to the previous task. Now refused at its line, with no content in
    the message; `--task-unit session` converts it."""
    parent = _parent(tmp_path, {"message": {"content": content}})
    result = cli("inspect", "--json", "--in", str(parent))
    assert result.code == 2
    refusals = [(r["code"], r["line"]) for r in result.json()["refusals"]]
    assert refusals == [("CC-TASK-USER-CONTENT-UNKNOWN", 3)]
    assert "CANARY" not in result.out + result.err
    session = cli("inspect", "--json", "--task-unit", "session", "--in", str(parent))
    assert session.code == 0, session.err


@pytest.mark.parametrize("kind", ["voice", "CANARY-kind", 7])
def test_a_prompt_of_an_unknown_origin_is_refused(tmp_path: Path, cli: Any, kind: Any) -> None:
    """A format-drift review: a prompt whose `origin.kind` this version does not know was read
    as no task, its calls silently the task before's (6 tasks became 5, exit 0). Refused at its
    line, the kind never quoted; `--task-unit session` converts it."""
    parent = _parent(tmp_path, {"origin": {"kind": kind}, **_text("CANARY prompt")})
    result = cli("inspect", "--json", "--in", str(parent))
    assert result.code == 2
    refusals = [(r["code"], r["line"]) for r in result.json()["refusals"]]
    assert refusals == [("CC-TASK-ORIGIN-UNKNOWN", 3)]
    assert "CANARY" not in result.out + result.err
    session = cli("inspect", "--json", "--task-unit", "session", "--in", str(parent))
    assert session.code == 0, session.err
    human = _parent(tmp_path, {"origin": {"kind": "human"}, **_text("CANARY prompt")})
    assert cli("inspect", "--json", "--in", str(human)).code == 0


_BOOKKEEPING = [
    "cost-state",
    "atis-latch",
    "agent-setting",
    "frame-link",
    "artifact-autoreact-ledger",
    "artifact-comment-monitor",
    "file-history-delta",
    "relocated",
    "continued-in",
]


@pytest.mark.parametrize("kind", _BOOKKEEPING)
def test_bookkeeping_records_of_current_versions_are_known(
    tmp_path: Path, cli: Any, kind: str
) -> None:
    """Each was CC-REC-UNKNOWN-TYPE in almost every current session (a shapes hunt: published
    parsers' fixtures list them); known, a usage inside one is still refused, not skipped."""
    parent = _parent(tmp_path, _text("CANARY 2"))
    record = {"type": kind, "sessionId": SID, "path": "/CANARY/page.html"}
    with parent.open("a") as stream:
        stream.write(json.dumps(record) + "\n")
    result = cli("inspect", "--json", "--in", str(parent))
    assert result.code == 0, result.err
    assert "CC-REC-UNKNOWN-TYPE" not in {f["code"] for f in result.json()["findings"]}
    record["usage"] = {"input_tokens": 5, "output_tokens": 1}
    with parent.open("a") as stream:
        stream.write(json.dumps(record) + "\n")
    refused = cli("inspect", "--json", "--in", str(parent))
    assert [(r["code"], r["line"]) for r in refused.json()["refusals"]] == [
        ("CC-REC-USAGE-UNREAD", 6)
    ]


def _compacted(folder: Path, summary: dict[str, Any]) -> Path:
    """Prompt u1, call msg_1, a compact_boundary b1, `summary` (uuid u2, its child), msg_2."""
    records = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "message": {"content": "CANARY 1"}},
        _call("a1", "u1", "msg_1"),
        {
            "type": "system",
            "subtype": "compact_boundary",
            "uuid": "b1",
            "parentUuid": None,
            "logicalParentUuid": "a1",
            "content": "Conversation compacted",
            "compactMetadata": {"trigger": "auto", "preTokens": 150000},
        },
        {"type": "user", "uuid": "u2", "parentUuid": "b1", **summary},
        _call("a2", "u2", "msg_2"),
    ]
    for n, rec in enumerate(records):
        rec.update(sessionId=SID, version="2.1.288", timestamp=f"2026-11-20T10:0{n}:00.000Z")
    parent = folder / f"{SID}.jsonl"
    parent.write_text("".join(json.dumps(r) + "\n" for r in records))
    return parent


def test_a_compaction_summary_not_marked_one_is_refused(tmp_path: Path) -> None:
    """A FORMAT-NOTES audit: with `isCompactSummary` renamed, the summary (the boundary's child)
    was read as a prompt, a phantom task that took the calls after it, exit 0."""
    from converter.run.pipeline import read_tree

    text = {"role": "user", "content": "CANARY summary of the conversation so far"}
    marked = read_tree(_compacted(tmp_path, {"message": text, "isCompactSummary": True}))
    assert marked.refusals == []
    assert len(marked.tasks) == 1
    renamed = read_tree(_compacted(tmp_path, {"message": text, "isCompactionSummary": True}))
    assert [(p.code, p.line) for p in renamed.refusals] == [("CC-TASK-COMPACT-SUMMARY-UNMARKED", 4)]
