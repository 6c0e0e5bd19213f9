"""The measured phases, one entry each in `PHASES`, and the child process that times one of them.

Every phase runs in a fresh interpreter (`python -m converter.bench.phases`, arguments as JSON on
stdin) so its peak RSS is its own: VmHWM of the process plus the peak of the processes it started
(the second reading process), added as if both peaks coincided. A phase gets the tree and a
scratch folder; `prepare` (untimed, optional) builds what it needs first (a contract, a bundle)
in an earlier interpreter of its own, so its processes are not counted; then `run` is timed
`repeats` times and the best time is kept. Adding a phase is one line in `PHASES`.
"""

from __future__ import annotations

import gc
import hashlib
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson


@dataclass(frozen=True, slots=True)
class Target:
    parent: Path  # the parent transcript <session-id>.jsonl
    files: tuple[Path, ...]  # every file of the tree
    workdir: Path  # scratch space for outputs


Info = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Phase:
    name: str
    run: Callable[[Target, Any], Info]
    prepare: Callable[[Target], Any] | None = None
    pipeline: bool = True  # also timed on the linearity and 100k-chain trees


def floor(target: Target, _: Any) -> Info:
    """What any converter must do: read every byte once, SHA-256 it, parse every line."""
    lines = largest = 0
    for path in target.files:
        hasher = hashlib.sha256()
        with path.open("rb") as stream:
            if path.suffix == ".jsonl":
                for raw in stream:
                    hasher.update(raw)
                    orjson.loads(raw)
                    lines += 1
                    largest = max(largest, len(raw))
            else:
                data = stream.read()
                hasher.update(data)
                orjson.loads(data)
        hasher.hexdigest()
    return {"lines": lines, "largest_line": largest}


def inspect(target: Target, _: Any) -> Info:
    from converter.firewall.keys import PseudonymKey
    from converter.firewall.pseudonyms import Pseudonymizer
    from converter.inspection import inspect_report
    from converter.pipeline import inspect_tree

    pseudo = Pseudonymizer(PseudonymKey(bytes(range(32))))
    _, public = inspect_tree(target.parent, pseudo)
    report = inspect_report(public)
    return {
        "convertible": report["convertible"],
        "refusals": sorted({r["code"] for r in report["refusals"]}),
        "counts": report["counts"],
    }


BENCH_KEY = bytes(range(32))


def _cli(args: list[str]) -> int:
    """The real entry point, in this process (the phase being timed)."""
    import contextlib
    import io
    import os

    from converter.cli.main import main as cli_main

    os.environ["AGENT_EVIDENCE_KEY"] = BENCH_KEY.hex()
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            cli_main(args)
        except SystemExit as done:
            return int(done.code or 0)
    return 0


def _subprocess_cli(args: list[str]) -> None:
    """Preparation runs in another process, so it does not count in this phase's peak RSS."""
    import os
    import subprocess

    env = dict(os.environ, AGENT_EVIDENCE_KEY=BENCH_KEY.hex())
    subprocess.run(
        [sys.executable, "-m", "converter", *args], check=True, env=env, capture_output=True
    )


def _contract(target: Target) -> Path:
    from converter.bench.fill import fill

    template = target.workdir / "prepared-template.json"
    template.unlink(missing_ok=True)
    _subprocess_cli(["convert", "--in", str(target.parent), "--template", str(template)])
    contract = target.workdir / "prepared-contract.json"
    contract.write_text(json.dumps(fill(json.loads(template.read_text()))))
    return contract


def _bundle(target: Target) -> Path:
    contract = _contract(target)
    bundle = target.workdir / "prepared-bundle.json"
    bundle.unlink(missing_ok=True)
    _subprocess_cli(
        ["convert", "--in", str(target.parent), "--contract", str(contract), "--out", str(bundle)]
    )
    return bundle


def convert_template(target: Target, _: Any) -> Info:
    out = target.workdir / "template.json"
    out.unlink(missing_ok=True)
    return {"exit": _cli(["convert", "--in", str(target.parent), "--template", str(out)])}


def convert_contract(target: Target, contract: Path) -> Info:
    out = target.workdir / "bundle.json"
    out.unlink(missing_ok=True)
    args = ["convert", "--in", str(target.parent), "--contract", str(contract), "--out", str(out)]
    return {"exit": _cli(args)}


def evaluate(target: Target, bundle: Path) -> Info:
    report = target.workdir / "report.json"
    report.unlink(missing_ok=True)
    args = ["evaluate", "--bundle", str(bundle), "--format", "json", "--report", str(report)]
    return {"exit": _cli(args)}


PHASES: tuple[Phase, ...] = (
    Phase("floor", floor, pipeline=False),
    Phase("inspect", inspect),
    Phase("convert --template", convert_template),
    Phase("convert --contract", convert_contract, prepare=_contract),
    Phase("evaluate", evaluate, prepare=_bundle),
)


def by_name(name: str) -> Phase:
    return next(p for p in PHASES if p.name == name)


def _vm(field: str) -> float:
    """VmHWM / VmRSS of this process in MB (Linux); ru_maxrss as a fallback for the peak."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024 / 1_000_000
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1_000_000


def _children_peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024 / 1_000_000


def prepare(name: str, target: Target) -> str | None:
    phase = by_name(name)
    return str(phase.prepare(target)) if phase.prepare else None


def measure(name: str, target: Target, repeats: int, state: str | None) -> Info:
    phase = by_name(name)
    rss_start = _vm("VmRSS")
    times: list[float] = []
    info: Info = {}
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        info = phase.run(target, Path(state) if state is not None else None)
        times.append(time.perf_counter() - start)
    main_peak, worker_peak = _vm("VmHWM"), _children_peak_mb()
    return {
        "seconds": min(times),
        "runs": times,
        "peak_rss_mb": main_peak + worker_peak,
        "main_peak_rss_mb": main_peak,
        "worker_peak_rss_mb": worker_peak,
        "rss_start_mb": rss_start,
        "info": info,
    }


def main() -> None:
    args = json.loads(sys.stdin.read())
    target = Target(
        Path(args["parent"]), tuple(Path(f) for f in args["files"]), Path(args["workdir"])
    )
    if args.get("mode") == "prepare":
        result: Info = {"state": prepare(args["phase"], target)}
    else:
        result = measure(args["phase"], target, int(args["repeats"]), args.get("state"))
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
