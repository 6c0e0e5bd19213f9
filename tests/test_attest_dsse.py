"""DSSE: the PAE bytes, the envelope's JSON shape, sign / verify, and the parser's rules."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from hypothesis import given
from hypothesis import strategies as st

from converter.attest import dsse
from converter.attest.dsse import (
    MAX_SIGNATURES,
    Envelope,
    Signature,
    key_id,
    pae,
    parse_envelope,
    sign_envelope,
    verify_envelope,
)
from converter.attest.errors import (
    EnvelopeMalformed,
    NotAnEnvelope,
    SignatureInvalid,
    TooManySignatures,
)
from converter.errors.codes import CODES
from tests.envelope_helpers import with_other_signers

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
OTHER = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))
TYPE = "application/vnd.in-toto+json"


def test_pae_matches_the_spec_test_vector() -> None:
    # secure-systems-lab/dsse protocol.md, "Test Vectors"
    assert pae("http://example.com/HelloWorld", b"hello world") == (
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
    )


def test_pae_lengths_count_bytes_not_characters() -> None:
    assert pae("é", b"") == b"DSSEv1 2 \xc3\xa9 0 "


def test_keyid_is_the_securesystemslib_default() -> None:
    """sha256 of the key's canonical JSON (securesystemslib / TUF / in-toto); interop checks it
    against securesystemslib's own computation."""
    raw = KEY.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    assert len(raw) == 32
    key_json = (
        b'{"keytype":"ed25519","keyval":{"public":"%s"},"scheme":"ed25519"}' % raw.hex().encode()
    )
    assert key_id(KEY.public_key()) == hashlib.sha256(key_json).hexdigest()


def test_an_envelope_with_the_keyid_0_1_wrote_still_verifies() -> None:
    """0.1 named the key by the SHA-256 of its raw bytes; keyid is a hint, so its envelopes stay
    valid."""
    raw = KEY.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    envelope = sign_envelope(b"x", TYPE, KEY)
    old = Signature(keyid=hashlib.sha256(raw).hexdigest(), sig=envelope.signatures[0].sig)
    assert verify_envelope(envelope.model_copy(update={"signatures": (old,)}), KEY.public_key())


def test_envelope_json_uses_the_spec_field_names() -> None:
    document = json.loads(sign_envelope(b"body", TYPE, KEY).to_bytes())
    assert sorted(document) == ["payload", "payloadType", "signatures"]
    assert document["payloadType"] == TYPE
    assert base64.b64decode(document["payload"]) == b"body"
    [signature] = document["signatures"]
    assert sorted(signature) == ["keyid", "sig"]
    assert signature["keyid"] == key_id(KEY.public_key())
    KEY.public_key().verify(base64.b64decode(signature["sig"]), pae(TYPE, b"body"))


@given(st.binary(max_size=256), st.text(min_size=1, max_size=40).filter(str.isprintable))
def test_property_sign_then_verify_returns_the_payload(body: bytes, kind: str) -> None:
    kind = "".join(c for c in kind if "!" <= c <= "~") or "x"
    envelope = sign_envelope(body, kind, KEY)
    assert verify_envelope(parse_envelope(envelope.to_bytes()), KEY.public_key()) == body


def test_signing_is_deterministic() -> None:
    assert sign_envelope(b"x", TYPE, KEY).to_bytes() == sign_envelope(b"x", TYPE, KEY).to_bytes()


def test_wrong_key_is_signature_invalid() -> None:
    with pytest.raises(SignatureInvalid) as raised:
        verify_envelope(sign_envelope(b"x", TYPE, KEY), OTHER.public_key())
    assert raised.value.code == "ATTEST-SIGNATURE-INVALID"


def _where(envelope: Envelope) -> str | None:
    with pytest.raises(SignatureInvalid) as raised:
        verify_envelope(envelope, OTHER.public_key())
    (problem,) = raised.value.problems
    assert problem.code == "ATTEST-SIGNATURE-INVALID"
    return problem.where


def test_a_keyid_of_another_key_says_the_likelier_cause_and_decides_nothing() -> None:
    """A walkthrough: a bundle signed right, checked with another producer's key, was told
    "otherwise the envelope was altered after signing", and read as tampered. Where every
    keyid names another key, the refusal says so; the outcome is the same failure. A keyid
    that names the key tried (forged, or an envelope altered after signing) or none at all
    says nothing more."""
    signed = sign_envelope(b"x", TYPE, KEY)
    assert _where(signed) == "its keyid names another key"

    def hinted(*keyids: str) -> Envelope:
        sig = signed.signatures[0].sig
        return signed.model_copy(
            update={"signatures": tuple(Signature(keyid=k, sig=sig) for k in keyids)}
        )

    assert _where(hinted(key_id(OTHER.public_key()))) is None
    assert _where(hinted("")) is None
    assert _where(hinted(key_id(KEY.public_key()), "")) is None
    assert _where(hinted(key_id(KEY.public_key()), "a" * 64)) == "its keyid names another key"
    assert _where(Envelope(payload="eA==", payloadType=TYPE, signatures=())) is None
    altered = sign_envelope(b"x", TYPE, OTHER).model_copy(update={"payload": "eQ=="})
    assert _where(altered) is None


def test_the_keyid_0_1_wrote_names_this_key_in_the_refusal() -> None:
    """An audit: a 0.1 envelope (keyid = SHA-256 of the raw key) whose payload was altered was
    refused "[its keyid names another key]: most likely the wrong key was given", though its
    keyid named the very key given: the verifier was sent looking for another producer's key
    instead of being told the envelope changed."""
    raw = OTHER.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    signed = sign_envelope(b"x", TYPE, OTHER)
    old = Signature(keyid=hashlib.sha256(raw).hexdigest(), sig=signed.signatures[0].sig)
    altered = signed.model_copy(update={"payload": "eQ==", "signatures": (old,)})
    assert _where(altered) is None
    other_raw = KEY.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    elsewhere = Signature(keyid=hashlib.sha256(other_raw).hexdigest(), sig=old.sig)
    assert _where(altered.model_copy(update={"signatures": (elsewhere,)})) == (
        "its keyid names another key"
    )


def test_no_signature_is_signature_invalid() -> None:
    unsigned = Envelope(payload="eA==", payloadType=TYPE, signatures=())
    with pytest.raises(SignatureInvalid):
        verify_envelope(unsigned, KEY.public_key())


def test_payload_type_is_authenticated() -> None:
    envelope = sign_envelope(b"x", TYPE, KEY)
    retyped = envelope.model_copy(update={"payloadType": "application/json"})
    with pytest.raises(SignatureInvalid):
        verify_envelope(retyped, KEY.public_key())


def test_keyid_is_only_a_hint() -> None:
    envelope = sign_envelope(b"x", TYPE, KEY)
    hinted = envelope.model_copy(
        update={"signatures": (Signature(keyid="other", sig=envelope.signatures[0].sig),)}
    )
    assert verify_envelope(hinted, KEY.public_key()) == b"x"


def test_one_good_signature_among_bad_ones_verifies() -> None:
    good = sign_envelope(b"x", TYPE, KEY).signatures[0]
    bad = sign_envelope(b"x", TYPE, OTHER).signatures[0]
    envelope = Envelope(payload="eA==", payloadType=TYPE, signatures=(bad, good))
    assert verify_envelope(envelope, KEY.public_key()) == b"x"


def test_url_safe_unpadded_base64_is_accepted() -> None:
    body = b"\xfb\xff\xfe"  # standard base64 "+//+"; URL-safe "-__-"
    signed = sign_envelope(body, TYPE, KEY)
    document = json.loads(signed.to_bytes())
    document["payload"] = base64.urlsafe_b64encode(body).decode().rstrip("=")
    sig = document["signatures"][0]
    sig["sig"] = base64.urlsafe_b64encode(base64.b64decode(sig["sig"])).decode().rstrip("=")
    assert verify_envelope(parse_envelope(json.dumps(document).encode()), KEY.public_key()) == body


def test_unknown_fields_are_ignored_as_dsse_requires() -> None:
    document = json.loads(sign_envelope(b"x", TYPE, KEY).to_bytes())
    document["extra"] = 1
    document["signatures"][0]["extra"] = 2
    assert verify_envelope(parse_envelope(json.dumps(document).encode()), KEY.public_key())


def test_absent_keyid_is_empty() -> None:
    document = json.loads(sign_envelope(b"x", TYPE, KEY).to_bytes())
    del document["signatures"][0]["keyid"]
    envelope = parse_envelope(json.dumps(document).encode())
    assert envelope.signatures[0].keyid == ""
    assert verify_envelope(envelope, KEY.public_key()) == b"x"


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not json",
        b"\xff\xfe",
        b"[]",
        b'"payload"',
        b'["payload", "payloadType"]',
        b'{"schema_version": "agent-evidence/bundle/v2", "receipt": {}}',  # a bundle
        b'{"signed": {}, "signatures": []}',  # TUF metadata, an in-toto 0.9 link
        b'{"signatures": [{"sig": "eA=="}]}',
        b'{"receipt": {}, "receipt": {}}',  # refused JSON, but no envelope's
        b'{"x": NaN}',
        b'{"payload": "eA==", "payloadType": "t", "signatures": []}\n'
        b'{"payload": "eQ==", "payloadType": "t", "signatures": []}\n',  # .intoto.jsonl
    ],
)
def test_what_is_no_envelope_at_all_is_refused_not_called_tampered(data: bytes) -> None:
    """Nothing could be checked: refused (2), as a file that is not a bundle is."""
    with pytest.raises(NotAnEnvelope) as raised:
        parse_envelope(data)
    assert raised.value.code == "ATTEST-NOT-AN-ENVELOPE"
    assert raised.value.exit_code == 2


@pytest.mark.parametrize(
    "data",
    [
        b'{"payload": "eA==", "payloadType": "t"}',  # signatures deleted
        b'{"payload": "eA==", "payloadType": "t", "signature": []}',  # renamed
        b'{"payloadType": "t", "signatures": []}',
        b'{"payload": "eA==", "signatures": []}',
        b'{"payload": "eA=="}',
        b'{"payloadType": "t", "payloadType": "t"}',
        b'{"payload": "eA==", "x": NaN}',
        b'{"payload": 1, "payloadType": "t", "signatures": []}',
        b'{"payload": "eA==", "payloadType": "t", "signatures": {}}',
        b'{"payload": "e%A", "payloadType": "t", "signatures": []}',
        b'{"payload": "eA==", "payload": "eQ==", "payloadType": "t", "signatures": []}',
        b'{"payload": "eA==", "payloadType": "t", "signatures": [], "x": NaN}',
        b'{"payload": "eA==", "signatures": [%s]}'  # damaged, however many entries it holds
        % b",".join([b'{"sig": "eA=="}'] * (MAX_SIGNATURES + 1)),
        b'{"payload": "eA==", "payloadType": "t", "signatures": [',  # cut short
        b'{"payload": "eA==" "payloadType": "t", "signatures": []}',  # a comma flipped away
        b'&"payloadType": "t", "payload": "eA==", "signatures": []}',  # its brace flipped
        b'{"payload": "eA==", "payloadType": "t", "signatures": []}\nx',  # a line appended
    ],
)
def test_malformed_envelopes_are_integrity_failures(data: bytes) -> None:
    """An object with a payload or payloadType is an envelope: missing a field, or unreadable,
    it was damaged after it was written (5). Was: without `signatures` it was no envelope (2)."""
    with pytest.raises(EnvelopeMalformed) as raised:
        parse_envelope(data)
    assert raised.value.code == "ATTEST-ENVELOPE-MALFORMED"
    assert raised.value.exit_code == 5


def test_an_envelope_with_as_many_signatures_as_the_bound_verifies() -> None:
    """Ours tried last, after every other signer's (valid, by other keys)."""
    data = with_other_signers(MAX_SIGNATURES - 1, first=True)(
        sign_envelope(b"x", TYPE, KEY).to_bytes()
    )
    assert len(json.loads(data)["signatures"]) == MAX_SIGNATURES
    assert verify_envelope(parse_envelope(data), KEY.public_key()) == b"x"


@pytest.mark.parametrize("first", [True, False], ids=["ours-last", "ours-first"])
def test_more_signatures_than_the_bound_are_refused_not_called_tampered(first: bool) -> None:
    """Was ATTEST-ENVELOPE-MALFORMED (5: do not trust, attest again) for a valid envelope our
    signer shares with 16 others: DSSE sets no limit and securesystemslib verifies it. Nothing
    was found altered, a check did not run: refused (2), saying the limit and a way out."""
    data = with_other_signers(MAX_SIGNATURES, first=first)(
        sign_envelope(b"x", TYPE, KEY).to_bytes()
    )
    with pytest.raises(TooManySignatures) as raised:
        parse_envelope(data)
    assert raised.value.code == "ATTEST-TOO-MANY-SIGNATURES"
    assert raised.value.exit_code == 2
    info = CODES["ATTEST-TOO-MANY-SIGNATURES"]
    assert f"more than {MAX_SIGNATURES} signature" in info.message
    assert "securesystemslib" in info.fix
    assert f"at most {MAX_SIGNATURES} entries" in info.fix
    assert "more than" not in CODES["ATTEST-ENVELOPE-MALFORMED"].message  # was "16 signatures"


def test_the_bound_counts_the_entries_before_reading_any(monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries that are no signature count too, and none is looked at past the bound: a crafted
    envelope cannot make the parser (or the verifier) work per entry."""

    def read(item: Any) -> None:
        raise AssertionError("an entry was read")

    monkeypatch.setattr(dsse, "_signature_from", read)
    data = json.dumps(
        {"payload": "eA==", "payloadType": "t", "signatures": ["x"] * (MAX_SIGNATURES + 1)}
    ).encode()
    with pytest.raises(TooManySignatures):
        parse_envelope(data)


def test_undecodable_base64_in_a_verified_field_is_malformed() -> None:
    envelope = Envelope(payload="e", payloadType=TYPE, signatures=())
    with pytest.raises(EnvelopeMalformed):
        verify_envelope(envelope, KEY.public_key())


@pytest.mark.parametrize(
    "extra",
    [
        "x",  # not an object
        {"keyid": "k"},  # no sig
        {"keyid": "k", "sig": "%%% not base64"},
        {"keyid": 7, "sig": 12},
    ],
    ids=["string", "no-sig", "not-base64", "numbers"],
)
def test_an_entry_that_is_no_signature_beside_a_good_one_still_verifies(extra: Any) -> None:
    """Was ATTEST-ENVELOPE-MALFORMED (5) for a genuine bundle: every entry had to parse before
    any was tried. Entries are another signer's business; one by the trusted key suffices."""
    document = json.loads(sign_envelope(b"x", TYPE, KEY).to_bytes())
    for placed in ([extra, *document["signatures"]], [*document["signatures"], extra]):
        verify_envelope(
            parse_envelope(json.dumps({**document, "signatures": placed}).encode()),
            KEY.public_key(),
        )
    alone = parse_envelope(json.dumps({**document, "signatures": [extra]}).encode())
    with pytest.raises(SignatureInvalid):
        verify_envelope(alone, KEY.public_key())


@pytest.mark.parametrize(
    "keyid",
    ["my key", "clé", "k" * 257, 42, None, ["a"]],
    ids=["space", "accent", "long", "int", "null", "list"],
)
def test_any_keyid_hint_is_ignored(keyid: Any) -> None:
    """Was ATTEST-ENVELOPE-MALFORMED for a keyid this program would not write: DSSE makes it
    an unauthenticated hint, and securesystemslib verifies such envelopes."""
    document = json.loads(sign_envelope(b"x", TYPE, KEY).to_bytes())
    document["signatures"][0]["keyid"] = keyid
    envelope = parse_envelope(json.dumps(document).encode())
    assert verify_envelope(envelope, KEY.public_key()) == b"x"
    assert envelope.signatures[0].keyid == ""


def test_a_line_wrapped_signature_and_a_bom_still_verify() -> None:
    document = json.loads(sign_envelope(b"x", TYPE, KEY).to_bytes())
    sig = document["signatures"][0]["sig"]
    document["signatures"][0]["sig"] = sig[:40] + "\n" + sig[40:]
    document["payload"] = document["payload"][:2] + "\r\n" + document["payload"][2:]
    data = b"\xef\xbb\xbf" + json.dumps(document).encode()
    assert verify_envelope(parse_envelope(data), KEY.public_key()) == b"x"
