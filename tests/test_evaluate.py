"""Evaluation kernel, gates and decision (SPEC §10, issue 4): crafted workloads per route."""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from typing import Any

import canonicaljson
import pytest
from pydantic import ValidationError

from converter.errors import CODES, Exit
from converter.evaluate import (
    CHECKS,
    REQUIRED_COVERAGE,
    Baseline,
    Claims,
    Digests,
    Evaluation,
    Interval,
    Policy,
    TaskFacts,
    Workload,
    decision_contract_digest,
    evaluate,
    render_json,
    render_markdown,
    render_text,
    shape_key,
)
from converter.evaluate.fmt import json_decimal, percent
from converter.evaluate.kernel import nearest_rank, unplaced_left_out
from converter.text import usd
from tests.crossing import shape_of

D = Decimal
CHECK_IDS = [c.info.id for c in CHECKS]

POLICY: dict[str, Any] = {
    "human_hourly_cost_usd": D(60),  # one minute = $1
    "min_acceptable_rate": D("0.5"),
    "max_cost_per_acceptable_outcome_usd": D(20),
    "max_p95_task_cost_usd": D(15),
    "max_trace_cost_per_task_usd": D(10),
    "max_calls_per_task": 50,
    "min_expected_net_value_per_attempt_usd": D(0),
    "min_incremental_net_value_vs_baseline_usd": D(0),
    "repetition_warning_threshold": 3,
    "min_tasks": 3,
}
# Baseline net value per attempt: 0.5 × $20 − $5 = $5.
BASELINE = Baseline(
    name="human reviewer",
    cost_per_attempt_usd=D(5),
    acceptable_rate=D("0.5"),
    value_per_acceptable_outcome_usd=D(20),
)
DIGESTS = Digests(
    evidence_sha256=("a" * 64,),
    contract_sha256=("b" * 64,),
    price_card_id="anthropic-2025-08-01",
    rubric_version="rubric-1",
    label_source="human-review",
)


def task_id(i: int) -> str:
    return f"task-{i:012x}"


def make_task(
    i: int,
    low: Decimal | int | str = 2,
    high: Decimal | int | str | None = None,
    *,
    acceptable: bool = True,
    value: Decimal | int = 30,
    minutes: Decimal | int = 2,
    remediation: Decimal | int = 0,
    incident: Decimal | int = 0,
    model_calls: int = 5,
    tool_calls: int = 3,
    incomplete: int = 0,
    unbounded: int = 0,
    searches: int = 0,
    split: dict[str, Interval] | None = None,
    tool_shapes: tuple[tuple[str, str], ...] = (),
    edges: tuple[tuple[str, str], ...] = (),
) -> TaskFacts:
    spend = Interval(low=D(low), high=D(low if high is None else high))
    return TaskFacts(
        id=task_id(i),
        spend=spend,
        model_calls=model_calls,
        tool_calls=tool_calls,
        usage_incomplete_calls=incomplete,
        unbounded_calls=unbounded,
        claims=Claims(
            acceptable=acceptable,
            business_value_usd=D(value),
            human_minutes=D(minutes),
            remediation_cost_usd=D(remediation),
            incident_loss_usd=D(incident),
        ),
        cost_by_agent_type=split if split is not None else {"main": spend},
        cost_by_model={"claude-sonnet-4-5": spend},
        unbounded_by_agent_type={next(iter(split or {"main": 0})): unbounded} if unbounded else {},
        unbounded_by_model={"claude-sonnet-4-5": unbounded} if unbounded else {},
        left_out_by_agent_type={"main": searches} if searches else {},
        cache_read_tokens=300,
        input_tokens_total=1000,
        tool_shapes=tool_shapes,
        edges=edges,
    )


def make_workload(
    tasks: list[TaskFacts] | tuple[TaskFacts, ...],
    *,
    auxiliary: str = "observed",
    findings: dict[str, int] | None = None,
    unplaced: tuple[int, ...] = (),
    **policy: Any,
) -> Workload:
    return Workload.model_validate(
        {
            "tasks": tuple(tasks),
            "excluded_tasks": 1,
            "policy": Policy(**{**POLICY, **policy}),
            "baseline": BASELINE,
            "auxiliary_calls": auxiliary,
            "findings": findings or {},
            "digests": DIGESTS,
            "unplaced_left_out": unplaced,
        }
    )


def scale() -> Workload:
    # Each task: $2 spend + 2 minutes ($2) = $4 effective, acceptable, worth $30.
    return make_workload([make_task(i) for i in range(4)])


def assist() -> Workload:
    return make_workload([make_task(0, 12), *(make_task(i) for i in range(1, 4))])


def stop() -> Workload:
    return make_workload([make_task(i, value=0) for i in range(4)])


def incomplete() -> Workload:
    return make_workload([make_task(i) for i in range(2)])


ROUTES = {"SCALE": scale, "ASSIST": assist, "STOP": stop, "INCOMPLETE": incomplete}
EXITS = {"SCALE": 0, "ASSIST": 3, "STOP": 4, "INCOMPLETE": 2}


def gate(ev: Evaluation, check: str) -> Any:
    return next(g for g in ev.gates if g.check.id == check)


@pytest.mark.parametrize("route", list(ROUTES))
def test_each_route_and_exit_code(route: str) -> None:
    ev = evaluate(ROUTES[route]())
    assert ev.decision == route
    assert ev.exit_code == EXITS[route]


def test_exit_codes_are_the_shared_ones() -> None:
    assert [evaluate(ROUTES[r]()).exit_code for r in ROUTES] == [
        Exit.OK,
        Exit.ASSIST,
        Exit.STOP,
        Exit.REFUSED,
    ]


def test_scale_metrics_by_hand() -> None:
    m = evaluate(scale()).metrics
    assert m.acceptable_rate == 1
    assert m.total_effective_cost.low == m.total_effective_cost.high == 16
    assert m.cost_per_acceptable_outcome.at_low_cost == 4
    assert m.p95_task_cost.at_high_cost == 4
    assert m.expected_net_value_per_attempt.at_low_cost == 26
    assert m.baseline_net_value_per_attempt == 5
    assert m.incremental_net_value_vs_baseline.at_high_cost == 21
    assert m.max_calls_per_task == 8
    assert m.max_trace_cost_per_task.at_low_cost == 2


def test_effective_cost_adds_human_remediation_and_incident() -> None:
    ev = evaluate(make_workload([make_task(0, "1.5", minutes=30, remediation=4, incident=7)] * 1))
    cost = ev.tasks[0]
    assert cost.human_usd == 30  # 30 minutes at $60/hour
    assert cost.effective.low == D("1.5") + 30 + 4 + 7


def test_assist_names_the_failed_gate() -> None:
    ev = evaluate(assist())
    assert [g.check.id for g in ev.gates if g.status == "fail"] == ["runtime-caps"]
    assert ev.reasons == ()


def test_stop_outranks_assist() -> None:
    tasks = [make_task(0, 12, value=0), *(make_task(i, value=0) for i in range(1, 4))]
    ev = evaluate(make_workload(tasks))
    assert {g.check.route for g in ev.gates if g.status == "fail"} == {"ASSIST", "STOP"}
    assert ev.decision == "STOP"


@pytest.mark.parametrize("route", list(ROUTES))
@pytest.mark.parametrize("check", CHECK_IDS)
def test_removing_any_gate_is_incomplete(route: str, check: str) -> None:
    ev = evaluate(ROUTES[route](), [c for c in CHECKS if c.info.id != check])
    assert ev.decision == "INCOMPLETE"
    assert ev.exit_code == 2
    missing = next(c.info.coverage for c in CHECKS if c.info.id == check)
    assert any(r.code == "EVAL-GATE-MISSING" and r.coverage == missing for r in ev.reasons)


@pytest.mark.parametrize("route", list(ROUTES))
@pytest.mark.parametrize("check", CHECK_IDS)
def test_disabling_any_gate_is_incomplete(route: str, check: str) -> None:
    workload = ROUTES[route]()
    policy = workload.policy.model_copy(update={"disabled_checks": (check,)})
    ev = evaluate(workload.model_copy(update={"policy": policy}))
    assert ev.decision == "INCOMPLETE"
    assert gate(ev, check).status == "disabled"
    reason = next(r for r in ev.reasons if r.code == "EVAL-GATE-DISABLED")
    assert reason.check == check
    assert "still required" in reason.text()


def test_unknown_disabled_check_is_refused() -> None:
    with pytest.raises(ValidationError):
        Policy(**{**POLICY, "disabled_checks": ("no-such-gate",)})


def test_interval_straddling_a_limit_is_incomplete_with_the_reason() -> None:
    # One task whose single usage-incomplete call leaves its spend between $2 and $12.
    tasks = [make_task(0, 2, 12, incomplete=1), *(make_task(i) for i in range(1, 4))]
    ev = evaluate(make_workload(tasks))
    assert ev.decision == "INCOMPLETE"
    assert gate(ev, "runtime-caps").status == "indeterminate"
    [reason] = ev.reasons
    assert reason.code == "EVAL-GATE-INDETERMINATE"
    assert reason.text() == (
        "runtime-caps: 1 usage-incomplete call leaves the trace cost per task between "
        "$2.0000 and $12.0000 (limit $10.0000)"
    )
    assert reason.text() in render_markdown(ev)


def test_a_cost_with_no_high_end_meets_no_limit_at_it() -> None:
    """An audit: usage-incomplete calls that recorded no input have no high cost (their
    interval bounds their output only); a corpus tree's four such calls gave SCALE with a
    trace-cost limit at the interval's high end, the true cost above it. A cost gate now
    passes at best at the low cost: INCOMPLETE, said why; a gate failing at low still fails."""
    tasks = [make_task(0, 2, 3, incomplete=1, unbounded=1), *(make_task(i) for i in range(1, 4))]
    ev = evaluate(make_workload(tasks))
    assert ev.decision == "INCOMPLETE"
    costs = ("cost-per-acceptable-outcome", "p95-task-cost", "expected-net-value")
    assert all(gate(ev, c).status == "indeterminate" for c in (*costs, "runtime-caps"))
    assert gate(ev, "acceptable-rate").status == "pass"  # no cost in it
    codes = {r.code for r in ev.reasons}
    assert codes == {"EVAL-COST-UNBOUNDED"}
    trace = next(r for r in ev.reasons if r.check == "runtime-caps")
    assert trace.text() == (
        "runtime-caps: 1 usage-incomplete call recorded no input, so its cost has no high end: "
        "the trace cost per task at high cost has no bound ($3.0000 counts none of its input), "
        "and the limit ($10.0000) is shown to be met only at low cost ($2.0000)"
    )
    # The gate table shows no span inside the limit beside "indeterminate" (a walkthrough read
    # "$2.0000 – $3.0000, limit ≤ $10.0000 [indeterminate]" as a mistake).
    shown = render_text(ev)
    assert (
        "trace cost per task: $2.0000 at low cost, no bound at high cost (as priced: $3.0000), "
        "limit"
    ) in shown  # the figure JSON gives, said as what it is (a FinOps reading)
    assert "$2.0000 – $3.0000" not in shown
    # Nor do the costs: a walkthrough read the totals' high ends as bounds (the gates said so).
    assert (ev.metrics.unbounded_calls, ev.tasks[0].unbounded_calls) == (1, 1)
    total = ev.metrics.total_effective_cost
    assert (
        f"Total effective cost: {usd(total.low)} – no bound (high end {usd(total.high)} without the "
        "input of the 1 call that recorded none)"
    ) in shown
    assert "usage-incomplete calls: 1, 1 of which recorded no input" in shown
    markdown = render_markdown(ev)
    assert "| **all** | $8.0000 – no bound |" in markdown  # cost per model: the spend
    assert f"| {usd(total.low)} – no bound |" in markdown  # cost per task's all row
    task_row = next(line for line in markdown.splitlines() if f"`{ev.tasks[0].id}`" in line)
    assert task_row.endswith(" – no bound |")
    assert json.loads(render_json(ev))["metrics"]["unbounded_calls"] == 1
    bounded = [make_task(0, 2, 3, incomplete=1), *(make_task(i) for i in range(1, 4))]
    assert evaluate(make_workload(bounded)).decision == "SCALE"  # the same interval, bounded
    assert "no bound" not in render_markdown(evaluate(make_workload(bounded)))
    failing = [make_task(0, 11, 12, incomplete=1, unbounded=1), *(make_task(i) for i in (1, 2, 3))]
    assert gate(evaluate(make_workload(failing)), "runtime-caps").status == "fail"


def test_a_cost_with_no_high_end_is_no_bound_where_its_high_end_fails_the_limit_too() -> None:
    """A walkthrough: with calls that recorded no input, a gate whose finite high end also broke
    the limit was EVAL-GATE-INDETERMINATE, its fix (set max_output_tokens) unable to decide
    it, and its rows showed `$low – $high` as a span while the totals said "no bound". The high
    end bounds nothing whichever side of the limit it falls: EVAL-COST-UNBOUNDED, and every
    cost row says so."""
    # trace cost $2 at low, $12 at the finite high (limit $10), one call with no input
    tasks = [make_task(0, 2, 12, incomplete=1, unbounded=1), *(make_task(i) for i in (1, 2, 3))]
    ev = evaluate(make_workload(tasks))
    assert ev.decision == "INCOMPLETE"
    trace = next(r for r in ev.reasons if r.check == "runtime-caps")
    assert trace.code == "EVAL-COST-UNBOUNDED"
    assert {r.code for r in ev.reasons} == {"EVAL-COST-UNBOUNDED"}
    shown = render_text(ev)
    assert (
        "trace cost per task: $2.0000 at low cost, no bound at high cost (as priced: $12.0000), "
        "limit"
    ) in shown
    assert "$2.0000 – $12.0000" not in shown
    measure = gate(ev, "runtime-caps").measures
    printed = json.loads(render_json(ev))
    runtime = next(g for g in printed["gates"] if g["check"]["id"] == "runtime-caps")
    assert [m["high_is_bound"] for m in runtime["measures"]] == [m.unit != "usd" for m in measure]
    # bounded, the same interval straddles the limit: indeterminate, as before
    bounded = [make_task(0, 2, 12, incomplete=1), *(make_task(i) for i in (1, 2, 3))]
    again = evaluate(make_workload(bounded))
    assert {r.code for r in again.reasons} == {"EVAL-GATE-INDETERMINATE"}
    assert "no bound" not in render_text(again)


def test_contract_amounts_add_exactly_at_every_digit_they_may_have() -> None:
    """An audit: amounts may hold 30 digits each side of the point, the kernel added them in 50
    significant digits; a remediation of 1e20 + 1e-30 lost its last digit and a p95 limit
    1e-30 under the exact cost passed (SCALE where exact arithmetic says ASSIST)."""
    remediation = D("100000000000000000000.000000000000000000000000000001")
    tasks = [make_task(i, remediation=remediation) for i in range(4)]
    exact = D("100000000000000000004.000000000000000000000000000001")  # spend + 2 minutes + it
    limits = {
        "max_cost_per_acceptable_outcome_usd": D("1e29"),
        "min_expected_net_value_per_attempt_usd": D("-1e29"),
        "min_incremental_net_value_vs_baseline_usd": D("-1e29"),
        "max_trace_cost_per_task_usd": D(10),
    }
    under = D("100000000000000000004.000000000000000000000000000000")  # 1e-30 below
    below = evaluate(make_workload(tasks, max_p95_task_cost_usd=under, **limits))
    assert gate(below, "p95-task-cost").status == "fail"
    at = evaluate(make_workload(tasks, max_p95_task_cost_usd=exact, **limits))
    assert gate(at, "p95-task-cost").status == "pass"


def test_an_unbounded_net_value_names_its_ends_as_they_are() -> None:
    """A review: net value falls as cost rises, and the reason called the larger value the one
    "at high cost", against the gate's own figures; its JSON limit was rounded to 12 places
    where the gate's was whole."""
    tasks = [make_task(0, 2, 3, incomplete=1, unbounded=1), *(make_task(i) for i in range(1, 4))]
    limit = D("-5.000000000000000000001")
    ev = evaluate(make_workload(tasks, min_expected_net_value_per_attempt_usd=limit))
    reason = next(r for r in ev.reasons if r.check == "expected-net-value")
    observed = gate(ev, "expected-net-value").measures[0].observed
    assert (reason.low, reason.high) == (observed.at_low_cost, observed.at_high_cost)
    assert observed.at_low_cost is not None
    assert observed.at_high_cost is not None
    assert observed.at_low_cost > observed.at_high_cost
    data = json.loads(render_json(ev))
    [written] = [r for r in data["reasons"] if r["check"] == "expected-net-value"]
    assert written["limit"] == "-5.000000000000000000001"


def test_indeterminate_beats_a_certain_stop() -> None:
    tasks = [make_task(0, 2, 12, incomplete=1, value=0), *(make_task(i, value=0) for i in (1, 2))]
    ev = evaluate(make_workload(tasks))
    assert gate(ev, "expected-net-value").status == "fail"
    assert ev.decision == "INCOMPLETE"


def test_interval_wholly_on_one_side_decides() -> None:
    tasks = [make_task(0, 11, 12, incomplete=1), *(make_task(i) for i in range(1, 4))]
    ev = evaluate(make_workload(tasks))
    assert gate(ev, "runtime-caps").status == "fail"
    assert ev.decision == "ASSIST"


def test_no_acceptable_outcome_fails_cost_per_acceptable_outcome() -> None:
    ev = evaluate(make_workload([make_task(i, acceptable=False) for i in range(4)]))
    result = gate(ev, "cost-per-acceptable-outcome")
    assert result.status == "fail"
    assert result.measures[0].observed.at_low_cost is None
    assert ev.decision == "STOP"  # no value, so net value is negative too
    # the report says why it has no value (an audit: a bare `n/a … fail` said nothing); with
    # no task at all, no gate has a measure to show
    assert "cost per acceptable outcome: n/a (no acceptable task)" in render_markdown(ev)
    assert "cost per acceptable outcome: n/a (no acceptable task)" in render_text(ev)


def test_empty_workload_is_incomplete() -> None:
    ev = evaluate(make_workload([], min_tasks=0))
    assert ev.decision == "INCOMPLETE"
    assert {r.code for r in ev.reasons} == {"EVAL-GATE-UNAVAILABLE"}
    assert gate(ev, "sample-size").status == "pass"


def test_sample_too_small_reason() -> None:
    ev = evaluate(incomplete())
    [reason] = ev.reasons
    assert reason.code == "EVAL-SAMPLE-TOO-SMALL"
    assert reason.text() == "sample-size: 2 tasks, policy minimum 3"


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([5], 5),
        # n = 10: rank ceil(9.5) = 10, the maximum.
        ([3, 1, 4, 1, 5, 9, 2, 6, 8, 7], 9),
        # n = 20: rank ceil(19) = 19.
        (list(range(20, 0, -1)), 19),
        # n = 21: rank ceil(19.95) = 20.
        (list(range(1, 22)), 20),
        # n = 100: rank 95.
        (list(range(100)), 94),
        # n = 2: rank ceil(1.9) = 2.
        ([10, 1], 10),
    ],
)
def test_nearest_rank_p95_by_hand(values: list[int], expected: int) -> None:
    assert nearest_rank([D(v) for v in values]) == expected


def test_p95_gate_on_low_and_high_cost_separately() -> None:
    # 20 tasks; effective costs $3 … $22 at low, the 19th-ranked at high is $21 + $1 = $22.
    tasks = [make_task(i, D(i + 1), D(i + 2), minutes=2, incomplete=1) for i in range(20)]
    m = evaluate(make_workload(tasks, max_trace_cost_per_task_usd=D(100))).metrics
    assert m.p95_task_cost.at_low_cost == 19 + 2
    assert m.p95_task_cost.at_high_cost == 20 + 2


def test_decision_contract_digest_by_hand() -> None:
    document = {
        "decision_contract": "agent-evidence/decision-contract/v1",
        "checks": [
            {
                "id": c.info.id,
                "version": c.info.version,
                "coverage": c.info.coverage,
                "route": c.info.route,
            }
            for c in CHECKS
        ],
        "required_coverage": list(REQUIRED_COVERAGE),
    }
    expected = hashlib.sha256(canonicaljson.encode_canonical_json(document)).hexdigest()
    assert decision_contract_digest(CHECKS) == expected
    assert evaluate(scale()).decision_contract_sha256 == expected
    assert decision_contract_digest(CHECKS[:-1]) != expected
    assert decision_contract_digest(tuple(reversed(CHECKS))) != expected
    # The gates that read a task's effective cost are at 1.3 (1.1: human cost rounded to 10
    # places; 1.2: a cost with no high end passes at best at the low; 1.3: so it does with
    # calls of an unpriced server tool), the runtime caps at 1.2 (1.2's and 1.3's rules for the
    # trace cost): a report made before names another digest, so a changed method is visible.
    versions = {c.info.id: c.info.version for c in CHECKS}
    assert versions == {
        "acceptable-rate": "1.0",
        "cost-per-acceptable-outcome": "1.3",
        "p95-task-cost": "1.3",
        "expected-net-value": "1.3",
        "incremental-net-value": "1.3",
        "runtime-caps": "1.2",
        "sample-size": "1.0",
    }


def test_check_set_matches_the_spec_table() -> None:
    table = [(c.info.coverage, c.info.route) for c in CHECKS]
    assert table == [
        ("outcome quality", "ASSIST"),
        ("unit economics", "ASSIST"),
        ("tail risk", "ASSIST"),
        ("business value", "STOP"),
        ("counterfactual", "STOP"),
        ("runtime caps", "ASSIST"),
        ("sample size", "INCOMPLETE"),
    ]
    assert tuple(c for c, _ in table) == REQUIRED_COVERAGE


def test_repeated_tool_shape_finding_never_routes() -> None:
    key = shape_key(shape_of({"path": "x", "n": 1}))
    shapes = (("Read", key),) * 5 + (("Bash", key),) * 3 + (("Read", key),) * 4
    tasks = [make_task(0, tool_shapes=shapes), *(make_task(i) for i in range(1, 4))]
    ev = evaluate(make_workload(tasks))
    [finding] = [f for f in ev.findings if f.code == "EVAL-REPEATED-TOOL-SHAPE"]
    assert (finding.task, finding.subject, finding.count, finding.extent) == (
        task_id(0),
        "Read",
        2,
        5,
    )
    assert ev.decision == "SCALE"


def test_labelled_tasks_without_calls_are_said_and_never_route() -> None:
    """A new user labelled a session's zero-call prompts like its other tasks: cost per
    acceptable outcome halved and the sample doubled, with no word. They are counted now."""
    tasks = [*(make_task(i) for i in range(4)), make_task(4, low=0, model_calls=0, tool_calls=0)]
    ev = evaluate(make_workload(tasks))
    [finding] = [f for f in ev.findings if f.code == "EVAL-TASKS-WITHOUT-CALLS"]
    assert finding.count == 1
    assert ev.decision == evaluate(make_workload(tasks[:4])).decision == "SCALE"
    assert not [f for f in evaluate(make_workload(tasks[:4])).findings if f.code == finding.code]


def test_run_at_the_threshold_is_not_a_finding() -> None:
    key = shape_key(shape_of([]))
    tasks = [make_task(0, tool_shapes=(("Grep", key),) * 3), make_task(1), make_task(2)]
    assert not [f for f in evaluate(make_workload(tasks)).findings if f.task]


def test_cycle_finding_never_routes() -> None:
    e = [f"event-{i:012x}" for i in range(4)]
    edges = ((e[0], e[1]), (e[1], e[2]), (e[2], e[0]), (e[3], e[3]))
    tasks = [make_task(0, edges=edges), make_task(1), make_task(2)]
    ev = evaluate(make_workload(tasks))
    [finding] = [f for f in ev.findings if f.code == "EVAL-DEPENDENCY-CYCLE"]
    assert (finding.count, finding.extent) == (2, 3)
    assert ev.decision == "SCALE"


def test_evidence_completeness_findings() -> None:
    tasks = [make_task(0, 2, 3, incomplete=2), make_task(1), make_task(2)]
    ev = evaluate(make_workload(tasks, auxiliary="not-observed", findings={"CC-REC-SYNTHETIC": 4}))
    codes = {f.code: f.count for f in ev.findings}
    assert codes == {
        "EVAL-USAGE-INCOMPLETE": 2,
        "EVAL-AUXILIARY-NOT-OBSERVED": 1,
        "CC-REC-SYNTHETIC": 4,
    }
    assert ev.decision == "SCALE"


def test_every_eval_code_is_catalogued() -> None:
    used = {
        "EVAL-GATE-MISSING",
        "EVAL-GATE-DISABLED",
        "EVAL-GATE-UNAVAILABLE",
        "EVAL-GATE-INDETERMINATE",
        "EVAL-COST-UNBOUNDED",
        "EVAL-COST-UNPRICED",
        "EVAL-COST-LEFT-OUT",
        "EVAL-SAMPLE-TOO-SMALL",
        "EVAL-REPEATED-TOOL-SHAPE",
        "EVAL-DEPENDENCY-CYCLE",
        "EVAL-USAGE-INCOMPLETE",
        "EVAL-TASKS-WITHOUT-CALLS",
        "EVAL-AUXILIARY-NOT-OBSERVED",
        "EVAL-COSTS-UNCHECKED",
        # raised by the bundle → workload adapter (converter.run.workload)
        "EVAL-WORKLOAD-MISMATCH",
        "EVAL-NO-BUNDLE",
        "EVAL-DUPLICATE-TASK",
        "EVAL-BUNDLE-OVERLAP",
        "EVAL-BUNDLE-REPEATED",  # one bundle file given twice, before any is opened
        "EVAL-BUNDLE-INCOMPLETE-CLAIMS",
        "EVAL-UNKNOWN-CHECK",
        "EVAL-POLICY-MISMATCH",  # evaluate --policy: the team's policy file, required
    }
    assert {c for c in CODES if c.startswith("EVAL-")} == used


def test_floats_are_refused() -> None:
    with pytest.raises(ValidationError):
        Policy(**{**POLICY, "human_hourly_cost_usd": 60.0})
    with pytest.raises(ValidationError):
        Interval(low=D(3), high=D(2))


def test_inconsistent_split_is_refused() -> None:
    with pytest.raises(ValidationError):
        make_task(0, 2, split={"main": Interval(low=D(1), high=D(1))})


def test_baseline_name_is_a_label() -> None:
    with pytest.raises(ValidationError):
        BASELINE.model_validate({**BASELINE.model_dump(), "name": "a/b\nc"})


def test_money_format() -> None:
    assert usd(D("1234.56789")) == "$1,234.5679"
    assert usd(D("-12")) == "-$12.0000"
    assert usd(D("-0.00001")) == "$0.0000"
    assert usd(D("0.00005")) == "$0.0000"  # half-even
    assert json_decimal(D(1) / D(3)) == "0.333333333333"
    assert json_decimal(D("2.50")) == "2.50"
    assert percent(1, 3) == "33.33%"


def split_workload() -> Workload:
    split = {
        "main": Interval(low=D(1), high=D(1)),
        "Explore": Interval(low=D("0.5"), high=D("0.5")),
        "hidden:title": Interval(low=D("0.25"), high=D("0.75")),
    }
    tasks = [make_task(0, "1.75", "2.25", incomplete=1, split=split), make_task(1), make_task(2)]
    return make_workload(tasks)


def test_many_subagent_types_share_a_column_past_the_costliest() -> None:
    """A walkthrough: six bundles' agent types made 17 columns, unreadable in a step summary.
    Past MARKDOWN_AGENT_COLUMNS, the costliest keep theirs and the rest share one, whose cells
    are the exact sums of theirs; JSON lists each."""
    from converter.evaluate.report import MARKDOWN_AGENT_COLUMNS

    types = [f"agent-type-{n:012x}" for n in range(MARKDOWN_AGENT_COLUMNS + 3)]
    split = {"main": Interval(low=D(1), high=D(1))}
    # the costliest are the last ones: a column is kept by cost, not by name
    split |= {t: Interval(low=D(n + 1), high=D(n + 1)) for n, t in enumerate(types)}
    total = sum((i.low for i in split.values()), D(0))
    task = make_task(0, total, split=split)
    ev = evaluate(make_workload([task, make_task(1), make_task(2)]))
    text = render_markdown(ev)
    header = next(x for x in text.splitlines() if x.startswith("| Task |"))
    kept = types[-(MARKDOWN_AGENT_COLUMNS - 1) :]
    rest = types[: -(MARKDOWN_AGENT_COLUMNS - 1)]
    for t in kept:
        assert f"`{t}`" in header
    for t in rest:
        assert f"`{t}`" not in header
    assert f"| {len(rest)} other subagent types |" in header
    assert f"the other {len(rest)} share one" in text
    row = next(x for x in text.splitlines() if x.startswith(f"| `{task.id}`"))
    shared = sum(range(1, len(rest) + 1))  # $1 + $2 + … of the types folded
    assert f"| ${shared:,}.0000 |" in row, row
    assert set(json.loads(render_json(ev))["metrics"]["cost_by_agent_type"]) == {"main", *types}
    # a type whose cost has no high end keeps its column, however cheap at its low end
    cheapest = types[0]
    open_task = task.model_copy(update={"left_out_by_agent_type": {cheapest: 1}})
    text = render_markdown(evaluate(make_workload([open_task, make_task(1), make_task(2)])))
    header = next(x for x in text.splitlines() if x.startswith("| Task |"))
    assert f"`{cheapest}`" in header
    assert f"`{kept[0]}`" not in header  # the cheapest of the others gave it its place


def test_markdown_report_carries_every_fact() -> None:
    ev = evaluate(split_workload())
    text = render_markdown(ev)
    assert text.splitlines()[0].startswith("**Decision: SCALE (exit 0)")
    assert "| Task | Started | Acceptable | `main` | `Explore` | `hidden` | Human |" in text
    assert "rubric: `rubric-1` (labels: `human-review`)" in text  # code spans: never a link
    assert "$0.2500 – $0.7500" in text  # hidden calls as an interval
    # and by kind (SPEC §5.4), in the text report too
    said = "auxiliary calls: observed; hidden calls (provider bodies only): title $0.2500 – $0.7500"
    assert said in text
    assert said in render_text(evaluate(split_workload()))
    assert "`claude-sonnet-4-5`" in text
    assert "cache read share: 30.00%" in text
    assert "usage-incomplete calls: 1" in text
    assert "auxiliary calls: observed" in text
    assert ev.decision_contract_sha256 in text
    assert DIGESTS.contract_sha256[0] in text
    for check in CHECKS:
        assert f"| {check.info.id} v{check.info.version} |" in text


def test_text_report() -> None:
    text = render_text(evaluate(assist()))
    assert text.startswith("Decision: ASSIST (exit 3)")
    assert "[fail] runtime-caps v1.2" in text
    assert "decision contract:" in text


def test_json_report_has_decimals_as_strings() -> None:
    ev = evaluate(split_workload())
    data = json.loads(render_json(ev), parse_float=_no_float)
    assert data["decision"] == "SCALE"
    assert data["exit_code"] == 0
    assert data["metrics"]["total_effective_cost"] == {"low": "11.75", "high": "12.25"}
    assert data["decision_contract_sha256"] == ev.decision_contract_sha256


def test_json_reason_has_its_sentence() -> None:
    data = json.loads(render_json(evaluate(incomplete())), parse_float=_no_float)
    assert data["reasons"][0]["text"] == "sample-size: 2 tasks, policy minimum 3"


def _no_float(text: str) -> Any:
    raise AssertionError(f"float in JSON report: {text}")


def test_counts_in_sentences_agree_with_their_nouns() -> None:
    """ "1 tasks", "1 reason(s)" and "1 ... calls leave" read as careless; one is singular."""
    one = make_workload([make_task(0)], min_tasks=2)
    ev = evaluate(one)
    [reason] = ev.reasons
    assert reason.text() == "sample-size: 1 task, policy minimum 2"
    headline = render_text(ev).splitlines()[0]
    assert headline == (
        "Decision: INCOMPLETE (exit 2) — 1 task, 1 excluded; 1 reason it is incomplete"
        " (at best SCALE)"
    )
    two = evaluate(make_workload([make_task(0)], min_tasks=2, disabled_checks=("p95-task-cost",)))
    assert "— 1 task, 1 excluded; 2 reasons it is incomplete" in render_markdown(two)
    many = evaluate(make_workload([make_task(i) for i in range(3)], min_tasks=4))
    assert "— 3 tasks, 1 excluded; 1 reason it is incomplete" in render_text(many)
    tasks = [make_task(0, 2, 12, incomplete=2), *(make_task(i) for i in range(1, 4))]
    [indeterminate] = evaluate(make_workload(tasks)).reasons
    assert indeterminate.text().startswith("runtime-caps: 2 usage-incomplete calls leave ")


def test_hidden_calls_not_observed_are_not_shown_as_a_measured_zero() -> None:
    """Without provider bodies the hidden column was `$0.0000`, which reads as measured."""
    ev = evaluate(make_workload([make_task(i) for i in range(3)], auxiliary="not-observed"))
    text = render_markdown(ev)
    header = (
        "| Task | Started | Acceptable | `main` | `hidden` | Human | Remediation | Incident | "
        "Effective |"
    )
    rows = text.split(header)[1].split("\n\n")[0].splitlines()[2:]
    assert len(rows) == 4  # three tasks and the total
    assert all(row.split(" | ")[4] == "n/o" for row in rows)
    # only the hidden column was not looked for: the main agent's cost is measured
    assert all(row.split(" | ")[3].startswith("$") for row in rows)
    assert all("n/o" not in row.split(" | ")[3] for row in rows)
    assert "n/o: not observed" in text
    data = json.loads(render_json(ev), parse_float=_no_float)
    assert data["auxiliary_calls"] == "not-observed"
    assert all(not k.startswith("hidden") for t in data["tasks"] for k in t["cost_by_agent_type"])
    assert not any(k.startswith("hidden") for k in data["metrics"]["cost_by_agent_type"])
    observed = render_markdown(evaluate(make_workload([make_task(0)], auxiliary="observed")))
    assert "n/o" not in observed  # observed and none found: a measured zero
    assert "| $0.0000 | $2.0000 |" in observed


def test_an_incomplete_headline_names_the_gates_that_already_fail() -> None:
    """Was: 'INCOMPLETE ... 1 reason it is incomplete' while a STOP gate failed whatever the
    unknowns were: a reader of the headline could think more data would give SCALE."""
    tasks = [
        make_task(0, 2, 12, incomplete=1, value=0),
        *(make_task(i, value=0) for i in (1, 2, 3)),
    ]
    ev = evaluate(make_workload(tasks))
    assert ev.decision == "INCOMPLETE"
    headline = render_text(ev).splitlines()[0]
    assert headline.endswith(
        "1 reason it is incomplete; already failing: expected-net-value, incremental-net-value"
        " (at best STOP)"
    )
    assert ev.at_best == "STOP"
    assert json.loads(render_json(ev), parse_float=_no_float)["at_best"] == "STOP"
    # An INCOMPLETE-routed gate that fails (too few tasks) is a reason, not "already failing".
    few_ev = evaluate(make_workload([make_task(0)], min_tasks=2))
    few = render_text(few_ev).splitlines()[0]
    assert "already failing" not in few
    assert few_ev.decision == "INCOMPLETE"
    assert few_ev.at_best == "SCALE"  # more tasks could still give SCALE
    done = evaluate(make_workload([make_task(i) for i in range(3)]))
    assert done.at_best == done.decision  # decided: at best what it is
    # A review: a disabled gate that fails at both ends decides once enabled: "at best ASSIST"
    # was said of a workload whose disabled STOP gates fail whatever the unknowns are.
    losing = [make_task(i, 500, acceptable=False, value=0) for i in range(3)]
    assert evaluate(make_workload(losing)).decision == "STOP"
    off = ("expected-net-value", "incremental-net-value")
    muted = evaluate(make_workload(losing, disabled_checks=off))
    assert (muted.decision, muted.at_best) == ("INCOMPLETE", "STOP")
    assert "expected-net-value (disabled)" in render_text(muted).splitlines()[0]


def test_human_cost_is_money_so_totals_are_sums_of_the_tasks_shown() -> None:
    """Was: 1 minute at $100/h is 1.666…, kept to 50 digits: the JSON report rounded each task's
    total and the workload's total to 12 places apart, and the grand total was not the sum of
    the task totals it listed (…334 against …333). Now rounded once, to the pricing quantum."""
    tasks = [make_task(i, "1.5", minutes=1) for i in range(3)]
    ev = evaluate(make_workload(tasks, human_hourly_cost_usd=D(100)))
    assert [t.human_usd for t in ev.tasks] == [D("1.6666666667")] * 3
    data = json.loads(render_json(ev))
    listed = sum(D(t["effective"]["low"]) for t in data["tasks"])
    assert D(data["metrics"]["total_effective_cost"]["low"]) == listed == D("9.5000000001")
    # A whole amount keeps its own places: 2 minutes at $60/h is 2, not 2.0000000000.
    assert evaluate(make_workload([make_task(0)])).tasks[0].human_usd == D(2)


def test_a_measure_exactly_at_its_limit_meets_it() -> None:
    """A maximum is inclusive: a cost or a count equal to it passes, one unit under it fails.
    Was untested: `<` for `<=` survived every test."""
    tasks = [make_task(i) for i in range(4)]  # each: $2 spend + $2 human = $4, 5 + 3 calls
    exact = {
        "max_cost_per_acceptable_outcome_usd": D(4),
        "max_p95_task_cost_usd": D(4),
        "max_trace_cost_per_task_usd": D(2),
        "max_calls_per_task": 8,
    }
    ev = evaluate(make_workload(tasks, **exact))
    assert ev.decision == "SCALE", [r.model_dump() for r in ev.reasons]
    for name, value in exact.items():
        past = value - 1 if name == "max_calls_per_task" else value - D("0.0001")
        worse = evaluate(make_workload(tasks, **{**exact, name: past}))
        assert worse.decision != "SCALE", name


def test_a_large_workload_keeps_its_markdown_within_a_job_summary() -> None:
    """Was: one row per task and one line per finding, whatever their number: 12,500 tasks gave
    a 1 MB report, and GitHub refuses a job summary over 1 MiB whole (nothing appears). Markdown
    lists the costliest tasks and the first findings; the totals and JSON keep every task."""
    from converter.evaluate.report import (
        MARKDOWN_FINDING_BYTES,
        MARKDOWN_FINDINGS,
        MARKDOWN_TASK_ROWS,
    )

    key = shape_key(shape_of({"path": "x"}))
    count = 2_000
    tasks = [
        make_task(i, low=D(i % 97) / 10, tool_shapes=(("Read", key),) * 4) for i in range(count)
    ]
    ev = evaluate(make_workload(tasks))
    assert len(ev.findings) > MARKDOWN_FINDINGS
    text = render_markdown(ev)
    assert len(text.encode()) < 65_536  # fits a pull-request comment, let alone a summary
    rows = [line for line in text.splitlines() if line.startswith("| `task-")]
    assert len(rows) == MARKDOWN_TASK_ROWS
    shown = [line.split("`")[1] for line in rows]
    assert shown == sorted(shown)  # in the table's order
    costliest = sorted(ev.tasks, key=lambda t: -t.effective.high)[:MARKDOWN_TASK_ROWS]
    assert set(shown) == {t.id for t in costliest}
    assert f"The 200 costliest of {count:,} tasks" in text
    assert "| **all** | " in text  # the totals still sum every task
    total = sum((t.effective.high for t in ev.tasks), D(0))
    assert usd(total) in text
    listed = [line for line in text.splitlines() if line.startswith("- EVAL-REPEATED")]
    assert 0 < len(listed) <= MARKDOWN_FINDINGS
    assert sum(len(line.encode()) + 1 for line in listed) <= MARKDOWN_FINDING_BYTES + len(listed)
    more = len(ev.findings) - len(listed)
    assert f"- … and {more:,} more findings (`--format json` lists each)" in text
    assert len(json.loads(render_json(ev))["tasks"]) == count


def test_a_wide_task_table_is_cut_by_bytes_too() -> None:
    """A row grows with each subagent type: 3,000 tasks with 12 types and cost ranges made
    79,664 bytes of Markdown under the 200-row cap alone."""
    from converter.evaluate.report import MARKDOWN_TASK_BYTES

    def task(i: int) -> TaskFacts:
        split = {
            f"type-{k:02d}": Interval(low=D(i % 89) / 100, high=D(i % 89 + 3) / 100)
            for k in range(12)
        }
        low = sum((v.low for v in split.values()), D(0))
        high = sum((v.high for v in split.values()), D(0))
        return make_task(i, low, high, incomplete=1, split=split)

    text = render_markdown(evaluate(make_workload([task(i) for i in range(3_000)])))
    rows = [line for line in text.splitlines() if line.startswith("| `task-")]
    assert 0 < len(rows) < 200
    assert sum(len(r.encode()) for r in rows) <= MARKDOWN_TASK_BYTES
    assert f"The {len(rows):,} costliest of 3,000 tasks" in text
    assert len(text.encode()) < 65_536


def test_a_workload_that_fits_lists_every_task_and_finding() -> None:
    tasks = [make_task(i) for i in range(5)]
    text = render_markdown(evaluate(make_workload(tasks)))
    assert len([line for line in text.splitlines() if line.startswith("| `task-")]) == 5
    assert "costliest" not in text
    assert "more finding" not in text


def test_a_failing_gate_never_shows_its_value_equal_to_its_limit() -> None:
    """Was `acceptable rate: 0.6667, limit ≥ 0.6667 [fail]`: both sides rounded to four places,
    the policy's own limit (0.66667) nowhere. The limit keeps every decimal it was given; the
    value gets as many as it needs to read on its side of the limit."""
    tasks = [make_task(0), make_task(1), make_task(2, acceptable=False)]
    ev = evaluate(make_workload(tasks, min_acceptable_rate=D("0.66667")))
    [gate] = [g for g in ev.gates if g.check.id == "acceptable-rate"]
    assert gate.status == "fail"
    for text in (render_text(ev), render_markdown(ev)):
        assert "0.666667" in text, text
        assert "limit ≥ 0.666670" in text
        assert "0.6667" not in text.replace("0.66667", "")

    # Money: a limit of ten decimals, a cost per acceptable outcome just above it.
    tasks = [make_task(i, low=D("40.9166666667") / 3, minutes=0) for i in range(3)]
    limit = D("13.6388888888")
    ev = evaluate(make_workload(tasks, max_cost_per_acceptable_outcome_usd=limit))
    [gate] = [g for g in ev.gates if g.check.id == "cost-per-acceptable-outcome"]
    assert gate.status == "fail"
    assert "$13.6388888889, limit ≤ $13.6388888888" in render_text(ev)


def test_a_limit_with_few_decimals_still_shows_four() -> None:
    ev = evaluate(make_workload([make_task(i) for i in range(3)]))
    text = render_text(ev)
    assert "limit ≤ $20.0000" in text
    assert "limit ≥ 0.5000" in text


@pytest.mark.parametrize(
    ("value", "limit", "unit", "places"),
    [
        (D("0.66664"), D("0.6667"), "rate", 4),  # 0.6666 < 0.6667, as 0.66664 is
        (D("0.666649"), D("0.666645"), "rate", 6),  # four places would read 0.6666, below it
        (D("0.5"), D("0.5"), "rate", 4),  # equal reads equal
        (D(7), D(5), "count", 0),
        (D("1") / 3, D("0.333333333333"), "rate", 13),  # past twelve where twelve read equal
        (D("0.5000000000000000001"), D("0.5"), "rate", 19),  # twelve cannot: all its own
        (D("-0.66664"), D("-0.6666"), "usd", 5),  # negative amounts alike
    ],
)
def test_places_against_a_limit(value: Decimal, limit: Decimal, unit: str, places: int) -> None:
    from converter.evaluate.fmt import places_against

    assert places_against(limit, [value], unit) == places


def test_an_indeterminate_reason_shows_its_bounds_on_their_sides_of_the_limit() -> None:
    """Was `between $10.0000 and $10.0000 (limit $10.0000)` for a spend of 9.99999 to 10.00001."""
    tasks = [
        make_task(0, D("9.99999"), D("10.00001"), incomplete=1),
        *(make_task(i) for i in range(1, 4)),
    ]
    [reason] = evaluate(make_workload(tasks)).reasons
    assert reason.text().endswith("between $9.99999 and $10.00001 (limit $10.00000)")


def test_a_limit_with_thirty_places_is_shown_and_written_whole() -> None:
    """An audit: text and Markdown printed a 31-place limit rounded at 28 digits (abs() in the
    default context), no longer the policy's value; the JSON gate rounded its limit and its
    observed rate to 12 places, where both read 0.666666666667 for a failing gate."""
    limit = D("0.666666666666666666666666666667")
    tasks = [make_task(i, acceptable=i < 4) for i in range(6)]
    ev = evaluate(make_workload(tasks, min_acceptable_rate=limit))
    assert gate(ev, "acceptable-rate").status == "fail"
    measure = json.loads(render_json(ev))["gates"][0]["measures"][0]
    assert measure["limit"] == "0.666666666666666666666666666667"
    observed = D(measure["observed"]["at_low_cost"])
    assert observed < limit  # reads on its side of the limit, as the verdict says
    assert usd(D("5.159780033333333333333333333333"), 31) == "$5.1597800333333333333333333333330"


def test_the_json_metrics_read_on_the_side_of_the_limit_their_gate_does() -> None:
    """A differential audit: `metrics.acceptable_rate` was 0.333333333333 (twelve places)
    beside a gate passing at limit 0.33333333333333333333, and a mean equal to its limit read
    below it; the gate's own `observed` kept the places. The metrics take the same places."""
    limit = D("0.33333333333333333333")
    tasks = [make_task(i, acceptable=i == 0, value=31) for i in range(3)]  # net 19/3
    ev = evaluate(make_workload(tasks, min_acceptable_rate=limit))
    assert gate(ev, "acceptable-rate").status == "pass"
    metrics = json.loads(render_json(ev))["metrics"]
    assert D(metrics["acceptable_rate"]) > limit
    net = ev.metrics.expected_net_value_per_attempt.at_low_cost
    assert net is not None
    on_it = net.quantize(D("1e-20"))  # the mean to 20 places: the limit a policy may write
    ev = evaluate(make_workload(tasks, min_expected_net_value_per_attempt_usd=on_it))
    written = json.loads(render_json(ev))["metrics"]["expected_net_value_per_attempt"]
    gate_net = gate(ev, "expected-net-value").measures[0]
    assert gate_net.passes_at_low_cost
    assert D(written["at_low_cost"]) >= on_it


def test_a_disabled_gate_still_shows_what_it_would_have_said() -> None:
    """Was `acceptable-rate … | — | — | disabled`: a rate of 0.6 against a limit of 0.61 hidden.
    The gate is measured; only its status routes, and "disabled" keeps the decision INCOMPLETE."""
    tasks = [make_task(i, acceptable=i < 3) for i in range(5)]
    workload = make_workload(
        tasks, min_acceptable_rate=D("0.61"), disabled_checks=("acceptable-rate",)
    )
    ev = evaluate(workload)
    assert ev.decision == "INCOMPLETE"
    [reason] = ev.reasons
    assert reason.code == "EVAL-GATE-DISABLED"
    assert gate(ev, "acceptable-rate").status == "disabled"
    for text in (render_text(ev), render_markdown(ev)):
        assert "0.6000" in text
        assert "limit ≥ 0.6100" in text
        assert "disabled (would fail)" in text
    assert "failed: acceptable-rate" not in render_text(ev)


def test_the_cost_per_model_table_adds_up_to_the_spend() -> None:
    """Was: model rows only; a workload's tool spend (an MCP tool priced per call) appeared in
    no row, so the table summed to less than the cost-per-task table's agent columns."""
    spend = Interval(low=D(3), high=D(5))
    task = make_task(0, 3, 5, incomplete=1).model_copy(
        update={"cost_by_model": {"claude-sonnet-4-5": Interval(low=D("2.5"), high=D("4.5"))}}
    )
    assert task.spend == spend
    ev = evaluate(make_workload([task, make_task(1), make_task(2)]))
    text = render_markdown(ev)
    section = text.split("### Cost per model")[1].split("###")[0]
    assert "| `claude-sonnet-4-5` | $6.5000 – $8.5000 |" in section
    assert "| tool calls | $0.5000 |" in section
    assert "| **all** | $7.0000 – $9.0000 |" in section


def test_cost_per_acceptable_outcome_divides_by_the_acceptable_tasks_only() -> None:
    """A mutation review: dividing by every task survived the suite (every workload that checked
    this value had all its tasks acceptable). 4 tasks of $4 effective cost each ($2 spend and
    2 minutes at $60/h), 2 acceptable: $16 / 2 = $8, and a $6 limit fails."""
    tasks = [make_task(i, acceptable=i < 2) for i in range(4)]
    m = evaluate(make_workload(tasks)).metrics
    assert m.cost_per_acceptable_outcome.at_low_cost == Decimal(8)
    assert m.cost_per_acceptable_outcome.at_high_cost == Decimal(8)
    ev = evaluate(make_workload(tasks, max_cost_per_acceptable_outcome_usd=Decimal(6)))
    gate = next(g for g in ev.gates if g.check.id == "cost-per-acceptable-outcome")
    assert gate.status == "fail"


def test_hidden_calls_of_bundles_that_observed_them_are_not_said_unobserved() -> None:
    """A red team: one bundle made with provider bodies (a hidden call priced), one without;
    every row said `n/o`, also the observed bundle's task with none, and the total showed the
    observed bundle's hidden cost as if it were all of it."""
    split = {
        "main": Interval(low=D("1.75"), high=D("1.75")),
        "hidden:title": Interval(low=D("0.25"), high=D("0.25")),
    }
    with_call = make_task(0, "2", "2", split=split)
    without = make_task(1).model_copy(update={"bundle": 1})
    unseen = make_task(2).model_copy(update={"bundle": 2})
    workload = make_workload([with_call, without, unseen], auxiliary="not-observed")
    workload = workload.model_copy(update={"auxiliary_by_bundle": ("observed", "not-observed")})
    text = render_markdown(evaluate(workload))
    rows = {
        row.split(" | ")[0].split("`")[1]: row.split(" | ")
        for row in text.splitlines()
        if row.startswith("| `task-")
    }
    hidden = 4  # Task, Started, Acceptable, main: then the hidden column
    assert rows[with_call.id][hidden] == "$0.2500"
    assert rows[without.id][hidden] == "$0.0000"  # looked for, none found: a measured zero
    assert rows[unseen.id][hidden] == "n/o"
    total = next(row for row in text.splitlines() if row.startswith("| **all**"))
    assert total.split(" | ")[hidden] == "$0.2500 + n/o"
    assert "`+ n/o` is the hidden calls found; others may not have been looked for" in text


def test_calls_of_an_unpriced_server_tool_leave_every_cost_open_above() -> None:
    """A SPEC audit: a bundle counting calls of a server tool no version prices (its requests
    in no cost) was decided SCALE. A cost gate met is now met only without them: INCOMPLETE,
    said why; a gate failing at the low cost still fails, and stubs without input are
    said beside them, first (a review: only they were)."""
    unpriced = {"CC-REC-SERVER-TOOL-UNPRICED": 2}
    ev = evaluate(make_workload([make_task(i) for i in range(4)], findings=unpriced))
    assert evaluate(scale()).decision == "SCALE"  # the same workload without them
    assert ev.decision == "INCOMPLETE"
    assert ev.at_best == "SCALE"
    assert {r.code for r in ev.reasons} == {"EVAL-COST-UNPRICED"}
    assert gate(ev, "acceptable-rate").status == "pass"  # no cost in it
    trace = next(r for r in ev.reasons if r.check == "runtime-caps")
    assert trace.unpriced_calls == 2
    assert trace.text() == (
        "runtime-caps: 2 model calls used a server tool no price covers "
        "(CC-REC-SERVER-TOOL-UNPRICED), so the trace cost per task counts none of their "
        "requests: the limit ($10.0000) is shown to be met only without them ($2.0000)"
    )
    assert trace.text() in render_markdown(ev)
    assert json.loads(render_json(ev))["reasons"][0]["unpriced_calls"] == 2
    # the totals say so as the gates do, with which calls leave them open
    assert (
        "Total effective cost: $16.0000 – no bound (high end $16.0000 without the requests of "
        "2 calls "
        "to a server tool no price covers)"
    ) in render_text(ev)
    assert "| **all** | $8.0000 – no bound |" in render_markdown(ev)  # cost per model
    assert "$16.0000 – no bound |" in render_markdown(ev)  # cost per task's all row
    failing = [make_task(0, 11), *(make_task(i) for i in (1, 2, 3))]
    assert gate(evaluate(make_workload(failing, findings=unpriced)), "runtime-caps").status == (
        "fail"
    )
    stub = [make_task(0, 2, 3, incomplete=1, unbounded=1), *(make_task(i) for i in (1, 2, 3))]
    both = evaluate(make_workload(stub, findings=unpriced))
    said = [(r.check, r.code) for r in both.reasons if r.check == "runtime-caps"]
    assert said == [("runtime-caps", "EVAL-COST-UNBOUNDED"), ("runtime-caps", "EVAL-COST-UNPRICED")]
    assert both.metrics.unpriced_calls == 2
    assert "that recorded none and the requests of 2 calls to a server tool" in render_text(both)
    assert json.loads(render_json(both))["metrics"]["unpriced_calls"] == 2
    # An interval that straddles the limit beside them: both said at once (was: only the tool,
    # and the straddle came to light once it was priced).
    straddling = [make_task(0, 2, 12, incomplete=1), *(make_task(i) for i in (1, 2, 3))]
    open_both = evaluate(make_workload(straddling, findings=unpriced))
    said = [(r.check, r.code) for r in open_both.reasons if r.check == "runtime-caps"]
    assert said == [
        ("runtime-caps", "EVAL-COST-UNPRICED"),
        ("runtime-caps", "EVAL-GATE-INDETERMINATE"),
    ]
    assert open_both.reasons[-1].text() == (
        "runtime-caps: 1 usage-incomplete call leaves the trace cost per task between "
        "$2.0000 and $12.0000 (limit $10.0000)"
    )
    priced = evaluate(make_workload(straddling))
    assert {r.code for r in priced.reasons} == {"EVAL-GATE-INDETERMINATE"}


@pytest.mark.parametrize(
    "code",
    [
        "CC-REC-WEBSEARCH-COUNT-UNKNOWN",
        "CC-REC-AGENT-USAGE-DISAGREE",
        "CC-TREE-REMOTE-AGENT",
        "CC-TREE-DELEGATION-REMOTE",
        "CC-REC-FINAL-NO-INPUT",
    ],
)
def test_findings_of_spend_in_no_cost_leave_every_cost_open_above(code: str) -> None:
    """An audit: a cost gate met by $0.00001 decided SCALE while a finding said a web search
    was priced at nothing, where an unpriced server tool made the same gate INCOMPLETE. Every
    finding that says some spend is in no cost leaves a met cost gate met only without it;
    a failing one still fails."""
    ev = evaluate(make_workload([make_task(i) for i in range(4)], findings={code: 3}))
    assert ev.decision == "INCOMPLETE"
    assert ev.at_best == "SCALE"
    assert {r.code for r in ev.reasons} == {"EVAL-COST-LEFT-OUT"}
    assert gate(ev, "acceptable-rate").status == "pass"
    trace = next(r for r in ev.reasons if r.check == "runtime-caps")
    assert trace.left_out == 3
    assert trace.text() == (
        f"runtime-caps: 3 findings of the bundles say some spend is in no cost ({code}: the "
        "findings below name each and its bundle), so the trace cost per task counts none of "
        "it: the limit ($10.0000) is shown to be met only without it ($2.0000)"
    )  # the code the findings have, not every cause there is (a FinOps reading)
    assert trace.left_out_codes == (code,)
    assert ev.metrics.spend_left_out_by_code == {code: 3}
    assert ev.metrics.spend_left_out == 3
    assert json.loads(render_json(ev))["metrics"]["spend_left_out"] == 3
    assert json.loads(render_json(ev))["metrics"]["high_is_bound"] is False
    assert json.loads(render_json(evaluate(scale())))["metrics"]["high_is_bound"] is True
    assert "(high end $16.0000 without the spend 3 findings of the bundles say is in no cost)" in (
        render_text(ev)
    )
    one = evaluate(make_workload([make_task(i) for i in range(4)], findings={code: 1}))
    assert "the spend 1 finding of the bundles says is in no cost)" in render_text(one)
    failing = [make_task(0, 11), *(make_task(i) for i in (1, 2, 3))]
    assert gate(evaluate(make_workload(failing, findings={code: 3})), "runtime-caps").status == (
        "fail"
    )
    other = evaluate(make_workload([make_task(i) for i in range(4)], findings={"CC-REC-REPLAY": 3}))
    assert other.decision == "SCALE"  # a finding that leaves no spend out routes nothing


def test_claims_are_restated_as_written_in_json() -> None:
    """An audit: a claim of 1e-30 came out of --format json as 0.000000000000, rounded as a
    quotient is. A claim is no quotient: restated whole; human time (a division) still rounds."""
    tiny = Decimal("0.000000000000000000000000000001")
    ev = evaluate(make_workload([make_task(0, value=tiny, remediation=tiny, incident=tiny)]))
    (task,) = json.loads(render_json(ev))["tasks"]
    assert task["business_value_usd"] == "0.000000000000000000000000000001"
    assert task["remediation_usd"] == task["incident_loss_usd"] == task["business_value_usd"]


def _bound(ev: Evaluation) -> dict[str, bool]:
    return {t.id: t.high_is_bound for t in ev.tasks}


def test_a_task_has_no_high_end_where_some_of_its_spend_may_be_in_no_cost() -> None:
    """An audit: the workload's total said `no bound` while each task's high end, in JSON and
    Markdown, read as a bound. A task's is none when its own calls recorded no input, when it
    holds a WebSearch call of unknown count, or when a finding of its bundle says some spend is
    in no cost and names no task; else it is one."""
    tasks = [make_task(0, 2, 3, incomplete=1, unbounded=1), make_task(1, searches=1), make_task(2)]
    searched = {"CC-REC-WEBSEARCH-COUNT-UNKNOWN": 1}
    ev = evaluate(make_workload(tasks, findings=searched))
    assert _bound(ev) == {task_id(0): False, task_id(1): False, task_id(2): True}
    assert ev.metrics.left_out_by_agent_type == {"main": 1}
    # a search the finding counts that no task's event shows: any task may hold it
    more = evaluate(make_workload(tasks, findings={"CC-REC-WEBSEARCH-COUNT-UNKNOWN": 2}))
    assert not any(_bound(more).values())
    for code in ("CC-TREE-REMOTE-AGENT", "CC-REC-SERVER-TOOL-UNPRICED"):
        assert not any(_bound(evaluate(make_workload(tasks, findings={code: 1}))).values())
    # a final call of no input that no task's events show (the one event left out is a search)
    finals = {"CC-REC-FINAL-NO-INPUT": 1, **searched}
    assert not any(_bound(evaluate(make_workload(tasks, findings=finals))).values())
    for code in ("CC-REC-REPLAY", "CC-TREE-SPLIT-SESSION"):  # no spend out; parts: counted
        assert _bound(evaluate(make_workload(tasks, findings={code: 1})))[task_id(2)]
    rows = render_markdown(ev)
    assert "`no bound`: some of that cost is in no figure" in rows
    assert "`no bound`" not in render_markdown(evaluate(scale()))
    (open_row,) = [r for r in rows.splitlines() if task_id(1) in r]
    assert open_row.endswith(
        "| $2.0000 – no bound | $0.0000 | $2.0000 | $0.0000 | $0.0000 | $4.0000 – no bound |"
    )
    assert json.loads(render_json(ev))["tasks"][1]["high_is_bound"] is False


def test_findings_that_name_no_task_open_only_their_own_bundles_tasks() -> None:
    """Each bundle's findings of spend in no cost hold open its own tasks' high ends, not
    another bundle's (`Workload.unplaced_left_out`, one count a bundle)."""
    tasks = [
        make_task(0).model_copy(update={"bundle": 1}),
        make_task(1).model_copy(update={"bundle": 2}),
    ]
    ev = evaluate(make_workload(tasks, findings={"CC-TREE-REMOTE-AGENT": 1}, unplaced=(0, 1)))
    assert _bound(ev) == {task_id(0): True, task_id(1): False}
    assert ev.metrics.high_is_bound is False
    with pytest.raises(ValidationError):
        make_workload(tasks, unplaced=(0,))  # the second bundle's count is missing


def test_events_left_out_split_as_the_task_does() -> None:
    with pytest.raises(ValidationError):  # more such events than the task has
        make_task(
            0,
            split={"main": Interval(low=D(2), high=D(2))},
            tool_calls=0,
            model_calls=0,
            searches=1,
        )
    with pytest.raises(ValidationError):
        make_task(0, split={"Explore": Interval(low=D(2), high=D(2))}, searches=1)  # main's
    task = make_task(0, searches=1)
    with pytest.raises(ValidationError):  # a model the task's cost does not hold
        TaskFacts.model_validate({**task.model_dump(), "left_out_by_model": {"claude-x": 1}})
    with pytest.raises(ValidationError):  # more by model than by agent type
        TaskFacts.model_validate(
            {**task.model_dump(), "left_out_by_model": {"claude-sonnet-4-5": 2}}
        )


@pytest.mark.parametrize(
    ("findings", "placed", "split", "expected"),
    [
        ({}, 0, 0, 0),
        ({"CC-REC-WEBSEARCH-COUNT-UNKNOWN": 2}, 2, 0, 0),
        ({"CC-REC-WEBSEARCH-COUNT-UNKNOWN": 2}, 1, 0, 1),
        ({"CC-REC-WEBSEARCH-COUNT-UNKNOWN": 1}, 3, 0, 0),
        ({"CC-TREE-SPLIT-SESSION": 2}, 0, 1, 1),
        ({"CC-REC-SERVER-TOOL-UNPRICED": 1, "CC-REC-AGENT-USAGE-DISAGREE": 2}, 0, 0, 3),
        ({"CC-REC-REPLAY": 4, "CC-REC-USAGE-INCOMPLETE": 9}, 0, 0, 0),
    ],
)
def test_unplaced_left_out(
    findings: dict[str, int], placed: int, split: int, expected: int
) -> None:
    assert unplaced_left_out(findings, placed, split) == expected


def test_every_reason_a_gate_is_open_is_said_at_once() -> None:
    """A FinOps reading: a workload with calls of no input said only EVAL-COST-UNBOUNDED; its
    fix (leave that bundle out) then showed a straddle of the other usage-incomplete calls no
    report had named. And EVAL-COST-LEFT-OUT said the limit was "met only without it" where
    the priced calls' high end missed it too: it now says met at low cost only."""
    stubs = make_task(0, 2, 12, incomplete=2, unbounded=1)  # one stub of no input, one other
    rest = [make_task(i) for i in (1, 2, 3)]
    ev = evaluate(make_workload([stubs, *rest]))
    said = [r.code for r in ev.reasons if r.check == "runtime-caps"]
    assert said == ["EVAL-COST-UNBOUNDED", "EVAL-GATE-INDETERMINATE"]
    assert "(each amount rounded to $0.0001 on its own; each total is the exact sum" in (
        render_text(ev)
    )
    # every usage-incomplete call recorded no input: leaving them out leaves no straddle
    alone = evaluate(make_workload([make_task(0, 2, 12, incomplete=1, unbounded=1), *rest]))
    assert [r.code for r in alone.reasons if r.check == "runtime-caps"] == ["EVAL-COST-UNBOUNDED"]
    left = evaluate(
        make_workload(
            [make_task(0, 2, 12, incomplete=1), *rest],
            findings={"CC-REC-WEBSEARCH-COUNT-UNKNOWN": 1},
        )
    )
    [reason] = [r for r in left.reasons if r.check == "runtime-caps" and r.left_out]
    assert reason.text().endswith(
        "the limit ($10.0000) is shown to be met only without it, and then only at low cost "
        "($2.0000; $12.0000 at high cost)"
    )
    assert [r.code for r in left.reasons if r.check == "runtime-caps"] == [
        "EVAL-COST-LEFT-OUT",
        "EVAL-GATE-INDETERMINATE",
    ]
    met = evaluate(
        make_workload(
            [make_task(0, 2, 3, incomplete=1), *rest],
            findings={"CC-REC-WEBSEARCH-COUNT-UNKNOWN": 1},
        )
    )
    [reason] = [r for r in met.reasons if r.check == "runtime-caps" and r.left_out]
    assert reason.text().endswith("is shown to be met only without it ($2.0000)")
    assert reason.high is None


def test_events_no_finding_counts_hold_the_gates_open_too() -> None:
    """A review: a bundle resealed without its finding of a final call of no input, claiming a
    version before the findings were held to their events (or made before the finding
    existed), decided SCALE while its task's row said `no bound`. The gates count such events
    too, where the findings count fewer."""
    tasks = [make_task(0, searches=1), *(make_task(i) for i in (1, 2, 3))]
    ev = evaluate(make_workload(tasks))
    assert ev.metrics.spend_left_out == 1
    assert ev.metrics.high_is_bound is False
    assert ev.decision == "INCOMPLETE"
    assert {r.code for r in ev.reasons} == {"EVAL-COST-LEFT-OUT"}
    said = next(r for r in ev.reasons if r.check == "runtime-caps").text()
    assert "1 event of the bundles (WebSearch calls of unknown count, calls final" in said
    assert "findings below" not in said  # none does (a docs review)
    stated = evaluate(make_workload(tasks, findings={"CC-REC-FINAL-NO-INPUT": 1}))
    assert stated.metrics.spend_left_out == 1  # the same event, counted once


# --- at_best while tasks are still to come --------------------------------------------------


def test_at_best_on_a_short_sample_counts_no_gate_more_tasks_could_pass() -> None:
    """An audit: "at best STOP" on a sample below min_tasks, and one more task decided SCALE.
    A review: with the sample-size gate disabled (it decides once enabled) it came back."""
    tasks = [make_task(0, value=0)]  # net value < 0: expected-net-value fails at both ends
    on = evaluate(make_workload(tasks, min_tasks=5))
    assert (on.decision, on.at_best) == ("INCOMPLETE", "SCALE")
    off = evaluate(make_workload(tasks, min_tasks=5, disabled_checks=("sample-size",)))
    assert (off.decision, off.at_best) == ("INCOMPLETE", "SCALE")
    assert "already failing" not in render_text(off)
    enough = evaluate(make_workload(tasks, min_tasks=1, disabled_checks=("acceptable-rate",)))
    assert (enough.decision, enough.at_best) == ("INCOMPLETE", "STOP")


def test_at_best_on_a_short_sample_keeps_the_gates_no_task_can_pass() -> None:
    """A maximum over tasks only grows; a rate whose limit is 1 never returns to it (a review:
    it was dropped, "at best SCALE" where no number of tasks could give it)."""
    tasks = [make_task(0), make_task(1, acceptable=False)]
    rate = evaluate(make_workload(tasks, min_tasks=5, min_acceptable_rate=Decimal(1)))
    assert (rate.decision, rate.at_best) == ("INCOMPLETE", "ASSIST")
    assert "already failing: acceptable-rate" in render_text(rate)
    caps = evaluate(make_workload([make_task(0)], min_tasks=5, max_calls_per_task=0))
    assert (caps.decision, caps.at_best) == ("INCOMPLETE", "ASSIST")


def test_at_best_with_a_split_sessions_part_missing_counts_no_gate_it_could_move() -> None:
    """The missing part may hold tasks of its own (a review)."""
    tasks = [make_task(0, value=0)]
    split = make_workload(tasks, min_tasks=1).model_copy(update={"split_parts_missing": 1})
    ev = evaluate(split)
    assert (ev.decision, ev.at_best) == ("INCOMPLETE", "SCALE")
