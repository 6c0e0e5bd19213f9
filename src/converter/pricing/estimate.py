"""What a session cost by a price card alone, before any contract: `inspect --price-card`.

Only what the card states is priced, by the same engine `convert --contract` uses, and nothing
is guessed silently. A model the card does not know, or a billing context it does not price
(fast mode, a batch), leaves its calls unpriced and counted. A context whose fields are standard
but for those the transcript did not record (`absent`, as 2.1.39 and 1.0.x write every call) is
priced between the least and the largest multiplier the card states for those fields, standard
(1) among them (data residency's 1.1 above it), and its calls are counted apart: a surcharge
the card does not state (fast mode) is assumed absent, and the figure says so (a contract
states that multiplier itself, and never assumes it). Cache writes recorded without a TTL split
are priced both ways (5-minute and 1-hour rates): the estimate is the interval between them, as
it is for a usage-incomplete call, up to the card's max_output_tokens; where the card states
none for its model, such a call's low end is its recorded usage and its high end is no bound
(counted apart: leaving the whole call out made a session of 1.0.x fragments, most of them
usage-incomplete, read 45 times cheaper than its recorded tokens alone). Built-in tools cost
nothing; a tool whose price is yours to state (MCP) is not priced here, and its calls are
counted. So are the calls of a model the card gives one tier for that were made above its
threshold before its long-context rate ended (`engine.ENDED_LONG_CONTEXT`): the card's price
for them is not what they cost.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from converter.firewall.view import PublicAccount, no_input_recorded
from converter.limits import MAX_COST, MONEY_SUMS
from converter.pricing.card import (
    CardModel,
    PriceCard,
    prefill,
    unrecorded_bounds,
    unrecorded_else_standard,
)
from converter.pricing.engine import (
    EndedTier,
    PricedCall,
    bounded_by_contract,
    observed_keys,
    price_model_event,
)
from converter.pricing.model import ModelPricing, ModelTemplate, PricingClaims, PricingTemplate
from converter.vocabulary import hidden_kind_of

_ZERO = Decimal(0)
# What the card lacks to price a call, by the engine's problem code.
_WHY = {
    "PRICE-MODEL-MISSING": "model",
    "PRICE-CONTEXT-MISSING": "billing-context",
    "PRICE-SERVER-TOOL-MISSING": "web-search",
}


@dataclass(slots=True)
class ModelCost:
    calls: int = 0
    low: Decimal = _ZERO
    high: Decimal = _ZERO
    unbounded: int = 0  # calls that recorded no input: `high` bounds their output only
    incomplete: int = 0  # usage-incomplete calls priced: output up to max_output_tokens
    max_output_tokens: int | None = None  # the card's: the high end of those calls' output
    # usage-incomplete calls of a model the card states no max_output_tokens for: priced at
    # their recorded output, which `low` holds; `high` bounds nothing
    no_max_output: int = 0


@dataclass(slots=True)
class Estimate:
    """The cost of the calls the card prices, as an interval; how many it could not price."""

    card_id: str
    priced_calls: int = 0
    unpriced_calls: int = 0
    # Why, per call not priced, by the first thing the card lacks for it (`_WHY`)
    unpriced_by_reason: dict[str, int] = field(default_factory=dict)
    low: Decimal = _ZERO
    high: Decimal = _ZERO
    by_model: dict[str, ModelCost] = field(default_factory=dict)
    tool_calls_not_priced: int = 0  # client tools: a contract prices them, the card does not
    assumed_standard_calls: int = 0  # priced calls whose billing fields were not all recorded
    # Priced calls that recorded no input (CC-REC-USAGE-INCOMPLETE-NO-INPUT): their input is in
    # neither end, so `high` is no bound (a walkthrough read it as one).
    unbounded_calls: int = 0
    # The usage-incomplete calls priced, and how much of high - low is theirs: their output up
    # to max_output_tokens (a walkthrough met $6 – $141 and could not tell why it was so wide).
    incomplete_calls: int = 0
    incomplete_width: Decimal = _ZERO
    # Usage-incomplete calls of models the card states no max_output_tokens for (ModelCost's
    # `no_max_output`): in `low` at their recorded usage, so `high` is no bound.
    no_max_output_calls: int = 0
    # The calls only provider bodies show, by kind (SPEC §5.4: reported with their cost).
    hidden_by_kind: dict[str, ModelCost] = field(default_factory=dict)
    # Each priced call's low and high, whether its high end is open (no bound), and its model,
    # by event id, when asked for (`scan`: what the calls several sessions hold cost)
    by_event: dict[str, tuple[Decimal, Decimal, bool, str]] | None = None

    def not_priced(self, reason: str) -> None:
        """One call the card cannot price, for `reason` (a key of `not_priced_for_lack_of`)."""
        self.unpriced_calls += 1
        self.unpriced_by_reason[reason] = self.unpriced_by_reason.get(reason, 0) + 1


def _stated(entry: ModelTemplate, known: CardModel | None, high: bool) -> ModelPricing | None:
    """The entry as the card states it: every price of every tier, and the contexts it can
    read (the others are left out, so their calls are unpriced); None if a price is missing.
    A context standard but for fields not recorded is priced at the least multiplier they could
    have meant (1, or a discount the card states), or (`high`) at the largest
    (`card.unrecorded_bounds`)."""
    tiers = [t.model_dump() for t in entry.tiers]
    if known is None or any(value is None for tier in tiers for value in tier.values()):
        return None

    def assumed(key: str) -> Decimal:
        return unrecorded_bounds(known, key)[1 if high else 0]

    contexts = {
        key: assumed(key) if value is None and unrecorded_else_standard(key) else value
        for key, value in entry.contexts.items()
    }
    contexts = {key: value for key, value in contexts.items() if value is not None}
    return ModelPricing.model_validate(
        {"tiers": tiers, "max_output_tokens": entry.max_output_tokens, "contexts": contexts}
    )


def _claims(template: PricingTemplate, card: PriceCard) -> list[PricingClaims]:
    """What the card states for this session: once per rule for unsplit cache writes, each at
    the low and the high end of what unrecorded billing fields could have cost."""
    servers = {name: value for name, value in template.server_tools.items() if value is not None}
    out = []
    for high in (False, True):
        models = {
            name: p
            for name, entry in template.models.items()
            if (p := _stated(entry, card.models.get(name), high))
        }
        base = {"models": models, "server_tools": servers, "client_tools": {}}
        for rule in ("5m", "1h"):
            out.append(PricingClaims.model_validate({**base, "unsplit_cache_write_rule": rule}))
    return out


def estimate(account: PublicAccount, card: PriceCard, *, each: bool = False) -> Estimate:
    """Every model call the card prices, summed per model and in all, as low and high; with
    `each`, also each call's (`Estimate.by_event`)."""
    template = prefill(observed_keys(account), card)
    claims = _claims(template, card)
    # A built-in tool costs nothing (the template's 0); a tool with no price (MCP) is yours.
    unpriced = sum(template.client_tools.get(t.name) is None for t in account.tool_events)
    out = Estimate(card_id=card.id, tool_calls_not_priced=unpriced, by_event={} if each else None)
    hidden = {a.id: of for a in account.agents if (of := hidden_kind_of(a.kind))}
    ended = EndedTier(account, template)
    for event in account.model_events:
        known = card.models.get(event.model)
        open_high = (
            bounded_by_contract(event) and known is not None and known.max_output_tokens is None
        )
        # the recorded usage is what it cost at least: priced as it stands, the end left open
        priced_as = event.model_copy(update={"usage_complete": True}) if open_high else event
        if ended.side(event, event.timestamp) == "before":
            # billed at a long-context rate the card's one tier does not give (its end dated)
            out.not_priced("long-context")
            continue
        ways = [price_model_event(priced_as, c) for c in claims]
        priced = [p for p in ways if isinstance(p, PricedCall)]
        if len(priced) < len(ways):
            lacks = next(p for p in ways if isinstance(p, list))
            out.not_priced(_WHY[lacks[0].code])
            continue
        low, high = min(p.low for p in priced), max(p.high for p in priced)
        if high >= MAX_COST:  # a card file's prices past any real one: convert refuses them
            # (a pricing audit: the figure overflowed the report's money, exit 70)
            out.not_priced("cost-too-large")
            continue
        no_input = no_input_recorded(event.usage_complete, event.usage)
        if out.by_event is not None:
            out.by_event[event.id] = (low, high, open_high or no_input, event.model)
        out.priced_calls += 1
        out.assumed_standard_calls += unrecorded_else_standard(event.context.key())
        add = MONEY_SUMS.add  # exact: the default context keeps 28 digits
        out.low, out.high = add(out.low, low), add(out.high, high)
        model = out.by_model.setdefault(
            event.model, ModelCost(max_output_tokens=card.models[event.model].max_output_tokens)
        )
        model.calls += 1
        if open_high:
            out.no_max_output_calls += 1
            model.no_max_output += 1
        elif not event.usage_complete:
            out.incomplete_calls += 1
            out.incomplete_width = add(out.incomplete_width, high - low)
            model.incomplete += 1
        if no_input:
            out.unbounded_calls += 1
            model.unbounded += 1
        model.low, model.high = add(model.low, low), add(model.high, high)
        if event.agent in hidden:
            kind = out.hidden_by_kind.setdefault(hidden[event.agent], ModelCost())
            kind.calls += 1
            kind.unbounded += no_input
            kind.no_max_output += open_high
            kind.low, kind.high = add(kind.low, low), add(kind.high, high)
    return out
