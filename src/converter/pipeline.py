"""The pipeline in one place: sources → reader → firewall. Commands call these, nothing deeper."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from converter.firewall.boundary import Policy, cross
from converter.firewall.pseudonyms import Pseudonymizer
from converter.firewall.view import PublicAccount
from converter.reader.build import build_account
from converter.reader.load import load
from converter.reader.model import Account
from converter.sources.tree import discover

TaskUnit = Literal["prompt", "session"]


def read_tree(parent: Path, task_unit: TaskUnit = "prompt") -> Account:
    """Find, bind and account a session tree. Local ids stay inside the returned value."""
    return build_account(load(discover(parent)), task_unit)


def inspect_tree(
    parent: Path,
    pseudo: Pseudonymizer,
    task_unit: TaskUnit = "prompt",
    policy: Policy | None = None,
) -> tuple[Account, PublicAccount]:
    account = read_tree(parent, task_unit)
    return account, cross(account, pseudo, policy or Policy())
