"""Exact prices for model and tool events (SPEC §8). Pure: values in, values out.

Arithmetic: each bucket costs tokens × rate-per-million × context multiplier / 1,000,000,
computed exactly (a 200-digit context that traps any inexact step), then quantized to 10 decimal
places with ROUND_HALF_EVEN. A call's cost is the exact sum of its quantized buckets, so the
breakdown always adds up to the total and a reviewer can redo every line by hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Context, Decimal, Inexact, InvalidOperation
from typing import Literal, NamedTuple, Protocol

from converter.firewall.names import BUILTIN_TOOLS
from converter.firewall.view import BillingContext, PublicAccount, UsageTotals
from converter.limits import MONEY_QUANTUM
from converter.pricing.card import shipped_card_named
from converter.pricing.model import (
    ModelPricing,
    ModelTemplate,
    PricingClaims,
    PricingProblem,
    PricingTemplate,
    TierPrice,
)

QUANTUM = MONEY_QUANTUM  # USD, 10 decimal places
_EXACT = Context(prec=200, rounding=ROUND_HALF_EVEN, traps=[Inexact, InvalidOperation])
_ROUND = Context(prec=200, rounding=ROUND_HALF_EVEN, traps=[InvalidOperation])


# The engine's working values are plain frozen dataclasses: they are built ~130k times for a
# 200 MB tree and never leave the process. Their inputs are already validated (the public
# account's events, the contract's claims), and what does leave (the bundle's events, costs and
# pricing) is validated again as bundle models.


class ModelCall(Protocol):
    """What pricing reads of a model event: the account's (`view.ModelEvent`) at convert, a
    bundle's (`ModelEventOut`) when one is opened and its costs are checked."""

    @property
    def id(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def usage(self) -> UsageTotals: ...
    @property
    def usage_complete(self) -> bool: ...
    @property
    def context(self) -> BillingContext: ...
    @property
    def request_max_tokens(self) -> int | None: ...


def bounded_by_contract(event: ModelCall) -> bool:
    """Whether the contract's `max_output_tokens` sets the call's high end: a usage-incomplete
    call whose request gave no `max_tokens` (SPEC §8.4)."""
    return not event.usage_complete and event.request_max_tokens is None


class ToolCall(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...


class BucketCost(NamedTuple):
    """One line of a call's bill: `cost` = quantize(units × rate × multiplier / per). A named
    tuple, not a frozen dataclass: ~100k are made for a 200 MB tree, at a fraction of the cost."""

    # a token class ("input", "cache_write_1h", …), "web_search", or a tool's public name
    bucket: str
    units: int  # tokens, or requests for a server tool
    rate: Decimal  # USD per million tokens (per request for a server tool), before multiplier
    per: int  # 1,000,000 for tokens, 1 for requests
    multiplier: Decimal
    cost: Decimal


@dataclass(frozen=True, slots=True)
class PricedCall:
    event: str
    model: str
    context: str
    multiplier: Decimal
    input_total_tokens: int  # input + cache read + every cache write: selects the tier
    tier: int  # index into the model's tiers
    breakdown: tuple[BucketCost, ...]  # as recorded: sums to `low`
    high_output: BucketCost | None  # the output line at its bound (incomplete calls)
    low: Decimal
    high: Decimal


@dataclass(frozen=True, slots=True)
class PricedTool:
    event: str
    tool: str
    cost: Decimal


def input_total(usage: UsageTotals) -> int:
    return (
        usage.input_tokens
        + usage.cache_read_input_tokens
        + usage.cache_creation_5m_input_tokens
        + usage.cache_creation_1h_input_tokens
        + usage.cache_creation_unsplit_input_tokens
    )


def tier_index(pricing: ModelPricing, total_input: int) -> int:
    """The last tier whose threshold the whole request's input exceeds (the first otherwise)."""
    index = 0
    for i, tier in enumerate(pricing.tiers):
        if total_input > tier.above_input_tokens:
            index = i
    return index


_NOTHING = Decimal(0).quantize(QUANTUM)  # what any rate costs for 0 units, at 10 places


def line(bucket: str, units: int, rate: Decimal, multiplier: Decimal, per: int) -> BucketCost:
    # The context's own methods: the same exact arithmetic as `localcontext(_EXACT)`, without
    # entering and leaving a context for each of the ~100k lines of a large tree. Zero units
    # cost zero at any rate (half the lines: most calls write no cache).
    if units:
        exact = _EXACT.divide(_EXACT.multiply(_EXACT.multiply(units, rate), multiplier), per)
        cost = exact.quantize(QUANTUM, context=_ROUND)
    else:
        cost = _NOTHING
    return BucketCost(bucket, units, rate, per, multiplier, cost)


def total(lines: Iterable[BucketCost]) -> Decimal:
    amount = Decimal(0)
    for item in lines:
        amount = _EXACT.add(amount, item.cost)
    return amount.quantize(QUANTUM, context=_EXACT)


def _token_lines(
    usage: UsageTotals, tier: TierPrice, multiplier: Decimal, unsplit: Decimal
) -> list[BucketCost]:
    rows: list[tuple[str, int, Decimal]] = [
        ("input", usage.input_tokens, tier.input),
        ("output", usage.output_tokens, tier.output),
        ("cache_read", usage.cache_read_input_tokens, tier.cache_read),
        ("cache_write_5m", usage.cache_creation_5m_input_tokens, tier.cache_write_5m),
        ("cache_write_1h", usage.cache_creation_1h_input_tokens, tier.cache_write_1h),
        ("cache_write_unsplit", usage.cache_creation_unsplit_input_tokens, unsplit),
    ]
    return [line(name, units, rate, multiplier, 1_000_000) for name, units, rate in rows]


def _problems(event: ModelCall, claims: PricingClaims | PricingTemplate) -> list[PricingProblem]:
    """What the claim lacks to price `event`: an entry, not a value (on a template, a null or
    bad value is `template_problems`' to name)."""
    pricing = claims.models.get(event.model)
    if pricing is None:
        return [PricingProblem(code="PRICE-MODEL-MISSING", model=event.model)]
    out = []
    key = event.context.key()
    if key not in pricing.contexts:
        out.append(PricingProblem(code="PRICE-CONTEXT-MISSING", model=event.model, context=key))
    if bounded_by_contract(event) and pricing.max_output_tokens is None:
        out.append(
            PricingProblem(
                code="PRICE-MAX-OUTPUT-MISSING", model=event.model, field="max_output_tokens"
            )
        )
    if event.usage.web_search_requests and "web_search" not in claims.server_tools:
        out.append(
            PricingProblem(
                code="PRICE-SERVER-TOOL-MISSING", tool="web_search", section="server_tools"
            )
        )
    return out


def price_model_event(event: ModelCall, claims: PricingClaims) -> PricedCall | list[PricingProblem]:
    """Low and high cost of one model call, or every reason it cannot be priced.

    Web searches are priced here, from the call's usage, per request; the WebSearch client tool
    call is priced separately by `price_tool_event` (0 for a built-in), so nothing is counted twice.
    """
    problems = _problems(event, claims)
    if problems:
        return problems
    pricing = claims.models[event.model]
    key = event.context.key()
    multiplier = pricing.contexts[key]
    usage = event.usage
    index = tier_index(pricing, input_total(usage))
    tier = pricing.tiers[index]
    unsplit = (
        tier.cache_write_1h if claims.unsplit_cache_write_rule == "1h" else tier.cache_write_5m
    )
    lines = _token_lines(usage, tier, multiplier, unsplit)
    if usage.web_search_requests:
        search = claims.server_tools["web_search"]
        lines.append(line("web_search", usage.web_search_requests, search, Decimal(1), 1))
    low = total(lines)
    high_output = None
    high = low
    bound = event.request_max_tokens
    if bound is None:
        bound = pricing.max_output_tokens
    if not event.usage_complete and bound is not None:
        units = max(usage.output_tokens, bound)
        high_output = line("output", units, tier.output, multiplier, 1_000_000)
        rest = [item for item in lines if item.bucket != "output"]
        high = total([*rest, high_output])
    return PricedCall(
        event=event.id,
        model=event.model,
        context=key,
        multiplier=multiplier,
        input_total_tokens=input_total(usage),
        tier=index,
        breakdown=tuple(lines),
        high_output=high_output,
        low=low,
        high=high,
    )


def price_tool_event(event: ToolCall, claims: PricingClaims) -> PricedTool | list[PricingProblem]:
    """Per-call price of a client tool (a built-in is 0 only because the contract says so)."""
    price = claims.client_tools.get(event.name)
    if price is None:
        return [PricingProblem(code="PRICE-CLIENT-TOOL-MISSING", tool=event.name)]
    cost = line(event.name, 1, price, Decimal(1), 1).cost
    return PricedTool(event=event.id, tool=event.name, cost=cost)


# Long-context rates a shipped card's one tier leaves out because they ended before the card was
# made: Opus 4.6's and Sonnet 4.6's, reported removed when their 1M window became generally
# available on 2026-03-13 (PRICING-FACTS, second-hand). A request above the threshold made before
# the end was billed at them (2x input and cache rates, 1.5x output). The date has no hour: every
# call of that day counts as before it, so an hour's doubt is refused, never priced low.
ENDED_LONG_CONTEXT: dict[str, tuple[int, str]] = {
    "claude-opus-4-6": (200_000, "2026-03-14"),
    "claude-sonnet-4-6": (200_000, "2026-03-14"),
}


def _session_start(account: PublicAccount) -> str | None:
    """The earliest time the account shows: no call of it is earlier (a call only provider
    bodies show has no time of its own)."""
    times = [e.timestamp for e in account.model_events if e.timestamp is not None]
    times += [t.started_at for t in account.tasks if t.started_at is not None]
    # Compared without the "Z": `…:59Z` sorts after `…:59.500Z` as written ('Z' > '.')
    return min(times, key=lambda t: t.removesuffix("Z"), default=None)


class EndedTier:
    """Which calls a shipped card's one tier prices below the long-context rate they were
    billed at (PRICE-CARD-TIER-ENDED): a call of a model in `ENDED_LONG_CONTEXT`, above its
    threshold, made before the end, priced under the name of a shipped card that lists the
    model. A call with no time is no earlier than the session's start, and one in a
    session that shows no time at all counts as before. Prices of your own, and a card file's
    (which cannot be looked up again, so its prices are yours), are not judged."""

    __slots__ = ("_models", "_start")

    def __init__(self, account: PublicAccount, claims: PricingClaims | PricingTemplate) -> None:
        self._models: dict[str, tuple[int, str]] = {}
        priced = [model for model in ENDED_LONG_CONTEXT if model in claims.models]
        # the card is looked up (read and validated) only for a session that prices such a model
        card = shipped_card_named(claims.price_card) if priced else None
        for model in priced:
            ended = ENDED_LONG_CONTEXT[model]
            entry = claims.models[model]
            if card is None or model not in card.models:
                continue
            threshold = ended[0]
            if not any(0 < (t.above_input_tokens or 0) <= threshold for t in entry.tiers):
                self._models[model] = ended  # one tier for the request of any size
        self._start = _session_start(account) if self._models else None

    def side(self, event: ModelCall, timestamp: str | None) -> Literal["before", "after"] | None:
        """Whether the call is above the threshold of a judged model, before or after its end;
        None for any other call."""
        ended = self._models.get(event.model)
        if ended is None:
            return None
        threshold, end = ended
        if input_total(event.usage) <= threshold:
            return None
        when = timestamp if timestamp is not None else self._start
        return "after" if when is not None and when >= end else "before"


def ended_tier_calls(
    account: PublicAccount, claims: PricingClaims | PricingTemplate
) -> dict[str, tuple[int, int]]:
    """Per judged model with calls before its end, those calls and the calls above the
    threshold after it (which a second tier of the contract's own would price too high)."""
    judge = EndedTier(account, claims)
    before: Counter[str] = Counter()
    after: Counter[str] = Counter()
    for event in account.model_events:
        side = judge.side(event, event.timestamp)
        if side == "before":
            before[event.model] += 1
        elif side == "after":
            after[event.model] += 1
    return {model: (before[model], after[model]) for model in sorted(before)}


def account_problems(
    account: PublicAccount, claims: PricingClaims | PricingTemplate
) -> list[PricingProblem]:
    """Every distinct reason any event of the account cannot be priced, in a stable order: a
    model, billing context, server tool or client tool with no entry, or no max_output_tokens
    for a usage-incomplete call, or a card's one tier for a call billed at a long-context rate
    since ended (`EndedTier`). It looks entries up and prices nothing, so it runs on a
    template whose values are still null as well as on a completed claim, and costs a lookup
    per event on a large tree."""
    found: dict[str, PricingProblem] = {}
    seen: set[tuple[str, str, bool, bool]] = set()  # what `_problems` reads of an event
    largest: dict[str, int] = {}  # per model, the largest output a call recorded
    judge = EndedTier(account, claims)
    for model_event in account.model_events:
        model, output = model_event.model, model_event.usage.output_tokens
        if output > largest.get(model, -1):
            largest[model] = output
        asks = (
            model_event.model,
            model_event.context.key(),
            bounded_by_contract(model_event),
            model_event.usage.web_search_requests > 0,
        )
        if judge.side(model_event, model_event.timestamp) == "before":
            ended = PricingProblem(code="PRICE-CARD-TIER-ENDED", model=model_event.model)
            found.setdefault(ended.model_dump_json(), ended)
        if asks in seen:
            continue
        seen.add(asks)
        for problem in _problems(model_event, claims):
            found.setdefault(problem.model_dump_json(), problem)
    for name in sorted({t.name for t in account.tool_events} - set(claims.client_tools)):
        problem = PricingProblem(code="PRICE-CLIENT-TOOL-MISSING", tool=name)
        found.setdefault(problem.model_dump_json(), problem)
    for problem in _caps_below_observed(largest, claims):
        found.setdefault(problem.model_dump_json(), problem)
    return [found[k] for k in sorted(found)]


def _caps_below_observed(
    largest: dict[str, int], claims: PricingClaims | PricingTemplate
) -> list[PricingProblem]:
    """A model whose claimed max_output_tokens is below an output one of its calls recorded:
    the claim is wrong, and as the high end of an incomplete call's interval it would claim the
    uncertainty away (SPEC §8.4)."""
    out = []
    for model, output in sorted(largest.items()):
        entry = claims.models.get(model)
        cap = entry.max_output_tokens if entry is not None else None
        if cap is not None and output > cap:
            out.append(
                PricingProblem(
                    code="PRICE-MAX-OUTPUT-BELOW-OBSERVED", model=model, field="max_output_tokens"
                )
            )
    return out


def observed_keys(account: PublicAccount) -> PricingTemplate:
    """The pricing keys the account needs, every value null except built-in tools at 0.

    Built-in local tools and delegation tools cost 0 per call (a delegation's spend is its
    child's model calls); MCP and pseudonymized tools stay null for the user to price.
    """
    contexts: dict[str, set[str]] = {}
    for event in account.model_events:
        contexts.setdefault(event.model, set()).add(event.context.key())
    models = {
        model: ModelTemplate(contexts=dict.fromkeys(sorted(keys)))
        for model, keys in sorted(contexts.items())
    }
    searched = any(e.usage.web_search_requests for e in account.model_events)
    tools = sorted({t.name for t in account.tool_events})
    return PricingTemplate(
        models=models,
        server_tools={"web_search": None} if searched else {},
        client_tools={name: Decimal(0) if name in BUILTIN_TOOLS else None for name in tools},
    )
