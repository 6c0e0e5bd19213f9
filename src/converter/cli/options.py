"""Options shared by several commands, and the key loader every command uses."""

from __future__ import annotations

import difflib
import errno
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import click

from converter.cli.diagnostics import remember_show_paths, tell
from converter.errors import Gathered, Refused
from converter.firewall.keys import PseudonymKey, default_key_shown, load_key
from converter.firewall.pseudonyms import Pseudonymizer
from converter.pricing import shipped_cards
from converter.text import counted
from converter.vocabulary import SOURCE_NAMES, TASK_UNITS

F = TypeVar("F", bound=Callable[..., Any])

SOURCES = click.Choice(SOURCE_NAMES)
TASK_UNIT_CHOICE = click.Choice(TASK_UNITS)


# Paths are judged by the code that opens them (a refusal with the input's code, exit 2), never
# by click's readability check (a usage error with no code, 64): an unreadable contract is the
# input's problem, not a bad flag.
class _Path(click.Path):
    """click's Path, refusing an empty value (an unset shell variable: `--out "$OUT"`) as a usage
    error: as a path it would name the working folder, or nothing at all."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail("the path given is empty", param, ctx)
        if value == "-":  # a walkthrough's `--report -` wrote a file named `-`, which a later
            # `--out -` replaced: no option here reads standard input or writes standard output
            self.fail(
                "a dash is no standard input or output here: give a file's path (./- for a "
                "file named so); evaluate prints its report when --report is left out",
                param,
                ctx,
            )
        if isinstance(value, str) and _too_long(value):
            # a name that cannot exist (a robustness probe: `--in` said CC-TREE-UNREADABLE,
            # "check file permissions"); the value is not echoed (SPEC §6.4)
            self.fail("the path given is longer than this system allows", param, ctx)
        return super().convert(value, param, ctx)


def _too_long(value: str) -> bool:
    """Whether the system refuses the path for its length (a name past NAME_MAX, a path past
    PATH_MAX), whatever is there."""
    try:
        os.lstat(value)
    except OSError as error:
        return error.errno == errno.ENAMETOOLONG
    except ValueError:  # an embedded NUL: the code that opens it says so
        pass
    return False


FILE = _Path(path_type=Path, dir_okay=False, readable=False)
PATH = _Path(path_type=Path, readable=False)


def key_option(func: F) -> F:
    return click.option(
        "--key-file",
        type=FILE,
        default=None,
        help="Pseudonym key file (default: the key in $AGENT_EVIDENCE_KEY, else "
        "$XDG_CONFIG_HOME/agent-evidence/pseudonym.key, ~/.config when XDG_CONFIG_HOME is unset).",
    )(func)


def provider_bodies_option(func: F) -> F:
    """--provider-bodies DIR (SPEC §2, §3): the folder of request and response bodies Claude Code
    writes with OTEL_LOG_RAW_API_BODIES=file:<dir>. Judged by the reader, not by click: a
    folder missing, a file or a symlink is the input's refusal (CC-BODY-DIR-UNREADABLE, 2)."""
    return click.option(
        "--provider-bodies",
        "bodies",
        type=PATH,
        default=None,
        help="The folder Claude Code writes provider request/response bodies to "
        "(OTEL_LOG_RAW_API_BODIES=file:<dir>): this session's responses are bound and joined "
        "to its calls (final usage for usage-incomplete calls; calls no transcript records "
        "priced in the task their request names).",
    )(func)


# What --price-card takes, for its help: the names this version ships, or a card file.
CARD_CHOICE = f"a shipped card's name: {', '.join(shipped_cards())}; or a card file's path"


def card_given(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """--price-card's value, refusing an empty one (an unset shell variable) as a usage error,
    as an empty path is: a walkthrough's `--price-card ""` was PRICE-CARD-UNREADABLE (2)."""
    if value is not None and not value.strip():
        # (no apostrophe: a quoted span in a usage error is masked as a value typed)
        raise click.BadParameter(
            f"the card given is empty: give the name of a shipped card "
            f"({', '.join(shipped_cards())}) or the path of a card file",
            ctx,
            param,
        )
    return value


def show_paths_option(text: str) -> Callable[[F], F]:
    """--show-paths: local paths on stderr. The option itself records that it was given
    (`remember_show_paths`), so the refusals main() prints show them only then."""
    return click.option("--show-paths", is_flag=True, callback=remember_show_paths, help=text)


def _source_options(func: F, carried: str, show_paths: str) -> F:
    func = show_paths_option(show_paths)(func)
    func = click.option(
        "--task-unit",
        type=TASK_UNIT_CHOICE,
        default="prompt",
        show_default=True,
        help="A task is one root prompt, or the whole session" + carried + ".",
    )(func)
    func = click.option(
        "--in",
        "parent",
        type=PATH,
        required=True,
        help="The parent transcript <session-id>.jsonl.",
    )(func)
    return click.option(
        "--from",
        "source",
        type=SOURCES,
        default="claude-code-tree",
        show_default=True,
        help="Source adapter" + carried + ".",
    )(func)


def source_options(func: F) -> F:
    """The options that say which tree to read, and how (inspect)."""
    return _source_options(
        func,
        "",
        "Also print on stderr: local relative paths in diagnostics, the local name behind "
        "each pseudonymous tool, agent type, model and billing value, and each task's prompt "
        "as a parent line (`task: <id> = parent line N`), to label outcomes by.",
    )


def convert_source_options(func: F) -> F:
    """`source_options` for convert, where a contract read may name them instead."""
    return _source_options(
        func,
        " (with --contract or --from-contract: the contract's, unless given)",
        "Add local relative paths to diagnostics (stderr only; inspect --show-paths also "
        "names each pseudonym's local name and each task's prompt line).",
    )


def _warn_if_guessable(key: PseudonymKey) -> None:
    """A key of one byte repeated (the demo's `dede…`, `00…`) is public in all but name: said,
    on stderr, by every command that uses it."""
    if len(set(key.secret)) == 1:
        tell(
            f"notice: the pseudonym key ({key.key_id}) is one byte repeated, as the demo's "
            "public key is: anyone can reverse its pseudonyms by guessing names; make a key of "
            "your own with `agent-evidence key init`."
        )


def pseudonym_key(key_file: Path | None, *, create: bool = True) -> PseudonymKey:
    """The pseudonym key every command uses, created on first use (unless not `create`) with a
    notice on stderr, and said to be guessable when it is."""
    loaded = load_key(key_file, create=create)
    _warn_if_guessable(loaded.key)
    if loaded.created_at is not None:
        tell(
            f"notice: created a new pseudonym key ({loaded.key.key_id}) in "
            f"{default_key_shown()}; keep it private and reuse it so pseudonyms stay stable."
        )
    return loaded.key


def pseudonymizer(key_file: Path | None, *, create: bool = True) -> Pseudonymizer:
    return Pseudonymizer(pseudonym_key(key_file, create=create))


def gathered_key(
    first: Gathered, key_file: Path | None, *, create: bool = True
) -> PseudonymKey | None:
    """The pseudonym key, checked with the run's other options (a price card, a contract, an
    output: each problem said at once, docs/commands.md "Refusal messages"), its refusal kept in
    `first`; None when refused. A key is created only for a run nothing else refused so far: a
    refused one makes none (with no key yet, it has no key problem to say)."""
    if create and first.problems:
        try:
            return pseudonym_key(key_file, create=False)
        except Refused as refused:
            first.problems.extend(p for p in refused.problems if p.code != "KEY-MISSING")
            return None
    return first(lambda: pseudonym_key(key_file, create=create))


# The signing key's passphrase, for a key that is encrypted and for `keygen --encrypt`.
PASSPHRASE_ENV = "AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE"  # noqa: S105 (a variable's name)


def _terminal_to_ask() -> bool:
    """Whether a person is there to type a passphrase: standard input and error both a
    terminal (in CI, a pipe or a redirect, nobody is, and a prompt would hang or be lost)."""
    try:
        return all(s is not None and s.isatty() for s in (sys.stdin, sys.stderr))
    except (OSError, ValueError):
        return False


def signing_passphrase(*, new: bool) -> Callable[[], bytes | None]:
    """What asks for the signing key's passphrase, called only when one is needed: the value of
    $AGENT_EVIDENCE_ATTEST_KEY_PASSPHRASE (every byte as set; empty counts as unset, as an
    unset CI secret expands), else a prompt on the terminal that does not echo (twice for a
    `new` key), else None (the caller refuses: ATTEST-KEY-PASSPHRASE-MISSING)."""

    def usable(passphrase: bytes) -> bytes:
        return _long_enough(_usable(passphrase)) if new else _usable(passphrase)

    def checked(text: str) -> str:  # a new key's, as typed: too short is asked again, said why
        _long_enough(os.fsencode(text))
        return text

    def ask() -> bytes | None:
        given = os.environ.get(PASSPHRASE_ENV)
        if given:
            return usable(os.fsencode(given))  # the bytes as set (fsencode undoes the decoding)
        if not _terminal_to_ask():
            return None
        try:
            typed: str = click.prompt(
                f"passphrase of the new signing key ({_NEW_PASSPHRASE_MIN} characters or more)"
                if new
                else "passphrase of the signing key",
                hide_input=True,
                confirmation_prompt="the same passphrase again" if new else False,
                err=True,
                value_proc=checked if new else None,
            )
        except click.exceptions.Abort as stopped:
            if isinstance(stopped.__context__, EOFError):  # Ctrl-D: no passphrase, no interrupt
                raise click.UsageError(
                    "no passphrase was typed (the input ended): type it at the prompt, or set "
                    f"${PASSPHRASE_ENV}"
                ) from None
            raise  # a Ctrl-C: the run is interrupted
        except UnicodeDecodeError:  # getpass reads /dev/tty as the locale's text, strictly;
            # its message quotes a byte of the passphrase and where it is: never said
            raise click.UsageError(
                "the passphrase typed is not text in the terminal's encoding: set its bytes in "
                f"${PASSPHRASE_ENV} instead"
            ) from None
        return usable(os.fsencode(typed))  # as the variable's: a byte getpass kept escaped

    return ask


# A new key's passphrase, at least: one shorter is found by trying them all, the key file being
# all an attacker needs (ssh-keygen asks for 5 bytes or more).
_NEW_PASSPHRASE_MIN = 8


def _long_enough(passphrase: bytes) -> bytes:
    if len(passphrase) < _NEW_PASSPHRASE_MIN:
        raise click.UsageError(
            f"a new signing key's passphrase needs {_NEW_PASSPHRASE_MIN} bytes or more: a "
            "shorter one is found by trying them all, from the key file alone"
        )
    return passphrase


# OpenSSL's PEM password callback takes at most 1,023 bytes (cryptography raises ValueError).
_PASSPHRASE_MAX = 1023


def _usable(passphrase: bytes) -> bytes:
    if len(passphrase) > _PASSPHRASE_MAX:
        raise click.UsageError(
            f"the signing key's passphrase is longer than {_PASSPHRASE_MAX:,} bytes, the most "
            "OpenSSL reads for a PEM key"
        )
    return passphrase


class NamedGroup(click.Group):
    """A command group that answers a command it does not have with the one it is near
    (`inpsect`: did you mean inspect?), or else with its commands, which are this tool's words;
    what was typed is never echoed."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else None
        known = self.list_commands(ctx)
        if name is not None and name not in known and not name.startswith("-"):
            near = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
            if near:
                raise click.UsageError(f"No such command. Did you mean {near[0]}?", ctx)
            raise click.UsageError(f"No such command. The commands: {', '.join(known)}.", ctx)
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None and not isinstance(command, click.Group):
            # the command's own context, so the usage error names its `-h`
            own = click.Context(command, info_name=name, parent=ctx)
            typed = _refuse_repeated(command, rest, own)
            if typed.bare:
                _refuse_bare(command, typed, own)
        return name, command, rest


class _Typed(NamedTuple):
    """What a command line holds, before click parses it."""

    bare: int  # arguments that are no option nor an option's value (all of them after `--`)
    options: frozenset[str]  # the option spellings typed (`--bundle`, `-j`), values left out


def _refuse_bare(command: click.Command, typed: _Typed, ctx: click.Context) -> None:
    """A walkthrough: `evaluate bundle.json` said only "Missing option '--bundle'", as if the
    file given were not there. Where a command of options only lacks one it requires and was
    given bare arguments, and every option typed is its own (click names any other first),
    the usage error says the inputs go after their options; the values are never echoed."""
    if any(isinstance(p, click.Argument) for p in command.params):
        return
    spelled = {
        name
        for p in command.params
        if isinstance(p, click.Option)
        for name in (*p.opts, *p.secondary_opts)
    }
    bare, typed_options = typed
    missing = [
        p.opts[0]
        for p in command.params
        if isinstance(p, click.Option) and p.required and not set(p.opts) & typed_options
    ]
    if missing and typed_options <= spelled:
        raise click.UsageError(
            f"{counted(bare, 'argument')} given without an option: this command takes each "
            f"input after its option ({', '.join(f'{m} PATH' for m in missing)})",
            ctx,
        )


def _refuse_repeated(command: click.Command, args: list[str], ctx: click.Context) -> _Typed:
    """An option that takes one value, given twice (`verify --bundle A --bundle B`), is a usage
    error: click would keep the last and drop the first without a word (an operations review:
    a tampered first bundle passed verify). A flag given twice says the same thing twice.
    What the line holds, as the walk found it (nothing when help is asked for)."""
    if any(arg in ("-h", "--help") for arg in args[: args.index("--") if "--" in args else None]):
        return _Typed(0, frozenset())  # help asked for: click shows it, whatever else was typed
    valued: dict[str, click.Option] = {}  # every option that takes a value, by its spellings
    for param in command.params:
        if isinstance(param, click.Option) and not param.is_flag and not param.count:
            valued.update(dict.fromkeys((*param.opts, *param.secondary_opts), param))
    seen: set[str] = set()
    typed: set[str] = set()
    bare = 0
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            bare += len(args) - i - 1
            break
        if not arg.startswith("-") or arg == "-":
            bare += 1
        opt = arg.split("=", 1)[0] if arg.startswith("--") else arg[:2]
        if arg.startswith("-") and arg != "-":
            typed.add(opt)
        option = valued.get(opt) if arg.startswith("-") else None
        if option is not None:
            if not option.multiple:
                if option.opts[0] in seen:
                    raise click.UsageError(f"{option.opts[0]} is given more than once", ctx)
                seen.add(option.opts[0])
            if arg == opt:
                i += 1  # its value is the next argument, even one spelled like an option
        i += 1
    return _Typed(bare, frozenset(typed))
