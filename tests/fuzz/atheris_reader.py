"""Optional coverage-guided fuzzing of the reader with atheris (not run by `make test`).

    .venv/bin/pip install atheris
    .venv/bin/python -m tests.fuzz.atheris_reader -atheris_runs=20000 [corpus_dir]

Each input picks a fixture tree and one of its files, then splices the fuzzer's bytes into that
file at a chosen offset (or replaces it). The real CLI runs in-process on the damaged copy; any
exit other than 0 or 2, a traceback, an internal error, or a fixture marker in the output is a
crash (re-run with --debug to see where).
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from converter.cli.main import main

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TREES = ("synthetic_tree", "rich_tree")
FILES = {
    tree: sorted(
        p.relative_to(FIXTURES / tree) for p in (FIXTURES / tree).rglob("*") if p.is_file()
    )
    for tree in TREES
}
SCRATCH = Path(tempfile.mkdtemp(prefix="ae-atheris-"))


def one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    tree = TREES[fdp.ConsumeIntInRange(0, len(TREES) - 1)]
    rel = FILES[tree][fdp.ConsumeIntInRange(0, len(FILES[tree]) - 1)]
    mode = fdp.ConsumeIntInRange(0, 2)
    root = SCRATCH / "t"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(FIXTURES / tree, root)
    target = root / rel
    original = target.read_bytes()
    cut = fdp.ConsumeIntInRange(0, len(original))
    payload = fdp.ConsumeBytes(fdp.remaining_bytes())
    if mode == 0:  # replace the whole file
        target.write_bytes(payload)
    elif mode == 1:  # splice in
        target.write_bytes(original[:cut] + payload + original[cut:])
    else:  # overwrite from the offset (a torn or damaged tail)
        target.write_bytes(original[:cut] + payload)
    parent = next(root.glob("*.jsonl"))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["inspect", "--json", "--in", str(parent)])
            code = 0
        except SystemExit as done:
            code = int(done.code or 0)
    text = out.getvalue() + err.getvalue()
    if code not in (0, 2) or "Traceback" in text or "internal error" in text:
        raise RuntimeError(f"exit {code}: {err.getvalue()[-500:]}")
    if "CANARY" in err.getvalue():
        raise RuntimeError("a fixture marker reached stderr")


def run() -> None:
    os.environ.setdefault("AGENT_EVIDENCE_KEY", "0f" * 32)
    os.environ["XDG_CONFIG_HOME"] = str(SCRATCH / "config")
    atheris.Setup(sys.argv, one_input)
    try:
        atheris.Fuzz()
    finally:
        shutil.rmtree(SCRATCH, ignore_errors=True)


if __name__ == "__main__":
    run()
