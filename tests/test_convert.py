"""convert --template / --contract (issue 3): binding, refusals, exact pricing, determinism."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from pathlib import Path
from typing import Any

import pytest

from converter.devtools.schemas import SCHEMAS, render
from converter.errors import CODES
from converter.pricing.card import unrecorded_else_standard
from tests.conftest import FIXTURES, ROOT, fixture_parent, shared_dir
from tests.contract_helpers import PRICES, fill, read_json, write_json
from tests.damage import rename_own_model


def _copy_tree(name: str, tmp: Path) -> Path:
    shutil.copytree(FIXTURES / name, tmp / name)
    return next((tmp / name).glob("*.jsonl"))


def _contract(cli: Any, parent: Path, tmp: Path, *extra: str) -> Path:
    template = tmp / "template.json"
    result = cli("convert", "--in", str(parent), "--template", str(template), *extra)
    assert result.code == 0, result.err
    contract = tmp / "contract.json"
    write_json(contract, fill(read_json(template)))
    return contract


def _carry(cli: Any, parent: Path, contract: Path, tmp: Path, *extra: str) -> Any:
    """`convert --template tmp/again.json --from-contract CONTRACT` over `parent`."""
    again = tmp / "again.json"
    return cli(
        "convert",
        "--in",
        str(parent),
        "--template",
        str(again),
        "--from-contract",
        str(contract),
        *extra,
    )


def _convert_edited(cli: Any, tmp: Path, edit: Any) -> Any:
    """Convert the synthetic tree with a filled contract that `edit` changed first."""
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp)
    data = read_json(contract)
    edit(data)
    write_json(contract, data)
    return _convert(cli, parent, contract, tmp / "b.json")


def _convert(cli: Any, parent: Path, contract: Path, out: Path, *extra: str) -> Any:
    return cli(
        "convert", "--in", str(parent), "--contract", str(contract), "--out", str(out), *extra
    )


def test_template_leaves_every_claim_null(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    assert (
        cli("convert", "--in", str(fixture_parent("rich_tree")), "--template", str(out)).code == 0
    )
    claims = read_json(out)["claims"]
    assert all(v is None for o in claims["outcomes"].values() for v in o.values())
    assert claims["policy"].pop("disabled_checks") == []  # optional: gates the user turns off
    assert all(v is None for v in claims["policy"].values())
    assert all(v is None for v in claims["baseline"].values())
    assert claims["pricing"]["unsplit_cache_write_rule"] is None
    tools = claims["pricing"]["client_tools"]
    assert tools["Read"] == "0"
    assert tools["Agent"] == "0"
    assert [v for k, v in tools.items() if k.startswith("tool-")] == [None]  # the MCP tool


@pytest.mark.parametrize("tree", ["synthetic_tree", "rich_tree"])
def test_filled_template_converts(tree: str, cli: Any, tmp_path: Path) -> None:
    parent = fixture_parent(tree)
    contract = _contract(cli, parent, tmp_path)
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 0, result.err
    bundle = read_json(tmp_path / "b.json")
    assert len(bundle["receipt"]["evidence_sha256"]) == 64


def test_null_claims_refuse_listing_every_problem(cli: Any, tmp_path: Path) -> None:
    parent = fixture_parent("synthetic_tree")
    template = tmp_path / "t.json"
    cli("convert", "--in", str(parent), "--template", str(template))
    out = tmp_path / "b.json"
    result = _convert(cli, parent, template, out)
    assert result.code == 2
    assert result.err.count("CONTRACT-CLAIM-NULL") >= 20  # policy 10 + baseline 4 + outcome 5 + 2
    assert "PRICE-" in result.err
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [template]
    # each code's fix is said once, on its first line (a new user: 58 lines, each with the fix)
    for code in ("CONTRACT-CLAIM-NULL", "PRICE-NULL"):
        assert result.err.count(CODES[code].fix) == 1, code
        first = next(line for line in result.err.splitlines() if f"refused: {code} " in line)
        assert first.endswith(" Fix: " + CODES[code].fix)


@pytest.mark.parametrize("suffix", [b"\n", b"x"])
def test_one_appended_byte_refuses(suffix: bytes, cli: Any, tmp_path: Path) -> None:
    parent = _copy_tree("synthetic_tree", tmp_path)
    contract = _contract(cli, parent, tmp_path)
    for bound in sorted(p for p in parent.parent.rglob("*") if p.is_file()):
        original = bound.read_bytes()
        bound.write_bytes(original + suffix)
        out = tmp_path / "b.json"
        result = _convert(cli, parent, contract, out)
        assert result.code == 2, bound.name
        if suffix == b"\n" and bound.suffix == ".jsonl":
            assert "CONTRACT-FILE-CHANGED" in result.err
        assert not out.exists()
        bound.write_bytes(original)
    assert _convert(cli, parent, contract, tmp_path / "b.json").code == 0


def test_another_key_refuses(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", "ab" * 32)
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    assert "CONTRACT-KEY-MISMATCH" in result.err


def _codes(err: str) -> list[str]:
    return [
        line.split()[1].rstrip(":") for line in err.splitlines() if line.startswith("refused: ")
    ]


def test_a_contract_for_another_session_is_one_refusal(cli: Any, tmp_path: Path) -> None:
    """Was: ~50 refusals (files added and removed, counts, tasks, outcomes, prices), most
    advising --from-contract, which cannot help: the contract belongs to another session."""
    contract = _contract(cli, fixture_parent("synthetic_tree"), tmp_path)
    out = tmp_path / "b.json"
    result = _convert(cli, fixture_parent("rich_tree"), contract, out)
    assert result.code == 2
    assert _codes(result.err) == ["CONTRACT-OTHER-SESSION"]
    assert "--from-contract" not in result.err
    assert str(tmp_path) not in result.err
    assert not out.exists()


def test_another_sessions_template_keeps_its_own_problems(cli: Any, tmp_path: Path) -> None:
    """Its null claims stand whichever session it is given with: listed after the one cause;
    nothing that compares it with these sources is."""
    template = tmp_path / "t.json"
    made = cli(
        "convert", "--in", str(fixture_parent("synthetic_tree")), "--template", str(template)
    )
    assert made.code == 0, made.err
    result = _convert(cli, fixture_parent("rich_tree"), template, tmp_path / "b.json")
    assert result.code == 2
    codes = _codes(result.err)
    assert codes[0] == "CONTRACT-OTHER-SESSION"
    assert codes.count("CONTRACT-OTHER-SESSION") == 1
    assert set(codes[1:]) == {"CONTRACT-CLAIM-NULL", "PRICE-NULL"}


def test_a_grown_session_is_not_another_session(cli: Any, tmp_path: Path) -> None:
    """The main transcript keeps its name (its keyed label) as the session grows: its changed
    bytes are CONTRACT-FILE-CHANGED, whose fix (--from-contract) is the right one."""
    parent = _copy_tree("synthetic_tree", tmp_path)
    contract = _contract(cli, parent, tmp_path)
    parent.write_bytes(parent.read_bytes() + b"\n")
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    assert "CONTRACT-FILE-CHANGED" in _codes(result.err)
    assert "CONTRACT-OTHER-SESSION" not in result.err


def test_a_session_that_went_on_is_told_one_fix_not_what_its_new_task_lacks(
    cli: Any, tmp_path: Path
) -> None:
    """A new user: a session that went on after its template was refused with 23 lines, among
    them 'add the task's outcome' and the new model's prices, which adding by hand does not
    mend. The changes are said, each with the one fix (--from-contract), and it works."""
    parent = _copy_tree("synthetic_tree", tmp_path)
    contract = _contract(cli, parent, tmp_path)
    lines = parent.read_bytes().splitlines(keepends=True)
    prompt, call = json.loads(lines[2]), json.loads(lines[8])
    prompt.update(uuid="0e5b2c1a-7d43-4c9e-9a61-2f8e0b6d5c11", parentUuid=call["uuid"])
    prompt.update(promptId="5d1e7f0a-3b2c-4d8e-9f60-1a2b3c4d5e6f")
    prompt["message"]["content"] = "a later prompt"
    call.update(uuid="7a9c3e21-5b4d-4f6a-8e0c-9d1b2a3c4e5f", parentUuid=prompt["uuid"])
    call["message"].update(id="msg_011LaterCallOfAnotherModel", model="claude-sonnet-4-6")
    call["requestId"] = "req_011LaterCallOfAnotherModel"
    grown = [json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in (prompt, call)]
    parent.write_bytes(b"".join([*lines, *grown]))
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    codes = set(_codes(result.err))
    assert "CONTRACT-FILE-CHANGED" in codes
    assert not codes & {"CONTRACT-OUTCOME-MISSING", "PRICE-MODEL-MISSING"}, codes
    carried = tmp_path / "carried.json"
    again = cli(
        "convert", "--in", str(parent), "--template", str(carried), "--from-contract", str(contract)
    )
    assert again.code == 0, again.err
    assert len(read_json(carried)["tasks"]) == 2


def test_a_changed_file_that_no_longer_reads_is_said_to_have_changed(
    cli: Any, tmp_path: Path
) -> None:
    """A fuzz hunt: a bound file changed since the template into one that fails to read was
    refused for the reading alone; that it changed (whose fix is another template) was not
    said (SPEC §7 reports every problem)."""
    parent = _copy_tree("synthetic_tree", tmp_path)
    contract = _contract(cli, parent, tmp_path)
    lines = parent.read_bytes().splitlines(keepends=True)
    parent.write_bytes(b"".join([*lines[:3], b"[1, 2]\n", *lines[3:]]))
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    codes = _codes(result.err)
    assert {"CC-LINE-NOT-OBJECT", "CONTRACT-FILE-CHANGED"} <= set(codes), codes


def test_a_changed_file_beside_a_stray_file_is_said_to_have_changed(
    cli: Any, tmp_path: Path
) -> None:
    """A robustness audit: a parent that grew since the template (a line that does not read),
    beside a stray file in the session's folder, was refused for the line and the stray file
    alone: that it changed was said only on the next run. A tree not laid out as a whole says
    no file added or removed, but a listed file with other bytes has changed."""
    parent = _copy_tree("synthetic_tree", tmp_path)
    contract = _contract(cli, parent, tmp_path)
    parent.write_bytes(parent.read_bytes() + b"[1]\n")
    (parent.parent / parent.stem / "stray.txt").write_bytes(b"x")
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    codes = _codes(result.err)
    assert {"CC-TREE-STRAY-FILE", "CC-LINE-NOT-OBJECT", "CONTRACT-FILE-CHANGED"} <= set(codes)
    assert not {"CONTRACT-FILE-ADDED", "CONTRACT-FILE-REMOVED"} & set(codes), codes


def test_another_sessions_tree_that_does_not_read_is_another_session(
    cli: Any, tmp_path: Path
) -> None:
    """A review: a contract given another session's tree that fails to read listed its files
    as added and removed, with the fix to carry the claims forward (another session's)."""
    contract = _contract(cli, _copy_tree("synthetic_tree", tmp_path), tmp_path)
    other = _copy_tree("rich_tree", tmp_path / "other")
    other.write_bytes(other.read_bytes() + b"[1]\n")
    result = _convert(cli, other, contract, tmp_path / "b.json")
    assert result.code == 2
    codes = _codes(result.err)
    assert "CONTRACT-OTHER-SESSION" in codes, codes
    assert not {"CONTRACT-FILE-ADDED", "CONTRACT-FILE-REMOVED"} & set(codes), codes


def test_a_bundle_with_a_call_of_no_input_evaluates_incomplete(cli: Any, tmp_path: Path) -> None:
    """An audit: a usage-incomplete call that recorded no input has no high cost; cost gates
    that met their limits at the interval's high end gave SCALE (a corpus tree, exit 0)."""
    parent = _copy_tree("synthetic_tree", tmp_path)
    lines = parent.read_bytes().splitlines(keepends=True)
    last = json.loads(lines[8])  # A2, the last call: now a stub the session never finished
    last["message"]["stop_reason"] = None
    last["message"]["usage"] = {"input_tokens": 0, "output_tokens": 3}
    lines[8] = json.dumps(last).encode() + b"\n"
    parent.write_bytes(b"".join(lines))
    bundle = tmp_path / "b.json"
    assert _convert(cli, parent, _contract(cli, parent, tmp_path), bundle).code == 0
    result = cli("evaluate", "--bundle", str(bundle), "--format", "json")
    report = json.loads(result.out)
    assert (report["decision"], result.code) == ("INCOMPLETE", 2)
    assert {r["code"] for r in report["reasons"]} == {"EVAL-COST-UNBOUNDED"}
    # The splits say which model's and agent type's cost holds it (an audit: the JSON's rows
    # and the report's per-model and per-agent-type cells read as bounded).
    metrics = report["metrics"]
    assert metrics["unbounded_by_model"] == {last["message"]["model"]: 1}
    assert sum(metrics["unbounded_by_agent_type"].values()) == 1
    (task,) = [t for t in report["tasks"] if t["unbounded_calls"]]
    assert task["unbounded_by_model"] == metrics["unbounded_by_model"]
    assert task["unbounded_by_agent_type"] == metrics["unbounded_by_agent_type"]
    markdown = cli("evaluate", "--bundle", str(bundle), "--format", "markdown").out
    model_row = next(
        x for x in markdown.splitlines() if x.startswith(f"| `{last['message']['model']}`")
    )
    assert model_row.endswith("– no bound |"), model_row
    (agent,) = metrics["unbounded_by_agent_type"]
    header = next(x for x in markdown.splitlines() if x.startswith("| Task |"))
    columns = [c.strip().strip("`") for c in header.strip("|").split("|")]
    row = next(x for x in markdown.splitlines() if x.startswith(f"| `{task['id']}`"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    unbounded = {c for c, cell in zip(columns, cells, strict=True) if "no bound" in cell}
    assert unbounded == {agent, "Effective"}, (header, row)
    # an audit: rows shown at 4 places did not add up to the **all** row shown; the report says so
    assert "the **all** row is the exact sum, rounded once" in markdown


def test_a_task_spend_of_29_digits_reaches_the_gates_whole(cli: Any, tmp_path: Path) -> None:
    """A review: evaluate summed a task's event costs in Python's default 28 digits; a spend of
    more digits (a contract price may hold 30 each side of the point) was rounded and passed a
    trace-cost limit just under it (SCALE, exit 0) that it fails."""
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    data = read_json(contract)
    big = "1" + "0" * 24  # per million tokens: $1e18 a token, and $1e-10 more
    for entry in data["claims"]["pricing"]["models"].values():
        for tier in entry["tiers"]:
            tier.update(input=big + ".0001", output="0", cache_read="0")
            tier.update(cache_write_5m="0", cache_write_1h="0")
    data["claims"]["pricing"]["price_card"] = None
    write_json(contract, data)
    bundle = tmp_path / "b.json"
    assert _convert(cli, parent, contract, bundle).code == 0
    events = [e for e in read_json(bundle)["events"] if e.get("kind") == "model"]
    with localcontext(prec=200):
        exact = sum((Decimal(e["cost"]["low"]) for e in events), Decimal(0))
    assert exact.adjusted() + 11 > 28  # more digits than the default context keeps
    policy = data["claims"]["policy"]
    policy["max_trace_cost_per_task_usd"] = str(exact.quantize(Decimal(1)) - 1)  # just under
    huge = "9" * 30  # the most a contract amount may be
    policy["max_p95_task_cost_usd"] = policy["max_cost_per_acceptable_outcome_usd"] = huge
    policy["min_expected_net_value_per_attempt_usd"] = "-" + huge
    policy["min_incremental_net_value_vs_baseline_usd"] = "-" + huge
    write_json(contract, data)
    bundle = tmp_path / "b2.json"
    assert _convert(cli, parent, contract, bundle).code == 0
    result = cli("evaluate", "--bundle", str(bundle), "--format", "json")
    report = json.loads(result.out)
    [task] = report["tasks"]
    assert Decimal(task["spend"]["low"]) == exact
    runtime = next(g for g in report["gates"] if g["check"]["id"] == "runtime-caps")
    assert runtime["status"] == "fail", runtime


def test_a_renamed_copy_is_not_another_session(cli: Any, tmp_path: Path) -> None:
    """The same bytes under another name (a single file, `--from claude-code`) are this
    session's main transcript, found by digest: not CONTRACT-OTHER-SESSION. Its label differs,
    so it was said added and the old one removed, and the inventory's digest mismatched (a
    determinism audit: a browser's `excerpt (1).jsonl` told to make a new template): it is one
    file renamed, at its bound label, and nothing else; --show-paths alone names where it lies."""
    from tests.test_layouts import _parent  # one prompt, one call: no children

    (tmp_path / "session").mkdir()
    parent = _parent(tmp_path / "session").rename(tmp_path / "session" / "excerpt.jsonl")
    single = ("--from", "claude-code")
    contract = _contract(cli, parent, tmp_path, *single)
    copy = tmp_path / "copy" / "excerpt (1).jsonl"
    copy.parent.mkdir()
    copy.write_bytes(parent.read_bytes())
    result = _convert(cli, copy, contract, tmp_path / "b.json", *single)
    assert result.code == 2
    bound = read_json(contract)["inventory"]["files"][0]["label"]
    refused = [line for line in result.err.splitlines() if line.startswith("refused: ")]
    assert len(refused) == 1, result.err
    assert refused[0].startswith(f"refused: CONTRACT-FILE-RENAMED [inventory/files/{bound}]: ")
    assert "excerpt" not in result.err  # no file name without --show-paths
    shown = _convert(cli, copy, contract, tmp_path / "b.json", *single, "--show-paths")
    assert f"[inventory/files/{bound}] (excerpt (1).jsonl): " in shown.err
    assert not (tmp_path / "b.json").exists()
    # Under its own name again, it converts; a new template made for the new name does too.
    assert _convert(cli, parent, contract, tmp_path / "b.json", *single).code == 0
    assert _carry(cli, copy, contract, tmp_path, *single).code == 0


def _rename_child(parent: Path, *, change: bool = False) -> None:
    """Give the synthetic tree's one subagent (its transcript and meta) another valid agent
    id; with `change`, a byte of its transcript changed too."""
    folder = parent.parent / parent.stem / "subagents"
    for old in sorted(folder.glob("agent-a3088bfe7965a5c04.*")):
        old.rename(folder / old.name.replace("c04.", "c05."))
    if change:
        child = folder / "agent-a3088bfe7965a5c05.jsonl"
        child.write_bytes(child.read_bytes().replace(b"retry paths", b"retry pathz", 1))


def test_a_renamed_subagent_is_renamed_and_still_refused_by_the_reader(
    cli: Any, tmp_path: Path
) -> None:
    """A subagent's files renamed to another valid agent id: its records still name the id it
    was converted under, so the tree no longer reads (CC-TREE-JOIN-CONFLICT, kept: the reader
    does not take it for the same agent), and each file, the same bytes, is said renamed, not
    added and removed. Renamed and changed, the transcript is added and removed; its
    meta, the same bytes, renamed."""
    parent = _copy_tree("synthetic_tree", tmp_path)
    contract = _contract(cli, parent, tmp_path)
    _rename_child(parent)
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    codes = _codes(result.err)
    assert sorted(codes) == ["CC-TREE-JOIN-CONFLICT", *["CONTRACT-FILE-RENAMED"] * 2], codes
    assert "a3088bfe7965a5c0" not in result.err  # the agent ids of the file names
    other = _copy_tree("synthetic_tree", tmp_path / "other")
    _rename_child(other, change=True)
    changed = _codes(_convert(cli, other, contract, tmp_path / "b.json").err)
    assert sorted(c for c in changed if c.startswith("CONTRACT-")) == [
        "CONTRACT-FILE-ADDED",
        "CONTRACT-FILE-REMOVED",
        "CONTRACT-FILE-RENAMED",
    ], changed


def test_copies_of_one_file_renamed_are_not_paired() -> None:
    """Two bound files and two new ones of one role, size and SHA-256: which was renamed to
    which cannot be told, so none is said renamed (they stay added and removed); a pair
    alone beside them is."""
    from converter.contract.validate import file_differences
    from converter.firewall.view import BoundFile

    def bound(label: str, sha: str, role: str = "subagent") -> BoundFile:
        return BoundFile(role=role, label=f"file-{label * 12}", size=3, sha256=sha * 64)

    was = [bound("a", "1"), bound("b", "1"), bound("c", "2"), bound("d", "3", "meta")]
    now = [bound("e", "1"), bound("f", "1"), bound("9", "2"), bound("8", "3")]
    found = file_differences({f.label: f for f in was}, {f.label: f for f in now})
    said = [(p.code, (p.where or "")[-1]) for p in found]
    assert said == [
        ("CONTRACT-FILE-RENAMED", "c"),
        ("CONTRACT-FILE-ADDED", "8"),  # another role: not the meta's rename
        ("CONTRACT-FILE-ADDED", "e"),
        ("CONTRACT-FILE-ADDED", "f"),
        ("CONTRACT-FILE-REMOVED", "a"),
        ("CONTRACT-FILE-REMOVED", "b"),
        ("CONTRACT-FILE-REMOVED", "d"),
    ]


def test_an_excluded_tasks_nulls_stay_unsaid_beside_a_misshapen_outcome(
    cli: Any, tmp_path: Path
) -> None:
    """An excluded task keeps the template's null outcome: no CONTRACT-CLAIM-NULL for it, also
    when another outcome's shape error leaves the outcomes to be read field by field."""
    parent = fixture_parent("rich_tree")
    contract = _contract(cli, parent, tmp_path)
    data = read_json(contract)
    idle = next(t["id"] for t in data["tasks"] if t["model_calls"] == 0)
    busy = next(t["id"] for t in data["tasks"] if t["model_calls"] > 0)
    outcomes = data["claims"]["outcomes"]
    outcomes[idle] = dict.fromkeys(outcomes[idle])  # as the template left it
    data["claims"]["excluded_tasks"][idle] = "aborted"
    outcomes[busy]["human_minutes"] = "a while"
    write_json(contract, data)
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    assert busy in result.err  # the misshapen outcome is said
    assert "CONTRACT-CLAIM-NULL" not in result.err


def test_convert_says_how_many_of_the_tasks_are_excluded(cli: Any, tmp_path: Path) -> None:
    """A walkthrough: `wrote bundle: 3 tasks` beside evaluate's `2 tasks, 1 excluded` of the
    same bundle read as a miscount; so did `3 tasks (1 excluded by the contract)`: both count
    as evaluate does."""
    parent = fixture_parent("rich_tree")
    contract = _contract(cli, parent, tmp_path)
    data = read_json(contract)
    idle = next(t["id"] for t in data["tasks"] if t["model_calls"] == 0)
    data["claims"]["outcomes"][idle] = dict.fromkeys(data["claims"]["outcomes"][idle])
    data["claims"]["excluded_tasks"][idle] = "aborted"
    write_json(contract, data)
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 0, result.err
    tasks = len(data["tasks"])
    assert f"wrote bundle: {tasks - 1} tasks, 1 excluded by the contract, " in result.out
    evaluated = cli("evaluate", "--bundle", str(tmp_path / "b.json"))
    assert f" — {tasks - 1} tasks, 1 excluded" in evaluated.out
    (tmp_path / "p").mkdir()
    plain = _convert(cli, parent, _contract(cli, parent, tmp_path / "p"), tmp_path / "p.json")
    assert f"wrote bundle: {tasks} tasks, " in plain.out


def test_convert_counts_every_excluded_task(cli: Any, tmp_path: Path) -> None:
    """The excluded count is the number of tasks the contract excludes, not whether it
    excludes any: two excluded say 2 (evaluate's `N tasks, 2 excluded` beside it)."""
    parent = fixture_parent("rich_tree")
    contract = _contract(cli, parent, tmp_path)
    data = read_json(contract)
    chosen = [t["id"] for t in data["tasks"] if t["model_calls"] == 0][:2]  # excludable
    assert len(chosen) == 2
    for task_id in chosen:
        data["claims"]["outcomes"][task_id] = dict.fromkeys(data["claims"]["outcomes"][task_id])
        data["claims"]["excluded_tasks"][task_id] = "aborted"
    write_json(contract, data)
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 0, result.err
    assert f"wrote bundle: {len(data['tasks']) - 2} tasks, 2 excluded by the contract, " in (
        result.out
    )


def test_a_bundle_given_as_a_contract_is_named(cli: Any, tmp_path: Path) -> None:
    """Was: a CONTRACT-SHAPE line for every field ("expected: no such field"). A bundle is
    what convert --contract writes; the refusal says to give its contract instead."""
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    bundle = tmp_path / "b.json"
    assert _convert(cli, parent, contract, bundle).code == 0
    out = tmp_path / "again.json"
    runs = {
        "--contract": _convert(cli, parent, bundle, out),
        "--from-contract": cli(
            "convert", "--in", str(parent), "--template", str(out), "--from-contract", str(bundle)
        ),
        "verify": cli(
            "verify", "--bundle", str(bundle), "--contract", str(bundle), "--in", str(parent)
        ),
    }
    for name, result in runs.items():
        assert result.code == 2, name
        assert _codes(result.err) == ["CONTRACT-IS-A-BUNDLE"], name
    assert not out.exists()


def test_a_transcript_given_as_a_contract_is_named(cli: Any, tmp_path: Path) -> None:
    """A walkthrough: `--in contract.json --contract SESSION.jsonl` (swapped) was told to mend
    a syntax error at line 2 of the session file (CONTRACT-UNREADABLE)."""
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    out = tmp_path / "b.json"
    for result in (
        _convert(cli, contract, parent, out),
        _convert(cli, parent, parent, out),
        cli("convert", "--in", str(parent), "--template", str(out), "--from-contract", str(parent)),
        cli("convert", "--in", str(parent), "--template", str(out), "--policy", str(parent)),
    ):
        assert result.code == 2
        assert "CONTRACT-IS-A-TRANSCRIPT" in _codes(result.err)
        assert "CONTRACT-UNREADABLE" not in result.err
    assert not out.exists()


def test_a_policy_file_given_as_a_contract_is_named(cli: Any, tmp_path: Path) -> None:
    """Was: ten CONTRACT-SHAPE lines (seven fields missing, then `<key #1>` to `<key #3>`
    "no such field": the file's own sections, masked). The team's --policy file is what a
    template is made with; the refusal says so, once, for --contract and --from-contract."""
    parent = fixture_parent("synthetic_tree")
    team = tmp_path / "team.json"
    team.write_bytes((ROOT / "contracts" / "examples" / "policy-and-baseline.json").read_bytes())
    out = tmp_path / "out.json"
    runs = {
        "--contract": _convert(cli, parent, team, out),
        "--from-contract": cli(
            "convert", "--in", str(parent), "--template", str(out), "--from-contract", str(team)
        ),
    }
    for name, result in runs.items():
        assert result.code == 2, name
        assert _codes(result.err) == ["CONTRACT-IS-A-POLICY-FILE"], name
        assert "--policy FILE" in result.err, name
    assert not out.exists()
    # A contract with its own fields gone is still read as a contract, field by field.
    team.write_bytes(b'{"policy": {}, "tasks": []}')
    assert "CONTRACT-IS-A-POLICY-FILE" not in _codes(_convert(cli, parent, team, out).err)


def test_task_set_mismatch_and_bad_exclusion(cli: Any, tmp_path: Path) -> None:
    parent = fixture_parent("rich_tree")
    contract = _contract(cli, parent, tmp_path)
    data = read_json(contract)
    first, second = list(data["claims"]["outcomes"])[:2]
    del data["claims"]["outcomes"][first]
    data["claims"]["excluded_tasks"] = {second: None, "task-000000000000": "duplicate"}
    write_json(contract, data)
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    for code in (
        "CONTRACT-OUTCOME-MISSING",
        "CONTRACT-EXCLUSION-REASON",
        "CONTRACT-OUTCOME-UNKNOWN-TASK",
        "CONTRACT-EXCLUDED-AND-LABELLED",
    ):
        assert code in result.err, code
    # where: under which claim the unknown id sits
    assert "CONTRACT-OUTCOME-UNKNOWN-TASK [claims/excluded_tasks/task-000000000000]" in result.err


@pytest.mark.parametrize("reason", ["boring", 3, ["duplicate"]])
def test_an_exclusion_reason_not_of_the_three_is_said_so(
    cli: Any, tmp_path: Path, reason: Any
) -> None:
    """An audit: a reason outside the fixed set (SPEC §5.1) was a CONTRACT-SHAPE error, while
    CONTRACT-EXCLUSION-REASON, "no valid reason", was said of a null reason only."""

    def edit(data: Any) -> None:
        task = next(iter(data["claims"]["outcomes"]))
        data["claims"]["excluded_tasks"] = {task: reason}

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    assert "CONTRACT-EXCLUSION-REASON [claims/excluded_tasks/task-" in result.err
    assert "CONTRACT-SHAPE" not in result.err


@pytest.mark.parametrize("bad", ['"-1"', "-1", "NaN", "Infinity", '"ten"', "true"])
def test_negative_nonfinite_or_mistyped_numbers_refuse(bad: str, cli: Any, tmp_path: Path) -> None:
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    text = contract.read_text().replace(
        '"human_hourly_cost_usd": "90"', f'"human_hourly_cost_usd": {bad}'
    )
    contract.write_text(text)
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    assert "CONTRACT-" in result.err
    assert "Traceback" not in result.err
    assert not (tmp_path / "b.json").exists()


def test_json_number_literal_is_read_exactly(cli: Any, tmp_path: Path) -> None:
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    text = contract.read_text().replace(
        '"human_hourly_cost_usd": "90"', '"human_hourly_cost_usd": 90.10000000000000000001'
    )
    contract.write_text(text)
    assert _convert(cli, parent, contract, tmp_path / "b.json").code == 0
    policy = read_json(tmp_path / "b.json")["policy"]
    assert policy["human_hourly_cost_usd"] == "90.10000000000000000001"


def test_costs_recompute_by_hand(cli: Any, tmp_path: Path) -> None:
    parent = fixture_parent("rich_tree")
    contract = _contract(cli, parent, tmp_path)
    assert _convert(cli, parent, contract, tmp_path / "b.json").code == 0
    bundle = read_json(tmp_path / "b.json")
    rate = {k: Decimal(v) for k, v in PRICES.items()}
    for event in bundle["events"]:
        if event["kind"] != "model":
            assert Decimal(event["cost"]["low"]) == Decimal("0.001") or event["name"] in (
                "Read",
                "Grep",
                "Agent",
                "Workflow",
                "WebSearch",
                "Bash",
                "Glob",
                "Write",
                "Edit",
            )
            continue
        u = event["usage"]
        low = (
            u["input_tokens"] * rate["input"]
            + u["output_tokens"] * rate["output"]
            + u["cache_read_input_tokens"] * rate["cache_read"]
            + u["cache_creation_5m_input_tokens"] * rate["cache_write_5m"]
            + (u["cache_creation_1h_input_tokens"] + u["cache_creation_unsplit_input_tokens"])
            * rate["cache_write_1h"]
        ) / Decimal(1_000_000) + u["web_search_requests"] * Decimal("0.01")
        assert Decimal(event["cost"]["low"]) == low.quantize(Decimal("1E-10"), ROUND_HALF_EVEN)
        if event["usage_complete"]:
            assert event["cost"]["high"] == event["cost"]["low"]
        else:
            high = low + (64000 - u["output_tokens"]) * rate["output"] / Decimal(1_000_000)
            assert Decimal(event["cost"]["high"]) == high.quantize(
                Decimal("1E-10"), ROUND_HALF_EVEN
            )


def test_no_float_in_any_artifact(cli: Any, tmp_path: Path) -> None:
    parent = fixture_parent("rich_tree")
    contract = _contract(cli, parent, tmp_path)
    assert _convert(cli, parent, contract, tmp_path / "b.json").code == 0
    for name in ("template.json", "contract.json", "b.json"):
        read_json(tmp_path / name)  # raises on any float


def test_byte_identical_across_runs_and_hash_seeds(cli: Any, tmp_path: Path) -> None:
    parent = fixture_parent("rich_tree")
    contract = _contract(cli, parent, tmp_path)
    outputs = []
    for seed in ("0", "1", "12345"):
        out = tmp_path / f"b{seed}.json"
        env = dict(os.environ, PYTHONHASHSEED=seed)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "converter",
                "convert",
                "--in",
                str(parent),
                "--contract",
                str(contract),
                "--out",
                str(out),
            ],
            check=True,
            env=env,
            capture_output=True,
        )
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]


def test_carry_forward_keeps_claims(cli: Any, tmp_path: Path) -> None:
    parent = fixture_parent("rich_tree")
    contract = _contract(cli, parent, tmp_path)
    result = _carry(cli, parent, contract, tmp_path)
    assert result.code == 0, result.err
    assert "0 tasks dropped, 0 new tasks" in result.out
    assert read_json(tmp_path / "again.json")["claims"] == read_json(contract)["claims"]


def test_output_equal_to_input_refuses(cli: Any, tmp_path: Path) -> None:
    parent = _copy_tree("synthetic_tree", tmp_path)
    before = parent.read_bytes()
    result = cli("convert", "--in", str(parent), "--template", str(parent))
    assert result.code == 2
    assert "OUT-SAME-AS-INPUT" in result.err
    assert parent.read_bytes() == before


def test_single_file_source_refuses_delegation(cli: Any, tmp_path: Path) -> None:
    result = cli(
        "convert",
        "--from",
        "claude-code",
        "--in",
        str(fixture_parent("synthetic_tree")),
        "--template",
        str(tmp_path / "t.json"),
    )
    assert result.code == 2
    assert "CC-TREE-DELEGATION-IN-SINGLE-FILE" in result.err
    assert "line 7]" in result.err  # the Agent tool_use fragment, not the call's first fragment
    assert not (tmp_path / "t.json").exists()


def test_exactly_one_phase_is_a_usage_error(cli: Any) -> None:
    result = cli("convert", "--in", str(fixture_parent("synthetic_tree")))
    assert result.code == 64


@pytest.mark.parametrize(
    ("mode", "extra", "named"),
    [
        ("--contract", ["--timestamps", "day"], "--timestamps"),
        ("--contract", ["--price-card", "anthropic-2026-11"], "--price-card"),
        ("--contract", ["--from-contract", "old.json"], "--from-contract"),
        ("--contract", ["--force"], "--force"),
        ("--template", ["--attest-key", "k.pem"], "--attest-key"),
        ("--template", ["--out", "b.json"], "--out"),
    ],
)
def test_an_option_the_mode_would_ignore_is_a_usage_error(
    mode: str, extra: list[str], named: str, cli: Any, tmp_path: Path
) -> None:
    """Never dropped in silence: `--timestamps day` on a bundle would have kept exact times."""
    args = ["convert", "--in", str(fixture_parent("synthetic_tree")), mode, str(tmp_path / "x")]
    if mode == "--contract" and "--out" not in extra:
        args += ["--out", str(tmp_path / "b.json")]
    result = cli(*args, *extra)
    assert result.code == 64
    assert named in result.err
    assert not any(tmp_path.iterdir())


def test_schemas_are_current() -> None:
    for name, (model, mode) in SCHEMAS.items():
        assert (ROOT / "contracts" / name).read_text() == render(model, mode), "run `make schemas`"


SHARED = shared_dir()


@pytest.mark.skipif(SHARED is None, reason="shared corpus not present")
def test_convertible_corpus_trees_round_trip(cli: Any, tmp_path: Path) -> None:
    assert SHARED is not None
    parents = sorted((SHARED / "corpus" / "real").rglob("*.jsonl"))
    done = 0
    for parent in parents:
        if "/subagents/" in str(parent) or parent.name == "journal.jsonl":
            continue
        inspected = cli("inspect", "--json", "--in", str(parent))
        if inspected.code != 0:
            continue
        work = tmp_path / f"t{done}"
        work.mkdir()
        contract = _contract(cli, parent, work)
        text = contract.read_text()
        assert parent.stem not in text
        result = _convert(cli, parent, contract, work / "b.json")
        assert result.code == 0, (parent.name, result.err)
        single = cli(
            "convert",
            "--from",
            "claude-code",
            "--in",
            str(parent),
            "--template",
            str(work / "s.json"),
        )
        # One file alone: refused only when the session delegates (its subagents' spend would
        # be missing), never for anything else.
        if inspected.json()["counts"]["subagents"]:
            assert single.code == 2, (parent.name, single.err)
            codes = {line.split()[1].rstrip(":") for line in single.err.splitlines()}
            assert codes, single.err
            assert codes <= {"CC-TREE-CHILDREN-NOT-READ", "CC-TREE-DELEGATION-IN-SINGLE-FILE"}
        else:
            assert single.code == 0, (parent.name, single.err)
        done += 1
    assert done >= 14


def test_template_never_replaces_a_file_without_force(cli: Any, tmp_path: Path) -> None:
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    filled = contract.read_bytes()
    result = cli("convert", "--in", str(parent), "--template", str(contract))
    assert result.code == 2
    assert "OUT-EXISTS" in result.err
    assert contract.read_bytes() == filled
    # Labels --force would throw away are kept (a walkthrough lost every outcome, told only
    # "fill its 6 null claims"): --from-contract with the same file carries them.
    forced = cli("convert", "--in", str(parent), "--template", str(contract), "--force")
    assert forced.code == 2
    assert "OUT-FILLED-CONTRACT" in forced.err
    assert contract.read_bytes() == filled
    again = ("convert", "--in", str(parent), "--template", str(contract))
    remade = cli(*again, "--from-contract", str(contract), "--force")
    assert remade.code == 0, remade.err
    assert read_json(contract)["claims"]["outcomes"] == json.loads(filled)["claims"]["outcomes"]
    # ... which, unforced, is told to pass --force (a walkthrough: OUT-SAME-AS-INPUT, whose
    # fix was to write a new file, and --force did not help)
    unforced = cli(*again, "--from-contract", str(contract))
    assert [line.split()[1].rstrip(":") for line in unforced.err.splitlines()] == ["OUT-EXISTS"]
    # A template with nothing labelled is replaced when forced.
    blank = tmp_path / "blank.json"
    assert cli(*again[:4], str(blank)).code == 0
    assert cli("convert", "--in", str(parent), "--template", str(blank), "--force").code == 0


def test_timestamps_option_overrides_a_carried_contract(cli: Any, tmp_path: Path) -> None:
    parent = fixture_parent("rich_tree")
    contract = _contract(cli, parent, tmp_path)
    again = tmp_path / "again.json"
    assert _carry(cli, parent, contract, tmp_path, "--timestamps", "hour").code == 0
    carried = read_json(again)
    assert carried["claims"]["privacy"]["timestamps"] == "hour"
    assert all(t["started_at"].endswith(":00:00Z") for t in carried["tasks"] if t["started_at"])
    out = tmp_path / "b.json"
    assert _convert(cli, parent, again, out).code == 0
    stamps = [e["timestamp"] for e in read_json(out)["events"] if e.get("timestamp")]
    assert stamps
    assert all(s.endswith(":00:00Z") for s in stamps)


def _signed(cli: Any, tmp_path: Path, name: str) -> tuple[Path, Path, Path, Path]:
    """Convert the synthetic tree signed: (parent, contract, signing key, bundle named `name`)."""
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    key = tmp_path / "k.pem"
    assert cli("keygen", "--out", str(key)).code == 0
    out = tmp_path / name
    assert _convert(cli, parent, contract, out, "--attest-key", str(key)).code == 0
    return parent, contract, key, out


def test_reconverting_without_a_key_removes_the_old_attestation(cli: Any, tmp_path: Path) -> None:
    """An attestation beside a replaced bundle signs its old bytes: it goes. The very same bytes
    written again keep it (was: removed, a valid signature lost)."""
    parent, contract, key, out = _signed(cli, tmp_path, "b.json")
    envelope = tmp_path / "b.json.intoto.json"
    assert envelope.exists()
    signed_again = _convert(cli, parent, contract, out, "--attest-key", str(key))
    assert "signed: the attestation is beside the bundle" in signed_again.out
    # the subject it signs, to publish (an attest audit: only the evidence digest was printed)
    import hashlib

    subject = hashlib.sha256(out.read_bytes()).hexdigest()
    assert f"  its subject: bundle.json, sha256 {subject}" in signed_again.out
    again = _convert(cli, parent, contract, out)
    assert again.code == 0
    assert envelope.exists()
    verified = cli("verify", "--bundle", str(out), "--public-key", f"{key}.pub")
    assert verified.code == 0, verified.err
    data = read_json(contract)
    data["claims"]["outcome_contract"]["rubric_version"] = "r2"  # other bytes
    write_json(contract, data)
    again = _convert(cli, parent, contract, out)
    assert again.code == 0
    assert not envelope.exists()
    assert "removed the attestation" in again.out


def test_the_removed_attestation_is_said_to_sign_what_was_there(cli: Any, tmp_path: Path) -> None:
    """Removing a stale attestation says what it signed: the replaced bundle's old bytes when
    a bundle was at --out, and no bundle written here when the attestation was there alone."""
    parent, contract, _, out = _signed(cli, tmp_path, "b.json")
    envelope = tmp_path / "b.json.intoto.json"
    data = read_json(contract)
    data["claims"]["outcome_contract"]["rubric_version"] = "r2"  # other bytes
    write_json(contract, data)
    replaced = _convert(cli, parent, contract, out)
    assert replaced.code == 0, replaced.err
    assert "it signed the replaced bundle's old bytes;" in replaced.out
    assert not envelope.exists()
    (tmp_path / "alone").mkdir()
    _, _, _, alone = _signed(cli, tmp_path / "alone", "a.json")
    alone.unlink()  # the attestation is left without its bundle
    written = _convert(cli, parent, contract, alone)
    assert written.code == 0, written.err
    assert "it signed no bundle written here;" in written.out
    assert not (tmp_path / "alone" / "a.json.intoto.json").exists()


def test_signing_a_new_bundle_over_an_old_attestation_keeps_the_new_one(
    cli: Any, tmp_path: Path
) -> None:
    """Signing again after the bundle's bytes changed: the old attestation beside it signs
    other bytes, but it is replaced by the new one, never removed with the write (which would
    take the new attestation with it)."""
    parent, contract, key, out = _signed(cli, tmp_path, "b.json")
    envelope = tmp_path / "b.json.intoto.json"
    old = envelope.read_bytes()
    data = read_json(contract)
    data["claims"]["outcome_contract"]["rubric_version"] = "r2"  # other bytes
    write_json(contract, data)
    signed = _convert(cli, parent, contract, out, "--attest-key", str(key))
    assert signed.code == 0, signed.err
    assert "removed the attestation" not in signed.out
    assert envelope.exists()
    assert envelope.read_bytes() != old
    verified = cli("verify", "--bundle", str(out), "--public-key", f"{key}.pub")
    assert verified.code == 0, verified.err


def test_an_attestation_is_kept_only_if_it_names_the_bytes_written(
    cli: Any, tmp_path: Path
) -> None:
    """Was (review): the old bundle file equal to the new bytes was taken as proof, though the
    attestation beside it had been made for another bundle copied over it."""
    parent, contract, _, out = _signed(cli, tmp_path, "a.json")
    envelope = tmp_path / "a.json.intoto.json"
    data = read_json(contract)
    data["claims"]["outcome_contract"]["rubric_version"] = "r2"
    other_contract = tmp_path / "other.json"
    write_json(other_contract, data)
    other = tmp_path / "b.json"
    assert _convert(cli, parent, other_contract, other).code == 0
    out.write_bytes(other.read_bytes())  # the very bytes the next run writes, a stale envelope
    again = _convert(cli, parent, other_contract, out)
    assert again.code == 0
    assert not envelope.exists()


def test_a_bundle_or_report_never_replaces_a_contract(cli: Any, tmp_path: Path) -> None:
    """Was: `--out` or `--report` naming a filled contract replaced it (only --template
    refused); a report also replaced a bundle."""
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    other = tmp_path / "other-contract.json"
    other.write_bytes(contract.read_bytes())
    result = _convert(cli, parent, contract, other)
    assert result.code == 2
    assert "OUT-REPLACES-EVIDENCE" in result.err
    assert other.read_bytes() == contract.read_bytes()
    bundle = tmp_path / "b.json"
    assert _convert(cli, parent, contract, bundle).code == 0
    assert _convert(cli, parent, contract, bundle).code == 0  # a bundle replaces a bundle
    copy = tmp_path / "copy.json"
    copy.write_bytes(bundle.read_bytes())
    for target in (other, copy):
        before = target.read_bytes()
        result = cli("evaluate", "--bundle", str(bundle), "--report", str(target))
        assert result.code == 2
        assert "OUT-REPLACES-EVIDENCE" in result.err
        assert target.read_bytes() == before
    template = cli(
        "convert",
        "--in",
        str(parent),
        "--template",
        str(other),
        "--force",
        "--from-contract",
        str(other),
    )
    assert template.code == 0, template.err  # a template replaces a contract only when forced
    signed_bundle = tmp_path / "s.json"
    key = tmp_path / "k.pem"
    assert cli("keygen", "--out", str(key)).code == 0
    made = _convert(cli, parent, contract, signed_bundle, "--attest-key", str(key))
    assert made.code == 0, made.err
    envelope = tmp_path / "s.json.intoto.json"
    transcript = tmp_path / "session.jsonl"
    transcript.write_text('{"type":"user"}\n')
    for target in (envelope, transcript):  # was: replaced by a report or a bundle, exit 0
        before = target.read_bytes()
        for args in (
            ["evaluate", "--bundle", str(bundle), "--report", str(target)],
            ["convert", "--in", str(parent), "--contract", str(contract), "--out", str(target)],
        ):
            result = cli(*args)
            assert result.code == 2, (args, result.err)
            assert "OUT-REPLACES-EVIDENCE" in result.err
            assert target.read_bytes() == before
    again = _convert(cli, parent, contract, signed_bundle, "--attest-key", str(key))
    assert again.code == 0, again.err  # its own attestation, made again
    spaced = tmp_path / "spaced.json"  # valid JSON too: space before the colon
    spaced.write_text(contract.read_text().replace('"schema_version":', '"schema_version" :'))
    result = cli("evaluate", "--bundle", str(bundle), "--report", str(spaced))
    assert "OUT-REPLACES-EVIDENCE" in result.err


def test_an_output_never_replaces_the_teams_policy_file_or_a_price_card(
    cli: Any, tmp_path: Path
) -> None:
    """A walkthrough: `evaluate --report team.json` (meant: --policy) and `convert --out` over
    the team's policy file or a copied price card replaced it, exit 0 or 2, without a word."""
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    bundle = tmp_path / "b.json"
    assert _convert(cli, parent, contract, bundle).code == 0
    team = tmp_path / "team.json"
    team.write_text('{"policy": {"min_tasks": 20}, "baseline": {"name": "manual"}}')
    card = tmp_path / "card.json"
    card.write_bytes((ROOT / "src/converter/pricing/cards/anthropic-2026-12.json").read_bytes())
    for target in (team, card):
        before = target.read_bytes()
        for args in (
            ["evaluate", "--bundle", str(bundle), "--report", str(target)],
            ["convert", "--in", str(parent), "--contract", str(contract), "--out", str(target)],
            ["convert", "--in", str(parent), "--template", str(target), "--force"],
        ):
            result = cli(*args)
            assert result.code == 2, (args, result.err)
            assert "OUT-REPLACES-EVIDENCE" in result.err
            assert target.read_bytes() == before
    # Any other JSON is a report's to replace, as before.
    notes = tmp_path / "notes.json"
    notes.write_text('{"policy": 1, "mine": true}')
    assert cli("evaluate", "--bundle", str(bundle), "--report", str(notes)).code == 0


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"acceptable": true', '"acceptable": "yes"'),
        ('"min_tasks": 1', '"min_tasks": "1"'),
        ('"human_hourly_cost_usd": "90"', '"human_hourly_cost_usd": " 90 "'),
        ('"human_hourly_cost_usd": "90"', '"human_hourly_cost_usd": "1e3"'),
    ],
)
def test_contract_types_are_strict(old: str, new: str, cli: Any, tmp_path: Path) -> None:
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    text = contract.read_text()
    assert old in text
    contract.write_text(text.replace(old, new, 1))
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    assert "CONTRACT-SHAPE" in result.err
    assert "expected: " in result.err
    assert "_type" not in result.err  # words, not pydantic's error ids
    assert "_error" not in result.err


def test_an_unknown_gate_in_disabled_checks_is_refused_with_the_known_ones(
    cli: Any, tmp_path: Path
) -> None:
    """It used to pass convert and verify, then make evaluate blame an incomplete contract."""

    def edit(data: Any) -> None:
        data["claims"]["policy"]["disabled_checks"] = ["no-such-gate"]

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    assert "CONTRACT-UNKNOWN-CHECK [claims/policy/disabled_checks/0]" in result.err
    assert "p95-task-cost" in result.err  # the fix names the gates
    assert "no-such-gate" not in result.err  # the input itself is never echoed
    assert not (tmp_path / "b.json").exists()


def test_unreadable_contract_names_the_line(cli: Any, tmp_path: Path) -> None:
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    lines = contract.read_text().splitlines()
    lines[5] = lines[5] + ","  # a trailing comma a hand edit leaves behind
    contract.write_text("\n".join(lines))
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    assert "CONTRACT-UNREADABLE [line " in result.err


def test_an_encrypted_signing_key_signs_with_its_passphrase_from_the_environment(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`keygen --encrypt` and `convert --attest-key` read the passphrase the same way; the
    wrong one or none writes nothing, and the passphrase is never printed."""
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    key = tmp_path / "k.pem"
    monkeypatch.setenv("AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE", "pass phrase")
    assert cli("keygen", "--out", str(key), "--encrypt").code == 0
    out = tmp_path / "b.json"
    for value, code in (("wrong phrase", "WRONG"), ("", "MISSING")):
        monkeypatch.setenv("AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE", value)
        refused = _convert(cli, parent, contract, out, "--attest-key", str(key))
        assert refused.code == 2
        assert f"ATTEST-KEY-PASSPHRASE-{code}" in refused.err
        if value:
            assert value not in refused.err + refused.out
        assert not out.exists()
        assert not Path(f"{out}.intoto.json").exists()
    monkeypatch.setenv("AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE", "pass phrase")
    signed = _convert(cli, parent, contract, out, "--attest-key", str(key))
    assert signed.code == 0, signed.err
    assert "pass phrase" not in signed.out + signed.err
    verified = cli("verify", "--bundle", str(out), "--public-key", f"{key}.pub")
    assert verified.code == 0, verified.err


def test_an_encrypted_keys_passphrase_is_not_asked_of_a_run_already_refused(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review: the terminal asked for the passphrase, then the run refused a contract path
    mistyped. It is asked only when nothing else is refused; the key's own checks still run."""
    import click

    from converter.cli import options

    parent = fixture_parent("synthetic_tree")
    key = tmp_path / "k.pem"
    monkeypatch.setenv("AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE", "pass phrase")
    assert cli("keygen", "--out", str(key), "--encrypt").code == 0
    monkeypatch.delenv("AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE")
    asked: list[str] = []

    def prompt(text: str, **_: Any) -> str:
        asked.append(text)
        return "pass phrase"

    monkeypatch.setattr(options, "_terminal_to_ask", lambda: True)
    monkeypatch.setattr(click, "prompt", prompt)
    out = tmp_path / "b.json"
    missing = _convert(cli, parent, tmp_path / "no-contract.json", out, "--attest-key", str(key))
    assert missing.code == 2
    assert _codes(missing.err) == ["CONTRACT-UNREADABLE"]
    assert asked == []
    key.chmod(0o644)  # the key's own checks are still said with the rest
    both = _convert(cli, parent, tmp_path / "no-contract.json", out, "--attest-key", str(key))
    assert sorted(_codes(both.err)) == ["ATTEST-KEY-PERMISSIONS", "CONTRACT-UNREADABLE"]
    key.chmod(0o600)
    contract = _contract(cli, parent, tmp_path)
    signed = _convert(cli, parent, contract, out, "--attest-key", str(key))
    assert signed.code == 0, signed.err
    assert asked == ["passphrase of the signing key"]


def test_public_key_given_as_signing_key_is_named_as_such(cli: Any, tmp_path: Path) -> None:
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    key = tmp_path / "k.pem"
    assert cli("keygen", "--out", str(key)).code == 0
    out = tmp_path / "b.json"
    result = _convert(cli, parent, contract, out, "--attest-key", f"{key}.pub")
    assert result.code == 2
    assert "ATTEST-KEY-WRONG-TYPE" in result.err
    assert not out.exists()


def test_a_shape_error_does_not_hide_stale_sources(cli: Any, tmp_path: Path) -> None:
    parent = _copy_tree("synthetic_tree", tmp_path)
    contract = _contract(cli, parent, tmp_path)
    text = contract.read_text().replace('"min_tasks": 1', '"min_tasks": "4O"')
    contract.write_text(text)
    parent.write_bytes(parent.read_bytes() + b"\n")  # the session changed since the template
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    assert "CONTRACT-SHAPE" in result.err
    assert "CONTRACT-FILE-CHANGED" in result.err


@pytest.mark.parametrize(
    ("edit", "code"),
    [
        (lambda c: c["claims"].update({"ZQCEXTRA": 1}), "CONTRACT-SHAPE"),
        (lambda c: c.update({"ZQCTOP|x@y/z": 1}), "CONTRACT-SHAPE"),
        (lambda c: c["claims"]["outcomes"].update({"ZQCTASK-home/alice@corp.com": {}}), None),
        (lambda c: c["claims"]["excluded_tasks"].update({"ZQCX": "duplicate"}), None),
    ],
    ids=["extra-claim", "extra-top-level", "outcome-key", "exclusion-key"],
)
def test_a_key_the_user_typed_is_never_quoted(
    edit: Any, code: str | None, cli: Any, tmp_path: Path
) -> None:
    """SPEC 6.4: a refusal names the contract's own fields, pseudonyms and allowed names only;
    in the Action, convert's stderr goes to the job log."""
    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    assert "ZQC" not in result.err
    assert re.search(r"<key #[0-9]+>", result.err)
    if code:
        assert code in result.err


@pytest.mark.parametrize(
    "edit",
    [
        lambda c: c["inventory"].update(claude_code_versions=["1234.567890.123456.789012"]),
        lambda c: c["inventory"].update(hidden_calls=7),
    ],
    ids=["versions", "hidden-calls"],
)
def test_an_edited_inventory_cannot_reach_the_bundle(edit: Any, cli: Any, tmp_path: Path) -> None:
    """The receipt copies these from the contract: they must be what the sources say now."""
    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    assert "CONTRACT-INVENTORY-MISMATCH" in result.err
    assert "1234.567890" not in result.err
    assert not (tmp_path / "b.json").exists()


def _forged_entry(contract: Any) -> None:
    entry = dict(contract["inventory"]["files"][0], sha256="ab" * 32, size=1, role="meta")
    contract["inventory"]["files"].insert(0, entry)


@pytest.mark.parametrize(
    ("edit", "where"),
    [
        (_forged_entry, "inventory/files/1"),
        (lambda c: c["inventory"]["files"].append(c["inventory"]["files"][0]), "inventory/files/3"),
        (lambda c: c["inventory"]["files"].reverse(), "inventory/files"),
    ],
    ids=["forged-entry", "duplicate-entry", "reordered"],
)
def test_the_file_list_the_receipt_copies_is_the_sources_own(
    edit: Any, where: str, cli: Any, tmp_path: Path
) -> None:
    """Was: a second entry under a bound file's label collapsed with it when compared, and the
    receipt copied the list as written: convert exited 0 with a made-up digest in the receipt
    (which verify then refused)."""
    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2, result.err
    assert f"CONTRACT-INVENTORY-MISMATCH [{where}]" in result.err
    assert not (tmp_path / "b.json").exists()


def test_a_price_under_a_name_no_model_has_is_refused_without_the_name(
    cli: Any, tmp_path: Path
) -> None:

    def edit(data: Any) -> None:
        models = data["claims"]["pricing"]["models"]
        models["alice@example.com"] = copy.deepcopy(next(iter(models.values())))
        models["alice@example.com"]["tiers"][0]["input"] = "-1"

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    assert "alice" not in result.err


def test_a_context_key_the_user_typed_is_not_quoted(cli: Any, tmp_path: Path) -> None:
    """Was: three words of up to 32 characters joined by `|` passed for a context key and were
    shown (`PRICE-NULL [model claude-opus-4-8 / context acme-payroll|customer-bigbank|...]`,
    now `claims/pricing/models/claude-opus-4-8/contexts/...`)."""

    def edit(data: Any) -> None:
        contexts = data["claims"]["pricing"]["models"]["claude-opus-4-8"]["contexts"]
        contexts["zqcacme-payroll|customer-bigbank|jane-doe"] = None
        contexts["standard|x-0123abcd|absent"] = "-1"

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    assert "zqc" not in result.err
    assert "contexts/standard|x-0123abcd|absent" in result.err  # the shape a key crosses in


@pytest.mark.parametrize("precision", ["minute", "hour", "day"])
def test_coarser_timestamps_set_in_the_contract_convert(
    precision: str, cli: Any, tmp_path: Path
) -> None:
    """docs/privacy.md says to set privacy.timestamps before publishing. Was: one
    CONTRACT-TASKS-MISMATCH per task (`started_at`), the fix telling the user to undo an edit
    they never made. The bundle shows the coarser starts."""

    def coarser(data: Any) -> None:
        data["claims"]["privacy"]["timestamps"] = precision

    result = _convert_edited(cli, tmp_path, coarser)
    assert result.code == 0, result.err
    started = [t["started_at"] for t in read_json(tmp_path / "b.json")["tasks"]]
    assert started
    assert all(s and "." not in s for s in started)
    if precision == "day":
        assert all(len(s) == 10 for s in started)


@pytest.mark.parametrize("value", ["-0", "-0.000", -0.0])
def test_negative_zero_is_refused_where_a_claim_may_not_be_negative(
    value: Any, cli: Any, tmp_path: Path
) -> None:
    """Was: accepted, and the bundle carried `"-0.000"` in a field that may not be negative
    (while a price of "-0" was already PRICE-NEGATIVE)."""

    def signed_zero(data: Any) -> None:
        outcome = next(iter(data["claims"]["outcomes"].values()))
        outcome["human_minutes"] = value

    result = _convert_edited(cli, tmp_path, signed_zero)
    assert result.code == 2, result.err
    assert "human_minutes (expected: a number without a sign on zero (0, not -0))" in result.err
    assert not (tmp_path / "b.json").exists()


@pytest.mark.parametrize("field", ["human_minutes", "price"])
def test_a_json_integer_minus_zero_is_refused_as_minus_zero_point_zero_is(
    field: str, cli: Any, tmp_path: Path
) -> None:
    """A signing audit: the JSON integer `-0` was read as a plain 0 and accepted, as a price
    and as a claim, while `-0.0`, `-0e0` and `"-0"` were refused (contract.md: convert refuses
    a sign on zero)."""
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    data = read_json(contract)
    outcome = next(iter(data["claims"]["outcomes"].values()))
    outcome["human_minutes"] = "SIGNED_ZERO" if field == "human_minutes" else "5"
    tiers = next(iter(data["claims"]["pricing"]["models"].values()))["tiers"]
    tiers[0]["input"] = "SIGNED_ZERO" if field == "price" else tiers[0]["input"]
    text = json.dumps(data).replace('"SIGNED_ZERO"', "-0")
    contract.write_text(text, encoding="utf-8")
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2, result.err
    assert ("human_minutes" if field == "human_minutes" else "PRICE-NEGATIVE") in result.err
    assert not (tmp_path / "b.json").exists()
    contract.write_text(text.replace(": -0", ": 0"), encoding="utf-8")  # unsigned, it converts
    assert _convert(cli, parent, contract, tmp_path / "b.json").code == 0


def test_a_count_of_minus_zero_is_told_the_sign_not_the_type(cli: Any, tmp_path: Path) -> None:
    """A review: `"min_tasks": -0`, refused since 0.6.22, was told "expected: an integer",
    which it reads as."""
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    data = read_json(contract)
    data["claims"]["policy"]["min_tasks"] = "SIGNED_ZERO"
    contract.write_text(json.dumps(data).replace('"SIGNED_ZERO"', "-0"), encoding="utf-8")
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2, result.err
    assert "min_tasks (expected: a number without a sign on zero (0, not -0))" in result.err


def test_words_ending_in_hex_are_not_taken_for_a_pseudonym(cli: Any, tmp_path: Path) -> None:
    """Was: any `words-<8 to 12 hex>` passed for a pseudonym and was quoted (a model priced as
    `bigbank-payroll-deadbeef`). Only the pseudonyms the firewall makes are shown."""

    def edit(data: Any) -> None:
        models = data["claims"]["pricing"]["models"]
        models["zqcbigbank-payroll-deadbeef"] = None
        models["claude-opus-4-8"]["contexts"]["zqcacme-payroll-0badf00d"] = None

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    assert "zqc" not in result.err
    assert re.search(r"<key #[0-9]+>", result.err)


def test_convert_contract_takes_the_task_unit_its_contract_names(cli: Any, tmp_path: Path) -> None:
    """Was: the default task unit, so a contract made with --task-unit session was refused six
    ways (source, inventory, tasks, unknown outcomes), five with the wrong fix. Given and
    contradicting the contract, the one cause is named, by field."""
    parent = fixture_parent("synthetic_tree")
    template = tmp_path / "t.json"
    assert (
        cli(
            "convert", "--in", str(parent), "--task-unit", "session", "--template", str(template)
        ).code
        == 0
    )
    write_json(template, fill(read_json(template)))
    out = tmp_path / "b.json"
    result = _convert(cli, parent, template, out)
    assert result.code == 0, result.err
    assert read_json(out)["receipt"]["task_unit"] == "session"
    out.unlink()
    contradicted = _convert(cli, parent, template, out, "--task-unit", "prompt")
    assert contradicted.code == 2
    refused = [
        line.split(":")[0] for line in contradicted.err.splitlines() if line.startswith("refused")
    ]
    assert refused == ["refused"]
    assert contradicted.err.startswith("refused: CONTRACT-SOURCE-MISMATCH [source/task_unit]")
    # A typed adapter too: before the sources are read as a single file (whose refusals, the
    # tree's children not read, were all it said).
    single = _convert(cli, parent, template, out, "--from", "claude-code")
    assert single.code == 2
    assert single.err.startswith("refused: CONTRACT-SOURCE-MISMATCH [source/adapter]")
    assert "CC-TREE" not in single.err


def test_a_card_that_prices_nothing_here_is_said_not_dropped(cli: Any, tmp_path: Path) -> None:
    """Was: --price-card taken without a word, and the template naming no card (the card
    prices none of a gateway's models), so reports said `price card: none`."""
    import shutil

    tree = tmp_path / "tree"
    shutil.copytree(FIXTURES / "synthetic_tree", tree)
    for path in tree.rglob("*.jsonl"):
        path.write_text(path.read_text().replace("claude-opus-4-8", "MiniMax-M2.7"))
    parent = next(tree.glob("*.jsonl"))
    template = tmp_path / "t.json"
    args = ("convert", "--in", str(parent), "--template", str(template))
    result = cli(*args, "--price-card", "anthropic-2026-11")
    assert result.code == 0, result.err
    assert read_json(template)["claims"]["pricing"]["price_card"] is None
    assert "notice: price card anthropic-2026-11 prices none of this session's models" in result.err
    assert "MiniMax-M2.7" in result.err


def test_the_unknown_check_refusal_names_every_gate() -> None:
    """errors/codes.py states the gate ids in words; they must be the ids evaluate runs."""
    from typing import get_args

    from converter.contract.model import CheckId
    from converter.errors import CODES

    fix = CODES["CONTRACT-UNKNOWN-CHECK"].fix
    assert all(gate in fix for gate in get_args(CheckId))


def test_the_signed_subject_name_is_fixed_not_the_file_name_chosen(
    cli: Any, tmp_path: Path
) -> None:
    """A bundle named after a session, a project or a person: that name is not signed."""
    import base64
    import json

    _, _, key, out = _signed(cli, tmp_path, "alice@acme.com payroll.json")
    envelope = read_json(Path(f"{out}.intoto.json"))
    statement = json.loads(base64.b64decode(envelope["payload"]))
    assert statement["subject"][0]["name"] == "bundle.json"
    assert b"alice" not in Path(f"{out}.intoto.json").read_bytes()
    assert cli("verify", "--bundle", str(out), "--public-key", f"{key}.pub").code == 0


def test_single_file_source_ignores_the_file_name_but_not_the_children_beside_it(
    cli: Any, tmp_path: Path
) -> None:
    """The single-file source reads one file: a renamed copy is not refused for its name
    (CC-TREE-PARENT-NAME is about finding children), but a session whose folder holds child
    transcripts is refused, since a compaction child has no delegation call to refuse on."""
    original = fixture_parent("synthetic_tree")
    renamed = tmp_path / "copy" / "renamed.jsonl"
    renamed.parent.mkdir()
    shutil.copy(original, renamed)
    alone = cli("inspect", "--json", "--from", "claude-code", "--in", str(renamed))
    assert {r["code"] for r in alone.json()["refusals"]} == {"CC-TREE-DELEGATION-IN-SINGLE-FILE"}
    beside = cli("inspect", "--json", "--from", "claude-code", "--in", str(original))
    codes = {r["code"] for r in beside.json()["refusals"]}
    assert codes == {"CC-TREE-DELEGATION-IN-SINGLE-FILE", "CC-TREE-CHILDREN-NOT-READ"}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("model_calls", 9),
        ("subagents", 7),
        ("started_at", "2020-01-01T00:00:00.000Z"),
        ("input_digest", "hmac-sha256:" + "0" * 64),
        ("id", "task-000000000000"),
    ],
)
def test_every_source_owned_task_field_is_bound(
    field: str, value: Any, cli: Any, tmp_path: Path
) -> None:
    """SPEC §7: the task list and every count must be what the sources say; an edited field is
    named by its location, never by its value."""

    def edit(data: Any) -> None:
        data["tasks"][0][field] = value

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    assert f"CONTRACT-TASKS-MISMATCH [tasks/0/{field}]" in result.err
    assert str(value) not in result.err
    assert not (tmp_path / "b.json").exists()


@pytest.mark.parametrize("precision", ["minute", "hour", "day"])
def test_task_start_is_compared_at_the_contracts_precision(
    precision: str, cli: Any, tmp_path: Path
) -> None:
    parent = fixture_parent("rich_tree")
    contract = _contract(cli, parent, tmp_path, "--timestamps", precision)
    assert read_json(contract)["claims"]["privacy"]["timestamps"] == precision
    assert _convert(cli, parent, contract, tmp_path / "b.json").code == 0


@pytest.mark.parametrize("reason", ["aborted", "duplicate", "not-an-attempt"])
def test_a_task_with_model_calls_cannot_be_excluded(reason: str, cli: Any, tmp_path: Path) -> None:
    """SPEC §5.1: excluded_tasks is for prompts no model call followed; excluding one that spent
    would drop its spend from the evaluation silently."""
    parent = fixture_parent("rich_tree")
    contract = _contract(cli, parent, tmp_path)
    data = read_json(contract)
    spent = next(t["id"] for t in data["tasks"] if t["model_calls"] > 0)
    del data["claims"]["outcomes"][spent]
    data["claims"]["excluded_tasks"] = {spent: reason}
    write_json(contract, data)
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    assert f"CONTRACT-EXCLUDED-HAS-CALLS [claims/excluded_tasks/{spent}]" in result.err
    assert "acceptable: false" in result.err  # the fix says how to label it instead
    assert not (tmp_path / "b.json").exists()


def test_a_prompt_no_call_followed_may_be_excluded(cli: Any, tmp_path: Path) -> None:
    parent = fixture_parent("rich_tree")
    contract = _contract(cli, parent, tmp_path)
    data = read_json(contract)
    idle = [t["id"] for t in data["tasks"] if t["model_calls"] == 0]
    assert idle
    for task_id in idle:
        del data["claims"]["outcomes"][task_id]
    data["claims"]["excluded_tasks"] = dict.fromkeys(idle, "not-an-attempt")
    write_json(contract, data)
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 0, result.err
    excluded = read_json(tmp_path / "b.json")["excluded_tasks"]
    assert sorted(e["task"] for e in excluded) == sorted(idle)


def test_a_shape_error_hides_no_other_problem(cli: Any, tmp_path: Path) -> None:
    """SPEC §7 reports every problem: a bad outcome value used to hide the price, null, task and
    exclusion problems of every other part of the contract."""

    def edit(data: Any) -> None:
        claims = data["claims"]
        task = next(iter(claims["outcomes"]))
        claims["outcomes"][task]["business_value_usd"] = "-1"  # a shape error
        tier = next(iter(claims["pricing"]["models"].values()))["tiers"][0]
        tier.update(input="-1", output="NaN", cache_read=None)
        claims["policy"]["min_tasks"] = None
        claims["excluded_tasks"] = {"task-000000000000": None}

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    for code in (
        "CONTRACT-SHAPE [claims/outcomes/",
        "PRICE-NEGATIVE",
        "PRICE-NONFINITE",
        "PRICE-NULL",
        "CONTRACT-CLAIM-NULL [claims/policy/min_tasks]",
        "CONTRACT-OUTCOME-UNKNOWN-TASK [claims/excluded_tasks/task-000000000000]",
        "CONTRACT-EXCLUSION-REASON",
    ):
        assert code in result.err, code
    assert not (tmp_path / "b.json").exists()


@pytest.mark.parametrize(
    ("edit", "code"),
    [
        (
            lambda p: p["models"].clear(),
            "PRICE-MODEL-MISSING [claims/pricing/models/claude-opus-4-8]",
        ),
        (
            lambda p: next(iter(p["models"].values()))["contexts"].clear(),
            "PRICE-CONTEXT-MISSING [claims/pricing/models/claude-opus-4-8/contexts/standard|standard|",
        ),
        (
            lambda p: p["client_tools"].pop("Read"),
            "PRICE-CLIENT-TOOL-MISSING [claims/pricing/client_tools/Read]",
        ),
    ],
    ids=["model", "context", "client-tool"],
)
def test_a_claim_problem_hides_no_missing_price(
    edit: Any, code: str, cli: Any, tmp_path: Path
) -> None:
    """A price the sources need but the contract lacks used to be found only once every other
    claim was right, one round trip later."""

    def both(data: Any) -> None:
        data["claims"]["baseline"]["name"] = None
        edit(data["claims"]["pricing"])

    result = _convert_edited(cli, tmp_path, both)
    assert result.code == 2
    assert "CONTRACT-CLAIM-NULL [claims/baseline/name]" in result.err
    assert code in result.err


def test_a_deleted_claim_or_price_is_said_to_be_missing_not_null(cli: Any, tmp_path: Path) -> None:
    """A walkthrough: a claim field deleted by hand was "still null", and a model's deleted
    `tiers` list five PRICE-NULL at `tiers/0/...`, paths the contract did not hold."""

    tasks: list[str] = []

    def edit(data: Any) -> None:
        claims = data["claims"]
        del claims["policy"]["min_tasks"]
        claims["baseline"]["name"] = None  # a null as written: still null, said as before
        tasks.append(next(iter(claims["outcomes"])))
        del claims["outcomes"][tasks[0]]["acceptable"]
        del claims["pricing"]["models"]["claude-opus-4-8"]["tiers"]
        del claims["pricing"]["unsplit_cache_write_rule"]

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    said = [line for line in result.err.splitlines() if line.startswith("refused: ")]
    missing = [line.split(": ")[1] for line in said if "(the field is missing)" in line]
    task = tasks[0]
    assert sorted(missing) == sorted(
        [
            "CONTRACT-CLAIM-NULL [claims/policy/min_tasks (the field is missing)]",
            f"CONTRACT-CLAIM-NULL [claims/outcomes/{task}/acceptable (the field is missing)]",
            "PRICE-NULL [claims/pricing/models/claude-opus-4-8/tiers (the field is missing)]",
            "PRICE-NULL [claims/pricing/unsplit_cache_write_rule (the field is missing)]",
        ]
    )
    assert any("CONTRACT-CLAIM-NULL [claims/baseline/name]" in line for line in said)
    assert "tiers/0" not in result.err


def test_a_refused_source_hides_no_contract_problem(cli: Any, tmp_path: Path) -> None:
    parent = _copy_tree("synthetic_tree", tmp_path)
    contract = _contract(cli, parent, tmp_path)
    data = read_json(contract)
    data["claims"]["policy"]["min_tasks"] = None
    write_json(contract, data)
    parent.write_bytes(parent.read_bytes() + b'{"type": "user", "mess')  # a torn last line
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    assert "CC-LINE-" in result.err
    assert "CONTRACT-CLAIM-NULL [claims/policy/min_tasks]" in result.err


def test_a_contract_saved_with_a_byte_order_mark_converts(cli: Any, tmp_path: Path) -> None:
    """Notepad writes a UTF-8 BOM; the transcript reader accepts one, and so does the contract."""
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    contract.write_bytes(b"\xef\xbb\xbf" + contract.read_bytes())
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 0, result.err


def test_a_contract_saved_as_utf_16_names_its_first_line(cli: Any, tmp_path: Path) -> None:
    """Was: no line, so the fix read "the file could not be read at all" (an operations
    review); its fix names UTF-16."""
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    contract.write_bytes(contract.read_text().encode("utf-16"))
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    assert "CONTRACT-UNREADABLE [line 1]" in result.err
    assert "UTF-16" in result.err


def test_a_repeated_key_in_the_contract_names_its_line(cli: Any, tmp_path: Path) -> None:
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    lines = contract.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if '"min_tasks": 1' in line)
    lines.insert(at + 1, '"min_tasks": 2,' if lines[at].endswith(",") else ',"min_tasks": 2')
    contract.write_text("\n".join(lines))
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    assert f"CONTRACT-UNREADABLE [line {at + 2}]" in result.err


def test_a_contract_that_is_not_an_object_names_the_top_level(cli: Any, tmp_path: Path) -> None:
    parent = fixture_parent("synthetic_tree")
    contract = tmp_path / "contract.json"
    contract.write_text("[]")
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    assert "CONTRACT-SHAPE [(contract) (expected: an object)]" in result.err


OTHER_SESSION = "0f0e0d0c-1111-4222-8333-444455556666"


def _other_session(tmp_path: Path) -> Path:
    """The synthetic tree under another session id: the same prompts, another session."""
    sid = "65e893e5-a69d-4955-a5e1-5d5ee7bc592e"
    copy = tmp_path / "other"
    shutil.copytree(fixture_parent("synthetic_tree").parent, copy)
    for path in sorted(copy.rglob("*"), reverse=True):
        if path.is_file():
            path.write_text(path.read_text().replace(sid, OTHER_SESSION))
        if sid in path.name:
            path.rename(path.with_name(path.name.replace(sid, OTHER_SESSION)))
    return copy / f"{OTHER_SESSION}.jsonl"


def test_two_sessions_opening_with_the_same_prompt_have_different_task_ids(
    cli: Any, tmp_path: Path
) -> None:
    """Task ids are keyed per session: a workload of sessions that each start with `/init` (or
    any same first prompt) is not refused as one task given twice."""
    source = fixture_parent("synthetic_tree")
    other = _other_session(tmp_path)
    ids = []
    for n, parent in enumerate((source, other)):
        out = tmp_path / f"t{n}.json"
        result = cli("convert", "--in", str(parent), "--template", str(out))
        assert result.code == 0, result.err
        ids.append({t["id"] for t in read_json(out)["tasks"]})
    assert ids[0]
    assert ids[1]
    assert not ids[0] & ids[1]


def test_a_mistyped_key_gets_the_schema_field_it_is_near(cli: Any, tmp_path: Path) -> None:
    """The typed key stays masked (SPEC 6.4); the suggestion is the schema's own field name."""

    def typo(c: Any) -> None:
        c["claims"]["policy"]["min_acceptible_rate"] = c["claims"]["policy"].pop(
            "min_acceptable_rate"
        )

    result = _convert_edited(cli, tmp_path, typo)
    assert result.code == 2
    assert "acceptible" not in result.err
    # its place among the policy's keys as the file holds them
    place = list(read_json(tmp_path / "contract.json")["claims"]["policy"]).index(
        "min_acceptible_rate"
    )
    place += 1
    assert (
        f"claims/policy/<key #{place}> (expected: no such field; did you mean min_acceptable_rate?)"
        in result.err
    )


def test_single_file_source_finds_the_children_of_a_renamed_copy(cli: Any, tmp_path: Path) -> None:
    """A renamed copy beside its session's folder: the session is the one its records name, so
    the children there are found and the refusal stands. An empty child holds no spend."""
    tree = tmp_path / "t"
    shutil.copytree(fixture_parent("synthetic_tree").parent, tree)
    source = next(tree.glob("*.jsonl"))
    excerpt = tree / "excerpt.jsonl"
    shutil.copy(source, excerpt)
    result = cli("inspect", "--json", "--from", "claude-code", "--in", str(excerpt))
    assert "CC-TREE-CHILDREN-NOT-READ" in {r["code"] for r in result.json()["refusals"]}
    for child in (tree / source.stem / "subagents").glob("agent-*.jsonl"):
        child.write_bytes(b"")
    result = cli("inspect", "--json", "--from", "claude-code", "--in", str(excerpt))
    assert "CC-TREE-CHILDREN-NOT-READ" not in {r["code"] for r in result.json()["refusals"]}


def test_from_contract_carries_claims_across_a_change_of_task_id(cli: Any, tmp_path: Path) -> None:
    """Task ids of version 0.1 were not keyed by session: a contract made then names the same
    tasks (same input digests) under other ids. Its labels carry forward, none is dropped."""
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    data = read_json(contract)
    [task] = data["tasks"]
    old_id = "task-000000000001"
    data["claims"]["outcomes"] = {old_id: data["claims"]["outcomes"][task["id"]]}
    data["claims"]["outcomes"][old_id]["human_minutes"] = "7"
    task["id"] = old_id
    write_json(contract, data)
    again = tmp_path / "again.json"
    args = ["--template", str(again), "--from-contract", str(contract)]
    result = cli("convert", "--in", str(parent), *args)
    assert result.code == 0, result.err
    assert "0 tasks dropped, 0 new tasks" in result.out
    carried = read_json(again)
    assert carried["claims"]["outcomes"][carried["tasks"][0]["id"]]["human_minutes"] == "7"


def test_did_you_mean_names_a_sibling_field_only() -> None:
    """The suggestion comes from the object the key was typed in, not from anywhere in the
    schema: `tiers` exists only under a model's pricing, so a top-level `tierz` gets none."""
    from converter.contract.read import _did_you_mean, _fields_at

    assert _did_you_mean("tierz", _fields_at(())) == ""
    assert _did_you_mean("tierz", _fields_at(("claims", "pricing", "models", "m"))) == (
        "; did you mean tiers?"
    )
    tier = ("claims", "pricing", "models", "m", "tiers", 0)
    assert _did_you_mean("inptu", _fields_at(tier)) == "; did you mean input?"


@pytest.mark.parametrize("which", ["private", "public"])
def test_an_output_never_replaces_a_key(which: str, cli: Any, tmp_path: Path) -> None:
    """Was: `evaluate --report signing.pem` replaced the signing key with a report."""
    parent, contract, key, out = _signed(cli, tmp_path, "b.json")
    target = key if which == "private" else Path(f"{key}.pub")
    before = target.read_bytes()
    report = cli("evaluate", "--bundle", str(out), "--report", str(target))
    assert report.code == 2
    assert "OUT-REPLACES-KEY" in report.err
    converted = _convert(cli, parent, contract, target)
    assert converted.code == 2
    assert "OUT-REPLACES-KEY" in converted.err
    assert target.read_bytes() == before


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ('"business_value_usd": 1e-40', "business_value_usd (expected: a decimal with at most 30"),
        ('"business_value_usd": 1e-999999999', "business_value_usd (expected: a decimal"),
        ('"max_output_tokens": 1000000000000000000000000000000', "max_output_tokens (expected:"),
        ('"input": 1e-41', "PRICE-TOO-PRECISE"),
        # Was CONTRACT-SHAPE: the string README recommends, refused for its form, not its size.
        ('"input": "0.' + "1" * 41 + '"', "PRICE-TOO-PRECISE"),
        # Was CONTRACT-UNREADABLE with no line: past Python's 4,300-digit int conversion limit.
        ('"input": ' + "1" * 4400, "PRICE-TOO-PRECISE"),
        ('"max_output_tokens": ' + "1" * 4400, "max_output_tokens (expected:"),
        # Was "expected: a finite number", which 1e400 is (a walk-through): the bound it breaks
        ('"business_value_usd": 1e400', "finite number of at most 30 digits before and after"),
    ],
    ids=[
        "tiny-number",
        "huge-exponent",
        "int-beyond-int64",
        "price-too-precise",
        "price-string-too-precise",
        "price-past-int-digit-limit",
        "count-past-int-digit-limit",
        "huge-number",
    ],
)
def test_a_claim_no_artifact_could_hold_is_refused_at_convert(
    written: str, expected: str, cli: Any, tmp_path: Path
) -> None:
    """Was: exit 70 (an integer beyond int64 reached the writer), or a bundle that evaluate then
    refused as tampered, or (1e-999999999) a 1 GB bundle. Every claim is bounded as the
    readers are: integers within int64, decimals of at most 30 digits each side."""
    import re

    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    key = written.split(":", maxsplit=1)[0]
    text, replaced = re.subn(rf"{key}: [^,\n]+", written, contract.read_text(), count=1)
    assert replaced == 1
    contract.write_text(text)
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2, result.err
    assert expected in result.err
    assert not (tmp_path / "b.json").exists()


def test_max_output_tokens_below_a_recorded_output_is_refused(cli: Any, tmp_path: Path) -> None:
    """Was: accepted, and every usage-incomplete call's high end became its recorded output,
    so the interval (and an INCOMPLETE decision) disappeared without a word."""

    def low_cap(c: Any) -> None:
        for entry in c["claims"]["pricing"]["models"].values():
            entry["max_output_tokens"] = 1

    result = _convert_edited(cli, tmp_path, low_cap)
    assert result.code == 2
    assert "PRICE-MAX-OUTPUT-BELOW-OBSERVED" in result.err


def test_an_unknown_gate_is_reported_beside_a_shape_error_in_the_policy(
    cli: Any, tmp_path: Path
) -> None:
    """Was: a typo elsewhere in the policy hid CONTRACT-UNKNOWN-CHECK until it was fixed."""

    def two_mistakes(c: Any) -> None:
        policy = c["claims"]["policy"]
        policy["min_acceptible_rate"] = policy.pop("min_acceptable_rate")
        policy["disabled_checks"] = ["p95"]

    result = _convert_edited(cli, tmp_path, two_mistakes)
    assert result.code == 2
    assert "did you mean min_acceptable_rate?" in result.err
    assert "CONTRACT-UNKNOWN-CHECK [claims/policy/disabled_checks/0]" in result.err


def test_from_contract_never_carries_another_sessions_labels(cli: Any, tmp_path: Path) -> None:
    """The same prompts in another session: its tasks are new, nothing is carried by digest."""
    contract = _contract(cli, fixture_parent("synthetic_tree"), tmp_path)
    again = tmp_path / "again.json"
    args = ["--template", str(again), "--from-contract", str(contract)]
    result = cli("convert", "--in", str(_other_session(tmp_path)), *args)
    assert result.code == 0, result.err
    assert (
        "1 tasks dropped, 1 new tasks" in result.out or "1 task dropped, 1 new task" in result.out
    )
    outcomes = read_json(again)["claims"]["outcomes"].values()
    assert all(v is None for outcome in outcomes for v in outcome.values())


@pytest.mark.parametrize("where", ["model", "tool"])
def test_prices_that_multiply_past_any_artifact_are_refused(
    where: str, cli: Any, tmp_path: Path
) -> None:
    """Was: exit 70. Each price fits 30 digits, but price x multiplier x tokens does not."""

    def huge(c: Any) -> None:
        pricing = c["claims"]["pricing"]
        if where == "model":
            for entry in pricing["models"].values():
                entry["tiers"][0]["output"] = "9" * 30
                entry["contexts"] = dict.fromkeys(entry["contexts"], "9" * 30)
        else:
            for name in pricing["client_tools"]:
                pricing["client_tools"][name] = "9" * 25

    result = _convert_edited(cli, tmp_path, huge)
    assert result.code == 2, result.err
    assert "PRICE-COST-TOO-LARGE" in result.err


def test_an_output_never_replaces_the_pseudonym_key(cli: Any, tmp_path: Path) -> None:
    """Was: `--report <pseudonym.key>` replaced the key (and left the report world-readable)."""
    _, _, _, out = _signed(cli, tmp_path, "b.json")
    key = tmp_path / "pseudonym.key"
    key.write_text("ab" * 32 + "\n")
    report = cli("evaluate", "--bundle", str(out), "--report", str(key))
    assert report.code == 2
    assert "OUT-REPLACES-KEY" in report.err
    assert key.read_text() == "ab" * 32 + "\n"


def test_a_contract_naming_a_shipped_card_must_hold_its_prices(cli: Any, tmp_path: Path) -> None:
    """Was: prices edited under `price_card: anthropic-2026-11` converted, and the receipt, its
    signature and the report named that card for prices it does not hold; two such bundles
    evaluated as one workload (same card id) decided on mixed prices."""
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path, "--price-card", "anthropic-2026-11")
    as_filled = read_json(contract)
    # `fill` writes its own test prices: put back the ones the card pre-filled.
    card_filled = read_json(tmp_path / "template.json")["claims"]["pricing"]["models"]
    as_filled["claims"]["pricing"]["models"] = card_filled
    write_json(contract, as_filled)
    assert as_filled["claims"]["pricing"]["price_card"]["id"] == "anthropic-2026-11"
    result = _convert(cli, parent, contract, tmp_path / "card.json")
    assert result.code == 0, result.err

    def cut_output_price(data: dict[str, Any]) -> None:
        data["claims"]["pricing"]["models"]["claude-opus-4-8"]["tiers"][0]["output"] = "12.5"

    edited = read_json(contract)
    cut_output_price(edited)
    write_json(contract, edited)
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    assert "PRICE-CARD-MISMATCH" in result.err
    assert "claims/pricing/models/claude-opus-4-8" in result.err
    assert not (tmp_path / "b.json").exists()

    edited["claims"]["pricing"]["price_card"]["retrieved"] = "2020-01-01"
    write_json(contract, edited)
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert "claims/pricing/price_card" in result.err

    edited["claims"]["pricing"]["price_card"] = None  # your own prices, said so
    write_json(contract, edited)
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 0, result.err
    assert read_json(tmp_path / "b.json")["receipt"]["price_card"] is None


def test_carried_prices_never_sit_under_a_cards_name(cli: Any, tmp_path: Path) -> None:
    """Was: `--template --from-contract OWN --price-card ID` kept OWN's prices under the card's
    name, and the next convert refused what the tool itself had just written. Your own carried
    prices stay your own (no card named); an old contract that named the card over other
    prices is refused at once."""
    parent = fixture_parent("synthetic_tree")
    own = _contract(cli, parent, tmp_path)  # `fill`'s own prices, no card
    template = tmp_path / "again.json"
    args = ["convert", "--in", str(parent), "--template", str(template), "--from-contract"]
    result = cli(*args, str(own), "--price-card", "anthropic-2026-11")
    assert result.code == 0, result.err
    carried = read_json(template)["claims"]["pricing"]
    assert carried["price_card"] is None
    assert carried["models"] == read_json(own)["claims"]["pricing"]["models"]
    converted = _convert(cli, parent, template, tmp_path / "b.json")
    assert "PRICE-CARD-MISMATCH" not in converted.err

    named = read_json(own)  # as if it had been made with the card, then its prices edited
    from converter.pricing.card import load_price_card

    named["claims"]["pricing"]["price_card"] = (
        load_price_card("anthropic-2026-11").ref().model_dump()
    )
    write_json(own, named)
    template.unlink()
    result = cli(*args, str(own), "--price-card", "anthropic-2026-11")
    assert result.code == 2
    assert "PRICE-CARD-MISMATCH [claims/pricing/models/claude-opus-4-8]" in result.err
    assert not template.exists()


def test_from_contract_keeps_the_old_contracts_task_unit(cli: Any, tmp_path: Path) -> None:
    """Was: a session-unit contract carried into a prompt-unit template ("1 task dropped, N new
    tasks", its label lost), by the very command the stale-contract refusals advise."""
    parent = fixture_parent("synthetic_tree")
    first = tmp_path / "first.json"
    args = ["convert", "--in", str(parent), "--template"]
    assert cli(*args, str(first), "--task-unit", "session").code == 0
    again = tmp_path / "again.json"
    result = cli(*args, str(again), "--from-contract", str(first))
    assert result.code == 0, result.err
    assert read_json(again)["source"]["task_unit"] == "session"
    assert "0 tasks dropped, 0 new tasks to label" in result.out
    typed = tmp_path / "typed.json"
    result = cli(*args, str(typed), "--from-contract", str(first), "--task-unit", "prompt")
    assert read_json(typed)["source"]["task_unit"] == "prompt"  # a unit typed wins


def _negotiated_card(tmp_path: Path) -> Path:
    """A card file of its own id whose opus-4-8 input price is not the shipped card's."""
    from tests.conftest import ROOT

    card = read_json(ROOT / "contracts" / "price-cards" / "anthropic-2026-11.json")
    card["id"] = "acme-negotiated-2026"
    card["models"]["claude-opus-4-8"]["tiers"][0]["input"] = "4"
    del card["models"]["claude-opus-4-8"]["max_output_tokens"]  # a bound this card leaves open
    del card["models"]["claude-opus-4-8"]["max_output_source"]
    path = tmp_path / "negotiated.json"
    write_json(path, card)
    return path


def test_another_card_given_with_from_contract_replaces_the_old_cards_prices(
    cli: Any, tmp_path: Path
) -> None:
    """Was: the old contract's card prices were kept under the new card's name (a receipt naming
    acme-negotiated-2026 priced opus at the shipped 5); between two shipped cards the template
    was refused. Another card's stated prices replace the old card's."""
    parent = fixture_parent("synthetic_tree")
    first = tmp_path / "first.json"
    args = ["convert", "--in", str(parent), "--template"]
    assert cli(*args, str(first), "--price-card", "anthropic-2026-11").code == 0
    filled = read_json(first)
    tools = filled["claims"]["pricing"]["client_tools"]
    tool = next(iter(tools))
    tools[tool] = "0.5"  # the user's own price for a tool: no card's to replace
    opus = filled["claims"]["pricing"]["models"]["claude-opus-4-8"]
    assert opus["max_output_tokens"] == 128000  # pre-filled from the shipped card
    write_json(first, filled)
    again = tmp_path / "again.json"
    card = _negotiated_card(tmp_path)
    result = cli(*args, str(again), "--from-contract", str(first), "--price-card", str(card))
    assert result.code == 0, result.err
    pricing = read_json(again)["claims"]["pricing"]
    assert pricing["price_card"]["id"] == "acme-negotiated-2026"
    assert pricing["models"]["claude-opus-4-8"]["tiers"][0]["input"] == "4"
    assert pricing["client_tools"][tool] == "0.5"
    assert pricing["models"]["claude-opus-4-8"]["max_output_tokens"] == 128000


def test_a_price_another_card_replaces_is_listed_and_a_card_file_name_needs_its_prices(
    cli: Any, tmp_path: Path
) -> None:
    """Was: a price the user had set under the old card (a model or context it left open) was
    replaced by the new card's without a word; and a card file's name stayed over a price the
    user had edited away from it (the shipped-card check cannot see a file's prices)."""
    parent = fixture_parent("synthetic_tree")
    args = ["convert", "--in", str(parent), "--template"]
    first = tmp_path / "first.json"
    assert cli(*args, str(first), "--price-card", "anthropic-2026-11").code == 0
    card = _negotiated_card(tmp_path)
    again = tmp_path / "again.json"
    result = cli(*args, str(again), "--from-contract", str(first), "--price-card", str(card))
    assert result.code == 0, result.err
    assert "  repriced claims/pricing/models/claude-opus-4-8/tiers:" in result.out

    named = read_json(again)  # names the card file; its opus input edited away from the card's
    named["claims"]["pricing"]["models"]["claude-opus-4-8"]["tiers"][0]["input"] = "7"
    write_json(again, named)
    third = tmp_path / "third.json"
    result = cli(*args, str(third), "--from-contract", str(again), "--price-card", str(card))
    assert result.code == 2
    assert "PRICE-CARD-MISMATCH [claims/pricing/models/claude-opus-4-8]" in result.err
    assert not third.exists()


def test_a_contract_under_another_key_is_refused_before_the_sources_are_read(
    cli: Any, tmp_path: Path
) -> None:
    """Was: only the card's refusal, then CONTRACT-KEY-MISMATCH in a second run after reading
    every source."""
    parent = fixture_parent("synthetic_tree")
    first = tmp_path / "first.json"
    assert cli("convert", "--in", str(parent), "--template", str(first)).code == 0
    other = tmp_path / "other.key"
    other.write_text("ab" * 32 + "\n")
    other.chmod(0o600)
    result = cli(
        "convert", "--in", str(parent), "--template", str(tmp_path / "t.json"),
        "--from-contract", str(first), "--price-card", str(tmp_path / "missing.json"),
        "--key-file", str(other),
    )  # fmt: skip
    assert result.code == 2
    assert "CONTRACT-KEY-MISMATCH" in result.err
    assert "PRICE-CARD" in result.err


def test_own_prices_carried_with_a_card_file_are_not_named_after_it(
    cli: Any, tmp_path: Path
) -> None:
    """A card file is no shipped card, so the shipped-card check did not see the difference:
    own prices carried under its name. They stay your own, with no card named."""
    parent = fixture_parent("synthetic_tree")
    own = _contract(cli, parent, tmp_path)  # `fill`'s own prices, no card
    template = tmp_path / "again.json"
    card = _negotiated_card(tmp_path)
    result = cli(
        "convert", "--in", str(parent), "--template", str(template),
        "--from-contract", str(own), "--price-card", str(card),
    )  # fmt: skip
    assert result.code == 0, result.err
    carried = read_json(template)["claims"]["pricing"]
    assert carried["price_card"] is None
    assert carried["models"] == read_json(own)["claims"]["pricing"]["models"]
    assert "they stay yours, and the template names no card" in result.out


def test_a_card_file_taking_a_shipped_id_must_be_that_card(cli: Any, tmp_path: Path) -> None:
    """Was: a 'corrected' copy of the shipped card, keeping its id, was taken; the contract it
    filled was then refused against the shipped card, and a receipt could not tell them apart."""
    from tests.conftest import ROOT

    shipped = ROOT / "contracts" / "price-cards" / "anthropic-2026-11.json"
    parent = fixture_parent("synthetic_tree")
    copy = tmp_path / "card.json"
    copy.write_bytes(shipped.read_bytes())
    template = tmp_path / "t.json"
    args = ["convert", "--in", str(parent), "--template", str(template), "--price-card", str(copy)]
    assert cli(*args).code == 0  # the very card, by path
    template.unlink()
    edited = read_json(copy)
    edited["server_tools"]["web_search"] = "0.02"
    write_json(copy, edited)
    result = cli(*args)
    assert result.code == 2
    assert "PRICE-CARD-ID-TAKEN" in result.err
    edited["id"] = "my-card-2026-11"
    write_json(copy, edited)
    assert cli(*args).code == 0


def test_carry_forward_names_labelled_tasks_that_grew(cli: Any, tmp_path: Path) -> None:
    """Was: a resumed session's task, labelled at 4 model calls, now at 11, had its outcome
    carried over with '0 tasks dropped, 0 new tasks' and nothing else said."""
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    data = read_json(contract)
    task = data["tasks"][0]
    task["model_calls"] -= 1  # as it was when it was labelled
    write_json(contract, data)
    again = tmp_path / "again.json"
    result = _carry(cli, parent, contract, tmp_path)
    assert result.code == 0, result.err
    assert "1 labelled task changed since (check their outcomes)" in result.out
    assert f"  changed {task['id']}:" in result.out
    assert (
        read_json(again)["claims"]["outcomes"][task["id"]] == data["claims"]["outcomes"][task["id"]]
    )
    # A template's outcomes are all null: nothing was labelled, so nothing changed since.
    unlabelled = read_json(tmp_path / "template.json")
    unlabelled["tasks"][0]["model_calls"] -= 1
    write_json(contract, unlabelled)
    again.unlink()
    result = _carry(cli, parent, contract, tmp_path)
    assert "0 labelled tasks changed since\n" in result.out  # nothing to check: not said


def test_a_dropped_labelled_task_with_calls_is_said_with_them(cli: Any, tmp_path: Path) -> None:
    """An upgrade walkthrough: a task 0.4.7 started at an old-form interruption marker, with
    124 calls and a label, was "dropped" like a task of none, and the template said "every
    claim is filled: convert --contract" while its calls had moved under another label."""
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    data = read_json(contract)
    gone = dict(data["tasks"][0], id="task-0123456789ab", model_calls=7)
    gone["input_digest"] = "hmac-sha256:" + "0" * 64
    data["tasks"].append(gone)
    data["claims"]["outcomes"][gone["id"]] = data["claims"]["outcomes"][data["tasks"][0]["id"]]
    data["tasks"][0]["model_calls"] -= 1  # the task that took its calls: changed since
    write_json(contract, data)
    result = _carry(cli, parent, contract, tmp_path)
    assert result.code == 0, result.err
    assert "every claim is filled; check the changed tasks' outcomes (below), then" in result.out
    assert (
        f"  dropped {gone['id']}: it had 7 model calls and a label, not carried; in the same "
        "session its calls are in other tasks now (a changed or new task above), whose "
        "outcomes to check"
    ) in result.out
    # No task changed: the dropped one is what to check (a third review: "the changed tasks'
    # outcomes (below)" listed none).
    data["tasks"][0]["model_calls"] += 1
    write_json(contract, data)
    (tmp_path / "again.json").unlink()
    result = _carry(cli, parent, contract, tmp_path)
    assert "every claim is filled; check the dropped tasks (below), then" in result.out


def test_another_sessions_contract_carries_its_claims_and_says_whose_it_is(
    cli: Any, tmp_path: Path
) -> None:
    """A walkthrough: --from-contract with another session's contract exited 0 saying of each
    of its labelled tasks "in the same session its calls are in other tasks now" and asked to
    check them. Its pricing, policy and privacy still carry (a team's settings, chosen once);
    its labels are another session's, and that is what is said."""
    contract = _contract(cli, fixture_parent("rich_tree"), tmp_path)
    old = read_json(contract)
    old["claims"]["policy"]["min_tasks"] = 7
    write_json(contract, old)
    result = _carry(cli, fixture_parent("synthetic_tree"), contract, tmp_path)
    assert result.code == 0, result.err
    assert (
        "notice: the --from-contract contract was made for another session (its inventory does "
        "not bind this session's main transcript): its pricing, policy and privacy claims are carried, "
        "none of its tasks' labels"
    ) in result.err
    assert "same session" not in result.out
    assert "check the dropped tasks" not in result.out
    dropped = [line for line in result.out.splitlines() if line.startswith("  dropped ")]
    assert len(dropped) == len(old["claims"]["outcomes"]) > 0
    assert any(
        line.endswith(": another session's task, with a label, not carried") for line in dropped
    )
    again = read_json(tmp_path / "again.json")
    assert again["claims"]["policy"]["min_tasks"] == 7
    assert all(v is None for o in again["claims"]["outcomes"].values() for v in o.values())
    # The session's own contract is not another session's: no notice.
    (tmp_path / "own").mkdir()
    mine = _contract(cli, fixture_parent("synthetic_tree"), tmp_path / "own")
    (tmp_path / "again.json").unlink()
    result = _carry(cli, fixture_parent("synthetic_tree"), mine, tmp_path)
    assert result.code == 0
    assert "another session" not in result.err + result.out


def test_an_excluded_task_that_now_has_calls_is_to_label_again(cli: Any, tmp_path: Path) -> None:
    """Was: the exclusion (an unanswered last prompt, `aborted`) was carried onto the task after
    it was answered, '0 labelled tasks changed' was said, and only convert --contract refused
    (CONTRACT-EXCLUDED-HAS-CALLS)."""
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    data = read_json(contract)
    task = data["tasks"][0]
    assert task["model_calls"] > 0
    data["claims"]["outcomes"].pop(task["id"])
    data["claims"]["excluded_tasks"][task["id"]] = "aborted"
    task["model_calls"] = 0  # as it was when it was excluded
    write_json(contract, data)
    result = _carry(cli, parent, contract, tmp_path)
    assert result.code == 0, result.err
    assert "0 labelled tasks changed since, 1 excluded task to label" in (result.out)
    assert f"  to label {task['id']}: excluded, and it has model calls now" in result.out
    carried = read_json(tmp_path / "again.json")["claims"]
    assert task["id"] not in carried["excluded_tasks"]
    assert all(value is None for value in carried["outcomes"][task["id"]].values())


def test_a_mistyped_gate_id_and_a_dollar_amount_are_each_said_once_and_plainly(
    cli: Any, tmp_path: Path
) -> None:
    """Was: a wrong gate id was both CONTRACT-SHAPE ('text of the documented form') and
    CONTRACT-UNKNOWN-CHECK; '$40' was 'expected: a value of the documented type'."""

    def edit(data: dict[str, Any]) -> None:
        data["claims"]["policy"]["disabled_checks"] = ["sample_size"]
        first = next(iter(data["claims"]["outcomes"].values()))
        first["business_value_usd"] = "$40"

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    assert result.err.count("claims/policy/disabled_checks/0") == 1
    assert "CONTRACT-UNKNOWN-CHECK [claims/policy/disabled_checks/0]" in result.err
    assert 'expected: a decimal number, written as a string such as "1" or "0.30"' in result.err
    assert "$40" not in result.err


def test_what_can_be_refused_before_reading_is_said_at_once(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: the existing output alone, then (a run later, after the whole tree was read) the bad
    price card; a missing contract alone, then the signing key other users can read."""
    monkeypatch.setattr("converter.cli.convert.read_sources", _never_read)
    parent = fixture_parent("synthetic_tree")
    card = tmp_path / "card.json"
    card.write_text('{"id": "x",\n "models": {\n "a": 1,\n "a": 2}}')
    taken = tmp_path / "t.json"
    taken.write_text("{}")
    template = cli(
        "convert", "--in", str(parent), "--template", str(taken), "--price-card", str(card)
    )
    assert template.code == 2
    assert _codes(template.err) == ["OUT-EXISTS", "PRICE-CARD-INVALID"]
    assert "PRICE-CARD-INVALID [line 4]" in template.err

    key = tmp_path / "signing.pem"
    key.write_text("not a key")
    key.chmod(0o644)
    bundle = _convert(
        cli, parent, tmp_path / "missing.json", tmp_path / "b.json", "--attest-key", str(key)
    )
    assert bundle.code == 2
    # no key at all: said so, not "chmod 600" first and "not a key" a run later
    assert _codes(bundle.err) == ["CONTRACT-UNREADABLE", "ATTEST-KEY-INVALID"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["card.json", "signing.pem", "t.json"]


def _never_read(*_: Any, **__: Any) -> Any:
    raise AssertionError("the sources were read before the run's first refusals were said")


def test_a_bad_pseudonym_key_is_said_with_the_other_options_problems(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: a missing or invalid --key-file alone, and the unknown card, the existing output,
    the missing signing key a run later (scan: the card first, the key a run later), where
    docs/commands.md says the key is checked with them, together."""
    monkeypatch.setattr("converter.cli.convert.read_sources", _never_read)
    parent = fixture_parent("synthetic_tree")
    missing, junk = tmp_path / "no.key", tmp_path / "junk.key"
    junk.write_text("not a key")
    junk.chmod(0o600)
    taken = tmp_path / "t.json"
    taken.write_text("{}")
    card = ("--price-card", "no-such-card")
    template = cli("convert", "--in", str(parent), "--template", str(taken), *card)
    assert _codes(template.err) == ["OUT-EXISTS", "PRICE-CARD-UNKNOWN"]  # the key is fine
    for key, code in ((missing, "KEY-FILE-MISSING"), (junk, "KEY-INVALID")):
        keyed = ("--key-file", str(key))
        template = cli("convert", "--in", str(parent), "--template", str(taken), *card, *keyed)
        assert template.code == 2
        assert sorted(_codes(template.err)) == sorted([code, "OUT-EXISTS", "PRICE-CARD-UNKNOWN"])
        signing = ("--attest-key", str(tmp_path / "no.pem"))
        bundle = _convert(cli, parent, tmp_path / "no.json", tmp_path / "b.json", *signing, *keyed)
        assert bundle.code == 2
        assert sorted(_codes(bundle.err)) == sorted(
            [code, "CONTRACT-UNREADABLE", "ATTEST-KEY-UNREADABLE"]
        )
        inspected = cli("inspect", "--in", str(parent), *card, *keyed)
        assert inspected.code == 2
        assert sorted(_codes(inspected.err)) == sorted([code, "PRICE-CARD-UNKNOWN"])
        scanned = cli("scan", str(tmp_path / "no-projects"), *card, *keyed)
        assert scanned.code == 2
        assert sorted(_codes(scanned.err)) == sorted(
            [code, "PRICE-CARD-UNKNOWN", "CC-TREE-PROJECTS-MISSING"]
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junk.key", "t.json"]


def test_a_template_run_refused_for_its_options_makes_no_key(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review: with no key yet, `convert --template` over an existing output (or with an
    unknown card) created the pseudonym key and then refused (upgrading.md 0.6.22: a refused
    run makes no new key); the key was looked for before the other options' files."""
    from converter.cli.convert import read_sources

    monkeypatch.delenv("AGENT_EVIDENCE_KEY")
    monkeypatch.setattr("converter.cli.convert.read_sources", _never_read)
    parent = fixture_parent("synthetic_tree")
    taken = tmp_path / "t.json"
    taken.write_text("{}")
    config = tmp_path / "config"
    result = cli("convert", "--in", str(parent), "--template", str(taken))
    assert _codes(result.err) == ["OUT-EXISTS"]
    card = ("--price-card", "no-such-card")
    result = cli("convert", "--in", str(parent), "--template", str(tmp_path / "n.json"), *card)
    assert _codes(result.err) == ["PRICE-CARD-UNKNOWN"]
    assert "created a new pseudonym key" not in result.err
    assert not config.exists()
    # nor one whose --in names nothing (said at the option, as the tree's reading says it)
    gone = cli(
        "convert", "--in", str(tmp_path / "gone.jsonl"), "--template", str(tmp_path / "n.json")
    )
    assert _codes(gone.err) == ["CC-TREE-PARENT-MISSING"]
    assert "CC-TREE-PARENT-MISSING [--in]" in gone.err
    assert not config.exists()
    monkeypatch.setattr("converter.cli.convert.read_sources", read_sources)
    # sound options: the key is made, and the run goes on to the sources
    made = cli("convert", "--in", str(parent), "--template", str(tmp_path / "n.json"))
    assert made.code == 0, made.err
    assert "created a new pseudonym key" in made.err
    assert (config / "agent-evidence" / "pseudonym.key").exists()


def test_a_contract_that_is_no_contract_is_said_with_the_other_options_problems(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: a hand-edited contract with a stray comma (or a bundle given as --contract) was
    said only a run after a mistyped --attest-key path, and alone: the tree was not read either
    (commands.md: a contract that is no contract is checked first, with the options)."""
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    bundle = tmp_path / "b.json"
    assert _convert(cli, parent, contract, bundle).code == 0
    text = contract.read_text()
    end = text.rindex("}")
    comma = tmp_path / "comma.json"
    comma.write_text(text[:end].rstrip() + ",\n}\n")
    monkeypatch.setattr("converter.cli.convert.read_sources", _never_read)
    signing = ("--attest-key", str(tmp_path / "no.pem"))
    for given, code in ((comma, "CONTRACT-UNREADABLE"), (bundle, "CONTRACT-IS-A-BUNDLE")):
        result = _convert(cli, parent, given, tmp_path / "out.json", *signing)
        assert result.code == 2
        assert _codes(result.err) == [code, "ATTEST-KEY-UNREADABLE"]
        assert not (tmp_path / "out.json").exists()


def _places(err: str) -> list[tuple[str, str | None]]:
    """Each refusal's code and the place it is said at (`[...]`), None for none."""
    found = re.findall(r"^refused: ([A-Z0-9-]+)(?: \[([^\]]*)\])?: ", err, re.MULTILINE)
    return [(code, where or None) for code, where in found]


def test_a_refusal_of_a_file_an_option_names_names_the_option(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: KEY-FILE-MISSING, PRICE-CARD-OTHER-FILE, ATTEST-KEY-UNREADABLE, OUT-EXISTS,
    OUT-IN-SESSION-TREE (of --out), CC-TREE-PARENT-MISSING, CC-BODY-DIR-UNREADABLE said with no
    place at all, where KEY-INVALID says `[--key-file]`; the path itself is never said."""
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", "de" * 32)
    parent = fixture_parent("synthetic_tree")
    contract = _contract(cli, parent, tmp_path)
    named = tmp_path / "named-by-the-user"
    named.mkdir()
    taken = named / "t.json"
    taken.write_text("{}")
    policy = named / "policy.json"
    write_json(policy, {"policy": {}})
    in_tree = parent.parent / parent.stem / "b.json"
    runs = {
        ("KEY-FILE-MISSING", "--key-file"): ("--key-file", str(named / "no.key")),
        ("PRICE-CARD-OTHER-FILE", "--price-card"): ("--price-card", str(policy)),
        ("OUT-EXISTS", "--template"): (),
    }
    for (code, where), extra in runs.items():
        result = cli("convert", "--in", str(parent), "--template", str(taken), *extra)
        assert result.code == 2
        assert (code, where) in _places(result.err), result.err
    signing = ("--attest-key", str(named / "no.pem"))
    result = _convert(cli, parent, contract, in_tree, *signing)
    assert result.code == 2
    assert _places(result.err)[0] == ("OUT-IN-SESSION-TREE", "--out")
    assert ("ATTEST-KEY-UNREADABLE", "--attest-key") in _places(result.err)
    public = ("--public-key", str(named / "no.pub"))
    bundle = tmp_path / "b.json"
    assert _convert(cli, parent, contract, bundle).code == 0
    result = cli("verify", "--bundle", str(bundle), *public)
    assert ("ATTEST-KEY-UNREADABLE", "--public-key") in _places(result.err)
    result = cli("keygen", "--out", str(taken))
    assert _places(result.err) == [("ATTEST-KEY-EXISTS", "--out")]
    for command in ("inspect", "convert"):
        args = ("--template", str(named / "new.json")) if command == "convert" else ()
        result = cli(command, "--in", str(named / "gone.jsonl"), *args)
        assert _places(result.err) == [("CC-TREE-PARENT-MISSING", "--in")]
        bodies = ("--provider-bodies", str(named / "no-bodies"))
        result = cli(command, "--in", str(parent), *args, *bodies)
        assert ("CC-BODY-DIR-UNREADABLE", "--provider-bodies") in _places(result.err)
        assert "named-by-the-user" not in result.err
    assert not in_tree.exists()
    assert sorted(p.name for p in named.iterdir()) == ["policy.json", "t.json"]


def test_a_shape_error_does_not_hide_the_null_claims_beside_it(cli: Any, tmp_path: Path) -> None:
    """Was: a section with one shape error was reported by that error alone, and its null
    claims only on the next run (SPEC §7: every problem it finds)."""

    def edit(contract: dict[str, Any]) -> None:
        outcome = next(iter(contract["claims"]["outcomes"].values()))
        outcome["acceptable"] = None
        outcome["human_minutes"] = "-3"
        contract["claims"]["policy"]["min_tasks"] = None
        contract["claims"]["policy"]["max_calls_per_task"] = -1
        contract["claims"]["policy"]["typo_field"] = None  # no such field: shape, not a claim

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    policy = list(read_json(tmp_path / "contract.json")["claims"]["policy"])
    policy_keys = policy.index("typo_field") + 1  # its place as the file holds it
    found = [line.split(" (expected")[0].split("]")[0] for line in result.err.splitlines()]
    task = next(line for line in found if "/human_minutes" in line).split("/")[2]
    assert sorted(found) == sorted(
        [
            f"refused: CONTRACT-SHAPE [claims/outcomes/{task}/human_minutes",
            "refused: CONTRACT-SHAPE [claims/policy/max_calls_per_task",
            f"refused: CONTRACT-SHAPE [claims/policy/<key #{policy_keys}>",
            f"refused: CONTRACT-CLAIM-NULL [claims/outcomes/{task}/acceptable",
            "refused: CONTRACT-CLAIM-NULL [claims/policy/min_tasks",
        ]
    )


def test_a_fifo_given_as_price_card_or_beside_the_bundle_does_not_block(tmp_path: Path) -> None:
    """Was: `--price-card` naming a FIFO (or a FIFO at <out>.intoto.json) blocked forever."""
    parent = fixture_parent("synthetic_tree")
    fifo = tmp_path / "card.fifo"
    os.mkfifo(fifo)
    os.mkfifo(tmp_path / "b.json.intoto.json")
    run = [sys.executable, "-m", "converter", "convert", "--in", str(parent)]
    card = subprocess.run(
        [*run, "--template", str(tmp_path / "t.json"), "--price-card", str(fifo)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert card.returncode == 2
    assert card.stderr.startswith("refused: PRICE-CARD-UNREADABLE")
    contract = str(FIXTURES / "synthetic_contract.json")
    env = dict(os.environ, AGENT_EVIDENCE_KEY="de" * 32)
    bundle = subprocess.run(
        [*run, "--contract", contract, "--out", str(tmp_path / "b.json")],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    # Refused before any work, never removed (it was, as a stale attestation): not an output's
    assert bundle.returncode == 2, bundle.stderr
    assert "refused: OUT-NOT-A-FILE" in bundle.stderr
    assert stat.S_ISFIFO(os.lstat(tmp_path / "b.json.intoto.json").st_mode)


@pytest.mark.parametrize(
    ("section", "field", "value"),
    [
        ("outcome_contract", "rubric_version", "rubric v1"),
        ("outcome_contract", "label_source", "home/alice"),
        ("baseline", "name", "Alice Smith"),
    ],
)
def test_a_published_label_is_one_word(
    cli: Any, tmp_path: Path, section: str, field: str, value: str
) -> None:
    """Was: a space and a slash were taken, though README promises no phrase, path or address
    (the three labels are published as typed)."""
    result = _convert_edited(cli, tmp_path, lambda c: c["claims"][section].update({field: value}))
    assert result.code == 2
    assert result.err.startswith(f"refused: CONTRACT-SHAPE [claims/{section}/{field} (expected: ")
    assert value not in result.err


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("-1", 'a decimal >= 0, as a string such as "0.30" or as a number'),
        (-1, "a number >= 0"),
    ],
)
def test_negative_money_is_told_the_bound_not_the_form(
    cli: Any, tmp_path: Path, value: Any, said: str
) -> None:
    """A walkthrough: `"remediation_cost_usd": "-1"` was told "expected: a number >= 0", which
    read as if money written as a string (as README allows) were the fault."""

    def edit(contract: dict[str, Any]) -> None:
        task = next(iter(contract["claims"]["outcomes"]))
        contract["claims"]["outcomes"][task]["remediation_cost_usd"] = value

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    assert f"remediation_cost_usd (expected: {said})" in result.err


def test_a_rate_above_one_is_told_an_example_within_its_bound(cli: Any, tmp_path: Path) -> None:
    """A walkthrough: `"min_acceptable_rate": "2"` was told `a decimal <= 1, as a string such
    as "40"`, an example its own bound refused."""

    def edit(contract: dict[str, Any]) -> None:
        contract["claims"]["policy"]["min_acceptable_rate"] = "2"

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    assert (
        'min_acceptable_rate (expected: a decimal <= 1, as a string such as "1" or as a number)'
        in (result.err)
    )


@pytest.mark.parametrize(("value", "example"), [("-1", '"0.30"'), ("high", '"1" or "0.30"')])
def test_a_rate_below_zero_or_of_no_number_is_told_an_example_a_rate_takes(
    cli: Any, tmp_path: Path, value: str, example: str
) -> None:
    """A review: `"min_acceptable_rate": "-1"` was told `such as "40"` (money's example), which
    its own upper bound of 1 refuses; so was a rate that is no number at all."""

    def edit(contract: dict[str, Any]) -> None:
        contract["claims"]["policy"]["min_acceptable_rate"] = value

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    assert "min_acceptable_rate (expected: a decimal" in result.err
    assert f"such as {example}" in result.err
    assert '"40"' not in result.err


def test_a_shape_error_in_outcomes_does_not_hide_a_missing_or_unknown_task(
    cli: Any, tmp_path: Path
) -> None:
    """Was: with one outcome of the wrong type, the task left without an outcome and the one
    the sources do not have were only named on the next run."""

    def edit(contract: dict[str, Any]) -> None:
        outcomes = contract["claims"]["outcomes"]
        (task,) = outcomes
        moved = outcomes.pop(task)
        moved["acceptable"] = "yes"
        outcomes["task-000000000000"] = moved

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    found = sorted(line.split(" (expected")[0].split("]")[0] for line in result.err.splitlines())
    assert found[0].startswith("refused: CONTRACT-OUTCOME-MISSING [claims/outcomes/task-")
    assert found[1:] == [
        "refused: CONTRACT-OUTCOME-UNKNOWN-TASK [claims/outcomes/task-000000000000",
        "refused: CONTRACT-SHAPE [claims/outcomes/task-000000000000/acceptable",
    ]


def test_a_shape_error_in_pricing_does_not_hide_a_null_or_negative_price(
    cli: Any, tmp_path: Path
) -> None:
    """Was: one price of the wrong type made the whole pricing section wait, its null and
    negative prices named only on the next run."""

    def edit(contract: dict[str, Any]) -> None:
        pricing = contract["claims"]["pricing"]
        (model,) = pricing["models"]
        pricing["models"][model]["tiers"][0]["cache_read"] = ["0.5"]  # the wrong type
        pricing["models"][model]["tiers"][0]["output"] = None
        pricing["client_tools"]["Read"] = "-1"

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    codes = sorted(line.split()[1] for line in result.err.splitlines())
    assert codes == ["CONTRACT-SHAPE", "PRICE-NEGATIVE", "PRICE-NULL"]
    assert "claims/pricing/models/claude-opus-4-8/tiers/0/output" in result.err
    assert "claims/pricing/client_tools/Read" in result.err


def test_a_revealed_name_the_session_lacks_is_not_published(cli: Any, tmp_path: Path) -> None:
    """Was: every name typed into privacy.reveal_names went into the receipt (and the signed
    predicate), even one that matched nothing and so revealed nothing."""

    def edit(contract: dict[str, Any]) -> None:
        contract["claims"]["privacy"]["reveal_names"] = ["Read", "AcmeInternalTool"]

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 0, result.err
    bundle = read_json(tmp_path / "b.json")
    assert bundle["receipt"]["privacy"]["reveal_names"] == ["Read"]
    assert "AcmeInternalTool" not in (tmp_path / "b.json").read_text()


def test_a_null_where_the_schema_takes_none_is_a_shape_error_only(cli: Any, tmp_path: Path) -> None:
    """`disabled_checks: null` is no claim left to fill (the template writes `[]`): one shape
    error, not also CONTRACT-CLAIM-NULL."""

    def edit(contract: dict[str, Any]) -> None:
        contract["claims"]["policy"]["disabled_checks"] = None

    result = _convert_edited(cli, tmp_path, edit)
    codes = [line.split()[1] for line in result.err.splitlines()]
    assert codes == ["CONTRACT-SHAPE"], result.err


def test_a_template_over_its_own_input_is_not_told_to_pass_force(cli: Any) -> None:
    """Was: OUT-SAME-AS-INPUT and OUT-EXISTS ("pass --force"), which still refused with it."""
    parent = fixture_parent("synthetic_tree")
    result = cli("convert", "--in", str(parent), "--template", str(parent))
    assert [line.split()[1].rstrip(":") for line in result.err.splitlines()] == [
        "OUT-SAME-AS-INPUT"
    ]


def test_a_label_of_the_wrong_form_is_told_the_form(cli: Any, tmp_path: Path) -> None:
    """Was 'expected: text of the documented form', a form README alone described."""

    def edit(data: dict[str, Any]) -> None:
        data["claims"]["outcome_contract"]["rubric_version"] = "my rubric v1"

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    assert (
        "CONTRACT-SHAPE [claims/outcome_contract/rubric_version (expected: text matching "
        "^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,63}$)]" in result.err
    )
    assert "my rubric" not in result.err


def test_a_reveal_name_that_matches_nothing_is_said_by_place_not_by_name(
    cli: Any, tmp_path: Path
) -> None:
    """Was silent: a typo in reveal_names (`mcp__tavily__tavily_serch`) converted and revealed
    nothing, and the user believed the tool was published under its name."""

    def edit(data: dict[str, Any]) -> None:
        data["claims"]["privacy"]["reveal_names"] = ["mcp__CANARY-typo__serch", "Read"]

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 0, result.err
    assert "notice: 1 name in claims.privacy.reveal_names matched nothing" in result.err
    assert "  claims/privacy/reveal_names/0\n" in result.err  # by its index, not its text
    assert "CANARY" not in result.err + result.out


def test_a_card_priced_model_first_used_after_labelling_is_priced_from_the_carried_card(
    cli: Any, tmp_path: Path
) -> None:
    """Was: a session that switched to Sonnet 4.5 (two tiers on the card) after its contract was
    filled under anthropic-2026-11 made `--from-contract` refuse PRICE-CARD-MISMATCH on the new,
    blank entry; a one-tier model was left null for the user to copy from the card by hand."""
    parent = _copy_tree("synthetic_tree", tmp_path)
    template = tmp_path / "template.json"
    args = ["convert", "--in", str(parent), "--template"]
    assert cli(*args, str(template), "--price-card", "anthropic-2026-11").code == 0
    data = read_json(template)
    card_prices = copy.deepcopy(data["claims"]["pricing"])
    fill(data)
    for name, entry in card_prices["models"].items():  # the card's prices stay, as filled
        data["claims"]["pricing"]["models"][name]["tiers"] = entry["tiers"]
    contract = tmp_path / "contract.json"
    write_json(contract, data)
    child = next(parent.parent.glob("*/subagents/*.jsonl"))
    rename_own_model(child, parent, "claude-opus-4-8", "claude-sonnet-4-5-20250929")
    again = tmp_path / "again.json"
    result = cli(*args, str(again), "--from-contract", str(contract))
    assert result.code == 0, result.err
    pricing = read_json(again)["claims"]["pricing"]
    assert pricing["price_card"] == data["claims"]["pricing"]["price_card"]
    card = read_json(ROOT / "contracts" / "price-cards" / "anthropic-2026-11.json")
    sonnet = pricing["models"]["claude-sonnet-4-5-20250929"]
    shipped = card["models"]["claude-sonnet-4-5-20250929"]
    assert len(sonnet["tiers"]) == len(shipped["tiers"]) == 2
    assert sonnet["max_output_tokens"] == shipped["max_output_tokens"]
    assert (
        pricing["models"]["claude-opus-4-8"]
        == data["claims"]["pricing"]["models"]["claude-opus-4-8"]
    )
    # Only the new model's contexts are left to fill: the count says so.
    nulls = sum(value is None for value in sonnet["contexts"].values())
    assert (
        f"fill its {nulls} null claim" in result.out
        if nulls
        else "every claim is filled" in result.out
    )


def test_a_policy_file_fills_the_policy_baseline_and_rubric_of_every_template(
    cli: Any, tmp_path: Path
) -> None:
    """Was: contracts/examples/policy-and-baseline.json pasted into each contract by hand, and
    any drift between two of them EVAL-WORKLOAD-MISMATCH."""
    example = read_json(ROOT / "contracts" / "examples" / "policy-and-baseline.json")
    team = {**example, "outcome_contract": {"rubric_version": "r2", "label_source": "review"}}
    policy = tmp_path / "team.json"
    write_json(policy, team)
    parent = fixture_parent("synthetic_tree")
    out = tmp_path / "t.json"
    result = cli("convert", "--in", str(parent), "--template", str(out), "--policy", str(policy))
    assert result.code == 0, result.err
    claims = read_json(out)["claims"]
    assert claims["policy"] == {**team["policy"], "disabled_checks": []}
    assert claims["baseline"] == team["baseline"]
    assert claims["outcome_contract"] == team["outcome_contract"]
    # It wins over a carried contract's (typed beats carried), and leaves the rest carried.
    old = tmp_path / "old.json"
    write_json(old, fill(read_json(out)))
    team["policy"]["min_tasks"] = 7
    write_json(policy, team)
    again = tmp_path / "again.json"
    args = ["convert", "--in", str(parent), "--template", str(again), "--from-contract", str(old)]
    replaced = cli(*args, "--policy", str(policy))
    assert replaced.code == 0
    # each carried claim the file replaces is named (a walkthrough: limits changed unremarked)
    assert "notice: the --policy file replaced 12 claims the --from-contract contract held: " in (
        replaced.err
    )
    assert "policy/min_tasks, policy/repetition_warning_threshold, baseline/name" in replaced.err
    carried = read_json(again)["claims"]
    assert carried["policy"]["min_tasks"] == 7
    assert carried["outcomes"] == read_json(old)["claims"]["outcomes"]
    # A file that states one limit changes that one: the carried others stay (a fix audit:
    # they became null, and the template said only "fill its 9 null claims").
    write_json(policy, {"policy": {"min_tasks": 3}})
    partial = tmp_path / "partial.json"
    args[4] = str(partial)
    assert cli(*args, "--policy", str(policy)).code == 0
    kept = read_json(partial)["claims"]
    assert kept["policy"] == {**read_json(old)["claims"]["policy"], "min_tasks": 3}
    assert kept["baseline"] == read_json(old)["claims"]["baseline"]


def test_a_policy_file_sets_the_disabled_gates_as_evaluate_holds_bundles_to_them(
    cli: Any, tmp_path: Path
) -> None:
    """Was: a carried disabled gate stayed when the file listed none, and `evaluate --policy`
    with the same file refused the bundle (EVAL-POLICY-MISMATCH at policy/disabled_checks),
    its fix the same command again (an audit)."""
    parent = fixture_parent("synthetic_tree")
    first = tmp_path / "first.json"
    assert cli("convert", "--in", str(parent), "--template", str(first)).code == 0
    old = fill(read_json(first))
    old["claims"]["policy"]["disabled_checks"] = ["acceptable-rate"]
    write_json(tmp_path / "old.json", old)
    policy = tmp_path / "team.json"
    write_json(policy, {"policy": {"min_tasks": 1}})
    again = tmp_path / "again.json"
    made = _carry(cli, parent, tmp_path / "old.json", tmp_path, "--policy", str(policy))
    assert made.code == 0, made.err
    assert "disabled and the --policy file does not (acceptable-rate) are enabled again" in (
        made.err
    )
    contract = read_json(again)
    assert contract["claims"]["policy"]["disabled_checks"] == []
    assert contract["claims"]["policy"]["min_tasks"] == 1
    write_json(tmp_path / "c.json", contract)
    bundle = tmp_path / "b.json"
    assert _convert(cli, parent, tmp_path / "c.json", bundle).code == 0
    decided = cli("evaluate", "--bundle", str(bundle), "--policy", str(policy))
    assert "EVAL-POLICY-MISMATCH" not in decided.err, decided.err
    assert decided.code in (0, 3, 4), decided.err


@pytest.mark.parametrize(
    ("body", "code", "where"),
    [
        (
            b'{"policy": {"min_tasks": "many"}}',
            "CONTRACT-POLICY-FILE-SHAPE",
            "policy/min_tasks",
        ),
        (
            b'{"policy": {"min_tasks": 1, "min_taks": 1}}',
            "CONTRACT-POLICY-FILE-SHAPE",
            "policy/<key #2>",
        ),
        (
            b'{"policy": {}, "pricing": {}}',
            "CONTRACT-POLICY-FILE-SHAPE",
            "<key #2> (expected: no such field",
        ),
        (b"{}", "CONTRACT-POLICY-FILE-SHAPE", "whole file (expected: at least one of"),
        # a section mistyped: the one meant, as a field within a section is (a walkthrough)
        (
            b'{"polcy": {"min_tasks": 3}}',
            "CONTRACT-POLICY-FILE-SHAPE",
            "<key #1> (expected: no such field; the file holds policy, baseline, "
            "outcome_contract; did you mean policy?)",
        ),
        (
            b'{"policy": {"disabled_checks": ["sample-sizes"]}}',  # a gate id no release has
            "CONTRACT-UNKNOWN-CHECK",
            "policy/disabled_checks/0",
        ),
        # an id in the wrong spelling (underscore): was the id pattern's regex, where the same
        # in a contract named the gate ids known (a walkthrough)
        (
            b'{"policy": {"disabled_checks": ["p95-task-cost", 7, "sample_size"]}}',
            "CONTRACT-UNKNOWN-CHECK",
            "policy/disabled_checks/2]: ",
        ),
        (b'{"policy": {"min_tasks": 1,}}', "CONTRACT-POLICY-FILE-UNREADABLE", "line 1"),
        # a bundle given (a walk-through: a `<key #N>` line for ten of its twelve fields)
        (
            b'{"schema_version": "agent-evidence/bundle/v1", "policy": {}, "events": []}',
            "CONTRACT-POLICY-FILE-SHAPE",
            "whole file (expected: a policy file: the policy, baseline, outcome_contract "
            "sections of a contract's claims, not a bundle)",
        ),
        # a whole contract given (a walk-through: it was one `<key>` line, never saying so)
        (
            b'{"schema_version": "1", "claims": {"policy": {}}, "tasks": []}',
            "CONTRACT-POLICY-FILE-SHAPE",
            "whole file (expected: a policy file: the policy, baseline",
        ),
    ],
)
def test_a_bad_policy_file_is_refused_by_field_and_writes_nothing(
    cli: Any, tmp_path: Path, body: bytes, code: str, where: str
) -> None:
    policy = tmp_path / "team.json"
    policy.write_bytes(body)
    out = tmp_path / "t.json"
    parent = fixture_parent("synthetic_tree")
    result = cli("convert", "--in", str(parent), "--template", str(out), "--policy", str(policy))
    assert result.code == 2
    assert result.err.startswith(f"refused: {code} [{where}")
    assert "min_taks" not in result.err  # a key typed is never echoed (SPEC §6.4)
    assert "polcy" not in result.err
    assert not out.exists()
    wrong = cli(
        "convert",
        "--in",
        str(parent),
        "--contract",
        str(out),
        "--out",
        str(tmp_path / "b"),
        "--policy",
        str(policy),
    )
    assert wrong.code == 64
    assert "--policy only applies with --template" in wrong.err


@pytest.mark.parametrize("tree", ["synthetic_tree", "rich_tree"])
def test_inspect_prices_a_session_by_a_card_as_a_contract_of_its_prices_would(
    cli: Any, tmp_path: Path, tree: str
) -> None:
    """`inspect --price-card` needs no contract: its interval is the model calls' cost in the
    bundles of a contract holding the card's prices, under either unsplit-cache rule."""
    parent = fixture_parent(tree)
    template = tmp_path / "t.json"
    made = ["convert", "--in", str(parent), "--template", str(template)]
    assert cli(*made, "--price-card", "anthropic-2026-11").code == 0
    card_prices = read_json(template)["claims"]["pricing"]

    def priced(event: dict[str, Any]) -> bool:  # by the card: a model and context it prices
        entry = card_prices["models"][event["model"]]
        if any(value is None for tier in entry["tiers"] for value in tier.values()):
            return False
        key = event["pricing"]["context"]
        return entry["contexts"][key] is not None or unrecorded_else_standard(key)

    totals = []
    for rule in ("5m", "1h"):
        contract = fill(read_json(template))
        for name, entry in card_prices["models"].items():  # the card's, not fill's own
            if all(value is not None for tier in entry["tiers"] for value in tier.values()):
                mine = contract["claims"]["pricing"]["models"][name]
                mine["tiers"] = entry["tiers"]
                mine["max_output_tokens"] = entry["max_output_tokens"]
                stated = {k: v for k, v in entry["contexts"].items() if v is not None}
                mine["contexts"] = {**mine["contexts"], **stated}
        contract["claims"]["pricing"]["unsplit_cache_write_rule"] = rule
        path = tmp_path / f"c-{rule}.json"
        write_json(path, contract)
        out = tmp_path / f"b-{rule}.json"
        assert _convert(cli, parent, path, out).code == 0
        events = read_json(out)["events"]
        on_card = [e for e in events if e["kind"] == "model" and priced(e)]
        totals.append(
            (
                sum(Decimal(e["cost"]["low"]) for e in on_card),
                sum(Decimal(e["cost"]["high"]) for e in on_card),
            )
        )
    result = cli("inspect", "--in", str(parent), "--json", "--price-card", "anthropic-2026-11")
    cost = json.loads(result.out)["card_cost"]
    models = [e for e in read_json(tmp_path / "b-1h.json")["events"] if e["kind"] == "model"]
    assert cost["model_calls_priced"] == sum(priced(e) for e in models)
    assert cost["model_calls_not_priced"] == len(models) - cost["model_calls_priced"]
    assert sum(cost["not_priced_for_lack_of"].values()) == cost["model_calls_not_priced"]
    amounts = [cost["low_usd"], cost["high_usd"]]
    amounts += [v for m in cost["by_model"].values() for v in (m["low_usd"], m["high_usd"])]
    assert all(Decimal(a) >= 0 and "E" not in a for a in amounts)  # positional, never 0E-10
    assert cost["price_card"] == "anthropic-2026-11"
    assert Decimal(cost["low_usd"]) == min(low for low, _ in totals)
    assert Decimal(cost["high_usd"]) == max(high for _, high in totals)
    text = cli("inspect", "--in", str(parent), "--price-card", "anthropic-2026-11").out
    assert "cost by price card anthropic-2026-11: $" in text


def test_inspect_with_a_card_it_cannot_read_is_refused_before_the_tree_is_read(
    cli: Any, tmp_path: Path
) -> None:
    result = cli("inspect", "--in", str(tmp_path / "nowhere.jsonl"), "--price-card", "no-such")
    assert result.code == 2
    assert result.err.startswith("refused: PRICE-CARD-UNKNOWN [shipped: anthropic-2026-")
    assert "no-such" not in result.err  # what was typed is not said back


def _last_call_unfinished(parent: Path) -> None:
    """The synthetic parent's last call as a streaming stub: no final usage (usage-incomplete)."""
    lines = parent.read_text().splitlines(keepends=True)
    last = json.loads(lines[8])
    assert last["message"]["stop_reason"] == "end_turn"
    last["message"]["stop_reason"] = None
    del last["message"]["usage"]["iterations"]
    lines[8] = json.dumps(last) + "\n"
    parent.write_text("".join(lines))


def test_the_count_of_values_to_fill_includes_a_bound_a_usage_incomplete_call_needs(
    cli: Any, tmp_path: Path
) -> None:
    """Was: "every claim is filled: convert --contract" over a contract that convert then
    refused PRICE-MAX-OUTPUT-MISSING: max_output_tokens may be null, unless a call needs it."""
    parent = _copy_tree("synthetic_tree", tmp_path)
    _last_call_unfinished(parent)
    template = tmp_path / "t.json"
    assert cli("convert", "--in", str(parent), "--template", str(template)).code == 0
    filled = fill(read_json(template))
    for entry in filled["claims"]["pricing"]["models"].values():
        entry["max_output_tokens"] = None
    contract = tmp_path / "c.json"
    write_json(contract, filled)
    result = _carry(cli, parent, contract, tmp_path)
    assert result.code == 0, result.err
    assert "fill its 1 null claim, then convert --contract" in result.out
    refused = _convert(cli, parent, contract, tmp_path / "b.json")
    assert "PRICE-MAX-OUTPUT-MISSING" in refused.err


def test_a_card_without_max_output_tokens_prices_the_recorded_usage_with_no_high_end(
    cli: Any, tmp_path: Path
) -> None:
    """Was: a usage-incomplete call of a model the card prices but gives no max_output_tokens
    (Opus 4 on the shipped card) was left out of the figure whole (a walkthrough: a 1.0.x
    session of 166 such calls read $0.05 against $2.39 of recorded tokens). Its recorded usage
    is what it cost at least: in the low end, the high end no bound."""
    parent = _copy_tree("synthetic_tree", tmp_path)
    for transcript in parent.parent.rglob("*.jsonl"):
        text = transcript.read_text().replace("claude-opus-4-8", "claude-opus-4-20250514")
        transcript.write_text(text)
    _last_call_unfinished(parent)
    args = ["inspect", "--in", str(parent), "--json", "--price-card"]
    cost = json.loads(cli(*args, "anthropic-2026-11").out)["card_cost"]
    assert cost["not_priced_for_lack_of"] == {}
    assert (cost["model_calls_priced"], cost["model_calls_not_priced"]) == (4, 0)
    assert cost["model_calls_no_max_output"] == 1
    assert cost["by_model"]["claude-opus-4-20250514"]["model_calls_no_max_output"] == 1
    assert cost["model_calls_usage_incomplete"] == 0  # the calls priced up to a bound
    # the low end is the one a card with the bound gives: the recorded usage, priced
    card = read_json(ROOT / "contracts" / "price-cards" / "anthropic-2026-11.json")
    card["models"]["claude-opus-4-20250514"]["max_output_tokens"] = 32000
    card["id"] = "team-card-with-opus-4-bound"  # another card: not the shipped one's id
    bounded_card = tmp_path / "card.json"
    write_json(bounded_card, card)
    ran = cli(*args, str(bounded_card))
    assert ran.code == 0, ran.err
    bounded = json.loads(ran.out)["card_cost"]
    assert bounded["low_usd"] == cost["low_usd"]
    assert Decimal(bounded["high_usd"]) > Decimal(bounded["low_usd"])
    assert (bounded["model_calls_no_max_output"], bounded["model_calls_usage_incomplete"]) == (0, 1)
    text = cli(*args[:-2], "--price-card", "anthropic-2026-11").out
    assert "– no bound for 4 model calls" in text
    assert (
        "no bound: 1 usage-incomplete call of models the card states no max_output_tokens "
        "for (claude-opus-4-20250514)"
    ) in text


def test_a_call_with_no_input_beside_one_with_no_max_output_names_only_that_model(
    cli: Any, tmp_path: Path
) -> None:
    """Two reasons the high end is open, in one session: a call that recorded no input (a
    subagent's stub, of a model the card bounds) and a usage-incomplete call of a model the card
    gives no max_output_tokens. The no-input line gives no 'without it' span (the other call
    leaves that open too), and the max_output_tokens line names only the model that lacks it."""
    parent = _copy_tree("synthetic_tree", tmp_path)
    lines = parent.read_text().splitlines(keepends=True)
    last = json.loads(lines[8])  # the parent's last call: Opus 4 (no bound on the card), a stub
    last["message"]["model"] = "claude-opus-4-20250514"
    last["message"]["stop_reason"] = None
    del last["message"]["usage"]["iterations"]
    lines[8] = json.dumps(last) + "\n"
    parent.write_text("".join(lines))
    (subagent,) = parent.parent.rglob("agent-*.jsonl")
    rows = subagent.read_text().splitlines(keepends=True)
    stub = json.loads(rows[6])  # the subagent's last call: a stub that recorded no input
    assert stub["message"]["model"] == "claude-opus-4-8"
    stub["message"]["stop_reason"] = None
    stub["message"]["usage"] = {"input_tokens": 0, "output_tokens": 3}
    rows[6] = json.dumps(stub) + "\n"
    subagent.write_text("".join(rows))
    args = ["inspect", "--in", str(parent), "--price-card", "anthropic-2026-11"]
    cost = json.loads(cli(*args, "--json").out)["card_cost"]
    assert (cost["model_calls_unbounded"], cost["model_calls_no_max_output"]) == (1, 1)
    assert sorted(cost["by_model"]) == ["claude-opus-4-20250514", "claude-opus-4-8"]
    shown = cli(*args)
    assert shown.code == 0, shown.err
    assert (
        "no bound: 1 call recorded no input (CC-REC-USAGE-INCOMPLETE-NO-INPUT), which is in "
        "neither end\n"
    ) in shown.out
    assert "without it" not in shown.out
    assert (
        "no bound: 1 usage-incomplete call of models the card states no max_output_tokens "
        "for (claude-opus-4-20250514): "
    ) in shown.out


def test_an_unrecorded_region_is_priced_up_to_the_cards_data_residency_surcharge(
    cli: Any, tmp_path: Path
) -> None:
    """Was (diff review): a call with no `inference_geo` on a model the card surcharges for US
    residency (1.1x) was priced at 1x alone, though the card states what it could have cost."""
    parent = _copy_tree("synthetic_tree", tmp_path)
    for transcript in parent.parent.rglob("*.jsonl"):
        text = transcript.read_text().replace('"inference_geo":"not_available",', "")
        transcript.write_text(text)
    args = ["inspect", "--in", str(parent), "--price-card", "anthropic-2026-11", "--json"]
    cost = json.loads(cli(*args).out)["card_cost"]
    assert cost["model_calls_assumed_standard"] == cost["model_calls_priced"] == 4
    low, high = Decimal(cost["low_usd"]), Decimal(cost["high_usd"])
    assert abs(high - low * Decimal("1.1")) < Decimal("1e-9")


def test_a_misshapen_price_does_not_hide_a_cards_price_edited_beside_it(
    cli: Any, tmp_path: Path
) -> None:
    """Was (fuzzing): a shape error anywhere in claims.pricing left only CONTRACT-SHAPE, and
    PRICE-CARD-MISMATCH came a run later."""
    parent = fixture_parent("synthetic_tree")
    template = tmp_path / "t.json"
    made = ["convert", "--in", str(parent), "--template", str(template)]
    assert cli(*made, "--price-card", "anthropic-2026-11").code == 0
    data = read_json(template)
    prices = copy.deepcopy(data["claims"]["pricing"])
    fill(data)
    data["claims"]["pricing"]["models"] = prices["models"]
    data["claims"]["pricing"]["models"]["claude-opus-4-8"]["tiers"][0]["output"] = "26"
    data["claims"]["pricing"]["client_tools"]["Read"] = {}
    contract = tmp_path / "c.json"
    write_json(contract, data)
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    assert "CONTRACT-SHAPE [claims/pricing/client_tools/Read" in result.err
    assert "PRICE-CARD-MISMATCH [claims/pricing/models/claude-opus-4-8]" in result.err


def test_a_mistyped_task_key_is_said_as_the_key_not_as_a_second_key(
    cli: Any, tmp_path: Path
) -> None:
    """Was `claims/outcomes/<key>/<key>`: pydantic's marker for "the key itself" was masked as
    a second key the user typed, a path into nothing."""

    def edit(data: Any) -> None:
        outcomes = data["claims"]["outcomes"]
        task = next(iter(outcomes))
        outcomes[task[:-1]] = outcomes.pop(task)  # one character short

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    assert "CONTRACT-SHAPE [claims/outcomes/<key #1> (the key) (expected: text matching" in (
        result.err
    )
    assert "<key>/<key>" not in result.err


def test_inspect_with_a_card_that_prices_no_call_says_nothing_priced(
    cli: Any, tmp_path: Path
) -> None:
    """Was `$0.0000 for 0 model calls`, which reads as free: a model the card does not know."""
    src = FIXTURES / "synthetic_tree"
    tree = tmp_path / "tree"
    shutil.copytree(src, tree)
    for path in tree.rglob("*.jsonl"):
        path.write_bytes(path.read_bytes().replace(b"claude-opus-4-8", b"claude-opus-9-9"))
    parent = tree / "65e893e5-a69d-4955-a5e1-5d5ee7bc592e.jsonl"
    text = cli("inspect", "--in", str(parent), "--price-card", "anthropic-2026-11").out
    assert "cost by price card anthropic-2026-11: nothing priced (none of the 4 model" in text
    assert "$0.0000" not in text
    assert "not priced: 4 model calls: a model the card does not know" in text


def test_inspect_with_a_card_that_prices_some_calls_says_of_how_many(
    cli: Any, tmp_path: Path
) -> None:
    """Was `$0.0520 for 4 model calls` where the session had 170 (a walkthrough read it as the
    session's cost): the figure says it is of some calls only, and that the rest are not in it."""
    tree = tmp_path / "tree"
    shutil.copytree(FIXTURES / "synthetic_tree", tree)
    (child,) = tree.rglob("agent-*.jsonl")  # the subagent's 2 calls: a model no card knows
    parent = tree / "65e893e5-a69d-4955-a5e1-5d5ee7bc592e.jsonl"
    rename_own_model(child, parent, "claude-opus-4-8", "claude-opus-9-9")
    text = cli("inspect", "--in", str(parent), "--price-card", "anthropic-2026-11").out
    assert re.search(
        r"cost by price card anthropic-2026-11: \$[0-9.]+ for 2 of the 4 model calls "
        r"\(2 not priced, below, and not in this figure\)",
        text,
    ), text


@pytest.mark.parametrize(("made", "edited"), [("prompt", "session"), ("session", "prompt")])
def test_a_task_unit_edited_after_the_template_is_named_as_the_one_cause(
    cli: Any, tmp_path: Path, made: str, edited: str
) -> None:
    """Was four refusals (inventory, task id and digest, outcomes), each with a fix that did not
    help (make a new template, add the outcome): the one cause, the edited field, is named."""
    parent = fixture_parent("synthetic_tree")
    template = tmp_path / "t.json"
    made_ok = cli("convert", "--in", str(parent), "--task-unit", made, "--template", str(template))
    assert made_ok.code == 0, made_ok.err
    contract = fill(read_json(template))
    contract["source"]["task_unit"] = edited
    write_json(template, contract)
    result = _convert(cli, parent, template, tmp_path / "b.json")
    assert result.code == 2
    refused = [line for line in result.err.splitlines() if line.startswith("refused")]
    assert len(refused) == 1, refused
    assert refused[0].startswith("refused: CONTRACT-TASK-UNIT-EDITED [source/task_unit]")
    # Set back, it converts: the fix works.
    contract["source"]["task_unit"] = made
    write_json(template, contract)
    assert _convert(cli, parent, template, tmp_path / "b.json").code == 0


def test_price_entries_for_nothing_the_session_uses_are_said_by_path(
    cli: Any, tmp_path: Path
) -> None:
    """Was silent: a price for a model, context or tool the session never uses (a typo, a stale
    entry) converted with no word; the bundle carries only the prices its events use."""

    def edit(data: dict[str, Any]) -> None:
        pricing = data["claims"]["pricing"]
        model = next(iter(pricing["models"].values()))
        pricing["models"]["claude-opus-4-9"] = copy.deepcopy(model)  # no call names it
        pricing["models"][next(iter(pricing["models"]))]["contexts"]["priority|fast|us"] = "1"
        pricing["client_tools"]["mcp__CANARY__tool"] = "0.01"
        pricing["server_tools"]["web_search"] = "0.01"  # no call searched
        places.append(len(pricing["client_tools"]))

    places: list[int] = []

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 0, result.err
    (place,) = places
    assert "notice: 4 entries of claims.pricing price nothing this session uses" in result.err
    assert "CANARY" not in result.err + result.out
    # Was the count alone ("a typo?", and which was left to find): each by its path, the tool's
    # name (not a public one) by its place among client_tools as written.
    listed = result.err.split("use:\n", 1)[1].splitlines()[:4]
    assert listed == [
        "  claims/pricing/models/claude-opus-4-8/contexts/priority|fast|us",
        "  claims/pricing/models/claude-opus-4-9",
        f"  claims/pricing/client_tools/<key #{place}>",
        "  claims/pricing/server_tools/web_search",
    ]
    (tmp_path / "plain").mkdir()
    plain = _convert_edited(cli, tmp_path / "plain", lambda data: None)
    assert plain.code == 0, plain.err
    assert "claims.pricing price nothing" not in plain.err


def test_a_key_typed_as_the_markers_own_text_is_still_masked() -> None:
    from converter.contract.read import safe_path

    loc = ("claims", "outcomes", "[key]", "[key]")  # a typed key "[key]", then pydantic's marker
    assert safe_path(loc) == "claims/outcomes/<key> (the key)"
    assert safe_path(("claims", "outcomes", "[key]", "acceptable")) == (
        "claims/outcomes/<key>/acceptable"
    )


def test_a_task_unit_edit_hides_no_file_changed_since(cli: Any, syn: Any, tmp_path: Path) -> None:
    """The edited unit is the cause of every task and count mismatch, not of a file changed
    after the template: that one is still named (diff review)."""
    template = tmp_path / "t.json"
    assert cli("convert", "--in", str(syn.parent), "--template", str(template)).code == 0
    contract = fill(read_json(template))
    contract["source"]["task_unit"] = "session"
    write_json(template, contract)
    title = b'{"type":"ai-title","aiTitle":"later","sessionId":"' + syn.session.encode() + b'"}'
    syn.write_lines("", [*syn.lines(""), title])
    result = _convert(cli, syn.parent, template, tmp_path / "b.json")
    refused = sorted(
        line.split(" [")[0] for line in result.err.splitlines() if line.startswith("refused")
    )
    assert refused == ["refused: CONTRACT-FILE-CHANGED", "refused: CONTRACT-TASK-UNIT-EDITED"]


def test_a_masked_task_key_is_named_by_its_place_as_written(cli: Any, tmp_path: Path) -> None:
    """A key the firewall does not let a message quote was `<key>` alone: with six tasks, a
    user could not tell which one was mistyped. Its place in its object, as the file holds it,
    names it and quotes nothing."""
    parent = fixture_parent("rich_tree")
    contract = _contract(cli, parent, tmp_path)
    data = read_json(contract)
    outcomes = data["claims"]["outcomes"]
    assert len(outcomes) >= 4
    third = list(outcomes)[2]
    # the third key renamed in place (a dict keeps its order; written without sorting)
    data["claims"]["outcomes"] = {
        ("CANARY my note" if key == third else key): value for key, value in outcomes.items()
    }
    data["claims"]["excluded_tasks"] = {"CANARY other": "duplicate"}
    contract.write_text(json.dumps(data, indent=2))
    result = _convert(cli, parent, contract, tmp_path / "b.json")
    assert result.code == 2
    assert "CANARY" not in result.err
    err = result.err
    assert "CONTRACT-SHAPE [claims/outcomes/<key #3> (the key)" in err
    assert "CONTRACT-OUTCOME-UNKNOWN-TASK [claims/outcomes/<key #3>]" in err
    assert "CONTRACT-SHAPE [claims/excluded_tasks/<key #1> (the key)" in err
    assert "CONTRACT-OUTCOME-UNKNOWN-TASK [claims/excluded_tasks/<key #1>]" in err
    assert f"CONTRACT-OUTCOME-MISSING [claims/outcomes/{third}]" in err


def test_a_finding_code_typed_into_a_contract_is_named_by_its_place_not_quoted(
    cli: Any, tmp_path: Path
) -> None:
    """Was `[inventory/findings/ACME-PAYROLL-MIGRATION-JANE-DOE]` (a leak hunt): the code was
    only checked for its shape, so any code-shaped text, of any length, came back whole. A code
    of the catalogue is named as it is; anything else by its place in the list."""
    planted: list[int] = []

    def edit(data: dict[str, Any]) -> None:
        findings = data["inventory"]["findings"]
        findings.append({"code": "ACME-PAYROLL-MIGRATION-JANE-DOE", "count": 1})
        planted.append(len(findings) - 1)

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    assert f"CONTRACT-INVENTORY-MISMATCH [inventory/findings/{planted[0]}]" in result.err
    assert "JANE" not in result.err
    assert "PAYROLL" not in result.err


def test_a_price_written_with_an_exponent_in_a_string_says_what_a_decimal_is(
    cli: Any, tmp_path: Path
) -> None:
    """Was `expected: a value of the documented type and range` for "5e0" (a walkthrough),
    which converts as the JSON number 5e0."""

    def edit(data: dict[str, Any]) -> None:
        model = next(iter(data["claims"]["pricing"]["models"].values()))
        model["tiers"][0]["input"] = "5e0"

    result = _convert_edited(cli, tmp_path, edit)
    assert result.code == 2
    assert 'an optional point ("40", "0.30"), or a number)]' in result.err
    assert "/tiers/0/input (expected: a decimal string of digits" in result.err


@pytest.mark.parametrize("option", ["--policy", "--contract"])
def test_an_input_with_nothing_at_its_path_is_said_so(
    option: str, cli: Any, tmp_path: Path
) -> None:
    """A walkthrough ran the README's `--policy contracts/examples/...` from outside the clone:
    told only "could not be read, or is not valid strict JSON". Nothing at the path is said as
    such (the path itself never is); a file that is there and unreadable is not."""
    parent = str(fixture_parent("synthetic_tree"))
    if option == "--policy":
        args = ["--template", str(tmp_path / "t.json"), "--policy"]
        code = "CONTRACT-POLICY-FILE-UNREADABLE"
    else:
        args = ["--out", str(tmp_path / "b.json"), "--contract"]
        code = "CONTRACT-UNREADABLE"
    missing = cli("convert", "--in", parent, *args, str(tmp_path / "nothere.json"))
    assert missing.code == 2
    assert f"refused: {code} [no such file]:" in missing.err
    assert "nothere" not in missing.err
    fifo = tmp_path / "fifo.json"  # there, and no regular file: refused unopened
    os.mkfifo(fifo)
    there = cli("convert", "--in", parent, *args, str(fifo))
    assert there.code == 2
    assert f"refused: {code}:" in there.err
    assert "no such file" not in there.err


def _long_context_tree(tmp: Path, day: str) -> Path:
    """The synthetic tree as Opus 4.6 calls of `day`, every request above 200,000 input tokens
    (its cache reads), as a session with the 1M window read before it was generally available."""
    parent = _copy_tree("synthetic_tree", tmp)
    for path in parent.parent.rglob("*.jsonl"):
        text = path.read_text().replace("claude-opus-4-8", "claude-opus-4-6")
        text = text.replace('"timestamp":"2026-07-21', f'"timestamp":"{day}')
        text = re.sub(r'"cache_read_input_tokens":\d+', '"cache_read_input_tokens":290000', text)
        path.write_text(text)
    return parent


def _filled_keeping_the_cards_prices(template: Path) -> Any:
    made = read_json(template)
    data = fill(copy.deepcopy(made))
    data["claims"]["pricing"]["models"] = made["claims"]["pricing"]["models"]
    return data


def test_a_cards_one_tier_for_calls_billed_at_an_ended_long_context_rate_is_refused(
    cli: Any, tmp_path: Path
) -> None:
    """Was: Opus 4.6 calls above 200K input made before 2026-03-13 priced at the card's one
    tier, exact-looking, at half what they were billed (a pricing audit), and nothing said so."""
    parent = _long_context_tree(tmp_path, "2026-02-20")
    card = ("--price-card", "anthropic-2026-12")
    shown = cli("inspect", "--in", str(parent), *card)
    assert shown.code == 0, shown.err
    assert "not priced: 4 model calls: more than 200,000 input tokens (input, cache reads and " in (
        shown.out
    )
    template = tmp_path / "template.json"
    made = cli("convert", "--in", str(parent), "--template", str(template), *card)
    assert made.code == 0, made.err
    assert "notice: 4 calls of claude-opus-4-6 had more than 200,000 input tokens" in made.err
    contract = tmp_path / "contract.json"
    data = _filled_keeping_the_cards_prices(template)
    write_json(contract, data)
    refused = _convert(cli, parent, contract, tmp_path / "b.json")
    assert refused.code == 2, refused.err
    assert "PRICE-CARD-TIER-ENDED [claims/pricing/models/claude-opus-4-6]" in refused.err
    assert not (tmp_path / "b.json").exists()
    # The fix it names: the prices your own, with the long-context tier.
    data["claims"]["pricing"]["price_card"] = None
    entry = data["claims"]["pricing"]["models"]["claude-opus-4-6"]
    base = entry["tiers"][0]
    entry["tiers"].append(
        {
            "above_input_tokens": 200000,
            **{k: str(Decimal(v) * 2) for k, v in base.items() if k != "above_input_tokens"},
            "output": str(Decimal(base["output"]) * Decimal("1.5")),
        }
    )
    write_json(contract, data)
    done = _convert(cli, parent, contract, tmp_path / "b.json")
    assert done.code == 0, done.err
    bundle = read_json(tmp_path / "b.json")
    # each call is priced at its long-context tier: 290,000 cache reads at 1.00 per million
    model_events = [e for e in bundle["events"] if e["kind"] == "model"]
    assert len(model_events) == 4
    assert all(e["pricing"]["tier_above_input_tokens"] == 200000 for e in model_events)
    assert all(Decimal(e["cost"]["low"]) > Decimal("0.29") for e in model_events)


def test_calls_after_the_long_context_rate_ended_take_the_cards_one_tier(
    cli: Any, tmp_path: Path
) -> None:
    parent = _long_context_tree(tmp_path, "2026-03-14")
    card = ("--price-card", "anthropic-2026-12")
    template = tmp_path / "template.json"
    made = cli("convert", "--in", str(parent), "--template", str(template), *card)
    assert made.code == 0, made.err
    assert "PRICE-CARD-TIER-ENDED" not in made.err
    contract = tmp_path / "contract.json"
    write_json(contract, _filled_keeping_the_cards_prices(template))
    done = _convert(cli, parent, contract, tmp_path / "b.json")
    assert done.code == 0, done.err


_OPUS_46 = "claude-opus-4-6"


def test_a_hidden_call_of_a_session_after_the_end_is_not_taken_as_before_it(
    cli: Any, tmp_path: Path
) -> None:
    """A review: a hidden call (provider bodies only: a title) crosses with no timestamp, and
    one was counted as before 2026-03-14 in a session of 2026-07-21. It is no earlier than the
    session's start."""
    from tests.test_provider_bodies import (
        PROMPT_ID,
        TITLE,
        add_hidden,
        billing,
        response_name,
        setup,
        usage,
    )

    tree, bodies = setup(tmp_path)
    add_hidden(bodies, TITLE, source="prompt_suggestion", header=billing(cc_prompt_id=PROMPT_ID))
    response = bodies.responses[response_name(TITLE)]
    response["model"] = _OPUS_46
    response["usage"] = usage(10, 12, 290_000, 0)
    assert bodies.lines is not None
    bodies.lines[-1]["model"] = _OPUS_46
    folder = bodies.write()
    work = tmp_path / "run"
    work.mkdir()
    template = work / "t.json"
    made = cli(
        "convert",
        "--in",
        str(tree.parent),
        "--template",
        str(template),
        "--provider-bodies",
        str(folder),
        "--price-card",
        "anthropic-2026-12",
    )
    assert made.code == 0, made.err
    assert read_json(template)["tasks"][0]["started_at"].startswith("2026-07-21")
    assert "PRICE-CARD-TIER-ENDED" not in made.err, made.err


def _tree_with_a_card_model_beside(tmp: Path) -> Path:
    """The synthetic tree's parent calls as Opus 4.6 of 2026-02-20 above 200K input; the
    subagent's own two calls as Sonnet 4.5 (its fork-bootstrap copy, line 2, left as is)."""
    parent = _long_context_tree(tmp, "2026-02-20")
    child = next(parent.parent.rglob("agent-*.jsonl"))
    lines = child.read_text().splitlines(keepends=True)
    child.write_text(
        "".join(
            text.replace(_OPUS_46, "claude-sonnet-4-5-20250929") if n >= 4 else text
            for n, text in enumerate(lines, 1)
        )
    )
    return parent


def test_a_model_a_card_file_does_not_price_is_not_said_to_be_priced_by_its_one_tier(
    cli: Any, tmp_path: Path
) -> None:
    """A review: with a card file (team-card) that prices Sonnet 4.5 but not Opus 4.6, inspect
    counted the Opus calls as lacking a long-context rate (not as a model the card does not
    know), and convert --contract refused the user's own one-tier Opus prices, its fix to drop
    the card that did price Sonnet 4.5. A card file's prices are the user's: never judged."""
    import json

    parent = _tree_with_a_card_model_beside(tmp_path)
    card = json.loads((ROOT / "src/converter/pricing/cards/anthropic-2026-12.json").read_text())
    card["id"] = "team-card"
    del card["models"][_OPUS_46]
    card_file = tmp_path / "team-card.json"
    card_file.write_text(json.dumps(card))
    shown = cli("inspect", "--in", str(parent), "--price-card", str(card_file), "--json")
    assert shown.code == 0, shown.err
    lack = shown.json()["card_cost"]["not_priced_for_lack_of"]
    assert lack == {"model": 2}, lack  # HEAD: {"long-context": 2}
    template = tmp_path / "t.json"
    made = cli(
        "convert", "--in", str(parent), "--template", str(template), "--price-card", str(card_file)
    )
    assert made.code == 0, made.err
    assert "card's one tier does not give" not in made.err, made.err
    t = read_json(template)
    assert t["claims"]["pricing"]["price_card"]["id"] == "team-card"
    assert t["claims"]["pricing"]["models"][_OPUS_46]["tiers"][0]["input"] is None
    data = fill(copy.deepcopy(t))  # own prices for Opus 4.6, one tier
    sonnet = "claude-sonnet-4-5-20250929"
    data["claims"]["pricing"]["models"][sonnet] = t["claims"]["pricing"]["models"][sonnet]
    write_json(tmp_path / "c.json", data)
    done = cli(
        "convert",
        "--in",
        str(parent),
        "--contract",
        str(tmp_path / "c.json"),
        "--out",
        str(tmp_path / "b.json"),
    )
    assert "PRICE-CARD-TIER-ENDED" not in done.err, done.err  # the prices are the user's own


def test_a_session_across_the_end_is_told_no_contract_prices_it_exactly(
    cli: Any, tmp_path: Path
) -> None:
    """A review: the fix (a second tier of your own) prices the calls above 200,000 after the
    end too high, as a contract's tiers have no dates; the notice says so."""
    parent = _long_context_tree(tmp_path, "2026-02-20")
    child = next(parent.parent.rglob("agent-*.jsonl"))
    child.write_text(
        child.read_text().replace('"timestamp":"2026-02-20', '"timestamp":"2026-03-20')
    )
    made = cli(
        "convert",
        "--in",
        str(parent),
        "--template",
        str(tmp_path / "t.json"),
        "--price-card",
        "anthropic-2026-12",
    )
    assert made.code == 0, made.err
    assert "notice: 2 calls of claude-opus-4-6 had more than 200,000 input tokens" in made.err
    assert "but 2 calls above 200,000 after it would take that tier too" in made.err


def test_a_contract_remade_in_place_never_loses_labels_it_does_not_carry(
    cli: Any, tmp_path: Path
) -> None:
    """A review: `--from-contract C --template C --force` with a wrong --in (another session's
    tree) carried none of C's labels and replaced it, exit 0. And a contract labelled but for
    `acceptable` (minutes and value filled) was replaced by --force alone."""
    parent = fixture_parent("synthetic_tree")
    template = tmp_path / "t.json"
    assert cli("convert", "--in", str(parent), "--template", str(template)).code == 0
    contract = tmp_path / "c.json"
    write_json(contract, fill(read_json(template)))
    filled = contract.read_bytes()
    wrong = cli(
        "convert",
        "--in",
        str(fixture_parent("rich_tree")),
        "--template",
        str(contract),
        "--from-contract",
        str(contract),
        "--force",
    )
    assert wrong.code == 2, wrong.err
    assert "OUT-FILLED-CONTRACT" in wrong.err
    assert contract.read_bytes() == filled
    half = read_json(template)
    for outcome in half["claims"]["outcomes"].values():
        outcome.update(human_minutes="90", business_value_usd="250")
    write_json(template, half)
    before = template.read_bytes()
    forced = cli("convert", "--in", str(parent), "--template", str(template), "--force")
    assert forced.code == 2, forced.err
    assert "OUT-FILLED-CONTRACT" in forced.err
    assert template.read_bytes() == before
