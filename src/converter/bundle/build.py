"""Assemble the bundle from a checked contract, the priced events and the public account.

Prices are looked up under the canonical crossing (the names the template's price keys use);
the events written carry the names and timestamps of the contract's privacy policy. Both
crossings come from one reading of the sources, so their events correspond one to one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from converter import GENERATOR, __version__
from converter.bundle.model import (
    BULK_FIELDS,
    BUNDLE_SCHEMA,
    BundleHead,
    Excluded,
    Generator,
    Receipt,
    TaskOut,
)
from converter.bundle.spool import Spill, Spool
from converter.codec.canonical import array_chunks, dumped, encode, field_chunks
from converter.contract.model import Contract, Privacy, PublishedBaseline
from converter.errors import Problem
from converter.firewall.types import decimal_text
from converter.firewall.view import PublicAccount, ToolEvent
from converter.limits import MAX_COST
from converter.pricing.engine import price_model_event, price_tool_event
from converter.pricing.model import ModelPricing, PricingClaims

# A path into the contract as written (`contract.read.contract_paths` says it as a message may).
ContractPath = tuple[str | int, ...]


@dataclass(slots=True)
class BuiltBundle:
    """A bundle written as it is built: `data` holds its canonical bytes with the receipt still
    unsealed at `receipt_at` of its tail (`bundle.io.seal` puts the evidence digest there, in
    place)."""

    head: BundleHead
    data: Spool
    receipt_at: int
    receipt_len: int
    # Entries of the contract's privacy.reveal_names the session has no name for (`_revealed`
    # publishes only the others): a typo, or a list shared by sessions. Their paths in the
    # contract; not kept in the bundle.
    unrevealed: tuple[ContractPath, ...] = ()
    # Price entries of the contract for what the session does not use (a model, a billing
    # context, a tool, web search): left out of the bundle; their paths, so a typo is found.
    prices_unused: tuple[ContractPath, ...] = ()


class _Writer:
    """Canonical bytes of the bundle, written member by member in key order into a `Spool`.
    Events and edges are encoded as they are priced and never kept as models: the bundle of the
    200 MB bench tree would hold 70k of them."""

    def __init__(self, spill: Spill | None) -> None:
        self.data = Spool(spill)
        self.data.add(b"{")
        self.members = 0

    def key(self, name: str) -> None:
        self.data.add((b"," if self.members else b"") + encode(name) + b":")
        self.members += 1

    def value(self, model: BaseModel, name: str) -> None:
        self.key(name)
        for part in field_chunks(model, name):
            self.data.add(part)

    def items(self, name: str, values: Iterable[Any]) -> None:
        """A JSON array of already dumped values, each encoded and appended as it comes."""
        self.key(name)
        for part in array_chunks(values):
            self.data.add(part)


def build_bundle(
    contract: Contract,
    contract_digest: str,
    canonical: PublicAccount,
    shown: PublicAccount,
    claims: PricingClaims,
    spill: Spill | None = None,
) -> BuiltBundle | list[Problem]:
    """The bundle's bytes, unsealed, or every problem met pricing its events. With `spill` (an
    unnamed file, `files.spill_file`), the bytes before the receipt are kept there, not in
    memory: an OSError writing it is the caller's to report."""
    problems: list[Problem] = []
    prices, unused = _prices_used(canonical, shown, claims)
    head = _head(contract, contract_digest, shown, claims, prices)
    # Top-level keys in canonical order: agents, baseline, edges, events, then the rest.
    names = sorted([*type(head).model_fields, *BULK_FIELDS])
    writer = _Writer(spill)
    receipt_at = receipt_len = 0
    for name in names:
        if name == "edges":
            writer.items(name, dumped(shown.edges))
        elif name == "events":
            writer.items(name, _events(canonical, shown, claims, problems))
        elif name == "receipt":
            writer.key(name)
            receipt_at = writer.data.hold()  # sealing rewrites the receipt: it stays in memory
            # Unsealed: without `evidence_sha256`, which is what the digest is taken over.
            receipt = encode(head.receipt.model_dump(mode="json", exclude={"evidence_sha256"}))
            receipt_len = len(receipt)
            writer.data.add(receipt)
        else:
            writer.value(head, name)
    writer.data.add(b"}")
    if problems:
        return sorted(set(problems), key=lambda p: (p.code, p.where or ""))
    revealed = set(head.receipt.privacy.reveal_names)
    unrevealed = tuple(
        ("claims", "privacy", "reveal_names", i)
        for i, name in enumerate(contract.claims.privacy.reveal_names)
        if name not in revealed
    )
    return BuiltBundle(head, writer.data, receipt_at, receipt_len, unrevealed, unused)


def _events(
    canonical: PublicAccount,
    shown: PublicAccount,
    claims: PricingClaims,
    problems: list[Problem],
) -> Iterator[dict[str, Any]]:
    """Every event, priced, as the JSON-mode dump of its `ModelEventOut` / `ToolEventOut`; an
    event that cannot be priced adds its problems instead.

    Built from parts that are each validated already, not by validating an output model per
    event (30k of them on the bench tree, a third of the bundle step): the crossed event's own
    dump (a public model), its cost (Decimals the engine computed, bounded below), the applied
    pricing (the contract's validated prices). `tests/test_bundle_build.py` checks that every
    event of the fixtures and the corpus validates as its output model and dumps back the same.
    """
    shown_models = dumped(shown.model_events)
    for priced_on, event, out in zip(
        canonical.model_events, shown.model_events, shown_models, strict=True
    ):
        priced = price_model_event(priced_on, claims)
        if isinstance(priced, list):
            problems += [p.as_problem() for p in priced]
            continue
        if priced.high >= MAX_COST:  # prices within bounds can still multiply past them
            problems.append(
                Problem("PRICE-COST-TOO-LARGE", where=f"claims/pricing/models/{priced_on.model}")
            )
            continue
        tier = claims.models[priced_on.model].tiers[priced.tier]
        del out["fragments"]  # the reader's count, not a bundle field
        out["kind"] = "model"
        out["cost"] = {"low": decimal_text(priced.low), "high": decimal_text(priced.high)}
        out["pricing"] = {
            "tier": priced.tier,
            "tier_above_input_tokens": tier.above_input_tokens,
            "context": priced.context,
            "context_multiplier": decimal_text(priced.multiplier),
            "unsplit_cache_write_rule": claims.unsplit_cache_write_rule,
            "output_tokens_high": (
                priced.high_output.units if priced.high_output else event.usage.output_tokens
            ),
        }
        yield out
    # A tool's price is per call: one pricing and one cost per tool name, not one per call
    # (18k tool calls name a dozen tools on the bench tree).
    tool_costs: dict[str, dict[str, str] | list[Problem]] = {}
    shown_tools = dumped(shown.tool_events)
    for tool_on, out in zip(canonical.tool_events, shown_tools, strict=True):
        cost = tool_costs.get(tool_on.name)
        if cost is None:
            cost = tool_costs[tool_on.name] = _tool_cost(tool_on, claims)
        if isinstance(cost, list):
            problems += cost
            continue
        out["kind"] = "tool"
        out["cost"] = cost
        yield out


def _tool_cost(tool: ToolEvent, claims: PricingClaims) -> dict[str, str] | list[Problem]:
    """The cost of one call of `tool` as a bundle writes it, or why it has none (each problem
    said once per tool)."""
    priced = price_tool_event(tool, claims)
    if isinstance(priced, list):
        return [p.as_problem() for p in priced]
    if priced.cost >= MAX_COST:
        return [Problem("PRICE-COST-TOO-LARGE", where=f"claims/pricing/client_tools/{tool.name}")]
    text = decimal_text(priced.cost)
    return {"low": text, "high": text}


def _prices_used(
    canonical: PublicAccount, shown: PublicAccount, claims: PricingClaims
) -> tuple[PricingClaims, tuple[ContractPath, ...]]:
    """The contract's prices for what the events use (each priced model with its observed
    contexts, the tools called, web search if any call searched), keyed by the names the
    events show; and the paths in the contract of its price entries that price nothing the
    events use (a model no call names, a context of a priced model no call of it has, a client
    tool never called, a server tool's price when no call searched). Those stay out of the
    bundle."""
    names: dict[str, str] = {}
    contexts: dict[str, set[str]] = {}
    for priced_on, event in zip(canonical.model_events, shown.model_events, strict=True):
        names[priced_on.model] = event.model
        contexts.setdefault(priced_on.model, set()).add(priced_on.context.key())
    models: dict[str, ModelPricing] = {}
    for model, keys in contexts.items():
        price = claims.models.get(model)
        if price is not None:  # an unpriced model refuses the bundle
            models[names[model]] = ModelPricing(
                tiers=price.tiers,
                max_output_tokens=price.max_output_tokens,
                contexts={k: price.contexts[k] for k in sorted(keys) if k in price.contexts},
            )
    tools = {}
    called: set[str] = set()
    for tool_on, tool in zip(canonical.tool_events, shown.tool_events, strict=True):
        called.add(tool_on.name)
        if tool_on.name in claims.client_tools:
            tools[tool.name] = claims.client_tools[tool_on.name]
    searched = any(e.usage.web_search_requests for e in canonical.model_events)
    at = ("claims", "pricing")
    unused: list[ContractPath] = []
    for model, price in claims.models.items():
        if model not in contexts:
            unused.append((*at, "models", model))
        else:
            seen = contexts[model]
            unused += [
                (*at, "models", model, "contexts", k) for k in price.contexts if k not in seen
            ]
    unused += [(*at, "client_tools", name) for name in claims.client_tools if name not in called]
    unused += [] if searched else [(*at, "server_tools", name) for name in claims.server_tools]
    used = PricingClaims(
        models=dict(sorted(models.items())),
        server_tools={k: v for k, v in claims.server_tools.items() if searched},
        client_tools=dict(sorted(tools.items())),
        unsplit_cache_write_rule=claims.unsplit_cache_write_rule,
        price_card=claims.price_card,
    )
    return used, tuple(unused)


def _head(
    contract: Contract,
    contract_digest: str,
    shown: PublicAccount,
    claims: PricingClaims,
    prices: PricingClaims,
) -> BundleHead:
    c = contract.claims
    rubric = c.outcome_contract.rubric_version or ""
    excluded = c.excluded_tasks
    return BundleHead(
        schema_version=BUNDLE_SCHEMA,
        generator=Generator(name=GENERATOR, version=__version__),
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
        outcomes={tid: o for tid, o in sorted(c.outcomes.items()) if tid not in excluded},
        excluded_tasks=tuple(
            Excluded(task=tid, reason=reason)
            for tid, reason in sorted(excluded.items())
            if reason is not None
        ),
        baseline=PublishedBaseline.model_validate(c.baseline.model_dump()),
        policy=c.policy,
        pricing=prices,
        receipt=Receipt(
            adapter=contract.source.adapter,
            adapter_version=contract.source.adapter_version,
            task_unit=contract.source.task_unit,
            key_id=contract.key_id,
            inventory_sha256=contract.inventory.inventory_sha256,
            files=contract.inventory.files,
            contract_sha256=contract_digest,
            price_card=claims.price_card,
            rubric_version=rubric,
            label_source=c.outcome_contract.label_source or "",
            counts=contract.inventory.counts,
            hidden_calls=contract.inventory.hidden_calls,
            claude_code_versions=contract.inventory.claude_code_versions,
            findings=contract.inventory.findings,
            auxiliary_calls=shown.auxiliary_calls,
            privacy=_revealed(c.privacy, shown),
        ),
    )


def _revealed(privacy: Privacy, shown: PublicAccount) -> Privacy:
    """The contract's privacy as published: of the names it reveals, those the session has (a
    name typed into the list that matched nothing revealed nothing, and is not published)."""
    used = {e.model for e in shown.model_events}
    used |= {t.name for t in shown.tool_events} | {a.agent_type for a in shown.agents}
    names = tuple(n for n in privacy.reveal_names if n in used)
    return privacy.model_copy(update={"reveal_names": names})
