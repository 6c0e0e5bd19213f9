"""An agent the main transcript sends a message to from a later task (SendMessage, 2.1.77 on):
a stopped subagent resumes in its own transcript, which grows (anthropics/claude-code#77510),
and an in-process teammate takes the message up as its next work (wrapped in
<teammate-message>). The work it does from that record on is the sending task's, not the task
that spawned it; where the record cannot be found, the conversion refuses instead of guessing.
Shapes as a hunt reproduced them from published issues; none is in the corpus.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

SID = "11111111-2222-4333-8444-555555555555"
AGENT = "a654a7f8cfc5270c1"
MESSAGE = "CANARY also list the test targets"


def _usage() -> dict[str, int]:
    return {"input_tokens": 10, "output_tokens": 5}


def assistant_call(
    uuid: str, parent: str | None, msg_id: str, content: list[Any]
) -> dict[str, Any]:
    """One final model call's record (10 in, 5 out), stopped for a tool when it asks for one."""
    stop = "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn"
    return {
        "type": "assistant",
        "uuid": uuid,
        "parentUuid": parent,
        "message": {
            "id": msg_id,
            "role": "assistant",
            "model": "claude-sonnet-4-20250514",
            "content": content,
            "stop_reason": stop,
            "usage": _usage(),
        },
    }


def _user(uuid: str, parent: str | None, content: Any, **extra: Any) -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": uuid,
        "parentUuid": parent,
        "message": {"role": "user", "content": content},
        **extra,
    }


def _result(uuid: str, parent: str, tool_id: str, outcome: dict[str, Any]) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": "CANARY result"}
    return _user(uuid, parent, [block], toolUseResult=outcome, sourceToolAssistantUUID=parent)


def _sent_result(failed: bool) -> dict[str, Any]:
    """What the SendMessage call got back; a failure is an error result (anthropics/claude-code
    #83261: 'No transcript found for agent ID')."""
    if not failed:
        return _result("r3", "a3", "toolu_send", {"success": True, "message": "CANARY queued"})
    block = {"type": "tool_result", "tool_use_id": "toolu_send", "is_error": True}
    block["content"] = "CANARY no transcript found"
    return _user("r3", "a3", [block], toolUseResult="Error: CANARY", sourceToolAssistantUUID="a3")


def _write(path: Path, records: list[dict[str, Any]], **common: Any) -> None:
    for n, rec in enumerate(records):
        rec.update(sessionId=SID, version="2.1.280", timestamp=f"2026-11-20T10:{n:02d}:00.000Z")
        rec.update(common)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _tree(
    folder: Path,
    *,
    to: str = AGENT,
    same_task: bool = False,
    received: Any = MESSAGE,
    teammate: bool = False,
    send_input: dict[str, Any] | None = None,
    send_failed: bool = False,
    received_extra: dict[str, Any] | None = None,
) -> Path:
    """Prompt 1 spawns the agent (Agent call, result); prompt 2 (unless `same_task`) sends it
    `MESSAGE`. The agent's transcript: its first run (one call), then, when `received` is not
    None, a record holding `received` and two more calls."""
    spawn = {"type": "tool_use", "id": "toolu_spawn", "name": "Agent", "input": {}}
    spawn["input"] = {"prompt": "CANARY scan", "subagent_type": "general-purpose"}
    if teammate:
        spawn["input"]["name"] = "scanner"
    send = {"type": "tool_use", "id": "toolu_send", "name": "SendMessage", "input": {}}
    send["input"] = send_input or {"to": to, "summary": "CANARY", "message": MESSAGE}
    spawned = (
        {"status": "teammate_spawned", "name": "scanner"}
        if teammate
        else {"status": "completed", "agentId": AGENT}
    )
    parent = [
        _user("u1", None, "CANARY prompt 1"),
        assistant_call("a1", "u1", "msg_spawn", [spawn]),
        _result("r1", "a1", "toolu_spawn", spawned),
        assistant_call("a2", "r1", "msg_done", [{"type": "text", "text": "CANARY"}]),
    ]
    if not same_task:
        parent.append(_user("u2", "a2", "CANARY prompt 2"))
    last = parent[-1]["uuid"]
    parent += [
        assistant_call("a3", last, "msg_send", [send]),
        _sent_result(send_failed),
        assistant_call("a4", "r3", "msg_after", [{"type": "text", "text": "CANARY"}]),
    ]
    _write(folder / f"{SID}.jsonl", parent)
    child = [
        _user("c1", None, "CANARY scan"),
        assistant_call("c2", "c1", "msg_first_run", [{"type": "text", "text": "CANARY"}]),
    ]
    if received is not None:
        child += [
            _user("c3", "c2", received, **(received_extra or {})),
            assistant_call("c4", "c3", "msg_resumed_1", [{"type": "text", "text": "CANARY"}]),
            assistant_call("c5", "c4", "msg_resumed_2", [{"type": "text", "text": "CANARY"}]),
        ]
    subagents = folder / SID / "subagents"
    _write(subagents / f"agent-{AGENT}.jsonl", child, isSidechain=True, agentId=AGENT)
    meta: dict[str, Any] = {"agentType": "general-purpose"}
    if teammate:
        meta.update(name="scanner", taskKind="in_process_teammate", spawnDepth=0)
    else:
        meta["toolUseId"] = "toolu_spawn"
    (subagents / f"agent-{AGENT}.meta.json").write_text(json.dumps(meta))
    return folder / f"{SID}.jsonl"


def _tasks(parent: Path) -> dict[str, int | None]:
    from converter.run.pipeline import read_tree

    account = read_tree(parent)
    assert account.refusals == [], account.refusals
    return {msg: call.task for msg, call in account.calls.items()}


@pytest.mark.parametrize(
    ("teammate", "received"),
    [
        (False, MESSAGE),
        (False, [{"type": "text", "text": MESSAGE}]),
        (True, f'<teammate-message teammate_id="team-lead">\n{MESSAGE}\n</teammate-message>'),
        # a diff review: batched with a peer's message; a summary holding '>'; the sentence
        # later versions put before the tag
        (
            True,
            '<teammate-message teammate_id="peer">CANARY hi</teammate-message>\n'
            f'<teammate-message teammate_id="team-lead">{MESSAGE}</teammate-message>',
        ),
        (
            True,
            '<teammate-message teammate_id="team-lead" color="blue" summary="a -> b">'
            f"{MESSAGE}</teammate-message>",
        ),
        (
            True,
            "Another Claude session sent a message:\n"
            f'<teammate-message teammate_id="team-lead">{MESSAGE}</teammate-message>',
        ),
    ],
    ids=[
        "resumed-subagent",
        "resumed-subagent-text-block",
        "teammate",
        "teammate-batched",
        "teammate-summary-with-arrow",
        "teammate-sentence-first",
    ],
)
def test_work_taken_up_from_a_later_tasks_message_is_that_tasks(
    tmp_path: Path, teammate: bool, received: str
) -> None:
    """Was: the resumed calls counted to the task that spawned the agent (exit 0, no finding:
    a hunt's bundle moved $0.03 of a later prompt's spend onto the first)."""
    tasks = _tasks(_tree(tmp_path, teammate=teammate, received=received))
    assert tasks["msg_spawn"] == tasks["msg_first_run"] == 0
    assert tasks["msg_send"] == tasks["msg_resumed_1"] == tasks["msg_resumed_2"] == 1


_FRAMED = (
    f"The coordinator sent a message while you were working:\n{MESSAGE}\n\n"
    "Address this before completing your current task."
)


@pytest.mark.parametrize(
    "received",
    [_FRAMED, _FRAMED + "\n\nIMPORTANT: CANARY not from your user", MESSAGE],
    ids=["framed", "framed-with-warning", "bare"],
)
@pytest.mark.parametrize("meta", [True, False], ids=["meta", "not-meta"])
def test_a_coordinator_record_hands_the_agent_its_message(
    tmp_path: Path, received: str, meta: bool
) -> None:
    """2.1.2xx writes the message an agent takes up as `origin.kind: "coordinator"`, `isMeta`,
    framed by Claude Code's sentences (published captures). Was: read as harness text (meta),
    so the agent looked given nothing after its first call and its resumed calls stayed in
    the spawning task (exit 0, no finding)."""
    extra: dict[str, Any] = {"origin": {"kind": "coordinator"}}
    if meta:
        extra["isMeta"] = True
    tasks = _tasks(_tree(tmp_path, received=received, received_extra=extra))
    assert tasks["msg_first_run"] == 0
    assert tasks["msg_resumed_1"] == tasks["msg_resumed_2"] == 1


def _queued(uuid: str, parent: str, prompt: Any) -> dict[str, Any]:
    """A message delivered to a running agent at its next tool round, as a 2.1.288 capture
    shows it (origin coordinator, `isMeta`; a plugin's send adds `origin.plugin`)."""
    attachment = {"type": "queued_command", "prompt": prompt, "isMeta": True}
    attachment["origin"] = {"kind": "coordinator"}
    return {"type": "attachment", "uuid": uuid, "parentUuid": parent, "attachment": attachment}


@pytest.mark.parametrize(
    ("meta_copy", "blocks"),
    [(False, False), (True, False), (False, True)],
    ids=["attachment-only", "attachment-and-meta", "attachment-of-text-blocks"],
)
def test_a_message_queued_for_a_running_agent_moves_its_later_work(
    tmp_path: Path, meta_copy: bool, blocks: bool
) -> None:
    """Was: an attachment is no user record, so the agent looked given nothing after its first
    call and its later calls stayed in the spawning task (exit 0). A message written twice,
    queued and then as the meta prompt, with no call between, is one delivery."""
    parent = _tree(tmp_path, received=None)
    child = tmp_path / SID / "subagents" / f"agent-{AGENT}.jsonl"
    records = [json.loads(line) for line in child.read_text().splitlines()]
    # a queued prompt may be content blocks, as a typed one may (a review: it was unread)
    prompt: Any = [{"type": "text", "text": MESSAGE}] if blocks else MESSAGE
    added: list[dict[str, Any]] = [_queued("q1", "c2", prompt)]
    last = "q1"
    if meta_copy:
        extra = {"isMeta": True, "origin": {"kind": "coordinator"}}
        added.append(_user("c3", "q1", _FRAMED, **extra))
        last = "c3"
    added += [
        assistant_call("c4", last, "msg_resumed_1", [{"type": "text", "text": "CANARY"}]),
        assistant_call("c5", "c4", "msg_resumed_2", [{"type": "text", "text": "CANARY"}]),
    ]
    for rec in added:
        rec.update(sessionId=SID, version="2.1.288", timestamp="2026-11-20T11:00:00.000Z")
        rec.update(isSidechain=True, agentId=AGENT)
    child.write_text("".join(json.dumps(r) + "\n" for r in records + added))
    tasks = _tasks(parent)
    assert tasks["msg_first_run"] == 0
    assert tasks["msg_resumed_1"] == tasks["msg_resumed_2"] == 1


def test_a_coordinator_record_of_another_message_is_refused(tmp_path: Path, cli: Any) -> None:
    extra = {"origin": {"kind": "coordinator"}, "isMeta": True}
    other = _FRAMED.replace(MESSAGE, "CANARY something else")
    parent = _tree(tmp_path, received=other, received_extra=extra)
    result = cli("inspect", "--json", "--in", str(parent))
    assert result.code == 2
    assert [r["code"] for r in result.json()["refusals"]] == ["CC-TREE-AGENT-RESUME-UNPLACED"]


def test_the_delegation_returns_only_the_agents_first_run(tmp_path: Path) -> None:
    """A `returns` edge ran from the resumed run's last call back to the spawning call's
    successor, minutes before that call was made: an edge no evidence gives."""
    from converter.run.pipeline import read_tree

    account = read_tree(_tree(tmp_path))
    returns = {e.source for e in account.edges if e.kind == "returns"}
    assert returns == {("model", "msg_first_run")}


def test_a_message_the_agent_never_took_up_from_a_later_task_is_refused(
    tmp_path: Path, cli: Any
) -> None:
    parent = _tree(tmp_path, received="CANARY something else")
    result = cli("inspect", "--json", "--in", str(parent))
    assert result.code == 2
    refusals = [(r["code"], r["line"]) for r in result.json()["refusals"]]
    assert refusals == [("CC-TREE-AGENT-RESUME-UNPLACED", 6)]  # the SendMessage call's line
    assert "CANARY" not in result.out + result.err
    session = cli("inspect", "--json", "--task-unit", "session", "--in", str(parent))
    assert session.code == 0, session.err


@pytest.mark.parametrize(
    "shape",
    ["same-task-not-found", "another-agent", "no-second-run"],
)
def test_messages_that_move_no_work_change_nothing(tmp_path: Path, shape: str) -> None:
    """A message from the task that spawned the agent moves nothing, found or not; a message
    to a name no agent of the tree has (a teammate of another session, `*`) is not this tree's;
    an agent given nothing after its first call has no work of another task to move."""
    if shape == "same-task-not-found":
        parent = _tree(tmp_path, same_task=True, received="CANARY other")
    elif shape == "another-agent":
        parent = _tree(tmp_path, to="someone-else")
    else:
        parent = _tree(tmp_path, received=None)
    tasks = _tasks(parent)
    assert all(task == 0 for msg, task in tasks.items() if msg.startswith("msg_first_run"))
    resumed = [task for msg, task in tasks.items() if msg.startswith("msg_resumed")]
    assert all(task == 0 for task in resumed)


@pytest.mark.parametrize(
    "send_input",
    [
        {"recipient": AGENT, "content": MESSAGE},  # 2.1.20-2.1.3x names
        {"to": "*", "message": MESSAGE},  # a broadcast, to every teammate
    ],
    ids=["old-field-names", "broadcast"],
)
def test_other_spellings_of_a_message_are_followed(
    tmp_path: Path, send_input: dict[str, Any]
) -> None:
    teammate = send_input.get("to") == "*"
    tasks = _tasks(_tree(tmp_path, teammate=teammate, send_input=send_input))
    assert tasks["msg_resumed_1"] == tasks["msg_resumed_2"] == 1


def test_a_failed_message_hands_nothing(tmp_path: Path) -> None:
    """A SendMessage that failed (an error result) resumed no one: it was refused as a
    message the agent never took up whenever the agent had taken other turns."""
    parent = _tree(tmp_path, received="CANARY another turn", send_failed=True)
    tasks = _tasks(parent)
    assert tasks["msg_resumed_1"] == tasks["msg_resumed_2"] == 0


def test_an_agent_working_for_a_later_task_is_that_tasks_subagent_too(tmp_path: Path) -> None:
    from converter.run.pipeline import read_tree

    account = read_tree(_tree(tmp_path))
    assert [t.subagents for t in account.tasks] == [1, 1]


def test_teammate_message_bodies_are_found_in_one_pass() -> None:
    """A review: the element pattern backtracked over every opener with no closing tag (8,000
    openers, a 192 KB prompt: 12 s; real lines reach MBs). One pass now; what it finds is
    the same: the element the last opener before each closing tag starts."""
    from converter.reader.records import _bodies

    element = '<teammate-message teammate_id="lead" summary="a -> b">{}</teammate-message>'
    text = '<teammate-message x="' * 50_000 + element.format("one") + element.format("two")
    assert _bodies(text) == ["one", "two"]
    assert _bodies("<teammate-messages>x</teammate-messages>") == []
    assert _bodies('<teammate-message a="1">never closed') == []


def test_a_broadcast_found_but_not_once_per_sending_is_refused(tmp_path: Path, cli: Any) -> None:
    """A review: a teammate held the broadcast's text twice (a peer sent it too) and the lead
    broadcast it once: as for a message to that teammate alone, it cannot be placed; it was
    dropped, and the teammate's later work stayed with the task that spawned it."""
    wrapped = f'<teammate-message teammate_id="team-lead">{MESSAGE}</teammate-message>'
    parent = _tree(
        tmp_path, teammate=True, send_input={"to": "*", "message": MESSAGE}, received=wrapped
    )
    child = tmp_path / SID / "subagents" / f"agent-{AGENT}.jsonl"
    lines = child.read_text().splitlines(keepends=True)
    peer = json.loads(lines[2])
    peer.update(uuid="c2b", parentUuid="c2")
    peer["message"]["content"] = wrapped.replace("team-lead", "peer")
    child.write_text("".join([*lines[:2], json.dumps(peer) + "\n", *lines[2:]]))
    result = cli("inspect", "--json", "--in", str(parent))
    assert [r["code"] for r in result.json()["refusals"]] == ["CC-TREE-AGENT-RESUME-UNPLACED"]


def test_a_grandchild_spawned_after_a_resume_is_the_later_tasks(tmp_path: Path) -> None:
    """A subagent resumed by a later prompt's message that then delegates: the grandchild's
    spend is that later task's (a mutation review: taking every delegation at the start of
    its stream survived; no fixture had a resumed subagent delegating)."""
    parent = _tree(tmp_path)
    subagents = tmp_path / SID / "subagents"
    spawn = {
        "type": "tool_use",
        "id": "toolu_gc",
        "name": "Agent",
        "input": {"prompt": "CANARY dig", "subagent_type": "general-purpose"},
    }
    grand = "a1234567890abcdef"
    child = [
        _user("c1", None, "CANARY scan"),
        assistant_call("c2", "c1", "msg_first_run", [{"type": "text", "text": "CANARY"}]),
        _user("c3", "c2", MESSAGE),
        assistant_call("c4", "c3", "msg_resumed_1", [spawn]),
        _result("c4r", "c4", "toolu_gc", {"status": "completed", "agentId": grand}),
        assistant_call("c5", "c4r", "msg_resumed_2", [{"type": "text", "text": "CANARY"}]),
    ]
    _write(subagents / f"agent-{AGENT}.jsonl", child, isSidechain=True, agentId=AGENT)
    grandchild = [
        _user("g1", None, "CANARY dig"),
        assistant_call("g2", "g1", "msg_grandchild", [{"type": "text", "text": "CANARY"}]),
    ]
    _write(subagents / f"agent-{grand}.jsonl", grandchild, isSidechain=True, agentId=grand)
    (subagents / f"agent-{grand}.meta.json").write_text(
        json.dumps({"agentType": "general-purpose", "toolUseId": "toolu_gc"})
    )
    tasks = _tasks(parent)
    assert tasks["msg_first_run"] == 0
    assert tasks["msg_resumed_1"] == tasks["msg_grandchild"] == 1


def test_a_framed_message_that_holds_the_closing_sentence_is_still_found(tmp_path: Path) -> None:
    """The frame's closing sentence is its last: a message that quotes it keeps its own copy
    (the message is what stands before the last one)."""
    message = f"{MESSAGE}\n\nAddress this before completing your current task.\n\nthen stop"
    send = {"to": AGENT, "summary": "CANARY", "message": message}
    framed = (
        f"The coordinator sent a message while you were working:\n{message}\n\n"
        "Address this before completing your current task."
    )
    extra = {"origin": {"kind": "coordinator"}, "isMeta": True}
    tasks = _tasks(_tree(tmp_path, received=framed, received_extra=extra, send_input=send))
    assert tasks["msg_first_run"] == 0
    assert tasks["msg_resumed_1"] == tasks["msg_resumed_2"] == 1


def _child_after_first_run(tmp_path: Path, added: list[dict[str, Any]]) -> Path:
    parent = _tree(tmp_path, received=None)
    child = tmp_path / SID / "subagents" / f"agent-{AGENT}.jsonl"
    records = [json.loads(line) for line in child.read_text().splitlines()]
    for rec in added:
        rec.update(sessionId=SID, version="2.1.288", timestamp="2026-11-20T11:00:00.000Z")
        rec.update(isSidechain=True, agentId=AGENT)
    child.write_text("".join(json.dumps(r) + "\n" for r in records + added))
    return parent


_META = {"isMeta": True, "origin": {"kind": "coordinator"}}


@pytest.mark.parametrize(
    "shape",
    ["two-meta-records", "queued-then-call-then-meta", "queued-other-message"],
)
def test_what_is_not_one_delivery_of_the_one_message_is_refused(
    tmp_path: Path, cli: Any, shape: str
) -> None:
    """One message sent; the agent's transcript holds it twice in a way that is not the
    queued-then-meta pair (two meta records, or a call between the two), or holds only
    a queued command of another message: which record the work follows cannot be told, and
    the agent was given something after its first call (a queued command counts)."""
    call = [{"type": "text", "text": "CANARY"}]
    if shape == "two-meta-records":
        added = [_user("m1", "c2", _FRAMED, **_META), _user("m2", "m1", _FRAMED, **_META)]
        last = "m2"
    elif shape == "queued-then-call-then-meta":
        added = [_queued("q1", "c2", MESSAGE), assistant_call("c3", "q1", "msg_between", call)]
        added.append(_user("m1", "c3", _FRAMED, **_META))
        last = "m1"
    else:
        added = [_queued("q1", "c2", _FRAMED.replace(MESSAGE, "CANARY something else"))]
        last = "q1"
    added.append(assistant_call("c4", last, "msg_resumed_1", call))
    parent = _child_after_first_run(tmp_path, added)
    result = cli("inspect", "--json", "--in", str(parent))
    assert result.code == 2, result.out
    assert [r["code"] for r in result.json()["refusals"]] == ["CC-TREE-AGENT-RESUME-UNPLACED"]


def test_a_message_from_an_agent_of_another_task_is_refused(cli: Any) -> None:
    """An attribution audit: agent A, spawned in task 1, took up in task 2 a message agent X
    (spawned in task 2) sent it; its calls after the message stayed in task 1, unremarked,
    where the same message from the main transcript moves them to task 2. Messages between
    agents are not followed: refused at the SendMessage call, --task-unit session converts.
    (tests/trees/message_between_agents: the audit's tree.)"""
    parent = next((Path(__file__).parent / "trees" / "message_between_agents").glob("*.jsonl"))
    refused = cli("inspect", "--in", str(parent), "--json")
    assert refused.code == 2
    codes = [(r["code"], r["file"]) for r in refused.json()["refusals"]]
    assert [code for code, _ in codes] == ["CC-TREE-AGENT-MESSAGE-UNFOLLOWED"]
    whole = cli("inspect", "--in", str(parent), "--task-unit", "session")
    assert whole.code == 0, whole.err
