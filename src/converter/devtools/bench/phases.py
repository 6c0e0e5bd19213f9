"""The measured phases, one entry each in `PHASES`, and the child process that times one of them.

Every phase runs in a fresh interpreter (`python -m converter.devtools.bench.phases`, arguments as JSON on
stdin) and is timed there (best of `repeats` runs). Peak memory is one command's, measured on a
real `python -m converter` process running the phase's `command` once (`command_peak`): the
largest total RSS of it and the second reading process it starts, sampled every 10 ms from
outside (`TreeSampler`), never less than its exact peak and never more than that plus the
worker's own exact peak (`reader/worker.py` reports it). The floor has no command: its peak is
the timing process's own. A phase gets the tree and a
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
    # The command's CLI arguments (outputs cleared first): its memory is measured on one real
    # `python -m converter` process (`command_peak`), not on this timing harness.
    command: Callable[[Target, Path | None], list[str]] | None = None
    # A part of a command timed alone, to show where its time goes: no target is judged on it.
    diagnostic: bool = False


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


def inspect_args(target: Target, _: Path | None) -> list[str]:
    return ["inspect", "--json", "--in", str(target.parent)]


def inspect(target: Target, _: Any) -> Info:
    """`agent-evidence inspect --json`, through the real entry point like every other phase."""
    out = target.workdir / "inspect.json"
    _cli(inspect_args(target, None), stdout=out)
    report = json.loads(out.read_text())
    return {
        "convertible": report["convertible"],
        "refusals": sorted({r["code"] for r in report["refusals"]}),
        "counts": report["counts"],
    }


BENCH_KEY = bytes(range(32))


def _cli(args: list[str], stdout: Path | None = None) -> int:
    """The real entry point, in this process (the phase being timed); stdout to a file or away."""
    import contextlib
    import io
    import os

    from converter.cli.main import main as cli_main

    os.environ["AGENT_EVIDENCE_KEY"] = BENCH_KEY.hex()
    sink = io.StringIO()
    code = 0
    with contextlib.redirect_stdout(sink):
        try:
            cli_main(args)
        except SystemExit as done:
            code = int(done.code or 0)
    if stdout is not None:
        stdout.write_text(sink.getvalue())
    return code


def _subprocess_cli(args: list[str]) -> None:
    """Preparation runs in another process, so it does not count in this phase's peak RSS."""
    import os
    import subprocess

    env = dict(os.environ, AGENT_EVIDENCE_KEY=BENCH_KEY.hex())
    subprocess.run(
        [sys.executable, "-m", "converter", *args], check=True, env=env, capture_output=True
    )


def _contract(target: Target) -> Path:
    from converter.devtools.bench.fill import fill

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


def template_args(target: Target, _: Path | None) -> list[str]:
    out = target.workdir / "template.json"
    out.unlink(missing_ok=True)  # a template never replaces a file without --force
    return ["convert", "--in", str(target.parent), "--template", str(out)]


def convert_template(target: Target, _: Any) -> Info:
    return {"exit": _cli(template_args(target, None))}


def contract_args(target: Target, contract: Path | None) -> list[str]:
    out = target.workdir / "bundle.json"
    out.unlink(missing_ok=True)
    return ["convert", "--in", str(target.parent), "--contract", str(contract), "--out", str(out)]


def convert_contract(target: Target, contract: Path) -> Info:
    return {"exit": _cli(contract_args(target, contract))}


def evaluate_args(target: Target, bundle: Path | None) -> list[str]:
    report = target.workdir / "report.json"
    report.unlink(missing_ok=True)
    return ["evaluate", "--bundle", str(bundle), "--format", "json", "--report", str(report)]


def evaluate(target: Target, bundle: Path) -> Info:
    return {"exit": _cli(evaluate_args(target, bundle))}


def _read(target: Target, jobs: int) -> Info:
    from converter.reader.load import load
    from converter.sources.tree import discover

    tree = load(discover(target.parent), jobs=jobs)
    return {"records": sum(len(r) for r in tree.records.values()), "refusals": len(tree.problems)}


def read_one_process(target: Target, _: Any) -> Info:
    """What every command's reading costs in CPU: every line hashed, parsed, checked (SPEC §12)
    and taken into records, in this process alone."""
    return _read(target, 1)


def read_as_commands_do(target: Target, _: Any) -> Info:
    """The reading as inspect and convert do it (a second process reads about half the files):
    its time subtracted from a command's is what the command does after reading."""
    return _read(target, 2)


PHASES: tuple[Phase, ...] = (
    Phase("floor", floor, pipeline=False),
    Phase("read, 1 process", read_one_process, pipeline=False, diagnostic=True),
    Phase("read, 2 processes", read_as_commands_do, pipeline=False, diagnostic=True),
    Phase("inspect", inspect, command=inspect_args),
    Phase("convert --template", convert_template, command=template_args),
    Phase("convert --contract", convert_contract, prepare=_contract, command=contract_args),
    Phase("evaluate", evaluate, prepare=_bundle, command=evaluate_args),
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


def _worker_peak_mb(peaks: Path) -> float:
    """The largest peak any reading worker reported (getrusage would charge each worker with
    this process's own peak at the moment it started it)."""
    if not peaks.exists():
        return 0.0
    values = [int(v) for v in peaks.read_text().split()]
    return max(values, default=0) * 1024 / 1_000_000


class TreeSampler:
    """Sample the total RSS of a process and its children every 10 ms, from outside it (the
    bench's own process), so the measured process runs nothing but the command."""

    def __init__(self, pid: int) -> None:
        import threading

        self.pid = str(pid)
        self.peak_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @staticmethod
    def _rss_kb(pid: str) -> int:
        try:
            with open(f"/proc/{pid}/status", encoding="ascii") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0

    def _children(self) -> list[str]:
        pids: list[str] = []
        try:
            tasks = list(Path(f"/proc/{self.pid}/task").iterdir())
        except OSError:
            return pids
        for task in tasks:
            try:
                pids += (task / "children").read_text().split()
            except OSError:
                continue
        return pids

    def _run(self) -> None:
        while not self._stop.wait(0.01):
            total = self._rss_kb(self.pid) + sum(self._rss_kb(c) for c in self._children())
            self.peak_mb = max(self.peak_mb, total * 1024 / 1_000_000)

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak_mb


def command_peak(args: list[str], workdir: Path) -> Info:
    """Peak memory of one real run of `agent-evidence <args>`: the largest total RSS of it and
    its reading worker, sampled every 10 ms from outside, never less than its exact peak
    (wait4's ru_maxrss) and never more than that plus the worker's own exact peak."""
    import os
    import subprocess

    from converter.reader.worker import PEAK_FILE_ENV

    peaks = workdir / "worker-peaks.txt"
    peaks.unlink(missing_ok=True)
    env = dict(os.environ, AGENT_EVIDENCE_KEY=BENCH_KEY.hex(), **{PEAK_FILE_ENV: str(peaks)})
    proc = subprocess.Popen(
        [sys.executable, "-m", "converter", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    sampler = TreeSampler(proc.pid)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    sampled = sampler.stop()
    main = usage.ru_maxrss * 1024 / 1_000_000
    worker = _worker_peak_mb(peaks)
    return {
        "peak_rss_mb": min(max(sampled, main), main + worker),
        "main_peak_rss_mb": main,
        "worker_peak_rss_mb": worker,
        "exit": proc.returncode,
    }


def prepare(name: str, target: Target) -> str | None:
    phase = by_name(name)
    return str(phase.prepare(target)) if phase.prepare else None


def measure(name: str, target: Target, repeats: int, state: str | None) -> Info:
    import os

    from converter.reader.worker import PEAK_FILE_ENV

    phase = by_name(name)
    peaks = target.workdir / "worker-peaks.txt"
    peaks.unlink(missing_ok=True)
    os.environ[PEAK_FILE_ENV] = str(peaks)
    rss_start = _vm("VmRSS")
    times: list[float] = []
    info: Info = {}
    main_peak = worker_peak = 0.0
    for run in range(repeats):
        gc.collect()
        start = time.perf_counter()
        info = phase.run(target, Path(state) if state is not None else None)
        times.append(time.perf_counter() - start)
        if run == 0:  # the harness's own view of one run; `command_peak` is the figure
            main_peak, worker_peak = _vm("VmHWM"), _worker_peak_mb(peaks)
    return {
        "seconds": min(times),
        "runs": times,
        "peak_rss_mb": main_peak + worker_peak,  # replaced by `command_peak` where there is one
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
