"""Interop with an independent DSSE implementation (securesystemslib): our envelopes verify with
its Envelope and Ed25519 key classes, and its envelopes verify with ours. Our own verifier
passing is not enough (SPEC §9)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from converter.attest.dsse import MAX_SIGNATURES, key_id
from converter.attest.errors import SignatureInvalid, SubjectMismatch, TooManySignatures
from converter.attest.statement import PAYLOAD_TYPE, attest, build_statement, check_attestation
from converter.codec.canonical import canonical_bytes
from tests.envelope_helpers import with_other_signers

dsse = pytest.importorskip("securesystemslib.dsse")
signer = pytest.importorskip("securesystemslib.signer")
sslib_exceptions = pytest.importorskip("securesystemslib.exceptions")

KEY = Ed25519PrivateKey.generate()
BUNDLE = b'{"receipt":{"evidence_sha256":"' + b"0" * 64 + b'"}}'
RECEIPT: dict[str, Any] = {"evidence_sha256": "0" * 64, "counts": {"events": 2}}


def _their_key() -> Any:
    """Their default key, keyid computed by securesystemslib itself (no keyid= given)."""
    return signer.SSlibKey.from_crypto(KEY.public_key())


def _their_envelope(data: bytes) -> Any:
    return dsse.Envelope.from_dict(json.loads(data))  # from_dict edits its input: parse fresh


def test_our_keyid_is_securesystemslib_default_keyid() -> None:
    """Their Envelope.verify skips a signature whose keyid is not its key's: ours must be theirs."""
    [signature] = json.loads(attest(BUNDLE, "bundle.json", RECEIPT, KEY))["signatures"]
    assert signature["keyid"] == _their_key().keyid == key_id(KEY.public_key())


def test_our_envelope_verifies_with_securesystemslib() -> None:
    ours = attest(BUNDLE, "bundle.json", RECEIPT, KEY)
    theirs = _their_envelope(ours)
    accepted = theirs.verify([_their_key()], 1)
    assert list(accepted) == [_their_key().keyid]
    assert theirs.payload_type == "application/vnd.in-toto+json"
    statement = json.loads(theirs.payload)
    assert statement["subject"][0]["digest"]["sha256"] == hashlib.sha256(BUNDLE).hexdigest()
    assert statement["predicate"] == RECEIPT


def test_their_pae_is_our_pae() -> None:
    from converter.attest.dsse import pae

    theirs = dsse.Envelope(payload=b"hello world", payload_type="t/x", signatures={})
    assert theirs.pae() == pae("t/x", b"hello world")


def test_securesystemslib_rejects_our_envelope_under_another_key() -> None:
    other = Ed25519PrivateKey.generate().public_key()
    wrong = signer.SSlibKey.from_crypto(other, keyid=_their_key().keyid)  # same id, other key
    with pytest.raises(sslib_exceptions.VerificationError):
        _their_envelope(attest(BUNDLE, "bundle.json", RECEIPT, KEY)).verify([wrong], 1)


@pytest.mark.parametrize("field", ["payload", "sig"])
def test_a_flipped_byte_fails_both_verifiers(field: str) -> None:
    document = json.loads(attest(BUNDLE, "bundle.json", RECEIPT, KEY))
    holder = document if field == "payload" else document["signatures"][0]
    text = holder[field]
    holder[field] = text[:8] + ("A" if text[8] != "A" else "B") + text[9:]
    tampered = canonical_bytes(document)
    with pytest.raises(sslib_exceptions.VerificationError):
        _their_envelope(tampered).verify([_their_key()], 1)
    with pytest.raises(SignatureInvalid) as raised:
        check_attestation(BUNDLE, tampered, KEY.public_key())
    assert raised.value.code == "ATTEST-SIGNATURE-INVALID"


def test_a_flipped_bundle_byte_is_our_subject_mismatch() -> None:
    ours = attest(BUNDLE, "bundle.json", RECEIPT, KEY)
    _their_envelope(ours).verify([_their_key()], 1)  # the signature itself is still fine
    with pytest.raises(SubjectMismatch) as raised:
        check_attestation(BUNDLE[:-1] + b"]", ours, KEY.public_key())
    assert raised.value.code == "ATTEST-SUBJECT-MISMATCH"


def _signed_by_them(public_key: Any) -> bytes:
    payload = build_statement(BUNDLE, "bundle.json", RECEIPT).to_bytes()
    envelope = dsse.Envelope(payload=payload, payload_type=PAYLOAD_TYPE, signatures={})
    envelope.sign(signer.CryptoSigner(KEY, public_key))
    return canonical_bytes(envelope.to_dict())


def test_envelope_signed_by_securesystemslib_checks_with_ours() -> None:
    data = _signed_by_them(_their_key())
    assert check_attestation(BUNDLE, data, KEY.public_key()) == RECEIPT


def test_any_keyid_they_sign_with_checks_with_ours() -> None:
    """keyid is an unsigned hint (DSSE): our check verifies with the key it is given."""
    for keyid in ("their-own-name", None):  # None: their default keyid
        data = _signed_by_them(signer.SSlibKey.from_crypto(KEY.public_key(), keyid=keyid))
        assert check_attestation(BUNDLE, data, KEY.public_key()) == RECEIPT


def test_an_envelope_as_0_1_wrote_it_checks_with_ours_and_with_theirs_given_its_keyid() -> None:
    """0.1 wrote keyid = SHA-256 of the raw key. Ours ignores keyid; securesystemslib needs a key
    carrying that id (docs/verifying.md, "With other DSSE tooling")."""
    raw = KEY.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    document = json.loads(attest(BUNDLE, "bundle.json", RECEIPT, KEY))
    document["signatures"][0]["keyid"] = hashlib.sha256(raw).hexdigest()
    data = canonical_bytes(document)
    assert check_attestation(BUNDLE, data, KEY.public_key()) == RECEIPT
    old_key = signer.SSlibKey.from_crypto(KEY.public_key(), keyid=hashlib.sha256(raw).hexdigest())
    _their_envelope(data).verify([old_key], 1)
    with pytest.raises(sslib_exceptions.VerificationError):
        _their_envelope(data).verify([_their_key()], 1)


def test_past_our_bound_securesystemslib_verifies_and_ours_refuses_unchecked() -> None:
    """The way out ATTEST-TOO-MANY-SIGNATURES names: another DSSE tool verifies the envelope.
    Ours refuses it (2) rather than call it altered (it was ATTEST-ENVELOPE-MALFORMED, 5)."""
    data = with_other_signers(MAX_SIGNATURES, first=True)(
        attest(BUNDLE, "bundle.json", RECEIPT, KEY)
    )
    assert list(_their_envelope(data).verify([_their_key()], 1)) == [_their_key().keyid]
    with pytest.raises(TooManySignatures) as raised:
        check_attestation(BUNDLE, data, KEY.public_key())
    assert raised.value.exit_code == 2
