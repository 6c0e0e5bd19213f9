"""The bundle's events are written from parts validated elsewhere (the crossed event, the
engine's costs, the contract's prices), not through an output model per event. Each must still
be exactly what its output model would write: validated as one, it dumps back the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from converter.bundle.model import ModelEventOut, ToolEventOut
from converter.devtools.bench.fill import fill
from converter.errors import Refused
from converter.firewall.keys import PseudonymKey
from converter.firewall.pseudonyms import Pseudonymizer
from converter.run.conversion import make_bundle, make_template, read_sources
from converter.run.pipeline import SourceName
from tests.conftest import fixture_parent, shared_dir
from tests.test_inspect_corpus import REFUSED

SHARED = shared_dir()
CORPUS = sorted(json.loads((Path(__file__).parent / "corpus_expected.json").read_text()))
PSEUDO = Pseudonymizer(PseudonymKey(bytes(range(32))))


def _bundle_events(parent: Path, source: SourceName = "claude-code-tree") -> list[dict[str, Any]]:
    reading = read_sources(parent, source, "prompt", PSEUDO)
    template = make_template(reading, source, "prompt").data
    contract = json.dumps(fill(json.loads(template))).encode()
    data = make_bundle(parent, source, "prompt", PSEUDO, contract).data
    events: list[dict[str, Any]] = json.loads(bytes(data))["events"]
    return events


def _assert_each_is_its_output_model(events: list[dict[str, Any]]) -> None:
    kinds = set()
    for event in events:
        model = ModelEventOut if event["kind"] == "model" else ToolEventOut
        assert model.model_validate_json(json.dumps(event)).model_dump(mode="json") == event
        kinds.add(event["kind"])
    assert kinds == {"model", "tool"}


@pytest.mark.parametrize("name", ["synthetic_tree", "rich_tree"])
def test_fixture_bundle_events_are_their_output_models(name: str) -> None:
    _assert_each_is_its_output_model(_bundle_events(fixture_parent(name)))


@pytest.mark.skipif(SHARED is None, reason="shared corpus not present")
@pytest.mark.parametrize("tree", CORPUS)
def test_corpus_bundle_events_are_their_output_models(tree: str) -> None:
    assert SHARED is not None
    parent = SHARED / "corpus" / "real" / tree
    try:
        try:
            events = _bundle_events(parent)
        except Refused as refused:  # a file not named by its session id: read it alone
            if "CC-TREE-PARENT-NAME" not in {p.code for p in refused.problems}:
                raise
            events = _bundle_events(parent, "claude-code")
    except Refused as refused:
        codes = [p.code for p in refused.problems]
    else:
        codes = []
    if codes:
        # Only a tree pinned as refusing may: a convertible tree that starts refusing fails.
        assert Path(tree).name[:8] in REFUSED, codes
        pytest.skip("this tree refuses; its refusal is tested elsewhere")
    _assert_each_is_its_output_model(events)
