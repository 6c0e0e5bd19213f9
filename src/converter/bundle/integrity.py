"""Whether a bundle's parts agree with each other, checked while it is opened (SPEC §9, §12).

A matching evidence digest shows a bundle was not changed after it was sealed, not that whoever
sealed it wrote a consistent one: anyone can edit a bundle and recompute the digest. Evaluate
sums events into tasks by their ids, so an event that names no listed task would silently drop
out of the cost, an outcome that is missing would leave a task undecidable, and a receipt count
nobody compares could say anything. Every such disagreement is refused (exit 2), all of them at
once, each named by a field path of names and positions (`events/12/task`), never by a value;
outcomes are keyed by task pseudonym, as in the contract's own diagnostics.

Pure: the head, then each event and edge as `bundle.io.open_bundle` validates it, then
`problems()`. It keeps one entry per event id (a bundle's events are never held as models).
"""

from __future__ import annotations

import re
from collections import Counter
from decimal import Decimal

from converter.bundle.model import BUNDLE_SCHEMA, BundleHead, ModelEventOut, ToolEventOut
from converter.contract.model import BASELINE_NAME_PATTERN, LABEL_PATTERN
from converter.errors import CODES, RETIRED_CODES, Problem
from converter.firewall.names import crossed_as
from converter.firewall.times import at_precision
from converter.firewall.view import Edge, final_no_input, no_input_recorded
from converter.limits import MAX_TOKEN_COUNT
from converter.pricing.card import card_mismatches
from converter.pricing.engine import price_model_event, price_tool_event
from converter.pricing.model import PricingClaims
from converter.vocabulary import (
    FINAL_NO_INPUT,
    HIDDEN,
    INCOMPLETE_NO_INPUT,
    LEFT_OUT_PLACED,
    SEARCH_COUNT_UNKNOWN,
    USAGE_INCOMPLETE,
    hidden_kind_of,
    search_count_unknown,
)

# Locations listed per rule (code and field); past this, one line counts the rest. A bundle
# edited on every event would otherwise print one line per event and hide the other problems.
PER_RULE = 5
_TRANSCRIPT_ROLES = ("parent", "subagent")


class Consistency:
    """Collects every referential and count problem of one bundle."""

    def __init__(self, head: BundleHead) -> None:
        self.head = head
        self._problems: list[Problem] = []
        self._extra: Counter[tuple[str, str]] = Counter()
        self._shown: Counter[tuple[str, str]] = Counter()
        self.tasks: dict[str, int] = {}
        self.agents: set[str] = set()
        self.excluded: set[str] = set()
        self.misplaced_agents: set[int] = set()  # by index: a parent that is no agent above
        # event id -> a model event's (task, agent), None for a tool event: a tool call is in
        # its requesting call's task and agent, as a conversion places it
        self.placed: dict[str, tuple[str | None, str] | None] = {}
        # tool event id -> (its index, its requested_by), and those a `requests` edge names:
        # a conversion writes one such edge per tool call, from the call that requested it
        self.requested: dict[str, tuple[int, str]] = {}
        self.request_edges: set[str] = set()
        # a model event id -> the searches its usage says it was billed for, where some; and
        # the searches its tool calls say they made (`boundary.usage_totals`: never fewer)
        self.searches_billed: dict[str, int] = {}
        self.searches_made: dict[str, tuple[int, int]] = {}  # -> (first tool's index, sum)
        self.per_task: Counter[str] = Counter()
        self.events_per_task: Counter[str] = Counter()  # model and tool events
        # tool events whose requesting call came later: (index, requested_by, task, agent)
        self.pending: list[tuple[int, str, str | None, str]] = []
        self.model_calls = self.tool_calls = self.incomplete = self.edges = 0
        self.tool_costs: dict[str, Decimal | None] = {}  # None: its pricing has no price for it
        # What the firewall promises of every name and time a v2 bundle holds (v1 names crossed
        # by older rules, and are not checked again).
        self.firewall = head.schema_version == BUNDLE_SCHEMA
        self.reveal = frozenset(head.receipt.privacy.reveal_names)
        self.precision = head.receipt.privacy.timestamps
        self.public: dict[tuple[str, str], bool] = {}  # a few names over thousands of events
        # The agents of hidden calls (SPEC §5.4), and how many model events are theirs.
        self.hidden_agents = {a.id for a in head.agents if hidden_kind_of(a.kind)}
        self.hidden_events = 0
        self.hidden_ids: set[str] = set()  # hidden calls' model events: no edge names one
        # Hidden calls are found in provider bodies, their bounds in request bodies: the files
        # that show them are bound, or none is a hidden call.
        bound = Counter(f.role for f in head.receipt.files)
        self.roles = frozenset(bound)
        self.bodies_bound = {"provider-index", "provider-response"} <= self.roles
        # (each hidden call is a response file of its own: `_hidden_calls_disagree`)
        self.responses_bound = bound["provider-response"]
        self.requests_bound = "provider-request" in self.roles
        # The events a finding of spend in no cost places (`vocabulary.LEFT_OUT_PLACED`), by
        # that finding's code: evaluate marks their task's cost open by them.
        self.left_out: Counter[str] = Counter()
        # usage-incomplete events that recorded no input (CC-REC-USAGE-INCOMPLETE-NO-INPUT)
        self.incomplete_no_input = 0
        # of the events of no input those findings count, the hidden calls' (`_findings_held`)
        self.hidden_no_input: Counter[str] = Counter()
        self._head()
        self._hidden_agents()

    def _add(self, code: str, rule: str, where: str) -> None:
        """A problem at `where`; `rule` is its field with positions starred (`events/*/task`)."""
        key = (code, rule)
        if self._shown[key] < PER_RULE:
            self._shown[key] += 1
            self._problems.append(Problem(code, where=where))
        else:
            self._extra[key] += 1

    def _head(self) -> None:
        head = self.head
        for index, task in enumerate(head.tasks):
            if task.id in self.tasks:
                self._add("BUNDLE-DUPLICATE-ID", "tasks/*/id", f"tasks/{index}/id")
            self.tasks.setdefault(task.id, index)
        for index, agent in enumerate(head.agents):
            if agent.id in self.agents:
                self._add("BUNDLE-DUPLICATE-ID", "agents/*/id", f"agents/{index}/id")
            self.agents.add(agent.id)
        for index, task in enumerate(head.tasks):
            self._time(task.started_at, "tasks/*/started_at", f"tasks/{index}/started_at")
        self._labels()
        depths = {agent.id: agent.depth for agent in head.agents}
        for index, agent in enumerate(head.agents):
            self._name("agent-type", agent.agent_type, "agents/*/agent_type", index)
            # Only the root has no parent; every other agent's parent is listed, one level up
            # (an agent its own parent, or a loop of them, resealed, opened: a fuzz review).
            rootless = (agent.parent is None) != (agent.depth == 0)
            unknown = agent.parent is not None and depths.get(agent.parent) != agent.depth - 1
            if rootless or unknown:
                self._add("BUNDLE-DANGLING-REFERENCE", "agents/*/parent", f"agents/{index}/parent")
                self.misplaced_agents.add(index)  # (its kind and delegation not said again)
            elif (agent.kind == "root") != (agent.parent is None):
                # the root's kind is `root`, no other's: a subagent relabelled so had its cost
                # printed in the main column, the root relabelled in a subagent's (a review)
                self._add("BUNDLE-SHAPE", "agents/*/kind", f"agents/{index}/kind")
        for index, excluded in enumerate(head.excluded_tasks):
            where = f"excluded_tasks/{index}/task"
            if excluded.task not in self.tasks:
                self._add("BUNDLE-DANGLING-REFERENCE", "excluded_tasks/*/task", where)
            elif excluded.task in self.excluded:  # evaluate counted it once per entry
                self._add("BUNDLE-DUPLICATE-ID", "excluded_tasks/*/task", where)
            self.excluded.add(excluded.task)
        for task_id, index in self.tasks.items():
            if task_id not in self.excluded and task_id not in head.outcomes:
                self._add("BUNDLE-OUTCOME-MISMATCH", "tasks/*/id", f"tasks/{index}/id")
        for task_id in head.outcomes:
            if task_id not in self.tasks or task_id in self.excluded:
                self._add("BUNDLE-OUTCOME-MISMATCH", "outcomes/*", f"outcomes/{task_id}")
        if (head.schema_version == BUNDLE_SCHEMA) != _writes_v2(head.generator.version):
            # v1 carries no prices, so its costs cannot be checked: a later bundle rewritten as
            # v1 (prices dropped, costs edited, resealed) would otherwise open as one. And v2
            # naming 0.1, which wrote none, would pass the checks later versions are held to.
            self._add("BUNDLE-SCHEMA-MISMATCH", "schema_version", "schema_version")
        self._published_keys()
        if head.pricing is not None:  # prices edited under a shipped card's name, with costs
            if head.pricing.price_card != head.receipt.price_card:  # reports show the receipt's
                self._add("BUNDLE-PRICE-CARD-MISMATCH", "pricing/*", "pricing/price_card")
            for part in card_mismatches(head.pricing, head.receipt.price_card):
                where = "receipt/price_card" if part == "price_card" else f"pricing/{part}"
                self._add("BUNDLE-PRICE-CARD-MISMATCH", "pricing/*", where)
        files = head.receipt.files
        self._count("tasks", len(head.tasks))
        # the agents of hidden calls (one per kind) are no subagents: no transcript is theirs
        spawned = [a for a in head.agents if a.id not in self.hidden_agents]
        self._count("subagents", max(len(spawned) - 1, 0))
        self._count("max_depth", max((a.depth for a in spawned), default=0))
        self._count("transcript_files", sum(f.role in _TRANSCRIPT_ROLES for f in files))
        self._count("meta_files", sum(f.role == "meta" for f in files))
        self._count("bound_files", len(files))
        if head.receipt.auxiliary_calls == "observed" and "provider-index" not in self.roles:
            # calls no transcript records are looked for only in the bodies' index: a bundle
            # made without one that says they were (resealed) dropped evaluate's finding that
            # they were not (an adversarial review)
            where = "receipt/auxiliary_calls"
            self._add("BUNDLE-HIDDEN-CALLS", where, where)

    def _hidden_agents(self) -> None:
        """An agent of hidden calls as the firewall writes it (`boundary._agents`): one per
        kind, type `hidden`, depth 1 under the root, spawned by no tool call. A subagent
        relabelled so would move its cost into the hidden column unremarked."""
        root = next((a.id for a in self.head.agents if a.parent is None), None)
        kinds: Counter[str] = Counter()
        for index, agent in enumerate(self.head.agents):
            if agent.id not in self.hidden_agents:
                continue
            kinds[agent.kind] += 1
            if (
                agent.agent_type != HIDDEN
                or agent.depth != 1
                or agent.parent != root
                or agent.delegation is not None
                or kinds[agent.kind] > 1
            ):
                self._add("BUNDLE-HIDDEN-CALLS", "agents/*/kind", f"agents/{index}/kind")

    def _labels(self) -> None:
        """The labels a contract's author typed, one word each since 0.3 (0.2.0 took phrases,
        and its bundles still open): a bundle of 0.3 or later holding a phrase was edited."""
        head = self.head
        if not (self.firewall and _version(head.generator.version) >= (0, 3)):
            return
        labels = [  # (rule, where, label, pattern)
            ("receipt/rubric_version", "", head.receipt.rubric_version, LABEL_PATTERN),
            ("receipt/label_source", "", head.receipt.label_source, LABEL_PATTERN),
            ("baseline/name", "", head.baseline.name, BASELINE_NAME_PATTERN),
            *(
                ("tasks/*/rubric_version", str(i), t.rubric_version, LABEL_PATTERN)
                for i, t in enumerate(head.tasks)
            ),
        ]
        for rule, index, label, pattern in labels:
            if label is not None and re.fullmatch(pattern, label) is None:
                self._add("BUNDLE-NAME-NOT-PUBLIC", rule, rule.replace("*", index))

    def _published_keys(self) -> None:
        """Names a bundle holds outside its events, which evaluate and verify print: the
        receipt's finding codes (a catalogue's, of this version or one before) and the keys of
        its pricing: models, tools, billing contexts (a leak hunt: a resealed bundle carried an
        e-mail as an unused model's price and a sentence as a finding code, and evaluate
        printed both)."""
        head = self.head
        if not self.firewall:
            return
        for index, finding in enumerate(head.receipt.findings):
            if finding.code not in CODES and finding.code not in RETIRED_CODES:
                rule = "receipt/findings/*/code"
                self._add("BUNDLE-NAME-NOT-PUBLIC", rule, rule.replace("*", str(index)))
        if head.pricing is None:
            return
        for kind, names, part in (
            ("model", head.pricing.models, "models"),
            ("tool", head.pricing.client_tools, "client_tools"),
        ):
            for index, name in enumerate(names):  # a key by its place: never quoted
                self._name(kind, name, f"pricing/{part}/<key #*>", index + 1)
        for place, model in enumerate(head.pricing.models.values(), 1):
            rule = f"pricing/models/<key #{place}>/contexts/<key #*>"
            for index, key in enumerate(model.contexts):
                self._name("context", key, rule, index + 1)

    def _name(self, kind: str, name: str, rule: str, index: int) -> None:
        if not self.firewall:
            return
        public = self.public.get((kind, name))
        if public is None:
            public = self.public[kind, name] = crossed_as(kind, name, self.reveal)
        if not public:
            self._add("BUNDLE-NAME-NOT-PUBLIC", rule, rule.replace("*", str(index)))

    def _time(self, stamp: str | None, rule: str, where: str) -> None:
        """A timestamp at the precision the receipt says it was coarsened to, in its form."""
        if self.firewall and stamp is not None and not at_precision(stamp, self.precision):
            self._add("BUNDLE-TIMESTAMP-PRECISION", rule, where)

    def _count(self, name: str, held: int) -> None:
        if getattr(self.head.receipt.counts, name) != held:
            where = f"receipt/counts/{name}"
            self._add("BUNDLE-COUNT-MISMATCH", where, where)

    def event(self, index: int, event: ModelEventOut | ToolEventOut) -> None:
        if event.id in self.placed:
            self._add("BUNDLE-DUPLICATE-ID", "events/*/id", f"events/{index}/id")
        model = isinstance(event, ModelEventOut)
        self.placed.setdefault(event.id, (event.task, event.agent) if model else None)
        if event.task is not None:
            self.events_per_task[event.task] += 1
        if event.task is None or event.task not in self.tasks:
            self._add("BUNDLE-DANGLING-REFERENCE", "events/*/task", f"events/{index}/task")
        if event.agent not in self.agents:
            self._add("BUNDLE-DANGLING-REFERENCE", "events/*/agent", f"events/{index}/agent")
        hidden = event.agent in self.hidden_agents
        if hidden and (isinstance(event, ToolEventOut) or event.timestamp is not None):
            # a hidden call requests no tool, and its response holds no time
            self._add("BUNDLE-HIDDEN-CALLS", "events/*/agent", f"events/{index}/agent")
        if isinstance(event, ModelEventOut):
            self.hidden_events += hidden
            if hidden:
                self.hidden_ids.add(event.id)
            if _bound_misplaced(event, hidden, self.requests_bound):
                where = f"events/{index}/request_max_tokens"
                self._add("BUNDLE-HIDDEN-CALLS", "events/*/request_max_tokens", where)
            self._name("model", event.model, "events/*/model", index)
            self._name("context", event.context.key(), "events/*/context", index)
            self._time(event.timestamp, "events/*/timestamp", f"events/{index}/timestamp")
            # The reader never takes a token count of 2**32 or more (CC-REC-BAD-TOKEN-COUNT);
            # a bundle holding one was not written by it, and its sums would overflow.
            u = event.usage
            largest = max(
                u.input_tokens,
                u.output_tokens,
                u.cache_read_input_tokens,
                u.cache_creation_5m_input_tokens,
                u.cache_creation_1h_input_tokens,
                u.cache_creation_unsplit_input_tokens,
                u.web_search_requests,
                u.web_fetch_requests,
            )
            if largest >= MAX_TOKEN_COUNT:
                self._add("BUNDLE-SHAPE", "events/*/usage", f"events/{index}/usage")
            elif self.head.pricing is not None:
                self._model_cost(index, event, self.head.pricing)
            if u.web_search_requests:
                self.searches_billed[event.id] = u.web_search_requests
            self.model_calls += 1
            self.incomplete += not event.usage_complete
            if event.task is not None:
                self.per_task[event.task] += 1
            final_blind = final_no_input(event.usage_complete, event.usage)
            blind = no_input_recorded(event.usage_complete, event.usage)
            self.left_out[FINAL_NO_INPUT] += final_blind
            self.incomplete_no_input += blind
            if hidden:
                self.hidden_no_input[FINAL_NO_INPUT] += final_blind
                self.hidden_no_input[INCOMPLETE_NO_INPUT] += blind
        else:
            self._tool_event(index, event)

    def _tool_event(self, index: int, event: ToolEventOut) -> None:
        self._name("tool", event.name, "events/*/name", index)
        self.tool_calls += 1
        if search_count_unknown(event.name, event.web_search_requests, event.status):
            self.left_out[SEARCH_COUNT_UNKNOWN] += 1
        if self.head.pricing is not None:
            if event.name not in self.tool_costs:  # a price per tool name, not per call
                priced = price_tool_event(event, self.head.pricing)
                self.tool_costs[event.name] = None if isinstance(priced, list) else priced.cost
            cost = self.tool_costs[event.name]
            if cost is None or not event.cost.low == event.cost.high == cost:
                self._add("BUNDLE-COST-MISMATCH", "events/*/cost", f"events/{index}/cost")
        self.requested.setdefault(event.id, (index, event.requested_by))
        if event.web_search_requests:
            first, made = self.searches_made.get(event.requested_by, (index, 0))
            self.searches_made[event.requested_by] = (first, made + event.web_search_requests)
        requester = self.placed.get(event.requested_by)
        if requester is None:
            self.pending.append((index, event.requested_by, event.task, event.agent))
        else:
            self._in_place(index, requester, event.task, event.agent)

    def _in_place(
        self, index: int, requester: tuple[str | None, str], task: str | None, agent: str
    ) -> None:
        """A tool call in another task or agent than the model call that requested it: a
        conversion never writes one (a hostile-bundle audit: a tool call moved to another task
        of a resealed bundle took it under a calls-per-task limit, ASSIST became SCALE)."""
        # (a task or agent the bundle does not list, of either, is said already, once)
        if task != requester[0] and task in self.tasks and requester[0] in self.tasks:
            self._add("BUNDLE-DANGLING-REFERENCE", "events/*/task", f"events/{index}/task")
        if agent != requester[1] and agent in self.agents and requester[1] in self.agents:
            self._add("BUNDLE-DANGLING-REFERENCE", "events/*/agent", f"events/{index}/agent")

    def _agent_of_tool(self, tool_id: str) -> str | None:
        """A tool call's agent, as its requesting call's; None where that call is not held or
        its agent not listed (each said already)."""
        requested = self.requested.get(tool_id)
        requester = self.placed.get(requested[1]) if requested else None
        return requester[1] if requester and requester[1] in self.agents else None

    def _model_cost(self, index: int, event: ModelEventOut, pricing: PricingClaims) -> None:
        """A v2 bundle carries the prices its events use: each cost and each applied price
        (tier, context multiplier, unsplit rule, high output, at the request's bound where the
        event gives one) is priced again from them. A resealed bundle with costs edited down, or
        prices edited without its costs, disagrees."""
        priced = price_model_event(event, pricing)
        if isinstance(priced, list):  # its pricing lacks what the event needs
            self._add("BUNDLE-COST-MISMATCH", "events/*/cost", f"events/{index}/cost")
            return
        if (event.cost.low, event.cost.high) != (priced.low, priced.high):
            self._add("BUNDLE-COST-MISMATCH", "events/*/cost", f"events/{index}/cost")
        applied = event.pricing
        high_output = priced.high_output.units if priced.high_output else event.usage.output_tokens
        if (
            applied.tier != priced.tier
            or applied.tier_above_input_tokens
            != pricing.models[event.model].tiers[priced.tier].above_input_tokens
            or applied.context != priced.context
            or applied.context_multiplier != priced.multiplier
            or applied.unsplit_cache_write_rule != pricing.unsplit_cache_write_rule
            or applied.output_tokens_high != high_output
        ):
            self._add("BUNDLE-COST-MISMATCH", "events/*/pricing", f"events/{index}/pricing")

    def edge(self, index: int, edge: Edge) -> None:
        """Call after every event (a bundle lists its events before its edges)."""
        self.edges += 1
        for end, event_id in (("source", edge.source), ("target", edge.target)):
            if event_id not in self.placed:
                where = f"edges/{index}/{end}"
                self._add("BUNDLE-DANGLING-REFERENCE", f"edges/*/{end}", where)
            elif event_id in self.hidden_ids:
                # a hidden call is in no conversation's flow: a transcript call moved under a
                # hidden agent keeps its edges (a review: the root's calls moved, exit 0)
                self._add("BUNDLE-HIDDEN-CALLS", f"edges/*/{end}", f"edges/{index}/{end}")
        if edge.kind == "requests":
            if edge.source in self.placed:
                self._request_edge(index, edge)
            return
        # A tool call's result is consumed by a model call, a delegation starts one, and a
        # child's last events return to one: each ends at a model event, and all but `returns`
        # start at a tool event (a review: a `consumes` edge between two model calls opened).
        if self.placed.get(edge.target, ()) is None:
            self._add("BUNDLE-DANGLING-REFERENCE", "edges/*/target", f"edges/{index}/target")
        if edge.kind != "returns" and self.placed.get(edge.source) is not None:
            self._add("BUNDLE-DANGLING-REFERENCE", "edges/*/source", f"edges/{index}/source")

    def _request_edge(self, index: int, edge: Edge) -> None:
        """A `requests` edge runs from a tool call's `requested_by` to it, one per tool call: a
        tool call moved to another task or agent with its `requested_by` re-pointed there still
        had its old edge (a review of the rule in `_in_place`: resealed, it opened)."""
        tool = self.requested.get(edge.target)
        if tool is None:  # a model event, or none (said above)
            if edge.target in self.placed:
                self._add("BUNDLE-DANGLING-REFERENCE", "edges/*/target", f"edges/{index}/target")
        else:  # (a requested_by naming no model event is said at the tool event)
            moved = tool[1] != edge.source and self.placed.get(tool[1]) is not None
            if moved or edge.target in self.request_edges:
                where = f"edges/{index}/source"
                self._add("BUNDLE-DANGLING-REFERENCE", "edges/*/source", where)
            self.request_edges.add(edge.target)

    def problems(self) -> list[Problem]:
        """Every problem found, in the order found; call once, after the last edge."""
        for index, requested_by, its_task, its_agent in self.pending:
            requester = self.placed.get(requested_by)
            if requester is None:
                where = f"events/{index}/requested_by"
                self._add("BUNDLE-DANGLING-REFERENCE", "events/*/requested_by", where)
            else:
                self._in_place(index, requester, its_task, its_agent)
        for tool_id, (index, requested_by) in self.requested.items():
            # no `requests` edge names it (one from a call it does not name is said above, as
            # is a requested_by naming no model event)
            if tool_id not in self.request_edges and self.placed.get(requested_by) is not None:
                where = f"events/{index}/requested_by"
                self._add("BUNDLE-DANGLING-REFERENCE", "events/*/requested_by", where)
        for requested_by, (index, made) in self.searches_made.items():
            # a call is billed for at least the searches its WebSearch calls counted (a review:
            # a search count raised on a tool call alone took away a count-unknown finding)
            if made > self.searches_billed.get(requested_by, 0):
                where = f"events/{index}/web_search_requests"
                self._add("BUNDLE-COUNT-MISMATCH", "events/*/web_search_requests", where)
        for index, agent in enumerate(self.head.agents):
            delegation = agent.delegation
            if delegation is not None and (
                delegation not in self.placed
                or self.placed[delegation] is not None  # a tool call's (the Agent or Task call)
                or (
                    index not in self.misplaced_agents
                    and self._agent_of_tool(delegation) not in (None, agent.parent)
                )
            ):  # ... made by its parent agent (a review: one named its own Read call)
                where = f"agents/{index}/delegation"
                self._add("BUNDLE-DANGLING-REFERENCE", "agents/*/delegation", where)
        for index, excluded in enumerate(self.head.excluded_tasks):
            # Evaluate leaves an excluded task out of every cost: one with events would hide
            # its spend (convert refuses that: CONTRACT-EXCLUDED-HAS-CALLS).
            if self.events_per_task[excluded.task]:
                where = f"excluded_tasks/{index}/task"
                self._add("BUNDLE-OUTCOME-MISMATCH", "excluded_tasks/*/task", where)
        for index, task in enumerate(self.head.tasks):
            if task.model_calls != self.per_task[task.id]:
                where = f"tasks/{index}/model_calls"
                self._add("BUNDLE-COUNT-MISMATCH", "tasks/*/model_calls", where)
        if self._hidden_calls_disagree():
            where = "receipt/hidden_calls"
            self._add("BUNDLE-HIDDEN-CALLS", where, where)
        self._findings_held()
        self._count("model_calls", self.model_calls)
        self._count("tool_calls", self.tool_calls)
        self._count("usage_incomplete_calls", self.incomplete)
        self._count("edges", self.edges)
        more = [
            Problem(code, where=f"{rule}: {count:,} more")
            for (code, rule), count in self._extra.items()
        ]
        return self._problems + more

    def _hidden_calls_disagree(self) -> bool:
        """Whether `receipt.hidden_calls` is not what its events and files bear out. Each
        hidden call is an event (its advisor passes more): a count its events do not bear out
        hides a call removed, or claims one never made (from 0.5; before, counted only). They
        are found in provider bodies, which a bundle holding one binds (a review). And each is
        a response file of its own, bound, in every version: a second response of one id
        refuses (CC-BODY-DUPLICATE), and its advisor passes are events of the same file, so
        never more hidden calls than provider-response files (events may outnumber them)."""
        declared, events = self.head.receipt.hidden_calls, self.hidden_events
        priced = _version(self.head.generator.version) >= (0, 5)
        return (
            (priced and ((declared == 0) != (events == 0) or declared > events))
            or (events > 0 and not self.bodies_bound)
            or declared > self.responses_bound
        )

    def _findings_held(self) -> None:
        """The receipt's findings that stand for events one each, as a conversion writes them,
        held to those events. In every version a usage-incomplete model event is one
        CC-REC-USAGE-INCOMPLETE (a review: a resealed bundle with it dropped, or left as it was
        while a call's `usage_complete` was flipped and its counts and cost made to agree,
        opened, and said less of the calls evaluate takes at both ends). From 0.6.14 (before,
        not checked): a search of unknown count, a final call of no input (a review: a bundle
        resealed without the first decided SCALE, while evaluate marked the task holding it
        open) and a usage-incomplete call of no input, hidden calls' too (before 0.6.14 a
        hidden call's were not said). Listed, a wrong count is named at its entry; left out,
        at the findings. A bundle naming 0.6.14 may count the hidden calls of no input or not:
        that version's first builds did not say them (a review), its later ones did."""
        held = {USAGE_INCOMPLETE: {self.incomplete}}
        release = _release(self.head.generator.version)
        if release >= (0, 6, 14):
            held |= {code: {self.left_out[code]} for code in LEFT_OUT_PLACED}
            held[INCOMPLETE_NO_INPUT] = {self.incomplete_no_input}
        if release == (0, 6, 14):
            for code, hidden in self.hidden_no_input.items():
                held[code].add(min(held[code]) - hidden)
        stated: Counter[str] = Counter()
        first: dict[str, int] = {}  # a code listed twice sums; its first entry is named
        for index, finding in enumerate(self.head.receipt.findings):
            stated[finding.code] += finding.count
            first.setdefault(finding.code, index)
        wrong = sorted(code for code, counts in held.items() if stated[code] not in counts)
        for code in wrong:
            if code in first:  # listed, at its count
                where = f"receipt/findings/{first[code]}/count"
                self._add("BUNDLE-COUNT-MISMATCH", "receipt/findings/*/count", where)
        if any(code not in first for code in wrong):  # left out, its events held: said once
            self._add("BUNDLE-COUNT-MISMATCH", "receipt/findings", "receipt/findings")


def _version(version: str) -> tuple[int, int]:
    major, minor = (int(part) for part in version.split(".")[:2])
    return major, minor


def _release(version: str) -> tuple[int, int, int]:
    major, minor, patch = (int(part) for part in [*version.split(".")[:3], "0", "0"][:3])
    return major, minor, patch


def _writes_v2(version: str) -> bool:
    """Whether agent-evidence `version` writes bundle schema v2: every release from 0.2 on
    (0.1 wrote v1; no released 0.2 build wrote v1)."""
    return _version(version) >= (0, 2)


def _bound_misplaced(event: ModelEventOut, hidden: bool, requests_bound: bool) -> bool:
    """A request's bound where the converter writes none (a review: a transcript call's
    usage-incomplete event given one, resealed, narrowed its high end and opened): only a
    hidden call's usage-incomplete event has one, never below the output it recorded, never
    written as null (the field is left out where there is none), and read from a request body
    the bundle binds (a review: a call moved under a made-up hidden agent, its edges dropped,
    given a bound of 1, opened)."""
    if "request_max_tokens" not in event.model_fields_set:
        return False
    bound = event.request_max_tokens
    return (
        bound is None
        or not hidden
        or event.usage_complete
        or bound < event.usage.output_tokens
        or not requests_bound
    )
