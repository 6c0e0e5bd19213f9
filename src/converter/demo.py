"""`make demo`: the conformance proof on fixtures/synthetic_tree, with a throwaway key.

Runs every stage that exists on the checked-in synthetic tree and prints its counts. Uses a
fixed demo key so the output is the same on every machine; real use keeps its own key.
"""

from __future__ import annotations

import sys
from pathlib import Path

from converter.firewall.keys import PseudonymKey
from converter.firewall.pseudonyms import Pseudonymizer
from converter.inspection import inspect_report
from converter.pipeline import inspect_tree

DEMO_KEY = PseudonymKey(bytes.fromhex("de" * 32))


def fixture_tree(root: Path) -> Path:
    return next((root / "fixtures" / "synthetic_tree").glob("*.jsonl"))


def proof_lines(report: dict[str, object]) -> list[str]:
    counts = report["counts"]
    assert isinstance(counts, dict)
    return [
        f"{report['bound_files']} bound source files",
        f"{counts['delegations_expanded']} expanded delegation",
        f"{counts['model_calls']} unique model calls",
        f"{counts['tool_calls']} tool calls",
        f"{counts['edges']} dependency edges",
    ]


def main() -> int:
    root = Path.cwd()
    _, public = inspect_tree(fixture_tree(root), Pseudonymizer(DEMO_KEY))
    report = inspect_report(public)
    for line in proof_lines(report):
        print(line)
    return 0 if report["convertible"] else 2


if __name__ == "__main__":
    sys.exit(main())
