"""From loaded bundles to one evaluation workload (the adapter between stages 4 and 5).

Several bundles are one workload only when their policy, baseline, price card and rubric agree
(SPEC §10); anything else is refused rather than averaged.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal

from pydantic import ValidationError

from converter.bundle.model import BundleHead, ModelEventOut, ToolEventOut
from converter.errors import Problem, Refused
from converter.evaluate import (
    ROOT_AGENT,
    Baseline,
    Claims,
    Digests,
    Interval,
    Policy,
    TaskFacts,
    Workload,
    shape_key,
)
from converter.firewall.view import Edge

ZERO = Decimal(0)
_RESERVED = {ROOT_AGENT, "hidden"}


def _agreement_key(bundle: BundleHead) -> tuple[object, ...]:
    card = bundle.receipt.price_card.id if bundle.receipt.price_card else None
    return (bundle.policy, bundle.baseline, card, bundle.receipt.rubric_version)


def _agent_types(bundle: BundleHead) -> dict[str, str]:
    types = {}
    for agent in bundle.agents:
        name = agent.agent_type
        if agent.kind == "root":
            name = ROOT_AGENT
        elif name in _RESERVED:
            name = f"agent-{name}"
        types[agent.id] = name
    return types


class _Task:
    def __init__(self) -> None:
        self.low = ZERO
        self.high = ZERO
        self.by_type: dict[str, list[Decimal]] = defaultdict(lambda: [ZERO, ZERO])
        self.by_model: dict[str, list[Decimal]] = defaultdict(lambda: [ZERO, ZERO])
        self.model_calls = 0
        self.tool_calls = 0
        self.incomplete = 0
        self.cache_read = 0
        self.input_total = 0
        self.shapes: list[tuple[str, str]] = []

    def add(self, event: ModelEventOut | ToolEventOut, agent_type: str) -> None:
        low, high = event.cost.low, event.cost.high
        self.low += low
        self.high += high
        self.by_type[agent_type][0] += low
        self.by_type[agent_type][1] += high
        if isinstance(event, ToolEventOut):
            self.tool_calls += 1
            self.shapes.append((event.name, shape_key(event.shape)))
            return
        u = event.usage
        self.model_calls += 1
        self.incomplete += not event.usage_complete
        self.by_model[event.model][0] += low
        self.by_model[event.model][1] += high
        self.cache_read += u.cache_read_input_tokens
        self.input_total += (
            u.input_tokens
            + u.cache_read_input_tokens
            + u.cache_creation_5m_input_tokens
            + u.cache_creation_1h_input_tokens
            + u.cache_creation_unsplit_input_tokens
        )


def _interval(pair: list[Decimal]) -> Interval:
    return Interval(low=pair[0], high=pair[1])


class FactsBuilder:
    """A `BundleSink`: one bundle's task facts, built as its events and edges stream past."""

    def __init__(self) -> None:
        self.head: BundleHead | None = None
        self.types: dict[str, str] = {}
        self.tasks: dict[str, _Task] = {}
        self.owner: dict[str, str] = {}  # event id -> task id, for the task's own edges
        self.edges: dict[str, list[tuple[str, str]]] = defaultdict(list)

    def start(self, head: BundleHead) -> None:
        self.head = head
        self.types = _agent_types(head)
        excluded = {e.task for e in head.excluded_tasks}
        self.tasks = {t.id: _Task() for t in head.tasks if t.id not in excluded}

    def event(self, event: ModelEventOut | ToolEventOut) -> None:
        if event.task in self.tasks:
            self.tasks[event.task].add(event, self.types.get(event.agent, ROOT_AGENT))
            self.owner[event.id] = event.task

    def edge(self, edge: Edge) -> None:
        task = self.owner.get(edge.source)
        if task is not None and self.owner.get(edge.target) == task:
            self.edges[task].append((edge.source, edge.target))

    def facts(self) -> list[TaskFacts]:
        assert self.head is not None
        facts = []
        for task_id, acc in self.tasks.items():
            outcome = self.head.outcomes.get(task_id)
            if outcome is None:  # `open_bundle` refuses this first; never a KeyError (exit 70)
                index = [t.id for t in self.head.tasks].index(task_id)
                raise Refused([Problem("BUNDLE-OUTCOME-MISMATCH", where=f"tasks/{index}/id")])
            facts.append(
                TaskFacts(
                    id=task_id,
                    spend=Interval(low=acc.low, high=acc.high),
                    model_calls=acc.model_calls,
                    tool_calls=acc.tool_calls,
                    usage_incomplete_calls=acc.incomplete,
                    claims=Claims.model_validate(outcome.model_dump()),
                    cost_by_agent_type={k: _interval(v) for k, v in sorted(acc.by_type.items())},
                    cost_by_model={k: _interval(v) for k, v in sorted(acc.by_model.items())},
                    cache_read_tokens=acc.cache_read,
                    input_tokens_total=acc.input_total,
                    tool_shapes=tuple(acc.shapes),
                    edges=tuple(self.edges[task_id]),
                )
            )
        return facts


LoadedBundle = tuple[BundleHead, FactsBuilder]


def build_workload(loaded: list[LoadedBundle]) -> Workload:
    """One workload from bundles opened with a `FactsBuilder` each (`bundle.io.open_bundle`)."""
    if not loaded:
        raise Refused([Problem("EVAL-NO-BUNDLE")])
    bundles = [head for head, _ in loaded]
    first = bundles[0]
    if any(_agreement_key(b) != _agreement_key(first) for b in bundles[1:]):
        raise Refused([Problem("EVAL-WORKLOAD-MISMATCH")])
    task_ids = [t.id for b in bundles for t in b.tasks]
    if len(set(task_ids)) != len(task_ids):
        raise Refused([Problem("EVAL-DUPLICATE-TASK")])
    findings: dict[str, int] = defaultdict(int)
    for bundle in bundles:
        for finding in bundle.receipt.findings:
            findings[finding.code] += finding.count
    receipt = first.receipt
    try:
        return Workload(
            tasks=tuple(t for _, builder in loaded for t in builder.facts()),
            excluded_tasks=sum(len(b.excluded_tasks) for b in bundles),
            policy=Policy.model_validate(first.policy.model_dump()),
            baseline=Baseline.model_validate(first.baseline.model_dump()),
            auxiliary_calls=(
                "observed"
                if all(b.receipt.auxiliary_calls == "observed" for b in bundles)
                else "not-observed"
            ),
            findings=dict(sorted(findings.items())),
            digests=Digests(
                evidence_sha256=tuple(b.receipt.evidence_sha256 or "" for b in bundles),
                contract_sha256=tuple(b.receipt.contract_sha256 for b in bundles),
                price_card_id=receipt.price_card.id if receipt.price_card else "none",
                rubric_version=receipt.rubric_version,
                label_source=receipt.label_source,
            ),
        )
    except ValidationError:
        raise Refused([Problem("EVAL-BUNDLE-INCOMPLETE-CLAIMS")]) from None
