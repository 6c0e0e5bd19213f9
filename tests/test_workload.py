"""Bundles given together: what makes them one workload, named by position (SPEC §10)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from converter.bundle.io import open_bundle
from converter.bundle.model import BundleHead, ModelEventOut, ToolEventOut
from converter.errors import Refused
from converter.run.workload import FactsBuilder, build_workload, workload_problems
from tests.conftest import FIXTURES

HEAD = open_bundle((FIXTURES / "synthetic_bundle.golden.json").read_bytes())


def _other_session(head: BundleHead, **receipt: Any) -> BundleHead:
    """The golden head as if another session: other task ids, other transcript digests."""
    files = tuple(
        f.model_copy(update={"sha256": f"{i:064x}"}) for i, f in enumerate(head.receipt.files)
    )
    tasks = tuple(t.model_copy(update={"id": "task-" + "1" * 12}) for t in head.tasks)
    update = {"files": files, **receipt}
    return head.model_copy(
        update={"tasks": tasks, "receipt": head.receipt.model_copy(update=update)}
    )


def _where(heads: list[BundleHead | None]) -> list[tuple[str, str | None]]:
    return [(p.code, p.where) for p in workload_problems(heads)]


def test_two_sessions_agree() -> None:
    assert _where([HEAD, _other_session(HEAD)]) == []


def test_one_shared_subagent_transcript_is_an_overlap() -> None:
    other = _other_session(HEAD)
    files = (*other.receipt.files[:1], HEAD.receipt.files[1], *other.receipt.files[2:])
    shared = other.model_copy(update={"receipt": other.receipt.model_copy(update={"files": files})})
    assert _where([HEAD, None, shared]) == [
        ("EVAL-BUNDLE-OVERLAP", "bundle 1 of 3 and bundle 3 of 3"),
    ]


def test_shared_meta_files_and_empty_transcripts_are_no_overlap() -> None:
    """Every empty child has the SHA-256 of nothing, and metadata files can repeat."""
    other = _other_session(HEAD)
    empty = HEAD.receipt.files[1].model_copy(update={"size": 0})
    ours = HEAD.receipt.model_copy(
        update={"files": (*HEAD.receipt.files[:1], empty, HEAD.receipt.files[2])}
    )
    theirs = other.receipt.model_copy(
        update={"files": (*other.receipt.files[:1], empty, HEAD.receipt.files[2])}
    )
    assert (
        _where(
            [
                HEAD.model_copy(update={"receipt": ours}),
                other.model_copy(update={"receipt": theirs}),
            ]
        )
        == []
    )


def test_every_disagreement_is_named() -> None:
    other = _other_session(HEAD, label_source="panel-b", key_id="key-" + "0" * 16)
    assert _where([None, HEAD, other]) == [
        (
            "EVAL-WORKLOAD-MISMATCH",
            "bundle 3 of 3: receipt/label_source differs from bundle 2 of 3",
        ),
        ("EVAL-WORKLOAD-MISMATCH", "bundle 3 of 3: receipt/key_id differs from bundle 2 of 3"),
    ]


def test_the_same_bundle_twice_is_one_overlap() -> None:
    """Was: EVAL-DUPLICATE-TASK and EVAL-BUNDLE-OVERLAP for the same pair; the overlap (one
    transcript bound twice) is why their tasks repeat."""
    assert _where([HEAD, HEAD]) == [("EVAL-BUNDLE-OVERLAP", "bundle 1 of 2 and bundle 2 of 2")]


def test_shared_tasks_without_a_shared_file_are_duplicate_tasks() -> None:
    """A session converted before and after it grew: other transcript digests, the same tasks."""
    files = tuple(
        f.model_copy(update={"sha256": f"{i + 7:064x}"}) for i, f in enumerate(HEAD.receipt.files)
    )
    grown = HEAD.model_copy(update={"receipt": HEAD.receipt.model_copy(update={"files": files})})
    assert _where([HEAD, grown]) == [("EVAL-DUPLICATE-TASK", "bundle 1 of 2 and bundle 2 of 2")]


def _priced(head: BundleHead, **update: Any) -> BundleHead:
    assert head.pricing is not None
    return head.model_copy(update={"pricing": head.pricing.model_copy(update=update)})


def test_a_price_two_bundles_state_must_be_the_same() -> None:
    """Was: two bundles with the same card id (or none) but their own prices for one model
    were summed into one decision."""
    assert HEAD.pricing is not None
    opus = HEAD.pricing.models["claude-opus-4-8"]
    halved = opus.tiers[0].model_copy(update={"output": opus.tiers[0].output / 2})
    cheaper = opus.model_copy(update={"tiers": (halved,)})
    other = _priced(_other_session(HEAD), models={"claude-opus-4-8": cheaper})
    assert _where([HEAD, other]) == [
        (
            "EVAL-WORKLOAD-MISMATCH",
            "bundle 2 of 2: pricing/models/claude-opus-4-8 differs from bundle 1 of 2",
        )
    ]
    tools = _priced(
        _other_session(HEAD), client_tools={"Agent": Decimal(0), "Read": Decimal("0.5")}
    )
    assert _where([None, HEAD, tools]) == [
        (
            "EVAL-WORKLOAD-MISMATCH",
            "bundle 3 of 3: pricing/client_tools/Read differs from bundle 2 of 3",
        )
    ]


def test_prices_only_one_bundle_states_need_no_agreement() -> None:
    """Another model, context or tool, or the same price written differently ("5" and "5.0")."""
    assert HEAD.pricing is not None
    opus = HEAD.pricing.models["claude-opus-4-8"]
    same = opus.tiers[0].model_copy(update={"input": opus.tiers[0].input.quantize(Decimal("0.1"))})
    context = dict(opus.contexts) | {"priority|standard|not_available": Decimal("1.5")}
    other = _priced(
        _other_session(HEAD),
        models={
            "claude-opus-4-8": opus.model_copy(update={"tiers": (same,), "contexts": context}),
            "claude-haiku-4-5-20251001": opus,
        },
        client_tools={"Agent": Decimal("0.0"), "Read": Decimal(0), "Bash": Decimal(1)},
    )
    assert _where([HEAD, other]) == []


def test_a_price_no_event_of_one_bundle_used_is_not_compared() -> None:
    """Was: a bundle of complete calls whose contract left max_output_tokens null was refused
    beside one that set it; neither bound was used by the other's events."""
    assert HEAD.pricing is not None
    opus = HEAD.pricing.models["claude-opus-4-8"]
    other = _priced(
        _other_session(HEAD),
        models={"claude-opus-4-8": opus.model_copy(update={"max_output_tokens": None})},
        unsplit_cache_write_rule="5m",
    )
    complete = {("pricing", "models", "claude-opus-4-8"), ("pricing", "client_tools", "Read")}
    assert [(p.code, p.where) for p in workload_problems([HEAD, other], [complete, complete])] == []
    cap = ("pricing", "models", "claude-opus-4-8", "max_output_tokens")
    rule = ("pricing", "unsplit_cache_write_rule")
    both = [complete | {cap, rule}, complete | {cap, rule}]
    assert [(p.code, p.where) for p in workload_problems([HEAD, other], both)] == [
        ("EVAL-WORKLOAD-MISMATCH", f"bundle 2 of 2: {'/'.join(rule)} differs from bundle 1 of 2"),
        ("EVAL-WORKLOAD-MISMATCH", f"bundle 2 of 2: {'/'.join(cap)} differs from bundle 1 of 2"),
    ]


def test_the_prices_an_event_used() -> None:
    """What `FactsBuilder` records while a bundle streams past, from the golden bundle."""
    builder = FactsBuilder()
    open_bundle((FIXTURES / "synthetic_bundle.golden.json").read_bytes(), sink=builder)
    model = ("pricing", "models", "claude-opus-4-8")
    assert builder.used == {
        model,
        (*model, "contexts", "standard|standard|not_available"),
        ("pricing", "client_tools", "Agent"),
        ("pricing", "client_tools", "Read"),
    }


def test_bundles_naming_other_cards_are_one_workload_when_their_prices_agree() -> None:
    """Was: EVAL-WORKLOAD-MISMATCH [receipt/price_card] for a gateway session priced by hand
    (no card, as README advises) beside card-priced ones, with no price in common."""
    from converter.pricing.card import load_price_card
    from converter.run.workload import _card_id, _card_ids

    card = load_price_card("anthropic-2026-11").ref()
    named = _other_session(HEAD, price_card=card)
    assert _where([HEAD, named]) == []
    assert _card_ids([HEAD, named]) == ("none", "anthropic-2026-11")  # which priced which
    assert _card_id(_card_ids([HEAD, named])) == "mixed"
    assert _card_id(_card_ids([named, named])) == "anthropic-2026-11"
    assert _card_id(_card_ids([HEAD])) == "none"


def test_a_contracts_own_price_is_a_cards_only_at_the_cards_value() -> None:
    """A walkthrough: a contract naming no card priced a model at 100x, and beside a bundle
    whose card merely lists that model the report dropped the "(the contract's own prices, not
    a card's)" mark and `digests.own_prices`. A price is another card's only where that card
    states the same value; what the card does not state alike stays the contract's."""
    from converter.evaluate.inputs import OwnBound, OwnPrice
    from converter.pricing.card import load_price_card
    from converter.run.workload import _owns

    card = load_price_card("anthropic-2026-11")
    named = _other_session(HEAD, price_card=card.ref())
    assert HEAD.pricing is not None
    assert HEAD.receipt.price_card is None
    opus = HEAD.pricing.models["claude-opus-4-8"]
    assert opus.tiers == card.models["claude-opus-4-8"].tiers
    mine = OwnBound(model="claude-opus-4-8", max_output_tokens=64000)
    assert card.models["claude-opus-4-8"].max_output_tokens != 64000
    bounded = {("pricing", "models", "claude-opus-4-8", "max_output_tokens")}  # a call used it
    one, two = [bounded], [bounded, bounded]
    assert _owns([HEAD], one) == ((OwnPrice(model="claude-opus-4-8"),), ())
    # the card's tiers: the card's prices, but the contract's 64,000 for the card's 128,000
    assert _owns([HEAD, named], two) == ((), (mine,))
    dear = opus.tiers[0].model_copy(update={"output": opus.tiers[0].output * 100})
    costly = _priced(HEAD, models={"claude-opus-4-8": opus.model_copy(update={"tiers": (dear,)})})
    # (the named bundle's contract too chose 64,000 for its card's 128,000)
    assert _owns([costly, named], two) == ((OwnPrice(model="claude-opus-4-8"),), (mine,))
    assert _owns([named, costly], two) == _owns([costly, named], two)
    fast = dict(opus.contexts) | {"standard|fast|not_available": Decimal(6)}
    quick = _priced(HEAD, models={"claude-opus-4-8": opus.model_copy(update={"contexts": fast})})
    own = OwnPrice(model="claude-opus-4-8", context="standard|fast|not_available")
    assert _owns([quick, named], two) == ((own,), (mine,))
    # An evaluation audit: a bound that priced no call of its bundle is no bound of the
    # workload's cost, and is not named as one
    assert _owns([HEAD, named], [set(), set()]) == ((), ())
    assert _owns([HEAD, named], [set(), bounded]) == ((), (mine,))


def test_a_mixed_workload_report_says_which_card_each_bundle_named() -> None:
    """Was `price card: mixed` alone: the report no longer said which card priced which bundle."""
    from converter.evaluate import render_markdown, render_text
    from tests.test_evaluate import DIGESTS, evaluate, make_task, make_workload

    workload = make_workload([make_task(i) for i in range(3)])
    digests = DIGESTS.model_copy(
        update={"price_card_id": "mixed", "price_card_ids": ("none", "anthropic-2026-11")}
    )
    ev = evaluate(workload.model_copy(update={"digests": digests}))
    line = "price cards, one per bundle: none, anthropic-2026-11 (where two bundles use one price, they agree)"
    assert line in render_text(ev)
    assert line.replace("none", "`none`").replace("anthropic-2026-11", "`anthropic-2026-11`") in (
        render_markdown(ev)
    )


def test_a_call_in_two_bundles_is_an_overlap() -> None:
    """Two conversions of one session under one key share their calls' ids, whatever the task
    unit and however much the session grew in between."""
    other = _other_session(HEAD)
    ids = ["event-" + "a" * 12, "event-" + "b" * 12]
    shared = workload_problems([HEAD, other], events=[ids, ids[1:]])
    assert [(p.code, p.where) for p in shared] == [
        ("EVAL-BUNDLE-OVERLAP", "bundle 1 of 2 and bundle 2 of 2")
    ]
    assert workload_problems([HEAD, other], events=[ids[:1], ids[1:]]) == []


def test_an_excluded_tasks_calls_are_still_the_bundles_own() -> None:
    builder = FactsBuilder()
    builder.start(HEAD)
    body = json.loads((FIXTURES / "synthetic_bundle.golden.json").read_bytes())
    for raw in body["events"]:
        event = (ModelEventOut if raw["kind"] == "model" else ToolEventOut).model_validate_json(
            json.dumps(raw)
        )
        builder.event(event.model_copy(update={"task": "task-" + "f" * 12}))
    assert sorted(builder.event_ids) == sorted(e["id"] for e in body["events"])


def test_disabled_gates_in_another_order_are_the_same_policy() -> None:
    def disabling(head: BundleHead, *gates: str) -> BundleHead:
        policy = head.policy.model_copy(update={"disabled_checks": gates})
        return head.model_copy(update={"policy": policy})

    one = disabling(HEAD, "runtime-caps", "p95-task-cost")
    other = _other_session(HEAD)
    assert _where([one, disabling(other, "p95-task-cost", "runtime-caps")]) == []
    assert _where([one, disabling(other, "runtime-caps")]) == [
        (
            "EVAL-WORKLOAD-MISMATCH",
            "bundle 2 of 2: policy/disabled_checks differs from bundle 1 of 2",
        )
    ]


def test_a_name_a_bundle_holds_is_shown_in_a_mismatch_only_if_it_could_cross() -> None:
    """Was: a hand-edited bundle's model name `home/alice/secret@x` quoted in
    EVAL-WORKLOAD-MISMATCH as written (leak red team); BUNDLE-SHAPE masked such names."""
    assert HEAD.pricing is not None
    opus = HEAD.pricing.models["claude-opus-4-8"]
    secret = "home/alice/secret@x"
    cheaper = opus.model_copy(update={"max_output_tokens": 1000})
    mine = _priced(HEAD, models={secret: opus})
    theirs = _priced(_other_session(HEAD), models={secret: cheaper})
    found = [(p.code, p.where) for p in workload_problems([mine, theirs])]
    assert found == [
        (
            "EVAL-WORKLOAD-MISMATCH",
            "bundle 2 of 2: pricing/models/<key>/max_output_tokens differs from bundle 1 of 2",
        )
    ]


def test_no_bundle_is_refused_by_its_code() -> None:
    """The library's guard (the CLI's --bundle is required, so click says it first): an empty
    workload is never evaluated as one of no tasks."""
    with pytest.raises(Refused) as raised:
        build_workload([])
    assert [p.code for p in raised.value.problems] == ["EVAL-NO-BUNDLE"]
