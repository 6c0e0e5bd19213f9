"""Opening a signed bundle: the attestation's signature over the bundle's exact bytes first,
then the bundle itself (`bundle.io.open_bundle`), then the signed receipt against its own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from converter.attest.statement import check_attestation
from converter.bundle.io import BundleSink, integrity_mismatches, open_bundle
from converter.bundle.model import BundleHead
from converter.errors import Gathered, IntegrityFailure, Refused


def open_attested(
    data: bytes,
    read_envelope: Callable[[], bytes],
    load_key: Callable[[], Ed25519PublicKey],
    *,
    reference: bool = False,
    sink: BundleSink | None = None,
    own_receipt: bool = True,
) -> tuple[BundleHead, dict[str, Any], Ed25519PublicKey]:
    """`open_bundle`, once the attestation's signature verifies with the key over `data`'s
    exact bytes, and its signed receipt is the bundle's own. The signature is checked first: a
    changed byte is a mismatch (5) even where it leaves no JSON to read (unsigned, such bytes
    could only be refused, 2). Every mismatch is reported: the bundle's own digest too. When
    the signature cannot be checked (no attestation, no envelope, an unusable key: refused, 2),
    a bundle that fails its own digest is still a mismatch (5), said with that refusal.
    Returns the bundle, the signed receipt and the key. `own_receipt=False`: the caller applies
    `require_own_receipt` itself (`verify` first says what passed)."""
    try:
        envelope, key = _both(read_envelope, load_key)
        signed_receipt = check_attestation(data, envelope, key)
    except IntegrityFailure as failed:
        mismatches = [*failed.problems, *integrity_mismatches(data, reference)]
        raise IntegrityFailure.several(mismatches, []) from None
    except Refused as refused:
        found = integrity_mismatches(data, reference)
        if found:
            raise IntegrityFailure.several(found, refused.problems) from None
        raise
    bundle = open_bundle(data, reference=reference, sink=sink)
    if own_receipt:
        require_own_receipt(bundle, signed_receipt)
    return bundle, signed_receipt, key


def _both(
    read_envelope: Callable[[], bytes], load_key: Callable[[], Ed25519PublicKey]
) -> tuple[bytes, Ed25519PublicKey]:
    """The envelope and the key, or one refusal naming what is wrong with either or both."""
    found = Gathered()
    envelope, key = found(read_envelope), found(load_key)
    found.done()
    assert envelope is not None
    assert key is not None
    return envelope, key


def require_own_receipt(bundle: BundleHead, signed_receipt: dict[str, Any]) -> None:
    """An attestation that verifies must also sign this bundle's own receipt (exit 5 if not);
    both `verify` and `evaluate --public-key` apply it after the signature check."""
    if signed_receipt != bundle.receipt.model_dump(mode="json"):
        raise IntegrityFailure("ATTEST-RECEIPT-MISMATCH")
