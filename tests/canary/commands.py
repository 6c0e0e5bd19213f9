"""The commands the privacy property runs: one entry per command (or output format).

A runner gets an `Invocation` (the tree's parent transcript, an empty work folder for anything the
command writes, a pseudonym key file, and the in-process CLI) and returns an `Output`: exit code,
stdout, stderr and the bytes of every file the command wrote. The property indexes all of them.

Adding a command is one entry in `COMMANDS`. Commands that need an earlier artifact (a contract,
a bundle) produce it in the same runner from the same tree, in `inv.workdir`, so the artifact is
checked too. Still to add, once a test helper can complete a template into a contract:

    "convert-contract": _convert_contract,   # template -> contract -> bundle, all collected
    "evaluate-json":    _evaluate("json"),   # likewise for text / markdown, on that bundle
    "verify":           _verify,             # and a stale-contract / tampered-bundle variant

Every runner also receives a corrupted tree in the failing-run property; it must then refuse
(or report) without quoting anything.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Invocation:
    parent: Path  # <base>/<project>/<sid>.jsonl
    workdir: Path  # empty; everything the command writes goes here
    key_file: Path  # mode 0600 pseudonym key
    cli: Callable[..., Any]  # tests.conftest `cli` fixture: (*args) -> Result(code, out, err)


@dataclass
class Output:
    code: int
    stdout: str
    stderr: str
    files: dict[str, bytes] = field(default_factory=dict)

    def texts(self, name: str) -> dict[str, str | bytes]:
        """Every output byte of this run, labelled for leak reports."""
        out: dict[str, str | bytes] = {f"{name}:stdout": self.stdout, f"{name}:stderr": self.stderr}
        out.update({f"{name}:file:{rel}": data for rel, data in self.files.items()})
        return out


Runner = Callable[[Invocation], Output]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def run(inv: Invocation, *args: str) -> Output:
    """Run one command line; collect every file it left in the work folder or the tree."""
    tree_root = inv.parent.parent.parent
    before = snapshot(tree_root)
    result = inv.cli(*args)
    after = snapshot(tree_root)
    written = {f"tree/{k}": v for k, v in after.items() if before.get(k) != v}
    written.update({f"work/{k}": v for k, v in snapshot(inv.workdir).items()})
    return Output(result.code, result.out, result.err, written)


def _key(inv: Invocation) -> list[str]:
    return ["--key-file", str(inv.key_file)]


COMMANDS: dict[str, Runner] = {
    "inspect-text": lambda inv: run(inv, "inspect", "--in", str(inv.parent), *_key(inv)),
    "inspect-json": lambda inv: run(inv, "inspect", "--json", "--in", str(inv.parent), *_key(inv)),
    "inspect-session-json": lambda inv: run(
        inv, "inspect", "--json", "--task-unit", "session", "--in", str(inv.parent), *_key(inv)
    ),
    "convert-template": lambda inv: run(
        inv,
        "convert",
        "--in",
        str(inv.parent),
        "--template",
        str(inv.workdir / "t.json"),
        *_key(inv),
    ),
    "scan-json": lambda inv: run(
        inv, "scan", str(inv.parent.parent.parent), "--json", "--jobs", "1", *_key(inv)
    ),
    "scan-text": lambda inv: run(
        inv, "scan", str(inv.parent.parent.parent), "--jobs", "1", *_key(inv)
    ),
    "key-init": lambda inv: run(inv, "key", "init", "--key-file", str(inv.workdir / "new.key")),
    "key-show-id": lambda inv: run(inv, "key", "show-id", *_key(inv)),
}

# The command whose stdout is compared across keys (pseudonym stability / key separation).
PSEUDONYM_COMMANDS = ("inspect-json",)
