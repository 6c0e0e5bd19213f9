"""`agent-evidence evaluate`: bundles in, a decision out; the exit code is the decision's."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from converter.attest.signed import open_attested
from converter.bundle.io import integrity_mismatches, open_bundle
from converter.cli.diagnostics import say
from converter.cli.options import FILE, read_input
from converter.errors import IntegrityFailure, Problem, Refused
from converter.evaluate import evaluate as run_checks
from converter.evaluate import render_json, render_markdown, render_text
from converter.output import check_outputs, write_atomic
from converter.run.workload import (
    FactsBuilder,
    LoadedBundle,
    build_workload,
    labelled,
    workload_problems,
)

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

RENDERERS = {"text": render_text, "markdown": render_markdown, "json": render_json}


def load_bundle(path: Path, public_key: Ed25519PublicKey | None) -> LoadedBundle:
    """Open a bundle (digest checked, exit 5 on mismatch) into its task facts; with a key,
    require its attestation."""
    data = read_input(path, "BUNDLE-UNREADABLE")
    facts = FactsBuilder()
    if public_key is None:
        return open_bundle(data, sink=facts), facts
    envelope = Path(f"{path}.intoto.json")
    bundle, _, _ = open_attested(
        data,
        lambda: read_input(envelope, "ATTEST-MISSING", empty_is_missing=True),
        lambda: public_key,
        sink=facts,
    )
    return bundle, facts


def load_bundles(
    paths: tuple[Path, ...], public_key: Ed25519PublicKey | None
) -> list[LoadedBundle]:
    """Every bundle opened, or every problem of every bundle, each labelled `bundle N of M`
    (with several), and why they are not one workload. Exit 5 if any bundle failed an
    integrity check (its other problems and the other bundles' refusals are printed with it),
    else 2: a mismatch anywhere is never reported as a mere refusal, whatever the order of the
    bundles (a broken file given first cannot hide a tampered one)."""
    total = len(paths)
    loaded: list[LoadedBundle | None] = []
    mismatches: list[Problem] = []
    refusals: list[Problem] = []
    for position, path in enumerate(paths, 1):
        try:
            loaded.append(load_bundle(path, public_key))
            continue
        except IntegrityFailure as failure:
            mismatches += labelled(failure.problems, position, total)
            refusals += labelled(failure.refusals, position, total)
        except Refused as refused:
            refusals += labelled(refused.problems, position, total)
        loaded.append(None)
    refusals += workload_problems(
        [item[0] if item else None for item in loaded],
        [item[1].used if item else set() for item in loaded],
        [item[1].event_ids if item else () for item in loaded],
    )
    if mismatches:
        raise IntegrityFailure.several(mismatches, refusals)
    if refusals:
        raise Refused(refusals)
    return [item for item in loaded if item is not None]


def _unless_tampered(paths: tuple[Path, ...], bad_key: Refused) -> NoReturn:
    """The key cannot check any signature: refused (2), unless a bundle fails its own digest,
    which is a mismatch (5) whatever else stopped the check (the key's refusal said with it)."""
    mismatches: list[Problem] = []
    unread: list[Problem] = []
    for position, path in enumerate(paths, 1):
        try:
            data = read_input(path, "BUNDLE-UNREADABLE")
        except Refused as refused:
            unread += labelled(refused.problems, position, len(paths))
            continue
        mismatches += labelled(integrity_mismatches(data), position, len(paths))
    if mismatches:
        raise IntegrityFailure.several(mismatches, [*bad_key.problems, *unread]) from None
    raise Refused([*bad_key.problems, *unread]) from None


@click.command()
@click.option(
    "--bundle",
    "bundles",
    type=FILE,
    multiple=True,
    required=True,
    help="A bundle; repeat to evaluate one workload.",
)
@click.option(
    "--format", "fmt", type=click.Choice(sorted(RENDERERS)), default="text", show_default=True
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
def evaluate(
    bundles: tuple[Path, ...], fmt: str, report: Path | None, public_key: Path | None
) -> None:
    """Decide SCALE / ASSIST / STOP / INCOMPLETE under the bundles' policy (exit 0/3/4/2)."""
    if report is not None:
        check_outputs([report], list(bundles))
    key = signed_by = None
    if public_key is not None:  # every bundle is refused unless its attestation verifies
        from converter.attest.dsse import key_id
        from converter.attest.keys import load_public_key

        try:
            key = load_public_key(public_key)  # a key that cannot be used is refused here, once
        except Refused as bad_key:
            _unless_tampered(bundles, bad_key)
        signed_by = key_id(key)
    result = run_checks(build_workload(load_bundles(bundles, key), signed_by))
    text = RENDERERS[fmt](result)
    if report is not None:
        write_atomic(report, text.encode() if text.endswith("\n") else (text + "\n").encode())
        say(f"{result.decision} (exit {result.exit_code})")
    else:
        say(text)
    sys.exit(result.exit_code)
