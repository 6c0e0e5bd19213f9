"""Complete a contract template with placeholder claims, as a user would, for benches and tests.

The values are arbitrary but valid: every outcome acceptable, one price tier per model, every
billing context at multiplier 1, generous policy limits.
"""

from __future__ import annotations

from typing import Any

PRICES = {
    "input": "3",
    "output": "15",
    "cache_read": "0.30",
    "cache_write_5m": "3.75",
    "cache_write_1h": "6",
}
POLICY = {
    "human_hourly_cost_usd": "90",
    "min_acceptable_rate": "0.5",
    "max_cost_per_acceptable_outcome_usd": "1000",
    "max_p95_task_cost_usd": "1000",
    "max_trace_cost_per_task_usd": "1000",
    "max_calls_per_task": 100000,
    "min_expected_net_value_per_attempt_usd": "-100000",
    "min_incremental_net_value_vs_baseline_usd": "-100000",
    "repetition_warning_threshold": 5,
    "min_tasks": 1,
    "disabled_checks": [],
}
BASELINE = {
    "name": "manual",
    "cost_per_attempt_usd": "30",
    "acceptable_rate": "0.9",
    "value_per_acceptable_outcome_usd": "40",
}
OUTCOME = {
    "acceptable": True,
    "business_value_usd": "40",
    "human_minutes": "3",
    "remediation_cost_usd": "0",
    "incident_loss_usd": "0",
}


def fill(template: dict[str, Any]) -> dict[str, Any]:
    """Fill every null claim of a parsed template in place; returns it."""
    claims = template["claims"]
    for task_id in claims["outcomes"]:
        claims["outcomes"][task_id] = dict(OUTCOME)
    claims["outcome_contract"] = {"rubric_version": "r1", "label_source": "test"}
    claims["baseline"] = dict(BASELINE)
    claims["policy"] = dict(POLICY)
    pricing = claims["pricing"]
    for entry in pricing["models"].values():
        entry["tiers"] = [{"above_input_tokens": 0, **PRICES}]
        entry["contexts"] = dict.fromkeys(entry["contexts"], "1")
        entry["max_output_tokens"] = 64000
    for name in pricing["server_tools"]:
        pricing["server_tools"][name] = "0.01"
    for name, value in pricing["client_tools"].items():
        if value is None:
            pricing["client_tools"][name] = "0.001"
    pricing["unsplit_cache_write_rule"] = "1h"
    return template
