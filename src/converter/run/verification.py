"""What `verify` checks, in order, each said once it has passed (SPEC §2, §9).

1. the evidence digest: the bundle's `receipt.evidence_sha256` is recomputed from its content,
   and its parts agree (costs against the prices it carries, prices against a shipped card);
2. with a public key: the DSSE attestation verifies with it, its subject is the SHA-256 of these
   exact bundle bytes, and the receipt it signs is the bundle's own receipt;
3. with a contract and the sources: the bundle is re-derived, byte for byte.

`verification` yields each line as its check passes, so a failure later still leaves the checks
before it said; a failure is raised (IntegrityFailure 5, Refused 2) and the caller prints it.
Every line holds counts, digests, key ids, card ids, model names as they crossed and fixed
words: nothing from the sources.
"""

from __future__ import annotations

import hashlib
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from converter.bundle.io import open_bundle
from converter.errors import IntegrityFailure, Problem, Refused
from converter.files import ask, read_bundle
from converter.pricing import shipped_cards
from converter.text import counted
from converter.vocabulary import SourceName, TaskUnit

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from converter.bundle.model import BundleHead
    from converter.firewall.pseudonyms import Pseudonymizer
    from converter.pricing.model import PriceCardRef, PricingClaims


@dataclass(frozen=True)
class Rederivation:
    """The third check's inputs. The contract and the key are read before the first check
    (docs/commands.md "Refusal messages": the files the options name are checked first,
    together): `refused` holds what keeps them from being had (a key file missing or
    invalid, a contract unreadable or no contract at all), said with the bundle's own problems
    when it has some, else in place of the third check; `contract` and `pseudonymizer` are
    None only then. The sources (`parent`) are read only when the third check runs."""

    contract: bytes | None
    parent: Path
    source: SourceName | None
    task_unit: TaskUnit | None
    pseudonymizer: Pseudonymizer | None
    bodies: Path | None = None
    refused: list[Problem] = field(default_factory=list)


def verification(
    bundle: Path,
    envelope: Path,
    public_key: Path | None,
    rederivation: Rederivation | None,
) -> Iterator[str]:
    """The lines `verify` prints for the bundle at `bundle` (its attestation at `envelope`).
    The bundle's refusal or mismatch carries the contract's and the key's problems (they were
    checked first, with the bundle: `Rederivation.refused`), so one run says them all."""
    refused = rederivation.refused if rederivation is not None else []
    try:
        opened, size, sha256 = yield from _bundle_checks(
            bundle, envelope, public_key, rederive=rederivation is not None
        )
        if rederivation is not None:
            from converter.run.conversion import require_this_version

            require_this_version(opened)
    except Refused as failure:
        failure.problems.extend(refused)
        raise
    except IntegrityFailure as failure:
        failure.refusals.extend(refused)
        raise
    if rederivation is not None:
        from converter.run.conversion import rederive

        r = rederivation
        if r.refused:
            raise Refused(list(r.refused))
        assert r.contract is not None
        assert r.pseudonymizer is not None
        rederive(
            size,
            sha256,
            opened,
            r.contract,
            r.parent,
            r.source,
            r.task_unit,
            r.pseudonymizer,
            r.bodies,
        )
        yield (
            "ok: re-derived from the sources, the contract and the pseudonym key, byte for byte "
            f"({counted(size, 'byte')})"
        )


def _bundle_checks(
    bundle: Path, envelope: Path, public_key: Path | None, *, rederive: bool
) -> Generator[str, None, tuple[BundleHead, int, str]]:
    """The first two checks' lines; the bundle opened, its size and SHA-256 ("" when neither
    a signature nor a re-derivation needs it)."""
    signed = None  # (key id, the signed receipt)
    if public_key is None:
        data = read_bundle(bundle)
        opened = open_bundle(data, reference=True)  # not the encoder that wrote it
    else:  # the signature first, over the raw bytes (`open_attested`)
        from converter.attest.dsse import key_id
        from converter.attest.keys import load_public_key
        from converter.attest.signed import open_attested, read_attestation, read_signed_bundle

        def read_envelope() -> bytes:
            return read_attestation(envelope)

        def load_key() -> Ed25519PublicKey:
            return load_public_key(public_key)

        data = read_signed_bundle(bundle, read_envelope, load_key)
        opened, signed_receipt, key = open_attested(
            data,
            read_envelope,
            load_key,
            reference=True,
            own_receipt=False,
        )
        signed = (key_id(key), signed_receipt)
    size = len(data)
    needed = signed is not None or rederive  # said, or compared
    sha256 = hashlib.sha256(data).hexdigest() if needed else ""
    del data  # (not held beside a re-derivation's conversion)
    yield f"ok: evidence digest recomputed (evidence sha256 {opened.receipt.evidence_sha256})"
    counts = opened.receipt.counts
    events = counted(counts.model_calls + counts.tool_calls, "event")
    if opened.pricing is not None:
        yield f"ok: its parts agree, and the costs of its {events} match the prices it carries"
        card = opened.receipt.price_card
        if card is not None and card.id in shipped_cards():
            yield f"ok: the prices it carries for what the card prices are the card's ({card.id})"
            yield from _own(opened.pricing, card)
        elif card is None:  # an auditor read the line above as "its prices are a card's"
            yield "note: it names no price card: every price it carries is the contract's own"
        else:  # a card file's, or an id typed into the contract
            yield (
                f"not checked: its prices against card {card.id}, which this version does not "
                "ship (they are the contract's own)"
            )
    else:
        yield f"ok: its parts agree ({events}; a v1 bundle has no pricing to check costs)"
    yield from _gates_not_run(opened.policy.disabled_checks)
    if signed is not None:
        yield (
            f"ok: attestation signature verifies with key {signed[0]} and its subject is this "
            f"bundle (sha256 {sha256})"
        )
        from converter.attest.signed import require_own_receipt

        require_own_receipt(opened, signed[1])
        yield "ok: the signed receipt is the bundle's own receipt"
    elif ask(envelope.exists, too_long_is_absent=True):  # its presence could be taken for a
        # checked signature (a bundle's name near the limit leaves no room for .intoto.json)
        yield "not checked: the attestation beside it (who signed it): pass --public-key"
    return opened, size, sha256


def _gates_not_run(disabled: tuple[str, ...]) -> Iterator[str]:
    """A disabled gate this release does not have: the bundle still verifies (another release
    may have written it), but `evaluate` refuses it, and an audit met "ok" here and a refusal
    there. Said by position: the id is the bundle's text, not this release's word."""
    from typing import get_args

    from converter.contract.model import CheckId

    known = get_args(CheckId)
    for index, name in enumerate(disabled):
        if name not in known:
            yield (
                f"note: its policy disables a gate this version does not run "
                f"(policy/disabled_checks/{index}): evaluate refuses it (EVAL-UNKNOWN-CHECK)"
            )


def _own(pricing: PricingClaims, card: PriceCardRef) -> Iterator[str]:
    """What the contract chose that the card does not state: prices (a model, a context's
    multiplier) and max_output_tokens, the high end of usage-incomplete calls. An audit: every
    multiplier at 0.5 halved every cost under a line saying the prices were the card's."""
    from converter.pricing.card import own_bounds, own_prices

    own = [m if c is None else f"{m} {c}" for m, c in own_prices(pricing, card)]
    own += [f"{m} max_output_tokens {n:,}" for m, n in own_bounds(pricing, card)]
    if own:
        yield (
            f"note: {counted(len(own), 'price')} it carries "
            f"{'is' if len(own) == 1 else 'are'} the contract's own, not the "
            f"card's: {', '.join(own)}"
        )
