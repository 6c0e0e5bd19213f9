"""The canonical encoder writes canonicaljson's bytes exactly (the reference), only faster."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import canonicaljson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from converter.codec.canonical import (
    FloatInArtifact,
    array_chunks,
    canonical_bytes,
    encode,
    model_sha256,
    sha256_hex,
)
from converter.firewall.keys import PseudonymKey
from converter.firewall.pseudonyms import Pseudonymizer
from converter.firewall.view import PublicAccount
from tests.conftest import fixture_parent, shared_dir
from tests.crossing import cross_tree

SHARED = shared_dir()
CORPUS = sorted(json.loads((Path(__file__).parent / "corpus_expected.json").read_text()))

INT64 = 2**63
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-INT64, max_value=INT64 - 1)
    | st.text(st.characters(exclude_categories=("Cs",))),  # lone surrogates are not UTF-8
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(st.text(st.characters(exclude_categories=("Cs",))), children, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=max(400, settings.default.max_examples))
@given(value=json_values)
def test_bytes_equal_canonicaljson(value: Any) -> None:
    assert encode(value) == canonicaljson.encode_canonical_json(value)


def test_every_control_character_and_plane() -> None:
    text = "".join(chr(i) for i in range(0x80)) + "\u2028\u2029\u00e9\uffff\U0001f600"
    value = {"b": [text], "a": {text: 1, "\U0001f600": 2, "\uffff": 3, "z": 0}}
    assert encode(value) == canonicaljson.encode_canonical_json(value)


def test_golden_bundle_is_canonical() -> None:
    golden = Path(__file__).parent.parent / "fixtures" / "synthetic_bundle.golden.json"
    value = json.loads(golden.read_text())
    assert encode(value) == canonicaljson.encode_canonical_json(value)


@pytest.mark.parametrize("size", [0, 1, 999, 1000, 1001, 2500])
def test_arrays_stream_in_batches_as_one_array(size: int) -> None:
    """`array_chunks` encodes a batch of items per call: across batch boundaries, empty or not,
    its parts join into the canonical bytes of the whole list."""
    items: list[Any] = [
        {"id": f"event-{i:012x}", "n": i, "z": [None, True, "é\n"], "a": {"b": -i}}
        for i in range(size)
    ]
    if size:
        items[-1] = "last"  # not every item need be an object
    assert b"".join(array_chunks(iter(items))) == canonicaljson.encode_canonical_json(items)


@settings(max_examples=max(100, settings.default.max_examples))
@given(items=st.lists(json_values, max_size=30))
def test_streamed_array_equals_canonicaljson(items: list[Any]) -> None:
    assert b"".join(array_chunks(items)) == canonicaljson.encode_canonical_json(items)


def test_floats_are_refused_in_plain_values() -> None:
    with pytest.raises(FloatInArtifact):
        canonical_bytes({"a": [1, {"b": 0.5}]})


def _dumped_digest(account: PublicAccount, exclude: frozenset[str]) -> str:
    body = account.model_dump(mode="json", exclude=set(exclude))
    return sha256_hex(canonicaljson.encode_canonical_json(body))


@pytest.mark.parametrize("name", ["synthetic_tree", "rich_tree"])
def test_streamed_model_digest_equals_the_dump(name: str) -> None:
    pseudo = Pseudonymizer(PseudonymKey(bytes(range(32))))
    _, public = cross_tree(fixture_parent(name), pseudo)
    assert public.model_events
    assert public.edges
    for exclude in (frozenset(), frozenset({"convertible", "refusals"})):
        assert model_sha256(public, exclude) == _dumped_digest(public, exclude)


@pytest.mark.skipif(SHARED is None, reason="shared corpus not present")
@pytest.mark.parametrize("tree", CORPUS)
def test_streamed_model_digest_on_real_trees(tree: str) -> None:
    assert SHARED is not None
    pseudo = Pseudonymizer(PseudonymKey(bytes(range(32))))
    _, public = cross_tree(SHARED / "corpus" / "real" / tree, pseudo)
    exclude = frozenset({"convertible", "refusals"})
    assert model_sha256(public, exclude) == _dumped_digest(public, exclude)
