"""Diagnostics on stderr: code, fixed message, location, fix. Never a value from an input."""

from __future__ import annotations

import click

from converter.errors import CODES, Problem
from converter.firewall.boundary import file_ref
from converter.firewall.pseudonyms import Pseudonymizer
from converter.reader.model import Account


def describe(
    code: str, where: str | None = None, line: int | None = None, path: str | None = None
) -> str:
    info = CODES[code]
    location = ""
    if where:
        location = f" [{where}" + (f" line {line}" if line else "") + "]"
    elif line:
        location = f" [line {line}]"
    shown = f" ({path})" if path else ""
    return f"{code}{location}{shown}: {info.message} Fix: {info.fix}"


def emit_problems(
    problems: list[Problem],
    account: Account | None = None,
    pseudo: Pseudonymizer | None = None,
    show_paths: bool = False,
) -> None:
    for problem in problems:
        where = file_ref(pseudo, account, problem) if account and pseudo else problem.where
        path = None
        if show_paths:
            if problem.local_path:
                path = problem.local_path
            elif account is not None and problem.file is not None and problem.file >= 0:
                path = account.tree.layout.files[problem.file].rel
        click.echo("refused: " + describe(problem.code, where, problem.line, path), err=True)
