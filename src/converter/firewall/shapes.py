"""Content-free argument shapes: container kind and counts of primitive kinds (SPEC §6.1).

Keys, values and order are dropped; `{"path": "/etc", "n": 3}` and `{"q": "x", "k": 9}` share one
shape. The diagnostic that spots a stuck agent repeating a call needs no more.
"""

from __future__ import annotations

from typing import Any, Literal

from converter.firewall.types import Closed, Count

Kind = Literal["object", "array", "string", "number", "boolean", "null"]


class ArgShape(Closed):
    kind: Kind
    strings: Count = 0
    numbers: Count = 0
    booleans: Count = 0
    nulls: Count = 0
    arrays: Count = 0
    objects: Count = 0


def _kind(value: Any) -> Kind:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"


_PLURAL: dict[Kind, str] = {
    "string": "strings",
    "number": "numbers",
    "boolean": "booleans",
    "null": "nulls",
    "array": "arrays",
    "object": "objects",
}


# (kind, strings, numbers, booleans, nulls, arrays, objects): what the reader keeps per call.
ShapeTuple = tuple[Kind, int, int, int, int, int, int]
_ORDER = ("strings", "numbers", "booleans", "nulls", "arrays", "objects")


def shape_tuple(value: Any) -> ShapeTuple:
    """The shape as a plain tuple: cheap enough to take for every tool call while reading."""
    kind = _kind(value)
    members = (
        value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    )
    counts = dict.fromkeys(_ORDER, 0)
    for member in members:
        counts[_PLURAL[_kind(member)]] += 1
    s, n, b, z, a, o = (counts[name] for name in _ORDER)
    return (kind, s, n, b, z, a, o)


_MODELS: dict[ShapeTuple, ArgShape] = {}


def as_model(shape: ShapeTuple) -> ArgShape:
    """The closed model for a shape tuple; one instance per distinct shape."""
    model = _MODELS.get(shape)
    if model is None:
        kind, s, n, b, z, a, o = shape
        model = ArgShape(kind=kind, strings=s, numbers=n, booleans=b, nulls=z, arrays=a, objects=o)
        _MODELS[shape] = model
    return model


def shape_of(value: Any) -> ArgShape:
    return as_model(shape_tuple(value))
