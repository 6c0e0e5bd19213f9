"""DSSE v1 (secure-systems-lab/dsse): pre-authentication encoding, the JSON envelope, and
Ed25519 sign / verify. Pure functions over bytes; no I/O.

The signature covers PAE(payloadType, payload) only. `keyid` is an unauthenticated hint (the
DSSE protocol forbids using it for security decisions), so verification tries every signature
against the one trusted key and ignores `keyid`: envelopes written before the keyid below
(0.1 wrote the SHA-256 of the raw key) verify all the same.

keyid: the id securesystemslib, TUF and in-toto give an Ed25519 key by default, the lowercase
hex SHA-256 of the canonical JSON {"keytype":"ed25519","keyval":{"public":"<raw key, 64 hex>"},
"scheme":"ed25519"}. Other verifiers do use it: securesystemslib's Envelope.verify only tries a
signature whose keyid equals its key's, so any other id fails there with the default key.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from typing import Annotated, Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from pydantic import StringConstraints, ValidationError

from converter.attest.errors import (
    EnvelopeMalformed,
    NotAnEnvelope,
    SignatureInvalid,
    TooManySignatures,
)
from converter.codec.canonical import canonical_bytes
from converter.codec.jsontext import NotStrictJSON, loads_exact
from converter.firewall.types import Closed

# Standard or URL-safe alphabet, padded or not: DSSE verifiers must accept either.
Base64Text = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9+/_-]*={0,2}$")]
# A foreign signer may use any hint (or none); bounded so it cannot carry a document.
_HINT = re.compile(r"[\x21-\x7e]{0,256}")
KeyIdHint = Annotated[str, StringConstraints(pattern=f"^{_HINT.pattern}$")]
# A media type, parameters and all (`...+json; charset=utf-8`): printable ASCII and spaces.
PayloadType = Annotated[str, StringConstraints(pattern=r"^[\x20-\x7e]{1,256}$")]

# The signature entries an envelope may hold; past it, TooManySignatures (2, not checked).
# DSSE sets no limit, so this only stops a crafted envelope from making verify work per entry
# without end. Each try hashes the whole PAE (Ed25519 is SHA-512 over the message), so a try
# costs with the payload, not the ~0.1 ms of the curve: for an envelope at the 64 MiB read cap
# (a ~48 MiB payload) 16 entries took 1.4 s, 64 took 4.1 s and 256 took 15 s on the dev host;
# for a real receipt (~340 KB for a tree of 1,763 files) 64 take ~35 ms. 64 is four times the
# old bound of 16, well past the handful of keys a threshold signing setup (TUF, in-toto)
# commonly holds, while the worst case stays a few seconds rather than 256's quarter minute.
MAX_SIGNATURES = 64
# The fields only a DSSE envelope has: an object with either is an envelope, perhaps damaged.
_ENVELOPE_MARKS = frozenset({"payload", "payloadType"})
# Either mark written as a key: bytes holding one were an envelope, whatever broke them since.
_ENVELOPE_KEY = re.compile(rb'"payload(?:Type)?"\s*:')


class Signature(Closed):
    keyid: KeyIdHint = ""
    sig: Base64Text


class Envelope(Closed):
    """The DSSE JSON envelope; field names are the spec's own (`payloadType`, `keyid`, `sig`)."""

    payload: Base64Text
    payloadType: PayloadType
    signatures: tuple[Signature, ...]

    def to_bytes(self) -> bytes:
        """Canonical JSON: Ed25519 is deterministic, so same payload and key give the same bytes."""
        return canonical_bytes(self)


def pae(payload_type: str, body: bytes) -> bytes:
    """DSSEv1 + SP + LEN(type) + SP + type + SP + LEN(body) + SP + body (lengths in bytes)."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %b %d %b" % (len(kind), kind, len(body), body)


def key_id(public_key: Ed25519PublicKey) -> str:
    """securesystemslib's default keyid (`SSlibKey.from_crypto(key).keyid`), computed here: the
    canonical encoder writes exactly its canonical JSON for this all-ASCII, string-only dict."""
    raw = public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)
    key = {"keytype": "ed25519", "keyval": {"public": raw.hex()}, "scheme": "ed25519"}
    return hashlib.sha256(canonical_bytes(key)).hexdigest()


def sign_envelope(payload: bytes, payload_type: str, private_key: Ed25519PrivateKey) -> Envelope:
    signature = private_key.sign(pae(payload_type, payload))
    return Envelope(
        payload=base64.b64encode(payload).decode("ascii"),
        payloadType=payload_type,
        signatures=(
            Signature(
                keyid=key_id(private_key.public_key()),
                sig=base64.b64encode(signature).decode("ascii"),
            ),
        ),
    )


def verify_envelope(envelope: Envelope, public_key: Ed25519PublicKey) -> bytes:
    """The payload, if at least one signature verifies with `public_key`; else SignatureInvalid
    (saying so where every signature's keyid hint names another key: the likelier cause).

    The payload type is authenticated here but not interpreted: the caller checks it.
    """
    payload = b64decode(envelope.payload)
    message = pae(envelope.payloadType, payload)
    for signature in envelope.signatures:
        try:
            public_key.verify(b64decode(signature.sig), message)
        except (InvalidSignature, EnvelopeMalformed):
            continue
        return payload
    hints = {signature.keyid for signature in envelope.signatures}
    raise SignatureInvalid(
        other_key=bool(hints) and "" not in hints and hints.isdisjoint(_ids_of(public_key))
    )


def _ids_of(public_key: Ed25519PublicKey) -> tuple[str, str]:
    """The keyids this program has written for `public_key`: today's, and 0.1's (the SHA-256 of
    the raw key). An envelope 0.1 wrote, altered since, names this very key: "another key"
    would send its verifier looking for a key that does not exist."""
    raw = public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)
    return key_id(public_key), hashlib.sha256(raw).hexdigest()


def b64decode(text: str) -> bytes:
    """Decode standard or URL-safe base64, padding optional; EnvelopeMalformed otherwise."""
    standard = text.rstrip("=").translate(str.maketrans("-_", "+/"))
    try:
        return base64.b64decode(standard + "=" * (-len(standard) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise EnvelopeMalformed from None


def parse_envelope(data: bytes) -> Envelope:
    """Read envelope JSON. Unknown fields are ignored, as the DSSE envelope spec requires.

    A JSON object with a `payload` or a `payloadType` is an envelope: one that lacks a field,
    has one ill-typed, or is JSON this program never writes (a repeated key, NaN) was damaged
    after it was written: EnvelopeMalformed (exit 5). So are bytes that no longer parse but hold
    either field as a key (a flipped byte, a cut). Anything else (bytes of another format, such
    as JSON Lines of several envelopes; JSON that is not an object; an object with neither
    field: a bundle, a contract) is NotAnEnvelope, refused (exit 2): nothing could be checked.
    `signatures` alone does not make an envelope: other signed documents (TUF metadata, in-toto
    0.9 links) have one too. An envelope with more than MAX_SIGNATURES entries is
    TooManySignatures, refused (exit 2): none of them was tried.
    """
    data = data.removeprefix(b"\xef\xbb\xbf")  # a BOM an editor added: not part of the JSON
    try:
        document = loads_exact(data)
    except NotStrictJSON as bad:
        if bad.parsed and _is_envelope(_loads_lenient(data)):
            raise EnvelopeMalformed from None
        if not bad.parsed and _ENVELOPE_KEY.search(data) and not _json_lines(data):
            raise EnvelopeMalformed from None  # an envelope's bytes, broken: a flip, a cut
        raise NotAnEnvelope from None
    if not _is_envelope(document):
        raise NotAnEnvelope
    try:
        return _envelope_from(document)
    except (ValueError, TypeError, KeyError, ValidationError):
        raise EnvelopeMalformed from None


def _json_lines(data: bytes) -> bool:
    """Several JSON documents, one per line (an `.intoto.jsonl` of envelopes): another format,
    not an envelope damaged."""
    lines = [line for line in data.splitlines() if line.strip()]
    if len(lines) < 2:
        return False
    try:
        for line in lines:
            json.loads(line)
    except ValueError:  # a line that is not JSON: an envelope with something appended
        return False
    return True


def _is_envelope(document: Any) -> bool:
    return isinstance(document, dict) and not document.keys().isdisjoint(_ENVELOPE_MARKS)


def _loads_lenient(data: bytes) -> Any:
    """JSON the strict reader refused though it parses (a repeated key keeps its last value,
    NaN is read): only to tell a damaged envelope from another document."""
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return None


def _envelope_from(document: dict[str, Any]) -> Envelope:
    """The envelope, its fields checked first (a damaged one is EnvelopeMalformed however many
    entries it holds), then the entries counted before any is read (TooManySignatures)."""
    entries = document["signatures"]
    if not isinstance(entries, list):
        raise TypeError
    payload = document["payload"]
    envelope = Envelope(
        # Base64 broken over lines is read whole: only the decoded bytes are signed.
        payload=_WHITESPACE.sub("", payload) if isinstance(payload, str) else payload,
        payloadType=document["payloadType"],
        signatures=(),
    )
    if len(entries) > MAX_SIGNATURES:
        raise TooManySignatures
    found = (_signature_from(item) for item in entries)
    signatures = tuple(signature for signature in found if signature is not None)
    return envelope.model_copy(update={"signatures": signatures})


_WHITESPACE = re.compile(r"\s+")


def _signature_from(item: Any) -> Signature | None:
    """A signature to try, or None for an entry that cannot be one (no `sig`, or one that is
    no base64 text): another signer's entry, which the one trusted key never needs. Its
    `keyid` is an unsigned hint that nothing here uses: any hint this program would not write
    (too long, not printable ASCII, not text) is dropped, not refused. Base64 broken over lines
    is read whole."""
    if not isinstance(item, dict) or not isinstance(item.get("sig"), str):
        return None
    keyid = item.get("keyid")
    hint = keyid if isinstance(keyid, str) and _HINT.fullmatch(keyid) else ""
    try:
        return Signature(keyid=hint, sig=_WHITESPACE.sub("", item["sig"]))
    except ValidationError:
        return None
