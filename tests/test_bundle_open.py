"""Opening a bundle item by item accepts and refuses exactly what whole-document validation does."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from converter.bundle.io import evidence_digest, open_bundle
from converter.bundle.model import BUNDLE_SCHEMA, Bundle, BundleHead, ModelEventOut, ToolEventOut
from converter.codec.canonical import reference_bytes
from converter.errors import IntegrityFailure, Refused
from converter.firewall.view import Edge
from tests.conftest import ROOT

GOLDEN = Path(__file__).parent.parent / "fixtures" / "synthetic_bundle.golden.json"


class _Collect:
    """A sink that keeps everything: the whole bundle back as one model."""

    def __init__(self) -> None:
        self.events: list[ModelEventOut | ToolEventOut] = []
        self.edges: list[Edge] = []

    def start(self, head: BundleHead) -> None:
        pass

    def event(self, event: ModelEventOut | ToolEventOut) -> None:
        self.events.append(event)

    def edge(self, edge: Edge) -> None:
        self.edges.append(edge)


def open_whole_bundle(data: bytes, *, reference: bool = False) -> Bundle:
    parts = _Collect()
    head = open_bundle(data, sink=parts, reference=reference)
    return Bundle(**dict(head), events=tuple(parts.events), edges=tuple(parts.edges))


def _resealed(edit: Any) -> bytes:
    body = json.loads(GOLDEN.read_bytes())
    edit(body)
    body["receipt"].pop("evidence_sha256", None)
    body["receipt"]["evidence_sha256"] = evidence_digest(body)
    return reference_bytes(body)  # canonicaljson: it also writes an integer past 64 bits


def test_streamed_equals_whole_document_validation() -> None:
    data = GOLDEN.read_bytes()
    assert open_whole_bundle(data) == Bundle.model_validate_json(data)


def _set_first_event_field(body: dict[str, Any]) -> None:
    body["events"][0]["usage"]["input_tokens"] = -1


def _drop_edges(body: dict[str, Any]) -> None:
    del body["edges"]


def _extra_top_level(body: dict[str, Any]) -> None:
    body["note"] = "x"


def _edges_not_a_list(body: dict[str, Any]) -> None:
    body["edges"] = {}


def _bad_event_kind(body: dict[str, Any]) -> None:
    body["events"][-1]["kind"] = "other"


def _bad_edge(body: dict[str, Any]) -> None:
    body["edges"][0]["kind"] = "unknown"


@pytest.mark.parametrize(
    ("edit", "where"),
    [
        (_set_first_event_field, "events/0/usage/input_tokens"),
        (_drop_edges, "edges"),
        (_extra_top_level, "<key>"),
        (_edges_not_a_list, "edges"),
        (_bad_event_kind, "events/5/kind"),
        (_bad_edge, "edges/0/kind"),
    ],
)
def test_refuses_what_whole_validation_refuses(edit: Any, where: str) -> None:
    """Each refusal names the field (was: BUNDLE-SHAPE with no location at all)."""
    data = _resealed(edit)
    with pytest.raises(ValidationError):
        Bundle.model_validate_json(data)
    with pytest.raises(Refused) as refused:  # the digest matches: written by something else
        open_bundle(data)
    assert [(p.code, p.where) for p in refused.value.problems] == [("BUNDLE-SHAPE", where)]


def test_resealed_but_unchanged_opens() -> None:
    assert open_bundle(_resealed(lambda body: None)).receipt.evidence_sha256


def test_a_byte_order_mark_is_no_part_of_the_bundle() -> None:
    """A fuzz hunt: an editor that re-saves a bundle with a UTF-8 BOM left it refused as no
    bundle at all ("download it again"); its values, which the digest covers, are unchanged."""
    data = GOLDEN.read_bytes()
    assert open_bundle(b"\xef\xbb\xbf" + data) == open_bundle(data)


# --- resealed bundles whose parts disagree (referential integrity) -------------------------
# The golden bundle: one task, two agents (root, a general-purpose child delegated by the
# first tool event), four model events (0-3), two tool events (4, 5), six edges.


def _codes_at(edit: Any) -> list[tuple[str, str | None]]:
    with pytest.raises(Refused) as refused:
        open_bundle(_resealed(edit))
    return [(p.code, p.where) for p in refused.value.problems]


def _set(path: str, value: Any) -> Any:
    def edit(body: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        node: Any = body
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        node[int(last) if isinstance(node, list) else last] = value

    return edit


UNKNOWN_TASK = "task-" + "0" * 12


def _tool_moved_to_a_second_task(body: dict[str, Any]) -> None:
    """A second task (no calls of its own), and the first tool call moved into it: every count
    still agrees (a hostile-bundle audit: ASSIST became SCALE under max_calls_per_task)."""
    [task] = body["tasks"]
    other = "task-" + "b" * 12
    body["tasks"].append({**task, "id": other, "model_calls": 0})
    body["outcomes"][other] = body["outcomes"][task["id"]]
    body["receipt"]["counts"]["tasks"] += 1
    body["events"][4]["task"] = other


def _tool_repointed_to_a_second_task(body: dict[str, Any]) -> None:
    """A model call moved to a second task (consistent: its tool call's results may feed a call
    of another task), then the first tool call moved there too with its requested_by re-pointed
    at that call: only the `requests` edge still says which call asked for it (a review)."""
    [task] = body["tasks"]
    other = "task-" + "b" * 12
    task["model_calls"] = 3
    body["tasks"].append({**task, "id": other, "model_calls": 1})
    body["outcomes"][other] = body["outcomes"][task["id"]]
    body["receipt"]["counts"]["tasks"] += 1
    body["events"][1]["task"] = other
    body["events"][4]["task"] = other
    body["events"][4]["requested_by"] = body["events"][1]["id"]


def _second_requests_edge(body: dict[str, Any]) -> None:
    body["edges"].append(dict(body["edges"][0]))
    body["receipt"]["counts"]["edges"] += 1


UNKNOWN_EVENT = "event-" + "0" * 12
UNKNOWN_AGENT = "agent-" + "0" * 12


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            _set("outcomes", {}),
            [("BUNDLE-OUTCOME-MISMATCH", "tasks/0/id")],
        ),
        (
            _set("events/0/task", None),
            [
                ("BUNDLE-DANGLING-REFERENCE", "events/0/task"),
                ("BUNDLE-COUNT-MISMATCH", "tasks/0/model_calls"),
            ],
        ),
        (
            _set("events/5/task", UNKNOWN_TASK),  # a tool event: no task count changes
            [("BUNDLE-DANGLING-REFERENCE", "events/5/task")],
        ),
        (
            _set("events/2/agent", UNKNOWN_AGENT),
            [("BUNDLE-DANGLING-REFERENCE", "events/2/agent")],
        ),
        (
            _set("events/4/requested_by", UNKNOWN_EVENT),
            [("BUNDLE-DANGLING-REFERENCE", "events/4/requested_by")],
        ),
        (
            _set("events/4/requested_by", "event-0d39b4ca519a"),  # a tool event, not a model call
            [("BUNDLE-DANGLING-REFERENCE", "events/4/requested_by")],
        ),
        (  # a tool call under another agent than its requesting call's (a hostile-bundle audit)
            _set("events/4/agent", "agent-aecec9bdba37"),
            [("BUNDLE-DANGLING-REFERENCE", "events/4/agent")],
        ),
        (  # in another task than its requesting call's: under a calls-per-task limit it was not
            _tool_moved_to_a_second_task,
            [("BUNDLE-DANGLING-REFERENCE", "events/4/task")],
        ),
        (  # ... with its requested_by re-pointed at a call there: its edge still disagrees
            _tool_repointed_to_a_second_task,
            [("BUNDLE-DANGLING-REFERENCE", "edges/0/source")],
        ),
        (  # under another agent, requested_by re-pointed at the root's first call
            lambda body: body["events"][5].update(
                agent=body["events"][0]["agent"], requested_by=body["events"][0]["id"]
            ),
            [("BUNDLE-DANGLING-REFERENCE", "edges/2/source")],
        ),
        (  # a tool call no `requests` edge names: that edge made a `consumes` the wrong way
            _set("edges/0/kind", "consumes"),
            [
                ("BUNDLE-DANGLING-REFERENCE", "edges/0/target"),
                ("BUNDLE-DANGLING-REFERENCE", "edges/0/source"),
                ("BUNDLE-DANGLING-REFERENCE", "events/4/requested_by"),
            ],
        ),
        (
            _second_requests_edge,
            [("BUNDLE-DANGLING-REFERENCE", "edges/6/source")],
        ),
        (  # a `requests` edge to a model call: and the tool call it named has none
            _set("edges/0/target", "event-da496781de18"),
            [
                ("BUNDLE-DANGLING-REFERENCE", "edges/0/target"),
                ("BUNDLE-DANGLING-REFERENCE", "events/4/requested_by"),
            ],
        ),
        (  # a `consumes` edge from a model call (a review: edges' ends were never checked)
            _set("edges/1/source", "event-7271fe6a2419"),
            [("BUNDLE-DANGLING-REFERENCE", "edges/1/source")],
        ),
        (  # a delegation starting a tool call
            _set("edges/4/target", "event-0d39b4ca519a"),
            [("BUNDLE-DANGLING-REFERENCE", "edges/4/target")],
        ),
        (  # a child's work returned to a tool call
            _set("edges/5/target", "event-cbeb31569358"),
            [("BUNDLE-DANGLING-REFERENCE", "edges/5/target")],
        ),
        (  # an agent's delegation one of its own tool calls, not its parent's (a review)
            _set("agents/1/delegation", "event-0d39b4ca519a"),
            [("BUNDLE-DANGLING-REFERENCE", "agents/1/delegation")],
        ),
        (  # more searches on a tool call than its requesting call was billed for: a search
            # of unknown count made known so, its finding dropped, decided SCALE (a review)
            _set("events/4/web_search_requests", 1),
            [("BUNDLE-COUNT-MISMATCH", "events/4/web_search_requests")],
        ),
        (  # the same task excluded twice: evaluate said two were
            lambda body: body.update(
                excluded_tasks=[{"task": body["tasks"][0]["id"], "reason": "aborted"}] * 2,
                outcomes={},
                events=[],
                edges=[],
                agents=body["agents"][:1],
                tasks=[{**body["tasks"][0], "model_calls": 0, "subagents": 0}],
                receipt={
                    **body["receipt"],
                    "counts": {
                        **body["receipt"]["counts"],
                        "model_calls": 0,
                        "tool_calls": 0,
                        "edges": 0,
                        "subagents": 0,
                        "max_depth": 0,
                    },
                },
            ),
            [("BUNDLE-DUPLICATE-ID", "excluded_tasks/1/task")],
        ),
        (  # a subagent labelled the root: its cost was printed in the main column (a review)
            _set("agents/1/kind", "root"),
            [("BUNDLE-SHAPE", "agents/1/kind")],
        ),
        (  # and the root labelled a subagent
            _set("agents/0/kind", "agent"),
            [("BUNDLE-SHAPE", "agents/0/kind")],
        ),
        (
            _set("edges/3/target", UNKNOWN_EVENT),
            [("BUNDLE-DANGLING-REFERENCE", "edges/3/target")],
        ),
        (
            _set("agents/1/parent", UNKNOWN_AGENT),
            [("BUNDLE-DANGLING-REFERENCE", "agents/1/parent")],
        ),
        (  # resealed, an agent its own parent opened (a fuzz review)
            lambda body: body["agents"][1].__setitem__("parent", body["agents"][1]["id"]),
            [("BUNDLE-DANGLING-REFERENCE", "agents/1/parent")],
        ),
        (
            _set("agents/1/delegation", UNKNOWN_EVENT),
            [("BUNDLE-DANGLING-REFERENCE", "agents/1/delegation")],
        ),
        (
            _set("excluded_tasks", [{"task": UNKNOWN_TASK, "reason": "duplicate"}]),
            [("BUNDLE-DANGLING-REFERENCE", "excluded_tasks/0/task")],
        ),
        (
            _set("events/1/id", "event-7271fe6a2419"),  # event 0's id; edges named event 1
            [
                ("BUNDLE-DUPLICATE-ID", "events/1/id"),
                ("BUNDLE-DANGLING-REFERENCE", "edges/1/target"),
                ("BUNDLE-DANGLING-REFERENCE", "edges/5/target"),
            ],
        ),
        (
            _set("receipt/counts/tool_calls", 7),
            [("BUNDLE-COUNT-MISMATCH", "receipt/counts/tool_calls")],
        ),
        (
            _set("tasks/0/model_calls", 3),
            [("BUNDLE-COUNT-MISMATCH", "tasks/0/model_calls")],
        ),
    ],
    ids=[
        "outcomes-deleted",
        "event-task-null",
        "event-task-unknown",
        "event-agent-unknown",
        "requested-by-unknown",
        "requested-by-a-tool",
        "tool-under-another-agent",
        "tool-in-another-task",
        "tool-repointed-in-another-task",
        "tool-repointed-under-another-agent",
        "tool-without-requests-edge",
        "second-requests-edge",
        "requests-edge-to-a-model-call",
        "consumes-from-a-model-call",
        "delegates-to-a-tool-call",
        "returns-to-a-tool-call",
        "delegation-of-its-own-tool-call",
        "searches-above-the-billed",
        "exclusion-twice",
        "subagent-kind-root",
        "root-kind-agent",
        "edge-to-nothing",
        "agent-parent-unknown",
        "agent-its-own-parent",
        "delegation-unknown",
        "exclusion-unknown",
        "duplicate-event-id",
        "receipt-count",
        "task-count",
    ],
)
def test_a_resealed_bundle_whose_parts_disagree_is_refused(
    edit: Any, expected: list[tuple[str, str]]
) -> None:
    assert _codes_at(edit) == expected


def test_an_outcome_for_an_unknown_or_excluded_task_is_refused() -> None:
    def edit(body: dict[str, Any]) -> None:
        [task] = body["tasks"]
        body["outcomes"][UNKNOWN_TASK] = body["outcomes"][task["id"]]
        body["excluded_tasks"] = [{"task": task["id"], "reason": "aborted"}]

    assert _codes_at(edit) == [
        ("BUNDLE-OUTCOME-MISMATCH", f"outcomes/{UNKNOWN_TASK}"),
        ("BUNDLE-OUTCOME-MISMATCH", "outcomes/task-ebcf1cfa0a44"),
        ("BUNDLE-OUTCOME-MISMATCH", "excluded_tasks/0/task"),
    ]


def test_an_excluded_task_with_events_is_refused() -> None:
    """Was: a task moved from outcomes to excluded_tasks and resealed left the evaluation with
    its spend, and the decision could still be SCALE."""

    def edit(body: dict[str, Any]) -> None:
        [task] = body["tasks"]
        del body["outcomes"][task["id"]]
        body["excluded_tasks"] = [{"task": task["id"], "reason": "aborted"}]

    assert _codes_at(edit) == [("BUNDLE-OUTCOME-MISMATCH", "excluded_tasks/0/task")]


def test_every_disagreement_is_reported_not_only_the_first() -> None:
    """A deleted event and deleted outcomes: the task without an outcome, the edge and the tool
    call that named the event, and both counts of model calls."""

    def edit(body: dict[str, Any]) -> None:
        del body["events"][0]
        body["outcomes"] = {}

    assert _codes_at(edit) == [
        ("BUNDLE-OUTCOME-MISMATCH", "tasks/0/id"),
        ("BUNDLE-DANGLING-REFERENCE", "edges/0/source"),
        ("BUNDLE-DANGLING-REFERENCE", "events/3/requested_by"),  # event 4 before the deletion
        ("BUNDLE-COUNT-MISMATCH", "tasks/0/model_calls"),
        ("BUNDLE-COUNT-MISMATCH", "receipt/counts/model_calls"),
    ]


def test_one_rule_broken_on_every_event_lists_a_few_and_counts_the_rest() -> None:
    def edit(body: dict[str, Any]) -> None:
        for event in body["events"]:
            event["agent"] = UNKNOWN_AGENT

    codes = _codes_at(edit)
    shown = [f"events/{i}/agent" for i in range(5)]
    assert codes == [("BUNDLE-DANGLING-REFERENCE", w) for w in shown] + [
        ("BUNDLE-DANGLING-REFERENCE", "events/*/agent: 1 more")
    ]


def test_locations_name_fields_never_values() -> None:
    """Every location is a path of field names, positions and task pseudonyms."""

    def edit(body: dict[str, Any]) -> None:
        for event in body["events"]:
            event["task"] = None
        body["receipt"]["counts"]["edges"] = 0

    for _, where in _codes_at(edit):
        assert where is not None
        assert "event-" not in where
        assert "agent-" not in where


def test_task_facts_refuse_a_missing_outcome_even_without_the_open_check() -> None:
    """`FactsBuilder` is a public sink: fed a head by hand, it refuses, never a KeyError."""
    from converter.run.workload import FactsBuilder

    head = open_bundle(GOLDEN.read_bytes())
    facts = FactsBuilder()
    facts.start(head.model_copy(update={"outcomes": {}}))
    with pytest.raises(Refused) as refused:
        facts.facts()
    assert [(p.code, p.where) for p in refused.value.problems] == [
        ("BUNDLE-OUTCOME-MISMATCH", "tasks/0/id")
    ]


def _rewritten_as_v1(body: dict[str, Any], version: str) -> None:
    """The bundle as schema v1 (no `pricing`), written by `version`."""
    body["schema_version"] = "agent-evidence/bundle/v1"
    body["generator"]["version"] = version
    del body["pricing"]


def test_schema_v1_without_pricing_opens_and_v2_must_carry_it() -> None:
    """0.2 writes v2 (with `pricing`); a 0.1 bundle (v1, none) still opens."""

    def as_v1(body: dict[str, Any]) -> None:
        _rewritten_as_v1(body, "0.1.0")

    assert open_bundle(_resealed(as_v1)).pricing is None
    with pytest.raises(Refused) as refused:
        open_bundle(_resealed(lambda body: body.pop("pricing")))
    assert [p.code for p in refused.value.problems] == ["BUNDLE-SHAPE"]


def test_a_v1_bundle_carrying_pricing_is_refused_whichever_version_it_names() -> None:
    """The builds from the commit that added `pricing` up to schema v2 (11d511e) wrote v1
    bundles with `pricing`, naming 0.1.0 and, from the 0.2.0 version commit on, 0.2.0
    (docs/upgrading.md, "From 0.1"): a shape v1 never has, refused whichever it names."""
    for version in ("0.1.0", "0.2.0"):

        def early(body: dict[str, Any], version: str = version) -> None:
            body["schema_version"] = "agent-evidence/bundle/v1"
            body["generator"]["version"] = version

        with pytest.raises(Refused) as refused:
            open_bundle(_resealed(early))
        assert [p.code for p in refused.value.problems] == ["BUNDLE-SHAPE"]


def _zero_costs(body: dict[str, Any]) -> None:
    for event in body["events"]:
        event["cost"] = {"low": "0", "high": "0"}


def _halve_output_price(body: dict[str, Any]) -> None:
    body["pricing"]["models"]["claude-opus-4-8"]["tiers"][0]["output"] = "12.5"


def _price_a_tool(body: dict[str, Any]) -> None:
    body["pricing"]["client_tools"]["Read"] = "0.01"


def _drop_the_model_price(body: dict[str, Any]) -> None:
    body["pricing"]["models"] = {}


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        # Was: opened, and a workload of zero cost decided SCALE.
        (_zero_costs, [("BUNDLE-COST-MISMATCH", f"events/{i}/cost") for i in range(4)]),
        (_halve_output_price, [("BUNDLE-COST-MISMATCH", f"events/{i}/cost") for i in range(4)]),
        (_price_a_tool, [("BUNDLE-COST-MISMATCH", "events/5/cost")]),
        (_drop_the_model_price, [("BUNDLE-COST-MISMATCH", f"events/{i}/cost") for i in range(4)]),
        (
            _set("events/0/pricing/tier_above_input_tokens", 1),
            [("BUNDLE-COST-MISMATCH", "events/0/pricing")],
        ),
        (
            _set("events/1/pricing/context_multiplier", "1.1"),
            [("BUNDLE-COST-MISMATCH", "events/1/pricing")],
        ),
        (
            _set("events/2/pricing/unsplit_cache_write_rule", "5m"),
            [("BUNDLE-COST-MISMATCH", "events/2/pricing")],
        ),
        (
            _set("events/3/pricing/output_tokens_high", 64000),
            [("BUNDLE-COST-MISMATCH", "events/3/pricing")],
        ),
        (  # a complete call's high output is its recorded output
            _set("events/3/usage/output_tokens", 1),
            [
                ("BUNDLE-COST-MISMATCH", "events/3/cost"),
                ("BUNDLE-COST-MISMATCH", "events/3/pricing"),
            ],
        ),
        (  # a request's bound is a hidden stub's: a complete transcript call has none
            _set("events/3/request_max_tokens", 4096),
            [("BUNDLE-HIDDEN-CALLS", "events/3/request_max_tokens")],
        ),
    ],
    ids=[
        "zero-costs",
        "price-edited",
        "tool-price-edited",
        "model-price-dropped",
        "tier",
        "multiplier",
        "unsplit-rule",
        "high-output",
        "usage-edited",
        "request-bound-on-a-complete-call",
    ],
)
def test_costs_are_priced_again_from_the_bundles_own_pricing(
    edit: Any, expected: list[tuple[str, str]]
) -> None:
    """A v2 bundle carries the prices its events use, so opening it prices every event again;
    an edit resealed with a matching digest still disagrees with them."""
    assert _codes_at(edit) == expected


def _under_the_card(body: dict[str, Any]) -> None:
    """The golden bundle's prices are the shipped card's for its model: name the card."""
    from converter.pricing.card import load_price_card

    ref = load_price_card("anthropic-2026-11").ref().model_dump()
    body["receipt"]["price_card"] = body["pricing"]["price_card"] = ref


def test_prices_and_costs_edited_together_under_a_shipped_cards_name_are_refused() -> None:
    """Was: every price and every cost set to 0, resealed: the parts agreed with each other,
    verify said ok and evaluate decided SCALE, the receipt still naming the card."""
    assert open_bundle(_resealed(_under_the_card)).receipt.price_card is not None

    def free(body: dict[str, Any]) -> None:
        _under_the_card(body)
        tier = body["pricing"]["models"]["claude-opus-4-8"]["tiers"][0]
        for name in ("input", "output", "cache_read", "cache_write_5m", "cache_write_1h"):
            tier[name] = "0"
        _zero_costs(body)

    assert _codes_at(free) == [("BUNDLE-PRICE-CARD-MISMATCH", "pricing/models/claude-opus-4-8")]

    # Without a card's name the prices are the producer's own claim: only a signature vouches.
    def unnamed(body: dict[str, Any]) -> None:
        free(body)
        body["receipt"]["price_card"] = body["pricing"]["price_card"] = None

    assert open_bundle(_resealed(unnamed)).receipt.price_card is None


def test_the_card_the_prices_name_is_the_card_the_receipt_names() -> None:
    """Reports and the signature show the receipt's card; prices naming another (or none) are
    not what a reader is told they are."""

    def card_dropped_from_receipt(body: dict[str, Any]) -> None:
        _under_the_card(body)
        body["receipt"]["price_card"] = None

    def card_dropped_from_prices(body: dict[str, Any]) -> None:
        _under_the_card(body)
        body["pricing"]["price_card"] = None

    for edit in (card_dropped_from_receipt, card_dropped_from_prices):
        assert _codes_at(edit) == [("BUNDLE-PRICE-CARD-MISMATCH", "pricing/price_card")]


def test_a_v1_bundle_has_no_prices_to_check_its_costs_against() -> None:
    """What 0.1 wrote cannot be re-priced: only its signature vouches for its costs."""

    def as_v1_zeroed(body: dict[str, Any]) -> None:
        body["schema_version"] = "agent-evidence/bundle/v1"
        body["generator"]["version"] = "0.1.3"
        del body["pricing"]
        _zero_costs(body)

    assert open_bundle(_resealed(as_v1_zeroed)).pricing is None


def test_a_later_bundle_rewritten_as_v1_is_refused() -> None:
    """Was: prices dropped, costs zeroed, `schema_version` set to v1, resealed: it opened,
    verified ('a v1 bundle has no pricing to check costs') and decided SCALE, though its
    generator (0.2) never wrote v1."""

    def downgraded(body: dict[str, Any]) -> None:
        body["schema_version"] = "agent-evidence/bundle/v1"
        del body["pricing"]
        _zero_costs(body)

    assert _codes_at(downgraded) == [("BUNDLE-SCHEMA-MISMATCH", "schema_version")]


def test_the_published_schema_says_v2_must_carry_pricing() -> None:
    """Was: only the model knew; a validator reading contracts/bundle.schema.json took a v2
    bundle without prices, and a v1 bundle with them."""
    schema = json.loads((ROOT / "contracts" / "bundle.schema.json").read_text())
    version = schema["if"]["properties"]["schema_version"]["const"]
    assert version == BUNDLE_SCHEMA
    assert "pricing" in schema["then"]["required"]
    assert schema["then"]["properties"]["pricing"] == {"type": "object"}
    assert schema["else"]["properties"]["pricing"] == {"type": "null"}
    assert "pricing" not in schema["required"]  # v1 bundles have none

    def holds(body: dict[str, Any]) -> bool:
        """JSON Schema's if/then/else over the few keywords the condition uses."""

        def matches(sub: dict[str, Any]) -> bool:
            for name in sub.get("required", []):
                if name not in body:
                    return False
            for name, rule in sub.get("properties", {}).items():
                if name not in body:
                    continue
                value = body[name]
                if "const" in rule and value != rule["const"]:
                    return False
                kind = rule.get("type")
                if kind == "object" and not isinstance(value, dict):
                    return False
                if kind == "null" and value is not None:
                    return False
            return True

        return matches(schema["then"] if matches(schema["if"]) else schema["else"])

    golden = json.loads(GOLDEN.read_bytes())
    assert holds(golden)
    assert not holds({k: v for k, v in golden.items() if k != "pricing"})
    assert not holds({**golden, "pricing": None})
    v1 = {**golden, "schema_version": "agent-evidence/bundle/v1"}
    assert not holds(v1)  # prices in a v1 bundle
    assert holds({k: v for k, v in v1.items() if k != "pricing"})
    assert holds({**v1, "pricing": None})
    assert set(schema["properties"]["schema_version"]["enum"]) == {
        "agent-evidence/bundle/v1",
        BUNDLE_SCHEMA,
    }


def test_a_token_count_the_reader_never_takes_is_refused() -> None:
    """Was: summed past int64 in the workload and reported as incomplete claims."""

    def huge(body: dict[str, Any]) -> None:
        body["events"][0]["usage"]["input_tokens"] = 2**63 - 1

    assert _codes_at(huge) == [("BUNDLE-SHAPE", "events/0/usage")]


def test_labels_written_with_a_space_by_0_2_0_still_open() -> None:
    """A contract now takes one identifier-like word for each label it publishes; a bundle that
    0.2.0 wrote with spaces (or a slash) in them opens as before."""

    def spaced(body: dict[str, Any]) -> None:
        body["baseline"]["name"] = "manual fix"
        body["receipt"]["rubric_version"] = "rubric v1/2"
        body["receipt"]["label_source"] = "human review"
        for task in body["tasks"]:
            task["rubric_version"] = "rubric v1/2"
        body["generator"]["version"] = "0.2.0"  # (0.3.0 and later write one word)

    head = open_bundle(_resealed(spaced))
    assert head.baseline.name == "manual fix"
    assert head.receipt.label_source == "human review"


def _rename_tool(name: str) -> Any:
    """Event 4 (the Agent call) renamed, with its price under the new name: only the name can
    be what is wrong."""

    def edit(body: dict[str, Any]) -> None:
        body["events"][4]["name"] = name
        prices = body["pricing"]["client_tools"]
        prices[name] = prices.pop("Agent")

    return edit


def _rename_model(name: str) -> Any:
    """Every model event's model renamed, with the prices under the new name."""

    def edit(body: dict[str, Any]) -> None:
        for event in body["events"]:
            if event["kind"] == "model":
                event["model"] = name
        models = body["pricing"]["models"]
        models[name] = models.pop("claude-opus-4-8")

    return edit


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            _rename_tool("alice_private_tool"),
            [  # and the price under its name (its key named by place, never quoted)
                ("BUNDLE-NAME-NOT-PUBLIC", "pricing/client_tools/<key #2>"),
                ("BUNDLE-NAME-NOT-PUBLIC", "events/4/name"),
            ],
        ),
        (
            _rename_model("claude-3-j0-o0-h0-n0"),
            [("BUNDLE-NAME-NOT-PUBLIC", "pricing/models/<key #1>")]
            + [("BUNDLE-NAME-NOT-PUBLIC", f"events/{n}/model") for n in range(4)],
        ),
        (
            _set("agents/1/agent_type", "alice-team"),
            [("BUNDLE-NAME-NOT-PUBLIC", "agents/1/agent_type")],
        ),
        (
            _set("events/0/timestamp", "2026-07-21T09:14:05.463Z"),  # as written: exact
            [],
        ),
    ],
    ids=["tool", "model", "agent-type", "exact-time-under-exact"],
)
def test_a_name_or_time_the_firewall_would_not_write_is_refused(
    edit: Any, expected: list[tuple[str, str]]
) -> None:
    """Was: a resealed bundle holding a tool or agent-type name no firewall lets cross passed
    verify ("its parts agree") and was printed into every report (leak red team)."""
    if expected:
        assert _codes_at(edit) == expected
    else:
        open_bundle(_resealed(edit))


def test_text_outside_the_events_a_firewall_would_not_write_is_refused() -> None:
    """Was: a resealed bundle with a finding code of any text and an unused price keyed by an
    e-mail passed verify, and evaluate printed both (a leak hunt). A code is the catalogue's
    (or one an earlier version had); a pricing key is a name the firewall writes."""

    def edit(body: dict[str, Any]) -> None:
        body["receipt"]["findings"].append({"code": "ACME-PAYROLL-JANE-DOE", "count": 1})
        models = body["pricing"]["models"]
        models["jane.doe@acme-payroll.com"] = models["claude-opus-4-8"]

    index = len(json.loads(GOLDEN.read_bytes())["receipt"]["findings"])
    assert _codes_at(edit) == [
        ("BUNDLE-NAME-NOT-PUBLIC", f"receipt/findings/{index}/code"),
        ("BUNDLE-NAME-NOT-PUBLIC", "pricing/models/<key #2>"),
    ]

    def context(body: dict[str, Any]) -> None:  # a billing value as a word, all agreeing
        key = "standard|standard|not_available"
        for event in body["events"]:
            if event["kind"] == "model":
                event["context"]["inference_geo"] = "janedoe"
                event["pricing"]["context"] = key.replace("not_available", "janedoe")
        contexts = body["pricing"]["models"]["claude-opus-4-8"]["contexts"]
        contexts[key.replace("not_available", "janedoe")] = contexts.pop(key)

    assert _codes_at(context) == [
        ("BUNDLE-NAME-NOT-PUBLIC", "pricing/models/<key #1>/contexts/<key #1>"),
        *(("BUNDLE-NAME-NOT-PUBLIC", f"events/{n}/context") for n in range(4)),
    ]

    def retired(body: dict[str, Any]) -> None:  # written by a version that had the code
        body["receipt"]["findings"].append({"code": "CC-REC-FINALITY-UNKNOWN", "count": 1})

    open_bundle(_resealed(retired))


def test_a_revealed_name_or_a_pseudonym_is_one_the_firewall_writes() -> None:
    def reveal(body: dict[str, Any]) -> None:
        _rename_tool("my_tool")(body)
        body["receipt"]["privacy"]["reveal_names"] = ["my_tool"]

    open_bundle(_resealed(reveal))
    open_bundle(_resealed(_rename_tool("tool-0123456789ab")))


def test_a_timestamp_finer_than_the_receipt_says_is_refused() -> None:
    def coarse(body: dict[str, Any]) -> None:
        body["receipt"]["privacy"]["timestamps"] = "day"
        body["tasks"][0]["started_at"] = "2026-07-21"
        for event in body["events"]:
            if event["kind"] == "model":
                event["timestamp"] = "2026-07-21"
        body["events"][1]["timestamp"] = "2026-07-21T09:14:21.371Z"  # one left exact

    assert _codes_at(coarse) == [("BUNDLE-TIMESTAMP-PRECISION", "events/1/timestamp")]


@pytest.mark.parametrize(
    ("path", "version", "refused"),
    [
        ("receipt/rubric_version", "0.3.0", True),
        ("receipt/label_source", "0.3.0", True),
        ("baseline/name", "0.3.0", True),
        ("tasks/0/rubric_version", "0.3.0", True),
        ("receipt/label_source", "0.2.0", False),  # 0.2.0 took phrases: its bundles still open
    ],
)
def test_a_label_phrase_in_a_bundle_of_a_version_that_takes_one_word_is_refused(
    path: str, version: str, refused: bool
) -> None:
    """Was: `rubric: home/alice secret label` in a resealed bundle printed into the Markdown
    report (leak red team); a contract has taken one word since 0.3.0."""

    def edit(body: dict[str, Any]) -> None:
        _set(path, "alice secret label")(body)
        body["generator"]["version"] = version

    if refused:
        assert _codes_at(edit) == [("BUNDLE-NAME-NOT-PUBLIC", path)]
    else:
        open_bundle(_resealed(edit))


@pytest.mark.parametrize(
    ("edits", "expected"),
    [
        (
            [("events/1/usage/output_tokens", "x"), ("events/3/usage/output_tokens", "x")],
            [
                ("BUNDLE-SHAPE", "events/1/usage/output_tokens"),
                ("BUNDLE-SHAPE", "events/3/usage/output_tokens"),
            ],
        ),
        (
            [("baseline/name", 5), ("events/2/usage/input_tokens", -1)],
            [("BUNDLE-SHAPE", "baseline/name"), ("BUNDLE-SHAPE", "events/2/usage/input_tokens")],
        ),
        (
            [("events/5/kind", "x"), ("edges/0/kind", "y")],
            [("BUNDLE-SHAPE", "events/5/kind"), ("BUNDLE-SHAPE", "edges/0/kind")],
        ),
    ],
    ids=["two-events", "head-and-event", "event-and-edge"],
)
def test_every_misshapen_part_of_a_bundle_is_named_not_only_the_first(
    edits: list[tuple[str, Any]], expected: list[tuple[str, str]]
) -> None:
    """Was: opening stopped at the first field that did not validate (fuzzing found it in 335
    combinations): a run reports every problem it finds."""

    def edit(body: dict[str, Any]) -> None:
        for path, value in edits:
            _set(path, value)(body)

    assert sorted(_codes_at(edit)) == sorted(expected)


@pytest.mark.parametrize(
    ("path", "value"), [("agents/1/parent", None), ("agents/0/parent", "agent-aecec9bdba37")]
)
def test_only_the_root_agent_has_no_parent(path: str, value: Any) -> None:
    """Was (fuzzing): a subagent at depth 1 with no parent opened as a bundle."""
    assert _codes_at(_set(path, value)) == [("BUNDLE-DANGLING-REFERENCE", path)]


def test_a_field_misshapen_on_every_event_lists_a_few_and_counts_the_rest() -> None:
    """Was (second diff review): one line per event once every misshapen part was named (427
    lines for a small session, ~31k for the bench's)."""

    def edit(body: dict[str, Any]) -> None:
        for event in body["events"]:
            event["task"] = 7

    found = _codes_at(edit)
    shown = [where for code, where in found if code == "BUNDLE-SHAPE"]
    assert shown[:5] == [f"events/{n}/task" for n in range(5)]
    assert shown[5:] == ["events/*/task: 1 more"]


def test_a_pricing_context_is_a_context_key_not_words() -> None:
    """Was: the bundle typed an event's pricing context with the contract's looser copy of the
    context key ([a-z0-9_|-], 110 characters), so a phrase such as a project's name opened as
    a context on every event (and a v1 bundle, never re-priced, kept it)."""
    edit = _set("events/0/pricing/context", "payroll_migration_for_acme_corp")
    assert ("BUNDLE-SHAPE", "events/0/pricing/context") in _codes_at(edit)


def test_a_fraction_resealed_is_refused_not_called_changed() -> None:
    """An audit: a price written as a JSON number (0.5) and the digest resealed over it with
    canonicaljson was "changed after it was written" (5), though its digest holds; like any
    resealed edit whose digest matches, it is refused (2). Unsealed, it is still 5."""
    import canonicaljson

    body = json.loads(GOLDEN.read_bytes())
    body["policy"]["max_trace_cost_per_task_usd"] = 5.5
    body["receipt"].pop("evidence_sha256")
    body["receipt"]["evidence_sha256"] = hashlib.sha256(
        canonicaljson.encode_canonical_json(body)
    ).hexdigest()
    data = canonicaljson.encode_canonical_json(body)
    with pytest.raises(Refused) as refused:
        open_bundle(data)
    assert [p.code for p in refused.value.problems] == ["BUNDLE-SHAPE"]
    body["receipt"]["evidence_sha256"] = "0" * 64  # the edit, not resealed
    with pytest.raises(IntegrityFailure):
        open_bundle(canonicaljson.encode_canonical_json(body))


# A mutation review: these edits, resealed, opened when only the low end of a cost or only some
# of the receipt's counts were compared (the tests above change low and high together).


def test_a_model_events_high_cost_edited_alone_is_refused() -> None:
    """Lowering only `high` erases a usage-incomplete call's uncertainty: INCOMPLETE becomes
    SCALE. An unsigned bundle has only this check."""
    assert _codes_at(_set("events/0/cost/high", "0.0387650000")) == [
        ("BUNDLE-COST-MISMATCH", "events/0/cost")
    ]


def test_a_tool_events_high_cost_edited_alone_is_refused() -> None:
    assert _codes_at(_set("events/5/cost/high", "5.0000000000")) == [
        ("BUNDLE-COST-MISMATCH", "events/5/cost")
    ]


def test_a_tool_events_low_cost_edited_alone_is_refused() -> None:
    """A mutation audit: comparing only a tool's `high` with its price survived; a tool priced
    at 1 whose cost reads 0 – 1 would let evaluate's low-cost measures leave its calls out."""

    def edit(body: dict[str, Any]) -> None:
        body["pricing"]["client_tools"]["Read"] = "1"
        for event in body["events"]:
            if event.get("name") == "Read":
                event["cost"] = {"low": "0.0000000000", "high": "1.0000000000"}

    with pytest.raises(Refused) as raised:
        open_bundle(_resealed(edit))
    assert "BUNDLE-COST-MISMATCH" in {p.code for p in raised.value.problems}


def test_a_receipts_usage_incomplete_count_is_checked() -> None:
    assert _codes_at(_set("receipt/counts/usage_incomplete_calls", 3)) == [
        ("BUNDLE-COUNT-MISMATCH", "receipt/counts/usage_incomplete_calls")
    ]


def test_a_v2_bundle_naming_a_version_that_wrote_v1_is_refused() -> None:
    """0.1 wrote only v1 bundles: a v2 one naming it would be held to none of the checks later
    versions are (a review: labels of free text, hidden-call counts)."""
    assert _codes_at(_set("generator/version", "0.1.0")) == [
        ("BUNDLE-SCHEMA-MISMATCH", "schema_version")
    ]


def test_a_0_2_bundle_rewritten_as_v1_is_refused() -> None:
    """The boundary of the downgrade check: no 0.2.0 build wrote a bundle without `pricing`
    (its first builds wrote v1 with it, refused by shape; the rest wrote v2)."""

    def downgraded(body: dict[str, Any]) -> None:
        _rewritten_as_v1(body, "0.2.0")
        _zero_costs(body)

    assert _codes_at(downgraded) == [("BUNDLE-SCHEMA-MISMATCH", "schema_version")]


# --- hidden calls (SPEC §5.4): their agents and events as a conversion writes them ---------


def _with_hidden_call(body: dict[str, Any]) -> None:
    """The golden bundle with one hidden call: an agent of kind hidden-title and a model event
    of it (a copy of the first model event, its own id, no timestamp), counted."""
    root = next(a for a in body["agents"] if a["parent"] is None)
    body["agents"].append(
        {
            "agent_type": "hidden",
            "delegation": None,
            "depth": 1,
            "id": "agent-0000000000a1",
            "kind": "hidden-title",
            "parent": root["id"],
        }
    )
    event = dict(next(e for e in body["events"] if e["kind"] == "model"))
    event.update(id="event-0000000000a1", agent="agent-0000000000a1", timestamp=None)
    body["events"].append(event)
    body["receipt"]["counts"]["model_calls"] += 1
    body["receipt"]["hidden_calls"] = 1
    body["tasks"][0]["model_calls"] += 1
    _bind_bodies(body, "provider-index", "provider-response")


def _bind_bodies(body: dict[str, Any], *roles: str) -> None:
    """Provider body files bound, as a bundle whose hidden calls they show binds them."""
    for number, role in enumerate(roles):
        body["receipt"]["files"].append(
            {"label": f"file-00000000b{number:03d}", "role": role, "sha256": "0" * 64, "size": 1}
        )
    body["receipt"]["counts"]["bound_files"] += len(roles)


def _hidden_then(*edits: Any) -> Any:
    def edit(body: dict[str, Any]) -> None:
        _with_hidden_call(body)
        for more in edits:
            more(body)

    return edit


def _subagent_relabelled(body: dict[str, Any]) -> None:
    """A subagent (a delegation, a transcript) passed off as hidden calls: its cost would move
    into the hidden column."""
    body["agents"][1]["kind"] = "hidden-other"
    body["agents"][1]["agent_type"] = "hidden"


def _hidden_event_field(field: str, value: Any) -> Any:
    def edit(body: dict[str, Any]) -> None:
        body["events"][-1][field] = value

    return edit


def _second_title_agent(body: dict[str, Any]) -> None:
    body["agents"].append({**body["agents"][-1], "id": "agent-0000000000a2"})


def _tool_of_hidden_agent(body: dict[str, Any]) -> None:
    tool = next(e for e in body["events"] if e["kind"] == "tool")
    tool["agent"] = "agent-0000000000a1"


def _root_calls_moved(body: dict[str, Any]) -> None:
    """A review: the root's model events moved under the hidden agent (their timestamps
    dropped): their cost would be shown as hidden calls'. They keep their edges."""
    root = body["agents"][0]["id"]
    for event in body["events"]:
        if event["kind"] == "model" and event["agent"] == root:
            event.update(agent="agent-0000000000a1", timestamp=None)


def _bodies_unbound(body: dict[str, Any]) -> None:
    files = body["receipt"]["files"]
    files[:] = [f for f in files if not f["role"].startswith("provider-")]
    body["receipt"]["counts"]["bound_files"] = len(files)


def test_a_bundle_with_a_hidden_call_opens() -> None:
    head = open_bundle(_resealed(_with_hidden_call))
    assert head.receipt.hidden_calls == 1


@pytest.mark.parametrize(
    ("edit", "where"),
    [
        (_hidden_then(_subagent_relabelled), "agents/1/kind"),
        (_hidden_then(_set("agents/2/agent_type", "general-purpose")), "agents/2/kind"),
        (_hidden_then(_set("agents/2/depth", 2)), "agents/2/kind"),
        (_hidden_then(_set("agents/2/parent", "agent-aecec9bdba37")), "agents/2/kind"),
        (_hidden_then(_second_title_agent), "agents/3/kind"),
        (_hidden_then(_tool_of_hidden_agent), "events/4/agent"),
        (
            _hidden_then(_hidden_event_field("timestamp", "2026-07-21T09:14:05.463Z")),
            "events/6/agent",
        ),
        (_hidden_then(_set("receipt/hidden_calls", 0)), "receipt/hidden_calls"),
        (_hidden_then(_set("receipt/hidden_calls", 2)), "receipt/hidden_calls"),
        (_set("receipt/hidden_calls", 1), "receipt/hidden_calls"),
        (_hidden_then(_root_calls_moved), "edges/0/source"),
        # found in provider bodies: a bundle binding none has none (a review)
        (_hidden_then(_bodies_unbound), "receipt/hidden_calls"),
    ],
    ids=[
        "subagent-relabelled",
        "type",
        "depth",
        "parent",
        "two-of-a-kind",
        "tool-event",
        "timestamp",
        "count-zero",
        "count-above",
        "count-without-events",
        "transcript-calls-moved",
        "no-bodies-bound",
    ],
)
def test_hidden_calls_not_as_a_conversion_writes_them_are_refused(edit: Any, where: str) -> None:
    """A red team: each of these opened and evaluated (exit 0) before."""
    assert ("BUNDLE-HIDDEN-CALLS", where) in _codes_at(edit)


def test_a_bundle_of_a_version_that_counted_hidden_calls_without_pricing_them_opens() -> None:
    """Before 0.5.0 hidden calls were counted (receipt.hidden_calls) with no event: such a
    bundle still opens. Each was a response read, bound then as now: one counting more hidden
    calls than the response files it binds was not written by a conversion, of any version."""

    def counted_only(body: dict[str, Any]) -> None:
        body["generator"]["version"] = "0.4.11"
        body["receipt"]["hidden_calls"] = 2
        _bind_bodies(body, "provider-index", "provider-response", "provider-response")

    assert open_bundle(_resealed(counted_only)).receipt.hidden_calls == 2

    def one_response_short(body: dict[str, Any]) -> None:
        counted_only(body)
        body["receipt"]["files"].pop()
        body["receipt"]["counts"]["bound_files"] -= 1

    assert _codes_at(one_response_short) == [("BUNDLE-HIDDEN-CALLS", "receipt/hidden_calls")]


@pytest.mark.parametrize("reference", [False, True], ids=["evaluate", "verify"])
@pytest.mark.parametrize("where", ["event", "receipt", "cost"])
def test_an_integer_past_64_bits_resealed_is_refused_by_shape_not_called_changed(
    where: str, reference: bool
) -> None:
    """An adversary's find: a count of 2**64 resealed over the edit. `verify` refused it by
    shape (2) but opening it called it changed since it was sealed (5): the fast encoder
    writes no integer past 64 bits and its TypeError read as a digest mismatch. (Outside the
    events, such a count crashed the split reader's tally, exit 70, before it was caught.)
    A cost of 2**64 as a JSON integer, its price the same in the head, is money a decimal
    reads exactly: `verify`, reading item by item with canonicaljson, took it (an audit), where
    `evaluate` refused it; both refuse it at the event."""

    def huge(body: dict[str, Any]) -> None:
        if where == "event":
            body["events"][0]["usage"]["input_tokens"] = 2**64
        elif where == "receipt":
            body["receipt"]["counts"]["model_calls"] = 2**64
        else:
            body["pricing"]["client_tools"]["Read"] = str(2**64)
            read = next(e for e in body["events"] if e.get("name") == "Read")
            read["cost"] = {"low": 2**64, "high": 2**64}

    data = _resealed(huge)
    with pytest.raises(Refused) as refused:
        open_bundle(data, reference=reference)
    assert [p.code for p in refused.value.problems] == ["BUNDLE-SHAPE"]
    if where != "receipt":  # at the event, as the fast encoder's reader names it
        assert re.fullmatch(r"events/[0-9]+", refused.value.problems[0].where or "")
    body = json.loads(data)
    body["receipt"]["evidence_sha256"] = "0" * 64  # the same value, not resealed: changed
    with pytest.raises(IntegrityFailure):
        open_bundle(reference_bytes(body), reference=reference)


def _layouts() -> list[bytes]:
    """The golden bundle as written, re-indented with its keys in another order, and behind a
    byte order mark: one value, three texts."""
    data = GOLDEN.read_bytes()
    body = json.loads(data)
    backwards = json.dumps({k: body[k] for k in reversed(body)}, indent=2).encode()
    return [data, backwards, b"\xef\xbb\xbf" + data]


@pytest.mark.parametrize("reference", [False, True], ids=["evaluate", "verify"])
@pytest.mark.parametrize("data", _layouts(), ids=["as-written", "re-indented", "bom"])
def test_the_split_reader_opens_what_the_whole_reader_opens(
    data: bytes, reference: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """evaluate and verify keep a bundle's events and edges as canonical bytes, never as 75 MB
    of values (the bench bundle): the same head, events and edges as parsing the whole document
    gives, whichever encoder wrote the bytes the digest is taken over."""
    from converter.bundle import io

    assert io._split_value(data, reference) is not None  # the split reader takes it
    split = open_whole_bundle(data, reference=reference)
    monkeypatch.setattr(io, "_split_value", lambda _, __: None)
    assert open_whole_bundle(data, reference=reference) == split


@pytest.mark.parametrize("reference", [False, True], ids=["evaluate", "verify"])
def test_a_changed_byte_is_called_changed_by_both_readers(reference: bool) -> None:
    from converter.bundle import io

    data = GOLDEN.read_bytes().replace(b'"input_tokens":', b'"input_tokens":1', 1)
    with pytest.raises(IntegrityFailure) as split:  # found by the split reader, not read again
        io._split_value(data, reference)
    with pytest.raises(IntegrityFailure) as failed:
        open_bundle(data, reference=reference)
    assert failed.value.code == split.value.code == "BUNDLE-DIGEST-MISMATCH"
    with pytest.raises(IntegrityFailure) as whole:  # and so by the whole reader
        io._checked_value(data, reference)
    assert whole.value.code == failed.value.code


def test_a_key_no_encoder_writes_is_left_to_the_whole_reader() -> None:
    """An audit's find: a lone surrogate as a top-level key crashed the split reader's digest
    (exit 70); the whole reader calls the bundle changed, as it always did."""
    data = b'{"\\ud800":0,"edges":[],"events":[],"receipt":{"evidence_sha256":"x"}}'
    with pytest.raises(IntegrityFailure) as failed:
        open_bundle(data)
    assert failed.value.code == "BUNDLE-DIGEST-MISMATCH"


@pytest.mark.parametrize(
    "edited",
    [
        (b'"max_calls_per_task":', b'"max_calls_per_task":' + b"9" * 4301),
        (b'"excluded_tasks":[]', b'"excluded_tasks":' + b"[" * 100_000 + b"]" * 100_000),
    ],
    ids=["an-integer-of-4301-digits", "nesting-100000-deep"],
)
def test_json_past_the_parsers_limits_is_called_changed(edited: tuple[bytes, bytes]) -> None:
    """An auditor's edit: an integer of more digits than the interpreter converts, or nesting
    deeper than the parser goes, is valid JSON no conversion writes. It was refused as not a
    bundle at all (2, "empty, cut short, not JSON"); a bundle that claims an evidence digest and
    holds it was changed (5), as with a repeated key. Without a digest, it is still no bundle."""
    old, new = edited
    data = GOLDEN.read_bytes().replace(old, new, 1)
    assert data != GOLDEN.read_bytes()
    with pytest.raises(IntegrityFailure) as failed:
        open_bundle(data)
    assert failed.value.code == "BUNDLE-DIGEST-MISMATCH"
    unsealed = data.replace(b'"evidence_sha256"', b'"evidence_sha_256"')
    with pytest.raises(Refused) as refused:
        open_bundle(unsealed)
    assert [p.code for p in refused.value.problems] == ["BUNDLE-NOT-A-BUNDLE"]
    cut = data[: data.index(new) + len(new)]  # cut short just past the limit: not known JSON
    with pytest.raises(Refused) as refused:
        open_bundle(cut + b'"evidence_sha256"')
    assert [p.code for p in refused.value.problems] == ["BUNDLE-NOT-A-BUNDLE"]


def test_calls_said_looked_for_without_the_bodies_index_are_refused() -> None:
    """An adversarial review: a bundle made without provider bodies, resealed with
    `auxiliary_calls: observed`, opened, and evaluate dropped its finding that calls no
    transcript records were not looked for. They are looked for in the bodies' index alone."""
    assert _codes_at(_set("receipt/auxiliary_calls", "observed")) == [
        ("BUNDLE-HIDDEN-CALLS", "receipt/auxiliary_calls")
    ]

    def with_an_index(body: dict[str, Any]) -> None:
        body["receipt"]["auxiliary_calls"] = "observed"
        index = {"label": "file-" + "1" * 12, "role": "provider-index", "size": 1}
        body["receipt"]["files"].append({**index, "sha256": "0" * 64})
        body["receipt"]["counts"]["bound_files"] += 1

    open_bundle(_resealed(with_an_index))  # as a conversion with bodies writes it


def _a_search_of_unknown_count(body: dict[str, Any]) -> None:
    """The Read call made a WebSearch whose result named no search, as a conversion writes
    it: its finding in the receipt, the tool's price in the bundle's pricing."""
    body["events"][5]["name"] = "WebSearch"
    body["pricing"]["client_tools"] = {"Agent": "0", "WebSearch": "0"}
    body["receipt"]["findings"].append({"code": "CC-REC-WEBSEARCH-COUNT-UNKNOWN", "count": 1})
    body["receipt"]["findings"].sort(key=lambda f: f["code"])


def test_a_finding_its_events_place_is_held_to_them() -> None:
    """A review: a bundle resealed without its finding of a WebSearch of unknown count decided
    SCALE, while evaluate's per-task marks, read from the event, said its task was open. From
    0.6.14 each such finding (and CC-REC-FINAL-NO-INPUT) is one event, as a conversion writes
    it; before, not checked."""
    assert open_bundle(_resealed(_a_search_of_unknown_count))

    def without_its_finding(body: dict[str, Any]) -> None:
        _a_search_of_unknown_count(body)
        body["receipt"]["findings"] = [
            f for f in body["receipt"]["findings"] if f["code"] != "CC-REC-WEBSEARCH-COUNT-UNKNOWN"
        ]

    assert _codes_at(without_its_finding) == [("BUNDLE-COUNT-MISMATCH", "receipt/findings")]

    def a_final_call_said_of_no_input(body: dict[str, Any]) -> None:
        body["receipt"]["findings"].append({"code": "CC-REC-FINAL-NO-INPUT", "count": 1})

    # listed, at its count; left out, at the findings
    assert _codes_at(a_final_call_said_of_no_input) == [
        ("BUNDLE-COUNT-MISMATCH", "receipt/findings/1/count")
    ]

    def by_0_6_13(body: dict[str, Any]) -> None:
        without_its_finding(body)
        body["generator"]["version"] = "0.6.13"

    assert open_bundle(_resealed(by_0_6_13))


# --- verify's reading (`reference=True`): canonicaljson's bytes, item by item -----------------


def test_verify_reads_a_bundle_item_by_item(monkeypatch: pytest.MonkeyPatch) -> None:
    """A well-formed bundle is never parsed whole by `verify` (the whole value of the bench
    bundle took 169 MB): the exact whole-document reader is only for what the split one
    refuses."""
    import converter.bundle.io as io

    def whole(data: bytes, reference: bool) -> dict[str, Any]:
        raise AssertionError("read whole")

    monkeypatch.setattr(io, "_checked_value", whole)
    data = GOLDEN.read_bytes()
    assert open_bundle(data, reference=True) == open_bundle(data)


def test_verify_takes_the_digest_over_canonicaljsons_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The reference encoder decides `verify`'s digest, on the item-by-item path and on the
    whole-document one alike: a canonicaljson that wrote one key differently makes every
    well-formed bundle a mismatch there, and changes nothing for the fast encoder."""
    import canonicaljson

    real = canonicaljson.encode_canonical_json

    def skewed(value: Any) -> bytes:
        return real(value).replace(b'"kind"', b'"kinD"')

    monkeypatch.setattr(canonicaljson, "encode_canonical_json", skewed)
    data = GOLDEN.read_bytes()
    open_bundle(data)  # the fast encoder: unchanged
    with pytest.raises(IntegrityFailure):
        open_bundle(data, reference=True)
