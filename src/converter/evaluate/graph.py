"""Cycles in a task's dependency edges, found without recursion (SPEC §13: no depth limit is
reachable from input). Iterative Tarjan: one explicit stack, linear in nodes plus edges."""

from __future__ import annotations

from collections.abc import Iterable


def cyclic_components(edges: Iterable[tuple[str, str]]) -> list[list[str]]:
    """Strongly connected components that contain a cycle (two or more nodes, or a self-loop).

    Components come out in a deterministic order (Tarjan's completion order over nodes taken in
    first-seen order); each lists its nodes in the order they were popped.
    """
    successors: dict[str, list[str]] = {}
    self_loops: set[str] = set()
    for source, target in edges:
        successors.setdefault(source, []).append(target)
        successors.setdefault(target, [])
        if source == target:
            self_loops.add(source)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in successors:
        if root in index:
            continue
        # Each frame: (node, position of the next successor to visit).
        work: list[tuple[str, int]] = [(root, 0)]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, position = work[-1]
            following = successors[node]
            if position < len(following):
                work[-1] = (node, position + 1)
                nxt = following[position]
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = _pop_component(stack, on_stack, node)
                if len(component) > 1 or node in self_loops:
                    found.append(component)
    return found


def _pop_component(stack: list[str], on_stack: set[str], head: str) -> list[str]:
    component: list[str] = []
    while True:
        member = stack.pop()
        on_stack.discard(member)
        component.append(member)
        if member == head:
            return component
