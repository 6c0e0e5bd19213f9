"""How numbers look in reports. One place, so the text, Markdown and JSON agree.

- Money in text and Markdown: `$1,234.5678` — four decimals, rounded half-even; negatives as
  `-$12.0000`. Four decimals keep sub-cent model spend visible without a wall of digits. (`usd`
  is in converter/text.py, which inspect and scan share without loading evaluate.)
- Rates in text and Markdown: four decimals (`0.8500`); shares of tokens as percentages with two
  decimals (`12.34%`).
- JSON: decimal strings, exact, except values with more than 12 decimal places (means, ratios and
  human cost divide) which are rounded half-even to 12 — a gate's observed value, and the same
  measure in `metrics`, to more where 12 would show it on the other side of its limit; a gate's
  limit is never rounded. Never a float.
- A gate's limit and observed value in text and Markdown: the limit with every decimal the
  policy gave (four at least), the observed value with as many as the limit and more where
  needed (all of its own at most), so that it reads on the same side of the limit as it is
  (`0.666667, limit ≥ 0.66667`, never `0.6667, limit ≥ 0.6667` for a failing gate).
"""

from __future__ import annotations

from decimal import Decimal
from typing import overload

from converter.text import USD_PLACES, WIDE, usd
from converter.text import quantize as _quantize

RATE_PLACES = 4
JSON_MAX_PLACES = 12


def rate(value: Decimal, places: int = RATE_PLACES) -> str:
    return f"{_quantize(value, places):.{places}f}"


def percent(part: int, whole: int) -> str:
    if whole == 0:
        return "n/a"
    share = WIDE.divide(Decimal(part * 100), Decimal(whole))
    return f"{_quantize(share, 2):.2f}%"


@overload
def json_decimal(value: Decimal, places: int = JSON_MAX_PLACES) -> str: ...


@overload
def json_decimal(value: None, places: int = JSON_MAX_PLACES) -> None: ...


def json_decimal(value: Decimal | None, places: int = JSON_MAX_PLACES) -> str | None:
    if value is None:
        return None
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and exponent < -places:
        value = _quantize(value, places)
    return format(value, "f")


def number(value: Decimal | None, unit: str | None, places: int | None = None) -> str:
    """A value in its unit: `usd` as money, `rate` with four decimals (or `places`), a count as
    it is."""
    if value is None:
        return "n/a"
    if unit == "usd":
        return usd(value, USD_PLACES if places is None else places)
    if unit == "rate":
        return rate(value, RATE_PLACES if places is None else places)
    return format(value, "f")


def _decimals(value: Decimal) -> int:
    exponent = value.as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _side(value: Decimal, limit: Decimal) -> int:
    return (value > limit) - (value < limit)


def places_against(limit: Decimal, values: list[Decimal], unit: str | None) -> int:
    """Decimals to show a limit and the values compared with it (see the module docstring)."""
    base = {"usd": USD_PLACES, "rate": RATE_PLACES}.get(unit or "")
    if base is None:
        return 0  # counts are shown whole
    places = max(base, _decimals(limit))
    # Twelve places tell almost any value from its limit; one that twelve cannot tell is shown
    # with all of its own (at those, every value reads on its own side).
    exact = max([places, JSON_MAX_PLACES, *(_decimals(v) for v in values)])
    while places < exact and any(
        _side(_quantize(v, places), limit) != _side(v, limit) for v in values
    ):
        places += 1
    return places
