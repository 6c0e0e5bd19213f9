"""The bench generator writes trees `inspect` accepts, with exactly the counts it predicts."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from converter.devtools.bench.generate import MB, Params, generate, generate_chain
from tests.contract_helpers import fill, read_json, write_json

SMALL = Params(
    target_mb=2.0,
    seed=3,
    huge_every_mb=0.8,
    huge_mb=(0.3, 0.5),
    agent_rate=0.15,
    workflow_rate=0.05,
)
TOKEN_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_5m_input_tokens",
    "cache_creation_1h_input_tokens",
    "cache_creation_unsplit_input_tokens",
)


def _digests(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_generated_tree_inspects_with_predicted_counts(tmp_path: Path, cli: Any) -> None:
    exp = generate(tmp_path, SMALL)
    assert exp.bytes >= 2 * MB
    assert exp.largest_line >= 0.3 * MB  # a multi-hundred-KB tool result line was written
    assert exp.max_depth == 2
    assert any("workflows" in p.parts for p in exp.files)
    result = cli("inspect", "--json", "--in", str(exp.parent))
    assert result.code == 0, result.err
    report = result.json()
    assert report["convertible"] is True
    counts = report["counts"]
    assert {k: counts[k] for k in exp.counts()} == exp.counts()
    assert sum(report["usage"][k] for k in TOKEN_KEYS) == exp.total_tokens
    assert report["bound_files"] == len(exp.files)
    findings = {f["code"] for f in report["findings"]}
    assert "CC-REC-PROGRESS-COPY" in findings  # agent_progress lines embed child fragments
    assert exp.usage_incomplete_calls > 0


def test_generated_tree_converts_and_its_bundle_verifies(tmp_path: Path, cli: Any) -> None:
    """The bench's shapes (Agent and Workflow children to depth 2, parallel tools, streamed
    fragments) through to a bundle whose parts all agree: the integrity rules a resealed
    bundle is held to hold for every one a conversion writes."""
    exp = generate(tmp_path / "tree", SMALL)
    template, contract, bundle = (tmp_path / n for n in ("t.json", "c.json", "b.json"))
    made = cli("convert", "--in", str(exp.parent), "--template", str(template))
    assert made.code == 0, made.err
    write_json(contract, fill(read_json(template)))
    done = cli(
        "convert", "--in", str(exp.parent), "--contract", str(contract), "--out", str(bundle)
    )
    assert done.code == 0, done.err
    verified = cli("verify", "--bundle", str(bundle))
    assert verified.code == 0, verified.err
    assert read_json(bundle)["receipt"]["counts"]["max_depth"] == 2


def test_generator_is_deterministic(tmp_path: Path) -> None:
    params = Params(target_mb=0.3, seed=5, huge_every_mb=None)
    generate(tmp_path / "a", params)
    generate(tmp_path / "b", params)
    assert _digests(tmp_path / "a") == _digests(tmp_path / "b")
    generate(tmp_path / "c", Params(target_mb=0.3, seed=6, huge_every_mb=None))
    assert _digests(tmp_path / "a") != _digests(tmp_path / "c")


def test_single_task_and_chains(tmp_path: Path, cli: Any) -> None:
    single = generate(tmp_path / "single", Params(target_mb=0.5, single_task=True))
    assert single.tasks == 1
    for where in ("task", "subagent"):
        exp = generate_chain(tmp_path / where, 400, where)
        result = cli("inspect", "--json", "--in", str(exp.parent))
        assert result.code == 0, result.err
        counts = result.json()["counts"]
        assert {k: counts[k] for k in exp.counts()} == exp.counts()
    result = cli("inspect", "--json", "--in", str(single.parent))
    assert result.code == 0, result.err
    assert result.json()["counts"]["tasks"] == 1


@pytest.mark.parametrize(("args", "code"), [(["--help"], 0), (["-h"], 0), (["200"], 64)])
def test_the_bench_answers_an_argument_without_running(
    args: list[str], code: int, tmp_path: Path
) -> None:
    """Was: `--help` was ignored and the whole 200 MB bench started (a SPEC audit)."""
    env = {**os.environ, "BENCH_OUT": str(tmp_path / "out")}
    done = subprocess.run(
        [sys.executable, "-m", "converter.devtools.bench", *args],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == code, done.stderr
    assert "BENCH_MB" in done.stdout or "set BENCH_*" in done.stdout
    assert not (tmp_path / "out").exists()
