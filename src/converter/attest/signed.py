"""Opening a signed bundle: the attestation's signature over the bundle's exact bytes first,
then the bundle itself (`bundle.io.open_bundle`), then the signed receipt against its own."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from converter.attest.errors import SubjectMismatch
from converter.attest.statement import check_attestation, check_attested_blocks
from converter.bundle.io import BundleSink, bundle_problems, open_bundle
from converter.bundle.model import BundleHead
from converter.errors import Gathered, IntegrityFailure, Problem, Refused
from converter.files import NOT_A_BUNDLE, read_bundle, read_input
from converter.regular import open_regular


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
    except SubjectMismatch as moved:  # signed by the key, but over other bytes
        opened, mismatches, refusals = bundle_problems(data, reference)
        if opened is not None and not _own_receipt(opened, moved.signed_receipt):
            mismatches.append(Problem("ATTEST-RECEIPT-MISMATCH"))  # what changed, said too
        raise IntegrityFailure.several([*moved.problems, *mismatches], refusals) from None
    except IntegrityFailure as failed:
        _, mismatches, refusals = bundle_problems(data, reference)
        raise IntegrityFailure.several([*failed.problems, *mismatches], refusals) from None
    except Refused as refused:
        _, mismatches, refusals = bundle_problems(data, reference)
        if mismatches:
            raise IntegrityFailure.several(mismatches, [*refused.problems, *refusals]) from None
        if any(p.code in _ANOTHER_FILE for p in refusals):
            # Not a bundle but a file of another kind given for one: the attestation looked for
            # beside it (named after it) is no one's to produce; that is the one thing to say.
            raise Refused(refusals) from None
        raise Refused([*refused.problems, *refusals]) from None
    bundle = open_bundle(data, reference=reference, sink=sink)
    if own_receipt:
        require_own_receipt(bundle, signed_receipt)
    return bundle, signed_receipt, key


def read_signed_bundle(
    path: Path, read_envelope: Callable[[], bytes], load_key: Callable[[], Ed25519PublicKey]
) -> bytes:
    """`files.read_bundle`, for a bundle checked against a signature: one refused by its first
    bytes (a first byte no JSON starts with, a NUL) is a mismatch (5) when a signature by the
    key is over other bytes, as one changed byte anywhere else is (a supply-chain audit: a
    first byte or a NUL changed in a signed bundle was refused, 2). It is hashed a block at a
    time, never held whole; the refusal is said with the mismatch. When the signature cannot
    be checked (no envelope, a key that cannot be used), or signs these very bytes, the
    refusal stands."""
    try:
        return read_bundle(path)
    except Refused as refused:
        if [p.code for p in refused.problems] != [NOT_A_BUNDLE]:
            raise
        try:
            envelope, key = _both(read_envelope, load_key)
            check_attested_blocks(lambda: _blocks(path), envelope, key)
        except IntegrityFailure as failed:
            raise IntegrityFailure.several(failed.problems, refused.problems) from None
        except (Refused, OSError):
            pass
        raise refused from None


def _blocks(path: Path) -> Iterator[bytes]:
    """The bytes of the file at `path`, a block at a time (never a FIFO or a device)."""
    with open_regular(path) as stream:
        while block := stream.read(1 << 20):
            yield block


_ANOTHER_FILE = frozenset({"BUNDLE-IS-AN-ATTESTATION", "BUNDLE-IS-A-CONTRACT"})


# An envelope this program writes holds a bundle's receipt: ~340 KB for a tree of 1,763 files.
# One of 64 MiB is no attestation of ours, and is not read whole (JSON costs ~5x its size).
MAX_ENVELOPE_BYTES = 64 * 2**20


def read_attestation(path: Path) -> bytes:
    """The bytes of an attestation file, or a refusal: missing or empty (ATTEST-MISSING),
    larger than any this program writes (ATTEST-TOO-LARGE)."""
    return read_input(
        path,
        "ATTEST-MISSING",
        empty_is_missing=True,
        at_most=MAX_ENVELOPE_BYTES,
        too_large="ATTEST-TOO-LARGE",
    )


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
    if not _own_receipt(bundle, signed_receipt):
        raise IntegrityFailure("ATTEST-RECEIPT-MISMATCH")


def _own_receipt(bundle: BundleHead, signed_receipt: dict[str, Any] | None) -> bool:
    return signed_receipt == bundle.receipt.model_dump(mode="json")
