"""Which stages a module loads: checked in a fresh interpreter, since the test run has every
module loaded already."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def _loaded(imports: list[str], prefixes: tuple[str, ...]) -> list[str]:
    code = (
        "import json, sys\n"
        + "".join(f"import {name}\n" for name in imports)
        + f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({prefixes!r}))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded: list[str] = json.loads(done.stdout)
    return loaded


@pytest.mark.parametrize(
    "imports",
    [
        ["converter.bundle.io", "converter.evaluate"],
        ["converter.contract.read", "converter.pricing.card", "converter.attest.dsse"],
    ],
    ids=["bundle-evaluate", "contract-card-envelope"],
)
def test_reading_an_artifact_does_not_load_the_reader(imports: list[str]) -> None:
    """Was: opening a bundle imported the reader and the sources (pricing's name check lived in
    the firewall's crossing, which imports the reader; the argument shape model imported the
    reader's shape tuple). An artifact is read without the code that reads transcripts."""
    loaded = _loaded(imports, ("converter.reader", "converter.sources"))
    assert loaded == [], (
        f"importing {', '.join(imports)} loads {loaded}: the stages after the reader reach it "
        "only through firewall/boundary.py"
    )


@pytest.mark.parametrize("command", ["inspect", "convert", "evaluate", "verify", "scan"])
def test_a_command_loads_cryptography_only_to_sign_or_check_a_signature(command: str) -> None:
    """Was: moving the signed-bundle opener into attest/ made evaluate and verify import it (and
    cryptography, ~12 MB of a peak the bench holds to 150 MB) on every run, key or not."""
    loaded = _loaded([f"converter.cli.{command}"], ("cryptography",))
    assert loaded == [], f"importing converter.cli.{command} loads cryptography"


@pytest.mark.parametrize("command", ["inspect", "scan"])
def test_reading_a_tree_loads_neither_pricing_nor_evaluate(command: str) -> None:
    """Was: a plural helper moved into evaluate/fmt made inspect and scan load the whole
    evaluate package and, through it, pricing (0.04 s and 2 MB on every run). The pricing
    package's own `__init__` (the shipped cards' names, for `--price-card`'s help) is allowed:
    it reads a folder listing and imports no model."""
    loaded = _loaded([f"converter.cli.{command}"], ("converter.evaluate", "converter.pricing."))
    assert loaded == [], f"importing converter.cli.{command} loads {loaded}"


def test_inspect_priced_from_a_card_runs_without_evaluate(tmp_path: Path) -> None:
    """Was: `inspect --price-card` imported evaluate's number formats inside a function, so the
    import-time check above passed while every priced run loaded all of evaluate (a code
    review). Checked after a whole run, in a fresh interpreter."""
    tree = Path(__file__).parent.parent / "fixtures" / "synthetic_tree"
    parent = next(tree.glob("*.jsonl"))
    code = (
        "import json, sys\n"
        "from converter.cli.main import main\n"
        "try:\n"
        f"    main(['inspect', '--in', {str(parent)!r}, '--price-card', 'anthropic-2026-12'])\n"
        "except SystemExit as done:\n"
        "    code = done.code\n"
        "print(json.dumps([code, sorted(m for m in sys.modules if m.startswith("
        "'converter.evaluate'))]))"
    )
    env = {**os.environ, "AGENT_EVIDENCE_KEY": "de" * 32}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    code_, loaded = json.loads(done.stdout.splitlines()[-1])
    assert code_ in (0, None), done.stderr
    assert "$" in done.stdout  # priced: the money line was printed
    assert loaded == [], f"inspect --price-card loads {loaded}"


def test_the_reading_worker_does_not_load_pydantic() -> None:
    """The worker process reads transcripts with msgspec alone; a model library in its imports
    would cost every worker its start-up time and memory."""
    loaded = _loaded(["converter.reader.worker"], ("pydantic",))
    assert loaded == [], f"the reading worker loads {loaded}"


# The pipeline, bottom to top: a module imports only from its own unit or a lower layer. The
# folder names are the design (README "Layout"); this keeps the code from drifting from it.
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "__init__",
        "errors",
        "limits",
        "recorded",
        "heap",
        "codec",
        "text",
        "vocabulary",
        "regular",
    ),  # shared, no stage
    ("files", "sources"),
    ("reader",),
    ("firewall",),
    ("pricing",),
    ("contract",),
    ("bundle",),
    ("attest",),
    ("evaluate",),
    ("run",),
    ("cli",),
    ("entry",),
    ("__main__", "devtools"),
)
SRC = Path(__file__).resolve().parents[1] / "src" / "converter"


def _unit(module: str) -> str:
    """`converter.reader.build` -> `reader`; `converter.errors` -> `errors`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _absolute(node: ast.ImportFrom, path: Path, root: Path = SRC) -> str:
    """A relative import's module spelled absolutely (`from ..cli import x` in
    converter/evaluate/graph.py is converter.cli): was not checked at all (a review)."""
    package = list(path.relative_to(root.parent).parts[:-1])  # a module's or __init__'s folder
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _imports(path: Path, root: Path = SRC) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            module = _absolute(node, path, root)
            if node.module is None:  # `from .. import cli`: each name may be a module
                found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, module))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "converter":  # a submodule, or a name of the package itself
                for alias in node.names:
                    is_module = any(
                        SRC.joinpath(p).exists() for p in (alias.name, f"{alias.name}.py")
                    )
                    found.append(
                        (node.lineno, f"converter.{alias.name}" if is_module else "converter")
                    )
            elif node.module.startswith("converter."):
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("converter.")]
    return found


def test_every_import_goes_down_the_pipeline() -> None:
    """Was: the reader imported the firewall (a cycle between the two stages), opening a bundle
    imported attest, evaluate's reports imported the inspect command's module."""
    layer = {unit: depth for depth, units in enumerate(LAYERS) for unit in units}
    wrong = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC.parent).with_suffix("")
        here = _unit(".".join(relative.parts))
        assert here in layer, f"{relative}: a new top-level unit; give it a layer in LAYERS"
        for line, module in _imports(path):
            there = _unit(module)
            if there != here and layer[there] >= layer[here]:
                wrong.append(f"{relative}.py:{line} imports {module} ({here} -> {there})")
    assert wrong == []


def test_a_relative_import_is_checked_too(tmp_path: Path) -> None:
    """The check above must see `from ..cli import main` (was: only absolute imports)."""
    module = SRC / "evaluate" / "graph.py"
    node = ast.parse("from ..cli import main").body[0]
    assert isinstance(node, ast.ImportFrom)
    assert _absolute(node, module) == "converter.cli"
    node = ast.parse("from . import fmt").body[0]
    assert isinstance(node, ast.ImportFrom)
    assert _absolute(node, module) == "converter.evaluate"
    # and the test above flags them (a review: `from .. import cli` passed as `converter`)
    for line in ("from ..cli import main", "from .. import cli"):
        scratch = tmp_path / "converter" / "evaluate" / "graph.py"
        scratch.parent.mkdir(parents=True, exist_ok=True)
        scratch.write_text(line + "\n")
        found = [m for _, m in _imports(scratch, tmp_path / "converter")]
        assert found == ["converter.cli"], (line, found)
    node = ast.parse("from .fmt import usd").body[0]
    assert isinstance(node, ast.ImportFrom)
    assert _absolute(node, SRC / "evaluate" / "__init__.py") == "converter.evaluate.fmt"


def test_the_kinds_of_file_told_apart_by_their_keys_agree_with_the_models() -> None:
    """Three places tell this tool's files apart by their top-level keys without loading the
    other file's model (files.py below every stage, a card's reader, a contract's): each list
    is checked here against the models, so a section added to one cannot leave the others
    calling the file by the wrong kind (a code review)."""
    from converter import files
    from converter.contract.model import Contract, Preset
    from converter.pricing import card

    assert set(Preset.model_fields) == files._POLICY_SECTIONS
    required = {name for name, field in card.PriceCard.model_fields.items() if field.is_required()}
    assert required >= files._CARD_FIELDS
    # a card's reader calls a policy file, a contract or a bundle by its kind: a key of each
    # that no card has
    assert set(Preset.model_fields) <= card._OTHER_FILES
    assert "claims" in Contract.model_fields
    assert "claims" in card._OTHER_FILES
    assert "receipt" in card._OTHER_FILES
    assert not card._OTHER_FILES & set(card.PriceCard.model_fields)
