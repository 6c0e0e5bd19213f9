"""The canonical encoder writes canonicaljson's bytes exactly (the reference), only faster."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import canonicaljson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from converter.canonical import FloatInArtifact, canonical_bytes, encode

INT64 = 2**63
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-INT64, max_value=INT64 - 1)
    | st.text(st.characters(exclude_categories=("Cs",))),  # lone surrogates are not UTF-8
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.text(st.characters(exclude_categories=("Cs",))), children, max_size=5),
    max_leaves=30,
)


@settings(max_examples=400)
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


def test_floats_are_refused_in_plain_values() -> None:
    with pytest.raises(FloatInArtifact):
        canonical_bytes({"a": [1, {"b": 0.5}]})
