"""The console entry point (`agent-evidence`, `python -m converter`).

It imports the command line itself, so that a Ctrl-C while the program is still loading (about
0.1 s of imports before `cli.main` can install its own handler) ends like any other interrupt
before an output: one fixed line and exit 130, not Python's traceback. Only the interpreter's own
start-up and the loading of this module, before it runs, are outside it; so it imports nothing
but `os`, which the interpreter has loaded already (not even `from __future__`).
"""

import os

INTERRUPTED = 130  # errors.Exit.INTERRUPTED, which may not be loaded yet
_BEFORE_ANY_OUTPUT = b"interrupted: nothing was written\n"


def main() -> None:
    try:
        from converter.cli.main import main as run
    except KeyboardInterrupt:
        _loading_interrupted()
    run()


def _loading_interrupted() -> None:
    """Nothing can have been written: no command has started. The line goes straight to the
    descriptor (no module of this program may be loaded yet, and a closed stderr loses only the
    line, never the code)."""
    # On a terminal the line starts below the echoed ^C, as click's own interrupt line does.
    # (No contextlib.suppress: importing it is 4 ms this guard would not cover; os is loaded.)
    try:  # noqa: SIM105
        os.write(2, (b"\n" if os.isatty(2) else b"") + _BEFORE_ANY_OUTPUT)
    except OSError:
        pass
    os._exit(INTERRUPTED)


if __name__ == "__main__":  # pragma: no cover - `python -m converter.entry`
    main()
