"""The summary `inspect` and `scan` show equals what the full public account adds up to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from converter.firewall.boundary import cross, summarize
from converter.firewall.keys import PseudonymKey
from converter.firewall.pseudonyms import Pseudonymizer
from converter.firewall.view import UsageTotals
from converter.run.pipeline import read_tree
from tests.conftest import fixture_parent, shared_dir

SHARED = shared_dir()
CORPUS = sorted(json.loads((Path(__file__).parent / "corpus_expected.json").read_text()))
KEYS = tuple(UsageTotals.model_fields)


def _check(parent: Path) -> None:
    account = read_tree(parent)
    pseudo = Pseudonymizer(PseudonymKey(bytes(range(32))))
    public = cross(account, pseudo)
    summary = summarize(account, Pseudonymizer(PseudonymKey(bytes(range(32)))))
    total = dict.fromkeys(KEYS, 0)
    by_model: dict[str, dict[str, int]] = {}
    calls: dict[str, int] = {}
    by_agent: dict[str, int] = {}
    for event in public.model_events:
        sums = by_model.setdefault(event.model, dict.fromkeys(KEYS, 0))
        for key in KEYS:
            total[key] += getattr(event.usage, key)
            sums[key] += getattr(event.usage, key)
        calls[event.model] = calls.get(event.model, 0) + 1
        by_agent[event.agent] = by_agent.get(event.agent, 0) + 1
    assert summary.usage.model_dump() == total
    assert {m.model: m.usage.model_dump() for m in summary.by_model} == by_model
    assert {m.model: m.model_calls for m in summary.by_model} == calls
    assert summary.calls_by_agent == by_agent
    for name in ("key_id", "task_unit", "convertible", "agents", "refusals", "findings"):
        assert getattr(summary, name) == getattr(public, name), name
    assert summary.counts == public.counts
    assert summary.claude_code_versions == public.claude_code_versions


@pytest.mark.parametrize("name", ["synthetic_tree", "rich_tree"])
def test_fixture_summary(name: str) -> None:
    _check(fixture_parent(name))


@pytest.mark.skipif(SHARED is None, reason="shared corpus not present")
@pytest.mark.parametrize("tree", CORPUS)
def test_corpus_summary(tree: str) -> None:
    assert SHARED is not None
    _check(SHARED / "corpus" / "real" / tree)
