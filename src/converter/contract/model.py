"""The conversion contract's shape (SPEC §7). One model serves template and completed contract:
claims are Optional so the template can hold `null`; `validate.py` refuses any null left."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from converter.firewall.types import (
    Closed,
    ContextValue,
    Count,
    KeyId,
    ModelName,
    Money,
    NonNegativeMoney,
    Pseudonym,
    PublicName,
    Rate,
    Sha256,
    Version,
)
from converter.firewall.view import BoundFile, Counts, Finding, Task
from converter.pricing.model import ContextKey, PricingTemplate
from converter.vocabulary import SourceName, TaskUnit, TimestampPrecision

CONTRACT_SCHEMA: Literal["agent-evidence/conversion-contract/v1"] = (
    "agent-evidence/conversion-contract/v1"
)
# The labels a contract's author types (rubric version, label source, the baseline's name) are
# published as typed, in the bundle and every report: one identifier-like word, bounded, with no
# space and no slash, so no phrase or path fits (a host name still would: the docs say not to).
LABEL_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,63}$"
BASELINE_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$"
Label = Annotated[str, StringConstraints(pattern=LABEL_PATTERN)]
BaselineName = Annotated[str, StringConstraints(pattern=BASELINE_NAME_PATTERN)]
# The same labels as a bundle may carry them: 0.2.0 contracts took spaces (and slashes in the
# first two), and a bundle already written still opens.
PublishedLabel = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9 _.:/+-]{0,63}$")]
PublishedBaselineName = Annotated[
    str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9 _.:-]{0,63}$")
]
# A gate id as a policy names it. The model takes any id of this shape, so a bundle written
# before the list below existed still opens; `contract.validate.unknown_checks` refuses an id
# that is not in it when a contract is converted.
CheckName = Annotated[str, StringConstraints(pattern=r"^[a-z0-9-]{1,40}$")]
# The gates `evaluate` runs (SPEC §10), by id: what a policy may disable.
CheckId = Literal[
    "acceptable-rate",
    "cost-per-acceptable-outcome",
    "p95-task-cost",
    "expected-net-value",
    "incremental-net-value",
    "runtime-caps",
    "sample-size",
]
NonNegative = NonNegativeMoney
ExclusionReason = Literal["not-an-attempt", "duplicate", "aborted"]
CacheBucket = Literal[
    "input", "output", "cache_read", "cache_write_5m", "cache_write_1h", "cache_write_unsplit"
]


class Source(Closed):
    adapter: SourceName
    adapter_version: Literal["1"]
    task_unit: TaskUnit


class Inventory(Closed):
    files: tuple[BoundFile, ...]
    counts: Counts
    hidden_calls: Count = 0
    claude_code_versions: tuple[Version, ...]
    findings: tuple[Finding, ...]
    inventory_sha256: Sha256


class ObservedModel(Closed):
    model: ModelName
    contexts: tuple[ContextKey, ...]
    cache_buckets: tuple[CacheBucket, ...]
    usage_incomplete_calls: Count


class Observed(Closed):
    models: tuple[ObservedModel, ...]
    server_tools: tuple[Literal["web_search"], ...]
    client_tools: tuple[PublicName, ...]


class OutcomeClaim(Closed):
    acceptable: bool | None = Field(
        default=None, description="Whether the task's outcome met your rubric."
    )
    business_value_usd: NonNegative | None = Field(
        default=None,
        description="What the outcome is worth to you, USD, counted only when acceptable.",
    )
    human_minutes: NonNegative | None = Field(
        default=None,
        description="Minutes people spent on the task (prompting, review), priced at policy.human_hourly_cost_usd.",
    )
    remediation_cost_usd: NonNegative | None = Field(
        default=None, description="USD spent fixing what the task got wrong."
    )
    incident_loss_usd: NonNegative | None = Field(
        default=None, description="USD lost to incidents the task caused."
    )


class OutcomeContract(Closed):
    rubric_version: Label | None = Field(
        default=None,
        description="A one-word label for the rubric the outcomes were judged by; published.",
    )
    label_source: Label | None = Field(
        default=None,
        description="A one-word label for who or what labelled the outcomes; published.",
    )


class BaselineClaim(Closed):
    name: BaselineName | None = Field(
        default=None,
        description="A one-word label for what the agent is compared with (e.g. manual-fix); published.",
    )
    cost_per_attempt_usd: NonNegative | None = Field(
        default=None, description="What one baseline attempt costs, USD."
    )
    acceptable_rate: Rate | None = Field(
        default=None, description="The share of baseline attempts that are acceptable, 0 to 1."
    )
    value_per_acceptable_outcome_usd: NonNegative | None = Field(
        default=None, description="What one acceptable baseline outcome is worth, USD."
    )


class PublishedBaseline(BaselineClaim):
    """The baseline as a bundle carries it (its name as 0.2.0 took it)."""

    name: PublishedBaselineName | None = None


class PolicyClaim(Closed):
    human_hourly_cost_usd: NonNegative | None = Field(
        default=None, description="What an hour of human_minutes costs, USD."
    )
    min_acceptable_rate: Rate | None = Field(
        default=None,
        description="Gate acceptable-rate (fails to ASSIST): least share of acceptable tasks, 0 to 1.",
    )
    max_cost_per_acceptable_outcome_usd: NonNegative | None = Field(
        default=None,
        description="Gate cost-per-acceptable-outcome (ASSIST): most total effective cost / acceptable tasks, USD.",
    )
    max_p95_task_cost_usd: NonNegative | None = Field(
        default=None,
        description="Gate p95-task-cost (ASSIST): most nearest-rank p95 effective task cost, USD.",
    )
    max_trace_cost_per_task_usd: NonNegative | None = Field(
        default=None,
        description="Gate runtime-caps (ASSIST): most model and tool spend of any one task, USD.",
    )
    max_calls_per_task: Count | None = Field(
        default=None,
        description="Gate runtime-caps (ASSIST): most model and tool calls of any one task.",
    )
    min_expected_net_value_per_attempt_usd: Money | None = Field(
        default=None,
        description="Gate expected-net-value (STOP): least mean of (business value if acceptable) - effective cost, USD.",
    )
    min_incremental_net_value_vs_baseline_usd: Money | None = Field(
        default=None,
        description="Gate incremental-net-value (STOP): least expected net value - the baseline's (acceptable_rate x value - cost per attempt), USD.",
    )
    repetition_warning_threshold: Count | None = Field(
        default=None,
        description="A finding (never a route) when one tool is called with the same argument shape more times in a row.",
    )
    min_tasks: Count | None = Field(
        default=None,
        description="Gate sample-size (INCOMPLETE): least labelled tasks in the workload.",
    )
    # Optional: gates the user turns off. A disabled gate makes the decision INCOMPLETE.
    disabled_checks: tuple[CheckName, ...] = ()


class Privacy(Closed):
    reveal_names: tuple[PublicName, ...] = ()
    timestamps: TimestampPrecision = "exact"


class Claims(Closed):
    outcomes: dict[Pseudonym, OutcomeClaim]
    excluded_tasks: dict[Pseudonym, ExclusionReason | None] = Field(default_factory=dict)
    outcome_contract: OutcomeContract
    pricing: PricingTemplate
    baseline: BaselineClaim
    policy: PolicyClaim
    privacy: Privacy = Privacy()


class Preset(Closed):
    """Claims a team fixes once for every session (`convert --template --policy FILE`): the
    policy, the baseline and the outcome contract, each left out or given with the fields it
    fixes (the rest of a carried section is kept)."""

    policy: PolicyClaim | None = None
    baseline: BaselineClaim | None = None
    outcome_contract: OutcomeContract | None = None


class SourceOwned(Closed):
    """The part of a contract the tool writes and the user never edits."""

    schema_version: Literal["agent-evidence/conversion-contract/v1"]
    source: Source
    key_id: KeyId
    inventory: Inventory
    tasks: tuple[Task, ...]
    observed: Observed


class Contract(SourceOwned):
    claims: Claims


__all__ = ["ContextValue", "Contract"]
