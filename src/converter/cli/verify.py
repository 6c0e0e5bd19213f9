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
from typing import Any, cast

import click

from converter import __version__
from converter.attest.signed import open_attested, require_own_receipt
from converter.bundle.io import open_bundle
from converter.bundle.model import BundleHead
from converter.cli.diagnostics import say
from converter.cli.options import (
    FILE,
    PATH,
    SOURCES,
    key_option,
    provider_bodies_option,
    read_input,
)
from converter.errors import IntegrityFailure, Problem, Refused
from converter.evaluate.fmt import counted
from converter.firewall.keys import load_key
from converter.firewall.pseudonyms import Pseudonymizer
from converter.pricing.card import shipped_cards
from converter.run.pipeline import SourceName, TaskUnit


@click.command()
@click.option(
    "--bundle",
    type=FILE,
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
    type=click.Choice(["prompt", "session"]),
    default=None,
    help="Task unit (default: the one the contract names).",
)
@click.option(
    "--show-paths",
    is_flag=True,
    help="With re-derivation: add local relative paths to the sources' diagnostics (stderr).",
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
    key_file: Path | None,
) -> None:
    """Verify a bundle: its digest, its signed attestation, its re-derivation (exit 0/5/2)."""
    if attestation is not None and public_key is None:
        raise click.UsageError("--attestation needs --public-key (the key to check it with)")
    if (contract_in is None) != (parent is None):
        raise click.UsageError("re-deriving needs both --contract C.json and --in SESSION.jsonl")
    if contract_in is None and (source or task_unit or key_file or show_paths):
        raise click.UsageError(
            "--from, --task-unit, --key-file and --show-paths only apply with --contract/--in"
        )

    data = read_input(bundle, "BUNDLE-UNREADABLE")
    envelope = attestation or Path(f"{bundle}.intoto.json")
    signed: tuple[str, dict[str, Any]] | None = None  # key id, signed receipt
    if public_key is None:
        opened = open_bundle(data, reference=True)  # not the encoder that wrote it
    else:  # the signature first, over the raw bytes (`open_attested`)
        from converter.attest.dsse import key_id
        from converter.attest.keys import load_public_key

        opened, signed_receipt, key = open_attested(
            data,
            lambda: read_input(envelope, "ATTEST-MISSING", empty_is_missing=True),
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
    else:
        say(f"ok: its parts agree ({events}; a v1 bundle has no pricing to check costs)")
    if signed is not None:
        say(
            f"ok: attestation signature verifies with key {signed[0]} and its subject is this "
            f"bundle (sha256 {hashlib.sha256(data).hexdigest()})"
        )
        require_own_receipt(opened, signed[1])
        say("ok: the signed receipt is the bundle's own receipt")
    elif envelope.exists():  # a reader could take the file's presence for a checked signature
        say("not checked: the attestation beside it (who signed it): pass --public-key")
    if contract_in is not None and parent is not None:
        _check_rederivation(data, opened, contract_in, parent, source, task_unit, key_file)


# What a contract says when the sources are not the files it binds (CONTRACT-KEY-MISMATCH is not
# one: another pseudonym key cannot re-derive anything, and is said as such, exit 2).
_SOURCES_DIFFER = frozenset(
    {
        "CONTRACT-FILE-CHANGED",
        "CONTRACT-FILE-ADDED",
        "CONTRACT-FILE-REMOVED",
        "CONTRACT-COUNT-MISMATCH",
        "CONTRACT-INVENTORY-MISMATCH",
        "CONTRACT-TASKS-MISMATCH",
        "CONTRACT-OTHER-SESSION",
    }
)


# Refusals after which the files cannot be compared with the contract's: read another way than
# it names, or labelled under another key.
_NOT_COMPARABLE = frozenset({"CONTRACT-SOURCE-MISMATCH", "CONTRACT-KEY-MISMATCH"})


def _check_rederivation(
    data: bytes,
    opened: BundleHead,
    contract_in: Path,
    parent: Path,
    source: str | None,
    task_unit: str | None,
    key_file: Path | None,
) -> None:
    from converter.run.conversion import make_bundle, source_changes

    if opened.generator.version != __version__:
        # Its generator's version is in its bytes, and task ids and shapes change between
        # versions: another version can only re-derive other bytes (and would list every task
        # as a mismatch, with fixes for a contract that is not wrong).
        raise Refused([Problem("ATTEST-REDERIVE-OTHER-VERSION")])
    contract_bytes = read_input(contract_in, "CONTRACT-UNREADABLE")
    # Never create a key here: a fresh key could only re-derive a different bundle.
    pseudo = Pseudonymizer(load_key(key_file, create=False).key)
    if hashlib.sha256(contract_bytes).hexdigest() != opened.receipt.contract_sha256:
        # Not the contract the bundle names (or the bundle names another): nothing from it can
        # re-derive these bytes. Said as such, not as an unexplained byte mismatch; a file that
        # is no contract at all (not JSON, a bundle) could not be checked (2). The contract
        # the receipt names is parsed once, by make_bundle.
        from converter.contract.read import read_contract

        unread = read_contract(contract_bytes)
        if isinstance(unread, list):
            raise Refused(unread)
        raise IntegrityFailure("ATTEST-REDERIVE-OTHER-CONTRACT")
    # Untyped, the adapter and task unit are the contract's own (as convert takes them), not
    # the receipt's: a receipt edited to name others is then a mismatch, never a refusal.
    src = cast(SourceName | None, source)
    unit = cast(TaskUnit | None, task_unit)
    try:
        _, rederived = make_bundle(parent, src, unit, pseudo, contract_bytes)
    except Refused as refused:
        # The contract is the bundle's own (its digest is the receipt's) and converted once: the
        # sources no longer being the files it binds is a mismatch, not input to fix (exit 5).
        # A tree that no longer converts at all is compared by its files' bytes.
        changed = [p for p in refused.problems if p.code in _SOURCES_DIFFER]
        if not changed and not any(p.code in _NOT_COMPARABLE for p in refused.problems):
            changed = source_changes(parent, pseudo, contract_bytes)
        if changed:
            failure = IntegrityFailure("ATTEST-REDERIVE-SOURCES-CHANGED")
            failure.refusals = [*changed, *(p for p in refused.problems if p not in changed)]
            raise failure from None
        raise
    if rederived != data:
        raise IntegrityFailure("ATTEST-REDERIVE-MISMATCH")
    say(
        "ok: re-derived from the sources, the contract and the pseudonym key, byte for byte "
        f"({counted(len(data), 'byte')})"
    )
