"""`agent-evidence verify`: check a bundle someone else made (SPEC §2, §9). The checks and their
order are `run.verification`'s; this parses the options and prints each line as it passes.

Exit 0 when every requested check passed; 5 when one found a mismatch (the bundle, attestation
or sources do not belong together); 2 when a check could not run (a file missing or unreadable,
an attestation that is no DSSE envelope at all, a key unusable, the sources refused against the
contract).
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

import click

from converter.cli.diagnostics import say
from converter.cli.options import (
    FILE,
    PATH,
    SOURCES,
    TASK_UNIT_CHOICE,
    gathered_key,
    key_option,
    provider_bodies_option,
    show_paths_option,
)
from converter.errors import Gathered
from converter.files import attestation_path
from converter.firewall.pseudonyms import Pseudonymizer
from converter.run.verification import Rederivation, verification
from converter.vocabulary import SourceName, TaskUnit


@click.command(short_help="Check a bundle's digest, signature and re-derivation.")
@click.option(
    "--bundle",
    type=PATH,  # a folder is refused as BUNDLE-IS-FOLDER, as in evaluate
    required=True,
    help="The bundle to verify.",
)
@click.option(
    "--attestation",
    type=FILE,
    default=None,
    help="The DSSE attestation (default: <bundle>.intoto.json); needs --public-key.",
)
@click.option(
    "--public-key",
    type=FILE,
    default=None,
    help="The producer's Ed25519 public key (.pem.pub): require a valid attestation.",
)
@click.option(
    "--contract",
    "contract_in",
    type=FILE,
    default=None,
    help="The completed contract: with --in, re-derive the bundle and compare bytes.",
)
@click.option(
    "--in",
    "parent",
    type=PATH,
    default=None,
    help="The parent transcript <session-id>.jsonl the bundle was made from.",
)
@click.option(
    "--from",
    "source",
    type=SOURCES,
    default=None,
    help="Source adapter (default: the one the contract names).",
)
@click.option(
    "--task-unit",
    type=TASK_UNIT_CHOICE,
    default=None,
    help="Task unit (default: the one the contract names).",
)
@show_paths_option(
    "With re-derivation: add local relative paths to the sources' diagnostics (stderr)."
)
@provider_bodies_option
@key_option
def verify(
    show_paths: bool,
    bundle: Path,
    attestation: Path | None,
    public_key: Path | None,
    contract_in: Path | None,
    parent: Path | None,
    source: str | None,
    task_unit: str | None,
    bodies: Path | None,
    key_file: Path | None,
) -> None:
    """Verify a bundle: its digest, its signed attestation, its re-derivation (exit 0/5/2)."""
    if attestation is not None and public_key is None:
        raise click.UsageError("--attestation needs --public-key (the key to check it with)")
    if (contract_in is None) != (parent is None):
        raise click.UsageError("re-deriving needs both --contract C.json and --in SESSION.jsonl")
    if contract_in is None and (source or task_unit or key_file or show_paths or bodies):
        raise click.UsageError(
            "--from, --task-unit, --provider-bodies, --key-file and --show-paths only apply "
            "with --contract/--in"
        )

    rederivation = None
    if contract_in is not None and parent is not None:
        from converter.contract.read import contract_file

        given = contract_in
        # The key and the contract are checked before the bundle is, their problems said with
        # its own (docs/commands.md "Refusal messages"): a mistyped --key-file was said only
        # once every attestation problem had been fixed. Never a new key: a fresh key could
        # only re-derive a different bundle.
        first = Gathered()
        key = gathered_key(first, key_file, create=False)
        contract = first(lambda: contract_file(given))
        rederivation = Rederivation(
            contract=contract,
            parent=parent,
            source=cast(SourceName | None, source),
            task_unit=cast(TaskUnit | None, task_unit),
            pseudonymizer=Pseudonymizer(key) if key is not None else None,
            bodies=bodies,
            refused=first.problems,
        )
    envelope = attestation or attestation_path(bundle)
    for line in verification(bundle, envelope, public_key, rederivation):
        say(line)
