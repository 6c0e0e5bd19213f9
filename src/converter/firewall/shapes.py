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


def shape_of(value: Any) -> ArgShape:
    kind = _kind(value)
    members = (
        value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    )
    counts = dict.fromkeys(_PLURAL.values(), 0)
    for member in members:
        counts[_PLURAL[_kind(member)]] += 1
    return ArgShape(kind=kind, **counts)
