"""The cycle diagnostic works without recursion, however long the chain (SPEC §13)."""

from __future__ import annotations

import sys

from converter.evaluate import evaluate
from converter.evaluate.graph import cyclic_components
from tests.test_evaluate import make_task, make_workload

N = 100_000


def ev(i: int) -> str:
    return f"event-{i:012x}"


def chain(n: int) -> tuple[tuple[str, str], ...]:
    return tuple((ev(i), ev(i + 1)) for i in range(n))


def test_small_graphs() -> None:
    assert cyclic_components([]) == []
    assert cyclic_components([("a", "b"), ("b", "c"), ("a", "c")]) == []
    assert cyclic_components([("a", "a")]) == [["a"]]
    found = cyclic_components([("a", "b"), ("b", "a"), ("b", "c"), ("c", "d"), ("d", "c")])
    assert sorted(sorted(c) for c in found) == [["a", "b"], ["c", "d"]]


def test_parallel_edges_and_diamonds_are_not_cycles() -> None:
    edges = [("m", "t1"), ("m", "t2"), ("t1", "n"), ("t2", "n"), ("m", "t1")]
    assert cyclic_components(edges) == []


def test_long_chain_without_recursion() -> None:
    assert sys.getrecursionlimit() * 10 < N
    assert cyclic_components(chain(N)) == []


def test_one_big_cycle_without_recursion() -> None:
    edges = (*chain(N - 1), (ev(N - 1), ev(0)))
    [component] = cyclic_components(edges)
    assert len(component) == N


def test_workload_with_100k_edge_tasks_evaluates() -> None:
    cycle = (*chain(N - 1), (ev(N - 1), ev(0)))
    tasks = [make_task(0, edges=chain(N)), make_task(1, edges=cycle), make_task(2)]
    result = evaluate(make_workload(tasks))
    [finding] = [f for f in result.findings if f.code == "EVAL-DEPENDENCY-CYCLE"]
    assert (finding.task, finding.count, finding.extent) == (make_task(1).id, 1, N)
    assert result.decision == "SCALE"
