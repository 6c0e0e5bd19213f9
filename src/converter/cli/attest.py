"""Attestation commands: `keygen` (the Ed25519 key pair that signs bundle attestations)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from converter.attest.keys import generate_key_files
from converter.cli.diagnostics import say, tell
from converter.cli.options import FILE, PASSPHRASE_ENV, signing_passphrase


@click.command(short_help="Create an Ed25519 signing key pair for --attest-key.")
@click.option(
    "--out",
    "out",
    type=FILE,
    required=True,
    help="Private key file to create (PKCS#8 PEM, mode 0600); the public key goes to OUT.pub.",
)
@click.option(
    "--encrypt",
    is_flag=True,
    help=f"Encrypt the private key with a passphrase: ${PASSPHRASE_ENV}, else asked twice on "
    "the terminal. convert --attest-key asks for it the same way.",
)
def keygen(out: Path, encrypt: bool) -> None:
    """Create an Ed25519 signing key pair for --attest-key; never replaces a file."""
    if not encrypt and os.environ.get(PASSPHRASE_ENV):  # set for this, most likely: said
        tell(f"notice: ${PASSPHRASE_ENV} is set, but without --encrypt the key is not encrypted")
    made = generate_key_files(out, signing_passphrase(new=True) if encrypt else None)
    say(f"created signing key {made.key_id}" + (", encrypted" if encrypt else ""))
    # The names are the user's own typing: said by their rule, never echoed (a name is a path).
    say("public key: the --out file's name with .pub added (give that file to whoever verifies)")
