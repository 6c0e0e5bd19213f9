"""`agent-evidence scan [PROJECTS_DIR]`: inspect every session tree of a projects folder."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import click
import orjson

from converter.errors import Problem, Refused
from converter.firewall.keys import load_key
from converter.scan import default_projects_dir, render_text
from converter.scan import scan as run_scan


@contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[int], Callable[[], None]] | None]:
    """A progress bar on stderr, only when stderr is a terminal."""
    if not enabled:
        yield None
        return
    with ExitStack() as stack:

        def start(total: int) -> Callable[[], None]:
            bar = stack.enter_context(
                click.progressbar(length=total, label="scanning", file=sys.stderr)
            )
            return lambda: bar.update(1)

        yield start


@click.command()
@click.argument("projects_dir", required=False, type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: the number of CPUs).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
@click.option(
    "--key-file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Pseudonym key file (default: $AGENT_EVIDENCE_KEY, then the config dir).",
)
def scan(projects_dir: Path | None, jobs: int | None, as_json: bool, key_file: Path | None) -> None:
    """Inspect every session tree under a Claude Code projects folder (default:
    $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects); one content-free row per session."""
    folder = projects_dir or default_projects_dir()
    if not folder.is_dir():
        raise Refused([Problem("CC-TREE-PROJECTS-MISSING")])
    loaded = load_key(key_file)
    if loaded.created_at is not None:
        click.echo(
            f"notice: created a new pseudonym key ({loaded.key.key_id}) in your config folder; "
            "keep it private and reuse it so pseudonyms stay stable.",
            err=True,
        )
    workers = jobs or os.cpu_count() or 1
    with _progress(sys.stderr.isatty()) as progress:
        result = run_scan(folder, loaded.key.secret, workers, progress)
    if as_json:
        click.echo(orjson.dumps(result, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode())
    else:
        click.echo(render_text(result))
