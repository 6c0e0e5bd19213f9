"""`agent-evidence evaluate`: bundles in, a decision out; the exit code is the decision's."""

from __future__ import annotations

from pathlib import Path

import click

from converter.cli.diagnostics import say
from converter.cli.options import FILE, PATH
from converter.errors import IntegrityFailure, Refused
from converter.evaluate import evaluate as run_checks
from converter.evaluate import render_json, render_markdown, render_text
from converter.files import check_outputs, write_atomic
from converter.run.workload import load_workload

RENDERERS = {"text": render_text, "markdown": render_markdown, "json": render_json}
# `--report` with no `--format`: its suffix's, else text (a new user's `--report report.md`
# got plain text)
SUFFIX_FORMATS = {".md": "markdown", ".markdown": "markdown", ".json": "json"}


@click.command(short_help="Decide SCALE / ASSIST / STOP / INCOMPLETE for bundles.")
@click.option(
    "--bundle",
    "bundles",
    # PATH, not FILE: a folder given is refused like a missing file, by its place in the
    # list (`bundle 2 of 3`), not as a usage error naming no bundle
    type=PATH,
    multiple=True,
    required=True,
    help="A bundle; repeat to evaluate one workload.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(sorted(RENDERERS)),
    default=None,
    help="The report's format (default: text, or with --report the one its name ends in: "
    ".md or .markdown for markdown, .json for json).",
)
@click.option(
    "--report",
    type=FILE,
    default=None,
    help="Write the report to this file (stdout then gets the decision line only).",
)
@click.option(
    "--public-key",
    type=FILE,
    default=None,
    help="Require each bundle's attestation (<bundle>.intoto.json) to verify.",
)
@click.option(
    "--policy",
    "policy_file",
    type=FILE,
    default=None,
    help="Require the bundles to be under this policy file's claims (the team's file that "
    "convert --template --policy takes): each field it gives must match.",
)
def evaluate(
    bundles: tuple[Path, ...],
    fmt: str | None,
    report: Path | None,
    public_key: Path | None,
    policy_file: Path | None,
) -> int:
    """Decide SCALE / ASSIST / STOP / INCOMPLETE under the bundles' policy (exit 0/3/4/2; 5 when a
    bundle or its signature does not match)."""
    unwritable: Refused | None = None
    if report is not None:
        inputs = list(bundles) + ([policy_file] if policy_file else [])
        try:
            check_outputs([report], inputs, option="--report")
        except Refused as refused:
            # The bundles are opened all the same: a digest or signature that fails is 5
            # whatever else is wrong (a SPEC sweep: a --report refusal hid a tampered bundle).
            unwritable = refused
    try:
        workload = load_workload(bundles, public_key, policy_file)
    except IntegrityFailure as failure:
        if unwritable is not None:
            failure.refusals = [*unwritable.problems, *failure.refusals]
        raise
    except Refused as refused:
        if unwritable is not None:
            both = [*unwritable.problems, *refused.problems]
            raise Refused(both, refused.labels, refused.paths) from None
        raise
    if unwritable is not None:
        raise unwritable
    result = run_checks(workload)
    if fmt is None:
        fmt = SUFFIX_FORMATS.get(report.suffix.lower(), "text") if report else "text"
    text = RENDERERS[fmt](result)
    if report is not None:
        data = text.encode() if text.endswith("\n") else (text + "\n").encode()
        write_atomic(report, data, "--report")
        say(f"{result.decision} (exit {result.exit_code})")
    else:
        say(text)
    return result.exit_code
