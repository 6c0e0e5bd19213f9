"""Ed25519 signing keys: `keygen` and the loaders. The only module here that touches files.

Private key: PKCS#8 PEM, mode 0600, created with O_EXCL (never replaces a file); encrypted
with a passphrase when one is given (PBES2: PBKDF2-HMAC-SHA256 and AES-256-CBC, as OpenSSL's
`genpkey -aes-256-cbc` writes it). Public key: SubjectPublicKeyInfo PEM at `<private>.pub`.
Every failure is a SigningKeyRefused with an ATTEST-KEY-* code (a full disk: OUT-NO-SPACE); no
message quotes the file.
Where a passphrase comes from (an environment variable, a terminal) is the caller's: this
module asks for one through a callable, and only for a key that is encrypted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_pem_private_key,
    load_pem_public_key,
)

from converter.attest.dsse import key_id
from converter.attest.errors import SigningKeyRefused
from converter.errors import Problem, Refused
from converter.files import (
    NotCreated,
    NotRegular,
    ask,
    count_written,
    create_exclusive,
    read_regular,
)

_MAX_KEY_FILE = 64 * 1024

# Asked only when the key is encrypted; None or b"" when there is none to give.
Passphrase = Callable[[], bytes | None]

# The options that name the key files, said as each refusal's place (never the path): a
# signing key, a public key, and keygen's new key.
SIGNING_KEY = "--attest-key"
PUBLIC_KEY = "--public-key"
NEW_KEY = "--out"
ENCRYPT = "--encrypt"  # keygen's option that asks for a passphrase

T = TypeVar("T")


def _at(option: str, load: Callable[[], T]) -> T:
    """`load`'s result, or its refusal with `option` as the place of each problem that names
    none (as KEY-INVALID names `--key-file`): ATTEST-KEY-UNREADABLE was said with no place."""
    try:
        return load()
    except Refused as refused:
        refused.problems[:] = [
            p if p.where is not None else replace(p, where=option) for p in refused.problems
        ]
        raise


@dataclass(frozen=True, slots=True)
class GeneratedKey:
    private_path: Path
    public_path: Path
    key_id: str


def public_path_for(private_path: Path) -> Path:
    return private_path.with_name(private_path.name + ".pub")


def private_pem(key: Ed25519PrivateKey, passphrase: bytes | None = None) -> bytes:
    sealed = BestAvailableEncryption(passphrase) if passphrase else NoEncryption()
    return key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, sealed)


def public_pem(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)


def private_key_from_pem(data: bytes, passphrase: Passphrase | None = None) -> Ed25519PrivateKey:
    """The key in `data`; `passphrase` is asked (once) only if the key is encrypted."""
    if data.count(b"-----BEGIN") > 1:  # which one signs would be the parser's choice, unsaid
        raise SigningKeyRefused("ATTEST-KEY-INVALID")
    try:
        key = load_pem_private_key(data, password=None)
    except UnsupportedAlgorithm:
        raise SigningKeyRefused("ATTEST-KEY-WRONG-TYPE") from None
    except ValueError:  # not PEM, or damaged
        raise SigningKeyRefused("ATTEST-KEY-INVALID") from None
    except TypeError:  # cryptography's word for "encrypted, and no password was given"
        key = _decrypted(data, passphrase() if passphrase is not None else None)
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningKeyRefused("ATTEST-KEY-WRONG-TYPE")
    return key


def _decrypted(data: bytes, password: bytes | None) -> PrivateKeyTypes:
    if not password:
        raise SigningKeyRefused("ATTEST-KEY-PASSPHRASE-MISSING")
    try:
        return load_pem_private_key(data, password=password)
    except UnsupportedAlgorithm:
        raise SigningKeyRefused("ATTEST-KEY-WRONG-TYPE") from None
    except (ValueError, TypeError):  # the wrong passphrase, or damaged past its header
        raise SigningKeyRefused("ATTEST-KEY-PASSPHRASE-WRONG") from None


def public_key_from_pem(data: bytes) -> Ed25519PublicKey:
    if b"PRIVATE KEY-----" in data:  # the secret half passed where the public one belongs
        raise SigningKeyRefused("ATTEST-KEY-WRONG-TYPE")
    if data.count(b"-----BEGIN") > 1:  # which one verifies would be the parser's choice
        raise SigningKeyRefused("ATTEST-PUBLIC-KEY-INVALID")
    try:
        key = load_pem_public_key(data)
    except UnsupportedAlgorithm:
        raise SigningKeyRefused("ATTEST-KEY-WRONG-TYPE") from None
    except ValueError:
        raise SigningKeyRefused("ATTEST-PUBLIC-KEY-INVALID") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SigningKeyRefused("ATTEST-KEY-WRONG-TYPE")
    if _weak(key.public_bytes(Encoding.Raw, PublicFormat.Raw)):
        raise SigningKeyRefused("ATTEST-PUBLIC-KEY-INVALID")
    return key


_P = 2**255 - 19
_D = -121665 * pow(121666, -1, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def _weak(raw: bytes) -> bool:
    """Whether a raw Ed25519 public key is no point of the curve, a non-canonical encoding, or
    a point of small order (8A is the identity). OpenSSL verifies against such a key as RFC
    8032 says, and under the identity key R = identity, S = 0 is a signature of every message:
    no keygen writes one, so a key that is one was made to forge (libsodium refuses them too)."""
    y = int.from_bytes(raw, "little") & ((1 << 255) - 1)
    if y >= _P:
        return True
    u, v = (y * y - 1) % _P, (_D * y * y + 1) % _P
    x = u * pow(v, 3, _P) * pow(u * pow(v, 7, _P), (_P - 5) // 8, _P) % _P
    if (v * x * x - u) % _P:
        x = x * _SQRT_M1 % _P
        if (v * x * x - u) % _P:
            return True
    for _ in range(3):  # doubling on -x^2 + y^2 = 1 + d x^2 y^2 (complete: d is no square)
        xy = x * y % _P
        dxy2 = _D * xy * xy % _P
        x, y = 2 * xy * pow(1 + dxy2, -1, _P) % _P, (y * y + x * x) * pow(1 - dxy2, -1, _P) % _P
    return (x, y) == (0, 1)


def generate_key_files(private_path: Path, passphrase: Passphrase | None = None) -> GeneratedKey:
    """`_generate_key_files`, its refusals at keygen's `--out`."""
    return _at(NEW_KEY, lambda: _generate_key_files(private_path, passphrase))


def _generate_key_files(private_path: Path, passphrase: Passphrase | None) -> GeneratedKey:
    """Write a new key pair, the private key encrypted when `passphrase` is given (asked after
    the checks of the paths: no one types a passphrase for a key that cannot be written); refuses
    (ATTEST-KEY-EXISTS) if either file already exists, a private key named like a public one
    (ATTEST-KEY-PUBLIC-NAME), and an empty passphrase (ATTEST-KEY-PASSPHRASE-MISSING)."""
    if private_path.name.lower().endswith(".pub"):
        raise SigningKeyRefused("ATTEST-KEY-PUBLIC-NAME")
    public_path = public_path_for(private_path)
    taken = ask(lambda: public_path.exists() or public_path.is_symlink())
    if taken is None:  # a folder that cannot be searched
        raise SigningKeyRefused("ATTEST-KEY-UNWRITABLE")
    if taken:
        raise SigningKeyRefused("ATTEST-KEY-EXISTS")
    if ask(lambda: private_path.exists() or private_path.is_symlink()):
        raise SigningKeyRefused("ATTEST-KEY-EXISTS")
    password = None
    if passphrase is not None:
        # a missing folder is found only by the write: found first, before anyone types
        if not ask(private_path.parent.is_dir):
            raise SigningKeyRefused("ATTEST-KEY-UNWRITABLE")
        password = passphrase()
        if not password:  # said at the option that asked for it, not at --out (the file)
            raise SigningKeyRefused("ATTEST-KEY-PASSPHRASE-MISSING", where=ENCRYPT)
    key = Ed25519PrivateKey.generate()
    _create_exclusive(private_path, private_pem(key, password), 0o600)
    try:
        _create_exclusive(public_path, public_pem(key.public_key()), 0o644)
    except BaseException:
        private_path.unlink()
        raise
    count_written(2)
    return GeneratedKey(private_path, public_path, key_id(key.public_key()))


def _create_exclusive(path: Path, data: bytes, mode: int) -> None:
    try:
        create_exclusive(path, data, mode)
    except NotCreated as failed:
        code = failed.code("ATTEST-KEY-EXISTS", "ATTEST-KEY-UNWRITABLE")
        if not code.startswith("ATTEST-"):  # a full disk: the output's own code
            raise Refused([Problem(code)]) from None
        raise SigningKeyRefused(code) from None


def load_private_key(path: Path, passphrase: Passphrase | None = None) -> Ed25519PrivateKey:
    """The signing key; refuses a file other users can read (ATTEST-KEY-PERMISSIONS), even
    encrypted (its mode is checked before any passphrase is asked). Refusals name
    `--attest-key`, the only option that gives one."""
    return _at(
        SIGNING_KEY,
        lambda: private_key_from_pem(_read_key_file(path, private=True), passphrase),
    )


def load_public_key(path: Path) -> Ed25519PublicKey:
    """The public key `--public-key` names (verify, evaluate; the Action passes its input as
    it); refusals name the option."""
    return _at(PUBLIC_KEY, lambda: public_key_from_pem(_read_key_file(path, private=False)))


def _read_key_file(path: Path, *, private: bool) -> bytes:
    # A public key is the producer's, given to a verifier: its fix is not keygen's.
    invalid = "ATTEST-KEY-INVALID" if private else "ATTEST-PUBLIC-KEY-INVALID"
    try:
        data, info = read_regular(path, _MAX_KEY_FILE)
    except NotRegular:
        raise SigningKeyRefused(invalid) from None
    except OSError:
        raise SigningKeyRefused("ATTEST-KEY-UNREADABLE") from None
    if len(data) > _MAX_KEY_FILE:
        raise SigningKeyRefused(invalid)
    if private and b"-----BEGIN PUBLIC KEY-----" in data:
        # the .pub given by mistake; or both halves in one file, which is not the wrong key
        # (an attest audit): which one signs would be unsaid
        both = b"PRIVATE KEY-----" in data
        raise SigningKeyRefused("ATTEST-KEY-INVALID" if both else "ATTEST-KEY-WRONG-TYPE")
    if private and b"PRIVATE KEY-----" not in data:  # no key at all: not "chmod it" first
        raise SigningKeyRefused(invalid)
    if private and info.st_mode & 0o077:
        raise SigningKeyRefused("ATTEST-KEY-PERMISSIONS")
    return data
