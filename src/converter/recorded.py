"""What the reader takes from a record that later stages read as it is: the content-free shape
of a tool call's input (SPEC §6.1), and the model name Claude Code writes on records it made.

Keys, values and order are dropped: only the container kind and how many members of each kind it
holds. Plain tuples, so the reader (and its worker process) needs no model library; the firewall
turns each distinct tuple into its closed model (`converter.firewall.shapes`). Neither a stage's
module nor a model library is imported here: the reading worker loads this without pydantic, and
opening a bundle loads it without the reader.
"""

from __future__ import annotations

from typing import Any, Literal

# The model name Claude Code writes on a record it made itself (an API error message,
# docs/claude-code-shapes.md §6): the reader counts such records as synthetic, not as calls, and
# the firewall lets the name cross as written.
SYNTHETIC_MODEL = "<synthetic>"

# The tools whose call starts a subagent (SPEC §5.2): the reader joins children to them, the
# firewall lets their names cross as built-ins.
DELEGATION_TOOLS = frozenset({"Agent", "Task", "Workflow"})
# Of those, the calls that start one subagent: a result states its usage, an input may name it
# (a named spawn is an in-process teammate).
SUBAGENT_TOOLS = frozenset({"Agent", "Task"})

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
