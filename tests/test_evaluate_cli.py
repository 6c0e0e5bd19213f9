"""evaluate through the real CLI on bundles converted from the synthetic tree (issue 4)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from converter.devtools.bench.fill import fill
from converter.errors import CODES
from tests.conftest import FIXTURES, fixture_parent
from tests.contract_helpers import read_json, write_json

PARENT = fixture_parent("synthetic_tree")
CONTRACT = FIXTURES / "synthetic_contract.json"
DEMO_KEY = "de" * 32


def _bundle(cli: Any, tmp: Path, name: str, edit: Any = None) -> Path:
    contract = json.loads(CONTRACT.read_text())
    if edit is not None:
        edit(contract["claims"])
    path = tmp / f"{name}.contract.json"
    write_json(path, contract)
    out = tmp / f"{name}.bundle.json"
    result = cli("convert", "--in", str(PARENT), "--contract", str(path), "--out", str(out))
    assert result.code == 0, result.err
    return out


def _outcome(field: str, value: Any) -> Any:
    def edit(claims: dict[str, Any]) -> None:
        for outcome in claims["outcomes"].values():
            outcome[field] = value

    return edit


def _policy(field: str, value: Any) -> Any:
    def edit(claims: dict[str, Any]) -> None:
        claims["policy"][field] = value

    return edit


ROUTES = [
    ("scale", None, "SCALE", 0),
    ("assist", _policy("max_trace_cost_per_task_usd", "0.01"), "ASSIST", 3),  # runtime cap
    ("unacceptable", _outcome("acceptable", False), "STOP", 4),  # no value: net value < min
    ("stop", _policy("min_expected_net_value_per_attempt_usd", "1000"), "STOP", 4),
    ("incomplete", _policy("min_tasks", 5), "INCOMPLETE", 2),
    ("disabled", _policy("disabled_checks", ["p95-task-cost"]), "INCOMPLETE", 2),
]


@pytest.fixture(autouse=True)
def _demo_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", DEMO_KEY)  # the checked-in contract's key


@pytest.mark.parametrize(("name", "edit", "decision", "code"), ROUTES)
def test_each_route_has_its_exit_code(
    name: str, edit: Any, decision: str, code: int, cli: Any, tmp_path: Path
) -> None:
    bundle = _bundle(cli, tmp_path, name, edit)
    result = cli("evaluate", "--bundle", str(bundle), "--format", "json")
    assert result.code == code, result.err
    assert json.loads(result.out)["decision"] == decision


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_report_formats_and_report_file(fmt: str, cli: Any, tmp_path: Path) -> None:
    bundle = _bundle(cli, tmp_path, "scale")
    report = tmp_path / f"report.{fmt}"
    result = cli("evaluate", "--bundle", str(bundle), "--format", fmt, "--report", str(report))
    assert result.code == 0
    assert result.out.strip() == "SCALE (exit 0)"
    text = report.read_text()
    assert "SCALE" in text
    if fmt == "json":
        json.loads(text, parse_float=lambda s: pytest.fail(f"float {s}"))
    if fmt == "markdown":
        assert "|" in text
        assert "decision contract" in text.lower()


@pytest.mark.parametrize(
    ("name", "fmt"),
    [("r.md", "markdown"), ("r.MARKDOWN", "markdown"), ("r.json", "json"), ("r.txt", "text")],
)
def test_a_report_without_format_takes_its_names(
    name: str, fmt: str, cli: Any, tmp_path: Path
) -> None:
    """`--report report.md` with no --format wrote plain text (a new user's walkthrough); its
    name's suffix now says the format, and --format, when given, still decides."""
    bundle = _bundle(cli, tmp_path, "scale")
    report = tmp_path / name
    assert cli("evaluate", "--bundle", str(bundle), "--report", str(report)).code == 0
    expected = cli("evaluate", "--bundle", str(bundle), "--format", fmt).out
    assert report.read_text().rstrip("\n") == expected.rstrip("\n")
    given = cli("evaluate", "--bundle", str(bundle), "--format", "text", "--report", str(report))
    assert given.code == 0
    assert report.read_text().rstrip("\n") == cli("evaluate", "--bundle", str(bundle)).out.rstrip(
        "\n"
    )


def test_one_changed_byte_exits_5(cli: Any, tmp_path: Path) -> None:
    bundle = _bundle(cli, tmp_path, "scale")
    data = bytearray(bundle.read_bytes())
    position = data.index(b'"output_tokens":') + len(b'"output_tokens":')
    data[position] = ord("9") if data[position] != ord("9") else ord("8")
    bundle.write_bytes(bytes(data))
    result = cli("evaluate", "--bundle", str(bundle))
    assert result.code == 5
    assert "BUNDLE-DIGEST-MISMATCH" in result.err
    # ... whatever else is refused (a SPEC sweep: a --report that may not be written hid it,
    # exit 2), said beside it; and a sound bundle with that --report is refused (2)
    (tmp_path / "o").mkdir()
    other = _bundle(cli, tmp_path / "o", "scale")
    for report in (other, tmp_path / "no-such-folder" / "r.md"):
        both = cli("evaluate", "--bundle", str(bundle), "--report", str(report))
        assert both.code == 5, both.err
        assert "BUNDLE-DIGEST-MISMATCH" in both.err
        assert re.search(r"OUT-(REPLACES-EVIDENCE|UNWRITABLE)", both.err), both.err
    sound = cli("evaluate", "--bundle", str(other), "--report", str(other))
    assert sound.code == 2, sound.err
    assert "OUT-SAME-AS-INPUT" in sound.err


def test_agreeing_bundles_are_one_workload(cli: Any, tmp_path: Path) -> None:
    a = _bundle(cli, tmp_path, "a")
    b = tmp_path / "b.bundle.json"
    b.write_bytes(a.read_bytes())
    # the same session twice is refused by the workload, once: its transcript is bound twice
    result = cli("evaluate", "--bundle", str(a), "--bundle", str(b))
    assert result.code == 2
    assert "EVAL-BUNDLE-OVERLAP" in result.err
    assert "EVAL-DUPLICATE-TASK" not in result.err


def test_one_bundle_file_given_twice_is_said_as_such(cli: Any, tmp_path: Path) -> None:
    """Was EVAL-BUNDLE-OVERLAP, whose text is of a session converted twice (a new-user audit):
    the same file, by its name or another, is EVAL-BUNDLE-REPEATED, before any is opened."""
    a = _bundle(cli, tmp_path, "a")
    link = tmp_path / "link.json"
    link.symlink_to(a)
    # (the link's attestation is looked up beside the link: none, and none is asked for)
    result = cli("evaluate", "--bundle", str(a), "--bundle", str(a), "--bundle", str(link))
    assert result.code == 2, result.out
    assert [line.split("]:")[0] + "]" for line in _refusals(result.err)] == [
        "refused: EVAL-BUNDLE-REPEATED [bundle 2 of 3 is bundle 1 of 3]",
        "refused: EVAL-BUNDLE-REPEATED [bundle 3 of 3 is bundle 1 of 3]",
    ]
    assert str(tmp_path) not in result.err
    # A bundle that fails its digest is still a mismatch (5), the repeat said with it.
    data = bytearray(a.read_bytes())
    position = data.index(b'"output_tokens":') + len(b'"output_tokens":')
    data[position] = ord("9") if data[position] != ord("9") else ord("8")
    a.write_bytes(bytes(data))
    result = cli("evaluate", "--bundle", str(a), "--bundle", str(link))
    assert result.code == 5
    assert "EVAL-BUNDLE-REPEATED [bundle 2 of 2 is bundle 1 of 2]" in result.err


def test_a_bundle_given_twice_does_not_hide_its_attestation_mismatch(
    cli: Any, tmp_path: Path
) -> None:
    """A hostile audit: a bundle beside an attestation of other bytes was 5 alone, and 2
    (EVAL-BUNDLE-REPEATED only) given twice with --public-key. A mismatch is never a refusal."""
    key = tmp_path / "k.pem"
    assert cli("keygen", "--out", str(key)).code == 0
    made = []
    for name, minutes in (("a", None), ("b", "7")):
        contract = json.loads(CONTRACT.read_text())
        if minutes is not None:  # another bundle of the same session: other bytes
            contract["claims"]["outcomes"]["task-ebcf1cfa0a44"]["human_minutes"] = minutes
        write_json(tmp_path / f"{name}.contract.json", contract)
        out = tmp_path / f"{name}.json"
        done = cli(
            "convert",
            "--in",
            str(PARENT),
            "--contract",
            str(tmp_path / f"{name}.contract.json"),
            "--out",
            str(out),
            "--attest-key",
            str(key),
        )
        assert done.code == 0, done.err
        made.append(out)
    a, b = made
    shutil.copy(Path(f"{a}.intoto.json"), Path(f"{b}.intoto.json"))  # a's signature beside b
    public = ("--public-key", str(tmp_path / "k.pem.pub"))
    alone = cli("evaluate", "--bundle", str(b), *public)
    assert alone.code == 5, alone.err
    twice = cli("evaluate", "--bundle", str(b), "--bundle", str(b), *public)
    assert twice.code == 5, twice.err
    assert "EVAL-BUNDLE-REPEATED [bundle 2 of 2 is bundle 1 of 2]" in twice.err
    assert "ATTEST-SUBJECT-MISMATCH [bundle 1 of 2]" in twice.err


def test_disagreeing_bundles_refuse(cli: Any, tmp_path: Path) -> None:
    a = _bundle(cli, tmp_path, "a")
    b = _bundle(cli, tmp_path, "b", _policy("max_calls_per_task", 49))
    result = cli("evaluate", "--bundle", str(a), "--bundle", str(b))
    assert result.code == 2
    assert "EVAL-WORKLOAD-MISMATCH" in result.err


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b'{"receipt": {}}',
        b"<html>502 Bad Gateway</html>",
        b'{"agents":[],"baseline":',
        b'{"receipt":{"evidence_sha256":"' + b"0" * 64 + b'"},"tasks":[',
        b'{"bundles":[{"evidence_sha256":"' + b"0" * 64 + b'"}]}',
        b'{"daily":[{"totalCost":1.23}],"totals":{"totalCost":1.23}}',
        b'{"name":"x","name":"y"}',
    ],
    ids=[
        "empty",
        "no-digest",
        "error-page",
        "cut-early",
        "cut-after-the-digest",
        "a-report",
        # an audit: JSON this program never writes, with no digest to mismatch, exited 5
        "a-usage-export-with-fractions",
        "a-repeated-key",
    ],
)
def test_not_a_bundle_is_refused_not_called_tampering(
    content: bytes, cli: Any, tmp_path: Path
) -> None:
    """A failed download or the wrong file has no digest to mismatch: exit 2, not 5."""
    path = tmp_path / "x.json"
    path.write_bytes(content)
    result = cli("evaluate", "--bundle", str(path))
    assert result.code == 2
    assert "BUNDLE-NOT-A-BUNDLE" in result.err


def test_a_bundle_edited_into_json_no_writer_writes_is_a_mismatch(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    digest = b'"evidence_sha256":"' + b"0" * 64 + b'"'
    path.write_bytes(b'{"receipt":{' + digest + b',"a":1,"a":2}}')  # a repeated key
    result = cli("evaluate", "--bundle", str(path))
    assert result.code == 5
    assert "BUNDLE-DIGEST-MISMATCH" in result.err


def test_missing_bundle_is_refused(cli: Any, tmp_path: Path) -> None:
    result = cli("evaluate", "--bundle", str(tmp_path / "none.json"))
    assert result.code == 2
    assert "BUNDLE-UNREADABLE" in result.err


def test_demo_bundle_is_golden(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "b.json"
    assert (
        cli("convert", "--in", str(PARENT), "--contract", str(CONTRACT), "--out", str(out)).code
        == 0
    )
    assert out.read_bytes() == (FIXTURES / "synthetic_bundle.golden.json").read_bytes()
    assert read_json(out)["receipt"]["counts"]["edges"] == 6


def _resealed(bundle: Path, edit: Any) -> Path:
    """The bundle edited and its evidence digest recomputed, as anyone can."""
    from converter.bundle.io import evidence_digest
    from converter.codec.canonical import encode

    body = json.loads(bundle.read_bytes())
    edit(body)
    body["receipt"].pop("evidence_sha256")
    body["receipt"]["evidence_sha256"] = evidence_digest(body)
    out = bundle.with_name("resealed-" + bundle.name)
    out.write_bytes(encode(body))
    return out


def test_a_resealed_bundle_without_outcomes_is_refused_not_an_internal_error(
    cli: Any, tmp_path: Path
) -> None:
    """It used to exit 70 (a KeyError while building the task facts)."""
    bundle = _resealed(_bundle(cli, tmp_path, "a"), lambda b: b.update(outcomes={}))
    for command in ("evaluate", "verify"):
        result = cli(command, "--bundle", str(bundle))
        assert result.code == 2, (command, result.err)
        assert "BUNDLE-OUTCOME-MISMATCH [tasks/0/id]:" in result.err
        assert "Traceback" not in result.err
        assert result.out == ""


def test_claims_evaluation_cannot_use_are_named_by_field(cli: Any, tmp_path: Path) -> None:
    """Was one bare EVAL-BUNDLE-INCOMPLETE-CLAIMS for any of them, an unknown gate id too."""
    bundle = _bundle(cli, tmp_path, "a")

    def gaps(body: dict[str, Any]) -> None:
        body["policy"]["min_tasks"] = None
        body["policy"]["disabled_checks"] = ["some-future-gate"]
        body["baseline"]["name"] = None
        task = body["tasks"][0]["id"]
        body["outcomes"][task]["acceptable"] = None

    result = cli("evaluate", "--bundle", str(_resealed(bundle, gaps)))
    assert result.code == 2, result.out
    task = read_json(bundle)["tasks"][0]["id"]
    assert [line.split("]")[0] for line in _refusals(result.err)] == [
        f"refused: EVAL-BUNDLE-INCOMPLETE-CLAIMS [outcomes/{task}/acceptable",
        "refused: EVAL-BUNDLE-INCOMPLETE-CLAIMS [policy/min_tasks",
        "refused: EVAL-UNKNOWN-CHECK [policy/disabled_checks/0",
        "refused: EVAL-BUNDLE-INCOMPLETE-CLAIMS [baseline/name",
    ]
    assert "some-future-gate" not in result.err


def test_a_claim_a_bundle_lacks_is_said_with_the_limits_it_differs_in(
    cli: Any, tmp_path: Path
) -> None:
    """Was: EVAL-POLICY-MISMATCH (or EVAL-WORKLOAD-MISMATCH) alone, and the claims evaluation
    cannot use said only once the bundle was under the team's limits: two runs for one fix."""

    def gap(body: dict[str, Any]) -> None:
        body["baseline"]["name"] = None

    bundle = _resealed(_bundle(cli, tmp_path, "a"), gap)
    team = tmp_path / "team.json"
    write_json(team, {"policy": {"max_calls_per_task": 49}})
    result = cli("evaluate", "--bundle", str(bundle), "--policy", str(team))
    assert result.code == 2, result.out
    assert [line.split("]")[0] for line in _refusals(result.err)] == [
        "refused: EVAL-POLICY-MISMATCH [policy/max_calls_per_task differs from --policy",
        "refused: EVAL-BUNDLE-INCOMPLETE-CLAIMS [baseline/name",
    ]
    other = _bundle(cli, tmp_path, "b", _policy("max_calls_per_task", 49))
    both = cli("evaluate", "--bundle", str(bundle), "--bundle", str(other))
    assert both.code == 2
    codes = {line.split(" [")[0] for line in _refusals(both.err)}
    assert {"refused: EVAL-WORKLOAD-MISMATCH", "refused: EVAL-BUNDLE-INCOMPLETE-CLAIMS"} <= codes


def test_verify_notes_a_disabled_gate_evaluate_would_refuse(cli: Any, tmp_path: Path) -> None:
    """An audit: verify said only "ok" of a bundle whose policy disables a gate this release
    does not have (another release's, or an edit), and evaluate then refused it."""
    bundle = _bundle(cli, tmp_path, "a")

    def future(body: dict[str, Any]) -> None:
        body["policy"]["disabled_checks"] = ["some-future-gate"]

    resealed = _resealed(bundle, future)
    verified = cli("verify", "--bundle", str(resealed))
    assert verified.code == 0, verified.err
    assert (
        "note: its policy disables a gate this version does not run "
        "(policy/disabled_checks/0): evaluate refuses it (EVAL-UNKNOWN-CHECK)"
    ) in verified.out
    assert "some-future-gate" not in verified.out + verified.err
    assert cli("evaluate", "--bundle", str(resealed)).code == 2
    assert "disables a gate" not in cli("verify", "--bundle", str(bundle)).out


@pytest.mark.parametrize("edit", ["negative-cost-v1", "low-above-high-v1"])
def test_a_resealed_bundle_holding_what_no_conversion_writes_is_refused(
    edit: str, cli: Any, tmp_path: Path
) -> None:
    """Was: exit 70 (a ValidationError building a task's facts), then BUNDLE-SHAPE from
    evaluate while verify said ok. Both refuse it now, when the bundle is opened."""
    bundle = _bundle(cli, tmp_path, "a")

    def change(body: dict[str, Any]) -> None:
        body["schema_version"] = "agent-evidence/bundle/v1"
        body["generator"]["version"] = "0.1.0"
        del body["pricing"]
        for event in body["events"]:
            low, high = ("-5", "-5") if edit == "negative-cost-v1" else ("9", "1")
            event["cost"] = {"low": low, "high": high}

    resealed = _resealed(bundle, change)
    for command in ("evaluate", "verify"):
        result = cli(command, "--bundle", str(resealed))
        assert result.code == 2, (command, result.err)
        assert "refused: BUNDLE-SHAPE" in result.err
        assert "internal error" not in result.err


def test_what_a_bundle_may_hold_evaluates(cli: Any, tmp_path: Path) -> None:
    """A shape count past 12 digits (any int64 a bundle holds) was exit 70, then BUNDLE-SHAPE
    from evaluate only: verify and evaluate now agree on what a bundle is."""
    bundle = _bundle(cli, tmp_path, "a")

    def huge(body: dict[str, Any]) -> None:
        next(e for e in body["events"] if e["kind"] == "tool")["shape"]["strings"] = 10**13

    resealed = _resealed(bundle, huge)
    assert cli("verify", "--bundle", str(resealed)).code == 0
    assert cli("evaluate", "--bundle", str(resealed)).code == 0


def test_a_v1_bundles_unchecked_costs_are_said(cli: Any, tmp_path: Path) -> None:
    """0.1's bundles carry no prices: their costs are the producer's word. Was: a report on one
    (or on one downgraded to v1 and resealed, claiming 0.1) read like any other."""
    bundle = _bundle(cli, tmp_path, "a")

    def as_v1(body: dict[str, Any]) -> None:
        body["schema_version"] = "agent-evidence/bundle/v1"
        body["generator"]["version"] = "0.1.0"
        del body["pricing"]

    result = cli("evaluate", "--bundle", str(_resealed(bundle, as_v1)), "--format", "json")
    findings = {f["code"]: f["count"] for f in json.loads(result.out)["findings"]}
    assert findings.get("EVAL-COSTS-UNCHECKED") == 1
    plain = cli("evaluate", "--bundle", str(bundle), "--format", "json")
    assert "EVAL-COSTS-UNCHECKED" not in plain.out


def test_an_event_outside_every_task_cannot_decide(cli: Any, tmp_path: Path) -> None:
    """An event moved out of its task dropped out of the cost and the bundle still said SCALE
    (under a cap only the full cost breaks, the cost of the event decides)."""

    def cap(claims: dict[str, Any]) -> None:
        claims["policy"]["max_calls_per_task"] = 5  # the task has 4 model and 2 tool calls

    bundle = _bundle(cli, tmp_path, "capped", cap)
    assert cli("evaluate", "--bundle", str(bundle)).code == 3  # ASSIST: 6 calls > 5

    def orphan(body: dict[str, Any]) -> None:
        body["events"][5]["task"] = None

    result = cli("evaluate", "--bundle", str(_resealed(bundle, orphan)))
    assert result.code == 2, result.out
    assert "BUNDLE-DANGLING-REFERENCE [events/5/task]:" in result.err


# --- several bundles: one workload, or every problem of every bundle by position -----------


def _filled(
    cli: Any, tmp: Path, name: str, *extra: str, parent: Path = PARENT, edit: Any = None
) -> Path:
    """A tree (the synthetic one by default) converted from a template filled as a user would,
    under the current key (`AGENT_EVIDENCE_KEY`) and the options given (`--task-unit`)."""
    template = tmp / f"{name}.template.json"
    args = ["convert", "--in", str(parent), *extra]
    assert cli(*args, "--template", str(template)).code == 0
    contract = fill(read_json(template))
    if edit is not None:
        edit(contract["claims"])
    write_json(template, contract)
    out = tmp / f"{name}.bundle.json"
    result = cli(*args, "--contract", str(template), "--out", str(out))
    assert result.code == 0, result.err
    return out


RICH = fixture_parent("rich_tree")


def test_bundles_under_two_pseudonym_keys_are_not_one_workload(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another key gives the same session other task ids: it merged, counted twice."""
    a = _filled(cli, tmp_path, "a")
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", "ab" * 32)
    b = _filled(cli, tmp_path, "b")
    result = cli("evaluate", "--bundle", str(a), "--bundle", str(b))
    assert result.code == 2, result.out
    assert (
        "EVAL-WORKLOAD-MISMATCH [bundle 2 of 2: receipt/key_id differs from bundle 1 of 2]:"
        in result.err
    )
    assert "EVAL-BUNDLE-OVERLAP [bundle 1 of 2 and bundle 2 of 2]:" in result.err
    assert str(tmp_path) not in result.err


def test_bundles_of_two_label_sources_are_not_one_workload(cli: Any, tmp_path: Path) -> None:
    def labels(claims: dict[str, Any]) -> None:
        claims["outcome_contract"]["label_source"] = "another-rubric-panel"

    a = _filled(cli, tmp_path, "a")
    b = _filled(cli, tmp_path, "rich", parent=RICH, edit=labels)
    assert (
        cli(
            "evaluate",
            "--bundle",
            str(a),
            "--bundle",
            str(_filled(cli, tmp_path, "c", parent=RICH)),
        ).code
        == 0
    )
    result = cli("evaluate", "--bundle", str(a), "--bundle", str(b))
    assert result.code == 2, result.out
    assert result.err.splitlines() == [
        "refused: EVAL-WORKLOAD-MISMATCH [bundle 2 of 2: receipt/label_source differs from "
        "bundle 1 of 2]: "
        + " Fix: ".join(
            (CODES["EVAL-WORKLOAD-MISMATCH"].message, CODES["EVAL-WORKLOAD-MISMATCH"].fix)
        )
    ]


def test_one_session_converted_twice_is_refused(cli: Any, tmp_path: Path) -> None:
    """Two task units give two sets of task ids for the same files: no duplicate task, so the
    session's calls used to be counted twice without a word."""
    a = _filled(cli, tmp_path, "prompt")
    b = _filled(cli, tmp_path, "session", "--task-unit", "session")
    result = cli("evaluate", "--bundle", str(a), "--bundle", str(b))
    assert result.code == 2, result.out
    assert result.err.startswith("refused: EVAL-BUNDLE-OVERLAP [bundle 1 of 2 and bundle 2 of 2]:")
    assert len(result.err.splitlines()) == 1


def _session(folder: Path, prompts: int) -> Path:
    """A one-file 2.1.216 session: `prompts` typed prompts, each answered by one complete call.
    Written with fewer prompts, it is the same session before it grew."""
    session = "0c0ffee0-0000-4000-8000-000000000001"
    lines: list[dict[str, Any]] = []
    previous = None
    for n in range(prompts):
        common = {"sessionId": session, "version": "2.1.216", "isSidechain": False}
        stamp = f"2026-07-21T09:{10 + n:02d}:00.000Z"
        prompt, answer = (
            f"00000000-0000-4000-8000-{2 * n:012d}",
            f"00000000-0000-4000-8000-{2 * n + 1:012d}",
        )
        lines.append(
            {
                **common,
                "type": "user",
                "uuid": prompt,
                "parentUuid": previous,
                "timestamp": stamp,
                "message": {"role": "user", "content": f"prompt {n}"},
            }
        )
        usage = {"input_tokens": 3, "output_tokens": 40, "iterations": []}
        lines.append(
            {
                **common,
                "type": "assistant",
                "uuid": answer,
                "parentUuid": prompt,
                "timestamp": stamp,
                "requestId": f"req_{n:024d}",
                "message": {
                    "id": f"msg_{n:024d}",
                    "model": "claude-opus-4-8",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "done"}],
                    "stop_reason": "end_turn",
                    "usage": usage,
                },
            }
        )
        previous = answer
    folder.mkdir()
    path = folder / f"{session}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.mark.parametrize("units", [("session", "prompt"), ("prompt", "session")])
def test_one_session_converted_before_and_after_it_grew_is_refused(
    units: tuple[str, str], cli: Any, tmp_path: Path
) -> None:
    """Was: SCALE. The grown file has another digest and the other task unit other task ids, so
    neither check saw the session twice; its first three calls counted twice, and a workload
    short of `min_tasks` (INCOMPLETE) passed the gate. The calls' ids are the same."""
    # the copy before it grew in a projects folder of its own: beside the grown one, it would
    # be a part of a split session (CC-TREE-SPLIT-SESSION), and the grown one's bundle alone
    # would meet no cost gate
    (tmp_path / "before").mkdir()
    old = _session(tmp_path / "before" / "old", 3)
    new = _session(tmp_path / "new", 4)
    a = _filled(cli, tmp_path, "old", "--from", "claude-code", "--task-unit", units[0], parent=old)
    b = _filled(cli, tmp_path, "new", "--from", "claude-code", "--task-unit", units[1], parent=new)
    result = cli("evaluate", "--bundle", str(b), "--bundle", str(a))
    assert result.code == 2, result.out
    assert _refusals(result.err) == [
        line for line in result.err.splitlines() if "EVAL-BUNDLE-OVERLAP" in line
    ]
    assert result.err.startswith("refused: EVAL-BUNDLE-OVERLAP [bundle 1 of 2 and bundle 2 of 2]:")
    # Two different sessions of the same shape are one workload.
    other = tmp_path / "other"
    _session(other, 3).rename(other / "0c0ffee0-0000-4000-8000-000000000002.jsonl")
    text = (other / "0c0ffee0-0000-4000-8000-000000000002.jsonl").read_text()
    for n in range(3):
        text = text.replace(f"msg_{n:024d}", f"msg_{n + 100:024d}")
    (other / "0c0ffee0-0000-4000-8000-000000000002.jsonl").write_text(
        text.replace("0c0ffee0-0000-4000-8000-000000000001", "0c0ffee0-0000-4000-8000-000000000002")
    )
    c = _filled(
        cli,
        tmp_path,
        "other",
        "--from",
        "claude-code",
        parent=other / "0c0ffee0-0000-4000-8000-000000000002.jsonl",
    )
    together = cli("evaluate", "--bundle", str(b), "--bundle", str(c))
    assert together.code == 0, together.err
    assert "SCALE" in together.out.splitlines()[0], together.out


def _refusals(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith(("refused: ", "integrity: "))]


@pytest.mark.parametrize("money", ["text", "numbers"])
def test_a_contract_given_as_a_bundle_is_named(money: str, cli: Any, tmp_path: Path) -> None:
    """Was: BUNDLE-NOT-A-BUNDLE ("download it again"), or, for a contract whose money is JSON
    numbers with a fraction, BUNDLE-DIGEST-MISMATCH (5): called tampered. A contract is the
    input of convert; the refusal says to convert it first."""
    text = CONTRACT.read_text()
    if money == "numbers":  # a contract may write money as JSON numbers: 0.9, not "0.9"
        text = text.replace('"acceptable_rate": "0.9"', '"acceptable_rate": 0.9')
        assert '"acceptable_rate": 0.9' in text
    path = tmp_path / "contract.json"
    path.write_text(text)
    for command in ("evaluate", "verify"):
        result = cli(command, "--bundle", str(path))
        assert result.code == 2, command
        assert _refusals(result.err) == [
            "refused: BUNDLE-IS-A-CONTRACT: "
            + CODES["BUNDLE-IS-A-CONTRACT"].message
            + " Fix: "
            + CODES["BUNDLE-IS-A-CONTRACT"].fix
        ]


def test_a_template_given_as_a_bundle_is_named(cli: Any, tmp_path: Path) -> None:
    template = tmp_path / "template.json"
    assert cli("convert", "--in", str(PARENT), "--template", str(template)).code == 0
    result = cli("evaluate", "--bundle", str(template))
    assert result.code == 2
    assert [r.split()[1].rstrip(":") for r in _refusals(result.err)] == ["BUNDLE-IS-A-CONTRACT"]


def test_a_transcript_given_as_a_bundle_is_named(cli: Any, tmp_path: Path) -> None:
    """A walkthrough: a session's .jsonl given as --bundle was BUNDLE-NOT-A-BUNDLE ("empty,
    cut short, not JSON"), as if a download had failed."""
    for command in ("evaluate", "verify"):
        result = cli(command, "--bundle", str(PARENT))
        assert result.code == 2, command
        codes = [r.split()[1].rstrip(":") for r in _refusals(result.err)]
        assert codes == ["BUNDLE-IS-A-TRANSCRIPT"], command
    # One JSON document with a trailing line is still no transcript.
    odd = tmp_path / "odd.json"
    odd.write_text('["not", "a", "bundle"]\n{}\n')
    result = cli("evaluate", "--bundle", str(odd))
    assert [r.split()[1].rstrip(":") for r in _refusals(result.err)] == ["BUNDLE-NOT-A-BUNDLE"]


def test_a_bundle_with_lines_appended_is_no_transcript(cli: Any, tmp_path: Path) -> None:
    """A robustness audit: a bundle with `\\ngarbage` appended was BUNDLE-IS-A-TRANSCRIPT,
    whose fix is to convert the session: it is a damaged bundle, to fetch again."""
    bundle = _bundle(cli, tmp_path, "b")
    bundle.write_bytes(bundle.read_bytes() + b"\ngarbage\n")
    for command in ("evaluate", "verify"):
        result = cli(command, "--bundle", str(bundle))
        assert result.code == 2, command
        codes = [r.split()[1].rstrip(":") for r in _refusals(result.err)]
        assert codes == ["BUNDLE-NOT-A-BUNDLE"], command


def test_an_attestation_given_as_a_bundle_is_named(cli: Any, tmp_path: Path) -> None:
    """A walk-through: the .intoto.json given as --bundle was BUNDLE-NOT-A-BUNDLE ("empty, cut
    short, not JSON ... download it again")."""
    key = tmp_path / "signing.pem"
    assert cli("keygen", "--out", str(key)).code == 0
    contract = tmp_path / "c.json"
    write_json(contract, json.loads(CONTRACT.read_text()))
    out = tmp_path / "b.json"
    made = ["convert", "--in", str(PARENT), "--contract", str(contract), "--out", str(out)]
    assert cli(*made, "--attest-key", str(key)).code == 0
    public = ("--public-key", str(tmp_path / "signing.pem.pub"))
    for command, extra in (("evaluate", ()), ("verify", ()), ("evaluate", public)):
        result = cli(command, "--bundle", str(tmp_path / "b.json.intoto.json"), *extra)
        assert result.code == 2, command
        # with --public-key, not ATTEST-MISSING first ("ask the producer to sign"): a review
        assert [r.split()[1].rstrip(":") for r in _refusals(result.err)] == [
            "BUNDLE-IS-AN-ATTESTATION"
        ], (command, extra)


def test_a_bundle_edited_to_look_like_a_contract_is_still_tampered(
    cli: Any, tmp_path: Path
) -> None:
    """Its evidence digest is checked first, as before: a changed bundle is integrity (5)."""
    bundle = _bundle(cli, tmp_path, "b")
    data = bundle.read_bytes()
    edited = data.replace(
        b'"agent-evidence/bundle/v2"', b'"agent-evidence/conversion-contract/v1"', 1
    )
    assert edited != data
    bundle.write_bytes(edited)
    result = cli("evaluate", "--bundle", str(bundle))
    assert result.code == 5
    assert "BUNDLE-DIGEST-MISMATCH" in result.err
    assert "BUNDLE-IS-A-CONTRACT" not in result.err


def test_every_failing_bundle_is_named_by_position(cli: Any, tmp_path: Path) -> None:
    good = _bundle(cli, tmp_path, "good")
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    tampered = tmp_path / "tampered.json"
    tampered.write_bytes(good.read_bytes().replace(b'"human_minutes":"6"', b'"human_minutes":"7"'))
    missing = tmp_path / "missing.json"
    args = ["evaluate", "--bundle", str(good), "--bundle", str(empty), "--bundle", str(missing)]
    refused = cli(*args)
    assert refused.code == 2
    lines = refused.err.splitlines()
    assert lines[0].startswith("refused: BUNDLE-NOT-A-BUNDLE [bundle 2 of 3]:")
    assert lines[1].startswith("refused: BUNDLE-UNREADABLE [bundle 3 of 3: no such file]:")
    assert len(lines) == 2
    # A tampered bundle exits 5 even after a broken one: the broken one cannot hide it.
    both = cli("evaluate", "--bundle", str(empty), "--bundle", str(tampered))
    assert both.code == 5
    lines = both.err.splitlines()
    assert lines[0].startswith("integrity: BUNDLE-DIGEST-MISMATCH [bundle 2 of 2]:")
    assert lines[1].startswith("refused: BUNDLE-NOT-A-BUNDLE [bundle 1 of 2]:")
    assert len(lines) == 2
    assert str(tmp_path) not in refused.err + both.err


def test_a_lone_bundle_is_not_labelled(cli: Any, tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    result = cli("evaluate", "--bundle", str(empty))
    assert result.code == 2
    assert result.err.startswith("refused: BUNDLE-NOT-A-BUNDLE: ")


def test_every_missing_attestation_is_named_and_a_bad_key_once(cli: Any, tmp_path: Path) -> None:
    a = _filled(cli, tmp_path, "a")
    b = _filled(cli, tmp_path, "rich", parent=RICH)
    assert cli("keygen", "--out", str(tmp_path / "k.pem")).code == 0
    key = tmp_path / "k.pem.pub"
    result = cli("evaluate", "--bundle", str(a), "--bundle", str(b), "--public-key", str(key))
    assert result.code == 2
    assert [line.split("]")[0] for line in result.err.splitlines()] == [
        "refused: ATTEST-MISSING [bundle 1 of 2",
        "refused: ATTEST-MISSING [bundle 2 of 2",
    ]
    (tmp_path / "a.bundle.json.intoto.json").write_text("{}")
    (tmp_path / "rich.bundle.json.intoto.json").write_text("{}")
    bad_key = tmp_path / "not-a-key.pub"
    bad_key.write_text("not a key")
    result = cli("evaluate", "--bundle", str(a), "--bundle", str(b), "--public-key", str(bad_key))
    assert result.code == 2
    assert result.err.startswith("refused: ATTEST-PUBLIC-KEY-INVALID [--public-key]: ")
    assert len(result.err.splitlines()) == 1


def test_a_missing_attestation_does_not_hide_why_the_bundles_are_not_one_workload(
    cli: Any, tmp_path: Path
) -> None:
    """Was: with --public-key, a bundle whose attestation was missing was not compared with the
    others: ATTEST-MISSING alone, where the same run without the key also said the two bundles
    overlap. A run reports every problem it finds."""
    a = _filled(cli, tmp_path, "a")
    again = tmp_path / "again.bundle.json"
    again.write_bytes(a.read_bytes())
    assert cli("keygen", "--out", str(tmp_path / "k.pem")).code == 0
    args = ["evaluate", "--bundle", str(a), "--bundle", str(again)]
    unsigned = [line.split()[1] for line in _refusals(cli(*args).err)]
    result = cli(*args, "--public-key", str(tmp_path / "k.pem.pub"))
    assert result.code == 2
    found = [line.split()[1] for line in _refusals(result.err)]
    assert found.count("ATTEST-MISSING") == 2
    assert unsigned
    assert all(code in found for code in unsigned)


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_an_incomplete_decision_says_how_to_complete_it(fmt: str, cli: Any, tmp_path: Path) -> None:
    """Was: the reasons alone; what to do about them was only in docs/refusals.md."""
    bundle = _bundle(cli, tmp_path, "few", _policy("min_tasks", 5))
    result = cli("evaluate", "--bundle", str(bundle), "--format", fmt)
    assert result.code == 2
    fix = CODES["EVAL-SAMPLE-TOO-SMALL"].fix
    if fmt == "json":
        (reason,) = json.loads(result.out)["reasons"]
        assert reason["fix"] == fix
    else:
        assert result.out.count(fix) == 1


def test_each_task_names_its_bundle_when_several_are_evaluated(cli: Any, tmp_path: Path) -> None:
    """Was: a costly task in a report of many bundles could not be traced to its bundle (and so
    to its session): tasks carried no bundle, and the evidence digests were not numbered."""
    a, b = _filled(cli, tmp_path, "a"), _filled(cli, tmp_path, "rich", parent=RICH)
    args = ["evaluate", "--bundle", str(a), "--bundle", str(b)]
    report = json.loads(cli(*args, "--format", "json").out)
    ids = {n: {t["id"] for t in read_json(p)["tasks"]} for n, p in ((1, a), (2, b))}
    assert {t["id"]: t["bundle"] for t in report["tasks"]} == {
        task: n for n, tasks in ids.items() for task in tasks
    }
    markdown = cli(*args, "--format", "markdown").out
    for n, tasks in ids.items():
        assert all(f"`{task}` (bundle {n})" in markdown for task in tasks)
        assert (
            f"evidence, bundle {n}: {read_json((a, b)[n - 1])['receipt']['evidence_sha256']}"
            in (markdown)
        )
        contract = read_json((a, b)[n - 1])["receipt"]["contract_sha256"]
        assert f"conversion contract, bundle {n}: {contract}" in markdown
    alone = cli("evaluate", "--bundle", str(a), "--format", "markdown").out
    assert "(bundle 1)" not in alone
    assert "conversion contract: " in alone


def test_a_card_id_any_card_may_have_is_evaluated(cli: Any, tmp_path: Path) -> None:
    """Was: a card named `2026-11.own` (a leading digit: a valid card id) converted, and every
    bundle of it was refused by evaluate (EVAL-BUNDLE-INCOMPLETE-CLAIMS [receipt/price_card_id],
    "regenerate the bundle"): the report typed the id as a public name, which starts with a
    letter."""
    card = read_json(Path("contracts/price-cards/anthropic-2026-11.json"))
    card["id"] = "2026-11.own"
    path = tmp_path / "card.json"
    write_json(path, card)
    template = tmp_path / "t.json"
    made = cli(
        "convert", "--in", str(PARENT), "--template", str(template), "--price-card", str(path)
    )
    assert made.code == 0, made.err
    write_json(template, fill(read_json(template)))
    bundle = tmp_path / "b.json"
    converted = cli(
        "convert", "--in", str(PARENT), "--contract", str(template), "--out", str(bundle)
    )
    assert converted.code == 0, converted.err
    result = cli("evaluate", "--bundle", str(bundle), "--format", "json")
    assert "EVAL-BUNDLE" not in result.err, result.err
    report = json.loads(result.out)
    assert report["decision"] in ("SCALE", "ASSIST", "STOP", "INCOMPLETE")
    assert report["digests"]["price_card_id"] == "2026-11.own"


def _last_call_unfinished(parent: Path) -> None:
    """The parent's last call as a crash leaves it: no stop reason, no `iterations`, so its
    final usage is not known and its high end is the model's max_output_tokens."""
    lines = parent.read_bytes().splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if b'"type":"assistant"' in line)
    record = json.loads(lines[last])
    record["message"]["stop_reason"] = None
    del record["message"]["usage"]["iterations"]
    lines[last] = json.dumps(record, separators=(",", ":")).encode() + b"\n"
    parent.write_bytes(b"".join(lines))


def test_prices_a_contract_chose_are_not_passed_off_as_the_cards(cli: Any, tmp_path: Path) -> None:
    """A new lead's walkthrough: a contract naming a shipped card priced a model the card does
    not list and a billing context it states no multiplier for, and the report said only
    "price card: anthropic-2026-12", its cost per model unmarked: made-up prices read as list
    prices. Those prices are now named as the contract's, in every format."""
    from tests.damage import copy_tree, rename_own_model

    tree = copy_tree("synthetic_tree", tmp_path / "src")
    child = next(tree.folder.rglob("agent-*.jsonl"))
    rename_own_model(child, tree.parent, "claude-opus-4-8", "claude-sonnet-9")
    # the parent's last call in fast mode: a context the card states no multiplier for
    parent = tree.parent.read_bytes().splitlines(keepends=True)
    last = max(i for i, line in enumerate(parent) if b'"type":"assistant"' in line)
    parent[last] = parent[last].replace(b'"speed":"standard"', b'"speed":"fast"')
    tree.parent.write_bytes(b"".join(parent))
    _last_call_unfinished(tree.parent)  # its high end is the contract's max_output_tokens
    template = tmp_path / "t.json"
    made = cli(
        "convert", "--in", str(tree.parent), "--template", str(template),
        "--price-card", "anthropic-2026-12",
    )  # fmt: skip
    assert made.code == 0, made.err
    data = read_json(template)
    card_model = data["claims"]["pricing"]["models"]["claude-opus-4-8"]
    card_tiers = card_model["tiers"]  # prefilled from the card: kept as the card states them
    fill(data)
    card_model["tiers"] = card_tiers
    write_json(template, data)
    bundle = tmp_path / "b.json"
    converted = cli(
        "convert", "--in", str(tree.parent), "--contract", str(template), "--out", str(bundle)
    )
    assert converted.code == 0, converted.err
    report = json.loads(cli("evaluate", "--bundle", str(bundle), "--format", "json").out)
    own = report["digests"]["own_prices"]
    assert {"model": "claude-sonnet-9", "context": None} in own
    assert {"model": "claude-opus-4-8", "context": "standard|fast|not_available"} in own
    assert all(p["model"] != "claude-opus-4-8" or p["context"] is not None for p in own)
    markdown = cli("evaluate", "--bundle", str(bundle), "--format", "markdown").out
    assert "`claude-sonnet-9` (the contract's own prices, not a card's)" in markdown
    assert (
        "`claude-opus-4-8` (the contract's own multiplier for standard\\|fast\\|not_available; "
        "the contract's own max_output_tokens, 64,000)" in (markdown)
    )  # (the filled contract's 64,000 for the card's 128,000)
    # A review: the context's `|` ended the cell, and the model's spend fell off the table.
    for line in markdown.splitlines():
        if line.startswith("| `claude-"):
            cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
            assert len(cells) == 2, line
    text = cli("evaluate", "--bundle", str(bundle)).out
    assert (
        "price card: anthropic-2026-12; priced by the contract, not the card: 1 model, "
        "1 billing context and 1 max_output_tokens"
    ) in text
    # A bundle that names no card: every price is its own, and the report says no card.
    golden = FIXTURES / "synthetic_bundle.golden.json"
    alone = json.loads(cli("evaluate", "--bundle", str(golden), "--format", "json").out)
    assert alone["digests"]["price_card_id"] == "none"
    assert alone["digests"]["own_prices"] == [{"model": "claude-opus-4-8", "context": None}]


def test_a_max_output_tokens_the_contract_chose_is_named_as_its_own(
    cli: Any, tmp_path: Path
) -> None:
    """An audit: a contract naming the shipped card set a model's max_output_tokens to 5,000
    for the card's 128,000, which cut the model's high end from $119.86 to $9.16, and neither
    verify nor the report said so (verify: "the prices it carries ... are the card's"). It is
    a bound the user may set, and now it is named as the contract's, with the contract's own
    multipliers, in verify and in every report; in the reports only where it bounded a call
    (below)."""
    from tests.damage import copy_tree

    tree = copy_tree("synthetic_tree", tmp_path / "src")
    _last_call_unfinished(tree.parent)
    template = tmp_path / "t.json"
    data = _card_template(cli, tree.parent, template)
    entry = data["claims"]["pricing"]["models"]["claude-opus-4-8"]
    card, card_tiers = entry["max_output_tokens"], entry["tiers"]
    fill(data)
    entry = data["claims"]["pricing"]["models"]["claude-opus-4-8"]
    entry["tiers"] = card_tiers  # the card's prices, as the template gave them
    entry["max_output_tokens"] = 5000
    assert card != 5000
    write_json(template, data)
    bundle = tmp_path / "b.json"
    converted = cli(
        "convert", "--in", str(tree.parent), "--contract", str(template), "--out", str(bundle)
    )
    assert converted.code == 0, converted.err
    report = json.loads(cli("evaluate", "--bundle", str(bundle), "--format", "json").out)
    assert report["digests"]["own_max_output_tokens"] == [
        {"model": "claude-opus-4-8", "max_output_tokens": 5000}
    ]
    # An evaluation audit: every call finished, the bound priced none, and the report named
    # it as the model's bound all the same (beside a bundle whose calls the card's 128,000
    # bounded, as the bound of the whole workload's cost)
    finished, plain = tmp_path / "finished.json", tmp_path / "f.json"
    data = _card_template(cli, PARENT, plain)
    fill(data)
    data["claims"]["pricing"]["models"]["claude-opus-4-8"].update(
        tiers=card_tiers, max_output_tokens=5000
    )
    write_json(plain, data)
    again = cli("convert", "--in", str(PARENT), "--contract", str(plain), "--out", str(finished))
    assert again.code == 0, again.err
    unused = json.loads(cli("evaluate", "--bundle", str(finished), "--format", "json").out)
    assert unused["digests"]["own_max_output_tokens"] == []
    assert "max_output_tokens" not in cli("evaluate", "--bundle", str(finished)).out
    markdown = cli("evaluate", "--bundle", str(bundle), "--format", "markdown").out
    assert "the contract's own max_output_tokens, 5,000" in markdown
    assert "1 max_output_tokens" in markdown
    verified = cli("verify", "--bundle", str(bundle))
    assert verified.code == 0, verified.err
    assert "claude-opus-4-8 max_output_tokens 5,000" in verified.out
    assert "1 price it carries is the contract's own, not the card's" in verified.out
    # a bundle that names no card: said so, under the line that checked its costs
    golden = FIXTURES / "synthetic_bundle.golden.json"
    alone = cli("verify", "--bundle", str(golden))
    assert alone.code == 0, alone.err
    assert "note: it names no price card: every price it carries is the contract's own" in alone.out


def test_verify_says_prices_in_the_plural_when_several_are_the_contracts_own(
    cli: Any, tmp_path: Path
) -> None:
    """The count of the contract's own prices agrees with its verb: `1 price it carries is`,
    `2 prices it carries are` (here a multiplier the card does not state, for fast mode, and
    a max_output_tokens that is not the card's)."""
    from tests.damage import copy_tree

    tree = copy_tree("synthetic_tree", tmp_path / "src")
    parent = tree.parent.read_bytes().splitlines(keepends=True)
    last = max(i for i, line in enumerate(parent) if b'"type":"assistant"' in line)
    parent[last] = parent[last].replace(b'"speed":"standard"', b'"speed":"fast"')
    tree.parent.write_bytes(b"".join(parent))
    template = tmp_path / "t.json"
    data = _card_template(cli, tree.parent, template)
    card_tiers = data["claims"]["pricing"]["models"]["claude-opus-4-8"]["tiers"]
    fill(data)
    entry = data["claims"]["pricing"]["models"]["claude-opus-4-8"]
    entry["tiers"] = card_tiers  # the card's prices, as the template gave them
    entry["max_output_tokens"] = 5000
    write_json(template, data)
    bundle = tmp_path / "b.json"
    converted = cli(
        "convert", "--in", str(tree.parent), "--contract", str(template), "--out", str(bundle)
    )
    assert converted.code == 0, converted.err
    verified = cli("verify", "--bundle", str(bundle))
    assert verified.code == 0, verified.err
    assert "note: 2 prices it carries are the contract's own, not the card's: " in verified.out


def _card_template(cli: Any, parent: Path, path: Path) -> dict[str, Any]:
    """A template made with the shipped card, as written."""
    made = cli(
        "convert", "--in", str(parent), "--template", str(path),
        "--price-card", "anthropic-2026-12",
    )  # fmt: skip
    assert made.code == 0, made.err
    return read_json(path)


def _contract_naming_card(cli: Any, parent: Path, path: Path, card_id: str) -> dict[str, Any]:
    """A template made with the shipped card, filled, its card renamed `card_id` by hand."""
    data = _card_template(cli, parent, path)
    fill(data)
    data["claims"]["pricing"]["price_card"]["id"] = card_id
    write_json(path, data)
    return data


def test_a_card_this_version_does_not_ship_is_not_read_as_a_list_price(
    cli: Any, tmp_path: Path
) -> None:
    """An audit: a contract naming a card id no version ships ("anthropic-2027-01", typed by
    hand) was converted, verified as "ok" and evaluated with no word that its prices were
    nobody's but the contract's: the id read as a published card. Its prices are now all own
    prices, and every output says the card was not checked."""
    parent = fixture_parent("synthetic_tree")
    template = tmp_path / "t.json"
    data = _contract_naming_card(cli, parent, template, "anthropic-2027-01")
    bundle = tmp_path / "b.json"
    converted = cli(
        "convert", "--in", str(parent), "--contract", str(template), "--out", str(bundle)
    )
    assert converted.code == 0, converted.err
    report = json.loads(cli("evaluate", "--bundle", str(bundle), "--format", "json").out)
    assert report["digests"]["unshipped_price_cards"] == ["anthropic-2027-01"]
    models = sorted(data["claims"]["pricing"]["models"])
    assert report["digests"]["own_prices"] == [{"model": m, "context": None} for m in models]
    text = cli("evaluate", "--bundle", str(bundle)).out
    assert (
        "price card: anthropic-2027-01 (not shipped with this version: unchecked); priced by "
        f"the contract, not the card: {len(models)} model"
    ) in text
    verified = cli("verify", "--bundle", str(bundle))
    assert verified.code == 0, verified.err
    assert "not checked: its prices against card anthropic-2027-01" in verified.out
    # A shipped card is checked, and named as such.
    assert (
        "unchecked"
        not in cli("evaluate", "--bundle", str(FIXTURES / "synthetic_bundle.golden.json")).out
    )


@pytest.mark.parametrize("reserved", ["none", "mixed"])
def test_a_card_may_not_take_the_name_reports_give_no_card_or_several(
    cli: Any, tmp_path: Path, reserved: str
) -> None:
    """A review: a contract naming card "none" evaluated as "price card: none", which is what a
    report says of no card, with no own-price marker; "mixed" read as several cards."""
    parent = fixture_parent("synthetic_tree")
    template = tmp_path / "t.json"
    _contract_naming_card(cli, parent, template, reserved)
    converted = cli(
        "convert",
        "--in",
        str(parent),
        "--contract",
        str(template),
        "--out",
        str(tmp_path / "b.json"),
    )
    assert converted.code == 2
    assert "CONTRACT-SHAPE [claims/pricing/price_card/id" in converted.err
    card = tmp_path / "card.json"
    from tests.conftest import ROOT

    shipped = read_json(ROOT / "contracts" / "price-cards" / "anthropic-2026-12.json")
    write_json(card, {**shipped, "id": reserved})
    again = cli(
        "convert",
        "--in",
        str(parent),
        "--template",
        str(tmp_path / "t2.json"),
        "--price-card",
        str(card),
    )
    assert again.code == 2
    assert "PRICE-CARD-INVALID" in again.err


# --- evaluate --policy: the team's file, required -------------------------------------------


def _team_file(tmp: Path, edit: Any = None) -> Path:
    """The team's policy file: the checked-in contract's policy, baseline and outcome contract,
    as `convert --template --policy` takes them."""
    claims = json.loads(CONTRACT.read_text())["claims"]
    team = {name: claims[name] for name in ("policy", "baseline", "outcome_contract")}
    if edit is not None:
        edit(team)
    path = tmp / "team.json"
    write_json(path, team)
    return path


def test_bundles_under_the_required_policy_are_decided_as_without_it(
    cli: Any, tmp_path: Path
) -> None:
    bundle = _bundle(cli, tmp_path, "a")
    plain = cli("evaluate", "--bundle", str(bundle), "--format", "json")

    def respelt(team: dict[str, Any]) -> None:
        team["policy"]["min_acceptable_rate"] = "0.80"  # the same number, written otherwise
        del team["baseline"]  # a section left out requires nothing

    for edit in (None, respelt):
        team = _team_file(tmp_path, edit)
        required = cli(
            "evaluate", "--bundle", str(bundle), "--format", "json", "--policy", str(team)
        )  # fmt: skip
        assert required.code == plain.code, required.err
        report, before = json.loads(required.out), json.loads(plain.out)
        # the report says whose limits decided: the file, by digest, and what it left out
        digests = report["digests"]
        assert digests.pop("limits_required_by") == hashlib.sha256(team.read_bytes()).hexdigest()
        fixed, left = digests.pop("limits_fixed"), digests.pop("limits_left")
        assert "policy/min_tasks" in fixed
        assert len(fixed) + len(left) == 17  # 11 policy, 4 baseline, 2 outcome contract fields
        assert ("baseline/acceptable_rate" in left) == (edit is respelt)
        assert before["digests"].pop("limits_required_by") is None
        assert (before["digests"].pop("limits_fixed"), before["digests"].pop("limits_left")) == (
            [],
            [],
        )
        assert report == before  # decided as without it


def test_the_text_report_says_whose_limits_decided(cli: Any, tmp_path: Path) -> None:
    """A review: the report was the same with and without --policy, so a report forwarded alone
    could not say whether the team's limits had been required, nor which ones."""
    bundle = _bundle(cli, tmp_path, "a")

    def partial(team: dict[str, Any]) -> None:
        del team["baseline"]
        team["policy"]["min_tasks"] = None

    team = _team_file(tmp_path, partial)
    digest = hashlib.sha256(team.read_bytes()).hexdigest()
    for fmt in ("text", "markdown"):
        plain = cli("evaluate", "--bundle", str(bundle), "--format", fmt)
        assert "limits: the bundles' own (evaluate --policy requires a team's file)" in plain.out
        required = cli("evaluate", "--bundle", str(bundle), "--format", fmt, "--policy", str(team))
        assert f"limits: 12 of 17 fixed by the policy file {digest}; the bundles' own: " in (
            required.out
        )
        assert "policy/min_tasks, baseline/name, baseline/cost_per_attempt_usd" in required.out


def test_with_several_bundles_the_one_under_other_limits_is_named(cli: Any, tmp_path: Path) -> None:
    """A walkthrough: one bundle under another policy given first, the others under the team's:
    the others were blamed (EVAL-WORKLOAD-MISMATCH against bundle 1) and no
    EVAL-POLICY-MISMATCH said which one differed from the file."""
    good = _filled(cli, tmp_path, "good", parent=RICH)
    claims = read_json(tmp_path / "good.template.json")["claims"]
    team = tmp_path / "team.json"
    write_json(team, {name: claims[name] for name in ("policy", "baseline", "outcome_contract")})
    odd = _filled(cli, tmp_path, "odd", edit=_policy("min_tasks", 99))
    without = cli("evaluate", "--bundle", str(odd), "--bundle", str(good))
    assert "bundle 2 of 2: policy/min_tasks differs from bundle 1 of 2" in without.err
    result = cli("evaluate", "--bundle", str(odd), "--bundle", str(good), "--policy", str(team))
    assert result.code == 2
    assert result.err.startswith(
        "refused: EVAL-POLICY-MISMATCH [bundle 1 of 2: policy/min_tasks differs from --policy]"
    )
    assert len(result.err.splitlines()) == 1, result.err  # the bundle that matches: not blamed


def test_without_a_policy_file_the_bundle_most_others_differ_from_is_named(
    cli: Any, tmp_path: Path
) -> None:
    """A walkthrough: one bundle under another policy given first, three under the team's,
    no --policy: the three were named as differing from bundle 1, the odd one never. The value
    most bundles hold is the one compared with (the first bundle's on a tie)."""
    odd = _filled(cli, tmp_path, "odd", edit=_policy("min_tasks", 99))
    good = _filled(cli, tmp_path, "good", parent=RICH)
    again = tmp_path / "again.bundle.json"  # the same session again: its overlap said too
    again.write_bytes(good.read_bytes())
    result = cli("evaluate", "--bundle", str(odd), "--bundle", str(good), "--bundle", str(again))
    assert result.code == 2
    mismatches = [line for line in _refusals(result.err) if "EVAL-WORKLOAD-MISMATCH" in line]
    assert [line.split("]")[0] for line in mismatches] == [
        "refused: EVAL-WORKLOAD-MISMATCH [bundle 1 of 3: policy/min_tasks differs from bundle 2 "
        "of 3 (and 1 other bundle)"
    ]
    assert "EVAL-BUNDLE-OVERLAP [bundle 2 of 3 and bundle 3 of 3]" in result.err


def test_limits_are_said_with_the_other_bundles_refusals(cli: Any, tmp_path: Path) -> None:
    """A run reports every problem it finds: a bundle under other limits beside another
    bundle that cannot be read."""
    bundle = _bundle(cli, tmp_path, "a", _policy("min_tasks", 99))
    result = cli(
        "evaluate", "--bundle", str(bundle), "--bundle", str(tmp_path / "missing.json"),
        "--policy", str(_team_file(tmp_path)),
    )  # fmt: skip
    assert result.code == 2
    assert "EVAL-POLICY-MISMATCH [bundle 1 of 2: policy/min_tasks differs from --policy]" in (
        result.err
    )
    assert "BUNDLE-UNREADABLE [bundle 2 of 2: no such file]" in result.err


def test_a_tampered_bundle_is_a_mismatch_whatever_the_policy_file(cli: Any, tmp_path: Path) -> None:
    """A review: a policy file of the wrong shape was read before any bundle, so a tampered
    bundle was REFUSED (2) in the Action instead of an integrity failure (5)."""
    bundle = _bundle(cli, tmp_path, "a")
    data = bytearray(bundle.read_bytes())
    position = data.index(b'"output_tokens":') + len(b'"output_tokens":')
    data[position] = ord("9") if data[position] != ord("9") else ord("8")
    bundle.write_bytes(bytes(data))

    def wrong(team: dict[str, Any]) -> None:
        team["policy"]["min_taks"] = 1

    result = cli("evaluate", "--bundle", str(bundle), "--policy", str(_team_file(tmp_path, wrong)))
    assert result.code == 5
    assert "BUNDLE-DIGEST-MISMATCH" in result.err
    assert "CONTRACT-POLICY-FILE-SHAPE [policy/" in result.err  # said with it


@pytest.mark.parametrize(
    ("section", "field", "value"),
    [
        ("policy", "min_tasks", 0),
        ("policy", "max_p95_task_cost_usd", "250"),
        ("policy", "disabled_checks", ["p95-task-cost"]),
        ("baseline", "acceptable_rate", "0.5"),
        ("outcome_contract", "rubric_version", "team-rubric-2"),
    ],
)
def test_bundles_under_another_policy_are_refused_by_field(
    section: str, field: str, value: Any, cli: Any, tmp_path: Path
) -> None:
    """Was: the gate decided under whatever limits the bundles' producer chose; a producer who
    lowered `min_tasks` or raised a cost limit passed. Now each field the team's file gives
    must be the bundles', or nothing is decided (exit 2) and the report is not written."""
    bundle = _bundle(cli, tmp_path, "a")

    def edit(team: dict[str, Any]) -> None:
        team[section][field] = value

    report = tmp_path / "report.md"
    result = cli(
        "evaluate", "--bundle", str(bundle), "--report", str(report),
        "--policy", str(_team_file(tmp_path, edit)),
    )  # fmt: skip
    assert result.code == 2, result.err
    assert f"EVAL-POLICY-MISMATCH [{section}/{field} differs from --policy]" in result.err
    assert str(value) not in result.err.replace(f"{section}/{field}", "")  # no value said
    assert not report.exists()


def test_a_code_said_on_many_lines_is_described_once(cli: Any, tmp_path: Path) -> None:
    """A new user's walk: a policy file differing in many fields printed EVAL-POLICY-MISMATCH's
    two sentences on each of 17 lines. Now each line names its field; the first alone says
    what the code means and its fix."""
    bundle = _bundle(cli, tmp_path, "a")

    def edit(team: dict[str, Any]) -> None:
        team["policy"]["max_calls_per_task"] = 7
        team["policy"]["min_tasks"] = 99
        team["baseline"]["name"] = "another"

    result = cli("evaluate", "--bundle", str(bundle), "--policy", str(_team_file(tmp_path, edit)))
    assert result.code == 2, result.err
    lines = _refusals(result.err)
    assert len(lines) == 3
    meaning = CODES["EVAL-POLICY-MISMATCH"].message
    assert result.err.count(meaning) == 1
    assert meaning in lines[0]
    assert all(line.endswith("differs from --policy]: as above.") for line in lines[1:])


def test_a_field_the_file_leaves_out_or_null_is_not_required(cli: Any, tmp_path: Path) -> None:
    bundle = _bundle(cli, tmp_path, "a", _policy("max_calls_per_task", 49))

    def loose(team: dict[str, Any]) -> None:
        del team["policy"]["max_calls_per_task"]
        team["baseline"]["name"] = None

    result = cli("evaluate", "--bundle", str(bundle), "--policy", str(_team_file(tmp_path, loose)))
    assert result.code == 0, result.err
    strict = cli("evaluate", "--bundle", str(bundle), "--policy", str(_team_file(tmp_path)))
    assert "EVAL-POLICY-MISMATCH [policy/max_calls_per_task differs" in strict.err


def test_a_policy_file_that_is_not_one_is_refused_with_every_problem(
    cli: Any, tmp_path: Path
) -> None:
    bundle = _bundle(cli, tmp_path, "a")

    def wrong(team: dict[str, Any]) -> None:
        team["policy"]["min_taks"] = 1
        team["policy"]["disabled_checks"] = ["p95-cost"]

    result = cli("evaluate", "--bundle", str(bundle), "--policy", str(_team_file(tmp_path, wrong)))
    assert result.code == 2
    assert "CONTRACT-POLICY-FILE-SHAPE" in result.err
    assert "CONTRACT-UNKNOWN-CHECK [policy/disabled_checks/0]" in result.err  # both said
    assert "claims/" not in result.err  # named as in the file, as evaluate's mismatch names it
    contract = cli("evaluate", "--bundle", str(bundle), "--policy", str(CONTRACT))
    assert contract.code == 2
    assert "not a whole contract" in contract.err


def test_what_a_policy_file_holds_is_never_said(cli: Any, tmp_path: Path) -> None:
    """The team's file is input like any other: a refusal names fields by path, never a value
    or a key the file made up (SPEC §6.4)."""
    bundle = _bundle(cli, tmp_path, "a")
    canaries = ("canary-baseline-7f3a9c", "canary-key-b81d44e0", "canary-value-1c9e2a77")

    def leaky(team: dict[str, Any]) -> None:
        team["baseline"]["name"] = canaries[0]
        team["policy"][canaries[1]] = canaries[2]

    shape = cli("evaluate", "--bundle", str(bundle), "--policy", str(_team_file(tmp_path, leaky)))

    def named(team: dict[str, Any]) -> None:
        team["baseline"]["name"] = canaries[0]

    mismatch = cli(
        "evaluate", "--bundle", str(bundle), "--policy", str(_team_file(tmp_path, named))
    )
    assert "CONTRACT-POLICY-FILE-SHAPE [policy/<key #1>" in shape.err  # keys sorted
    assert "EVAL-POLICY-MISMATCH [baseline/name differs from --policy]" in mismatch.err
    for result in (shape, mismatch):
        assert result.code == 2
        for canary in canaries:
            assert canary not in result.out + result.err


def test_the_text_report_says_what_the_agents_spent_apart_from_human_time(
    cli: Any, tmp_path: Path
) -> None:
    """A FinOps walkthrough: the text report's only total was the effective cost, human time
    in it ($9 of the demo's $9.0748), and was reported as what the agents cost; only the
    Markdown split it by model."""
    bundle = _bundle(cli, tmp_path, "a")
    text = cli("evaluate", "--bundle", str(bundle)).out
    markdown = cli("evaluate", "--bundle", str(bundle), "--format", "markdown").out
    spend = re.search(r"\| \*\*all\*\* \| (\$[0-9.,]+) \|", markdown)
    assert spend is not None
    assert f"  agents' spend: {spend.group(1)}" in text
    assert re.search(
        r"^    claude-opus-4-8 \(the contract's own prices, not a card's\): \$", text, re.M
    )
    assert "    tool calls: $0.0000" in text
    report = json.loads(cli("evaluate", "--bundle", str(bundle), "--format", "json").out)
    human = sum(Decimal(t["human_usd"]) for t in report["tasks"])
    assert f"  human time: ${human:.4f}; remediation: $0.0000; incident loss: $0.0000" in text


def test_each_bundles_findings_name_the_bundle(cli: Any, tmp_path: Path) -> None:
    """A walkthrough: over 17 bundles the report said a finding 7 times and never which
    bundle's, where its fix is to leave that bundle out. A bundle's finding names it."""
    bundle = _bundle(cli, tmp_path, "one")
    result = cli("evaluate", "--bundle", str(bundle), "--format", "json")
    (fork,) = [
        f for f in json.loads(result.out)["findings"] if f["code"] == "CC-REC-FORK-BOOTSTRAP"
    ]
    assert fork["bundle"] == 1
    text = cli("evaluate", "--bundle", str(bundle)).out
    assert "CC-REC-FORK-BOOTSTRAP ×1 in bundle 1" in text


def _bundle_of(cli: Any, tree: Any, tmp_path: Path) -> Path:
    template = tmp_path / "template.json"
    made = cli("convert", "--in", str(tree.parent), "--template", str(template))
    assert made.code == 0, made.err
    contract = tmp_path / "contract.json"
    write_json(contract, fill(read_json(template)))
    bundle = tmp_path / "bundle.json"
    done = cli(
        "convert", "--in", str(tree.parent), "--contract", str(contract), "--out", str(bundle)
    )
    assert done.code == 0, done.err
    return bundle


def test_a_task_holding_a_search_of_unknown_count_has_no_high_end(
    cli: Any, rich: Any, tmp_path: Path
) -> None:
    """An audit: a WebSearch call whose search count is unknown left the workload's total with
    no high end (`no bound`), while the task holding it showed a range in Markdown and, in
    JSON, a finite high end with no mark of it. Its task, its agent's cost and the cost of
    the model whose call requested it now say no bound; the other tasks keep theirs."""
    line = rich.find_line("", "srvtoolu")

    def unnamed(record: dict[str, Any]) -> None:  # an older result shape: no search named
        for entry in record["toolUseResult"]["results"]:
            if isinstance(entry, dict):
                entry.pop("tool_use_id", None)

    rich.edit_record("", line, unnamed)
    bundle = _bundle_of(cli, rich, tmp_path)
    result = cli("evaluate", "--bundle", str(bundle), "--format", "json")
    report = json.loads(result.out)
    assert {"code": "CC-REC-WEBSEARCH-COUNT-UNKNOWN", "count": 1, "bundle": 1} in [
        {k: f[k] for k in ("code", "count", "bundle")} for f in report["findings"]
    ]
    assert report["metrics"]["high_is_bound"] is False
    assert report["metrics"]["left_out_by_agent_type"] == {"main": 1}
    (held,) = [t for t in report["tasks"] if not t["high_is_bound"]]
    assert held["left_out_by_agent_type"] == {"main": 1}
    others = [t for t in report["tasks"] if t["id"] != held["id"]]
    assert len(others) == 5
    assert all(t["high_is_bound"] and not t["left_out_by_agent_type"] for t in others)
    markdown = cli("evaluate", "--bundle", str(bundle), "--format", "markdown").out
    rows = {
        t["id"]: next(r for r in markdown.splitlines() if t["id"] in r) for t in report["tasks"]
    }
    assert rows[held["id"]].endswith(" – no bound |")
    assert rows[held["id"]].split(" | ")[3].endswith("– no bound")  # its agent's (main) cost
    assert not any("no bound" in rows[t["id"]] for t in others)
    # a search is priced on the call that requested it (a review: the tool calls' row said it)
    (model,) = held["left_out_by_model"]
    assert report["metrics"]["left_out_by_model"] == {model: 1}
    lines = markdown.splitlines()
    assert next(r for r in lines if r.startswith(f"| `{model}`")).endswith("– no bound |")
    assert "no bound" not in next(r for r in lines if r.startswith("| tool calls |"))
    assert "`no bound`: some of that cost is in no figure" in markdown


def test_a_final_call_of_no_input_opens_its_own_task_only(
    cli: Any, rich: Any, tmp_path: Path
) -> None:
    """A review: a call recorded final with no input (CC-REC-FINAL-NO-INPUT) opened every task
    of its bundle, and not its own agent's or model's cost. Its event shows whose it is."""
    records = [json.loads(raw) for raw in rich.lines()]
    ended = next(
        r["message"]["id"]
        for r in records
        if r.get("type") == "assistant" and r["message"].get("stop_reason") == "end_turn"
    )
    for number, record in enumerate(records, 1):
        if record.get("type") == "assistant" and record["message"].get("id") == ended:

            def no_input(obj: dict[str, Any]) -> None:
                usage = obj["message"]["usage"]
                for key in ("input_tokens", "cache_read_input_tokens"):
                    usage[key] = 0
                usage["cache_creation_input_tokens"] = 0
                usage.pop("cache_creation", None)
                usage.pop("iterations", None)

            rich.edit_record("", number, no_input)
    report = json.loads(
        cli("evaluate", "--bundle", str(_bundle_of(cli, rich, tmp_path)), "--format", "json").out
    )
    assert {"code": "CC-REC-FINAL-NO-INPUT", "count": 1, "bundle": 1} in [
        {k: f[k] for k in ("code", "count", "bundle")} for f in report["findings"]
    ]
    (held,) = [t for t in report["tasks"] if not t["high_is_bound"]]
    assert held["left_out_by_agent_type"] == {"main": 1}
    assert sum(held["left_out_by_model"].values()) == 1
    assert sum(not t["high_is_bound"] for t in report["tasks"]) == 1
    assert report["metrics"]["high_is_bound"] is False


def test_a_finding_listed_twice_counts_for_the_tasks_as_for_the_total(
    cli: Any, tmp_path: Path
) -> None:
    """A review: a resealed bundle listing CC-TREE-REMOTE-AGENT twice (1, then 0) kept the last
    count for the tasks' marks (every task bounded) while the workload's total summed both."""
    from converter.bundle.io import evidence_digest
    from converter.codec.canonical import reference_bytes

    body = json.loads(_bundle(cli, tmp_path, "twice").read_bytes())
    body["receipt"]["findings"] += [
        {"code": "CC-TREE-REMOTE-AGENT", "count": 1},
        {"code": "CC-TREE-REMOTE-AGENT", "count": 0},
    ]
    del body["receipt"]["evidence_sha256"]
    body["receipt"]["evidence_sha256"] = evidence_digest(body)
    resealed = tmp_path / "resealed.json"
    resealed.write_bytes(reference_bytes(body))
    report = json.loads(cli("evaluate", "--bundle", str(resealed), "--format", "json").out)
    assert report["metrics"]["spend_left_out"] == 1
    assert [t["high_is_bound"] for t in report["tasks"]] == [False]


def test_as_above_replaces_the_description_not_a_path_holding_its_words(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A diff review: a file named with the description's words, shown by --show-paths before
    the description, had its name rewritten to `as above.` and the description kept."""
    from converter.cli.diagnostics import describe, emit_lines

    code = "CC-TREE-BAD-ID"
    words = CODES[code].message
    first = describe(code, "unbound/file-1", None, "a.jsonl", fix=False)
    odd = describe(code, "unbound/file-2", None, f"agent-q: {words}.jsonl", fix=False)
    emit_lines([(code, "unbound/file-1", first), (code, "unbound/file-2", odd)])
    lines = capsys.readouterr().err.splitlines()
    assert lines[1] == f"refused: {code} [unbound/file-2] (agent-q: {words}.jsonl): as above."
