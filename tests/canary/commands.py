"""The commands the privacy property runs: one entry per command (or output format).

A runner gets an `Invocation` (the tree's parent transcript, an empty work folder for anything the
command writes, a pseudonym key file, and the in-process CLI) and returns an `Output`: exit code,
stdout, stderr and the bytes of every file the command wrote. The property indexes all of them.

Adding a command is one entry in `COMMANDS`. Commands that need an earlier artifact (a contract,
a bundle) produce it in the same runner from the same tree, in `inv.workdir`, so the artifact is
checked too (`_chain`: template -> filled contract -> bundle [-> attestation] -> the command).

Every runner also receives a corrupted tree in the failing-run property; it must then refuse
(or report) without quoting anything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Invocation:
    parent: Path  # <base>/<project>/<sid>.jsonl
    workdir: Path  # empty; everything the command writes goes here
    key_file: Path  # mode 0600 pseudonym key
    cli: Callable[..., Any]  # tests.conftest `cli` fixture: (*args) -> Result(code, out, err)
    # given wherever the tree is read (inspect, both conversions, verify's re-derivation):
    # `--provider-bodies DIR --task-unit session` makes every runner a run over bodies too
    options: tuple[str, ...] = ()


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


def _in(inv: Invocation) -> list[str]:
    """The tree to read, with the invocation's options."""
    return ["--in", str(inv.parent), *inv.options]


def _chain(
    inv: Invocation,
    *finals: Sequence[str],
    attest: bool = False,
    options: Sequence[str] = (),
    bundle: bool = True,
) -> Output:
    """Template, completed contract, bundle (signed when `attest`; none without `bundle`), then
    each of `finals` on them (`{work}` in one stands for the work folder); `options` go to both
    conversions.

    Stops at the first step that does not succeed (a corrupted tree refuses at the template);
    every step's stdout and stderr, and every file left behind, are collected.
    """
    import json

    from converter.devtools.bench.fill import fill

    work = inv.workdir
    template = ["convert", *_in(inv), *options, "--template", str(work / "t.json"), *_key(inv)]
    outputs = [run(inv, *template)]
    if outputs[-1].code == 0:
        contract = work / "c.json"
        contract.write_text(json.dumps(fill(json.loads((work / "t.json").read_text()))))
        more: list[list[str]] = []
        if attest:
            more.append(["keygen", "--out", str(work / "signing.pem")])
        if bundle:
            made = ["convert", *_in(inv), *options, "--contract", str(contract)]
            made += ["--out", str(work / "b.json"), *_key(inv)]
            if attest:
                made += ["--attest-key", str(work / "signing.pem")]
            more.append(made)
        more += [[part.replace("{work}", str(work)) for part in final] for final in finals]
        for args in more:
            outputs.append(run(inv, *args))
            if outputs[-1].code not in (0, 2, 3, 4):  # evaluate's decisions are not failures
                break
    last = outputs[-1]
    return Output(
        last.code,
        "".join(o.stdout for o in outputs),
        "".join(o.stderr for o in outputs),
        last.files,
    )


def _evaluate(fmt: str) -> Runner:
    return lambda inv: _chain(
        inv,
        [
            "evaluate",
            "--bundle",
            "{work}/b.json",
            "--format",
            fmt,
            "--report",
            "{work}/report." + fmt,
        ],
    )


def _verify(inv: Invocation) -> Output:
    """The bundle's digest alone, then digest, signature and re-derivation from the tree."""
    return _chain(
        inv,
        ["verify", "--bundle", "{work}/b.json"],
        [
            "verify",
            "--bundle",
            "{work}/b.json",
            "--public-key",
            "{work}/signing.pem.pub",
            "--contract",
            "{work}/c.json",
            *_in(inv),
            *_key(inv),
        ],
        attest=True,
    )


def _from_contract(inv: Invocation) -> Output:
    """A template carrying the claims of an earlier contract of the tree forward."""
    again = ["convert", *_in(inv), "--template", "{work}/t2.json", "--from-contract"]
    return _chain(inv, [*again, "{work}/c.json", *_key(inv)], bundle=False)


CARD = ("--price-card", "anthropic-2026-12")


def _scan(inv: Invocation, *flags: str) -> Output:
    """`scan` of the projects folder the tree is in (`flags` anywhere: `--debug` is global)."""
    return run(inv, "scan", str(inv.parent.parent.parent), "--jobs", "1", *flags, *_key(inv))


COMMANDS: dict[str, Runner] = {
    "inspect-text": lambda inv: run(inv, "inspect", *_in(inv), *_key(inv)),
    "inspect-json": lambda inv: run(inv, "inspect", "--json", *_in(inv), *_key(inv)),
    "inspect-session-json": lambda inv: run(
        inv, "inspect", "--json", "--task-unit", "session", *_in(inv), *_key(inv)
    ),
    # --debug on a run that does not crash adds nothing (a traceback is an internal error's)
    "inspect-debug-text": lambda inv: run(inv, "--debug", "inspect", *_in(inv), *_key(inv)),
    "convert-template": lambda inv: run(
        inv, "convert", *_in(inv), "--template", str(inv.workdir / "t.json"), *_key(inv)
    ),
    "convert-template-priced": lambda inv: run(
        inv, "convert", *_in(inv), "--template", str(inv.workdir / "t.json"), *CARD, *_key(inv)
    ),
    "convert-template-from-contract": _from_contract,
    "scan-json": lambda inv: _scan(inv, "--json"),
    "scan-text": _scan,
    "scan-priced-text": lambda inv: _scan(inv, *CARD),
    "scan-priced-json": lambda inv: _scan(inv, "--json", *CARD),
    "scan-debug-json": lambda inv: _scan(inv, "--json", "--debug"),
    "inspect-priced-text": lambda inv: run(inv, "inspect", *_in(inv), *CARD, *_key(inv)),
    "convert-contract": _chain,
    # the single-file source: the parent transcript alone (trees without subagents: SINGLE_FILE)
    "convert-single-file": lambda inv: _chain(inv, options=("--from", "claude-code")),
    "evaluate-text": _evaluate("text"),
    "evaluate-markdown": _evaluate("markdown"),
    "evaluate-json": _evaluate("json"),
    "verify": _verify,
    "key-init": lambda inv: run(inv, "key", "init", "--key-file", str(inv.workdir / "new.key")),
    "key-show-id": lambda inv: run(inv, "key", "show-id", *_key(inv)),
}

# Commands that read the parent transcript alone: a tree with subagent transcripts is refused
# (CC-TREE-CHILDREN-NOT-READ) before anything is written, so the property gives them trees
# without delegations (`generate.trees(delegations=False)`), which convert whole.
SINGLE_FILE = ("convert-single-file",)

# The command whose stdout is compared across keys (pseudonym stability / key separation).
PSEUDONYM_COMMANDS = ("inspect-json",)
