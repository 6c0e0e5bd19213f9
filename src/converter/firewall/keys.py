"""The pseudonym key: where it lives, how it is made, and its public fingerprint (SPEC §6.2)."""

from __future__ import annotations

import codecs
import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from converter.errors import Problem, Refused
from converter.files import (
    NotCreated,
    NotRegular,
    ask,
    count_written,
    create_exclusive,
    home_folder,
    read_regular,
)

ENV_VAR = "AGENT_EVIDENCE_KEY"
_KEY_ID_DOMAIN = b"agent-evidence/v1/key-id"


@dataclass(frozen=True, slots=True)
class PseudonymKey:
    secret: bytes

    @property
    def key_id(self) -> str:
        mac = hmac.new(self.secret, _KEY_ID_DOMAIN, hashlib.sha256).hexdigest()
        return f"key-{mac[:16]}"


def _xdg_config_home() -> str | None:
    """$XDG_CONFIG_HOME when it is an absolute path; a relative one is ignored, as the XDG Base
    Directory spec says (else the key would be made in whatever folder the command ran in)."""
    value = os.environ.get("XDG_CONFIG_HOME")
    return value if value and os.path.isabs(value) else None


def default_key_path() -> Path:
    base = _xdg_config_home()
    if base is None:
        home = home_folder()
        if home is None:  # no $HOME, or one that is no absolute path: no config folder
            raise Refused([Problem("KEY-NO-HOME")])
        base = str(home / ".config")
    return Path(base) / "agent-evidence" / "pseudonym.key"


def default_key_shown() -> str:
    """Where `default_key_path` is, as a message may say it: by the variable or `~`, never the
    expanded path (a home folder names its user)."""
    base = "$XDG_CONFIG_HOME" if _xdg_config_home() else "~/.config"
    return f"{base}/agent-evidence/pseudonym.key"


# Where a key came from, as a refusal names it (the place, never the key): a key file given,
# the variable, or the default file by `default_key_shown`.
GIVEN_FILE = "--key-file"
FROM_ENV = "$AGENT_EVIDENCE_KEY"


def _decode(text: str, source: str) -> PseudonymKey:
    body = text.strip()
    if len(body) != 64:
        raise Refused([Problem("KEY-INVALID", where=source)])
    try:
        return PseudonymKey(bytes.fromhex(body))
    except ValueError:
        raise Refused([Problem("KEY-INVALID", where=source)]) from None


def _read_private(path: Path, source: str) -> PseudonymKey:
    """A key file is read through a symbolic link, as the signing key is (a secret mounted as
    one), but what it names must be a regular file only its owner can read."""
    try:
        data, info = read_regular(path, _KEY_FILE_MAX)
    except NotRegular:
        raise Refused([Problem("KEY-INVALID", where=source)]) from None
    except OSError:  # a read error (a failing disk, /proc/self/mem), never exit 70
        raise Refused([Problem("KEY-UNREADABLE", where=source)]) from None
    if len(data) > _KEY_FILE_MAX:
        raise Refused([Problem("KEY-INVALID", where=source)])
    # an editor's UTF-8 byte-order mark is not part of the key (a signing key read with one is
    # taken too: an operations review)
    data = data.removeprefix(codecs.BOM_UTF8)
    # A file that is no key is said so first: a walkthrough given a contract (mode 644) was
    # told to chmod it, and only then that it was not a key.
    key = _decode(data.decode("ascii", errors="replace"), source)
    if info.st_mode & 0o077:
        raise Refused([Problem("KEY-PERMISSIONS", where=source)])
    return key


_KEY_FILE_MAX = 4096  # a key file is 65 bytes: more is not a key, and is never read whole


def create_key(path: Path | None) -> PseudonymKey:
    """Write a new random key with mode 0600 at the --key-file given, else the default place;
    never replaces an existing file. The default key's folders are made; a --key-file's folder
    must exist (a walkthrough's mistyped folder was made, silently, with its parents)."""
    where = GIVEN_FILE if path is not None else default_key_shown()
    if path is None:
        path = default_key_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError:
            raise Refused([Problem("KEY-UNWRITABLE", where=where)]) from None
    key = PseudonymKey(secrets.token_bytes(32))
    try:
        create_exclusive(path, (key.secret.hex() + "\n").encode("ascii"), 0o600)
    except NotCreated as failed:
        code = failed.code("KEY-EXISTS", "KEY-UNWRITABLE")
        raise Refused([Problem(code, where=where)]) from None
    count_written(1)
    return key


@dataclass(frozen=True, slots=True)
class LoadedKey:
    key: PseudonymKey
    created_at: Path | None  # set when the key was created by this call


def _exists(path: Path, source: str) -> bool:
    """Whether something is at `path`; a folder on the way that cannot be searched (Python 3.11
    raises EACCES) is KEY-UNREADABLE (at `source`), never an internal error."""
    found = ask(path.exists)
    if found is None:
        raise Refused([Problem("KEY-UNREADABLE", where=source)])
    return found


def load_key(key_file: Path | None, *, create: bool = True) -> LoadedKey:
    """--key-file, else $AGENT_EVIDENCE_KEY, else the config dir (created on first use)."""
    if key_file is not None:
        if not _exists(key_file, GIVEN_FILE):
            raise Refused([Problem("KEY-FILE-MISSING", where=GIVEN_FILE)])
        return LoadedKey(_read_private(key_file, GIVEN_FILE), None)
    env = os.environ.get(ENV_VAR)
    if env:
        return LoadedKey(_decode(env, FROM_ENV), None)
    path = default_key_path()
    if _exists(path, default_key_shown()):
        return LoadedKey(_read_private(path, default_key_shown()), None)
    if not create:
        raise Refused([Problem("KEY-MISSING")])
    return LoadedKey(create_key(None), path)
