"""Properties of the decision: order-free, monotone in cost, float-free reports."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from converter.evaluate import TaskFacts, Workload, evaluate, render_json, render_markdown
from tests.test_evaluate import make_task, make_workload

# Better decisions rank higher; INCOMPLETE is apart (cost cannot cause it without intervals).
RANK = {"STOP": 0, "ASSIST": 1, "SCALE": 2}

money = st.decimals(min_value=0, max_value=40, places=2)


@st.composite
def task_specs(draw: st.DrawFn) -> list[dict[str, Any]]:
    count = draw(st.integers(min_value=0, max_value=8))
    return [
        {
            "low": draw(money),
            "acceptable": draw(st.booleans()),
            "value": draw(st.decimals(min_value=0, max_value=60, places=2)),
            "minutes": draw(st.integers(min_value=0, max_value=20)),
            "remediation": draw(money),
            "model_calls": draw(st.integers(min_value=1, max_value=40)),
            "tool_calls": draw(st.integers(min_value=0, max_value=30)),
        }
        for _ in range(count)
    ]


def build(specs: list[dict[str, Any]], widen: Decimal = Decimal(0)) -> Workload:
    tasks: list[TaskFacts] = []
    for i, spec in enumerate(specs):
        high = spec["low"] + widen * (i % 2)
        incomplete = 1 if high != spec["low"] else 0
        tasks.append(make_task(i, high=high, incomplete=incomplete, **spec))
    return make_workload(tasks, min_tasks=1)


@given(task_specs(), st.randoms(use_true_random=False), st.sampled_from([Decimal(0), Decimal(3)]))
def test_property_decision_is_invariant_under_task_order(
    specs: list[dict[str, Any]], rnd: Any, widen: Decimal
) -> None:
    workload = build(specs, widen)
    shuffled = list(workload.tasks)
    rnd.shuffle(shuffled)
    again = workload.model_copy(update={"tasks": tuple(shuffled)})
    first, second = evaluate(workload), evaluate(again)
    assert first.decision == second.decision
    assert render_json(first) == render_json(second)
    assert render_markdown(first) == render_markdown(second)


@given(
    task_specs().filter(bool),
    st.data(),
    st.sampled_from(["low", "minutes", "remediation"]),
    st.decimals(min_value="0.01", max_value=50, places=2),
)
def test_property_raising_a_cost_never_improves_the_decision(
    specs: list[dict[str, Any]], data: st.DataObject, field: str, raise_by: Decimal
) -> None:
    before = evaluate(build(specs)).decision
    index = data.draw(st.integers(min_value=0, max_value=len(specs) - 1))
    raised = [dict(s) for s in specs]
    raised[index][field] += raise_by if field != "minutes" else int(raise_by) + 1
    after = evaluate(build(raised)).decision
    if before == "INCOMPLETE":
        assert after == "INCOMPLETE"
    else:
        assert after != "INCOMPLETE"
        assert RANK[after] <= RANK[before]
    if before == "ASSIST":
        assert after != "SCALE"


def _no_float(text: str) -> Any:
    raise AssertionError(f"float in JSON report: {text}")


def _no_constant(text: str) -> Any:
    raise AssertionError(f"non-finite constant in JSON report: {text}")


@given(task_specs(), st.sampled_from([Decimal(0), Decimal("0.37")]))
def test_property_json_report_has_no_float(specs: list[dict[str, Any]], widen: Decimal) -> None:
    text = render_json(evaluate(build(specs, widen)))
    json.loads(text, parse_float=_no_float, parse_constant=_no_constant)


@given(task_specs(), st.sampled_from([Decimal(0), Decimal(3)]))
def test_property_at_best_is_a_decision_the_unknowns_can_still_reach(
    specs: list[dict[str, Any]], widen: Decimal
) -> None:
    """`at_best` is the decision itself when decided; for INCOMPLETE, no better than what its
    gates that fail at both ends route to, and every task priced at its low end (the unknowns
    resolved in the workload's favour) decides no better than it. (`build` has min_tasks 1 and
    no split: every task is in, or none, when no gate is measured. While tasks are still to
    come, only the gates no task can pass count: tests/test_evaluate.py's at_best cases.)"""
    ev = evaluate(build(specs, widen))
    if ev.decision != "INCOMPLETE":
        assert ev.at_best == ev.decision
        return
    failing = {g.check.route for g in ev.gates if g.status == "fail"}
    assert RANK[ev.at_best] <= min((RANK[r] for r in failing if r in RANK), default=RANK["SCALE"])
    best = evaluate(build(specs, Decimal(0)))  # every interval closed at its low end
    if best.decision != "INCOMPLETE":
        assert RANK[best.decision] <= RANK[ev.at_best]
