"""The in-toto v1 Statement that binds a bundle to its receipt, and the attest / check pair.

Statement (https://github.com/in-toto/attestation/blob/main/spec/v1/statement.md):
  _type          "https://in-toto.io/Statement/v1"
  subject        one entry: the name "bundle.json" (SUBJECT_NAME) and the SHA-256 of the
                 bundle's exact bytes. The name is fixed: the file name a user chose (a
                 session id, a project, an e-mail) would be signed and published with it.
  predicateType  "https://agent-evidence.dev/receipt/v1" (PREDICATE_TYPE): the predicate is the
                 bundle's `receipt` object, unchanged (SPEC §9)
It is serialized with the one canonical encoder and wrapped in a DSSE envelope of payload type
"application/vnd.in-toto+json". Pure functions over bytes: the caller reads and writes files.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from pydantic import ConfigDict, Field, StringConstraints

from converter.attest.dsse import b64decode, parse_envelope, sign_envelope, verify_envelope
from converter.attest.errors import (
    PayloadTypeUnsupported,
    StatementInvalid,
    SubjectMismatch,
)
from converter.bundle.spool import SealedBytes
from converter.codec.canonical import canonical_bytes
from converter.codec.jsontext import NotStrictJSON, loads_integral
from converter.errors import ConverterError
from converter.firewall.types import Closed, Sha256

STATEMENT_TYPE: Final = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE: Final = "https://agent-evidence.dev/receipt/v1"
PAYLOAD_TYPE: Final = "application/vnd.in-toto+json"
SUBJECT_NAME: Final = "bundle.json"

# A bare file name (never a path: a folder name could say whose machine made the bundle).
SubjectName = Annotated[str, StringConstraints(pattern=r"^[^/\\\x00-\x1f]{1,255}$")]


class SubjectDigest(Closed):
    sha256: Sha256


class Subject(Closed):
    name: SubjectName
    digest: SubjectDigest


class Statement(Closed):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, populate_by_name=True)

    type_: Literal["https://in-toto.io/Statement/v1"] = Field(alias="_type")
    subject: tuple[Subject]
    predicateType: Literal["https://agent-evidence.dev/receipt/v1"]
    predicate: dict[str, Any]

    def to_bytes(self) -> bytes:
        return canonical_bytes(self.model_dump(mode="json", by_alias=True))


def _sha256(data: bytes | bytearray | SealedBytes) -> str:
    """A bundle's SHA-256: a sealed bundle's was taken as it was built (`bundle.spool`)."""
    if isinstance(data, SealedBytes):
        return data.sha256
    return hashlib.sha256(data).hexdigest()


def build_statement(
    bundle_bytes: bytes | bytearray | SealedBytes, bundle_name: str, receipt: dict[str, Any]
) -> Statement:
    subject = Subject(name=bundle_name, digest=SubjectDigest(sha256=_sha256(bundle_bytes)))
    return Statement(
        type_=STATEMENT_TYPE, subject=(subject,), predicateType=PREDICATE_TYPE, predicate=receipt
    )


def attest(
    bundle_bytes: bytes | bytearray | SealedBytes,
    bundle_name: str,
    receipt: dict[str, Any],
    key: Ed25519PrivateKey,
) -> bytes:
    """The envelope JSON for `<out>.intoto.json`; the caller writes it atomically."""
    statement = build_statement(bundle_bytes, bundle_name, receipt).to_bytes()
    return sign_envelope(statement, PAYLOAD_TYPE, key).to_bytes()


def check_attestation(
    bundle_bytes: bytes, envelope_bytes: bytes, public_key: Ed25519PublicKey
) -> dict[str, Any]:
    """The signed receipt, once a signature verifies and the subject is these exact bytes.

    Only what DSSE signs is checked: PAE(payloadType, payload). The rest of the file (spacing,
    key order, base64 alphabet and padding, unknown fields, `keyid`, other signatures, even
    ones that are not signatures at all) is not signed, so a change there cannot alter what
    verifies: an envelope reformatted, co-signed or written by other DSSE tooling verifies;
    any signature by `public_key` suffices.

    Raises EnvelopeMalformed, SignatureInvalid, PayloadTypeUnsupported, StatementInvalid or
    SubjectMismatch (all AttestationFailure, exit 5); NotAnEnvelope (refused, exit 2) when
    `envelope_bytes` is no envelope at all, so there was nothing to check, and
    TooManySignatures (refused, exit 2) when it holds more entries than are tried.
    """
    return check_attested_digest(
        hashlib.sha256(bundle_bytes).hexdigest(), envelope_bytes, public_key
    )


def check_attested_digest(
    bundle_sha256: str, envelope_bytes: bytes, public_key: Ed25519PublicKey
) -> dict[str, Any]:
    """`check_attestation` of a bundle known by its SHA-256 (hex) alone: one not held whole."""
    envelope = parse_envelope(envelope_bytes)
    payload = verify_envelope(envelope, public_key)
    if envelope.payloadType != PAYLOAD_TYPE:
        raise PayloadTypeUnsupported
    statement = parse_statement(payload)
    if statement.sha256 != bundle_sha256:
        raise SubjectMismatch(statement.predicate)
    return statement.predicate


@dataclass(frozen=True, slots=True)
class SignedStatement:
    """What a verifier reads from a signed Statement: the subject's SHA-256, the predicate."""

    sha256: str
    predicate: dict[str, Any]


_SHA256 = re.compile(r"[0-9a-f]{64}")


def parse_statement(payload: bytes) -> SignedStatement:
    """The signed payload as our in-toto v1 Statement: its `_type`, one subject with a sha256
    digest, our predicateType, an object predicate; StatementInvalid otherwise.

    Fields it does not know are ignored (other digests of the subject, fields a later version
    adds), as in-toto's parsing rules require, and so is the layout of the JSON. What could be
    read two ways is refused: a repeated key, NaN, a number with a fraction (no receipt has
    one), invalid UTF-8.
    """
    try:
        document = loads_integral(payload)
    except NotStrictJSON:
        raise StatementInvalid from None
    if not isinstance(document, dict):
        raise StatementInvalid
    subject, predicate = document.get("subject"), document.get("predicate")
    if (
        document.get("_type") != STATEMENT_TYPE
        or document.get("predicateType") != PREDICATE_TYPE
        or not isinstance(subject, list)
        or len(subject) != 1
        or not isinstance(subject[0], dict)
        or not isinstance(predicate, dict)
    ):
        raise StatementInvalid
    digest = subject[0].get("digest")
    sha256 = digest.get("sha256") if isinstance(digest, dict) else None
    if not isinstance(sha256, str) or not _SHA256.fullmatch(sha256):
        raise StatementInvalid
    return SignedStatement(sha256, predicate)


def names_subject(envelope: bytes, data: bytes | bytearray | SealedBytes) -> bool:
    """Whether an attestation's subject is the SHA-256 of `data`: read, not verified (whoever
    checks it needs the public key; this only decides whether it still belongs beside `data`)."""
    try:
        statement = parse_statement(b64decode(parse_envelope(envelope).payload))
    except ConverterError:
        return False
    return statement.sha256 == _sha256(data)
