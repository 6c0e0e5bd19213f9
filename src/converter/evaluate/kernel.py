"""The evidence kernel (SPEC §10): each task's full effective cost and the workload's measures.

Pure: a `Workload` in, values out. Every measure that depends on cost is computed twice, with
every task at its low cost and at its high cost; each measure is monotone in every task's cost,
so those two runs bound it exactly. Arithmetic runs in a local decimal context of 200
significant digits (half-even): sums and products of contract amounts (up to 30 digits each side
of the point) stay exact, only quotients (means, ratios, minutes → dollars) round, far below the
places a report shows. (50 digits, before 0.4.4, rounded the sum of two amounts of 21 and 30
digits apart: a gate 1e-30 from its limit could pass.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import (
    ROUND_HALF_EVEN,
    Context,
    Decimal,
    DivisionByZero,
    InvalidOperation,
    Overflow,
    localcontext,
)

from converter.errors.codes import SPEND_LEFT_OUT
from converter.evaluate.inputs import Interval, Policy, TaskFacts, Workload
from converter.evaluate.result import (
    SPEND_LEFT_OUT_ELSE,
    SPLIT_SESSION,
    UNPRICED_SERVER_TOOLS,
    Bounds,
    Metrics,
    Span,
    TaskCost,
)
from converter.limits import MONEY_PLACES, MONEY_QUANTUM
from converter.vocabulary import LEFT_OUT_PLACED

_CONTEXT = Context(
    prec=200, rounding=ROUND_HALF_EVEN, traps=[InvalidOperation, DivisionByZero, Overflow]
)
# Wide enough that any contract amount (30 digits each side of the point) times another, to
# the quantum, is exact before the one rounding.
_WIDE = Context(prec=200, rounding=ROUND_HALF_EVEN, traps=[InvalidOperation, DivisionByZero])
_ZERO = Decimal(0)
_MINUTES_PER_HOUR = Decimal(60)


def task_cost(task: TaskFacts, policy: Policy, unplaced: int = 0) -> TaskCost:
    """Effective cost = spend + human minutes × hourly cost / 60 + remediation + incident loss;
    `unplaced`: its bundle's findings of spend in no cost that no task's events show
    (`unplaced_left_out`), which leave its high end no bound.

    The human cost is money like a call's cost: when it has more than 10 decimal places, it is
    rounded half-even to the pricing quantum once, per task, so every total a report gives is
    the exact sum of the parts it lists (7 minutes at $100/h is 11.6666666667, not a 50-digit
    fraction that the workload's total and each task's total would round apart)."""
    claims = task.claims
    with localcontext(_CONTEXT):
        minutes_cost = _WIDE.multiply(claims.human_minutes, policy.human_hourly_cost_usd)
        human = _WIDE.divide(minutes_cost, _MINUTES_PER_HOUR)
        exponent = human.as_tuple().exponent
        if isinstance(exponent, int) and -exponent > MONEY_PLACES:
            human = human.quantize(MONEY_QUANTUM, context=_WIDE)
        extra = human + claims.remediation_cost_usd + claims.incident_loss_usd
        effective = Span(low=task.spend.low + extra, high=task.spend.high + extra)
    return TaskCost(
        id=task.id,
        acceptable=claims.acceptable,
        business_value_usd=claims.business_value_usd,
        spend=task.spend,
        human_usd=human,
        remediation_usd=claims.remediation_cost_usd,
        incident_loss_usd=claims.incident_loss_usd,
        effective=effective,
        model_calls=task.model_calls,
        tool_calls=task.tool_calls,
        usage_incomplete_calls=task.usage_incomplete_calls,
        unbounded_calls=task.unbounded_calls,
        cost_by_agent_type=task.cost_by_agent_type,
        cost_by_model=task.cost_by_model,
        unbounded_by_agent_type=task.unbounded_by_agent_type,
        unbounded_by_model=task.unbounded_by_model,
        left_out_by_agent_type=task.left_out_by_agent_type,
        left_out_by_model=task.left_out_by_model,
        high_is_bound=not (task.unbounded_calls or task.left_out_by_agent_type or unplaced),
        cache_read_tokens=task.cache_read_tokens,
        input_tokens_total=task.input_tokens_total,
        bundle=task.bundle,
        started_at=task.started_at,
        position=task.position,
    )


def nearest_rank(values: Sequence[Decimal], percent: int = 95) -> Decimal:
    """The nearest-rank percentile: the smallest value with at least `percent`% of values ≤ it.

    Rank = ceil(percent / 100 × n), 1-based, over the values sorted ascending; integer arithmetic,
    so no rounding decides the rank.
    """
    if not values:
        raise ValueError("nearest-rank percentile of no values")
    rank = max(1, -(-percent * len(values) // 100))
    return sorted(values)[rank - 1]


# Of the findings that some spend is in no cost, those one event each places in a task
# (`vocabulary.LEFT_OUT_PLACED`), and the split session's, which the workload counts.
_PLACED_OR_COUNTED = LEFT_OUT_PLACED | {SPLIT_SESSION}


def unplaced_left_out(findings: Mapping[str, int], placed: int, split_missing: int) -> int:
    """Of a bundle's (or a workload's) findings that some spend is in no cost, those no task's
    events show, which leave every task of it with no high end: all but those `placed` of its
    events show (a WebSearch call of unknown count, a call final with no input: whose tasks are
    known), and the `split_missing` other parts of a split session whose bundles are not
    evaluated. A bundle of 0.6.14 on holds one event for each such finding (bundle/integrity.py)."""
    others = sum(n for code, n in findings.items() if code in SPEND_LEFT_OUT - _PLACED_OR_COUNTED)
    events = sum(findings.get(code, 0) for code in LEFT_OUT_PLACED)
    return others + max(0, events - placed) + split_missing


def left_out_events(task: TaskFacts | TaskCost) -> int:
    return sum(task.left_out_by_agent_type.values())


def compute(workload: Workload) -> tuple[tuple[TaskCost, ...], Metrics]:
    by_bundle = workload.unplaced_left_out
    whole = 0
    if not by_bundle:  # the workload's, for every task
        placed = sum(left_out_events(t) for t in workload.tasks)
        whole = unplaced_left_out(workload.findings, placed, workload.split_parts_missing)

    def unplaced(task: TaskFacts) -> int:
        return by_bundle[task.bundle - 1] if by_bundle else whole

    costs = tuple(
        sorted(
            (task_cost(t, workload.policy, unplaced(t)) for t in workload.tasks),
            key=lambda c: c.id,
        )
    )
    with localcontext(_CONTEXT):
        return costs, _metrics(costs, workload)


def _metrics(costs: tuple[TaskCost, ...], workload: Workload) -> Metrics:
    n = len(costs)
    accepted = [c for c in costs if c.acceptable]
    low = [c.effective.low for c in costs]
    high = [c.effective.high for c in costs]
    baseline = workload.baseline
    baseline_value = (
        baseline.acceptable_rate * baseline.value_per_acceptable_outcome_usd
        - baseline.cost_per_attempt_usd
    )
    value = _total(c.business_value_usd for c in accepted)
    net = _bounds(low, high, lambda xs: (value - _total(xs)) / n) if n else _none()
    incremental = Bounds(
        at_low_cost=None if net.at_low_cost is None else net.at_low_cost - baseline_value,
        at_high_cost=None if net.at_high_cost is None else net.at_high_cost - baseline_value,
    )
    unbounded = sum(c.unbounded_calls for c in costs)
    unpriced = workload.findings.get(UNPRICED_SERVER_TOOLS, 0)
    stated = {code: workload.findings.get(code, 0) for code in sorted(SPEND_LEFT_OUT_ELSE)}
    by_code = {code: count for code, count in stated.items() if count}
    left_out = sum(by_code.values())
    # events the findings do not count (a bundle of a version before such a finding existed, or
    # one resealed without it, claiming an older version: a review decided SCALE so): counted
    # too, so the gates hold open what the tasks' marks show open
    placed = sum(stated[code] for code in LEFT_OUT_PLACED)
    left_out += max(0, sum(left_out_events(c) for c in costs) - placed)
    if workload.split_parts_missing:
        by_code[SPLIT_SESSION] = workload.split_parts_missing
        left_out += workload.split_parts_missing
    return Metrics(
        tasks=n,
        acceptable_tasks=len(accepted),
        acceptable_rate=Decimal(len(accepted)) / n if n else None,
        total_effective_cost=Span(low=_total(low), high=_total(high)),
        cost_per_acceptable_outcome=(
            _bounds(low, high, lambda xs: _total(xs) / len(accepted)) if accepted else _none()
        ),
        p95_task_cost=_bounds(low, high, nearest_rank) if n else _none(),
        expected_net_value_per_attempt=net,
        baseline_net_value_per_attempt=baseline_value,
        incremental_net_value_vs_baseline=incremental,
        max_calls_per_task=max((c.calls for c in costs), default=None),
        max_trace_cost_per_task=(
            Bounds(
                at_low_cost=max(c.spend.low for c in costs),
                at_high_cost=max(c.spend.high for c in costs),
            )
            if n
            else _none()
        ),
        usage_incomplete_calls=sum(c.usage_incomplete_calls for c in costs),
        unbounded_calls=unbounded,
        unpriced_calls=unpriced,
        spend_left_out=left_out,
        spend_left_out_by_code=dict(sorted(by_code.items())),
        high_is_bound=not (unbounded or unpriced or left_out),
        cache_read_tokens=sum(c.cache_read_tokens for c in costs),
        input_tokens_total=sum(c.input_tokens_total for c in costs),
        cost_by_agent_type=_split(c.cost_by_agent_type for c in costs),
        cost_by_model=_split(c.cost_by_model for c in costs),
        unbounded_by_agent_type=_counts(c.unbounded_by_agent_type for c in costs),
        unbounded_by_model=_counts(c.unbounded_by_model for c in costs),
        left_out_by_agent_type=_counts(c.left_out_by_agent_type for c in costs),
        left_out_by_model=_counts(c.left_out_by_model for c in costs),
    )


def _total(values: Iterable[Decimal]) -> Decimal:
    return sum(values, _ZERO)


def _none() -> Bounds:
    return Bounds(at_low_cost=None, at_high_cost=None)


def _bounds(
    low: list[Decimal], high: list[Decimal], measure: Callable[[list[Decimal]], Decimal]
) -> Bounds:
    return Bounds(at_low_cost=measure(low), at_high_cost=measure(high))


def _counts(parts: Iterable[dict[str, int]]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for part in parts:
        total.update(part)
    return dict(sorted(total.items()))


def _split(parts: Iterable[dict[str, Interval]]) -> dict[str, Span]:
    low: dict[str, Decimal] = {}
    high: dict[str, Decimal] = {}
    for part in parts:
        for key, interval in part.items():
            low[key] = low.get(key, _ZERO) + interval.low
            high[key] = high.get(key, _ZERO) + interval.high
    return {key: Span(low=low[key], high=high[key]) for key in sorted(low)}
