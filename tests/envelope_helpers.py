"""DSSE envelopes rewritten the ways the DSSE spec allows, and where an envelope is unsigned.

DSSE signs PAE(payloadType, payload) and nothing else. Each `rewrite` below changes only bytes
outside that, so a verifier must still accept the result; `unsigned_positions` names the bytes of
our canonical envelope that no signature covers.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from converter.attest.dsse import pae
from converter.codec.canonical import canonical_bytes


def _document(envelope: bytes) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(envelope)
    return document


def reindented(envelope: bytes) -> bytes:
    return json.dumps(_document(envelope), indent=2).encode()


def url_safe(envelope: bytes) -> bytes:
    """Payload and signatures in the URL-safe alphabet without padding (DSSE accepts both)."""
    document = _document(envelope)
    document["payload"] = _url_safe(document["payload"])
    for signature in document["signatures"]:
        signature["sig"] = _url_safe(signature["sig"])
    return canonical_bytes(document)


def _url_safe(text: str) -> str:
    return base64.urlsafe_b64encode(base64.b64decode(text)).decode().rstrip("=")


def with_extra_fields(envelope: bytes) -> bytes:
    document = _document(envelope)
    document["x-note"] = {"signed": False}
    document["signatures"][0]["x-note"] = 1
    return canonical_bytes(document)


def with_keyid(keyid: str | None) -> Callable[[bytes], bytes]:
    """The one signature's keyid replaced (None: removed); keyid is an unsigned hint."""

    def rewrite(envelope: bytes) -> bytes:
        document = _document(envelope)
        if keyid is None:
            del document["signatures"][0]["keyid"]
        else:
            document["signatures"][0]["keyid"] = keyid
        return canonical_bytes(document)

    return rewrite


def cosigned(other: Ed25519PrivateKey, *, first: bool) -> Callable[[bytes], bytes]:
    """A second signature over the same PAE by `other`, before or after the original one."""

    def rewrite(envelope: bytes) -> bytes:
        document = _document(envelope)
        message = pae(document["payloadType"], base64.b64decode(document["payload"]))
        extra = {"keyid": "co-signer", "sig": base64.b64encode(other.sign(message)).decode()}
        signatures = document["signatures"]
        document["signatures"] = [extra, *signatures] if first else [*signatures, extra]
        return canonical_bytes(document)

    return rewrite


def with_other_signers(count: int, *, first: bool) -> Callable[[bytes], bytes]:
    """`count` more signatures over the same PAE, each by another signer's key (every one
    valid), before or after the original one: a multi-signed envelope, as in-toto allows."""

    def rewrite(envelope: bytes) -> bytes:
        document = _document(envelope)
        message = pae(document["payloadType"], base64.b64decode(document["payload"]))
        others = [
            {
                "keyid": f"signer-{n}",
                "sig": base64.b64encode(Ed25519PrivateKey.generate().sign(message)).decode(),
            }
            for n in range(count)
        ]
        signatures = document["signatures"]
        document["signatures"] = [*others, *signatures] if first else [*signatures, *others]
        return canonical_bytes(document)

    return rewrite


def unsigned_positions(envelope: bytes) -> set[int]:
    """Byte positions of a canonical one-signature envelope that no signature covers: the keyid
    member (name and value), and the last base64 character before `=` padding, whose low bits
    are spare (several characters there decode to the same bytes)."""
    start = envelope.index(b'"keyid":"')
    end = envelope.index(b'"', start + len(b'"keyid":"')) + 1
    positions = set(range(start, end))
    for padded in re.finditer(rb'"([A-Za-z0-9+/]+)=+"', envelope):
        positions.add(padded.end(1) - 1)
    return positions
