"""Exact pricing (SPEC §8): hand-computed bills, refusal codes, no floats, and invariants."""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from converter.errors import CODES, Refused
from converter.firewall.shapes import ArgShape
from converter.firewall.view import (
    BillingContext,
    Counts,
    ModelEvent,
    PublicAccount,
    ToolEvent,
    UsageTotals,
)
from converter.pricing.card import load_price_card, parse_price_card, prefill, shipped_cards
from converter.pricing.engine import (
    PricedCall,
    PricedTool,
    account_problems,
    observed_keys,
    price_model_event,
    price_tool_event,
)
from converter.pricing.model import (
    ModelTemplate,
    PricingClaims,
    PricingProblem,
    PricingTemplate,
    TierTemplate,
    complete,
)
from tests.conftest import ROOT

CARD = load_price_card("anthropic-2026-11")
STANDARD = BillingContext(
    service_tier="standard", speed="standard", inference_geo="not_available"
)  # "standard|standard|not_available": what a 2.1.2xx call records
FAST = BillingContext(service_tier="standard", speed="fast", inference_geo="not_available")


def event(
    model: str,
    *,
    context: BillingContext = STANDARD,
    complete_usage: bool = True,
    n: int = 1,
    **usage: int,
) -> ModelEvent:
    return ModelEvent(
        id=f"event-{n:012x}",
        task=None,
        agent="agent-000000000000",
        model=model,
        timestamp=None,
        usage=UsageTotals(**usage),
        usage_complete=complete_usage,
        context=context,
        fragments=1,
    )


def tool(name: str, n: int = 1) -> ToolEvent:
    return ToolEvent(
        id=f"event-{n:012x}",
        task=None,
        agent="agent-000000000000",
        name=name,
        requested_by="event-000000000000",
        status="ok",
        shape=ArgShape(kind="object"),
    )


def account(
    models: list[ModelEvent], tools: tuple[ToolEvent, ...] | list[ToolEvent] = ()
) -> PublicAccount:
    zero = dict.fromkeys(Counts.model_fields, 0)
    return PublicAccount(
        key_id="key-0123456789abcdef",
        task_unit="prompt",
        convertible=True,
        files=(),
        agents=(),
        tasks=(),
        model_events=tuple(models),
        tool_events=tuple(tools),
        edges=(),
        refusals=(),
        findings=(),
        counts=Counts(**zero),
        claude_code_versions=(),
    )


def claims_for(
    acc: PublicAccount,
    rule: str = "1h",
    fill: dict[str, Decimal] | None = None,
    multipliers: dict[str, Decimal] | None = None,
) -> PricingClaims:
    """observed keys → card prefill → the user's remaining choices (tool prices `fill`, context
    multipliers the card leaves null) → completed claims."""
    template = prefill(observed_keys(acc), CARD)
    tools = {k: (fill or {}).get(k, v) for k, v in template.client_tools.items()}
    models = {
        name: entry.model_copy(
            update={
                "contexts": {
                    key: value if value is not None else (multipliers or {}).get(key)
                    for key, value in entry.contexts.items()
                }
            }
        )
        for name, entry in template.models.items()
    }
    done = complete(
        template.model_copy(
            update={"unsplit_cache_write_rule": rule, "client_tools": tools, "models": models}
        )
    )
    assert isinstance(done, PricingClaims), done
    return done


# Fast mode is the user's to price (the card cannot: 6x only up to 200K input); these tests use 6.
SIX_FAST = {"standard|fast|not_available": Decimal(6)}


def priced(
    ev: ModelEvent, rule: str = "1h", multipliers: dict[str, Decimal] | None = None
) -> PricedCall:
    result = price_model_event(ev, claims_for(account([ev]), rule, multipliers=multipliers))
    assert isinstance(result, PricedCall), result
    return result


# --- hand-computed bills ----------------------------------------------------------------------


def test_every_bucket_opus_4_6() -> None:
    # Opus 4.6, per million: input 5, output 25, cache read 0.50, write 5m 6.25, write 1h 10.
    #   input        1,000 × 5    / 1e6 = 0.005
    #   output       2,000 × 25   / 1e6 = 0.05
    #   cache read  10,000 × 0.50 / 1e6 = 0.005
    #   write 5m     4,000 × 6.25 / 1e6 = 0.025
    #   write 1h     2,000 × 10   / 1e6 = 0.02
    #   total                            = 0.105
    call = priced(
        event(
            "claude-opus-4-6",
            input_tokens=1_000,
            output_tokens=2_000,
            cache_read_input_tokens=10_000,
            cache_creation_5m_input_tokens=4_000,
            cache_creation_1h_input_tokens=2_000,
        )
    )
    assert call.low == call.high == Decimal("0.1050000000")
    assert str(call.low) == "0.1050000000"
    costs = {line.bucket: str(line.cost) for line in call.breakdown}
    assert costs["cache_write_5m"] == "0.0250000000"
    assert costs["cache_read"] == "0.0050000000"
    assert (call.tier, call.multiplier, call.input_total_tokens) == (0, Decimal(1), 17_000)


def test_tier_boundary_is_exclusive_at_200k() -> None:
    # Sonnet 4.5, total input = 150,000 input + 50,000 cache read = 200,000: not above 200,000,
    # so tier 0 (3 / 0.30 / 15):
    #   150,000 × 3 / 1e6 = 0.45;  50,000 × 0.30 / 1e6 = 0.015;  1,000 × 15 / 1e6 = 0.015
    #   total 0.48
    at = priced(
        event(
            "claude-sonnet-4-5-20250929",
            input_tokens=150_000,
            cache_read_input_tokens=50_000,
            output_tokens=1_000,
        )
    )
    assert (at.tier, at.low) == (0, Decimal("0.48"))
    # One more input token: 200,001 > 200,000, so the WHOLE request moves to tier 1
    # (6 / 0.60 / 22.5):
    #   150,001 × 6 / 1e6 = 0.900006;  50,000 × 0.60 / 1e6 = 0.03;  1,000 × 22.5 / 1e6 = 0.0225
    #   total 0.952506
    above = priced(
        event(
            "claude-sonnet-4-5-20250929",
            input_tokens=150_001,
            cache_read_input_tokens=50_000,
            output_tokens=1_000,
        )
    )
    assert (above.tier, above.low) == (1, Decimal("0.952506"))


def test_cache_writes_count_toward_the_tier() -> None:
    # 100,000 input + 60,000 write 5m + 40,001 write 1h = 200,001 > 200,000 → tier 1.
    call = priced(
        event(
            "claude-sonnet-4-20250514",
            input_tokens=100_000,
            cache_creation_5m_input_tokens=60_000,
            cache_creation_1h_input_tokens=40_001,
        )
    )
    assert call.tier == 1


@pytest.mark.parametrize(("rule", "expected"), [("1h", "6"), ("5m", "3.75")])
def test_unsplit_cache_writes_follow_the_rule(rule: str, expected: str) -> None:
    # Sonnet 4.6: 1,000,000 unsplit write tokens × (1h: 6 | 5m: 3.75) / 1e6 = 6 | 3.75
    call = priced(event("claude-sonnet-4-6", cache_creation_unsplit_input_tokens=1_000_000), rule)
    assert call.low == Decimal(expected)
    (line,) = [b for b in call.breakdown if b.bucket == "cache_write_unsplit"]
    assert line.rate == Decimal(expected)


def test_context_multiplier_applies_to_every_token_class() -> None:
    # Opus 4.6 fast mode, multiplier 6 (the user's: the card leaves fast mode null):
    #   input  1,000,000 × 5  × 6 / 1e6 = 30
    #   output   100,000 × 25 × 6 / 1e6 = 15
    #   write 1h  10,000 × 10 × 6 / 1e6 = 0.6
    #   total 45.6
    call = priced(
        event(
            "claude-opus-4-6",
            context=FAST,
            input_tokens=1_000_000,
            output_tokens=100_000,
            cache_creation_1h_input_tokens=10_000,
        ),
        multipliers=SIX_FAST,
    )
    assert (call.context, call.multiplier, call.low) == (
        "standard|fast|not_available",
        Decimal(6),
        Decimal("45.6"),
    )


def test_usage_incomplete_call_is_an_interval() -> None:
    # Haiku 4.5 (input 1, output 5; max output 64,000 from the card), output recorded 1,000:
    #   low  = 10,000 × 1 / 1e6 +  1,000 × 5 / 1e6 = 0.01 + 0.005 = 0.015
    #   high = 10,000 × 1 / 1e6 + 64,000 × 5 / 1e6 = 0.01 + 0.32  = 0.33
    call = priced(
        event(
            "claude-haiku-4-5-20251001",
            complete_usage=False,
            input_tokens=10_000,
            output_tokens=1_000,
        )
    )
    assert (call.low, call.high) == (Decimal("0.015"), Decimal("0.33"))
    assert call.high_output is not None
    assert call.high_output.units == 64_000


def test_complete_call_has_low_equal_high() -> None:
    call = priced(event("claude-haiku-4-5-20251001", input_tokens=10, output_tokens=10))
    assert call.low == call.high
    assert call.high_output is None


def test_web_search_priced_per_request() -> None:
    # 3 searches × 0.01 (USD 10 per 1,000) = 0.03; 1,000 input × 5 / 1e6 = 0.005; total 0.035.
    # The context multiplier is for tokens: a search stays 0.01 in fast mode too.
    call = priced(
        event("claude-opus-4-6", context=FAST, input_tokens=1_000, web_search_requests=3),
        multipliers=SIX_FAST,
    )
    # 1,000 × 5 × 6 / 1e6 = 0.03 (fast) + 0.03 searches = 0.06
    assert call.low == Decimal("0.06")
    (search,) = [b for b in call.breakdown if b.bucket == "web_search"]
    assert (search.units, search.rate, search.per, search.cost) == (
        3,
        Decimal("0.01"),
        1,
        Decimal("0.03"),
    )
    # Standard: 1,000 × 5 / 1e6 = 0.005 + 0.03 = 0.035.
    standard = priced(event("claude-opus-4-6", input_tokens=1_000, web_search_requests=3))
    assert standard.low == Decimal("0.035")


def test_rounding_is_half_even_at_ten_places() -> None:
    # Rate 0.00005 per million: 1 token = 5e-11 → 0 (half to even);
    # 3 tokens = 1.5e-10 → 2e-10; 5 tokens = 2.5e-10 → 2e-10.
    template = PricingTemplate(
        models={
            "m-tiny": ModelTemplate(
                tiers=(
                    TierTemplate.model_validate(
                        {"above_input_tokens": 0, **dict.fromkeys(_RATES, "0.00005")}
                    ),
                ),
                contexts={"standard|standard|not_available": Decimal(1)},
            )
        },
        server_tools={},
        client_tools={},
        unsplit_cache_write_rule="1h",
    )
    claims = complete(template)
    assert isinstance(claims, PricingClaims)
    for units, expected in [(1, "0E-10"), (3, "2E-10"), (5, "2E-10")]:
        call = price_model_event(event("m-tiny", input_tokens=units), claims)
        assert isinstance(call, PricedCall)
        assert call.low == Decimal(expected)
        assert call.low.as_tuple().exponent == -10


_RATES = ("input", "output", "cache_read", "cache_write_5m", "cache_write_1h")


def test_client_tool_per_call() -> None:
    acc = account(
        [event("claude-opus-4-6", input_tokens=1)], [tool("Bash"), tool("tool-abcdefabcdef", 2)]
    )
    claims = claims_for(acc, fill={"tool-abcdefabcdef": Decimal("0.002")})
    bash = price_tool_event(tool("Bash"), claims)
    mcp = price_tool_event(tool("tool-abcdefabcdef", 2), claims)
    assert isinstance(bash, PricedTool)
    assert isinstance(mcp, PricedTool)
    assert (bash.cost, mcp.cost) == (Decimal(0), Decimal("0.002"))


# --- problems, one test per code ----------------------------------------------------------------


def _codes(result: object) -> list[str]:
    assert isinstance(result, list)
    return [p.code for p in result]


def test_missing_model_is_a_problem_not_zero() -> None:
    claims = claims_for(account([event("claude-opus-4-6", input_tokens=1)]))
    result = price_model_event(event("claude-opus-9", input_tokens=1), claims)
    assert _codes(result) == ["PRICE-MODEL-MISSING"]


def test_missing_context_is_a_problem_never_one() -> None:
    claims = claims_for(account([event("claude-opus-4-6", input_tokens=1)]))
    batch = BillingContext(service_tier="batch")
    result = price_model_event(event("claude-opus-4-6", context=batch, input_tokens=1), claims)
    assert _codes(result) == ["PRICE-CONTEXT-MISSING"]
    assert result[0].context == "batch|absent|absent"  # type: ignore[index]


def test_missing_max_output_only_when_needed() -> None:
    # Opus 4.1 has no documented max output in the card.
    complete_call = event("claude-opus-4-1-20250805", input_tokens=1)
    incomplete = event("claude-opus-4-1-20250805", complete_usage=False, input_tokens=1, n=2)
    claims = claims_for(account([complete_call, incomplete]))
    assert isinstance(price_model_event(complete_call, claims), PricedCall)
    assert _codes(price_model_event(incomplete, claims)) == ["PRICE-MAX-OUTPUT-MISSING"]


def test_missing_web_search_price() -> None:
    claims = claims_for(account([event("claude-opus-4-6", input_tokens=1)]))
    result = price_model_event(event("claude-opus-4-6", web_search_requests=1), claims)
    assert _codes(result) == ["PRICE-SERVER-TOOL-MISSING"]


def test_missing_client_tool_price() -> None:
    claims = claims_for(account([event("claude-opus-4-6", input_tokens=1)]))
    assert _codes(price_tool_event(tool("tool-abcdefabcdef"), claims)) == [
        "PRICE-CLIENT-TOOL-MISSING"
    ]


def test_account_problems_lists_each_distinct_problem_once() -> None:
    events = [
        event("claude-opus-9", input_tokens=1, n=1),
        event("claude-opus-9", input_tokens=2, n=2),
        event("claude-opus-4-6", web_search_requests=1, n=3),
    ]
    claims = claims_for(account([event("claude-opus-4-6", input_tokens=1)]))
    problems = account_problems(account(events, [tool("tool-abcdefabcdef", 4)]), claims)
    assert sorted(p.code for p in problems) == [
        "PRICE-CLIENT-TOOL-MISSING",
        "PRICE-MODEL-MISSING",
        "PRICE-SERVER-TOOL-MISSING",
    ]


def test_complete_reports_every_bad_value_with_safe_locations() -> None:
    # Parsed from JSON-shaped data: decimal strings (and NaN / Infinity text) are accepted by a
    # template so that `complete` can name every bad value.
    template = PricingTemplate.model_validate(
        {
            "models": {
                "claude-sonnet-9": {
                    "tiers": [
                        {"above_input_tokens": 0, "input": "-1", "output": "NaN"},
                        {"above_input_tokens": 0},
                    ],
                    "contexts": {
                        "standard|standard|absent": None,
                        "batch|absent|absent": "Infinity",
                    },
                }
            },
            "server_tools": {"web_search": None},
            "client_tools": {"Bash": 0, "tool-abcdefabcdef": None},
        }
    )
    problems = complete(template)
    assert isinstance(problems, list)
    found = {(p.code, p.where()) for p in problems}
    # a path into the contract, as other refusals give; the name crosses, so it may be shown
    model = "claims/pricing/models/claude-sonnet-9"
    assert (("PRICE-NEGATIVE", f"{model}/tiers/0/input")) in found
    assert ("PRICE-NONFINITE", f"{model}/tiers/0/output") in found
    assert ("PRICE-NULL", f"{model}/tiers/0/cache_read") in found
    assert ("PRICE-NULL", f"{model}/tiers/1/input") in found
    assert ("PRICE-TIERS-INVALID", f"{model}/tiers") in found
    assert ("PRICE-NULL", f"{model}/contexts/standard|standard|absent") in found
    assert ("PRICE-NONFINITE", f"{model}/contexts/batch|absent|absent") in found
    assert ("PRICE-NULL", "claims/pricing/server_tools/web_search") in found
    assert ("PRICE-NULL", "claims/pricing/client_tools/tool-abcdefabcdef") in found
    assert ("PRICE-NULL", "claims/pricing/unsplit_cache_write_rule") in found
    # 5 + 5 tier price fields, 1 tier order, 2 contexts, 2 tools, 1 rule; Bash (0) is fine.
    assert len(problems) == 5 + 5 + 1 + 2 + 2 + 1
    assert all(p.code in CODES for p in problems)
    # the rule's fix names the values it takes (a FinOps walkthrough: it said only "fill")
    assert '"5m" or "1h"' in CODES["PRICE-NULL"].fix


def test_negative_zero_is_negative() -> None:
    assert PricingProblem(code="PRICE-NEGATIVE").code in CODES
    template = PricingTemplate(
        models={},
        server_tools={},
        client_tools={"tool-abcdefabcdef": Decimal("-0")},
        unsplit_cache_write_rule="5m",
    )
    assert _codes(complete(template)) == ["PRICE-NEGATIVE"]


# --- exact decimals, never float ----------------------------------------------------------------


def test_claims_round_trip_through_json_without_float() -> None:
    acc = account(
        [
            event("claude-sonnet-4-5-20250929", input_tokens=1),
            event("claude-opus-4-6", context=FAST, n=2),
        ],
        [tool("Read")],
    )
    claims = claims_for(acc, multipliers=SIX_FAST)
    text = json.dumps(claims.model_dump(mode="json"))
    assert '"input": "3"' in text  # money is written as decimal strings
    assert '"cache_read": "0.30"' in text  # exactly as the card states it

    def no_float(value: str) -> object:
        raise AssertionError(f"a float reached the parser: {value}")

    back = PricingClaims.model_validate(json.loads(text, parse_float=no_float))
    assert back == claims
    rate = back.models["claude-sonnet-4-5-20250929"].tiers[1].output
    assert isinstance(rate, Decimal)
    assert rate == Decimal("22.5")
    # JSON numbers parsed with parse_float=Decimal are accepted and stay exact.
    numeric = text.replace('"0.30"', "0.30")
    again = PricingClaims.model_validate(json.loads(numeric, parse_float=Decimal))
    assert again.models["claude-sonnet-4-5-20250929"].tiers[0].cache_read == Decimal("0.30")


def test_float_is_rejected_by_strict_models() -> None:
    acc = account([event("claude-opus-4-6", input_tokens=1)])
    data = claims_for(acc).model_dump(mode="json")
    data["models"]["claude-opus-4-6"]["tiers"][0]["input"] = 5.0
    with pytest.raises(ValidationError):
        PricingClaims.model_validate(data)
    text = json.dumps(data)
    with pytest.raises(ValidationError):  # plain json.loads gives float: refused
        PricingClaims.model_validate(json.loads(text))
    with pytest.raises(ValidationError):  # pydantic's own JSON path refuses it too
        PricingClaims.model_validate_json(text)
    with pytest.raises(ValidationError):
        TierTemplate(input=0.5)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        TierTemplate(input=True)  # type: ignore[arg-type]


def test_claims_refuse_negative_and_nonfinite() -> None:
    data = claims_for(account([event("claude-opus-4-6", input_tokens=1)])).model_dump(mode="json")
    # "3\n": the price card pattern once used `match` with `$`, which takes a trailing newline.
    for bad in ("-1", "NaN", "Infinity", "1e3", "0x10", "3\n", " 3", "3 "):
        data["models"]["claude-opus-4-6"]["tiers"][0]["output"] = bad
        with pytest.raises(ValidationError):
            PricingClaims.model_validate(data)


# --- observed keys and the card -------------------------------------------------------------------


def test_observed_keys_lists_models_contexts_and_tools() -> None:
    acc = account(
        [
            event("claude-opus-4-6", input_tokens=1, n=1),
            event("claude-opus-4-6", context=FAST, n=2),
            event("claude-haiku-4-5-20251001", context=BillingContext(), n=3),
        ],
        [tool("Agent", 4), tool("Bash", 5), tool("tool-abcdefabcdef", 6)],
    )
    keys = observed_keys(acc)
    assert keys.models["claude-opus-4-6"].contexts == {
        "standard|fast|not_available": None,
        "standard|standard|not_available": None,
    }
    assert keys.models["claude-haiku-4-5-20251001"].contexts == {"absent|absent|absent": None}
    assert keys.server_tools == {}
    assert keys.client_tools == {"Agent": 0, "Bash": 0, "tool-abcdefabcdef": None}
    searched = observed_keys(account([event("claude-opus-4-6", web_search_requests=2)]))
    assert searched.server_tools == {"web_search": None}


def test_prefill_prices_known_models_only() -> None:
    acc = account(
        [
            event("claude-opus-4-6", input_tokens=1, n=1),
            event("claude-unknown-7", input_tokens=1, n=2),
            event("claude-opus-4-6", web_search_requests=1, n=3),
        ]
    )
    filled = prefill(observed_keys(acc), CARD)
    unknown = filled.models["claude-unknown-7"]
    assert unknown.tiers == (TierTemplate(above_input_tokens=0),)  # null, never 0
    assert unknown.contexts == {"standard|standard|not_available": None}
    opus = filled.models["claude-opus-4-6"]
    assert opus.tiers[0].output == Decimal(25)
    assert opus.max_output_tokens == 128_000
    assert filled.server_tools == {"web_search": Decimal("0.01")}
    assert filled.unsplit_cache_write_rule is None  # a user choice, not a card fact
    assert filled.price_card is not None
    assert filled.price_card.model_dump() == {
        "id": "anthropic-2026-11",
        "effective_date": "2026-11",
        "source": "https://platform.claude.com/docs/en/about-claude/pricing",
        "retrieved": "2026-11",
    }


def _ctx(geo: str | None, tier: str = "standard") -> BillingContext:
    return BillingContext(service_tier=tier, speed="standard", inference_geo=geo)


@pytest.mark.parametrize(
    ("model", "context", "expected"),
    [
        ("claude-opus-4-6", _ctx("not_available"), "1"),
        ("claude-opus-4-6", _ctx("global"), "1"),
        ("claude-opus-4-6", _ctx(None), None),  # region not recorded: absent is not standard
        ("claude-opus-4-6", BillingContext(), None),
        ("claude-opus-4-6", _ctx(""), None),  # a gateway's "": says nothing either
        # 6x only up to 200K input, more above: one multiplier cannot say it, the user decides.
        ("claude-opus-4-6", FAST, None),
        ("claude-opus-4-6", _ctx("us"), "1.1"),
        ("claude-opus-4-8", _ctx("us"), "1.1"),
        ("claude-opus-4-8", FAST, None),  # the facts name fast mode for Opus 4.6 only
        ("claude-opus-4-5-20251101", _ctx("us"), None),
        (
            "claude-opus-4-6",
            BillingContext(service_tier="standard", speed="fast", inference_geo="us"),
            None,
        ),
        ("claude-opus-4-6", _ctx("not_available", tier="batch"), None),
        ("claude-opus-4-6", _ctx("not_available", tier="priority"), None),
        ("claude-opus-4-6", _ctx("not_available", tier=""), None),
    ],
)
def test_prefill_context_multipliers(
    model: str, context: BillingContext, expected: str | None
) -> None:
    filled = prefill(observed_keys(account([event(model, context=context)])), CARD)
    value = filled.models[model].contexts[context.key()]
    assert value == (None if expected is None else Decimal(expected))


def test_prefill_keeps_values_the_user_set() -> None:
    template = observed_keys(account([event("claude-opus-4-6", input_tokens=1)]))
    mine = template.models["claude-opus-4-6"].model_copy(
        update={
            "tiers": (TierTemplate(above_input_tokens=0, input=Decimal(4)),),
            "contexts": {"standard|standard|absent": Decimal("0.9")},
        }
    )
    filled = prefill(template.model_copy(update={"models": {"claude-opus-4-6": mine}}), CARD)
    assert filled.models["claude-opus-4-6"].tiers[0].input == Decimal(4)
    assert filled.models["claude-opus-4-6"].contexts["standard|standard|absent"] == Decimal("0.9")


FACTS = {
    # model id: (input, cache write 5m, cache write 1h, cache read, output) — PRICING-FACTS.md
    "claude-opus-4-5-20251101": ("5", "6.25", "10", "0.50", "25"),
    "claude-opus-4-6": ("5", "6.25", "10", "0.50", "25"),
    "claude-opus-4-8": ("5", "6.25", "10", "0.50", "25"),
    "claude-opus-5": ("5", "6.25", "10", "0.50", "25"),
    "claude-opus-4-20250514": ("15", "18.75", "30", "1.50", "75"),
    "claude-opus-4-1-20250805": ("15", "18.75", "30", "1.50", "75"),
    "claude-sonnet-4-20250514": ("3", "3.75", "6", "0.30", "15"),
    "claude-sonnet-4-5-20250929": ("3", "3.75", "6", "0.30", "15"),
    "claude-sonnet-4-6": ("3", "3.75", "6", "0.30", "15"),
    "claude-haiku-4-5-20251001": ("1", "1.25", "2", "0.10", "5"),
    "claude-3-5-haiku-20241022": ("0.80", "1", "1.60", "0.08", "4"),
    "claude-fable-5": ("10", "12.50", "20", "1", "50"),
}


def test_card_matches_the_facts() -> None:
    assert set(CARD.models) == set(FACTS)
    for model, (inp, w5, w1, read, out) in FACTS.items():
        first = CARD.models[model].tiers[0]
        got = (
            first.input,
            first.cache_write_5m,
            first.cache_write_1h,
            first.cache_read,
            first.output,
        )
        assert got == tuple(Decimal(v) for v in (inp, w5, w1, read, out)), model
    long_context = {m for m, c in CARD.models.items() if len(c.tiers) > 1}
    assert long_context == {"claude-sonnet-4-20250514", "claude-sonnet-4-5-20250929"}
    for model in long_context:
        low, high = CARD.models[model].tiers
        assert high.above_input_tokens == 200_000
        assert high.input == 2 * low.input
        assert high.output == Decimal("1.5") * low.output
        for field in ("cache_read", "cache_write_5m", "cache_write_1h"):
            assert getattr(high, field) == 2 * getattr(low, field)
    assert CARD.server_tools == {"web_search": Decimal("0.01")}


def test_a_card_file_with_a_byte_order_mark_reads_as_without() -> None:
    """A fuzz hunt: a card re-saved by an editor with a UTF-8 BOM was PRICE-CARD-INVALID."""
    canonical = ROOT / "src" / "converter" / "pricing" / "cards" / "anthropic-2026-12.json"
    data = canonical.read_bytes()
    assert parse_price_card(b"\xef\xbb\xbf" + data) == parse_price_card(data)


def test_shipped_cards_are_the_canonical_files() -> None:
    canonical = ROOT / "contracts" / "price-cards"
    packaged = ROOT / "src" / "converter" / "pricing" / "cards"
    names = sorted(p.name for p in canonical.glob("*.json"))
    assert names == sorted(p.name for p in packaged.glob("*.json"))
    assert shipped_cards() == [n.removesuffix(".json") for n in names]
    for name in names:
        assert (canonical / name).read_bytes() == (packaged / name).read_bytes(), name
        card = load_price_card(name.removesuffix(".json"))
        assert card.id == name.removesuffix(".json")
        assert load_price_card(canonical / name) == card


# Every shipped card, by id, and the SHA-256 of its file's bytes. A receipt names its card by
# id only, so an id must always mean the same prices: add a line for a new card, never edit one
# (anthropic-2026-11 lost its fast-mode multiplier without a new id once, before any release).
SHIPPED_CARD_SHA256 = {
    "anthropic-2026-11": "a6da5118c32bc72c62452e29f66cb4dab2f434cd5c23837359a241e29c6861dc",
    "anthropic-2026-12": "4c192760552996aa5ae66622ed0c21d2fa2a2b34d941bf29172736255c304bff",
}


def test_the_december_card_adds_opus_4_7_mythos_5_and_data_residency() -> None:
    """A price audit: Opus 4.7 (in PRICING-FACTS' Opus 4.5 - 4.8 row, and named by current
    transcripts) was unpriced, and the 1.1x US-only rate was missing for Sonnet 4.6 and Fable 5
    (Anthropic bills Opus 4.6, Sonnet 4.6 and later at 1.1x), so `inspect --price-card` gave a
    range of no width whose top was 10% low. Everything else is the November card's."""
    december = load_price_card("anthropic-2026-12")
    added = {"claude-opus-4-7": "claude-opus-4-6", "claude-mythos-5": "claude-fable-5"}
    assert set(december.models) == set(CARD.models) | set(added)
    for model, like in added.items():
        assert december.models[model].tiers == CARD.models[like].tiers
    assert december.models["claude-opus-4-7"].max_output_tokens == 128000
    geo = {m for m, c in december.models.items() if "inference_geo=us" in c.context_multipliers}
    assert geo == {
        "claude-opus-4-6",
        "claude-opus-4-7",
        "claude-opus-4-8",
        "claude-opus-5",
        "claude-sonnet-4-6",
        "claude-fable-5",
        "claude-mythos-5",
    }
    assert {december.models[m].context_multipliers["inference_geo=us"] for m in geo} == {
        Decimal("1.1")
    }
    for model, card in CARD.models.items():
        same = card.model_copy(update={"context_multipliers": {}})
        assert december.models[model].model_copy(update={"context_multipliers": {}}) == same
    assert december.server_tools == CARD.server_tools


def test_a_shipped_cards_content_is_fixed_by_its_id() -> None:
    packaged = ROOT / "src" / "converter" / "pricing" / "cards"
    found = {
        p.name.removesuffix(".json"): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(packaged.glob("*.json"))
    }
    rule = (
        "a shipped card's content is fixed by its id; give a changed card a new id (and keep "
        "the old file), then pin the new file's SHA-256 in SHIPPED_CARD_SHA256"
    )
    for card_id, digest in SHIPPED_CARD_SHA256.items():
        assert card_id in found, f"{card_id} is no longer shipped: {rule}"
        assert found[card_id] == digest, f"{card_id} changed (sha256 {found[card_id]}): {rule}"
    new = sorted(set(found) - set(SHIPPED_CARD_SHA256))
    assert not new, f"{new} not pinned: {rule}"


def _refusal(call: object) -> str:
    assert isinstance(call, Refused)
    return call.problems[0].code


def test_card_loader_refusals(tmp_path: Path) -> None:
    with pytest.raises(Refused) as unknown:
        load_price_card("anthropic-1999-01")
    assert _refusal(unknown.value) == "PRICE-CARD-UNKNOWN"
    with pytest.raises(Refused) as missing:
        load_price_card(tmp_path / "nope.json")
    assert _refusal(missing.value) == "PRICE-CARD-UNREADABLE"  # was INVALID: "check the card"
    text = (ROOT / "contracts" / "price-cards" / "anthropic-2026-11.json").read_text()
    for bad in (
        text.replace('"input": "5"', '"input": NaN', 1),
        text.replace('"id": "anthropic-2026-11"', '"id": "a", "id": "b"', 1),
        text.replace('"input": "5"', '"input": "-5"', 1),
        text.replace('"note"', '"extra": 1, "note"', 1),
        text[:-10],
    ):
        with pytest.raises(Refused) as invalid:
            parse_price_card(bad.encode())
        assert _refusal(invalid.value) == "PRICE-CARD-INVALID"
        if "NaN" not in bad:  # the parser's hook for NaN knows no position
            assert all(p.where or p.line for p in invalid.value.problems), invalid.value.problems


@pytest.mark.parametrize(
    "other",
    [
        ROOT / "contracts" / "examples" / "policy-and-baseline.json",
        ROOT / "fixtures" / "synthetic_bundle.golden.json",
        ROOT / "fixtures" / "synthetic_contract.json",
    ],
)
def test_another_of_this_tools_files_given_as_a_card_is_named(other: Path) -> None:
    """A walkthrough: `--price-card team.json` (the policy file) got one PRICE-CARD-INVALID per
    card field and no word that it was the policy file."""
    with pytest.raises(Refused) as refused:
        load_price_card(other)
    assert [p.code for p in refused.value.problems] == ["PRICE-CARD-OTHER-FILE"]


@pytest.mark.parametrize("section", ["policy", "baseline", "outcome_contract"])
def test_a_policy_file_of_one_section_given_as_a_card_is_named(
    section: str, tmp_path: Path
) -> None:
    """A --policy file may fix one section alone (each is optional): a file of only its
    policy, only its baseline or only its outcome contract is still named as a policy file."""
    whole = json.loads((ROOT / "contracts" / "examples" / "policy-and-baseline.json").read_text())
    other = tmp_path / "team.json"
    other.write_text(json.dumps({section: whole[section]}))
    with pytest.raises(Refused) as refused:
        load_price_card(other)
    assert [p.code for p in refused.value.problems] == ["PRICE-CARD-OTHER-FILE"]


def test_a_card_with_a_stray_policy_key_is_still_said_field_by_field() -> None:
    text = (ROOT / "contracts" / "price-cards" / "anthropic-2026-11.json").read_text()
    card = json.loads(text)
    card["policy"] = {}
    with pytest.raises(Refused) as invalid:
        parse_price_card(json.dumps(card).encode())
    assert {p.code for p in invalid.value.problems} == {"PRICE-CARD-INVALID"}


@pytest.mark.parametrize("document", [b"null", b"42", b'"policy"', b'["policy", "receipt"]'])
def test_a_card_that_is_no_object_is_invalid_not_another_file(document: bytes) -> None:
    """Only an object's keys name another of this tool's files: a card file holding a list of
    those words, a string or a number is PRICE-CARD-INVALID (and never a crash on `in`)."""
    with pytest.raises(Refused) as invalid:
        parse_price_card(document)
    assert {p.code for p in invalid.value.problems} == {"PRICE-CARD-INVALID"}


def test_a_card_refusal_says_where_and_quotes_no_key() -> None:
    """Was: PRICE-CARD-INVALID with no line or field (SPEC §6.4: a code and a location)."""
    text = (ROOT / "contracts" / "price-cards" / "anthropic-2026-11.json").read_text()
    card = json.loads(text)
    model = next(iter(card["models"]))
    card["models"][model]["tiers"][0]["input"] = "-5"
    card["models"]["ZQC secret/model"] = card["models"][model]
    with pytest.raises(Refused) as invalid:
        parse_price_card(json.dumps(card).encode())
    where = [p.where for p in invalid.value.problems]
    assert f"models/{model}/tiers/0/input" in where
    assert all("ZQC" not in (w or "") for w in where)
    with pytest.raises(Refused) as duplicate:
        parse_price_card(b'{"id": "x",\n "models": {\n "a": 1,\n "a": 2}}')
    assert [(p.where, p.line) for p in duplicate.value.problems] == [(None, 4)]


def test_end_to_end_account_prices_cleanly() -> None:
    acc = account(
        [
            event("claude-opus-4-6", input_tokens=10, n=1),
            event("claude-haiku-4-5-20251001", complete_usage=False, output_tokens=5, n=2),
            event("claude-opus-4-6", context=FAST, web_search_requests=2, n=3),
        ],
        [tool("Agent", 4), tool("tool-abcdefabcdef", 5)],
    )
    claims = claims_for(acc, fill={"tool-abcdefabcdef": Decimal(0)}, multipliers=SIX_FAST)
    assert account_problems(acc, claims) == []


# --- properties -----------------------------------------------------------------------------------

TOKENS = st.integers(min_value=0, max_value=3_000_000)
USAGE_FIELDS = [
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_5m_input_tokens",
    "cache_creation_1h_input_tokens",
    "cache_creation_unsplit_input_tokens",
    "web_search_requests",
]
MODELS = st.sampled_from(
    ["claude-sonnet-4-5-20250929", "claude-opus-4-6", "claude-haiku-4-5-20251001"]
)
PROPERTY_CLAIMS = claims_for(
    account(
        [
            event("claude-sonnet-4-5-20250929", n=1),
            event("claude-opus-4-6", n=2),
            event("claude-haiku-4-5-20251001", web_search_requests=1, n=3),
        ]
    )
)


@st.composite
def usages(draw: st.DrawFn) -> dict[str, int]:
    return {
        f: draw(TOKENS if f != "web_search_requests" else st.integers(0, 50)) for f in USAGE_FIELDS
    }


def _price(model: str, usage: dict[str, int], complete_usage: bool) -> PricedCall:
    ev = event(model, complete_usage=complete_usage)
    ev = ev.model_copy(update={"usage": UsageTotals(**usage)})
    result = price_model_event(ev, PROPERTY_CLAIMS)
    assert isinstance(result, PricedCall), result
    return result


@given(MODELS, usages(), st.sampled_from(USAGE_FIELDS), st.integers(1, 500_000), st.booleans())
def test_property_cost_is_monotone_in_every_count(
    model: str, usage: dict[str, int], field: str, more: int, complete_usage: bool
) -> None:
    before = _price(model, usage, complete_usage)
    after = _price(model, {**usage, field: usage[field] + more}, complete_usage)
    assert after.low >= before.low
    assert after.high >= before.high


@given(MODELS, usages(), st.booleans())
def test_property_low_never_exceeds_high(model: str, usage: dict[str, int], done: bool) -> None:
    call = _price(model, usage, done)
    assert call.low <= call.high
    if done:
        assert call.low == call.high


@given(usages(), st.integers(0, 1_000_000), st.data())
def test_property_cache_write_split_never_moves_the_tier(
    usage: dict[str, int], writes: int, data: st.DataObject
) -> None:
    split = data.draw(st.integers(0, writes))
    model = PROPERTY_CLAIMS.models["claude-sonnet-4-5-20250929"]
    a = _price(
        "claude-sonnet-4-5-20250929",
        {
            **usage,
            "cache_creation_5m_input_tokens": split,
            "cache_creation_1h_input_tokens": writes - split,
        },
        True,
    )
    b = _price(
        "claude-sonnet-4-5-20250929",
        {
            **usage,
            "cache_creation_5m_input_tokens": 0,
            "cache_creation_1h_input_tokens": 0,
            "cache_creation_unsplit_input_tokens": usage["cache_creation_unsplit_input_tokens"]
            + writes,
        },
        True,
    )
    total = (
        usage["input_tokens"]
        + usage["cache_read_input_tokens"]
        + usage["cache_creation_unsplit_input_tokens"]
        + writes
    )
    # SPEC §8.1, spelled out here: the last tier whose threshold the whole input exceeds
    tier = max((i for i, t in enumerate(model.tiers) if total > t.above_input_tokens), default=0)
    assert a.input_total_tokens == b.input_total_tokens == total
    assert a.tier == b.tier == tier


@given(MODELS, usages(), st.booleans())
def test_property_breakdown_sums_to_the_total(
    model: str, usage: dict[str, int], done: bool
) -> None:
    call = _price(model, usage, done)
    assert sum((b.cost for b in call.breakdown), Decimal(0)) == call.low
    if call.high_output is not None:
        rest = [b.cost for b in call.breakdown if b.bucket != "output"]
        assert sum(rest, call.high_output.cost) == call.high
    for b in call.breakdown:  # every line recomputes by hand
        exact = Decimal(b.units) * b.rate * b.multiplier / Decimal(b.per)
        assert abs(exact - b.cost) <= Decimal("0.00000000005")


def test_a_card_that_prices_nothing_observed_is_not_named() -> None:
    """Was: a gateway session of MiniMax calls only got `price_card: anthropic-2026-11`, and its
    report named the card for prices that were all the user's own."""
    gateway = prefill(observed_keys(account([event("MiniMax-M2.7", input_tokens=1)])), CARD)
    assert gateway.price_card is None
    mixed = account([event("MiniMax-M2.7", input_tokens=1), event("claude-opus-4-6", n=2)])
    assert prefill(observed_keys(mixed), CARD).price_card == CARD.ref()


def test_an_unrecorded_field_spans_every_multiplier_the_card_states_for_it() -> None:
    """Was (second diff review): only the high end moved, so a card stating a discount for a
    field the transcript did not record (a batch tier) left the low end at 1x."""
    from converter.pricing.card import CardModel, unrecorded_bounds

    model = CardModel.model_validate(
        {
            "tiers": [
                {
                    "above_input_tokens": 0,
                    "input": "1",
                    "output": "1",
                    "cache_read": "1",
                    "cache_write_5m": "1",
                    "cache_write_1h": "1",
                }
            ],
            "context_multipliers": {"service_tier=batch": "0.5", "inference_geo=us": "1.1"},
        }
    )
    assert unrecorded_bounds(model, "absent|standard|global") == (Decimal("0.5"), Decimal(1))
    assert unrecorded_bounds(model, "standard|standard|absent") == (Decimal(1), Decimal("1.1"))
    assert unrecorded_bounds(model, "absent|standard|empty") == (Decimal("0.5"), Decimal("1.1"))


def test_the_card_estimate_prices_unsplit_cache_writes_both_ways() -> None:
    """`inspect --price-card` prices a cache write of unknown TTL between the 5m and the 1h
    rate (a mutation review: pricing it at 1h alone survived the pricing tests)."""
    from converter.pricing.estimate import estimate

    call = _dated(  # after Opus 4.6's long-context rate ended: the card's one tier prices it
        "claude-opus-4-6",
        "2026-07-21T09:00:00Z",
        input_tokens=10,
        output_tokens=10,
        cache_creation_unsplit_input_tokens=1_000_000,
    )
    acc = account([call])
    low = price_model_event(call, claims_for(acc, "5m"))
    high = price_model_event(call, claims_for(acc, "1h"))
    assert low.low < high.low  # the card's 1h write rate is above its 5m one
    got = estimate(acc, CARD)
    assert (got.low, got.high) == (low.low, high.high)
    # A card file may state a 5m rate above the 1h one: the low end is the cheaper way, whichever
    # it is (a mutation audit: taking the 5m way's low survived, the shipped cards agreeing).
    opus = CARD.models["claude-opus-4-6"]
    dear = opus.tiers[0].model_copy(update={"cache_write_5m": opus.tiers[0].cache_write_1h * 2})
    swapped = CARD.model_copy(
        update={
            "models": {**CARD.models, "claude-opus-4-6": opus.model_copy(update={"tiers": (dear,)})}
        }
    )
    turned = estimate(acc, swapped)
    assert turned.low == high.low  # the 1h way, now the cheaper
    assert turned.low < turned.high


@given(
    card_id=st.one_of(
        st.sampled_from(["anthropic-2026-12", "none", "mixed", "Team_Card:1", "a", "-a", "a.b-c"]),
        st.text(alphabet="abcAZ019.-_: ", max_size=70),
    )
)
def test_property_reports_take_the_card_ids_cards_take(card_id: str) -> None:
    """Was: inspect's and scan's reports had their own, looser copy of a card id's shape
    (`Team_Card:1`, `none`), which their published schemas carried (a code review)."""
    from pydantic import TypeAdapter

    from converter.pricing.model import NamedCardId
    from converter.run.outputs import CardId

    def takes(shape: Any) -> bool:
        try:
            TypeAdapter(shape).validate_python(card_id)
        except ValidationError:
            return False
        return True

    assert takes(CardId) == takes(NamedCardId)


@pytest.mark.parametrize(
    "setting",
    ["service_tier=standard", "speed=standard", "inference_geo=global", "speed=absent"],
)
def test_a_card_multiplier_that_could_never_apply_is_refused(setting: str) -> None:
    """Was: a card file's multiplier for a standard value (`service_tier=standard: 0`) or an
    unrecorded one validated, and was passed over: the template filled 1 under that card's
    name (a hostile-card audit)."""
    shipped = Path(__file__).parent.parent / "contracts" / "price-cards" / "anthropic-2026-12.json"
    card = json.loads(shipped.read_bytes())
    card["id"] = "team-card"
    model = next(iter(card["models"].values()))
    name = next(iter(card["models"]))
    model["context_multipliers"] = {"inference_geo=us": "1.1", setting: "0", "speed=empty": "2"}
    with pytest.raises(Refused) as invalid:
        parse_price_card(json.dumps(card).encode())
    at = f"models/{name}/context_multipliers"
    assert [(p.code, p.where) for p in invalid.value.problems] == [
        ("PRICE-CARD-INVALID", f"{at}/<key #2> (the key)"),  # each at its key, by its place
        ("PRICE-CARD-INVALID", f"{at}/<key #3> (the key)"),
    ]
    model["context_multipliers"] = {"inference_geo=us": "1.1"}  # a surcharge: taken
    assert parse_price_card(json.dumps(card).encode()).id == "team-card"


def _dated(model: str, timestamp: str | None, **usage: int) -> ModelEvent:
    return event(model, **usage).model_copy(update={"timestamp": timestamp})


@pytest.mark.parametrize(
    ("model", "timestamp", "cache_read", "ended"),
    [
        ("claude-opus-4-6", "2026-03-13T23:59:59.999Z", 199_991, True),  # 200,001 in all
        ("claude-opus-4-6", "2026-03-13T23:59:59.999Z", 199_990, False),  # 200,000: base tier
        ("claude-sonnet-4-6", "2026-02-01T00:00:00Z", 290_000, True),
        ("claude-opus-4-6", None, 290_000, True),  # no time: not shown to be after the end
        ("claude-opus-4-6", "2026-03-14T00:00:00Z", 290_000, False),  # the day after: one tier
        ("claude-opus-4-6", "2026-03-14", 290_000, False),  # a day-coarse time of that day
        ("claude-opus-4-5-20251101", "2026-02-01T00:00:00Z", 290_000, False),  # never had one
    ],
)
def test_a_cards_one_tier_for_a_call_billed_at_an_ended_long_context_rate(
    model: str, timestamp: str | None, cache_read: int, ended: bool
) -> None:
    call = _dated(model, timestamp, input_tokens=10, cache_read_input_tokens=cache_read)
    claims = claims_for(account([call]))
    assert claims.price_card is not None
    found = [p.code for p in account_problems(account([call]), claims)]
    assert found == (["PRICE-CARD-TIER-ENDED"] if ended else [])
    # Your own prices (no card named) are yours: one tier or two.
    own = claims.model_copy(update={"price_card": None})
    assert account_problems(account([call]), own) == []


def test_a_long_context_tier_of_its_own_is_not_refused() -> None:
    """A card (a file) or contract that states the model's long-context tier prices it."""
    call = _dated("claude-opus-4-6", "2026-02-01T00:00:00Z", cache_read_input_tokens=290_000)
    claims = claims_for(account([call]))
    entry = claims.models["claude-opus-4-6"]
    base = entry.tiers[0]
    long = base.model_copy(update={"above_input_tokens": 200_000, "input": base.input * 2})
    two = entry.model_copy(update={"tiers": (base, long)})
    claims = claims.model_copy(update={"models": {"claude-opus-4-6": two}})
    assert account_problems(account([call]), claims) == []


def test_the_session_start_is_the_earliest_instant_not_the_least_string() -> None:
    """A determinism audit: `…:59Z` sorts after `…:59.500Z` as text ('Z' > '.'), so the later
    instant was taken for the session's start."""
    from types import SimpleNamespace

    from converter.pricing.engine import _session_start

    calls = [SimpleNamespace(timestamp=t) for t in ("2026-03-13T23:59:59.500Z", None)]
    tasks = [SimpleNamespace(started_at="2026-03-13T23:59:59Z")]
    account: Any = SimpleNamespace(model_events=calls, tasks=tasks)
    assert _session_start(account) == "2026-03-13T23:59:59Z"
    tasks[0].started_at = "2026-03-14T00:00:00Z"
    assert _session_start(account) == "2026-03-13T23:59:59.500Z"
