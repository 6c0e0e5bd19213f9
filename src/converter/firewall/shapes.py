"""Content-free argument shapes: container kind and counts of primitive kinds (SPEC §6.1).

Keys, values and order are dropped; `{"path": "/etc", "n": 3}` and `{"q": "x", "k": 9}` share one
shape. The diagnostic that spots a stuck agent repeating a call needs no more.
"""

from __future__ import annotations

from converter.firewall.types import Closed, Count
from converter.recorded import Kind, ShapeTuple


class ArgShape(Closed):
    kind: Kind
    strings: Count = 0
    numbers: Count = 0
    booleans: Count = 0
    nulls: Count = 0
    arrays: Count = 0
    objects: Count = 0


_MODELS: dict[ShapeTuple, ArgShape] = {}


def as_model(shape: ShapeTuple) -> ArgShape:
    """The closed model for a shape tuple; one instance per distinct shape."""
    model = _MODELS.get(shape)
    if model is None:
        kind, s, n, b, z, a, o = shape
        model = ArgShape(kind=kind, strings=s, numbers=n, booleans=b, nulls=z, arrays=a, objects=o)
        _MODELS[shape] = model
    return model
