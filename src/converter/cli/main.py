"""`agent-evidence`: command group and the single place exceptions become exit codes."""

from __future__ import annotations

import errno
import importlib
import os
import re
import signal
import sys
import traceback
from collections.abc import Iterator
from functools import cache, partial
from typing import Any, NoReturn

import click

from converter import __version__
from converter.cli.diagnostics import (
    OUTPUT_ERRNOS,
    StdoutFailed,
    describe,
    emit_lines,
    forget_show_paths,
    showing_paths,
    stdout_unusable,
    tell,
    to_null,
)
from converter.cli.options import NamedGroup
from converter.errors import (
    Exit,
    IntegrityFailure,
    Problem,
    Refused,
)
from converter.files import RUNNER_STOPS, written_count
from converter.heap import cyclic_gc_paused, map_large_blocks

# Each command lives in its own module, imported only when it runs: `inspect` does not pay for
# the cryptography and pricing imports of `convert`, `verify` and `keygen` (12 MB, 0.2 s).
COMMANDS = {
    "inspect": "converter.cli.inspect:inspect",
    "convert": "converter.cli.convert:convert",
    "evaluate": "converter.cli.evaluate:evaluate",
    "verify": "converter.cli.verify:verify",
    "scan": "converter.cli.scan:scan",
    "key": "converter.cli.key:key",
    "keygen": "converter.cli.attest:keygen",
}


# click quotes what a user typed ("Invalid value for '--in': '/home/...'"). SPEC §6.4: a
# diagnostic never quotes a value, and a mistyped path or secret is still one. The typed value is
# masked; option names and the choices click lists are kept.
# click quotes with repr(): '...', or "..." when a value holds a ' (then a " in it is \").
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"")
_INVALID = re.compile(r"(Invalid value for '[^']*'(?: / '[^']*')*: )(.*)", re.S)
_NO_COMMAND = re.compile(r"No such command (?:'[^']*'|\"[^\"]*\")")
# An option name typed is echoed by click ("No such option '--x'"); one not ours is masked, the
# suggestion click adds ("Did you mean --json?") names ours and stays.
_NO_OPTION = re.compile(r"No such option:? ('[^']*'|\"[^\"]*\"|\S+)")
_LEADING_NUMBER = re.compile(r"^[-+]?[0-9][0-9_.,]*(?=\s)")
_EXTRA = re.compile(r"(unexpected extra arguments? )\(.*\)", re.S)


_OPTION = re.compile(r"--?[a-z][a-z0-9-]*")


def _vocabulary() -> frozenset[str]:
    """Words the CLI itself knows: command names and every choice of every option. A typed
    argument equal to one is not a secret, and masking it would blank the list of choices."""
    words = set(COMMANDS)
    for param in _params():
        if isinstance(param.type, click.Choice):
            words.update(str(choice) for choice in param.type.choices)
    return frozenset(words)


def _params() -> Iterator[click.Parameter]:
    """Every parameter of every command, subcommands' included."""
    for name in COMMANDS:
        command = cli.get_command(click.Context(cli), name)
        stack = [command] if command is not None else []
        while stack:
            current = stack.pop()
            if isinstance(current, click.Group):
                stack.extend(current.commands.values())
            yield from current.params


def mask_values(message: str, args: list[str]) -> str:
    """`message` with every argument the user typed masked, option names and words the CLI
    knows kept: where click quotes it (as Python's repr does: either quote, backslash escapes),
    and anywhere at all when it looks like a path or an address. In an "Invalid value for ..."
    message the typed value is also the first quoted token after the fixed head; elsewhere any
    other quoted text that could be a value is masked by its shape."""
    invalid = _INVALID.match(message)  # its head is fixed text and option names: leave it be
    head, rest = invalid.groups() if invalid else ("", message)
    values = [*args, *(_attached(a) for a in args)]
    if invalid:  # click starts a range error with the number it converted, unquoted, in any
        rest = _LEADING_NUMBER.sub("<value>", rest)  # spelling of it ("+0042", "4_2")
    typed = [a for a in set(values) if len(a) >= 3 and not _OPTION.fullmatch(a)]
    known = _vocabulary() if typed else frozenset()
    for arg in sorted(typed, key=len, reverse=True):
        if arg in known:
            continue
        for quoted in {repr(arg), f"'{arg}'", f'"{arg}"', f"({arg})"}:
            rest = rest.replace(quoted, "'<value>'")
        if any(c in arg for c in "/\\@~") and any(c.isalnum() for c in arg):
            rest = rest.replace(arg, "<value>")
    if invalid:
        return head + _QUOTED.sub("'<value>'", rest, count=1)
    rest = _NO_COMMAND.sub("No such command '<value>'", rest)
    rest = _NO_OPTION.sub(_no_option, rest)
    rest = _EXTRA.sub(r"\1(<value>)", rest)

    def mask(match: re.Match[str]) -> str:
        value = match.group(1) if match.group(1) is not None else match.group(2)
        risky = len(value) > 40 or any(c in value for c in "/\\@ ~'\"")
        return "'<value>'" if risky and not value.startswith("-") else match.group(0)

    return _QUOTED.sub(mask, rest)


def _usage_error(bad: click.UsageError, args: list[str]) -> NoReturn:
    """A usage error said with every typed value masked, and what would have been right."""
    if bad.format_message().startswith("Usage: "):  # a group given no command: its help
        tell(bad.format_message())  # (no typed value in it; a review: "usage error: Usage:")
        sys.exit(Exit.USAGE)
    sealed = _sealed_hint(bad)
    hint = _repeat_hint(bad, args) or sealed or _help_hint(bad, args)
    # with a sealed option's hint, not click's nearest name (--public-key): no other way to it
    said = bad.message if sealed else bad.format_message()
    tell(f"usage error: {mask_values(said, args)}{hint}")
    sys.exit(Exit.USAGE)


# What a bundle carries sealed, asked of `evaluate` as an option: where it is changed instead
# (a walkthrough's first try after an INCOMPLETE from min_tasks was `evaluate --policy`, and
# click's nearest option, --public-key, was all it was told).
# evaluate's --policy exists: it requires the team's limits (EVAL-POLICY-MISMATCH says how
# to change a bundle's policy); the prices have no such option
_SEALED = {"--price-card": "its prices"}


def _sealed_hint(bad: click.UsageError) -> str:
    if bad.ctx is None or bad.ctx.command.name != "evaluate":
        return ""
    # the option click refused, not any argument that looks like one (a value, another option)
    name = bad.option_name if isinstance(bad, click.NoSuchOption) else None
    if name not in _SEALED:
        return ""
    return (
        f" ({name}: each bundle carries {_SEALED[name]}, sealed by its contract: "
        f"make a new template with `convert --template NEW.json --from-contract OLD.json "
        f"{name} ...`, then `convert --contract NEW.json` again)"
    )


def _help_hint(bad: click.UsageError, args: list[str]) -> str:
    """Where the options are listed: the command's own `-h`, named by this program's words
    (its command names), never by how it was invoked (`argv[0]` may be a path)."""
    if "No such command" in bad.format_message():  # it lists the commands already
        return ""
    names: list[str] = []
    ctx = bad.ctx
    while ctx is not None and ctx.parent is not None:
        names.insert(0, ctx.command.name or "")
        ctx = ctx.parent
    if bad.ctx is None:  # a parser error (`--in` with no value, `--json=1`) carries no context
        names = _command_path(args)
    return f" (`{' '.join(['agent-evidence', *names])} -h` lists the options)"


def _command_path(args: list[str]) -> list[str]:
    """The command names at the head of `args` (options skipped), as this program spells them:
    only a name one of its groups has is taken, so nothing typed otherwise is echoed."""
    path: list[str] = []
    command: click.Command = cli
    for arg in args:
        if arg.startswith("-"):
            continue
        if not isinstance(command, click.Group):
            break
        with click.Context(command) as ctx:
            found = command.get_command(ctx, arg) if arg in command.list_commands(ctx) else None
        if found is None:
            break
        path.append(arg)
        command = found
    return path


def _repeat_hint(bad: click.UsageError, args: list[str]) -> str:
    """For extra arguments right after the value of an option that takes many (`evaluate
    --bundle a.json b.json`, as a shell's glob gives them): that it is given once per value."""
    command = bad.ctx.command if bad.ctx is not None else None
    if command is None or not _EXTRA.search(bad.format_message()):
        return ""
    for param in command.params:
        if not (isinstance(param, click.Option) and param.multiple):
            continue
        for at, arg in enumerate(args):  # the option, its value, then another value
            attached = any(arg.startswith(f"{opt}=") for opt in param.opts)
            after = at + 1 if attached else at + 2 if arg in param.opts else len(args)
            if after < len(args) and not args[after].startswith("-"):
                name = param.opts[-1]
                return f" ({name} takes one value: repeat it for each, {name} A {name} B)"
    return ""


def _no_option(match: re.Match[str]) -> str:
    """An unknown option is named when it is an option of some command of this CLI
    (`evaluate --attestation`, verify's; `--bundle` before its command): the name is then this
    program's own word, not the user's. Anything else typed there may be the user's text, and
    is masked."""
    name = match.group(1).strip("'\"")
    if name in _option_names():
        return f"No such option '{name}'"
    return "No such option '<value>'"


@cache
def _option_names() -> frozenset[str]:
    """Every option name of every command (`--bundle`, `-j`)."""
    options = [p for p in _params() if isinstance(p, click.Option)]
    return frozenset(name for p in options for name in (*p.opts, *p.secondary_opts))


def _attached(arg: str) -> str:
    """The value typed in the same argument as its option: `--opt=VALUE`, `-oVALUE` ("" if
    none). click quotes it alone, so masking the whole argument would miss it."""
    if arg.startswith("--") and "=" in arg:
        return arg.split("=", 1)[1]
    if len(arg) > 2 and arg[0] == "-" and arg[1].isalpha():
        return arg[2:]
    return ""


class LazyGroup(NamedGroup):
    """The top level: each command's module is imported only when it runs."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)  # the pipeline's order, not alphabetical

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, attribute = target.split(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="agent-evidence")
@click.option("--debug", is_flag=True, help="Show a traceback for an internal error (exit 70).")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Content-free, exactly priced evidence from Claude Code session trees."""
    ctx.obj = {"debug": debug}


def _emit_refused(
    refused: Refused, show_paths: bool, prefix: str = "refused: ", fix: bool = True
) -> None:
    lines = []
    for problem in refused.problems:
        label = refused.labels.get(problem.file) if problem.file is not None else None
        where = label or problem.where
        path = None
        if show_paths:
            path = problem.local_path or (
                refused.paths.get(problem.file) if problem.file is not None else None
            )
        shown = describe(problem.code, where, problem.line, path, fix=False)
        lines.append((problem.code, where, shown))
    emit_lines(lines, prefix, fix)


def _output_failed(written_before: int) -> NoReturn:
    """Say so on stderr (if it can still be written) and exit 2. Stdout is pointed at the null
    device first, so the interpreter's last flush does not fail a second time. Output files the
    command had put in place before (`files.write_all_atomic`) are whole, and said to be."""
    to_null(sys.stdout, 1)
    _emit_refused(Refused([Problem("OUT-STDOUT-FAILED")]), False)  # stderr lines: `tell`
    if written_count() > written_before:
        tell("the output files were written in full before standard output failed")
    sys.exit(Exit.REFUSED)


def _interrupted(written_before: int) -> NoReturn:
    """Ctrl-C (click turns it into Abort): the shell's convention, 128 + SIGINT, so a script can
    tell a person's interrupt from a refusal or a usage error. Nothing was written, unless the
    interrupt came after the outputs were in place, whole (`files.write_all_atomic`): more of
    them than when the command began (`written_before`)."""
    if written_count() > written_before:
        tell("interrupted after the output was written in full")
    else:
        tell("interrupted: nothing was written")
    sys.exit(128 + _STOPS_SEEN[-1] if _STOPS_SEEN else Exit.INTERRUPTED)


# The stops (Ctrl-C, SIGTERM, SIGHUP) the console entry point's handler saw during this run.
_STOPS_SEEN: list[int] = []


# The process that installed the handler: a process forked from it (a scan worker, before its
# own set-up has reset the handlers) inherits the handler, not the run.
_HANDLER_PID: list[int] = []


def _note_interrupt(signum: int, frame: object) -> None:
    """Python's own Ctrl-C (KeyboardInterrupt), remembered: a library that catches everything
    (pydantic building a validator on first use) can turn it into its own error, with no trace
    of it left in that error. In a forked worker, a Ctrl-C is the run's to handle (it stops its
    workers) and any other stop ends the worker at once: an interrupt raised there could leave
    it alive, and the run waiting for it."""
    if _HANDLER_PID and os.getpid() != _HANDLER_PID[0]:
        if signum != signal.SIGINT:
            os._exit(128 + signum)
        return
    _STOPS_SEEN.append(signum)
    raise KeyboardInterrupt


def _quiet_unraisable(unraisable: Any) -> None:
    """A Ctrl-C raised where Python cannot pass it on (a finalizer, a library's callback) is
    the interrupt the run reports once, not a traceback; anything else is Python's to print."""
    if not isinstance(unraisable.exc_value, KeyboardInterrupt):
        sys.__unraisablehook__(unraisable)


def _by_interrupt(error: BaseException) -> bool:
    """Whether a Ctrl-C is underneath `error`: remembered by the handler, or in its chain."""
    if _STOPS_SEEN:
        return True
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def main(argv: list[str] | None = None) -> None:
    try:
        _main(argv)
    except KeyboardInterrupt as late:
        # A Ctrl-C in the instant after the run decided, while its exit was already on the way
        # (the decision is that exit, in `__context__`): the decision stands, without a traceback.
        decided = late.__context__
        if argv is None and isinstance(decided, SystemExit):
            raise SystemExit(decided.code) from None
        if argv is None:
            # A stop while a refusal or an error was being said, outside the command's own
            # handling (a review: a SIGTERM then was a traceback and 130): an interrupt, said so.
            # The console entry point runs one command: nothing was written before it.
            _interrupted(0)
        raise


def _main(argv: list[str] | None) -> None:
    # The console entry point (tests run commands in their own process). A stop the caller
    # ignores stays ignored, as Python leaves it: a shell's background job (`cmd &` in a script)
    # ignores SIGINT, yet a `kill -TERM` to it is handled (a review).
    if argv is None:
        _HANDLER_PID[:] = [os.getpid()]
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            signal.signal(signal.SIGINT, _note_interrupt)
        for stop in RUNNER_STOPS:
            if signal.getsignal(stop) is signal.SIG_DFL:
                signal.signal(stop, _note_interrupt)
        sys.unraisablehook = _quiet_unraisable
    args = sys.argv[1:] if argv is None else argv
    cut = args.index("--") if "--" in args else len(args)
    debug = "--debug" in args[:cut]
    if debug:  # a global flag, taken wherever it is typed before a `--`
        args = ["--debug", *(a for a in args[:cut] if a != "--debug"), *args[cut:]]
    map_large_blocks()
    written_before = written_count()  # a test runs many commands in one process
    forget_show_paths()
    if stdout_unusable():
        _output_failed(written_before)
    decided: object = _UNDECIDED
    try:
        _dispatch(args, debug, written_before)
    except SystemExit as done:
        decided = done.code
        raise
    finally:
        if argv is None:
            _ignore_interrupts(decided)


# No code decided: `_dispatch` ended by another exception than SystemExit (a review: a second
# SIGTERM turned a stop during a refusal's output into exit 0).
_UNDECIDED = object()


def _ignore_interrupts(decided: object) -> None:
    """The run has decided (its output written, its code chosen): a Ctrl-C in the last
    milliseconds of the interpreter's shutdown must not turn a decision into 130, nor print a
    traceback. One that arrives while the handler is being replaced is dropped too. A SIGTERM
    or SIGHUP from now on ends the process at once, as a request to stop that a hung shutdown
    must still obey, with the code decided (`decided`, SystemExit's): a finished run stopped
    in its last milliseconds was 143 with no word, its bundle whole on disk (a new user's
    walk). Everything said is written already (`say` and `tell` flush each line). Where no
    code was decided (an exception on its way out), the stop ends the process as any other."""
    code = 0 if decided is None else _exit_code(decided)  # SystemExit's
    on_stop = signal.SIG_DFL if code is None else partial(_stop_decided, code)
    while True:
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            for stop in RUNNER_STOPS:
                if signal.getsignal(stop) is _note_interrupt:
                    signal.signal(stop, on_stop)
            return
        except KeyboardInterrupt:
            continue


def _exit_code(decided: object) -> int | None:
    """SystemExit's code as the process would exit with it: an int (the `Exit` members are
    ints too; a review: they were taken for no code), else None."""
    if isinstance(decided, int) and not isinstance(decided, bool):
        return int(decided)
    return None


def _stop_decided(code: int, signum: int, frame: object) -> None:
    """A SIGTERM or SIGHUP after the run decided: the process ends now, with that decision."""
    os._exit(code)


def _dispatch(args: list[str], debug: bool, written_before: int) -> None:
    """Run the command; every way it can end becomes one exit code and its lines on stderr."""
    try:
        with cyclic_gc_paused():
            code = cli.main(args=args, prog_name="agent-evidence", standalone_mode=False)
    except SystemExit as done:
        # click's own closed-pipe handler, for output it writes itself (help, version), exits 1:
        # a code this tool does not have. Every exit of ours is 0, 2-5, 64 or 70.
        if done.code == 1:
            _output_failed(written_before)
        raise
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        _interrupted(written_before)
    except click.UsageError as bad:
        _usage_error(bad, args)
    except Refused as refused:
        if _by_interrupt(refused):
            _interrupted(written_before)
        _emit_refused(refused, showing_paths())
        if refused.details:  # what was found: for whoever checks, not fixes for them
            _emit_refused(refused.details, showing_paths(), "  found: ", False)
        sys.exit(refused.exit_code)
    except IntegrityFailure as failure:
        if _by_interrupt(failure):
            _interrupted(written_before)
        for problem in failure.problems:
            tell("integrity: " + describe(problem.code, problem.where))
        if failure.details:  # what differs: findings for whoever checks, not fixes for them
            _emit_refused(failure.details, showing_paths(), "  found: ", False)
        if failure.refusals:  # other bundles' refusals, found in the same run
            _emit_refused(Refused(failure.refusals), showing_paths())
        sys.exit(failure.exit_code)
    except StdoutFailed:
        _output_failed(written_before)
    except OSError as error:
        if _by_interrupt(error):  # a stop's own fallout: a hung-up terminal's EIO (a review)
            _interrupted(written_before)
        _os_error(error, debug, written_before)
    except MemoryError as error:
        # The machine's limit, not a bug (a robustness probe: 70 "internal error" for a 3 GB
        # file given as a bundle under a memory limit); what was held is released by now.
        if debug:
            _traceback(error)
        _emit_refused(Refused([Problem("RUN-OUT-OF-MEMORY")]), showing_paths())
        sys.exit(Exit.REFUSED)
    except Exception as error:  # the one place a bug becomes exit 70
        if _by_interrupt(error):
            _interrupted(written_before)
        _internal(error, debug)
    sys.exit(code if isinstance(code, int) else 0)


def _os_error(error: OSError, debug: bool, written_before: int) -> NoReturn:
    """click writes --help and --version itself, not through `say`: a full disk there is the
    machine's doing too. (Our own file writes and reads turn their OSErrors into refusals with a
    file named; one with no file name and such an errno is a standard stream's.) `--debug` adds
    the traceback, never another exit code."""
    if error.errno in OUTPUT_ERRNOS and error.filename is None:
        if debug:
            _traceback(error)
        _output_failed(written_before)
    if error.errno == errno.ENAMETOOLONG:
        # A path typed longer than the system takes (every check of it raises, in many places):
        # the value given is wrong, and it is not echoed (SPEC §6.4), not even by --debug.
        tell("usage error: a path given is longer than this system allows")
        sys.exit(Exit.USAGE)
    _internal(error, debug)


def _traceback(error: BaseException) -> None:
    """`--debug`'s traceback: each exception of the chain by its type and the frames it passed
    (this program's and its libraries' code: file, line, function, source line), never its
    message, which can quote a value read from input (a pydantic error's `input_value`, a
    key, a byte of a passphrase; SPEC §2: exit 70 never shows content)."""
    chain: list[BaseException] = []
    while error is not None and error not in chain:
        chain.append(error)
        cause = error.__cause__
        context = None if error.__suppress_context__ else error.__context__
        error = cause if cause is not None else context  # type: ignore[assignment]
    parts = []
    for link in reversed(chain):
        kind = type(link)
        parts.append(
            "Traceback (most recent call last):\n"
            + "".join(traceback.format_tb(link.__traceback__))
            + f"{kind.__module__}.{kind.__qualname__} (its message is not shown: it may "
            "quote input)"
        )
    tell("\n\nwhich led to\n\n".join(parts))


def _internal(error: Exception, debug: bool) -> NoReturn:
    """A bug: exit 70 with one line naming the exception's type (`--debug`: the traceback,
    then the same exit: an uncaught exception would be Python's 1, a code this tool has not)."""
    if debug:
        _traceback(error)
        sys.exit(Exit.INTERNAL)
    tell(f"internal error ({type(error).__name__}); rerun with --debug for a traceback")
    sys.exit(Exit.INTERNAL)
