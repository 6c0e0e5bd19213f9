"""The two phases of `convert` (SPEC §7), template then bundle, and `verify`'s re-derivation of a
bundle from its sources. Reading inputs and checking them happen here; writing is left to the
caller, which writes atomically only on success."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

from converter import __version__
from converter.bundle.build import BuiltBundle, build_bundle
from converter.bundle.io import seal
from converter.bundle.model import BundleHead
from converter.bundle.spool import Discard, SealedBytes, Spill, close_spill
from converter.codec.canonical import pretty_bytes
from converter.contract.model import Contract, Preset, Privacy, Source
from converter.contract.read import ContractParts, contract_paths, parse_contract, read_contract
from converter.contract.template import Carried, build_template, carry_forward, inventory_sha256
from converter.contract.validate import (
    check_against_sources,
    file_differences,
    other_session,
    own_problems,
    task_claims,
)
from converter.errors import IntegrityFailure, Problem, Refused
from converter.files import Output, spill_file, write_refused
from converter.firewall.boundary import (
    Policy,
    cross,
    file_labels,
    session_task_id,
    task_id,
    unbound_ref,
)
from converter.firewall.pseudonyms import Pseudonymizer
from converter.firewall.times import coarsen
from converter.firewall.view import BoundFile, PublicAccount, no_input_recorded
from converter.heap import return_free_memory
from converter.pricing.card import (
    PriceCard,
    card_problems,
    prefill,
    prices_unlike,
    shipped_card_named,
)
from converter.pricing.engine import (
    account_problems,
    bounded_by_contract,
    ended_tier_calls,
    observed_keys,
)
from converter.pricing.model import PricingTemplate, complete
from converter.reader.model import Account
from converter.regular import open_regular
from converter.run.pipeline import read_tree
from converter.sources import bodies as body_files
from converter.sources.tree import LISTS_EVERY_FILE, SourceFile, discover, entry_kind
from converter.vocabulary import SourceName, TaskUnit, TimestampPrecision

CANONICAL = Policy()  # names pseudonymized, exact timestamps: what contracts bind
# A contract these sources cannot be compared with at all (`check_against_sources`).
# (Read with another adapter or task unit, every task and count differs too: one cause.)
_UNRELATED = frozenset(
    {
        "CONTRACT-BODIES-MISSING",
        "CONTRACT-BODIES-UNEXPECTED",
        "CONTRACT-KEY-MISMATCH",
        "CONTRACT-OTHER-SESSION",
        "CONTRACT-SOURCE-MISMATCH",
        "CONTRACT-TASK-UNIT-EDITED",
    }
)


@dataclass(frozen=True, slots=True)
class Reading:
    account: Account
    pseudo: Pseudonymizer
    canonical: PublicAccount

    def shown(self, privacy: Privacy) -> PublicAccount:
        """The account as the contract's privacy policy shows it (names, timestamp precision)."""
        policy = _policy(privacy)
        if policy == CANONICAL:
            return self.canonical
        return cross(self.account, self.pseudo, policy)

    @property
    def bound(self) -> tuple[Path, ...]:
        """Every file the reading binds (local paths): no output may be one of them."""
        return tuple(f.path for f in self.account.tree.bound_files)


def read_sources(
    parent: Path,
    source: SourceName,
    task_unit: TaskUnit,
    pseudo: Pseudonymizer,
    bodies: Path | None = None,
) -> Reading:
    account = read_tree(parent, task_unit, source, bodies=bodies)
    if account.refusals:
        paths = {f.index: f.rel for f in account.tree.layout.files}
        located = [
            replace(p, where=unbound_ref(pseudo, p)) if p.local_path and not p.where else p
            for p in account.refusals
        ]
        raise Refused(located, labels=file_labels(account, pseudo), paths=paths)
    return Reading(account, pseudo, cross(account, pseudo, CANONICAL))


def _policy(privacy: Privacy) -> Policy:
    return Policy(reveal_names=frozenset(privacy.reveal_names), timestamps=privacy.timestamps)


def _source(source: SourceName, task_unit: TaskUnit) -> Source:
    return Source(adapter=source, adapter_version="1", task_unit=task_unit)


def source_for(
    source: SourceName | None, task_unit: TaskUnit | None, named: Source | None
) -> Source:
    """How to read the sources: the adapter and task unit typed, else those a contract names
    (`convert --contract`, `--from-contract`: its tasks and labels were made so), else the
    defaults."""
    return _source(
        source or (named.adapter if named else "claude-code-tree"),
        task_unit or (named.task_unit if named else "prompt"),
    )


def read_old_contract(data: bytes, key_id: str | None) -> Contract:
    """The contract `--from-contract` names, whole and made under the key `key_id`, or every
    problem that keeps it from being one (refused before the sources are read): labels of
    another key's task ids would be carried onto the wrong tasks. `key_id` None: the key in use
    could not be had (its refusal is said); the contract is checked for all else."""
    old = parse_contract(data)
    if isinstance(old, list):
        raise Refused(old)
    if key_id is not None and old.key_id != key_id:
        raise Refused([Problem("CONTRACT-KEY-MISMATCH", where="key_id")])
    return old


class TemplatePricing(NamedTuple):
    pricing: PricingTemplate  # what the session used, pre-filled from a card where one applies
    # The session's models when the card given prices none of them (it is then not named).
    unpriced_by_card: tuple[str, ...] | None


def template_pricing(
    reading: Reading, card: PriceCard | None, old: Contract | None
) -> TemplatePricing:
    """The prices a template starts from: what the session used, pre-filled by the card given;
    with none given, by the shipped card a carried contract names, so a model first used since
    (switched to mid-session) is priced as the rest were, with no price to copy by hand."""
    observed = observed_keys(reading.canonical)
    if card is None:
        named = shipped_card_named(old.claims.pricing.price_card) if old is not None else None
        return TemplatePricing(prefill(observed, named) if named else observed, None)
    pricing = prefill(observed, card)
    # Nothing observed is on the card: named, it would lie.
    unpriced = tuple(sorted(pricing.models)) if pricing.price_card is None else None
    return TemplatePricing(pricing, unpriced)


class ModelBound(NamedTuple):
    """A model whose usage-incomplete calls its max_output_tokens bounds (`MadeTemplate`)."""

    model: str
    max_output_tokens: int | None  # the template's; None: left null
    calls: int  # its usage-incomplete calls the bound prices
    # of them, calls that recorded no input: the bound sets their output's high end, but their
    # input is in no figure, so their cost has no high end whatever it is (EVAL-COST-UNBOUNDED)
    no_input: int = 0


class MadeTemplate(NamedTuple):
    data: bytes
    carried: Carried | None  # what carrying forward from an old contract did
    to_fill: int  # null claims and prices left: what convert --contract would refuse as null
    # Each model with usage-incomplete calls: a bound filled in prices the high end of their
    # output (a card's model maximum, most often), not among the claims "to fill", and the
    # widest part of an interval; None, one left null, which convert --contract refuses
    # (PRICE-MAX-OUTPUT-MISSING) and no card can fill.
    bounds: tuple[ModelBound, ...] = ()
    # Per model, the calls a shipped card's one tier prices below their long-context rate,
    # which convert --contract refuses under the card's name (PRICE-CARD-TIER-ENDED), and its
    # calls above the threshold after the rate ended, which a second tier would price too high
    ended: tuple[tuple[str, tuple[int, int]], ...] = ()
    # Gates the carried contract disabled that the --policy file does not: enabled again
    enabled: tuple[str, ...] = ()
    # Claims carried from --from-contract that the --policy file replaced, by path
    # (`policy/min_tasks`): field names only
    replaced: tuple[str, ...] = ()


def make_template(
    reading: Reading,
    source: SourceName,
    task_unit: TaskUnit,
    *,
    timestamps: TimestampPrecision | None = None,
    prefill: PricingTemplate | None = None,
    card: PriceCard | None = None,
    old: Contract | None = None,
    preset: Preset | None = None,
) -> MadeTemplate:
    """The template's bytes, what was carried (when carrying forward from `old`:
    `carry_forward`) and how many null claims and prices are left to fill.

    `old` is `read_old_contract`'s: made under this key. `timestamps`, when given, overrides the
    precision an old contract carried; otherwise the old contract's privacy (or "exact")
    stands. `preset`'s sections (a --policy file) fill the template's, carried or not, field by
    field: what the file states wins, the rest is kept.
    """
    pricing = prefill if prefill is not None else observed_keys(reading.canonical)
    template = build_template(
        reading.canonical, _source(source, task_unit), pricing, Privacy(), reading.pseudo
    )
    carried = None
    own_prices = False  # carried from a contract that named no card
    if old is not None:
        template, carried = carry_forward(template, old)
        # (a walkthrough: another session's contract was carried as if this one had grown, and
        # each of its labelled tasks was said to be in "the same session", its calls elsewhere)
        carried = replace(carried, other_session=other_session(old.inventory, template.inventory))
        own_prices = old.claims.pricing.price_card is None
    # A card's name over prices that are not the card's: a shipped card is looked up by its
    # name, the card given (a file too) compared as it is.
    pricing = template.claims.pricing
    mismatched = card_problems(pricing)
    if not mismatched and card is not None and pricing.price_card == card.ref():
        mismatched = [
            Problem("PRICE-CARD-MISMATCH", where=f"claims/pricing/{where}")
            for where in prices_unlike(pricing, card)
        ]
    if mismatched and own_prices:
        # Your own prices carried (--from-contract) with --price-card: they stay your own,
        # under no card's name; models first seen here keep the card's pre-filled values.
        claims = template.claims.model_copy(
            update={"pricing": pricing.model_copy(update={"price_card": None})}
        )
        template = template.model_copy(update={"claims": claims})
        if carried is not None:
            carried = replace(carried, own_prices_kept=True)
    elif mismatched:
        # An old contract that named the card and was then edited would be refused at convert
        # (or, for a card file, signed as a lie): say so now, before the user labels anything.
        raise Refused(mismatched)
    enabled: list[str] = []  # carried disabled gates the --policy file does not list
    changed: list[str] = []  # carried claims the --policy file gives another value
    if preset is not None:
        sections = {}
        for name in type(preset).model_fields:
            given = getattr(preset, name)
            if given is None:
                continue
            # Field by field: what the file states wins, the rest stays as carried (a fix
            # audit: a file stating one limit nulled every other carried one, unremarked).
            kept = getattr(template.claims, name)
            stated = {field: getattr(given, field) for field in sorted(given.model_fields_set)}
            if name == "policy":
                # The disabled gates as a set, none listed none disabled: as `evaluate --policy`
                # holds the bundles to the same file (an audit: a carried disabled gate stayed,
                # and evaluate with the file refused the bundle, its fix the same loop again).
                stated["disabled_checks"] = given.disabled_checks
                if kept is not None:  # carried: say which the file switches back on
                    enabled = sorted(set(kept.disabled_checks) - set(given.disabled_checks))
            if old is not None and kept is not None:  # a carried value the file replaces
                changed += [
                    f"{name}/{field}"
                    for field, value in stated.items()
                    if (was := getattr(kept, field)) is not None
                    and (
                        sorted(was) != sorted(value) if field == "disabled_checks" else was != value
                    )
                ]
            sections[name] = kept.model_copy(update=stated) if kept is not None else given
        template = template.model_copy(
            update={"claims": template.claims.model_copy(update=sections)}
        )
    privacy = template.claims.privacy
    if timestamps is not None:
        privacy = privacy.model_copy(update={"timestamps": timestamps})
    # The task list a user reads shows timestamps at the contract's precision.
    claims = template.claims.model_copy(update={"privacy": privacy})
    template = template.model_copy(update={"claims": claims, "tasks": reading.shown(privacy).tasks})
    data = pretty_bytes(template)
    bounds = _bounds(template.claims.pricing, reading.canonical)
    ended = tuple(ended_tier_calls(reading.canonical, template.claims.pricing).items())
    nulls = _nulls_left(data, reading.canonical)
    return MadeTemplate(data, carried, nulls, bounds, ended, tuple(enabled), tuple(changed))


def _bounds(pricing: PricingTemplate | None, canonical: PublicAccount) -> tuple[ModelBound, ...]:
    """Each model with usage-incomplete calls its max_output_tokens bounds (not those a
    request's max_tokens bounds), the max_output_tokens the template gives it (None: left null),
    how many such calls it has, and how many of them recorded no input."""
    if pricing is None:
        return ()
    bounded = [e for e in canonical.model_events if bounded_by_contract(e)]
    incomplete = Counter(e.model for e in bounded)
    no_input = Counter(e.model for e in bounded if no_input_recorded(e.usage_complete, e.usage))
    return tuple(
        ModelBound(model, entry.max_output_tokens, incomplete[model], no_input[model])
        for model, entry in sorted(pricing.models.items())
        if incomplete[model]
    )


def _nulls_left(data: bytes, canonical: PublicAccount) -> int:
    """The values a template leaves to fill, as convert --contract would find them missing:
    null claims and prices, and a max_output_tokens a usage-incomplete call needs."""
    parts = read_contract(data)
    if isinstance(parts, list) or parts.pricing is None:  # cannot happen: written from a Contract
        return 0
    nulls = sum(p.code in ("CONTRACT-CLAIM-NULL", "PRICE-NULL") for p in own_problems(parts))
    bounds = account_problems(canonical, parts.pricing)
    return nulls + sum(p.code == "PRICE-MAX-OUTPUT-MISSING" for p in bounds)


class MadeBundle(NamedTuple):
    head: BundleHead
    data: SealedBytes  # spilled to an unnamed file in `spill_to`'s folder, when one was given
    # Where in the contract (`contract_paths`): reveal_names entries with no name in the
    # session, price entries for nothing the session uses (`BuiltBundle`).
    unrevealed: tuple[str, ...]
    prices_unused: tuple[str, ...]
    bodies_unused: bool  # a --provider-bodies folder of none of the session's bodies
    # Every file the bundle binds: no output may be one of them (`files.check_outputs`).
    bound: tuple[Path, ...] = ()


def make_bundle(
    parent: Path,
    source: SourceName | None,
    task_unit: TaskUnit | None,
    pseudo: Pseudonymizer,
    contract_bytes: bytes,
    bodies: Path | None = None,
    spill_to: Path | None = None,
    *,
    keep: bool = True,
) -> MadeBundle:
    """Check the contract against the sources and its own claims; all problems, or the bundle's
    sealed head and bytes (as built, sealed in place, never copied; with `spill_to`, a folder,
    all but the receipt and what follows it are in an unnamed file there, not in memory), and
    where the contract's reveal_names entries that revealed nothing and price entries that
    price nothing are. `keep=False`: the bytes are hashed and counted as built, and not kept
    (no `chunks()`): all that a re-derivation compares.
    `source` and `task_unit` None: the ones the contract's `source` names (the defaults if it
    names none that validates).

    The reading, its crossings and the fresh template die with `_checked_bundle`'s frame, before
    the bundle is serialized: they never share the peak with the bundle's bytes.
    """
    built, bodies_unused, bound = _checked_bundle(
        parent, source, task_unit, pseudo, contract_bytes, bodies, spill_to, keep
    )
    head, data = seal(built)
    unrevealed: tuple[str, ...] = ()
    unused: tuple[str, ...] = ()
    if built.unrevealed or built.prices_unused:  # named as a refusal names a contract's path
        unrevealed = contract_paths(contract_bytes, built.unrevealed)
        unused = contract_paths(contract_bytes, built.prices_unused)
    return MadeBundle(head, data, unrevealed, unused, bodies_unused, bound)


@dataclass(frozen=True)
class BundleWrites:
    """What `convert --contract` writes, and removes with the same write: the bundle, the
    attestation it signs now, and an old attestation beside it that signs other bytes."""

    files: tuple[tuple[Path, Output], ...]
    removing: tuple[Path, ...]
    replaced: bool  # a bundle was at `out` before (what a removed attestation signed)


def bundle_writes(
    out: Path, data: SealedBytes, envelope: bytes | None, *, signing: bool
) -> BundleWrites:
    """The bundle's bytes and, when `signing`, its new attestation `envelope`. Unsigned, an
    attestation already beside the bundle stays only if it signs these very bytes (the same
    conversion run again); any other signs something else and goes with the write, so a new
    bundle never lies beside an old signature. A file there that is no attestation is not this
    tool's to remove (`check_outputs` refused anything else before the work)."""
    from converter.files import attestation_path, is_attestation

    beside = attestation_path(out)
    files: list[tuple[Path, Output]] = [(out, data)]
    if envelope is not None:
        files.append((beside, envelope))
    stale = not signing and is_attestation(beside) and not _signs(beside, data)
    return BundleWrites(tuple(files), (beside,) if stale else (), out.exists())


def _signs(envelope: Path, data: SealedBytes) -> bool:
    """Whether the attestation file `envelope` signs `data` (`names_subject`)."""
    from converter.attest.statement import names_subject
    from converter.files import NotRegular, read_regular

    try:
        held, _ = read_regular(envelope, None)  # never opens a FIFO or device there
    except (NotRegular, OSError, ValueError):
        return False
    return names_subject(held, data)


def bodies_unused(reading: Reading) -> bool:
    """Whether a --provider-bodies folder was given and held none of the session's bodies
    (CC-BODY-NONE-SELECTED): it changed nothing, which the user would not otherwise know."""
    return bool(reading.account.tree.layout.not_read.get("CC-BODY-NONE-SELECTED"))


def _fresh_template(
    reading: Reading, shown: PublicAccount, source: Source, privacy: Privacy
) -> Contract:
    """The template the sources give now, as `make_template` writes it: its task list shows
    `started_at` at the contract's precision."""
    canonical = reading.canonical
    fresh = build_template(canonical, source, observed_keys(canonical), privacy, reading.pseudo)
    return fresh.model_copy(update={"tasks": shown.tasks})


def _checked_bundle(
    parent: Path,
    source: SourceName | None,
    task_unit: TaskUnit | None,
    pseudo: Pseudonymizer,
    contract_bytes: bytes,
    bodies: Path | None,
    spill_to: Path | None,
    keep: bool = True,
) -> tuple[BuiltBundle, bool, tuple[Path, ...]]:
    """Every problem of the contract, each part checked on its own (SPEC §7 reports them all),
    or the bundle built from it (and `bodies_unused` of the reading, and the files it binds)."""
    parts = read_contract(contract_bytes)
    if isinstance(parts, list):  # not JSON: nothing in it to compare with the sources
        raise Refused(parts)
    named = parts.source
    wanted = source_for(source, task_unit, named)
    if named is not None and named != wanted:
        # A contract made from other sources than these would be read (typed and contradicting
        # it, or another adapter version): the one cause, said before the sources are read the
        # other way (as single file, a tree's children would be refused instead).
        found = [
            Problem("CONTRACT-SOURCE-MISMATCH", where=f"source/{f}")
            for f in type(named).model_fields
            if getattr(named, f) != getattr(wanted, f)
        ]
        raise Refused([*parts.problems, *found, *own_problems(parts)])
    source, task_unit = wanted.adapter, wanted.task_unit
    try:
        reading = read_sources(parent, source, task_unit, pseudo, bodies)
    except Refused as refused:  # the contract's own problems are problems all the same
        # A file that no longer reads may have changed since the template (a session that
        # went on): said beside its refusal, found by the files' bytes.
        changed = source_changes(parent, pseudo, contract_bytes, bodies)
        problems = [*refused.problems, *changed, *parts.problems, *own_problems(parts)]
        raise Refused(problems, refused.labels, refused.paths) from None
    problems, shown = _problems(parts, reading, wanted)
    if problems or parts.contract is None:
        raise Refused(_with_local_paths(problems, reading))
    contract = parts.contract
    claims = complete(contract.claims.pricing)
    if isinstance(claims, list):  # own_problems has named each of these already
        raise Refused([p.as_problem() for p in claims])
    canonical, no_bodies = reading.canonical, bodies_unused(reading)
    bound = reading.bound
    del reading  # the reader's account is done with: its memory can hold the bundle
    return_free_memory()
    spill: Spill | None = None
    if not keep:
        assert spill_to is None  # nothing is kept to spill
        spill = Discard()
    elif spill_to is not None:
        spill = spill_file(spill_to)
    try:
        digest = contract_digest(pseudo, contract_bytes)
        built = build_bundle(contract, digest, canonical, shown, claims, spill)
    except BaseException as failed:
        close_spill(spill)
        if isinstance(failed, OSError):  # writing the spill file: the disk full, most likely
            raise write_refused(failed, "--out") from None
        raise
    if isinstance(built, list):
        close_spill(spill)
        raise Refused(built)
    return built, no_bodies, bound


def _with_local_paths(problems: list[Problem], reading: Reading) -> list[Problem]:
    """A problem at `inventory/files/<label>` with the local path of that file, which only
    `--show-paths` prints (stderr): the label alone cannot be traced to a file."""
    paths = _inventory_paths(reading.pseudo, reading.account.tree.layout.files)
    return [
        replace(p, local_path=paths[p.where]) if p.where in paths and not p.local_path else p
        for p in problems
    ]


def _inventory_paths(pseudo: Pseudonymizer, files: Iterable[SourceFile]) -> dict[str, str]:
    """`inventory/files/<label>` -> the local relative path of the file so labelled."""
    return {f"inventory/files/{pseudo.name('file', f.rel)}": f.rel for f in files}


def _problems(
    parts: ContractParts, reading: Reading, source: Source
) -> tuple[list[Problem], PublicAccount]:
    """Every problem of the contract, against the sources and on its own; and the account as
    the contract's privacy shows it (canonical when privacy did not validate: nothing is built)."""
    privacy = parts.privacy
    shown = reading.shown(privacy) if privacy is not None else reading.canonical
    fresh = _fresh_template(reading, shown, source, privacy or Privacy())
    # Without the contract's timestamp precision, a task's start cannot be compared.
    ignore = frozenset() if privacy is not None else frozenset({"started_at"})
    if privacy is not None and parts.tasks is not None:
        # `privacy.timestamps` made coarser after the template (docs/privacy.md says to): the
        # task list still shows the template's finer starts, which are compared coarsened.
        tasks = tuple(
            t.model_copy(
                update={"started_at": coarsen(t.started_at, privacy.timestamps) or t.started_at}
            )
            for t in parts.tasks
        )
        parts = replace(parts, tasks=tasks)
    paths = _inventory_paths(reading.pseudo, reading.account.tree.layout.files)
    against = _renamed_alone(parts, reading, check_against_sources(parts, fresh, ignore, paths))
    if against and _tasks_of_other_unit(parts, reading):
        # The task unit was edited after the template: the one cause of every task, count and
        # digest mismatch. A file changed, added or removed since is a cause of its own.
        files = [p for p in against if p.code in _FILE_CHANGES]
        against = [Problem("CONTRACT-TASK-UNIT-EDITED", where="source/task_unit"), *files]
    # Under another key, or for another session, nothing of the sources can be compared: the
    # task, outcome and pricing mismatches would all follow from the one cause. So when the
    # session changed since the template (it grew, a file came or went): the outcomes and
    # prices its new tasks and models lack follow from it, and a new template made
    # --from-contract mends them with the rest, where adding by hand what each names does not
    # (a new user: 23 refusals for a session that went on). The contract's shape and own
    # problems (null claims, bad prices) stand whichever session it is given.
    if any(p.code in _UNRELATED or p.code in _FILE_CHANGES for p in against):
        return [*parts.problems, *against, *own_problems(parts)], shown
    problems = [*parts.problems, *against, *task_claims(parts, fresh.tasks), *own_problems(parts)]
    if parts.pricing is not None:
        pricing = account_problems(reading.canonical, parts.pricing)
        problems += [p.as_problem() for p in pricing]
    return problems, shown


def _renamed_alone(parts: ContractParts, reading: Reading, against: list[Problem]) -> list[Problem]:
    """`against` without the inventory digest's mismatch when files renamed are the one cause of
    it: the digest covers each file's label, which is keyed over its name, so a rename alone
    changes it too. Said only when the account, its files given the labels the contract binds,
    has the contract's digest again (HMAC over everything else it binds): then nothing but the
    names differs, and the renames are the whole of what changed (`verify` says so, exit 2)."""
    codes = {p.code for p in against}
    if "CONTRACT-FILE-RENAMED" not in codes or codes & (_FILE_CHANGES - {"CONTRACT-FILE-RENAMED"}):
        return against
    digest = ("CONTRACT-INVENTORY-MISMATCH", "inventory/inventory_sha256")
    if parts.inventory is None or not any((p.code, p.where) == digest for p in against):
        return against
    as_bound = reading.canonical.model_copy(update={"files": parts.inventory.files})
    if inventory_sha256(as_bound, reading.pseudo) != parts.inventory.inventory_sha256:
        return against  # something else changed with the names: the mismatch stands
    return [p for p in against if (p.code, p.where) != digest]


def _tasks_of_other_unit(parts: ContractParts, reading: Reading) -> bool:
    """Whether the contract's task list was made with the other task unit than the one its
    `source` now names (read so): its first task's id is the one the other unit gives, which is
    known without reading the sources again (the session's, or the first prompt's)."""
    if not parts.tasks or parts.key_id != reading.pseudo.key_id:
        return False
    account = reading.account
    session = account.tree.layout.session_id
    if account.task_unit == "prompt":
        other = session_task_id(reading.pseudo, session)
    elif account.first_prompt_digest is not None:
        other = task_id(reading.pseudo, "prompt", session, account.first_prompt_digest, 0)
    else:
        return False
    return parts.tasks[0].id == other


def source_changes(
    parent: Path, pseudo: Pseudonymizer, contract_bytes: bytes, bodies: Path | None = None
) -> list[Problem]:
    """The files of the tree, read as the contract names, that differ from those it binds
    (changed, renamed, added, removed), found by their bytes alone: a tree that no longer converts (a
    session that went on after the conversion, with a delegation still running) is still seen
    to have changed. Empty when the contract has no inventory to compare with, or under another
    key; when the tree cannot be laid out as a whole, only the files changed (a file not listed
    is not gone, nor one listed new); a file that cannot be read is not said to differ (its
    refusal says it could not be read)."""
    parts = read_contract(contract_bytes)
    if isinstance(parts, list) or parts.inventory is None or parts.key_id != pseudo.key_id:
        return []  # nothing to compare, or labels under another key: every one would differ
    bound = {f.label: f for f in parts.inventory.files}
    single = parts.source is not None and parts.source.adapter == "claude-code"
    layout = discover(parent, single_file=single)
    # Not laid out as a whole (no parent, a folder unread, a symlink, a stray file): a file not
    # listed is not gone, so nothing is said "removed" (nor "added"); a bound file listed with
    # other bytes has changed all the same (a robustness audit: a parent that grew, beside a
    # stray file, was said to have changed only on the run after the stray file was moved).
    whole = not any(p.code not in LISTS_EVERY_FILE for p in layout.problems)
    now: dict[str, BoundFile] = {}
    unread: set[str] = set()  # cannot tell: not said
    for entry in layout.files:
        label = pseudo.name("file", entry.rel)
        if entry.legacy and label not in bound:  # a sibling of another session, not bound
            continue
        digest = _digest_of(entry.path)
        if digest is None:
            unread.add(label)
        else:
            size, sha256 = digest
            now[label] = BoundFile(role=entry.role, label=label, size=size, sha256=sha256)
    parents = [now[label] for label in now if now[label].role == "parent"]
    labels, digests = set(bound), {f.sha256 for f in bound.values()}
    if parents and not any(p.label in labels or p.sha256 in digests for p in parents):
        # Another session's files: every one differs, and a new template would carry another
        # session's claims over. One cause, said as `_problems` says it for a tree that reads.
        return [Problem("CONTRACT-OTHER-SESSION", where="inventory/files")]
    paths = _inventory_paths(pseudo, layout.files)  # where each file lies, for --show-paths
    if bodies is not None:
        paths |= _bodies_now(bodies, layout.session_id, bound, pseudo, now, unread)
    found = file_differences({k: v for k, v in bound.items() if k not in unread}, now, paths)
    if not whole:  # nor renamed: a file not listed may be the one bound under that name
        found = [p for p in found if p.code == "CONTRACT-FILE-CHANGED"]
    return found


def _bodies_now(
    folder: Path,
    session_id: str,
    bound: dict[str, BoundFile],
    pseudo: Pseudonymizer,
    now: dict[str, BoundFile],
    unread: set[str],
) -> dict[str, str]:
    """The provider bodies the contract binds, as the folder holds them now, into `now`: the
    session's index lines digested as `select` binds them; each response the contract binds,
    found among the folder's names by its label (a response it does not bind is not opened).
    Returns `inventory/files/<label>` -> the relative name of each body found."""
    paths: dict[str, str] = {}
    if not session_id or entry_kind(folder) != "dir":  # cannot tell: nothing said of them
        unread.update(label for label, f in bound.items() if f.role.startswith("provider-"))
        return paths
    index_rel = body_files.PREFIX + body_files.INDEX_NAME
    index_label = pseudo.name("file", index_rel)
    paths[f"inventory/files/{index_label}"] = index_rel
    if index_label in bound:
        lines = body_files.session_lines_digest(folder, session_id)
        if lines is None:
            unread.add(index_label)
        else:
            now[index_label] = BoundFile(
                role="provider-index", label=index_label, size=lines.size, sha256=lines.sha256
            )
    for name in body_files.response_names(folder):
        label = pseudo.name("file", body_files.PREFIX + name)
        if label not in bound:
            continue
        paths[f"inventory/files/{label}"] = body_files.PREFIX + name
        digest = _digest_of(folder / name) if entry_kind(folder / name) == "file" else None
        if digest is None:
            unread.add(label)
        else:
            size, sha256 = digest
            role = "provider-request" if name.endswith(".request.json") else "provider-response"
            now[label] = BoundFile(role=role, label=label, size=size, sha256=sha256)
    return paths


def _digest_of(path: Path) -> tuple[int, str] | None:
    """(size, SHA-256) of a file's bytes, read in blocks; None when it cannot be read."""
    hasher = hashlib.sha256()
    size = 0
    try:
        with open_regular(path, follow=False) as stream:
            while block := stream.read(1 << 20):
                hasher.update(block)
                size += len(block)
    except OSError:
        return None
    return size, hasher.hexdigest()


def require_this_version(bundle: BundleHead) -> None:
    """Only this version can re-derive a bundle: its generator's version is in its bytes, and
    task ids and shapes change between versions, so another version could only re-derive
    other bytes (and would list every task as a mismatch, with fixes for a contract that is
    not wrong)."""
    if bundle.generator.version != __version__:
        # the version is digits and points (its type's pattern): named, so the one to check
        # out is not left to be read from the bundle (an upgrade walkthrough)
        where = f"generator/version {bundle.generator.version}"
        raise Refused([Problem("ATTEST-REDERIVE-OTHER-VERSION", where=where)])


# What a contract says when the sources are not the files it binds (CONTRACT-KEY-MISMATCH is not
# one: another pseudonym key cannot re-derive anything, and is said as such, exit 2).
_SOURCES_DIFFER = frozenset(
    {
        "CONTRACT-FILE-CHANGED",
        "CONTRACT-FILE-ADDED",
        "CONTRACT-FILE-REMOVED",
        "CONTRACT-FILE-RENAMED",
        "CONTRACT-COUNT-MISMATCH",
        "CONTRACT-INVENTORY-MISMATCH",
        "CONTRACT-TASKS-MISMATCH",
        "CONTRACT-OTHER-SESSION",
    }
)


# A bound file that changed, came, went or was renamed since the template: a cause of its own.
_FILE_CHANGES = frozenset(
    {
        "CONTRACT-FILE-CHANGED",
        "CONTRACT-FILE-ADDED",
        "CONTRACT-FILE-REMOVED",
        "CONTRACT-FILE-RENAMED",
    }
)


# Refusals after which the files cannot be compared with the contract's: read another way than
# it names, or labelled under another key.
_NOT_COMPARABLE = frozenset(
    {
        "CONTRACT-SOURCE-MISMATCH",
        "CONTRACT-KEY-MISMATCH",
        "CONTRACT-BODIES-MISSING",
        "CONTRACT-BODIES-UNEXPECTED",
        "CC-BODY-DIR-UNREADABLE",  # no folder of bodies to compare with
    }
)


# A refusal of the bodies given, said to verify's user as theirs to mend.
_BODIES_AS_VERIFIER = {
    "CONTRACT-BODIES-MISSING": "ATTEST-REDERIVE-BODIES-MISSING",
    "CONTRACT-BODIES-UNEXPECTED": "ATTEST-REDERIVE-BODIES-UNEXPECTED",
}


def contract_digest(pseudo: Pseudonymizer, contract_bytes: bytes) -> str:
    """The receipt's `contract_sha256`: HMAC-SHA256 of the contract's exact bytes under the
    pseudonym key, as `inventory_sha256` is. Plain, it confirmed guesses at what the contract
    holds and the bundle does not show: everything else in a contract can be rebuilt from its
    bundle, so a one-task session's exact start, coarsened by `privacy.timestamps`, was found
    by hashing every millisecond of the day the bundle shows (a firewall hunt, 29 s)."""
    mac = pseudo.hasher("contract")
    mac.update(contract_bytes)
    return mac.hexdigest()


def rederive(
    size: int,
    sha256: str,
    opened: BundleHead,
    contract_bytes: bytes,
    parent: Path,
    source: SourceName | None,
    task_unit: TaskUnit | None,
    pseudo: Pseudonymizer,
    bodies: Path | None = None,
) -> None:
    """`verify`'s third check: the bundle (of `size` bytes and that `sha256`: the bytes are not
    needed, and not held beside the conversion) made again from the sources, its contract and
    the pseudonym key, byte for byte; IntegrityFailure (5) when it is not (another contract,
    changed sources, other bytes), Refused (2) when it cannot be made at all (or only from the
    files under the names they were converted under: ATTEST-REDERIVE-RENAMED). Untyped,
    `source` and `task_unit` are the contract's own (as convert takes them), not the
    receipt's: a receipt edited to name others is then a mismatch, never a refusal."""
    if contract_digest(pseudo, contract_bytes) != opened.receipt.contract_sha256:
        # Not the contract the bundle names (or the bundle names another): nothing from it can
        # re-derive these bytes. Said as such, not as an unexplained byte mismatch; a file that
        # is no contract at all (not JSON, a bundle) could not be checked (2), nor one made
        # under another key than the verifier's (the digest is keyed: the key is the one to
        # fix). The contract the receipt names is parsed once, by make_bundle.
        unread = read_contract(contract_bytes)
        if isinstance(unread, list):
            raise Refused(unread)
        if unread.key_id is not None and unread.key_id != pseudo.key_id:
            raise Refused([Problem("ATTEST-REDERIVE-OTHER-KEY", where="key_id")])
        raise IntegrityFailure("ATTEST-REDERIVE-OTHER-CONTRACT")
    try:
        rederived = make_bundle(
            parent, source, task_unit, pseudo, contract_bytes, bodies, keep=False
        ).data
    except Refused as refused:
        codes = {p.code for p in refused.problems}
        if "CONTRACT-KEY-MISMATCH" in codes:
            # The verifier's key, not the producer's: said as the verifier's to fix (2), not
            # with the producer's fix (make a new template).
            raise Refused([Problem("ATTEST-REDERIVE-OTHER-KEY", where="key_id")]) from None
        for code, said in _BODIES_AS_VERIFIER.items():
            if code in codes:
                # The verifier's --provider-bodies, not the producer's template: said with the
                # verifier's fix (a walkthrough was told to make the template again).
                raise Refused([Problem(said)]) from None
        if "CONTRACT-OTHER-SESSION" in codes:
            # Another session's files: the wrong --in, or a bundle that is not evidence of
            # these files; either way nothing changed in them (5, said as such).
            raise IntegrityFailure("ATTEST-REDERIVE-OTHER-SESSION") from None
        # The contract is the bundle's own (its digest is the receipt's) and converted once: the
        # sources no longer being the files it binds is a mismatch, not input to fix (exit 5).
        # A tree that no longer converts at all is compared by its files' bytes.
        changed = [p for p in refused.problems if p.code in _SOURCES_DIFFER]
        if not changed and not any(p.code in _NOT_COMPARABLE for p in refused.problems):
            changed = source_changes(parent, pseudo, contract_bytes, bodies)
        found = [*changed, *(p for p in refused.problems if p not in changed)]
        if changed and all(p.code == "CONTRACT-FILE-RENAMED" for p in changed):
            # The same bytes under other names, nothing else differing: the files could not be
            # checked as given (2), not evidence that they changed (5); giving them back their
            # names re-derives. Each rename is said below, without the producer's fixes.
            renamed = Refused([Problem("ATTEST-REDERIVE-RENAMED")])
            renamed.details = Refused(found, refused.labels, refused.paths)
            raise renamed from None
        if changed:
            failure = IntegrityFailure("ATTEST-REDERIVE-SOURCES-CHANGED")
            failure.details = Refused(found, refused.labels, refused.paths)
            raise failure from None
        raise
    if len(rederived) != size or rederived.sha256 != sha256:
        raise IntegrityFailure("ATTEST-REDERIVE-MISMATCH")
