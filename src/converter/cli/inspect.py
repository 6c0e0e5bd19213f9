"""`agent-evidence inspect`: the content-free account of a session tree."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import cast

import click
import orjson

from converter.cli.diagnostics import emit_names, emit_problems, emit_tasks, say
from converter.cli.options import (
    key_option,
    provider_bodies_option,
    pseudonymizer,
    source_options,
)
from converter.errors import Exit
from converter.firewall.boundary import local_names, local_tasks
from converter.run.inspection import inspect_report, render_text
from converter.run.pipeline import SourceName, TaskUnit, summarize_tree


@click.command()
@source_options
@click.option("--json", "as_json", is_flag=True, help="Print the account as JSON.")
@provider_bodies_option
@key_option
def inspect(
    source: str,
    parent: Path,
    task_unit: str,
    show_paths: bool,
    as_json: bool,
    key_file: Path | None,
) -> None:
    """Account every model and tool call of a session tree; exit 2 if it cannot be converted."""
    pseudo = pseudonymizer(key_file)
    account, summary = summarize_tree(
        parent, pseudo, cast(TaskUnit, task_unit), source=cast(SourceName, source)
    )
    report = inspect_report(summary)
    if as_json:
        say(orjson.dumps(report, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode())
    elif account.tree.bound_files or not account.refusals:
        say(render_text(report))  # (nothing read at all: the refusal alone says why, no zeros)
    if show_paths:  # local names, like local paths, are for the terminal only: never stdout
        emit_names(local_names(account, pseudo))
        emit_tasks(local_tasks(account, pseudo), task_unit == "session")
    if account.refusals:
        emit_problems(account.refusals, account, pseudo, show_paths)
        sys.exit(Exit.REFUSED)
