"""Outputs are atomic and never replace inputs (issue 6 §2 and its convert cases)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from converter.errors import Refused
from converter.files import check_outputs
from tests.conftest import FIXTURES, fixture_parent

PARENT = fixture_parent("synthetic_tree")
CONTRACT = FIXTURES / "synthetic_contract.json"


@pytest.fixture(autouse=True)
def _demo_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", "de" * 32)  # the checked-in contract's key


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_output_folder_missing_or_a_file(cli: Any, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    for out in (tmp_path / "missing" / "t.json", blocker / "t.json"):
        result = cli("convert", "--in", str(PARENT), "--template", str(out))
        assert result.code == 2
        # which output (a new-user audit: a command with several named none)
        assert "OUT-UNWRITABLE [--template]" in result.err
        bundle = cli("convert", "--in", str(PARENT), "--contract", str(CONTRACT), "--out", str(out))
        assert "OUT-UNWRITABLE [--out]" in bundle.err
        report = cli("evaluate", "--bundle", str(PARENT), "--report", str(out))
        assert "OUT-UNWRITABLE [--report]" in report.err
        assert str(tmp_path) not in result.err + bundle.err + report.err
    assert _leftovers(tmp_path) == ["a-file"]


def test_read_only_output_folder(modes_cli: Any, tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        result = modes_cli("convert", "--in", str(PARENT), "--template", str(folder / "t.json"))
    finally:
        folder.chmod(0o700)
    assert result.code == 2
    assert _leftovers(folder) == []


def test_a_folder_that_refuses_the_write_itself(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a read-only folder does to anyone but root (the test above skips as root): the
    checks before the work pass, then the write itself is refused. Exit 2, nothing left."""
    import errno

    def refused(*_: Any, **__: Any) -> Any:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr("converter.files.tempfile.mkstemp", refused)
    result = cli("convert", "--in", str(PARENT), "--template", str(tmp_path / "t.json"))
    assert result.code == 2
    assert "OUT-UNWRITABLE" in result.err
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("full", ["ENOSPC", "EDQUOT", "EFBIG"])
def test_a_full_disk_is_said_as_such_and_leaves_nothing(
    full: str, cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was OUT-UNWRITABLE, whose fix sent the user to look for a missing or read-only folder
    (an operations review, on a full tmpfs)."""
    import errno

    old = tmp_path / "t.json"
    old.write_text("an earlier template\n")

    def no_room(_: int) -> None:
        raise OSError(getattr(errno, full), "No space left on device")

    monkeypatch.setattr("converter.files.os.fsync", no_room)
    result = cli("convert", "--in", str(PARENT), "--template", str(old), "--force")
    assert result.code == 2
    assert "OUT-NO-SPACE" in result.err
    assert _leftovers(tmp_path) == ["t.json"]
    assert old.read_text() == "an earlier template\n"


@pytest.mark.parametrize(
    "text",
    ['{"schema_version": ', '{"a": 1, "a": 2}', '{"a": NaN}', "[1, 2]", "\xff\xfe", ""],
)
def test_contract_edited_into_invalid_json(text: str, cli: Any, tmp_path: Path) -> None:
    contract = tmp_path / "c.json"
    contract.write_bytes(text.encode("latin-1"))
    out = tmp_path / "b.json"
    result = cli("convert", "--in", str(PARENT), "--contract", str(contract), "--out", str(out))
    assert result.code == 2
    assert "CONTRACT-UNREADABLE" in result.err or "CONTRACT-SHAPE" in result.err
    assert "Traceback" not in result.err
    assert _leftovers(tmp_path) == ["c.json"]


def test_bundle_output_equal_to_contract_refuses(cli: Any, tmp_path: Path) -> None:
    contract = tmp_path / "c.json"
    shutil.copy(CONTRACT, contract)
    before = contract.read_bytes()
    result = cli(
        "convert", "--in", str(PARENT), "--contract", str(contract), "--out", str(contract)
    )
    assert result.code == 2
    assert "OUT-SAME-AS-INPUT" in result.err
    assert contract.read_bytes() == before


def _special_outputs(folder: Path) -> dict[str, Path]:
    target = folder / "target.json"
    target.write_text("{}\n")
    link = folder / "link.json"
    link.symlink_to(target)
    fifo = folder / "fifo.json"
    os.mkfifo(fifo)
    return {"symlink": link, "fifo": fifo}  # a folder is a usage error (64) already


@pytest.mark.parametrize("kind", ["symlink", "fifo"])
def test_an_output_that_is_not_a_regular_file_is_refused(
    kind: str, cli: Any, tmp_path: Path
) -> None:
    """Was: exit 0, the symlink or FIFO replaced by a regular file (the rename lands on it); run
    as root, `--report /dev/full` replaced the device node."""
    bundle = tmp_path / "b.json"
    made = cli("convert", "--in", str(PARENT), "--contract", str(CONTRACT), "--out", str(bundle))
    assert made.code == 0, made.err
    out = _special_outputs(tmp_path)[kind]
    before = os.lstat(out)
    for args in (
        ["evaluate", "--bundle", str(bundle), "--report", str(out)],
        ["convert", "--in", str(PARENT), "--contract", str(CONTRACT), "--out", str(out)],
        ["convert", "--in", str(PARENT), "--template", str(out), "--force"],
    ):
        result = cli(*args)
        assert result.code == 2, (args, result.err)
        assert "OUT-NOT-A-FILE" in result.err
        after = os.lstat(out)
        assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert (tmp_path / "target.json").read_text() == "{}\n"


def test_a_device_counts_as_not_a_regular_file() -> None:
    """Only looked at, never written: with the check broken, a test writing to /dev/null as root
    would replace it (it did, once, while this test was being written)."""
    from converter.files import _not_a_plain_file

    assert _not_a_plain_file(Path(os.devnull))
    assert not _not_a_plain_file(CONTRACT)
    assert not _not_a_plain_file(Path("no-such-file.json"))


def test_failure_during_the_rename_leaves_nothing(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    out = tmp_path / "b.json"
    result = cli("convert", "--in", str(PARENT), "--contract", str(CONTRACT), "--out", str(out))
    assert result.code == 2
    assert "OUT-UNWRITABLE" in result.err
    assert _leftovers(tmp_path) == []


def test_signed_output_is_all_or_nothing(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = tmp_path / "k.pem"
    assert cli("keygen", "--out", str(key)).code == 0
    calls = {"n": 0}
    real_replace = os.replace

    def second_fails(src: str, dst: str) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError("disk full")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", second_fails)
    out = tmp_path / "b.json"
    result = cli(
        "convert",
        "--in",
        str(PARENT),
        "--contract",
        str(CONTRACT),
        "--out",
        str(out),
        "--attest-key",
        str(key),
    )
    assert result.code == 2
    assert sorted(_leftovers(tmp_path)) == ["k.pem", "k.pem.pub"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    "args",
    [
        ["evaluate", "--bundle", str(FIXTURES / "synthetic_bundle.golden.json")],
        ["inspect", "--in", str(PARENT), "--json"],
        ["--help"],  # click writes these itself, not through `say`
        ["--version"],
    ],
    ids=["evaluate", "inspect", "help", "version"],
)
@pytest.mark.parametrize("sink", ["full-device", "closed-pipe", "read-only", "closed"])
def test_stdout_that_cannot_be_written_is_a_refusal_not_a_bug(
    args: list[str], sink: str, tmp_path: Path
) -> None:
    """Was: 'internal error (OSError)', exit 70, for a full device (70 means a bug) or a stdout
    open for reading only; exit 1, with nothing said, for a reader that closed the pipe (click's
    own handler took it); and exit 0 with the output lost for a closed stdout (`>&-`)."""
    import subprocess
    import sys

    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody reads: a write is EPIPE (Python ignores SIGPIPE)
    readable = tmp_path / "read-only.txt"
    readable.write_text("")
    with open("/dev/full", "w") as full, readable.open() as read_only:
        sinks = {"full-device": full, "closed-pipe": write_end, "read-only": read_only}
        result = subprocess.run(
            [sys.executable, "-m", "converter", *args],
            stdout=sinks.get(sink),
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "AGENT_EVIDENCE_KEY": "de" * 32},
            check=False,
            preexec_fn=(lambda: os.close(1)) if sink == "closed" else None,
        )
    os.close(write_end)
    assert result.returncode == 2, result.stderr
    assert "OUT-STDOUT-FAILED" in result.stderr
    assert "internal error" not in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_stdout_failing_after_the_outputs_says_they_are_whole(tmp_path: Path) -> None:
    """Was: "(said before any work: nothing was written)" after the bundle was written in full,
    with `--out` (already given) as the fix."""
    import subprocess
    import sys

    report = tmp_path / "report.txt"
    args = ["evaluate", "--bundle", str(FIXTURES / "synthetic_bundle.golden.json")]
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "converter", *args, "--report", str(report)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "AGENT_EVIDENCE_KEY": "de" * 32},
            check=False,
        )
    assert result.returncode == 2, result.stderr
    assert "OUT-STDOUT-FAILED" in result.stderr
    assert "nothing was written" not in result.stderr
    assert "the output files were written in full" in result.stderr
    assert report.stat().st_size > 0


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    ("args", "made"),
    [
        (["key", "init", "--key-file", "k"], ["k"]),
        (["keygen", "--out", "s.pem"], ["s.pem", "s.pem.pub"]),
        (["--debug", "--version"], []),
    ],
    ids=["key-init", "keygen", "debug"],
)
def test_keys_made_before_stdout_failed_are_said(
    args: list[str], made: list[str], tmp_path: Path
) -> None:
    """Was: keys written before standard output failed went unsaid (they were not counted as
    outputs), so a retry met KEY-EXISTS unexplained; and --debug turned the failure into 70."""
    import subprocess
    import sys

    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "converter", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env={k: v for k, v in os.environ.items() if k != "AGENT_EVIDENCE_KEY"},
            check=False,
        )
    assert result.returncode == 2, result.stderr
    assert "OUT-STDOUT-FAILED" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == made
    said = "the output files were written in full" in result.stderr
    assert said == bool(made)


def test_every_command_writes_stdout_through_one_function() -> None:
    """`diagnostics.say` turns a failed stdout write into OUT-STDOUT-FAILED; a stdout
    `click.echo` elsewhere in the commands would be exit 70 again (or 1 for a closed pipe)."""
    import re

    from tests.conftest import ROOT

    for module in sorted((ROOT / "src" / "converter" / "cli").glob("*.py")):
        if module.name == "diagnostics.py":
            continue
        text = module.read_text()
        for match in re.finditer(r"click\.echo\(", text):
            depth, end = 1, match.end()
            while depth:
                depth += {"(": 1, ")": -1}.get(text[end], 0)
                end += 1
            assert "err=True" in text[match.start() : end], (module.name, text[match.start() : end])


@pytest.mark.parametrize("size", [2_000, 3_100, 400_000])
def test_an_attestation_of_any_size_is_known_as_one(tmp_path: Path, size: int) -> None:
    """Was (diff review): only the first 4 KB were searched for `payloadType`, which follows the
    whole payload: the envelope of a session with ~7 subagents was no attestation, so a stale one
    stayed beside a new bundle and `--report` could replace one."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from converter.attest.dsse import sign_envelope
    from converter.attest.statement import PAYLOAD_TYPE
    from converter.files import is_attestation

    envelope = sign_envelope(b"x" * size, PAYLOAD_TYPE, Ed25519PrivateKey.generate()).to_bytes()
    path = tmp_path / "b.json.intoto.json"
    path.write_bytes(envelope)
    assert envelope.index(b'"payloadType"') > min(size, 4096)
    assert is_attestation(path)


def _tree_copy(tmp_path: Path, project: str = "-home-dev-app") -> Path:
    """The synthetic tree in a projects folder of its own: its parent transcript's path."""
    here = tmp_path / "projects" / project
    shutil.copytree(PARENT.parent, here)
    return here / PARENT.name


def test_no_output_lands_in_the_session_folder(cli: Any, tmp_path: Path) -> None:
    """An audit: `--out` onto a bound .meta.json wrote the bundle there (exit 0), and the
    contract was refused ever after (CONTRACT-FILE-CHANGED); a template written into the
    session folder made the next step refuse the tree for a stray file. Each is refused before
    the work, and what is there is unchanged."""
    parent = _tree_copy(tmp_path)
    folder = parent.parent / parent.stem
    meta = next(folder.glob("subagents/*.meta.json"))
    before = meta.read_bytes()
    for out in (folder / "t.json", folder / "subagents" / "t.json", meta):
        made = cli("convert", "--in", str(parent), "--template", str(out), "--force")
        assert made.code == 2, made.err
        assert "OUT-IN-SESSION-TREE" in made.err
        bundle = cli("convert", "--in", str(parent), "--contract", str(CONTRACT), "--out", str(out))
        assert bundle.code == 2, bundle.err
        assert "OUT-IN-SESSION-TREE" in bundle.err
        assert "wrote" not in bundle.out + bundle.err
    assert meta.read_bytes() == before
    assert sorted(p.name for p in folder.rglob("*")) == sorted(
        p.name for p in (PARENT.parent / PARENT.stem).rglob("*")
    )
    beside = cli("convert", "--in", str(parent), "--template", str(tmp_path / "t.json"))
    assert beside.code == 0, beside.err  # outside the session folder: made


def test_no_output_lands_in_the_sessions_folder_in_a_worktree_project(
    cli: Any, tmp_path: Path
) -> None:
    """The session's children in another project folder (a git worktree's) are its tree too:
    found only once the tree is read, and refused then, with the contract's other problems."""
    parent = _tree_copy(tmp_path)
    worktree = parent.parent.parent / "-home-dev-app--claude-worktrees-w"
    worktree.mkdir()
    shutil.move(parent.parent / parent.stem, worktree / parent.stem)
    out = worktree / parent.stem / "subagents" / "b.json"
    made = cli("convert", "--in", str(parent), "--template", str(out))
    assert made.code == 2, made.err
    assert "OUT-IN-SESSION-TREE" in made.err
    bundle = cli("convert", "--in", str(parent), "--contract", str(CONTRACT), "--out", str(out))
    assert bundle.code == 2, bundle.err
    assert "OUT-IN-SESSION-TREE" in bundle.err
    assert not out.exists()


def test_a_session_folder_in_any_project_folder_is_the_trees_whether_or_not_it_holds_files(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review: a worktree project's session folder holding no bound file (empty, or only
    tool results) took a template, and the parent given through `..` let one into the folder
    that held the children; each next run refused the tree for a stray file."""
    parent = _tree_copy(tmp_path)
    projects = parent.parent.parent
    empty = projects / "-home-dev-app--claude-worktrees-w" / parent.stem
    empty.mkdir(parents=True)
    made = cli("convert", "--in", str(parent), "--template", str(empty / "t.json"))
    assert made.code == 2, made.err
    assert "OUT-IN-SESSION-TREE" in made.err
    monkeypatch.chdir(parent.parent / parent.stem)
    dotted = Path("..") / ".." / parent.parent.name / parent.name
    inside = cli("convert", "--in", str(dotted), "--template", "t.json")
    assert inside.code == 2, inside.err
    assert "OUT-IN-SESSION-TREE" in inside.err
    assert sorted(p.name for p in empty.iterdir()) == []
    assert not (parent.parent / parent.stem / "t.json").exists()


def test_no_output_lands_in_another_sessions_folder_or_through_a_symlinked_project(
    cli: Any, tmp_path: Path
) -> None:
    """A walkthrough: a template in another session's folder made that session refused for a
    stray file, a bundle onto its bound .meta.json changed its agent type unremarked, a file
    named as a session id became a stray of a session with no folder yet, and a parent given
    through a symlink to its project folder let outputs into its own session folder. Each is
    refused before the work; the folders are unchanged."""
    parent = _tree_copy(tmp_path)
    project = parent.parent
    other = shutil.copytree(project / parent.stem, project / "0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b")
    meta = next(other.glob("subagents/*.meta.json"))
    before = meta.read_bytes()
    link = tmp_path / "link"
    link.symlink_to(project, target_is_directory=True)
    via_link = link / parent.name
    unborn = project / "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"
    for given, out in [
        (parent, other / "t.json"),
        (parent, meta),
        (parent, unborn),
        (parent, project / f"{unborn.name}.jsonl"),
        (via_link, project / parent.stem / "t.json"),
        (via_link, link / parent.stem / "subagents" / "t.json"),
    ]:
        made = cli("convert", "--in", str(given), "--template", str(out), "--force")
        assert made.code == 2, (out, made.err)
        assert "OUT-IN-SESSION-TREE" in made.err
        bundle = cli("convert", "--in", str(given), "--contract", str(CONTRACT), "--out", str(out))
        assert bundle.code == 2, (out, bundle.err)
        assert "OUT-IN-SESSION-TREE" in bundle.err
    assert meta.read_bytes() == before
    assert not unborn.exists()
    assert not (project / f"{unborn.name}.jsonl").exists()
    assert not (other / "t.json").exists()
    assert not (project / parent.stem / "t.json").exists()
    # a contract named by its session id (README's loop adds the project's name) is no session's
    named = cli("convert", "--in", str(parent), "--template", str(project / f"{parent.stem}.json"))
    assert named.code == 0, named.err


def test_a_lone_exports_name_is_no_session_folder(cli: Any, tmp_path: Path) -> None:
    """A review: `--from claude-code --in export.jsonl` refused a template in `export/`, a
    folder no session has (0.6.9 wrote it): only a session id names a session's folders."""
    export = tmp_path / "export.jsonl"
    export.write_bytes(b"".join(PARENT.read_bytes().splitlines(keepends=True)[:6]))
    (tmp_path / "export").mkdir()
    out = tmp_path / "export" / "t.json"
    made = cli("convert", "--from", "claude-code", "--in", str(export), "--template", str(out))
    assert made.code == 0, made.err
    assert out.exists()


def test_a_folder_of_ones_own_beside_a_lone_export_takes_outputs(cli: Any, tmp_path: Path) -> None:
    """A review: beside `exports/<id>.jsonl`, 0.6.11's first cut refused outputs in any
    `<other-id>/` folder of any folder beside it (`runs/<other-id>/c.json`), folders no session
    reads. The export's own project folder, the session's own id, and a folder that holds a
    session are refused still."""
    exports = shutil.copytree(PARENT.parent, tmp_path / "exports")
    parent = exports / PARENT.name
    other = "0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b"
    for out in (tmp_path / "runs" / other / "t.json", tmp_path / "out" / f"{other}.json"):
        out.parent.mkdir(parents=True)
        made = cli("convert", "--in", str(parent), "--template", str(out))
        assert made.code == 0, (out, made.err)
        assert out.exists()
    held = tmp_path / "held"
    (held / other / "subagents").mkdir(parents=True)
    (tmp_path / "runs" / PARENT.stem).mkdir()
    for out in (
        exports / other / "t.json",
        tmp_path / "runs" / PARENT.stem / "t.json",
        held / "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d.jsonl",
    ):
        out.parent.mkdir(parents=True, exist_ok=True)
        made = cli("convert", "--in", str(parent), "--template", str(out))
        assert made.code == 2, (out, made.err)
        assert "OUT-IN-SESSION-TREE" in made.err
        assert not out.exists()


def test_no_output_lands_where_another_session_reads_its_folder(cli: Any, tmp_path: Path) -> None:
    """A review: a folder beside the parent's that holds no session (`scratch/`) took
    `<other-id>/t.json` and `<other-id>.jsonl`, and that session, which reads its `<id>/` in
    every folder beside its own, was refused for a stray file, or made split, next time."""
    parent = _tree_copy(tmp_path)
    projects = parent.parent.parent
    other = "0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b"
    (projects / "-home-dev-other").mkdir()
    shutil.copy(parent, projects / "-home-dev-other" / f"{other}.jsonl")
    (projects / "scratch").mkdir()
    for out in (projects / "scratch" / other / "t.json", projects / "scratch" / f"{other}.jsonl"):
        out.parent.mkdir(exist_ok=True)
        made = cli("convert", "--in", str(parent), "--template", str(out))
        assert made.code == 2, (out, made.err)
        assert "OUT-IN-SESSION-TREE" in made.err
        assert not out.exists()


def test_a_transcript_of_the_session_in_another_project_folder_is_a_finding(
    cli: Any, tmp_path: Path
) -> None:
    """An audit: a copy of the parent transcript in another project folder converted with no
    word of it (scan refuses the pair, CC-TREE-SPLIT-OVERLAP; evaluate only the two bundles
    together). The tree still converts; its findings say the other transcript is there."""
    parent = _tree_copy(tmp_path)
    other = parent.parent.parent / "-home-dev-other"
    other.mkdir()
    shutil.copy(parent, other / parent.name)
    report = cli("inspect", "--in", str(parent), "--json").json()
    assert report["convertible"], report["refusals"]
    assert {"code": "CC-TREE-SPLIT-SESSION", "count": 1} in report["findings"]
    alone = cli("inspect", "--in", str(PARENT), "--json").json()
    assert "CC-TREE-SPLIT-SESSION" not in {f["code"] for f in alone["findings"]}


def _same_as_input(out: Path, inputs: list[Path]) -> bool:
    try:
        check_outputs([out], inputs)
    except Refused as refused:
        return any(p.code == "OUT-SAME-AS-INPUT" for p in refused.problems)
    return False


def test_an_output_is_the_same_as_an_input_by_any_name(tmp_path: Path) -> None:
    """`check_outputs` compares files by device and inode, one stat per input (it resolved
    every path, 0.14 s over a large tree's inputs): each other name of an input is still it."""
    folder = tmp_path / "in"
    folder.mkdir()
    source = folder / "s.jsonl"
    source.write_text("{}\n")
    (tmp_path / "hard.jsonl").hardlink_to(source)
    (tmp_path / "soft.jsonl").symlink_to(source)
    (tmp_path / "dir").symlink_to(folder, target_is_directory=True)
    others = [tmp_path / "other.jsonl", tmp_path / "hard.jsonl"]
    for name in ("hard.jsonl", "soft.jsonl", "dir/s.jsonl", "in/../in/s.jsonl"):
        assert _same_as_input(tmp_path / name, [tmp_path / "other.jsonl", source]), name
    assert not _same_as_input(tmp_path / "new.jsonl", others)
    assert not _same_as_input(source, [tmp_path / "other.jsonl"])
    # Where neither names a file, the same path once resolved is the same output.
    assert _same_as_input(tmp_path / "x" / ".." / "gone.json", [tmp_path / "gone.json"])
    assert not _same_as_input(tmp_path / "gone.json", [tmp_path / "gone2.json"])


def test_a_bundle_never_replaces_a_bound_file_by_another_name(cli: Any, tmp_path: Path) -> None:
    """A hostile audit: `--out` a hard link of a bound subagent transcript exited 0 (the bound
    files were compared only by a template's check), and through a second path to the session
    folder (a bind mount) the bundle replaced a bound .meta.json. Refused, nothing changed."""
    tree = tmp_path / "proj"
    shutil.copytree(PARENT.parent, tree)
    parent = tree / PARENT.name
    subagent = next((tree / PARENT.stem).rglob("agent-*.jsonl"))
    meta = next((tree / PARENT.stem).rglob("*.meta.json"))
    before = {p: p.read_bytes() for p in (subagent, meta)}
    (tmp_path / "out").mkdir()
    link = tmp_path / "out" / "hard.json"
    link.hardlink_to(subagent)
    made = cli("convert", "--in", str(parent), "--contract", str(CONTRACT), "--out", str(link))
    assert made.code == 2, made.out
    # at the option that named it, as before the sources were read (a review: no place)
    assert "refused: OUT-SAME-AS-INPUT [--out]: " in made.err, made.err
    bind = tmp_path / "bind"
    bind.mkdir()
    if os.system(f"mount --bind '{tree}' '{bind}' 2>/dev/null") != 0:
        pytest.skip("no bind mount here (not root)")
    try:
        for out in (bind / meta.relative_to(tree), bind / PARENT.stem / "new.json"):
            made = cli(
                "convert", "--in", str(parent), "--contract", str(CONTRACT), "--out", str(out)
            )
            assert made.code == 2, made.out
            assert "OUT-IN-SESSION-TREE" in made.err, made.err
            template = cli("convert", "--in", str(parent), "--template", str(out), "--force")
            assert template.code == 2, template.out
    finally:
        os.system(f"umount '{bind}'")
    assert {p: p.read_bytes() for p in (subagent, meta)} == before
    assert not (tree / PARENT.stem / "new.json").exists()


@pytest.mark.parametrize(("umask", "mode"), [(0o077, 0o600), (0o022, 0o644), (0o002, 0o664)])
def test_an_output_takes_the_users_umask(
    umask: int, mode: int, cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A determinism audit: every template, contract, bundle and report was 0644, a private
    umask (077) or a shared one (002) ignored. An output is made as `open` would make it."""
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", "de" * 32)
    out = tmp_path / "t.json"
    before = os.umask(umask)
    try:
        result = cli(
            "convert", "--in", str(fixture_parent("synthetic_tree")), "--template", str(out)
        )
    finally:
        os.umask(before)
    assert result.code == 0, result.err
    assert out.stat().st_mode & 0o777 == mode
