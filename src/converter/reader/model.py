"""The reader's result: an account of one session tree, still in local ids (pre-firewall)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

from converter.errors import Problem
from converter.reader.load import LoadedTree
from converter.reader.records import Rec, Usage
from converter.recorded import ShapeTuple
from converter.vocabulary import HiddenKind, TaskUnit

AgentKind = Literal[
    "root", "agent", "task", "workflow", "skill-fork", "compaction", "side", "sidechain", "warmup"
]
EdgeKind = Literal["requests", "consumes", "delegates", "returns"]
EventKey = tuple[Literal["model", "tool"], str]


@dataclass(slots=True)
class Stream:
    index: int
    file: int
    agent_id: str | None  # local id (file name or inline sidechain root uuid)
    records: list[Rec] = field(default_factory=list)
    parent: int | None = None
    depth: int = 0
    kind: AgentKind = "root"
    agent_type: str | None = None
    delegation: str | None = None  # tool_use id that spawned it
    anchor: tuple[int, int] | None = None  # (stream, position) for side children
    head: int = 0  # number of leading records that are copies of ancestors' records
    task: int | None = None


@dataclass(slots=True)
class Call:
    msg_id: str
    stream: int
    file: int
    line: int
    position: int  # index of first fragment in its stream
    model: str | None
    usage: Usage
    final: bool
    timestamp: str | None
    tool_ids: list[str]
    fragments: int = 1
    ended: bool = False  # a fragment so far had the final usage (a stop_reason, iterations)
    named_request: bool = True  # every fragment so far named its request (`requestId`)
    task: int | None = None
    advisor: tuple[tuple[str, Usage], ...] = ()  # its last fragment's advisor passes
    advisor_of: str | None = None  # an advisor pass's call: the message id it was part of
    # The input sides of earlier fragments that differ from the last's (CC-REC-FRAGMENT-DISAGREE,
    # rare): a copy in another transcript may repeat any fragment (`calls.copies_agree`).
    earlier_inputs: tuple[tuple[int, ...], ...] = ()
    body: int | None = None  # the provider response that completed it (its file index)

    def take_usage(self, usage: Usage) -> None:
        """A later fragment's usage, or the response's that completes the call, becomes the
        call's; the input side it replaces is kept when it differs (`earlier_inputs`)."""
        if usage.input_side() != self.usage.input_side():
            self.earlier_inputs += (self.usage.input_side(),)
        self.usage = usage


@dataclass(slots=True)
class HiddenCall:
    """A call no transcript records, seen in its provider response (SPEC §5.4;
    reader/bodies.py): no stream, no tool calls, no edges; its task from its request."""

    msg_id: str
    file: int  # its response file's index: a refusal about the call names that file
    request_id: str  # what its response file is named by: a later request's `cc_prev_req`
    kind: HiddenKind
    model: str
    usage: Usage
    final: bool
    prompt_id: str | None = None  # the request's `cc_prompt_id`
    prev_request: str | None = None  # the request's `cc_prev_req`
    # the request's `max_tokens`, kept only if the response is not final: its output's bound
    max_tokens: int | None = None
    advisor_of: str | None = None  # an advisor pass's call: the hidden call it was part of
    task: int | None = None
    refusal: str | None = None  # why it has no task
    request_refused: bool = False  # its request is refused: that says why it has no task


@dataclass(slots=True)
class ToolCall:
    id: str
    name: str
    stream: int
    msg_id: str
    shape: ShapeTuple
    position: int
    file: int  # where its tool_use block is written: a refusal about the call names that line
    line: int
    status: Literal["ok", "error", "no-result"] = "no-result"
    result_position: int | None = None
    result_agent_id: str | None = None
    result_status: str | None = None
    result_run_id: str | None = None
    result_usage: Usage | None = None  # what an Agent result states the child used
    web_searches: int = 0
    prompt_digest: str | None = None
    agent_type: str | None = None
    send_to: str | None = None  # a SendMessage call's `to` (records.ToolUse)
    message_digests: tuple[str, ...] = ()
    resume_of: str | None = None  # the agent an Agent or Task call resumes (records.ToolUse)


@dataclass(slots=True)
class Task:
    index: int
    file: int
    line: int
    position: int
    content_digest: str
    timestamp: str | None
    calls: int = 0
    subagents: int = 0


@dataclass(frozen=True, slots=True)
class Edge:
    source: EventKey
    target: EventKey
    kind: EdgeKind


# A finding's places kept to be said: enough to find the first few, never one per record.
PLACES_KEPT = 5


@dataclass(slots=True)
class Account:
    tree: LoadedTree
    task_unit: TaskUnit
    streams: list[Stream] = field(default_factory=list)
    calls: dict[str, Call] = field(default_factory=dict)
    # Calls only provider bodies show, in response order (reader/bodies.py).
    hidden: list[HiddenCall] = field(default_factory=list)
    # Every call no transcript records was looked for (an index read, every call through it).
    auxiliary_observed: bool = False
    tools: dict[str, ToolCall] = field(default_factory=dict)
    tasks: list[Task] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    findings: Counter[str] = field(default_factory=Counter)
    # Where the first PLACES_KEPT of each finding are, as (file index, line or None): what
    # `inspect` says beside the count (SPEC §6.4: a diagnostic names a file and a line).
    finding_places: dict[str, list[tuple[int, int | None]]] = field(default_factory=dict)
    synthetic_records: int = 0
    versions: set[str] = field(default_factory=set)
    delegations_expanded: int = 0
    # The first root prompt's content digest, under either task unit: what the first task's
    # id is keyed over when a task is a prompt (a contract made so is told from one made
    # per session, run/conversion.py).
    first_prompt_digest: str | None = None
    # Per stream, where the agent took up a message sent from a later task and which task that
    # is, in stream order (reader/tasks.py `_resumes`): its first run ends at the first one.
    resume_splits: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    # Delegation calls named by the refused joins of children that are there, as many children
    # as calls (streams.py `_could_expand`): calls that gave one prompt, each with a child the
    # prompt alone links to all of them (CC-TREE-AMBIGUOUS-JOIN), or a call a child's
    # disagreeing evidence names (CC-TREE-JOIN-CONFLICT, -ORPHAN-CHILD, by each child's file).
    # Not also refused as unexpanded, the same fault said again.
    join_candidates: set[str] = field(default_factory=set)

    def found(self, code: str, file: int, line: int | None = None, count: int = 1) -> None:
        """`count` more of the finding `code`, at `line` of the tree's file `file`."""
        self.findings[code] += count
        places = self.finding_places.setdefault(code, [])
        if len(places) <= PLACES_KEPT:  # one more than is said: that there are more is said
            places.append((file, line))

    @property
    def refusals(self) -> list[Problem]:
        return [p for p in self.problems if p.blocking]

    @property
    def convertible(self) -> bool:
        return not self.refusals
