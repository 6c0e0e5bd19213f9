"""Bundle bytes: seal (compute evidence_sha256) and open (recompute it, refuse a mismatch)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from converter.bundle.model import Bundle
from converter.canonical import (
    canonical_bytes,
    encode,
    field_bytes,
    object_chunks,
    reference_bytes,
    sha256_hex,
)
from converter.errors import IntegrityFailure, Problem, Refused
from converter.heap import return_free_memory
from converter.jsontext import NotStrictJSON, loads_integral


def evidence_digest(
    body: dict[str, Any], *, float_free: bool = False, reference: bool = False
) -> str:
    """SHA-256 of the canonical JSON of a bundle's JSON value without `receipt.evidence_sha256`.

    Computed over the JSON values as written, not over a re-serialization of the model, so the
    check does not depend on how this version formats a decimal. `reference`: encode with
    canonicaljson rather than the fast encoder (the same bytes; an independent implementation).
    """
    receipt = body.get("receipt")
    if not isinstance(receipt, dict):
        raise IntegrityFailure("BUNDLE-DIGEST-MISMATCH")
    unsealed = {**body, "receipt": {k: v for k, v in receipt.items() if k != "evidence_sha256"}}
    try:
        if reference:
            return sha256_hex(reference_bytes(unsealed))
        return sha256_hex(canonical_bytes(unsealed, float_free=float_free))
    except (TypeError, ValueError):  # a float or Decimal smuggled into a bundle
        raise IntegrityFailure("BUNDLE-DIGEST-MISMATCH") from None


def seal(bundle: Bundle) -> tuple[Bundle, bytes]:
    """The sealed bundle and its canonical bytes. Each field is encoded once, item by item (a
    bundle is the largest artifact: its JSON dump as dicts would be ~5x its bytes); the digest
    is taken over the members with the unsealed receipt, the bytes written with the sealed one."""
    members: dict[str, Iterable[bytes | bytearray]] = {
        name: [field_bytes(bundle, name)] for name in type(bundle).model_fields if name != "receipt"
    }
    receipt = bundle.receipt.model_dump(mode="json")
    unsealed = {k: v for k, v in receipt.items() if k != "evidence_sha256"}
    hasher = hashlib.sha256()
    for chunk in object_chunks({**members, "receipt": [encode(unsealed)]}):
        hasher.update(chunk)
    digest = hasher.hexdigest()
    receipt["evidence_sha256"] = digest
    data = b"".join(object_chunks({**members, "receipt": [encode(receipt)]}))
    del members
    sealed = bundle.receipt.model_copy(update={"evidence_sha256": digest})
    return bundle.model_copy(update={"receipt": sealed}), data


def _digest_matches(data: bytes, reference: bool) -> bool:
    """Strict parse (no duplicate keys, NaN, floats or fractions) and the evidence digest recomputed over the
    values as written. The parsed value is dropped before the model is built from the bytes, so
    the two never share the peak."""
    try:
        raw = loads_integral(data)  # no float, no fraction: nothing for the encoder to walk
    except NotStrictJSON:
        return False
    if not isinstance(raw, dict):
        return False
    receipt = raw.get("receipt")
    claimed = receipt.get("evidence_sha256") if isinstance(receipt, dict) else None
    return claimed is not None and claimed == evidence_digest(
        raw, float_free=True, reference=reference
    )


def open_bundle(data: bytes, *, reference: bool = False) -> Bundle:
    """Parse and check a bundle. Unparseable → refused (2); digest mismatch → integrity (5).
    `reference`: recompute the digest with canonicaljson (what `verify` does)."""
    if not _digest_matches(data, reference):
        raise IntegrityFailure("BUNDLE-DIGEST-MISMATCH")
    return_free_memory()  # the parsed JSON value, before the models take its place
    try:
        # Money is written as decimal strings, which JSON-mode validation reads exactly.
        bundle = Bundle.model_validate_json(data)
    except ValidationError:
        raise IntegrityFailure("BUNDLE-DIGEST-MISMATCH") from None
    return bundle


def require_own_receipt(bundle: Bundle, signed_receipt: dict[str, Any]) -> None:
    """An attestation that verifies must also sign this bundle's own receipt (exit 5 if not);
    both `verify` and `evaluate --public-key` apply it after the signature check."""
    if signed_receipt != bundle.receipt.model_dump(mode="json"):
        raise IntegrityFailure("ATTEST-RECEIPT-MISMATCH")


def read_bundle(path: Path) -> Bundle:
    try:
        data = path.read_bytes()
    except OSError:
        raise Refused([Problem("BUNDLE-UNREADABLE")]) from None
    return open_bundle(data)
