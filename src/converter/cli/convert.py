"""`agent-evidence convert`: --template writes the contract to complete; --contract writes the
bundle. Both refuse with every problem found and write nothing on refusal."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from converter.cli.diagnostics import describe, say, tell
from converter.cli.options import (
    CARD_CHOICE,
    FILE,
    PASSPHRASE_ENV,
    card_given,
    convert_source_options,
    gathered_key,
    key_option,
    provider_bodies_option,
    signing_passphrase,
)
from converter.contract.model import Contract, Preset
from converter.contract.read import contract_file, load_preset
from converter.contract.template import Carried
from converter.errors import Gathered, Problem, Refused
from converter.evaluate.result import SPEND_LEFT_OUT_ELSE, SPLIT_SESSION, UNPRICED_SERVER_TOOLS
from converter.files import (
    attestation_path,
    check_outputs,
    labelled_outcomes,
    read_contract_file,
    same_file,
    write_all_atomic,
    write_atomic,
)
from converter.firewall.keys import PseudonymKey
from converter.firewall.pseudonyms import Pseudonymizer
from converter.firewall.view import Counts
from converter.pricing.card import PriceCard, load_price_card
from converter.run.conversion import (
    MadeBundle,
    ModelBound,
    bodies_unused,
    bundle_writes,
    make_bundle,
    make_template,
    read_old_contract,
    read_sources,
    source_for,
    template_pricing,
)
from converter.sources.bodies import body_names
from converter.sources.tree import in_session_folder, parent_missing
from converter.text import counted
from converter.vocabulary import (
    INCOMPLETE_NO_INPUT,
    TIMESTAMP_PRECISIONS,
    SourceName,
    TaskUnit,
    TimestampPrecision,
)

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from converter.bundle.model import BundleHead
    from converter.bundle.spool import SealedBytes


@click.command(short_help="Write a contract template, or a bundle from a contract.")
@convert_source_options
@click.option(
    "--template",
    "template_out",
    type=FILE,
    help="Write the contract template here.",
)
@click.option(
    "--from-contract",
    "old_contract",
    type=FILE,
    help="Carry claims forward from an earlier contract (with --template).",
)
@click.option(
    "--price-card",
    default=None,
    callback=card_given,
    help=f"Pre-fill known models from a card ({CARD_CHOICE}).",
)
@click.option(
    "--policy",
    "policy_file",
    type=FILE,
    default=None,
    help="Pre-fill policy, baseline and outcome_contract from this file, one a team keeps "
    "for every session (with --template; it wins over what --from-contract carried).",
)
@click.option(
    "--timestamps",
    type=click.Choice(TIMESTAMP_PRECISIONS),
    default=None,
    help="Timestamp precision of the template, which its contract and bundle keep (with "
    "--template; default: exact, or what --from-contract carried).",
)
@click.option(
    "--contract",
    "contract_in",
    type=FILE,
    help="The completed contract.",
)
@click.option(
    "--out",
    "bundle_out",
    type=FILE,
    help="Write the bundle here (with --contract).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Let --template replace an existing file (a filled contract is otherwise protected).",
)
@click.option(
    "--attest-key",
    type=FILE,
    default=None,
    help="Also write <out>.intoto.json signed with this Ed25519 key (an encrypted key's "
    f"passphrase: ${PASSPHRASE_ENV}, else asked on the terminal).",
)
@provider_bodies_option
@key_option
def convert(
    source: str,
    parent: Path,
    task_unit: str,
    show_paths: bool,
    template_out: Path | None,
    old_contract: Path | None,
    price_card: str | None,
    policy_file: Path | None,
    timestamps: TimestampPrecision | None,
    contract_in: Path | None,
    bundle_out: Path | None,
    force: bool,
    attest_key: Path | None,
    bodies: Path | None,
    key_file: Path | None,
) -> None:
    """Write a contract template, or check a completed contract and write the bundle."""
    if (template_out is None) == (contract_in is None):
        raise click.UsageError(
            "give exactly one of --template OUT or --contract C.json --out B.json"
        )
    # An option the chosen mode would ignore is refused, never dropped: a user who asks for
    # day-precision timestamps on a bundle must not get exact ones without a word.
    if template_out is not None:
        _only_with("--contract", {"--out": bundle_out, "--attest-key": attest_key})
    else:
        given = {
            "--from-contract": old_contract,
            "--price-card": price_card,
            "--policy": policy_file,
            "--timestamps": timestamps,
            "--force": force or None,
        }
        why = " (a bundle keeps its contract's privacy.timestamps)" if timestamps else ""
        _only_with("--template", given, why)
    # A contract (--contract, --from-contract) was made under a key: a new one can never be
    # it, and would be left behind by a run that cannot succeed. Only a fresh template makes one,
    # and only once the other files the options name are found sound (`_template_inputs`).
    # Its problem is said with theirs (`first`).
    first = Gathered()
    fresh = template_out is not None and old_contract is None
    key = None if fresh else gathered_key(first, key_file, create=False)
    # Only what was typed: otherwise the adapter and task unit the contract names, or the
    # defaults (`source_for`), for --contract and for --template with --from-contract.
    ctx = click.get_current_context()
    typed = (click.core.ParameterSource.COMMANDLINE, click.core.ParameterSource.ENVIRONMENT)
    src_given = cast(SourceName, source) if ctx.get_parameter_source("source") in typed else None
    unit_given = (
        cast(TaskUnit, task_unit) if ctx.get_parameter_source("task_unit") in typed else None
    )
    if template_out is not None:
        _template(
            src_given,
            parent,
            unit_given,
            template_out,
            old_contract,
            price_card,
            policy_file,
            timestamps,
            first,
            key,
            key_file,
            force,
            bodies,
        )
        return
    if bundle_out is None:
        raise click.UsageError("--contract needs --out BUNDLE.json")
    assert contract_in is not None
    _bundle(src_given, parent, unit_given, contract_in, bundle_out, attest_key, first, key, bodies)


def _only_with(mode: str, options: Mapping[str, object], why: str = "") -> None:
    extra = [name for name, value in options.items() if value is not None]
    if extra:
        verb = "applies" if len(extra) == 1 else "apply"
        raise click.UsageError(f"{', '.join(extra)} only {verb} with {mode}{why}")


def _template(
    typed_source: SourceName | None,
    parent: Path,
    typed_unit: TaskUnit | None,
    out: Path,
    old_contract: Path | None,
    price_card: str | None,
    policy_file: Path | None,
    timestamps: TimestampPrecision | None,
    first: Gathered,
    key: PseudonymKey | None,
    key_file: Path | None,
    force: bool,
    bodies: Path | None,
) -> None:
    # A template remade over the contract it carries forward: that contract is read before the
    # template is written, so it is no input the output would destroy, only a file --force
    # replaces (OUT-EXISTS without it; a new user's walkthrough: the README's loop remakes `$C`
    # from `$C`, refused as OUT-SAME-AS-INPUT whatever was given).
    in_place = old_contract is not None and same_file(out, old_contract)
    read_first = [p for p in (old_contract,) if p is not None and not in_place]
    inputs = [parent, *read_first] + [p for p in (policy_file,) if p is not None]
    replaceable = ("conversion-contract", "bundle")  # only with --force: OUT-EXISTS below
    old, card, preset, key = _template_inputs(
        first,
        out,
        inputs,
        replaceable,
        old_contract,
        price_card,
        policy_file,
        key,
        key_file,
        force,
        parent,
        in_place,
    )
    pseudo = Pseudonymizer(key)
    chosen = source_for(typed_source, typed_unit, old.source if old else None)
    source, task_unit = chosen.adapter, chosen.task_unit
    reading = read_sources(parent, source, task_unit, pseudo, bodies)
    check_outputs([out], inputs + list(reading.bound), replaceable, option="--template")
    if bodies_unused(reading):
        _say_bodies_unused()
    priced = template_pricing(reading, card, old)
    if card is not None and priced.unpriced_by_card is not None:
        _say_card_prices_none(card, priced.unpriced_by_card, old)
    made = make_template(
        reading,
        source,
        task_unit,
        timestamps=timestamps,
        prefill=priced.pricing,
        card=card,
        old=old,
        preset=preset,
    )
    carried = made.carried
    if in_place and carried is not None and (carried.other_session or carried.dropped_labelled):
        # Remade over itself, the contract would lose labels the template does not carry: of
        # another session's tasks (a wrong --in), or of tasks no longer there (a review: every
        # label gone, exit 0). Written elsewhere, the old contract stays to compare.
        raise Refused([Problem("OUT-FILLED-CONTRACT", where="--template")])
    write_atomic(out, made.data, "--template")
    review = None
    if carried is not None and carried.changed:
        review = "check the changed tasks' outcomes (below)"
    elif carried is not None and carried.dropped_labelled and not carried.other_session:
        review = "check the dropped tasks (below)"
    _say_template(reading.canonical.counts, made.to_fill, review)
    _say_left_out([(f.code, f.count) for f in reading.canonical.findings])
    _say_bounds(made.bounds, carried=old is not None)
    _say_ended(made.ended)
    if made.replaced:
        # (a walkthrough: min_tasks 20 -> 5 and a cost limit 5 -> 200, unremarked, where a new
        # card lists each repriced claim)
        tell(
            f"notice: the --policy file replaced {counted(len(made.replaced), 'claim')} the "
            f"--from-contract contract held: {', '.join(made.replaced)}"
        )
    if made.enabled:
        # (a review: cleared in silence, a gate disabled on purpose came back unremarked)
        tell(
            "notice: gates the --from-contract contract disabled and the --policy file does "
            f"not ({', '.join(made.enabled)}) are enabled again: evaluate --policy holds "
            "bundles to the file's list"
        )
    if carried is not None:
        _say_carried(carried, card)


def _template_inputs(
    first: Gathered,
    out: Path,
    inputs: list[Path],
    replaceable: tuple[str, ...],
    old_contract: Path | None,
    price_card: str | None,
    policy_file: Path | None,
    key: PseudonymKey | None,
    key_file: Path | None,
    force: bool,
    parent: Path,
    in_place: bool,
) -> tuple[Contract | None, PriceCard | None, Preset | None, PseudonymKey]:
    """The output checked and every input read, each problem of them said at once (with the
    key's, in `first`), before the sources are read; and the pseudonym key. With
    --from-contract, `key` was looked for already (None: refused, in `first`; the carried
    contract is then read all the same, and its key compared on the next run). A fresh
    template's key is looked for last, and created only when nothing here was refused: a
    refused run makes no key (an existing output, an unknown card)."""
    before = len(first.problems)  # the key's
    first(
        lambda: check_outputs(
            [out], inputs, replaceable, in_tree=_in_tree(parent), option="--template"
        )
    )
    # A filled contract is hours of labelling: never lose it. (Said only of an output that may
    # be replaced at all: "pass --force" would not help one that is an input.)
    exists = len(first.problems) == before and out.exists()
    if exists and not force:
        first.refuse(Problem("OUT-EXISTS", where="--template"))
    elif exists and not in_place and labelled_outcomes(out):
        # --force over labels it does not carry: a walkthrough lost every outcome, told only
        # "fill its 6 null claims"; --from-contract with the same file carries them instead.
        first.refuse(Problem("OUT-FILLED-CONTRACT", where="--template"))
    old = (
        first(
            lambda: read_old_contract(
                read_contract_file(old_contract),
                key.key_id if key is not None else None,
            )
        )
        if old_contract
        else None
    )
    card = first(lambda: load_price_card(price_card)) if price_card is not None else None
    preset = first(lambda: load_preset(policy_file)) if policy_file is not None else None
    if old_contract is None:
        # (a review: a missing --in made the fresh key, then refused)
        if (gone := parent_missing(parent)) is not None:
            first.refuse(gone)
        key = gathered_key(first, key_file)
    first.done()
    assert key is not None  # else `first` refused
    return old, card, preset, key


def _say_card_prices_none(card: PriceCard, models: tuple[str, ...], old: Contract | None) -> None:
    named = old.claims.pricing.price_card if old is not None else None
    then = (
        f"the carried contract's prices stay, under the card it names ({named.id})"
        if named is not None
        else "the template names no card and their prices are yours to fill"
    )
    unpriced = ", ".join(models) or "no model"
    tell(f"notice: price card {card.id} prices none of this session's models ({unpriced}); {then}")


def _say_template(counts: Counts, to_fill: int, review: str | None = None) -> None:
    """`review`: what to check first among the carried labels (a labelled task changed, or
    one with calls dropped): "every claim is filled" would say there is nothing to do."""
    check = f"{review}, then " if review else ""
    then = (
        f"fill its {counted(to_fill, 'null claim')}, {check or 'then '}convert --contract"
        if to_fill
        else f"every claim is filled; {check}convert --contract"
    )
    say(
        f"wrote contract template: {counted(counts.tasks, 'task')}, "
        f"{counted(counts.model_calls, 'model call')}, {counted(counts.tool_calls, 'tool call')}; "
        + then
    )


def _say_left_out(findings: list[tuple[str, int]]) -> None:
    """Findings that say some spend is in no cost: told before any task is labelled, since
    evaluate then meets no cost gate with this session's bundle (a walkthrough labelled every
    task first, then met EVAL-COST-LEFT-OUT)."""
    left = [(code, n) for code, n in findings if code in SPEND_LEFT_OUT_ELSE]
    if left:
        said = ", ".join(f"{code} {n:,}" for code, n in left)
        tell(
            f"notice: this session's findings say some spend is in no cost ({said}): evaluate "
            "will meet no cost gate with its bundle (EVAL-COST-LEFT-OUT, INCOMPLETE); "
            "docs/refusals.md says each one's way out"
        )
    count: Counter[str] = Counter()
    for code, n in findings:
        count[code] += n
    if unpriced := count[UNPRICED_SERVER_TOOLS]:
        tell(
            f"notice: {counted(unpriced, 'model call')} used a server tool no price covers "
            f"({UNPRICED_SERVER_TOOLS}): its requests are in no cost, so evaluate will meet no "
            "cost gate with this session's bundle unless the gate fails even without them "
            "(EVAL-COST-UNPRICED, INCOMPLETE); docs/refusals.md says what to do"
        )
    if no_input := count[INCOMPLETE_NO_INPUT]:
        them = "its" if no_input == 1 else "their"
        tell(
            f"notice: {counted(no_input, 'usage-incomplete call')} recorded no input "
            f"({INCOMPLETE_NO_INPUT}): {them} cost has no high end, so evaluate will meet no cost gate "
            "with this session's bundle unless the gate fails even at the low cost "
            "(EVAL-COST-UNBOUNDED, INCOMPLETE); --provider-bodies completes such a transcript "
            "call, if Claude Code wrote its response"
        )
    if split := count[SPLIT_SESSION]:
        tell(
            f"notice: {counted(split, 'other project folder')} {'holds' if split == 1 else 'hold'} "
            f"this session's main transcript too ({SPLIT_SESSION}): convert each and evaluate "
            "their bundles together, or evaluate will meet no cost gate with this one "
            "(EVAL-COST-LEFT-OUT); `inspect --show-paths` says where they are"
        )


def _say_ended(ended: tuple[tuple[str, tuple[int, int]], ...]) -> None:
    """The calls a card's one tier prices below the long-context rate they were billed at:
    the template names the card, and convert --contract would refuse it (a pricing audit:
    they were priced at half their cost, exact-looking, and nothing said so)."""
    for model, (before, after) in ended:
        said = (
            f"notice: {counted(before, 'call')} of {model} had more than 200,000 input tokens "
            "(input, cache reads and cache writes) before 2026-03-14, when its long-context "
            "rates still applied, which the card's one tier does not give: convert --contract "
            "refuses PRICE-CARD-TIER-ENDED while the contract names the card; set "
            "claims.pricing.price_card to null and price the model yourself, with a tier above "
            "200,000 input tokens at the rates you were billed (docs/pricing.md)"
        )
        if after:
            said += (
                f"; but {counted(after, 'call')} above 200,000 after it would take that tier "
                "too, and cost more than they did: no contract prices this session exactly "
                "(docs/limitations.md)"
            )
        tell(said)


def _say_bounds(bounds: tuple[ModelBound, ...], *, carried: bool) -> None:
    """The filled max_output_tokens that set the high end of usage-incomplete calls: not
    among the claims to fill, so a user doing what they are told would never look at them
    (unless `carried`: a carried bound is one its author already chose). And those left null,
    with where their value comes from: the refusal that follows names no number to fill."""
    for b in bounds:
        if b.max_output_tokens is not None and carried:
            continue
        verb = "fill" if b.max_output_tokens is None else "check"
        value = "" if b.max_output_tokens is None else f" ({b.max_output_tokens:,})"
        said = f"  {verb} max_output_tokens of {b.model}{value}: it bounds the output of its "
        said += counted(b.calls, "usage-incomplete call")
        if b.no_input == b.calls:  # a walkthrough: told it bounds their cost, which none does
            they, their = ("it", "its") if b.calls == 1 else ("they all", "their")
            said += f", but {they} recorded no input: no bound gives {their} cost a high end"
        elif b.no_input:
            said += (
                f", the high end of their cost (not of the {b.no_input:,} that recorded no "
                "input: no bound gives theirs one)"
            )
        else:
            said += ", the high end of their cost"
        said += (
            "; set the output limit your Claude Code requested (CLAUDE_CODE_MAX_OUTPUT_TOKENS, "
            + (
                "when set), else the model's documented maximum output"
                if b.max_output_tokens is None
                else "when set) if lower"
            )
        )
        say(said)


def _say_carried(c: Carried, card: PriceCard | None) -> None:
    if c.other_session:
        tell(
            "notice: the --from-contract contract was made for another session (its inventory does "
            "not bind this session's main transcript): its pricing, policy and privacy claims are "
            "carried, none of its tasks' labels"
        )
    say(
        f"carried claims forward: {counted(len(c.dropped), 'task')} dropped, "
        f"{counted(len(c.new), 'new task')} to label, "
        f"{counted(len(c.changed), 'labelled task')} changed since"
        + (" (check their outcomes)" if c.changed else "")
        + (f", {counted(len(c.unexcluded), 'excluded task')} to label" if c.unexcluded else "")
    )
    for task_id in c.dropped:
        calls = c.dropped_labelled.get(task_id)
        if calls and c.other_session:
            say(f"  dropped {task_id}: another session's task, with a label, not carried")
        elif calls:
            # The same session: its calls went into another task (the task rule changed, as
            # 0.4.8's did).
            say(
                f"  dropped {task_id}: it had {counted(calls, 'model call')} and a label, not "
                "carried; in the same session its calls are in other tasks now (a changed or "
                "new task above), whose outcomes to check"
            )
        else:
            say(f"  dropped {task_id}")
    for task_id in c.new:
        say(f"  new {task_id}")
    for task_id in c.changed:
        say(f"  changed {task_id}: its model calls or subagents are not what was labelled")
    for task_id in c.unexcluded:
        say(f"  to label {task_id}: excluded, and it has model calls now")
    for path in c.repriced:
        say(f"  repriced claims/pricing/{path}: the card given replaces the carried price")
    if c.own_prices_kept and card is not None:
        say(
            f"  your carried prices differ from price card {card.id} where it prices: they "
            "stay yours, and the template names no card"
        )


def _say_bodies_unused() -> None:
    """Was said by inspect alone: a wrong folder converted as if none had been given."""
    tell(f"notice: {describe('CC-BODY-NONE-SELECTED')}")


def _say_places(places: tuple[str, ...], most: int = 20) -> None:
    """Each place in the contract, one per line (a key the firewall keeps from a message is
    named by its place as written, `<key #N>`); past `most`, how many more."""
    for place in places[:most]:
        tell(f"  {place}")
    if len(places) > most:
        tell(f"  and {len(places) - most} more")


def _signing_key(path: Path, ask: bool) -> Ed25519PrivateKey:
    from converter.attest.keys import load_private_key

    return load_private_key(path, signing_passphrase(new=False) if ask else _not_asked)


def _not_asked() -> bytes | None:
    raise Refused([])  # the run is refused already, for what the other checks found


def _in_tree(parent: Path) -> Callable[[Path], bool]:
    """Whether an output path is in a folder of `parent`'s session (OUT-IN-SESSION-TREE)."""
    return lambda out: in_session_folder(out, parent)


# What the attestation beside --out is called in a refusal of it (the user named no such path).
_BESIDE = "the attestation beside --out: its name + .intoto.json"

# The longest file name most file systems take (ext4, APFS, NTFS: 255 bytes or units).
_NAME_MAX = 255


def _bundle(
    source: SourceName | None,
    parent: Path,
    task_unit: TaskUnit | None,
    contract_in: Path,
    out: Path,
    attest_key: Path | None,
    first: Gathered,
    key: PseudonymKey | None,
    bodies: Path | None,
) -> None:
    inputs = [parent, contract_in] + ([attest_key] if attest_key else [])
    if bodies is not None:  # the bound bodies are known only once read: none may be replaced
        inputs += [bodies / name for name in body_names(bodies, out, attestation_path(out))]
    beside = attestation_path(out)  # the attestation's place: written, kept or removed
    if attest_key is not None and len(os.fsencode(beside.name)) > _NAME_MAX:
        # the name given is legal; the one made from it is not (an operations review: "a path
        # given is longer than this system allows" named no path the user had given)
        raise click.UsageError(
            "--out's name leaves no room for the attestation beside it (<out>.intoto.json is "
            "longer than a file name may be): give the bundle a shorter name"
        )
    tree = _in_tree(parent)
    # a bundle replaces only a bundle
    first(lambda: check_outputs([out], inputs, ("bundle",), in_tree=tree, option="--out"))
    if attest_key or os.path.lexists(beside):  # and the attestation beside it only an attestation:
        # written anew with --attest-key, else removed (a folder, a FIFO, a contract or a key
        # there is refused, never deleted)
        # (its folder is --out's: an unwritable one is said once, of --out)
        first(
            lambda: check_outputs(
                [beside], inputs, ("attestation",), _BESIDE, in_tree=tree, option="--out"
            )
        )
    contract_bytes = first(lambda: contract_file(contract_in))
    # the passphrase is asked only of a run nothing else refuses (the key file's own checks
    # still run): nobody types it to learn that the contract path was mistyped
    ask = not first.problems
    signing_key = first(lambda: _signing_key(attest_key, ask)) if attest_key else None
    first.done()
    assert contract_bytes is not None
    assert key is not None
    pseudo = Pseudonymizer(key)
    # The bundle is built in an unnamed file beside --out, not in memory (`bundle.spool`).
    made = make_bundle(parent, source, task_unit, pseudo, contract_bytes, bodies, out.parent)
    try:
        # The bound files are known once read (a hostile audit: `--out` a hard link of a bound
        # subagent file, or the file by another path, was written over it, exit 0)
        then = Gathered()
        then(lambda: check_outputs([out], inputs + list(made.bound), ("bundle",), option="--out"))
        if attest_key is not None:
            then(
                lambda: check_outputs(
                    [beside], inputs + list(made.bound), ("attestation",), _BESIDE
                )
            )
        then.done()
        _write_bundle(made, out, attest_key, signing_key)
    finally:
        made.data.close()
    _say_unused(made)
    _say_written(made.head, made.data, signed=attest_key is not None)


def _write_bundle(
    made: MadeBundle, out: Path, attest_key: Path | None, signing_key: Ed25519PrivateKey | None
) -> None:
    bundle, data = made.head, made.data
    if made.bodies_unused:
        _say_bodies_unused()
    envelope = None
    if signing_key is not None:
        from converter.attest.statement import SUBJECT_NAME, attest

        envelope = attest(data, SUBJECT_NAME, bundle.receipt.model_dump(mode="json"), signing_key)
    writes = bundle_writes(out, data, envelope, signing=attest_key is not None)
    # The stale attestation goes with the write, Ctrl-C held: never a new bundle beside it.
    # (the attestation is written beside --out: said at that option too)
    write_all_atomic(list(writes.files), writes.removing, options=("--out", "--out"))
    if writes.removing:
        what = "the replaced bundle's old bytes" if writes.replaced else "no bundle written here"
        say(f"removed the attestation beside the bundle (its .intoto.json): it signed {what};")
        say("  sign this one with --attest-key")


def _say_unused(made: MadeBundle) -> None:
    """The contract's names and prices the session has no use for: typos, likely."""
    if made.unrevealed:
        tell(
            f"notice: {counted(len(made.unrevealed), 'name')} in claims.privacy.reveal_names "
            "matched nothing in this session and revealed nothing (a typo? `inspect "
            "--show-paths` lists the session's local names):"
        )
        _say_places(made.unrevealed)
    if made.prices_unused:
        tell(
            f"notice: {counted(len(made.prices_unused), 'entry', 'entries')} of claims.pricing "
            "price nothing this session uses (a model, billing context or tool it does not "
            "call; a typo?): left out of the bundle, which carries only the prices its events "
            "use:"
        )
        _say_places(made.prices_unused)


def _say_written(bundle: BundleHead, data: SealedBytes, *, signed: bool) -> None:
    c = bundle.receipt.counts
    # As evaluate counts them ("2 tasks, 1 excluded"): the tasks it labels, then those the
    # contract excludes (a new user read "3 tasks (1 excluded)" beside it as a miscount)
    left = len(bundle.excluded_tasks)
    excluded = f", {left:,} excluded by the contract" if left else ""
    say(
        f"wrote bundle: {counted(c.tasks - left, 'task')}{excluded}, "
        f"{counted(c.model_calls, 'model call')}, "
        f"{counted(c.tool_calls, 'tool call')}, "
        f"evidence sha256 {bundle.receipt.evidence_sha256}"
    )
    if signed:
        from converter.attest.statement import SUBJECT_NAME

        say("signed: the attestation is beside the bundle, named as it is plus .intoto.json")
        # what it signs, to publish beside the public key (an attest audit: only the evidence
        # digest was printed, which is not the subject's)
        say(f"  its subject: {SUBJECT_NAME}, sha256 {data.sha256}")
