"""Layout edge cases found by reconciling docs/claude-code-shapes.md with the code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.contract_helpers import fill, read_json, write_json

SID = "11111111-2222-4333-8444-555555555555"
OTHER = "99999999-2222-4333-8444-555555555555"


def _line(**record: Any) -> str:
    return json.dumps(record) + "\n"


def _usage() -> dict[str, Any]:
    return {
        "input_tokens": 10,
        "output_tokens": 5,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
    }


def _answer(
    msg_id: str, text: str, stop_reason: str | None = "end_turn", usage: Any = None
) -> dict[str, Any]:
    """An assistant message of one text block."""
    return {
        "id": msg_id,
        "role": "assistant",
        "model": "claude-sonnet-4-20250514",
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop_reason,
        "usage": _usage() if usage is None else usage,
    }


def _parent(folder: Path, extra: str = "") -> Path:
    parent = folder / f"{SID}.jsonl"
    parent.write_text(
        _line(
            type="user",
            uuid="u1",
            parentUuid=None,
            sessionId=SID,
            version="2.0.76",
            message={"role": "user", "content": "CANARY-prompt-text"},
        )
        + _line(
            type="assistant",
            uuid="a1",
            parentUuid="u1",
            sessionId=SID,
            version="2.0.76",
            message=_answer("msg_1", "CANARY-answer"),
        )
        + extra
    )
    return parent


def _sibling(folder: Path, name: str, session: str, prompt: str = "Warmup") -> None:
    (folder / name).write_text(
        _line(
            type="user",
            uuid="s1",
            parentUuid=None,
            sessionId=session,
            isSidechain=True,
            message={"role": "user", "content": prompt},
        )
        + _line(
            type="assistant",
            uuid="s2",
            parentUuid="s1",
            sessionId=session,
            isSidechain=True,
            message=_answer("msg_s", "x"),
        )
    )


def test_sibling_of_another_session_is_not_bound_and_does_not_refuse(
    cli: Any, tmp_path: Path
) -> None:
    parent = _parent(tmp_path)
    _sibling(tmp_path, "agent-1a2b3c4d.jsonl", OTHER)
    with (tmp_path / "agent-1a2b3c4d.jsonl").open("a") as sibling:  # was counted as ours
        sibling.write(_line(type="future-thing", sessionId=OTHER) * 2)
    report = cli("inspect", "--json", "--in", str(parent)).json()
    assert report["convertible"] is True
    assert report["bound_files"] == 1
    assert "CC-REC-UNKNOWN-TYPE" not in {f["code"] for f in report["findings"]}


@pytest.mark.parametrize(
    "name",
    ["agent-1a2b3c4.jsonl", "agent-acompact-fffbd0.jsonl", "agent-a1f8509a410077764.jsonl"],
    ids=["2.0-seven-hex", "compaction-id", "agent-id"],
)
def test_a_sibling_of_this_session_is_found_not_dropped(
    cli: Any, tmp_path: Path, name: str
) -> None:
    """A later id's form beside the parent (a compaction child moved out of subagents/) was not
    discovered at all: its calls were left out, with exit 0 (a format-drift review)."""
    parent = _parent(tmp_path)
    _sibling(tmp_path, name, SID)
    result = cli("inspect", "--json", "--in", str(parent))
    report = result.json()
    assert report["bound_files"] == 2
    assert report["counts"]["model_calls"] == 2  # its call is accounted, not silently left out
    # no delegation joins it; one of 2.0.x's id form is its warm-up agent (below)
    code = "CC-TREE-WARMUP-AGENT" if name == "agent-1a2b3c4.jsonl" else "CC-TREE-ORPHAN-CHILD"
    assert {r["code"] for r in report["refusals"]} == {code}
    assert "CANARY" not in result.out + result.err
    # the text's summary line names the codes too: stdout saved alone says why (a new user)
    text = cli("inspect", "--in", str(parent))
    first = text.out.splitlines()[0]
    assert first == f"Session tree: NOT convertible ({code}; each with its fix on stderr)"
    assert f"refused: {code}" in text.err


@pytest.mark.parametrize("name", ["agent-1a2b3c4.jsonl", "agent-acompact-fffbd0.jsonl"])
def test_single_file_source_refuses_a_sibling_child_of_this_session(
    cli: Any, tmp_path: Path, name: str
) -> None:
    """`--from claude-code` on a 2.0.x main transcript beside its warm-up agent (or a child of a
    later id's form written beside the parent) left that agent's call out, exit 0: it refuses as
    it does for a child in <session>/subagents/. A renamed copy finds it through the session its
    records name; a sibling of another session is not this one's."""
    parent = _parent(tmp_path)
    excerpt = tmp_path / "excerpt.jsonl"
    excerpt.write_bytes(parent.read_bytes())
    _sibling(tmp_path, "agent-1a2b3c4d.jsonl", OTHER)
    for given in (parent, excerpt):
        alone = cli("inspect", "--json", "--from", "claude-code", "--in", str(given)).json()
        assert alone["convertible"] is True
    _sibling(tmp_path, name, SID)
    for given in (parent, excerpt):
        result = cli("inspect", "--json", "--from", "claude-code", "--in", str(given))
        assert result.code == 2
        assert "CC-TREE-CHILDREN-NOT-READ" in {r["code"] for r in result.json()["refusals"]}
        assert "CANARY" not in result.out + result.err


def _bundle_of(cli: Any, parent: Path, tmp_path: Path, *options: str) -> Path:
    """The session's bundle, through its template (tmp_path/template.json, `options` given to
    both conversions) filled with test claims; each step checked to succeed."""
    template = tmp_path / "template.json"
    made = cli("convert", "--in", str(parent), *options, "--template", str(template))
    assert made.code == 0, made.err
    contract = tmp_path / "contract.json"
    write_json(contract, fill(read_json(template)))
    bundle = tmp_path / "bundle.json"
    done = cli(
        "convert", "--in", str(parent), *options, "--contract", str(contract), "--out", str(bundle)
    )
    assert done.code == 0, done.err
    return bundle


@pytest.mark.parametrize("name", ["agent-1a2b3c4.jsonl", "agent-1a2b3c4d.jsonl"])
def test_a_2_0_warmup_agent_is_the_sessions_and_no_prompts(
    cli: Any, tmp_path: Path, name: str
) -> None:
    """Claude Code 2.0.x starts an agent with a session, before any prompt ("Warmup", no call
    delegates it: fasthooks' 2.0.76 agent file). It was an orphan, whose fix (restore the
    transcript that spawned it) could not be followed: per prompt it is CC-TREE-WARMUP-AGENT
    alone, and `--task-unit session` converts it, its call the session's under a `warmup`
    agent."""
    parent = _parent(tmp_path)
    _sibling(tmp_path, name, SID)
    per_prompt = cli("inspect", "--json", "--in", str(parent)).json()
    assert [r["code"] for r in per_prompt["refusals"]] == ["CC-TREE-WARMUP-AGENT"]
    bundle = _bundle_of(cli, parent, tmp_path, "--task-unit", "session")
    doc = read_json(bundle)
    root, warmup = doc["agents"]
    assert (warmup["kind"], warmup["agent_type"], warmup["parent"], warmup["depth"]) == (
        "warmup",
        "warmup",
        root["id"],
        1,
    )
    calls = [e for e in doc["events"] if e["kind"] == "model"]
    assert len(calls) == 2
    assert {e["task"] for e in calls} == {doc["tasks"][0]["id"]}
    assert [e["agent"] for e in calls].count(warmup["id"]) == 1
    judged = cli("evaluate", "--bundle", str(bundle), "--format", "json")
    (task,) = json.loads(judged.out)["tasks"]  # opened and judged, not refused
    assert set(task["cost_by_agent_type"]) == {"main", "warmup"}, judged.err


@pytest.mark.parametrize(
    ("name", "prompt", "sidechain"),
    [
        ("agent-a1f8509a410077764.jsonl", "Warmup", True),  # a later id's form
        ("agent-1a2b3c4.jsonl", "Warm up", True),  # another prompt
    ],
)
def test_an_orphan_like_a_warmup_is_still_an_orphan(
    cli: Any, tmp_path: Path, name: str, prompt: str, sidechain: bool
) -> None:
    """Only 2.0.x's agent with the warm-up prompt is taken for one: an orphan of another id
    form, or with another first prompt, keeps CC-TREE-ORPHAN-CHILD under either task unit."""
    parent = _parent(tmp_path)
    _sibling(tmp_path, name, SID, prompt)
    for unit in ("prompt", "session"):
        report = cli("inspect", "--json", "--in", str(parent), "--task-unit", unit).json()
        assert [r["code"] for r in report["refusals"]] == ["CC-TREE-ORPHAN-CHILD"], unit


def test_parent_named_for_another_session(cli: Any, tmp_path: Path) -> None:
    parent = _parent(tmp_path)
    renamed = tmp_path / f"{OTHER}.jsonl"
    parent.rename(renamed)
    report = cli("inspect", "--json", "--in", str(renamed)).json()
    assert {r["code"] for r in report["refusals"]} == {"CC-TREE-PARENT-NAME"}


def _web_search(tmp_path: Path, query: Any, results: list[Any]) -> Path:
    """A tree whose one call makes one WebSearch call, and its result listing `results`."""
    call = _line(
        type="assistant",
        uuid="a2",
        parentUuid="a1",
        sessionId=SID,
        message={
            "id": "msg_2",
            "role": "assistant",
            "model": "claude-sonnet-4-20250514",
            "content": [{"type": "tool_use", "id": "toolu_w", "name": "WebSearch", "input": query}],
            "stop_reason": "tool_use",
            "usage": _usage(),
        },
    )
    result = _line(
        type="user",
        uuid="u2",
        parentUuid="a2",
        sessionId=SID,
        message={
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_w", "content": "CANARY-r"}],
        },
        toolUseResult={"query": "CANARY-q", "results": results},
    )
    return _parent(tmp_path, call + result)


def test_websearch_without_a_count_is_a_finding(cli: Any, tmp_path: Path) -> None:
    parent = _web_search(tmp_path, {"query": "CANARY-q"}, ["CANARY-text"])
    report = cli("inspect", "--json", "--in", str(parent)).json()
    assert {"code": "CC-REC-WEBSEARCH-COUNT-UNKNOWN", "count": 1} in report["findings"]


@pytest.mark.parametrize("fixture", ["synthetic_tree", "rich_tree"])
def test_a_subagent_file_given_as_parent_says_so(cli: Any, fixture: str) -> None:
    """Said alone: a new user also got CC-TREE-ORPHAN-CHILD, CC-TREE-UNEXPANDED-DELEGATION and
    a 1.0.x finding (CC-REC-SIDECHAIN-IN-FILE) that follow only from reading it as a parent.
    And accounted as what it is, one agent's one task: read as a 1.0.x parent's sidechains, a
    fork's records were orphans and its calls went uncounted (0 model calls)."""
    from tests.conftest import FIXTURES

    children = sorted((FIXTURES / fixture).rglob("agent-*.jsonl"))
    assert children
    for child in children:
        result = cli("inspect", "--json", "--in", str(child))
        assert result.code == 2
        report = result.json()
        assert [r["code"] for r in report["refusals"]] == ["CC-TREE-PARENT-IS-SUBAGENT"], child
        assert "CC-REC-SIDECHAIN-IN-FILE" not in {f["code"] for f in report["findings"]}
        records = [json.loads(line) for line in child.read_text().splitlines() if line.strip()]
        messages = {
            r["message"]["id"]
            for r in records
            if r.get("type") == "assistant" and r["message"].get("model") != "<synthetic>"
        }
        assert report["counts"]["model_calls"] == len(messages), child
        assert report["counts"]["tasks"] == 1, child


@pytest.mark.parametrize("fixture", ["synthetic_tree", "rich_tree"])
def test_a_subagent_transcript_under_a_session_name_says_so(
    cli: Any, fixture: str, tmp_path: Path
) -> None:
    """A review: only the name `agent-<id>.jsonl` told a subagent transcript; a copy under
    another name was read as a 1.0.x parent whose sidechains are orphans
    (CC-TREE-ORPHAN-CHILD). Every prompt and call of it is a sidechain's: that tells it."""
    from tests.conftest import FIXTURES

    for n, child in enumerate(sorted((FIXTURES / fixture).rglob("agent-*.jsonl"))):
        records = [json.loads(line) for line in child.read_text().splitlines() if line.strip()]
        session = next(r["sessionId"] for r in records if "sessionId" in r)
        folder = tmp_path / str(n)
        folder.mkdir()
        renamed = folder / f"{session}.jsonl"
        renamed.write_bytes(child.read_bytes())
        result = cli("inspect", "--json", "--in", str(renamed))
        assert result.code == 2
        report = result.json()
        assert [r["code"] for r in report["refusals"]] == ["CC-TREE-PARENT-IS-SUBAGENT"], child
        assert report["counts"]["tasks"] == 1


@pytest.mark.parametrize("source", [[], ["--from", "claude-code"]], ids=["tree", "one-file"])
def test_a_subagent_transcript_under_another_name_says_only_so(
    cli: Any, tmp_path: Path, source: list[str]
) -> None:
    """A new user's walkthrough (fasthooks' sample_agent_sidechain.jsonl): a copy under a name
    that is no session id also got CC-TREE-PARENT-NAME, whose fix (--from claude-code) was
    refused again with CC-TREE-PARENT-IS-SUBAGENT. Only the latter says what to pass."""
    from tests.conftest import FIXTURES

    child = sorted((FIXTURES / "synthetic_tree").rglob("agent-*.jsonl"))[0]
    renamed = tmp_path / "sample_agent_sidechain.jsonl"
    renamed.write_bytes(child.read_bytes())
    result = cli("inspect", "--json", "--in", str(renamed), *source)
    assert result.code == 2
    report = result.json()
    assert [r["code"] for r in report["refusals"]] == ["CC-TREE-PARENT-IS-SUBAGENT"]
    assert report["counts"]["tasks"] == 1


def test_usage_errors_do_not_echo_a_path_the_user_typed(cli: Any) -> None:
    result = cli("inspect", "--task-unit", "/home/someone/secret-project", "--in", "x.jsonl")
    assert result.code == 64
    assert "secret-project" not in result.err
    assert "'--task-unit'" in result.err
    assert "'prompt', 'session'" in result.err


def test_websearch_counts_each_server_search_once(cli: Any, tmp_path: Path) -> None:
    """Was: the result's entries were counted, so one entry repeated (same server tool id)
    billed its search twice; 50 copies, 50 searches."""
    entries = [
        {"tool_use_id": "srvtoolu_1", "content": []},
        {"tool_use_id": "srvtoolu_1", "content": []},
        {"tool_use_id": "srvtoolu_2", "content": []},
    ]
    parent = _web_search(tmp_path, {}, entries)
    report = cli("inspect", "--json", "--in", str(parent)).json()
    assert report["usage"]["web_search_requests"] == 2


def _stub(msg_id: str, uuid: str, parent: str, **usage: int) -> str:
    """A call whose final usage was never written (no stop_reason, no iterations)."""
    counts = {"input_tokens": 0, "output_tokens": 0, **usage}
    return _line(
        type="assistant",
        uuid=uuid,
        parentUuid=parent,
        sessionId=SID,
        message=_answer(msg_id, "CANARY-partial", None, counts),
    )


def test_a_stub_that_records_no_input_is_a_finding(cli: Any, tmp_path: Path) -> None:
    """Was: a usage-incomplete call whose stub recorded no input at all (gateway traffic in the
    corpus) was priced with 0 input at both ends of its interval, unremarked; the high end was
    read as an upper bound it is not."""
    stubs = _stub("msg_2", "a2", "a1") + _stub("msg_3", "a3", "a2", input_tokens=7)
    stubs += _stub("msg_4", "a4", "a3", cache_read_input_tokens=9)
    report = cli("inspect", "--json", "--in", str(_parent(tmp_path, stubs))).json()
    found = {f["code"]: f["count"] for f in report["findings"]}
    assert found["CC-REC-USAGE-INCOMPLETE"] == 3
    assert found["CC-REC-USAGE-INCOMPLETE-NO-INPUT"] == 1  # msg_3 and msg_4 read some input


def test_a_call_before_any_prompt_is_refused_at_its_line(cli: Any, tmp_path: Path) -> None:
    """CC-TASK-UNATTRIBUTED named the parent file alone: now the line of the first call that
    no prompt precedes, as every refusal about one record does."""
    early = _line(
        type="assistant",
        uuid="a0",
        parentUuid=None,
        sessionId=SID,
        message=_answer("msg_0", "CANARY-early"),
    )
    parent = _parent(tmp_path)
    parent.write_text(early + parent.read_text())
    result = cli("inspect", "--json", "--in", str(parent))
    refusals = [(r["code"], r.get("line")) for r in result.json()["refusals"]]
    assert refusals == [("CC-TASK-UNATTRIBUTED", 1)]
    assert "CANARY" not in result.out + result.err
    session = cli("inspect", "--json", "--task-unit", "session", "--in", str(parent))
    assert session.json()["convertible"] is True  # the fix the refusal names


def _persisted_output_parent(folder: Path) -> Path:
    """A parent whose Bash result was too long to keep inline, as 2.1.37 writes it: the result
    holds a preview and where the full text went (anthropics/claude-code#23948)."""
    use = {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {"command": "x"}}
    preview = "<persisted-output>\nOutput too large (4.8MB). Full output saved to: CANARY"
    result = {"type": "tool_result", "tool_use_id": "toolu_01", "content": preview}
    call = _answer("msg_t", "", stop_reason="tool_use")
    call["content"] = [use]
    return _parent(
        folder,
        _line(type="assistant", uuid="a2", parentUuid="a1", sessionId=SID, message=call)
        + _line(
            type="user",
            uuid="u2",
            parentUuid="a2",
            sessionId=SID,
            message={"role": "user", "content": [result]},
        )
        + _line(
            type="assistant",
            uuid="a3",
            parentUuid="u2",
            sessionId=SID,
            message=_answer("msg_3", "CANARY-done"),
        ),
    )


def test_persisted_tool_outputs_and_session_memory_are_counted_not_read(
    cli: Any, tmp_path: Path
) -> None:
    """Claude Code keeps a large tool output's full text in <session>/tool-results/ and the
    session's notes in <session>/session-memory/: content, no model call. Both folders were
    CC-TREE-STRAY-FILE, which refused every session with one large tool output."""
    parent = _persisted_output_parent(tmp_path)
    outputs = tmp_path / SID / "tool-results"
    outputs.mkdir(parents=True)
    (outputs / "toolu_01.txt").write_text("CANARY-full-output\n" * 100)
    (outputs / "b2ospvvmu.txt").write_bytes(b"%PDF CANARY \xff\xfe")  # not JSON, not UTF-8
    (tmp_path / SID / "session-memory").mkdir()
    (tmp_path / SID / "session-memory" / "summary.md").write_text("# CANARY notes\n")
    result = cli("inspect", "--json", "--in", str(parent))
    report = result.json()
    assert report["convertible"] is True, report["refusals"]
    assert report["bound_files"] == 1  # counted, not bound
    assert report["not_read"] == [{"code": "CC-TREE-CONTENT-NOT-READ", "count": 3}]
    assert "CC-TREE-CONTENT-NOT-READ" not in {f["code"] for f in report["findings"]}
    assert "CANARY" not in result.out + result.err
    text = cli("inspect", "--in", str(parent)).out
    assert "CC-TREE-CONTENT-NOT-READ: 3 files." in text

    template = tmp_path / "template.json"
    assert cli("convert", "--in", str(parent), "--template", str(template)).code == 0
    contract = tmp_path / "contract.json"
    write_json(contract, fill(read_json(template)))
    bundle = tmp_path / "bundle.json"
    done = cli("convert", "--in", str(parent), "--contract", str(contract), "--out", str(bundle))
    assert done.code == 0, done.err
    assert "CANARY" not in bundle.read_text() + done.out + done.err
    (outputs / "toolu_01.txt").write_text("edited")  # not bound: its bytes change nothing
    (outputs / "b2ospvvmu.txt").unlink()  # nor does its deletion, nor a file browser's file
    (tmp_path / SID / ".DS_Store").write_bytes(b"Bud1")
    again = tmp_path / "again.json"
    redone = cli("convert", "--in", str(parent), "--contract", str(contract), "--out", str(again))
    assert redone.code == 0, redone.err
    verified = cli(
        "verify", "--bundle", str(bundle), "--contract", str(contract), "--in", str(parent)
    )
    assert verified.code == 0, verified.out + verified.err


@pytest.mark.parametrize(
    "entry",
    [
        "agent-a1234567.jsonl",
        "out.jsonl",
        "agent-a1234567.meta.json",
        "nested/",
        "link",
        "remote-agents/notes.txt",
    ],
)
def test_what_could_hold_spend_is_not_counted_away(cli: Any, tmp_path: Path, entry: str) -> None:
    """A not-read folder counts content, not whatever is put there: a transcript's name, a
    folder within, a symlink, a remote agent's entry of another name (a diff review: a child
    transcript in tool-results/ converted, its spend left out)."""
    parent = _parent(tmp_path)
    folder = tmp_path / SID / ("tool-results" if "/" not in entry or entry.endswith("/") else "")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / entry.rstrip("/")
    if entry.endswith("/"):
        target.mkdir()
        (target / "x.txt").write_text("x")
    elif entry == "link":
        target.symlink_to(parent)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        _sibling(target.parent, target.name, SID)
    report = cli("inspect", "--json", "--in", str(parent)).json()
    codes = {r["code"] for r in report["refusals"]}
    assert codes == {"CC-TREE-SYMLINK" if entry == "link" else "CC-TREE-STRAY-FILE"}


@pytest.mark.parametrize("shape", ["file", "symlink"])
def test_a_content_folder_that_is_not_a_folder_still_refuses(
    cli: Any, tmp_path: Path, shape: str
) -> None:
    parent = _parent(tmp_path)
    (tmp_path / SID).mkdir()
    if shape == "file":
        (tmp_path / SID / "tool-results").write_text("x")
    else:
        (tmp_path / "elsewhere").mkdir()
        (tmp_path / SID / "tool-results").symlink_to(tmp_path / "elsewhere")
    report = cli("inspect", "--json", "--in", str(parent)).json()
    expected = "CC-TREE-STRAY-FILE" if shape == "file" else "CC-TREE-SYMLINK"
    assert {r["code"] for r in report["refusals"]} == {expected}


def test_remote_agent_metadata_and_file_browser_files_are_counted_not_refused(
    cli: Any, tmp_path: Path
) -> None:
    """`<session>/remote-agents/remote-agent-<task>.meta.json` (an agent that ran remotely: its
    calls are recorded where it ran) and a Finder `.DS_Store` in the session's folders were
    CC-TREE-STRAY-FILE (a false-refusal hunt). A `.DS_Store` beside the parent, in the project
    folder, belongs to no tree."""
    parent = _parent(tmp_path)
    subagents = tmp_path / SID / "subagents"
    subagents.mkdir(parents=True)
    remote = tmp_path / SID / "remote-agents"
    remote.mkdir()
    (remote / "remote-agent-task_01CANARY.meta.json").write_text('{"title": "CANARY"}')
    for folder in (tmp_path, tmp_path / SID, subagents):
        (folder / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1CANARY")
    (remote / "Thumbs.db").write_bytes(b"CANARY")  # Windows Explorer's
    result = cli("inspect", "--json", "--in", str(parent))
    report = result.json()
    assert report["convertible"] is True, report["refusals"]
    assert report["bound_files"] == 1
    counts = {f["code"]: f["count"] for f in report["findings"]}
    assert counts["CC-TREE-REMOTE-AGENT"] == 1  # bound: this spend is not in the tree
    assert "CC-TREE-OS-FILE" not in counts
    # the session folder, subagents/, remote-agents/; not the project folder
    assert report["not_read"] == [{"code": "CC-TREE-OS-FILE", "count": 3}]
    assert "CANARY" not in result.out + result.err


def _delegating_parent(folder: Path, name: str, result: dict[str, Any]) -> Path:
    """A parent whose call delegates with `name` and gets `result` back (no child transcript)."""
    use = {"type": "tool_use", "id": "toolu_remote1", "name": name, "input": {"prompt": "CANARY"}}
    call = _answer("msg_2", "x", stop_reason="tool_use")
    call["content"] = [use]
    answer = {"type": "tool_result", "tool_use_id": "toolu_remote1", "content": "CANARY"}
    extra = _line(type="assistant", uuid="a2", parentUuid="a1", sessionId=SID, message=call)
    extra += _line(
        type="user",
        uuid="u3",
        parentUuid="a2",
        sessionId=SID,
        message={"role": "user", "content": [answer]},
        toolUseResult=result,
    )
    return _parent(folder, extra)


@pytest.mark.parametrize("name", ["Agent", "Workflow"])
@pytest.mark.parametrize(
    ("status", "blocked"), [("remote_launched", False), ("async_launched", True)]
)
def test_a_delegation_launched_remotely_is_a_finding(
    cli: Any, tmp_path: Path, name: str, status: str, blocked: bool
) -> None:
    """A delegation whose result says `remote_launched` (published parsers: Workflow and Agent
    results of Claude Code on the web) ran in a cloud session: no transcript of it can be here.
    It was CC-TREE-UNEXPANDED-DELEGATION, a refusal no file could fix; it is counted, like
    remote-agents/, as spend not in the tree. A local launch with no child is still refused."""
    result = {"status": status, "taskId": "rtask01", "sessionUrl": "https://claude.ai/CANARY"}
    parent = _delegating_parent(tmp_path, name, result)
    report = cli("inspect", "--json", "--in", str(parent)).json()
    codes = {r["code"] for r in report["refusals"]}
    findings = {f["code"]: f["count"] for f in report["findings"]}
    if blocked:
        assert codes == {"CC-TREE-UNEXPANDED-DELEGATION"}
    else:
        assert report["convertible"] is True, report["refusals"]
        assert findings["CC-TREE-DELEGATION-REMOTE"] == 1
        # named by the delegation's line (a walkthrough: EVAL-COST-LEFT-OUT's fix says inspect
        # names where each finding is, and this one was a count alone)
        lines = parent.read_text().splitlines()
        launch = next(n for n, text in enumerate(lines, 1) if '"tool_use"' in text)
        (place,) = report["finding_places"]["CC-TREE-DELEGATION-REMOTE"]["at"]
        assert place["line"] == launch
        assert place["file"].startswith("parent/file-")


def test_a_folder_named_like_a_file_browser_file_is_still_stray(cli: Any, tmp_path: Path) -> None:
    parent = _parent(tmp_path)
    (tmp_path / SID / ".DS_Store").mkdir(parents=True)
    report = cli("inspect", "--json", "--in", str(parent)).json()
    assert {r["code"] for r in report["refusals"]} == {"CC-TREE-STRAY-FILE"}


SIDE = "aside_question-c5e5c961a7749e08"


def _two_prompt_parent(folder: Path) -> list[dict[str, Any]]:
    records = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "message": {"content": "CANARY 1"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "message": _answer("msg_1", "x")},
        {"type": "user", "uuid": "u2", "parentUuid": "a1", "message": {"content": "CANARY 2"}},
        {"type": "assistant", "uuid": "a2", "parentUuid": "u2", "message": _answer("msg_2", "y")},
    ]
    for n, record in enumerate(records):
        record.update(sessionId=SID, version="2.1.85", timestamp=f"2026-03-25T18:2{n}:00.000Z")
        if record["type"] == "user":
            record["message"]["role"] = "user"
    (folder / f"{SID}.jsonl").write_text("".join(_line(**r) for r in records))
    return records


def _side_question(folder: Path, replayed: list[dict[str, Any]], first_parent: str | None) -> None:
    """A `/btw` fork as third-party cost tools describe it: the parent's history replayed (new
    uuids, the calls' own message ids), then the question and its own call."""
    lines = []
    previous = first_parent
    for n, record in enumerate(replayed):
        copy = json.loads(json.dumps(record))
        copy.update(uuid=f"r{n}", parentUuid=previous, isSidechain=True, agentId=SIDE)
        previous = copy["uuid"]
        lines.append(copy)
    question = {"type": "user", "uuid": "s1", "parentUuid": previous, "message": {}}
    question["message"] = {"role": "user", "content": "CANARY side"}
    answer = {"type": "assistant", "uuid": "s2", "parentUuid": "s1"}
    answer["message"] = _answer("msg_side", "z")
    for record in (question, answer):
        record.update(sessionId=SID, isSidechain=True, agentId=SIDE)
        record.update(timestamp="2026-03-25T18:30:00.000Z", version="2.1.85")
        lines.append(record)
    subagents = folder / SID / "subagents"
    subagents.mkdir(parents=True, exist_ok=True)
    (subagents / f"agent-{SIDE}.jsonl").write_text("".join(_line(**r) for r in lines))


@pytest.mark.parametrize(
    ("first_parent", "replayed", "copies"),
    [(None, 4, 2), ("u1", 4, 2), (None, 3, 1)],
    ids=["chain-of-its-own", "into-parent", "asked-before-the-prompt's-first-call"],
)
def test_a_replaying_fork_counts_to_the_task_it_was_asked_in(
    tmp_path: Path, first_parent: str | None, replayed: int, copies: int
) -> None:
    """A fork that replays the parent's history first is anchored where its replay ends, not at
    its first record: a side question asked during the second prompt was the first prompt's
    spend (its first record named the parent's first line), or an orphan (its replayed chain
    named only its own records). Asked while the second prompt's first call was running, it
    replays that prompt after the last call it copies: that prompt's task, not the call's."""
    from converter.run.pipeline import read_tree

    records = _two_prompt_parent(tmp_path)
    _side_question(tmp_path, records[:replayed], first_parent)
    account = read_tree(tmp_path / f"{SID}.jsonl")
    assert account.refusals == []
    assert account.findings["CC-REC-REPLAY"] == copies  # each call replayed, counted once
    tasks = {msg: call.task for msg, call in account.calls.items()}
    assert set(tasks) == {"msg_1", "msg_2", "msg_side"}
    assert tasks["msg_side"] == tasks["msg_2"] != tasks["msg_1"]


def test_a_side_question_asked_in_a_slash_command_task_is_that_tasks(tmp_path: Path) -> None:
    """A slash command starts a task as a prompt does: replayed after the last copied call, it
    places the side question in its task (a diff review: it went to the previous task)."""
    from converter.run.pipeline import read_tree

    records = _two_prompt_parent(tmp_path)
    records[2]["message"]["content"] = "<command-name>/review</command-name>"
    (tmp_path / f"{SID}.jsonl").write_text("".join(_line(**r) for r in records))
    _side_question(tmp_path, records[:3], None)
    account = read_tree(tmp_path / f"{SID}.jsonl")
    assert account.refusals == []
    tasks = {msg: call.task for msg, call in account.calls.items()}
    assert tasks["msg_side"] == tasks["msg_2"] != tasks["msg_1"]


def test_a_replay_that_does_not_fit_the_parent_is_an_orphan(tmp_path: Path) -> None:
    """A replayed prompt the parent does not hold after the call: no place to anchor by guess."""
    from converter.run.pipeline import read_tree

    records = _two_prompt_parent(tmp_path)
    other = json.loads(json.dumps(records[2]))
    other["message"]["content"] = "CANARY not the parent's"
    _side_question(tmp_path, [*records[:2], other], None)
    account = read_tree(tmp_path / f"{SID}.jsonl")
    assert "CC-TREE-ORPHAN-CHILD" in {p.code for p in account.refusals}


def test_a_fork_reference_places_a_fork_before_its_replay(tmp_path: Path) -> None:
    """A `fork-context-ref` names where the fork branched (`parentLastUuid`): that wins over
    where a copied call would place it (a diff review: it had moved to the copy's task)."""
    from converter.run.pipeline import read_tree

    records = _two_prompt_parent(tmp_path)
    fork = "a2222222222222222"
    head = {"type": "fork-context-ref", "agentId": fork, "parentLastUuid": "u2"}
    copy = json.loads(json.dumps(records[1]))
    copy.update(uuid="f1", parentUuid=None)
    own = [
        {"type": "user", "uuid": "f2", "parentUuid": "f1", "message": {"content": "CANARY f"}},
        {"type": "assistant", "uuid": "f3", "parentUuid": "f2", "message": _answer("msg_f", "")},
    ]
    own[0]["message"]["role"] = "user"
    lines = [head, copy, *own]
    for record in lines:
        record.update(sessionId=SID, isSidechain=True, agentId=fork, version="2.1.85")
        record.setdefault("timestamp", "2026-03-25T18:31:00.000Z")
    subagents = tmp_path / SID / "subagents"
    subagents.mkdir(parents=True)
    (subagents / f"agent-{fork}.jsonl").write_text("".join(_line(**r) for r in lines))
    account = read_tree(tmp_path / f"{SID}.jsonl")
    assert account.refusals == []
    tasks = {msg: call.task for msg, call in account.calls.items()}
    assert tasks["msg_f"] == tasks["msg_2"] != tasks["msg_1"]


TEAMMATE = "areviewer-3202dd476c0b4a5e"


def _team_lead(folder: Path, names: tuple[str, ...] = ("reviewer",)) -> Path:
    """A lead that spawns named agents (in-process teammates, as 2.1.2xx writes them: the meta
    holds the spawn's name instead of the call's id; the result says `teammate_spawned`)."""
    records: list[dict[str, Any]] = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "message": {"content": "CANARY"}}
    ]
    previous = "u1"
    for n, name in enumerate(names):
        call = _answer(f"msg_spawn{n}", "", stop_reason="tool_use")
        args = {"prompt": "CANARY task", "subagent_type": "reviewer", "name": name}
        call["content"] = [{"type": "tool_use", "id": f"toolu_{n}", "name": "Agent", "input": args}]
        result = {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": "spawned"}
        spawned = {"status": "teammate_spawned", "agent_id": f"{name}@session-359d3e91"}
        records += [
            {"type": "assistant", "uuid": f"a{n}", "parentUuid": previous, "message": call},
            {
                "type": "user",
                "uuid": f"r{n}",
                "parentUuid": f"a{n}",
                "message": {"content": [result]},
                "toolUseResult": {**spawned, "name": name, "team_name": "session-359d3e91"},
            },
        ]
        previous = f"r{n}"
    records.append(
        {"type": "assistant", "uuid": "z", "parentUuid": previous, "message": _answer("m_z", "k")}
    )
    for record in records:
        record.update(sessionId=SID, version="2.1.281", timestamp="2026-09-20T10:00:00.000Z")
        if record["type"] == "user":
            record["message"]["role"] = "user"
    parent = folder / f"{SID}.jsonl"
    parent.write_text("".join(_line(**r) for r in records))
    subagents = folder / SID / "subagents"
    subagents.mkdir(parents=True)
    child = [
        {
            "type": "user",
            "uuid": "t1",
            "parentUuid": None,
            "message": {"role": "user", "content": '<teammate-message teammate_id="team-lead">'},
        },
        {"type": "assistant", "uuid": "t2", "parentUuid": "t1", "message": _answer("m_t", "x")},
    ]
    for record in child:
        record.update(sessionId=SID, isSidechain=True, agentId=TEAMMATE)
        record.update(version="2.1.281", timestamp="2026-09-20T10:00:01.000Z")
    (subagents / f"agent-{TEAMMATE}.jsonl").write_text("".join(_line(**r) for r in child))
    meta = {
        "agentType": "reviewer",
        "description": "CANARY",
        "name": "reviewer",
        "spawnDepth": 0,
        "requestShape": "background",
        "taskKind": "in_process_teammate",
        "teamName": "session-359d3e91",
    }
    (subagents / f"agent-{TEAMMATE}.meta.json").write_text(json.dumps(meta))
    return parent


def test_an_in_process_teammate_joins_the_call_that_named_it(cli: Any, tmp_path: Path) -> None:
    """A named spawn's meta holds `name` instead of `toolUseId` (307 of 818 metas on one machine
    in a published measurement, 2026-09) and spawnDepth 0 under the lead: was
    CC-TREE-ORPHAN-CHILD and CC-TREE-UNEXPANDED-DELEGATION, or CC-TREE-DEPTH-MISMATCH."""
    parent = _team_lead(tmp_path)
    result = cli("inspect", "--json", "--in", str(parent))
    report = result.json()
    assert report["convertible"] is True, report["refusals"]
    assert report["counts"]["delegations_expanded"] == 1
    assert report["counts"]["model_calls"] == 3
    teammate = [a for a in report["by_agent"] if a["kind"] == "agent"]
    assert [(a["depth"], a["model_calls"]) for a in teammate] == [(1, 1)]
    assert "CANARY" not in result.out + result.err


def test_a_teammate_returns_nothing_to_the_lead(tmp_path: Path) -> None:
    """A teammate is launched, not waited for: its last call "returned" to the lead's next call
    by an edge no evidence drew (a diff review)."""
    from converter.run.pipeline import read_tree

    account = read_tree(_team_lead(tmp_path))
    assert account.refusals == []
    assert "returns" not in {edge.kind for edge in account.edges}
    assert "delegates" in {edge.kind for edge in account.edges}


def test_only_an_agent_or_task_call_names_a_teammate(tmp_path: Path) -> None:
    parent = _team_lead(tmp_path)
    text = parent.read_text().replace('"name": "Agent"', '"name": "Workflow"')
    parent.write_text(text)
    from converter.run.pipeline import read_tree

    codes = {p.code for p in read_tree(parent).refusals}
    assert "CC-TREE-ORPHAN-CHILD" in codes


def test_a_meta_name_of_another_type_is_no_name(tmp_path: Path) -> None:
    """`name` and `taskKind` are read only to join a spawn with no toolUseId: another type there
    does not refuse a meta that names its call (a diff review: CC-REC-BAD-FIELD)."""
    from converter.run.pipeline import read_tree

    parent = _team_lead(tmp_path)
    meta = tmp_path / SID / "subagents" / f"agent-{TEAMMATE}.meta.json"
    doc = json.loads(meta.read_text())
    doc.update(name=7, taskKind=["x"], toolUseId="toolu_0", spawnDepth=1)
    meta.write_text(json.dumps(doc))
    assert read_tree(parent).refusals == []


def test_two_calls_asking_for_one_teammate_name_do_not_join(cli: Any, tmp_path: Path) -> None:
    """A name is not an id: two spawns of one name leave the teammate's call unknown."""
    parent = _team_lead(tmp_path, ("reviewer", "reviewer"))
    report = cli("inspect", "--json", "--in", str(parent)).json()
    assert "CC-TREE-JOIN-CONFLICT" in {r["code"] for r in report["refusals"]}


def test_a_teammates_message_to_the_lead_starts_no_task(tmp_path: Path) -> None:
    """A teammate's message reaches the lead as a user record wrapped in <teammate-message>,
    as the lead's messages open a teammate's transcript: no prompt a person typed, so it
    starts no task (a walk-through: each one was a task of its own, to be labelled)."""
    from converter.run.pipeline import read_tree

    parent = _team_lead(tmp_path)
    lines = parent.read_text().splitlines(keepends=True)
    message = {
        "type": "user",
        "uuid": "tm1",
        "parentUuid": "z",
        "sessionId": SID,
        "timestamp": "2026-09-20T10:00:02.000Z",
        "message": {
            "role": "user",
            "content": '<teammate-message teammate_id="reviewer">CANARY</teammate-message>',
        },
    }
    after = {"type": "assistant", "uuid": "z2", "parentUuid": "tm1", "sessionId": SID}
    after.update(message=_answer("m_z2", "k"), timestamp="2026-09-20T10:00:03.000Z")
    parent.write_text("".join([*lines, _line(**message), _line(**after)]))
    account = read_tree(parent)
    assert account.refusals == []
    assert len(account.tasks) == 1
    assert account.calls["m_z2"].task == account.calls["m_z"].task


def test_a_changed_finding_count_is_named_in_the_refusal(cli: Any, tmp_path: Path) -> None:
    """A remote agent's metadata added after the contract: the refusal names the finding whose
    count changed, a code (a walk-through: it said only 'inventory/findings')."""
    parent = _parent(tmp_path)
    template = tmp_path / "template.json"
    assert cli("convert", "--in", str(parent), "--template", str(template)).code == 0
    contract = tmp_path / "contract.json"
    write_json(contract, fill(read_json(template)))
    remote = tmp_path / SID / "remote-agents"
    remote.mkdir(parents=True)
    (remote / "remote-agent-task_01.meta.json").write_text("{}")
    out = tmp_path / "bundle.json"
    result = cli("convert", "--in", str(parent), "--contract", str(contract), "--out", str(out))
    assert result.code == 2
    assert "[inventory/findings/CC-TREE-REMOTE-AGENT]" in result.err


def test_a_side_question_asked_before_the_first_call_replays_only_prompts(tmp_path: Path) -> None:
    """Asked while the session's first call was running, a side question replays the first
    prompt and copies no call: it is placed where that prompt is, in the one stream that opens
    with it (it was an orphan, its replayed chain naming only its own records)."""
    from converter.run.pipeline import read_tree

    records = _two_prompt_parent(tmp_path)
    _side_question(tmp_path, records[:1], None)
    account = read_tree(tmp_path / f"{SID}.jsonl")
    assert account.refusals == []
    tasks = {msg: call.task for msg, call in account.calls.items()}
    assert tasks["msg_side"] == tasks["msg_1"] != tasks["msg_2"]


def _second_call(folder: Path, usage: dict[str, Any], version: str = "2.1.269") -> Path:
    """A parent whose second call (msg_2, final) has `usage`."""
    extra = _line(
        type="assistant",
        uuid="a2",
        parentUuid="a1",
        sessionId=SID,
        version=version,
        timestamp="2026-09-12T10:00:00.000Z",
        message=_answer("msg_2", "CANARY", usage=usage),
    )
    return _parent(folder, extra)


def _with_iterations(folder: Path, passes: list[dict[str, Any]]) -> Path:
    """A parent whose call lists `passes` in usage.iterations (final, top level 10 in, 5 out)."""
    return _second_call(folder, {**_usage(), "iterations": passes})


_MAIN_PASS = {
    "type": "message",
    "input_tokens": 10,
    "output_tokens": 5,
    "cache_read_input_tokens": 0,
    "cache_creation_input_tokens": 0,
}
_ADVISOR_PASS = {
    "type": "advisor_message",
    "model": "claude-opus-4-7",
    "input_tokens": 159419,
    "output_tokens": 7805,
    "cache_read_input_tokens": 0,
    "cache_creation_input_tokens": 0,
}


def test_an_advisor_pass_is_a_call_of_its_own(cli: Any, tmp_path: Path) -> None:
    """/advisor (2.1.98 on) lists the advisor's pass in usage.iterations under its own model,
    left out of the top-level counts (ccusage#1115): was CC-REC-USAGE-ITERATIONS, refusing
    every session that used the advisor. It is a call priced under the advisor's model."""
    parent = _with_iterations(tmp_path, [_MAIN_PASS, _ADVISOR_PASS, _MAIN_PASS])
    lines = parent.read_text().splitlines(keepends=True)
    last = json.loads(lines[-1])  # the top level is the main passes' sum (an advisor turn)
    last["message"]["usage"].update(input_tokens=20, output_tokens=10)
    parent.write_text("".join([*lines[:-1], json.dumps(last) + "\n"]))
    result = cli("inspect", "--json", "--in", str(parent))
    report = result.json()
    assert report["convertible"] is True, report["refusals"]
    assert report["counts"]["model_calls"] == 3
    advisor = report["by_model"]["claude-opus-4-7"]
    assert advisor["model_calls"] == 1
    assert advisor["usage"]["input_tokens"] == 159419
    assert advisor["usage"]["output_tokens"] == 7805
    assert report["usage"]["input_tokens"] == 10 + 20 + 159419
    assert "CANARY" not in result.out + result.err


def test_an_advisor_pass_draws_no_edge_and_is_in_its_calls_task(tmp_path: Path) -> None:
    from converter.run.pipeline import read_tree

    account = read_tree(_with_iterations(tmp_path, [_MAIN_PASS, _ADVISOR_PASS]))
    assert account.refusals == []
    advisor = account.calls["msg_2#advisor-1"]
    assert advisor.advisor_of == "msg_2"
    assert advisor.task == account.calls["msg_2"].task
    assert all(("model", "msg_2#advisor-1") not in (e.source, e.target) for e in account.edges)


@pytest.mark.parametrize(
    "passes",
    [
        [{**_MAIN_PASS, "model": None}],  # 2.1.257 on: the call's own model, written as null
        [{**_MAIN_PASS, "model": "claude-sonnet-4-20250514"}],
    ],
    ids=["model-null", "model-named"],
)
def test_a_pass_of_the_calls_own_model_adds_up(cli: Any, tmp_path: Path, passes: Any) -> None:
    """A pass whose `model` is null is the call's own (ccusage#1710, 2.1.268): was
    CC-REC-USAGE-ITERATIONS on every call of the session."""
    report = cli("inspect", "--json", "--in", str(_with_iterations(tmp_path, passes))).json()
    assert report["convertible"] is True, report["refusals"]
    assert report["counts"]["model_calls"] == 2


@pytest.mark.parametrize(
    "passes",
    [
        [_MAIN_PASS, {k: v for k, v in _ADVISOR_PASS.items() if k != "model"}],
        [_MAIN_PASS, {**_ADVISOR_PASS, "inputTokens": 5}],
        [{**_MAIN_PASS, "model": "claude-opus-4-7"}],
    ],
    ids=["advisor-without-model", "advisor-unknown-counter", "pass-of-another-model"],
)
def test_passes_that_do_not_read_as_spend_still_refuse(
    cli: Any, tmp_path: Path, passes: Any
) -> None:
    report = cli("inspect", "--json", "--in", str(_with_iterations(tmp_path, passes))).json()
    assert "CC-REC-USAGE-ITERATIONS" in {r["code"] for r in report["refusals"]}


def test_a_server_side_fallback_is_refused_by_its_own_code(cli: Any, tmp_path: Path) -> None:
    """Published parsers pin a declined `message` pass of the model asked for, then a
    `fallback_message` pass of the model that served (the top level mirrors it). Whether the
    declined pass is billed is contested, so the call is refused, now under a code that says
    it is a fallback rather than format drift (it was CC-REC-USAGE-ITERATIONS)."""
    declined = {**_MAIN_PASS, "model": "claude-sonnet-4-20250514", "output_tokens": 0}
    served = {**_MAIN_PASS, "type": "fallback_message", "model": "claude-opus-4-7"}
    parent = _with_iterations(tmp_path, [declined, served])
    result = cli("inspect", "--json", "--in", str(parent))
    refusals = [(r["code"], r["line"]) for r in result.json()["refusals"]]
    assert refusals == [("CC-REC-USAGE-FALLBACK", 3)]
    assert "CANARY" not in result.out + result.err


def test_a_call_the_fallback_model_served_with_no_declined_pass_is_its_own(
    cli: Any, tmp_path: Path
) -> None:
    """For about an hour after a fallback the API serves requests by the fallback model
    directly (Anthropic's docs): a lone `fallback_message` pass, no declined pass to bill or
    not. It was CC-REC-USAGE-FALLBACK, every call of that hour refused (a shapes hunt)."""
    served = {**_MAIN_PASS, "type": "fallback_message", "model": "claude-sonnet-4-20250514"}
    report = cli("inspect", "--json", "--in", str(_with_iterations(tmp_path, [served]))).json()
    assert report["convertible"] is True, report["refusals"]
    assert report["usage"]["input_tokens"] == 20  # as the top level says, once
    other = {**served, "model": "claude-opus-4-7"}  # priced as the call's model: not guessed
    refused = cli("inspect", "--json", "--in", str(_with_iterations(tmp_path, [other]))).json()
    assert [r["code"] for r in refused["refusals"]] == ["CC-REC-USAGE-ITERATIONS"]


def _with_usage(cli: Any, folder: Path, usage: dict[str, Any]) -> Any:
    """inspect --json of a parent whose second call (2.1.300) has `usage`."""
    return cli("inspect", "--json", "--in", str(_second_call(folder, usage, "2.1.300"))).json()


@pytest.mark.parametrize(
    ("credit", "counted"),
    [
        ({"status": {"type": "redeemed"}}, 1),
        ({"status": {"type": "not_applied", "reason": "not_enabled"}}, 0),
        (None, 0),
    ],
    ids=["redeemed", "not-applied", "null"],
)
def test_a_redeemed_fallback_credit_is_said(
    cli: Any, tmp_path: Path, credit: Any, counted: int
) -> None:
    """A shapes hunt: after a model switch the provider bills the cache a call wrote anew as if
    already cached (`fallback_credit` redeemed); priced as written, silently, its cost was
    overstated with exit 0. It is now said to be an upper bound."""
    report = _with_usage(cli, tmp_path, {**_usage(), "fallback_credit": credit})
    assert report["convertible"] is True, report["refusals"]
    findings = {f["code"]: f["count"] for f in report["findings"]}
    assert findings.get("CC-REC-FALLBACK-CREDIT", 0) == counted


def test_a_credit_that_states_an_amount_is_refused(cli: Any, tmp_path: Path) -> None:
    credit = {"status": {"type": "redeemed"}, "tokens": 900}
    report = _with_usage(cli, tmp_path, {**_usage(), "fallback_credit": credit})
    assert [r["code"] for r in report["refusals"]] == ["CC-REC-USAGE-UNKNOWN-COUNTER"]


def test_a_synthetic_refusal_marks_no_call_refused(cli: Any, tmp_path: Path) -> None:
    """A review: an API-error placeholder saying refusal under a real call's id marked the
    call refused."""
    placeholder = {**_answer("msg_1", "CANARY", stop_reason="refusal"), "model": "<synthetic>"}
    extra = _line(
        type="assistant",
        uuid="a2",
        parentUuid="a1",
        sessionId=SID,
        version="2.1.300",
        timestamp="2026-09-12T10:00:00.000Z",
        isApiErrorMessage=True,
        message=placeholder,
    )
    report = cli("inspect", "--json", "--in", str(_parent(tmp_path, extra))).json()
    assert "CC-REC-REFUSED-CALL" not in {f["code"] for f in report["findings"]}, report


def test_a_refused_call_is_said_once_however_many_fragments(cli: Any, tmp_path: Path) -> None:
    """A call the model declined (`stop_reason` refusal) is billed only for what it wrote: a
    shapes hunt found it priced in full with no word. Counted once per call."""
    fragments = "".join(
        _line(
            type="assistant",
            uuid=f"a{n}",
            parentUuid=f"a{n - 1}",
            sessionId=SID,
            version="2.1.300",
            timestamp="2026-09-12T10:00:00.000Z",
            message=_answer("msg_2", "CANARY", stop_reason="refusal"),
        )
        for n in (2, 3)
    )
    report = cli("inspect", "--json", "--in", str(_parent(tmp_path, fragments))).json()
    assert report["convertible"] is True, report["refusals"]
    findings = {f["code"]: f["count"] for f in report["findings"]}
    assert findings["CC-REC-REFUSED-CALL"] == 1


def test_an_advisor_calls_cache_write_split_is_taken_from_its_passes(tmp_path: Path) -> None:
    """A real /advisor line (a transcript guard's test): the passes wrote 1,441 tokens at 1h
    and 1,652 at 5m, the top level counted 3,093 but split only the first pass's 1,441. The
    1,652 were left unsplit, priced by the contract's rule (at 2x input under a 1h rule, where
    they cost 1.25x). The passes' split adds up to the total: it is the call's split."""
    from converter.run.pipeline import read_tree

    def main(cache_read: int, written: int, bucket: str, out: int) -> dict[str, Any]:
        split = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}
        split[f"ephemeral_{bucket}_input_tokens"] = written
        return {
            **_MAIN_PASS,
            "input_tokens": 2,
            "output_tokens": out,
            "cache_read_input_tokens": cache_read,
            "cache_creation_input_tokens": written,
            "cache_creation": split,
        }

    passes = [main(110550, 1441, "1h", 623), _ADVISOR_PASS, main(111991, 1652, "5m", 167)]
    parent = _with_iterations(tmp_path, passes)
    lines = parent.read_text().splitlines(keepends=True)
    last = json.loads(lines[-1])
    last["message"]["usage"].update(
        input_tokens=4,
        output_tokens=790,
        cache_read_input_tokens=222541,
        cache_creation_input_tokens=3093,
        cache_creation={"ephemeral_1h_input_tokens": 1441, "ephemeral_5m_input_tokens": 0},
    )
    parent.write_text("".join([*lines[:-1], json.dumps(last) + "\n"]))
    account = read_tree(parent)
    assert account.refusals == []
    usage = account.calls["msg_2"].usage
    assert (usage.cache_5m, usage.cache_1h, usage.cache_unsplit) == (1652, 1441, 0)
    # a shortfall the passes do not explain stays unsplit, as written
    last["message"]["usage"]["iterations"][2]["cache_creation"]["ephemeral_5m_input_tokens"] = 1
    parent.write_text("".join([*lines[:-1], json.dumps(last) + "\n"]))
    usage = read_tree(parent).calls["msg_2"].usage
    assert (usage.cache_5m, usage.cache_1h, usage.cache_unsplit) == (0, 1441, 1652)
    # so does one whose passes contradict the top level's split (a diff review: 1h 1,441 on
    # top, all 3,093 at 5m in the passes, was taken as 5m 3,093 and 1h 0)
    passes = last["message"]["usage"]["iterations"]
    passes[0]["cache_creation"] = {"ephemeral_5m_input_tokens": 1441}
    passes[2]["cache_creation"] = {"ephemeral_5m_input_tokens": 1652}
    parent.write_text("".join([*lines[:-1], json.dumps(last) + "\n"]))
    usage = read_tree(parent).calls["msg_2"].usage
    assert (usage.cache_5m, usage.cache_1h, usage.cache_unsplit) == (0, 1441, 1652)


def test_an_advisor_call_is_priced_in_the_bundle(cli: Any, tmp_path: Path) -> None:
    parent = _with_iterations(tmp_path, [_MAIN_PASS, _ADVISOR_PASS])
    bundle = _bundle_of(cli, parent, tmp_path)
    template = tmp_path / "template.json"
    observed = {m["model"] for m in read_json(template)["observed"]["models"]}
    assert "claude-opus-4-7" in observed  # the contract prices it like any model
    events = [e for e in read_json(bundle)["events"] if e["kind"] == "model"]
    advisor = [e for e in events if e["model"] == "claude-opus-4-7"]
    assert len(advisor) == 1
    assert advisor[0]["usage"]["input_tokens"] == 159419
    assert advisor[0]["usage_complete"] is True
    assert advisor[0]["cost"]["low"] != "0.0000000000"
    decided = cli("evaluate", "--bundle", str(bundle), "--format", "json")
    assert decided.code in (0, 3, 4), decided.err  # a decision, not a refusal of the bundle


def test_an_early_side_question_is_placed_beside_other_forks(tmp_path: Path) -> None:
    """Every fork opens with the session's first prompt: a later fork is no conversation the
    early side question could have branched from (a diff review: two fits, an orphan again)."""
    from converter.run.pipeline import read_tree

    records = _two_prompt_parent(tmp_path)
    _side_question(tmp_path, records[:1], None)  # an early fork: a prompt suggestion
    first = tmp_path / SID / "subagents" / f"agent-{SIDE}.jsonl"
    early = first.with_name("agent-aprompt_suggestion-97438e.jsonl")
    first.rename(early)
    early.write_text(early.read_text().replace(SIDE, "aprompt_suggestion-97438e"))
    _side_question(tmp_path, records, None)  # a later side question, replaying all
    text = first.read_text().replace('"msg_side"', '"msg_side2"')
    for old_uuid, new_uuid in [*((f"r{n}", f"q{n}") for n in range(4)), ("s1", "t1"), ("s2", "t2")]:
        text = text.replace(f'"{old_uuid}"', f'"{new_uuid}"')
    first.write_text(text)
    account = read_tree(tmp_path / f"{SID}.jsonl")
    assert account.refusals == []
    tasks = {msg: call.task for msg, call in account.calls.items()}
    assert tasks["msg_side"] == tasks["msg_1"]
    assert tasks["msg_side2"] == tasks["msg_2"]


def test_a_child_that_is_no_fork_is_not_placed_by_its_prompts(tmp_path: Path) -> None:
    """A subagent whose parent record is lost opens, by chance, with the session's first
    prompt: it stays an orphan (only a fork Claude Code starts itself replays prompts)."""
    from converter.run.pipeline import read_tree

    records = _two_prompt_parent(tmp_path)
    _side_question(tmp_path, records[:1], "LOST")
    side = tmp_path / SID / "subagents" / f"agent-{SIDE}.jsonl"
    plain = side.with_name("agent-a0123456789abcdef.jsonl")
    plain.write_text(side.read_text().replace(SIDE, "a0123456789abcdef"))
    side.unlink()
    codes = {p.code for p in read_tree(tmp_path / f"{SID}.jsonl").refusals}
    assert "CC-TREE-ORPHAN-CHILD" in codes


@pytest.mark.parametrize(
    "advisor",
    [
        {"type": "advisor_message", "model": "claude-opus-4-7"},  # no counts: no free call
        {**_ADVISOR_PASS, "iterations": [{"type": "message", "input_tokens": 900000}]},
    ],
    ids=["advisor-without-counts", "advisor-with-nested-passes"],
)
def test_an_advisor_pass_that_does_not_read_as_spend_refuses(
    cli: Any, tmp_path: Path, advisor: Any
) -> None:
    parent = _with_iterations(tmp_path, [_MAIN_PASS, advisor])
    report = cli("inspect", "--json", "--in", str(parent)).json()
    assert "CC-REC-USAGE-ITERATIONS" in {r["code"] for r in report["refusals"]}


@pytest.mark.parametrize(
    "iterations",
    [
        {"a": _ADVISOR_PASS},  # passes keyed, not listed: the advisor's went uncounted, exit 0
        [_MAIN_PASS, "CANARY-pass", _ADVISOR_PASS],
        "CANARY-iterations",
    ],
    ids=["object", "a-list-item-not-an-object", "text"],
)
def test_iterations_in_a_shape_passes_are_not_read_in_refuse(
    cli: Any, tmp_path: Path, iterations: Any
) -> None:
    """A fuzz run: a `usage.iterations` that is not a list of objects was read as no passes,
    and an advisor pass inside it was spend left out with exit 0."""
    parent = _second_call(tmp_path, {**_usage(), "iterations": iterations})
    result = cli("inspect", "--json", "--in", str(parent))
    assert result.code == 2
    assert "CC-REC-USAGE-ITERATIONS" in {r["code"] for r in result.json()["refusals"]}
    assert "CANARY" not in result.out + result.err


def test_a_later_fragment_that_drops_the_advisor_refuses(cli: Any, tmp_path: Path) -> None:
    """The call's last fragment gives its usage; one that drops an advisor pass written before
    would lose that spend silently (a diff review)."""
    parent = _with_iterations(tmp_path, [_MAIN_PASS, _ADVISOR_PASS])
    lines = parent.read_text().splitlines(keepends=True)
    again = json.loads(lines[-1])
    again.update(uuid="a3", parentUuid="a2")
    del again["message"]["usage"]["iterations"]
    parent.write_text("".join([*lines, json.dumps(again) + "\n"]))
    report = cli("inspect", "--json", "--in", str(parent)).json()
    assert "CC-REC-USAGE-ITERATIONS" in {r["code"] for r in report["refusals"]}


def test_a_message_id_of_an_advisor_calls_form_refuses(cli: Any, tmp_path: Path) -> None:
    parent = _with_iterations(tmp_path, [_MAIN_PASS, _ADVISOR_PASS])
    lines = parent.read_text().splitlines(keepends=True)
    twin = json.loads(lines[-1])
    twin.update(uuid="a3", parentUuid="a2")
    twin["message"]["id"] = "msg_2#advisor-1"
    del twin["message"]["usage"]["iterations"]
    parent.write_text("".join([*lines, json.dumps(twin) + "\n"]))
    report = cli("inspect", "--json", "--in", str(parent)).json()
    assert "CC-REC-MESSAGE-ID-REUSED" in {r["code"] for r in report["refusals"]}


def _branch(
    folder: Path, copied_session: str = OTHER, origin: str = SID
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A branch (session OTHER) of the two-prompt session SID: its copies of SID's records,
    each marked `forkedFrom` naming `origin`, and its own prompt and call, in line order."""
    records = _two_prompt_parent(folder)
    branch = []
    for record in records:
        copy = json.loads(json.dumps(record))
        copy["sessionId"] = copied_session
        copy["forkedFrom"] = {"sessionId": origin, "messageUuid": record["uuid"]}
        branch.append(copy)
    own = [
        {"type": "user", "uuid": "b1", "parentUuid": "a2", "message": {"content": "CANARY b"}},
        {"type": "assistant", "uuid": "b2", "parentUuid": "b1", "message": _answer("msg_b", "")},
    ]
    own[0]["message"]["role"] = "user"
    for record in own:
        record.update(sessionId=OTHER, version="2.1.219", timestamp="2026-06-01T10:00:00.000Z")
    return branch, own


def _write_branch(folder: Path, records: list[dict[str, Any]]) -> Path:
    path = folder / f"{OTHER}.jsonl"
    path.write_text("".join(_line(**r) for r in records))
    return path


@pytest.mark.parametrize("copied_session", [OTHER, SID], ids=["rewritten", "kept"])
def test_a_branched_session_counts_only_its_own_calls(
    cli: Any, tmp_path: Path, copied_session: str
) -> None:
    """/branch (2.1.2xx) writes a new session whose first records copy the original's, each
    marked `forkedFrom`: they were counted as the branch's own too, and `scan` summed them
    twice with exit 0 (a fourth hunt: qlan-ro/mainframe#515 checked against 2.1.219)."""
    branch, own = _branch(tmp_path, copied_session)
    path = _write_branch(tmp_path, [*branch, *own])
    report = cli("inspect", "--json", "--in", str(path)).json()
    assert report["convertible"] is True, report["refusals"]
    assert report["counts"]["model_calls"] == 1
    assert report["counts"]["tasks"] == 1
    assert {"code": "CC-REC-BRANCH-COPY", "count": 4} in report["findings"]
    scanned = cli("scan", str(tmp_path), "--json").json()
    assert scanned["totals"]["model_calls"] == 3  # 2 in the original, 1 in the branch


@pytest.mark.parametrize("parent_link", ["kept", "null"])
def test_a_branch_copy_written_twice_is_one_copy(
    cli: Any, tmp_path: Path, parent_link: str
) -> None:
    """Some versions write each copy a second time without its mark, under the same uuid
    (anthropics/claude-code#40363; #48936: with `parentUuid` null): the unmarked twins were
    counted as the branch's own calls and tasks. A twin that differs from its marked copy in
    what is read is no copy."""
    branch, own = _branch(tmp_path)
    twins = []
    for copy in branch:
        twin = json.loads(json.dumps(copy))
        del twin["forkedFrom"]
        if parent_link == "null":
            twin["parentUuid"] = None
        twins += [copy, twin]
    path = _write_branch(tmp_path, [*twins, *own])
    report = cli("inspect", "--json", "--in", str(path)).json()
    assert report["convertible"] is True, report["refusals"]
    assert (report["counts"]["model_calls"], report["counts"]["tasks"]) == (1, 1)
    assert {"code": "CC-REC-BRANCH-COPY", "count": 8} in report["findings"]

    twins[3]["message"]["usage"]["output_tokens"] = 50  # the unmarked twin of msg_1's copy
    path = _write_branch(tmp_path, [*twins, *own])
    report = cli("inspect", "--json", "--in", str(path)).json()
    assert [(r["code"], r["line"]) for r in report["refusals"]] == [("CC-REC-UUID-CONFLICT", 4)]


def test_a_leading_copy_written_again_after_the_branchs_own_work_is_a_copy(
    cli: Any, tmp_path: Path
) -> None:
    """A diff review: a leading copy re-emitted later with its mark (as a compacted session's
    records are written again on resume) was refused as unexplained; it is the same copy. One
    that differs from it is not."""
    branch, own = _branch(tmp_path)
    again = json.loads(json.dumps(branch[1]))
    path = _write_branch(tmp_path, [*branch, *own, again])
    report = cli("inspect", "--json", "--in", str(path)).json()
    assert report["convertible"] is True, report["refusals"]
    assert report["counts"]["model_calls"] == 1
    assert {"code": "CC-REC-BRANCH-COPY", "count": 5} in report["findings"]
    again["message"]["usage"]["output_tokens"] = 500
    path = _write_branch(tmp_path, [*branch, *own, again])
    report = cli("inspect", "--json", "--in", str(path)).json()
    assert [(r["code"], r["line"]) for r in report["refusals"]] == [
        ("CC-REC-BRANCH-COPY-UNEXPLAINED", 7)
    ]


def _zeroed_copy_of(record: dict[str, Any]) -> dict[str, Any]:
    """`record` (a call) as Claude Code 2.1.211 re-emits it before a manual compaction: its
    four top-level counts 0, its split and its passes kept (docs/claude-code-shapes.md §17)."""
    copy = json.loads(json.dumps(record))
    copy["message"]["usage"].update(dict.fromkeys(_usage(), 0))
    return copy


def test_a_branch_copy_written_again_with_zeroed_counts_is_a_copy(cli: Any, tmp_path: Path) -> None:
    """A leading copy written again with its counts zeroed, its passes restoring its usage, is
    the same copy; a marked record so written that repeats no copy is refused as it reads
    (CC-REC-BAD-TOKEN-COUNT), not dropped with the branch's copies."""
    branch, own = _branch(tmp_path)
    split = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 30}
    usage = {**_usage(), "cache_creation_input_tokens": 30, "cache_creation": split}
    branch[1]["message"]["usage"] = {**usage, "iterations": [{**usage, "type": "message"}]}
    again = _zeroed_copy_of(branch[1])
    report = cli("inspect", "--json", "--in", str(_write_branch(tmp_path, [*branch, *own, again])))
    assert report.json()["convertible"] is True, report.json()["refusals"]
    assert {"code": "CC-REC-BRANCH-COPY", "count": 5} in report.json()["findings"]
    branch[1] = again
    report = cli("inspect", "--json", "--in", str(_write_branch(tmp_path, [*branch, *own])))
    assert [(r["code"], r["line"]) for r in report.json()["refusals"]] == [
        ("CC-REC-BAD-TOKEN-COUNT", 2)
    ]


@pytest.mark.parametrize("case", ["after-own-work", "names-this-session", "names-none"])
def test_a_branch_mark_no_branch_explains_refuses(cli: Any, tmp_path: Path, case: str) -> None:
    """Was: every main-transcript record marked `forkedFrom` was dropped as another session's,
    wherever it sat and whatever session it named: a call of the session's own carrying the
    mark left the bundle with exit 0 (a SPEC audit). Only the copies a branch starts with,
    naming another session, are copies."""
    branch, own = _branch(tmp_path, origin=OTHER if case == "names-this-session" else SID)
    if case == "names-none":
        for copy in branch:
            del copy["forkedFrom"]["sessionId"]
    records = [*branch, *own]
    if case == "after-own-work":
        own[0]["parentUuid"] = None  # its parent, a copy, would come after it (CC-REC-LINE-ORDER)
        records = [*own, *branch]
    path = _write_branch(tmp_path, records)
    report = cli("inspect", "--json", "--in", str(path)).json()
    codes = [(r["code"], r["line"]) for r in report["refusals"]]
    first = 3 if case == "after-own-work" else 1
    assert codes == [("CC-REC-BRANCH-COPY-UNEXPLAINED", n) for n in range(first, first + 4)]


@pytest.mark.parametrize("tied", [False, True])
def test_the_markdown_report_lists_tasks_as_the_template_did(
    cli: Any, tmp_path: Path, tied: bool
) -> None:
    """Was: the cost-per-task table in task-id order (pseudonyms: no order a reader can follow)
    and without a time, so a walk-through could not tell which row was which prompt. Rows now
    come in the template's order with the started_at it showed; JSON keeps id order. Tied
    times (an hour's precision; a review: sorted by id again) keep the template's order too."""
    records = []
    for n in range(6):
        user = {"type": "user", "uuid": f"u{n}", "message": {"content": f"CANARY {n}"}}
        user["parentUuid"] = f"a{n - 1}" if n else None
        answer = {"type": "assistant", "uuid": f"a{n}", "parentUuid": f"u{n}"}
        answer["message"] = _answer(f"msg_{n}", "x")
        records += [user, answer]
    for n, record in enumerate(records):
        minute = 0 if tied else n
        record.update(sessionId=SID, version="2.1.85", timestamp=f"2026-03-25T18:{minute:02d}:00Z")
        if record["type"] == "user":
            record["message"]["role"] = "user"
    parent = tmp_path / f"{SID}.jsonl"
    parent.write_text("".join(_line(**r) for r in records))
    template = tmp_path / "template.json"
    assert cli("convert", "--in", str(parent), "--template", str(template)).code == 0
    listed = [(t["id"], t["started_at"]) for t in read_json(template)["tasks"]]
    assert len(listed) == 6
    assert [t for t, _ in listed] != sorted(t for t, _ in listed)  # else the test shows nothing
    contract = tmp_path / "contract.json"
    write_json(contract, fill(read_json(template)))
    bundle = tmp_path / "bundle.json"
    done = cli("convert", "--in", str(parent), "--contract", str(contract), "--out", str(bundle))
    assert done.code == 0, done.err
    shown = cli("evaluate", "--bundle", str(bundle), "--format", "markdown").out
    assert "| Task | Started | Acceptable |" in shown
    rows = [line.split(" | ")[:2] for line in shown.splitlines() if line.startswith("| `task-")]
    assert [(task.strip("| `"), started) for task, started in rows] == listed
    report = cli("evaluate", "--bundle", str(bundle), "--format", "json").json()
    assert [t["id"] for t in report["tasks"]] == sorted(t for t, _ in listed)
    assert {t["id"]: t["started_at"] for t in report["tasks"]} == dict(listed)


def test_a_compaction_call_is_the_task_it_descends_from(tmp_path: Path) -> None:
    """A compaction agent opens with copies of context re-attached long before (hook reminders,
    `isMeta`, pointing back across earlier prompts: 258c7280's first points at line 695, its
    call descends from line 1255). Was: anchored by that first record, the call counted to the
    prompt before, exit 0 (a hunt: 166,758 cache-read tokens of 258c7280 with a prompt typed
    between the two); now by the record its call descends from."""
    from converter.run.pipeline import read_tree

    _two_prompt_parent(tmp_path)
    lines = [
        {"type": "user", "uuid": "m1", "parentUuid": "a1", "isMeta": True, "message": {}},
        {"type": "user", "uuid": "c1", "parentUuid": "a2", "message": {}},
        {"type": "assistant", "uuid": "c2", "parentUuid": "c1"},
    ]
    lines[0]["message"] = {"role": "user", "content": "CANARY hook reminder"}
    lines[1]["message"] = {"role": "user", "content": "CANARY summarise"}
    lines[2]["message"] = _answer("msg_compact", "z")
    for record in lines:
        record.update(sessionId=SID, isSidechain=True, agentId="acompact-3f2a1b")
        record.update(timestamp="2026-03-25T18:30:00.000Z", version="2.1.85")
    subagents = tmp_path / SID / "subagents"
    subagents.mkdir(parents=True)
    child = subagents / "agent-acompact-3f2a1b.jsonl"
    child.write_text("".join(_line(**r) for r in lines))
    account = read_tree(tmp_path / f"{SID}.jsonl")
    assert account.refusals == []
    tasks = {msg: call.task for msg, call in account.calls.items()}
    assert tasks["msg_compact"] == tasks["msg_2"] != tasks["msg_1"]
    # a chain that ends inside the fork (no parent) falls back to its first named parent
    lines[1]["parentUuid"] = None
    child.write_text("".join(_line(**r) for r in lines))
    tasks = {msg: call.task for msg, call in read_tree(tmp_path / f"{SID}.jsonl").calls.items()}
    assert tasks["msg_compact"] == tasks["msg_1"]


def _templates_of_a_stub(cli: Any, tmp_path: Path, model: str) -> tuple[Path, Any, Any]:
    """A session whose one call of `model` is usage-incomplete: its parent, its template made
    with the shipped card, and a second one carried `--from-contract` the first."""
    stub = _answer("msg_2", "CANARY-stub", stop_reason=None)
    stub["model"] = model
    parent = _parent(
        tmp_path,
        _line(type="assistant", uuid="a2", parentUuid="a1", sessionId=SID, message=stub),
    )
    template = tmp_path / "t.json"
    card = ("--price-card", "anthropic-2026-12")
    made = cli("convert", "--in", str(parent), "--template", str(template), *card)
    assert made.code == 0, made.err
    assert "CANARY" not in made.out + made.err
    again_at = str(tmp_path / "t2.json")
    again = cli(
        "convert", "--in", str(parent), "--template", again_at, "--from-contract", str(template)
    )
    assert again.code == 0, again.err
    return parent, made, again


def test_a_template_says_which_filled_bound_sets_the_high_end(cli: Any, tmp_path: Path) -> None:
    """A FinOps walkthrough: the card's max_output_tokens (the model maximum) is filled in, not
    among the claims "to fill", and sets the high end of every usage-incomplete call, so a user
    doing as told never looked at the one number that made the interval 7.5x wide. The template
    says it, per model with such calls; not for a bound a carried contract already chose."""
    parent, made, again = _templates_of_a_stub(cli, tmp_path, "claude-haiku-4-5-20251001")
    said = [line for line in made.out.splitlines() if "check max_output_tokens" in line]
    assert said == [
        "  check max_output_tokens of claude-haiku-4-5-20251001 (64,000): it bounds the output "
        "of its 1 usage-incomplete call, the high end of their cost; set the output limit your "
        "Claude Code requested (CLAUDE_CODE_MAX_OUTPUT_TOKENS, when set) if lower"
    ]
    assert "check max_output_tokens" not in again.out
    bare = cli("convert", "--in", str(parent), "--template", str(tmp_path / "t3.json"))
    assert "check max_output_tokens" not in bare.out  # no card: the bound is a null to fill
    assert "  fill max_output_tokens of claude-haiku-4-5-20251001: it bounds the output" in bare.out


def test_a_template_says_which_bound_is_left_to_fill_and_where_its_value_comes_from(
    cli: Any, tmp_path: Path
) -> None:
    """A walkthrough: a 1.0.x session of Sonnet 4 (no max_output_tokens on the card), 166 of
    its 170 calls usage-incomplete, had a template that said nothing of the bound, then a
    refusal at convert --contract naming no number. The template says which bound is null,
    for how many calls, and where its value comes from; so does a carried template while the
    carried contract leaves it null."""
    _, made, again = _templates_of_a_stub(cli, tmp_path, "claude-sonnet-4-20250514")
    fill = (
        "  fill max_output_tokens of claude-sonnet-4-20250514: it bounds the output of its 1 "
        "usage-incomplete call, the high end of their cost; set the output limit your Claude Code "
        "requested (CLAUDE_CODE_MAX_OUTPUT_TOKENS, when set), else the model's documented maximum "
        "output"
    )
    assert [line for line in made.out.splitlines() if "max_output_tokens" in line] == [fill]
    assert fill in again.out.splitlines()


def test_the_template_says_a_stub_with_no_input_has_no_high_end(cli: Any, tmp_path: Path) -> None:
    """A walkthrough: the template told a user to fill max_output_tokens since "it bounds ...
    the high end of their cost" of 4 calls that recorded no input, whose cost has none; and it
    gave no notice that evaluate would then meet no cost gate, as it does for a finding that
    some spend is in no cost."""
    only = _parent(tmp_path, _stub("msg_2", "a2", "a1"))
    made = cli("convert", "--in", str(only), "--template", str(tmp_path / "t.json"))
    assert made.code == 0, made.err
    assert "recorded no input (CC-REC-USAGE-INCOMPLETE-NO-INPUT): its cost has no high end" in (
        made.err
    )
    assert "(EVAL-COST-UNBOUNDED, INCOMPLETE)" in made.err
    assert (
        "it bounds the output of its 1 usage-incomplete call, but it recorded no input: no bound "
        "gives its cost a high end;"
    ) in made.out
    mixed = _parent(
        tmp_path, _stub("msg_2", "a2", "a1") + _stub("msg_3", "a3", "a2", input_tokens=7)
    )
    made = cli("convert", "--in", str(mixed), "--template", str(tmp_path / "t2.json"))
    assert (
        "it bounds the output of its 2 usage-incomplete calls, the high end of their cost (not "
        "of the 1 that recorded no input: no bound gives theirs one);"
    ) in made.out
    assert "1 usage-incomplete call recorded no input" in made.err
