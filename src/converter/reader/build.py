"""From loaded records to an attributed account (SPEC §4, §5.1–5.3). No I/O; it takes the
loaded tree over (its records are released as it ends, for memory: a tree is built once).

Order of work, each step iterative (no recursion on input depth); steps 1-5 are in
`reader/streams.py`, 6 in `reader/calls.py`, 7-8 in `reader/tasks.py`, the checks of the whole
and `build_account`, which runs them in order, here:
  1. session check and per-file uuid dedup (first copy in line order wins);
  2. streams: the parent's main stream, each child file, and 1.0.x in-file sidechains;
  3. joins: each child to exactly one delegation tool call by tool-id evidence (meta toolUseId,
     tool result agentId, agent_progress lines, workflow run id + journal, prompt equality), else
     to the anchor record its first call descends from (2.1.3x compaction agents), else orphan;
  4. depth by walking parents from the root, cycles refused;
  5. copies: a child's leading records that repeat an ancestor's calls (fork bootstrap, replay)
     are not events; any other call seen in two streams is refused;
  6. calls grouped by message.id with last-fragment usage; provider responses joined to them
     and used (`reader/bodies.py`); tool calls and their results;
  7. tasks (root prompts) and the task of every call (a hidden call's by its request,
     `reader/hidden.py`); 8. typed edges.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from converter.errors import Problem
from converter.errors.codes import NOT_BOUND
from converter.reader.bodies import join_bodies, session_of
from converter.reader.calls import (
    advisor_calls,
    copies_agree,
    group_calls,
    match_results,
    progress_copies_matched,
    stated_usage_agrees,
)
from converter.reader.hidden import attribute_hidden
from converter.reader.load import LoadedTree
from converter.reader.model import Account
from converter.reader.records import Rec, Usage
from converter.reader.streams import (
    Index,
    copies,
    dedup_uuids,
    depths,
    drop_branch_copies,
    join,
    session_check,
    split_streams,
)
from converter.reader.tasks import assign, find_tasks, link_edges
from converter.reader.unread import Unread, find_unread
from converter.recorded import DELEGATION_TOOLS
from converter.vocabulary import (
    FINAL_NO_INPUT,
    INCOMPLETE_NO_INPUT,
    SEARCH_COUNT_UNKNOWN,
    USAGE_INCOMPLETE,
    TaskUnit,
    search_count_unknown,
)


def _unexpanded(acc: Account, single_file: bool, unread: Unread) -> None:
    if acc.tree.layout.parent_is_subagent:
        # A subagent given as the parent (refused as such): the children of its delegations
        # lie in the session's folder, not beside it; the one fix is to pass the session.
        return
    # A child joined to its call is there, whatever its depth. One with none is in a cycle or
    # hangs from one (CC-TREE-CYCLE), or from a child whose own join was refused (an orphan, a
    # join conflict): that refusal's fix is the one to make; its delegation is not unexpanded.
    # (The calls named by children there whose joins were refused, as many children as calls,
    # are `join_candidates`: not unexpanded either.)
    expanded = {s.delegation for s in acc.streams if s.delegation is not None}
    # A run launched more than once (resumed): a launch that dispatched no agent of its own
    # reused the results of agents another launch started (each agent the journal names has
    # its transcript, or _journal_agents refuses), and one whose agents cannot be placed is
    # refused by agent (CC-TREE-WORKFLOW-RESUME-UNPLACED): neither is missing spend.
    launches = Counter(
        t.result_run_id for t in acc.tools.values() if t.name == "Workflow" and t.result_run_id
    )
    journaled = {e.run_id for e in acc.tree.bound_files if e.role == "journal" and e.run_id}
    resumed = {
        e.run_id
        for e in acc.tree.bound_files
        if e.role == "subagent"
        and e.run_id in journaled  # its agents checked against the journal: none missing
        and launches[e.run_id or ""] > 1
        and acc.tree.records.get(e.index)
    }
    # A call that resumed an agent of the tree (`resume`) ran no new transcript: the agent's
    # own holds the resumed run (streams.py joins it to its spawn).
    agents = {s.agent_id for s in acc.streams[1:] if s.delegation is not None}
    every_agent = {s.agent_id for s in acc.streams[1:]}
    for tool in acc.tools.values():
        # A result naming an agent no transcript of the tree is, whatever the tool's name: an
        # agent ran and its calls are nowhere (a format-drift review: a delegation tool renamed,
        # its children missing, converted with their spend left out, exit 0).
        names_missing_agent = tool.result_agent_id is not None and (
            tool.result_agent_id not in every_agent
        )
        is_delegation = (
            tool.name in DELEGATION_TOOLS or tool.result_status == "forked" or names_missing_agent
        )
        if single_file and is_delegation:
            acc.problems.append(Problem("CC-TREE-DELEGATION-IN-SINGLE-FILE", tool.file, tool.line))
            continue
        if not is_delegation or tool.id in expanded or tool.status == "error":
            continue
        if tool.id in acc.join_candidates:  # refused by the child whose join named it
            continue
        if tool.name == "Workflow" and tool.result_run_id in resumed:
            continue
        if tool.resume_of is not None and tool.resume_of in agents:
            continue
        if tool.result_status == "remote_launched":
            # Launched in a cloud session (Claude Code on the web): no transcript of it can be
            # on this machine, so none is missing; its spend is said to be elsewhere.
            acc.found("CC-TREE-DELEGATION-REMOTE", tool.file, tool.line)
            continue
        if unread.excuses_delegation(tool):  # its child may be a transcript not read: refused so
            continue
        acc.problems.append(Problem("CC-TREE-UNEXPANDED-DELEGATION", tool.file, tool.line))


def _workflow_manifests(acc: Account, unread: Unread) -> None:
    if unread.excuses_orphan_run():  # a launch may be in a transcript not read (refused so)
        return
    launched = {t.result_run_id for t in acc.tools.values() if t.result_run_id}
    for entry in acc.tree.bound_files:
        if entry.role in ("workflow-manifest", "journal") and entry.run_id not in launched:
            acc.problems.append(Problem("CC-TREE-ORPHAN-WORKFLOW-RUN", entry.index))


def _journal_agents(acc: Account, unread: Unread) -> None:
    """Every agent a run's journal names has its transcript in the run's folder (2,583 of 2,583
    in FORMAT-NOTES §4): one that is not there ran elsewhere (a worktree's project folder) or is
    lost, and its spend would be missing from the tree with nothing to show it. So is one whose
    transcript holds no record (empty, or blank lines only: a crash's unflushed file, a pruner):
    the journal says it ran, its calls are nowhere."""
    present: dict[str | None, set[str | None]] = defaultdict(set)
    journals: dict[str | None, int] = {}
    for entry in acc.tree.bound_files:
        if entry.role == "subagent" and entry.run_id is not None:
            if acc.tree.records.get(entry.index):
                present[entry.run_id].add(entry.agent_id)
        elif entry.role == "journal":
            journals.setdefault(entry.run_id, entry.index)
    for run_id, named in acc.tree.journal_started.items():
        journal = journals.get(run_id)
        if journal is None:
            continue
        for agent, line in sorted(named.items(), key=lambda item: item[1]):
            if agent not in present[run_id] and not unread.excuses_journal_agent(run_id, agent):
                acc.problems.append(Problem("CC-TREE-WORKFLOW-AGENT-MISSING", journal, line))


def _summaries(acc: Account) -> None:
    for c in acc.calls.values():
        if not c.final:
            acc.found(USAGE_INCOMPLETE, c.file, c.line)
    for h in acc.hidden:
        if not h.final:
            acc.found(USAGE_INCOMPLETE, h.file)
    # Every call reads input: a stub recording none was written before it was counted, and
    # max_output_tokens bounds only the output of such a call (its input is in neither end).
    # A call recorded as final with no input at all: damaged, or a gateway's; priced as written,
    # its input is in no figure (an audit: such a call was priced at $0 unremarked).
    # A hidden call's too, named by its response file (a review: one recorded final with no
    # input was priced at $0 input unremarked, and a stub of none left evaluate open with no
    # finding to name it).
    calls: list[tuple[Usage, bool, int, int | None]]
    calls = [(c.usage, c.final, c.file, c.line) for c in acc.calls.values()]
    calls += [(h.usage, h.final, h.file, None) for h in acc.hidden]
    for usage, final, file, line in calls:
        if not any(usage.input_side()):
            acc.found(FINAL_NO_INPUT if final else INCOMPLETE_NO_INPUT, file, line)
    # A call's searches are the larger of its usage's count and its results' (SPEC §4.7): only
    # those above the usage's are taken from results.
    for c in acc.calls.values():
        found = sum(acc.tools[t].web_searches for t in c.tool_ids if t in acc.tools)
        if found > c.usage.web_search_requests:
            taken = found - c.usage.web_search_requests
            acc.found("CC-REC-WEBSEARCH-FROM-RESULT", c.file, c.line, taken)
        if c.usage.credit_redeemed:
            acc.found("CC-REC-FALLBACK-CREDIT", c.file, c.line, c.usage.credit_redeemed)
    refused = {  # in the order the streams write them: the places kept are the first found
        r.msg_id: None
        for s in acc.streams
        for r in s.records
        if r.refusal and r.msg_id and not r.synthetic  # an API-error placeholder is no call
    }
    for msg_id in refused:
        if (call := acc.calls.get(msg_id)) is not None:
            acc.found("CC-REC-REFUSED-CALL", call.file, call.line)
    # hidden calls' too: a title or suggestion call's response can count a server tool (a
    # review: such a call left out, evaluate decided SCALE on costs without its requests)
    for c in acc.calls.values():
        if c.usage is not None and c.usage.unpriced_server_tools:
            acc.found("CC-REC-SERVER-TOOL-UNPRICED", c.file, c.line)
    for h in acc.hidden:
        if h.usage.unpriced_server_tools:
            acc.found("CC-REC-SERVER-TOOL-UNPRICED", h.file)
    for t in acc.tools.values():
        if search_count_unknown(t.name, t.web_searches, t.status):
            acc.found(SEARCH_COUNT_UNKNOWN, t.file, t.line)
    for index, unknown in sorted(acc.tree.unknown_per_file.items()):  # the file, not the line
        acc.found("CC-REC-UNKNOWN-TYPE", index, None, unknown)
    for code, count in acc.tree.layout.not_read.items():
        if code not in NOT_BOUND:  # a count that says spend is elsewhere is bound
            acc.findings[code] += count
    for problem in acc.problems:
        if not problem.blocking:
            if problem.file is not None and problem.file >= 0:
                acc.found(problem.code, problem.file, problem.line)
            else:
                acc.findings[problem.code] += 1
    if not acc.calls and not acc.refusals:
        acc.problems.append(Problem("CC-TREE-NO-CALLS", 0))
    for task in acc.tasks:
        if task.calls == 0:
            acc.found("CC-TASK-NO-CALLS", task.file, task.line)


def build_account(
    tree: LoadedTree,
    task_unit: TaskUnit = "prompt",
    *,
    single_file: bool = False,
) -> Account:
    if tree.consumed:  # a second build would find no records: a tree of no calls, unrefused
        raise ValueError("build_account has already taken this tree's records")  # a bug
    if not tree.layout.parent_is_subagent and _all_sidechain(tree.records.get(0, [])):
        # A subagent transcript under another name: a parent's own conversation is never a
        # sidechain (a 1.0.x parent keeps its subagents' records beside its own).
        tree.layout.parent_is_subagent = True
        # Its name is beside the point, as for agent-<id>.jsonl: CC-TREE-PARENT-NAME's fix
        # (--from claude-code) would only be refused again, with this code.
        tree.problems = [p for p in tree.problems if p.code != "CC-TREE-PARENT-NAME"]
        tree.problems.append(Problem("CC-TREE-PARENT-IS-SUBAGENT", 0))
    if any(p.code == "CC-REC-NOT-A-TRANSCRIPT" and p.file == 0 for p in tree.problems):
        # No transcript given as the parent: that its name is no session id only follows
        # (CC-TREE-PARENT-NAME's fix, restore its name, would not help).
        tree.problems = [p for p in tree.problems if p.code != "CC-TREE-PARENT-NAME"]
    if tree.layout.parent_is_subagent:
        # A subagent transcript given as the parent (refused as such, still accounted): all of
        # it is the one task it was delegated; a fork's first call, the parent's copy, comes
        # before any prompt of its own.
        task_unit = "session"
    acc = Account(tree=tree, task_unit=task_unit, problems=list(tree.problems))
    if not tree.records:
        return acc
    if not tree.layout.session_id:  # a renamed parent: accounted, but already refused
        tree.layout.session_id = session_of(tree)
    session_check(acc)
    drop_branch_copies(acc)
    dedup_uuids(acc)
    split_streams(acc)
    index = Index(acc.streams)
    join(acc, index)
    depths(acc)
    copies(acc, index)
    group_calls(acc)
    join_bodies(acc)
    advisor_calls(acc)
    if not single_file:
        progress_copies_matched(acc)
    copies_agree(acc)
    match_results(acc)
    stated_usage_agrees(acc)
    find_tasks(acc)
    assign(acc)
    attribute_hidden(acc)
    # What follows only from a file the tree holds and did not read (refused so) is not said.
    unread = find_unread(acc)
    acc.problems = [p for p in acc.problems if not unread.excuses_orphan(p)]
    _unexpanded(acc, single_file, unread)
    _workflow_manifests(acc, unread)
    _journal_agents(acc, unread)
    _summaries(acc)
    _release_records(acc)
    # The edges read calls and tools only: built after the per-line records are gone, their
    # list does not share the peak with them (convert --contract on the 200 MB bench tree: the
    # main process peaked at 148.9 MiB, now 145.7).
    link_edges(acc)
    return acc


def _all_sidechain(records: list[Rec]) -> bool:
    """Whether every prompt and call of a file is a sidechain's (and it has one). A parent's
    first turn is its own: the check ends there, not after its thousands of records."""
    turns = (r.sidechain for r in records if r.type in ("user", "assistant"))
    return next(turns, False) and all(turns)


def _release_records(acc: Account) -> None:
    """The per-line records are dead once the account is built: memory then grows with the
    number of calls, not with the lines of the files (SPEC §13)."""
    for stream in acc.streams:
        stream.records = []
    acc.tree.records = {}
    acc.tree.consumed = True
