"""The reference counter (tests/oracle.py) reproduces tests/corpus_expected.json on the real
corpus. Skipped when the shared corpus is not present."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / "corpus_expected.json"


def _load_oracle():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("_ae_oracle", HERE / "oracle.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _real_corpus() -> Path | None:
    candidates = [Path(__file__).resolve().parents[2] / "shared"]
    env = os.environ.get("AGENT_EVIDENCE_SHARED")
    if env:
        candidates.append(Path(env))
    for shared in candidates:
        real = shared / "corpus" / "real"
        if real.is_dir():
            return real
    return None


REAL = _real_corpus()
needs_corpus = pytest.mark.skipif(REAL is None, reason="shared real corpus not present")


@needs_corpus
def test_oracle_reproduces_expected() -> None:
    oracle = _load_oracle()
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    actual = oracle.count_corpus(REAL)
    assert sorted(actual) == sorted(expected)
    for tree, want in expected.items():
        assert actual[tree] == want, tree


@needs_corpus
def test_every_corpus_transcript_is_in_exactly_one_tree() -> None:
    oracle = _load_oracle()
    assert REAL is not None
    placed: list[Path] = []
    for parent in oracle.corpus_parents(REAL):
        files, _metas = oracle.tree_files(parent)
        placed.extend(files)
    assert len(placed) == len(set(placed))
    journals = set(REAL.rglob("journal.jsonl"))
    every = set(REAL.rglob("*.jsonl")) - journals
    assert set(placed) == every


def test_expected_is_internally_consistent() -> None:
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    assert expected
    for tree, row in expected.items():
        assert sum(row["by_model"].values()) == row["model_calls"], tree
        assert 0 <= row["usage_incomplete_calls"] <= row["model_calls"], tree
        assert row["claude_code_versions"] == sorted(set(row["claude_code_versions"])), tree
        if row["model_calls"] == 0:
            assert row["input_tokens"] == row["output_tokens"] == 0, tree
