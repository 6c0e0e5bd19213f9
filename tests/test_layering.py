"""Which stages a module loads: checked in a fresh interpreter, since the test run has every
module loaded already."""

from __future__ import annotations

import json
import subprocess
import sys

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


def test_the_reading_worker_does_not_load_pydantic() -> None:
    """The worker process reads transcripts with msgspec alone; a model library in its imports
    would cost every worker its start-up time and memory."""
    loaded = _loaded(["converter.reader.worker"], ("pydantic",))
    assert loaded == [], f"the reading worker loads {loaded}"
