"""Shared test helpers: where the shared corpus is, a fixed key, and an in-process CLI runner."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, settings

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


@pytest.fixture(autouse=True)
def _isolated_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs with a fixed key and a private config dir, never the user's own."""
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", TEST_KEY)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Any:
    return lambda *args: run_cli(list(args), capsys)


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
