"""The real corpus through the leak assertion (SPEC §6.5, issue 5 item 4).

For every session tree in ../shared/corpus/real, every string value of 8+ characters in its files
(each JSON line decoded; values, not keys; lines that do not decode are taken whole) and every
file and folder name is a source string. None of them, and no 8-character piece of one, may appear
in `inspect --json`, in the text report, or on stderr; nor in what `scan` (table and --json, by a
price card) says of a folder holding trees, whose every file is a source, skipped ones too.

Real transcripts are English prose, so a naive 8-gram check would flag the product's own words
("standard", "subagents", "metadata", "Session tree" …) wherever a prompt happens to use them.
The check is made exact instead by separating what the product prints into two parts:

* The product's **fixed vocabulary**: every word of every string constant in the modules that
  write command output (`converter.cli.main`, `converter.cli.diagnostics`,
  `converter.run.inspection`), every reason code with its fixed message and fix
  (`converter.errors.CODES`), the field names of the output models (`converter.firewall.view`),
  and the built-in tool and agent-type names (`converter.firewall.names`). These words are in the
  product's source, so their presence in an output says nothing about any transcript.
* **Declared crossings** validated by strict types (SPEC §6.1): token counts, timestamps, model
  names, Claude Code versions and billing values that occur in the tree's own fields of that kind.

Every output token that is neither is indexed (pseudonyms, key ids, digests — and anything that
should not be there). Source strings that are themselves allowed names, or made only of
fixed-vocabulary words, are not searched: an output containing them proves nothing. Everything
else is searched whole in the indexed tokens, and, for strings of 16+ characters, whole in the
raw outputs too.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, get_args

import pytest
from pydantic import BaseModel

import converter.bundle.model
import converter.cli.convert
import converter.cli.diagnostics
import converter.cli.evaluate
import converter.cli.main
import converter.cli.scan
import converter.cli.verify
import converter.contract.model
import converter.evaluate.checks
import converter.evaluate.fmt
import converter.evaluate.inputs
import converter.evaluate.report
import converter.evaluate.result
import converter.pricing.model
import converter.run.inspection
import converter.run.outputs
import converter.run.scan
import converter.run.verification
from converter.devtools.bench.fill import fill
from converter.errors import CODES
from converter.firewall import view
from converter.firewall.names import BUILTIN_AGENT_TYPES, BUILTIN_TOOLS
from converter.pricing.card import shipped_cards
from converter.sources.tree import Role
from tests.canary.generate import json_strings
from tests.canary.leaks import OutputIndex, describe, leaks
from tests.conftest import shared_dir

SHARED = shared_dir()
pytestmark = pytest.mark.skipif(SHARED is None, reason="shared corpus not present")

OUTPUT_MODULES: tuple[ModuleType, ...] = (
    converter.cli.main,
    converter.cli.diagnostics,
    converter.cli.convert,
    converter.cli.evaluate,
    converter.cli.verify,
    converter.run.inspection,
    converter.run.verification,
    converter.evaluate.checks,
    converter.evaluate.fmt,
    converter.evaluate.report,
)
MODEL_MODULES: tuple[ModuleType, ...] = (
    view,
    converter.contract.model,
    converter.bundle.model,
    converter.pricing.model,
    converter.evaluate.inputs,
    converter.evaluate.result,
)
# scan's own words, exempt in scan's outputs only (the other tests' exemptions stay as small):
# the modules that write its table and notes, the models of its --json, and the names of the
# shipped cards it prices by.
SCAN_OUTPUT_MODULES: tuple[ModuleType, ...] = (converter.cli.scan, converter.run.scan)
SCAN_MODEL_MODULES: tuple[ModuleType, ...] = (converter.run.outputs,)
_TOKEN = re.compile(r"[^\s\"'`{}\[\](),;|]+")
_NUMBER = re.compile(r"-?[0-9][0-9,]*(\.[0-9]+)?")
# Keyed pseudonyms and digests are HMAC / SHA-256 output: they cannot carry content, and their
# random hex can meet a source string's 8 characters by chance.
# A file's label in a diagnostic or a finding's place is its role (fixed vocabulary) and key.
_ROLES = "|".join(re.escape(role) for role in (*get_args(Role), "unbound"))
_KEYED = re.compile(
    rf"(((?:{_ROLES})/)?(task|event|agent|file|tool|agent-type|model|run|edge)-[0-9a-f]{{12}}"
    r"|(hmac-sha256:|key-)?[0-9a-f]{16,64})"
)
_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9:.]+Z)?")
_VERSION = re.compile(r"[0-9]{1,4}(\.[0-9]{1,6}){1,3}")


def tokens(text: str) -> list[str]:
    """Words of a text, without the punctuation and the Markdown emphasis (`**`) around them."""
    return [t.strip(":.*") for t in _TOKEN.findall(text) if t.strip(":.*")]


def _string_constants(module: ModuleType) -> Iterator[str]:
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value


def _model_fields(module: ModuleType) -> Iterator[str]:
    for obj in vars(module).values():
        if isinstance(obj, type) and issubclass(obj, BaseModel):
            yield from obj.model_fields


def fixed_vocabulary(
    outputs: tuple[ModuleType, ...] = OUTPUT_MODULES, models: tuple[ModuleType, ...] = MODEL_MODULES
) -> frozenset[str]:
    words: set[str] = set()
    for module in outputs + models:
        for constant in _string_constants(module):
            words.update(tokens(constant))
    for code, info in CODES.items():
        words.update(tokens(f"{code} {info.message} {info.fix}"))
    for module in models:
        words.update(_model_fields(module))
    words.update(BUILTIN_TOOLS | BUILTIN_AGENT_TYPES)
    words.update(("main", "root", "agent", "task", "workflow", "skill-fork", "compaction"))
    words.update(("side", "sidechain", "requests", "consumes", "delegates", "returns"))
    words.update(("ok", "error", "no-result", "prompt", "session", "true", "false", "null"))
    return frozenset(words)


VOCAB = fixed_vocabulary() if SHARED is not None else frozenset()
SCAN_VOCAB = (
    fixed_vocabulary(OUTPUT_MODULES + SCAN_OUTPUT_MODULES, MODEL_MODULES + SCAN_MODEL_MODULES)
    | frozenset(shipped_cards())  # the card a figure is by: `cost by price card anthropic-…`
    if SHARED is not None
    else frozenset()
)


# ------------------------------------------------------------------------------------------
# the trees and their strings


def parents() -> list[Path]:
    if SHARED is None:
        return []
    real = SHARED / "corpus" / "real"
    return sorted(
        p
        for p in real.rglob("*.jsonl")
        if "subagents" not in p.parts
        and not p.name.startswith("agent-")
        and p.name != "journal.jsonl"
    )


def tree_files(parent: Path) -> list[Path]:
    files = [parent]
    folder = parent.with_suffix("")
    if folder.is_dir():
        files += sorted(p for p in folder.rglob("*") if p.is_file())
    files += sorted(parent.parent.glob("agent-*.jsonl"))  # 2.0.x children beside the parent
    return files


def folder_files(folder: Path) -> list[Path]:
    """Every file under a folder `scan` is given: the trees it reads and the entries it skips."""
    return sorted(p for p in folder.rglob("*") if p.is_file())


class Sources:
    """The strings of some files (a tree's), and the values of the fields whose kind may
    cross."""

    def __init__(self, files: list[Path], real: Path) -> None:
        self.strings: set[str] = set()
        self.allowed: set[str] = set(BUILTIN_TOOLS | BUILTIN_AGENT_TYPES)
        for path in files:
            self.strings.update(path.relative_to(real).parts)
            self.strings.update(p.name for p in path.relative_to(real).parents)
            self._read(path)

    def _read(self, path: Path) -> None:
        data = path.read_bytes().decode("utf-8", "replace")
        chunks = data.split("\n") if path.suffix == ".jsonl" else [data]
        for chunk in chunks:
            if not chunk.strip():
                continue
            try:
                value = json.loads(chunk)
            except ValueError:
                self.strings.add(chunk)
                continue
            self.strings.update(json_strings(value))
            self._allowed(value)

    def _allowed(self, value: Any) -> None:
        if not isinstance(value, dict):
            return
        for key in ("type", "subtype", "version"):
            if isinstance(value.get(key), str):
                self.allowed.add(value[key])
        message = value.get("message")
        if isinstance(message, dict):
            if isinstance(message.get("model"), str):
                self.allowed.add(message["model"])
            usage = message.get("usage")
            if isinstance(usage, dict):
                for key in ("service_tier", "speed", "inference_geo"):
                    if isinstance(usage.get(key), str):
                        self.allowed.add(usage[key])

    def searched(self, vocab: frozenset[str]) -> set[str]:
        """Source strings of 8+ characters that are not allowed names nor product words."""
        out = set()
        for s in self.strings:
            if len(s) < 8 or s in self.allowed or _TIMESTAMP.fullmatch(s):
                continue
            words = tokens(s)
            if words and all(w in vocab or w in self.allowed for w in words):
                continue
            out.add(s)
        return out


def variable_tokens(text: str, allowed: set[str], vocab: frozenset[str]) -> list[str]:
    """Output tokens that are not fixed vocabulary nor declared crossings."""
    return [
        t
        for t in tokens(text)
        if t not in vocab
        and t not in allowed
        and not _NUMBER.fullmatch(t)
        and not _KEYED.fullmatch(t)
        and not _TIMESTAMP.fullmatch(t)
        and not _VERSION.fullmatch(t)
    ]


def _id(parent: Path) -> str:
    assert SHARED is not None
    return parent.relative_to(SHARED / "corpus" / "real").as_posix()


def find_leaks(parent: Path, raw: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    """(source strings of the tree found in the indexed output tokens, long ones found in raw
    outputs)."""
    return find_leaks_of(tree_files(parent), raw)


def find_leaks_of(
    files: list[Path], raw: dict[str, str], vocab: frozenset[str] = VOCAB
) -> tuple[dict[str, Any], list[str]]:
    """`find_leaks` of the strings of any files (a scanned folder's), under a vocabulary."""
    assert SHARED is not None
    sources = Sources(files, SHARED / "corpus" / "real")
    index = OutputIndex()
    for label, text in raw.items():
        index.add(label, "\n".join(variable_tokens(text, sources.allowed, vocab)))
    searched = sources.searched(vocab)
    long_whole = [s for s in searched if len(s) >= 16 and any(s in t for t in raw.values())]
    return leaks(searched, index), long_whole


def run_inspect(parent: Path, cli: Any) -> dict[str, str]:
    json_run = cli("inspect", "--json", "--in", str(parent))
    text_run = cli("inspect", "--in", str(parent))
    assert json_run.code in (0, 2)
    assert text_run.code == json_run.code
    assert "Traceback" not in json_run.err + text_run.err
    return {
        "json:stdout": json_run.out,
        "json:stderr": json_run.err,
        "text:stdout": text_run.out,
        "text:stderr": text_run.err,
    }


@pytest.mark.parametrize("parent", parents(), ids=_id)
def test_real_tree_leaks_nothing(parent: Path, cli: Any) -> None:
    found, long_whole = find_leaks(parent, run_inspect(parent, cli))
    assert not found, describe(found)
    assert not long_whole, long_whole[:5]


def run_pipeline(parent: Path, cli: Any, work: Path, *options: str) -> dict[str, str]:
    """Template, filled contract, bundle and every report format, all collected as text (with
    what each step said on stderr); `options` given to both conversions."""
    template = work / "t.json"
    templated = cli("convert", "--in", str(parent), *options, "--template", str(template))
    assert templated.code == 0, templated.err
    contract = work / "c.json"
    contract.write_text(json.dumps(fill(json.loads(template.read_text()))))
    bundle = work / "b.json"
    made = cli(
        "convert", "--in", str(parent), *options, "--contract", str(contract), "--out", str(bundle)
    )
    assert made.code == 0, made.err
    raw = {"template": template.read_text(), "contract": contract.read_text()}
    raw["bundle"] = bundle.read_text()
    raw["convert-stderr"] = templated.out + templated.err + made.out + made.err
    for fmt in ("text", "markdown", "json"):
        result = cli("evaluate", "--bundle", str(bundle), "--format", fmt)
        assert "Traceback" not in result.err
        raw[f"evaluate-{fmt}"] = result.out + result.err
    verified = cli("verify", "--bundle", str(bundle))
    # every check of a bundle's parts holds for one a conversion wrote (the real trees are
    # the widest test of the integrity rules a resealed bundle is held to)
    assert verified.code == 0, verified.err
    raw["verify"] = verified.out + verified.err
    return raw


@pytest.mark.parametrize("parent", parents(), ids=_id)
def test_real_tree_artifacts_leak_nothing(parent: Path, cli: Any, tmp_path: Path) -> None:
    """Issue 3 and 5: every artifact made from a real tree holds none of its strings. A tree
    refused per prompt is converted as one task if it can be (an architecture review: such
    trees were skipped, their artifacts never checked), and its refused template run's output
    is checked either way."""
    if cli("inspect", "--json", "--in", str(parent)).code == 0:
        raw = run_pipeline(parent, cli, tmp_path)
    else:
        refused = cli("convert", "--in", str(parent), "--template", str(tmp_path / "t.json"))
        assert refused.code == 2
        assert not (tmp_path / "t.json").exists()
        raw = {"refused-template": refused.out + refused.err}
        session = ("--task-unit", "session")
        if cli("inspect", "--json", "--in", str(parent), *session).code == 0:
            raw |= run_pipeline(parent, cli, tmp_path, *session)
    found, long_whole = find_leaks(parent, raw)
    assert not found, describe(found)
    assert not long_whole, long_whole[:5]


def scanned_folders() -> list[Path]:
    """Each project folder holding a corpus tree (scanned as one project folder) and each
    folder holding such project folders (a projects folder), but the corpus's own root."""
    if SHARED is None:
        return []
    real = SHARED / "corpus" / "real"
    folders = {p.parent for p in parents()} | {p.parent.parent for p in parents()}
    return sorted(folders - {real})


_SESSION_FILE = re.compile(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}\.jsonl")


def run_scan(folder: Path, cli: Any) -> dict[str, str]:
    """`scan` of the folder by the card, as its table and as JSON."""
    raw = {}
    card = ("--price-card", "anthropic-2026-12")
    for name, flags in (("text", ()), ("json", ("--json",))):
        result = cli("scan", str(folder), "--jobs", "1", *flags, *card)
        assert result.code == 0, result.err
        assert "Traceback" not in result.err
        raw[f"{name}:stdout"] = result.out
        raw[f"{name}:stderr"] = result.err
    # a row for each session transcript in it (a folder of excerpts and logs has none)
    rows = json.loads(raw["json:stdout"])["sessions"]
    named = [p for p in parents() if folder in p.parents and _SESSION_FILE.fullmatch(p.name)]
    assert bool(rows) == bool(named), (len(rows), named)
    return raw


def _folder_id(folder: Path) -> str:
    assert SHARED is not None
    return folder.relative_to(SHARED / "corpus" / "real").as_posix()


@pytest.mark.parametrize("folder", scanned_folders(), ids=_folder_id)
def test_real_scan_leaks_nothing(folder: Path, cli: Any) -> None:
    """`scan` (its table and --json, with a price card: models, costs, refusal codes, notes on
    skipped entries) of real project folders and projects folders says nothing of any file in
    them: not of a tree it reads, nor of an entry it skips (a hook's log, an excerpt)."""
    found, long_whole = find_leaks_of(folder_files(folder), run_scan(folder, cli), SCAN_VOCAB)
    assert not found, describe(found)
    assert not long_whole, long_whole[:5]


def test_corpus_check_finds_a_planted_leak(cli: Any) -> None:
    """The exemptions do not blind the check: a cwd fragment, a message id or a prompt word
    pasted into an output is found."""
    parent = next(p for p in parents() if p.name.startswith("258c7280"))
    raw = run_inspect(parent, cli)
    records = [json.loads(line) for line in parent.read_text().splitlines() if line.strip()]
    cwd = next(r["cwd"] for r in records if isinstance(r.get("cwd"), str))
    msg = next(r["message"]["id"] for r in records if r.get("type") == "assistant")
    for planted in (cwd[-9:], msg, f"model {cwd[1:9]}"):
        found, _ = find_leaks(parent, {**raw, "text:stdout": raw["text:stdout"] + planted})
        assert found, planted


def test_vocabulary_is_the_products_own_words() -> None:
    """The exemption list is derived from the product's source, and stays small: no word of it
    is a pseudonym, digest or path."""
    assert "convertible" in VOCAB
    assert "CC-TREE-ORPHAN-CHILD" in VOCAB
    assert all(len(w) <= 64 for w in VOCAB)
    assert not [w for w in VOCAB if re.fullmatch(r"[a-z-]+-[0-9a-f]{12}", w)]
    assert VOCAB < SCAN_VOCAB  # scan's words are exempt in scan's outputs only
    assert not [w for w in SCAN_VOCAB if re.fullmatch(r"[a-z-]+-[0-9a-f]{12}", w)]
