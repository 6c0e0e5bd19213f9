"""From bundle files to one evaluation workload (the adapter between stages 4 and 5): each
opened (its digest, its parts, with a key its signature), then checked to belong together.

Several bundles are one workload only when their policy, baseline, rubric, label source and
pseudonym key agree (SPEC §10), every price two of them used is the same, no task is in two of
them, and no transcript file and no call is in two of them (one session converted twice);
anything else is refused rather than averaged, naming the bundles by position.
"""

from __future__ import annotations

import hashlib
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from pydantic import BaseModel, ValidationError

from converter.bundle.io import bundle_problems, open_bundle
from converter.bundle.model import BundleHead, ModelEventOut, ToolEventOut
from converter.contract.model import BaselineClaim, OutcomeContract, PolicyClaim, Preset
from converter.contract.read import load_policy_file
from converter.errors import IntegrityFailure, Problem, Refused
from converter.evaluate import (
    HIDDEN_CALLS,
    ROOT_AGENT,
    Baseline,
    Claims,
    Digests,
    Interval,
    OwnBound,
    OwnPrice,
    Policy,
    TaskFacts,
    Workload,
    hidden_key,
    is_hidden,
    shape_key,
    unplaced_left_out,
)
from converter.files import attestation_path, read_bundle
from converter.firewall.names import masked_path, schema_field_names
from converter.firewall.view import Edge, final_no_input, no_input_recorded
from converter.limits import MONEY_SUMS
from converter.pricing import shipped_cards
from converter.pricing.card import own_beside, shipped_card_named
from converter.pricing.engine import bounded_by_contract
from converter.pricing.model import PricingClaims
from converter.regular import file_identity
from converter.text import counted
from converter.vocabulary import hidden_kind_of, search_count_unknown

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

ZERO = Decimal(0)
_RESERVED = {ROOT_AGENT, HIDDEN_CALLS}
_TRANSCRIPT_ROLES = ("parent", "subagent")


# A field path in a bundle, part by part: a model or tool name is one part, whatever it holds.
FieldPath = tuple[str, ...]


def _agreement(bundle: BundleHead) -> dict[FieldPath, object]:
    """What bundles of one workload must share, by the field path a refusal names."""
    receipt = bundle.receipt
    policy = bundle.policy.model_dump()
    # Disabled gates are a set: listed in another order, they are the same policy.
    policy["disabled_checks"] = sorted(set(policy["disabled_checks"]))
    return {
        **{("policy", name): value for name, value in policy.items()},
        **{("baseline", name): value for name, value in bundle.baseline.model_dump().items()},
        ("receipt", "rubric_version"): receipt.rubric_version,
        ("receipt", "label_source"): receipt.label_source,
        # Another key gives the same session other pseudonyms: nothing else would notice it
        # twice, and keyed task ids of different keys cannot be compared.
        ("receipt", "key_id"): receipt.key_id,
    }


def _prices(bundle: BundleHead) -> dict[FieldPath, object]:
    """Each price a v2 bundle states, by the field path a refusal names: per model its tiers and
    max_output_tokens, each context multiplier, each tool, and the unsplit rule. Names are the
    ones the events show (public model ids, pseudonyms, allowed tool names). v1: none."""
    pricing = bundle.pricing
    if pricing is None:
        return {}
    out: dict[FieldPath, object] = {
        ("pricing", "unsplit_cache_write_rule"): pricing.unsplit_cache_write_rule
    }
    for model, price in pricing.models.items():
        out["pricing", "models", model] = price.tiers
        out["pricing", "models", model, "max_output_tokens"] = price.max_output_tokens
        for key, multiplier in price.contexts.items():
            out["pricing", "models", model, "contexts", key] = multiplier
    for server, value in pricing.server_tools.items():
        out["pricing", "server_tools", server] = value
    for tool, value in pricing.client_tools.items():
        out["pricing", "client_tools", tool] = value
    return out


def used_prices(event: ModelEventOut | ToolEventOut) -> set[FieldPath]:
    """The parts of `_prices` an event was priced with: its model's tiers and context, the
    model's max_output_tokens only for a usage-incomplete call no request bounds, the unsplit
    rule only for unsplit cache writes, web search only for a call that searched, a tool's
    price for a tool call."""
    if isinstance(event, ToolEventOut):
        return {("pricing", "client_tools", event.name)}
    model = ("pricing", "models", event.model)
    used = {model, (*model, "contexts", event.context.key())}
    if bounded_by_contract(event):
        used.add((*model, "max_output_tokens"))
    if event.usage.cache_creation_unsplit_input_tokens:
        used.add(("pricing", "unsplit_cache_write_rule"))
    if event.usage.web_search_requests:
        used.add(("pricing", "server_tools", "web_search"))
    return used


def _mismatches(
    present: list[tuple[int, BundleHead]],
    total: int,
    used: Sequence[set[FieldPath]] | None,
    fixed: frozenset[FieldPath] = frozenset(),
) -> list[Problem]:
    """What bundles of one workload must agree on, each part against the value most bundles
    that have it hold (the first bundle's on a tie): the `_agreement` every bundle has, and one
    price list: a price two bundles both used must be the same in both. Each bundle's costs
    agree with its own prices; bundles priced apart would be summed into one decision. A price
    a bundle states but none of its events used (a bound no call reached, the rule for unsplit
    writes it has none of) is not compared. `used`: per bundle, in the order given; None
    compares every price. `fixed`: the parts a team's policy file fixes, compared with the file
    instead (`required_problems`): a bundle that matches the file is never the one blamed."""
    # per part, the values the bundles hold, each with the bundles that hold it (in order)
    held: dict[FieldPath, list[tuple[object, list[int]]]] = {}
    for position, bundle in present:
        prices = _prices(bundle)
        if used is not None:
            prices = {part: value for part, value in prices.items() if part in used[position - 1]}
        for part, value in {**_agreement(bundle), **prices}.items():
            if part in fixed:
                continue
            groups = held.setdefault(part, [])
            group = next((g for g in groups if g[0] == value), None)
            if group is None:
                groups.append((value, [position]))
            else:
                group[1].append(position)
    problems: list[tuple[int, int, Problem]] = []
    for order, (part, groups) in enumerate(held.items()):
        if len(groups) < 2:
            continue
        # The value most bundles hold is the one the others differ from (a walkthrough: one
        # odd bundle given first made every other one named); on a tie, the first bundle's.
        reference = max(groups, key=lambda g: (len(g[1]), -g[1][0]))[1]
        # A name a hand-edited bundle holds is shown only if it could cross (`<key>`)
        shown = masked_path(part, _agreed_fields())
        others = len(reference) - 1
        also = f" (and {counted(others, 'other bundle')})" if others else ""
        for _, positions in groups:
            if positions is reference:
                continue
            for position in positions:
                where = f"{bundle_label(position, total)}: {shown} differs from "
                where += f"{bundle_label(reference[0], total)}{also}"
                problems.append((position, order, Problem("EVAL-WORKLOAD-MISMATCH", where=where)))
    return [problem for _, _, problem in sorted(problems, key=lambda p: p[:2])]


def _given(section: BaseModel | None) -> dict[str, object]:
    """The fields a team's policy file fixes in one section: those it gives, not null."""
    if section is None:
        return {}
    return {
        name: getattr(section, name)
        for name in sorted(section.model_fields_set)
        if getattr(section, name) is not None
    }


def required_problems(
    bundles: Sequence[BundleHead | None], required: Preset
) -> tuple[list[Problem], frozenset[FieldPath]]:
    """Where bundles are not under the claims `evaluate --policy FILE` requires (a team's policy
    file, as `convert --template --policy` takes it), and the `_agreement` parts the file fixes.
    Each bundle is compared with the file (`None`: one that could not be opened), not with the
    first bundle: the one that differs is named, whatever its place. Each field the file gives
    is compared by value (`0.80` is `0.8`); a policy section given fixes its disabled gates too,
    as a set (none listed: none disabled). Named by field path only, never by value."""
    total = len(bundles)
    wanted = required_claims(required)
    fields = _agreed_fields() | {"outcome_contract"}
    problems = []
    for position, bundle in enumerate(bundles, 1):
        if bundle is None:
            continue
        have = _agreement(bundle)
        for (section, name), value in wanted.items():
            if have.get((_AGREED_AS.get(section, section), name), _ABSENT) != value:
                where = f"{masked_path((section, name), fields)} differs from --policy"
                if total > 1:
                    where = f"{bundle_label(position, total)}: {where}"
                problems.append(Problem("EVAL-POLICY-MISMATCH", where=where))
    fixed = frozenset((_AGREED_AS.get(section, section), name) for section, name in wanted)
    return problems, fixed


# A policy file's outcome_contract is what a bundle's receipt carries (`_agreement`).
_AGREED_AS = {"outcome_contract": "receipt"}
_ABSENT = object()  # a field an older bundle's section does not have: never the file's value


@cache
def _limit_fields() -> dict[str, tuple[str, ...]]:
    """Every field a team's policy file can fix, by section, in schema order."""
    sections: dict[str, type[BaseModel]] = {
        "policy": PolicyClaim,
        "baseline": BaselineClaim,
        "outcome_contract": OutcomeContract,
    }
    assert set(sections) == set(Preset.model_fields)  # a section added is listed here too
    return {name: tuple(model.model_fields) for name, model in sections.items()}


def required_claims(required: Preset) -> dict[tuple[str, str], object]:
    """The fields a team's policy file fixes, by section and name, with the value each must
    have as `_agreement` holds it (disabled gates a sorted set)."""
    wanted: dict[tuple[str, str], object] = {}
    if required.policy is not None:
        for name, value in _given(required.policy).items():
            wanted["policy", name] = value
        wanted["policy", "disabled_checks"] = sorted(set(required.policy.disabled_checks))
    for name, value in _given(required.baseline).items():
        wanted["baseline", name] = value
    for name, value in _given(required.outcome_contract).items():
        wanted["outcome_contract", name] = value
    return dict(sorted(wanted.items()))


def _card_ids(bundles: Sequence[BundleHead]) -> tuple[str, ...]:
    """Each bundle's price card: its id, or `none` (the producer's own prices)."""
    return tuple(b.receipt.price_card.id if b.receipt.price_card else "none" for b in bundles)


def _card_id(ids: tuple[str, ...]) -> str:
    """The price card the workload's prices came from, or `mixed`. Bundles need not name the
    same card: every price two of them used must agree (`_mismatches`), whatever card or none
    each names."""
    return ids[0] if len(set(ids)) == 1 else "mixed"


def _unshipped(ids: tuple[str, ...]) -> tuple[str, ...]:
    """The cards named (not "none") that this version does not ship: nothing checked them."""
    shipped = set(shipped_cards())
    return tuple(sorted({i for i in ids if i != "none" and i not in shipped}))


def _owns(
    bundles: Sequence[BundleHead], used: Sequence[set[FieldPath]]
) -> tuple[tuple[OwnPrice, ...], tuple[OwnBound, ...]]:
    """Every bundle's prices and max_output_tokens its card does not state, once each, in the
    order found; less those another bundle's card states at the same value (`own_beside`).
    A bound is listed only where one of its bundle's calls was priced with it (`used`, per
    bundle): an evaluation audit found a contract's unused 64,000 named as the bound of a
    model whose usage-incomplete calls, all in another bundle, were bounded by a card's
    128,000. The bundles agree on every price two of them use (`_mismatches`), so a bound is
    one per model."""
    named = {b.receipt.price_card for b in bundles}
    cards = [card for card in map(shipped_card_named, named) if card is not None]
    prices: dict[tuple[str, str | None], None] = {}
    bounds: dict[str, int] = {}
    for bundle, priced in zip(bundles, used, strict=True):
        if bundle.pricing is not None:  # a v1 bundle carries no prices
            own, bound = own_beside(bundle.pricing, bundle.receipt.price_card, cards)
            prices.update(dict.fromkeys(own))
            bounds.update(
                (model, n)
                for model, n in bound
                if ("pricing", "models", model, "max_output_tokens") in priced
            )
    return (
        tuple(OwnPrice(model=model, context=context) for model, context in prices),
        tuple(OwnBound(model=m, max_output_tokens=n) for m, n in sorted(bounds.items())),
    )


def bundle_label(position: int, total: int) -> str | None:
    """`bundle 2 of 3` (1-based, in the order given), or None for a lone bundle: a bundle is
    named by its position, never by its path."""
    return f"bundle {position} of {total}" if total > 1 else None


def labelled(problems: list[Problem], position: int, total: int) -> list[Problem]:
    """`problems` of one bundle, each location prefixed with the bundle's label."""
    label = bundle_label(position, total)
    if label is None:
        return list(problems)
    return [replace(p, where=f"{label}: {p.where}" if p.where else label) for p in problems]


def _transcripts(bundle: BundleHead) -> set[str]:
    """The SHA-256 of every non-empty transcript the bundle binds (every empty file has one)."""
    return {f.sha256 for f in bundle.receipt.files if f.role in _TRANSCRIPT_ROLES and f.size > 0}


def workload_problems(
    bundles: Sequence[BundleHead | None],
    used: Sequence[set[FieldPath]] | None = None,
    events: Sequence[Iterable[str]] | None = None,
    fixed: frozenset[FieldPath] = frozenset(),
) -> list[Problem]:
    """Why bundles given together are not one workload, naming them by position; `None` is a
    bundle that could not be opened (its own problems are reported apart). `used`: the prices
    each bundle's events were priced with (`used_prices`); without it every stated price is
    compared. `events`: each bundle's event ids, in the order given (an event id is the keyed
    pseudonym of one model or tool call, whatever the task unit). `fixed`: the parts a team's
    policy file fixes (`required_problems` compares them with the file)."""
    total = len(bundles)
    present = [(n, b) for n, b in enumerate(bundles, 1) if b is not None]
    problems = _mismatches(present, total, used, fixed)
    tasks: dict[str, int] = {}
    files: dict[str, int] = {}
    shared_tasks: set[tuple[int, int]] = set()
    shared_files: set[tuple[int, int]] = set()
    for position, bundle in present:
        for task in {t.id for t in bundle.tasks}:
            shared_tasks.add((tasks.setdefault(task, position), position))
        for digest in _transcripts(bundle):
            shared_files.add((files.setdefault(digest, position), position))
    if events is not None and len(present) > 1:
        # One call in two bundles: one session converted twice, after it grew (its file's
        # digest changed) or with another task unit (its task ids changed). Same key, same id.
        calls: dict[str, int] = {}
        for position, _ in present:
            for event in events[position - 1]:
                shared_files.add((calls.setdefault(event, position), position))
    # Two bundles binding the same transcript file share its tasks too: the overlap says why,
    # a second line for the same pair would only repeat it.
    shared_tasks -= shared_files
    for code, pairs in (
        ("EVAL-DUPLICATE-TASK", shared_tasks),
        ("EVAL-BUNDLE-OVERLAP", shared_files),
    ):
        for a, b in sorted(pair for pair in pairs if pair[0] != pair[1]):
            where = f"{bundle_label(a, total)} and {bundle_label(b, total)}"
            problems.append(Problem(code, where=where))
    return problems


def _agent_types(bundle: BundleHead) -> dict[str, str]:
    types = {}
    for agent in bundle.agents:
        name = agent.agent_type
        if agent.kind == "root":
            name = ROOT_AGENT
        elif kind := hidden_kind_of(agent.kind):  # calls only provider bodies show (§5.4)
            name = hidden_key(kind)
        elif name in _RESERVED or is_hidden(name):
            name = f"agent-{name}"
        types[agent.id] = name
    return types


class _Task:
    def __init__(self) -> None:
        self.low = ZERO
        self.high = ZERO
        self.by_type: dict[str, list[Decimal]] = defaultdict(lambda: [ZERO, ZERO])
        self.by_model: dict[str, list[Decimal]] = defaultdict(lambda: [ZERO, ZERO])
        self.model_calls = 0
        self.tool_calls = 0
        self.incomplete = 0
        self.unbounded_by_type: Counter[str] = Counter()
        self.unbounded_by_model: Counter[str] = Counter()
        # events whose spend is partly in no cost (`vocabulary.LEFT_OUT_PLACED`), and of those
        # the WebSearch calls' requesting model events (their model is known once all are read)
        self.left_out_by_type: Counter[str] = Counter()
        self.left_out_by_model: Counter[str] = Counter()
        self.searched_by: list[str] = []
        self.cache_read = 0
        self.input_total = 0
        self.shapes: list[tuple[str, str]] = []

    def add(self, event: ModelEventOut | ToolEventOut, agent_type: str) -> None:
        low, high = event.cost.low, event.cost.high
        add = MONEY_SUMS.add  # exact: the default context keeps 28 digits
        self.low, self.high = add(self.low, low), add(self.high, high)
        by_type = self.by_type[agent_type]
        by_type[0], by_type[1] = add(by_type[0], low), add(by_type[1], high)
        if isinstance(event, ToolEventOut):
            self.tool_calls += 1
            self.shapes.append((event.name, shape_key(event.shape)))
            if search_count_unknown(event.name, event.web_search_requests, event.status):
                self.left_out_by_type[agent_type] += 1  # the search is its model call's spend
                self.searched_by.append(event.requested_by)
            return
        u = event.usage
        self.model_calls += 1
        self.incomplete += not event.usage_complete
        read = u.read()
        if no_input_recorded(event.usage_complete, u):
            self.unbounded_by_type[agent_type] += 1
            self.unbounded_by_model[event.model] += 1
        elif final_no_input(event.usage_complete, u):
            self.left_out_by_type[agent_type] += 1
            self.left_out_by_model[event.model] += 1
        by_model = self.by_model[event.model]
        by_model[0], by_model[1] = add(by_model[0], low), add(by_model[1], high)
        self.cache_read += u.cache_read_input_tokens
        self.input_total += read


def _interval(pair: list[Decimal]) -> Interval:
    return Interval(low=pair[0], high=pair[1])


class FactsBuilder:
    """A `BundleSink`: one bundle's task facts, built as its events and edges stream past."""

    def __init__(self) -> None:
        self.head: BundleHead | None = None
        self.types: dict[str, str] = {}
        self.tasks: dict[str, _Task] = {}
        self.owner: dict[str, str] = {}  # event id -> task id, for the task's own edges
        self.edges: dict[str, list[tuple[str, str]]] = defaultdict(list)
        self.used: set[FieldPath] = set()  # the prices its events were priced with
        self.excluded_events: list[str] = []  # ids of the excluded tasks' events
        # each model event's model, by event id: the model whose call requested a WebSearch of
        # unknown count, whose cost lacks its searches (the ids are `owner`'s keys already)
        self.model_of: dict[str, str] = {}

    @property
    def event_ids(self) -> Iterator[str]:
        """Every event's id: those of counted tasks are `owner`'s keys already."""
        yield from self.owner
        yield from self.excluded_events

    def start(self, head: BundleHead) -> None:
        self.head = head
        self.types = _agent_types(head)
        excluded = {e.task for e in head.excluded_tasks}
        self.tasks = {t.id: _Task() for t in head.tasks if t.id not in excluded}

    @property
    def left_out_placed(self) -> int:
        """The events of counted tasks whose spend is partly in no cost: those the bundle's
        findings of them place (`kernel.unplaced_left_out`; an excluded task has no event)."""
        return sum(t.left_out_by_type.total() for t in self.tasks.values())

    def event(self, event: ModelEventOut | ToolEventOut) -> None:
        self.used |= used_prices(event)
        if isinstance(event, ModelEventOut):
            self.model_of[event.id] = sys.intern(event.model)  # one string a model name
        if event.task in self.tasks:
            self.tasks[event.task].add(event, self.types.get(event.agent, ROOT_AGENT))
            self.owner[event.id] = event.task
        else:
            self.excluded_events.append(event.id)

    def _left_out_by_model(self, acc: _Task) -> dict[str, int]:
        """A task's events whose spend is partly in no cost, by the model whose cost lacks it:
        a final call's own; a WebSearch's, the model of the call that requested it."""
        counts = Counter(acc.left_out_by_model)
        for requester in acc.searched_by:
            model = self.model_of.get(requester)
            if model in acc.by_model:  # (a call of another task or none: a resealed bundle's)
                counts[model] += 1
        return dict(sorted(counts.items()))

    def edge(self, edge: Edge) -> None:
        task = self.owner.get(edge.source)
        if task is not None and self.owner.get(edge.target) == task:
            self.edges[task].append((edge.source, edge.target))

    def facts(self) -> list[TaskFacts]:
        """Each counted task's facts; Refused naming every outcome that is not complete."""
        assert self.head is not None
        listed = {t.id: (n, t.started_at) for n, t in enumerate(self.head.tasks)}

        def at(task_id: str) -> str:  # a task named by its place in the bundle
            return f"tasks/{listed[task_id][0]}"

        facts = []
        problems: list[Problem] = []
        for task_id, acc in self.tasks.items():
            outcome = self.head.outcomes.get(task_id)
            if outcome is None:  # `open_bundle` refuses this first; never a KeyError (exit 70)
                problems.append(Problem("BUNDLE-OUTCOME-MISMATCH", where=f"{at(task_id)}/id"))
                continue
            try:
                claims = Claims.model_validate(outcome.model_dump())
            except ValidationError as error:
                problems += claim_problems(error, f"outcomes/{task_id}")
                continue
            position, started_at = listed.get(task_id, (0, None))
            try:
                task_facts = TaskFacts(
                    id=task_id,
                    spend=Interval(low=acc.low, high=acc.high),
                    model_calls=acc.model_calls,
                    tool_calls=acc.tool_calls,
                    usage_incomplete_calls=acc.incomplete,
                    unbounded_calls=acc.unbounded_by_model.total(),
                    claims=claims,
                    cost_by_agent_type={k: _interval(v) for k, v in sorted(acc.by_type.items())},
                    cost_by_model={k: _interval(v) for k, v in sorted(acc.by_model.items())},
                    unbounded_by_agent_type=dict(sorted(acc.unbounded_by_type.items())),
                    unbounded_by_model=dict(sorted(acc.unbounded_by_model.items())),
                    left_out_by_agent_type=dict(sorted(acc.left_out_by_type.items())),
                    left_out_by_model=self._left_out_by_model(acc),
                    cache_read_tokens=acc.cache_read,
                    input_tokens_total=acc.input_total,
                    tool_shapes=tuple(acc.shapes),
                    edges=tuple(self.edges[task_id]),
                    position=position,
                    started_at=started_at,
                )
            except ValidationError:  # its events hold what no conversion writes (resealed)
                problems.append(Problem("BUNDLE-SHAPE", where=at(task_id)))
                continue
            facts.append(task_facts)
        if problems:
            raise Refused(problems)
        return facts


@cache
def _claim_fields() -> frozenset[str]:
    """The field names a claim path may show: the evaluation models' own, and the bundle
    sections they come from (task pseudonyms pass as such; anything else is `<key>`)."""
    names = {"outcomes", "policy", "baseline", "receipt"}
    for model in (Claims, Policy, Baseline, Workload):
        names |= schema_field_names(model.model_json_schema())
    return frozenset(names)


@cache
def _agreed_fields() -> frozenset[str]:
    """The field names an EVAL-WORKLOAD-MISMATCH path may show: the claims' and the prices'."""
    prices = schema_field_names(PricingClaims.model_json_schema())
    return _claim_fields() | prices | {"pricing", "rubric_version", "label_source", "key_id"}


def claim_problems(error: ValidationError, prefix: str) -> list[Problem]:
    """Each claim a bundle holds that evaluation cannot use, by its field path (schema names,
    indices and task pseudonyms only: never a value). A disabled check this release does not
    have is named as such: it is not missing, it is another release's."""
    problems = []
    for item in error.errors():
        path = masked_path((*prefix.split("/"), *item["loc"]), _claim_fields())
        unknown_check = item["loc"][:1] == ("disabled_checks",) and item["type"] == "literal_error"
        code = "EVAL-UNKNOWN-CHECK" if unknown_check else "EVAL-BUNDLE-INCOMPLETE-CLAIMS"
        problems.append(Problem(code, where=path))
    return problems


LoadedBundle = tuple[BundleHead, FactsBuilder]


def build_workload(
    loaded: list[LoadedBundle],
    signed_by: str | None = None,
    required: Preset | None = None,
    required_by: str | None = None,
) -> Workload:
    """One workload from bundles opened with a `FactsBuilder` each (`bundle.io.open_bundle`);
    `signed_by`: the key id every bundle's attestation verified with, if they were checked;
    `required`: the claims a team's policy file requires (`evaluate --policy`), `required_by`
    that file's SHA-256."""
    if not loaded:
        raise Refused([Problem("EVAL-NO-BUNDLE")])
    bundles = [head for head, _ in loaded]
    problems = _not_one_workload(list(loaded), required)
    # Every problem of the run at once: a bundle under other limits may lack claims too.
    tasks, unusable = _tasks(loaded)
    policy, baseline, claimed = _claims(bundles[0])  # every bundle's are the first's
    problems += unusable + claimed
    if problems or policy is None or baseline is None:
        raise Refused(problems)
    findings: dict[str, int] = defaultdict(int)
    each: list[tuple[int, str, int]] = []
    for place, bundle in enumerate(bundles, 1):
        for finding in bundle.receipt.findings:
            findings[finding.code] += finding.count
            each.append((place, finding.code, finding.count))
    missing, missing_by_bundle = _split_parts_missing(bundles)
    unplaced = tuple(
        unplaced_left_out(_finding_counts(head), builder.left_out_placed, split)
        for (head, builder), split in zip(loaded, missing_by_bundle, strict=True)
    )
    try:
        return Workload(
            tasks=tuple(tasks),
            excluded_tasks=sum(len(b.excluded_tasks) for b in bundles),
            policy=policy,
            baseline=baseline,
            auxiliary_calls=(
                "observed"
                if all(b.receipt.auxiliary_calls == "observed" for b in bundles)
                else "not-observed"
            ),
            auxiliary_by_bundle=tuple(b.receipt.auxiliary_calls for b in bundles),
            findings=dict(sorted(findings.items())),
            bundle_findings=tuple(each),
            costs_unchecked=sum(b.pricing is None for b in bundles),
            split_parts_missing=missing,
            unplaced_left_out=unplaced,
            digests=_digests(
                bundles, [builder.used for _, builder in loaded], signed_by, required, required_by
            ),
        )
    except ValidationError as error:
        raise Refused(claim_problems(error, "receipt")) from None


def _finding_counts(head: BundleHead) -> Counter[str]:
    """A bundle's finding counts by code, a code listed twice summed (a review: a resealed
    bundle listing one twice kept the last count only, where the workload's total summed)."""
    counts: Counter[str] = Counter()
    for finding in head.receipt.findings:
        counts[finding.code] += finding.count
    return counts


def _tasks(loaded: list[LoadedBundle]) -> tuple[list[TaskFacts], list[Problem]]:
    """Every bundle's task facts, each naming its bundle by position; or their problems."""
    problems: list[Problem] = []
    tasks: list[TaskFacts] = []
    for position, (_, builder) in enumerate(loaded, 1):
        try:
            tasks += [t.model_copy(update={"bundle": position}) for t in builder.facts()]
        except Refused as refused:
            problems += labelled(refused.problems, position, len(loaded))
    return tasks, problems


def _claims(head: BundleHead) -> tuple[Policy | None, Baseline | None, list[Problem]]:
    """The bundle's policy and baseline as evaluation needs them complete, or their problems."""
    problems: list[Problem] = []
    policy = baseline = None
    try:
        policy = Policy.model_validate(head.policy.model_dump())
    except ValidationError as error:
        problems += claim_problems(error, "policy")
    try:
        baseline = Baseline.model_validate(head.baseline.model_dump())
    except ValidationError as error:
        problems += claim_problems(error, "baseline")
    return policy, baseline, problems


def _split_parts_missing(bundles: Sequence[BundleHead]) -> tuple[int, tuple[int, ...]]:
    """The transcripts of split sessions whose bundles are not in the workload, in all and
    each bundle's session's: each bundle's CC-TREE-SPLIT-SESSION counts the session's other
    main transcripts, and a bundle of one of them has the same parent label (the keyed name of
    `<session-id>.jsonl`, the project folder's name not in it) and says the split too: each
    part's conversion sees the others (a review: a bundle of that label stating no split, made
    up beside a part, counted as the missing one). Copies of one part are refused before
    (EVAL-BUNDLE-OVERLAP)."""

    def parent(bundle: BundleHead) -> str | None:
        return next((f.label for f in bundle.receipt.files if f.role == "parent"), None)

    # each bundle's count of its session's other main transcripts (0: it says no split)
    others = [
        sum(f.count for f in b.receipt.findings if f.code == "CC-TREE-SPLIT-SESSION")
        for b in bundles
    ]
    present = Counter(parent(b) for b, n in zip(bundles, others, strict=True) if n)
    parts: dict[str | None, int] = {}  # each session's parts, as its bundles count them
    for bundle, n in zip(bundles, others, strict=True):
        if n:
            label = parent(bundle)
            parts[label] = max(parts.get(label, 0), n + 1)
    missing = {label: max(0, n - present[label]) for label, n in parts.items()}
    # once per session, not per bundle of it (a review: two bundles of a three-way split said
    # two parts missing where one was)
    return sum(missing.values()), tuple(missing.get(parent(b), 0) for b in bundles)


def _digests(
    bundles: Sequence[BundleHead],
    used: Sequence[set[FieldPath]],
    signed_by: str | None,
    required: Preset | None = None,
    required_by: str | None = None,
) -> Digests:
    receipt = bundles[0].receipt
    cards = _card_ids(bundles)
    own_prices, own_bounds = _owns(bundles, used)
    fixed: list[str] = []
    left: list[str] = []
    if required is not None:
        wanted = required_claims(required)
        for section, names in _limit_fields().items():
            for name in names:
                (fixed if (section, name) in wanted else left).append(f"{section}/{name}")
    return Digests(
        evidence_sha256=tuple(b.receipt.evidence_sha256 or "" for b in bundles),
        contract_sha256=tuple(b.receipt.contract_sha256 for b in bundles),
        price_card_id=_card_id(cards),
        price_card_ids=cards,
        own_prices=own_prices,
        own_max_output_tokens=own_bounds,
        unshipped_price_cards=_unshipped(cards),
        signed_by=signed_by,
        limits_required_by=required_by,
        limits_fixed=tuple(fixed),
        limits_left=tuple(left),
        rubric_version=receipt.rubric_version,
        label_source=receipt.label_source,
    )


def load_workload(
    paths: tuple[Path, ...], public_key: Path | None, policy_file: Path | None = None
) -> Workload:
    """The bundles at `paths` as one workload; with `public_key`, every bundle is refused unless
    its attestation (`<bundle>.intoto.json`) verifies with that key; with `policy_file`, unless
    they are under the claims that team's policy file fixes. A key or policy file that cannot be
    used, or a bundle given twice (`_repeated`), is refused with every bundle's own refusals,
    and a bundle that fails its digest makes the run a mismatch (5) whatever else is wrong."""
    key: Ed25519PublicKey | None = None
    signed_by: str | None = None
    required: Preset | None = None
    required_by: str | None = None
    unusable: list[Problem] = _repeated(paths)
    if public_key is not None:
        from converter.attest.keys import load_public_key

        try:
            key = load_public_key(public_key)
        except Refused as bad_key:
            unusable += bad_key.problems
    if policy_file is not None:
        try:
            required, data = load_policy_file(policy_file)
            required_by = hashlib.sha256(data).hexdigest()
        except Refused as bad_file:
            unusable += bad_file.problems
    if unusable:
        _unless_tampered(paths, Refused(unusable), key)
    if key is not None:
        from converter.attest.dsse import key_id

        signed_by = key_id(key)
    return build_workload(load_bundles(paths, key, required), signed_by, required, required_by)


def _repeated(paths: tuple[Path, ...]) -> list[Problem]:
    """Each bundle given again, by its name or another (a link, `./b.json`): one file, whose
    calls would be counted twice. Said as such (a new-user audit: it was EVAL-BUNDLE-OVERLAP,
    whose text is of one session converted twice), before any bundle is opened."""
    first: dict[tuple[int, int], int] = {}
    problems = []
    for position, path in enumerate(paths, 1):
        identity = file_identity(path)
        if identity is None:  # no file: its own refusal says so
            continue
        earlier = first.setdefault(identity, position)
        if earlier != position:
            where = f"{bundle_label(position, len(paths))} is {bundle_label(earlier, len(paths))}"
            problems.append(Problem("EVAL-BUNDLE-REPEATED", where=where))
    return problems


def load_bundle(path: Path, public_key: Ed25519PublicKey | None) -> LoadedBundle:
    """Open a bundle (digest checked, exit 5 on mismatch) into its task facts; with a key,
    require its attestation."""
    facts = FactsBuilder()
    if public_key is None:
        return open_bundle(read_bundle(path), sink=facts), facts
    # Only with a key: the signature's imports (cryptography: ~12 MB) stay out of the others.
    from converter.attest.signed import open_attested, read_attestation, read_signed_bundle

    envelope = attestation_path(path)
    data = read_signed_bundle(path, lambda: read_attestation(envelope), lambda: public_key)
    bundle, _, _ = open_attested(
        data,
        lambda: read_attestation(envelope),
        lambda: public_key,
        sink=facts,
    )
    return bundle, facts


def load_bundles(
    paths: tuple[Path, ...],
    public_key: Ed25519PublicKey | None,
    required: Preset | None = None,
) -> list[LoadedBundle]:
    """Every bundle opened (`build_workload` then says why they are not one workload, with
    what else they lack); or every problem of every bundle, each labelled `bundle N of M`
    (with several), and why they are not one workload. Exit 5 if any bundle failed an
    integrity check (its other problems and the other bundles' refusals are printed with it),
    else 2: a mismatch anywhere is never reported as a mere refusal, whatever the order of the
    bundles (a broken file given first cannot hide a tampered one). With `required` (a team's
    policy file), each bundle is compared with it too."""
    total = len(paths)
    loaded: list[LoadedBundle | None] = []
    compared: list[LoadedBundle | None] = []  # what the workload rules see: `_unsigned`
    mismatches: list[Problem] = []
    refusals: list[Problem] = []
    for position, path in enumerate(paths, 1):
        try:
            loaded.append(load_bundle(path, public_key))
            compared.append(loaded[-1])
            continue
        except IntegrityFailure as failure:
            mismatches += labelled(failure.problems, position, total)
            refusals += labelled(failure.refusals, position, total)
            compared.append(None)
        except Refused as refused:
            refusals += labelled(refused.problems, position, total)
            compared.append(_unsigned(path) if public_key is not None else None)
        loaded.append(None)
    if not mismatches and not refusals:
        # Every bundle opened: build_workload compares them, and says what differs together
        # with the claims a bundle lacks (was: those only once the mismatches were mended).
        return [item for item in loaded if item is not None]
    refusals += _not_one_workload(compared, required)
    if mismatches:
        raise IntegrityFailure.several(mismatches, refusals)
    raise Refused(refusals)


def _not_one_workload(
    bundles: Sequence[LoadedBundle | None], required: Preset | None
) -> list[Problem]:
    """Why the bundles (`None`: one that could not be opened) are not one workload: each
    against a team's policy file, when one is `required`, then against each other on what the
    file does not fix (`workload_problems`)."""
    heads = [item[0] if item else None for item in bundles]
    problems: list[Problem] = []
    fixed: frozenset[FieldPath] = frozenset()
    if required is not None:
        problems, fixed = required_problems(heads, required)
    return problems + workload_problems(
        heads,
        [item[1].used if item else set() for item in bundles],
        [item[1].event_ids if item else () for item in bundles],
        fixed,
    )


def _unsigned(path: Path) -> LoadedBundle | None:
    """A bundle whose attestation could not be checked (missing, unreadable), opened without it
    only so the workload rules can say what else is wrong with the set (a run reports every
    problem); None if it does not open on its own either (its problems are said already)."""
    try:
        return load_bundle(path, None)
    except (Refused, IntegrityFailure):
        return None


def _own_problems(path: Path, key: Ed25519PublicKey | None) -> tuple[list[Problem], list[Problem]]:
    """A bundle's own mismatches and refusals, all of them: with a `key`, its attestation's
    first (`load_bundle`), else its digest and parts (`bundle_problems`)."""
    try:
        if key is not None:
            load_bundle(path, key)
            return [], []
        data = read_bundle(path)
    except IntegrityFailure as failure:
        return list(failure.problems), list(failure.refusals)
    except Refused as refused:
        return [], list(refused.problems)
    _, found, refusals = bundle_problems(data)
    return found, refusals


def _unless_tampered(
    paths: tuple[Path, ...], unusable: Refused, key: Ed25519PublicKey | None = None
) -> NoReturn:
    """The key or policy file cannot be used, or a bundle was given twice: refused (2), unless a
    bundle fails its own digest, or, with a `key` that could be read, its attestation: a
    mismatch (5) whatever else stopped the check (their refusal said with it; a hostile audit:
    a bundle whose attestation signed other bytes, given twice, was 2). Each bundle's own
    refusals are said too."""
    mismatches: list[Problem] = []
    unread: list[Problem] = []
    for position, path in enumerate(paths, 1):
        found, refusals = _own_problems(path, key)
        mismatches += labelled(found, position, len(paths))
        unread += labelled(refusals, position, len(paths))
    if mismatches:
        raise IntegrityFailure.several(mismatches, [*unusable.problems, *unread]) from None
    raise Refused([*unusable.problems, *unread]) from None
