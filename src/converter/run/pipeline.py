"""The pipeline in one place: sources → reader → firewall. Commands call these, nothing deeper."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from converter.firewall.boundary import summarize
from converter.firewall.pseudonyms import Pseudonymizer
from converter.firewall.view import PublicSummary
from converter.heap import return_free_memory
from converter.reader.bodies import read_bodies
from converter.reader.build import build_account
from converter.reader.load import load
from converter.reader.model import Account
from converter.sources.tree import discover
from converter.vocabulary import SourceName, TaskUnit


def read_tree(
    parent: Path,
    task_unit: TaskUnit = "prompt",
    source: SourceName = "claude-code-tree",
    read_jobs: int | None = None,
    elsewhere: Sequence[Path] | None = None,
    bodies: Path | None = None,
    siblings: Sequence[Path] | None = None,
) -> Account:
    """Find, bind and account a session tree. Local ids stay inside the returned value.
    `read_jobs`: reading processes (default: 2 on two cores or more, see `reader.load`);
    `elsewhere`: the session's folders in other project folders, when already found (`scan`);
    `siblings`: the 2.0.x agent transcripts beside the parent that may be the session's, when
    already sorted out (`scan`, `sources.tree.discover`).
    `bodies`: the `--provider-bodies` folder, whose bodies of this tree are selected, bound
    and read after the transcripts (they select them by request id when it has no index), and
    joined to the calls as the account is built."""
    single = source == "claude-code"
    layout = discover(parent, single_file=single, elsewhere=elsewhere, siblings=siblings)
    loaded = load(layout, read_jobs, request_ids=bodies is not None)
    if bodies is not None:
        read_bodies(loaded, bodies, requests=task_unit == "prompt")
    return_free_memory()  # the parsed lines' garbage
    account = build_account(loaded, task_unit, single_file=single)
    return_free_memory()  # the per-line records, released by build_account
    return account


def summarize_tree(
    parent: Path,
    pseudo: Pseudonymizer,
    task_unit: TaskUnit = "prompt",
    source: SourceName = "claude-code-tree",
    read_jobs: int | None = None,
    elsewhere: Sequence[Path] | None = None,
    bodies: Path | None = None,
    siblings: Sequence[Path] | None = None,
) -> tuple[Account, PublicSummary]:
    """What `inspect` and `scan` need: the account and its crossed summary (no public events)."""
    account = read_tree(
        parent, task_unit, source, read_jobs, elsewhere=elsewhere, bodies=bodies, siblings=siblings
    )
    return account, summarize(account, pseudo)
