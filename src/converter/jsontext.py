"""One strict JSON reader for whole documents (contracts, bundles, price cards, envelopes).

Strict means: duplicate keys, NaN and Infinity are refused, and numbers with a fraction or an
exponent become exact `Decimal`s, never floats. The transcript line reader
(`sources/jsonl.py`) applies the same rules but also names which one a line broke.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any


class NotStrictJSON(ValueError):
    """The bytes are not one strict JSON document."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document = dict(pairs)
    if len(document) != len(pairs):
        raise NotStrictJSON("duplicate key")
    return document


def _no_constant(_: str) -> Any:
    raise NotStrictJSON("NaN and Infinity are not JSON numbers")


def loads_exact(data: bytes) -> Any:
    """Parse strict JSON; raises NotStrictJSON (a ValueError) on anything else."""
    try:
        return json.loads(
            data.decode("utf-8"),
            parse_float=Decimal,
            parse_constant=_no_constant,
            object_pairs_hook=_unique,
        )
    except NotStrictJSON:
        raise
    except (ValueError, UnicodeDecodeError, RecursionError) as bad:
        raise NotStrictJSON(type(bad).__name__) from None
