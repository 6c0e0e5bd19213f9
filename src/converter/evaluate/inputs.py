"""What the evaluation kernel reads: one workload of task facts under a policy and a baseline.

These models do not know how a bundle is laid out; an adapter builds a `Workload` from one or more
loaded bundles. Money, minutes and rates are `Decimal` (strict mode refuses a float); every string
is constrained, so nothing from a transcript can ride into a report.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, model_validator

from converter.contract.model import CheckId
from converter.contract.model import PublishedBaselineName as BaselineName
from converter.contract.model import PublishedLabel as Label
from converter.firewall.shapes import ArgShape
from converter.firewall.types import (
    Closed,
    Code,
    Count,
    ModelName,
    Pseudonym,
    PublicName,
    Sha256,
    Timestamp,
)
from converter.limits import money_sum
from converter.pricing.model import CardId, ContextKey
from converter.vocabulary import HIDDEN

NonNegative = Annotated[Decimal, Field(ge=0, allow_inf_nan=False)]
Signed = Annotated[Decimal, Field(allow_inf_nan=False)]
Rate = Annotated[Decimal, Field(ge=0, le=1, allow_inf_nan=False)]
# A content-free argument shape flattened to text (see `shape_key`).
# A count is any Count a bundle holds (int64: 19 digits), so what opens evaluates.
ShapeKey = Annotated[str, StringConstraints(pattern=r"^[a-z]{1,8}(:[a-z]=[0-9]{1,19}){0,6}$")]
# A limit a team's policy file may fix, by section and field name (schema names, never a value).
LimitField = Annotated[
    str, StringConstraints(pattern=r"^(policy|baseline|outcome_contract)/[a-z][a-z0-9_]{0,63}$")
]
# "main" (the root agent), "hidden:<kind>" (calls seen only in provider bodies, by kind), or a
# subagent type.
AgentTypeKey = PublicName

ROOT_AGENT = "main"
HIDDEN_CALLS = HIDDEN


def hidden_key(kind: str) -> str:
    """The cost split's key of one kind of hidden call: `hidden:title`, ..."""
    return f"{HIDDEN_CALLS}:{kind}"


def is_hidden(key: str) -> bool:
    """Whether a cost split's key is hidden calls' (of a kind), not an agent type's."""
    return key.startswith(HIDDEN_CALLS + ":")


class Interval(Closed):
    """A dollar amount known only between two bounds (usage-incomplete calls, SPEC §8.4)."""

    low: NonNegative
    high: NonNegative

    @model_validator(mode="after")
    def _ordered(self) -> Interval:
        if self.low > self.high:
            raise ValueError("interval low exceeds high")
        return self


ZERO = Interval(low=Decimal(0), high=Decimal(0))


class Policy(Closed):
    """Limits fixed before the evidence is seen (issue 3's field names)."""

    human_hourly_cost_usd: NonNegative
    min_acceptable_rate: Rate
    max_cost_per_acceptable_outcome_usd: NonNegative
    max_p95_task_cost_usd: NonNegative
    max_trace_cost_per_task_usd: NonNegative
    max_calls_per_task: Count
    min_expected_net_value_per_attempt_usd: Signed
    min_incremental_net_value_vs_baseline_usd: Signed
    repetition_warning_threshold: Count
    min_tasks: Count
    # A disabled gate keeps its coverage requirement: the decision becomes INCOMPLETE.
    disabled_checks: tuple[CheckId, ...] = ()


class Baseline(Closed):
    """The named alternative (a person, a script, another agent) the agent must beat."""

    name: BaselineName
    cost_per_attempt_usd: NonNegative
    acceptable_rate: Rate
    value_per_acceptable_outcome_usd: NonNegative


class Claims(Closed):
    """The contract's outcome claims for one task."""

    acceptable: bool
    business_value_usd: NonNegative
    human_minutes: NonNegative
    remediation_cost_usd: NonNegative
    incident_loss_usd: NonNegative


class TaskFacts(Closed):
    """One task's measured spend, counts, claims and the structure the diagnostics read."""

    id: Pseudonym
    spend: Interval  # model and tool spend
    model_calls: Count  # hidden calls included
    tool_calls: Count
    usage_incomplete_calls: Count
    # of those, calls that recorded no input: their cost's high end is no bound (checks.py)
    unbounded_calls: Count = 0
    claims: Claims
    cost_by_agent_type: dict[AgentTypeKey, Interval]
    cost_by_model: dict[ModelName, Interval]
    # the unbounded calls by the agent type and the model whose cost holds them (keys with
    # none left out): a row of either split holding one has no high end either
    unbounded_by_agent_type: dict[AgentTypeKey, Count] = Field(default_factory=dict)
    unbounded_by_model: dict[ModelName, Count] = Field(default_factory=dict)
    # Events of the task whose spend is partly in no cost (`vocabulary.LEFT_OUT_PLACED`): WebSearch
    # calls whose search count is unknown (a search each at least, priced on the call that
    # requested it) and calls recorded final with no input (their input). By the agent type,
    # and the model, whose cost lacks it: that cost, and the task's, has no high end either.
    left_out_by_agent_type: dict[AgentTypeKey, Count] = Field(default_factory=dict)
    left_out_by_model: dict[ModelName, Count] = Field(default_factory=dict)
    cache_read_tokens: Count
    input_tokens_total: Count  # input + cache read + cache write, over every model call
    tool_shapes: tuple[tuple[PublicName, ShapeKey], ...] = ()  # in call order
    edges: tuple[tuple[Pseudonym, Pseudonym], ...] = ()
    bundle: Count = 1  # its bundle's place among those given, from 1: where to look it up
    started_at: Timestamp | None = None  # as the bundle shows it (its privacy's precision)
    position: Count = 0  # its place in its bundle's task list (the template's order), from 0

    @model_validator(mode="after")
    def _consistent(self) -> TaskFacts:
        split = self.cost_by_agent_type.values()
        if (money_sum(i.low for i in split), money_sum(i.high for i in split)) != (
            self.spend.low,
            self.spend.high,
        ):
            raise ValueError("cost_by_agent_type does not add up to the task's spend")
        models = self.cost_by_model.values()
        if (
            money_sum(i.low for i in models) > self.spend.low
            or money_sum(i.high for i in models) > self.spend.high
        ):
            raise ValueError("cost_by_model exceeds the task's spend")
        if self.cache_read_tokens > self.input_tokens_total:
            raise ValueError("cache read tokens exceed total input tokens")
        for counts, costs in (
            (self.unbounded_by_agent_type, self.cost_by_agent_type),
            (self.unbounded_by_model, self.cost_by_model),
        ):
            if sum(counts.values()) != self.unbounded_calls or not counts.keys() <= costs.keys():
                raise ValueError("calls without input split other than the task's")
        if not self.left_out_by_agent_type.keys() <= self.cost_by_agent_type.keys():
            raise ValueError("spend left out split other than the task's")
        if not self.left_out_by_model.keys() <= self.cost_by_model.keys():
            raise ValueError("spend left out split other than the task's models")
        if sum(self.left_out_by_model.values()) > sum(self.left_out_by_agent_type.values()):
            raise ValueError("more events left out by model than by agent type")
        if sum(self.left_out_by_agent_type.values()) > self.tool_calls + self.model_calls:
            raise ValueError("more events left out than events")
        if self.unbounded_calls > self.usage_incomplete_calls:
            raise ValueError("more calls without input than usage-incomplete calls")
        if self.usage_incomplete_calls > self.model_calls:
            raise ValueError("more usage-incomplete calls than model calls")
        return self


class OwnPrice(Closed):
    """A price a bundle's contract chose, which the price card it names does not state: a
    model the card does not list (`context` None), or a billing context's multiplier. A report
    must not pass it off as the card's."""

    model: ModelName
    context: ContextKey | None = None


class OwnBound(Closed):
    """A model's max_output_tokens that a bundle's contract chose, which the shipped card it
    names states otherwise or not at all: the high end of the model's usage-incomplete calls
    that no request's max_tokens bounds."""

    model: ModelName
    max_output_tokens: Count


class Digests(Closed):
    """What the report shows so a reader can tie it to its evidence."""

    evidence_sha256: tuple[Sha256, ...]  # one per bundle, in the order given
    contract_sha256: tuple[Sha256, ...]  # one per bundle, in the order given
    # A card's id as a card may spell it (a leading digit, dots); "none" when no card was used,
    # "mixed" when bundles differ (then `price_card_ids` differ too).
    price_card_id: CardId
    price_card_ids: tuple[CardId, ...] = ()  # one per bundle, in the order given
    # The prices the contracts chose that no card named states (every bundle's, once each):
    # every model of a bundle with no card, or with a card this version does not ship.
    own_prices: tuple[OwnPrice, ...] = ()
    # The max_output_tokens the contracts chose that the card they name does not state, each
    # only where it set the high end of one of its bundle's calls.
    own_max_output_tokens: tuple[OwnBound, ...] = ()
    # The cards named that this version does not ship (a card file's id, one typed into the
    # contract, or a newer version's card): nothing here checked their prices.
    unshipped_price_cards: tuple[CardId, ...] = ()
    rubric_version: Label
    label_source: Label
    # The id of the key every bundle's attestation verified with (--public-key), or None when
    # no signature was checked: a report forwarded alone must say which it is.
    signed_by: Sha256 | None = None
    # The SHA-256 of the team's policy file every bundle was required to match (evaluate
    # --policy), or None when none was given: the limits are then whatever the bundles carry.
    limits_required_by: Sha256 | None = None
    # With a policy file: the limits it fixed, and those it left to the bundles (null or left
    # out in the file), by field path.
    limits_fixed: tuple[LimitField, ...] = ()
    limits_left: tuple[LimitField, ...] = ()


class Workload(Closed):
    """Everything one evaluation decides on; several bundles that agree make one workload."""

    tasks: tuple[TaskFacts, ...]
    excluded_tasks: Count
    policy: Policy
    baseline: Baseline
    auxiliary_calls: Literal["observed", "not-observed"]  # by every bundle
    # Each bundle's, in the order given (a task's `bundle` is its place, from 1): whether its
    # calls no transcript records were looked for. Empty: every bundle's is `auxiliary_calls`.
    auxiliary_by_bundle: tuple[Literal["observed", "not-observed"], ...] = ()
    findings: dict[Code, Count]  # the bundles' own finding counts
    # The same, each bundle's (its place, from 1): what the report lists. Empty: said summed.
    bundle_findings: tuple[tuple[Count, Code, Count], ...] = ()
    digests: Digests
    # Bundles that carry no prices (schema v1): their costs could not be priced again.
    costs_unchecked: Count = 0
    # Transcripts of split sessions (CC-TREE-SPLIT-SESSION: another project folder holds the
    # session's main transcript too) whose bundles are not in the workload: their spend is in
    # no cost (a walkthrough: one part's bundle decided SCALE on half the session's spend).
    split_parts_missing: Count = 0
    # Each bundle's findings of spend in no cost that no task's events show (its place, from 1;
    # `kernel.unplaced_left_out`): every task of that bundle has no high end. Empty: the
    # workload's, for every task.
    unplaced_left_out: tuple[Count, ...] = ()

    @model_validator(mode="after")
    def _unique_tasks(self) -> Workload:
        if len({t.id for t in self.tasks}) != len(self.tasks):
            raise ValueError("a task id appears twice in the workload")
        if self.unplaced_left_out and any(
            t.bundle > len(self.unplaced_left_out) for t in self.tasks
        ):
            raise ValueError("a task's bundle has no count of spend left out")
        return self


def shape_key(shape: ArgShape) -> str:
    """`ArgShape` → `ShapeKey`: kind, then the non-zero member counts (s n b z a o)."""
    counts = (
        ("s", shape.strings),
        ("n", shape.numbers),
        ("b", shape.booleans),
        ("z", shape.nulls),
        ("a", shape.arrays),
        ("o", shape.objects),
    )
    return shape.kind + "".join(f":{k}={v}" for k, v in counts if v)
