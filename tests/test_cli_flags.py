"""Flags every command shares: where `--debug` may stand, `--provider-bodies` on each command
SPEC §2 gives it to, and a `--key-file` that names no file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from converter.cli.main import main
from tests.conftest import fixture_parent

PARENT = fixture_parent("synthetic_tree")


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_is_taken_before_or_after_the_command(where: str, cli: Any) -> None:
    args = ["inspect", "--in", str(PARENT.with_name("missing.jsonl"))]
    result = cli(*(["--debug", *args] if where == "before" else [*args, "--debug"]))
    assert result.code == 2  # the refusal, not a usage error about --debug
    assert "CC-TREE-PARENT-MISSING" in result.err


def test_debug_after_the_command_shows_a_bug_and_without_it_exit_70(
    cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr("converter.cli.inspect.summarize_tree", broken)
    with pytest.raises(RuntimeError):
        main(["inspect", "--in", str(PARENT), "--debug"])
    result = cli("inspect", "--in", str(PARENT))
    assert result.code == 70
    assert "internal error (RuntimeError); rerun with --debug" in result.err


@pytest.mark.parametrize(
    "command",
    [
        ["inspect", "--in", str(PARENT)],
        ["convert", "--in", str(PARENT), "--template", "t.json"],
    ],
    ids=["inspect", "convert"],
)
def test_provider_bodies_is_known_and_not_supported_yet(
    command: list[str], cli: Any, tmp_path: Path
) -> None:
    result = cli(*command, "--provider-bodies", str(tmp_path))
    assert result.code == 64
    assert "--provider-bodies is not supported yet" in result.err


def test_a_key_file_that_does_not_exist_says_so(cli: Any, tmp_path: Path) -> None:
    result = cli("inspect", "--in", str(PARENT), "--key-file", str(tmp_path / "none.key"))
    assert result.code == 2
    assert "KEY-FILE-MISSING" in result.err
    assert "none could be created" not in result.err
    assert str(tmp_path) not in result.err


def test_show_paths_escapes_what_a_terminal_would_act_on(cli: Any, tmp_path: Path) -> None:
    """A file name can hold an escape sequence or a line break that forges another diagnostic;
    --show-paths prints it escaped, on one line."""
    import shutil

    tree = tmp_path / "t"
    shutil.copytree(PARENT.parent, tree)
    parent = tree / PARENT.name
    hostile = "agent-a1234567\x1b[31mred\nrefused: FAKE\u202e.jsonl"
    (tree / PARENT.stem / "subagents" / hostile).write_text("{}\n")
    result = cli("inspect", "--in", str(parent), "--show-paths")
    assert result.code == 2
    assert "\x1b" not in result.err
    assert "\u202e" not in result.err
    assert "red\\nrefused: FAKE\\u202e.jsonl" in result.err
    assert not any(line.startswith("refused: FAKE") for line in result.err.splitlines())
