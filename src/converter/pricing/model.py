"""The `pricing` claim of the conversion contract: closed models, exact decimals, no floats.

Two shapes share one layout. `PricingTemplate` is what `convert --template` writes: every price
may be `null` (and a value may even be negative or non-finite, so that `complete` can name each
bad one instead of stopping at the first). `PricingClaims` is the completed claim the engine
prices with: every rate a finite, non-negative `Decimal`.

Money is parsed without passing through float: a price is a `Decimal`, an `int`, or a decimal
string; a `float` is refused outright (it has already lost the exact value). Serialised with
pydantic's JSON mode, every price is written as a decimal string.

`unsplit_cache_write_rule` says how cache writes recorded without a 5m/1h split are priced.
"1h" is the conservative choice (the 1-hour rate is the higher one, and Claude Code writes mostly
1-hour cache), so a reviewer who does not know the split should pick "1h".
"""

from __future__ import annotations

from decimal import Decimal
from itertools import pairwise
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
)

from converter.errors import Problem
from converter.firewall.names import may_name
from converter.firewall.types import (
    AS_TEXT,
    Closed,
    Code,
    Count,
    ModelName,
    PublicName,
    decimal_fits,
    decimal_schema,
    exact_decimal,
)
from converter.vocabulary import CARD_ID_PATTERN, not_reserved_card_id

# `BillingContext.key()`: service_tier|speed|inference_geo, each a context value or "absent".
ContextKey = Annotated[
    str, StringConstraints(pattern=r"^[a-z0-9_-]{0,32}\|[a-z0-9_-]{0,32}\|[a-z0-9_-]{0,32}$")
]
ServerTool = Literal["web_search"]
UnsplitRule = Literal["5m", "1h"]
PriceField = Literal["input", "output", "cache_read", "cache_write_5m", "cache_write_1h"]
PRICE_FIELDS: tuple[PriceField, ...] = (
    "input",
    "output",
    "cache_read",
    "cache_write_5m",
    "cache_write_1h",
)
CardId = Annotated[str, StringConstraints(pattern=CARD_ID_PATTERN)]
NamedCardId = Annotated[CardId, AfterValidator(not_reserved_card_id)]
CardDate = Annotated[str, StringConstraints(pattern=r"^[0-9]{4}-[0-9]{2}(-[0-9]{2})?$")]
SourceUrl = Annotated[
    str,
    StringConstraints(pattern=r"^https://[A-Za-z0-9.-]{1,100}(/[A-Za-z0-9._~-]{1,60}){0,12}/?$"),
]

_NONFINITE_TEXT = frozenset({"NaN", "-NaN", "Infinity", "-Infinity"})


def _exact(value: Any, *, allow_nonfinite: bool) -> Any:
    """Accept Decimal, int or a plain decimal string; refuse float and bool (not exact)."""
    if isinstance(value, bool | float):
        raise ValueError("not an exact decimal: write the number as a decimal string")
    if allow_nonfinite and isinstance(value, str) and value in _NONFINITE_TEXT:
        return Decimal(value)
    value = exact_decimal(value)  # an int or a decimal string read as every artifact reads it
    if isinstance(value, str):
        raise ValueError("not a decimal number")
    return value  # a Decimal, or anything else for the strict type check to refuse


def _finite_non_negative(value: Decimal) -> Decimal:
    if not value.is_finite():
        raise ValueError("not a finite number")
    if value.is_signed():
        raise ValueError("negative")
    if not decimal_fits(value):
        raise ValueError("too many digits")
    return value


def _price(value: Any) -> Any:
    """One call per value (a bundle holds ~300k of them): exact, then finite and >= 0."""
    value = _exact(value, allow_nonfinite=False)
    return _finite_non_negative(value) if isinstance(value, Decimal) else value


# A rate or multiplier in a completed claim: finite, >= 0 (and not "-0").
Price = Annotated[Decimal, BeforeValidator(_price), AS_TEXT, *decimal_schema()]
# A value in a template: any exact decimal, checked (with a code per value) by `complete`. Its
# schema is a completed claim's (what `complete` lets through).
RawPrice = Annotated[
    Decimal,
    Field(allow_inf_nan=True),
    BeforeValidator(lambda v: _exact(v, allow_nonfinite=True)),
    *decimal_schema(),
]


class TierPrice(Closed):
    """USD per million tokens, for requests whose total input is > `above_input_tokens`.

    Total input = input + cache read + cache write 5m + 1h + unsplit; the tier prices the whole
    request, never a slice of it (SPEC §8.1).
    """

    above_input_tokens: Count
    input: Price
    output: Price
    cache_read: Price
    cache_write_5m: Price
    cache_write_1h: Price


def _tiers_in_order(tiers: tuple[TierPrice, ...]) -> tuple[TierPrice, ...]:
    if not tiers_valid([t.above_input_tokens for t in tiers]):
        raise ValueError("tiers must start at 0 and increase strictly")
    return tiers


# A model's tiers, in a claim or a price card: a JSON list is accepted.
Tiers = Annotated[tuple[TierPrice, ...], Field(strict=False), AfterValidator(_tiers_in_order)]


class ModelPricing(Closed):
    tiers: Tiers
    # Needed only to price usage-incomplete calls (the interval's high end, SPEC §8.4).
    max_output_tokens: Count | None = None
    # Multiplier per observed `BillingContext.key()`; applies to every token class.
    contexts: dict[ContextKey, Price]


class PriceCardRef(Closed):
    id: NamedCardId
    effective_date: CardDate
    source: SourceUrl
    retrieved: CardDate


class PricingClaims(Closed):
    models: dict[ModelName, ModelPricing]
    server_tools: dict[ServerTool, Price]  # USD per request
    client_tools: dict[PublicName, Price]  # USD per call, by public tool name
    unsplit_cache_write_rule: UnsplitRule
    price_card: PriceCardRef | None = None


class TierTemplate(Closed):
    above_input_tokens: Count | None = None
    input: RawPrice | None = None
    output: RawPrice | None = None
    cache_read: RawPrice | None = None
    cache_write_5m: RawPrice | None = None
    cache_write_1h: RawPrice | None = None


class ModelTemplate(Closed):
    tiers: Annotated[tuple[TierTemplate, ...], Field(strict=False)] = (
        TierTemplate(above_input_tokens=0),
    )
    max_output_tokens: Count | None = None
    contexts: dict[ContextKey, RawPrice | None]


class PricingTemplate(Closed):
    models: dict[ModelName, ModelTemplate]
    server_tools: dict[ServerTool, RawPrice | None]
    client_tools: dict[PublicName, RawPrice | None]
    unsplit_cache_write_rule: UnsplitRule | None = None
    price_card: PriceCardRef | None = None


class PricingProblem(Closed):
    """One coded pricing problem. Its location holds only allowed names: a model id, a billing
    context key, a tool name, a tier index and a field name; never a value from a file."""

    code: Code
    model: ModelName | None = None
    context: ContextKey | None = None
    tool: PublicName | None = None
    section: Literal["server_tools", "client_tools"] | None = None  # the tool's
    tier: Count | None = None
    field: PublicName | None = None

    def where(self) -> str:
        """Its path in the contract, as the other contract refusals name theirs
        (`claims/pricing/models/<model>/tiers/0/input`): a model, context or tool name a
        contract's author typed is shown only if it is one that could cross the firewall
        (SPEC §6.4), else as `<name>`."""
        parts = ["claims", "pricing"]
        if self.model:
            parts += ["models", _shown(self.model)]
            if self.context:
                parts += ["contexts", _shown(self.context)]
            if self.tier is not None:
                parts += ["tiers", str(self.tier)]
        elif self.tool:
            parts += [self.section or "client_tools", _shown(self.tool)]
        if self.field:
            parts.append(self.field)
        return "/".join(parts)

    def loc(self) -> tuple[str | int, ...]:
        """Its path in the contract as keys (names as written, the tier as an index), to
        look up where the contract was read (`ContractParts.places`)."""
        parts: list[str | int] = ["claims", "pricing"]
        if self.model:
            parts += ["models", self.model]
            if self.context:
                parts += ["contexts", self.context]
            if self.tier is not None:
                parts += ["tiers", self.tier]
        elif self.tool:
            parts += [self.section or "client_tools", self.tool]
        if self.field:
            parts.append(self.field)
        return tuple(parts)

    def as_problem(self) -> Problem:
        """The refusal it is, located by `where`."""
        return Problem(self.code, where=self.where() or None)


def _shown(name: str) -> str:
    return name if may_name(name) else "<name>"


def tiers_valid(thresholds: list[int]) -> bool:
    return bool(thresholds) and thresholds[0] == 0 and all(a < b for a, b in pairwise(thresholds))


def _value_problems(value: Decimal | None, **where: Any) -> list[PricingProblem]:
    if value is None:
        return [PricingProblem(code="PRICE-NULL", **where)]
    if not value.is_finite():
        return [PricingProblem(code="PRICE-NONFINITE", **where)]
    if value.is_signed():
        return [PricingProblem(code="PRICE-NEGATIVE", **where)]
    if not decimal_fits(value):
        return [PricingProblem(code="PRICE-TOO-PRECISE", **where)]
    return []


def _tier_problems(model: str, index: int, tier: TierTemplate) -> list[PricingProblem]:
    out = []
    if tier.above_input_tokens is None:
        out.append(
            PricingProblem(code="PRICE-NULL", model=model, tier=index, field="above_input_tokens")
        )
    for name in PRICE_FIELDS:
        out += _value_problems(getattr(tier, name), model=model, tier=index, field=name)
    return out


def _model_problems(model: str, entry: ModelTemplate) -> list[PricingProblem]:
    out = []
    for index, tier in enumerate(entry.tiers):
        out += _tier_problems(model, index, tier)
    thresholds = [t.above_input_tokens for t in entry.tiers]
    if None not in thresholds and not tiers_valid([t for t in thresholds if t is not None]):
        out.append(PricingProblem(code="PRICE-TIERS-INVALID", model=model, field="tiers"))
    for key, value in sorted(entry.contexts.items()):
        out += _value_problems(value, model=model, context=key)
    return out


def template_problems(template: PricingTemplate) -> list[PricingProblem]:
    """Every null, negative, non-finite or mis-ordered value of a template, in a stable order."""
    out = []
    for model, entry in sorted(template.models.items()):
        out += _model_problems(model, entry)
    for server, value in sorted(template.server_tools.items()):
        out += _value_problems(value, tool=server, section="server_tools")
    for client, value in sorted(template.client_tools.items()):
        out += _value_problems(value, tool=client, section="client_tools")
    if template.unsplit_cache_write_rule is None:
        out.append(PricingProblem(code="PRICE-NULL", field="unsplit_cache_write_rule"))
    return out


_MODEL_TEMPLATE: TypeAdapter[ModelTemplate] = TypeAdapter(ModelTemplate)
_PRICE: TypeAdapter[Decimal | None] = TypeAdapter(RawPrice | None)
_NAME: TypeAdapter[str] = TypeAdapter(ModelName)
_SERVER: TypeAdapter[ServerTool] = TypeAdapter(ServerTool)


def partial_problems(raw: Any) -> list[PricingProblem]:
    """The problems of each price of a pricing template that did not validate as a whole (its
    shape errors are reported apart): a price of the wrong type does not hide a null or
    negative price beside it until the next run. Values and names that do not validate are
    among those shape errors, and skipped here."""
    if not isinstance(raw, dict):
        return []
    out: list[PricingProblem] = []
    models = raw.get("models")
    for name, entry in sorted(models.items()) if isinstance(models, dict) else ():
        out += _model_parts(name, entry)
    for section in ("server_tools", "client_tools"):
        prices = raw.get(section)
        for name, value in sorted(prices.items()) if isinstance(prices, dict) else ():
            out += _checked(value, tool=name, section=section)
    if "unsplit_cache_write_rule" in raw and raw["unsplit_cache_write_rule"] is None:
        out.append(PricingProblem(code="PRICE-NULL", field="unsplit_cache_write_rule"))
    return out


def valid_parts(raw: Any) -> PricingTemplate | None:
    """The parts of a pricing template that did not validate as a whole which validate on
    their own (each model entry, each server tool's price, the card reference), so that what
    can still be compared is (`card.partial_card_problems`); None with no card named."""
    if not isinstance(raw, dict) or raw.get("price_card") is None:
        return None
    try:
        ref = PriceCardRef.model_validate(raw["price_card"], strict=True)
    except ValidationError:
        return None
    models: dict[str, ModelTemplate] = {}
    entries = raw.get("models")
    for name, entry in entries.items() if isinstance(entries, dict) else ():
        try:
            models[_NAME.validate_python(name)] = _MODEL_TEMPLATE.validate_python(
                entry, strict=True
            )
        except ValidationError:
            continue
    servers: dict[ServerTool, Decimal | None] = {}
    prices = raw.get("server_tools")
    for name, value in prices.items() if isinstance(prices, dict) else ():
        try:
            servers[_SERVER.validate_python(name)] = _PRICE.validate_python(value, strict=True)
        except ValidationError:
            continue
    return PricingTemplate.model_construct(
        models=models, server_tools=servers, client_tools={}, price_card=ref
    )


def _checked(value: Any, **where: Any) -> list[PricingProblem]:
    """`_value_problems` of one price as written; none when it (or its place) is misshapen."""
    try:
        return _value_problems(_PRICE.validate_python(value, strict=True), **where)
    except ValidationError:
        return []


def _model_parts(name: str, entry: Any) -> list[PricingProblem]:
    """One model's problems: of the whole entry when it validates, else of each price in it."""
    try:
        return _model_problems(name, _MODEL_TEMPLATE.validate_python(entry, strict=True))
    except ValidationError:
        pass
    if not isinstance(entry, dict):
        return []
    out: list[PricingProblem] = []
    tiers = entry.get("tiers")
    for index, tier in enumerate(tiers) if isinstance(tiers, list | tuple) else ():
        if not isinstance(tier, dict):
            continue
        if tier.get("above_input_tokens", None) is None:
            out += _checked(None, model=name, tier=index, field="above_input_tokens")
        for field in PRICE_FIELDS:
            out += _checked(tier.get(field), model=name, tier=index, field=field)
    contexts = entry.get("contexts")
    for key, value in sorted(contexts.items()) if isinstance(contexts, dict) else ():
        out += _checked(value, model=name, context=key)
    return out


def complete(template: PricingTemplate) -> PricingClaims | list[PricingProblem]:
    """The completed claim, or every problem that keeps the template from being one."""
    problems = template_problems(template)
    if problems:
        return problems
    return PricingClaims.model_validate(template.model_dump())
