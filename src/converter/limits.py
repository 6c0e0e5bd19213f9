"""Bounds every stage shares. Standard library only: the reading worker loads this without
pydantic, and evaluate without the pricing engine."""

from collections.abc import Iterable
from decimal import ROUND_HALF_EVEN, Context, Decimal, InvalidOperation

# A count is a JSON integer every reader takes: within int64, like the transcript's own.
INT64_MAX = 2**63 - 1

# No model call reads or writes 2**32 tokens: the reader refuses a larger counter as damage, and
# opening a bundle refuses one too. Bounding each keeps every total a tree or a workload can sum
# far inside the 64-bit integers JSON writers accept.
MAX_TOKEN_COUNT = 2**32

# A request's `max_tokens` is taken as a bound of its call's output (SPEC §8.4) from 1 to this,
# above any model's output (the largest a card states is 128,000): no request answered under a
# larger bound was bounded by it. A bundle holding one outside it was not written by the tool.
MAX_REQUESTED_OUTPUT = 10_000_000

# Problems one file of lines lists at most (a transcript, a workflow journal, a provider
# index): past it, the file is refused as a whole (CC-LINE-TOO-MANY-PROBLEMS) and the rest are
# not held. None of the corpus's files has more than one; a file of millions of blank or bad
# lines (a log named `.jsonl`) held a place each, about 1 KB apiece by the report (a robustness
# probe: 2.9 GB for 2.5M lines of `1`; 1.3 GB for 1M records cut short).
MAX_LINE_PROBLEMS = 10_000

# Money is exact to 10 decimal places (USD): each priced bucket is rounded half-even to this, and
# so is a task's human cost in evaluate, so every total is the exact sum of its parts.
MONEY_PLACES = 10
MONEY_QUANTUM = Decimal(1).scaleb(-MONEY_PLACES)

# No call costs 10**20 USD. Below it, a cost and any sum of the costs of 10**9 calls fit the
# 30 integer digits every artifact's decimals may have: a bundle refuses a call at or above it
# (PRICE-COST-TOO-LARGE), an estimate does not price it (`cost-too-large`).
MAX_COST = Decimal(10) ** 20

# Sums of money, in a context wide enough that no total of amounts a contract may hold (30
# digits each side of the point) or a bundle may carry is rounded: Python's default context
# keeps 28 significant digits, and would round a total of 29 or more.
MONEY_SUMS = Context(prec=200, rounding=ROUND_HALF_EVEN, traps=[InvalidOperation])


def money_sum(values: Iterable[Decimal]) -> Decimal:
    """The exact sum of amounts (`MONEY_SUMS`)."""
    total = Decimal(0)
    for value in values:
        total = MONEY_SUMS.add(total, value)
    return total
