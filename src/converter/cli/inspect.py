"""`agent-evidence inspect`: the content-free account of a session tree."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

import click
import orjson

from converter.cli.diagnostics import (
    emit_files,
    emit_names,
    emit_parts,
    emit_problems,
    emit_tasks,
    say,
)
from converter.cli.options import (
    CARD_CHOICE,
    card_given,
    gathered_key,
    key_option,
    provider_bodies_option,
    source_options,
)
from converter.errors import Exit, Gathered
from converter.firewall.boundary import finding_files, local_names, local_tasks
from converter.firewall.pseudonyms import Pseudonymizer
from converter.run.inspection import inspect_output, render_text
from converter.run.pipeline import summarize_tree
from converter.vocabulary import SourceName, TaskUnit

if TYPE_CHECKING:
    from converter.pricing.card import PriceCard


@click.command(short_help="Account a session tree's calls; exit 2 if it cannot convert.")
@source_options
@click.option("--json", "as_json", is_flag=True, help="Print the account as JSON.")
@click.option(
    "--price-card",
    default=None,
    callback=card_given,
    help=f"Also say what the calls cost by this card ({CARD_CHOICE}): only what the card "
    "prices, as an interval; no contract needed.",
)
@provider_bodies_option
@key_option
def inspect(
    source: str,
    parent: Path,
    task_unit: str,
    show_paths: bool,
    as_json: bool,
    price_card: str | None,
    bodies: Path | None,
    key_file: Path | None,
) -> Exit:
    """Account every model and tool call of a session tree; exit 2 if it cannot be converted."""
    first = Gathered()  # the card and the key: each problem said at once, before the tree
    card = first(lambda: _card(price_card)) if price_card is not None else None
    key = gathered_key(first, key_file)
    first.done()
    assert key is not None
    pseudo = Pseudonymizer(key)
    account, summary = summarize_tree(
        parent, pseudo, cast(TaskUnit, task_unit), source=cast(SourceName, source), bodies=bodies
    )
    report = inspect_output(account, summary, pseudo, card)
    if as_json:
        say(orjson.dumps(report, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode())
    elif summary.counts.bound_files or not account.refusals:
        # (nothing read at all, a parent that could not be read included: the refusal alone
        # says why, no zeros)
        say(render_text(report))
    if show_paths:  # local names, like local paths, are for the terminal only: never stdout
        emit_names(local_names(account, pseudo))
        emit_tasks(local_tasks(account, pseudo), task_unit == "session")
        emit_files(finding_files(account, pseudo))
        emit_parts(account.tree.layout.other_parts)
    if account.refusals:
        emit_problems(account.refusals, account, pseudo, show_paths)
        return Exit.REFUSED
    return Exit.OK


def _card(name_or_path: str) -> PriceCard:
    """The card, loaded before the tree is read: a mistyped name is said at once."""
    from converter.pricing.card import load_price_card

    return load_price_card(name_or_path)
