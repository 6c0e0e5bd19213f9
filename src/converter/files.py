"""Files in and out. An input is read whole, or refused with the caller's code (never its path).
An output is written to a temporary file in the target folder and renamed on success: a refused
or crashed run leaves nothing behind, and an output never overwrites an input."""

from __future__ import annotations

import codecs
import contextlib
import errno
import json
import os
import re
import signal
import stat
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO, Protocol

from converter.errors import Problem, Refused
from converter.regular import NotRegularFile, file_identity, open_regular


class NotRegular(Exception):
    """What a path names is not a regular file (a folder, a FIFO, a device, a socket)."""


def read_regular(path: Path, limit: int | None) -> tuple[bytes, os.stat_result]:
    """The bytes of the regular file `path` names (through a symbolic link), at most
    `limit + 1` of them when a limit is given, and its status; NotRegular for anything else, an
    OSError when it cannot be read. The file is checked before it is opened, so no device or
    FIFO is ever opened, and the file opened is checked to be that one (`regular.py`). Every
    input file given whole is read here: contracts, bundles, cards, keys, attestations."""
    try:
        stream = open_regular(path)
    except NotRegularFile:
        raise NotRegular from None
    with stream:
        return stream.read() if limit is None else stream.read(limit + 1), os.fstat(stream.fileno())


# Where a refusal of an input is, when nothing is at its path: the path itself is never said.
NO_FILE = "no such file"


def read_input(
    path: Path,
    code: str,
    *,
    empty_is_missing: bool = False,
    at_most: int | None = None,
    too_large: str | None = None,
    folder: str | None = None,
    not_json: str | None = None,
) -> bytes:
    """An input file's bytes, or a refusal with `code` (never the path) when it cannot be read
    (or, with `empty_is_missing`, holds nothing: a write or download that never happened).
    With `at_most`, a larger file is refused with `too_large`, read no further than that; with
    `folder`, a folder given for the file is refused with that code; with `not_json`, a file
    that can be no JSON by its first bytes (`_not_json_line`) is refused with that code, at
    that line, before it is read whole (a robustness probe: a 3 GB file of NULs given as a
    bundle took 6 GB of memory and 40 s to be called no bundle)."""
    try:
        if not_json is not None and (line := _not_json_line(path)) is not None:
            raise Refused([Problem(not_json, line=line)])
        data, _ = read_regular(path, at_most)
    except FileNotFoundError:  # the commonest slip, said as such (a walkthrough: "could not
        # be read, or is not valid strict JSON" for a path typed from the wrong folder)
        where = None if empty_is_missing else NO_FILE  # a code for "missing" says it already
        raise Refused([Problem(code, where=where)]) from None
    except (NotRegular, OSError, ValueError):  # ValueError: a NUL in the path
        if folder is not None and _is_folder(path):
            raise Refused([Problem(folder)]) from None
        raise Refused([Problem(code)]) from None
    if empty_is_missing and not data:
        raise Refused([Problem(code)])
    if at_most is not None and len(data) > at_most:
        raise Refused([Problem(too_large or code)])
    return data


def read_bundle(path: Path) -> bytes:
    """A bundle file's bytes, or its refusal: unreadable, a folder, or no JSON by its first
    bytes (BUNDLE-NOT-A-BUNDLE, before it is read whole). A signed one is read by
    `attest.signed.read_signed_bundle`."""
    return read_input(path, "BUNDLE-UNREADABLE", folder="BUNDLE-IS-FOLDER", not_json=NOT_A_BUNDLE)


def read_contract_file(path: Path) -> bytes:
    """A contract file's bytes, or CONTRACT-UNREADABLE (no JSON by its first bytes too, at
    that line)."""
    return read_input(path, "CONTRACT-UNREADABLE", not_json="CONTRACT-UNREADABLE")


NOT_A_BUNDLE = "BUNDLE-NOT-A-BUNDLE"
_JSON_SPACE = b" \t\r\n"
_JSON_STARTS = frozenset(b'{["-0123456789tfn')


def _not_json_line(path: Path) -> int | None:
    """The line of the file's first byte past a UTF-8 byte-order mark and white space, when
    that byte can start no JSON text (or of a NUL byte in the block it starts); None when it
    can, when there is none, for UTF-16 text (whose readers say what it is), and for what is
    not a regular file (reading it whole says why, with the caller's codes). Read a block at a
    time, never held whole."""
    line = 1
    try:
        with open_regular(path) as stream:
            block = stream.read(1 << 16)
            if block.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
                return None
            block = block.removeprefix(codecs.BOM_UTF8)
            while block:
                rest = block.lstrip(_JSON_SPACE)
                line += block.count(b"\n", 0, len(block) - len(rest))
                if rest:
                    if rest[0] not in _JSON_STARTS:
                        return line
                    # JSON holds no NUL byte (a control character is escaped in a string): a
                    # file that does is none, though it starts like one (a re-probe: `{`, then
                    # 3 GB of a sparse file's NULs, was read whole)
                    nul = rest.find(b"\0")
                    return None if nul < 0 else line + rest.count(b"\n", 0, nul)
                block = stream.read(1 << 16)
    except OSError:
        return None
    return None


def _is_folder(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _resolved(path: Path) -> Path:
    """`path` with its links followed, or as given when they cannot be (a loop of symbolic
    links, which Python 3.11 raises as RuntimeError; a folder that cannot be searched)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def same_file(one: Path, other: Path) -> bool:
    """Whether two paths name one file (a link or another name of it)."""
    return _same_as_any(one, [other])


def labelled_outcomes(path: Path) -> int:
    """How many task outcomes a conversion contract at `path` has labelled (any value set, as
    `--from-contract` carries them): 0 for anything else, or a file that cannot be read as one.
    Hours of labelling a replaced template would lose (OUT-FILLED-CONTRACT)."""
    if _evidence_kind(path) != "conversion-contract":  # looked into in chunks, never held
        return 0
    limit = 256 << 20
    try:
        data, _ = read_regular(path, limit)
        document = json.loads(data) if len(data) <= limit else None
    except (NotRegular, OSError, ValueError, RecursionError):  # not a contract: nothing to lose
        return 0
    claims = document.get("claims") if isinstance(document, dict) else None
    outcomes = claims.get("outcomes") if isinstance(claims, dict) else None
    if not isinstance(outcomes, dict):
        return 0
    return sum(
        isinstance(o, dict) and any(v is not None for v in o.values()) for o in outcomes.values()
    )


def _same_as_any(out: Path, sources: list[Path]) -> bool:
    """Whether `out` is one of `sources`: the same file (a link or another name of it), or,
    where neither has an identity (`regular.file_identity`), the same path once resolved. One
    stat per source: a tree binds thousands of files, and resolving each (a system call per
    part of its path) took 0.14 s of `convert` on the bench tree."""
    own = file_identity(out)
    target: Path | None = None
    for source in sources:
        theirs = file_identity(source)
        if own is not None or theirs is not None:  # a file is never a path with no identity
            if own == theirs:
                return True
            continue
        if target is None:
            target = _resolved(out)
        if _resolved(source) == target:
            return True
    return False


def home_folder() -> Path | None:
    """The user's home folder, or None when there is none to use: $HOME unset with no passwd
    entry (`docker run -u 12345`), or set to a path that is not absolute (empty, relative),
    which would put what is kept there in whatever folder a command runs in."""
    given = os.environ.get("HOME")
    if given is not None and not os.path.isabs(given):  # an empty one would be read as `/`
        return None
    try:
        home = Path.home()
    except RuntimeError:
        return None
    return home if home.is_absolute() else None


def ask(test: Callable[[], bool], *, too_long_is_absent: bool = False) -> bool | None:
    """`Path.is_file()`, `is_dir()` or `exists()`, or None where the answer cannot be had:
    Python 3.11 raises EACCES from them (a path inside a folder that cannot be searched) and
    RuntimeError for a loop of links. A name longer than the system allows stays an OSError,
    which the CLI says as a usage error, unless `too_long_is_absent` (a name derived from one
    the user gave, such as `<bundle>.intoto.json`, that cannot exist)."""
    try:
        return test()
    except OSError as error:
        if error.errno == errno.ENAMETOOLONG:
            if too_long_is_absent:
                return False
            raise
        return None
    except RuntimeError:
        return None


_PSEUDONYM_KEY = re.compile(rb"[0-9a-fA-F]{64}\r?\n?")


def _holds_key(path: Path) -> bool:
    """Whether an existing file is a key: a PEM key or key block, or a pseudonym key (64 hex
    characters). A mistyped `--report` or `--out` must not replace one: nothing restores it."""
    try:
        with path.open("rb") as handle:
            head = handle.read(80)
    except OSError:
        return False
    pem = head.lstrip().startswith(b"-----BEGIN") and b"KEY" in head
    return pem or _PSEUDONYM_KEY.fullmatch(head) is not None


def _not_a_plain_file(path: Path) -> bool:
    """Whether something other than a regular file is at `path`: a symlink (even to a regular
    file), a FIFO, a device, a socket or a folder. An output is renamed into place, and a rename
    replaces what it lands on: `--report /dev/stdout` run as root replaced the /dev/stdout
    link, `--report /dev/full` the device, a FIFO became a file its reader never saw."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False  # nothing there (or nothing we can see): the write itself will tell
    return not stat.S_ISREG(mode)


_EVIDENCE = re.compile(rb'"schema_version"\s*:\s*"agent-evidence/(bundle|conversion-contract)/')
_CHUNK = 8 * 2**20
_OVERLAP = 256  # longer than any match, so one across two chunks is still seen


_ENVELOPE = re.compile(rb'"payloadType"\s*:')


def _evidence_kind(path: Path) -> str | None:
    """What an existing file is, when it is something an output must not lightly replace:
    `bundle` or `conversion-contract` (by its schema_version), `attestation` (a DSSE envelope:
    nobody without the signing key can make it again), `transcript` (a `.jsonl` file: no
    output of this tool is one, and a session's transcript is the source of everything), or
    a team's `policy-file` or a `price-card` (`_settings_kind`). A
    filled contract is hours of labelling; a bundle is the evidence itself. Read in chunks: a
    bundle of any size is looked into, never held whole."""
    if path.suffix == ".jsonl":
        return "transcript"
    tail = b""
    chunks: list[bytes] = []  # the first, while it is the whole file
    try:
        with path.open("rb") as handle:
            # An envelope's `payloadType` follows its whole payload (the signed receipt: one
            # entry per bound file), so it is looked for in all of it, not in a first block.
            envelope = handle.read(4096).lstrip().startswith(b"{")
            handle.seek(0)
            while chunk := handle.read(_CHUNK):
                chunks = [] if tail else [chunk]
                window = tail + chunk
                if envelope and _ENVELOPE.search(window):
                    return "attestation"
                found = _EVIDENCE.search(window)
                if found:
                    return found.group(1).decode()
                tail = chunk[-_OVERLAP:]
    except OSError:
        return None
    return _settings_kind(chunks[0]) if chunks else None


# A team's `--policy` file holds only claim sections; a price card, its own fields. Both are
# small, and chosen before any result is seen: a `--report` or `--out` typed where `--policy`
# was meant replaced one without a word (a walkthrough).
_POLICY_SECTIONS = frozenset({"policy", "baseline", "outcome_contract"})
_CARD_FIELDS = frozenset({"id", "effective_date", "source", "models"})
_SETTINGS_MAX = 2**20


def _settings_kind(data: bytes) -> str | None:
    """`policy-file` or `price-card` for a small JSON document of that shape, else None (the
    bytes `_evidence_kind` read already: a file of one chunk)."""
    if len(data) > _SETTINGS_MAX:
        return None
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, dict) or not doc:
        return None
    if set(doc) <= _POLICY_SECTIONS:
        return "policy-file"
    if set(doc) >= _CARD_FIELDS:
        return "price-card"
    return None


def attestation_path(bundle: Path) -> Path:
    """Where a bundle's attestation lies: beside it, its name plus `.intoto.json`."""
    return Path(f"{bundle}.intoto.json")


def is_attestation(path: Path) -> bool:
    """Whether a regular file at `path` is a DSSE envelope (`_evidence_kind`)."""
    return not _not_a_plain_file(path) and _evidence_kind(path) == "attestation"


def check_outputs(
    outputs: list[Path],
    inputs: list[Path],
    may_replace: tuple[str, ...] = (),
    role: str | None = None,
    in_tree: Callable[[Path], bool] | None = None,
    option: str | None = None,
) -> None:
    """Refuse before any work when an output would replace an input, another output, a key,
    anything that is not a regular file, or a bundle or conversion contract of a kind not in
    `may_replace` (`_evidence_kind`: a bundle may replace a bundle, the same conversion run
    again, and an attestation an attestation; a report replaces none), or be written where
    `in_tree` says a session tree is (`sources.tree.in_session_folder`). `role` is said with
    each problem; `option`, the option that named the output (`--out`), with a folder it cannot
    be written in (a new-user audit: which of a command's outputs was not said), and with every
    other problem when there is no `role` (OUT-IN-SESSION-TREE was said with no place)."""
    problems = []
    for out in outputs:
        if _same_as_any(out, inputs):
            problems.append(Problem("OUT-SAME-AS-INPUT"))
        elif in_tree is not None and in_tree(out):
            problems.append(Problem("OUT-IN-SESSION-TREE"))
        elif _not_a_plain_file(out):
            problems.append(Problem("OUT-NOT-A-FILE"))
        elif ask(out.is_file) and (kind := _evidence_kind(out)) and kind not in may_replace:
            problems.append(Problem("OUT-REPLACES-EVIDENCE"))
        elif ask(out.is_file) and _holds_key(out):
            problems.append(Problem("OUT-REPLACES-KEY"))
        parent = out.parent if str(out.parent) else Path(".")
        if not ask(parent.is_dir) or not os.access(parent, os.W_OK | os.X_OK):
            problems.append(Problem("OUT-UNWRITABLE", where=option))
    if len({_resolved(o) for o in outputs}) != len(outputs):
        problems.append(Problem("OUT-SAME-AS-INPUT"))
    if problems:
        # `role`: which output, where the user named none of them (the attestation beside
        # --out); not of its folder, which is --out's too (said once)
        named = [
            p if p.code == "OUT-UNWRITABLE" else replace(p, where=role or option) for p in problems
        ]
        raise Refused(named)


class NotCreated(Exception):
    """`create_exclusive` made no file: `exists` when something is already at the path,
    `code` the refusal's (`exists_code` then, else OUT-NO-SPACE for a full disk or quota,
    else `unwritable_code`)."""

    def __init__(self, exists: bool, no_space: bool = False) -> None:
        super().__init__("exists" if exists else "unwritable")
        self.exists = exists
        self.no_space = no_space

    def code(self, exists_code: str, unwritable_code: str) -> str:
        if self.exists:
            return exists_code
        return "OUT-NO-SPACE" if self.no_space else unwritable_code


def create_exclusive(path: Path, data: bytes, mode: int) -> None:
    """A new file (a key) that must not exist yet, a symlink not followed, its bytes on disk
    before it counts as made: a write that fails (a full disk, a size limit) or is interrupted
    removes it, so no empty key is left to be refused ever after as invalid and existing."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    except FileExistsError:
        raise NotCreated(exists=True) from None
    except OSError as error:
        raise NotCreated(exists=False, no_space=error.errno in _NO_SPACE) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException as stopped:
        with contextlib.suppress(OSError):
            path.unlink()
        if isinstance(stopped, OSError):
            # a full disk said as such (a robustness probe: "folder missing or not writable")
            raise NotCreated(exists=False, no_space=stopped.errno in _NO_SPACE) from None
        raise


def _stage_prefix(path: Path) -> str:
    """The staged file's name begins with the output's, cut to 100 bytes: a name the file
    system takes (up to 255 bytes) must not fail for the 14 the staging adds."""
    cut = os.fsencode(path.name)[:100].decode("utf-8", "ignore")
    return f".{cut}."


class Chunked(Protocol):
    """Bytes too large to hold twice, written a chunk at a time (`bundle.spool.SealedBytes`)."""

    def chunks(self) -> Iterator[bytes | bytearray]: ...


Output = bytes | bytearray | Chunked


def write_atomic(path: Path, data: Output, option: str | None = None) -> None:
    """One output, staged in its folder and renamed into place (`write_all_atomic`); `option`,
    the one that names it, where a failed write is said."""
    write_all_atomic([(path, data)], options=(option,))


def spill_file(folder: Path) -> IO[bytes] | None:
    """An unnamed file in `folder` (the output's, so the bytes stay on its disk) to build a large
    output in, rather than in memory; gone with its last handle, an interrupt's or a crash's
    included. None where none can be made there: the output is then built in memory, and its
    write says what is wrong with the folder."""
    try:  # unbuffered: a write that fails, fails where it is made (`bundle.spool._write_all`)
        return tempfile.TemporaryFile(dir=folder, buffering=0)
    except OSError:
        return None


def write_refused(error: OSError, where: str | None = None) -> Refused:
    """The refusal for an output that could not be written: no room (the disk, a quota, the
    largest file allowed), which is not the folder's fault, or the folder; said at `where`, the
    option that names the output (a resource audit: a full disk named none of two outputs)."""
    code = "OUT-NO-SPACE" if error.errno in _NO_SPACE else "OUT-UNWRITABLE"
    return Refused([Problem(code, where=where)])


# How many outputs this process has put in place. An interrupt that lands after them must not
# be told "nothing was written" (cli/main.py): the files are there, whole.
_written = [0]


def written_count() -> int:
    return _written[0]


def count_written(outputs: int) -> None:
    """Outputs put in place, whole, other than by `write_all_atomic` (keys): an interrupt or a
    failed standard output after them says they are there."""
    _written[0] += outputs


# A write that failed for want of room: the disk, the user's quota, the largest file allowed.
_NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})

# The stops a CI runner, `timeout`, `docker stop` or a closed terminal send, where the platform
# has them; with Ctrl-C, every stop a run holds through its write and says (cli/main.py).
RUNNER_STOPS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)
_STOPS = (signal.SIGINT, *RUNNER_STOPS)


def _hold_interrupts() -> set[int | signal.Signals] | None:
    """From here a stop (Ctrl-C, SIGTERM, SIGHUP) waits (POSIX): the previous mask, for
    `_release_interrupts`."""
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, set(_STOPS))


def _release_interrupts(held: set[int | signal.Signals] | None) -> None:
    """Stops land again; one that came meanwhile is raised now. (`held` is None also when the
    hold itself was interrupted: they are unblocked all the same, nothing here blocks them
    else.)"""
    if hasattr(signal, "pthread_sigmask"):
        again = {s for s in _STOPS if held is None or s not in held}
        if again:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, again)


def _keep_old(path: Path) -> str | None:
    """A second name (a hard link in the same folder) for the file an output is about to
    replace, so a later failure can put it back; None when nothing is there or the folder
    makes no links (the output is then removed on failure, the old file not restored)."""
    if not os.path.lexists(path):
        return None
    folder = path.parent if str(path.parent) else Path(".")
    for _ in range(8):
        kept = str(folder / f"{_stage_prefix(path)}{os.urandom(6).hex()}.old")
        try:
            os.link(path, kept, follow_symlinks=False)
        except FileExistsError:
            continue
        except OSError:
            return None
        return kept
    return None


def _take_back(staged: list[tuple[str, Path]], kept: dict[Path, str | None]) -> None:
    """Undo a failed write: remove each staged file; an output already renamed into place is
    removed too, and the file it replaced, when one was kept, is put back under its name (if
    even that rename fails, the output goes and the old file stays under its second name)."""
    for tmp, path in staged:
        with contextlib.suppress(OSError):
            if os.path.lexists(tmp):
                os.unlink(tmp)
                continue
            old = kept.pop(path, None)
            if old is not None:
                try:
                    os.replace(old, path)
                    continue
                except OSError:  # the old file stays under its second name: never deleted
                    pass
            os.unlink(path)
    _drop_kept(kept)


def _drop_kept(kept: dict[Path, str | None]) -> None:
    for old in kept.values():
        if old is not None:
            with contextlib.suppress(OSError):
                os.unlink(old)


def _new_file_mode() -> int:
    """The mode `open` would give a new file under the user's umask (mkstemp's staged file is
    0600 whatever it is): a determinism audit found every output 0644, under umask 077 too."""
    mask = os.umask(0o077)
    os.umask(mask)
    return 0o666 & ~mask


def write_all_atomic(
    files: list[tuple[Path, Output]],
    removing: tuple[Path, ...] = (),
    options: tuple[str | None, ...] = (),
) -> None:
    """Write several outputs as one, and remove the files in `removing` (a stale attestation
    beside a new bundle) with them. Ctrl-C is held from the first staged byte to the last
    removal: an interrupt lands before any of it (nothing written) or after all of it (every
    output whole and counted in `written_count`), never between two steps. A write or rename
    that fails removes the staged files and any output already renamed, and puts back the file
    such an output had replaced (kept under a second name until every rename is done). A
    failure is said at the option of the output it failed on (`options`, in `files`' order)."""
    staged: list[tuple[str, Path]] = []
    at = 0  # the output being written or renamed
    mode = _new_file_mode()  # the umask read once for every output, not once each
    kept: dict[Path, str | None] = {}
    held = _hold_interrupts()
    try:
        try:
            for at, (path, data) in enumerate(files):  # noqa: B007 (`at` is read on failure)
                folder = path.parent if str(path.parent) else Path(".")
                fd, tmp = tempfile.mkstemp(prefix=_stage_prefix(path), suffix=".tmp", dir=folder)
                staged.append((tmp, path))
                with os.fdopen(fd, "wb") as handle:
                    for chunk in (data,) if isinstance(data, bytes | bytearray) else data.chunks():
                        handle.write(chunk)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.chmod(tmp, mode)
            for at, (tmp, path) in enumerate(staged):  # noqa: B007
                if len(staged) > 1:  # one output alone has nothing to be undone after it
                    kept[path] = _keep_old(path)
                os.replace(tmp, path)
        except BaseException as stopped:  # an interrupt pending before the hold too
            _take_back(staged, kept)
            if not isinstance(stopped, OSError):
                raise
            option = options[at] if at < len(options) else None
            raise write_refused(stopped, option) from None  # (no room: an operations review)
        _drop_kept(kept)
        for path in removing:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        _written[0] += len(staged)
    finally:
        _release_interrupts(held)  # a Ctrl-C held meanwhile is raised here, after it all
