"""The whole public account of a tree and an argument's shape model, for tests.

The commands cross an account in their own steps (`run.pipeline.read_tree`, then
`firewall.boundary.cross` for a bundle's events or `summarize` for a report); tests that check
every public event at once start here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from converter.firewall.boundary import Policy, cross
from converter.firewall.pseudonyms import Pseudonymizer
from converter.firewall.shapes import ArgShape, as_model
from converter.firewall.view import PublicAccount
from converter.reader.model import Account
from converter.recorded import shape_tuple
from converter.run.pipeline import read_tree
from converter.vocabulary import SourceName, TaskUnit


def cross_tree(
    parent: Path,
    pseudo: Pseudonymizer,
    task_unit: TaskUnit = "prompt",
    policy: Policy | None = None,
    source: SourceName = "claude-code-tree",
    read_jobs: int | None = None,
    bodies: Path | None = None,
) -> tuple[Account, PublicAccount]:
    """The tree's account and all of it crossed under `policy` (names pseudonymized, exact
    timestamps when none is given)."""
    account = read_tree(parent, task_unit, source, read_jobs, bodies=bodies)
    return account, cross(account, pseudo, policy or Policy())


def shape_of(value: Any) -> ArgShape:
    """The closed shape model of a tool call's argument value."""
    return as_model(shape_tuple(value))
