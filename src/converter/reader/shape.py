"""The content-free shape of a tool call's input, taken while reading (SPEC §6.1).

Keys, values and order are dropped: only the container kind and how many members of each kind it
holds. Plain tuples, so the reader (and its worker process) needs no model library; the firewall
turns each distinct tuple into its closed model (`converter.firewall.shapes`).
"""

from __future__ import annotations

from typing import Any, Literal

Kind = Literal["object", "array", "string", "number", "boolean", "null"]


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
