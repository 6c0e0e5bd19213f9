"""A session whose main transcript is in two project folders (CC-TREE-SPLIT-SESSION): each part
converts on its own, and evaluate holds the cost gates open unless every part's bundle is in the
workload (a walkthrough: README's loop converted one part and evaluate decided SCALE on half
the session's spend)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, fixture_parent

PARENT = fixture_parent("synthetic_tree")
CONTRACT = FIXTURES / "synthetic_contract.json"


@pytest.fixture(autouse=True)
def _demo_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", "de" * 32)  # the checked-in contract's key


def _second_part(project: Path, part: int = 2) -> Path:
    """A transcript of the fixture's session in another project folder: one prompt, one call
    of its own (not a copy: a copy's bundle would overlap the first's; `part` tells parts
    apart)."""
    sid = PARENT.stem

    def rec(n: int, parent: int | None, **fields: Any) -> dict[str, Any]:
        uuid = f"00000000-0000-4000-800{part}-{n:012d}"
        before = None if parent is None else f"00000000-0000-4000-800{part}-{parent:012d}"
        stamp = f"2026-07-21T10:00:{n:02d}.000Z"
        return {"uuid": uuid, "parentUuid": before, "sessionId": sid, "version": "2.1.216"} | {
            "timestamp": stamp,
            **fields,
        }

    usage = {
        "input_tokens": 10,
        "output_tokens": 5,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
        "service_tier": "standard",
        "speed": "standard",
        "inference_geo": "not_available",
    }
    message = {
        "id": f"msg_B{part}",
        "role": "assistant",
        "model": "claude-opus-4-8",
        "content": [{"type": "text", "text": "x"}],
        "stop_reason": "end_turn",
        "usage": usage,
    }
    records = [
        rec(1, None, type="user", message={"role": "user", "content": f"part {part}"}),
        rec(2, 1, type="assistant", requestId=f"req_B{part}", message=message),
    ]
    project.mkdir(parents=True)
    path = project / PARENT.name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _bundle(cli: Any, parent: Path, work: Path, *source: str) -> Path:
    """The part's template, filled with the fixture contract's claims, and its bundle."""
    template = work / "template.json"
    made = cli("convert", *source, "--in", str(parent), "--template", str(template))
    assert made.code == 0, made.err
    assert "CC-TREE-SPLIT-SESSION" in made.err  # said before any task is labelled
    doc = json.loads(template.read_text())
    claims = json.loads(CONTRACT.read_text())["claims"]
    outcome = next(iter(claims["outcomes"].values()))
    claims["outcomes"] = {task["id"]: outcome for task in doc["tasks"]}
    used = doc["claims"]["pricing"]["client_tools"] or {}
    claims["pricing"]["client_tools"] = {
        k: v for k, v in claims["pricing"]["client_tools"].items() if k in used
    }
    doc["claims"] = claims
    contract = work / "contract.json"
    contract.write_text(json.dumps(doc))
    bundle = work / "bundle.json"
    done = cli(
        "convert", *source, "--in", str(parent), "--contract", str(contract), "--out", str(bundle)
    )
    assert done.code == 0, done.err
    return bundle


def _held_open(cli: Any, bundle: Path) -> None:
    """Evaluated alone, a part's bundle meets no cost gate: INCOMPLETE, for spend left out."""
    alone = cli("evaluate", "--bundle", str(bundle))
    assert alone.code == 2, alone.out + alone.err
    assert "EVAL-COST-LEFT-OUT" in alone.out


def test_one_part_of_a_split_session_meets_no_cost_gate_alone(cli: Any, tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    first = projects / "-home-dev-app"
    shutil.copytree(PARENT.parent, first)
    second = _second_part(projects / "-home-dev-app--claude-worktrees-w")
    bundles = []
    for n, parent in enumerate((first / PARENT.name, second)):
        (tmp_path / f"work{n}").mkdir()
        bundles.append(_bundle(cli, parent, tmp_path / f"work{n}"))
    for bundle in bundles:
        alone = cli("evaluate", "--bundle", str(bundle), "--format", "json")
        assert alone.code == 2, alone.err
        result = json.loads(alone.out)
        assert result["decision"] == "INCOMPLETE"
        assert result["at_best"] == "SCALE"
        assert {r["code"] for r in result["reasons"]} == {"EVAL-COST-LEFT-OUT"}
        assert result["metrics"]["spend_left_out"] == 1
        # which task the other part's spend is of is not known: none of this part's is bounded
        assert [t["high_is_bound"] for t in result["tasks"]] == [False] * len(result["tasks"])
    both = cli("evaluate", "--bundle", str(bundles[0]), "--bundle", str(bundles[1]))
    assert both.code == 0, both.out + both.err
    assert both.out.startswith("Decision: SCALE")
    together = cli("evaluate", *(f"--bundle={b}" for b in bundles), "--format", "json")
    assert all(t["high_is_bound"] for t in json.loads(together.out)["tasks"])


def test_a_part_read_as_one_file_is_a_part_still(cli: Any, tmp_path: Path) -> None:
    """`--from claude-code` reads one transcript on its own: a split session's part read so
    says the other part is there too (a review: it did not, and evaluate decided SCALE)."""
    projects = tmp_path / "projects"
    _second_part(projects / "-home-dev-app")
    second = _second_part(projects / "-home-dev-app--claude-worktrees-w")
    bundle = _bundle(cli, second, tmp_path, "--from", "claude-code")
    _held_open(cli, bundle)


def test_a_part_given_through_a_symlinked_project_folder_is_a_part_still(
    cli: Any, tmp_path: Path
) -> None:
    """A review: `--in link/<id>.jsonl`, the link naming a project folder, looked for the other
    parts beside the link, found none, and evaluate decided SCALE on one part's spend."""
    projects = tmp_path / "projects"
    first = projects / "-home-dev-app"
    shutil.copytree(PARENT.parent, first)
    _second_part(projects / "-home-dev-app--claude-worktrees-w")
    link = tmp_path / "elsewhere" / "app"
    link.parent.mkdir()
    link.symlink_to(first, target_is_directory=True)
    (tmp_path / "work").mkdir()
    bundle = _bundle(cli, link / PARENT.name, tmp_path / "work")
    _held_open(cli, bundle)


def test_no_part_is_missing_where_the_other_is_empty_or_the_same_file(
    cli: Any, tmp_path: Path
) -> None:
    """A review: an empty transcript of the session in another project folder made every
    bundle of it INCOMPLETE, and has no calls (nor a bundle) of its own to add; a symlink to
    the parent is the parent."""
    projects = tmp_path / "projects"
    first = projects / "-home-dev-app"
    shutil.copytree(PARENT.parent, first)
    empty = projects / "-home-dev-app--claude-worktrees-w"
    empty.mkdir()
    (empty / PARENT.name).write_bytes(b"")
    same = projects / "-home-dev-app--claude-worktrees-v"
    same.mkdir()
    (same / PARENT.name).symlink_to(first / PARENT.name)
    made = cli("convert", "--in", str(first / PARENT.name), "--template", str(tmp_path / "t.json"))
    assert made.code == 0, made.err
    assert "CC-TREE-SPLIT-SESSION" not in made.err
    # a non-empty part beside them is one part missing, counted once
    _second_part(projects / "-home-dev-app--claude-worktrees-x")
    look = cli("inspect", "--in", str(first / PARENT.name), "--json")
    assert look.code == 0, look.err
    assert {"code": "CC-TREE-SPLIT-SESSION", "count": 1} in json.loads(look.out)["findings"]


def test_dated_copies_of_one_export_are_no_split_session(cli: Any, tmp_path: Path) -> None:
    """A review: `--from claude-code` read copies of one export kept in dated folders as parts
    of a split session, and each bundle was INCOMPLETE forever. Only folders named as Claude
    Code names project folders (`-home-dev-app`) hold a split session's parts."""
    evidence = tmp_path / "evidence"
    _second_part(evidence / "2026-07-01")
    later = _second_part(evidence / "2026-07-02")
    made = cli(
        "convert",
        "--from",
        "claude-code",
        "--in",
        str(later),
        "--template",
        str(tmp_path / "t.json"),
    )
    assert made.code == 0, made.err
    assert "CC-TREE-SPLIT-SESSION" not in made.err


def test_a_part_missing_is_counted_once_whatever_bundles_of_the_session_are_there(
    cli: Any, tmp_path: Path
) -> None:
    """A review: two bundles of a session split three ways each said one part was missing, and
    evaluate counted two."""
    projects = tmp_path / "projects"
    parts = [_second_part(projects / f"-home-dev-app{n}", n) for n in (2, 3, 4)]
    bundles = []
    for n, parent in enumerate(parts[:2]):
        (tmp_path / f"work{n}").mkdir()
        bundles.append(_bundle(cli, parent, tmp_path / f"work{n}"))
    two = cli(
        "evaluate", "--bundle", str(bundles[0]), "--bundle", str(bundles[1]), "--format", "json"
    )
    assert two.code == 2, two.err
    assert two.out, two.err
    result = json.loads(two.out)
    assert result["decision"] == "INCOMPLETE"
    assert result["metrics"]["spend_left_out"] == 1


def test_inspect_show_paths_names_the_other_parts_on_stderr_only(cli: Any, tmp_path: Path) -> None:
    """A user told another project folder holds a part asked which: `--show-paths` says where
    (relative to the parent's folder), on stderr; stdout and the JSON name no path."""
    projects = tmp_path / "projects"
    first = projects / "-home-dev-app"
    shutil.copytree(PARENT.parent, first)
    _second_part(projects / "-home-dev-app--claude-worktrees-w")
    shown = cli("inspect", "--in", str(first / PARENT.name), "--show-paths", "--json")
    assert shown.code == 0, shown.err
    part = f"../-home-dev-app--claude-worktrees-w/{PARENT.name}"
    assert f"part: {part} (another main transcript of this session, 1 of 1)" in shown.err
    assert "worktrees" not in shown.out
    plain = cli("inspect", "--in", str(first / PARENT.name))
    assert "worktrees" not in plain.out + plain.err


def _split_count(cli: Any, parent: Path, *source: str) -> int:
    look = cli("inspect", *source, "--in", str(parent), "--json")
    # (the fixture's children refuse it read as one file; its findings are counted still)
    assert look.code in (0, 2), look.err
    found = [f["count"] for f in look.json()["findings"] if f["code"] == "CC-TREE-SPLIT-SESSION"]
    return sum(found)


def test_what_is_one_other_part_and_what_is_none(cli: Any, tmp_path: Path) -> None:
    """Reviews of 0.6.12's first cuts: a part behind a symlinked worktree folder was unseen
    (SCALE on the other), a symlink to a part was a part of its own, an empty file held the
    session INCOMPLETE with no bundle to add, and `--from claude-code` judged the wrong
    folder's name, or one side's only."""
    projects = tmp_path / "projects"
    first = projects / "-home-dev-app"
    shutil.copytree(PARENT.parent, first)
    parent = first / PARENT.name
    empty = projects / "-home-dev-app--claude-worktrees-q"
    empty.mkdir()
    (empty / PARENT.name).write_bytes(b"")
    assert _split_count(cli, parent) == 0
    # a part in a folder linked from elsewhere is a part; a second name of it is the same part
    real = _second_part(tmp_path / "elsewhere" / "w")
    (projects / "-home-dev-app--claude-worktrees-w").symlink_to(real.parent, True)
    (projects / "-home-dev-app--claude-worktrees-x").mkdir()
    (projects / "-home-dev-app--claude-worktrees-x" / PARENT.name).symlink_to(real)
    assert _split_count(cli, parent) == 1
    # `--from claude-code` through a link named otherwise finds it too
    link = tmp_path / "current"
    link.symlink_to(first, True)
    assert _split_count(cli, link / PARENT.name, "--from", "claude-code") == 1
    assert _split_count(cli, link / PARENT.name) == 1
    # read as one file, a folder that is no project folder holds no part, nor is beside one;
    # the tree source, as scan, takes every folder beside as a project folder
    dated = tmp_path / "evidence"
    _second_part(dated / "-home-dev-app", 3)
    later = _second_part(dated / "2026-07-01", 4)
    assert _split_count(cli, dated / "-home-dev-app" / PARENT.name, "--from", "claude-code") == 0
    assert _split_count(cli, later, "--from", "claude-code") == 0
    assert _split_count(cli, later) == 1


def test_a_fifo_named_as_the_session_beside_is_counted_unopened(cli: Any, tmp_path: Path) -> None:
    """Opening a FIFO to look for calls would wait for a writer forever: it is counted as a
    part (what it holds cannot be told) and never opened. A hang fails the run by its time."""
    projects = tmp_path / "projects"
    first = projects / "-home-dev-app"
    shutil.copytree(PARENT.parent, first)
    (projects / "-home-dev-b").mkdir()
    os.mkfifo(projects / "-home-dev-b" / PARENT.name)
    assert _split_count(cli, first / PARENT.name) == 1


def test_a_folder_beside_that_cannot_be_looked_into_is_a_part_only_by_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review: a lone export in a home folder counted another user's home beside it, which
    it may not look into, as a part (every bundle INCOMPLETE, `part:` naming a file that is
    not there). Such a folder is a part only when named as a project folder is."""
    from converter.sources import tree

    home = tmp_path / "home"
    (home / "me").mkdir(parents=True)
    for folder in ("bob", "-home-dev-app"):  # what a look would find, were it allowed
        (home / folder).mkdir()
        shutil.copy(PARENT, home / folder / PARENT.name)
    parent = home / "me" / PARENT.name
    shutil.copy(PARENT, parent)
    real = tree.entry_kind

    def kind(path: Path) -> str:
        if path.parent.name in ("bob", "-home-dev-app") and path.name == PARENT.name:
            return "unreadable"
        return real(path)

    monkeypatch.setattr(tree, "entry_kind", kind)
    _, others = tree.session_folders_elsewhere(parent.parent, PARENT.stem)
    assert others == [home / "-home-dev-app" / PARENT.name]


def test_a_project_folder_first_seen_by_another_name_is_looked_at_by_its_own(
    cli: Any, tmp_path: Path
) -> None:
    """A review: read as one file through `~/current`, a link to the project folder, the
    worktree's folder was seen first as `~/wt` (no project folder's name), marked seen, and its
    part never counted: SCALE on one part."""
    projects = tmp_path / "projects"
    first = projects / "-home-dev-app"
    _second_part(first, 1)
    worktree = _second_part(projects / "-home-dev-app--claude-worktrees-w").parent
    (tmp_path / "current").symlink_to(first, True)
    (tmp_path / "wt").symlink_to(worktree, True)
    given = tmp_path / "current" / PARENT.name
    assert _split_count(cli, given, "--from", "claude-code") == 1
    assert _split_count(cli, given) == 1


def test_beside_an_empty_transcript_the_sessions_children_are_read(
    cli: Any, tmp_path: Path
) -> None:
    """A review: an empty `<id>.jsonl` in a worktree's folder, no part, hid the session's
    children beside it there (a compaction agent's call unread, no finding, SCALE)."""
    projects = tmp_path / "projects"
    parent = _second_part(projects / "-home-dev-app", 1)
    worktree = projects / "-home-dev-app--claude-worktrees-w"
    _compaction_child(worktree)
    # a link to the worktree's folder listed first hid it too (a review: `-aaa` sorts first)
    (projects / "-aaa").symlink_to(worktree, True)
    before = cli("inspect", "--in", str(parent), "--json").json()
    (worktree / PARENT.name).write_bytes(b"")
    after = cli("inspect", "--in", str(parent), "--json").json()
    assert after["counts"]["model_calls"] == before["counts"]["model_calls"] == 2
    assert "CC-TREE-SPLIT-SESSION" not in {f["code"] for f in after["findings"]}


def test_a_split_sessions_folder_beside_an_empty_transcript_is_said_as_such(
    cli: Any, tmp_path: Path
) -> None:
    """A new-user audit: the session in two project folders, and in a third an empty
    transcript of it beside its folder of agents. `inspect` of either transcript, there and
    read, was refused CC-TREE-PARENT-MISSING ("the parent transcript does not exist"), the
    real cause in a parenthesis. The folder is refused as what it is, CC-TREE-SPLIT-FOLDER,
    at the folder, by `inspect` and by `scan`'s row."""
    projects = tmp_path / "projects"
    parts = [_second_part(projects / name, n) for n, name in enumerate(("-a", "-b"), 1)]
    third = projects / "-c"
    _compaction_child(third)
    (third / PARENT.name).write_bytes(b"")
    for parent in parts:
        look = cli("inspect", "--in", str(parent), "--json", "--show-paths")
        assert look.code == 2, look.err
        refusals = json.loads(look.out)["refusals"]
        assert [r["code"] for r in refusals] == ["CC-TREE-SPLIT-FOLDER"]
        assert f"(../-c/{PARENT.stem}):" in look.err  # where the folder is, on stderr only
        assert "does not exist" not in look.err
    [row] = cli("scan", str(projects), "--json", "--jobs", "1").json()["sessions"]
    assert (row["status"], row["refusals"]) == ("refused", ["CC-TREE-SPLIT-FOLDER"])
    text = cli("scan", str(projects), "--jobs", "1").out
    assert "read by none of their transcripts (CC-TREE-SPLIT-FOLDER)" in text
    assert "CC-TREE-PARENT-MISSING" not in text


def _compaction_child(project: Path) -> None:
    """A compaction agent of the fixture's session in `project`'s folder of the session (the
    call of a fork Claude Code started itself: no delegation call names it)."""
    children = project / PARENT.stem / "subagents"
    children.mkdir(parents=True)
    usage = {"input_tokens": 1000, "output_tokens": 500}
    usage |= {"cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    answer = {"id": "msg_c", "type": "message", "role": "assistant", "model": "claude-opus-4-8"}
    answer |= {"content": [{"type": "text", "text": "s"}], "stop_reason": "end_turn"}
    records = [
        {"type": "user", "uuid": "c1", "parentUuid": "00000000-0000-4000-8001-000000000002"}
        | {"message": {"role": "user", "content": "summarise"}},
        {"type": "assistant", "uuid": "c2", "parentUuid": "c1", "requestId": "req_c"}
        | {"message": answer | {"usage": usage}},
    ]
    for r in records:
        r |= {"sessionId": PARENT.stem, "isSidechain": True, "agentId": "acompact-3f2a1b"}
        r |= {"timestamp": "2026-07-21T10:00:03.000Z", "version": "2.1.216"}
    agent = children / "agent-acompact-3f2a1b.jsonl"
    agent.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_a_bundle_stating_no_split_does_not_stand_in_for_a_missing_part() -> None:
    """A review: a second bundle with the split bundle's parent label, made up beside it and
    stating no split, counted as its missing part, and the cost gates met (INCOMPLETE became
    SCALE). Each part's conversion sees the others, so each says the split."""
    from converter.bundle.io import open_bundle
    from converter.firewall.view import Finding
    from converter.run.workload import _split_parts_missing

    head = open_bundle((FIXTURES / "synthetic_bundle.golden.json").read_bytes())
    split = head.model_copy(
        update={
            "receipt": head.receipt.model_copy(
                update={"findings": (Finding(code="CC-TREE-SPLIT-SESSION", count=1),)}
            )
        }
    )
    assert _split_parts_missing([split]) == (1, (1,))
    assert _split_parts_missing([split, head]) == (1, (1, 1))  # said nothing of a split
    assert _split_parts_missing([split, split]) == (0, (0, 0))  # a part that says it
