"""What an evaluation returns: closed, frozen, float-free models every renderer reads from."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    PlainSerializer,
    SerializerFunctionWrapHandler,
    field_serializer,
    model_validator,
)

from converter.contract.model import CheckId
from converter.errors import Exit
from converter.errors.codes import SPEND_LEFT_OUT
from converter.evaluate.fmt import JSON_MAX_PLACES, json_decimal, number, places_against
from converter.evaluate.inputs import (
    AgentTypeKey,
    Baseline,
    Digests,
    Interval,
    Policy,
)
from converter.firewall.types import (
    Closed,
    Code,
    Count,
    ModelName,
    Pseudonym,
    PublicName,
    Sha256,
    Timestamp,
    Version,
)
from converter.text import counted

# Decimals leave as strings; long quotients are rounded to 12 places (see fmt.py).
Dec = Annotated[Decimal, PlainSerializer(json_decimal, return_type=str, when_used="json")]
# A contract's claim restated as written, never rounded: no division made it (an audit: a
# claim of 1e-30 came out as 0.000000000000).
Claim = Annotated[
    Decimal, PlainSerializer(lambda v: format(v, "f"), return_type=str, when_used="json")
]
Decision = Literal["SCALE", "ASSIST", "STOP", "INCOMPLETE"]
Route = Literal["ASSIST", "STOP", "INCOMPLETE"]
Coverage = Literal[
    "outcome quality",
    "unit economics",
    "tail risk",
    "business value",
    "counterfactual",
    "runtime caps",
    "sample size",
]
Status = Literal["pass", "fail", "indeterminate", "disabled", "unavailable"]
MeasureName = Literal[
    "acceptable rate",
    "cost per acceptable outcome",
    "p95 task cost",
    "expected net value per attempt",
    "incremental net value vs baseline",
    "calls per task",
    "trace cost per task",
    "tasks",
]
Unit = Literal["usd", "rate", "count"]
Comparison = Literal["<=", ">="]
# Each gate's rule in words, as checks.py states it: fixed text, never a value.
Rule = Literal[
    "acceptable_tasks / tasks >= min_acceptable_rate",
    "total effective cost / acceptable_tasks <= max_cost_per_acceptable_outcome_usd",
    "nearest rank p95 of effective task cost <= max_p95_task_cost_usd",
    "mean over all tasks of business value if acceptable less effective cost "
    ">= min_expected_net_value_per_attempt_usd",
    "expected net value less baseline net value >= min_incremental_net_value_vs_baseline_usd",
    "max model and tool calls per task <= max_calls_per_task "
    "and max trace cost per task <= max_trace_cost_per_task_usd",
    "tasks >= min_tasks",
]

EXIT_OF: dict[Decision, Exit] = {
    "SCALE": Exit.OK,
    "INCOMPLETE": Exit.REFUSED,
    "ASSIST": Exit.ASSIST,
    "STOP": Exit.STOP,
}


class Span(Closed):
    low: Dec
    high: Dec


class Bounds(Closed):
    """A measure computed twice: with every task at its low cost, and at its high cost.

    `None` when it has no value (no tasks; no acceptable outcome to divide by).
    """

    at_low_cost: Dec | None
    at_high_cost: Dec | None

    def ordered(self) -> tuple[Decimal, Decimal] | None:
        if self.at_low_cost is None or self.at_high_cost is None:
            return None
        return min(self.at_low_cost, self.at_high_cost), max(self.at_low_cost, self.at_high_cost)


class TaskCost(Closed):
    id: Pseudonym
    acceptable: bool
    business_value_usd: Claim
    spend: Interval  # model and tool spend
    human_usd: Dec  # minutes × hourly cost / 60: a quotient
    remediation_usd: Claim
    incident_loss_usd: Claim
    effective: Span
    model_calls: Count
    tool_calls: Count
    usage_incomplete_calls: Count
    # Of those, the calls that recorded no input: its high end bounds their output only.
    unbounded_calls: Count = 0
    cost_by_agent_type: dict[AgentTypeKey, Interval]
    cost_by_model: dict[ModelName, Interval]
    # the unbounded calls in each agent type's and model's cost (none: not listed)
    unbounded_by_agent_type: dict[AgentTypeKey, Count] = Field(default_factory=dict)
    unbounded_by_model: dict[ModelName, Count] = Field(default_factory=dict)
    # Its events whose spend is partly in no cost (`TaskFacts`'): WebSearch calls whose search
    # count is unknown and calls recorded final with no input, by agent type and by model
    left_out_by_agent_type: dict[AgentTypeKey, Count] = Field(default_factory=dict)
    left_out_by_model: dict[ModelName, Count] = Field(default_factory=dict)
    # False when some of the task's spend may be in no cost: calls of it that recorded no
    # input, events of it whose spend is partly in no cost, or findings of its bundle that say
    # some spend is in no cost and that no task's events show (`Workload.unplaced_left_out`):
    # its `spend.high` and `effective.high` then bound nothing (reports say `no bound`; an
    # audit: a task's row gave a range while the workload's total said no bound)
    high_is_bound: bool = True
    cache_read_tokens: Count
    input_tokens_total: Count
    bundle: Count = 1  # its bundle's place among those given (the report's evidence digests)
    # When its prompt came, as its bundle shows it (the contract's timestamp precision): what
    # ties a row to the template's task list, whose ids are pseudonyms.
    started_at: Timestamp | None = None
    position: Count = 0  # its place in its bundle's task list, as the template listed them

    @property
    def calls(self) -> int:
        return self.model_calls + self.tool_calls


class Metrics(Closed):
    tasks: Count
    acceptable_tasks: Count
    acceptable_rate: Dec | None
    total_effective_cost: Span
    cost_per_acceptable_outcome: Bounds
    p95_task_cost: Bounds
    expected_net_value_per_attempt: Bounds
    baseline_net_value_per_attempt: Dec
    incremental_net_value_vs_baseline: Bounds
    max_calls_per_task: Count | None
    max_trace_cost_per_task: Bounds
    usage_incomplete_calls: Count
    # Of those, the calls that recorded no input: no high end above bounds their cost.
    unbounded_calls: Count = 0
    # Calls of a server tool no price covers (UNPRICED_SERVER_TOOLS, the bundles' finding): no
    # cost counts their requests, and which task's they are is not published.
    unpriced_calls: Count = 0
    # The bundles' other findings that some spend is in no cost (SPEND_LEFT_OUT_ELSE: a search
    # count unknown, a subagent cut short, agents run elsewhere, a final call with no input),
    # summed: every cost is a lower bound by an amount no file states.
    spend_left_out: Count = 0
    # Of them, the count of each code (CC-TREE-SPLIT-SESSION: the parts not in the workload);
    # events no finding counts (an older bundle's) are in `spend_left_out` only
    spend_left_out_by_code: dict[Code, Count] = Field(default_factory=dict)
    # False when any of the three above is not 0: every cost's high end (the total's, each
    # split's, each measure's at high cost) leaves that spend out and bounds nothing; the text
    # reports say `no bound` (a walkthrough: JSON gave a finite high, with no mark of it).
    high_is_bound: bool = True
    cache_read_tokens: Count
    input_tokens_total: Count
    cost_by_agent_type: dict[AgentTypeKey, Span]
    cost_by_model: dict[ModelName, Span]
    # the unbounded calls in each agent type's and model's cost (none: not listed)
    unbounded_by_agent_type: dict[AgentTypeKey, Count] = Field(default_factory=dict)
    unbounded_by_model: dict[ModelName, Count] = Field(default_factory=dict)
    # the tasks' events whose spend is partly in no cost, by agent type and by model
    left_out_by_agent_type: dict[AgentTypeKey, Count] = Field(default_factory=dict)
    left_out_by_model: dict[ModelName, Count] = Field(default_factory=dict)


class Measure(Closed):
    name: MeasureName
    unit: Unit
    observed: Bounds
    limit: Decimal
    comparison: Comparison
    passes_at_low_cost: bool
    passes_at_high_cost: bool = Field(
        description="false too where high_is_bound is false: the value at high cost "
        "(observed.at_high_cost, as priced) bounds nothing, so it is not shown to pass"
    )
    # False for a cost measure of a workload whose costs leave some spend out (calls that
    # recorded no input, an unpriced server tool's requests, findings of spend in no cost:
    # Metrics.high_is_bound): its value at high cost bounds nothing (`checks._unbounded`)
    high_is_bound: bool = True

    @field_serializer("limit", when_used="json")
    def _limit(self, limit: Decimal) -> str:
        return format(limit, "f")  # the policy's value, every place of it: never rounded

    @field_serializer("observed", when_used="json")
    def _observed(self, observed: Bounds) -> dict[str, str | None]:
        places = _json_places(self.limit, (observed.at_low_cost, observed.at_high_cost), self.unit)
        return {
            "at_low_cost": json_decimal(observed.at_low_cost, places),
            "at_high_cost": json_decimal(observed.at_high_cost, places),
        }


def _json_places(limit: Decimal, values: tuple[Decimal | None, ...], unit: str | None) -> int:
    """Places for values compared with a limit in JSON: rounded as every long quotient is
    (fmt.py), but never past the limit: a value that twelve places would show on the other
    side keeps the places that tell it."""
    known = [v for v in values if v is not None]
    return max(JSON_MAX_PLACES, places_against(limit, known, unit))


class CheckInfo(Closed):
    id: CheckId
    version: Version
    coverage: Coverage
    route: Route
    rule: Rule


class GateResult(Closed):
    check: CheckInfo
    status: Status
    measures: tuple[Measure, ...]

    @property
    def fails_at_both_ends(self) -> bool:
        """Its measures fail at the low cost and at the high one: a failed gate, or a disabled
        one that would fail whatever the unknowns are (measured all the same)."""
        return bool(self.measures) and passes_at_ends(self.measures) == (False, False)


def passes_at_ends(measures: tuple[Measure, ...]) -> tuple[bool, bool]:
    """Whether every measure passes at the low cost, and at the high one."""
    return (
        all(m.passes_at_low_cost for m in measures),
        all(m.passes_at_high_cost for m in measures),
    )


# The bundle finding that counts calls of a server tool no price covers (errors/codes.py): every
# cost of a workload holding one is a lower bound (checks.evaluate, EVAL-COST-UNPRICED).
UNPRICED_SERVER_TOOLS = "CC-REC-SERVER-TOOL-UNPRICED"
# The finding that counts a session's other transcripts in other project folders: its spend is
# in no cost of the workload unless their bundles are in it too (`Workload.split_parts_missing`).
SPLIT_SESSION = "CC-TREE-SPLIT-SESSION"
# The other findings that say some spend is in no cost (errors/codes.py SPEND_LEFT_OUT): with
# any, every cost of the workload is a lower bound too (EVAL-COST-LEFT-OUT).
SPEND_LEFT_OUT_ELSE = SPEND_LEFT_OUT - {UNPRICED_SERVER_TOOLS, SPLIT_SESSION}


class Reason(Closed):
    """Why the decision is INCOMPLETE, as data; `text()` renders the one sentence."""

    code: Code
    coverage: Coverage
    check: CheckId | None = None
    measure: MeasureName | None = None
    unit: Unit | None = None
    usage_incomplete_calls: Count | None = None
    unpriced_calls: Count | None = None  # EVAL-COST-UNPRICED: calls of an unpriced server tool
    left_out: Count | None = None  # EVAL-COST-LEFT-OUT: the findings that say spend is in no cost
    # EVAL-COST-LEFT-OUT: their codes (a FinOps reading: five causes were listed, one applied)
    left_out_codes: tuple[Code, ...] = ()
    low: Decimal | None = None
    high: Decimal | None = None
    limit: Decimal | None = None

    @field_serializer("limit", when_used="json")
    def _limit(self, limit: Decimal | None) -> str | None:
        return None if limit is None else format(limit, "f")  # the policy's, whole

    @field_serializer("low", "high", when_used="json")
    def _bound(self, value: Decimal | None) -> str | None:
        if value is None or self.limit is None:
            return json_decimal(value)
        return json_decimal(value, _json_places(self.limit, (self.low, self.high), self.unit))

    def text(self) -> str:
        where = self.check or self.coverage
        if self.code == "EVAL-GATE-MISSING":
            return f"no gate in the check set covers {self.coverage}"
        if self.code == "EVAL-GATE-DISABLED":
            return f"{where} is disabled by the policy; {self.coverage} is still required"
        if self.code == "EVAL-GATE-UNAVAILABLE":
            return f"{where} cannot be computed: the workload has no tasks"
        if self.code == "EVAL-SAMPLE-TOO-SMALL":
            tasks = counted(int(self.low or 0), "task")
            return f"{where}: {tasks}, policy minimum {number(self.limit, 'count')}"
        calls = self.usage_incomplete_calls or 0
        verb = "leaves" if calls == 1 else "leave"
        bounds = [b for b in (self.low, self.high) if b is not None]
        places = None if self.limit is None else places_against(self.limit, bounds, self.unit)
        # UNPRICED and LEFT-OUT: `high` given only where the priced calls' high end misses the
        # limit too (a FinOps reading: "met only without it" read as met at either end)
        met = (
            f"the limit ({number(self.limit, self.unit, places)}) is shown to be met only "
            "without {it}"
            + (
                f", and then only at low cost ({number(self.low, self.unit, places)}; "
                f"{number(self.high, self.unit, places)} at high cost)"
                if self.high is not None
                else f" ({number(self.low, self.unit, places)})"
            )
        )
        if self.code == "EVAL-COST-UNPRICED":
            unpriced = self.unpriced_calls or 0
            return (
                f"{where}: {counted(unpriced, 'model call')} used a server tool no price "
                f"covers (CC-REC-SERVER-TOOL-UNPRICED), so the {self.measure} counts none of "
                f"{'its' if unpriced == 1 else 'their'} requests: " + met.format(it="them")
            )
        if self.code == "EVAL-COST-LEFT-OUT":
            left = self.left_out or 0
            if not self.left_out_codes:  # events alone: an older bundle's, no finding counts
                return (
                    f"{where}: {counted(left, 'event')} of the bundles (WebSearch calls of "
                    "unknown count, calls final with no input, that no finding of theirs "
                    "counts: an older version's bundles) leave some spend in no cost, so the "
                    f"{self.measure} counts none of it: " + met.format(it="it")
                )
            return (
                f"{where}: {counted(left, 'finding')} of the bundles "
                f"{'says' if left == 1 else 'say'} some spend is in no cost "
                f"({', '.join(self.left_out_codes)}: the findings below name each and its "
                f"bundle), so the {self.measure} counts none of it: " + met.format(it="it")
            )
        if self.code == "EVAL-COST-UNBOUNDED":
            them = "its" if calls == 1 else "their"
            return (
                f"{where}: {counted(calls, 'usage-incomplete call')} recorded no input, so "
                f"{them} cost has no high end: the {self.measure} at high cost has no bound "
                f"({number(self.high, self.unit, places)} counts none of {them} input), and "
                f"the limit "
                f"({number(self.limit, self.unit, places)}) is shown to be met only at low cost "
                f"({number(self.low, self.unit, places)})"
            )
        return (
            f"{where}: {counted(calls, 'usage-incomplete call')} {verb} the {self.measure} between "
            f"{number(self.low, self.unit, places)} and {number(self.high, self.unit, places)} "
            f"(limit {number(self.limit, self.unit, places)})"
        )


class Finding(Closed):
    """A diagnostic or evidence-completeness fact. It never routes the decision."""

    code: Code
    count: Count
    task: Pseudonym | None = None
    subject: PublicName | None = None  # the tool of a repeated shape
    extent: Count | None = None  # longest run, or largest cycle
    bundle: Count | None = None  # a bundle's own finding: the bundle's place, from 1


class DiagnosticInfo(Closed):
    id: Literal["repeated-tool-shapes", "dependency-cycles", "evidence-completeness"]
    version: Version


class Evaluation(Closed):
    report_version: Literal["1"] = "1"
    decision: Decision
    exit_code: int
    # The best decision the workload can still reach: the decision itself, or for INCOMPLETE
    # the one its gates that fail whatever the unknowns are route to, a disabled gate's
    # included (it decides once enabled); SCALE when none does (`checks.failing_whatever_comes`:
    # on a sample too small, only the runtime caps).
    at_best: Decision
    reasons: tuple[Reason, ...]
    gates: tuple[GateResult, ...]
    required_coverage: tuple[Coverage, ...]
    decision_contract_sha256: Sha256
    diagnostics: tuple[DiagnosticInfo, ...]
    findings: tuple[Finding, ...]
    metrics: Metrics
    tasks: tuple[TaskCost, ...]  # sorted by id: the report does not depend on input order
    excluded_tasks: Count
    auxiliary_calls: Literal["observed", "not-observed"]
    auxiliary_by_bundle: tuple[Literal["observed", "not-observed"], ...] = ()  # `Workload`'s
    policy: Policy
    baseline: Baseline
    digests: Digests

    # Unannotated return: pydantic then keeps `Metrics`' own JSON schema for the field.
    @field_serializer("metrics", mode="wrap", when_used="json")
    def _metrics(self, metrics: Metrics, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        """Each measure a gate compares with a limit, with the places its gate's `observed`
        takes (`_json_places`): twelve places put a value of more on the other side of its
        limit (an audit: `metrics.acceptable_rate` 0.333333333333 beside a gate passing at
        limit 0.33333333333333333333), where the gate's own figure keeps the places."""
        out: dict[str, Any] = handler(metrics)
        p = self.policy
        limits: dict[str, tuple[Decimal, Unit]] = {
            "cost_per_acceptable_outcome": (p.max_cost_per_acceptable_outcome_usd, "usd"),
            "p95_task_cost": (p.max_p95_task_cost_usd, "usd"),
            "expected_net_value_per_attempt": (p.min_expected_net_value_per_attempt_usd, "usd"),
            "incremental_net_value_vs_baseline": (
                p.min_incremental_net_value_vs_baseline_usd,
                "usd",
            ),
            "max_trace_cost_per_task": (p.max_trace_cost_per_task_usd, "usd"),
        }
        for name, (limit, unit) in limits.items():
            bounds: Bounds = getattr(metrics, name)
            ends = (bounds.at_low_cost, bounds.at_high_cost)
            places = _json_places(limit, ends, unit)
            out[name] = {
                "at_low_cost": json_decimal(bounds.at_low_cost, places),
                "at_high_cost": json_decimal(bounds.at_high_cost, places),
            }
        rate = metrics.acceptable_rate
        places = _json_places(p.min_acceptable_rate, (rate,), "rate")
        out["acceptable_rate"] = json_decimal(rate, places)
        return out

    @model_validator(mode="after")
    def _exit_is_the_decisions(self) -> Evaluation:
        """The exit code is the decision's (`EXIT_OF`), one fact in two fields (a code review:
        a property gave it again, beside the field, for tests only)."""
        if self.exit_code != EXIT_OF[self.decision]:
            raise ValueError("exit_code is not the decision's")
        return self


class PrintedReason(Reason):
    """A reason as `evaluate --format json` prints it: its data, its sentence and the fix the
    catalogue gives its code (both fixed text of this program, never an input's)."""

    text_: str = Field(alias="text")
    fix: str


class PrintedEvaluation(Evaluation):
    """What `evaluate --format json` prints (`report.render_json`); contracts/
    evaluation.schema.json is made from it."""

    reasons: tuple[PrintedReason, ...]
