"""Reading with a second process gives exactly what reading in one does, on every tree we have,
damaged ones included; a worker that fails in any way falls back to reading here, silently."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from converter.reader import load as loader
from converter.reader.load import LoadedTree, load
from converter.sources.tree import discover
from tests.conftest import fixture_parent, shared_dir
from tests.damage import canary, copy_tree

SHARED = shared_dir()
EXPECTED = Path(__file__).parent / "corpus_expected.json"
CORPUS = sorted(json.loads(EXPECTED.read_text()))  # every real tree's parent, as the oracle has it


def _view(tree: LoadedTree) -> tuple[object, ...]:
    return (
        tree.digests,
        tree.records,
        tree.metas,
        tree.journal_started,
        tree.manifests,
        tree.unbound,
        tree.problems,
        dict(tree.unknown_types),
    )


def _both(parent: Path) -> tuple[tuple[object, ...], tuple[object, ...]]:
    one = load(discover(parent), jobs=1)
    two = load(discover(parent), jobs=2, min_bytes=0)
    return _view(one), _view(two)


@pytest.mark.parametrize("name", ["synthetic_tree", "rich_tree"])
def test_fixtures_read_alike(name: str) -> None:
    one, two = _both(fixture_parent(name))
    assert one == two
    assert one[1]  # records were read


def test_request_ids_are_kept_only_when_asked_for_in_either_process() -> None:
    """The request id of each call (for provider bodies without an index) is read by both
    processes alike; without bodies no reading keeps it (it was held for every file until all
    were read: 3 MB of peak memory on the bench tree)."""
    parent = fixture_parent("rich_tree")
    one = load(discover(parent), jobs=1, request_ids=True)
    two = load(discover(parent), jobs=2, min_bytes=0, request_ids=True)
    assert one.request_ids == two.request_ids
    assert any(one.request_ids.values())
    for jobs in (1, 2):
        assert not load(discover(parent), jobs=jobs, min_bytes=0).request_ids
    from converter.reader.transcript import read_transcript

    assert read_transcript(parent).request_ids == {}
    assert read_transcript(parent, request_ids=True).request_ids


@pytest.mark.skipif(SHARED is None, reason="shared corpus not present")
@pytest.mark.parametrize("tree", CORPUS)
def test_corpus_reads_alike(tree: str) -> None:
    assert SHARED is not None
    one, two = _both(SHARED / "corpus" / "real" / tree)
    assert one == two


def test_damaged_tree_reads_alike(tmp_path: Path) -> None:
    """Problems (torn, invalid, blank lines, an empty child) come back the same, in order."""
    tree = copy_tree("rich_tree", tmp_path)
    children = sorted(tree.folder.rglob("agent-*.jsonl"))
    assert len(children) >= 2
    children[0].write_bytes(b'{"type":"user"\n\n\xff\xfe\n{"type":"assistant"')
    children[1].write_bytes(b"")
    lines = tree.lines()
    lines.insert(1, b'{"a":1,"a":2}')
    tree.write_lines("", lines)
    one, two = _both(tree.parent)
    assert one == two
    assert len(one[6]) >= 4  # problems


def test_lone_surrogates_read_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lone surrogate escape is valid JSON (the exact reader takes the line); in a string the
    reader keeps (a model's name), msgpack cannot carry it: the worker sends an empty frame for
    that file, which this process reads itself, and the worker's other files stand (it used to
    die, and this process read all of them again). The same reading either way."""
    workers = spy_on_workers(monkeypatch)
    tree = copy_tree("rich_tree", tmp_path)
    marked = 0
    for path in sorted(tree.root.rglob("*.jsonl")):
        data = path.read_bytes()
        if b'"model":"claude' in data:
            path.write_bytes(data.replace(b'"model":"claude', b'"model":"\\ud83dclaude'))
            marked += 1
    assert marked >= 2
    one, two = _both(tree.parent)
    assert one == two
    assert not one[6]  # no problem: every line was read
    [worker] = workers
    assert worker.intact
    assert None in worker.got  # a file sent back to be read here, not the worker lost


def spy_on_workers(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every reading worker `load` starts, kept for inspection."""
    workers: list[Any] = []
    real = loader._Worker

    def spy(entries: list[Any], request_ids: bool = False) -> Any:
        worker = real(entries, request_ids)
        workers.append(worker)
        return worker

    monkeypatch.setattr(loader, "_Worker", spy)
    return workers


def _failing(code: str) -> tuple[str, ...]:
    return (sys.executable, "-c", code)


@pytest.mark.parametrize(
    "command",
    [
        _failing("import sys; sys.exit(3)"),
        _failing("import sys; sys.stdout.buffer.write(b'not msgpack')"),
        _failing("import sys; sys.stdout.buffer.write(b'\\x90')"),  # an empty list: too few
        ("/nonexistent/python-for-agent-evidence",),
    ],
    ids=["exit", "garbage", "short", "no-executable"],
)
def test_failed_worker_falls_back(
    command: tuple[str, ...], monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    parent = fixture_parent("rich_tree")
    expected = _view(load(discover(parent), jobs=1))
    monkeypatch.setattr(loader, "WORKER_COMMAND", command)
    assert _view(load(discover(parent), jobs=2, min_bytes=0)) == expected
    assert capfd.readouterr().err == ""


def test_worker_stderr_never_reaches_the_terminal(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    secret = canary("worker")
    monkeypatch.setattr(
        loader, "WORKER_COMMAND", _failing(f"import sys; sys.stderr.write({secret!r}); 1/0")
    )
    load(discover(fixture_parent("rich_tree")), jobs=2, min_bytes=0)
    captured = capfd.readouterr()
    assert secret not in captured.err + captured.out


def test_small_trees_stay_in_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[object] = []
    monkeypatch.setattr(loader, "_Worker", started.append)
    load(discover(fixture_parent("rich_tree")), jobs=2)  # far below PARALLEL_MIN_BYTES
    assert started == []


def test_environment_forces_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(loader.READ_JOBS_ENV, "1")
    assert loader.read_jobs() == 1


def test_frames_round_trip_and_refuse_a_cut() -> None:
    import io

    from converter.reader.transcript import BadFrame, FileReading, frame, read_frames

    readings = [
        FileReading("ab" * 32, n, [], [("CC-LINE-TORN", n)], {"x": n}, bool(n % 2))
        for n in range(3)
    ]
    stream = b"".join(frame(r) for r in readings)
    assert list(read_frames(io.BytesIO(stream))) == readings
    for cut in (1, 3, len(stream) - 1):
        with pytest.raises(BadFrame):
            list(read_frames(io.BytesIO(stream[:cut])))
    with pytest.raises(BadFrame):
        list(read_frames(io.BytesIO(b"\x00\x00\x00\x02\xc1\xc1")))


def test_a_converter_folder_in_the_working_directory_is_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`python -m` puts the working directory first on the import path; the worker must not
    import a user's own `converter` package from there."""
    planted = tmp_path / "cwd" / "converter" / "reader"
    planted.mkdir(parents=True)
    ran = tmp_path / "planted-code-ran"
    for folder in (planted.parent, planted):
        (folder / "__init__.py").write_text("")
    (planted / "worker.py").write_text(f"open({str(ran)!r}, 'w').close()\n")
    parent = fixture_parent("rich_tree")
    expected = _view(load(discover(parent), jobs=1))
    workers = spy_on_workers(monkeypatch)
    monkeypatch.chdir(tmp_path / "cwd")
    assert _view(load(discover(parent), jobs=2, min_bytes=0)) == expected
    (worker,) = workers
    assert worker.proc.returncode == 0  # the real worker read, not the planted one
    assert not ran.exists()


def test_a_folder_name_that_is_not_utf8_reads_here(tmp_path: Path) -> None:
    folder = tmp_path / os.fsdecode(b"caf\xe9")
    folder.mkdir()
    tree = copy_tree("rich_tree", folder)
    one, two = _both(tree.parent)
    assert one == two
    assert one[1]


def test_a_worker_with_another_frame_layout_refuses_to_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker from another copy of the package (an upgrade mid-run) could decode into the same
    array-like records with fields silently missing: it exits at once and this process reads."""
    parent = fixture_parent("rich_tree")
    expected = _view(load(discover(parent), jobs=1))
    workers = spy_on_workers(monkeypatch)
    monkeypatch.setattr(loader, "wire_fingerprint", lambda: "another layout")
    assert _view(load(discover(parent), jobs=2, min_bytes=0)) == expected
    (worker,) = workers
    assert worker.proc.returncode == 3


def test_the_worker_imports_this_copy_of_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    import converter

    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    path = loader._worker_env(False)["PYTHONPATH"].split(os.pathsep)
    assert path == [str(Path(converter.__file__).resolve().parent.parent), "/elsewhere"]


def test_no_heap_trimming_off_linux(monkeypatch: pytest.MonkeyPatch) -> None:
    from converter import heap

    monkeypatch.setattr(sys, "platform", "win32")
    assert heap._malloc_trim() is None
    assert heap._mallopt() is None


def test_large_blocks_get_their_own_mappings(monkeypatch: pytest.MonkeyPatch) -> None:
    """glibc's M_MMAP_THRESHOLD is fixed at 256 KiB, which also stops it rising on its own."""
    from converter import heap

    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(heap, "_MALLOPT", lambda option, value: calls.append((option, value)))
    heap.map_large_blocks()
    assert calls == [(-3, 256 * 1024)]
    monkeypatch.setattr(heap, "_MALLOPT", None)
    heap.map_large_blocks()  # off glibc: nothing to set, nothing raised


def test_the_worker_really_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fallback is silent by design; this checks the worker itself did the reading."""
    workers = spy_on_workers(monkeypatch)
    load(discover(fixture_parent("rich_tree")), jobs=2, min_bytes=0)
    (worker,) = workers
    assert worker.intact
    assert worker.proc.returncode == 0
    assert len(worker.got) == len(worker.entries) > 0


def test_what_a_live_session_appends_while_it_is_read_is_left_for_the_next_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code appends to a running session. Was: a line half written when the reader got
    there was read as a torn line and then its rest as a line of invalid JSON (a refusal saying
    the file was damaged), and the digest bound bytes the file never held at one moment. The
    reader now reads the file as it was when opened (an operations review)."""
    from converter.reader import transcript

    whole = fixture_parent("synthetic_tree").read_bytes()
    path = tmp_path / "live.jsonl"
    path.write_bytes(whole)
    real = transcript.iter_lines

    def written_meanwhile(stream: Any, digest: Any, cuts: Any) -> Any:
        with path.open("ab") as writer:  # a writer half way through its next line
            writer.write(b'{"type": "user", "message": {"role": "us')
        yield from real(stream, digest, cuts)

    monkeypatch.setattr(transcript, "iter_lines", written_meanwhile)
    reading = transcript.read_transcript(path)
    assert (reading.sha256, reading.size) == (hashlib.sha256(whole).hexdigest(), len(whole))
    assert reading.problems == []
    assert path.stat().st_size > len(whole)  # the appended bytes were there to be read


def test_the_worker_reads_the_smaller_share() -> None:
    """The worker starts late and encodes what it reads: split evenly it finished last, with
    this process waiting at its reading's full size beside it (the bench's convert peak passed
    its target on one run in four). It takes 4 bytes of every 9, never the largest file."""
    from converter.sources.tree import SourceFile

    entries = [SourceFile(i, "subagent", Path(f"{i}.jsonl"), f"{i}.jsonl") for i in range(90)]
    sizes = {e.index: 1000 + (e.index == 7) for e in entries}
    mine, theirs = loader._split(entries, sizes)
    assert mine[0].index == 7  # the largest, first, here
    assert (len(mine), len(theirs)) == (50, 40)
    assert sorted(e.index for e in mine + theirs) == list(range(90))
