"""Every real tree in ../shared/corpus/real is inspected: its numbers match the independent
oracle, and it either converts or refuses with exactly the pinned codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import shared_dir

SHARED = shared_dir()
pytestmark = pytest.mark.skipif(SHARED is None, reason="shared corpus not present")
EXPECTED: dict[str, Any] = json.loads((Path(__file__).parent / "corpus_expected.json").read_text())

# Decisions per tree (docs/claude-code-shapes.md says why). Trees not listed convert.
REFUSED: dict[str, set[str]] = {
    "e48bd9f7": {"CC-TREE-NO-CALLS"},  # every assistant record is <synthetic>
    "e7f7f442": {"CC-TREE-NO-CALLS"},  # one last-prompt line
    "db21ed63": {"CC-TREE-NO-CALLS"},
    "3b6640ac": {"CC-TREE-NO-CALLS"},
    "bde55f48": {"CC-TREE-NO-CALLS"},
    "be78e972": {"CC-TREE-NO-CALLS"},
    "ff71dbed": {"CC-TREE-NO-CALLS"},  # a summary line only
    "short.js": {"CC-TREE-PARENT-NAME"},  # excerpts renamed by their publisher
    # its Task child is not in the corpus: the progress lines copy calls no file holds
    "subagent": {
        "CC-TREE-PARENT-NAME",
        "CC-TREE-UNEXPANDED-DELEGATION",
        "CC-REC-PROGRESS-UNMATCHED",
    },
    "tool_hea": {"CC-TREE-PARENT-NAME"},
    "sample_a": {"CC-TREE-PARENT-IS-SUBAGENT"},  # a renamed agent file: its name is moot
    "sample_h": {"CC-REC-NOT-A-TRANSCRIPT"},  # a hook log: not a transcript, nor misnamed
    "sample_m": {"CC-TREE-PARENT-NAME"},
}
COUNTS = (
    "model_calls",
    "tool_calls",
    "usage_incomplete_calls",
    "synthetic_records",
    "transcript_files",
    "meta_files",
)
USAGE = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_5m_input_tokens",
    "cache_creation_1h_input_tokens",
    "cache_creation_unsplit_input_tokens",
)


@pytest.mark.parametrize("tree", sorted(EXPECTED))
def test_real_tree(tree: str, cli: Any) -> None:
    assert SHARED is not None
    result = cli("inspect", "--json", "--in", str(SHARED / "corpus" / "real" / tree))
    report = result.json()
    oracle = EXPECTED[tree]
    refused = REFUSED.get(Path(tree).name[:8], set())
    assert {r["code"] for r in report["refusals"]} == refused
    assert result.code == (2 if refused else 0)
    assert report["convertible"] is (not refused)
    for key in COUNTS:
        if key in oracle and not (key == "model_calls" and "note" in oracle and refused):
            assert report["counts"][key] == oracle[key], key
    for key in USAGE:
        assert report["usage"][key] == oracle[key], key
    if not refused:  # calls per model and the versions seen, as the oracle counts them
        calls = {m: v["model_calls"] for m, v in report["by_model"].items()}
        assert calls == oracle["by_model"]
        assert report["claude_code_versions"] == oracle["claude_code_versions"]
    if refused:
        assert "refused: " in result.err
    assert "Traceback" not in result.err


def test_unexpanded_delegation_names_the_tool_use_line(cli: Any) -> None:
    """spotter's subagent.jsonl: the Task call's text fragment is line 35, its tool_use line 36.
    The refusal points at the line that holds the delegation, where the fix is looked for."""
    assert SHARED is not None
    parent = SHARED / "corpus" / "real" / "marot__spotter" / "subagent.jsonl"
    result = cli("inspect", "--json", "--in", str(parent))
    lines = {
        r["line"] for r in result.json()["refusals"] if r["code"].endswith("UNEXPANDED-DELEGATION")
    }
    assert lines == {36}
