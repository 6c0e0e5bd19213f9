"""The firewall crossing: a reader `Account` (local ids, local paths) becomes a `PublicAccount`.

This is the one place that sees both sides. Ids become keyed pseudonyms, names pass the
allowlist, model ids / versions / timestamps / billing values must match their shapes, and
problems keep only their code, file role, keyed label and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from converter.errors import Problem
from converter.errors.codes import NOT_BOUND
from converter.firewall import view
from converter.firewall.names import (
    KNOWN_CONTEXT_VALUES,
    model_crosses,
    public_agent_type,
    public_tool_name,
)
from converter.firewall.pseudonyms import Pseudonymizer
from converter.firewall.shapes import as_model
from converter.firewall.times import coarsen
from converter.firewall.types import VERSION
from converter.reader.model import PLACES_KEPT, Account, Call, EventKey, HiddenCall
from converter.reader.records import Usage
from converter.sources.tree import SourceFile
from converter.vocabulary import HIDDEN, HIDDEN_AGENT_KINDS, HiddenKind, TimestampPrecision

_VERSION = re.compile(VERSION)


@dataclass(frozen=True, slots=True)
class Policy:
    reveal_names: frozenset[str] = frozenset()
    timestamps: TimestampPrecision = "exact"


def file_ref(pseudo: Pseudonymizer, account: Account, problem: Problem) -> str | None:
    if problem.file is None or problem.file < 0:
        return unbound_ref(pseudo, problem)
    entry = account.tree.layout.files[problem.file]
    return f"{entry.role}/{pseudo.name('file', entry.rel)}"


def unbound_ref(pseudo: Pseudonymizer, problem: Problem) -> str | None:
    """`unbound/<label>` for a file the tree could not bind (a stray file, a symlink, a bad
    id): keyed like every file label, so the same file has the same label run after run."""
    if problem.local_path is None:
        return None
    return f"unbound/{pseudo.name('file', problem.local_path)}"


def file_labels(account: Account, pseudo: Pseudonymizer) -> dict[int, str]:
    """`role/label` of every laid-out file, for diagnostics raised away from the account."""
    return {f.index: f"{f.role}/{pseudo.name('file', f.rel)}" for f in account.tree.layout.files}


def finding_files(account: Account, pseudo: Pseudonymizer) -> list[tuple[str, str]]:
    """`role/label` and local relative path of each file a finding's place names: for
    `inspect --show-paths` (stderr) only, as `local_names` is."""
    named = {file for places in account.finding_places.values() for file, _ in places[:PLACES_KEPT]}
    labels = file_labels(account, pseudo)
    return sorted((labels[i], account.tree.layout.files[i].rel) for i in named)


def task_id(pseudo: Pseudonymizer, unit: str, session: str, digest: str, index: int) -> str:
    """A task's public id: keyed over its task unit, session, input digest and position."""
    return pseudo.name("task", f"{unit}:{session}:{digest}:{index}")


def session_task_id(pseudo: Pseudonymizer, session: str) -> str:
    """The one task's id under `task_unit: "session"` (its input is the session itself)."""
    return task_id(pseudo, "session", session, session, 0)


def event_id(pseudo: Pseudonymizer, key: EventKey) -> str:
    """The id an event crosses with: its local key under the pseudonym key."""
    return pseudo.name("event", f"{key[0]}:{key[1]}")


class _Crossing:
    def __init__(self, account: Account, pseudo: Pseudonymizer, policy: Policy) -> None:
        self.acc = account
        self.pseudo = pseudo
        self.policy = policy
        self.model_pseudonymized = 0
        # A few billing contexts serve thousands of calls: one frozen instance each.
        self.contexts: dict[tuple[str | None, str | None, str | None], view.BillingContext] = {}
        self.crosses: dict[str, bool] = {}  # a tree names a few models over thousands of calls
        # Every event names its task and agent: a few hundred of each over 31k events.
        self.agents: dict[int, str] = {}
        self.tasks: dict[int, str] = {}
        # 125k event references name 34k events: each looked up by its local key, not by the
        # text `event_id` makes of it (the pseudonymizer's memo still keeps each id: a second
        # crossing, a contract's `shown` one, and scan's prices look them up, not HMAC again)
        self.events: dict[EventKey, str] = {}

    def event(self, key: EventKey) -> str:
        found = self.events.get(key)
        if found is None:
            found = self.events[key] = event_id(self.pseudo, key)
        return found

    def agent(self, stream: int) -> str:
        found = self.agents.get(stream)
        if found is None:
            s = self.acc.streams[stream]
            local = "root" if s.index == 0 else f"{s.file}:{s.agent_id}"
            found = self.agents[stream] = self.pseudo.name("agent", local)
        return found

    def task(self, index: int | None) -> str | None:
        if index is None:
            return None
        found = self.tasks.get(index)
        if found is None:
            # The session is part of the name: two sessions opening with the same prompt
            # (`/init`) are two tasks, not one task seen twice. A grown session keeps its ids.
            session = self.acc.tree.layout.session_id
            digest = self.acc.tasks[index].content_digest
            found = self.tasks[index] = task_id(
                self.pseudo, self.acc.task_unit, session, digest, index
            )
        return found

    def model(self, name: str | None) -> str:
        """A model id crosses as written when it is one: a known family's id in a model id's
        shape, or a name the contract reveals. A gateway can write anything in this field (a
        host name, a key id, a customer's project): everything else is a keyed pseudonym, still
        priceable, and counted as a finding."""
        if name is not None:
            crosses = self.crosses.get(name)
            if crosses is None:
                crosses = self.crosses[name] = model_crosses(name, self.policy.reveal_names)
            if crosses:
                return name
        self.model_pseudonymized += 1
        return self.pseudo.name("model", name or "")

    def context_value(self, value: str | None) -> str | None:
        """A billing-context value crosses only if it is a documented one; any other string (a
        gateway can write anything there) becomes a keyed `x-<8 hex>`, still priceable.

        Keyed in the model domain behind a prefix, not a domain of its own (a firewall hunt):
        a model named `billing-context:<v>` gets a pseudonym ending in `<v>`'s 8 hex. Both are
        pseudonyms, so that links two names of the key's own making and reveals neither; a
        domain of its own would change every `x-` value, and the contracts that price one."""
        if value is None:
            return None
        if value in KNOWN_CONTEXT_VALUES:
            return value
        return "x-" + self.pseudo.name("model", "billing-context:" + value)[-8:]

    def usage(self, u: Usage, web_searches: int = 0) -> view.UsageTotals:
        return usage_totals(u, web_searches)

    def context(self, u: Usage) -> view.BillingContext:
        raw = (u.service_tier, u.speed, u.inference_geo)
        shared = self.contexts.get(raw)
        if shared is None:
            shared = view.BillingContext(
                service_tier=self.context_value(u.service_tier),
                speed=self.context_value(u.speed),
                inference_geo=self.context_value(u.inference_geo),
            )
            self.contexts[raw] = shared
        return shared

    def searches(self, call: Call) -> int:
        return sum(self.acc.tools[t].web_searches for t in call.tool_ids if t in self.acc.tools)

    def model_event(self, call: Call) -> view.ModelEvent:
        searches = self.searches(call)
        u = call.usage
        return view.ModelEvent(
            id=self.event(("model", call.msg_id)),
            task=self.task(call.task),
            agent=self.agent(call.stream),
            model=self.model(call.model),
            timestamp=coarsen(call.timestamp, self.policy.timestamps),
            usage=self.usage(u, searches),
            usage_complete=call.final,
            context=self.context(u),
            fragments=call.fragments,
        )

    def hidden_agent(self, kind: HiddenKind) -> str:
        """The agent of a kind of hidden call: one per kind, beside the root agent."""
        return self.pseudo.name("agent", f"hidden:{kind}")

    def hidden_event(self, h: HiddenCall) -> view.ModelEvent:
        """A hidden call as a model event: its response's model, usage and billing context;
        no timestamp (a response has none) and no tool calls."""
        return view.ModelEvent(
            id=self.event(("model", h.msg_id)),
            task=self.task(h.task),
            agent=self.hidden_agent(h.kind),
            model=self.model(h.model),
            timestamp=None,
            usage=self.usage(h.usage),
            usage_complete=h.final,
            context=self.context(h.usage),
            fragments=1,
            request_max_tokens=h.max_tokens,
        )


def usage_totals(u: Usage, web_searches: int = 0) -> view.UsageTotals:
    """A call's usage as it crosses (numbers only); `scan` sums a split session's calls with it."""
    return view.UsageTotals(
        input_tokens=u.input_tokens,
        output_tokens=u.output_tokens,
        cache_read_input_tokens=u.cache_read_input_tokens,
        cache_creation_5m_input_tokens=u.cache_5m,
        cache_creation_1h_input_tokens=u.cache_1h,
        cache_creation_unsplit_input_tokens=u.cache_unsplit,
        web_search_requests=max(u.web_search_requests, web_searches),
        web_fetch_requests=u.web_fetch_requests,
    )


def _agents(c: _Crossing) -> tuple[view.Agent, ...]:
    reveal = c.policy.reveal_names
    agents = [
        view.Agent(
            id=c.agent(s.index),
            parent=c.agent(s.parent) if s.parent is not None else None,
            depth=s.depth,
            kind=s.kind,
            agent_type="main"
            if s.index == 0
            else public_agent_type(s.agent_type or s.kind, c.pseudo, reveal),
            delegation=c.event(("tool", s.delegation)) if s.delegation else None,
        )
        for s in c.acc.streams
        if s.depth >= 0
    ]
    kinds = {h.kind for h in c.acc.hidden}
    if kinds and c.acc.streams:
        agents += [
            view.Agent(
                id=c.hidden_agent(kind),
                parent=c.agent(0),
                depth=1,
                kind=HIDDEN_AGENT_KINDS[kind],
                agent_type=HIDDEN,
            )
            for kind in HIDDEN_AGENT_KINDS
            if kind in kinds
        ]
    return tuple(agents)


def _refusals(c: _Crossing) -> tuple[view.Refusal, ...]:
    return tuple(
        view.Refusal(code=p.code, file=file_ref(c.pseudo, c.acc, p), line=p.line)
        for p in c.acc.refusals
    )


def _finding_places(acc: Account, pseudo: Pseudonymizer) -> tuple[view.FindingPlace, ...]:
    """Each finding's first places, by file label and line, in the order of the findings."""
    labels = file_labels(acc, pseudo)
    return tuple(
        view.FindingPlace(code=code, file=labels[file], line=line)
        for code, places in sorted(acc.finding_places.items())
        for file, line in places[:PLACES_KEPT]
    )


def _findings(c: _Crossing) -> tuple[view.Finding, ...]:
    """Call after every call's model name has crossed: that counts the pseudonymized ones."""
    findings = dict(c.acc.findings)
    if c.model_pseudonymized:
        findings["CC-REC-MODEL-NAME-SHAPE"] = c.model_pseudonymized
    unpublished = sum(not _VERSION.fullmatch(v) for v in c.acc.versions)
    if unpublished:  # dropped, and said (a fuzz: `"version": "SECRET"` went unremarked)
        findings["CC-REC-VERSION-SHAPE"] = unpublished
    return tuple(view.Finding(code=k, count=v) for k, v in sorted(findings.items()) if v)


def _counts(acc: Account, bound: list[SourceFile]) -> view.Counts:
    """`bound`: the files bound by digest (one that could not be read is not)."""
    live = [s for s in acc.streams if s.depth >= 0]
    return view.Counts(
        transcript_files=sum(f.role in ("parent", "subagent") for f in bound),
        meta_files=sum(f.role == "meta" for f in bound),
        bound_files=len(bound),
        subagents=len(live) - 1 if live else 0,
        delegations_expanded=acc.delegations_expanded,
        max_depth=max((s.depth for s in live), default=0),
        tasks=len(acc.tasks),
        model_calls=len(acc.calls) + len(acc.hidden),
        usage_incomplete_calls=sum(not call.final for call in acc.calls.values())
        + sum(not h.final for h in acc.hidden),
        tool_calls=len(acc.tools),
        edges=len(acc.edges),
        synthetic_records=acc.synthetic_records,
    )


def _versions(acc: Account) -> tuple[str, ...]:
    return tuple(sorted(v for v in acc.versions if _VERSION.fullmatch(v)))


def _bound_with_digest(acc: Account) -> list[SourceFile]:
    return [f for f in acc.tree.bound_files if f.index in acc.tree.digests]


def cross(
    account: Account, pseudo: Pseudonymizer, policy: Policy | None = None
) -> view.PublicAccount:
    policy = policy or Policy()
    c = _Crossing(account, pseudo, policy)
    acc = account
    reveal = policy.reveal_names
    bound = _bound_with_digest(acc)
    files = tuple(
        view.BoundFile(
            role=f.role,
            label=pseudo.name("file", f.rel),
            size=acc.tree.digests[f.index].size,
            sha256=acc.tree.digests[f.index].sha256,
        )
        for f in bound
    )
    tasks = tuple(
        view.Task(
            id=c.task(t.index) or "",
            input_digest=pseudo.digest(
                "task-input", t.content_digest.encode("utf-8", "surrogatepass")
            ),
            started_at=coarsen(t.timestamp, policy.timestamps),
            model_calls=t.calls,
            subagents=t.subagents,
        )
        for t in acc.tasks
    )
    model_events = tuple(c.model_event(call) for call in acc.calls.values()) + tuple(
        c.hidden_event(h) for h in acc.hidden
    )
    tool_events = tuple(
        view.ToolEvent(
            id=c.event(("tool", t.id)),
            task=c.task(acc.calls[t.msg_id].task),
            agent=c.agent(t.stream),
            name=public_tool_name(t.name, pseudo, reveal),
            requested_by=c.event(("model", t.msg_id)),
            status=t.status,
            shape=as_model(t.shape),
            web_search_requests=t.web_searches,
        )
        for t in acc.tools.values()
    )
    edges = tuple(
        view.Edge(source=c.event(e.source), target=c.event(e.target), kind=e.kind)
        for e in acc.edges
    )
    refusals = _refusals(c)
    return view.PublicAccount(
        key_id=pseudo.key_id,
        task_unit=acc.task_unit,
        convertible=not refusals,
        files=files,
        agents=_agents(c),
        tasks=tasks,
        model_events=model_events,
        tool_events=tool_events,
        edges=edges,
        refusals=refusals,
        findings=_findings(c),
        counts=_counts(acc, bound),
        claude_code_versions=_versions(acc),
        auxiliary_calls="observed" if acc.auxiliary_observed else "not-observed",
    )


def local_names(account: Account, pseudo: Pseudonymizer) -> list[tuple[str, str]]:
    """Each pseudonym this tree's tool names, agent types, models and billing-context values
    cross as (under the canonical policy: what `inspect` reports and a template asks to price),
    with the local name it stands for, sorted by pseudonym.

    The local side is exactly what the firewall keeps in: only `inspect --show-paths` calls
    this, and prints it on stderr, so a user can tell which MCP tool `tool-<hex>` is without
    the name ever reaching an output. The pseudonyms come from the functions `cross` uses, so
    each is the one the template and the bundle carry; `cross` itself is not touched."""
    c = _Crossing(account, pseudo, Policy())
    reveal = c.policy.reveal_names
    found: dict[str, str] = {}
    for name in {t.name for t in account.tools.values()}:
        public = public_tool_name(name, pseudo, reveal)
        if public != name:
            found[public] = name
    for s in account.streams:
        if s.index != 0 and s.depth >= 0:
            name = s.agent_type or s.kind
            public = public_agent_type(name, pseudo, reveal)
            if public != name:
                found[public] = name
    models = {call.model for call in account.calls.values()} | {h.model for h in account.hidden}
    for model in models:
        public = c.model(model)
        if public != model:
            found[public] = model or ""
    usages = [call.usage for call in account.calls.values()] + [h.usage for h in account.hidden]
    values = {
        value
        for u in usages
        for value in (u.service_tier, u.speed, u.inference_geo)
        if value is not None
    }
    for value in values:
        shown = c.context_value(value)
        if shown is not None and shown != value:
            found[shown] = value
    return sorted(found.items())


def local_tasks(account: Account, pseudo: Pseudonymizer) -> list[tuple[str, int]]:
    """Each task's id, as the template and bundle carry it, with the parent line of its root
    prompt, in prompt order: for `inspect --show-paths` (stderr only), so a user labelling
    `claims.outcomes` can tell which task is which by opening the transcript at that line."""
    c = _Crossing(account, pseudo, Policy())
    ordered = sorted(account.tasks, key=lambda t: t.position)
    return [(task_id, t.line) for t in ordered if (task_id := c.task(t.index)) is not None]


def summarize(account: Account, pseudo: Pseudonymizer) -> view.PublicSummary:
    """What `inspect` and `scan` show, crossed like `cross` does it, without building a public
    event per call, tool call and edge (76 MB and 0.4 s on the 200 MB bench tree): usage is
    summed per public model name and per public agent as each call crosses."""
    c = _Crossing(account, pseudo, Policy())
    acc = account
    keys = tuple(view.UsageTotals.model_fields)
    total = dict.fromkeys(keys, 0)
    by_model: dict[str, tuple[int, dict[str, int]]] = {}
    by_agent: dict[str, int] = {}
    seen = [
        (call.usage, c.searches(call), call.model, c.agent(call.stream))
        for call in acc.calls.values()
    ]
    seen += [(h.usage, 0, h.model, c.hidden_agent(h.kind)) for h in acc.hidden]
    for raw, searches, name, agent in seen:
        usage = c.usage(raw, searches)
        model = c.model(name)
        calls, sums = by_model.get(model) or (0, dict.fromkeys(keys, 0))
        for key in keys:
            value = getattr(usage, key)
            total[key] += value
            sums[key] += value
        by_model[model] = (calls + 1, sums)
        by_agent[agent] = by_agent.get(agent, 0) + 1
    refusals = _refusals(c)
    bound = _bound_with_digest(acc)
    return view.PublicSummary(
        key_id=pseudo.key_id,
        task_unit=acc.task_unit,
        convertible=not refusals,
        agents=_agents(c),
        refusals=refusals,
        findings=_findings(c),
        finding_places=_finding_places(acc, pseudo),
        more_places=tuple(sorted(k for k, v in acc.finding_places.items() if len(v) > PLACES_KEPT)),
        not_read=tuple(
            view.Finding(code=code, count=count)
            for code, count in sorted(acc.tree.layout.not_read.items())
            if count and code in NOT_BOUND
        ),
        counts=_counts(acc, bound),
        claude_code_versions=_versions(acc),
        provider_files=sum(f.role.startswith("provider-") for f in bound),
        auxiliary_calls="observed" if acc.auxiliary_observed else "not-observed",
        usage=view.UsageTotals(**total),
        by_model=tuple(
            view.ModelUsage(model=name, model_calls=calls, usage=view.UsageTotals(**sums))
            for name, (calls, sums) in sorted(by_model.items())
        ),
        calls_by_agent=by_agent,
    )
