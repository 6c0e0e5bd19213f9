"""`agent-evidence`: command group and the single place exceptions become exit codes."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
import orjson

from converter import __version__
from converter.cli.convert import convert
from converter.cli.diagnostics import describe, emit_problems
from converter.cli.evaluate import evaluate
from converter.errors import ConverterError, Exit, IntegrityFailure, Refused
from converter.firewall.keys import create_key, default_key_path, load_key
from converter.firewall.pseudonyms import Pseudonymizer
from converter.inspection import inspect_report, render_text
from converter.pipeline import inspect_tree

SOURCES = click.Choice(["claude-code-tree", "claude-code"])


F = TypeVar("F", bound=Callable[..., Any])


def key_option(func: F) -> F:
    return click.option(
        "--key-file",
        type=click.Path(path_type=Path, dir_okay=False),
        default=None,
        help="Pseudonym key file (default: $AGENT_EVIDENCE_KEY, then the config dir).",
    )(func)


def pseudonymizer(key_file: Path | None) -> Pseudonymizer:
    loaded = load_key(key_file)
    if loaded.created_at is not None:
        click.echo(
            f"notice: created a new pseudonym key ({loaded.key.key_id}) in your config folder; "
            "keep it private and reuse it so pseudonyms stay stable.",
            err=True,
        )
    return Pseudonymizer(loaded.key)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="agent-evidence")
@click.option("--debug", is_flag=True, hidden=True, help="Show tracebacks for internal errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Content-free, exactly priced evidence from Claude Code session trees."""
    ctx.obj = {"debug": debug}


@cli.command()
@click.option("--from", "source", type=SOURCES, default="claude-code-tree", show_default=True)
@click.option(
    "--in",
    "parent",
    type=click.Path(path_type=Path),
    required=True,
    help="The parent transcript <session-id>.jsonl.",
)
@click.option(
    "--task-unit", type=click.Choice(["prompt", "session"]), default="prompt", show_default=True
)
@click.option("--json", "as_json", is_flag=True, help="Print the account as JSON.")
@click.option(
    "--show-paths", is_flag=True, help="Add local relative paths to diagnostics (stderr only)."
)
@key_option
def inspect(
    source: str,
    parent: Path,
    task_unit: str,
    as_json: bool,
    show_paths: bool,
    key_file: Path | None,
) -> None:
    """Account every model and tool call of a session tree; exit 2 if it cannot be converted."""
    pseudo = pseudonymizer(key_file)
    account, public = inspect_tree(parent, pseudo, task_unit, source=source)  # type: ignore[arg-type]
    report = inspect_report(public)
    if as_json:
        click.echo(orjson.dumps(report, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode())
    else:
        click.echo(render_text(report))
    if account.refusals:
        emit_problems(account.refusals, account, pseudo, show_paths)
        sys.exit(Exit.REFUSED)


@cli.group()
def key() -> None:
    """Manage the pseudonym key (it never leaves this machine)."""


@key.command("init")
@key_option
def key_init(key_file: Path | None) -> None:
    """Create a new pseudonym key (mode 0600); refuses to replace one."""
    path = key_file or default_key_path()
    created = create_key(path)
    click.echo(f"created pseudonym key {created.key_id}")


@key.command("show-id")
@key_option
def key_show_id(key_file: Path | None) -> None:
    """Print the key's public fingerprint (key_id), which artifacts carry."""
    click.echo(load_key(key_file, create=False).key.key_id)


# Commands defined in their own modules register here, one line each.
# --- register: convert ---
cli.add_command(convert)
# --- register: evaluate ---
cli.add_command(evaluate)
# --- register: verify / keygen ---
cli.add_command(__import__("converter.cli.verify", fromlist=["verify"]).verify)
from converter.cli.attest import keygen  # noqa: E402  (registered once `cli` exists)

cli.add_command(keygen)
# --- register: scan ---
cli.add_command(__import__("converter.cli.scan", fromlist=["scan"]).scan)


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args
    try:
        code = cli.main(args=args, prog_name="agent-evidence", standalone_mode=False)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(Exit.USAGE)
    except click.UsageError as bad:
        click.echo(f"usage error: {bad.format_message()}", err=True)
        sys.exit(Exit.USAGE)
    except Refused as refused:
        show_paths = "--show-paths" in args
        for problem in refused.problems:
            where = refused.labels.get(problem.file) if problem.file is not None else None
            path = None
            if show_paths:
                path = problem.local_path or (
                    refused.paths.get(problem.file) if problem.file is not None else None
                )
            message = describe(problem.code, where or problem.where, problem.line, path)
            click.echo("refused: " + message, err=True)
        sys.exit(refused.exit_code)
    except IntegrityFailure as failure:
        click.echo("integrity: " + describe(failure.code), err=True)
        sys.exit(failure.exit_code)
    except ConverterError as error:
        click.echo(f"error: {type(error).__name__}", err=True)
        sys.exit(error.exit_code)
    except Exception as error:  # the one place a bug becomes exit 70
        if debug:
            raise
        click.echo(
            f"internal error ({type(error).__name__}); rerun with --debug for a traceback", err=True
        )
        sys.exit(Exit.INTERNAL)
    sys.exit(code if isinstance(code, int) else 0)
