"""The one canonical encoder: every byte that is hashed or signed comes from here.

The canonical form is canonicaljson's (sorted keys, no insignificant whitespace, UTF-8, the
shortest escapes). orjson with sorted keys writes exactly those bytes, ten times faster on a bundle
of 30k events; tests/test_canonical.py proves the two byte-identical over arbitrary JSON values
with hypothesis and on the golden bundle. canonicaljson stays the reference: `verify` recomputes
a bundle's digest with it (`reference_bytes`), so an auditor's check never rests on the encoder
that wrote the bundle. Floats are refused
outright: money and rates must be exact, and a float's text is not portable across encoders. For
models that is a static property (no output model has a float field; tests/test_no_float.py
checks every schema), so only plain dicts and lists are walked at run time.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import orjson
from pydantic import BaseModel


class FloatInArtifact(TypeError):
    """A float reached the encoder: a bug in a model, never an input condition."""


def _check(value: Any) -> None:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, float):
            raise FloatInArtifact
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)


def to_jsonable(value: BaseModel | dict[str, Any] | list[Any]) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return value


def encode(data: Any) -> bytes:
    """Canonical bytes of a JSON-able value already known to hold no float."""
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)


def canonical_bytes(
    value: BaseModel | dict[str, Any] | list[Any], *, float_free: bool = False
) -> bytes:
    """`float_free=True`: `value` is known to hold no float (a model's JSON-mode dump, or a
    document read by `jsontext.loads_integral`), so the walk that looks for one is skipped."""
    data = to_jsonable(value)
    if not isinstance(value, BaseModel) and not float_free:
        _check(data)
    return encode(data)


def reference_bytes(value: dict[str, Any]) -> bytes:
    """The same canonical bytes from canonicaljson itself, for independent re-checks."""
    import canonicaljson

    _check(value)
    encoded: bytes = canonicaljson.encode_canonical_json(value)
    return encoded


def _models_of_one_type(value: Any) -> bool:
    if not isinstance(value, tuple) or not value or not isinstance(value[0], BaseModel):
        return False
    kind = type(value[0])
    return all(type(item) is kind for item in value)


def model_sha256(model: BaseModel, exclude: frozenset[str] = frozenset()) -> str:
    """SHA-256 of `canonical_bytes(model.model_dump(mode="json", exclude=exclude))`, written one
    member at a time: a field holding a tuple of models (30k events) is encoded item by item, so
    its JSON dump never exists whole (44 MB on the 200 MB bench tree). Same bytes, same digest;
    tests/test_canonical.py checks both on real trees. Models here have no aliases."""
    hasher = hashlib.sha256()
    write = hasher.update
    names = sorted(name for name in type(model).model_fields if name not in exclude)
    write(b"{")
    for position, name in enumerate(names):
        write(b"," if position else b"")
        write(encode(name) + b":")
        value = getattr(model, name)
        if _models_of_one_type(value):
            write(b"[")
            for index, item in enumerate(value):
                write(b"," if index else b"")
                write(encode(item.model_dump(mode="json")))
            write(b"]")
        else:
            write(encode(model.model_dump(mode="json", include={name})[name]))
    write(b"}")
    return hasher.hexdigest()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pretty_bytes(value: BaseModel | dict[str, Any]) -> bytes:
    """Human-editable form (templates, contracts): sorted keys, 2-space indent, trailing newline.

    Deterministic, float-free, and what the user edits; digests are taken over canonical_bytes.
    """
    data = to_jsonable(value)
    if not isinstance(value, BaseModel):
        _check(data)
    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()
