"""The in-toto Statement and the attest / check pair: what binds, and what any change breaks."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from converter.attest.dsse import sign_envelope
from converter.attest.errors import (
    AttestationFailure,
    NotAnEnvelope,
    PayloadTypeUnsupported,
    SignatureInvalid,
    StatementInvalid,
    SubjectMismatch,
)
from converter.attest.statement import (
    DIGESTS,
    PAYLOAD_TYPE,
    PREDICATE_TYPE,
    STATEMENT_TYPE,
    attest,
    build_statement,
    check_attestation,
    check_attested_blocks,
    names_subject,
)
from converter.bundle.spool import SealedBytes, Spool
from converter.codec.canonical import canonical_bytes
from tests.envelope_helpers import (
    cosigned,
    reindented,
    unsigned_positions,
    url_safe,
    with_extra_fields,
    with_keyid,
)

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
OTHER = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))
BUNDLE = b'{"schema_version":"agent-evidence/bundle/v1","receipt":{"x":1}}'
RECEIPT: dict[str, Any] = {
    "evidence_sha256": "ab" * 32,
    "key_id": "key-0123456789abcdef",
    "counts": {"events": 3, "tasks": 1},
    "cost": "0.0123",
}
ENVELOPE = attest(BUNDLE, "bundle.json", RECEIPT, KEY)
UNSIGNED = unsigned_positions(ENVELOPE)


def _statement(envelope: bytes) -> Any:
    return json.loads(base64.b64decode(json.loads(envelope)["payload"]))


def test_statement_is_in_toto_v1_with_the_bundle_as_subject() -> None:
    statement = _statement(ENVELOPE)
    assert statement == {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [
            {"name": "bundle.json", "digest": {"sha256": hashlib.sha256(BUNDLE).hexdigest()}}
        ],
        "predicateType": "https://agent-evidence.dev/receipt/v1",
        "predicate": RECEIPT,
    }
    assert json.loads(ENVELOPE)["payloadType"] == "application/vnd.in-toto+json"


def test_payload_is_the_canonical_encoding() -> None:
    payload = base64.b64decode(json.loads(ENVELOPE)["payload"])
    assert payload == canonical_bytes(_statement(ENVELOPE))


def test_check_returns_the_signed_receipt() -> None:
    assert check_attestation(BUNDLE, ENVELOPE, KEY.public_key()) == RECEIPT


def test_same_inputs_and_key_give_the_same_bytes() -> None:
    assert attest(BUNDLE, "bundle.json", RECEIPT, KEY) == ENVELOPE


def test_subject_name_must_be_a_bare_file_name() -> None:
    with pytest.raises(ValidationError):
        build_statement(BUNDLE, "/home/someone/bundle.json", RECEIPT)


@given(st.data())
def test_property_any_flipped_bundle_byte_is_subject_mismatch(data: st.DataObject) -> None:
    index = data.draw(st.integers(0, len(BUNDLE) - 1))
    mask = data.draw(st.integers(1, 255))
    tampered = bytearray(BUNDLE)
    tampered[index] ^= mask
    with pytest.raises(SubjectMismatch) as raised:
        check_attestation(bytes(tampered), ENVELOPE, KEY.public_key())
    assert raised.value.code == "ATTEST-SUBJECT-MISMATCH"
    assert raised.value.exit_code == 5


def _checked_after_flip(index: int, mask: int) -> dict[str, Any] | None:
    """The receipt `check_attestation` returns for ENVELOPE with one byte flipped, or None if
    the check failed."""
    tampered = bytearray(ENVELOPE)
    tampered[index] ^= mask
    try:
        return check_attestation(BUNDLE, bytes(tampered), KEY.public_key())
    except (AttestationFailure, NotAnEnvelope):  # exit 5; 2 if no longer JSON or an envelope
        return None


@given(st.data())
def test_property_a_flipped_envelope_byte_fails_unless_it_is_unsigned(data: st.DataObject) -> None:
    index = data.draw(st.integers(0, len(ENVELOPE) - 1))
    receipt = _checked_after_flip(index, data.draw(st.integers(1, 255)))
    assert receipt is None or (index in UNSIGNED and receipt == RECEIPT)


def test_every_signed_byte_of_the_envelope_is_checked() -> None:
    """Exhaustive over positions (two masks each): a flip verifies only where DSSE signs nothing
    (the keyid hint, spare base64 bits), and then yields the receipt that was signed."""
    passed = set()
    for index in range(len(ENVELOPE)):
        for mask in (0x01, 0x20):
            receipt = _checked_after_flip(index, mask)
            if receipt is not None:
                assert index in UNSIGNED, index
                assert receipt == RECEIPT
                passed.add(index)
    assert passed  # the keyid is a hint: editing it is not a failure


@pytest.mark.parametrize(
    "rewrite",
    [
        reindented,
        url_safe,
        with_extra_fields,
        with_keyid("not-this-key"),
        with_keyid(None),
        cosigned(OTHER, first=True),
        cosigned(OTHER, first=False),
    ],
    ids=[
        "indent",
        "url-safe",
        "extra-fields",
        "other-keyid",
        "no-keyid",
        "co-signed-before",
        "co-signed-after",
    ],
)
def test_envelope_rewritten_as_dsse_allows_still_checks(rewrite: Any) -> None:
    """Only PAE(payloadType, payload) is signed: every other byte may differ (DSSE envelope spec)."""
    assert check_attestation(BUNDLE, rewrite(ENVELOPE), KEY.public_key()) == RECEIPT


def test_a_co_signed_envelope_checks_with_either_key() -> None:
    assert check_attestation(BUNDLE, cosigned(OTHER, first=False)(ENVELOPE), OTHER.public_key())


def _with_payload_flipped(envelope: bytes) -> bytes:
    document = json.loads(envelope)
    payload = bytearray(base64.b64decode(document["payload"]))
    payload[len(payload) // 2] ^= 0x01
    document["payload"] = base64.b64encode(bytes(payload)).decode()
    return canonical_bytes(document)


def _with_signature_flipped(envelope: bytes) -> bytes:
    document = json.loads(envelope)
    sig = bytearray(base64.b64decode(document["signatures"][0]["sig"]))
    sig[0] ^= 0x01
    document["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()
    return canonical_bytes(document)


@pytest.mark.parametrize("tamper", [_with_payload_flipped, _with_signature_flipped])
def test_flipped_payload_or_signature_byte_is_signature_invalid(tamper: Any) -> None:
    with pytest.raises(SignatureInvalid) as raised:
        check_attestation(BUNDLE, tamper(ENVELOPE), KEY.public_key())
    assert raised.value.code == "ATTEST-SIGNATURE-INVALID"


def test_another_key_is_signature_invalid() -> None:
    with pytest.raises(SignatureInvalid):
        check_attestation(BUNDLE, ENVELOPE, OTHER.public_key())


def test_another_signed_payload_type_is_refused() -> None:
    payload = base64.b64decode(json.loads(ENVELOPE)["payload"])
    envelope = sign_envelope(payload, "application/vnd.other+json", KEY).to_bytes()
    with pytest.raises(PayloadTypeUnsupported) as raised:
        check_attestation(BUNDLE, envelope, KEY.public_key())
    assert raised.value.code == "ATTEST-PAYLOAD-TYPE"


@pytest.mark.parametrize("payload_type", ["application/vnd.in-toto+json; charset=utf-8", " "])
def test_a_signed_payload_type_with_a_space_is_another_type_not_a_damaged_envelope(
    payload_type: str,
) -> None:
    """A signing audit: a foreign envelope whose media type has a parameter (a space) was
    ATTEST-ENVELOPE-MALFORMED, "damaged after it was written", though it verifies."""
    payload = base64.b64decode(json.loads(ENVELOPE)["payload"])
    kind = payload_type.encode()
    signed = b"DSSEv1 %d %b %d %b" % (len(kind), kind, len(payload), payload)
    envelope = json.dumps(
        {
            "payload": base64.b64encode(payload).decode(),
            "payloadType": payload_type,
            "signatures": [{"sig": base64.b64encode(KEY.sign(signed)).decode()}],
        }
    ).encode()
    with pytest.raises(PayloadTypeUnsupported) as raised:
        check_attestation(BUNDLE, envelope, KEY.public_key())
    assert raised.value.code == "ATTEST-PAYLOAD-TYPE"


def _signed(statement: Any, *, canonical: bool = True) -> bytes:
    payload = canonical_bytes(statement) if canonical else json.dumps(statement).encode()
    return sign_envelope(payload, PAYLOAD_TYPE, KEY).to_bytes()


def _good_statement() -> dict[str, Any]:
    digest = hashlib.sha256(BUNDLE).hexdigest()
    return {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": "bundle.json", "digest": {"sha256": digest}}],
        "predicateType": PREDICATE_TYPE,
        "predicate": RECEIPT,
    }


def _variant(**changes: Any) -> dict[str, Any]:
    return {**_good_statement(), **changes}


@pytest.mark.parametrize(
    "envelope",
    [
        _signed(_variant(predicateType="https://slsa.dev/provenance/v1")),
        _signed(_variant(_type="https://in-toto.io/Statement/v0.1")),
        _signed(_variant(subject=[])),
        _signed(_variant(subject=_good_statement()["subject"] * 2)),
        _signed(_variant(predicate=[1])),
        _signed(_variant(predicate={"rate": 0.5}), canonical=False),
        sign_envelope(b"not json", PAYLOAD_TYPE, KEY).to_bytes(),
    ],
)
def test_signed_payload_that_is_not_our_statement_is_refused(envelope: bytes) -> None:
    with pytest.raises(StatementInvalid) as raised:
        check_attestation(BUNDLE, envelope, KEY.public_key())
    assert raised.value.code == "ATTEST-STATEMENT-INVALID"


def _with_digests(**digests: Any) -> dict[str, Any]:
    """The good statement, its subject's DigestSet given more entries (or another sha256)."""
    statement = _good_statement()
    statement["subject"][0]["digest"].update(digests)
    return statement


@pytest.mark.parametrize(
    "envelope",
    [
        _signed(_variant(extra=True)),
        _signed(_good_statement(), canonical=False),
    ],
    ids=["unknown-field", "not-canonical"],
)
def test_a_statement_with_fields_we_do_not_know_still_checks(envelope: bytes) -> None:
    """Was ATTEST-STATEMENT-INVALID (5): in-toto's parsing rules say a consumer MUST ignore
    fields it does not recognise (a later producer may add some), and the JSON's layout is not
    what is signed against: the bytes are, whatever their layout."""
    assert check_attestation(BUNDLE, envelope, KEY.public_key()) == RECEIPT


def _reference(algorithm: hashes.HashAlgorithm, data: bytes) -> str:
    """A digest by `cryptography`: another implementation than the hashlib one checked."""
    hasher = hashes.Hash(algorithm)
    hasher.update(data)
    return hasher.finalize().hex()


# Every in-toto DigestSet name `verify` checks, and the bundle's digest in it, not computed the
# way the code under test computes it (so a name mapped to the wrong function is caught).
THE_BUNDLES_DIGESTS = {
    "sha224": _reference(hashes.SHA224(), BUNDLE),
    "sha384": _reference(hashes.SHA384(), BUNDLE),
    "sha512": _reference(hashes.SHA512(), BUNDLE),
    "sha512_224": _reference(hashes.SHA512_224(), BUNDLE),
    "sha512_256": _reference(hashes.SHA512_256(), BUNDLE),
    "sha3_224": _reference(hashes.SHA3_224(), BUNDLE),
    "sha3_256": _reference(hashes.SHA3_256(), BUNDLE),
    "sha3_384": _reference(hashes.SHA3_384(), BUNDLE),
    "sha3_512": _reference(hashes.SHA3_512(), BUNDLE),
    "blake2b": _reference(hashes.BLAKE2b(64), BUNDLE),
    "blake2s": _reference(hashes.BLAKE2s(32), BUNDLE),
    "sha1": _reference(hashes.SHA1(), BUNDLE),
    "md5": _reference(hashes.MD5(), BUNDLE),
}


def _wrong(digest: str) -> str:
    """Another digest of the same form: its last hex digit changed."""
    return digest[:-1] + ("0" if digest[-1] != "0" else "1")


def test_every_digest_verify_checks_is_tested_here() -> None:
    assert set(THE_BUNDLES_DIGESTS) | {"sha256"} == set(DIGESTS)


@pytest.mark.parametrize("algorithm", sorted(THE_BUNDLES_DIGESTS))
def test_a_wrong_digest_beside_the_right_sha256_is_subject_mismatch(algorithm: str) -> None:
    """Was: only sha256 was compared, so a statement whose sha512 (or any other digest) named
    other bytes verified. Every digest this program computes is the bundle's, or it is 5."""
    wrong = _wrong(THE_BUNDLES_DIGESTS[algorithm])
    envelope = _signed(_with_digests(**{algorithm: wrong}))
    with pytest.raises(SubjectMismatch) as raised:
        check_attestation(BUNDLE, envelope, KEY.public_key())
    assert raised.value.code == "ATTEST-SUBJECT-MISMATCH"
    assert raised.value.exit_code == 5
    assert raised.value.signed_receipt == RECEIPT  # so the receipt is compared as for sha256
    assert not names_subject(envelope, BUNDLE)  # nor does it stay beside the bundle unsigned


@pytest.mark.parametrize("algorithm", sorted(THE_BUNDLES_DIGESTS))
def test_a_right_digest_beside_the_right_sha256_checks(algorithm: str) -> None:
    envelope = _signed(_with_digests(**{algorithm: THE_BUNDLES_DIGESTS[algorithm]}))
    assert check_attestation(BUNDLE, envelope, KEY.public_key()) == RECEIPT
    assert names_subject(envelope, BUNDLE)


def test_every_right_digest_at_once_checks_and_any_one_wrong_fails() -> None:
    assert check_attestation(
        BUNDLE, _signed(_with_digests(**THE_BUNDLES_DIGESTS)), KEY.public_key()
    )
    for algorithm, digest in THE_BUNDLES_DIGESTS.items():
        one_wrong = _with_digests(**{**THE_BUNDLES_DIGESTS, algorithm: _wrong(digest)})
        with pytest.raises(SubjectMismatch):
            check_attestation(BUNDLE, _signed(one_wrong), KEY.public_key())


def test_sha512_truncations_need_no_hashlib_of_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Python built without OpenSSL has no hashlib SHA-512/224 or SHA-512/256: `hashlib.new`
    raised ValueError there, an internal error (a review). cryptography computes them; their
    reference above is cryptography's too, so hashlib's, where it has them, is compared."""
    for name in ("sha512_224", "sha512_256"):
        if name in hashlib.algorithms_available:
            assert hashlib.new(name, BUNDLE).hexdigest() == THE_BUNDLES_DIGESTS[name]
    real_new = hashlib.new

    def without_them(name: str, *args: Any, **kwargs: Any) -> Any:
        if name in ("sha512_224", "sha512_256"):
            raise ValueError(f"unsupported hash type {name}")
        return real_new(name, *args, **kwargs)

    monkeypatch.setattr(hashlib, "new", without_them)
    both = {name: THE_BUNDLES_DIGESTS[name] for name in ("sha512_224", "sha512_256")}
    assert check_attestation(BUNDLE, _signed(_with_digests(**both)), KEY.public_key())
    wrong = _with_digests(sha512_256=_wrong(both["sha512_256"]))
    with pytest.raises(SubjectMismatch):
        check_attestation(BUNDLE, _signed(wrong), KEY.public_key())


def test_a_right_sha512_does_not_excuse_a_wrong_sha256() -> None:
    sha256 = _wrong(hashlib.sha256(BUNDLE).hexdigest())
    envelope = _signed(_with_digests(sha256=sha256, sha512=THE_BUNDLES_DIGESTS["sha512"]))
    with pytest.raises(SubjectMismatch):
        check_attestation(BUNDLE, envelope, KEY.public_key())


@pytest.mark.parametrize("size", [20, 32, 48])
def test_blake2_is_checked_at_the_length_its_value_has(size: int) -> None:
    """BLAKE2's output length is a parameter of the function (in-toto's name does not fix it):
    a BLAKE2b-256 value is checked as BLAKE2b-256, not refused for not being BLAKE2b-512."""
    right = hashlib.blake2b(BUNDLE, digest_size=size).hexdigest()
    assert check_attestation(BUNDLE, _signed(_with_digests(blake2b=right)), KEY.public_key())
    with pytest.raises(SubjectMismatch):
        check_attestation(BUNDLE, _signed(_with_digests(blake2b=_wrong(right))), KEY.public_key())
    truncated = hashlib.blake2b(BUNDLE).hexdigest()[: 2 * size]  # not the same function
    with pytest.raises(SubjectMismatch):
        check_attestation(BUNDLE, _signed(_with_digests(blake2b=truncated)), KEY.public_key())


@pytest.mark.parametrize(
    "digests",
    [
        {"sha999": "00"},
        {"SHA512": "not even hex"},  # in-toto's names are lowercase: this is not sha512
        {"shake256": "ab" * 64},  # an output of any length: not checked
        {"ripemd160": "ab" * 20},  # not in every OpenSSL build: not checked anywhere
        {"sm3": "ab"},
        {"gitCommit": "ab" * 20, "dirHash": "cd" * 32},
        {"somecoolhash": 7, "other": {"nested": [None]}, "": ""},
    ],
)
def test_a_digest_in_an_algorithm_verify_does_not_check_is_ignored(
    digests: dict[str, Any],
) -> None:
    """in-toto's DigestSet allows any algorithm name; a consumer MUST ignore those it does not
    recognise, whatever the value (none of them is computed here, so none can be found false)."""
    envelope = _signed(_with_digests(**digests))
    assert check_attestation(BUNDLE, envelope, KEY.public_key()) == RECEIPT
    assert names_subject(envelope, BUNDLE)


@pytest.mark.parametrize(
    "digests",
    [
        {"sha512": THE_BUNDLES_DIGESTS["sha512"].upper()},  # compared as sha256 is: lowercase
        {"sha512": THE_BUNDLES_DIGESTS["sha512"][:-2]},
        {"sha512": THE_BUNDLES_DIGESTS["sha512"] + "00"},
        {"sha512": 0},
        {"sha512": None},
        {"md5": ""},
        {"blake2b": "ab" * 65},
        {"blake2s": "ab" * 33},
        {"blake2b": "abc"},
    ],
)
def test_a_digest_verify_checks_that_is_not_lowercase_hex_of_its_length_is_invalid(
    digests: dict[str, Any],
) -> None:
    """As a malformed sha256 always was (in-toto's spec writes lowercase hex): 5, the
    statement is not one this program reads."""
    with pytest.raises(StatementInvalid) as raised:
        check_attestation(BUNDLE, _signed(_with_digests(**digests)), KEY.public_key())
    assert raised.value.exit_code == 5


def test_sha256_is_still_required_beside_other_digests() -> None:
    statement = _with_digests(**THE_BUNDLES_DIGESTS)
    del statement["subject"][0]["digest"]["sha256"]
    with pytest.raises(StatementInvalid):
        check_attestation(BUNDLE, _signed(statement), KEY.public_key())


def test_a_sealed_bundle_is_named_by_every_digest_too() -> None:
    """`convert` keeps an attestation beside the bundle it writes only if it still signs it:
    one whose sha512 is not the bundle's would not verify, so it does not."""
    spool = Spool(None)
    spool.add(BUNDLE)
    sealed = SealedBytes(spool, hashlib.sha256(BUNDLE).hexdigest())
    sha512 = THE_BUNDLES_DIGESTS["sha512"]
    assert names_subject(_signed(_with_digests(sha512=sha512)), sealed)
    assert not names_subject(_signed(_with_digests(sha512=_wrong(sha512))), sealed)


def test_a_bundle_read_a_block_at_a_time_is_read_once_for_every_digest() -> None:
    envelope = _signed(_with_digests(**THE_BUNDLES_DIGESTS))
    reads: list[int] = []

    def blocks() -> Iterator[bytes]:
        reads.append(1)
        yield from (BUNDLE[at : at + 7] for at in range(0, len(BUNDLE), 7))

    assert check_attested_blocks(blocks, envelope, KEY.public_key()) == RECEIPT
    assert reads == [1]
    with pytest.raises(SubjectMismatch):
        check_attested_blocks(lambda: iter((BUNDLE, b" ")), envelope, KEY.public_key())


def test_a_hand_built_canonical_statement_checks() -> None:
    assert check_attestation(BUNDLE, _signed(_good_statement()), KEY.public_key()) == RECEIPT
