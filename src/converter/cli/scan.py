"""`agent-evidence scan [PROJECTS_DIR]`: inspect every session tree of a projects folder."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import click
import orjson

from converter.cli.diagnostics import printable, say, stderr_is_terminal, tell
from converter.cli.options import (
    CARD_CHOICE,
    card_given,
    gathered_key,
    key_option,
    show_paths_option,
)
from converter.errors import Exit, Gathered, Problem, Refused
from converter.files import ask
from converter.run.scan import (
    MAX_JOBS,
    available_cpus,
    bug_rows,
    default_projects_dir,
    eta_text,
    find_sessions,
    local_paths,
    render_text,
    written_since,
)
from converter.run.scan import scan as run_scan


def _columns() -> int:
    """The width of the terminal the bar is drawn on: stderr's (stdout is often a file, `scan
    --json > out.json`, whose fallback of 80 columns would be the bar's), or COLUMNS if set."""
    if not os.environ.get("COLUMNS"):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            return os.get_terminal_size(sys.stderr.fileno()).columns
    return shutil.get_terminal_size().columns


@contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[int], Callable[[], None]] | None]:
    """A progress bar on stderr, only when stderr is a terminal."""
    if not enabled:
        yield None
        return
    with ExitStack() as stack:

        def start(total: int) -> Callable[[], None]:
            first: list[tuple[int, float]] = []  # (trees done, when) at the first tree done

            def eta(_: object) -> str | None:
                if not first:
                    return None
                done, when = first[0]
                return eta_text(total, bar.pos, done, time.monotonic() - when)

            bar = stack.enter_context(
                click.progressbar(
                    length=total,
                    label="scanning",
                    file=sys.stderr,
                    show_eta=False,
                    item_show_func=eta,
                    # the label, count and time left take about 40 columns: a narrow terminal
                    # gets a shorter bar, not one that wraps at every redraw
                    width=max(min(36, _columns() - 42), 4),
                )
            )

            def tick() -> None:
                if not first:
                    first.append((bar.pos + 1, time.monotonic()))
                bar.update(1)

            return tick

        yield start


_BACK = re.compile(r"([0-9]+)([dh])", re.IGNORECASE)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)  # no file's time is earlier
_OUT_OF_RANGE = "<value> is outside the times a file can have (1970 on)"


def _since(ctx: click.Context, param: click.Parameter, value: str | None) -> datetime | None:
    """`--since`: a date (from midnight UTC), an instant with its offset, or `7d` / `12h` back
    from now; a UTC datetime, 1970 or later. A time with no offset is refused, not guessed to
    be UTC. (The value is never repeated in the message: a usage error shows none.)"""
    if value is None:
        return None
    text = value.strip()
    back = _BACK.fullmatch(text)
    try:
        if back:
            amount = int(back.group(1))
            hours = amount * 24 if back.group(2) in "dD" else amount
            when = datetime.now(UTC) - timedelta(hours=hours)
        else:
            when = _instant(text[:-1] + "Z" if text.endswith("z") else text)
            when = when.astimezone(UTC)
    except (OverflowError, ValueError):  # past what a date can be, either way
        raise click.BadParameter(_OUT_OF_RANGE) from None
    if when < _EPOCH:
        raise click.BadParameter(_OUT_OF_RANGE)
    return when


def _instant(text: str) -> datetime:
    """`--since` as an ISO 8601 date or instant (Python's reading of it: `2026-11-01`,
    `20261101`, `2026-11-01T09:00:00.5+01:00`); usage errors for the rest."""
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise click.BadParameter(
            "<value> is not a date (such as 2026-11-01), an instant (2026-11-01T09:00:00Z) or "
            "a span back from now (7d, 12h)"
        ) from None
    if when.tzinfo is None:
        if "T" in text.upper() or " " in text or ":" in text:  # a time of day, no stated zone
            raise click.BadParameter(
                "<value> gives a time without its offset: end it with Z for UTC"
            )
        when = when.replace(tzinfo=UTC)  # a date alone: its first instant, UTC
    return when


class _Jobs(click.IntRange):
    """`--jobs`: a whole number from 1 to MAX_JOBS, said so in one message for a word, a
    fraction and a number out of range alike (click's own says "not a valid integer range")."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        try:
            return int(super().convert(value, param, ctx))
        except click.BadParameter:
            self.fail(f"<value> is not a whole number from 1 to {MAX_JOBS}", param, ctx)


_JOBS = _Jobs(min=1, max=MAX_JOBS)


def _folder_source(projects_dir: str | None) -> str:
    if projects_dir is not None:
        return "PROJECTS_DIR"
    if os.environ.get("CLAUDE_CONFIG_DIR"):
        return "$CLAUDE_CONFIG_DIR/projects"
    return "~/.claude/projects"


@click.command(short_help="Inspect every session tree of a projects folder.")
# Any path: one that is missing or not a folder is refused (2, CC-TREE-PROJECTS-MISSING) by the
# command itself, not turned into a usage error by click.
@click.argument("projects_dir", required=False, type=click.Path(readable=False))
@click.option(
    "--jobs",
    "-j",
    type=_JOBS,
    default=None,
    help="Worker processes (default: the number of CPUs); never more than the CPUs or the "
    "session transcripts to inspect.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
@click.option(
    "--since",
    metavar="WHEN",
    callback=_since,
    default=None,
    help="Only sessions whose files were written to since WHEN (their modification times): a "
    "date, 2026-11-01 (from midnight UTC), an instant, 2026-11-01T09:00:00Z, or a span back "
    "from now, 7d or 12h. The others are counted, not inspected.",
)
@click.option(
    "--price-card",
    default=None,
    callback=card_given,
    help=f"Also say what each convertible session cost by this card ({CARD_CHOICE}), as "
    "inspect --price-card does: only what the card prices, as an interval.",
)
@show_paths_option(
    "Also list each session's label and local paths, and the skipped entries, symlinked "
    "folders and unreadable project folders the totals count (stderr only)."
)
@key_option
def scan(
    projects_dir: str | None,
    jobs: int | None,
    as_json: bool,
    since: datetime | None,
    price_card: str | None,
    show_paths: bool,
    key_file: Path | None,
) -> Exit:
    """Inspect every session tree under a Claude Code projects folder (default:
    $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects); one content-free row per session."""
    if projects_dir is not None and not str(projects_dir).strip():
        # `scan "$DIR"` with DIR unset: not the working directory, which Path("") would be.
        raise click.UsageError("PROJECTS_DIR is empty; leave it out for the default folder")
    folder = Path(projects_dir) if projects_dir is not None else default_projects_dir()
    first = Gathered()  # the folder and the price card: each problem said at once
    # Which folder was looked in, said by where it came from (the path itself is the user's,
    # shown with --show-paths): a CLAUDE_CONFIG_DIR set to the projects folder itself is a
    # likely slip, and a refusal that did not say it was used left it to be guessed.
    missing = Problem(
        "CC-TREE-PROJECTS-MISSING",
        where=_folder_source(projects_dir),
        local_path=None if folder is None else str(folder),
    )
    # (no home folder: no ~ to look in; a link to a folder counts, one that cannot be told not)
    if folder is None or not ask(folder.is_dir):
        first.refuse(missing)
    card = None
    if price_card is not None:  # loaded before the work: a mistyped name is said at once
        from converter.pricing.card import load_price_card

        card = first(lambda: load_price_card(price_card))
    key = gathered_key(first, key_file)
    first.done()
    assert folder is not None
    assert key is not None
    workers = jobs or available_cpus()
    try:
        found = find_sessions(folder)  # one walk: the rows and --show-paths name the same sessions
    except OSError:  # the projects folder itself cannot be listed (its subfolders are counted)
        raise Refused([missing]) from None
    if since is not None:
        found = written_since(found, since.timestamp())
    with _progress(stderr_is_terminal()) as progress:
        result = run_scan(folder, key.secret, workers, progress, found, card, since)
    if as_json:
        say(orjson.dumps(result, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode())
    else:
        say(render_text(result))
    if show_paths:  # local paths name people and projects: the terminal only, never stdout
        for label, places in local_paths(found, key.secret):
            tell(f"{label}  {'  '.join(printable(p) for p in places)}")
        for place in found.skipped_paths:
            tell(f"skipped  {printable(place)}")
        for place in found.symlink_paths:  # the folders the notes say to fix
            tell(f"symlinked  {printable(place)}")
        for place in found.unreadable_paths:
            tell(f"unreadable  {printable(place)}")
    bugs = bug_rows(result)
    if bugs:  # every row is printed first: the other sessions' results stand
        tell(
            f"internal error (a bug) inspecting {bugs:,} session(s): their rows name the "
            "exception; `agent-evidence inspect --in <parent> --debug` shows its traceback "
            "(`--show-paths` names each session's parent)"
        )
        return Exit.INTERNAL
    return Exit.OK
