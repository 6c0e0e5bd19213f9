"""Flags every command shares: where `--debug` may stand, `--provider-bodies` on each command
SPEC §2 gives it to, and a `--key-file` that names no file."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from converter.errors import Refused
from converter.files import write_all_atomic
from tests.conftest import fixture_parent

PARENT = fixture_parent("synthetic_tree")
GOLDEN = Path(__file__).parents[1] / "fixtures" / "synthetic_bundle.golden.json"


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
        quoted = "-".join(["CANARY", "7f3a9"])  # a value read from input, not in any source line
        raise RuntimeError(f"a bug at {quoted}")

    monkeypatch.setattr("converter.cli.inspect.summarize_tree", broken)
    shown = cli("inspect", "--in", str(PARENT), "--debug")
    assert shown.code == 70  # was 1: the exception re-raised, Python's own exit
    assert "Traceback (most recent call last)" in shown.err
    assert "in broken" in shown.err  # where it was raised
    assert "builtins.RuntimeError (its message is not shown" in shown.err
    assert "CANARY-7f3a9" not in shown.err  # its message, which can quote input
    result = cli("inspect", "--in", str(PARENT))
    assert result.code == 70
    assert "internal error (RuntimeError); rerun with --debug" in result.err


def test_memory_run_out_is_a_coded_refusal_not_a_bug(
    cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A robustness probe: a 3 GB file given as a bundle under a memory limit ended
    `internal error (MemoryError)`, exit 70, which says a bug. The machine's limit is a
    refusal with a code and a fix, and nothing is written."""

    def out_of_memory(*_: Any, **__: Any) -> Any:
        raise MemoryError

    monkeypatch.setattr("converter.cli.inspect.summarize_tree", out_of_memory)
    result = cli("inspect", "--in", str(PARENT))
    assert result.code == 2
    assert "refused: RUN-OUT-OF-MEMORY" in result.err
    assert "Fix: Check the paths given" in result.err
    assert "internal error" not in result.err
    assert "Traceback" not in result.err
    monkeypatch.setattr("converter.cli.convert.make_bundle", out_of_memory)
    out = tmp_path / "bundle.json"
    contract = Path(__file__).parents[1] / "fixtures" / "synthetic_contract.json"
    result = cli("convert", "--in", str(PARENT), "--contract", str(contract), "--out", str(out))
    assert result.code == 2
    assert "refused: RUN-OUT-OF-MEMORY" in result.err
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_exits_130_and_writes_nothing(
    cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An interrupt is the shell's 130 (128 + SIGINT), not a usage error, and a convert stopped
    while writing leaves neither its output nor a staged temporary file."""

    def interrupted(*_: Any, **__: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr("converter.cli.inspect.summarize_tree", interrupted)
    result = cli("inspect", "--in", str(PARENT))
    assert (result.code, result.err.strip()) == (130, "interrupted: nothing was written")

    monkeypatch.setattr("converter.files.os.replace", interrupted)
    out = tmp_path / "t.json"
    result = cli("convert", "--in", str(PARENT), "--template", str(out))
    assert result.code == 130
    assert list(tmp_path.iterdir()) == []


def test_an_interrupt_after_the_output_is_in_place_does_not_say_nothing_was_written(
    cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Was: Ctrl-C while convert printed its summary said "nothing was written" beside a
    template that was there, whole."""

    def interrupted(*_: Any, **__: Any) -> Any:
        raise KeyboardInterrupt

    out = tmp_path / "t.json"
    # Only this patch is undone after: `monkeypatch.undo()` also undid the test key and config
    # folder (the autouse fixture's), so the next command ran with the caller's own.
    with monkeypatch.context() as patched:
        patched.setattr("converter.cli.convert.say", interrupted)
        result = cli("convert", "--in", str(PARENT), "--template", str(out))
    assert (result.code, result.err.strip()) == (
        130,
        "interrupted after the output was written in full",
    )
    assert json.loads(out.read_bytes())["schema_version"].startswith(
        "agent-evidence/conversion-contract/"
    )
    # the next command in this process writes nothing: it says so again
    monkeypatch.setattr("converter.cli.inspect.summarize_tree", interrupted)
    assert cli("inspect", "--in", str(PARENT)).err.strip() == "interrupted: nothing was written"


@pytest.fixture
def ctrl_c_raises() -> Iterator[None]:
    """Python's own SIGINT handler for the test, whatever the runner inherited: a test suite
    started as a script's background job (`pytest &`) starts with SIGINT ignored, and Python
    then leaves it ignored, so a Ctrl-C sent by the test was dropped (exit 0, no message)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def _interrupt_this_thread() -> None:
    """A Ctrl-C to the thread that writes, as a terminal's reaches a run (one thread by then).
    Sent to the process, it could land on another thread of the test run (a pool's, left by an
    earlier test), whose mask does not hold it: a flaky failure under load."""
    signal.pthread_kill(threading.get_ident(), signal.SIGINT)


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_a_real_ctrl_c_during_the_renames_lands_after_them(
    cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, ctrl_c_raises: None
) -> None:
    """A real SIGINT while the outputs are renamed waits for the last rename: the outputs are
    whole, the one replaced is the new one, and the interrupt is said as coming after them.
    Was: the held interrupt was raised inside the clean-up, which removed every output (and
    the report it had just replaced) and then said they were written in full."""
    real = os.replace

    def interrupted_rename(src: str, dst: Path) -> None:
        _interrupt_this_thread()  # held: delivered after the renames
        real(src, dst)

    report = tmp_path / "report.md"
    report.write_text("an earlier report\n")
    monkeypatch.setattr("converter.files.os.replace", interrupted_rename)
    result = cli(
        "evaluate", "--bundle", str(GOLDEN), "--format", "markdown", "--report", str(report)
    )
    assert (result.code, result.err.strip()) == (
        130,
        "interrupted after the output was written in full",
    )
    assert report.read_text().startswith("**Decision:")
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_a_ctrl_c_during_the_write_never_leaves_a_stale_attestation_beside_a_new_bundle(
    cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, ctrl_c_raises: None
) -> None:
    """A bundle written over a signed one without --attest-key takes the old attestation away
    with it. Was: removed after the write, so a Ctrl-C held during the renames landed between
    the two and left the old signature beside new bytes (verify: 5, "changed after signing")."""
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", "de" * 32)  # the fixture contract's key
    contract = json.loads((GOLDEN.parent / "synthetic_contract.json").read_bytes())
    other = tmp_path / "other.json"
    contract["claims"]["outcome_contract"]["rubric_version"] = "another-rubric"
    other.write_text(json.dumps(contract))
    bundle, key = tmp_path / "b.json", tmp_path / "signing.pem"
    assert cli("keygen", "--out", str(key)).code == 0
    signed = ["convert", "--in", str(PARENT), "--contract", str(other), "--out", str(bundle)]
    assert cli(*signed, "--attest-key", str(key)).code == 0
    old = bundle.read_bytes()
    real = os.replace

    def interrupted_rename(src: str, dst: Path) -> None:
        _interrupt_this_thread()  # held until the write, removal included, is done
        real(src, dst)

    monkeypatch.setattr("converter.files.os.replace", interrupted_rename)
    fixture_contract = str(GOLDEN.parent / "synthetic_contract.json")
    result = cli(
        "convert", "--in", str(PARENT), "--contract", fixture_contract, "--out", str(bundle)
    )
    # (the demo key's notice comes first: the fixture contract was made under it)
    assert (result.code, result.err.strip().splitlines()[-1]) == (
        130,
        "interrupted after the output was written in full",
    )
    assert bundle.read_bytes() != old
    assert not Path(f"{bundle}.intoto.json").exists()


@pytest.mark.parametrize("made", ["refusal", "bug"])
def test_a_ctrl_c_a_library_turned_into_its_own_error_is_still_an_interrupt(
    made: str, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: a Ctrl-C while pydantic built a validator came out as BUNDLE-SHAPE (2) on a good
    bundle, or as an internal error (70): the interrupt is underneath, and it is said as one."""
    from converter.errors import Problem, Refused

    def swallowed(*_: Any, **__: Any) -> Any:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            if made == "refusal":
                raise Refused([Problem("BUNDLE-SHAPE")]) from None
            raise RuntimeError("schema build failed") from None

    monkeypatch.setattr("converter.cli.inspect.summarize_tree", swallowed)
    result = cli("inspect", "--in", str(PARENT))
    assert (result.code, result.err.strip()) == (130, "interrupted: nothing was written")


def test_once_the_run_has_decided_a_late_ctrl_c_is_ignored(tmp_path: Path) -> None:
    """A Ctrl-C in the interpreter's last milliseconds killed a finished run with 130 and no
    word (evaluate had printed its decision): the console entry point ignores SIGINT once it
    has chosen its exit code. (Tests call main with arguments: their process is left alone.)"""
    code = (
        "import signal, sys\n"
        "from converter.cli.main import main\n"
        "sys.argv = ['agent-evidence', '--version']\n"
        "try:\n    main()\n"
        "except SystemExit as done:\n"
        "    print(done.code, signal.getsignal(signal.SIGINT) == signal.SIG_IGN)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "0 True"


def _stopped_after_deciding(
    argv: list[str], *, number: int = int(signal.SIGTERM), setup: str = ""
) -> subprocess.CompletedProcess[str]:
    """The console entry point run with `argv`, sending itself signal `number` just after the
    run decided (`_ignore_interrupts`), then dawdling as a slow shutdown would: the stop must
    end it, not wait for it. `setup`: lines run before (a patch of `entry`)."""
    code = (
        "import os, signal, sys, time\n"
        f"signal.signal({number}, signal.SIG_DFL)\n"
        "import converter.cli.main as entry\n"
        f"{setup}"
        "real = entry._ignore_interrupts\n"
        "def then_stopped(decided):\n"
        "    real(decided)\n"
        f"    os.kill(os.getpid(), {number})\n"
        "    time.sleep(30)\n"
        "entry._ignore_interrupts = then_stopped\n"
        "sys.argv = ['agent-evidence', *sys.argv[1:]]\n"
        "entry.main()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, check=False, timeout=20
    )


def _plain(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "converter", *argv], capture_output=True, text=True, check=False
    )


@pytest.mark.skipif(not hasattr(signal, "SIGTERM"), reason="POSIX stops")
@pytest.mark.parametrize("stop", ["SIGTERM", "SIGHUP"])
def test_a_stop_after_the_run_decided_ends_it_with_its_decision(stop: str) -> None:
    """Was: a SIGTERM in the interpreter's last milliseconds (a CI timeout landing just after
    `convert` wrote its bundle) ended the run with 143 and no word, the bundle whole on disk (a
    new user's walk: 4 of 24 tries). It still ends the process at once, with the code decided;
    what was printed stands."""
    argv = ["evaluate", "--bundle", str(GOLDEN)]
    plain = _plain(argv)
    stopped = _stopped_after_deciding(argv, number=int(getattr(signal, stop)))
    assert plain.returncode in (0, 1), plain.stderr
    assert (stopped.returncode, stopped.stdout) == (plain.returncode, plain.stdout)
    assert stopped.stderr == plain.stderr


@pytest.mark.skipif(not hasattr(signal, "SIGTERM"), reason="POSIX stops")
@pytest.mark.parametrize(
    "args",
    [["inspect", "--in", "/nonexistent/x.jsonl"], ["convert", "--bogus"]],
    ids=["refused", "usage"],
)
def test_a_late_stop_keeps_a_refusals_code(args: list[str]) -> None:
    """A review: the codes the tool names (`Exit.REFUSED`, `Exit.USAGE`, an IntEnum) were taken
    for no decision, and a late SIGTERM made them 143."""
    plain, stopped = _plain(args), _stopped_after_deciding(args)
    assert plain.returncode in (2, 64), plain.stderr
    assert (stopped.returncode, stopped.stderr) == (plain.returncode, plain.stderr)


@pytest.mark.skipif(not hasattr(signal, "SIGTERM"), reason="POSIX stops")
def test_a_stop_after_a_run_that_decided_nothing_ends_it_as_any_stop() -> None:
    """A review: where no exit code was decided (an exception on its way out instead of an
    exit), a late SIGTERM ended the process with 0. It ends it as the signal does."""
    undecided = (
        "def undecided(args, debug, written):\n"
        "    raise BaseException('no decision')\n"
        "entry._dispatch = undecided\n"
    )
    done = _stopped_after_deciding(["--version"], setup=undecided)
    assert done.returncode == -signal.SIGTERM, done.stderr


@pytest.mark.skipif(not hasattr(signal, "SIGTERM"), reason="POSIX stops")
def test_a_stop_while_a_refusal_is_said_is_an_interrupt_without_a_traceback(
    tmp_path: Path,
) -> None:
    """A review: a SIGTERM while a refusal was being printed escaped the command's handling:
    a traceback, and 130 as if by Ctrl-C. It is 143, said as an interrupt."""
    code = (
        "import os, signal, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_DFL)\n"
        "import converter.cli.main as entry\n"
        "real = entry._emit_refused\n"
        "def stopped(*args, **kwargs):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    time.sleep(5)\n"
        "    return real(*args, **kwargs)\n"
        "entry._emit_refused = stopped\n"
        "sys.argv = ['agent-evidence', 'convert', '--in', '/nonexistent/x.jsonl', '--template',"
        " sys.argv[1]]\n"
        "entry.main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "t.json")],
        capture_output=True,
        text=True,
        check=False,
        timeout=20,
    )
    assert (done.returncode, done.stderr.strip()) == (
        128 + signal.SIGTERM,
        "interrupted: nothing was written",
    )


def test_a_ctrl_c_while_the_decided_exit_is_on_its_way_keeps_the_decision() -> None:
    """Was a traceback and 130: a Ctrl-C in the instant between evaluate's `sys.exit(3)` and
    the process's end. The decision it interrupted is the exit code."""
    code = (
        "import sys\n"
        "import converter.cli.main as entry\n"
        "def decided(argv):\n"
        "    try:\n        sys.exit(3)\n"
        "    finally:\n        raise KeyboardInterrupt\n"
        "entry._main = decided\n"
        "try:\n    entry.main()\n"
        "except SystemExit as done:\n    print(done.code)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert (done.stdout.strip(), done.stderr) == ("3", "")


def _second_rename_raises(monkeypatch: pytest.MonkeyPatch, stop: BaseException) -> None:
    """`write_all_atomic`'s second rename into place raises `stop`; the first goes through."""
    real = os.replace
    calls: list[str] = []

    def second_raises(src: str, dst: Path) -> None:
        calls.append(src)
        if len(calls) == 2:
            raise stop
        real(src, dst)

    monkeypatch.setattr("converter.files.os.replace", second_raises)


def test_an_interrupt_between_two_renames_leaves_neither_output(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A bundle and its attestation land together or not at all: the one renamed before the
    interrupt is taken back (its staged file is gone: it was renamed)."""
    _second_rename_raises(monkeypatch, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        write_all_atomic([(tmp_path / "b.json", b"{}"), (tmp_path / "b.json.intoto.json", b"{}")])
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["inspect", "--in", "missing.jsonl"], 2),
        (["inspect", "--no-such-option"], 64),
        (["evaluate", "--bundle", "tampered.json"], 5),
    ],
    ids=["refused", "usage", "integrity"],
)
def test_a_closed_stderr_loses_the_message_never_the_exit_code(
    args: list[str], code: int, tmp_path: Path
) -> None:
    """Was: `... 2>&1 | head -3` exited 1 (a BrokenPipeError raised inside the refusal's own
    handler), so a refused convert or a tampered bundle read as a plain failure."""
    bundle = json.loads(GOLDEN.read_bytes())
    bundle["events"][0]["usage"]["output_tokens"] += 1
    (tmp_path / "tampered.json").write_text(json.dumps(bundle))
    read_end, write_end = os.pipe()
    os.close(read_end)  # every write to stderr is EPIPE
    try:
        done = subprocess.run(
            [sys.executable, "-m", "converter", *args],
            stdout=subprocess.DEVNULL,
            stderr=write_end,
            cwd=tmp_path,
            check=False,
        )
    finally:
        os.close(write_end)
    assert done.returncode == code


@pytest.mark.parametrize("command", ["inspect", "convert"])
def test_provider_bodies_is_read(command: str, cli: Any, tmp_path: Path) -> None:
    """Was: refused as not supported yet (64). An empty folder selects no body: the run is
    the one without it (tests/test_provider_bodies.py tests what bodies do)."""
    folder = tmp_path / "bodies"
    folder.mkdir()
    out = ["--template", str(tmp_path / "t.json")] if command == "convert" else []
    result = cli(command, "--in", str(PARENT), *out, "--provider-bodies", str(folder))
    assert result.code == 0, result.err
    assert "not supported" not in result.err


def test_verify_takes_provider_bodies_only_to_rederive(cli: Any, tmp_path: Path) -> None:
    result = cli("verify", "--bundle", str(GOLDEN), "--provider-bodies", str(tmp_path))
    assert result.code == 64
    assert "--provider-bodies" in result.err


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


def test_show_paths_shows_a_byte_that_is_not_utf8_as_that_byte(cli: Any, tmp_path: Path) -> None:
    """A scan audit: a name holding a byte that is not UTF-8 was shown `\\udce9`, which names no
    file; `\\xe9` is the byte, as a shell's `$'...'` takes it back."""
    import os
    import shutil

    from converter.cli.diagnostics import printable

    assert printable(os.fsdecode(b"caf\xe9-\xff\n")) == "caf\\xe9-\\xff\\n"
    tree = tmp_path / "t"
    shutil.copytree(PARENT.parent, tree)
    name = os.fsdecode(b"agent-a1234567-caf\xe9.jsonl")
    (tree / PARENT.stem / "subagents" / name).write_text("{}\n")
    result = cli("inspect", "--in", str(tree / PARENT.name), "--show-paths")
    assert result.code == 2
    assert "agent-a1234567-caf\\xe9.jsonl" in result.err
    assert "udce9" not in result.err


def test_show_paths_names_each_pseudonym_on_stderr_only(cli: Any, tmp_path: Path) -> None:
    """A template asks to price `tool-<hex>` and `model-<hex>`; `inspect --show-paths` says,
    on stderr, which local name each stands for (escaped like a path), the same pseudonym the
    template carries. Without the flag no name is shown; stdout is the same either way."""
    import json
    import shutil

    rich = fixture_parent("rich_tree")
    tree = tmp_path / "t"
    shutil.copytree(rich.parent, tree)
    parent = tree / rich.name
    child = next((tree / rich.stem / "subagents").glob("agent-a0bbc77a137d21d32.jsonl"))
    text = child.read_text(encoding="utf-8")
    child.write_text(
        text.replace('"claude-haiku-4-5-20251001"', '"acme-gw\\u001b[31m"').replace(
            '"speed":"standard"', '"speed":"warp\\u202e"'
        ),
        encoding="utf-8",
    )
    tool = "mcp__crm-CANARY-1bb20e5c212a__lookup_order-CANARY-479c1f3e7af3"
    shown = cli("inspect", "--in", str(parent), "--show-paths")
    plain = cli("inspect", "--in", str(parent))
    assert shown.code == plain.code == 0, shown.err
    assert shown.out == plain.out
    assert "name: " not in plain.err
    assert "CANARY" not in plain.err
    names = dict(
        line[len("name: ") :].split(" = ", 1)
        for line in shown.err.splitlines()
        if line.startswith("name: ")
    )
    by_local = {local: public for public, local in names.items()}
    assert by_local[tool].startswith("tool-")
    assert by_local["myplugin:CANARY-ce1a2ae409eb"].startswith("agent-type-")
    assert by_local["acme-gw\\x1b[31m"].startswith("model-")
    assert by_local["warp\\u202e"].startswith("x-")
    assert "\x1b" not in shown.err
    assert "\u202e" not in shown.err
    assert "CANARY" not in shown.out
    template = tmp_path / "t.json"
    assert cli("convert", "--in", str(parent), "--template", str(template)).code == 0
    pricing = json.loads(template.read_text())["claims"]["pricing"]
    assert by_local[tool] in pricing["client_tools"]
    assert by_local["acme-gw\\x1b[31m"] in json.dumps(pricing)
    assert by_local["warp\\u202e"] in json.dumps(pricing)
    assert "CANARY" not in template.read_text()


def test_a_mistyped_command_gets_the_command_it_is_near(cli: Any) -> None:
    """Was: "No such command '<value>'" and nothing else; a mistyped option got a suggestion."""
    result = cli("inpsect", "--in", "x.jsonl")
    assert result.code == 64
    assert "Did you mean inspect?" in result.err
    assert "inpsect" not in result.err
    far = cli("frobnicate")
    assert far.code == 64
    assert "Did you mean" not in far.err
    assert "frobnicate" not in far.err
    # Was: no list either (a walkthrough typed `prices`): the commands are this tool's words.
    assert "The commands: inspect, convert, evaluate, verify, scan, key, keygen." in far.err


def test_extra_arguments_after_a_repeated_option_say_to_repeat_it(cli: Any, tmp_path: Path) -> None:
    """Was: `evaluate --bundle bundles/*.json` (a shell's glob) said only "Got unexpected extra
    arguments (<value>)", not that --bundle is given once per file."""
    names = [str(tmp_path / f"secret-{n}.json") for n in range(3)]
    result = cli("evaluate", "--bundle", *names)
    assert result.code == 64
    assert "(--bundle takes one value: repeat it for each, --bundle A --bundle B)" in result.err
    assert "secret" not in result.err
    single = cli("verify", "--bundle", *names[:2])  # verify's --bundle is one file
    assert single.code == 64
    assert "repeat" not in single.err
    attached = cli("evaluate", f"--bundle={names[0]}", names[1])
    assert "(--bundle takes one value" in attached.err
    # a stray argument elsewhere is not a glob after --bundle (a review: it said so anyway)
    stray = cli("evaluate", "--format", "json", "STRAY", "--bundle", names[0])
    assert stray.code == 64
    assert "repeat" not in stray.err


def test_an_input_given_without_its_option_says_which_option_takes_it(
    cli: Any, tmp_path: Path
) -> None:
    """A walkthrough: `evaluate bundle.json` said only "Missing option '--bundle'", as if the
    file given were not there. It says the input goes after its option, never the value; not
    where the option is given, nor where click names an unknown option first."""
    secret = str(tmp_path / "secret-bundle.json")
    for argv, option in (
        (["evaluate", secret], "--bundle PATH"),
        (["verify", "--", secret], "--bundle PATH"),
        (["inspect", "--json", secret], "--in PATH"),
        (["convert", secret, secret], "--in PATH"),
    ):
        result = cli(*argv)
        assert result.code == 64, argv
        assert (
            "given without an option: this command takes each input after its option" in result.err
        )
        assert f"({option})" in result.err
        assert "secret" not in result.err
    assert "2 arguments given" in cli("convert", secret, secret).err
    assert "without an option" not in cli("evaluate", "--bundle", secret, secret).err
    assert "No such option" in cli("evaluate", "--bogus", secret).err
    assert "without an option" not in cli("evaluate", secret, "-h").err


@pytest.mark.parametrize(
    "argv",
    [["inspect", "--in", "x.jsonl"], ["scan"], ["convert", "--in", "x.jsonl", "--template", "t"]],
)
def test_an_empty_price_card_is_a_usage_error_as_an_empty_path_is(
    cli: Any, argv: list[str]
) -> None:
    """A walkthrough: `--price-card ""` (an unset variable) was PRICE-CARD-UNREADABLE (2), where
    every other empty path is a usage error (64)."""
    result = cli(*argv, "--price-card", " ")
    assert result.code == 64
    assert "the card given is empty: give the name of a shipped card (anthropic-" in result.err
    assert "<value>" not in result.err


def test_a_mistyped_subcommand_lists_its_groups_commands(cli: Any) -> None:
    result = cli("key", "frob-secret")
    assert result.code == 64
    assert "The commands: init, show-id." in result.err
    assert "frob" not in result.err
    assert "'<value>'" not in result.err  # read as a command's name (a walkthrough)
    bare = cli("key")  # no command: the group's help, not "usage error: Usage: ..."
    assert bare.code == 64
    assert bare.err.startswith("Usage: agent-evidence key")


def test_inspect_of_a_missing_parent_prints_the_refusal_alone(cli: Any, tmp_path: Path) -> None:
    """Was: an all-zero 'Session tree: NOT convertible' summary before the refusal."""
    result = cli("inspect", "--in", str(tmp_path / "nope.jsonl"))
    assert result.code == 2
    assert result.out == ""
    assert "CC-TREE-PARENT-MISSING" in result.err
    as_json = cli("inspect", "--in", str(tmp_path / "nope.jsonl"), "--json")
    assert as_json.json()["refusals"]  # a script still gets its JSON


def test_an_unreadable_input_is_the_commands_to_refuse_not_a_usage_error(
    cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Was: click judged readability itself (os.access), so an unreadable contract, bundle or
    key was `usage error … not readable` (64) with no code. The command opens it and refuses
    with the input's code (2). Root reads everything, so os.access is made to say no."""
    import os

    can = os.access
    monkeypatch.setattr("os.access", lambda path, mode, **kw: mode != os.R_OK and can(path, mode))
    contract = tmp_path / "c.json"
    contract.write_text("{}")
    result = cli(
        "convert", "--in", str(PARENT), "--contract", str(contract), "--out", str(tmp_path / "b")
    )
    assert result.code == 2
    assert "usage error" not in result.err
    assert result.err.startswith("refused: CONTRACT-SHAPE")


@pytest.mark.parametrize(
    "command",
    [
        ["convert", "--in", str(PARENT), "--template", "{long}.json"],
        ["scan", "{long}"],
        ["keygen", "--out", "{long}.pem"],
        ["inspect", "--in", str(PARENT), "--key-file", "{long}.key"],
        ["inspect", "--in", "{long}.jsonl"],
        ["evaluate", "--bundle", "{long}.json"],
    ],
    ids=["template", "scan", "keygen", "key-file", "in", "bundle"],
)
def test_a_path_longer_than_the_system_allows_is_a_usage_error(
    cli: Any, tmp_path: Path, command: list[str]
) -> None:
    """Was: exit 70, `internal error (OSError)` (ENAMETOOLONG from a path check); and for
    `--in`, CC-TREE-UNREADABLE, "check file permissions" (a robustness probe). An option's
    value is judged when it is read, and the message names the option, never the value."""
    long = str(tmp_path / ("x" * 300))
    result = cli(*(part.replace("{long}", long) for part in command))
    assert result.code == 64, result.err
    if command[0] == "scan":
        assert result.err == "usage error: a path given is longer than this system allows\n"
    else:
        option = command[next(i for i, part in enumerate(command) if "{long}" in part) - 1]
        assert result.err.startswith(
            f"usage error: Invalid value for '{option}': the path given is longer than this "
            "system allows"
        ), result.err
    assert "x" * 20 not in result.err


def test_an_out_name_with_no_room_for_its_attestation_says_so(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 247-byte --out name is legal; `<out>.intoto.json` is not. Was "a path given is longer
    than this system allows", which named no path the user had given."""
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", "de" * 32)  # the fixture contract's key
    key = tmp_path / "signing.pem"
    assert cli("keygen", "--out", str(key)).code == 0
    out = tmp_path / ("b" * 247)
    contract = str(GOLDEN.parent / "synthetic_contract.json")
    args = ["convert", "--in", str(PARENT), "--contract", contract, "--out", str(out)]
    result = cli(*args, "--attest-key", str(key))
    assert result.code == 64
    assert "--out's name leaves no room for the attestation beside it" in result.err
    assert not out.exists()
    assert cli(*args).code == 0  # unsigned, the name is fine


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="Linux's /proc")
def test_a_key_file_that_fails_to_read_is_refused_not_a_stdout_failure(cli: Any) -> None:
    """A read error with no file name (EIO from /proc/self/mem, as from a failing disk) was exit
    70, and for a moment OUT-STDOUT-FAILED, though stdout was fine."""
    result = cli("inspect", "--in", str(PARENT), "--key-file", "/proc/self/mem")
    assert result.code == 2
    assert result.err.startswith("refused: KEY-UNREADABLE")


def test_a_key_file_longer_than_a_key_is_refused(cli: Any, tmp_path: Path) -> None:
    """Only the first 4 KiB were read: a key, then 5,000 bytes of anything, was taken."""
    key = tmp_path / "k.key"
    key.write_text("de" * 32 + "\n" + " " * 5000 + "GARBAGE")
    key.chmod(0o600)
    result = cli("inspect", "--in", str(PARENT), "--key-file", str(key))
    assert result.code == 2
    assert result.err.startswith("refused: KEY-INVALID")


def test_a_key_file_saved_with_a_byte_order_mark_is_the_key(cli: Any, tmp_path: Path) -> None:
    """Was KEY-INVALID (a signing key saved so was taken): an editor's BOM is not the key's."""
    plain, marked = tmp_path / "plain.key", tmp_path / "marked.key"
    plain.write_text("de" * 32 + "\n")
    marked.write_bytes(b"\xef\xbb\xbf" + ("de" * 32 + "\n").encode())
    ids = []
    for key in (plain, marked):
        key.chmod(0o600)
        result = cli("key", "show-id", "--key-file", str(key))
        assert result.code == 0, result.err
        ids.append(result.out)
    assert ids[0] == ids[1]


def test_a_key_refusal_names_where_the_key_came_from(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: KEY-PERMISSIONS said "the key file" and KEY-INVALID listed every source, whichever
    was read (a walkthrough). The place is said, never the key or a home folder's path."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("AGENT_EVIDENCE_KEY", raising=False)
    key = tmp_path / ".config" / "agent-evidence" / "pseudonym.key"
    key.parent.mkdir(parents=True)
    key.write_text("de" * 32 + "\n")
    key.chmod(0o644)
    result = cli("key", "show-id")
    assert result.err.startswith(
        "refused: KEY-PERMISSIONS [~/.config/agent-evidence/pseudonym.key]"
    )
    result = cli("key", "show-id", "--key-file", str(key))
    assert result.err.startswith("refused: KEY-PERMISSIONS [--key-file]")
    # a file that is no key (a contract, say) is said so, not "chmod 600" and then that
    key.write_text('{"schema_version": "1"}\n')
    result = cli("key", "show-id", "--key-file", str(key))
    assert result.err.startswith("refused: KEY-INVALID [--key-file]"), result.err
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", "CANARY-not-a-key")
    result = cli("key", "show-id")
    assert result.err.startswith("refused: KEY-INVALID [$AGENT_EVIDENCE_KEY]")
    assert "CANARY" not in result.err
    assert str(tmp_path) not in result.err


def test_a_ctrl_c_while_the_program_loads_is_the_interrupt_not_a_traceback() -> None:
    """Was Python's traceback: the console entry point imported the whole command line (0.1 s)
    before any handler of ours existed. The entry module now imports it inside its own guard.
    The interrupt is simulated at the import of `converter.cli.main`, where a real one lands."""
    code = (
        "import builtins, sys\n"
        "real_import = builtins.__import__\n"
        "def interrupted(name, *args, **kwargs):\n"
        "    if name == 'converter.cli.main':\n"
        "        raise KeyboardInterrupt\n"
        "    return real_import(name, *args, **kwargs)\n"
        "builtins.__import__ = interrupted\n"
        "sys.argv = ['agent-evidence', '--version']\n"
        "from converter.entry import main\n"
        "main()\n"
        "print('not reached')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (
        130,
        "",
        "interrupted: nothing was written\n",
    )


@pytest.mark.parametrize(("stop", "code"), [("SIGTERM", 143), ("SIGHUP", 129)])
def test_a_runner_stop_while_loading_is_said_as_an_interrupt_is(stop: str, code: int) -> None:
    """A robustness audit: a SIGTERM (CI runner, `timeout`) or SIGHUP while the modules were
    loading ended the process by the signal, with no line, where commands.md says each stop is
    handled as a Ctrl-C is. The stop is sent at the import of `converter.cli.main`."""
    program = (
        "import builtins, os, signal, sys, time\n"
        "real_import = builtins.__import__\n"
        "def stopped(name, *args, **kwargs):\n"
        "    if name == 'converter.cli.main':\n"
        f"        os.kill(os.getpid(), signal.{stop})\n"
        "        time.sleep(10)\n"
        "    return real_import(name, *args, **kwargs)\n"
        "builtins.__import__ = stopped\n"
        "sys.argv = ['agent-evidence', '--version']\n"
        "from converter.entry import main\n"
        "main()\n"
        "print('not reached')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=False, timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        code,
        "",
        "interrupted: nothing was written\n",
    )


def test_a_stop_ignored_by_the_caller_stays_ignored_after_loading() -> None:
    """The loading handler is put back as it was found: `cli.main` then installs its own for a
    stop the caller left to its default, and leaves an ignored one ignored."""
    program = (
        "import signal, sys\n"
        "signal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
        "import converter.cli.main as cli\n"
        "seen = []\n"
        "cli.main = lambda: seen.append((signal.getsignal(signal.SIGHUP), "
        "signal.getsignal(signal.SIGTERM)))\n"
        "from converter.entry import main\n"
        "main()\n"
        "print(seen[0][0] is signal.SIG_IGN, seen[0][1] is signal.SIG_DFL)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "True True\n", "")


def test_the_entry_point_runs_the_command_line_and_exits_as_it_does() -> None:
    from converter import entry
    from converter.errors import Exit

    assert entry.INTERRUPTED == Exit.INTERRUPTED
    for module in ("converter", "converter.entry"):
        done = subprocess.run(
            [sys.executable, "-m", module, "--version"], capture_output=True, text=True, check=False
        )
        assert (done.returncode, done.stderr) == (0, ""), module
        assert "agent-evidence" in done.stdout, module


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["scan", "--jobs", "1", "projects"], 0),
        (["scan", "no-such-folder"], 2),
        (["inspect", "--in", "missing.jsonl"], 2),
        (["evaluate", "--bundle", str(GOLDEN)], 0),
    ],
    ids=["scan", "scan-refused", "inspect-refused", "evaluate"],
)
def test_a_stderr_closed_from_the_start_keeps_every_exit_code(
    args: list[str], code: int, tmp_path: Path
) -> None:
    """Was exit 70 for every scan started with `2>&-`: Python sets sys.stderr to None when
    descriptor 2 is closed, and scan asked it whether it was a terminal (for its progress bar)."""
    (tmp_path / "projects").mkdir()
    done = subprocess.run(
        ["bash", "-c", 'exec "$0" -m converter "$@" 2>&-', sys.executable, *args],
        stdout=subprocess.DEVNULL,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == code


class _Trickle(io.RawIOBase):
    """A raw stdout that takes at most 7 bytes a write, then fails once `broken` is reached."""

    def __init__(self, broken: int | None = None) -> None:
        self.got = bytearray()
        self.broken = broken

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        if self.broken is not None and len(self.got) >= self.broken:
            raise BrokenPipeError(32, "Broken pipe")
        chunk = bytes(data[:7])
        self.got += chunk
        return len(chunk)


def test_say_writes_every_byte_through_partial_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Was: with PYTHONUNBUFFERED=1 stdout's text layer wrote once to the raw file and dropped
    what a partial write left (`scan --json | head -c 100` exited 0, its output cut short)."""
    from converter.cli.diagnostics import StdoutFailed, say

    raw = _Trickle()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="utf-8", write_through=True))  # type: ignore[arg-type]
    say("a line of more than seven bytes, é included")
    assert raw.got.decode() == "a line of more than seven bytes, é included\n"

    raw = _Trickle(broken=14)
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="utf-8", write_through=True))  # type: ignore[arg-type]
    with pytest.raises(StdoutFailed):
        say("x" * 100)


@pytest.mark.parametrize(
    ("encoding", "dash"),
    [("ascii", "—".encode()), ("latin-1", b"\\u2014")],
    ids=["ascii", "latin-1"],
)
def test_a_narrow_stdout_encoding_is_no_internal_error(encoding: str, dash: bytes) -> None:
    """Writing stdout's bytes directly (for whole writes) first encoded `—` strictly as ASCII:
    evaluate exited 70 under PYTHONIOENCODING=ascii. ASCII is taken as UTF-8, as click takes
    it; any other encoding escapes what it lacks."""
    done = subprocess.run(
        [sys.executable, "-m", "converter", "evaluate", "--bundle", str(GOLDEN)],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": encoding},
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.startswith(b"Decision: SCALE (exit 0) " + dash + b" 1 task")


def test_show_paths_says_which_parent_line_each_task_starts_at(cli: Any, tmp_path: Path) -> None:
    """Was: a contract's outcomes are keyed by task id in id order, and nothing said which
    prompt a task id was: a user labelling top to bottom labelled the wrong tasks."""
    rich = fixture_parent("rich_tree")
    template = tmp_path / "t.json"
    assert cli("convert", "--in", str(rich), "--template", str(template)).code == 0
    tasks = json.loads(template.read_text())["tasks"]
    shown = cli("inspect", "--in", str(rich), "--show-paths")
    lines = [line for line in shown.err.splitlines() if line.startswith("task: ")]
    assert [line.split(" ")[1] for line in lines] == [t["id"] for t in tasks]  # prompt order
    parent_lines = rich.read_bytes().split(b"\n")
    for line in lines:
        number = int(line.split("parent line ")[1].split(" ")[0])
        record = json.loads(parent_lines[number - 1])
        assert record["type"] == "user"  # the root prompt itself
    assert lines[0].endswith(f"(task 1 of {len(tasks)})")
    assert "task: " not in cli("inspect", "--in", str(rich)).err
    whole = cli("inspect", "--in", str(rich), "--show-paths", "--task-unit", "session")
    assert "= the whole session (task 1 of 1)" in whole.err


@pytest.mark.parametrize(
    "argv",
    [
        ["keygen", "--out", ""],
        ["key", "init", "--key-file", " "],
        ["evaluate", "--bundle", "b.json", "--report", ""],
        ["convert", "--in", "x.jsonl", "--template", ""],
    ],
)
def test_an_empty_path_is_a_usage_error(cli: Any, argv: list[str]) -> None:
    """Was (fuzzing): `keygen --out ''` exit 70, `key init --key-file ''` KEY-EXISTS, and
    `--report ''` OUT-NOT-A-FILE: an unset shell variable names no file."""
    result = cli(*argv)
    assert result.code == 64
    assert "the path given is empty" in result.err


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "--bundle", str(GOLDEN), "--report", "-"],
        ["evaluate", "--bundle", "-"],
        ["convert", "--in", str(PARENT), "--template", "-"],
        ["key", "init", "--key-file", "-"],
        ["keygen", "--out", "-"],
    ],
)
def test_a_dash_for_a_path_is_a_usage_error_not_a_file_named_so(
    cli: Any, argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A walkthrough: `evaluate --report -` wrote a file named `-`, which a later `convert
    --out -` replaced with a bundle; most tools read `-` as standard output. No option here
    reads standard input or writes standard output: a file named so is `./-`."""
    monkeypatch.chdir(tmp_path)
    result = cli(*argv)
    assert result.code == 64, result.err
    assert "a dash is no standard input or output here" in result.err
    assert list(tmp_path.iterdir()) == []
    named = cli("evaluate", "--bundle", str(GOLDEN), "--report", "./-")
    assert named.code == 0, named.err
    assert (tmp_path / "-").is_file()


def test_a_loop_of_symbolic_links_as_a_path_is_refused_not_an_internal_error(
    cli: Any, tmp_path: Path
) -> None:
    """Was (fuzzing): exit 70, RuntimeError from Path.resolve() (Python 3.11's loop error)."""
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    golden = str(GOLDEN)
    for argv in (
        ["evaluate", "--bundle", golden, "--report", str(tmp_path / "a")],
        ["evaluate", "--bundle", str(tmp_path / "a")],
        ["convert", "--in", str(tmp_path / "a"), "--template", str(tmp_path / "t.json")],
        ["convert", "--in", str(PARENT), "--template", str(tmp_path / "a")],
    ):
        result = cli(*argv)
        assert result.code in (2, 64), (argv, result.err)
        assert "internal error" not in result.err


def test_an_attestation_path_beside_the_bundle_holding_something_else_is_never_removed(
    cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Was (fuzzing): <out>.intoto.json was removed whatever it was: the run's own contract
    there was deleted (exit 0), a folder there crashed after the bundle was written."""
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", "de" * 32)  # the fixture contract's key
    contract = tmp_path / "b.json.intoto.json"
    contract.write_bytes((GOLDEN.parent / "synthetic_contract.json").read_bytes())
    out = tmp_path / "b.json"
    args = ["convert", "--in", str(PARENT), "--contract", str(contract), "--out", str(out)]
    result = cli(*args)
    assert result.code == 2
    assert "OUT-SAME-AS-INPUT" in result.err
    assert contract.exists()
    assert not out.exists()
    other = tmp_path / "o"
    (other / "b.json.intoto.json").mkdir(parents=True)
    fixture = str(GOLDEN.parent / "synthetic_contract.json")
    result = cli(
        "convert", "--in", str(PARENT), "--contract", fixture, "--out", str(other / "b.json")
    )
    assert result.code == 2
    # which output: not --out as given (a walkthrough: the refusal named none, and its fix
    # spoke of --report)
    assert "OUT-NOT-A-FILE [the attestation beside --out: its name + .intoto.json]" in result.err
    assert not (other / "b.json").exists()
    plain = tmp_path / "p"
    plain.mkdir()
    (plain / "b.json.intoto.json").write_text('{"not": "an attestation"}')
    result = cli(
        "convert", "--in", str(PARENT), "--contract", fixture, "--out", str(plain / "b.json")
    )
    assert result.code == 0, result.err
    assert (plain / "b.json.intoto.json").read_text() == '{"not": "an attestation"}'


def test_a_path_in_a_folder_that_cannot_be_searched_is_refused_not_an_internal_error(
    cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Was (fuzzing, run without root's override): exit 70, PermissionError, which Python
    3.11's Path.is_file()/is_dir()/exists() raise for a path under a folder mode 0700 of
    another user. Simulated here, as the tests run as root."""

    real = {name: getattr(Path, name) for name in ("is_file", "is_dir", "exists")}
    for name in real:
        monkeypatch.setattr(Path, name, lambda self, *a, _n=name, **k: denied_as(self, _n))

    def denied_as(path: Path, which: str) -> bool:
        if "secret" in path.parts:
            raise PermissionError(13, "Permission denied")
        return bool(real[which](path))

    secret = tmp_path / "secret"
    cases = {
        "OUT-UNWRITABLE": ["convert", "--in", str(PARENT), "--template", str(secret / "t.json")],
        "ATTEST-KEY-UNWRITABLE": ["keygen", "--out", str(secret / "k.pem")],
        "KEY-UNREADABLE": ["key", "show-id", "--key-file", str(secret / "p.key")],
    }
    for code, argv in cases.items():
        result = cli(*argv)
        assert result.code == 2, (argv, result.err)
        assert code in result.err
    monkeypatch.delenv("AGENT_EVIDENCE_KEY")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(secret))
    result = cli("key", "show-id")
    assert (result.code, "KEY-UNREADABLE" in result.err) == (2, True)


def test_an_output_name_the_file_system_takes_is_written(cli: Any, tmp_path: Path) -> None:
    """Was (fuzzing): a 250-character output name was OUT-UNWRITABLE ("folder missing or not
    writable"): the staged file's name, the output's plus 14 bytes, was too long."""
    out = tmp_path / ("t" * 245 + ".json")
    assert len(out.name) == 250
    result = cli("convert", "--in", str(PARENT), "--template", str(out))
    assert result.code == 0, result.err
    assert out.is_file()


def test_a_bundle_whose_name_leaves_no_room_for_its_attestation_verifies(
    cli: Any, tmp_path: Path
) -> None:
    """Was (second diff review): `verify` of a bundle with a 250-byte name printed its ok lines,
    then a usage error: `<name>.intoto.json` is past the file system's limit."""
    bundle = tmp_path / ("b" * 245 + ".json")
    bundle.write_bytes(GOLDEN.read_bytes())
    result = cli("verify", "--bundle", str(bundle))
    assert result.code == 0, result.err


def test_one_problem_found_by_two_checks_is_said_once(
    cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Was (second diff review): an unwritable folder holding a stale attestation was
    OUT-UNWRITABLE twice (the bundle's path and the attestation's were each checked)."""
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", "de" * 32)  # the fixture contract's key
    (tmp_path / "b.json.intoto.json").write_bytes(b'{"payload":"e30=","payloadType":"x"}')
    monkeypatch.setattr("converter.files.os.access", lambda *_: False)
    contract = str(GOLDEN.parent / "synthetic_contract.json")
    result = cli(
        "convert", "--in", str(PARENT), "--contract", contract, "--out", str(tmp_path / "b.json")
    )
    assert result.code == 2
    refusals = [line for line in result.err.splitlines() if line.startswith("refused: ")]
    assert len(refusals) == 1
    assert refusals[0].startswith("refused: OUT-UNWRITABLE [--out]")  # which output's folder


@pytest.mark.parametrize("stop", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_failed_second_rename_puts_back_the_file_the_first_replaced(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, stop: BaseException
) -> None:
    """Was: the bundle renamed over an older bundle was removed when its attestation's rename
    failed, and the older bundle was lost with it."""
    old = tmp_path / "b.json"
    old.write_bytes(b"old bundle")
    _second_rename_raises(monkeypatch, stop)
    with pytest.raises((Refused, KeyboardInterrupt)):
        write_all_atomic([(old, b"{}"), (tmp_path / "b.json.intoto.json", b"{}")])
    assert [p.name for p in tmp_path.iterdir()] == ["b.json"]
    assert old.read_bytes() == b"old bundle"


def test_outputs_written_together_leave_no_second_name_behind(tmp_path: Path) -> None:
    (tmp_path / "b.json").write_bytes(b"old")
    (tmp_path / "b.json.intoto.json").write_bytes(b"old")
    write_all_atomic([(tmp_path / "b.json", b"new"), (tmp_path / "b.json.intoto.json", b"new")])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.json", "b.json.intoto.json"]
    assert {p.read_bytes() for p in tmp_path.iterdir()} == {b"new"}


def test_a_sigint_the_caller_ignores_stays_ignored(tmp_path: Path) -> None:
    """Was: a background job of a script (started with SIGINT ignored) exited 130 on a
    `kill -INT` that came after the handler was installed, and ran to the end on one before:
    the same signal decided by timing. An ignored SIGINT is left ignored, as Python leaves it."""
    code = (
        "import os, signal, sys\n"
        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        "import converter.cli.main as entry\n"
        "real = entry._dispatch\n"
        "def interrupted(*args):\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    return real(*args)\n"
        "entry._dispatch = interrupted\n"
        f"sys.argv = ['agent-evidence', 'inspect', '--in', {str(PARENT)!r}]\n"
        "try:\n    entry.main()\n"
        "except SystemExit as done:\n    print(done.code)\n"
    )
    env = {**os.environ, "AGENT_EVIDENCE_KEY": "ab" * 16 + "cd" * 16}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert done.stdout.splitlines()[-1] == "0", done.stderr


def test_when_even_the_put_back_fails_the_old_file_is_kept_not_deleted(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Was (diff review): the kept old bundle was deleted and the new bundle left beside the old
    attestation when the rename putting it back failed too. The new output goes; the old file
    stays, under its second name."""
    real = os.replace
    calls: list[str] = []

    def from_the_second_on(src: str, dst: Path) -> None:
        calls.append(src)
        if len(calls) >= 2:
            raise OSError(5, "Input/output error")
        real(src, dst)

    (tmp_path / "b.json").write_bytes(b"old bundle")
    (tmp_path / "b.json.intoto.json").write_bytes(b"old attestation")
    monkeypatch.setattr("converter.files.os.replace", from_the_second_on)
    with pytest.raises(Refused):
        write_all_atomic([(tmp_path / "b.json", b"new"), (tmp_path / "b.json.intoto.json", b"new")])
    left = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert left.pop("b.json.intoto.json") == b"old attestation"
    assert "b.json" not in left  # never the new bundle beside the old attestation
    assert list(left.values()) == [b"old bundle"]  # kept under its second name


@pytest.mark.parametrize(
    ("typed", "shown"),
    [
        ("--attestation", "No such option '--attestation'."),  # verify's
        ("--bundl", "No such option '<value>'. Did you mean '--bundle'?"),
        ("--alice-secret-project", "No such option '<value>'"),  # the user's own words
        ("--/home/someone/secret", "No such option '<value>'"),  # a path: masked
        ("--someone@example.com", "No such option '<value>'"),
        ("--" + "x" * 60, "No such option '<value>'"),
    ],
)
def test_an_unknown_option_is_named_when_it_is_another_commands(
    cli: Any, typed: str, shown: str
) -> None:
    """A new lead's walkthrough: `evaluate --attestation x` said `No such option '<value>'`,
    which hid the one word to correct. An option of another command is this program's word,
    and named; anything else typed there may be the user's (a project's name), and masked."""
    result = cli("evaluate", typed, "--bundle", "b.json")
    assert result.code == 64
    assert shown in result.err
    if "<value>" in shown:
        assert f"'{typed}'" not in result.err
        assert "alice" not in result.err
        assert "someone" not in result.err


def test_a_folder_given_as_a_bundle_is_named_by_its_place(cli: Any, tmp_path: Path) -> None:
    """Was a usage error, `File '<value>' is a directory`, naming no bundle: with many bundles
    (the Action's bundle input) the one to fix could not be told."""
    (tmp_path / "folder").mkdir()
    result = cli(
        "evaluate", "--bundle", str(tmp_path / "a.json"), "--bundle", str(tmp_path / "folder")
    )
    assert result.code == 2
    assert "BUNDLE-UNREADABLE [bundle 1 of 2: no such file]" in result.err  # a.json does not exist
    # Was BUNDLE-UNREADABLE, "check the path and permissions", for a folder too (a new user's
    # first try at a week's bundles): said as what it is, with the way to give them.
    assert "BUNDLE-IS-FOLDER [bundle 2 of 2]" in result.err
    assert "--bundle a.json --bundle b.json" in result.err
    assert "folder/" not in result.err
    assert str(tmp_path) not in result.err
    verified = cli("verify", "--bundle", str(tmp_path / "folder"))  # the same for verify
    assert verified.code == 2
    assert "BUNDLE-IS-FOLDER" in verified.err


@pytest.mark.parametrize(
    ("argv", "where"),
    [
        (["scan", "--jobs", "0"], "agent-evidence scan -h"),
        (["inspect", "--no-such-flag"], "agent-evidence inspect -h"),
        (["evaluate"], "agent-evidence evaluate -h"),
        (["key", "init", "--no-such-flag"], "agent-evidence key init -h"),
        (["--no-such-flag"], "agent-evidence -h"),
    ],
)
def test_a_usage_error_says_where_the_options_are_listed(
    cli: Any, argv: list[str], where: str
) -> None:
    """A walkthrough: `scan --jobs 0` said the range and nothing more; the value typed stays
    masked, and the command's own `-h` is named by the program's words."""
    result = cli(*argv)
    assert result.code == 64
    assert result.err.rstrip().endswith(f"(`{where}` lists the options)"), result.err


def test_evaluate_asked_for_what_a_bundle_seals_says_where_it_is_changed(cli: Any) -> None:
    """A walkthrough: `evaluate --price-card team.json` was told only "Did you mean
    '--public-key'?"; a bundle's prices are its contract's. (`--policy` is an option of evaluate
    since 0.6.3: it requires the team's limits, and EVAL-POLICY-MISMATCH says how to change a
    bundle's.)"""
    result = cli("evaluate", "--bundle", "b.json", "--price-card=team.json")
    assert result.code == 64
    assert "(--price-card: each bundle carries its prices, sealed by its contract" in result.err
    assert "--from-contract OLD.json --price-card ...`" in result.err
    assert "team.json" not in result.err  # the value typed stays masked
    assert "Did you mean" not in result.err  # click's nearest name (--public-key) misled
    other = cli("inspect", "--in", "x.jsonl", "--price-card", "team.json")
    assert "sealed by its contract" not in other.err
    # a review: the hint followed any argument, not the option click refused
    mixed = cli("evaluate", "--bundle", "b.json", "--bogus", "--price-card", "team.json")
    assert "No such option '<value>'" in mixed.err
    assert "sealed by its contract" not in mixed.err
    # the policy option is evaluate's own now: no usage error, the file is read
    policy = cli("evaluate", "--bundle", "b.json", "--policy", "team.json")
    assert policy.code != 64
    assert "sealed by its contract" not in policy.err


def test_an_unknown_command_lists_the_commands_without_a_help_hint(cli: Any) -> None:
    result = cli("no-such-command")
    assert result.code == 64
    assert "The commands: inspect" in result.err
    assert "lists the options" not in result.err


@pytest.mark.parametrize("argv", [["-h"], ["key", "-h"]])
def test_the_command_lists_cut_no_summary_short(
    cli: Any, argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A walkthrough: the top-level help cut every command's summary with `...` at 80 columns.
    click never cuts a `short_help` it is given: one too long wraps onto a second line instead,
    so each command must take exactly one line of at most 80 columns."""
    monkeypatch.setenv("COLUMNS", "80")
    result = cli(*argv)
    assert result.code == 0
    listed = result.out.split("Commands:", 1)[1].strip("\n").splitlines()
    assert "..." not in "\n".join(listed), listed
    for line in listed:
        assert len(line) <= 80, line
        assert re.match(r"^  [a-z][a-z-]* +\S", line), f"a summary wrapped: {line!r}"


@pytest.mark.parametrize(
    ("argv", "where"),
    [
        (["inspect", "--in"], "agent-evidence inspect -h"),
        (["key", "show-id", "--key-file"], "agent-evidence key show-id -h"),
        (["scan", "--json=1"], "agent-evidence scan -h"),
        (["--debug", "convert", "--price-card"], "agent-evidence convert -h"),
    ],
)
def test_a_parser_error_names_the_command_it_was_in(cli: Any, argv: list[str], where: str) -> None:
    """click raises `requires an argument` / `does not take a value` with no context: the hint
    named the top level's `-h`, which lists no option of the command."""
    result = cli(*argv)
    assert result.code == 64
    assert result.err.rstrip().endswith(f"(`{where}` lists the options)"), result.err


@pytest.mark.parametrize(
    "args",
    [
        ["verify", "--bundle", str(GOLDEN), "--bundle", str(GOLDEN)],
        ["evaluate", "--bundle", str(GOLDEN), "--format", "json", "--format=text"],
        ["inspect", "--in", str(PARENT), "--in", str(PARENT)],
        ["key", "init", "--key-file", "k1", "--key-file", "k2"],
    ],
    ids=["verify-bundle", "evaluate-format", "inspect-in", "key-init"],
)
def test_an_option_of_one_value_given_twice_is_a_usage_error(args: list[str], cli: Any) -> None:
    """Was: click kept the last and dropped the first unsaid: `verify --bundle A --bundle B`
    checked only B, and a tampered A passed with exit 0 (an operations review)."""
    result = cli(*args)
    assert result.code == 64
    option = args[-2].split("=")[0] if args[-2].startswith("--") else args[-1].split("=")[0]
    assert f"usage error: {option} is given more than once" in result.err
    command = " ".join(args[:2]) if args[0] == "key" else args[0]
    assert f"(`agent-evidence {command} -h` lists the options)" in result.err


def test_options_meant_to_repeat_and_flags_twice_still_work(cli: Any) -> None:
    assert cli("evaluate", "--bundle", str(GOLDEN), "--bundle", str(GOLDEN)).code == 2  # overlap
    assert cli("inspect", "--in", str(PARENT), "--json", "--json").code == 0
    # a value spelled like an option is a value: `--in --json` names a file called --json
    result = cli("inspect", "--json", "--in", "--json")
    assert result.code == 2  # no such file: refused, not a usage error
    assert "given more than once" not in result.err
    # help asked for is help, whatever else was typed
    assert cli("inspect", "-h", "--in", "a", "--in", "b").code == 0


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
@pytest.mark.parametrize(
    ("stop", "background"),
    [("SIGTERM", False), ("SIGHUP", False), ("SIGTERM", True)],
    ids=["term", "hup", "term-to-a-background-job"],
)
def test_a_stop_from_a_runner_is_held_through_the_write_like_a_ctrl_c(
    stop: str, background: bool, tmp_path: Path
) -> None:
    """Was: only Ctrl-C was handled; the SIGTERM a CI runner, `timeout` or `docker stop` sends
    (and the SIGHUP of a closed terminal) killed a run mid-write, silently, leaving a staged
    file (an operations review). It now waits for the renames and is said, 128 + its number."""
    number = int(getattr(signal, stop))
    report = tmp_path / "report.md"
    code = (
        "import os, signal, sys\n"
        # as a run from a terminal starts: a suite run under `nohup` would hand its children
        # an ignored HUP, which the converter rightly leaves ignored (a mutation test's harness)
        f"signal.signal({number}, signal.SIG_DFL)\n"
        # a script's background job (`cmd &`) starts with SIGINT ignored; a TERM is still said
        + ("signal.signal(signal.SIGINT, signal.SIG_IGN)\n" if background else "")
        + "import converter.files as files\n"
        "real = os.replace\n"
        "def stopped(src, dst):\n"
        f"    os.kill(os.getpid(), {number})\n"
        "    real(src, dst)\n"
        "files.os.replace = stopped\n"
        "from converter.cli.main import main\n"
        "sys.argv = ['agent-evidence', 'evaluate', '--bundle', sys.argv[1], '--format',"
        " 'markdown', '--report', sys.argv[2]]\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(GOLDEN), str(report)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr.strip()) == (
        128 + number,
        "interrupted after the output was written in full",
    )
    assert report.read_text().startswith("**Decision:")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]  # no staged file


def test_a_relative_xdg_config_home_is_ignored(
    cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Was: XDG_CONFIG_HOME=relcfg made the secret key in whatever folder the command ran in
    (a checkout: committed with it). The XDG spec says a relative value is ignored."""
    monkeypatch.delenv("AGENT_EVIDENCE_KEY")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", "relcfg")
    monkeypatch.chdir(tmp_path)
    assert cli("key", "init").code == 0
    assert not (tmp_path / "relcfg").exists()
    assert (tmp_path / "home" / ".config" / "agent-evidence" / "pseudonym.key").exists()


@pytest.mark.parametrize("home", ["none", "relative", "empty"])
def test_no_home_folder_is_said_not_a_bug(
    home: str, cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Was exit 70: with no $HOME and no passwd entry (`docker run -u 12345`), `Path.home()`
    raised inside the key lookup and the projects folder's; and a relative or empty HOME made
    the key in the working folder (or `/`), as a relative XDG_CONFIG_HOME did."""

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv("AGENT_EVIDENCE_KEY")
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    if home == "none":
        monkeypatch.setattr(Path, "home", staticmethod(no_home))
    else:
        monkeypatch.setenv("HOME", "relhome" if home == "relative" else "")
    for command in (["inspect", "--in", str(PARENT)], ["key", "init"]):
        result = cli(*command)
        assert result.code == 2
        assert "KEY-NO-HOME" in result.err
        assert "XDG_CONFIG_HOME" in result.err  # the way out, not `key init` again
    assert list(tmp_path.iterdir()) == []  # no key made in the working folder
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", "ab" * 32)
    result = cli("scan")
    assert result.code == 2
    assert "CC-TREE-PROJECTS-MISSING" in result.err
