"""`agent-evidence key init | show-id`: the pseudonym key (SPEC §6.2)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from converter.cli.diagnostics import say, tell
from converter.cli.options import FILE, NamedGroup, key_option, pseudonym_key
from converter.errors import Refused
from converter.firewall.keys import (
    ENV_VAR,
    create_key,
    default_key_shown,
    load_key,
)


@click.group(cls=NamedGroup, short_help="Manage the pseudonym key (keep it private).")
def key() -> None:
    """Manage the pseudonym key (it is in no artifact; keep it private)."""


@key.command("init")
@click.option(
    "--key-file",
    type=FILE,
    default=None,
    help="Where to create the key (default: $XDG_CONFIG_HOME/agent-evidence/pseudonym.key, "
    "~/.config when XDG_CONFIG_HOME is unset; never $AGENT_EVIDENCE_KEY, which holds a key).",
)
def key_init(key_file: Path | None) -> None:
    """Create a new pseudonym key (mode 0600); refuses to replace one."""
    shadowed = key_file is None and bool(os.environ.get(ENV_VAR))
    try:
        created = create_key(key_file)
    except Refused:
        if shadowed:  # a file there already (KEY-EXISTS), or none made: neither is in use
            tell(f"notice: {ENV_VAR} is set, and commands use {_env_key()} before any key file.")
        raise
    where = "the --key-file given" if key_file is not None else default_key_shown()
    say(f"created pseudonym key {created.key_id} in {where}")
    if shadowed:
        # Every other command would use the variable's key: say so before pseudonyms diverge.
        # (The key is created either way: a notice never turns it into a refusal.)
        tell(
            f"notice: {ENV_VAR} is set, and commands use {_env_key()} before this file; unset "
            "it to use the new key."
        )


def _env_key() -> str:
    """The key $AGENT_EVIDENCE_KEY holds, by its key id, as a notice names it."""
    try:
        return f"its key ({load_key(None, create=False).key.key_id})"
    except Refused:
        return "it (not a valid key: they refuse until it is fixed)"


@key.command("show-id", short_help="Print the key's public fingerprint (key_id).")
@key_option
def key_show_id(key_file: Path | None) -> None:
    """Print the key's public fingerprint (key_id), which artifacts carry."""
    say(pseudonym_key(key_file, create=False).key_id)
