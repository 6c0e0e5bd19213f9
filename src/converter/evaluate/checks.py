"""The fixed, versioned check set of SPEC §10, the diagnostics, and the decision.

Gates route (ASSIST, STOP, INCOMPLETE); diagnostics only add findings. The required coverage is a
constant, not derived from the check set: a gate that is missing from the set, disabled by the
policy, or cannot be computed leaves its coverage unmet, and an unmet coverage makes the decision
INCOMPLETE — never SCALE. Changing a gate means a new version, which changes the
decision-contract digest every report carries.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import get_args

from converter.codec.canonical import canonical_bytes, sha256_hex
from converter.evaluate.graph import cyclic_components
from converter.evaluate.inputs import Policy, TaskFacts, Workload
from converter.evaluate.kernel import compute
from converter.evaluate.result import (
    EXIT_OF,
    SPLIT_SESSION,
    Bounds,
    CheckInfo,
    Comparison,
    Coverage,
    Decision,
    DiagnosticInfo,
    Evaluation,
    Finding,
    GateResult,
    Measure,
    MeasureName,
    Metrics,
    Reason,
    Rule,
    Status,
    Unit,
    passes_at_ends,
)

DECISION_CONTRACT = "agent-evidence/decision-contract/v1"
REQUIRED_COVERAGE: tuple[Coverage, ...] = get_args(Coverage)  # every kind, in the type's order
DIAGNOSTICS = (
    DiagnosticInfo(id="repeated-tool-shapes", version="1.0"),
    DiagnosticInfo(id="dependency-cycles", version="1.0"),
    DiagnosticInfo(id="evidence-completeness", version="1.1"),  # 1.1: EVAL-TASKS-WITHOUT-CALLS
)

# A gate's measures, or None when they cannot be computed (a workload with no tasks).
MeasureFn = Callable[[Metrics, Policy], tuple[Measure, ...] | None]


@dataclass(frozen=True, slots=True)
class Check:
    info: CheckInfo
    measure: MeasureFn


def _measure(
    name: MeasureName, unit: Unit, observed: Bounds, limit: Decimal, comparison: Comparison
) -> Measure:
    """A value with no meaning (nothing to divide by) fails: it cannot show the limit is met."""

    def passes(value: Decimal | None) -> bool:
        return _passes(value, limit, comparison)

    return Measure(
        name=name,
        unit=unit,
        observed=observed,
        limit=limit,
        comparison=comparison,
        passes_at_low_cost=passes(observed.at_low_cost),
        passes_at_high_cost=passes(observed.at_high_cost),
    )


def _passes(value: Decimal | None, limit: Decimal, comparison: Comparison) -> bool:
    if value is None:
        return False
    return value <= limit if comparison == "<=" else value >= limit


def _unbounded(measures: tuple[Measure, ...], calls: int) -> tuple[Measure, ...]:
    """With calls whose cost has no high end (usage-incomplete calls that recorded no input:
    the interval bounds their output only; calls of a server tool no version prices), a cost
    measure that meets its limit at the high end does not show it is met: its worst case is
    unknown, and it passes at best at the low."""
    if not calls:
        return measures
    unknown = {"passes_at_high_cost": False, "high_is_bound": False}
    return tuple(m.model_copy(update=unknown) if m.unit == "usd" else m for m in measures)


def _fixed(value: Decimal | int | None) -> Bounds:
    """A measure cost does not move: the same at low and high cost."""
    number = None if value is None else Decimal(value)
    return Bounds(at_low_cost=number, at_high_cost=number)


def _acceptable_rate(m: Metrics, p: Policy) -> tuple[Measure, ...] | None:
    if not m.tasks:
        return None
    observed = _fixed(m.acceptable_rate)
    return (_measure("acceptable rate", "rate", observed, p.min_acceptable_rate, ">="),)


def _cost_per_acceptable(m: Metrics, p: Policy) -> tuple[Measure, ...] | None:
    if not m.tasks:
        return None
    limit = p.max_cost_per_acceptable_outcome_usd
    return (
        _measure("cost per acceptable outcome", "usd", m.cost_per_acceptable_outcome, limit, "<="),
    )


def _p95(m: Metrics, p: Policy) -> tuple[Measure, ...] | None:
    if not m.tasks:
        return None
    return (_measure("p95 task cost", "usd", m.p95_task_cost, p.max_p95_task_cost_usd, "<="),)


def _net_value(m: Metrics, p: Policy) -> tuple[Measure, ...] | None:
    if not m.tasks:
        return None
    observed, limit = m.expected_net_value_per_attempt, p.min_expected_net_value_per_attempt_usd
    return (_measure("expected net value per attempt", "usd", observed, limit, ">="),)


def _incremental(m: Metrics, p: Policy) -> tuple[Measure, ...] | None:
    if not m.tasks:
        return None
    observed = m.incremental_net_value_vs_baseline
    limit = p.min_incremental_net_value_vs_baseline_usd
    return (_measure("incremental net value vs baseline", "usd", observed, limit, ">="),)


def _runtime_caps(m: Metrics, p: Policy) -> tuple[Measure, ...] | None:
    if not m.tasks:
        return None
    calls = _fixed(m.max_calls_per_task)
    trace, trace_limit = m.max_trace_cost_per_task, p.max_trace_cost_per_task_usd
    return (
        _measure("calls per task", "count", calls, Decimal(p.max_calls_per_task), "<="),
        _measure("trace cost per task", "usd", trace, trace_limit, "<="),
    )


def _sample_size(m: Metrics, p: Policy) -> tuple[Measure, ...] | None:
    return (_measure("tasks", "count", _fixed(m.tasks), Decimal(p.min_tasks), ">="),)


def _check(
    id_: str, coverage: Coverage, route: str, rule: Rule, measure: MeasureFn, version: str = "1.0"
) -> Check:
    info = CheckInfo.model_validate(
        {"id": id_, "version": version, "coverage": coverage, "route": route, "rule": rule}
    )
    return Check(info, measure)


# 1.1: a task's effective cost takes its human cost rounded half-even to 10 decimal places (the
# pricing quantum) where 1.0 kept 50 digits; a limit written with more places can decide apart.
# 1.2: with usage-incomplete calls that recorded no input, a cost measure passes at best at the
# low cost (`_unbounded`): 1.1 took their interval's high end for the worst case.
# 1.3: so it does with calls of an unpriced server tool (CC-REC-SERVER-TOOL-UNPRICED), whose
# requests no cost counts: 1.2 decided SCALE on a cost that left them out.
_EFFECTIVE_COST_VERSION = "1.3"


# SPEC §10's table, in its order. The order is part of the decision contract.
CHECKS: tuple[Check, ...] = (
    _check(
        "acceptable-rate",
        "outcome quality",
        "ASSIST",
        "acceptable_tasks / tasks >= min_acceptable_rate",
        _acceptable_rate,
    ),
    _check(
        "cost-per-acceptable-outcome",
        "unit economics",
        "ASSIST",
        "total effective cost / acceptable_tasks <= max_cost_per_acceptable_outcome_usd",
        _cost_per_acceptable,
        _EFFECTIVE_COST_VERSION,
    ),
    _check(
        "p95-task-cost",
        "tail risk",
        "ASSIST",
        "nearest rank p95 of effective task cost <= max_p95_task_cost_usd",
        _p95,
        _EFFECTIVE_COST_VERSION,
    ),
    _check(
        "expected-net-value",
        "business value",
        "STOP",
        "mean over all tasks of business value if acceptable less effective cost "
        ">= min_expected_net_value_per_attempt_usd",
        _net_value,
        _EFFECTIVE_COST_VERSION,
    ),
    _check(
        "incremental-net-value",
        "counterfactual",
        "STOP",
        "expected net value less baseline net value >= min_incremental_net_value_vs_baseline_usd",
        _incremental,
        _EFFECTIVE_COST_VERSION,
    ),
    _check(
        "runtime-caps",
        "runtime caps",
        "ASSIST",
        "max model and tool calls per task <= max_calls_per_task "
        "and max trace cost per task <= max_trace_cost_per_task_usd",
        _runtime_caps,
        "1.2",  # 1.1: the trace cost is a cost measure for `_unbounded`; 1.2: as 1.3 above
    ),
    _check("sample-size", "sample size", "INCOMPLETE", "tasks >= min_tasks", _sample_size),
)


def decision_contract_digest(checks: Sequence[Check]) -> str:
    """SHA-256 of the canonical JSON of the ordered checks and the required coverage."""
    document = {
        "decision_contract": DECISION_CONTRACT,
        "checks": [
            {
                "id": c.info.id,
                "version": c.info.version,
                "coverage": c.info.coverage,
                "route": c.info.route,
            }
            for c in checks
        ],
        "required_coverage": list(REQUIRED_COVERAGE),
    }
    return sha256_hex(canonical_bytes(document))


def evaluate(workload: Workload, checks: Sequence[Check] = CHECKS) -> Evaluation:
    """Decide one workload. `checks` is a parameter only so tests can remove a gate."""
    ids = [c.info.id for c in checks]
    if len(set(ids)) != len(ids):
        raise ValueError("a check id appears twice in the check set")  # a bug, not input
    tasks, metrics = compute(workload)
    unbounded = metrics.unbounded_calls
    # calls whose server-tool requests no price covers: which task's they are is not
    # published, so every cost measure of the workload is open above
    unpriced = metrics.unpriced_calls
    # and findings that some spend is in no cost at all (a search count unknown, a subagent
    # cut short, agents run elsewhere): an audit decided SCALE $0.00001 under a cost limit
    # with a search known to be missing, where an unpriced server tool made it INCOMPLETE
    left_out = metrics.spend_left_out
    open_above = unbounded + unpriced + left_out
    gates = tuple(_run(c, metrics, workload.policy, open_above) for c in checks)
    reasons = _reasons(gates, metrics, (unbounded, unpriced, left_out))
    decision = _decide(gates, reasons)
    return Evaluation(
        decision=decision,
        exit_code=int(EXIT_OF[decision]),
        at_best=decision if decision != "INCOMPLETE" else _at_best(gates, metrics),
        reasons=reasons,
        gates=gates,
        required_coverage=REQUIRED_COVERAGE,
        decision_contract_sha256=decision_contract_digest(checks),
        diagnostics=DIAGNOSTICS,
        findings=diagnose(workload),
        metrics=metrics,
        tasks=tasks,
        excluded_tasks=workload.excluded_tasks,
        auxiliary_calls=workload.auxiliary_calls,
        auxiliary_by_bundle=workload.auxiliary_by_bundle,
        policy=workload.policy,
        baseline=workload.baseline,
        digests=workload.digests,
    )


def _run(check: Check, metrics: Metrics, policy: Policy, unbounded: int) -> GateResult:
    measured = check.measure(metrics, policy)
    measures = None if measured is None else _unbounded(measured, unbounded)
    if check.info.id in policy.disabled_checks:
        # Measured all the same, so a report shows what the gate would have said; the status
        # alone decides, and "disabled" makes the decision INCOMPLETE.
        return GateResult(check=check.info, status="disabled", measures=measures or ())
    if measures is None:
        return GateResult(check=check.info, status="unavailable", measures=())
    at_low, at_high = passes_at_ends(measures)
    status: Status = "indeterminate" if at_low != at_high else "pass" if at_low else "fail"
    return GateResult(check=check.info, status=status, measures=measures)


def _reasons(
    gates: tuple[GateResult, ...], metrics: Metrics, unbounded: tuple[int, int, int]
) -> tuple[Reason, ...]:
    reasons: list[Reason] = []
    present = {g.check.coverage for g in gates}
    for coverage in REQUIRED_COVERAGE:
        if coverage not in present:
            reasons.append(Reason(code="EVAL-GATE-MISSING", coverage=coverage))
    for gate in gates:
        reasons.extend(_gate_reasons(gate, metrics, unbounded))
    return tuple(reasons)


def _gate_reasons(
    gate: GateResult, metrics: Metrics, unbounded: tuple[int, int, int]
) -> list[Reason]:
    info = gate.check
    if gate.status == "disabled":
        return [Reason(code="EVAL-GATE-DISABLED", coverage=info.coverage, check=info.id)]
    if gate.status == "unavailable":
        return [Reason(code="EVAL-GATE-UNAVAILABLE", coverage=info.coverage, check=info.id)]
    if gate.status == "fail" and info.route == "INCOMPLETE":
        m = gate.measures[0]
        return [
            Reason(
                code="EVAL-SAMPLE-TOO-SMALL",
                coverage=info.coverage,
                check=info.id,
                measure=m.name,
                unit=m.unit,
                low=m.observed.at_low_cost,
                limit=m.limit,
            )
        ]
    if gate.status != "indeterminate":
        return []
    return [
        reason
        for m in gate.measures
        if m.passes_at_low_cost != m.passes_at_high_cost
        for reason in _indeterminate(info, m, metrics, unbounded)
    ]


def _indeterminate(
    info: CheckInfo, m: Measure, metrics: Metrics, unbounded: tuple[int, int, int]
) -> list[Reason]:
    """Why a measure's verdict is not one: its high end is no bound (`_unbounded`: whether or
    not the value there meets the limit, only completing those calls, or pricing them, can
    decide), or its cost interval straddles the limit. `unbounded`: the calls without input,
    then the calls of an unpriced server tool, then the findings of spend in no cost; each kind
    is said, in that order (a review: with both, only the first was, and the second came to
    light once it was mended)."""
    no_input, unpriced, left_out = unbounded
    # Straddling: the two ends in order, "between" them.
    low, high = m.observed.ordered() or (None, None)
    straddles = _reason(
        "EVAL-GATE-INDETERMINATE",
        info,
        m,
        usage_incomplete_calls=metrics.usage_incomplete_calls,
        low=low,
        high=high,
    )
    if m.high_is_bound:
        return [straddles]
    # Unbounded: the values at low and at high cost, so named (net value falls as cost rises).
    low, high = m.observed.at_low_cost, m.observed.at_high_cost
    reasons = []
    if no_input:
        reasons.append(
            _reason(
                "EVAL-COST-UNBOUNDED", info, m, usage_incomplete_calls=no_input, low=low, high=high
            )
        )
    # The priced calls' own interval already crosses the limit: usage-incomplete calls leave
    # the gate open too, whatever the spend left out (a walkthrough: only the unpriced tool was
    # said, and the straddle once it was priced). Said beside the calls with no input as well,
    # where other usage-incomplete calls make it (a FinOps reading: leaving the unbounded
    # bundle out, as its fix says, showed a straddle no report had named); the others' reasons
    # then say they are met at low cost only (`high`).
    crosses = not _passes(high, m.limit, m.comparison)
    straddle = crosses and metrics.usage_incomplete_calls > no_input
    beyond = high if crosses else None
    if unpriced:
        reasons.append(
            _reason("EVAL-COST-UNPRICED", info, m, unpriced_calls=unpriced, low=low, high=beyond)
        )
    if left_out:
        reasons.append(
            _reason(
                "EVAL-COST-LEFT-OUT",
                info,
                m,
                left_out=left_out,
                left_out_codes=tuple(metrics.spend_left_out_by_code),
                low=low,
                high=beyond,
            )
        )
    if straddle and (unpriced or left_out or no_input):
        reasons.append(straddles)
    return reasons


def _reason(
    code: str,
    info: CheckInfo,
    m: Measure,
    *,
    low: Decimal | None,
    high: Decimal | None = None,
    usage_incomplete_calls: int | None = None,
    unpriced_calls: int | None = None,
    left_out: int | None = None,
    left_out_codes: tuple[str, ...] = (),
) -> Reason:
    return Reason(
        code=code,
        coverage=info.coverage,
        check=info.id,
        measure=m.name,
        unit=m.unit,
        usage_incomplete_calls=usage_incomplete_calls,
        unpriced_calls=unpriced_calls,
        left_out=left_out,
        left_out_codes=left_out_codes,
        low=low,
        high=high,
        limit=m.limit,
    )


# Gates whose every measure is a maximum over the tasks: more tasks can only raise it, so one
# that fails on a sample too small fails on every larger one.
_MAXIMA = frozenset({"runtime-caps"})


def _tasks_to_come(gates: Sequence[GateResult], metrics: Metrics) -> bool:
    """Whether the workload's tasks are not all in yet: fewer than `min_tasks` (the sample-size
    gate's measure, taken whether the gate is enabled or not: a disabled one decides once
    enabled), or a split session's part not in it, which may hold tasks of its own."""
    short = any(g.check.id == "sample-size" and g.fails_at_both_ends for g in gates)
    return short or metrics.spend_left_out_by_code.get(SPLIT_SESSION, 0) > 0


def _settled(gate: GateResult) -> bool:
    """Whether a gate that fails now fails whatever tasks are added: a maximum over tasks, or
    an acceptable rate whose limit is 1 with a task already not acceptable (more acceptable
    tasks raise any lower rate towards 1, and past any limit below it)."""
    if gate.check.id in _MAXIMA:
        return True
    return gate.check.id == "acceptable-rate" and all(m.limit >= 1 for m in gate.measures)


def failing_whatever_comes(gates: Sequence[GateResult], metrics: Metrics) -> tuple[GateResult, ...]:
    """The gates of an INCOMPLETE workload that fail whatever its unknowns turn out to be,
    disabled ones included (they decide once enabled). While tasks are still to come (too few
    for `min_tasks`, a split session's part missing), they move a rate, a mean or a p95 either
    way: only a settled gate counts then (an audit: "at best STOP" on 6 tasks, and one more
    task decided SCALE)."""
    to_come = _tasks_to_come(gates, metrics)
    return tuple(g for g in gates if g.fails_at_both_ends and (not to_come or _settled(g)))


def _at_best(gates: tuple[GateResult, ...], metrics: Metrics) -> Decision:
    """What an INCOMPLETE workload can still reach: the route of its gates that fail whatever
    the unknowns are (`failing_whatever_comes`); SCALE when none does."""
    return _routed({g.check.route for g in failing_whatever_comes(gates, metrics)})


def _decide(gates: tuple[GateResult, ...], reasons: tuple[Reason, ...]) -> Decision:
    if reasons:
        return "INCOMPLETE"
    return _routed({g.check.route for g in gates if g.status == "fail"})


def _routed(failed: set[str]) -> Decision:
    """The decision the failed gates' routes make: STOP over ASSIST over SCALE."""
    return "STOP" if "STOP" in failed else "ASSIST" if "ASSIST" in failed else "SCALE"


def diagnose(workload: Workload) -> tuple[Finding, ...]:
    """Findings that never route: repeated tool shapes, cycles, evidence completeness."""
    threshold = workload.policy.repetition_warning_threshold
    findings: list[Finding] = []
    for task in sorted(workload.tasks, key=lambda t: t.id):
        findings.extend(_repeated_shapes(task, threshold))
        findings.extend(_cycles(task))
    incomplete = sum(t.usage_incomplete_calls for t in workload.tasks)
    if incomplete:
        findings.append(Finding(code="EVAL-USAGE-INCOMPLETE", count=incomplete))
    free = sum(t.model_calls == 0 for t in workload.tasks)
    if free:  # labelled, so counted as attempts: the contract may have meant to exclude them
        findings.append(Finding(code="EVAL-TASKS-WITHOUT-CALLS", count=free))
    if workload.auxiliary_calls == "not-observed":
        findings.append(Finding(code="EVAL-AUXILIARY-NOT-OBSERVED", count=1))
    if workload.costs_unchecked:
        findings.append(Finding(code="EVAL-COSTS-UNCHECKED", count=workload.costs_unchecked))
    if workload.bundle_findings:  # each in its bundle (an audit: which bundle's, untold)
        findings.extend(
            Finding(code=code, count=count, bundle=place)
            for place, code, count in workload.bundle_findings
        )
    else:
        findings.extend(
            Finding(code=code, count=count) for code, count in sorted(workload.findings.items())
        )
    return tuple(findings)


def _repeated_shapes(task: TaskFacts, threshold: int) -> list[Finding]:
    """Runs of one (tool, shape) longer than the threshold: one finding per tool."""
    runs: dict[str, list[int]] = {}
    previous: tuple[str, str] | None = None
    length = 0
    for call in (*task.tool_shapes, None):
        if call is not None and call == previous:
            length += 1
            continue
        if previous is not None and length > threshold:
            runs.setdefault(previous[0], []).append(length)
        previous, length = call, 1
    return [
        Finding(
            code="EVAL-REPEATED-TOOL-SHAPE",
            count=len(lengths),
            task=task.id,
            subject=tool,
            extent=max(lengths),
        )
        for tool, lengths in sorted(runs.items())
    ]


def _cycles(task: TaskFacts) -> list[Finding]:
    components = cyclic_components(task.edges)
    if not components:
        return []
    largest = max(len(c) for c in components)
    return [
        Finding(code="EVAL-DEPENDENCY-CYCLE", count=len(components), task=task.id, extent=largest)
    ]
