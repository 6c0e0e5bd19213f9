"""`make demo`: the proof a new user runs first, as the Makefile runs it."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT


def test_the_demo_proves_the_golden_bundle_and_says_its_key_notice_once() -> None:
    """A walkthrough: the demo key's notice (it is public) came once per command, twice in all,
    which alarmed a first-time user; it is said once, and the proof is unchanged."""
    env = {k: v for k, v in os.environ.items() if k != "AGENT_EVIDENCE_KEY"}
    done = subprocess.run(
        [sys.executable, "-m", "converter.devtools.demo"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("bundle identical, byte for byte")
    assert done.stdout.splitlines()[-1] == "SCALE"
    assert done.stderr.count("notice: the pseudonym key") == 1, done.stderr
    assert "== convert --contract" in done.stderr
