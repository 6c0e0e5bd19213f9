"""`agent-evidence`: command group and the single place exceptions become exit codes."""

from __future__ import annotations

import sys

import click

from converter import __version__
from converter.cli.attest import keygen
from converter.cli.convert import convert
from converter.cli.diagnostics import describe, emit_lines
from converter.cli.evaluate import evaluate
from converter.cli.inspect import inspect
from converter.cli.key import key
from converter.cli.scan import scan
from converter.cli.verify import verify
from converter.errors import ConverterError, Exit, IntegrityFailure, Refused, UsageProblem


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="agent-evidence")
@click.option("--debug", is_flag=True, hidden=True, help="Show tracebacks for internal errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Content-free, exactly priced evidence from Claude Code session trees."""
    ctx.obj = {"debug": debug}


# Each command lives in its own module; the group only lists them, in the pipeline's order.
for command in (inspect, convert, evaluate, verify, scan, key, keygen):
    cli.add_command(command)


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
        lines = []
        for problem in refused.problems:
            label = refused.labels.get(problem.file) if problem.file is not None else None
            where = label or problem.where
            path = None
            if show_paths:
                path = problem.local_path or (
                    refused.paths.get(problem.file) if problem.file is not None else None
                )
            lines.append((problem.code, where, describe(problem.code, where, problem.line, path)))
        emit_lines(lines)
        sys.exit(refused.exit_code)
    except IntegrityFailure as failure:
        click.echo("integrity: " + describe(failure.code), err=True)
        sys.exit(failure.exit_code)
    except UsageProblem as bad:  # our own fixed text, never a value from an input
        click.echo(f"usage error: {bad}", err=True)
        sys.exit(bad.exit_code)
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
