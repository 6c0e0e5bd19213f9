"""The bench's arithmetic: ratios to the floor, linearity, and which targets pass (issue 7).
Timing itself is noisy and measured only by `make bench`; what it computes from the times is
checked here, on made-up results."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from converter.devtools.bench.__main__ import (
    LINEAR_MAX,
    RATIO_MIN,
    judge,
    linearity_row,
    phase_row,
)
from converter.devtools.bench.generate import MB


def _result(seconds: float, peak: float = 100.0) -> dict[str, Any]:
    return {
        "seconds": seconds,
        "peak_rss_mb": peak,
        "main_peak_rss_mb": peak,
        "worker_peak_rss_mb": 0.0,
        "rss_start_mb": 20.0,
        "runs": [seconds, seconds + 0.1],
    }


def _rows(floor_s: float, phase_s: float, peak: float = 100.0) -> list[dict[str, Any]]:
    floor = phase_row("floor", 200.0, _result(floor_s), None)
    phase = phase_row("convert --template", 200.0, _result(phase_s, peak), 200.0 / floor_s)
    for row in (floor, phase):
        row["counts_match_generator"] = True
    return [floor, phase]


def _target(targets: list[dict[str, Any]], start: str) -> dict[str, Any]:
    (found,) = [t for t in targets if t["target"].startswith(start)]
    return found


def test_a_phase_twice_as_slow_as_the_floor_is_half_its_throughput() -> None:
    floor, phase = _rows(0.7, 1.4)
    assert floor["ratio_to_floor"] == 1.0
    assert phase["ratio_to_floor"] == 0.5
    assert phase["mb_per_s"] == round(200.0 / 1.4, 1)
    slower = _rows(0.7, 2.8)[1]
    assert slower["ratio_to_floor"] == 0.25


def test_the_throughput_target_is_met_at_half_the_floor_and_not_below() -> None:
    met = judge(_rows(0.7, 1.4), [], {}, [], 150.0)
    assert _target(met, "convert --template: throughput")["pass"] is True
    missed = judge(_rows(0.7, 1.5), [], {}, [], 150.0)
    target = _target(missed, "convert --template: throughput")
    assert (target["pass"], target["value"]) == (False, round(0.7 / 1.5, 3))
    assert RATIO_MIN == 0.5


def test_the_memory_target_is_the_limit_given() -> None:
    at = judge(_rows(0.7, 1.4, peak=157.7), [], {}, [], 157.7)
    over = judge(_rows(0.7, 1.4, peak=157.8), [], {}, [], 157.7)
    assert _target(at, "convert --template: peak RSS")["pass"] is True
    assert _target(over, "convert --template: peak RSS")["pass"] is False


def test_linearity_is_the_large_tasks_time_over_the_small_ones() -> None:
    row = linearity_row("inspect", 8 * MB, 80 * MB, _result(0.5), _result(4.0), True)
    assert (row["size_ratio"], row["time_ratio"]) == (10.0, 8.0)
    assert _target(judge([], [row], {}, [], 150.0), "inspect: 80 MB")["pass"] is True
    slow = linearity_row("inspect", 8 * MB, 80 * MB, _result(0.5), _result(6.5), True)
    assert slow["time_ratio"] == 13.0 > LINEAR_MAX
    assert _target(judge([], [slow], {}, [], 150.0), "inspect: 80 MB")["pass"] is False
    wrong = linearity_row("inspect", 8 * MB, 80 * MB, _result(0.5), _result(4.0), False)
    assert _target(judge([], [wrong], {}, [], 150.0), "inspect: 80 MB")["pass"] is False


def test_scan_must_be_faster_with_two_jobs_and_say_the_same() -> None:
    fast = {"jobs_1_s": 9.0, "jobs_2_s": 5.0, "speedup": 1.8, "identical": True}
    assert _target(judge([], [], fast, [], 150.0), "scan")["pass"] is True
    differs = {**fast, "identical": False}
    assert _target(judge([], [], differs, [], 150.0), "scan")["pass"] is False
    slower = {**fast, "jobs_2_s": 9.5, "speedup": 0.95}
    assert _target(judge([], [], slower, [], 150.0), "scan")["pass"] is False


def test_a_diagnostic_phase_is_shown_but_judged_by_no_target() -> None:
    """The reading timed alone tells where a command's time goes; it is no command, so no
    throughput or memory target is set on it."""
    rows = _rows(0.7, 1.4)
    read = phase_row("read, 2 processes", 200.0, _result(0.9, peak=400.0), 200.0 / 0.7)
    read["diagnostic"] = True
    targets = judge([*rows, read], [], {}, [], 150.0)
    assert not [t for t in targets if t["target"].startswith("read, ")]
    assert _target(targets, "convert --template: throughput")["pass"] is True


def test_the_reading_phases_read_the_tree_as_a_command_does(tmp_path: Path) -> None:
    from converter.devtools.bench.phases import Target, read_as_commands_do, read_one_process
    from tests.conftest import fixture_parent

    parent = fixture_parent("synthetic_tree")
    target = Target(parent, (parent,), tmp_path)
    one, two = read_one_process(target, None), read_as_commands_do(target, None)
    assert one == two
    assert one["records"] > 0
    assert one["refusals"] == 0


def test_the_linearity_pair_alternates_rounds_and_keeps_each_sizes_best(
    monkeypatch: Any, tmp_path: Path
) -> None:
    """A slow spell falls on both sizes: small, large, small, large, equal runs, best of each."""
    from converter.devtools.bench import __main__ as bench

    seconds = iter([0.10, 1.30, 0.07, 0.90])  # the large task's slow spell is in round one
    calls: list[tuple[str, int]] = []

    def fake_run_phase(phase: str, exp: Any, workdir: Path, repeats: int) -> dict[str, Any]:
        calls.append((workdir.name, repeats))
        return _result(next(seconds))

    monkeypatch.setattr(bench, "run_phase", fake_run_phase)
    small, large = bench._linearity_pair("evaluate", "S", "L", tmp_path, 3)  # type: ignore[arg-type]
    assert calls == [("small", 7), ("large", 7), ("small", 7), ("large", 7)]
    assert (small["seconds"], large["seconds"]) == (0.07, 0.90)
