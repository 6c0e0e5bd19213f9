"""`agent-evidence evaluate`: bundles in, a decision out; the exit code is the decision's."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from converter.bundle.io import open_bundle, require_own_receipt
from converter.cli.options import read_input
from converter.evaluate import evaluate as run_checks
from converter.evaluate import render_json, render_markdown, render_text
from converter.output import check_outputs, write_atomic
from converter.workload import FactsBuilder, LoadedBundle, build_workload

RENDERERS = {"text": render_text, "markdown": render_markdown, "json": render_json}


def load_bundle(path: Path, public_key: Path | None) -> LoadedBundle:
    """Open a bundle (digest checked, exit 5 on mismatch) into its task facts; with a key,
    require its attestation."""
    data = read_input(path, "BUNDLE-UNREADABLE")
    facts = FactsBuilder()
    bundle = open_bundle(data, sink=facts)
    if public_key is not None:
        from converter.attest.keys import load_public_key
        from converter.attest.statement import check_attestation

        envelope = read_input(Path(f"{path}.intoto.json"), "ATTEST-MISSING", empty_is_missing=True)
        require_own_receipt(bundle, check_attestation(data, envelope, load_public_key(public_key)))
    return bundle, facts


@click.command()
@click.option(
    "--bundle",
    "bundles",
    type=click.Path(path_type=Path, dir_okay=False),
    multiple=True,
    required=True,
    help="A bundle; repeat to evaluate one workload.",
)
@click.option(
    "--format", "fmt", type=click.Choice(sorted(RENDERERS)), default="text", show_default=True
)
@click.option(
    "--report",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Write the report to this file (stdout then gets the decision line only).",
)
@click.option(
    "--public-key",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Require each bundle's attestation (<bundle>.intoto.json) to verify.",
)
def evaluate(
    bundles: tuple[Path, ...], fmt: str, report: Path | None, public_key: Path | None
) -> None:
    """Decide SCALE / ASSIST / STOP / INCOMPLETE under the bundles' policy (exit 0/3/4/2)."""
    if report is not None:
        check_outputs([report], list(bundles))
    loaded = [load_bundle(path, public_key) for path in bundles]
    result = run_checks(build_workload(loaded))
    text = RENDERERS[fmt](result)
    if report is not None:
        write_atomic(report, text.encode() if text.endswith("\n") else (text + "\n").encode())
        click.echo(f"{result.decision} (exit {result.exit_code})")
    else:
        click.echo(text)
    sys.exit(result.exit_code)
