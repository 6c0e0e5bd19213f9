"""Timestamps as they cross: canonical UTC, coarsened to the contract's precision. Apart from
the crossing so that a bundle's reader can check them without loading the transcript reader."""

from __future__ import annotations

import re
from datetime import datetime
from typing import assert_never

from converter.vocabulary import TimestampPrecision

# Claude Code writes JavaScript's toISOString: milliseconds, UTC.
_TIMESTAMP = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2})(\.[0-9]{1,3})?Z")


def coarsen(timestamp: str | None, precision: TimestampPrecision) -> str | None:
    """A transcript timestamp in canonical UTC form, coarsened to the policy's precision."""
    if timestamp is None:
        return None
    match = _TIMESTAMP.fullmatch(timestamp)
    if match is None:
        return None
    whole = match.group(1)  # YYYY-MM-DDTHH:MM:SS
    try:
        datetime.fromisoformat(whole)  # a real instant: 9999-99-99 could carry other digits
    except ValueError:
        return None
    if precision == "exact":
        return timestamp
    if precision == "minute":
        return whole[:16] + ":00Z"
    if precision == "hour":
        return whole[:13] + ":00:00Z"
    if precision == "day":
        return whole[:10]
    assert_never(precision)


def at_precision(stamp: str, precision: TimestampPrecision) -> bool:
    """Whether `stamp` is a timestamp as `coarsen` writes one at `precision` (a day is a bare
    date; the others keep the full form, zeroed below the precision)."""
    full = stamp + "T00:00:00Z" if len(stamp) == len("YYYY-MM-DD") else stamp
    return coarsen(full, precision) == stamp
