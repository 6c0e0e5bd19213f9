"""Shared test helpers: where the shared corpus is, a fixed key, and an in-process CLI runner."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, is_hypothesis_test, settings

from converter.cli.main import main

if TYPE_CHECKING:
    from tests.damage import Tree

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
TEST_KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"

settings.register_profile(
    "default",
    max_examples=25,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile(
    "fuzz",
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """`make fuzz` runs the tests marked `fuzz`: every hypothesis test, and the tests named
    property or fuzz that draw their own examples. Was: chosen by name alone, which left 9
    hypothesis tests out (the canonical encoder's, the strict JSON reader's) (a code review)."""
    for item in items:
        name = item.nodeid.lower()  # the file's name too: test_fuzz_reader.py
        drawn = is_hypothesis_test(getattr(item, "obj", None))
        if drawn or "property" in name or "fuzz" in name:
            item.add_marker(pytest.mark.fuzz)


def shared_dir() -> Path | None:
    env = os.environ.get("AGENT_EVIDENCE_SHARED")
    for candidate in ([Path(env)] if env else []) + [ROOT.parent / "shared"]:
        if (candidate / "corpus" / "real").is_dir():
            return candidate
    return None


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say whether the real-corpus tests ran: skipped, they prove nothing."""
    found = shared_dir()
    if found is None:
        terminalreporter.write_line(
            "real corpus: NOT FOUND (../shared/corpus/real, or set AGENT_EVIDENCE_SHARED): "
            "the corpus and corpus-privacy tests were skipped",
            yellow=True,
        )
    else:
        terminalreporter.write_line(f"real corpus: {found / 'corpus' / 'real'}")


def fixture_parent(name: str) -> Path:
    return next((FIXTURES / name).glob("*.jsonl"))


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> Result:
    """Run the real entry point (its exit-code mapping included) in this process."""
    capsys.readouterr()
    try:
        main(args)
        code = 0
    except SystemExit as done:
        code = int(done.code or 0)
    captured = capsys.readouterr()
    return Result(code, captured.out, captured.err)


@pytest.fixture
def tmp_path(tmp_path: Path) -> Path:
    """Each test's folder one level down in pytest's own: a transcript a test writes straight
    into its folder has that folder as its project folder, and pytest's folders of the other
    tests beside it were project folders beside it, holding the same fixed session ids: a
    split session (CC-TREE-SPLIT-SESSION), which evaluate holds open, by the order tests ran."""
    own = tmp_path / "w"
    own.mkdir()
    return own


@pytest.fixture(autouse=True)
def _isolated_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs with a fixed key and a private config dir, never the user's own."""
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", TEST_KEY)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Any:
    return lambda *args: run_cli(list(args), capsys)


# Run as root, a process reads a file of mode 000 and writes into a folder of mode 500: these
# capabilities are what lets it. A test of what a file's mode forbids runs the CLI without them.
_DROP_MODE_OVERRIDES = ("setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--")


@pytest.fixture(scope="session")
def _modes_bind(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, ...] | None:
    """What runs a command so that file modes bind it: nothing to add when not root; as root,
    setpriv dropping the capabilities that override them, checked to work here; None when that
    cannot be had (no setpriv, or one that may not drop them)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return ()
    if shutil.which("setpriv") is None:
        return None
    probe = tmp_path_factory.mktemp("modes") / "closed"
    probe.write_bytes(b"x")
    probe.chmod(0)
    done = subprocess.run(
        [*_DROP_MODE_OVERRIDES, sys.executable, "-c", f"open({str(probe)!r}, 'rb')"],
        capture_output=True,
        check=False,
    )
    return _DROP_MODE_OVERRIDES if done.returncode != 0 else None


@pytest.fixture
def modes_cli(_modes_bind: tuple[str, ...] | None) -> Callable[..., Result]:
    """The real CLI in a process of its own that file modes bind, root or not (a file of mode
    000 cannot be read, a folder of mode 500 not written); skipped as root without setpriv."""
    if _modes_bind is None:
        pytest.skip("root, and setpriv cannot drop CAP_DAC_OVERRIDE here: modes do not bind")
    prefix = _modes_bind

    def run(*args: str) -> Result:
        done = subprocess.run(
            [*prefix, sys.executable, "-m", "converter", *args],
            capture_output=True,
            check=False,
            encoding="utf-8",
            errors="replace",
        )
        return Result(done.returncode, done.stdout, done.stderr)

    return run


@pytest.fixture
def syn(tmp_path: Path) -> Tree:
    """A fresh copy of the synthetic tree to damage (tests/damage.py)."""
    from tests.damage import copy_tree  # damage.py imports this module

    return copy_tree("synthetic_tree", tmp_path / "src")


@pytest.fixture
def rich(tmp_path: Path) -> Tree:
    """A fresh copy of the rich tree to damage (tests/damage.py)."""
    from tests.damage import copy_tree

    return copy_tree("rich_tree", tmp_path / "src")
