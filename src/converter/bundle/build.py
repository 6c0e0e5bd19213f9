"""Assemble the bundle from a checked contract, the priced events and the public account.

Prices are looked up under the canonical crossing (the names the template's price keys use);
the events written carry the names and timestamps of the contract's privacy policy. Both
crossings come from one reading of the sources, so their events correspond one to one.
"""

from __future__ import annotations

from converter import __version__
from converter.bundle.model import (
    BUNDLE_SCHEMA,
    Bundle,
    Cost,
    Excluded,
    Generator,
    ModelEventOut,
    ModelPricingApplied,
    Receipt,
    TaskOut,
    ToolEventOut,
)
from converter.canonical import sha256_hex
from converter.contract.model import Contract
from converter.errors import Problem
from converter.firewall.view import PublicAccount
from converter.pricing.engine import price_model_event, price_tool_event
from converter.pricing.model import PricingClaims, PricingProblem


def _as_problem(problem: PricingProblem) -> Problem:
    return Problem(problem.code, where=problem.where() or None)


def build_bundle(
    contract: Contract,
    contract_bytes: bytes,
    canonical: PublicAccount,
    shown: PublicAccount,
    claims: PricingClaims,
) -> Bundle | list[Problem]:
    problems: list[Problem] = []
    events: list[ModelEventOut | ToolEventOut] = []
    for priced_on, event in zip(canonical.model_events, shown.model_events, strict=True):
        priced = price_model_event(priced_on, claims)
        if isinstance(priced, list):
            problems += [_as_problem(p) for p in priced]
            continue
        tier = claims.models[priced_on.model].tiers[priced.tier]
        events.append(
            ModelEventOut(
                kind="model",
                id=event.id,
                task=event.task,
                agent=event.agent,
                model=event.model,
                timestamp=event.timestamp,
                usage=event.usage,
                usage_complete=event.usage_complete,
                context=event.context,
                cost=Cost(low=priced.low, high=priced.high),
                pricing=ModelPricingApplied(
                    tier=priced.tier,
                    tier_above_input_tokens=tier.above_input_tokens,
                    context=priced.context,
                    context_multiplier=priced.multiplier,
                    unsplit_cache_write_rule=claims.unsplit_cache_write_rule,
                    output_tokens_high=(
                        priced.high_output.units
                        if priced.high_output
                        else event.usage.output_tokens
                    ),
                ),
            )
        )
    for tool_on, tool in zip(canonical.tool_events, shown.tool_events, strict=True):
        priced_tool = price_tool_event(tool_on, claims)
        if isinstance(priced_tool, list):
            problems += [_as_problem(p) for p in priced_tool]
            continue
        events.append(
            ToolEventOut(
                kind="tool",
                id=tool.id,
                task=tool.task,
                agent=tool.agent,
                name=tool.name,
                requested_by=tool.requested_by,
                status=tool.status,
                shape=tool.shape,
                web_search_requests=tool.web_search_requests,
                cost=Cost(low=priced_tool.cost, high=priced_tool.cost),
            )
        )
    if problems:
        return sorted(set(problems), key=lambda p: (p.code, p.where or ""))
    return _assemble(contract, contract_bytes, shown, claims, events)


def _assemble(
    contract: Contract,
    contract_bytes: bytes,
    shown: PublicAccount,
    claims: PricingClaims,
    events: list[ModelEventOut | ToolEventOut],
) -> Bundle:
    c = contract.claims
    rubric = c.outcome_contract.rubric_version or ""
    excluded = c.excluded_tasks
    return Bundle(
        schema_version=BUNDLE_SCHEMA,
        generator=Generator(name="agent-evidence", version=__version__),
        tasks=tuple(
            TaskOut(
                id=t.id,
                input_digest=t.input_digest,
                rubric_version=rubric,
                started_at=t.started_at,
                model_calls=t.model_calls,
                subagents=t.subagents,
            )
            for t in shown.tasks
        ),
        agents=shown.agents,
        events=tuple(events),
        edges=shown.edges,
        outcomes={tid: o for tid, o in sorted(c.outcomes.items()) if tid not in excluded},
        excluded_tasks=tuple(
            Excluded(task=tid, reason=reason)
            for tid, reason in sorted(excluded.items())
            if reason is not None
        ),
        baseline=c.baseline,
        policy=c.policy,
        receipt=Receipt(
            adapter=contract.source.adapter,
            adapter_version=contract.source.adapter_version,
            task_unit=contract.source.task_unit,
            key_id=contract.key_id,
            inventory_sha256=contract.inventory.inventory_sha256,
            files=contract.inventory.files,
            contract_sha256=sha256_hex(contract_bytes),
            price_card=claims.price_card,
            rubric_version=rubric,
            label_source=c.outcome_contract.label_source or "",
            counts=contract.inventory.counts,
            hidden_calls=contract.inventory.hidden_calls,
            claude_code_versions=contract.inventory.claude_code_versions,
            findings=contract.inventory.findings,
            auxiliary_calls="not-observed",
            privacy=c.privacy,
        ),
    )
