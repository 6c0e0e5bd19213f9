"""`keygen` and the key loaders: file modes, no overwrite, and one test per ATTEST-KEY-* code."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

from converter.attest.dsse import key_id
from converter.attest.errors import SigningKeyRefused
from converter.attest.keys import (
    generate_key_files,
    load_private_key,
    load_public_key,
    private_pem,
    public_pem,
)
from converter.attest.statement import attest, check_attestation


def _code(raised: pytest.ExceptionInfo[SigningKeyRefused]) -> str:
    assert raised.value.exit_code == 2
    return raised.value.code


def test_keygen_writes_a_private_pair_that_signs_and_verifies(tmp_path: Path, cli: Any) -> None:
    out = tmp_path / "KEY.pem"
    result = cli("keygen", "--out", str(out))
    assert result.code == 0, result.err
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    pub = tmp_path / "KEY.pem.pub"
    assert out.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----\n")
    assert pub.read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----\n")
    private, public = load_private_key(out), load_public_key(pub)
    assert key_id(public) in result.out
    assert str(tmp_path) not in result.out
    assert "KEY" not in result.out  # the name typed is not echoed either (it could be a path)
    assert check_attestation(b"b", attest(b"b", "b.json", {}, private), public) == {}


def test_keygen_refuses_to_overwrite(tmp_path: Path, cli: Any) -> None:
    out = tmp_path / "KEY.pem"
    assert cli("keygen", "--out", str(out)).code == 0
    before = out.read_bytes(), (tmp_path / "KEY.pem.pub").read_bytes()
    result = cli("keygen", "--out", str(out))
    assert result.code == 2
    assert "ATTEST-KEY-EXISTS" in result.err
    assert (out.read_bytes(), (tmp_path / "KEY.pem.pub").read_bytes()) == before


def test_keygen_refuses_when_only_the_public_file_exists(tmp_path: Path) -> None:
    (tmp_path / "KEY.pem.pub").write_bytes(b"keep me")
    with pytest.raises(SigningKeyRefused) as raised:
        generate_key_files(tmp_path / "KEY.pem")
    assert _code(raised) == "ATTEST-KEY-EXISTS"
    assert not (tmp_path / "KEY.pem").exists()
    assert (tmp_path / "KEY.pem.pub").read_bytes() == b"keep me"


def test_keygen_into_a_missing_folder_is_unwritable(tmp_path: Path, cli: Any) -> None:
    result = cli("keygen", "--out", str(tmp_path / "missing" / "KEY.pem"))
    assert result.code == 2
    assert "ATTEST-KEY-UNWRITABLE" in result.err


def test_keygen_without_out_is_a_usage_error(cli: Any) -> None:
    assert cli("keygen").code == 64


def test_missing_key_is_unreadable(tmp_path: Path) -> None:
    for load in (load_private_key, load_public_key):
        with pytest.raises(SigningKeyRefused) as raised:
            load(tmp_path / "absent.pem")
        assert _code(raised) == "ATTEST-KEY-UNREADABLE"


def _write(path: Path, data: bytes, mode: int = 0o600) -> Path:
    path.write_bytes(data)
    path.chmod(mode)
    return path


def test_private_key_readable_by_others_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "k.pem", private_pem(Ed25519PrivateKey.generate()), 0o644)
    with pytest.raises(SigningKeyRefused) as raised:
        load_private_key(path)
    assert _code(raised) == "ATTEST-KEY-PERMISSIONS"


ED = Ed25519PrivateKey.generate()
EC = ec.generate_private_key(ec.SECP256R1())


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "ATTEST-KEY-INVALID"),
        (b"not a key\n", "ATTEST-KEY-INVALID"),
        (b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "ATTEST-KEY-INVALID"),
        (
            ED.private_bytes(
                Encoding.PEM, PrivateFormat.PKCS8, BestAvailableEncryption(b"passphrase")
            ),
            "ATTEST-KEY-INVALID",
        ),
        (public_pem(ED.public_key()), "ATTEST-KEY-WRONG-TYPE"),  # the .pub, by mistake
        (
            EC.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()),
            "ATTEST-KEY-WRONG-TYPE",
        ),
        # both halves in one file: not the wrong key (an attest audit), one file of two keys
        (
            ED.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
            + public_pem(ED.public_key()),
            "ATTEST-KEY-INVALID",
        ),
    ],
)
def test_bad_private_keys(tmp_path: Path, data: bytes, code: str) -> None:
    with pytest.raises(SigningKeyRefused) as raised:
        load_private_key(_write(tmp_path / "k.pem", data))
    assert _code(raised) == code


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"garbage", "ATTEST-PUBLIC-KEY-INVALID"),
        (private_pem(ED), "ATTEST-KEY-WRONG-TYPE"),
        (
            EC.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo),
            "ATTEST-KEY-WRONG-TYPE",
        ),
    ],
)
def test_bad_public_keys(tmp_path: Path, data: bytes, code: str) -> None:
    with pytest.raises(SigningKeyRefused) as raised:
        load_public_key(_write(tmp_path / "k.pem.pub", data, 0o644))
    assert _code(raised) == code


def test_a_folder_is_not_a_key(tmp_path: Path) -> None:
    with pytest.raises(SigningKeyRefused) as raised:
        load_public_key(tmp_path)
    assert _code(raised) == "ATTEST-PUBLIC-KEY-INVALID"


def test_only_attest_key_codes_are_accepted() -> None:
    with pytest.raises(KeyError):
        SigningKeyRefused("KEY-MISSING")


@pytest.mark.parametrize("name", ["signing.pem.pub", "KEY.PUB"])
def test_keygen_never_writes_a_private_key_named_like_a_public_one(
    tmp_path: Path, cli: Any, name: str
) -> None:
    """Was: `keygen --out signing.pem.pub` wrote the private key as signing.pem.pub (and the
    public one as .pub.pub): handing out "the .pub file" handed out the signing key."""
    result = cli("keygen", "--out", str(tmp_path / name))
    assert result.code == 2
    assert "ATTEST-KEY-PUBLIC-NAME" in result.err
    assert list(tmp_path.iterdir()) == []


def test_a_key_file_of_two_keys_is_refused(tmp_path: Path, cli: Any) -> None:
    """Was (fuzzing): two PEM keys in one file were taken, the first one signing."""
    for name in ("a.pem", "b.pem"):
        assert cli("keygen", "--out", str(tmp_path / name)).code == 0
    both = tmp_path / "both.pem"
    both.write_bytes((tmp_path / "a.pem").read_bytes() + (tmp_path / "b.pem").read_bytes())
    both.chmod(0o600)
    with pytest.raises(SigningKeyRefused) as raised:
        load_private_key(both)
    assert _code(raised) == "ATTEST-KEY-INVALID"
    public = tmp_path / "both.pub"
    public.write_bytes(
        (tmp_path / "a.pem.pub").read_bytes() + (tmp_path / "b.pem.pub").read_bytes()
    )
    with pytest.raises(SigningKeyRefused) as raised:
        load_public_key(public)
    assert _code(raised) == "ATTEST-PUBLIC-KEY-INVALID"
