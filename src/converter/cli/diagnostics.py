"""Diagnostics on stderr: code, fixed message, location, fix. Never a value from an input."""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import sys
from typing import TYPE_CHECKING, TextIO

import click

from converter.errors import CODES, Problem
from converter.errors.codes import BODY_LINE_FIX, INDEX_LINE_FIX, META_LINE_FIX

if TYPE_CHECKING:  # every command imports this module; only inspect passes an account
    from converter.firewall.pseudonyms import Pseudonymizer
    from converter.reader.model import Account


# What a failed write of click's own output (help, version) can raise that is the machine's
# doing, not a bug: a full disk or device, a quota, a reader that closed the pipe (`| head -1`).
# (An input read that fails raises others, EIO or EBADF, with no file name either: not listed.)
OUTPUT_ERRNOS = frozenset({errno.EPIPE, errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


class StdoutFailed(Exception):
    """A command's output could not be written to stdout (cli/main.py: OUT-STDOUT-FAILED, 2).
    Not an OSError: click's own handler would take a closed pipe and exit 1, a code this tool
    does not have."""


def say(message: str = "") -> None:
    """A command's output line on stdout; every command writes its stdout through here. Any
    failure to write it is the output's (a closed pipe, a full disk, a descriptor opened for
    reading), and so is no stdout at all (started with it closed: click would write nothing)."""
    if sys.stdout is None:
        raise StdoutFailed
    try:
        _write_whole(sys.stdout, message + "\n")
    except OSError:
        raise StdoutFailed from None


def _write_whole(stream: TextIO, text: str) -> None:
    """Every byte of `text`, or an OSError. With PYTHONUNBUFFERED=1 (common in containers and
    CI) stdout's text layer sits on the raw file, writes once, and drops what a partial write
    left: a reader that closed the pipe mid-write (`| head -c 100`) lost the rest without a
    word, and the command exited 0. The bytes go to the binary layer here, in a loop."""
    binary = getattr(stream, "buffer", None)
    if binary is None:  # a test's text-only capture: nothing partial about it
        click.echo(text, nl=False, file=stream)
        return
    stream.flush()  # whatever the text layer holds goes first
    data = memoryview(_encoded(text, stream))
    while data:
        written = binary.write(data)
        if not written:  # a non-blocking descriptor that would block: not an output we can use
            raise OSError(errno.EAGAIN, "stdout would block")
        data = data[written:]
    binary.flush()


def _encoded(text: str, stream: TextIO) -> bytes:
    """`text` in the stream's encoding; UTF-8 where that is ASCII (a C locale,
    PYTHONIOENCODING=ascii), as click takes it to be misconfigured; a character the encoding
    lacks is escaped (`\u2265`), never an error: reports hold `≥`, `–` and `—`."""
    encoding = stream.encoding or "utf-8"
    if codecs.lookup(encoding).name == "ascii":
        encoding = "utf-8"
    try:
        return text.encode(encoding, stream.errors or "strict")
    except UnicodeEncodeError:
        return text.encode(encoding, "backslashreplace")


def tell(message: str) -> None:
    """A line for the person on stderr (a refusal, a notice); every command writes its stderr
    through here. A stderr that cannot be written (a closed pipe: `2>&1 | head -3`, a full disk)
    loses the line, never the exit code, which is what a script reads: it is pointed at the null
    device, so neither the next line nor the interpreter's last flush fails again."""
    try:
        click.echo(message, err=True)
    except UnicodeError:  # a message this stream cannot encode: a bug to see, not a dead stream
        raise
    except (OSError, ValueError):  # ValueError: the stream object itself was closed
        to_null(sys.stderr, 2)


def to_null(stream: TextIO | None, fd: int) -> None:
    """Point a standard stream that cannot be written (its descriptor: `fd` when the stream is
    gone) at the null device, best effort, so no later write or last flush fails again."""
    with contextlib.suppress(OSError, ValueError):
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, stream.fileno() if stream is not None else fd)
        finally:
            os.close(null)


def stderr_is_terminal() -> bool:
    """Whether stderr is a terminal a progress bar may draw on. Python sets `sys.stderr` to
    None when descriptor 2 was closed (`2>&-`): that is no terminal, and never an error. A
    terminal that says it is `dumb` cannot move its cursor: no bar there either."""
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (OSError, ValueError):
        return False


def stdout_unusable() -> bool:
    """Whether stdout is closed or open for reading only: said before any work, so a command
    does not write its output file and then fail to say so."""
    if sys.stdout is None:
        return True
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):  # not a file (a test's capture): usable
        return False
    try:
        import fcntl

        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    except ImportError:  # no fcntl (Windows): a failed write is still caught by `say`
        return False
    except OSError:
        return True
    return flags & os.O_ACCMODE == os.O_RDONLY


def printable(text: str) -> str:
    """`text` with every character a terminal could act on escaped (`\\x1b`, `\\n`, `\\u202e`):
    a file name can hold an escape sequence, a line break that forges another diagnostic, or a
    bidi override; `--show-paths` shows it, it never runs it. A byte of a name that is not
    UTF-8 (held as a lone surrogate, Python's `surrogateescape`) is shown as the byte it is,
    `\\xe9`, as a shell's `$'...'` takes it back (a scan audit: `\\udce9` named no file)."""
    return "".join(_printable_char(ch) for ch in text)


def _printable_char(ch: str) -> str:
    if ch.isprintable():
        return ch
    if "\udc80" <= ch <= "\udcff":  # an undecodable byte of a file name
        return f"\\x{ord(ch) - 0xDC00:02x}"
    return ch.encode("unicode_escape").decode("ascii")


def emit_names(names: list[tuple[str, str]]) -> None:
    """`inspect --show-paths`: each pseudonym with the local name it stands for, so a user can
    price `tool-<hex>` knowing which MCP tool it is. Stderr only, escaped like a path: a local
    name can name a customer's server, and it is as hostile to a terminal as a file name."""
    for public, local in names:
        shown = printable(local) if local else "(none recorded)"
        tell(f"name: {public} = {shown}")


def emit_files(files: list[tuple[str, str]]) -> None:
    """`inspect --show-paths`: the local path of each file a finding's place names (its label
    is all stdout says), on stderr only, escaped like every path shown."""
    for label, path in files:
        tell(f"file: {label} = {printable(path)}")


def emit_parts(parts: list[str]) -> None:
    """`inspect --show-paths`: where the session's other main transcripts are
    (CC-TREE-SPLIT-SESSION), on stderr only, escaped like every path shown."""
    for number, path in enumerate(parts, 1):
        tell(
            f"part: {printable(path)} (another main transcript of this session, {number} of {len(parts)})"
        )


def emit_tasks(tasks: list[tuple[str, int]], whole_session: bool) -> None:
    """`inspect --show-paths`: each task id with where its prompt is, on stderr only, so the
    outcomes a contract lists by id can be labelled knowing which prompt each one is."""
    for number, (task_id, line) in enumerate(tasks, 1):
        where = "the whole session" if whole_session else f"parent line {line}"
        tell(f"task: {task_id} = {where} (task {number} of {len(tasks)})")


def describe(
    code: str,
    where: str | None = None,
    line: int | None = None,
    path: str | None = None,
    *,
    fix: bool = True,
) -> str:
    info = CODES[code]
    location = ""
    if where:
        location = f" [{where}" + (f" line {line}" if line else "") + "]"
    elif line:
        location = f" [line {line}]"
    shown = f" ({printable(path)})" if path else ""
    return f"{code}{location}{shown}: {info.message}" + (f" Fix: {info.fix}" if fix else "")


# Whether the command was given --show-paths: set by the option itself (`remember_show_paths`),
# so an argument that merely reads "--show-paths" (a file so named) shows no path.
_SHOWING_PATHS = [False]


def remember_show_paths(_: click.Context, __: click.Parameter, value: bool) -> bool:
    """The --show-paths option's callback: the refusals main() prints once the command has
    ended show local paths only when the option itself was given."""
    _SHOWING_PATHS[0] = value
    return value


def showing_paths() -> bool:
    return _SHOWING_PATHS[0]


def forget_show_paths() -> None:
    """Before a command runs (tests run many in one process)."""
    _SHOWING_PATHS[0] = False


PER_GROUP = 5  # lines shown per code in one file on stderr; --json lists every one


_BODY_ROLES = ("provider-response/", "provider-index/")
_META_ROLES = ("meta/", "workflow-manifest/")


def _fix(code: str, where: str) -> str:
    """A code's fix, said of the file it is in: a line's refusal (CC-LINE-*) in a provider
    body or the bodies' index, or in a metadata file of the tree, has a fix of its own (the
    codes' own speak of transcripts)."""
    if not code.startswith("CC-LINE-"):
        return CODES[code].fix
    if where.startswith("provider-index/"):
        return INDEX_LINE_FIX  # a line that may be the session's: no original to restore
    if where.startswith(_BODY_ROLES):
        return BODY_LINE_FIX
    if where.startswith(_META_ROLES) and code != "CC-LINE-UTF16":
        return META_LINE_FIX
    return CODES[code].fix


def emit_lines(
    lines: list[tuple[str, str | None, str]], prefix: str = "refused: ", fix: bool = True
) -> None:
    """Print (code, where, message) lines, the message without its fix: a code's description
    and fix follow its first line only (a fresh template's dozens of null claims said the fix
    dozens of times; a policy file differing in 17 fields, the description 17 times), each
    later line of it gives its place, and past PER_GROUP of one code in one file, a count.

    A file that is not a transcript can fail the same check on every line: one hundred
    identical lines hide the other refusals, so the rest of a group is summed up instead. A
    contract's or a bundle's problems each name a field of their own and are all listed.
    """
    shown: dict[tuple[str, str | None], int] = {}
    said: set[str] = set()
    fixed: set[tuple[str, str]] = set()
    described: set[str] = set()
    for code, where, message in lines:
        if message in said:  # the same problem found by two checks (an unwritable folder)
            continue
        said.add(message)
        key = (code, where.split(" line ")[0] if where else None)
        shown[key] = shown.get(key, 0) + 1
        if shown[key] <= PER_GROUP:
            text = _fix(code, where or "")
            told = f" Fix: {text}" if fix and (code, text) not in fixed else ""
            # Each line after a code's first gives its place alone; only the end is replaced
            # (a path --show-paths puts before the description may hold the same words).
            line, meaning = message, f": {CODES[code].message}"
            if code in described and message.endswith(meaning):
                line = message[: -len(meaning)] + ": as above."
            described.add(code)
            fixed.add((code, text))
            tell(prefix + line + told)
    for (code, where), count in shown.items():
        if count > PER_GROUP:
            place = f" [{where}]" if where else ""
            tell(f"{prefix}{code}{place}: ... and {count - PER_GROUP} more")


def emit_problems(
    problems: list[Problem],
    account: Account | None = None,
    pseudo: Pseudonymizer | None = None,
    show_paths: bool = False,
) -> None:
    lines = []
    for problem in problems:
        where = problem.where
        if account and pseudo:
            from converter.firewall.boundary import file_ref

            where = file_ref(pseudo, account, problem) or problem.where
        path = None
        if show_paths:
            if problem.local_path:
                path = problem.local_path
            elif account is not None and problem.file is not None and problem.file >= 0:
                path = account.tree.layout.files[problem.file].rel
        shown = describe(problem.code, where, problem.line, path, fix=False)
        lines.append((problem.code, where, shown))
    emit_lines(lines)
