"""The in-toto v1 Statement that binds a bundle to its receipt, and the attest / check pair.

Statement (https://github.com/in-toto/attestation/blob/main/spec/v1/statement.md):
  _type          "https://in-toto.io/Statement/v1"
  subject        one entry: the name "bundle.json" (SUBJECT_NAME) and the SHA-256 of the
                 bundle's exact bytes. The name is fixed: the file name a user chose (a
                 session id, a project, an e-mail) would be signed and published with it.
                 A statement another tool wrote may name more digests of the subject: each
                 one this program can compute must be the bundle's too (`DIGESTS`).
  predicateType  "https://agent-evidence.dev/receipt/v1" (PREDICATE_TYPE): the predicate is the
                 bundle's `receipt` object, unchanged (SPEC §9)
It is serialized with the one canonical encoder and wrapped in a DSSE envelope of payload type
"application/vnd.in-toto+json". Pure functions over bytes: the caller reads and writes files.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, Protocol

from cryptography.hazmat.primitives import hashes
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
    return check_attested_blocks(lambda: (bundle_bytes,), envelope_bytes, public_key)


def check_attested_blocks(
    blocks: Callable[[], Iterable[bytes | bytearray]],
    envelope_bytes: bytes,
    public_key: Ed25519PublicKey,
) -> dict[str, Any]:
    """`check_attestation` of a bundle read a block at a time, never held whole: `blocks()`
    yields its bytes in order. It is called once the signature verifies, not before (an
    envelope that does not check costs no read of the bundle), and once only, whatever the
    digests the statement names."""
    envelope = parse_envelope(envelope_bytes)
    payload = verify_envelope(envelope, public_key)
    if envelope.payloadType != PAYLOAD_TYPE:
        raise PayloadTypeUnsupported
    statement = parse_statement(payload)
    if digests_of(blocks(), statement.digests) != statement.digests:
        raise SubjectMismatch(statement.predicate)
    return statement.predicate


class _Hasher(Protocol):
    def update(self, data: bytes | bytearray, /) -> None: ...
    def hexdigest(self) -> str: ...


# The in-toto DigestSet algorithms (spec/v1/digest_set.md) a subject's digest is checked in,
# by in-toto's name (hashlib's too), with their output's length in bytes (shortest, longest).
# A statement naming one claims that digest of the bundle; a verifier that could check the
# claim and did not would accept a statement false in part. So each is checked, not sha256
# alone (in-toto lets a consumer match on any one; `verify` checks all it can).
# They are the ones every install computes: hashlib's guaranteed set, and SHA-512/224 and
# SHA-512/256, by cryptography (`_TRUNCATED`). Ignored, as unknown names are: shake128 and
# shake256 (outputs of any length), ripemd160, sm3 and gost (not in every OpenSSL build: a
# statement would verify on one machine and not on another), and names that are not in-toto's
# (dirHash, gitCommit, SHA512 in capitals, ...).
# BLAKE2's output length is a parameter of the function, which in-toto's name does not fix:
# the value's length says which was meant (BLAKE2b-256 is no prefix of BLAKE2b-512), so any
# length the function allows is checked, not only its default (64 and 32 bytes).
DIGESTS: Final[Mapping[str, tuple[int, int]]] = {
    "sha256": (32, 32),
    "sha224": (28, 28),
    "sha384": (48, 48),
    "sha512": (64, 64),
    "sha512_224": (28, 28),
    "sha512_256": (32, 32),
    "sha3_224": (28, 28),
    "sha3_256": (32, 32),
    "sha3_384": (48, 48),
    "sha3_512": (64, 64),
    "blake2b": (1, 64),
    "blake2s": (1, 32),
    "sha1": (20, 20),
    "md5": (16, 16),
}
# The form of each one's value: lowercase hex, as in-toto writes it and as sha256 always was.
_DIGEST_FORMS: Final = {
    name: re.compile(f"(?:[0-9a-f]{{2}}){{{shortest},{longest}}}")
    for name, (shortest, longest) in DIGESTS.items()
}


# SHA-512/224 and SHA-512/256 are not in hashlib's guaranteed set (a Python built without
# OpenSSL lacks them: `hashlib.new` raised ValueError, an internal error, a review found):
# computed by cryptography, which every install has.
_TRUNCATED: Final = {"sha512_224": hashes.SHA512_224, "sha512_256": hashes.SHA512_256}


class _Truncated:
    """cryptography's hash as a hashlib-like hasher (`update`, `hexdigest`)."""

    def __init__(self, algorithm: hashes.HashAlgorithm) -> None:
        self._hash = hashes.Hash(algorithm)

    def update(self, data: bytes | bytearray, /) -> None:
        self._hash.update(data)  # (bytes-like: a bytearray block is not copied)

    def hexdigest(self) -> str:
        return self._hash.finalize().hex()


def _hasher(algorithm: str, hex_length: int) -> _Hasher:
    """A new hasher for `algorithm` (one of DIGESTS) that gives `hex_length` hex digits.
    `usedforsecurity=False`: MD5 and SHA-1 are only ever a claim that can be found false here,
    never what makes a bundle verify (sha256 must match too), so a FIPS build may compute them."""
    if algorithm == "blake2b":
        return hashlib.blake2b(digest_size=hex_length // 2, usedforsecurity=False)
    if algorithm == "blake2s":
        return hashlib.blake2s(digest_size=hex_length // 2, usedforsecurity=False)
    if algorithm in _TRUNCATED:
        return _Truncated(_TRUNCATED[algorithm]())
    return hashlib.new(algorithm, usedforsecurity=False)


def digests_of(blocks: Iterable[bytes | bytearray], claimed: Mapping[str, str]) -> dict[str, str]:
    """The bundle's digest in each algorithm `claimed` names (of DIGESTS, each at the length
    of its claimed value), its bytes read once: every block goes to every hasher as it comes,
    so a bundle read a block at a time is still never held whole, nor read twice."""
    hashers = {name: _hasher(name, len(value)) for name, value in claimed.items()}
    for block in blocks:
        for hasher in hashers.values():
            hasher.update(block)
    return {name: hasher.hexdigest() for name, hasher in hashers.items()}


@dataclass(frozen=True, slots=True)
class SignedStatement:
    """What a verifier reads from a signed Statement: the subject's digests this program can
    compute (`DIGESTS`; sha256 always among them), by algorithm, and the predicate."""

    digests: Mapping[str, str]
    predicate: dict[str, Any]

    @property
    def sha256(self) -> str:
        return self.digests["sha256"]


def parse_statement(payload: bytes) -> SignedStatement:
    """The signed payload as our in-toto v1 Statement: its `_type`, one subject with a sha256
    digest, our predicateType, an object predicate; StatementInvalid otherwise.

    Fields it does not know are ignored (fields a later version adds, digests in algorithms
    not in DIGESTS), as in-toto's parsing rules require, and so is the layout of the JSON. What
    could be read two ways is refused: a repeated key, NaN, a number with a fraction (no
    receipt has one), invalid UTF-8; so is a digest in an algorithm of DIGESTS that is not
    lowercase hex of a length it gives (in-toto's spec writes lowercase; its Go validator
    takes uppercase too, which 0.6.17, checking sha256 alone, let pass in other digests).
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
    if not isinstance(digest, dict) or "sha256" not in digest:
        raise StatementInvalid
    return SignedStatement(_known_digests(digest), predicate)


def _known_digests(digest_set: dict[str, Any]) -> dict[str, str]:
    """The entries of a subject's DigestSet whose algorithm is in DIGESTS, each checked for
    form (StatementInvalid if one is not a string of lowercase hex of a length it gives)."""
    known = {name: value for name, value in digest_set.items() if name in DIGESTS}
    for name, value in known.items():
        if not isinstance(value, str) or not _DIGEST_FORMS[name].fullmatch(value):
            raise StatementInvalid
    return known


def names_subject(envelope: bytes, data: bytes | bytearray | SealedBytes) -> bool:
    """Whether an attestation's subject is `data`: its SHA-256 and each other digest it names
    that `verify` checks (`DIGESTS`). Read, not verified (whoever checks it needs the public
    key; this only decides whether it still belongs beside `data`). A sealed bundle's SHA-256
    was taken as it was built: its bytes are read again only for another digest named."""
    try:
        statement = parse_statement(b64decode(parse_envelope(envelope).payload))
    except ConverterError:
        return False
    if statement.sha256 != _sha256(data):
        return False
    others = {name: value for name, value in statement.digests.items() if name != "sha256"}
    blocks = data.chunks() if isinstance(data, SealedBytes) else (data,)
    return not others or digests_of(blocks, others) == others
