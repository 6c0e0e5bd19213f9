"""The content-free account of a session tree: the only shape reader results cross in.

Every field is typed from `firewall.types`; the models are closed and frozen, so a value that is
not a digest, pseudonym, count, allowed name, model id, version or timestamp cannot be stored.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, WithJsonSchema

from converter.firewall.shapes import ArgShape
from converter.firewall.types import (
    Closed,
    Code,
    ContextValue,
    Count,
    FileRole,
    KeyedDigest,
    KeyId,
    ModelName,
    Pseudonym,
    PublicName,
    Sha256,
    Timestamp,
    Version,
)
from converter.limits import MAX_REQUESTED_OUTPUT
from converter.vocabulary import HiddenAgentKind, TaskUnit

AgentKind = Literal[
    "root",
    "agent",
    "task",
    "workflow",
    "skill-fork",
    "compaction",
    "side",
    "sidechain",
    "warmup",  # Claude Code 2.0.x's start-up agent, with a task per session only
    # Calls only provider bodies show (SPEC §5.4), one agent per kind, agent type `hidden`.
    HiddenAgentKind,
]
EdgeKind = Literal["requests", "consumes", "delegates", "returns"]
ToolStatus = Literal["ok", "error", "no-result"]


class UsageTotals(Closed):
    input_tokens: Count = 0
    output_tokens: Count = 0
    cache_read_input_tokens: Count = 0
    cache_creation_5m_input_tokens: Count = 0
    cache_creation_1h_input_tokens: Count = 0
    cache_creation_unsplit_input_tokens: Count = 0
    web_search_requests: Count = 0
    web_fetch_requests: Count = 0

    def read(self) -> int:
        """Every input token the call read: uncached, from the cache and written to it. A call
        always reads some: a stub with none recorded its input before it was counted."""
        return (
            self.input_tokens
            + self.cache_read_input_tokens
            + self.cache_creation_5m_input_tokens
            + self.cache_creation_1h_input_tokens
            + self.cache_creation_unsplit_input_tokens
        )


def no_input_recorded(usage_complete: bool, usage: UsageTotals) -> bool:
    """A usage-incomplete call that recorded no input (CC-REC-USAGE-INCOMPLETE-NO-INPUT): its
    input is in neither end of its cost, so its high end bounds its output only."""
    return not usage_complete and not usage.read()


def final_no_input(usage_complete: bool, usage: UsageTotals) -> bool:
    """A call recorded final with no input (CC-REC-FINAL-NO-INPUT; a hidden call's too, from
    0.6.14): priced as written, its input is in no figure."""
    return usage_complete and not usage.read()


class BillingContext(Closed):
    service_tier: ContextValue | None = None
    speed: ContextValue | None = None
    inference_geo: ContextValue | None = None

    def key(self) -> str:
        """`tier|speed|geo`, each value as written, `absent` (None) or `empty` (""). Written
        out, not joined from a generator: pricing asks 78k times on the 200 MB bench tree."""
        tier, speed, geo = self.service_tier, self.speed, self.inference_geo
        return (
            f"{'absent' if tier is None else tier or 'empty'}"
            f"|{'absent' if speed is None else speed or 'empty'}"
            f"|{'absent' if geo is None else geo or 'empty'}"
        )


class BoundFile(Closed):
    role: FileRole
    label: Pseudonym
    size: Count
    sha256: Sha256


class Agent(Closed):
    id: Pseudonym
    parent: Pseudonym | None
    depth: Count
    kind: AgentKind
    agent_type: PublicName
    delegation: Pseudonym | None = None  # the tool event that spawned it


class Task(Closed):
    id: Pseudonym
    input_digest: KeyedDigest
    started_at: Timestamp | None
    model_calls: Count
    subagents: Count


def _absent(value: object) -> bool:
    return value is None


# The `max_tokens` of a usage-incomplete call's provider request, where one was read (a hidden
# call whose response is not final): the high end's output, in place of the contract's
# `max_output_tokens` (SPEC §8.4). Written only when there is one, so every other event, and
# every digest taken over events, is as it was before the field existed.
RequestedOutput = Annotated[
    Annotated[int, Field(ge=1, le=MAX_REQUESTED_OUTPUT)] | None,
    # as written: a count, or no key at all (a null is refused on opening: BUNDLE-HIDDEN-CALLS)
    WithJsonSchema({"type": "integer", "minimum": 1, "maximum": MAX_REQUESTED_OUTPUT}),
    Field(
        exclude_if=_absent,
        description="The max_tokens of the call's provider request, read for a usage-incomplete "
        "call: its high end's output, in place of the contract's max_output_tokens (SPEC §8.4). "
        "Absent when no request bounds it.",
    ),
]


class ModelEvent(Closed):
    id: Pseudonym
    task: Pseudonym | None
    agent: Pseudonym
    model: ModelName
    timestamp: Timestamp | None
    usage: UsageTotals
    usage_complete: bool
    context: BillingContext
    fragments: Count
    request_max_tokens: RequestedOutput = None


class ToolEvent(Closed):
    id: Pseudonym
    task: Pseudonym | None
    agent: Pseudonym
    name: PublicName
    requested_by: Pseudonym
    status: ToolStatus
    shape: ArgShape
    web_search_requests: Count = 0


class Edge(Closed):
    source: Pseudonym
    target: Pseudonym
    kind: EdgeKind


class Refusal(Closed):
    code: Code
    file: str | None = Field(default=None, pattern=r"^[a-z-]+/(file|agent|run)-[0-9a-f]{12}$")
    line: Count | None = None


class Finding(Closed):
    code: Code
    count: Count


class FindingPlace(Closed):
    """Where one of a finding's first few is (`inspect` only; a contract binds the counts)."""

    code: Code
    file: str = Field(pattern=r"^[a-z-]+/(file|agent|run)-[0-9a-f]{12}$")
    line: Count | None = None


class TreeCounts(Closed):
    """A tree's counts as `inspect` reports them (its bound files apart)."""

    transcript_files: Count
    meta_files: Count
    subagents: Count
    delegations_expanded: Count
    max_depth: Count
    tasks: Count
    model_calls: Count
    usage_incomplete_calls: Count
    tool_calls: Count
    edges: Count
    synthetic_records: Count


class Counts(TreeCounts):
    """The inventory's counts: a tree's, and the files bound."""

    bound_files: Count


class PublicAccount(Closed):
    key_id: KeyId
    task_unit: TaskUnit
    convertible: bool
    files: tuple[BoundFile, ...]
    agents: tuple[Agent, ...]
    tasks: tuple[Task, ...]
    model_events: tuple[ModelEvent, ...]
    tool_events: tuple[ToolEvent, ...]
    edges: tuple[Edge, ...]
    refusals: tuple[Refusal, ...]
    findings: tuple[Finding, ...]
    counts: Counts
    claude_code_versions: tuple[Version, ...]
    # Every call no transcript records was looked for in provider bodies (SPEC §4.8).
    auxiliary_calls: Literal["observed", "not-observed"] = "not-observed"


class ModelUsage(Closed):
    model: ModelName
    model_calls: Count
    usage: UsageTotals


class PublicSummary(Closed):
    """What `inspect` and `scan` show: the account's header and its usage summed per public model
    name and per public agent, without one public event per call (`boundary.summarize`)."""

    key_id: KeyId
    task_unit: TaskUnit
    convertible: bool
    agents: tuple[Agent, ...]
    refusals: tuple[Refusal, ...]
    findings: tuple[Finding, ...]
    counts: Counts
    claude_code_versions: tuple[Version, ...]
    usage: UsageTotals
    by_model: tuple[ModelUsage, ...]
    calls_by_agent: dict[Pseudonym, Count]
    # Files of the session folder counted and never opened, whose number says nothing of the
    # spend (persisted tool outputs, memory notes, a file browser's files): shown, not bound.
    not_read: tuple[Finding, ...] = ()
    # Where the first few of each finding are (`reader.model.PLACES_KEPT` per code), and the
    # codes that have more places than are named.
    finding_places: tuple[FindingPlace, ...] = ()
    more_places: tuple[Code, ...] = ()
    # Provider bodies bound (`--provider-bodies`: responses, and the folder's index), among the
    # bound files.
    provider_files: Count = 0
    # Every call no transcript records was looked for in them (PublicAccount's).
    auxiliary_calls: Literal["observed", "not-observed"] = "not-observed"
