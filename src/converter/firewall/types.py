"""Constrained string types for everything that leaves the firewall.

No output model has a free `str` field: each string is a digest, a keyed pseudonym, a code, a
model id, an allowed name, a version or a timestamp, and each type's pattern rejects spaces,
slashes and anything long enough to smuggle content. Outside this module two kinds of string
hold spaces: the labels a contract publishes (`contract/model.py`: one word since 0.3; a 0.2
bundle's, which may hold spaces and slashes, still open) and evaluation's gate rules, a fixed
set of sentences (`evaluate/result.py` `Rule`).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    StringConstraints,
    WithJsonSchema,
)
from pydantic_core import PydanticCustomError

from converter.limits import INT64_MAX

DIGITS = 30  # before and after the point: what a decimal string in an artifact may hold


# A plain decimal string of any digit count (up to 500 each side, so reading one stays cheap)
# is read as a Decimal, so one with too many digits is refused for that (`_fits`,
# PRICE-TOO-PRECISE), as the same value written as a JSON number is, not as a string of the
# wrong shape.
_DECIMAL_LIKE = re.compile(r"-?[0-9]{1,500}(\.[0-9]{1,500})?")


def exact_decimal(value: Any) -> Any:
    """Accept an int or a plain decimal string as an exact Decimal; never a float or a bool."""
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    if isinstance(value, str) and _DECIMAL_LIKE.fullmatch(value):
        return Decimal(value)
    return value


Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
KeyedDigest = Annotated[str, StringConstraints(pattern=r"^hmac-sha256:[0-9a-f]{64}$")]
KeyId = Annotated[str, StringConstraints(pattern=r"^key-[0-9a-f]{16}$")]
Pseudonym = Annotated[
    str,
    StringConstraints(
        pattern=r"^(task|event|agent|file|tool|agent-type|model|run|edge)-[0-9a-f]{12}$"
    ),
]
# A name that crosses: a built-in, a contract-revealed identifier, or a pseudonym. Identifier
# characters only, bounded: a sentence cannot fit.
PublicName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z][A-Za-z0-9_.:-]{0,63}$")]
# A model id as providers spell them: `claude-opus-4-5-20251101`, `MiniMax-M2.7`, an optional
# region or vendor prefix (`us.anthropic.`, `anthropic/`), a Vertex date (`...@20241022`), a
# Bedrock or OpenRouter suffix (`...-v2:0`, `:1:18k`, `:thinking`), or `<synthetic>`. No `_`, one
# `/` at most, `@` only before a date: an e-mail, a path or an API token does not fit. What may
# cross as written is narrower still (`names.model_crosses`).
MODEL_ID = (
    r"<synthetic>|(?:[a-z0-9][a-z0-9-]{0,30}/)?[A-Za-z0-9][A-Za-z0-9.-]{0,62}(?:@[0-9]{8})?"
    r"(?::(?:[0-9]{1,3}|[0-9]{1,4}k|thinking|beta|free|extended|nitro|floor|online|latest)){0,2}"
)
# The type every model field of a contract, bundle or price card has: the shape bundle schema v1
# has always accepted, so a bundle or contract written by an earlier version still opens (and
# its signature can be checked). The firewall decides what crosses; this only bounds it.
ModelName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9<][A-Za-z0-9_.:@/>-]{0,79}$")]
Code = Annotated[str, StringConstraints(pattern=r"^[A-Z]+(-[A-Z0-9]+)+$")]
# A Claude Code version as it crosses: three short numbers (a longer run could carry a number of
# its own). The type keeps bundle schema v1's shape, so older bundles still open.
VERSION = r"[0-9]{1,2}\.[0-9]{1,3}\.[0-9]{1,4}"
Version = Annotated[str, StringConstraints(pattern=r"^[0-9]{1,4}(\.[0-9]{1,6}){1,3}$")]
Timestamp = Annotated[
    str,
    StringConstraints(
        # v1's shape; what crosses is milliseconds at most, a real instant (`boundary.coarsen`)
        pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}(:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?)?Z)?$"
    ),
]
# service_tier / speed / inference_geo values, and "absent" when the field is missing.
ContextValue = Annotated[str, StringConstraints(pattern=r"^[a-z0-9_-]{0,32}$")]
FileRole = Annotated[
    str,
    StringConstraints(
        pattern=r"^(parent|subagent|meta|journal|workflow-manifest|provider-index|"
        r"provider-request|provider-response|contract|bundle|attestation|key)$"
    ),
]
# A count is a JSON integer every reader takes: within int64, like the transcript's own.
Count = Annotated[int, Field(ge=0, le=INT64_MAX)]


def decimal_text(value: Decimal) -> str:
    """Positional notation, never an exponent: `0.0000000000`, not `0E-10`."""
    return format(value, "f")


AS_TEXT = PlainSerializer(decimal_text, return_type=str, when_used="json")


def decimal_fits(value: Decimal) -> bool:
    """Whether `value` is written in at most DIGITS digits before and after the point (the
    form artifacts write). Decided from the exponent, never by writing the value
    out: `1e-999999999` would be a billion characters."""
    if not value.is_finite():
        return True  # refused as non-finite elsewhere, with its own message
    _, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    after = max(-exponent, 0)
    before = max(len(digits) + exponent, 0)
    return after <= DIGITS and before <= DIGITS


def _fits(value: Decimal) -> Decimal:
    if not decimal_fits(value):
        raise PydanticCustomError(
            "decimal_digits",
            "at most {digits} digits before and after the point",
            {"digits": DIGITS},
        )
    return value


_BOUNDED = AfterValidator(_fits)


def _unsigned(value: Decimal) -> Decimal:
    """A sign on zero (`-0`, `"-0.000"`) is refused like any negative: written back, it would
    put a minus into a field that may not be negative (as a price of `-0` is, PRICE-NEGATIVE)."""
    if value.is_signed():
        raise PydanticCustomError(
            "greater_than_equal", "Input should be greater than or equal to {ge}", {"ge": 0}
        )
    return value


_UNSIGNED = AfterValidator(_unsigned)


def decimal_schema(*, signed: bool = False, at_most_one: bool = False) -> tuple[Any, Any]:
    """The JSON Schema of an exact decimal, as written (a decimal string, `"12.50"`) and as read
    (that, or a JSON number, which the readers take exactly): pydantic's own would say a
    string of any text, or use its own keywords (`ge`) that no JSON Schema validator knows.
    A schema validator cannot see a sign on zero or the digit bounds; the readers refuse them."""
    pattern = "^-?[0-9]+(\\.[0-9]+)?$" if signed else "^[0-9]+(\\.[0-9]+)?$"
    text = {"type": "string", "pattern": pattern}
    number: dict[str, Any] = {"type": "number"}
    if not signed:
        number["minimum"] = 0
    if at_most_one:
        number["maximum"] = 1
        text["pattern"] = "^0*(1(\\.0+)?|0(\\.[0-9]+)?)$"  # "00.5" and "01" read too
    return (
        WithJsonSchema(text, mode="serialization"),
        WithJsonSchema({"anyOf": [text, number]}, mode="validation"),
    )


Money = Annotated[
    Decimal,
    BeforeValidator(exact_decimal),
    Field(allow_inf_nan=False),
    _BOUNDED,
    AS_TEXT,
    *decimal_schema(signed=True),
]
NonNegativeMoney = Annotated[
    Decimal,
    BeforeValidator(exact_decimal),
    Field(ge=0, allow_inf_nan=False),
    _UNSIGNED,
    _BOUNDED,
    AS_TEXT,
    *decimal_schema(),
]
Rate = Annotated[
    Decimal,
    BeforeValidator(exact_decimal),
    Field(ge=0, le=1, allow_inf_nan=False),
    _UNSIGNED,
    _BOUNDED,
    AS_TEXT,
    *decimal_schema(at_most_one=True),
]


# One `set` object per distinct set of explicitly given fields, shared by every frozen instance.
_FIELDS_SETS: dict[frozenset[str], set[str]] = {}


class Closed(BaseModel):
    """Base for every model that can leave the firewall: frozen, no extra keys."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    def model_post_init(self, context: Any, /) -> None:
        """Instances given the same fields share one fields-set object. pydantic keeps a fresh
        216-byte set per instance, nearly half of a small model (an edge is 480 bytes), and a
        frozen model never changes it: assignment is refused, and `model_copy` copies the set
        before updating it. 26 MB of the public account of the 200 MB bench tree."""
        own = self.__pydantic_fields_set__
        key = frozenset(own)
        shared = _FIELDS_SETS.get(key)
        if shared is None:
            shared = _FIELDS_SETS[key] = set(own)
        object.__setattr__(self, "__pydantic_fields_set__", shared)
