"""What a tree holds and could not read, and the refusals that follow from that alone (SPEC §3,
§5.2, §12).

An agent transcript that is a symlink or a special file, or that cannot be read (its mode, an
I/O error), is refused by its own code (CC-TREE-SYMLINK, CC-TREE-SPECIAL-FILE,
CC-TREE-UNREADABLE); so is a folder of agents that cannot be listed, and a parent that cannot be
read. The joins then find that transcript absent, and would refuse again for it: its delegation
unexpanded, its meta without a transcript, its journal line with no agent, its own children
orphans, a run's launch nowhere. Each says spend is missing and gives another fix (restore a
pruned file, or the spend cannot be reconstructed) for the one thing to fix, the file that was
not read. Those are not said. The run still refuses, by the file not read, with the same exit
code; a refusal of those codes that is not a consequence of it (another call, another agent) is
still said, and once the file is read any that remain are said.

What was not read is matched to the refusals it explains by the evidence Claude Code leaves
(FORMAT-NOTES §4): the agent's meta (`toolUseId`, a child's `parentAgentId`), the parent's tool
result (`agentId`), the run id of a workflow agent. Where that cannot be told (an agent with no
such evidence, a folder of agents not listed, the parent not read), every refusal of the code it
could explain is left unsaid: which one is its is not written anywhere the tree could read.
"""

from __future__ import annotations

from dataclasses import dataclass

from converter.errors import Problem
from converter.reader.model import Account, ToolCall


@dataclass(frozen=True, slots=True)
class Unread:
    # The parent, or a folder any agent transcript may be in, not read: no absence can be told.
    everything: bool = False
    pairs: frozenset[tuple[str | None, str]] = frozenset()  # (run id, agent id) not read
    runs: frozenset[str] = frozenset()  # workflow runs whose folder could not be listed
    calls: frozenset[str] = frozenset()  # delegations an agent not read is known to expand
    # An agent not read whose delegation no evidence names: any delegation may be its.
    unplaced: bool = False
    orphans: frozenset[int | None] = frozenset()  # files of the orphans that explains
    cut: frozenset[int] = frozenset()  # streams that hang from such an orphan

    def excuses_orphan(self, problem: Problem) -> bool:
        """CC-TREE-ORPHAN-CHILD: its delegation may be in a transcript not read."""
        return problem.code == "CC-TREE-ORPHAN-CHILD" and problem.file in self.orphans

    def excuses_delegation(self, tool: ToolCall) -> bool:
        """CC-TREE-UNEXPANDED-DELEGATION: its child may be a transcript not read, or hang from
        an orphan that explains."""
        return (
            self.everything
            or self.unplaced
            or tool.id in self.calls
            or (tool.result_run_id is not None and tool.result_run_id in self.runs)
            or tool.stream in self.cut
        )

    def excuses_journal_agent(self, run_id: str | None, agent: str) -> bool:
        """CC-TREE-WORKFLOW-AGENT-MISSING: the agent's transcript is there, and was not read."""
        return (run_id, agent) in self.pairs

    def excuses_orphan_run(self) -> bool:
        """CC-TREE-ORPHAN-WORKFLOW-RUN: the launch may be in a transcript not read."""
        return self.everything or bool(self.pairs or self.runs)


def find_unread(acc: Account) -> Unread:
    """What the tree could not read, and which refusals of absence that explains. Call after
    the joins and depths (streams.py), before those refusals are made (build.py)."""
    tree = acc.tree
    layout = tree.layout
    pairs = set(layout.refused_agents)
    metas = {pair: tree.lone_metas.get(pair) for pair in layout.refused_agents}
    everything = None in layout.unseen
    for entry in layout.files:
        if entry.index not in tree.unread or entry.index in tree.unbound:
            continue
        if entry.role == "parent":
            everything = True
        elif entry.role == "subagent" and entry.agent_id is not None:
            pairs.add((entry.run_id, entry.agent_id))
            metas[(entry.run_id, entry.agent_id)] = tree.metas.get(entry.index)
    runs = frozenset(r for r in layout.unseen if r is not None)
    if not (everything or pairs or runs):
        return Unread()
    known = _delegations(acc)
    calls: set[str] = set()
    unplaced = False
    for run_id, agent in pairs:
        meta = metas.get((run_id, agent))
        named = set(known.get(agent, ()))
        if meta is not None and meta.tool_use_id:
            named.add(meta.tool_use_id)
        if run_id is not None:
            named |= known.get(run_id, set())
        calls |= named
        unplaced = unplaced or not named
    orphans = _orphans(acc, everything, {agent for _, agent in pairs})
    return Unread(
        everything=everything,
        pairs=frozenset(pairs),
        runs=runs,
        calls=frozenset(calls),
        unplaced=unplaced,
        orphans=frozenset(orphans),
        cut=frozenset() if everything else _hanging_from(acc, orphans),
    )


def _delegations(acc: Account) -> dict[str, set[str]]:
    """The calls whose result names an agent id or a run id, by that id (the two never look
    alike: `a<hex>`, `wf_<...>`)."""
    named: dict[str, set[str]] = {}
    for tool in acc.tools.values():
        for name in (tool.result_agent_id, tool.result_run_id):
            if name is not None:
                named.setdefault(name, set()).add(tool.id)
    return named


def _orphans(acc: Account, everything: bool, agents: set[str]) -> set[int | None]:
    """The files of the orphans (CC-TREE-ORPHAN-CHILD) whose delegation may be in a transcript
    not read: any, when the parent or a folder of agents was not read; else a child whose meta
    names an agent not read as its parent (`parentAgentId`)."""
    refused = {p.file for p in acc.problems if p.code == "CC-TREE-ORPHAN-CHILD"}
    if everything:
        return refused
    metas = acc.tree.metas
    return {
        file
        for file in refused
        if file is not None and file in metas and metas[file].parent_agent_id in agents
    }


def _hanging_from(acc: Account, orphans: set[int | None]) -> frozenset[int]:
    """The streams not reached from the root (depth -1) whose chain of parents ends at one of
    these orphans: a delegation of theirs is unexpanded only because they hang from it. Each
    chain is walked once (a chain of agents can be thousands deep)."""
    top: dict[int, int | None] = {}  # stream -> the stream its chain ends at (None: a cycle)
    for stream in acc.streams[1:]:
        if stream.depth >= 0 or stream.index in top:
            continue
        chain: list[int] = []
        on_chain: set[int] = set()  # (a list's `in` made a deep chain quadratic)
        current = stream.index
        end: int | None = None
        while True:
            if current in top:
                end = top[current]
                break
            if current in on_chain:  # a cycle, refused by its own code
                break
            chain.append(current)
            on_chain.add(current)
            parent = acc.streams[current].parent
            if parent is None:
                end = current
                break
            current = parent
        for member in chain:
            top[member] = end
    heads = {s.index for s in acc.streams[1:] if s.file in orphans and s.parent is None}
    return frozenset(index for index, end in top.items() if end in heads)
