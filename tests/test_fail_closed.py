"""Trees whose files record model calls the run would leave out while converting (exit 0):
each must be counted or refused, never dropped unsaid. Found by a hunt for silent omissions
after 0.6.1's fix of an unreadable agent transcript beside the parent."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.damage import _PSEUDO, COMMANDS, INSPECT, Command, Tree, copy_tree, run_command
from tests.test_unread_files import SID, TOP, _transcript


@pytest.fixture(params=COMMANDS, ids=str)
def command(request: pytest.FixtureRequest) -> Command:
    return request.param  # type: ignore[no-any-return]


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


@pytest.mark.parametrize("delegated", [True, False], ids=["delegated", "named-nowhere"])
def test_an_agent_transcript_beside_the_parent_naming_no_session_is_bound(
    delegated: bool, cli: Any, command: Command, tmp_path: Path
) -> None:
    """An agent transcript beside the parent (2.0.x's place) whose records name no session was
    taken for another session's and left unbound: named nowhere, the run converted with its
    call left out. Whose it is cannot be told, as for one not read: it is bound, counted where
    a delegation names it, and an orphan (refused) where none does."""
    src = tmp_path / "src"
    src.mkdir()
    parent = src / f"{SID}.jsonl"
    parent.write_text(_transcript("p", TOP if delegated else None))
    name = f"agent-{TOP}.jsonl"
    child = _transcript("t", None, isSidechain=True, agentId=TOP)
    lines = [json.loads(line) for line in child.splitlines()]
    for record in lines:
        del record["sessionId"]
    (src / name).write_text("".join(json.dumps(r) + "\n" for r in lines))
    tree = Tree(src, parent)
    outcome = run_command(cli, command, tree, tmp_path)
    if delegated:
        assert outcome.code == 0, outcome.err[-2000:]
        if command is INSPECT:  # the agent's call is counted
            assert outcome.report is not None
            assert outcome.report["counts"]["model_calls"] == 3
            assert outcome.report["bound_files"] == 2
    else:
        assert outcome.code == 2, (outcome.code, outcome.err[-2000:])
        label = f"subagent/{_PSEUDO.name('file', name)}"
        assert outcome.has("CC-TREE-ORPHAN-CHILD", label), outcome.refusals


def test_an_empty_file_beside_the_parent_stays_unbound(cli: Any, tmp_path: Path) -> None:
    """What names no session and holds no record binds to no tree (else every session of the
    project folder would list it)."""
    src = tmp_path / "src"
    src.mkdir()
    parent = src / f"{SID}.jsonl"
    parent.write_text(_transcript("p", None))
    (src / f"agent-{TOP}.jsonl").write_text("")
    result = cli("inspect", "--json", "--in", str(parent))
    assert result.code == 0, result.err
    assert result.json()["bound_files"] == 1


SYN_CHILD = "subagents/agent-a3088bfe7965a5c04.jsonl"


@pytest.mark.parametrize("mark", ["model", "api-error"])
def test_an_error_record_with_usage_in_a_forks_copies_is_refused(
    mark: str, cli: Any, command: Command, tmp_path: Path
) -> None:
    """A `<synthetic>` or `isApiErrorMessage` record with counts is refused where a stream's
    own records hold it (CC-REC-SYNTHETIC-WITH-USAGE); among a fork's leading copies of the
    parent's calls it was passed over unchecked, and the run converted."""
    tree = copy_tree("synthetic_tree", tmp_path / "src")
    path = tree.path(SYN_CHILD)
    records = _records(path)
    error = copy.deepcopy(records[1])  # right after the bootstrap copy of the Agent call
    error["uuid"] = "44444444-4444-4444-8444-444444444444"
    error["message"]["id"] = "msg_error_in_copies"
    error["message"]["usage"]["output_tokens"] = 999
    if mark == "model":
        error["message"]["model"] = "<synthetic>"
    else:
        error["isApiErrorMessage"] = True
    _write(path, [*records[:2], error, *records[2:]])
    outcome = run_command(cli, command, tree, tmp_path)
    assert outcome.code == 2, (outcome.code, outcome.err[-2000:])
    assert outcome.has("CC-REC-SYNTHETIC-WITH-USAGE", tree.label("subagent", SYN_CHILD), 3)


def test_a_progress_copy_of_no_call_in_a_forks_copies_is_refused(
    cli: Any, command: Command, tmp_path: Path
) -> None:
    """A progress line copying a call no transcript records is refused in a stream's own
    records (CC-REC-PROGRESS-UNMATCHED); among a fork's leading copies it was not looked at."""
    tree = copy_tree("synthetic_tree", tmp_path / "src")
    path = tree.path(SYN_CHILD)
    records = _records(path)
    copied = copy.deepcopy(records[-1]["message"])
    copied["id"] = "msg_recorded_nowhere"
    progress = {
        "type": "progress",
        "uuid": "66666666-6666-4666-8666-666666666666",
        "parentUuid": records[1].get("uuid"),
        "sessionId": records[2]["sessionId"],
        "isSidechain": True,
        "agentId": "a3088bfe7965a5c04",
        "data": {"type": "agent_progress", "message": {"type": "assistant", "message": copied}},
    }
    _write(path, [*records[:2], progress, *records[2:]])
    outcome = run_command(cli, command, tree, tmp_path)
    assert outcome.code == 2, (outcome.code, outcome.err[-2000:])
    assert outcome.has("CC-REC-PROGRESS-UNMATCHED", tree.label("subagent", SYN_CHILD), 3)


def test_a_split_sessions_folder_in_a_third_project_folder_is_refused(
    cli: Any, command: Command, tmp_path: Path
) -> None:
    """A session with a transcript in two project folders, and its folder of agents in a third:
    which part that folder is cannot be told, so no tree reads it. Its delegations stay
    unexpanded (refused), but a fork Claude Code started itself (a compaction) has no call to
    name it, and the run converted with its spend left out. `scan` refuses such a row
    (CC-TREE-SPLIT-FOLDER, the folder read by none of its transcripts): so does the tree. (It
    was CC-TREE-PARENT-MISSING, "the parent transcript does not exist", for a transcript
    given that was there: a new-user audit.)"""
    projects = tmp_path / "projects"
    here = projects / "-home-dev-app"
    here.mkdir(parents=True)
    parent = here / f"{SID}.jsonl"
    parent.write_text(_transcript("p", None))
    other = projects / "-home-dev-app-b"
    other.mkdir()
    (other / f"{SID}.jsonl").write_text(_transcript("q", None))
    agents = projects / "-home-dev-app--claude-worktrees-w" / SID / "subagents"
    agents.mkdir(parents=True)
    fork = "acompact-123456"
    (agents / f"agent-{fork}.jsonl").write_text(
        _transcript("f", None, isSidechain=True, agentId=fork)
    )
    outcome = run_command(cli, command, Tree(here, parent), tmp_path)
    assert outcome.code == 2, (outcome.code, outcome.err[-2000:])
    assert outcome.codes == {"CC-TREE-SPLIT-FOLDER"}, outcome.refusals
