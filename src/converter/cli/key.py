"""`agent-evidence key init | show-id`: the pseudonym key (SPEC §6.2)."""

from __future__ import annotations

from pathlib import Path

import click

from converter.cli.diagnostics import say
from converter.cli.options import key_option
from converter.firewall.keys import create_key, default_key_path, load_key


@click.group()
def key() -> None:
    """Manage the pseudonym key (it never leaves this machine)."""


@key.command("init")
@key_option
def key_init(key_file: Path | None) -> None:
    """Create a new pseudonym key (mode 0600); refuses to replace one."""
    created = create_key(key_file or default_key_path())
    say(f"created pseudonym key {created.key_id}")


@key.command("show-id")
@key_option
def key_show_id(key_file: Path | None) -> None:
    """Print the key's public fingerprint (key_id), which artifacts carry."""
    say(load_key(key_file, create=False).key.key_id)
