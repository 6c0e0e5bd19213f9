"""The closed models of what `inspect --json` and `scan --json` print.

Their reports are built as plain objects from the firewall's summary (`inspection`, `scan`) and
checked against these models before anything is printed: every string is a code of the
catalogue, a keyed pseudonym, a model name as it crosses, a Claude Code version, a key id or an
exact decimal; every number a count. A builder that put anything else in (or misspelt a key)
fails the run as a bug (exit 70) rather than print it. `make schemas` publishes the models as
contracts/inspect.schema.json and contracts/scan.schema.json, for the scripts that read them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, StringConstraints, WithJsonSchema, model_validator

from converter.errors import CODES
from converter.firewall.types import (
    MODEL_ID,
    VERSION,
    Closed,
    Code,
    Count,
    KeyId,
    Pseudonym,
    PublicName,
    Timestamp,
)
from converter.firewall.view import AgentKind, Finding, Refusal, TreeCounts
from converter.vocabulary import (
    CARD_ID_PATTERN,
    RESERVED_CARD_IDS,
    HiddenKind,
    not_reserved_card_id,
)


def _known(code: str) -> str:
    if code not in CODES:
        raise ValueError("not a code of the catalogue")
    return code


# A code of docs/refusals.md (the schema says its shape; the tool checks the catalogue).
KnownCode = Annotated[Code, AfterValidator(_known)]
# A model name as it crosses (`names.model_crosses`): as written, or `model-<hex>`.
CrossedModel = Annotated[str, StringConstraints(pattern=f"^(?:{MODEL_ID})$")]
ClaudeCodeVersion = Annotated[str, StringConstraints(pattern=f"^{VERSION}$")]
# An exact amount of USD as decimal text, never a JSON number (no float): `0.0123000000`.
Usd = Annotated[str, StringConstraints(pattern=r"^[0-9]{1,30}(\.[0-9]{1,30})?$")]
# A shipped card's id or a card file's own (`pricing.model.NamedCardId`, which inspect and scan
# do not load). Was: a looser copy of its shape, which the published schemas carried (a review).
# The schema says both, so that an outside validator refuses `none` too (a review).
CardId = Annotated[
    str,
    StringConstraints(pattern=CARD_ID_PATTERN),
    AfterValidator(not_reserved_card_id),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": CARD_ID_PATTERN,
            "not": {"enum": sorted(RESERVED_CARD_IDS)},
        }
    ),
]
# The class name of an exception a scan row met (a bug, or `WorkerDied`): the program's own
# vocabulary, never a message.
ErrorName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z][A-Za-z0-9_]{0,63}$")]
# (a usage-incomplete call of a model with no max_output_tokens on the card is priced, its
# high end open: `model_calls_no_max_output`)
LackOf = Literal["model", "billing-context", "web-search", "long-context", "cost-too-large"]


class Tokens(Closed):
    """The token counters summed, by class (cache writes by their time to live)."""

    input_tokens: Count
    output_tokens: Count
    cache_read_input_tokens: Count
    cache_creation_5m_input_tokens: Count
    cache_creation_1h_input_tokens: Count
    cache_creation_unsplit_input_tokens: Count


class Usage(Tokens):
    web_search_requests: Count


# ------------------------------------------------------------------ inspect --json


class KnownRefusal(Refusal):
    code: KnownCode


class KnownFinding(Finding):
    code: KnownCode


class Place(Closed):
    file: str = Field(pattern=r"^[a-z-]+/(file|agent|run)-[0-9a-f]{12}$")
    line: Count | None = None


class FindingPlaces(Closed):
    at: list[Place] = Field(
        description="where the first few are (up to 5, in the order found): file role/label, line"
    )
    more: bool = Field(description="the finding is in more places than these")


class ModelUsage(Closed):
    model_calls: Count
    usage: Usage


class AgentCalls(Closed):
    agent: Pseudonym
    agent_type: PublicName  # "main", a built-in or revealed type, or agent-type-<hex>
    kind: AgentKind
    depth: Count
    model_calls: Count


HIGH_USD = (
    "the most these calls can have cost by the card; null when no bound is known "
    "(model_calls_unbounded or model_calls_no_max_output above 0)"
)
HIGH_USD_KNOWN = (
    "the high end as far as the transcripts tell: high_usd where that is a bound; where it is "
    "null, the sum with each open call at what it recorded, which the true cost may exceed"
)


def _a_bound_or_null(figure: Any) -> Any:
    """A figure's high end is a bound where every call has one, else null: never a number
    that bounds nothing (the check each figure below runs)."""
    open_calls = figure.model_calls_unbounded + figure.model_calls_no_max_output
    if figure.high_usd != (None if open_calls else figure.high_usd_known):
        raise ValueError("high_usd is high_usd_known where every call is bounded, else null")
    return figure


class ModelFigure(Closed):
    """One model's part of a figure by a price card."""

    model_calls: Count
    low_usd: Usd
    high_usd: Usd | None = Field(description=HIGH_USD)
    high_usd_known: Usd = Field(description=HIGH_USD_KNOWN)
    _high_end = model_validator(mode="after")(_a_bound_or_null)
    model_calls_unbounded: Count
    model_calls_no_max_output: Count  # usage-incomplete, unbounded by the card or a request
    model_calls_usage_incomplete: Count = Field(
        description="usage-incomplete calls priced up to a bound: the card's max_output_tokens, "
        "or a hidden call's request max_tokens where it gives one (those of a model the card "
        "gives none, and no request bounds, are model_calls_no_max_output)"
    )
    max_output_tokens: Count | None  # the card's, which prices the incomplete calls' high end


class HiddenFigure(Closed):
    """One kind of hidden call's part of a figure by a price card (those the card prices)."""

    model_calls: Count
    low_usd: Usd
    high_usd: Usd | None = Field(description=HIGH_USD)
    high_usd_known: Usd = Field(description=HIGH_USD_KNOWN)
    _high_end = model_validator(mode="after")(_a_bound_or_null)
    model_calls_unbounded: Count
    model_calls_no_max_output: Count


class CardCost(Closed):
    """`inspect --price-card`: the tree's cost by a card, before any contract."""

    spend_left_out: list[KnownCode] = Field(
        default_factory=list,
        description="codes of findings that say some of the tree's spend is in no figure",
    )

    price_card: CardId
    low_usd: Usd
    high_usd: Usd | None = Field(description=HIGH_USD)
    high_usd_known: Usd = Field(description=HIGH_USD_KNOWN)
    _high_end = model_validator(mode="after")(_a_bound_or_null)
    model_calls_priced: Count
    model_calls_not_priced: Count
    not_priced_for_lack_of: dict[LackOf, Count]
    tool_calls_not_priced: Count
    model_calls_assumed_standard: Count
    model_calls_unbounded: Count
    model_calls_no_max_output: Count = Field(
        description="usage-incomplete calls of models the card states no max_output_tokens "
        "for, and no request's max_tokens bounds: in low_usd at their recorded usage; high_usd "
        "is then null"
    )
    model_calls_usage_incomplete: Count = Field(
        description="usage-incomplete calls priced up to a bound: the card's max_output_tokens, "
        "or a hidden call's request max_tokens where it gives one (those of a model the card "
        "gives none, and no request bounds, are model_calls_no_max_output)"
    )
    usage_incomplete_width_usd: Usd
    by_model: dict[CrossedModel, ModelFigure]
    hidden_by_kind: dict[HiddenKind, HiddenFigure] = Field(
        default_factory=dict, description="calls only provider bodies show, by kind (SPEC §5.4)"
    )


class InspectReport(Closed):
    """`inspect --json`."""

    convertible: bool
    key_id: KeyId
    refusals: list[KnownRefusal]
    findings: list[KnownFinding]
    finding_places: dict[KnownCode, FindingPlaces] = Field(
        description="of the findings that name a file: where the first few are"
    )
    not_read: list[KnownFinding]
    counts: TreeCounts
    bound_files: Count
    usage: Usage
    by_model: dict[CrossedModel, ModelUsage]
    by_agent: list[AgentCalls]
    claude_code_versions: list[ClaudeCodeVersion]
    provider_files: Count = Field(default=0, description="present with --provider-bodies")
    auxiliary_calls: Literal["observed", "not-observed"] | None = Field(
        default=None, description="present with --provider-bodies"
    )
    card_cost: CardCost | None = Field(default=None, description="present with --price-card")


# ------------------------------------------------------------------ scan --json


class ScanModelCost(Closed):
    model_calls: Count
    low_usd: Usd
    high_usd: Usd | None = Field(description=HIGH_USD)
    high_usd_known: Usd = Field(description=HIGH_USD_KNOWN)
    _high_end = model_validator(mode="after")(_a_bound_or_null)
    model_calls_unbounded: Count
    model_calls_no_max_output: Count


class ScanCost(Closed):
    """A figure by the card in `scan` (`inspect --price-card`'s, in short)."""

    low_usd: Usd
    high_usd: Usd | None = Field(description=HIGH_USD)
    high_usd_known: Usd = Field(description=HIGH_USD_KNOWN)
    _high_end = model_validator(mode="after")(_a_bound_or_null)
    model_calls_priced: Count = Field(
        description="the model calls in low_usd and high_usd; 0 with both at 0: nothing "
        "priced (`nothing priced +` in the text), not nothing spent"
    )
    model_calls_not_priced: Count = Field(
        description="model calls of these sessions the card cannot price (a model, billing "
        "context, web-search price or long-context rate it lacks), in no figure; the calls of a session not "
        "priced at all (a null cost) are in neither count"
    )
    tool_calls_not_priced: Count
    model_calls_unbounded: Count
    model_calls_no_max_output: Count
    by_model: dict[CrossedModel, ScanModelCost] = Field(
        description="the priced calls by model: a model whose calls the card does not price "
        "has no entry (`inspect --json`'s by_model names it); in the totals, a call in "
        "several sessions' rows is in its model's figure once per row"
    )


class RowCost(ScanCost):
    """A convertible session's figure."""

    spend_left_out: list[KnownCode] = Field(
        description="codes of findings that say some of the session's spend is in no figure"
    )


class ScanNumbers(Closed):
    """What a session's row and the totals count alike."""

    model_calls: Count
    usage_incomplete_calls: Count
    tool_calls: Count
    subagents: Count
    tokens: Count
    usage: Tokens


class ScanRow(ScanNumbers):
    session: Pseudonym
    status: Literal["convertible", "empty", "refused", "orphan", "error"]
    refusals: list[KnownCode]
    errors: list[ErrorName]
    parent_files: Count
    orphan_folders: Count
    split: bool
    transcript_beside: bool
    model_calls_in_other_sessions: Count = Field(
        description="its model calls (by message id) that other sessions' rows count too: "
        "copies, as a session resumed as a fork or duplicated holds its original's"
    )
    # with --price-card: null for a session that has no one tree that converts
    cost: RowCost | None = Field(default=None, description="present with --price-card")


class TotalModelCost(ScanModelCost):
    """A model's part of the totals' figure, with its calls counted again (TotalCost's)."""

    model_calls_counted_again: Count
    low_usd_counted_again: Usd
    high_usd_counted_again: Usd | None
    high_usd_known_counted_again: Usd


class TotalCost(ScanCost):
    """The priced sessions' figures summed."""

    price_card: CardId
    sessions_not_priced: Count = Field(
        description="sessions with calls and a null cost (refused, orphan, error, or split "
        "across project folders): their model calls are the totals' model_calls less "
        "model_calls_priced and model_calls_not_priced"
    )
    sessions_with_spend_left_out: Count = Field(
        description="priced sessions whose spend_left_out is not empty"
    )
    low_usd_counted_again: Usd = Field(
        description="of low_usd, what the model calls in several priced sessions' rows cost "
        "beyond once (the totals sum the rows: model_calls_counted_again)"
    )
    model_calls_counted_again_priced: Count = Field(
        description="of model_calls_counted_again, those priced in two or more rows' figures"
    )
    high_usd_counted_again: Usd | None = Field(
        description="of high_usd_known, what those calls' high ends add beyond once; null "
        "when one of them has no bound"
    )
    high_usd_known_counted_again: Usd = Field(
        description="of high_usd_known, what those calls add beyond once, each at what it "
        "recorded where its high end is open: high_usd_known less it counts each call once. "
        "Of a call's copies the one kept is the narrowest (a bounded one first)"
    )
    by_model: dict[CrossedModel, TotalModelCost] = Field(  # type: ignore[assignment]
        description="the priced calls by model, each copy of a call in several sessions' rows "
        "once per row, and what the copies add beyond once (`*_counted_again`)"
    )


class ScanTotals(ScanNumbers):
    sessions: Count
    convertible: Count
    empty: Count
    refused: Count
    orphan: Count
    orphan_folders: Count
    errors: Count
    split: Count
    parent_files: Count
    model_calls_in_several_sessions: Count = Field(
        description="model calls (by message id) in more than one session's row"
    )
    model_calls_counted_again: Count = Field(
        description="how many times the totals, which sum the rows, count those calls beyond "
        "once (the totals' model_calls, tokens and cost include each copy)"
    )
    sessions_sharing_calls: Count
    refusal_codes: dict[KnownCode, Count]
    skipped_entries: Count
    skipped_session_files: Count
    skipped_jsonl_files: Count
    symlinked_folders: Count
    unreadable_folders: Count
    sessions_before_since: Count = Field(
        description="sessions left out by --since: their files were last written before it"
    )
    cost: TotalCost | None = Field(default=None, description="present with --price-card")


class ScanReport(Closed):
    """`scan --json`."""

    key_id: KeyId
    project_folders: Count
    config_folder: bool
    one_project_folder: bool
    session_folder: bool = Field(
        description="the folder given is one session's own folder (<session-id>/), where no "
        "session is: its transcript is beside it"
    )
    since: Timestamp | None = Field(
        description="--since, as an instant (UTC): only sessions whose files were written to "
        "then or later are in the rows and totals; null without it"
    )
    sessions: list[ScanRow]
    totals: ScanTotals


def checked(model: type[Closed], report: dict[str, Any]) -> dict[str, Any]:
    """`report` as `model` prints it: validated (a ValidationError is a bug: exit 70), with only
    the keys the report has (an optional part absent stays absent; a null stays null)."""
    dumped: dict[str, Any] = model.model_validate(report).model_dump(
        mode="json", exclude_unset=True
    )
    return dumped
