"""Opening a bundle item by item accepts and refuses exactly what whole-document validation does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from converter.bundle.io import evidence_digest, open_bundle
from converter.bundle.model import Bundle, BundleHead, ModelEventOut, ToolEventOut
from converter.canonical import encode
from converter.errors import Refused
from converter.firewall.view import Edge

GOLDEN = Path(__file__).parent.parent / "fixtures" / "synthetic_bundle.golden.json"


class _Collect:
    """A sink that keeps everything: the whole bundle back as one model."""

    def __init__(self) -> None:
        self.events: list[ModelEventOut | ToolEventOut] = []
        self.edges: list[Edge] = []

    def start(self, head: BundleHead) -> None:
        pass

    def event(self, event: ModelEventOut | ToolEventOut) -> None:
        self.events.append(event)

    def edge(self, edge: Edge) -> None:
        self.edges.append(edge)


def open_whole_bundle(data: bytes) -> Bundle:
    parts = _Collect()
    head = open_bundle(data, sink=parts)
    return Bundle(**dict(head), events=tuple(parts.events), edges=tuple(parts.edges))


def _resealed(edit: Any) -> bytes:
    body = json.loads(GOLDEN.read_bytes())
    edit(body)
    body["receipt"].pop("evidence_sha256", None)
    body["receipt"]["evidence_sha256"] = evidence_digest(body)
    return encode(body)


def test_streamed_equals_whole_document_validation() -> None:
    data = GOLDEN.read_bytes()
    assert open_whole_bundle(data) == Bundle.model_validate_json(data)


def _set_first_event_field(body: dict[str, Any]) -> None:
    body["events"][0]["usage"]["input_tokens"] = -1


def _drop_edges(body: dict[str, Any]) -> None:
    del body["edges"]


def _extra_top_level(body: dict[str, Any]) -> None:
    body["note"] = "x"


def _edges_not_a_list(body: dict[str, Any]) -> None:
    body["edges"] = {}


def _bad_event_kind(body: dict[str, Any]) -> None:
    body["events"][-1]["kind"] = "other"


def _bad_edge(body: dict[str, Any]) -> None:
    body["edges"][0]["kind"] = "unknown"


@pytest.mark.parametrize(
    "edit",
    [
        _set_first_event_field,
        _drop_edges,
        _extra_top_level,
        _edges_not_a_list,
        _bad_event_kind,
        _bad_edge,
    ],
)
def test_refuses_what_whole_validation_refuses(edit: Any) -> None:
    data = _resealed(edit)
    with pytest.raises(ValidationError):
        Bundle.model_validate_json(data)
    with pytest.raises(Refused) as refused:  # the digest matches: written by something else
        open_bundle(data)
    assert [p.code for p in refused.value.problems] == ["BUNDLE-SHAPE"]


def test_resealed_but_unchanged_opens() -> None:
    assert open_bundle(_resealed(lambda body: None)).receipt.evidence_sha256
