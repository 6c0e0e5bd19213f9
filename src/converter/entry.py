"""The console entry point (`agent-evidence`, `python -m converter`).

It imports the command line itself, so that a Ctrl-C while the program is still loading (about
0.1 s of imports before `cli.main` can install its own handler) ends like any other interrupt
before an output: one fixed line and exit 130, not Python's traceback. Only the interpreter's own
start-up and the loading of this module, before it runs, are outside it; so it imports nothing
but `os` and `_signal`, which the interpreter has loaded already (not even `from __future__`).
A SIGTERM or SIGHUP while loading is said the same way, with its own code (143, 129).
"""

import _signal  # type: ignore[import-not-found]  # loaded at start-up; `signal` loads enum (16 ms)
import os

INTERRUPTED = 130  # errors.Exit.INTERRUPTED, which may not be loaded yet
_BEFORE_ANY_OUTPUT = b"interrupted: nothing was written\n"
# The stops a CI runner, `timeout` or a closed terminal sends, handled as a Ctrl-C is (a
# robustness audit: one while loading ended the process with no line); `cli.main` installs its own.
_STOPS = tuple(getattr(_signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(_signal, name))


def main() -> None:
    # A stop the caller ignores stays ignored, as `cli.main` leaves it too.
    mine = [s for s in _STOPS if _signal.getsignal(s) == _signal.SIG_DFL]
    for stop in mine:
        _signal.signal(stop, _stopped)
    try:
        from converter.cli.main import main as run
    except KeyboardInterrupt:
        _loading_interrupted()
    for stop in mine:  # as found, so that `cli.main` installs its own handler
        _signal.signal(stop, _signal.SIG_DFL)
    run()


def _stopped(signum: int, _frame: object) -> None:
    _loading_interrupted(128 + signum)


def _loading_interrupted(code: int = INTERRUPTED) -> None:
    """Nothing can have been written: no command has started. The line goes straight to the
    descriptor (no module of this program may be loaded yet, and a closed stderr loses only the
    line, never the code)."""
    # On a terminal the line starts below the echoed ^C, as click's own interrupt line does.
    # (No contextlib.suppress: importing it is 4 ms this guard would not cover; os is loaded.)
    try:  # noqa: SIM105
        os.write(2, (b"\n" if os.isatty(2) else b"") + _BEFORE_ANY_OUTPUT)
    except OSError:
        pass
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover - `python -m converter.entry`
    main()
