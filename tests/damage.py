"""Helpers for refusal and fuzz tests: copy a fixture tree, damage the copy, run a command guarded.

`run_guarded` is the one place a damaged-input run is checked for what must never happen: a
traceback, an internal error, a canary (or any fixture marker) in stdout/stderr, or any file
written, changed or removed under the watched folders. Commands are `Command` values, so a later
`convert --template OUT` case is one more entry in `COMMANDS` (see the TODO there).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from converter.firewall.keys import PseudonymKey
from converter.firewall.pseudonyms import Pseudonymizer
from tests.conftest import FIXTURES, TEST_KEY, Result

# Every fixture string carries `CANARY-<12 hex>`; planted markers use the same prefix, so a single
# check covers both. A space keeps a planted marker from being model-, version- or name-shaped
# (those may cross the firewall by design, SPEC §6.3).
MARKER = "CANARY"
_PSEUDO = Pseudonymizer(PseudonymKey(bytes.fromhex(TEST_KEY)))
_REFUSED = re.compile(
    r"^refused: (?P<code>[A-Z0-9-]+)"
    r"(?: \[(?P<where>[^\]]*?)?(?: ?line (?P<line>[0-9]+))?\])?"
    r"(?: \((?P<path>[^)]*)\))?: "
)


def rename_own_model(child: Path, parent: Path, old: str, new: str) -> None:
    """Give a child transcript's own calls another model. Its copies of the parent's calls (a
    fork's bootstrap) stay as Claude Code wrote them: a copy naming another model than the call
    it repeats is refused (CC-REC-COPY-DISAGREE)."""
    copied = {
        record["message"]["id"]
        for record in map(json.loads, parent.read_text().splitlines())
        if record.get("type") == "assistant"
    }
    lines = child.read_text().splitlines(keepends=True)
    for n, line in enumerate(lines):
        record = json.loads(line)
        if record.get("type") == "assistant" and record["message"]["id"] not in copied:
            lines[n] = line.replace(old, new)
    child.write_text("".join(lines))


def canary(tag: str) -> str:
    """A planted marker for one damaged spot (not model-, version- or tool-name-shaped)."""
    return f"{MARKER}-{tag} planted"


@dataclass
class Tree:
    """A writable copy of a fixture tree under tmp_path."""

    root: Path  # the folder holding the parent transcript
    parent: Path

    @property
    def session(self) -> str:
        return self.parent.name.removesuffix(".jsonl")

    @property
    def folder(self) -> Path:
        return self.root / self.session

    def path(self, rel: str) -> Path:
        """`rel` is relative to the session folder; "" or "parent" is the parent transcript."""
        return self.parent if rel in ("", "parent") else self.folder / rel

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def label(self, role: str, rel: str) -> str:
        """The `role/file-<hmac>` label a refusal carries for this file (SPEC §6.4)."""
        return f"{role}/{_PSEUDO.name('file', self.rel(self.path(rel)))}"

    def lines(self, rel: str = "") -> list[bytes]:
        return self.path(rel).read_bytes().split(b"\n")[:-1]

    def write_lines(self, rel: str, lines: Iterable[bytes], *, final_newline: bool = True) -> None:
        body = b"\n".join(lines) + (b"\n" if final_newline else b"")
        self.path(rel).write_bytes(body)

    def set_line(self, rel: str, number: int, raw: bytes) -> None:
        """Replace 1-based line `number` with raw bytes."""
        lines = self.lines(rel)
        lines[number - 1] = raw
        self.write_lines(rel, lines)

    def record(self, rel: str, number: int) -> dict[str, Any]:
        value = json.loads(self.lines(rel)[number - 1])
        assert isinstance(value, dict)
        return value

    def edit_record(self, rel: str, number: int, edit: Callable[[dict[str, Any]], None]) -> None:
        obj = self.record(rel, number)
        edit(obj)
        self.set_line(rel, number, dump(obj))

    def find_line(self, rel: str, needle: str) -> int:
        """1-based number of the first line containing `needle`."""
        for number, raw in enumerate(self.lines(rel), 1):
            if needle.encode() in raw:
                return number
        raise LookupError(needle)


def dump(obj: Any) -> bytes:
    """Compact JSON with raw non-ASCII, like Claude Code writes it."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def copy_tree(name: str, dest: Path) -> Tree:
    target = dest / name
    shutil.copytree(FIXTURES / name, target, symlinks=True)
    parent = next(target.glob("*.jsonl"))
    return Tree(target, parent)


@dataclass(frozen=True)
class Command:
    """A CLI command run against one tree; `argv(parent, out)` builds its arguments."""

    name: str
    argv: Callable[[Path, Path], list[str]]
    json_report: bool = False  # stdout is the `inspect --json` report

    def __str__(self) -> str:
        return self.name


INSPECT = Command(
    "inspect", lambda parent, out: ["inspect", "--json", "--in", str(parent)], json_report=True
)
# Every refusal test runs both: a tree inspect refuses, convert must refuse too.
CONVERT_TEMPLATE = Command(
    "convert-template",
    lambda parent, out: [
        "convert",
        "--from",
        "claude-code-tree",
        "--in",
        str(parent),
        "--template",
        str(out),
    ],
)
COMMANDS: tuple[Command, ...] = (INSPECT, CONVERT_TEMPLATE)


@dataclass(frozen=True)
class Refusal:
    code: str
    file: str | None
    line: int | None


@dataclass
class Outcome:
    code: int
    out: str
    err: str
    refusals: list[Refusal] = field(default_factory=list)  # as printed on stderr
    report: dict[str, Any] | None = None  # inspect --json, or what a template says of the tree

    @property
    def codes(self) -> set[str]:
        return {r.code for r in self.refusals}

    def has(self, code: str, file: str | None = None, line: int | None = None) -> bool:
        return any(
            r.code == code and (file is None or r.file == file) and (line is None or r.line == line)
            for r in self.refusals
        )


def snapshot(*folders: Path) -> dict[str, tuple[int, int, int]]:
    """Every path under the folders (not following links): kind bits, size, mtime."""
    seen: dict[str, tuple[int, int, int]] = {}
    for folder in folders:
        if not folder.exists():
            continue
        for dirpath, dirnames, filenames in os.walk(folder):
            for name in dirnames + filenames:
                path = Path(dirpath) / name
                info = path.lstat()
                size = info.st_size if stat.S_ISREG(info.st_mode) else 0
                seen[str(path)] = (stat.S_IFMT(info.st_mode), size, info.st_mtime_ns)
    return seen


def parse_refusals(err: str) -> list[Refusal]:
    found = []
    for text in err.splitlines():
        if text.endswith(" more") and ": ... and " in text:  # a collapsed group's count
            continue
        match = _REFUSED.match(text)
        if match:
            line = match.group("line")
            found.append(
                Refusal(match.group("code"), match.group("where"), int(line) if line else None)
            )
    return found


def run_guarded(
    cli: Callable[..., Result],
    argv: list[str],
    *,
    watch: Iterable[Path],
    markers: Iterable[str] = (MARKER,),
    outputs: Iterable[Path] = (),
    allowed: Iterable[int] = (0, 2, 64),
) -> Outcome:
    """Run the real CLI; assert no traceback, no marker in any output, nothing written.

    A successful run (exit 0) may write exactly its declared outputs, and nothing else.
    """
    watched = list(watch)
    outputs = list(outputs)
    before = snapshot(*watched)
    result = cli(*argv)
    written: list[bytes] = []
    if result.code == 0:
        for out in outputs:
            if out.exists():
                written.append(out.read_bytes())
                for marker in markers:
                    assert marker.encode() not in written[-1], f"content leaked: {marker!r}"
                out.unlink()
    after = snapshot(*watched)
    text = result.out + result.err
    assert "Traceback" not in text, result.err
    assert "internal error" not in result.err, result.err
    assert result.code in set(allowed), (result.code, result.err[-2000:])
    for marker in markers:
        assert marker not in text, f"content leaked: {marker!r}"
    assert after == before, "files were written, changed or removed"
    for out in outputs:
        assert not out.exists(), f"{out.name} was written"
        assert not list(out.parent.glob(f"*{out.name}*")), "a temporary output was left behind"
    outcome = Outcome(result.code, result.out, result.err, parse_refusals(result.err))
    if result.out.lstrip().startswith("{"):
        outcome.report = json.loads(result.out)
    elif written:
        outcome.report = _what_a_template_says(json.loads(written[0]))
    return outcome


def _what_a_template_says(template: dict[str, Any]) -> dict[str, Any]:
    """A template without what binds the files' exact bytes (their sizes and digests, and the
    keyed digest over them): the same tree written with other line ends or a BOM says the same."""
    inventory = {
        k: v for k, v in template["inventory"].items() if k not in ("files", "inventory_sha256")
    }
    return {**template, "inventory": inventory}


# What stderr names by the option that gave it, where the JSON has no file: nothing at the
# --in path, a --provider-bodies folder that is none.
_AT_OPTION = {"CC-TREE-PARENT-MISSING": "--in", "CC-BODY-DIR-UNREADABLE": "--provider-bodies"}


def _as_shown(listed: list[Refusal]) -> list[Refusal]:
    """The JSON refusals as stderr shows them: at most PER_GROUP per (code, file), a file
    that is no file of the tree at its option (`_AT_OPTION`)."""
    from converter.cli.diagnostics import PER_GROUP

    seen: dict[tuple[str, str | None], int] = {}
    shown = []
    for listed_one in listed:
        refusal = listed_one
        if refusal.file is None and refusal.line is None and refusal.code in _AT_OPTION:
            refusal = Refusal(refusal.code, _AT_OPTION[refusal.code], None)
        key = (refusal.code, refusal.file)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= PER_GROUP:
            shown.append(refusal)
    return shown


def run_command(
    cli: Callable[..., Result],
    command: Command,
    tree: Tree,
    tmp_path: Path,
    *extra: str,
    markers: Iterable[str] = (MARKER,),
    allowed: Iterable[int] = (0, 2, 64),
) -> Outcome:
    """Run `command` on `tree`, its output (if any) aimed at a fresh folder that must stay empty."""
    out_dir = tmp_path / "out"
    out_dir.mkdir(exist_ok=True)
    out = out_dir / f"{command.name}.json"
    argv = command.argv(tree.parent, out) + list(extra)
    outcome = run_guarded(
        cli,
        argv,
        watch=[tree.root, out_dir],
        markers=markers,
        outputs=[out],
        allowed=allowed,
    )
    if command.json_report and outcome.report is not None:
        # stderr and the JSON report must list the same refusals, in the same order
        listed = [Refusal(r["code"], r["file"], r["line"]) for r in outcome.report["refusals"]]
        assert _as_shown(listed) == outcome.refusals
    return outcome


def expect_refusal(
    outcome: Outcome, code: str, file: str | None = None, line: int | None = None
) -> None:
    """Exit 2 and a refusal with this code (and, when given, this file label and line)."""
    assert outcome.code == 2, (outcome.code, outcome.err[-2000:])
    assert outcome.has(code, file, line), (code, file, line, outcome.refusals)
