"""SPEC §8.6: a reviewer holding only the bundle recomputes every cost by hand. This test is
that reviewer: exact `decimal` arithmetic over the bundle's JSON, no code of the package. Exact:
a contract price may hold 30 digits each side of the point, and the default 28-digit context
rounds such a product (an audit's by-hand recompute missed one event by 1E-10 so)."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import fixture_parent
from tests.contract_helpers import fill, read_json, write_json

QUANTUM = Decimal("1E-10")
BUCKETS = [
    ("input_tokens", "input"),
    ("cache_read_input_tokens", "cache_read"),
    ("cache_creation_5m_input_tokens", "cache_write_5m"),
    ("cache_creation_1h_input_tokens", "cache_write_1h"),
]


def _line(units: int, rate: str, multiplier: Decimal, per: int) -> Decimal:
    with localcontext(prec=200):  # exact for any price a contract holds
        return (units * Decimal(rate) * multiplier / per).quantize(QUANTUM, ROUND_HALF_EVEN)


def _context_key(context: dict[str, Any]) -> str:
    """The event's billing context as `pricing` keys it: each field, `absent` when not
    recorded, `empty` when recorded as ""."""
    fields = (context["service_tier"], context["speed"], context["inference_geo"])
    return "|".join("absent" if v is None else v or "empty" for v in fields)


def _by_hand(event: dict[str, Any], pricing: dict[str, Any]) -> tuple[Decimal, Decimal]:
    applied = event["pricing"]
    model = pricing["models"][event["model"]]
    tier = model["tiers"][applied["tier"]]
    assert Decimal(tier["above_input_tokens"]) == Decimal(applied["tier_above_input_tokens"])
    assert applied["context"] == _context_key(event["context"])
    multiplier = Decimal(model["contexts"][applied["context"]])
    assert multiplier == Decimal(applied["context_multiplier"])
    usage = event["usage"]
    unsplit = "cache_write_1h" if pricing["unsplit_cache_write_rule"] == "1h" else "cache_write_5m"
    rest = [_line(usage[field], tier[rate], multiplier, 10**6) for field, rate in BUCKETS]
    rest.append(
        _line(usage["cache_creation_unsplit_input_tokens"], tier[unsplit], multiplier, 10**6)
    )
    if usage["web_search_requests"]:
        search = pricing["server_tools"]["web_search"]
        rest.append(_line(usage["web_search_requests"], search, Decimal(1), 1))
    # the high end's output: a usage-incomplete call's bound (its request's max_tokens where the
    # event gives one, else the model's max_output_tokens) where above what it recorded
    bound = event.get("request_max_tokens", model.get("max_output_tokens"))
    high_output = usage["output_tokens"]
    if not event["usage_complete"]:
        high_output = max(high_output, bound)
    assert applied["output_tokens_high"] == high_output
    with localcontext(prec=200):
        low = sum(rest, _line(usage["output_tokens"], tier["output"], multiplier, 10**6))
        high = sum(rest, _line(applied["output_tokens_high"], tier["output"], multiplier, 10**6))
    return low, high


@pytest.mark.parametrize("tree", ["synthetic_tree", "rich_tree"])
@pytest.mark.parametrize("rule", ["1h", "5m"])
def test_every_cost_recomputes_from_the_bundle_alone(
    tree: str, rule: str, cli: Any, tmp_path: Path
) -> None:
    parent = fixture_parent(tree)
    template = tmp_path / "template.json"
    assert cli("convert", "--in", str(parent), "--template", str(template)).code == 0
    contract = fill(read_json(template))
    pricing = contract["claims"]["pricing"]
    pricing["unsplit_cache_write_rule"] = rule
    for n, entry in enumerate(pricing["models"].values()):
        # Two tiers and a multiplier that is not 1: a reviewer must pick the right ones.
        entry["tiers"].append({**entry["tiers"][0], "above_input_tokens": 10_000 * (n + 1)})
        # a price of 31 digits: the default 28-digit context would round its products
        entry["tiers"][1]["input"] = "1.000000320000000000000000000001"
        entry["contexts"] = dict.fromkeys(entry["contexts"], "1.1")
    write_json(tmp_path / "contract.json", contract)
    out = tmp_path / "bundle.json"
    args = ["--contract", str(tmp_path / "contract.json"), "--out", str(out)]
    result = cli("convert", "--in", str(parent), *args)
    assert result.code == 0, result.err
    bundle = read_json(out)
    prices = bundle["pricing"]
    models = [e for e in bundle["events"] if e["kind"] == "model"]
    assert models
    assert {e["model"] for e in models} == set(prices["models"])
    assert {e["pricing"]["tier"] for e in models} == {0, 1}  # both tiers priced, and checked
    for event in models:
        low, high = _by_hand(event, prices)
        assert (Decimal(event["cost"]["low"]), Decimal(event["cost"]["high"])) == (low, high)
    for event in (e for e in bundle["events"] if e["kind"] == "tool"):
        cost = _line(1, prices["client_tools"][event["name"]], Decimal(1), 1)
        assert Decimal(event["cost"]["low"]) == Decimal(event["cost"]["high"]) == cost


def test_prices_the_contract_names_for_anything_else_stay_out(cli: Any, tmp_path: Path) -> None:
    """A contract may price models and tools the sources never used: those keys are the user's
    own typing, and the bundle carries only what its events use."""
    parent = fixture_parent("synthetic_tree")
    template = tmp_path / "template.json"
    assert cli("convert", "--in", str(parent), "--template", str(template)).code == 0
    contract = fill(read_json(template))
    pricing = contract["claims"]["pricing"]
    model = next(iter(pricing["models"].values()))
    pricing["models"]["claude-opus-9"] = model
    model["contexts"]["priority|fast|us"] = "2"
    pricing["client_tools"]["mcp__acme_payroll__query"] = "0.5"
    write_json(tmp_path / "contract.json", contract)
    out = tmp_path / "bundle.json"
    args = ["--contract", str(tmp_path / "contract.json"), "--out", str(out)]
    assert cli("convert", "--in", str(parent), *args).code == 0
    text = out.read_text()
    assert "claude-opus-9" not in text
    assert "priority|fast|us" not in text
    assert "acme" not in text
