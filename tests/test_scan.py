"""`scan` over a generated projects folder: sessions grouped across project folders, orphans
reported, the same JSON with any number of jobs, and nothing local in the output."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import hypothesis
import jsonschema
import pytest
from hypothesis import strategies as st

import converter.run.scan as scan_module
from converter.devtools.bench.generate import Expected, Params, generate
from converter.errors.codes import CODES, SPEND_LEFT_OUT
from converter.firewall.keys import PseudonymKey
from converter.firewall.pseudonyms import Pseudonymizer
from converter.run.outputs import HiddenFigure, ModelFigure, ScanModelCost
from converter.text import counted
from tests.conftest import FIXTURES, TEST_KEY, fixture_parent

ROOT = Path(__file__).resolve().parent.parent

PROJECTS = ("-home-dev-alpha", "-home-dev-beta", "-home-dev-gamma")


def _tiny(seed: int, **kw: Any) -> Params:
    return Params(target_mb=0.03, seed=seed, huge_every_mb=None, **kw)


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Expected], str, str]:
    root = tmp_path_factory.mktemp("claude") / "projects"
    trees: list[Expected] = []
    for i in range(47):
        trees.append(generate(root / PROJECTS[i % 3], _tiny(100 + i)))
    # one session resumed under another project folder: a parent in each (same session id)
    first = generate(root / PROJECTS[0], _tiny(500, agent_rate=0.5))
    sid = first.parent.stem
    second = generate(root / PROJECTS[1], _tiny(501, session_id=sid))
    trees += [first, second]
    # a pruned session: its folder of subagents survived, its main transcript did not
    pruned = generate(root / PROJECTS[2], _tiny(600, agent_rate=0.9))
    assert pruned.subagents > 0
    pruned.parent.unlink()
    # not sessions
    (root / PROJECTS[0] / "memory").mkdir()
    (root / PROJECTS[0] / "memory" / "MEMORY.md").write_text("notes\n")
    (root / PROJECTS[1] / "notes.jsonl").write_text("{}\n")
    (root / "stray.txt").write_text("not a project folder\n")
    (root / ".DS_Store").write_bytes(b"Bud1")  # a file browser's, like memory/ expected
    (root / PROJECTS[0] / ".DS_Store").write_bytes(b"Bud1")
    return root, trees, sid, pruned.parent.stem


def test_scan_json_validates_against_its_schema(projects: Any, cli: Any) -> None:
    """contracts/scan.schema.json, checked by an independent validator, with and without a
    card (a row that does not convert has `cost: null`)."""
    schema = json.loads((ROOT / "contracts" / "scan.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    root, _, _, _ = projects
    for card in ((), ("--price-card", "anthropic-2026-12")):
        result = cli("scan", str(root), "--json", *card)
        assert result.code == 0, result.err
        doc = result.json()
        assert ("cost" in doc["totals"]) == bool(card)
        assert [e.message for e in validator.iter_errors(doc)] == []
    assert any(row["cost"] is None for row in doc["sessions"])  # the pruned session's


def test_a_report_with_a_value_of_no_allowed_shape_is_a_bug_not_output(
    projects: Any, cli: Any
) -> None:
    """The models behind `scan --json` are checked before anything is printed: a builder that
    put a local name where a label goes, or a code of no catalogue, fails (exit 70); it does not
    print it."""
    from pydantic import ValidationError

    from converter.run.outputs import ScanReport, checked

    root, _, _, _ = projects
    doc = cli("scan", str(root), "--json").json()
    assert checked(ScanReport, doc) == doc
    for field, value in [("session", "my-secret-project"), ("refusals", ["CC-MY-SECRET"])]:
        bad = json.loads(json.dumps(doc))
        bad["sessions"][0][field] = value
        with pytest.raises(ValidationError) as raised:
            checked(ScanReport, bad)
        assert [e["loc"][:3] for e in raised.value.errors()] == [("sessions", 0, field)]


def test_jobs_give_identical_json(projects: Any, cli: Any) -> None:
    root, trees, _, _ = projects
    one = cli("scan", str(root), "--jobs", "1", "--json")
    two = cli("scan", str(root), "--jobs", "2", "--json")
    assert one.code == 0, one.err
    assert two.code == 0, two.err
    assert one.out == two.out
    result = one.json()
    totals = result["totals"]
    assert result["project_folders"] == 3
    assert totals["sessions"] == 49  # 47 + the split one + the pruned one
    assert totals["parent_files"] == 49  # 47 + 2 for the split session
    assert totals["orphan"] == 1
    assert totals["split"] == 1
    assert totals["convertible"] == 48
    assert totals["refused"] == 1
    assert totals["model_calls"] == sum(t.model_calls for t in trees)
    assert totals["usage_incomplete_calls"] == sum(t.usage_incomplete_calls for t in trees)
    assert totals["tokens"] == sum(t.total_tokens for t in trees)
    assert totals["refusal_codes"] == {"CC-TREE-PARENT-MISSING": 1}
    assert totals["skipped_entries"] == 2  # notes.jsonl, stray.txt; memory/, .DS_Store expected
    assert totals["skipped_jsonl_files"] == 1  # notes.jsonl: inspect --from claude-code reads it
    orphan = [r for r in result["sessions"] if r["status"] == "orphan"]
    assert len(orphan) == 1
    assert orphan[0]["refusals"] == ["CC-TREE-PARENT-MISSING"]
    assert orphan[0]["model_calls"] == 0
    split = [r for r in result["sessions"] if r["split"]]
    assert len(split) == 1
    assert split[0]["parent_files"] == 2
    assert split[0]["status"] == "convertible"
    labels = [r["session"] for r in result["sessions"]]
    assert labels == sorted(labels)
    assert len(set(labels)) == 49
    _totals_are_the_rows(result)


def _totals_are_the_rows(result: dict[str, Any]) -> None:
    """Every count a row has, the totals hold as the sum over the rows."""
    rows, totals = result["sessions"], result["totals"]
    for key in (*scan_module._NUMBERS, "tokens", "parent_files", "orphan_folders", "split"):
        assert totals[key] == sum(r[key] for r in rows), key
    for key in totals["usage"]:
        assert totals["usage"][key] == sum(r["usage"][key] for r in rows), key
    assert totals["orphan"] == sum(r["status"] == "orphan" for r in rows)


def test_session_label_is_the_keyed_parent_file_label(projects: Any, cli: Any) -> None:
    root, trees, _, _ = projects
    scanned = cli("scan", str(root), "--jobs", "1", "--json").json()
    pseudo = Pseudonymizer(PseudonymKey(bytes.fromhex(TEST_KEY)))
    want = {pseudo.name("file", t.parent.name) for t in trees}
    assert want <= {r["session"] for r in scanned["sessions"]}
    assert scanned["key_id"] == pseudo.key_id


def test_price_card_gives_each_convertible_session_inspects_figure(projects: Any, cli: Any) -> None:
    """`scan --price-card` (a walkthrough: a machine's cost could only be had by inspecting
    each session): each convertible row's cost is `inspect --price-card`'s for its tree, the
    totals are the rows' sums (exact decimals), and --jobs does not change it."""
    root, trees, _, _ = projects
    card = ("--price-card", "anthropic-2026-12")
    one = cli("scan", str(root), "--jobs", "1", "--json", *card)
    two = cli("scan", str(root), "--jobs", "2", "--json", *card)
    assert (one.code, two.code) == (0, 0), one.err
    assert one.out == two.out
    result = one.json()
    rows = {r["session"]: r for r in result["sessions"]}
    pseudo = Pseudonymizer(PseudonymKey(bytes.fromhex(TEST_KEY)))
    checked = 0
    for tree in trees[:6]:
        row = rows[pseudo.name("file", tree.parent.name)]
        inspected = cli("inspect", "--in", str(tree.parent), "--json", *card).json()
        alone = inspected["card_cost"]
        own = ("spend_left_out", "by_model")
        assert {k: v for k, v in row["cost"].items() if k not in own} == {
            k: alone[k] for k in row["cost"] if k not in own
        }
        assert row["cost"]["by_model"] == {
            model: {k: entry[k] for k in scan_module._MODEL_COST}
            for model, entry in alone["by_model"].items()
        }
        found = {f["code"] for f in inspected["findings"]}
        assert row["cost"]["spend_left_out"] == sorted(found & SPEND_LEFT_OUT)
        assert set(row["cost"]) == {
            "low_usd",
            "high_usd",
            "high_usd_known",
            "model_calls_priced",
            "model_calls_not_priced",
            "tool_calls_not_priced",
            "model_calls_unbounded",
            "model_calls_no_max_output",
            "spend_left_out",
            "by_model",
        }
        checked += alone["model_calls_priced"] > 0
    assert checked  # the card prices the generator's models
    not_priced = [r for r in result["sessions"] if r["cost"] is None]
    assert {r["status"] for r in not_priced} == {"orphan", "convertible"}  # the split one
    assert [r["split"] for r in not_priced if r["status"] == "convertible"] == [True]
    total = result["totals"]["cost"]
    priced = [r["cost"] for r in result["sessions"] if r["cost"] is not None]
    assert Decimal(total["low_usd"]) == sum(Decimal(c["low_usd"]) for c in priced)
    assert Decimal(total["high_usd"]) == sum(Decimal(c["high_usd"]) for c in priced)
    assert total["high_usd"] == total["high_usd_known"]  # every call bounded
    assert total["model_calls_priced"] == sum(c["model_calls_priced"] for c in priced)
    # by model: each model's figure is its rows' sum, and the models' add up to the total
    models = total["by_model"]
    assert len(models) > 1
    for model, entry in models.items():
        parts = [c["by_model"][model] for c in priced if model in c["by_model"]]
        assert Decimal(entry["low_usd"]) == sum(Decimal(p["low_usd"]) for p in parts)
        assert Decimal(entry["high_usd"]) == sum(Decimal(p["high_usd"]) for p in parts)
        assert entry["model_calls"] == sum(p["model_calls"] for p in parts)
    assert sum(Decimal(m["low_usd"]) for m in models.values()) == Decimal(total["low_usd"])
    assert sum(m["model_calls"] for m in models.values()) == total["model_calls_priced"]
    assert total["sessions_not_priced"] == 2
    assert total["price_card"] == "anthropic-2026-12"
    text = cli("scan", str(root), "--jobs", "1", *card).out
    assert "cost (USD, by the card)" in text
    assert "cost by price card anthropic-2026-12: $" in text
    for model, entry in models.items():
        calls = entry["model_calls"]
        assert re.search(
            rf"^  {re.escape(model)}: \$[0-9.,]+( – \$[0-9.,]+)? \({calls:,} calls?\)$", text, re.M
        )
    assert "2 sessions not priced (`-`)" in text
    plain = cli("scan", str(root), "--jobs", "1", "--json").json()  # without: no cost at all
    assert "cost" not in plain["totals"]
    assert all("cost" not in r for r in plain["sessions"])


def _rewrite(tree: Expected, old: bytes, new: bytes) -> None:
    for path in [tree.parent, *(tree.parent.parent / tree.parent.stem).rglob("*.jsonl")]:
        path.write_bytes(path.read_bytes().replace(old, new))


def test_price_card_marks_what_its_figures_leave_out(tmp_path: Path, cli: Any) -> None:
    """A row's figure ends in `+` when some of its model or tool calls are not in it (a review:
    a session's MCP calls were in inspect's caveats and not in the row), says `nothing priced`
    when none is (not "$0.0000", which reads as free), and so does the total."""
    root = tmp_path / "projects"
    unknown = generate(root / PROJECTS[0], _tiny(700))
    _rewrite(unknown, b'"model":"claude-sonnet-5"', b'"model":"claude-opus-9-9"')
    _rewrite(unknown, b'"model":"claude-opus-4-8"', b'"model":"claude-opus-9-9"')
    _rewrite(unknown, b'"model":"claude-haiku-4-5-20251001"', b'"model":"claude-opus-9-9"')
    card = ("--price-card", "anthropic-2026-12")
    alone = cli("scan", str(root), "--jobs", "1", *card)
    assert alone.code == 0, alone.err
    assert "nothing priced +" in alone.out
    assert "cost by price card anthropic-2026-12: nothing priced of the convertible" in alone.out
    assert "$0.0000" not in alone.out
    mcp = generate(root / PROJECTS[1], _tiny(701))
    _rewrite(mcp, b'"model":"claude-sonnet-5"', b'"model":"claude-opus-4-8"')
    _rewrite(mcp, b'"name":"Read"', b'"name":"mcp__srv__lookup"')
    plain = generate(root / PROJECTS[2], _tiny(702))
    _rewrite(plain, b'"model":"claude-sonnet-5"', b'"model":"claude-opus-4-8"')
    result = cli("scan", str(root), "--jobs", "1", "--json", *card).json()
    pseudo = Pseudonymizer(PseudonymKey(bytes.fromhex(TEST_KEY)))
    by_label = {r["session"]: r for r in result["sessions"]}
    row = {
        name: by_label[pseudo.name("file", t.parent.name)]
        for name, t in (("unknown", unknown), ("mcp", mcp), ("plain", plain))
    }
    assert row["mcp"]["cost"]["tool_calls_not_priced"] > 0
    assert row["mcp"]["cost"]["model_calls_not_priced"] == 0
    assert row["plain"]["cost"]["tool_calls_not_priced"] == 0
    assert row["plain"]["cost"]["model_calls_not_priced"] == 0
    assert row["unknown"]["cost"]["model_calls_priced"] == 0
    total = result["totals"]["cost"]
    assert total["model_calls_not_priced"] == unknown.model_calls
    assert total["tool_calls_not_priced"] == row["mcp"]["cost"]["tool_calls_not_priced"]
    text = cli("scan", str(root), "--jobs", "1", *card).out
    lines = {t: next(x for x in text.splitlines() if x.startswith(row[t]["session"])) for t in row}
    assert re.search(r"\$[0-9.,]+ \+ +-$", lines["mcp"]), lines["mcp"]
    assert "+" not in lines["plain"], lines["plain"]
    assert "nothing priced +" in lines["unknown"]
    assert "of tools not built in (MCP: a contract states their price)" in text


def test_price_card_marks_a_figure_a_finding_says_leaves_spend_out(
    tmp_path: Path, cli: Any
) -> None:
    """A subagent transcript cut to its first line (a leak hunt's tree): every call the tree
    records is priced, but the parent's Agent result states usage no call of the child has
    (CC-REC-AGENT-USAGE-DISAGREE), so the figure is a lower bound and says so with `+`."""
    project = tmp_path / "projects" / PROJECTS[0]
    shutil.copytree(FIXTURES / "synthetic_tree", project)
    (child,) = project.rglob("agent-*.jsonl")
    child.write_bytes(child.read_bytes().splitlines(keepends=True)[0])
    card = ("--price-card", "anthropic-2026-12")
    result = cli("scan", str(project.parent), "--jobs", "1", "--json", *card)
    assert result.code == 0, result.err
    (row,) = result.json()["sessions"]
    assert row["cost"]["model_calls_not_priced"] == 0
    assert row["cost"]["tool_calls_not_priced"] == 0
    assert row["cost"]["spend_left_out"] == ["CC-REC-AGENT-USAGE-DISAGREE"]
    assert result.json()["totals"]["cost"]["sessions_with_spend_left_out"] == 1
    text = cli("scan", str(project.parent), "--jobs", "1", *card).out
    (line,) = [x for x in text.splitlines() if x.startswith(row["session"])]
    # which of the `+` rows the footnote means (a FinOps walkthrough could not tell its 2 of 7)
    assert re.search(r"\$[0-9.,]+ \+ +\[spend in no figure\]$", line), line  # no `-` before it
    assert (
        "1 session marked `+` and `[spend in no figure]` may have cost more than the figure: a "
        "finding says"
    ) in text
    # the legend says what `+` means once, for both of its causes
    assert "cost +: may be more than the figure, the footnotes say why)" in text
    whole = tmp_path / "whole" / PROJECTS[0]  # the same tree uncut: no mark
    shutil.copytree(FIXTURES / "synthetic_tree", whole)
    (plain,) = cli("scan", str(whole.parent), "--jobs", "1", "--json", *card).json()["sessions"]
    assert plain["cost"]["spend_left_out"] == []
    # no row marked: the legend has no word for `+` (a scan of three sessions read it)
    assert "cost +" not in cli("scan", str(whole.parent), "--jobs", "1", *card).out


def test_an_unknown_price_card_is_refused_before_the_scan(
    projects: Any, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _, _, _ = projects

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the scan ran before the card was read")

    monkeypatch.setattr("converter.cli.scan.run_scan", never)
    result = cli("scan", str(root), "--price-card", "anthropic-1999-01")
    assert result.code == 2
    assert result.err.startswith("refused: PRICE-CARD-")
    assert result.out == ""


def test_output_is_content_free(projects: Any, cli: Any) -> None:
    root, trees, split_sid, pruned_sid = projects
    secrets = {split_sid, pruned_sid, str(root), *PROJECTS}
    secrets |= {t.parent.stem for t in trees}
    secrets |= {t.parent.stem.upper() for t in trees}
    for args in (("--json",), ()):
        result = cli("scan", str(root), "--jobs", "2", *args)
        assert result.code == 0, result.err
        for secret in secrets:
            assert secret not in result.out
            assert secret not in result.err
    text = cli("scan", str(root), "--jobs", "1").out
    assert "49 sessions in 3 project folders" in text
    assert "[split]" in text
    assert "2 entries skipped" in text
    assert "1 of them is a .jsonl file not named by a session id" in text
    assert "renamed transcript): its calls are in no row" in text


def test_show_paths_maps_labels_to_local_paths_on_stderr_only(projects: Any, cli: Any) -> None:
    root, trees, split_sid, pruned_sid = projects
    plain = cli("scan", str(root), "--jobs", "1", "--json")
    shown = cli("scan", str(root), "--jobs", "1", "--json", "--show-paths")
    assert shown.code == 0, shown.err
    assert shown.out == plain.out  # stdout stays content-free
    pseudo = Pseudonymizer(PseudonymKey(bytes.fromhex(TEST_KEY)))
    told = [line.split("  ", 1) for line in shown.err.splitlines()]
    # Was: "(--show-paths does not list them)": a renamed main transcript was in no row, unnamed.
    skipped = sorted(place for label, place in told if label == "skipped")
    assert skipped == [f"{PROJECTS[1]}/notes.jsonl", "stray.txt"]
    lines = dict(pair for pair in told if pair[0] != "skipped")
    assert set(lines) == {r["session"] for r in plain.json()["sessions"]}
    for tree in trees:
        place = str(tree.parent.relative_to(root))
        assert place in lines[pseudo.name("file", tree.parent.name)]
    assert len(lines[pseudo.name("file", f"{split_sid}.jsonl")].split("  ")) == 2
    assert lines[pseudo.name("file", f"{pruned_sid}.jsonl")] == f"{PROJECTS[2]}/{pruned_sid}/"
    assert str(root) not in shown.err  # relative to the projects folder


@pytest.mark.parametrize("given", ["nowhere", "a-file"])
def test_missing_projects_dir_exits_2(given: str, tmp_path: Path, cli: Any) -> None:
    (tmp_path / "a-file").write_text("x")
    result = cli("scan", str(tmp_path / given))
    assert result.code == 2
    assert "CC-TREE-PROJECTS-MISSING" in result.err
    assert str(tmp_path) not in result.err


def test_default_dir_from_claude_config_dir(
    projects: Any, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, *_ = projects
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root.parent))
    result = cli("scan", "--json", "--jobs", "1")
    assert result.code == 0, result.err
    assert result.json()["totals"]["sessions"] == 49
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root.parent / "missing"))
    assert cli("scan").code == 2


def test_empty_projects_dir(tmp_path: Path, cli: Any) -> None:
    (tmp_path / "p").mkdir()
    result = cli("scan", str(tmp_path / "p"), "--json")
    assert result.code == 0
    assert result.json()["totals"]["sessions"] == 0


def test_a_folder_with_no_project_folder_says_what_a_projects_folder_is(
    tmp_path: Path, cli: Any
) -> None:
    """A walkthrough: scan of a folder of bundles said '0 sessions in 0 project folders ... 8
    entries skipped' and no more. It now says what it looked for; not where a project folder
    was found, empty or not."""
    note = "no project folder here: Claude Code's projects folder holds one folder per project"
    bundles = tmp_path / "bundles"
    bundles.mkdir()
    (bundles / "session-001.json").write_text("{}")
    (tmp_path / "empty").mkdir()
    for folder in (bundles, tmp_path / "empty"):
        result = cli("scan", str(folder))
        assert result.code == 0, result.err
        assert note in result.out
    (bundles / "a-project").mkdir()
    out = cli("scan", str(bundles)).out
    assert note not in out
    # A new-user audit: project folders and no session in them said no more than "0 sessions
    # in 1 project folder" (a source checkout, scanned by mistake).
    nothing = "no session here: a session is a <session-id>.jsonl transcript"
    assert nothing in out
    generate(bundles / "a-project", _tiny(703))
    assert nothing not in cli("scan", str(bundles)).out


def test_no_session_prints_no_table(tmp_path: Path, cli: Any) -> None:
    """A walkthrough: with no session, `scan` printed a table head, its legend, a line of zero
    counts and, with a card, "nothing priced": none of it said more than the count."""
    (tmp_path / "-home-dev-alpha").mkdir()
    out = cli("scan", str(tmp_path), "--price-card", "anthropic-2026-12").out
    assert out.splitlines()[0] == "0 sessions in 1 project folder"
    assert "no session here" in out
    for noise in ("refusals", "calls:", "0 model calls", "nothing priced"):
        assert noise not in out


def test_a_sessions_own_folder_given_says_where_its_transcript_is(tmp_path: Path, cli: Any) -> None:
    """A new user's walk: `scan` of a session's `<session-id>/` folder said "0 sessions in 1
    project folder ... 0 model calls" of a session with subagents' calls, and no more. It now
    says what the folder is and what reads it; a folder that only has such a name does not."""
    project = tmp_path / "projects" / "-home-dev-alpha"
    parent = generate(project, _tiny(702, agent_rate=0.9)).parent
    folder = parent.with_suffix("")
    assert (folder / "subagents").is_dir()
    note = "the folder given is one session's own folder"
    result = cli("scan", str(folder), "--json")
    assert result.code == 0, result.err
    assert result.json()["session_folder"] is True
    assert result.json()["totals"]["sessions"] == 0
    said = cli("scan", str(folder)).out
    assert note in said
    # ... and only that: "entries skipped" and "no session here" said the same again, less well
    assert "skipped" not in said
    assert "no session here" not in said
    assert cli("scan", str(project.parent), "--json").json()["session_folder"] is False
    alike = tmp_path / "elsewhere" / folder.name  # a session id's name, nothing of a session's
    alike.mkdir(parents=True)
    assert note not in cli("scan", str(alike)).out


def test_the_legend_explains_only_the_statuses_the_table_has(tmp_path: Path, cli: Any) -> None:
    """A new user's walk: every table explained `orphan` and `error`, rows or none. Each is
    explained where a row has it."""
    project = tmp_path / "projects" / "-home-dev-alpha"
    parent = generate(project, _tiny(703, agent_rate=0.9)).parent
    plain = cli("scan", str(project.parent)).out
    assert "calls: model calls" in plain
    assert "orphan:" not in plain
    assert "error:" not in plain
    parent.unlink()  # its folder stays: an orphan row
    orphaned = cli("scan", str(project.parent)).out
    assert "(orphan: a session folder whose main transcript no project folder holds" in orphaned
    assert "error:" not in orphaned


def test_one_project_folder_given_is_scanned_as_one(tmp_path: Path, cli: Any) -> None:
    """Was: '0 sessions ... N entries skipped: not a session transcript', exit 0, when the
    folder given held session transcripts itself (one project folder, not the projects one);
    then, the advice to scan the folder above. Now it is scanned, and said to be one."""
    project = tmp_path / "projects" / "-home-dev-alpha"
    generate(project, _tiny(700))
    pruned = generate(project, _tiny(701, agent_rate=0.9))
    pruned.parent.unlink()  # its folder stays: a row of its own, found in this one folder too
    one_level_down = cli("scan", str(project), "--json")
    assert one_level_down.code == 0
    report = one_level_down.json()
    assert report["one_project_folder"] is True
    assert (report["totals"]["sessions"], report["totals"]["skipped_session_files"]) == (2, 0)
    text = cli("scan", str(project)).out
    assert "the folder given is one project folder" in text
    shown = cli("scan", str(project), "--show-paths").err
    assert f"  {pruned.parent.stem}/" in shown  # relative to the folder given
    right = cli("scan", str(project.parent), "--json").json()
    assert right["one_project_folder"] is False
    rows = {r["session"]: r for r in right["sessions"]}
    assert rows == {r["session"]: r for r in report["sessions"]}  # the same rows either way


@pytest.mark.parametrize("kind", ["pruned", "worktree"])
def test_one_project_folder_of_session_folders_only_is_scanned_as_one(
    tmp_path: Path, cli: Any, kind: str
) -> None:
    """A project folder whose transcripts were pruned, or a git worktree's (it holds only the
    children's session folders), given alone: was '0 sessions ... 1 entry skipped', exit 0
    (a walk-through); each session folder was taken for a project folder of its own."""
    root = tmp_path / "projects"
    exp = generate(root / "-proj", _tiny(703, agent_rate=0.9))
    sid = exp.parent.stem
    folder = root / "-proj"
    if kind == "worktree":
        folder = root / "-proj--claude-worktrees-x"
        folder.mkdir()
        (root / "-proj" / sid).rename(folder / sid)
    else:
        exp.parent.unlink()
    report = cli("scan", str(folder), "--json", "--jobs", "1").json()
    assert report["one_project_folder"] is True
    [row] = report["sessions"]
    assert (row["status"], row["refusals"]) == ("orphan", ["CC-TREE-PARENT-MISSING"])
    # Its main transcript is beside the folder given (a review: it was flagged split, though
    # the session has one main transcript in all).
    assert row["transcript_beside"] is (kind == "worktree")
    assert row["split"] is False
    text = cli("scan", str(folder), "--jobs", "1").out
    beside = "1 session folder with its main transcript in a project folder beside the one given"
    assert (beside in text) is (kind == "worktree")
    assert ("in any project folder" in text) is (kind == "pruned")


@pytest.mark.parametrize("case", ["worktree", "copy", "split"])
def test_one_project_folder_given_reads_its_sessions_files_beside_it(
    tmp_path: Path, cli: Any, case: str
) -> None:
    """A scan review: `scan <one project folder>` read none of a session's files in the
    project folders beside it, where `inspect` and a scan of the projects folder read them.
    A session whose children are in a worktree's project folder was refused (they went
    unread), and one whose folder was copied into another project folder was convertible
    (inspect refuses it). Now each tree gets inspect's verdict, and each row is the one the
    scan of the whole projects folder gives, but for a split session's: the transcript beside
    the folder given was not given, and is not read (as inspect reads none of it)."""
    root = tmp_path / "projects"
    exp = generate(root / "a", _tiny(907, agent_rate=0.9))
    sid = exp.parent.stem
    if case == "worktree":
        shutil.move(str(root / "a" / sid), str(root / "a--claude-worktrees-x" / sid))
    elif case == "copy":
        shutil.copytree(root / "a" / sid, root / "b" / sid)
    else:  # resumed under another project folder: a transcript of the session there too
        generate(root / "b", _tiny(908, agent_rate=0.5, session_id=sid))
    generate(root / "c", _tiny(909))  # another session, in no folder given
    report = cli("inspect", "--json", "--in", str(exp.parent)).json()
    verdict = ("convertible" if report["convertible"] else "refused", report["refusals"])
    one = cli("scan", str(root / "a"), "--json", "--jobs", "1").json()
    assert one["one_project_folder"] is True
    [row] = one["sessions"]
    if case == "split":  # each transcript converts on its own; the row counts this one's
        assert (report["convertible"], row["status"], row["split"]) == (True, "convertible", True)
        assert (row["parent_files"], row["model_calls"]) == (1, exp.model_calls)
        text = cli("scan", str(root / "a"), "--jobs", "1").out
        assert "1 session of it has a main transcript in a project folder beside it too" in text
        return
    whole = cli("scan", str(root), "--json", "--jobs", "1").json()["sessions"]
    assert row in whole  # the same row either way
    codes = sorted({r["code"] for r in verdict[1]})
    assert (row["status"], row["refusals"]) == (verdict[0], codes)
    assert (row["status"] == "convertible") is (case == "worktree")
    shown = cli("scan", str(root / "a"), "--jobs", "1", "--show-paths").err
    where = "a--claude-worktrees-x" if case == "worktree" else "b"
    assert shown.split("  ")[1:] == [f"{sid}.jsonl", f"../{where}/{sid}/\n"]


def test_the_fix_of_a_copied_session_folder_names_the_copy(tmp_path: Path, cli: Any) -> None:
    """A scan review: a copy of a session's folder in another project folder refused the tree
    (each child in two places) with a fix that said only to restore a consistent copy."""
    root = tmp_path / "projects"
    exp = generate(root / "a", _tiny(910, agent_rate=0.9))
    shutil.copytree(root / "a" / exp.parent.stem, root / "b" / exp.parent.stem)
    refused = cli("inspect", "--in", str(exp.parent))
    assert refused.code == 2
    codes = set(re.findall(r"refused: ([A-Z0-9-]+)", refused.err))
    assert {"CC-TREE-AMBIGUOUS-JOIN", "CC-REC-UNEXPLAINED-DUPLICATE"} <= codes
    for code in ("CC-TREE-AMBIGUOUS-JOIN", "CC-REC-UNEXPLAINED-DUPLICATE", "CC-TREE-CYCLE"):
        assert "copy of this session's folder in another project folder" in CODES[code].fix
    for code in ("CC-TREE-AMBIGUOUS-JOIN", "CC-REC-UNEXPLAINED-DUPLICATE"):
        [said] = [line for line in refused.err.splitlines() if code in line and "Fix:" in line]
        assert "move the copy out of the projects folder" in said  # each code's fix, once


def test_a_split_sessions_folder_elsewhere_is_read_by_no_tree(tmp_path: Path, cli: Any) -> None:
    """A session with transcripts in two project folders and its children's folder in a third
    (a worktree's): which part the folder belongs to cannot be told, so neither tree reads it
    (a diff review: both did, and one refused the other's children as orphans)."""
    root = tmp_path / "projects"
    exp = generate(root / "a", _tiny(905, agent_rate=0.9))
    sid = exp.parent.stem
    (root / "wt").mkdir()
    (root / "a" / sid).rename(root / "wt" / sid)
    (root / "c").mkdir()
    shutil.copy(exp.parent, root / "c" / exp.parent.name)
    report = cli("inspect", "--json", "--in", str(exp.parent)).json()
    assert "CC-TREE-UNEXPANDED-DELEGATION" in {r["code"] for r in report["refusals"]}
    [row] = cli("scan", str(root), "--json", "--jobs", "1").json()["sessions"]
    assert "CC-TREE-SPLIT-FOLDER" in row["refusals"]
    assert "CC-TREE-PARENT-MISSING" not in row["refusals"]  # its transcripts are there
    text = cli("scan", str(root), "--jobs", "1").out
    assert "1 session folder of sessions split across project folders" in text


def test_scan_finds_a_sessions_folders_elsewhere_once_not_per_tree(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each tree listed the whole projects folder to find its folders elsewhere: quadratic in
    project folders (a diff review: 2.9 s became 114 s over 2,000 of them). scan hands each
    tree the folders it found already."""
    from converter.sources import tree

    root = tmp_path / "projects"
    exp = generate(root / "-proj", _tiny(906, agent_rate=0.9))
    (root / "-proj--claude-worktrees-x").mkdir()
    sid = exp.parent.stem
    (root / "-proj" / sid).rename(root / "-proj--claude-worktrees-x" / sid)

    def searched(*_: Any) -> tuple[list[Path], bool]:
        raise AssertionError("scan searched the projects folder again")

    monkeypatch.setattr(tree, "session_folders_elsewhere", searched)
    [row] = cli("scan", str(root), "--json", "--jobs", "1").json()["sessions"]
    assert (row["status"], row["model_calls"]) == ("convertible", exp.model_calls)


def test_a_session_folder_copied_elsewhere_is_flagged(tmp_path: Path, cli: Any) -> None:
    """The copy is read with the transcript (as a worktree's children are), and its agents,
    each in two folders, refuse the tree: a copy is no part of the session."""
    root = tmp_path / "projects"
    exp = generate(root / "a", _tiny(900, agent_rate=0.9))
    shutil.copytree(exp.parent.parent / exp.parent.stem, root / "b" / exp.parent.stem)
    result = cli("scan", str(root), "--json", "--jobs", "1").json()
    row = result["sessions"][0]
    assert row["split"] is False  # one main transcript (a scan hunt: it was said to be split)
    assert row["status"] == "refused"
    assert "CC-TREE-AMBIGUOUS-JOIN" in row["refusals"]
    assert row["model_calls"] == exp.model_calls
    assert row["orphan_folders"] == 1
    # was: the row said orphan_folders 1 and the totals had no such count, only orphan 0
    assert result["totals"]["orphan_folders"] == 1
    assert result["totals"]["orphan"] == 0  # the session's transcript is there, in a/
    _totals_are_the_rows(result)
    text = cli("scan", str(root), "--jobs", "1").out
    assert "1 session folder with its main transcript in another project folder" in text


def test_a_worktrees_session_folder_is_read_with_its_transcript(tmp_path: Path, cli: Any) -> None:
    """An agent isolated in a git worktree, or every agent after the session entered one,
    writes its transcript under the worktree's project folder (`<project>--claude-worktrees-
    <name>/<session>/subagents/`); the parent stays where the session began. Was: inspect
    refused CC-TREE-UNEXPANDED-DELEGATION (the spend was on disk), scan CC-TREE-PARENT-MISSING."""
    root = tmp_path / "projects"
    exp = generate(root / "-proj", _tiny(902, agent_rate=0.9))
    sid = exp.parent.stem
    worktree = root / "-proj--claude-worktrees-x"
    worktree.mkdir()
    shutil.move(str(exp.parent.parent / sid), str(worktree / sid))
    report = cli("inspect", "--json", "--in", str(exp.parent)).json()
    assert report["convertible"] is True, report["refusals"]
    assert report["counts"]["model_calls"] == exp.model_calls
    assert report["counts"]["subagents"] == exp.subagents
    result = cli("scan", str(root), "--json", "--jobs", "1").json()
    [row] = result["sessions"]
    assert (row["status"], row["refusals"]) == ("convertible", [])
    assert row["model_calls"] == exp.model_calls
    assert row["split"] is False  # a scan hunt: "[split]", against docs/commands.md's definition
    text = cli("scan", str(root), "--jobs", "1").out
    assert "1 session folder with its main transcript in another project folder" in text
    assert "PARENT-MISSING" not in text
    assert "[split]" not in text


def test_show_paths_names_the_stray_folder_of_a_split_session(tmp_path: Path, cli: Any) -> None:
    """Was: only the parent in a/ was listed for a row refused CC-TREE-PARENT-MISSING because
    of the session folder copied into b/, the one place to fix."""
    root = tmp_path / "projects"
    exp = generate(root / "a", _tiny(901, agent_rate=0.9))
    sid = exp.parent.stem
    shutil.copytree(exp.parent.parent / sid, root / "b" / sid)
    shown = cli("scan", str(root), "--jobs", "1", "--show-paths")
    [line] = shown.err.splitlines()
    assert line.split("  ")[1:] == [f"a/{sid}.jsonl", f"b/{sid}/"]


def test_an_agent_transcript_of_the_2_0_layout_is_read_not_skipped(
    tmp_path: Path, cli: Any
) -> None:
    """Was: `agent-<8 hex>.jsonl` beside a parent (Claude Code 2.0.x) counted as "skipped: not
    a session transcript" while the session's row bound it. With no parent beside it, no tree
    reads it, and it is skipped."""
    root = tmp_path / "projects"
    exp = generate(root / "a", _tiny(902))
    (root / "a" / "agent-0123abcd.jsonl").write_text("{}\n")
    (root / "lonely").mkdir()
    (root / "lonely" / "agent-89abcdef.jsonl").write_text("{}\n")
    # beside a symlinked parent only: its tree is refused before it reads any sibling
    (root / "linked").mkdir()
    (root / "linked" / exp.parent.name).symlink_to(exp.parent)
    (root / "linked" / "agent-0a1b2c3d.jsonl").write_text("{}\n")
    result = cli("scan", str(root), "--jobs", "1", "--json").json()
    assert result["totals"]["skipped_entries"] == 2  # lonely/'s and linked/'s, not a/'s


def test_a_symlinked_session_is_a_refused_row_not_a_skipped_entry(tmp_path: Path, cli: Any) -> None:
    """Was: counted among the skipped entries, so the session was silently not checked."""
    root = tmp_path / "projects"
    elsewhere = tmp_path / "elsewhere"
    exp = generate(elsewhere, _tiny(901))
    (root / "a").mkdir(parents=True)
    (root / "a" / exp.parent.name).symlink_to(exp.parent)
    report = cli("scan", str(root), "--json", "--jobs", "1").json()
    (row,) = report["sessions"]
    assert row["status"] == "refused"
    assert row["refusals"] == ["CC-TREE-SYMLINK"]
    assert report["totals"]["skipped_entries"] == 0


def test_symlinked_folders_are_counted_as_not_followed(tmp_path: Path, cli: Any) -> None:
    """Was: counted as 'not a session', so the sessions behind them vanished from the totals."""
    root = tmp_path / "projects"
    elsewhere = tmp_path / "elsewhere"
    exp = generate(elsewhere / "proj", _tiny(902))
    root.mkdir()
    (root / "linked-project").symlink_to(elsewhere / "proj")
    (root / "a").mkdir()
    (root / "a" / exp.parent.stem).symlink_to(exp.parent.parent / exp.parent.stem)
    result = cli("scan", str(root), "--jobs", "1")
    report = cli("scan", str(root), "--json", "--jobs", "1").json()
    assert report["totals"]["symlinked_folders"] == 2
    assert report["totals"]["skipped_entries"] == 0
    assert "2 symlinked folders not followed (CC-TREE-SYMLINK)" in result.out
    (root / "linked-project").unlink()  # one: said of it, not of them
    alone = cli("scan", str(root), "--jobs", "1").out
    assert (
        "1 symlinked folder not followed (CC-TREE-SYMLINK): the sessions behind it were not "
        "checked; scan the folder it points to (--show-paths lists it)"
    ) in alone


def test_show_paths_names_the_symlinked_and_unreadable_folders(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scan review: the notes said to fix symlinked and unreadable folders, and --show-paths
    named neither (--json only counted them). --show-paths names each, on stderr only; without
    it, no path is said anywhere, and --json keeps the counts."""
    root = tmp_path / "projects"
    elsewhere = tmp_path / "elsewhere"
    exp = generate(elsewhere / "proj", _tiny(911))
    generate(root / "ok", _tiny(912))
    (root / "linked-project").symlink_to(elsewhere / "proj")
    (elsewhere / "proj" / exp.parent.stem).mkdir(exist_ok=True)
    (root / "ok" / exp.parent.stem).symlink_to(elsewhere / "proj" / exp.parent.stem)
    (root / "locked-project").mkdir()
    real = Path.iterdir

    def iterdir(self: Path) -> Any:
        if self.name == "locked-project":
            raise PermissionError(13, "denied")
        return real(self)

    monkeypatch.setattr(Path, "iterdir", iterdir)
    names = ("linked-project", "locked-project", exp.parent.stem)
    for json_flag in ([], ["--json"]):
        plain = cli("scan", str(root), "--jobs", "1", *json_flag)
        assert plain.code == 0, plain.err
        assert not any(name in plain.out + plain.err for name in names)
        shown = cli("scan", str(root), "--jobs", "1", "--show-paths", *json_flag)
        assert shown.out == plain.out  # stdout is the same, content-free
        lines = shown.err.splitlines()
        assert "symlinked  linked-project" in lines
        assert f"symlinked  ok/{exp.parent.stem}" in lines
        assert "unreadable  locked-project" in lines
    totals = cli("scan", str(root), "--jobs", "1", "--json").json()["totals"]
    assert (totals["symlinked_folders"], totals["unreadable_folders"]) == (2, 1)
    text = cli("scan", str(root), "--jobs", "1").out
    assert "scan the folder they point to (--show-paths lists them)" in text
    assert "fix the permissions and scan again (--show-paths lists it)" in text


@pytest.mark.parametrize(
    ("done", "first", "since", "said"),
    [
        (1, 1, 60.0, None),  # one tree done: no rate yet
        (4, 1, 60.0, None),  # too few trees
        (10, 1, 4.9, None),  # too few seconds (the first estimate was after one)
        (10, 1, 9.0, "eta 00:01:30"),  # 9 trees in 9 s since the first: 90 left
        (100, 1, 5.0, None),  # done: nothing left to estimate
        (5, 5, 10.0, None),  # no tree done since the first ones
        (11, 1, 3600.0, "eta 08:54:00"),  # 360 s a tree, 89 left
        (99, 1, 98.0, "eta 00:00:01"),
    ],
)
def test_the_progress_bars_eta_waits_until_it_means_something(
    done: int, first: int, since: float, said: str | None
) -> None:
    """A scan review: the bar's ETA came after one second, from the trees done so far with the
    workers' start-up counted, and swung wildly on a short scan. It is now the rate since the
    first tree was done, said from a few trees and seconds on (a terminal only: output to a
    file or pipe has no bar)."""
    assert scan_module.eta_text(100, done, first, since) == said


def _scan_on_a_terminal(root: Path, env: dict[str, str], columns: int = 80) -> str:
    """What `scan` draws on stderr when stderr is a terminal (a pseudo-terminal of `columns`
    here) and stdout a file, as in `scan --json > out.json`."""
    import fcntl
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    try:
        done = subprocess.run(
            [sys.executable, "-m", "converter", "scan", str(root), "--jobs", "1"],
            stdout=subprocess.DEVNULL,
            stderr=follower,
            env={**env, "AGENT_EVIDENCE_KEY": TEST_KEY},
            check=False,
            timeout=120,
        )
        assert done.returncode == 0
        os.close(follower)
        follower = -1
        drawn = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the other end is closed and read out
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)
    return drawn.decode("utf-8", "replace")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pseudo-terminal")
def test_the_progress_bar_fits_a_narrow_terminal_and_a_dumb_one_gets_none(projects: Any) -> None:
    """An operations review: on a 20-column terminal the bar (about 57 columns) wrapped at every
    redraw, and TERM=dumb still got the animated bar and cursor escapes."""
    root, *_ = projects
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    drawn = _scan_on_a_terminal(root, {**env, "TERM": "xterm"}, columns=50)
    frames = [f for f in re.split(r"[\r\n]", re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn)) if f]
    assert any("scanning" in f for f in frames), drawn
    assert max(len(f) for f in frames if "scanning" in f) <= 50
    dumb = _scan_on_a_terminal(root, {**env, "TERM": "dumb"}, columns=50)
    assert "scanning" not in dumb
    assert "\x1b[" not in dumb


# --- worker processes: never more than the CPUs or the transcripts to inspect ------------------


@pytest.mark.parametrize(
    ("jobs", "parents", "cpus", "workers"),
    [
        (100_000, 3, 2, 2),  # was: 100,000 processes forked for 3 sessions
        (100_000, 3, 512, 3),  # never more workers than transcripts
        (8, 1_000, 2, 2),  # nor than CPUs
        (1_000, 1_000, 1_000, scan_module.MAX_JOBS),
        (2, 1_000, 8, 2),
        (1, 1_000, 8, 1),
        (4, 0, 8, 0),
    ],
)
def test_worker_count_is_capped(jobs: int, parents: int, cpus: int, workers: int) -> None:
    assert scan_module.worker_count(jobs, parents, cpus) == workers


@pytest.mark.parametrize("jobs", ["0", "65", "100000", "two", "1.5"])
def test_jobs_outside_1_to_max_is_a_usage_error(
    jobs: str, projects: Any, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, *_ = projects

    def no_pool(*_: Any, **__: Any) -> Any:  # should the range go, fail here, not fork 100,000
        raise AssertionError("a pool was started")

    monkeypatch.setattr(scan_module, "ProcessPoolExecutor", no_pool)
    result = cli("scan", str(root), "--jobs", jobs, "--json")
    assert result.code == 64
    assert result.out == ""
    assert "--jobs" in result.err
    assert "<value> is not a whole number from 1 to 64" in result.err


def test_the_pool_is_never_larger_than_the_sessions(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pool is checked before it starts: a test of the cap must not fork the bug's workers."""
    root = tmp_path / "projects"
    for seed in (910, 911, 912):
        generate(root / "a", _tiny(seed))
    asked: list[int] = []
    real = scan_module.ProcessPoolExecutor

    def pool(*args: Any, max_workers: int, **kw: Any) -> Any:
        asked.append(max_workers)
        assert max_workers <= 3
        return real(*args, max_workers=max_workers, **kw)

    monkeypatch.setattr(scan_module, "ProcessPoolExecutor", pool)
    monkeypatch.setattr(scan_module, "available_cpus", lambda: 64)
    result = cli("scan", str(root), "--jobs", str(scan_module.MAX_JOBS), "--json")
    assert result.code == 0, result.err
    assert asked == [3]
    assert result.json()["totals"]["sessions"] == 3


def _slow_part(
    parent: str, identities: bool = False, elsewhere: Any = (), siblings: Any = ()
) -> dict[str, Any]:
    """A stand-in for inspecting a tree: `quick` at once, any other one slowly."""
    if not parent.endswith("quick"):
        time.sleep(15)
    return {}


def test_an_interrupted_scan_stops_its_workers_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Was: leaving the pool's `with` block on Ctrl-C waited until every queued tree had been
    inspected. Two workers, three slow trees queued: the interrupt must not wait for them."""
    pools: list[Any] = []
    real = scan_module.ProcessPoolExecutor

    def pool(*args: Any, **kw: Any) -> Any:
        pools.append(real(*args, **kw))
        return pools[-1]

    workers: list[Any] = []

    def interrupt() -> None:
        workers.extend(pools[0]._processes.values())
        raise KeyboardInterrupt

    monkeypatch.setattr(scan_module, "ProcessPoolExecutor", pool)
    monkeypatch.setattr(scan_module, "inspect_part", _slow_part)
    monkeypatch.setattr(scan_module, "available_cpus", lambda: 2)
    parents = [scan_module.Part(Path(name)) for name in ("quick", "slow-1", "slow-2", "slow-3")]
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        scan_module._run_parts(parents, bytes(32), 2, interrupt)
    assert time.monotonic() - started < 8
    assert len(workers) == 2
    # The pool's own thread may reap a worker first; this thread's poll then sees ECHILD and
    # calls it alive, so wait for the shared exit code rather than asking `is_alive()` once.
    deadline = time.monotonic() + 10
    for worker in workers:
        while worker.exitcode is None and time.monotonic() < deadline:
            worker.join(timeout=0.1)
        assert worker.exitcode is not None


_KILLED_SCAN = """
import os, sys, time
from pathlib import Path
import converter.run.scan as scan

def slow(parent, identities=False, elsewhere=(), siblings=()):
    Path(sys.argv[1], str(os.getpid())).touch()
    time.sleep(60)
    return {}

if __name__ == "__main__":
    scan.inspect_part = slow
    scan.available_cpus = lambda: 2
    scan._run_parts([scan.Part(Path(n)) for n in "abc"], bytes(32), 2, lambda: None)
"""


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _started_workers(marks: Path) -> list[int]:
    """The two workers' process ids, once each has marked that it started a tree."""
    pids: list[int] = []
    deadline = time.monotonic() + 60
    while len(pids) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
        pids = [int(p.name) for p in marks.iterdir()]
    assert len(pids) == 2, "the workers did not start"
    return pids


def _all_gone(pids: list[int]) -> bool:
    deadline = time.monotonic() + 10
    while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(_running(pid) for pid in pids)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_workers_do_not_outlive_a_killed_scan(tmp_path: Path) -> None:
    """Was: a scan killed by the OOM killer left its workers running as orphans."""
    script = tmp_path / "killed_scan.py"
    script.write_text(_KILLED_SCAN)
    marks = tmp_path / "workers"
    marks.mkdir()
    scan_proc = subprocess.Popen([sys.executable, str(script), str(marks)])
    pids: list[int] = []
    try:
        pids = _started_workers(marks)
        scan_proc.kill()
        scan_proc.wait()
        assert _all_gone(pids)
    finally:
        scan_proc.kill()
        for pid in pids:  # without the fix: the orphans this test made, and no others
            if _running(pid):
                os.kill(pid, signal.SIGKILL)


_TERMINATED_SCAN = """
import os, sys, time
from pathlib import Path
import converter.run.scan as scan
from converter.cli.main import main

MARKS, FOLDER = sys.argv[1:3]

def slow(parent, identities=False, elsewhere=(), siblings=()):
    Path(MARKS, str(os.getpid())).touch()
    time.sleep(60)
    return {}

if __name__ == "__main__":
    scan.inspect_part = slow
    scan.available_cpus = lambda: 2
    folder = FOLDER
    sys.argv = ["agent-evidence", "scan", folder, "--jobs", "2"]
    main()
"""


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups")
def test_a_scan_stopped_by_sigterm_ends_with_its_workers(tmp_path: Path) -> None:
    """What `timeout` and a CI runner do: SIGTERM to the whole process group. Was (with the
    stops handled like Ctrl-C): a forked worker inherited the scan's handler, turned the stop
    into an interrupt it survived, and the scan waited for it at exit, for ever."""
    script = tmp_path / "terminated_scan.py"
    script.write_text(_TERMINATED_SCAN)
    marks = tmp_path / "workers"
    marks.mkdir()
    project = tmp_path / "projects" / "-p"
    project.mkdir(parents=True)
    for n in range(3):
        (project / f"00000000-0000-4000-8000-00000000000{n}.jsonl").write_text("{}\n")
    env = {**os.environ, "AGENT_EVIDENCE_KEY": TEST_KEY}
    proc = subprocess.Popen(
        [sys.executable, str(script), str(marks), str(tmp_path / "projects")],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    pids: list[int] = []
    try:
        pids = _started_workers(marks)
        os.killpg(proc.pid, signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 128 + signal.SIGTERM, err
        assert err.strip().endswith("interrupted: nothing was written"), err
        assert "Traceback" not in err
        assert _all_gone(pids)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        for pid in pids:
            if _running(pid):
                os.kill(pid, signal.SIGKILL)


# --- a session in several project folders: each call counted once, copies refused ------------


def _copy_tree(exp: Expected, to: Path, *, parent: bool = True, folder: bool = True) -> None:
    to.mkdir(parents=True, exist_ok=True)
    if parent:
        shutil.copy(exp.parent, to / exp.parent.name)
    if folder:
        shutil.copytree(exp.parent.parent / exp.parent.stem, to / exp.parent.stem)


def _scan_row(root: Path, cli: Any, jobs: str = "1") -> tuple[dict[str, Any], dict[str, Any]]:
    result = cli("scan", str(root), "--json", "--jobs", jobs)
    assert result.code == 0, result.err
    report = result.json()
    _totals_are_the_rows(report)
    (row,) = report["sessions"]
    return row, report["totals"]


def _counts_once(row: dict[str, Any], exp: Expected) -> None:
    assert row["model_calls"] == exp.model_calls
    assert row["usage_incomplete_calls"] == exp.usage_incomplete_calls
    assert row["tool_calls"] == exp.tool_calls
    assert row["subagents"] == exp.subagents
    assert row["tokens"] == exp.total_tokens


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_session_copied_whole_into_another_project_folder_is_counted_once_and_refused(
    tmp_path: Path, cli: Any, jobs: str
) -> None:
    """Was: both copies were inspected and summed (twice the calls and tokens) and the row said
    convertible, though converting both would count every call twice."""
    root = tmp_path / "projects"
    exp = generate(root / "a", _tiny(920, agent_rate=0.9))
    assert exp.subagents > 0
    _copy_tree(exp, root / "b")
    row, totals = _scan_row(root, cli, jobs)
    _counts_once(row, exp)
    assert row["split"] is True
    assert row["parent_files"] == 2
    assert row["status"] == "refused"
    assert row["refusals"] == ["CC-TREE-SPLIT-OVERLAP"]
    assert totals["refusal_codes"] == {"CC-TREE-SPLIT-OVERLAP": 1}
    assert totals["convertible"] == 0


def test_a_parent_copied_without_its_folder_is_counted_once(tmp_path: Path, cli: Any) -> None:
    """The copy's delegations have no children beside it (refused on its own); the calls it
    shares with the whole tree are still counted once."""
    root = tmp_path / "projects"
    exp = generate(root / "a", _tiny(921, agent_rate=0.9))
    _copy_tree(exp, root / "b", folder=False)
    row, _ = _scan_row(root, cli)
    assert row["status"] == "refused"
    assert "CC-TREE-SPLIT-OVERLAP" in row["refusals"]
    # every call and tool call once; the copied folder's agents are streams of a/'s tree too
    assert (row["model_calls"], row["tool_calls"]) == (exp.model_calls, exp.tool_calls)
    assert row["tokens"] == exp.total_tokens


def test_an_older_copy_of_a_parent_is_counted_once(tmp_path: Path, cli: Any) -> None:
    """A copy taken before the session grew holds the first part of its calls."""
    root = tmp_path / "projects"
    exp = generate(root / "a", _tiny(922, agent_rate=0.0, workflow_rate=0.0))
    lines = exp.parent.read_bytes().splitlines(keepends=True)
    (root / "b").mkdir()
    (root / "b" / exp.parent.name).write_bytes(b"".join(lines[: len(lines) // 2]))
    row, _ = _scan_row(root, cli)
    _counts_once(row, exp)
    assert row["refusals"] == ["CC-TREE-SPLIT-OVERLAP"]


def test_a_split_session_takes_each_calls_final_usage_from_whichever_copy_has_it(
    tmp_path: Path, cli: Any
) -> None:
    """The copy read first (a/) was taken mid-stream: its calls hold streaming stubs. The row
    takes each call's usage from the later copy (b/) that has it final. Was untested: keeping
    the first copy read survived every test (the full copy always came first)."""
    root = tmp_path / "projects"
    exp = generate(root / "b", _tiny(926, agent_rate=0.0, workflow_rate=0.0))
    stubbed = []
    for raw in exp.parent.read_bytes().splitlines(keepends=True):
        record = json.loads(raw)
        if record.get("type") == "assistant":
            record["message"]["stop_reason"] = None
            record["message"]["usage"]["output_tokens"] = 1
            record["message"]["usage"].pop("iterations", None)
        stubbed.append(json.dumps(record).encode() + b"\n")
    (root / "a").mkdir()
    (root / "a" / exp.parent.name).write_bytes(b"".join(stubbed))
    row, _ = _scan_row(root, cli)
    _counts_once(row, exp)
    assert row["refusals"] == ["CC-TREE-SPLIT-OVERLAP"]


def test_the_reviewers_tree_parent_twice_and_its_folder_in_a_third_place(
    tmp_path: Path, cli: Any
) -> None:
    """A parent and its folder in a/, a copy of the parent in b/, a copy of the folder in c/:
    the row counts the tree once, and its orphan folder is in the totals too. Both parents'
    trees read the folder in c/ (as a worktree's), so the copies overlap: refused."""
    root = tmp_path / "projects"
    exp = generate(root / "a", _tiny(923, agent_rate=0.9))
    _copy_tree(exp, root / "b", folder=False)
    _copy_tree(exp, root / "c", parent=False)
    row, totals = _scan_row(root, cli)
    assert row["parent_files"] == 2
    assert row["orphan_folders"] == 1
    assert row["status"] == "refused"
    assert "CC-TREE-SPLIT-OVERLAP" in row["refusals"]
    # every call and tool call once; the copied folder's agents are streams of a/'s tree too
    assert (row["model_calls"], row["tool_calls"]) == (exp.model_calls, exp.tool_calls)
    assert row["tokens"] == exp.total_tokens
    assert totals["orphan_folders"] == 1
    assert totals["parent_files"] == 2


def test_two_parts_of_one_session_add_up_and_convert(tmp_path: Path, cli: Any) -> None:
    """Trees that share no call are parts of the session (resumed under another project
    folder): each converts on its own, and the row is their sum."""
    root = tmp_path / "projects"
    first = generate(root / "a", _tiny(924, agent_rate=0.5))
    second = generate(root / "b", _tiny(925, agent_rate=0.5, session_id=first.parent.stem))
    row, _ = _scan_row(root, cli, "2")
    assert row["status"] == "convertible"
    assert row["refusals"] == []
    for key in ("model_calls", "usage_incomplete_calls", "tool_calls", "subagents"):
        assert row[key] == getattr(first, key) + getattr(second, key), key
    assert row["tokens"] == first.total_tokens + second.total_tokens


def _dies_on(
    parent: str, identities: bool = False, elsewhere: Any = (), siblings: Any = ()
) -> dict[str, Any]:
    if parent == "dies":
        os._exit(9)  # as the OOM killer would end it
    return {"codes": [], "ok": parent}


def test_a_worker_that_dies_costs_only_its_own_tree_a_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """Was: BrokenProcessPool, `internal error`, exit 70, and no row at all; then every tree
    the broken pool had not finished was an error row (902 of 906 sessions when one worker was
    killed). The trees left are inspected again, each in a process of its own."""
    monkeypatch.setattr(scan_module, "inspect_part", _dies_on)
    monkeypatch.setattr(scan_module, "available_cpus", lambda: 2)
    names = ["a", "dies", *(f"t{i}" for i in range(12))]
    ticks: list[int] = []
    results = scan_module._run_parts(
        [scan_module.Part(Path(n)) for n in names], bytes(32), 2, lambda: ticks.append(1)
    )
    assert results[1] == {"error": "WorkerDied"}
    assert [r.get("ok") for i, r in enumerate(results) if i != 1] == [
        n for n in names if n != "dies"
    ]
    assert len(ticks) == len(names)  # every row ticks the progress bar once, when it is done


def _here(
    parent: str, identities: bool = False, elsewhere: Any = (), siblings: Any = ()
) -> dict[str, Any]:
    return {"codes": [], "ok": parent, "pid": os.getpid()}


def test_a_pool_that_cannot_be_made_leaves_the_trees_to_this_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Was: `ulimit -n 12` (no pipe for a pool's queues, or for its workers) an internal error,
    exit 70, for a scan `--jobs 1` runs whole. The trees are inspected here instead."""

    def no_pipes(*_: Any, **__: Any) -> Any:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(scan_module, "ProcessPoolExecutor", no_pipes)
    monkeypatch.setattr(scan_module, "inspect_part", _here)
    monkeypatch.setattr(scan_module, "available_cpus", lambda: 2)
    ticks: list[int] = []
    names = [f"t{i}" for i in range(5)]
    results = scan_module._run_parts(
        [scan_module.Part(Path(n)) for n in names], bytes(32), 2, lambda: ticks.append(1)
    )
    assert [r["ok"] for r in results] == names
    assert {r["pid"] for r in results} == {os.getpid()}
    assert len(ticks) == len(names)


def test_a_pool_whose_thread_dies_does_not_leave_the_scan_waiting(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: under a memory limit (`ulimit -v 60000`), the pool's managing thread could not
    start the thread that feeds its queue: Python's traceback on stderr, and a scan that
    waited for ever. The trees are inspected here instead, and nothing is printed."""
    import multiprocessing.queues
    import threading

    def no_thread(self: Any) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(multiprocessing.queues.Queue, "_start_thread", no_thread)
    monkeypatch.setattr(scan_module, "inspect_part", _here)
    monkeypatch.setattr(scan_module, "available_cpus", lambda: 2)
    monkeypatch.setattr(scan_module, "_POLL_S", 0.1, raising=False)
    names = [f"t{i}" for i in range(5)]
    out: list[list[dict[str, Any]]] = []
    run = threading.Thread(
        target=lambda: out.append(
            scan_module._run_parts(
                [scan_module.Part(Path(n)) for n in names], bytes(32), 2, lambda: None
            )
        ),
        daemon=True,
    )
    run.start()
    run.join(timeout=30)
    assert not run.is_alive(), "the scan is still waiting for its pool"
    assert [r["ok"] for r in out[0]] == names
    assert "Traceback" not in capsys.readouterr().err


def test_after_a_worker_died_a_process_is_started_again_only_when_one_dies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An audit: after one worker was killed, every tree left got a process of its own (19.5 s
    for 3,000 empty sessions, where the scan took 1.3 s). The trees left share `workers`
    processes, and one is started again only for the one that died."""
    monkeypatch.setattr(scan_module, "inspect_part", _dies_on)
    monkeypatch.setattr(scan_module, "available_cpus", lambda: 2)
    started: list[int] = []
    real = scan_module._pool

    def counted(workers: int, secret: bytes, card: Any) -> Any:
        started.append(workers)
        return real(workers, secret, card)

    monkeypatch.setattr(scan_module, "_pool", counted)
    names = ["dies", *(f"t{i}" for i in range(40))]
    results = scan_module._run_parts(
        [scan_module.Part(Path(n)) for n in names], bytes(32), 2, lambda: None
    )
    assert results[0] == {"error": "WorkerDied"}
    assert all(r.get("ok") for r in results[1:])
    # the first pool of 2, then 2 processes of one for the trees left, and one more for the
    # one that died again, unless the other had inspected every tree left by then (a run of
    # the suite: the dying process's start-up outlasted 39 trees of nothing)
    assert started[0] == 2
    assert started[1:] in ([1, 1, 1], [1, 1])


@hypothesis.given(st.lists(st.integers(0, 5 << 20), max_size=300), st.integers(2, 8))
def test_batches_hold_every_tree_once_small_ones_together(sizes: list[int], workers: int) -> None:
    """Trees of a few KB are sent to the workers together (an audit: one task per tree made
    --jobs 2 slower than --jobs 1 on a folder of 3,000 empty sessions), never so many that a
    few batches would leave a worker idle; a large tree goes alone, the largest first."""
    made = scan_module.batches(sizes, workers)
    assert sorted(i for b in made for i in b) == list(range(len(sizes)))
    flat = [sizes[i] for b in made for i in b]
    assert flat == sorted(sizes, reverse=True)
    for batch in made:
        assert len(batch) <= max(1, min(64, len(sizes) // (workers * 4)))
        if len(batch) > 1:
            assert sum(sizes[i] for i in batch) <= 1 << 20
    if len(sizes) >= workers * 4:
        assert len(made) >= workers * 4


def test_an_unreadable_project_folder_is_counted_not_fatal(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: PermissionError, `internal error`, exit 70, and not even the readable rows."""
    root = tmp_path / "projects"
    generate(root / "ok", _tiny(902))
    (root / "locked").mkdir()
    real = Path.iterdir

    def iterdir(self: Path) -> Any:
        if self.name == "locked":
            raise PermissionError(13, "denied")
        return real(self)

    monkeypatch.setattr(Path, "iterdir", iterdir)
    found = scan_module.find_sessions(root)
    assert (len(found.sessions), found.unreadable) == (1, 1)
    report = scan_module.scan(root, bytes(32), 1, None, found)
    assert report["totals"]["unreadable_folders"] == 1
    assert "1 project folder could not be read" in scan_module.render_text(report)


def test_a_folder_named_like_a_transcript_is_a_refused_row(tmp_path: Path, cli: Any) -> None:
    """Was: 'skipped: not a session transcript', where inspect refuses the same path; then
    CC-TREE-PARENT-MISSING, whose fix (pass the main transcript) did not say what was wrong."""
    name = "11111111-2222-3333-4444-555555555555.jsonl"
    (tmp_path / "projects" / "p" / name).mkdir(parents=True)
    report = cli("scan", str(tmp_path / "projects"), "--json", "--jobs", "1").json()
    (row,) = report["sessions"]
    assert (row["status"], row["refusals"]) == ("refused", ["CC-TREE-PARENT-IS-FOLDER"])
    assert report["totals"]["skipped_entries"] == 0
    shown = cli("scan", str(tmp_path / "projects"), "--jobs", "1", "--show-paths").err
    assert shown.split("  ")[1:] == [f"p/{name}\n"]


def test_an_empty_argument_is_not_the_working_directory(cli: Any) -> None:
    result = cli("scan", "")
    assert result.code == 64
    assert "PROJECTS_DIR is empty" in result.err


def test_the_config_folder_given_is_scanned_by_its_projects(tmp_path: Path, cli: Any) -> None:
    """Was: 0 sessions, exit 0, and a hint to scan projects/: `scan ~/.claude` is what a user
    types. The config folder's projects/ folder is scanned, and said so; the same rows, the
    same --show-paths places, as scanning projects/ itself."""
    tree = generate(tmp_path / "config" / "projects" / "p", _tiny(903))
    # as a real ~/.claude of 2.x holds: checkpoints and environments in folders named by the
    # session id (which, walked as project folders, read as sessions with no transcript)
    sid = tree.parent.stem
    for kept in ("file-history", "session-env"):
        (tmp_path / "config" / kept / sid).mkdir(parents=True)
        (tmp_path / "config" / kept / sid / "abc@v1").write_text("x")
    (tmp_path / "config" / "todos").mkdir()
    (tmp_path / "config" / "history.jsonl").write_text("{}\n")
    config = cli("scan", str(tmp_path / "config"), "--jobs", "1", "--json", "--show-paths")
    direct = cli("scan", str(tmp_path / "config" / "projects"), "--jobs", "1", "--json")
    shown, right = config.json(), direct.json()
    assert shown["config_folder"] is True
    assert right["config_folder"] is False
    assert shown["totals"]["sessions"] >= 1
    assert shown["totals"]["orphan"] == 0
    assert shown["project_folders"] == right["project_folders"] == 1
    assert shown["sessions"] == right["sessions"]
    assert shown["totals"] == right["totals"]
    assert config.err.count(".jsonl") == shown["totals"]["parent_files"]
    assert "p/" in config.err  # relative to the projects folder scanned
    text = cli("scan", str(tmp_path / "config"), "--jobs", "1").out
    assert "Claude Code's config folder (a projects/ folder in it, no session transcript)" in text
    # a config folder whose projects/ is a symlink (kept on another disk) is scanned as the
    # default path scans it (a fuzz: `scan ~/.claude` found 0 sessions where `scan` found
    # them all); SPEC §3's symlinks are those inside a session's tree
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "projects").symlink_to(tmp_path / "config" / "projects")
    linked = cli("scan", str(tmp_path / "other"), "--jobs", "1", "--json").json()
    assert linked["config_folder"] is True
    assert linked["sessions"] == right["sessions"]
    assert linked["totals"] == right["totals"]
    # a dangling one is no config folder
    (tmp_path / "third").mkdir()
    (tmp_path / "third" / "projects").symlink_to(tmp_path / "nowhere")
    assert (
        cli("scan", str(tmp_path / "third"), "--jobs", "1", "--json").json()["config_folder"]
        is False
    )


def test_an_unreadable_projects_folder_is_refused(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: PermissionError, exit 70 (run as a user who cannot list it; root always can)."""
    root = tmp_path / "projects"
    root.mkdir()
    real = Path.iterdir

    def iterdir(self: Path) -> Any:
        if self == root:
            raise PermissionError(13, "denied")
        return real(self)

    monkeypatch.setattr(Path, "iterdir", iterdir)
    result = cli("scan", str(root))
    assert result.code == 2, result.err
    assert "CC-TREE-PROJECTS-MISSING" in result.err


def test_a_missing_projects_folder_is_named_by_where_it_came_from(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: the same words whichever folder was looked in, even with --show-paths: a
    CLAUDE_CONFIG_DIR set to the projects folder itself (an easy slip) was left to be guessed
    while ~/.claude/projects was there (a walkthrough)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    result = cli("scan")
    assert "CC-TREE-PROJECTS-MISSING [~/.claude/projects]:" in result.err
    config = tmp_path / "config" / "projects"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    result = cli("scan")
    assert "CC-TREE-PROJECTS-MISSING [$CLAUDE_CONFIG_DIR/projects]:" in result.err
    assert str(tmp_path) not in result.err
    shown = cli("scan", "--show-paths")
    assert f"[$CLAUDE_CONFIG_DIR/projects] ({config / 'projects'}):" in shown.err
    given = cli("scan", str(tmp_path / "nowhere"))
    assert "CC-TREE-PROJECTS-MISSING [PROJECTS_DIR]:" in given.err


def test_an_orphaned_agent_transcript_is_not_called_a_renamed_session(
    tmp_path: Path, cli: Any
) -> None:
    """Was: a 2.0.x `agent-<id>.jsonl` with no parent beside it was counted as a .jsonl file
    not named by a session id, with advice (`inspect --from claude-code`) that refuses it."""
    project = tmp_path / "projects" / "-home-dev-alpha"
    project.mkdir(parents=True)
    (project / "agent-1234abcd.jsonl").write_text("{}\n")
    (project / "renamed-session.jsonl").write_text("{}\n")
    totals = cli("scan", str(tmp_path / "projects"), "--json").json()["totals"]
    assert (totals["skipped_entries"], totals["skipped_jsonl_files"]) == (2, 1)


def test_a_projects_folder_that_cannot_be_searched_is_refused_not_an_internal_error(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was (second diff review): exit 70, PermissionError from is_dir() (Python 3.11 raises
    EACCES for a path under a folder that cannot be searched); and a project folder that could
    be listed but not searched refused the whole scan. Simulated: the tests run as root."""
    root = tmp_path / "projects"
    generate(root / "-home-dev-alpha", _tiny(950))
    (root / "-home-dev-locked").mkdir()
    (root / "-home-dev-locked" / "x.jsonl").write_text("{}\n")
    real = {"lstat": os.lstat, "stat": os.stat}

    def denied(which: str) -> Any:
        def call(path: Any, *args: Any, **kwargs: Any) -> Any:
            if "secret" in str(path) or "-home-dev-locked/" in str(path):
                raise PermissionError(13, "Permission denied")
            return real[which](path, *args, **kwargs)

        return call

    for which in real:
        monkeypatch.setattr(os, which, denied(which))
    result = cli("scan", str(tmp_path / "secret" / "projects"))
    assert result.code == 2
    assert "CC-TREE-PROJECTS-MISSING" in result.err
    report = cli("scan", str(root), "--jobs", "1", "--json")
    assert report.code == 0, report.err
    totals = report.json()["totals"]
    assert (totals["sessions"], totals["unreadable_folders"]) == (1, 1)


def test_a_bug_in_one_tree_is_its_row_and_exit_70(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: an exception inspecting a tree (a bug) became an `error` row and the scan exited 0,
    so a job running scan passed with the reader broken. Every row is still printed; the exit
    is the one a bug has. A killed worker (WorkerDied) is no bug of ours: still 0."""
    root = tmp_path / "projects"
    broken = generate(root / "a", _tiny(931)).parent
    generate(root / "b", _tiny(932))
    real = scan_module.summarize_tree

    def summarize(parent: Path, *args: Any, **kw: Any) -> Any:
        if parent.name == broken.name:
            raise ZeroDivisionError
        return real(parent, *args, **kw)

    monkeypatch.setattr(scan_module, "summarize_tree", summarize)  # the pool forks: inherited
    result = cli("scan", str(root), "--jobs", "1", "--json")
    assert result.code == 70
    rows = json.loads(result.out)["sessions"]
    assert sorted((r["status"], tuple(r["errors"])) for r in rows) == [
        ("convertible", ()),
        ("error", ("ZeroDivisionError",)),
    ]
    assert "internal error (a bug) inspecting 1 session(s)" in result.err
    # the table: the failed tree's counts are none, not 0 (a review: 0 reads as no spend)
    text = cli("scan", str(root), "--jobs", "1")
    row = next(line for line in text.out.splitlines() if " error " in line)
    assert row.split()[1:7] == ["error", "-", "-", "-", "-", "-"], row
    died = {"sessions": [{"errors": ["WorkerDied"]}, {"errors": ["MemoryError"]}, {"errors": []}]}
    assert scan_module.bug_rows(died) == 0


def test_2_0_agent_transcripts_are_sorted_out_once_per_project_folder(
    tmp_path: Path, cli: Any
) -> None:
    """A scan hunt: each tree listed its project folder and read every 2.0.x agent transcript
    in it, quadratic (600 such sessions in one folder: 336 s). scan now sorts them out once, by
    the sessions their records name; each row is still what `inspect` says of that session."""
    from tests.test_layouts import OTHER, SID, _parent, _sibling

    project = tmp_path / "projects" / "-home-dev-legacy"
    project.mkdir(parents=True)
    mine = _parent(project)
    theirs = project / f"{OTHER}.jsonl"
    theirs.write_text(mine.read_text().replace(SID, OTHER))
    _sibling(project, "agent-1a2b3c4d.jsonl", SID)  # an orphan child of SID: refused there
    _sibling(project, "agent-5e6f7a8b.jsonl", OTHER)  # and one of OTHER's
    _sibling(project, "agent-9c0d1e2f.jsonl", "12345678-2222-4333-8444-555555555555")  # no one's
    (project / "agent-0a0b0c0d.jsonl").symlink_to(project / "agent-1a2b3c4d.jsonl")
    found = scan_module.find_sessions(tmp_path / "projects")
    names = {p.name: sorted(Path(s).name for s in found.siblings[p]) for p in (mine, theirs)}
    link = "agent-0a0b0c0d.jsonl"  # no session read from a link: every tree sees (refuses) it
    assert names == {
        mine.name: [link, "agent-1a2b3c4d.jsonl"],
        theirs.name: [link, "agent-5e6f7a8b.jsonl"],
    }
    rows = cli("scan", str(tmp_path / "projects"), "--json").json()["sessions"]
    by_calls = sorted((r["model_calls"], sorted(set(r["refusals"]))) for r in rows)
    alone = sorted(
        (
            report["counts"]["model_calls"],
            sorted({r["code"] for r in report["refusals"]}),
        )
        for report in (cli("inspect", "--json", "--in", str(p)).json() for p in (mine, theirs))
    )
    assert by_calls == alone


def test_a_transcript_beside_the_project_folders_is_not_called_one_project(
    tmp_path: Path, cli: Any
) -> None:
    """A scan hunt: a session transcript dropped beside the project folders was "skipped: not a
    session transcript", then "is a session transcript ... this looks like one project folder"
    about the projects folder itself."""
    root = tmp_path / "projects"
    exp = generate(root / "-proj", _tiny(903))
    shutil.copy(exp.parent, root / exp.parent.name)
    text = cli("scan", str(root), "--jobs", "1").out
    assert "1 of them is a session transcript beside the project folders, where Claude" in text
    assert "looks like one project folder" not in text


def test_a_pruned_sessions_row_shows_no_count_where_nothing_was_read(
    projects: Any, cli: Any
) -> None:
    """A FORMAT-NOTES audit: a pruned session's row said 0 calls and 0 tokens, which reads as
    no spend; its subagents' calls were never read. The table shows `-`, and the note says
    they are in no count."""
    root, _, _, pruned = projects
    result = cli("scan", str(root), "--jobs", "1")
    assert result.code == 0, result.err
    label = next(
        r["session"]
        for r in cli("scan", str(root), "--jobs", "1", "--json").json()["sessions"]
        if r["status"] == "orphan"
    )
    row = next(line for line in result.out.splitlines() if line.startswith(label))
    assert row.split()[1:7] == ["orphan", "-", "-", "-", "-", "-"], row
    assert "a subagent transcript in it is not read, its calls in no count" in result.out
    assert pruned not in result.out


def test_calls_copied_into_another_session_are_said_not_silently_summed(
    tmp_path: Path, cli: Any
) -> None:
    """A drift hunt: a session resumed as a fork (`--fork-session`, `/bg`: `continued-in`) or
    duplicated holds its original's calls under a new session id, with no `forkedFrom` mark,
    and the scan's totals summed them twice, unsaid. The calls are one API call each (one
    message id): each row says how many of its calls other rows have, and the totals how many
    they count again."""
    from tests.damage import copy_tree

    tree = copy_tree("synthetic_tree", tmp_path / "projects")
    old = tree.parent.stem
    new = "0f0e0d0c-0b0a-4909-8807-060504030201"
    text = tree.parent.read_text().replace(old, new)
    lines = text.splitlines(keepends=True)
    (tree.parent.parent / f"{new}.jsonl").write_text("".join(lines[:8]))  # with a tool call
    card = ("--price-card", "anthropic-2026-12")
    result = cli("scan", str(tmp_path / "projects"), "--jobs", "1", "--json", *card)
    assert result.code == 0, result.err
    doc = result.json()
    rows = {r["model_calls"]: r for r in doc["sessions"]}
    assert len(rows) == 2
    small, whole = sorted(rows)
    assert rows[small]["model_calls_in_other_sessions"] == small > 0
    assert rows[whole]["model_calls_in_other_sessions"] == small
    totals = doc["totals"]
    assert totals["model_calls"] == small + whole  # the rows summed: each copy counted
    assert totals["model_calls_in_several_sessions"] == totals["model_calls_counted_again"]
    assert totals["model_calls_counted_again"] == small
    assert totals["sessions_sharing_calls"] == 2
    # the copy (its delegation cut off) is refused, so not priced: the totals' cost counts the
    # shared calls once, and nothing of it is counted again
    assert rows[small]["cost"] is None
    cost = totals["cost"]
    assert cost["model_calls_counted_again_priced"] == 0
    assert Decimal(cost["low_usd_counted_again"]) == Decimal(cost["high_usd_counted_again"]) == 0
    text_out = cli("scan", str(tmp_path / "projects"), "--jobs", "1", *card).out
    assert text_out.count("[calls in other sessions]") == 3  # two rows and the note
    assert f"{counted(small, 'model call')} (by message id) " in text_out
    assert f"count {counted(small, 'call')} again (and their tokens" in text_out
    assert "of it is calls in more than one" not in text_out
    alone = cli("scan", str(tmp_path / "projects"), "--jobs", "2", "--json", *card).json()
    assert alone == doc  # the same with two processes
    # one session alone shares nothing
    (tree.parent.parent / f"{new}.jsonl").unlink()
    one = cli("scan", str(tmp_path / "projects"), "--jobs", "1").out
    assert "other sessions" not in one


def test_a_copied_call_with_no_high_bound_leaves_the_counted_again_cost_open(
    tmp_path: Path, cli: Any
) -> None:
    """A review: what the calls counted again cost had a finite high end even where one of them
    has none (a usage-incomplete call of a model the card gives no max_output_tokens), as
    high_usd had. A whole session duplicated under a new id (the desktop app has done so)."""
    tree = _an_opus_4_tree_with_a_stub(tmp_path / "projects")
    old = tree.parent.stem
    new = "0f0e0d0c-0b0a-4909-8807-060504030201"
    folder = tree.parent.parent
    for path in [tree.parent, *(folder / old).rglob("*")]:
        if path.is_file():
            copy = folder / str(path.relative_to(folder)).replace(old, new)
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_text(path.read_text().replace(old, new))
    card = ("--price-card", "anthropic-2026-11")
    doc = cli("scan", str(tmp_path / "projects"), "--jobs", "1", "--json", *card).json()
    cost = doc["totals"]["cost"]
    (row, copy) = doc["sessions"]
    assert row["status"] == copy["status"] == "convertible"
    assert cost["model_calls_counted_again_priced"] == doc["totals"]["model_calls_counted_again"]
    assert cost["model_calls_counted_again_priced"] == row["model_calls"] > 0
    assert cost["high_usd_counted_again"] is None
    assert cost["low_usd_counted_again"] == row["cost"]["low_usd"] == copy["cost"]["low_usd"]
    assert cost["high_usd_known_counted_again"] == row["cost"]["high_usd_known"]
    (model,) = cost["by_model"].values()  # by model too: the finops walkthrough's per-model report
    assert model["model_calls_counted_again"] == row["model_calls"]
    assert model["high_usd_counted_again"] is None
    assert model["high_usd_known_counted_again"] == cost["high_usd_known_counted_again"]
    text = cli("scan", str(tmp_path / "projects"), "--jobs", "1", *card).out
    low = Decimal(cost["low_usd_counted_again"])
    assert f"${low:.4f} – no bound of it is calls in more than one session's row" in text, text
    # the headline is each call once, open too: the row's own figure, the copy's left out
    mine = Decimal(row["cost"]["low_usd"])
    calls = counted(row["model_calls"], "model call")
    assert (
        f": ${mine:.4f} – no bound for {calls} of the convertible sessions, each counted once"
        in text
    )


def test_of_a_calls_copies_the_narrowest_is_kept_and_the_others_counted_again(
    tmp_path: Path, cli: Any
) -> None:
    """A FinOps walkthrough: a fork cut off mid-call holds a usage-incomplete copy of a call the
    original has whole; which copy the counted-again figure took depended on the rows' order.
    The whole one is kept, the cut one counted again, in all and by model; the totals less it
    are each call once, at its exact cost."""
    from tests.damage import copy_tree

    tree = copy_tree("synthetic_tree", tmp_path / "projects")
    old = tree.parent.stem
    new = "0f0e0d0c-0b0a-4909-8807-060504030201"
    lines = tree.parent.read_text().replace(old, new).splitlines(keepends=True)
    cut = json.loads(lines[5])
    assert cut["type"] == "assistant"
    cut["message"]["stop_reason"] = None
    cut["message"]["usage"].pop("iterations", None)
    cut["message"]["usage"]["output_tokens"] = 1
    fork = [*lines[:5], json.dumps(cut) + "\n"]
    (tree.parent.parent / f"{new}.jsonl").write_text("".join(fork))
    card = ("--price-card", "anthropic-2026-12")
    doc = cli("scan", str(tmp_path / "projects"), "--jobs", "1", "--json", *card).json()
    forked = next(r for r in doc["sessions"] if r["model_calls"] == 1)["cost"]
    whole = next(r for r in doc["sessions"] if r["model_calls"] > 1)["cost"]
    assert Decimal(forked["low_usd"]) < Decimal(forked["high_usd"])  # the cut copy: a range
    cost = doc["totals"]["cost"]
    assert cost["model_calls_counted_again_priced"] == 1
    assert cost["low_usd_counted_again"] == forked["low_usd"]
    assert cost["high_usd_counted_again"] == forked["high_usd"]
    assert cost["high_usd_known_counted_again"] == forked["high_usd_known"]
    (model,) = cost["by_model"].values()
    assert model["model_calls_counted_again"] == 1
    assert model["low_usd_counted_again"] == forked["low_usd"]
    # the totals less what is counted again: the whole session alone, exactly
    assert Decimal(cost["low_usd"]) - Decimal(cost["low_usd_counted_again"]) == Decimal(
        whole["low_usd"]
    )
    assert Decimal(cost["high_usd"]) - Decimal(cost["high_usd_counted_again"]) == Decimal(
        whole["high_usd"]
    )
    text = cli("scan", str(tmp_path / "projects"), "--jobs", "1", *card).out
    assert f"; ${Decimal(forked['low_usd']):.4f} – ${Decimal(forked['high_usd']):.4f} of it" in text
    # a FinOps walkthrough copied the headline, each copy in it: it is now each call once
    once = f"${Decimal(whole['low_usd']):.4f}"
    if whole["low_usd"] != whole["high_usd"]:
        once += f" – ${Decimal(whole['high_usd']):.4f}"
    calls = counted(cost["model_calls_priced"] - 1, "model call")
    assert (
        f"anthropic-2026-12: {once} for {calls} of the convertible sessions, each counted once (the rows sum to $"
        in text
    ), text


def test_a_call_that_recorded_no_input_leaves_no_high_bound(tmp_path: Path, cli: Any) -> None:
    """A walkthrough: a gateway's stub that recorded no input (CC-REC-USAGE-INCOMPLETE-NO-INPUT)
    has its input in neither end, yet `inspect --price-card` and `scan --price-card` showed
    "$low – $high" as if the high end bounded it. It says "no bound" now, and why."""
    from tests.damage import copy_tree

    tree = copy_tree("synthetic_tree", tmp_path / "projects")  # a project folder of one
    lines = tree.parent.read_bytes().splitlines(keepends=True)
    last = json.loads(lines[8])  # the parent's last call: now a stub the session never finished
    last["message"]["stop_reason"] = None
    last["message"]["usage"] = {"input_tokens": 0, "output_tokens": 3}
    lines[8] = json.dumps(last).encode() + b"\n"
    tree.parent.write_bytes(b"".join(lines))
    card = ("--price-card", "anthropic-2026-12")
    shown = cli("inspect", "--in", str(tree.parent), *card)
    assert shown.code == 0, shown.err
    figure = re.search(r"cost by price card anthropic-2026-12: (\$[0-9.,]+) – no bound", shown.out)
    assert figure is not None, shown.out
    assert "no bound: 1 call recorded no input (CC-REC-USAGE-INCOMPLETE-NO-INPUT)" in shown.out
    cost = cli("inspect", "--json", "--in", str(tree.parent), *card).json()["card_cost"]
    assert cost["model_calls_unbounded"] == 1
    assert sum(m["model_calls_unbounded"] for m in cost["by_model"].values()) == 1
    # a price audit: JSON's high end was a finite number that bounded nothing; null now
    (model,) = [m for m in cost["by_model"].values() if m["model_calls_unbounded"]]
    assert (cost["high_usd"], model["high_usd"]) == (None, None)
    assert Decimal(cost["high_usd_known"]) >= Decimal(cost["low_usd"])
    scanned = cli("scan", str(tmp_path / "projects"), "--jobs", "1", *card)
    assert scanned.code == 0, scanned.err
    figures = cli("scan", str(tmp_path / "projects"), "--jobs", "1", "--json", *card).json()
    assert figures["sessions"][0]["cost"]["high_usd"] is None
    assert figures["totals"]["cost"]["high_usd"] is None
    assert figures["totals"]["cost"]["high_usd_known"] == cost["high_usd_known"]
    # and by model: the open model's known sum, above its low end, not its low end
    summed = figures["totals"]["cost"]["by_model"]
    assert {k: m["high_usd_known"] for k, m in summed.items()} == {
        k: m["high_usd_known"] for k, m in cost["by_model"].items()
    }
    (open_model,) = [m for m in summed.values() if m["model_calls_unbounded"]]
    assert Decimal(open_model["high_usd_known"]) > Decimal(open_model["low_usd"])
    assert f"{figure.group(1)} – no bound" in scanned.out
    assert "1 model call recorded no input (CC-REC-USAGE-INCOMPLETE-NO-INPUT)" in scanned.out
    complete = cli("inspect", "--in", str(fixture_parent("synthetic_tree")), *card).out
    assert "no bound" not in complete


def test_a_call_without_input_of_a_model_the_card_does_not_price_is_spend_in_no_figure(
    tmp_path: Path, cli: Any
) -> None:
    """A walkthrough: a gateway model's stubs that recorded no input made the workload
    INCOMPLETE in evaluate, while their scan row said only "nothing priced" (the no-input
    count is of the calls the card prices). The row says `[spend in no figure]` for them."""
    from tests.damage import copy_tree

    tree = copy_tree("synthetic_tree", tmp_path / "projects")
    lines = tree.parent.read_bytes().splitlines(keepends=True)
    last = json.loads(lines[8])
    last["message"]["stop_reason"] = None
    last["message"]["model"] = "MiniMax-M2.7"  # no card prices it
    last["message"]["usage"] = {"input_tokens": 0, "output_tokens": 3}
    lines[8] = json.dumps(last).encode() + b"\n"
    tree.parent.write_bytes(b"".join(lines))
    card = ("--price-card", "anthropic-2026-12")
    figures = cli("scan", str(tmp_path / "projects"), "--jobs", "1", "--json", *card).json()
    (row,) = figures["sessions"]
    assert row["cost"]["model_calls_unbounded"] == 0  # no figure holds the call
    assert row["cost"]["spend_left_out"] == ["CC-REC-USAGE-INCOMPLETE-NO-INPUT"]
    shown = cli("scan", str(tmp_path / "projects"), "--jobs", "1", *card)
    assert "[spend in no figure]" in shown.out, shown.out


def test_a_call_of_a_model_with_no_max_output_on_the_card_is_in_the_scan_with_no_high_end(
    tmp_path: Path, cli: Any
) -> None:
    """A walkthrough: a 1.0.x session of 166 usage-incomplete Sonnet 4 calls (no
    max_output_tokens on the card) read `$0.0520 +` in the scan, its recorded tokens alone
    worth $2.39. Such a call is in the figure at its recorded usage, the high end no bound."""
    tree = _an_opus_4_tree_with_a_stub(tmp_path / "projects")
    card = ("--price-card", "anthropic-2026-11")
    alone = cli("inspect", "--json", "--in", str(tree.parent), *card).json()["card_cost"]
    scanned = cli("scan", str(tmp_path / "projects"), "--jobs", "1", "--json", *card).json()
    row = scanned["sessions"][0]["cost"]
    assert (row["model_calls_priced"], row["model_calls_not_priced"]) == (4, 0)
    assert (
        row["model_calls_no_max_output"] == scanned["totals"]["cost"]["model_calls_no_max_output"]
    )
    assert row["model_calls_no_max_output"] == 1
    assert row["low_usd"] == alone["low_usd"]
    assert row["by_model"]["claude-opus-4-20250514"]["model_calls_no_max_output"] == 1
    assert alone["high_usd"] is row["high_usd"] is None
    assert alone["by_model"]["claude-opus-4-20250514"]["high_usd"] is None
    assert row["high_usd_known"] == alone["high_usd_known"]
    text = cli("scan", str(tmp_path / "projects"), "--jobs", "1", *card).out
    assert f"${Decimal(alone['low_usd']):.4f} – no bound" in text
    assert "1 model call usage-incomplete, of models the card states no max_output_tokens" in text
    assert "not priced, and not in it" not in text


def _an_opus_4_tree_with_a_stub(projects: Path) -> Any:
    """The synthetic tree in `projects`, its calls Opus 4's (no max_output_tokens on the card),
    the parent's last call a stub with no final usage."""
    from tests.damage import copy_tree

    tree = copy_tree("synthetic_tree", projects)
    for transcript in tree.parent.parent.rglob("*.jsonl"):
        text = transcript.read_text().replace("claude-opus-4-8", "claude-opus-4-20250514")
        transcript.write_text(text)
    lines = tree.parent.read_text().splitlines(keepends=True)
    last = json.loads(lines[8])  # the parent's last call: a stub with no final usage
    last["message"]["stop_reason"] = None
    del last["message"]["usage"]["iterations"]
    lines[8] = json.dumps(last) + "\n"
    tree.parent.write_text("".join(lines))
    return tree


def test_the_scans_total_by_model_keeps_a_no_max_output_calls_open_end(
    tmp_path: Path, cli: Any
) -> None:
    """The totals' split by model sums the sessions' no-max_output calls too: without them,
    the totals' line for the model would read as bounded (`$low – $high`) where its session's
    row says no bound."""
    _an_opus_4_tree_with_a_stub(tmp_path / "projects")
    card = ("--price-card", "anthropic-2026-11")
    scanned = cli("scan", str(tmp_path / "projects"), "--jobs", "1", "--json", *card).json()
    total = scanned["totals"]["cost"]["by_model"]["claude-opus-4-20250514"]
    assert total["model_calls_no_max_output"] == 1
    assert total["high_usd"] is None
    (row,) = scanned["sessions"]  # the total's known sum is the rows'
    assert (
        total["high_usd_known"]
        == row["cost"]["by_model"]["claude-opus-4-20250514"]["high_usd_known"]
    )
    text = cli("scan", str(tmp_path / "projects"), "--jobs", "1", *card).out
    low = Decimal(total["low_usd"])
    assert f"  claude-opus-4-20250514: ${low:.4f} – no bound (" in text, text


@pytest.mark.parametrize("kind", ["symlink", "file", "broken-symlink"])
def test_an_entry_by_the_sessions_id_in_another_project_folder_refuses_as_inspect_does(
    tmp_path: Path, cli: Any, kind: str
) -> None:
    """A review: a symlink or a file named by a session's id in another project folder made
    `inspect` refuse the tree (CC-TREE-SYMLINK, CC-TREE-STRAY-FILE), while both scans called it
    convertible: the scan counted the entry and did not give it to the tree."""
    root = tmp_path / "projects"
    exp = generate(root / "a", _tiny(907, agent_rate=0.9))
    sid = exp.parent.stem
    (root / "b").mkdir()
    if kind == "symlink":
        (tmp_path / "target").mkdir()
        (root / "b" / sid).symlink_to(tmp_path / "target")
    elif kind == "file":
        (root / "b" / sid).write_text("x")
    else:
        (root / "b" / sid).symlink_to(tmp_path / "nowhere")
    inspected = cli("inspect", "--json", "--in", str(exp.parent)).json()
    codes = sorted({r["code"] for r in inspected["refusals"]})
    assert codes in (["CC-TREE-SYMLINK"], ["CC-TREE-STRAY-FILE"])
    for given in (root, root / "a"):
        (row,) = cli("scan", str(given), "--json", "--jobs", "1").json()["sessions"]
        assert (row["status"], row["refusals"]) == ("refused", codes), given


def test_a_project_folder_given_by_another_name_is_not_its_own_sibling(
    tmp_path: Path, cli: Any
) -> None:
    """A review: a project folder given through a symlink beside it (a shortcut; on macOS, a
    name in another case or Unicode form) read itself as a project folder beside the one given,
    so every session was split and its worktree children unread; inspect alike."""
    root = tmp_path / "projects"
    exp = generate(root / "-home-me-proj", _tiny(907, agent_rate=0.9))
    (root / "current").symlink_to(root / "-home-me-proj")
    rows = []
    for given in ("-home-me-proj", "current"):
        (row,) = cli("scan", str(root / given), "--json", "--jobs", "1").json()["sessions"]
        rows.append((row["status"], row["split"], row["model_calls"]))
    assert rows[0] == rows[1] == ("convertible", False, exp.model_calls)
    through = root / "current" / exp.parent.name
    inspected = cli("inspect", "--json", "--in", str(through)).json()
    assert inspected["convertible"], inspected["refusals"]


def test_a_session_with_no_model_call_is_empty_not_refused(tmp_path: Path, cli: Any) -> None:
    """A session that recorded no model call (a `/clear`, a prompt left unanswered) is `empty`:
    nothing to convert, and nothing to fix. On a real machine such sessions were most of the
    rows a scan called refused (6 of 11 in one published projects folder). One with no call
    and another refusal is still refused, and a price card does not count it as not priced."""
    root = tmp_path / "projects"
    plain = generate(root / PROJECTS[0], _tiny(900))
    folder = root / PROJECTS[1]
    folder.mkdir(parents=True)
    sid = "0b5c0a4e-1d2e-4f6a-8b9c-0d1e2f3a4b5c"
    prompt = {
        "type": "user",
        "uuid": "u-1",
        "parentUuid": None,
        "sessionId": sid,
        "isSidechain": False,
        "timestamp": "2026-11-01T10:00:00.000Z",
        "message": {"role": "user", "content": "hello"},
    }
    (folder / f"{sid}.jsonl").write_text(json.dumps(prompt) + "\n")
    # a session with no call and a line that is not a record: refused for the line
    other = "1c6d1b5f-2e3f-4a7b-9cad-1e2f3a4b5c6d"
    (folder / f"{other}.jsonl").write_text(json.dumps({**prompt, "sessionId": other}) + "\n[]\n")
    # a zero-byte transcript: a session that never wrote a line (a fuzz met 3,000 as refused)
    zero = "2d7e2c60-3f40-4b8c-8dbe-2f3a4b5c6d7e"
    (folder / f"{zero}.jsonl").write_bytes(b"")
    card = ("--price-card", "anthropic-2026-12")
    result = cli("scan", str(root), "--jobs", "1", "--json", *card)
    text = cli("scan", str(root), "--jobs", "1").out
    assert result.code == 0, result.err
    out = result.json()
    pseudo = Pseudonymizer(PseudonymKey(bytes.fromhex(TEST_KEY)))
    rows = {r["session"]: r for r in out["sessions"]}
    empty = rows[pseudo.name("file", f"{sid}.jsonl")]
    assert empty["status"] == "empty"
    assert empty["refusals"] == ["CC-TREE-NO-CALLS"]
    assert empty["model_calls"] == 0
    broken = rows[pseudo.name("file", f"{other}.jsonl")]
    assert broken["status"] == "refused"
    assert broken["refusals"]
    assert "CC-TREE-NO-CALLS" not in broken["refusals"]
    assert rows[pseudo.name("file", plain.parent.name)]["status"] == "convertible"
    nothing = rows[pseudo.name("file", f"{zero}.jsonl")]
    assert (nothing["status"], nothing["refusals"]) == ("empty", ["CC-TREE-EMPTY-FILE"])
    totals = out["totals"]
    assert (totals["convertible"], totals["empty"], totals["refused"]) == (1, 2, 1)
    assert not {"CC-TREE-NO-CALLS", "CC-TREE-EMPTY-FILE"} & set(totals["refusal_codes"])
    assert totals["cost"]["sessions_not_priced"] == 1  # the broken one, not the empty ones
    assert "1 convertible, 2 empty (no model call), 1 refused" in text
    priced = cli("scan", str(root), "--jobs", "1", *card).out
    line = next(x for x in priced.splitlines() if x.startswith(empty["session"]))
    assert re.search(r" empty .* no calls +CC-TREE-NO-CALLS$", line), line
    assert "1 session not priced" in priced  # the broken one


@pytest.mark.parametrize(
    "figure", [ModelFigure, HiddenFigure, ScanModelCost], ids=lambda m: m.__name__
)
def test_a_figure_crosses_only_with_a_high_end_that_is_a_bound_or_null(figure: Any) -> None:
    """The rule each card figure checks as it leaves (inspect's and scan's): a finite high_usd
    beside an open call is a bug (exit 70), never printed; so is a null beside none."""
    from pydantic import ValidationError

    extra = {"model_calls_usage_incomplete": 0, "max_output_tokens": None}
    fields = {
        "model_calls": 2,
        "low_usd": "1.5",
        "high_usd": "2.5",
        "high_usd_known": "2.5",
        "model_calls_unbounded": 0,
        "model_calls_no_max_output": 0,
        **{k: v for k, v in extra.items() if k in figure.model_fields},
    }
    assert figure.model_validate(fields).high_usd == "2.5"
    for open_key in ("model_calls_unbounded", "model_calls_no_max_output"):
        assert figure.model_validate({**fields, open_key: 1, "high_usd": None}).high_usd is None
        with pytest.raises(ValidationError):
            figure.model_validate({**fields, open_key: 1})
    for wrong in (None, "2.4"):
        with pytest.raises(ValidationError):
            figure.model_validate({**fields, "high_usd": wrong})


def _message_ids(path: Path) -> set[str]:
    ids = set()
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        if rec.get("type") == "assistant":
            ids.add(rec["message"]["id"])
    return ids


def test_only_model_calls_are_counted_as_shared_and_only_sharing_sessions(
    tmp_path: Path, cli: Any
) -> None:
    """A review's mutants: a copy's head holding a tool call too (its tool ids are the
    original's: no model call), a third session that shares nothing (not one of the
    sessions sharing calls), and a split session (its calls keyed through `_identities`)."""
    from tests.damage import copy_tree

    root = tmp_path / "projects"
    tree = copy_tree("synthetic_tree", root)
    old = tree.parent.stem
    lines = tree.parent.read_text().splitlines(keepends=True)
    head = "".join(lines[:8]).replace(old, "0f0e0d0c-0b0a-4909-8807-060504030201")
    copy = tree.parent.parent / "0f0e0d0c-0b0a-4909-8807-060504030201.jsonl"
    copy.write_text(head)
    assert '"tool_use"' in head
    shared = _message_ids(copy)
    # the original also as a split session: part of its transcript in another project folder
    (root / "elsewhere").mkdir()
    (root / "elsewhere" / tree.parent.name).write_text("".join(lines[:4]))
    copy_tree("rich_tree", root)  # shares no call
    doc = cli("scan", str(root), "--jobs", "1", "--json").json()
    rows = doc["sessions"]
    assert len(rows) == 3
    by_calls = sorted(r["model_calls_in_other_sessions"] for r in rows)
    assert by_calls == [0, len(shared), len(shared)]
    split = next(r for r in rows if r["split"])
    assert split["model_calls_in_other_sessions"] == len(shared)
    totals = doc["totals"]
    assert totals["sessions_sharing_calls"] == 2
    assert totals["model_calls_in_several_sessions"] == len(shared)
    assert totals["model_calls_counted_again"] == len(shared)


def test_the_totals_by_model_put_a_model_with_no_bound_first() -> None:
    """A walkthrough: `claude-sonnet-4…: $5.1837 – no bound` was listed after `$1.5821 –
    $22.3804` and `$0.3501 – $6.1099`, ranked by the known part of its high end, so the model
    with the highest floor and no ceiling read as the cheapest."""

    def part(low: str, high_known: str, bounded: bool) -> dict[str, Any]:
        return {
            "low_usd": low,
            "high_usd_known": high_known,
            "high_usd": high_known if bounded else None,
        }

    by_model = {
        "haiku": part("1.5821", "22.3804", True),
        "sonnet-4-5": part("0.3501", "6.1099", True),
        "sonnet-4": part("5.1837", "5.5", False),
        "opus": part("0.9", "22.3804", True),  # same high end as haiku: the higher floor first
    }
    ranked = [name for name, _ in sorted(by_model.items(), key=scan_module._costliest_first)]
    assert ranked == ["sonnet-4", "haiku", "opus", "sonnet-4-5"]


# --- --since: only the sessions written to since a moment -----------------------------------

OLD = 1_700_000_000  # 2023-11-14, a time no file of a test run has


def _age(paths: Any, when: float = OLD) -> None:
    for path in paths:
        os.utime(path, (when, when), follow_symlinks=False)


def _parts(parent: Path) -> list[Path]:
    """A session's main transcript (if any), its folder (if any) and all in it, deepest first:
    aging a file after its folder would not change the folder's time, but listing it does not
    either."""
    folder = parent.with_suffix("")
    inside = sorted(folder.rglob("*"), key=lambda p: -len(p.parts)) if folder.exists() else []
    return [p for p in (parent, *inside, folder) if os.path.lexists(p)]


@pytest.fixture
def dated(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """Three sessions and a pruned one: `old` written to last in 2023, `resumed` whose main
    transcript is from 2023 but a subagent of it was written just now, `new`, and a pruned
    session folder from 2023. Each is named by its label."""
    root = tmp_path / "projects"
    old = generate(root / PROJECTS[0], _tiny(700))
    resumed = generate(root / PROJECTS[1], _tiny(701, agent_rate=0.9))
    new = generate(root / PROJECTS[2], _tiny(702))
    pruned = generate(root / PROJECTS[2], _tiny(703, agent_rate=0.9))
    assert resumed.subagents > 0
    assert pruned.subagents > 0
    pruned.parent.unlink()
    _age(_parts(old.parent))
    _age([resumed.parent])  # its folder's files keep today's times
    _age(_parts(pruned.parent))
    pseudo = Pseudonymizer(PseudonymKey(bytes.fromhex(TEST_KEY)))
    labels = {
        name: scan_module.session_label(pseudo, tree.parent.stem)
        for name, tree in (("old", old), ("resumed", resumed), ("new", new), ("pruned", pruned))
    }
    return root, labels


def test_since_keeps_the_sessions_written_to_since_then(dated: Any, cli: Any) -> None:
    root, labels = dated
    result = cli("scan", str(root), "--json", "--since", "2024-01-01")
    assert result.code == 0, result.err
    doc = result.json()
    assert doc["since"] == "2024-01-01T00:00:00Z"
    assert sorted(r["session"] for r in doc["sessions"]) == sorted(
        [labels["resumed"], labels["new"]]
    )
    assert doc["totals"]["sessions"] == 2
    assert doc["totals"]["sessions_before_since"] == 2  # the old one and the pruned folder
    schema = json.loads((ROOT / "contracts" / "scan.schema.json").read_text())
    assert [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(doc)] == []
    every = cli("scan", str(root), "--json").json()
    assert every["since"] is None
    assert every["totals"]["sessions_before_since"] == 0
    assert every["totals"]["sessions"] == 4
    kept = {r["session"]: r for r in doc["sessions"]}
    assert all(kept[r["session"]] == r for r in every["sessions"] if r["session"] in kept)


def test_since_is_said_in_the_table(dated: Any, cli: Any) -> None:
    root, _ = dated
    result = cli("scan", str(root), "--since", "2024-01-01T00:00:00+01:00")
    assert result.code == 0, result.err
    assert (
        "--since 2023-12-31T23:00:00Z: 2 sessions last written before it left out (by their "
        "files' modification times), in no row or total"
    ) in result.out
    assert "--since" not in cli("scan", str(root)).out


def test_since_a_span_back_from_now(dated: Any, cli: Any) -> None:
    root, _ = dated
    doc = cli("scan", str(root), "--json", "--since", "30d").json()
    assert doc["totals"]["sessions"] == 2
    assert cli("scan", str(root), "--json", "--since", "0h").json()["totals"]["sessions"] == 0


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("2024-01-01T09:00", "without its offset"),
        ("/home/alice/.claude/projects", "is not a date"),
        ("last week", "is not a date"),
        ("999999d", "outside the times a file can have"),
    ],
)
def test_since_refuses_what_it_would_have_to_guess(
    value: str, says: str, dated: Any, cli: Any
) -> None:
    root, _ = dated
    result = cli("scan", str(root), "--since", value)
    assert result.code == 64
    assert says in result.err
    assert "'--since': <value> " in result.err  # the value stands in, never echoed
    assert "alice" not in result.err
    assert "week" not in result.err


def test_since_keeps_a_session_with_a_symlink_it_does_not_follow(
    dated: Any, cli: Any, tmp_path: Path
) -> None:
    """A session folder or main transcript that is a link is never followed (SPEC §3): its time
    cannot be told, so the session is kept and its row says CC-TREE-SYMLINK (an audit: it was
    dated by its other parts, or by the link's target, and left out with its refusal)."""
    root, labels = dated
    [old_parent] = list((root / PROJECTS[0]).glob("*.jsonl"))
    folder = old_parent.with_suffix("")
    assert not folder.exists()  # a session with no subagents: no folder of its own
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _age([elsewhere])
    folder.symlink_to(elsewhere, target_is_directory=True)
    _age([folder])
    doc = cli("scan", str(root), "--json", "--since", "2024-01-01").json()
    [row] = [r for r in doc["sessions"] if r["session"] == labels["old"]]
    assert "CC-TREE-SYMLINK" in row["refusals"]
    folder.unlink()
    moved = tmp_path / "moved.jsonl"
    old_parent.rename(moved)
    old_parent.symlink_to(moved)  # the transcript a link now, its target from 2023
    _age([old_parent])
    doc = cli("scan", str(root), "--json", "--since", "2024-01-01").json()
    assert labels["old"] in {r["session"] for r in doc["sessions"]}


def test_since_keeps_a_session_part_of_which_cannot_be_read(
    dated: Any, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session folder that cannot be listed hides the times in it: the session is kept and
    its row says why, not dated by what could be read and left out (an audit)."""
    root, labels = dated
    real = os.walk

    def walk(top: Any, onerror: Any = None, **kw: Any) -> Any:
        if onerror is not None:
            onerror(PermissionError(13, "Permission denied"))
        return real(top, onerror=onerror, **kw)

    monkeypatch.setattr("converter.run.scan.os.walk", walk)
    doc = cli("scan", str(root), "--json", "--since", "2024-01-01").json()
    kept = {r["session"] for r in doc["sessions"]}
    assert labels["pruned"] in kept  # its folder could not be listed (here: said so)
    assert labels["old"] not in kept  # no folder: every part of it told, all from 2023


def test_since_dates_what_a_session_has_beside_and_inside(dated: Any, cli: Any) -> None:
    """A 2.0.x agent transcript beside the main one, naming the session, is part of its time;
    an empty session folder is dated by its own time; a file time of 0 is a time (an audit:
    it was taken for none, and the session kept)."""
    root, labels = dated
    [old_parent] = list((root / PROJECTS[0]).glob("*.jsonl"))
    since = ("--json", "--since", "2024-01-01")
    _age([old_parent], 0)
    assert labels["old"] not in {
        r["session"] for r in cli("scan", str(root), *since).json()["sessions"]
    }
    sibling = old_parent.parent / "agent-1a2b3c4d.jsonl"
    sibling.write_text(json.dumps({"sessionId": old_parent.stem, "type": "user"}) + "\n")
    assert labels["old"] in {
        r["session"] for r in cli("scan", str(root), *since).json()["sessions"]
    }
    sibling.unlink()
    pruned = next(
        p
        for p in (root / PROJECTS[2]).iterdir()
        if p.is_dir() and not p.with_suffix(".jsonl").exists()
    )
    shutil.rmtree(pruned)
    pruned.mkdir()  # an empty session folder, made just now
    doc = cli("scan", str(root), *since).json()
    assert labels["pruned"] in {r["session"] for r in doc["sessions"]}
    _age([pruned])
    doc = cli("scan", str(root), *since).json()
    assert labels["pruned"] not in {r["session"] for r in doc["sessions"]}


def test_since_says_the_instant_it_used(dated: Any, cli: Any) -> None:
    """To the microsecond (an audit: the fraction was dropped from what was said, not from what
    was used)."""
    root, labels = dated
    [new_parent] = list((root / PROJECTS[2]).glob("*.jsonl"))
    at = 1_800_000_000  # 2027-01-15T08:00:00Z
    _age([new_parent], at + 0.25)
    doc = cli("scan", str(root), "--json", "--since", "2027-01-15T08:00:00.250001Z").json()
    assert doc["since"] == "2027-01-15T08:00:00.250001Z"
    assert labels["new"] not in {r["session"] for r in doc["sessions"]}
    doc = cli("scan", str(root), "--json", "--since", "2027-01-15T09:00:00.25+01:00").json()
    assert doc["since"] == "2027-01-15T08:00:00.250000Z"
    assert labels["new"] in {r["session"] for r in doc["sessions"]}


@pytest.mark.parametrize(
    "value",
    [
        "0999-01-01",
        "1969-12-31T23:59:59Z",
        "400000d",
        "99999999999h",
        "0001-01-01T00:00:00+01:00",
        "9999-12-31T23:00:00-05:00",
    ],
)
def test_since_before_file_times_began_is_a_usage_error(value: str, dated: Any, cli: Any) -> None:
    """Was exit 70 after the whole scan (an audit): a year of fewer than four digits failed the
    report's check, an offset at the calendar's edge overflowed."""
    root, _ = dated
    result = cli("scan", str(root), "--since", value)
    assert result.code == 64, result.err
    assert "outside the times a file can have" in result.err


def test_a_missing_folder_and_an_unknown_card_are_both_said(tmp_path: Path, cli: Any) -> None:
    """An audit: only the folder was said; the mistyped card came out on the next try."""
    result = cli("scan", str(tmp_path / "nowhere"), "--price-card", "no-such-card")
    assert result.code == 2
    codes = re.findall(r"refused: ([A-Z-]+[A-Z])", result.err)
    assert codes[0] == "CC-TREE-PROJECTS-MISSING"
    assert codes[1].startswith("PRICE-CARD-"), result.err


@pytest.mark.parametrize("folder_there", [False, True])
def test_an_empty_transcript_beside_another_part_is_no_part(
    tmp_path: Path, cli: Any, folder_there: bool
) -> None:
    """A review: an empty `<sid>.jsonl` in another project folder made the row refused
    (CC-TREE-EMPTY-FILE) and split, while `inspect` of the real transcript converts it (an
    empty file is no part). The row now says what `inspect` says, and the session's folder
    beside the empty file is read with the transcript, as `inspect` reads it."""
    root = tmp_path / "projects"
    exp = generate(root / "-home-dev-app", _tiny(907, agent_rate=0.9))
    sid = exp.parent.stem
    other = root / "-home-dev-app--claude-worktrees-w"
    other.mkdir()
    (other / exp.parent.name).write_bytes(b"")
    if folder_there:  # the children's folder beside the empty transcript
        (root / "-home-dev-app" / sid).rename(other / sid)
    inspected = cli("inspect", "--json", "--in", str(exp.parent)).json()
    assert inspected["convertible"] is True, inspected["refusals"]
    [row] = cli("scan", str(root), "--json", "--jobs", "1").json()["sessions"]
    assert row["status"] == "convertible", row
    assert row["split"] is False
    assert row["model_calls"] == inspected["counts"]["model_calls"]
    assert row["subagents"] == inspected["counts"]["subagents"] > 0
    # one project folder given, the empty transcript beside it: no part either
    [alone] = cli("scan", str(exp.parent.parent), "--json", "--jobs", "1").json()["sessions"]
    assert (alone["status"], alone["split"]) == ("convertible", False), alone
    assert alone["subagents"] == row["subagents"]
    (exp.parent).write_bytes(b"")  # every transcript of it empty: its tree refuses it
    [row] = cli("scan", str(root), "--json", "--jobs", "1").json()["sessions"]
    assert "CC-TREE-EMPTY-FILE" in row["refusals"]


def _sum_of_rows(doc: dict[str, Any]) -> None:
    """The totals are the rows' sums: each status, each count, each refusal code of a row that
    is not empty."""
    rows, totals = doc["sessions"], doc["totals"]
    statuses = [r["status"] for r in rows]
    assert totals["refused"] == statuses.count("refused") + statuses.count("orphan")
    assert totals["convertible"] == statuses.count("convertible")
    for key in ("model_calls", "usage_incomplete_calls", "tool_calls", "subagents", "tokens"):
        assert totals[key] == sum(r[key] for r in rows), key
    codes = [c for r in rows if r["status"] != "empty" for c in r["refusals"]]
    assert totals["refusal_codes"] == {c: codes.count(c) for c in sorted(set(codes))}


@pytest.mark.parametrize("when", ["before-its-tree-is-laid-out", "before-it-is-opened"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_transcript_deleted_during_the_scan_is_said_to_have_vanished(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch, when: str, jobs: str
) -> None:
    """An audit: a main transcript found by the scan and deleted before its tree was read made
    its row say CC-TREE-PARENT-MISSING, a session pruned of its transcript, with counts of 0
    (read as no spend); deleted between the tree's layout and its reading, CC-TREE-UNREADABLE,
    "check file permissions". It was there and went away: CC-TREE-PARENT-VANISHED, no count
    in the table, and the totals still the rows' sums. `inspect` of the path, given after it
    is gone, still says there is no transcript there: nothing found it."""
    import converter.run.pipeline as pipeline

    root = tmp_path / "projects"
    gone = generate(root / "a", _tiny(941, agent_rate=0.9)).parent
    kept = generate(root / "b", _tiny(942))
    if when == "before-its-tree-is-laid-out":
        real = scan_module.summarize_tree

        def summarize(parent: Path, *args: Any, **kw: Any) -> Any:
            if parent.name == gone.name:
                parent.unlink(missing_ok=True)
            return real(parent, *args, **kw)

        monkeypatch.setattr(scan_module, "summarize_tree", summarize)
    else:
        laid_out = pipeline.discover

        def discover(parent: Path, *args: Any, **kw: Any) -> Any:
            layout = laid_out(parent, *args, **kw)
            if parent.name == gone.name:
                parent.unlink(missing_ok=True)
            return layout

        monkeypatch.setattr(pipeline, "discover", discover)  # the pool forks: inherited
    monkeypatch.setattr(scan_module, "available_cpus", lambda: 2)
    result = cli("scan", str(root), "--jobs", jobs, "--json")
    assert result.code == 0, result.err
    doc = result.json()
    pseudo = Pseudonymizer(PseudonymKey(bytes.fromhex(TEST_KEY)))
    rows = {r["session"]: r for r in doc["sessions"]}
    row = rows[pseudo.name("file", gone.name)]
    assert (row["status"], row["refusals"], row["errors"]) == (
        "refused",
        ["CC-TREE-PARENT-VANISHED"],
        [],
    )
    assert (row["parent_files"], row["model_calls"], row["subagents"]) == (1, 0, 0)
    other = rows[pseudo.name("file", kept.parent.name)]
    assert (other["status"], other["model_calls"]) == ("convertible", kept.model_calls)
    totals = doc["totals"]
    assert (totals["refused"], totals["orphan"]) == (1, 0)
    assert totals["refusal_codes"] == {"CC-TREE-PARENT-VANISHED": 1}
    _sum_of_rows(doc)
    assert "CC-TREE-PARENT-VANISHED" in CODES
    # the table: no count for it, and a note that says what happened
    gone.write_text("{}\n")  # found again, and deleted again
    text = cli("scan", str(root), "--jobs", jobs)
    assert text.code == 0, text.err
    line = next(x for x in text.out.splitlines() if x.startswith(row["session"]))
    assert line.split()[1:8] == ["refused", "-", "-", "-", "-", "-", "CC-TREE-PARENT-VANISHED"]
    assert "1 session with a main transcript that was deleted or moved while the scan ran" in (
        text.out
    )
    assert "CC-TREE-PARENT-MISSING" not in text.out + result.out
    assert "Traceback" not in text.err + result.err
    monkeypatch.undo()
    inspected = cli("inspect", "--json", "--in", str(gone))
    assert [r["code"] for r in inspected.json()["refusals"]] == ["CC-TREE-PARENT-MISSING"]


@pytest.mark.parametrize("vanish", [("a", "b"), ("a",)])
def test_a_split_session_counts_what_of_it_was_read(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch, vanish: tuple[str, ...]
) -> None:
    """A review: every main transcript of a split session vanished, and its row showed counts
    of 0 (read as no spend), not `-`. With one part left, that part's call is counted."""
    from tests.test_split_session import _second_part

    root = tmp_path / "projects"
    parents = {name: _second_part(root / name, part) for name, part in (("a", 2), ("b", 3))}
    real = scan_module.summarize_tree

    def summarize(parent: Path, *args: Any, **kw: Any) -> Any:
        if parent.parent.name in vanish:
            parent.unlink(missing_ok=True)
        return real(parent, *args, **kw)

    monkeypatch.setattr(scan_module, "summarize_tree", summarize)
    result = cli("scan", str(root), "--jobs", "1", "--json")
    assert result.code == 0, result.err
    (row,) = result.json()["sessions"]
    assert (row["status"], row["split"], row["parent_files"]) == ("refused", True, 2)
    assert row["refusals"] == ["CC-TREE-PARENT-VANISHED"]
    assert row["model_calls"] == 2 - len(vanish)
    for name in vanish:  # found again, and deleted again
        parents[name].write_text("{}\n")
    text = cli("scan", str(root), "--jobs", "1")
    assert text.code == 0, text.err
    line = next(x for x in text.out.splitlines() if x.startswith(row["session"]))
    shown = line.split()[1:3]
    assert shown == (["refused", "-"] if len(vanish) == 2 else ["refused", "1"])


def test_one_project_folder_of_a_split_session_gets_inspects_verdict(
    tmp_path: Path, cli: Any
) -> None:
    """A hostile audit: with the session's transcripts in two project folders and its folder in
    a third, `inspect` of one transcript refuses CC-TREE-SPLIT-FOLDER (no tree reads the
    folder), as a scan of the projects folder does; a scan of that one project folder called
    the tree convertible."""
    import shutil

    from tests.test_split_session import PARENT, _second_part

    root = tmp_path / "projects"
    parent = _second_part(root / "a", 2)
    _second_part(root / "b", 3)
    shutil.copytree(PARENT.parent / PARENT.stem, root / "c" / PARENT.stem)
    inspected = cli("inspect", "--json", "--in", str(parent))
    assert "CC-TREE-SPLIT-FOLDER" in [r["code"] for r in inspected.json()["refusals"]]
    for given in (root / "a", root):
        result = cli("scan", str(given), "--json")
        assert result.code == 0, result.err
        (row,) = result.json()["sessions"]
        assert row["status"] == "refused", given
        assert "CC-TREE-SPLIT-FOLDER" in row["refusals"], given
    # The third folder alone: its note no longer says inspect reads the folder, unqualified.
    note = cli("scan", str(root / "c")).out
    assert "unless the session's main transcript is in more than one project folder" in note


def test_only_a_parent_gone_from_its_path_has_vanished(tmp_path: Path) -> None:
    """What `parent_vanished` tells apart: the tree found no transcript at the parent's path, or
    could not open the parent, and nothing is there now. A parent there that could not be read
    keeps CC-TREE-UNREADABLE (check its permissions); a child not read, or a stray folder of
    another part of the session (CC-TREE-SPLIT-FOLDER, with a path), is no parent gone."""
    from converter.errors import Problem

    parent = tmp_path / "2d7e2c60-3f40-4b8c-8dbe-2f3a4b5c6d7e.jsonl"
    missing = Problem("CC-TREE-PARENT-MISSING")
    unopened = Problem("CC-TREE-UNREADABLE", 0)
    assert scan_module.parent_vanished(parent, [missing])
    assert scan_module.parent_vanished(parent, [unopened])
    assert not scan_module.parent_vanished(parent, [Problem("CC-TREE-UNREADABLE", 2)])
    stray = Problem("CC-TREE-SPLIT-FOLDER", local_path="b/2d7e2c60-3f40-4b8c-8dbe-2f3a4b5c6d7e")
    assert not scan_module.parent_vanished(parent, [stray])
    assert not scan_module.parent_vanished(parent, [])
    parent.write_text("{}\n")
    assert not scan_module.parent_vanished(parent, [unopened])


@pytest.mark.parametrize("damage", ["empty-parent-with-children", "empty-meta-and-stray-file"])
def test_an_empty_file_among_other_refusals_is_the_row_as_inspect_says_it(
    tmp_path: Path, cli: Any, damage: str
) -> None:
    """An audit asked why CC-TREE-EMPTY-FILE is among a refused row's codes (and the totals'
    refusal_codes) beside others. It is a refusal of its own (blocking, docs/refusals.md): an
    empty main transcript, agent .meta.json, run journal or manifest refuses its tree whatever
    else does, and `inspect --json` lists it with the others; the row says what `inspect` says.
    Only a row of no model call refused for nothing else is `empty`, out of refusal_codes."""
    project = tmp_path / "projects" / "-home-dev-app"
    shutil.copytree(FIXTURES / "synthetic_tree", project)
    parent = fixture_parent("synthetic_tree")
    transcript = project / parent.name
    folder = project / parent.stem
    if damage == "empty-parent-with-children":
        transcript.write_bytes(b"")
    else:
        next(folder.rglob("*.meta.json")).write_bytes(b"")
        (folder / "notes.txt").write_text("x")
    inspected = cli("inspect", "--json", "--in", str(transcript)).json()
    codes = sorted({r["code"] for r in inspected["refusals"]})
    assert "CC-TREE-EMPTY-FILE" in codes, codes
    assert len(codes) > 1, codes
    doc = cli("scan", str(tmp_path / "projects"), "--json", "--jobs", "1").json()
    [row] = doc["sessions"]
    assert (row["status"], row["refusals"]) == ("refused", codes)
    assert row["model_calls"] == inspected["counts"]["model_calls"]
    assert doc["totals"]["refusal_codes"] == dict.fromkeys(codes, 1)
    _sum_of_rows(doc)
