"""`agent-evidence verify`: check a bundle someone else made (SPEC §2, §9).

Three checks, each optional after the first, each printed on its own line once it passes:

1. the evidence digest: the bundle's `receipt.evidence_sha256` is recomputed from its content;
2. with `--public-key`: the DSSE attestation (default `<bundle>.intoto.json`) verifies with that
   key, its subject is the SHA-256 of these exact bundle bytes, and the receipt it signs is the
   bundle's own receipt;
3. with `--contract` and `--in`: the bundle is re-derived from the sources, the contract and the
   pseudonym key, and must be byte for byte the bundle given.

Exit 0 when every requested check passed; 5 when one found a mismatch (the bundle, attestation
or sources do not belong together); 2 when a check could not run (a file missing or unreadable,
an attestation that is no DSSE envelope at all, a key unusable, the sources refused against the
contract).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import click

from converter.bundle.io import open_bundle
from converter.bundle.model import BundleHead
from converter.cli.diagnostics import say
from converter.cli.options import (
    FILE,
    PATH,
    SOURCES,
    TASK_UNIT_CHOICE,
    key_option,
    provider_bodies_option,
    pseudonym_key,
    show_paths_option,
)
from converter.files import ask, read_input
from converter.firewall.pseudonyms import Pseudonymizer
from converter.pricing import shipped_cards
from converter.text import counted
from converter.vocabulary import SourceName, TaskUnit

if TYPE_CHECKING:
    from converter.pricing.model import PriceCardRef, PricingClaims


def _say_own(pricing: PricingClaims, card: PriceCardRef) -> None:
    """What the contract chose that the card does not state: prices (a model, a context's
    multiplier) and max_output_tokens, the high end of usage-incomplete calls. An audit: every
    multiplier at 0.5 halved every cost under a line saying the prices were the card's."""
    from converter.pricing.card import own_bounds, own_prices

    own = [m if c is None else f"{m} {c}" for m, c in own_prices(pricing, card)]
    own += [f"{m} max_output_tokens {n:,}" for m, n in own_bounds(pricing, card)]
    if own:
        say(
            f"note: {counted(len(own), 'price')} it carries are the contract's own, not the "
            f"card's: {', '.join(own)}"
        )


@click.command(short_help="Check a bundle's digest, signature and re-derivation.")
@click.option(
    "--bundle",
    type=PATH,  # a folder is refused as BUNDLE-IS-FOLDER, as in evaluate
    required=True,
    help="The bundle to verify.",
)
@click.option(
    "--attestation",
    type=FILE,
    default=None,
    help="The DSSE attestation (default: <bundle>.intoto.json); needs --public-key.",
)
@click.option(
    "--public-key",
    type=FILE,
    default=None,
    help="The producer's Ed25519 public key (.pem.pub): require a valid attestation.",
)
@click.option(
    "--contract",
    "contract_in",
    type=FILE,
    default=None,
    help="The completed contract: with --in, re-derive the bundle and compare bytes.",
)
@click.option(
    "--in",
    "parent",
    type=PATH,
    default=None,
    help="The parent transcript <session-id>.jsonl the bundle was made from.",
)
@click.option(
    "--from",
    "source",
    type=SOURCES,
    default=None,
    help="Source adapter (default: the one the contract names).",
)
@click.option(
    "--task-unit",
    type=TASK_UNIT_CHOICE,
    default=None,
    help="Task unit (default: the one the contract names).",
)
@show_paths_option(
    "With re-derivation: add local relative paths to the sources' diagnostics (stderr)."
)
@provider_bodies_option
@key_option
def verify(
    show_paths: bool,
    bundle: Path,
    attestation: Path | None,
    public_key: Path | None,
    contract_in: Path | None,
    parent: Path | None,
    source: str | None,
    task_unit: str | None,
    bodies: Path | None,
    key_file: Path | None,
) -> None:
    """Verify a bundle: its digest, its signed attestation, its re-derivation (exit 0/5/2)."""
    if attestation is not None and public_key is None:
        raise click.UsageError("--attestation needs --public-key (the key to check it with)")
    if (contract_in is None) != (parent is None):
        raise click.UsageError("re-deriving needs both --contract C.json and --in SESSION.jsonl")
    if contract_in is None and (source or task_unit or key_file or show_paths or bodies):
        raise click.UsageError(
            "--from, --task-unit, --provider-bodies, --key-file and --show-paths only apply "
            "with --contract/--in"
        )

    data = read_input(bundle, "BUNDLE-UNREADABLE", folder="BUNDLE-IS-FOLDER")
    envelope = attestation or Path(f"{bundle}.intoto.json")
    signed: tuple[str, dict[str, Any]] | None = None  # key id, signed receipt
    if public_key is None:
        opened = open_bundle(data, reference=True)  # not the encoder that wrote it
    else:  # the signature first, over the raw bytes (`open_attested`)
        from converter.attest.dsse import key_id
        from converter.attest.keys import load_public_key
        from converter.attest.signed import open_attested, read_attestation

        opened, signed_receipt, key = open_attested(
            data,
            lambda: read_attestation(envelope),
            lambda: load_public_key(public_key),
            reference=True,
            own_receipt=False,
        )
        signed = (key_id(key), signed_receipt)
    say(f"ok: evidence digest recomputed (evidence sha256 {opened.receipt.evidence_sha256})")
    counts = opened.receipt.counts
    events = counted(counts.model_calls + counts.tool_calls, "event")
    if opened.pricing is not None:
        say(f"ok: its parts agree, and the costs of its {events} match the prices it carries")
        card = opened.receipt.price_card
        if card is not None and card.id in shipped_cards():
            say(f"ok: the prices it carries for what the card prices are the card's ({card.id})")
            _say_own(opened.pricing, card)
        elif card is None:  # an auditor read the line above as "its prices are a card's"
            say("note: it names no price card: every price it carries is the contract's own")
        else:  # a card file's, or an id typed into the contract
            say(
                f"not checked: its prices against card {card.id}, which this version does not "
                "ship (they are the contract's own)"
            )
    else:
        say(f"ok: its parts agree ({events}; a v1 bundle has no pricing to check costs)")
    if signed is not None:
        say(
            f"ok: attestation signature verifies with key {signed[0]} and its subject is this "
            f"bundle (sha256 {hashlib.sha256(data).hexdigest()})"
        )
        from converter.attest.signed import require_own_receipt

        require_own_receipt(opened, signed[1])
        say("ok: the signed receipt is the bundle's own receipt")
    elif ask(envelope.exists, too_long_is_absent=True):  # its presence could be taken for a
        # checked signature (a bundle's name near the limit leaves no room for .intoto.json)
        say("not checked: the attestation beside it (who signed it): pass --public-key")
    if contract_in is not None and parent is not None:
        _check_rederivation(data, opened, contract_in, parent, source, task_unit, key_file, bodies)


def _check_rederivation(
    data: bytes,
    opened: BundleHead,
    contract_in: Path,
    parent: Path,
    source: str | None,
    task_unit: str | None,
    key_file: Path | None,
    bodies: Path | None,
) -> None:
    from converter.run.conversion import rederive, require_this_version

    require_this_version(opened)
    contract_bytes = read_input(contract_in, "CONTRACT-UNREADABLE")
    # Never create a key here: a fresh key could only re-derive a different bundle.
    pseudo = Pseudonymizer(pseudonym_key(key_file, create=False))
    src = cast(SourceName | None, source)
    unit = cast(TaskUnit | None, task_unit)
    rederive(data, opened, contract_bytes, parent, src, unit, pseudo, bodies)
    say(
        "ok: re-derived from the sources, the contract and the pseudonym key, byte for byte "
        f"({counted(len(data), 'byte')})"
    )
