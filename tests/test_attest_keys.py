"""`keygen` and the key loaders: file modes, no overwrite, and one test per ATTEST-KEY-* code."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
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


def test_a_file_that_is_no_key_is_said_so_whatever_its_mode(tmp_path: Path) -> None:
    """A walkthrough gave a contract (mode 644) as the key: told to chmod it, then that it
    was not a key. A key file readable by others is still refused for that."""
    path = _write(tmp_path / "contract.json", b'{"schema_version": "1"}\n', 0o644)
    with pytest.raises(SigningKeyRefused) as raised:
        load_private_key(path)
    assert _code(raised) == "ATTEST-KEY-INVALID"


ED = Ed25519PrivateKey.generate()
EC = ec.generate_private_key(ec.SECP256R1())


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "ATTEST-KEY-INVALID"),
        (b"not a key\n", "ATTEST-KEY-INVALID"),
        (b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "ATTEST-KEY-INVALID"),
        # encrypted, and nothing to ask the passphrase of
        (
            ED.private_bytes(
                Encoding.PEM, PrivateFormat.PKCS8, BestAvailableEncryption(b"passphrase")
            ),
            "ATTEST-KEY-PASSPHRASE-MISSING",
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


# --- encrypted signing keys (`keygen --encrypt`, a passphrase for `convert --attest-key`) ---


class _Asked:
    """A passphrase source that counts how often it was asked."""

    def __init__(self, answer: bytes | None) -> None:
        self.answer = answer
        self.times = 0

    def __call__(self) -> bytes | None:
        self.times += 1
        return self.answer


def test_an_encrypted_key_is_read_with_its_passphrase_asked_once(tmp_path: Path) -> None:
    asked = _Asked(b"correct horse")
    made = generate_key_files(tmp_path / "k.pem", asked)
    assert asked.times == 1
    data = (tmp_path / "k.pem").read_bytes()
    assert data.startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----\n")
    assert stat.S_IMODE((tmp_path / "k.pem").stat().st_mode) == 0o600
    again = _Asked(b"correct horse")
    key = load_private_key(tmp_path / "k.pem", again)
    assert again.times == 1
    assert key_id(key.public_key()) == made.key_id == key_id(load_public_key(made.public_path))


def test_a_plain_key_never_asks_for_a_passphrase(tmp_path: Path) -> None:
    generate_key_files(tmp_path / "k.pem")
    asked = _Asked(b"unused")
    load_private_key(tmp_path / "k.pem", asked)
    assert asked.times == 0


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        (b"wrong horse", "ATTEST-KEY-PASSPHRASE-WRONG"),
        (b"correct horse\n", "ATTEST-KEY-PASSPHRASE-WRONG"),  # every byte counts
        (None, "ATTEST-KEY-PASSPHRASE-MISSING"),
        (b"", "ATTEST-KEY-PASSPHRASE-MISSING"),  # an unset secret expands to nothing
    ],
)
def test_an_encrypted_key_without_its_passphrase_is_refused(
    tmp_path: Path, answer: bytes | None, code: str
) -> None:
    generate_key_files(tmp_path / "k.pem", _Asked(b"correct horse"))
    with pytest.raises(SigningKeyRefused) as raised:
        load_private_key(tmp_path / "k.pem", _Asked(answer))
    assert _code(raised) == code


def test_the_mode_is_checked_before_the_passphrase_is_asked(tmp_path: Path) -> None:
    generate_key_files(tmp_path / "k.pem", _Asked(b"correct horse"))
    (tmp_path / "k.pem").chmod(0o640)
    asked = _Asked(b"correct horse")
    with pytest.raises(SigningKeyRefused) as raised:
        load_private_key(tmp_path / "k.pem", asked)
    assert _code(raised) == "ATTEST-KEY-PERMISSIONS"
    assert asked.times == 0


@pytest.mark.parametrize("answer", [None, b""])
def test_keygen_encrypt_without_a_passphrase_writes_nothing(
    tmp_path: Path, answer: bytes | None
) -> None:
    with pytest.raises(SigningKeyRefused) as raised:
        generate_key_files(tmp_path / "k.pem", _Asked(answer))
    assert _code(raised) == "ATTEST-KEY-PASSPHRASE-MISSING"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("pub_gone", [False, True], ids=["pair", "private-only"])
def test_keygen_encrypt_asks_nothing_for_a_key_it_cannot_write(
    tmp_path: Path, pub_gone: bool
) -> None:
    """The paths are checked first: nobody types a passphrase twice to learn the file exists.
    The private key's own path too, not only its .pub: a key whose .pub was deleted (or never
    copied) was found by the write's O_EXCL alone, after the passphrase was asked."""
    generate_key_files(tmp_path / "k.pem")
    if pub_gone:
        (tmp_path / "k.pem.pub").unlink()
    before = (tmp_path / "k.pem").read_bytes()
    asked = _Asked(b"correct horse")
    with pytest.raises(SigningKeyRefused) as raised:
        generate_key_files(tmp_path / "k.pem", asked)
    assert _code(raised) == "ATTEST-KEY-EXISTS"
    assert asked.times == 0
    assert (tmp_path / "k.pem").read_bytes() == before


OPENSSL = shutil.which("openssl")


def _openssl_key(tmp_path: Path, algorithm: str, *encrypt: str) -> Path | None:
    """A key `openssl genpkey` makes (None where this OpenSSL cannot make it), mode 0600."""
    assert OPENSSL is not None
    path = tmp_path / f"{algorithm}.pem"
    made = subprocess.run(
        [OPENSSL, "genpkey", "-algorithm", algorithm, *encrypt, "-out", str(path)],
        check=False,
        capture_output=True,
    )
    if made.returncode != 0:
        return None
    path.chmod(0o600)
    return path


@pytest.mark.skipif(OPENSSL is None, reason="no openssl on this machine")
def test_an_encrypted_key_of_a_type_cryptography_cannot_read_is_the_wrong_type(
    tmp_path: Path,
) -> None:
    """The right passphrase for a key of another kind (SM2, which cryptography does not
    read) is ATTEST-KEY-WRONG-TYPE, as the same key unencrypted is: not PASSPHRASE-WRONG,
    which would send its owner retyping a passphrase that was right."""
    encrypted = _openssl_key(tmp_path, "SM2", "-aes-256-cbc", "-pass", "pass:their pass")
    if encrypted is None:
        pytest.skip("this OpenSSL makes no SM2 keys")
    with pytest.raises(SigningKeyRefused) as raised:
        load_private_key(encrypted, _Asked(b"their pass"))
    assert _code(raised) == "ATTEST-KEY-WRONG-TYPE"


@pytest.mark.skipif(OPENSSL is None, reason="no openssl on this machine")
def test_keys_encrypted_by_openssl_and_by_keygen_read_both_ways(tmp_path: Path) -> None:
    """Standard tooling interoperates: an Ed25519 key OpenSSL encrypted (`genpkey -aes-256-cbc`,
    and `pkcs8 -topk8` with a stronger PBKDF2 count) signs here, and OpenSSL decrypts ours."""
    assert OPENSSL is not None
    theirs = tmp_path / "theirs.pem"
    genpkey = [OPENSSL, "genpkey", "-algorithm", "ed25519", "-aes-256-cbc"]
    subprocess.run(
        [*genpkey, "-pass", "pass:their pass", "-out", str(theirs)],
        check=True,
        capture_output=True,
    )
    strong = tmp_path / "strong.pem"
    pkcs8 = [OPENSSL, "pkcs8", "-topk8", "-v2", "aes-256-cbc", "-iter", "600000", "-in"]
    passes = ["-passin", "pass:their pass", "-passout", "pass:their pass"]
    subprocess.run(
        [*pkcs8, str(theirs), *passes, "-out", str(strong)],
        check=True,
        capture_output=True,
    )
    for path in (theirs, strong):
        path.chmod(0o600)
        key = load_private_key(path, _Asked(b"their pass"))
        assert check_attestation(b"b", attest(b"b", "b.json", {}, key), key.public_key()) == {}
    made = generate_key_files(tmp_path / "ours.pem", _Asked(b"our pass"))
    public = subprocess.run(
        [OPENSSL, "pkey", "-in", str(tmp_path / "ours.pem"), "-passin", "pass:our pass", "-pubout"],
        check=True,
        capture_output=True,
    ).stdout
    assert public == made.public_path.read_bytes()


def test_keygen_encrypt_takes_the_passphrase_from_the_environment(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE", "from the secret store")
    result = cli("keygen", "--out", str(tmp_path / "k.pem"), "--encrypt")
    assert result.code == 0, result.err
    assert "encrypted" in result.out
    assert "from the secret store" not in result.out + result.err
    assert load_private_key(tmp_path / "k.pem", _Asked(b"from the secret store"))
    monkeypatch.setenv("AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE", "")
    empty = cli("keygen", "--out", str(tmp_path / "e.pem"), "--encrypt")
    assert empty.code == 2
    # at the option that asked for it (a review: said at [--out], the new key file's option)
    assert empty.err.startswith("refused: ATTEST-KEY-PASSPHRASE-MISSING [--encrypt]: ")
    assert not (tmp_path / "e.pem").exists()


def _read_until(fd: int, marker: bytes | None, seen: bytes, start: int | None = None) -> bytes:
    """What the terminal shows, read until `marker` shows after what was `seen` (from `start`
    in it, when given: a read may have taken more than the last marker; None: until the
    process closes it)."""
    import select

    start = len(seen) if start is None else start
    while marker is None or marker not in seen[start:]:
        ready, _, _ = select.select([fd], [], [], 30)
        if not ready:
            raise AssertionError(f"waited for {marker!r}; the terminal showed {seen!r}")
        try:
            chunk = os.read(fd, 1024)
        except OSError:  # the other end closed: Linux says EIO
            chunk = b""
        if not chunk:
            if marker is None:
                return seen
            raise AssertionError(f"closed before {marker!r}; the terminal showed {seen!r}")
        seen += chunk
    return seen


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals here")
def test_on_a_terminal_keygen_asks_twice_without_echo(tmp_path: Path) -> None:
    """With no passphrase in the environment, a terminal is asked (a real one: a pty that is
    the process's controlling terminal), the passphrase never echoed."""
    typed = b"typed on a terminal"
    code, shown = _on_a_terminal(
        ["keygen", "--out", "k.pem", "--encrypt"], [typed, typed], tmp_path
    )
    assert code == 0, shown
    assert b"passphrase of the new signing key" in shown
    assert b"the same passphrase again" in shown
    assert typed not in shown
    assert load_private_key(tmp_path / "k.pem", _Asked(typed))


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals here")
def test_a_new_keys_passphrase_too_short_is_asked_again_and_refused_from_the_environment(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A walkthrough: `keygen --encrypt` took the passphrase `a`, which anyone holding the key
    file finds by trying them all. Typed, it is asked again, saying why, and never shown; set in
    the environment, it is a usage error and nothing is written. A key already made under a
    short one still opens (the rule is for new keys)."""
    code, shown = _on_a_terminal(
        ["keygen", "--out", "k.pem", "--encrypt"],
        [b"short", b"long enough", b"long enough"],
        tmp_path,
        # getpass drops what is typed before it asks: each answer waits for its own prompt
        prompts=[b"more): ", b"more): ", b"again: "],
    )
    assert code == 0, shown
    assert b"(8 characters or more)" in shown
    assert b"Error: a new signing key's passphrase needs 8 bytes or more" in shown
    assert b"short" not in shown.replace(b"shorter", b"")
    assert load_private_key(tmp_path / "k.pem", _Asked(b"long enough"))
    monkeypatch.setenv("AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE", "7 bytes")
    refused = cli("keygen", "--out", str(tmp_path / "e.pem"), "--encrypt")
    assert refused.code == 64
    assert "needs 8 bytes or more" in refused.err
    assert "7 bytes" not in refused.err
    assert not (tmp_path / "e.pem").exists()
    old = generate_key_files(tmp_path / "old.pem", _Asked(b"a"))
    assert old.public_path.exists()
    assert load_private_key(tmp_path / "old.pem", _Asked(b"a"))


def _on_a_terminal(
    argv: list[str],
    answers: list[bytes],
    tmp_path: Path,
    passphrase_env: str | None = None,
    prompts: list[bytes] | None = None,
) -> tuple[int, bytes]:
    """Run the command on a pty (stdin and stderr), answering each prompt in turn (each
    known by its end, `prompts`, else `: `); its exit code and what the terminal showed.
    `passphrase_env`: the variable's value, if set."""
    leader, follower = os.openpty()
    env = {k: v for k, v in os.environ.items() if k != "AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE"}
    if passphrase_env is not None:
        env["AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE"] = passphrase_env
    # a session of its own whose controlling terminal is the pty, as a user's (getpass opens
    # /dev/tty, and falls back to stdin, echoing, where there is none); Ctrl-C raising as in a
    # user's shell, even when the tests run in the background, where SIGINT is ignored and a
    # child keeps it so (the Ctrl-C case then waited out its 60 s)
    code = (
        "import fcntl, signal, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
        "signal.signal(signal.SIGINT, signal.default_int_handler); "
        "from converter.entry import main; main()"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *argv],
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=follower,
        env=env,
        cwd=tmp_path,
        start_new_session=True,
    )
    os.close(follower)
    seen = b""
    at = 0  # where the next marker is looked for: one read may hold a newline and a prompt
    try:
        for answer, prompt in zip(answers, prompts or [b": "] * len(answers), strict=True):
            seen = _read_until(leader, prompt, seen, at)
            at = seen.index(prompt, at) + len(prompt)
            os.write(leader, answer + b"\n")
            seen = _read_until(leader, b"\n", seen, at)
            at = seen.index(b"\n", at) + 1
        proc.communicate(timeout=60)
        seen = _read_until(leader, None, seen)
    finally:
        os.close(leader)
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, seen


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals here")
def test_a_passphrase_typed_in_bytes_the_terminal_cannot_decode_is_a_usage_error(
    tmp_path: Path,
) -> None:
    """A review: bytes that are not the terminal's text (getpass decodes strictly) were an
    internal error (70), and `--debug`'s traceback quoted a byte of the passphrase and where."""
    code, shown = _on_a_terminal(
        ["--debug", "keygen", "--out", "k.pem", "--encrypt"], [b"ab\xff\xfecd"], tmp_path
    )
    assert code == 64, shown
    assert b"set its bytes in $AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE" in shown
    assert b"Traceback" not in shown
    assert b"0xff" not in shown
    assert not (tmp_path / "k.pem").exists()


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals here")
@pytest.mark.parametrize(
    ("typed", "code", "said"),
    [
        (b"\x04", 64, b"no passphrase was typed (the input ended)"),
        (b"\x03", 130, b"interrupted: nothing was written"),
    ],
    ids=["ctrl-d", "ctrl-c"],
)
def test_the_input_ending_at_the_passphrase_prompt_is_a_usage_error(
    tmp_path: Path, typed: bytes, code: int, said: bytes
) -> None:
    """Was: Ctrl-D at the prompt said `interrupted: nothing was written`, exit 130, as if the
    run had been stopped; no passphrase was given, which is the user's input to fix (64). A
    Ctrl-C there is still an interrupt."""
    done, shown = _on_a_terminal(["keygen", "--out", "k.pem", "--encrypt"], [typed], tmp_path)
    assert done == code, shown
    assert said in shown
    assert not (tmp_path / "k.pem").exists()


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals here")
def test_an_empty_passphrase_variable_leaves_the_terminal_to_ask(tmp_path: Path) -> None:
    """An empty $AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE counts as unset (an unset CI secret
    expands to nothing): on a terminal the passphrase is still asked, not refused as missing."""
    typed = b"typed on a terminal"
    code, shown = _on_a_terminal(
        ["keygen", "--out", "k.pem", "--encrypt"], [typed, typed], tmp_path, passphrase_env=""
    )
    assert code == 0, shown
    assert b"passphrase of the new signing key" in shown
    assert load_private_key(tmp_path / "k.pem", _Asked(typed))


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals here")
def test_a_passphrase_typed_longer_than_openssl_reads_is_refused(tmp_path: Path) -> None:
    """The 1,023-byte limit holds for a typed passphrase as for the variable's: was checked
    on one path only, and a long one typed would be cryptography's ValueError (exit 70)."""
    typed = b"a" * 1024
    code, shown = _on_a_terminal(
        ["keygen", "--out", "k.pem", "--encrypt"], [typed, typed], tmp_path
    )
    assert code == 64, shown
    assert b"longer than 1,023 bytes" in shown
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals here")
def test_with_standard_error_redirected_the_terminal_is_not_asked(tmp_path: Path) -> None:
    """A terminal on standard input alone is not a person to ask (`2>log`, a CI step with a
    tty on stdin): the prompt would be lost in the log and the run wait. No passphrase in the
    environment is then ATTEST-KEY-PASSPHRASE-MISSING, at once."""
    leader, follower = os.openpty()
    env = {k: v for k, v in os.environ.items() if k != "AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE"}
    code = (
        "import fcntl, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
        "from converter.entry import main; main()"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "keygen", "--out", "k.pem", "--encrypt"],
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tmp_path,
        start_new_session=True,
    )
    os.close(follower)
    try:
        _, err = proc.communicate(timeout=20)  # asked, it would wait for an answer
    finally:
        os.close(leader)
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 2, err
    assert b"ATTEST-KEY-PASSPHRASE-MISSING" in err
    assert b"passphrase of the new signing key" not in err
    assert list(tmp_path.iterdir()) == []


def test_a_passphrase_longer_than_openssl_reads_is_refused_before_anything_is_written(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review: 1,100 bytes made keygen --encrypt exit 70 (cryptography's ValueError)."""
    monkeypatch.setenv("AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE", "a" * 1024)
    result = cli("keygen", "--out", str(tmp_path / "k.pem"), "--encrypt")
    assert result.code == 64
    assert "longer than 1,023 bytes" in result.err
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setenv("AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE", "a" * 1023)
    assert cli("keygen", "--out", str(tmp_path / "k.pem"), "--encrypt").code == 0


def test_keygen_encrypt_asks_nothing_for_a_folder_that_is_not_there(tmp_path: Path) -> None:
    """A review: the passphrase was asked twice, then ATTEST-KEY-UNWRITABLE."""
    asked = _Asked(b"correct horse")
    with pytest.raises(SigningKeyRefused) as raised:
        generate_key_files(tmp_path / "missing" / "k.pem", asked)
    assert _code(raised) == "ATTEST-KEY-UNWRITABLE"
    assert asked.times == 0


def test_keygen_says_a_passphrase_set_without_encrypt_does_not_encrypt(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE", "meant for this")
    result = cli("keygen", "--out", str(tmp_path / "k.pem"))
    assert result.code == 0
    assert "without --encrypt the key is not encrypted" in result.err
    assert (tmp_path / "k.pem").read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert "meant for this" not in result.out + result.err


def test_keygen_gives_the_notice_only_where_the_passphrase_goes_unused(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notice that the variable does not encrypt is for keygen without --encrypt and a
    passphrase set: with --encrypt it is used, and an empty one is unset (as an unset CI
    secret expands), so neither says it."""
    monkeypatch.setenv("AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE", "meant for this")
    encrypted = cli("keygen", "--out", str(tmp_path / "k.pem"), "--encrypt")
    assert encrypted.code == 0, encrypted.err
    assert "notice" not in encrypted.err
    monkeypatch.setenv("AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE", "")
    plain = cli("keygen", "--out", str(tmp_path / "p.pem"))
    assert plain.code == 0, plain.err
    assert "notice" not in plain.err


_P = 2**255 - 19


@pytest.mark.parametrize(
    "raw",
    [
        bytes([1]) + bytes(31),  # the identity: R = identity, S = 0 signs every message
        bytes(32),  # y = 0: order 4
        (_P - 1).to_bytes(32, "little"),  # y = -1: order 2
        (_P + 1).to_bytes(32, "little"),  # the identity, non-canonical (y >= p)
        (2).to_bytes(32, "little"),  # y = 2: no point of the curve
        # the rest of the 8 small-order points (libsodium's blocklist): order 4 with x's
        # sign set, and the four of order 8
        bytes(31) + bytes([0x80]),
        bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),
        bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa"),
        bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),
        bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85"),
        # y = p + 3: a non-canonical encoding of a point of large order (y = 3 is one)
        (_P + 3).to_bytes(32, "little"),
    ],
)
def test_a_weak_public_key_is_refused(tmp_path: Path, raw: bytes) -> None:
    """Under a small-order key OpenSSL accepts forged signatures; no keygen writes one."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    pem = Ed25519PublicKey.from_public_bytes(raw).public_bytes(
        Encoding.PEM, PublicFormat.SubjectPublicKeyInfo
    )
    with pytest.raises(SigningKeyRefused) as raised:
        load_public_key(_write(tmp_path / "k.pem.pub", pem, 0o644))
    assert _code(raised) == "ATTEST-PUBLIC-KEY-INVALID"


def test_generated_public_keys_are_not_weak(tmp_path: Path) -> None:
    for n in range(200):
        key = Ed25519PrivateKey.generate().public_key()
        assert load_public_key(_write(tmp_path / f"{n}.pem.pub", public_pem(key), 0o644)) == key
