"""A file the session tree holds and does not read is refused once, by its own code.

A new user's run: one agent transcript of mode 000 (or a symlink, a FIFO), or a `subagents/`
folder that could not be listed, was refused as such, and then again as its meta without a
transcript (CC-TREE-META-WITHOUT-CHILD), its delegation unexpanded (CC-TREE-UNEXPANDED-
DELEGATION, "the spend cannot be reconstructed"), its journal line with no agent, its own child
an orphan: each a fix for a file that is not missing. The run still refuses, exit 2, by that one
code; what the file not read does not explain is still said. And a parent that could not be read
was counted among the bound files, by the digest of nothing.

Files of mode 000 run the CLI through `modes_cli` (as root, without the capabilities that let
root read them); symlinks and FIFOs refuse as root too and run in this process.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.damage import _PSEUDO, COMMANDS, INSPECT, Command, Outcome, Tree, run_command

CHILD = "subagents/agent-ada32aef20ac2c7e7.jsonl"  # the parent's Agent call; it nests GRANDCHILD
GRANDCHILD = "subagents/agent-a0bbc77a137d21d32.jsonl"
RUN = "subagents/workflows/wf_42728b42-182"
WORKFLOW_AGENT = f"{RUN}/agent-a1f8fcebbaf161ed3.jsonl"  # one of the run's two agents
TARGETS = {"child": CHILD, "grandchild": GRANDCHILD, "workflow-agent": WORKFLOW_AGENT}
WORKFLOW_LINE = 39  # the rich parent's Workflow call


@pytest.fixture(params=COMMANDS, ids=str)
def command(request: pytest.FixtureRequest) -> Command:
    return request.param  # type: ignore[no-any-return]


@contextmanager
def closed(*paths: Path) -> Iterator[None]:
    """The paths at mode 000 for the block (opened again after, for the clean-up)."""
    modes = [(path, path.stat().st_mode) for path in paths]
    for path in paths:
        path.chmod(0)
    try:
        yield
    finally:
        for path, mode in reversed(modes):
            path.chmod(mode)


def replace_by(kind: str, path: Path, tmp_path: Path) -> None:
    """Put a symlink (to the same bytes, outside the tree) or a FIFO where `path` was."""
    if kind == "symlink":
        outside = tmp_path / f"outside-{path.name}"
        path.rename(outside)
        path.symlink_to(outside)
    else:
        path.unlink()
        os.mkfifo(path)


def said_once(outcome: Outcome, code: str, label: str) -> None:
    """Refused (exit 2) by `code` at `label`, and by nothing else."""
    assert outcome.code == 2, (outcome.code, outcome.err[-2000:])
    assert outcome.codes == {code}, outcome.refusals
    assert outcome.has(code, label), (label, outcome.refusals)


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("kind", ["symlink", "fifo"])
def test_an_agent_transcript_refused_as_not_a_file_is_said_once(
    kind: str, target: str, rich: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    rel = TARGETS[target]
    replace_by(kind, rich.path(rel), tmp_path)
    outcome = run_command(cli, command, rich, tmp_path)
    code = "CC-TREE-SYMLINK" if kind == "symlink" else "CC-TREE-SPECIAL-FILE"
    said_once(outcome, code, rich.label("unbound", rel))


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_an_agent_transcript_that_cannot_be_read_is_said_once(
    target: str, rich: Tree, modes_cli: Callable[..., Any], command: Command, tmp_path: Path
) -> None:
    rel = TARGETS[target]
    with closed(rich.path(rel)):
        outcome = run_command(modes_cli, command, rich, tmp_path)
    said_once(outcome, "CC-TREE-UNREADABLE", rich.label("subagent", rel))
    if outcome.report is not None:  # a file not read is not bound: no digest of it is known
        assert outcome.report["bound_files"] == _files(rich) - 1
        assert outcome.report["counts"]["transcript_files"] == _transcripts(rich) - 1


@pytest.mark.parametrize("folder", ["subagents", RUN])
def test_a_folder_of_agents_that_cannot_be_listed_is_said_once(
    folder: str, rich: Tree, modes_cli: Callable[..., Any], command: Command, tmp_path: Path
) -> None:
    """No agent of it can be matched to a delegation: none is said to be missing."""
    with closed(rich.path(folder)):
        outcome = run_command(modes_cli, command, rich, tmp_path)
    said_once(outcome, "CC-TREE-UNREADABLE", rich.label("unbound", folder))


@pytest.mark.parametrize("folder", ["subagents", RUN])
def test_a_symlinked_folder_of_agents_is_said_once(
    folder: str, rich: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    moved = tmp_path / "moved"
    rich.path(folder).rename(moved)
    rich.path(folder).symlink_to(moved)
    outcome = run_command(cli, command, rich, tmp_path)
    said_once(outcome, "CC-TREE-SYMLINK", rich.label("unbound", folder))


def test_what_a_file_not_read_does_not_explain_is_still_said(
    rich: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    """The symlinked agent's meta names its delegation: that one is not said missing; the
    Workflow call whose run is gone is, and so is a meta of another agent with no transcript."""
    replace_by("symlink", rich.path(CHILD), tmp_path)
    shutil.rmtree(rich.path("subagents/workflows"))
    shutil.rmtree(rich.path("workflows"))
    stray_meta = "subagents/agent-a0bbc77a137d21d99.meta.json"
    rich.path(stray_meta).write_text('{"agentType":"Explore"}')
    outcome = run_command(cli, command, rich, tmp_path)
    assert outcome.code == 2
    assert sorted((r.code, r.file, r.line) for r in outcome.refusals) == sorted(
        [
            ("CC-TREE-SYMLINK", rich.label("unbound", CHILD), None),
            ("CC-TREE-META-WITHOUT-CHILD", rich.label("meta", stray_meta), None),
            ("CC-TREE-UNEXPANDED-DELEGATION", rich.label("parent", ""), WORKFLOW_LINE),
        ]
    )


def test_an_agent_with_no_evidence_of_its_delegation_leaves_none_said_missing(
    syn: Tree, cli: Any, command: Command, tmp_path: Path
) -> None:
    """The one agent transcript is a symlink and nothing else names it (no meta, its result
    not read as naming it): which delegation it ran is not written anywhere the tree reads, so
    no delegation is said to lack it; once it is a file, the join says what it says."""
    meta = syn.path("subagents/agent-a3088bfe7965a5c04.meta.json")
    meta.unlink()
    lines = [line.replace(b'"agentId"', b'"agentRef"') for line in syn.lines()]
    syn.write_lines("", lines)
    replace_by("symlink", syn.path("subagents/agent-a3088bfe7965a5c04.jsonl"), tmp_path)
    outcome = run_command(cli, command, syn, tmp_path)
    said_once(
        outcome,
        "CC-TREE-SYMLINK",
        syn.label("unbound", "subagents/agent-a3088bfe7965a5c04.jsonl"),
    )


@pytest.mark.parametrize("alone", [True, False], ids=["alone", "with-its-tree"])
def test_a_parent_that_cannot_be_read_is_not_bound(
    alone: bool, rich: Tree, modes_cli: Callable[..., Any], tmp_path: Path
) -> None:
    """Was `bound_files 1` (the digest of the nothing read); and with its tree, every child an
    orphan and every run with no launch, each said besides."""
    if alone:
        shutil.rmtree(rich.folder)
    with closed(rich.parent):
        outcome = run_command(modes_cli, INSPECT, rich, tmp_path)
        text = modes_cli("inspect", "--in", str(rich.parent))
    said_once(outcome, "CC-TREE-UNREADABLE", rich.label("parent", ""))
    assert outcome.report is not None
    assert outcome.report["bound_files"] == _files(rich) - 1
    assert outcome.report["counts"]["transcript_files"] == _transcripts(rich) - 1
    assert text.code == 2
    if alone:  # nothing read at all: the refusal alone, no summary of zeros
        assert text.out == "", text.out


def _files(tree: Tree) -> int:
    return sum(1 for p in tree.root.rglob("*") if p.is_file() and not p.is_symlink())


def _transcripts(tree: Tree) -> int:
    return sum(
        1
        for p in tree.root.rglob("*.jsonl")
        if p.is_file() and not p.is_symlink() and p.name != "journal.jsonl"
    )


SID = "11111111-2222-4333-8444-555555555555"
TOP, MIDDLE, BOTTOM = "a" + "1" * 16, "a" + "2" * 16, "a" + "3" * 16


def _transcript(prefix: str, delegates_to: str | None, **shared: Any) -> str:
    """A prompt and an answer; with `delegates_to`, an Agent call that ran it, and its result."""
    usage = {"input_tokens": 10, "output_tokens": 5}
    records: list[dict[str, Any]] = [
        {"type": "user", "uuid": f"{prefix}u", "parentUuid": None, "message": {"content": "CANARY"}}
    ]
    last = f"{prefix}u"
    if delegates_to is not None:
        call = {"type": "tool_use", "id": f"toolu_{delegates_to}", "name": "Agent", "input": {}}
        records += [
            {
                "type": "assistant",
                "uuid": f"{prefix}c",
                "parentUuid": last,
                "message": {"id": f"msg_{prefix}c", "content": [call], "usage": usage},
            },
            {
                "type": "user",
                "uuid": f"{prefix}r",
                "parentUuid": f"{prefix}c",
                "message": {
                    "content": [
                        {"type": "tool_result", "tool_use_id": call["id"], "content": "CANARY"}
                    ]
                },
                "toolUseResult": {"status": "completed", "agentId": delegates_to},
            },
        ]
        last = f"{prefix}r"
    answer = [{"type": "text", "text": "CANARY"}]
    records.append(
        {
            "type": "assistant",
            "uuid": f"{prefix}a",
            "parentUuid": last,
            "message": {"id": f"msg_{prefix}a", "content": answer, "usage": usage},
        }
    )
    lines = []
    for record in records:
        record.update(sessionId=SID, version="2.1.90", timestamp="2026-09-20T10:00:00.000Z")
        record.update(shared)
        message = record["message"]
        message["role"] = record["type"]
        if record["type"] == "assistant":
            message.update(model="claude-sonnet-4-5-20250929", stop_reason="end_turn")
        lines.append(json.dumps(record) + "\n")
    return "".join(lines)


def _three_deep(root: Path) -> Tree:
    """The parent runs TOP, TOP runs MIDDLE, MIDDLE runs BOTTOM; every meta names its call and
    (below the top) its parent agent."""
    root.mkdir()
    parent = root / f"{SID}.jsonl"
    parent.write_text(_transcript("p", TOP))
    folder = root / SID / "subagents"
    folder.mkdir(parents=True)
    for agent, runs, above in ((TOP, MIDDLE, None), (MIDDLE, BOTTOM, TOP), (BOTTOM, None, MIDDLE)):
        text = _transcript(agent[-4:], runs, isSidechain=True, agentId=agent)
        (folder / f"agent-{agent}.jsonl").write_text(text)
        meta: dict[str, Any] = {"agentType": "general-purpose", "toolUseId": f"toolu_{agent}"}
        if above is not None:
            meta["parentAgentId"] = above
        (folder / f"agent-{agent}.meta.json").write_text(json.dumps(meta))
    return Tree(root, parent)


def test_agents_below_one_not_read_are_not_said_orphans_or_unexpanded(
    cli: Any, command: Command, tmp_path: Path
) -> None:
    """TOP not read: MIDDLE's delegation is in it (an orphan, its meta says whose), and
    BOTTOM, joined to MIDDLE's call, hangs from that orphan: MIDDLE's call is not said
    unexpanded either."""
    tree = _three_deep(tmp_path / "src")
    whole = run_command(cli, command, tree, tmp_path)
    assert whole.code == 0, whole.err  # the tree as built converts
    replace_by("fifo", tree.path(f"subagents/agent-{TOP}.jsonl"), tmp_path)
    outcome = run_command(cli, command, tree, tmp_path)
    said_once(
        outcome, "CC-TREE-SPECIAL-FILE", tree.label("unbound", f"subagents/agent-{TOP}.jsonl")
    )


def _beside_the_parent(root: Path, delegated: bool) -> tuple[Tree, str]:
    """A session whose one agent transcript lies beside the parent, not in its folder (2.0.x
    wrote them so; a later id's form there is read the same way): `delegated`, the parent's
    Agent call ran it (its result names the agent), else nothing names it."""
    root.mkdir()
    parent = root / f"{SID}.jsonl"
    parent.write_text(_transcript("p", TOP if delegated else None))
    name = f"agent-{TOP}.jsonl"
    (root / name).write_text(_transcript("t", None, isSidechain=True, agentId=TOP))
    return Tree(root, parent), name


def _beside(role: str, name: str) -> str:
    """The label of a file beside the parent (`Tree.label` names those in its folder)."""
    return f"{role}/{_PSEUDO.name('file', name)}"


@pytest.mark.parametrize("delegated", [True, False], ids=["delegated", "named-nowhere"])
def test_an_agent_transcript_beside_the_parent_that_cannot_be_read_is_refused(
    delegated: bool, modes_cli: Callable[..., Any], command: Command, tmp_path: Path
) -> None:
    """A review's find: such a transcript of mode 000 read no record naming this session, so it
    was taken for another session's and left unbound, its refusal dropped with it. Named
    nowhere (a compaction agent moved beside the parent, one the joins place by its records),
    the run converted with exit 0 and its calls left out; delegated, it was refused as a
    delegation unexpanded, a fix for spend that is not lost. Whose it is cannot be told
    unread: refused as not read, by that alone."""
    tree, name = _beside_the_parent(tmp_path / "src", delegated)
    whole = run_command(modes_cli, command, tree, tmp_path)
    if delegated:
        assert whole.code == 0, whole.err  # the tree as built converts
    else:  # its records name no delegation: an orphan, its spend not left out unsaid
        assert whole.codes == {"CC-TREE-ORPHAN-CHILD"}, whole.refusals
    with closed(tree.root / name):
        outcome = run_command(modes_cli, command, tree, tmp_path)
    said_once(outcome, "CC-TREE-UNREADABLE", _beside("subagent", name))


@pytest.mark.parametrize("kind", ["symlink", "fifo"])
def test_an_agent_transcript_beside_the_parent_refused_as_not_a_file_is_said_once(
    kind: str, cli: Any, command: Command, tmp_path: Path
) -> None:
    """Was also its delegation unexpanded, as in the session's folder before 0.6.1."""
    tree, name = _beside_the_parent(tmp_path / "src", delegated=True)
    replace_by(kind, tree.root / name, tmp_path)
    outcome = run_command(cli, command, tree, tmp_path)
    code = "CC-TREE-SYMLINK" if kind == "symlink" else "CC-TREE-SPECIAL-FILE"
    said_once(outcome, code, _beside("unbound", name))


def _within(seconds: float, work: Callable[[], Any]) -> Any:
    """`work()`'s result, or a failure if it has not returned after `seconds` (a thread, so a
    read that blocks fails the test instead of hanging it)."""
    import threading

    box: list[Any] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            box.append(work())
        except BaseException as error:  # re-raised in the test's thread
            failed.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "blocked"
    if failed:
        raise failed[0]
    return box[0]


def _swapped_after_listing(tmp_path: Path, parallel: bool, swap: Callable[[Path], None]) -> None:
    """Lay the synthetic tree out, `swap` its subagent transcript and meta file, then read it:
    both are CC-TREE-UNREADABLE, within 30 s (a hang fails)."""
    from converter.reader.load import load
    from converter.sources.tree import discover

    tree = tmp_path / "tree"
    shutil.copytree(Path(__file__).parents[1] / "fixtures" / "synthetic_tree", tree)
    (parent,) = tree.glob("*.jsonl")
    layout = discover(parent)
    child = next(f for f in layout.files if f.role == "subagent")
    meta = next(f for f in layout.files if f.role == "meta")
    for entry in (child, meta):
        swap(entry.path)
    loaded = _within(30, lambda: load(layout, 2 if parallel else 1, 0 if parallel else 1 << 60))
    unreadable = {p.file for p in loaded.problems if p.code == "CC-TREE-UNREADABLE"}
    assert {child.index, meta.index} <= unreadable


@pytest.mark.parametrize("parallel", [False, True])
def test_a_transcript_swapped_for_a_fifo_after_listing_is_unreadable_not_a_hang(
    parallel: bool, tmp_path: Path
) -> None:
    """A robustness probe: the listing saw regular files, then a subagent transcript and its
    meta were swapped for FIFOs before they were read; both processes waited on them for ever.
    Each reader opens a file only if it is still a regular file, so it is unreadable."""

    def fifo(path: Path) -> None:
        path.unlink()
        os.mkfifo(path)

    _swapped_after_listing(tmp_path, parallel, fifo)


@pytest.mark.parametrize("parallel", [False, True])
def test_a_transcript_swapped_for_a_symlink_after_listing_is_not_read_through_it(
    parallel: bool, tmp_path: Path
) -> None:
    """A robustness probe: the listing saw regular files, then a subagent transcript and its
    meta were swapped for symlinks to files outside the tree before they were read; the reader
    followed them, bound the outside files' bytes and said nothing of a link (SPEC §3: symlinks
    are refused). Each reader of a tree's file opens it without following a link."""

    def link(path: Path) -> None:
        outside = tmp_path / f"outside-{path.name}"
        path.rename(outside)
        path.symlink_to(outside)

    _swapped_after_listing(tmp_path, parallel, link)


def test_open_regular_follows_a_symlink_only_when_asked(tmp_path: Path) -> None:
    from converter.regular import open_regular

    plain = tmp_path / "plain.json"
    plain.write_bytes(b"{}\n")
    link = tmp_path / "link.json"
    link.symlink_to(plain)
    with open_regular(link) as stream:
        assert stream.read() == b"{}\n"
    with pytest.raises(OSError):
        open_regular(link, follow=False)
    with open_regular(plain, follow=False) as stream:
        assert stream.read() == b"{}\n"


def test_open_regular_refuses_what_is_not_a_regular_file_at_once(tmp_path: Path) -> None:
    from converter.regular import open_regular

    fifo = tmp_path / "x.jsonl"
    os.mkfifo(fifo)
    for path in (fifo, tmp_path, Path("/dev/null")):
        with pytest.raises(OSError):
            _within(10, lambda path=path: open_regular(path))
    plain = tmp_path / "plain.jsonl"
    plain.write_bytes(b"{}\n")
    with open_regular(plain) as stream:
        assert stream.read() == b"{}\n"


def test_open_regular_refuses_a_file_replaced_between_its_two_looks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The path is looked at, then opened: what is opened must be what was looked at (a diff
    review: no test reached the second look)."""
    import converter.regular as regular

    looked, opened = tmp_path / "looked.jsonl", tmp_path / "opened.jsonl"
    looked.write_bytes(b"{}\n")
    opened.write_bytes(b"{}\n")

    class _Os:  # the module's `os`, but its look at the path sees the other file
        def __getattr__(self, name: str) -> Any:
            return getattr(os, name)

        def stat(self, path: Any) -> os.stat_result:
            return os.stat(looked)

    monkeypatch.setattr(regular, "os", _Os())
    with pytest.raises(regular.NotRegularFile):
        regular.open_regular(opened)
