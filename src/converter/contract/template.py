"""Build the contract template from a public account (SPEC §7): source-owned fields filled,
claims null; and carry claims forward from an earlier contract."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from converter.codec.canonical import model_sha256
from converter.contract.model import (
    CONTRACT_SCHEMA,
    BaselineClaim,
    CacheBucket,
    Claims,
    Contract,
    Inventory,
    Observed,
    ObservedModel,
    OutcomeClaim,
    OutcomeContract,
    PolicyClaim,
    Privacy,
    Source,
)
from converter.firewall.pseudonyms import Pseudonymizer
from converter.firewall.view import ModelEvent, PublicAccount
from converter.pricing.card import states_prices
from converter.pricing.model import PricingTemplate

_BUCKETS: tuple[tuple[CacheBucket, str], ...] = (
    ("input", "input_tokens"),
    ("output", "output_tokens"),
    ("cache_read", "cache_read_input_tokens"),
    ("cache_write_5m", "cache_creation_5m_input_tokens"),
    ("cache_write_1h", "cache_creation_1h_input_tokens"),
    ("cache_write_unsplit", "cache_creation_unsplit_input_tokens"),
)


def inventory_sha256(account: PublicAccount, pseudo: Pseudonymizer) -> str:
    """Digest of the content-free inventory: every task, call, usage, tool call, status, shape,
    agent and edge, the files, counts, versions and findings. Keyed (HMAC-SHA256 under the
    pseudonym key): the account holds exact timestamps a contract may publish coarsened, and a
    plain digest would confirm a guess at them (a small session's in a few thousand tries)."""
    if pseudo.key_id != account.key_id:
        raise ValueError("the account was crossed under another key")  # a bug, not input
    hasher = pseudo.hasher("inventory")
    # `auxiliary_calls` follows from what the digest covers (the bound index's lines and the
    # calls); left out, a contract made before it existed still binds its tree.
    unbound = frozenset({"convertible", "refusals", "auxiliary_calls"})
    return model_sha256(account, exclude=unbound, hasher=hasher)


def _observed(account: PublicAccount) -> Observed:
    contexts: dict[str, set[str]] = defaultdict(set)
    buckets: dict[str, set[CacheBucket]] = defaultdict(set)
    incomplete: dict[str, int] = defaultdict(int)
    searches = False
    for event in account.model_events:
        contexts[event.model].add(event.context.key())
        buckets[event.model] |= _buckets_of(event)
        incomplete[event.model] += not event.usage_complete
        searches = searches or event.usage.web_search_requests > 0
    order = [b for b, _ in _BUCKETS]
    models = tuple(
        ObservedModel(
            model=model,
            contexts=tuple(sorted(contexts[model])),
            cache_buckets=tuple(sorted(buckets[model], key=order.index)),
            usage_incomplete_calls=incomplete[model],
        )
        for model in sorted(contexts)
    )
    tools = tuple(sorted({t.name for t in account.tool_events}))
    return Observed(
        models=models, server_tools=("web_search",) if searches else (), client_tools=tools
    )


def _buckets_of(event: ModelEvent) -> set[CacheBucket]:
    return {bucket for bucket, field in _BUCKETS if getattr(event.usage, field)}


def inventory_of(account: PublicAccount, pseudo: Pseudonymizer) -> Inventory:
    # Provider responses no transcript call has (SPEC §5.4): counted by their finding, which
    # the inventory's digest covers; each is also a model event of the account.
    hidden = sum(f.count for f in account.findings if f.code == "CC-BODY-HIDDEN-CALL")
    return Inventory(
        files=account.files,
        counts=account.counts,
        hidden_calls=hidden,
        claude_code_versions=account.claude_code_versions,
        findings=account.findings,
        inventory_sha256=inventory_sha256(account, pseudo),
    )


def build_template(
    account: PublicAccount,
    source: Source,
    pricing: PricingTemplate,
    privacy: Privacy,
    pseudo: Pseudonymizer,
) -> Contract:
    return Contract(
        schema_version=CONTRACT_SCHEMA,
        source=source,
        key_id=account.key_id,
        inventory=inventory_of(account, pseudo),
        tasks=account.tasks,
        observed=_observed(account),
        claims=Claims(
            outcomes={task.id: OutcomeClaim() for task in account.tasks},
            excluded_tasks={},
            outcome_contract=OutcomeContract(),
            pricing=pricing,
            baseline=BaselineClaim(),
            policy=PolicyClaim(),
            privacy=privacy,
        ),
    )


def _parent_label(contract: Contract) -> str | None:
    return next((f.label for f in contract.inventory.files if f.role == "parent"), None)


def _renamed(template: Contract, old: Contract) -> dict[str, str]:
    """Old task id -> new id, for tasks whose id changed but whose input is the same: matched in
    order among the tasks of one input digest, only when both sides have as many, and only for
    the same session. (Task ids of version 0.1 were not keyed by session; a contract made then
    carries forward this way.)"""
    # Only for the same session: its parent file keeps its keyed label. Another session's
    # contract may open with the same prompt (`/init`), and its labels are not this one's.
    if _parent_label(template) is None or _parent_label(template) != _parent_label(old):
        return {}
    fresh = {t.id for t in template.tasks}
    before = {t.id for t in old.tasks}
    gone: dict[str, list[str]] = {}
    for t in old.tasks:
        if t.id not in fresh:
            gone.setdefault(t.input_digest, []).append(t.id)
    came: dict[str, list[str]] = {}
    for t in template.tasks:
        if t.id not in before:
            came.setdefault(t.input_digest, []).append(t.id)
    renamed: dict[str, str] = {}
    for digest, old_ids in gone.items():
        new_ids = came.get(digest, [])
        if len(new_ids) == len(old_ids):
            renamed.update(zip(old_ids, new_ids, strict=True))
    return renamed


@dataclass(frozen=True, slots=True)
class Carried:
    """What carrying an old contract's claims forward did, by task id: `dropped` (no longer in
    the session), `new` (to label), `changed` (labelled, then grew: `_changed`), `unexcluded`
    (excluded, and now with model calls: their exclusion is not carried, they are to label)."""

    dropped: list[str] = field(default_factory=list)
    # Of the dropped tasks, those that had model calls and a label (acceptable true or false),
    # with their model calls: their calls are in other tasks now, the label goes nowhere.
    dropped_labelled: dict[str, int] = field(default_factory=dict)
    new: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unexcluded: list[str] = field(default_factory=list)
    # Prices of the old contract another card's replaced, as paths in claims.pricing
    repriced: list[str] = field(default_factory=list)
    # Prices of the user's own that differ from the card given: the template names no card
    own_prices_kept: bool = False
    # The old contract binds none of this session's main transcript (`other_session`): its
    # tasks are another session's, none carried; its pricing, policy and privacy are.
    other_session: bool = False


def carry_forward(template: Contract, old: Contract) -> tuple[Contract, Carried]:
    """Copy every claim of `old` whose task id is unchanged (or renamed, see `_renamed`)."""
    renamed = _renamed(template, old)
    changed = _changed(template, old, renamed)
    if renamed:
        old_claims = old.claims.model_copy(
            update={
                "outcomes": {renamed.get(k, k): v for k, v in old.claims.outcomes.items()},
                "excluded_tasks": {
                    renamed.get(k, k): v for k, v in old.claims.excluded_tasks.items()
                },
            }
        )
        old = old.model_copy(update={"claims": old_claims})
    ids = [t.id for t in template.tasks]
    outcomes = {tid: old.claims.outcomes.get(tid, template.claims.outcomes[tid]) for tid in ids}
    # An exclusion holds only for a task without model calls: one that has some now (an
    # unanswered last prompt, answered since) is a task to label again.
    calls = {t.id: t.model_calls for t in template.tasks}
    excluded = {
        tid: r for tid, r in old.claims.excluded_tasks.items() if tid in ids and not calls[tid]
    }
    unexcluded = [tid for tid in ids if tid in old.claims.excluded_tasks and calls[tid]]
    for tid in excluded:
        outcomes.pop(tid, None)
    known = set(old.claims.outcomes) | set(old.claims.excluded_tasks)
    dropped = sorted(known - set(ids))
    # A dropped id is never a rename's target (those are the template's): its old entry is
    # under its own id.
    had = {t.id: t.model_calls for t in old.tasks}
    dropped_labelled = {
        tid: had[tid]
        for tid in dropped
        if had.get(tid) and tid in old.claims.outcomes and _labelled(old.claims.outcomes[tid])
    }
    new = [tid for tid in ids if tid not in known]
    pricing = _merge_pricing(template.claims.pricing, old.claims.pricing)
    claims = old.claims.model_copy(
        update={"outcomes": outcomes, "excluded_tasks": excluded, "pricing": pricing}
    )
    contract = template.model_copy(update={"claims": claims})
    return contract, Carried(
        dropped,
        dropped_labelled,
        new,
        changed,
        unexcluded,
        _repriced(old.claims.pricing, pricing),
    )


def _repriced(old: PricingTemplate, merged: PricingTemplate) -> list[str]:
    """Where a price the old contract stated is not the one carried (another card's replaced
    it): said, never silent, so a price of the user's own that it replaced can be put back."""
    found: list[str] = []
    for model, entry in sorted(merged.models.items()):
        before = old.models.get(model)
        if before is None:
            continue
        if states_prices(before) and entry.tiers != before.tiers:
            found.append(f"models/{model}/tiers")
        if before.max_output_tokens not in (None, entry.max_output_tokens):
            found.append(f"models/{model}/max_output_tokens")
        for key, value in sorted(entry.contexts.items()):
            if before.contexts.get(key) not in (None, value):
                found.append(f"models/{model}/contexts/{key}")
    for tool, value in sorted(merged.server_tools.items()):
        if old.server_tools.get(tool) not in (None, value):
            found.append(f"server_tools/{tool}")
    return found


def _labelled(outcome: OutcomeClaim) -> bool:
    """An outcome with a value in it: a template's all-null ones are not labels."""
    return any(value is not None for value in outcome.model_dump().values())


def _changed(template: Contract, old: Contract, renamed: dict[str, str]) -> list[str]:
    """Tasks whose outcome is carried over but which grew since it was labelled (more or fewer
    model calls or subagents: a resumed session): their label may no longer be what happened."""
    before = {renamed.get(t.id, t.id): t for t in old.tasks}
    labelled = {renamed.get(k, k) for k, o in old.claims.outcomes.items() if _labelled(o)}
    return [
        t.id
        for t in template.tasks
        if t.id in labelled
        and t.id in before
        and (before[t.id].model_calls, before[t.id].subagents) != (t.model_calls, t.subagents)
    ]


def _merge_pricing(fresh: PricingTemplate, old: PricingTemplate) -> PricingTemplate:
    """Keep the user's prices for keys still observed; new keys keep the fresh (pre-filled) value.

    Another card given now replaces a card's prices: where the old contract named a card (its
    prices were that card's) and `fresh` was pre-filled from another, the new card's stated
    values win and the old fill only what it does not state. Prices of the user's own (an old
    contract that named no card) are kept whatever card is given now (`make_template` then
    drops the card's name where they differ from it), and so are prices under the same card's
    name (where they differ, `make_template` refuses: the card's name over other prices)."""
    replace = (
        fresh.price_card is not None
        and old.price_card is not None
        and fresh.price_card != old.price_card
    )
    update: dict[str, object] = {}
    # Server tools are a card's to price; client tools (built-in at 0, MCP) only ever the user's.
    for name, card_states in (("server_tools", replace), ("client_tools", False)):
        current = dict(getattr(fresh, name))
        previous = getattr(old, name)
        for key, value in current.items():
            if previous.get(key) is not None and not (card_states and value is not None):
                current[key] = previous[key]
        update[name] = current
    models = dict(fresh.models)
    for model, entry in models.items():
        before = old.models.get(model)
        if before is None:
            continue
        # Per context key: a context first seen in the grown session keeps its fresh value.
        contexts = {
            key: value
            if before.contexts.get(key) is None or (replace and value is not None)
            else before.contexts.get(key)
            for key, value in entry.contexts.items()
        }
        changes: dict[str, object] = {"contexts": contexts}
        if replace and states_prices(entry):  # the new card prices this model: its tiers
            changes["tiers"] = entry.tiers
            if entry.max_output_tokens is not None:  # a bound the card states, else the old
                changes["max_output_tokens"] = entry.max_output_tokens
        models[model] = before.model_copy(update=changes)
    update["models"] = models
    if old.unsplit_cache_write_rule is not None:
        update["unsplit_cache_write_rule"] = old.unsplit_cache_write_rule
    if old.price_card is not None and fresh.price_card is None:
        update["price_card"] = old.price_card
    return fresh.model_copy(update=update)
