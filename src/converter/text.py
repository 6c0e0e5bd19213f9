"""How a count and an amount of money read in any command's output. Its own module: `inspect`
and `scan` use it without loading evaluate or pricing (evaluate/fmt.py says the rest of how
reports' numbers look)."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Context, Decimal

# Dollars shown in text and Markdown: four decimals, rounded half-even (sub-cent model spend
# stays visible). Not limits.MONEY_PLACES, the ten places every amount is computed to.
USD_PLACES = 4
# Wide enough that quantizing any amount a workload can hold never overflows the precision.
WIDE = Context(prec=200, rounding=ROUND_HALF_EVEN)


def quantize(value: Decimal, places: int) -> Decimal:
    """`value` rounded half-even to `places` decimals; never `-0`."""
    quantized = value.quantize(Decimal(1).scaleb(-places), context=WIDE)
    return quantized if quantized != 0 else abs(quantized)


def usd(value: Decimal, places: int = USD_PLACES) -> str:
    """`$1,234.5678`, `-$12.0000`."""
    quantized = quantize(value, places)
    text = f"${quantized.copy_abs():,.{places}f}"  # abs() would round to 28 digits
    return "-" + text if quantized < 0 else text


def usd_span(low: Decimal, high: Decimal, unbounded: int = 0) -> str:
    """One amount when the bounds agree, else `$low – $high`; `$low – no bound` when
    `unbounded` of its calls recorded no input (their input is in neither end, so `high` bounds
    nothing and is not shown as a bound)."""
    if unbounded:
        return f"{usd(low)} – no bound"
    return usd(low) if low == high else f"{usd(low)} – {usd(high)}"


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`1 task`, `2 tasks`: a count with its noun, singular or plural (`plural` when it is not
    the noun with an s: `entry`, `entries`)."""
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {plural or noun + 's'}"
