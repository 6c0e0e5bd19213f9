"""`make demo` / `make claude-code-tree`: the conformance proof on fixtures/synthetic_tree.

Runs the real commands in order — template, convert with the checked-in completed contract,
compare the bundle with the golden file, evaluate — and prints the proof's counts and decision.
A fixed demo key makes the output identical on every machine; real use keeps its own key.
`AGENT_EVIDENCE_REGENERATE=1` rewrites the golden bundle after a deliberate change.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path

from converter.cli.main import main as cli_main

DEMO_KEY = "de" * 32


_NOTICES_SHOWN: set[str] = set()


def _run(args: list[str]) -> int:
    """Run a real command; its own messages are dropped so stdout holds only the proof (its
    refusals, if any, still reach stderr, and a notice once: the demo key's, that it is public,
    is said by every command that uses it, and read twice it alarmed a first-time user)."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            cli_main(args)
    except SystemExit as done:
        return int(done.code or 0)
    finally:
        for line in err.getvalue().splitlines(keepends=True):
            if line.startswith("notice:") and line in _NOTICES_SHOWN:
                continue
            _NOTICES_SHOWN.add(line)
            sys.stderr.write(line)
    return 0


def _fixture(root: Path) -> tuple[Path, Path, Path]:
    parent = next((root / "fixtures" / "synthetic_tree").glob("*.jsonl"))
    return (
        parent,
        root / "fixtures" / "synthetic_contract.json",
        root / "fixtures" / "synthetic_bundle.golden.json",
    )


def proof(root: Path, work: Path) -> int:
    parent, contract, golden = _fixture(root)
    template = work / "template.json"
    bundle = work / "bundle.json"
    print("== convert --template", file=sys.stderr)
    if _run(["convert", "--in", str(parent), "--template", str(template)]) != 0:
        return 2
    print("== convert --contract", file=sys.stderr)
    if (
        _run(["convert", "--in", str(parent), "--contract", str(contract), "--out", str(bundle)])
        != 0
    ):
        return 2
    written = bundle.read_bytes()
    if os.environ.get("AGENT_EVIDENCE_REGENERATE"):
        golden.write_bytes(written)
    if written != golden.read_bytes():
        print("bundle differs from fixtures/synthetic_bundle.golden.json", file=sys.stderr)
        return 2
    receipt = json.loads(written)["receipt"]
    counts = receipt["counts"]
    print("bundle identical, byte for byte, to fixtures/synthetic_bundle.golden.json")
    print(f"{counts['bound_files']} bound source files")
    print(f"{counts['delegations_expanded']} expanded delegation")
    print(f"{counts['model_calls']} unique model calls")
    print(f"{counts['tool_calls']} tool calls")
    print(f"{counts['edges']} dependency edges")
    return _evaluate(bundle)


def _evaluate(bundle: Path) -> int:
    """Print the decision; the full report is written beside the bundle."""
    report = bundle.with_suffix(".report.json")
    code = _run(["evaluate", "--bundle", str(bundle), "--format", "json", "--report", str(report)])
    if report.exists():
        print(json.loads(report.read_text())["decision"])
    return code


def main() -> int:
    os.environ["AGENT_EVIDENCE_KEY"] = DEMO_KEY
    # (a walkthrough: the key notice below read as an alarm on a first run)
    print(
        "demo: the fixture is converted under the demo's public pseudonym key, on purpose (its "
        "bundle is checked byte for byte); the notice about it below is expected",
        file=sys.stderr,
    )
    with tempfile.TemporaryDirectory(prefix="agent-evidence-demo-") as work:
        code = proof(Path.cwd(), Path(work))
    if code == 0:  # what a new user runs next (a walkthrough: the demo said nothing of it)
        print(
            "next: `.venv/bin/agent-evidence scan --price-card anthropic-2026-12` lists your own "
            'sessions and what each cost; README "Use" goes on from there',
            file=sys.stderr,
        )
    return code


if __name__ == "__main__":
    sys.exit(main())
