"""Dated price cards: the shipped public prices `--price-card` pre-fills a template from.

A card lists each model it knows by exact id, with the same tiers a claim uses, the model's
documented maximum output, and multipliers for billing-context values the price page names
(`speed=fast`, `inference_geo=us`). `prefill` copies only what the card states for the exact
model id: an unknown model stays null (never 0, never another model's rate), and a context is
pre-filled only when it is plainly standard (1) or differs from standard in one field the card
prices for that model. Batch (`service_tier=batch`) is never pre-filled: the page discounts input
and output only, which one all-class multiplier cannot express.

Shipped cards live in `contracts/price-cards/` (canonical) and, byte-identical, as package data in
`converter/pricing/cards/` so an installed tool finds them; a test keeps the two equal. A receipt
names its card by id only, so a shipped card's bytes are fixed by its id (a test pins each file's
SHA-256): changed prices ship as a new card, beside the old one.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, Field, StringConstraints, ValidationError

from converter.codec.jsontext import NotStrictJSON, loads_exact
from converter.errors import Problem, Refused
from converter.files import read_input
from converter.firewall.names import key_places, masked_path, schema_field_names
from converter.firewall.types import Closed, Count, ModelName
from converter.pricing import shipped_cards
from converter.pricing.model import (
    PRICE_FIELDS,
    CardDate,
    ContextKey,
    ModelPricing,
    ModelTemplate,
    NamedCardId,
    Price,
    PriceCardRef,
    PricingClaims,
    PricingTemplate,
    ServerTool,
    SourceUrl,
    Tiers,
    TierTemplate,
    valid_parts,
)

ContextSetting = Annotated[
    str, StringConstraints(pattern=r"^(service_tier|speed|inference_geo)=[a-z0-9_-]{1,32}$")
]
CardNote = Annotated[str, StringConstraints(max_length=4000)]
_CARD_NAME = re.compile(r"^[a-z0-9][a-z0-9.-]{0,63}$")
_FIELDS = ("service_tier", "speed", "inference_geo")
# Field values that say "the standard price": `standard`, and for the region `global` or
# `not_available` (no data residency on that model). A field the transcript did not record
# (`absent`) or recorded as "" (`empty`, a gateway) says nothing: it is its own observed value,
# not "standard" (SPEC §8.3), and its multiplier stays null for the user to decide.
_UNRECORDED = frozenset({"absent", "empty"})
_STANDARD = {
    "service_tier": frozenset({"standard"}),
    "speed": frozenset({"standard"}),
    "inference_geo": frozenset({"not_available", "global"}),
}


def _surcharge(setting: str) -> str:
    """A multiplier for a standard value (`service_tier=standard`, `inference_geo=global`) or
    an unrecorded one (`absent`, `empty`) could never apply: a standard context is 1 and an
    unrecorded one the contract's to decide. Refused at its key, not passed over (a hostile-card
    audit: `service_tier=standard: 0` validated, and the template still filled 1)."""
    field, value = setting.split("=", 1)
    if value in _STANDARD[field] or value in _UNRECORDED:
        raise ValueError("a multiplier for a value that is standard or not recorded")
    return setting


SurchargeSetting = Annotated[ContextSetting, AfterValidator(_surcharge)]


class CardModel(Closed):
    tiers: Tiers
    max_output_tokens: Count | None = None
    max_output_source: SourceUrl | None = None
    context_multipliers: dict[SurchargeSetting, Price] = Field(default_factory=dict)


class PriceCard(Closed):
    id: NamedCardId
    effective_date: CardDate
    source: SourceUrl
    retrieved: CardDate
    note: CardNote
    server_tools: dict[ServerTool, Price]
    models: dict[ModelName, CardModel]

    def ref(self) -> PriceCardRef:
        return PriceCardRef(
            id=self.id,
            effective_date=self.effective_date,
            source=self.source,
            retrieved=self.retrieved,
        )


def parse_price_card(data: bytes) -> PriceCard:
    """A card from its JSON bytes, numbers read as exact decimals (never through float). A card
    that is not one is refused at the line (JSON) or by the field path of each problem (the
    card's own field names, model ids and context keys; any other key is `<key #N>`, its place
    in its object), in the order pydantic finds them (the card's). A UTF-8 byte
    order mark (an editor's, re-saving a card) is no part of the JSON, as for a contract."""
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        document = loads_exact(data)
    except NotStrictJSON as bad:
        raise Refused([Problem("PRICE-CARD-INVALID", line=bad.line)]) from None
    try:
        return PriceCard.model_validate(document)
    except ValidationError as bad:
        if _another_file(document):
            raise Refused([Problem("PRICE-CARD-OTHER-FILE", where="--price-card")]) from None
        places = key_places(document)
        problems = [
            Problem("PRICE-CARD-INVALID", where=_card_path(err["loc"], places))
            for err in bad.errors()
        ]
        raise Refused(list(dict.fromkeys(problems))) from None


# The top-level keys of this tool's other files: a policy file's (`--policy`), a contract's
# and a bundle's. A card has none of them.
_OTHER_FILES = frozenset({"policy", "baseline", "outcome_contract", "claims", "receipt"})


def _another_file(document: Any) -> bool:
    """Whether a document that is no card is one of this tool's other files, given as a card
    by mistake (a walkthrough: `--price-card team.json` got a refusal per card field)."""
    return (
        isinstance(document, dict)
        and "models" not in document
        and not _OTHER_FILES.isdisjoint(document)
    )


def _card_path(loc: tuple[Any, ...], places: Mapping[tuple[Any, ...], int]) -> str:
    """Where in a card: a key it may not quote is named by its place, `<key #N>`."""
    return masked_path(loc, _card_fields(), places=places)


@cache
def _card_fields() -> frozenset[str]:
    return schema_field_names(PriceCard.model_json_schema())


def _read(name_or_path: str | Path) -> bytes:
    text = str(name_or_path)
    if isinstance(name_or_path, str) and _is_card_name(text):
        if text not in shipped_cards():
            # the names to choose from, said with it (a new-user audit: only --help had them)
            shipped = "shipped: " + ", ".join(shipped_cards())
            raise Refused([Problem("PRICE-CARD-UNKNOWN", where=shipped)])
        return (
            resources.files("converter.pricing")
            .joinpath("cards")
            .joinpath(text + ".json")
            .read_bytes()
        )
    # a regular file, whole
    return read_input(Path(name_or_path), "PRICE-CARD-UNREADABLE", not_json="PRICE-CARD-INVALID")


def load_price_card(name_or_path: str | Path) -> PriceCard:
    """A shipped card by name (e.g. "anthropic-2026-11"), or any card file by path.

    A string that looks like a card name (no slash, no ".json") always means a shipped card. A
    card file that takes a shipped card's id must be that card (PRICE-CARD-ID-TAKEN): receipts
    name a card by its id, and a contract naming a shipped id is checked against the shipped
    values."""
    card = parse_price_card(_read(name_or_path))
    by_path = not isinstance(name_or_path, str) or not _is_card_name(name_or_path)
    if by_path and card.id in shipped_cards() and card != load_price_card(card.id):
        raise Refused([Problem("PRICE-CARD-ID-TAKEN", where="id")])
    return card


def _is_card_name(text: str) -> bool:
    return _CARD_NAME.match(text) is not None and not text.endswith(".json")


def context_multiplier(model: CardModel, key: str) -> Decimal | None:
    """1 for a plainly standard context; the card's multiplier when exactly one field differs
    and the card prices that value for this model; otherwise None (the user must decide)."""
    values = key.split("|")
    if len(values) != len(_FIELDS):
        return None
    special = [f"{f}={v}" for f, v in zip(_FIELDS, values, strict=True) if v not in _STANDARD[f]]
    if not special:
        return Decimal(1)
    if len(special) > 1:  # the page does not say how two surcharges combine
        return None
    return model.context_multipliers.get(special[0])


def unrecorded_else_standard(key: str) -> bool:
    """Whether a context key is standard but for fields the transcript did not record (`absent`,
    `empty`): what an estimate may assume standard, saying so; a contract never does."""
    values = key.split("|")
    if len(values) != len(_FIELDS):
        return False
    unrecorded = [v in _UNRECORDED for v in values]
    standard = [v in _STANDARD[f] for f, v in zip(_FIELDS, values, strict=True)]
    return any(unrecorded) and all(u or s for u, s in zip(unrecorded, standard, strict=True))


def unrecorded_bounds(model: CardModel, key: str) -> tuple[Decimal, Decimal]:
    """The least and largest multiplier a call could have been billed at when fields the
    transcript did not record could have held a value the card prices (`inference_geo=us`,
    1.1, for an absent region), standard (1) among them: an estimate's interval. One field at a
    time, as the card states them (how two combine, it does not say)."""
    unrecorded = {f for f, v in zip(_FIELDS, key.split("|"), strict=False) if v in _UNRECORDED}
    stated = [m for k, m in model.context_multipliers.items() if k.split("=")[0] in unrecorded]
    return min([Decimal(1), *stated]), max([Decimal(1), *stated])


def _untouched(entry: ModelTemplate | ModelPricing) -> bool:
    return all(getattr(t, f) is None for t in entry.tiers for f in PRICE_FIELDS)


def states_prices(entry: ModelTemplate) -> bool:
    """Whether a template's model entry holds any price (a card's pre-fill, or the user's)."""
    return not _untouched(entry)


def _prefill_model(entry: ModelTemplate, known: CardModel) -> ModelTemplate:
    contexts: dict[ContextKey, Decimal | None] = {
        key: value if value is not None else context_multiplier(known, key)
        for key, value in entry.contexts.items()
    }
    update: dict[str, Any] = {"contexts": contexts}
    if _untouched(entry):
        update["tiers"] = tuple(TierTemplate(**t.model_dump()) for t in known.tiers)
    if entry.max_output_tokens is None:
        update["max_output_tokens"] = known.max_output_tokens
    return entry.model_copy(update=update)


def prefill(template: PricingTemplate, card: PriceCard) -> PricingTemplate:
    """Fill the template's null values that the card states, by exact model id only."""
    models = {
        model: _prefill_model(entry, card.models[model]) if model in card.models else entry
        for model, entry in template.models.items()
    }
    servers = {
        tool: value if value is not None else card.server_tools.get(tool)
        for tool, value in template.server_tools.items()
    }
    # The card is named only if it prices something observed here: a template of a gateway's
    # models alone would otherwise carry its name over prices that are all the user's own.
    used = any(m in card.models for m in template.models) or any(
        t in card.server_tools for t in template.server_tools
    )
    filled = template.model_copy(
        update={
            "models": models,
            "server_tools": servers,
            "price_card": card.ref() if used else template.price_card,
        }
    )
    return PricingTemplate.model_validate(filled.model_dump())  # model_copy does not validate


def _tiers_differ(entry: ModelTemplate | ModelPricing, known: CardModel) -> bool:
    """A stated price (or threshold) other than the card's; a null is `template_problems`'.
    An entry with no price stated (a model first seen since the contract was filled) states no
    other price, whatever its tiers."""
    if _untouched(entry):
        return False
    if len(entry.tiers) != len(known.tiers):
        return True
    for tier, card_tier in zip(entry.tiers, known.tiers, strict=True):
        for name in ("above_input_tokens", *PRICE_FIELDS):
            value = getattr(tier, name)
            if value is not None and value != getattr(card_tier, name):
                return True
    return False


def _contexts_differ(entry: ModelTemplate | ModelPricing, known: CardModel) -> bool:
    """A multiplier other than the one the card states for that context (where it states one:
    a context the card does not price is the user's to decide)."""
    for key, value in entry.contexts.items():
        stated = context_multiplier(known, key)
        if value is not None and stated is not None and value != stated:
            return True
    return False


def card_mismatches(
    pricing: PricingTemplate | PricingClaims, ref: PriceCardRef | None
) -> list[str]:
    """Where prices that name a shipped card (`ref`) are not the card's, as paths inside the
    pricing (`price_card`, `models/<id>`, `server_tools/<tool>`). The receipt, its signature and
    every report show the card's name as where the prices came from, so a contract naming it
    must hold them (`PRICE-CARD-MISMATCH`), and so must a bundle naming it when it is opened
    (`BUNDLE-PRICE-CARD-MISMATCH`). Models, contexts and tools the card does not price, and
    max_output_tokens (a bound, not a price), are the user's. A card that is not shipped (a file
    given by path) cannot be looked up again: its name is taken as written."""
    if ref is None or ref.id not in shipped_cards():
        return []
    card = load_price_card(ref.id)
    found = [] if ref == card.ref() else ["price_card"]
    return found + prices_unlike(pricing, card)


def prices_unlike(pricing: PricingTemplate | PricingClaims, card: PriceCard) -> list[str]:
    """Where `pricing` states a price other than `card` does (paths as `card_mismatches`),
    for the models, contexts and server tools the card prices; null is no price stated."""
    found: list[str] = []
    models: Mapping[str, ModelTemplate | ModelPricing] = pricing.models
    for model, entry in sorted(models.items()):
        known = card.models.get(model)
        if known is not None and (_tiers_differ(entry, known) or _contexts_differ(entry, known)):
            # `model` is one of the card's own ids: naming it quotes nothing the user typed.
            found.append(f"models/{model}")
    for tool, value in sorted(pricing.server_tools.items()):
        if tool in card.server_tools and value is not None and value != card.server_tools[tool]:
            found.append(f"server_tools/{tool}")
    return found


def own_prices(pricing: PricingClaims, ref: PriceCardRef | None) -> list[tuple[str, str | None]]:
    """The prices `pricing` holds that the card it names does not state, which its contract
    chose: (model, None) for a model the card does not list, (model, context) for a billing
    context whose multiplier the card does not state. Every model with no card, and every
    model with a card this version does not ship (a card file, or a hand-typed or newer id):
    such a card cannot be looked up, so nothing here checked its prices against it, and a
    report must not present them as a published card's."""
    card = shipped_card_named(ref)
    if card is None:
        return [(model, None) for model in sorted(pricing.models)]
    found: list[tuple[str, str | None]] = []
    for model, entry in sorted(pricing.models.items()):
        if not card_states(card, model, None):
            found.append((model, None))
            continue
        found += [
            (model, key) for key in sorted(entry.contexts) if not card_states(card, model, key)
        ]
    return found


def own_bounds(pricing: PricingClaims, ref: PriceCardRef | None) -> list[tuple[str, int]]:
    """The models whose `max_output_tokens` in `pricing` is not the one the shipped card it
    names states (another, or one where the card gives none), with the contract's: a bound,
    not a price (it is the user's to set), but the high end of every usage-incomplete call
    of the model, so a report says whose it is (an audit: 5,000 for the card's 128,000 cut a
    model's high end from $119.86 to $9.16, and nothing said so). A model the card does not
    list, or a bundle with no shipped card, is own whole (`own_prices`)."""
    card = shipped_card_named(ref)
    if card is None:
        return []
    found = []
    for model, entry in sorted(pricing.models.items()):
        known = card.models.get(model)
        bound = entry.max_output_tokens
        if known is not None and bound is not None and bound != known.max_output_tokens:
            found.append((model, bound))
    return found


def own_beside(
    pricing: PricingClaims, ref: PriceCardRef | None, cards: Sequence[PriceCard]
) -> tuple[list[tuple[str, str | None]], list[tuple[str, int]]]:
    """`own_prices` and `own_bounds` of one bundle among others, less what one of the other
    bundles' shipped `cards` states at the same value: that price is the card's in the whole
    workload. A card listing the model at another price leaves it the contract's (a walkthrough:
    a contract's 100x price lost its mark beside a bundle whose card listed the model). A model
    a card prices alike keeps as its own the multipliers and the max_output_tokens no card
    states alike."""
    prices: dict[tuple[str, str | None], None] = {}
    bounds = dict(own_bounds(pricing, ref))
    for model, context in own_prices(pricing, ref):
        entry = pricing.models[model]
        alike = [c for c in cards if _states_alike(c, model, None, entry)]
        if context is not None or not alike:
            if not any(_states_alike(c, model, context, entry) for c in cards):
                prices[(model, context)] = None
            continue
        for key in sorted(entry.contexts):
            if not any(_states_alike(c, model, key, entry) for c in cards):
                prices[(model, key)] = None
        bound = entry.max_output_tokens
        if bound is not None and all(c.models[model].max_output_tokens != bound for c in alike):
            bounds[model] = bound
    return list(prices), sorted(bounds.items())


def _states_alike(card: PriceCard, model: str, context: str | None, entry: ModelPricing) -> bool:
    """Whether `card` states `entry`'s price of `model` (its tiers, `context` None) or its
    multiplier for `context`, at the same value."""
    known = card.models.get(model)
    if known is None:
        return False
    if context is None:
        return not _tiers_differ(entry, known)
    stated = context_multiplier(known, context)
    return stated is not None and entry.contexts.get(context) == stated


def card_states(card: PriceCard, model: str, context: str | None) -> bool:
    """Whether `card` states the price of `model` (its tiers, `context` None) or its
    multiplier for `context`."""
    known = card.models.get(model)
    if known is None:
        return False
    return context is None or context_multiplier(known, context) is not None


def shipped_card_named(ref: PriceCardRef | None) -> PriceCard | None:
    """The shipped card `ref` names, exactly (its id, and the date, source and retrieval date
    as shipped); None for no card, a card file's name, or a reference that was edited."""
    if ref is None or ref.id not in shipped_cards():
        return None
    card = load_price_card(ref.id)
    return card if card.ref() == ref else None


def partial_card_problems(raw: Any) -> list[Problem]:
    """`card_problems` of a pricing template that did not validate as a whole, over the parts
    that do (`model.valid_parts`): a misshapen price elsewhere does not hide a card's price
    edited here until the next run."""
    parts = valid_parts(raw)
    return card_problems(parts) if parts is not None else []


def card_problems(pricing: PricingTemplate) -> list[Problem]:
    """A contract's prices against the shipped card it names (`card_mismatches`)."""
    return [
        Problem("PRICE-CARD-MISMATCH", where=f"claims/pricing/{where}")
        for where in card_mismatches(pricing, pricing.price_card)
    ]
