"""The bundle: everything a reviewer needs to recompute every cost, and nothing else."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, model_validator

from converter.contract.model import (
    ExclusionReason,
    OutcomeClaim,
    PolicyClaim,
    Privacy,
    PublishedBaseline,
    PublishedLabel,
)
from converter.firewall.shapes import ArgShape
from converter.firewall.types import (
    Closed,
    Count,
    KeyedDigest,
    KeyId,
    ModelName,
    Money,
    NonNegativeMoney,
    Pseudonym,
    PublicName,
    Sha256,
    Timestamp,
    Version,
)
from converter.firewall.view import (
    Agent,
    BillingContext,
    BoundFile,
    Counts,
    Edge,
    Finding,
    RequestedOutput,
    UsageTotals,
)
from converter.pricing.model import ContextKey, PriceCardRef, PricingClaims
from converter.vocabulary import SourceName, TaskUnit

# v2 (0.2) adds `pricing`; v1 bundles (0.1) still open, without it.
BUNDLE_SCHEMA: Literal["agent-evidence/bundle/v2"] = "agent-evidence/bundle/v2"


class Generator(Closed):
    name: Literal["agent-evidence"]
    version: Version


class Cost(Closed):
    low: NonNegativeMoney
    high: NonNegativeMoney

    @model_validator(mode="after")
    def _ordered(self) -> Cost:
        """An interval: a bundle whose low cost passes its high was not written by a conversion
        (v2's costs are priced again on opening; v1's can only be checked this far)."""
        if self.low > self.high:
            raise ValueError("cost.low is above cost.high")
        return self


class ModelPricingApplied(Closed):
    tier: Count
    tier_above_input_tokens: Count
    context: ContextKey
    context_multiplier: Money
    unsplit_cache_write_rule: Literal["5m", "1h"]
    # = recorded output for complete calls; otherwise the larger of it and the bound: the
    # request's max_tokens where the event gives one, else the model's max_output_tokens
    output_tokens_high: Count


class ModelEventOut(Closed):
    kind: Literal["model"]
    id: Pseudonym
    task: Pseudonym | None
    agent: Pseudonym
    model: ModelName
    timestamp: Timestamp | None
    usage: UsageTotals
    usage_complete: bool = Field(
        description="The call's status: whether its final usage was written (false: its cost "
        "is an interval). Its stop reason is not published."
    )
    context: BillingContext
    cost: Cost
    pricing: ModelPricingApplied
    request_max_tokens: RequestedOutput = None


class ToolEventOut(Closed):
    kind: Literal["tool"]
    id: Pseudonym
    task: Pseudonym | None
    agent: Pseudonym
    name: PublicName
    requested_by: Pseudonym = Field(
        description="The model event whose message holds this tool_use block; its timestamp is "
        "this call's (a tool event has no time of its own, nor one for its result)."
    )
    status: Literal["ok", "error", "no-result"]
    shape: ArgShape
    web_search_requests: Count
    cost: Cost


class TaskOut(Closed):
    id: Pseudonym
    input_digest: KeyedDigest
    rubric_version: PublishedLabel
    started_at: Timestamp | None
    model_calls: Count
    subagents: Count


class Excluded(Closed):
    task: Pseudonym
    reason: ExclusionReason


class Receipt(Closed):
    adapter: SourceName
    adapter_version: Literal["1"]
    task_unit: TaskUnit
    key_id: KeyId
    inventory_sha256: Sha256
    files: tuple[BoundFile, ...]
    contract_sha256: Sha256 = Field(
        description="HMAC-SHA256 of the contract's exact bytes under the pseudonym key (as "
        "inventory_sha256): a plain digest would confirm guesses at what the contract holds "
        "and the bundle does not show, such as exact task starts"
    )
    price_card: PriceCardRef | None
    rubric_version: PublishedLabel
    label_source: PublishedLabel
    counts: Counts
    hidden_calls: Count
    claude_code_versions: tuple[Version, ...]
    findings: tuple[Finding, ...]
    auxiliary_calls: Literal["observed", "not-observed"]
    privacy: Privacy
    evidence_sha256: Sha256 | None = None


BundleEvent = Annotated[ModelEventOut | ToolEventOut, Field(discriminator="kind")]
BULK_FIELDS = ("events", "edges")


class BundleHead(Closed):
    """A bundle without its two bulk fields (events, edges): what a reader keeps while the bulk
    is validated one item at a time (`bundle.io.open_bundle`)."""

    # `_pricing_in_v2`, as the published schema says it to a validator that is not this tool.
    model_config = ConfigDict(
        json_schema_extra={
            "if": {"properties": {"schema_version": {"const": BUNDLE_SCHEMA}}},
            "then": {
                "required": ["pricing"],
                "properties": {"pricing": {"type": "object"}},  # not null; its shape is above
            },
            "else": {"properties": {"pricing": {"type": "null"}}},
        }
    )

    schema_version: Literal["agent-evidence/bundle/v1", "agent-evidence/bundle/v2"]
    generator: Generator
    tasks: tuple[TaskOut, ...]
    agents: tuple[Agent, ...]
    outcomes: dict[Pseudonym, OutcomeClaim]
    excluded_tasks: tuple[Excluded, ...]
    baseline: PublishedBaseline
    policy: PolicyClaim
    # The contract's prices for what the events use, under the names they show (SPEC §8.6):
    # with each event's usage, tier and context, every cost can be recomputed by hand from the
    # bundle alone. Absent from bundles written before it existed.
    pricing: PricingClaims | None = None
    receipt: Receipt

    @model_validator(mode="after")
    def _pricing_in_v2(self) -> BundleHead:
        """v2 carries the prices its events use; a v2 bundle without them is not one."""
        if (self.schema_version == BUNDLE_SCHEMA) != (self.pricing is not None):
            raise ValueError("pricing is part of schema v2, and only of v2")
        return self


class Bundle(BundleHead):
    events: tuple[BundleEvent, ...]
    edges: tuple[Edge, ...]


__all__ = ["BULK_FIELDS", "Bundle", "BundleEvent", "BundleHead", "ModelName", "PublicName"]
