"""The `inspect` report: the JSON object of a PublicSummary (issue #2's report)."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from converter.errors import CODES
from converter.errors.codes import SPEND_LEFT_OUT
from converter.firewall.types import decimal_text
from converter.firewall.view import PublicSummary, UsageTotals
from converter.run.outputs import HiddenFigure, InspectReport, checked
from converter.text import counted, usd_span
from converter.vocabulary import HIDDEN_KINDS, INCOMPLETE_NO_INPUT, hidden_kind_of

if TYPE_CHECKING:
    from converter.firewall.pseudonyms import Pseudonymizer
    from converter.pricing.card import PriceCard
    from converter.pricing.estimate import Estimate, ModelCost
    from converter.reader.model import Account

TOKEN_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_5m_input_tokens",
    "cache_creation_1h_input_tokens",
    "cache_creation_unsplit_input_tokens",
)
_USAGE_KEYS = (*TOKEN_KEYS, "web_search_requests")


def _usage(total: UsageTotals) -> dict[str, int]:
    return {k: getattr(total, k) for k in _USAGE_KEYS}


def inspect_report(summary: PublicSummary) -> dict[str, Any]:
    counts = summary.counts.model_dump()
    counts.pop("bound_files")
    places: dict[str, list[dict[str, Any]]] = {}
    for place in summary.finding_places:
        places.setdefault(place.code, []).append({"file": place.file, "line": place.line})
    report: dict[str, Any] = {
        "convertible": summary.convertible,
        "key_id": summary.key_id,
        "refusals": [r.model_dump() for r in summary.refusals],
        "findings": [f.model_dump() for f in summary.findings],
        "finding_places": {
            code: {"at": at, "more": code in summary.more_places} for code, at in places.items()
        },
        "not_read": [f.model_dump() for f in summary.not_read],
        "counts": counts,
        "bound_files": summary.counts.bound_files,
        "usage": _usage(summary.usage),
        "by_model": {
            m.model: {"model_calls": m.model_calls, "usage": _usage(m.usage)}
            for m in summary.by_model
        },
        "by_agent": [
            {
                "agent": a.id,
                "agent_type": a.agent_type,
                "kind": a.kind,
                "depth": a.depth,
                "model_calls": summary.calls_by_agent.get(a.id, 0),
            }
            for a in summary.agents
        ],
        "claude_code_versions": list(summary.claude_code_versions),
    }
    if summary.provider_files:  # --provider-bodies: the bodies bound, among bound_files
        report["provider_files"] = summary.provider_files
        report["auxiliary_calls"] = summary.auxiliary_calls
    return report


def inspect_output(
    account: Account, summary: PublicSummary, pseudo: Pseudonymizer, card: PriceCard | None
) -> dict[str, Any]:
    """What `inspect` prints (as JSON, or as text by `render_text`): the report, with the cost
    by `card` when the tree converts, checked against `InspectReport` (outputs.py)."""
    report = inspect_report(summary)
    if card is not None and not account.refusals:  # a tree that does not convert: no figure
        from converter.firewall.boundary import cross
        from converter.pricing.estimate import estimate

        found = estimate(cross(account, pseudo), card)
        report["card_cost"] = card_cost(found)
        report["card_cost"]["spend_left_out"] = spend_left_out(account, found)
    return checked(InspectReport, report)


def spend_left_out(account: Account, found: Estimate) -> list[str]:
    """The codes of the findings that say some of the tree's spend is in no figure of `found`
    (`SPEND_LEFT_OUT`), and calls that recorded no input of a model the card does not price
    (in no figure: a walkthrough saw only "nothing priced", and evaluate came back INCOMPLETE
    for them). `scan` marks such a figure `+`; `inspect` says the codes under it."""
    left_out = {code for code in SPEND_LEFT_OUT if account.findings.get(code)}
    if account.findings.get(INCOMPLETE_NO_INPUT, 0) > found.unbounded_calls:
        left_out.add(INCOMPLETE_NO_INPUT)
    return sorted(left_out)


def card_cost(found: Estimate) -> dict[str, Any]:
    """`inspect --price-card`'s figure, exact decimals as text (no float)."""
    return {
        "price_card": found.card_id,
        "low_usd": decimal_text(found.low),
        **high_end(found.high, found.unbounded_calls + found.no_max_output_calls),
        "model_calls_priced": found.priced_calls,
        "model_calls_not_priced": found.unpriced_calls,
        "not_priced_for_lack_of": dict(sorted(found.unpriced_by_reason.items())),
        "tool_calls_not_priced": found.tool_calls_not_priced,
        "model_calls_assumed_standard": found.assumed_standard_calls,
        "model_calls_unbounded": found.unbounded_calls,
        "model_calls_no_max_output": found.no_max_output_calls,
        "model_calls_usage_incomplete": found.incomplete_calls,
        "usage_incomplete_width_usd": decimal_text(found.incomplete_width),
        "by_model": {name: model_figure(m) for name, m in sorted(found.by_model.items())},
        "hidden_by_kind": {
            kind: _hidden_figure(found.hidden_by_kind[kind])
            for kind in HIDDEN_KINDS
            if kind in found.hidden_by_kind
        },
    }


def high_end(high: Decimal, open_calls: int) -> dict[str, str | None]:
    """A figure's high end: `high_usd` is a bound or null, never a number that bounds nothing
    (a price audit: a script read a finite high_usd as the most a session could have cost);
    `high_usd_known` is the sum as far as it is known, each open call at what it recorded."""
    known = decimal_text(high)
    return {"high_usd": None if open_calls else known, "high_usd_known": known}


def model_figure(m: ModelCost) -> dict[str, Any]:
    """One model's part of a `card_cost` figure (`scan` sums them over sessions)."""
    return {
        "model_calls": m.calls,
        "low_usd": decimal_text(m.low),
        **high_end(m.high, m.unbounded + m.no_max_output),
        "model_calls_unbounded": m.unbounded,
        "model_calls_no_max_output": m.no_max_output,
        "model_calls_usage_incomplete": m.incomplete,
        "max_output_tokens": m.max_output_tokens,
    }


def _hidden_figure(m: ModelCost) -> dict[str, Any]:
    """One kind of hidden call's part of a `card_cost` figure: a model's, its keys only."""
    whole = model_figure(m)
    return {k: whole[k] for k in HiddenFigure.model_fields}


def money_span(low: str, high: str, unbounded: int = 0) -> str:
    """`$low – $high` (one amount when they agree) of two decimal texts; `$low – no bound`
    when `unbounded` calls have no high end (no input recorded, or no max_output_tokens)."""
    return usd_span(Decimal(low), Decimal(high), unbounded)


def cost_span(cost: dict[str, Any]) -> str:
    """A `card_cost` figure (or a part of one) as `money_span` says it."""
    open_ended = cost["model_calls_unbounded"] + cost["model_calls_no_max_output"]
    return money_span(cost["low_usd"], cost["high_usd_known"], open_ended)


# What states a price of each kind the card cannot give (else: a contract states it)
_STATES = {
    "long-context": "a contract of your own prices gives that rate; under the card's name "
    "convert refuses PRICE-CARD-TIER-ENDED",
    "cost-too-large": "convert refuses it, PRICE-COST-TOO-LARGE: check the card's prices",
}


def _cost_lines(cost: dict[str, Any]) -> list[str]:
    priced, unpriced = cost["model_calls_priced"], cost["model_calls_not_priced"]
    if priced and not unpriced:
        total = f"{cost_span(cost)} for {counted(priced, 'model call')}"
    elif priced:  # a walkthrough read "$0.0520 for 4 model calls" as the cost of 170
        total = (
            f"{cost_span(cost)} for {priced:,} of the "
            f"{priced + unpriced:,} model calls ({unpriced:,} not priced, below, and not in this "
            "figure)"
        )
    else:  # not "$0.0000 for 0 model calls", which reads as free
        total = f"nothing priced (none of the {counted(unpriced, 'model call')}; why, below)"
    lines = [f"  cost by price card {cost['price_card']}: {total}"]
    for model, entry in cost["by_model"].items():
        lines.append(f"    {model}: {cost_span(entry)} ({counted(entry['model_calls'], 'call')})")
    if cost["hidden_by_kind"]:  # among the models' figures: the calls only bodies show
        parts = [
            f"{kind} {cost_span(entry)} ({counted(entry['model_calls'], 'call')})"
            for kind, entry in cost["hidden_by_kind"].items()
        ]
        lines.append(f"    of which hidden calls: {', '.join(parts)}")
    if cost["model_calls_unbounded"]:
        # "without it" is a span only when nothing else leaves the high end open
        rest = cost["model_calls_no_max_output"]
        without = (
            "" if rest else f": {money_span(cost['low_usd'], cost['high_usd_known'])} without it"
        )
        lines.append(
            f"    no bound: {counted(cost['model_calls_unbounded'], 'call')} recorded no input "
            f"(CC-REC-USAGE-INCOMPLETE-NO-INPUT), which is in neither end{without}"
        )
    if cost["model_calls_no_max_output"]:
        models = ", ".join(
            name for name, entry in cost["by_model"].items() if entry["model_calls_no_max_output"]
        )
        lines.append(
            f"    no bound: {counted(cost['model_calls_no_max_output'], 'usage-incomplete call')} "
            f"of models the card states no max_output_tokens for ({models}): in the figure at "
            "the output they recorded, with no high end; a contract's max_output_tokens, the "
            "output limit Claude Code requested, bounds them"
        )
    if cost["model_calls_usage_incomplete"]:
        # with hidden calls, one with no stop reason may be bounded by its request instead
        hidden = bool(cost["hidden_by_kind"])
        width = cost["usage_incomplete_width_usd"]
        limits = "; ".join(
            f"{model} {entry['max_output_tokens']:,}"
            for model, entry in cost["by_model"].items()
            if entry["model_calls_usage_incomplete"]
        )
        lines.append(
            f"    width: {money_span(width, width)} of it is in "
            f"{counted(cost['model_calls_usage_incomplete'], 'usage-incomplete call')}, "
            f"whose output is priced up to the card's max_output_tokens ({limits})"
            + (", or a hidden call's up to its request's max_tokens" if hidden else "")
            + "; a contract's max_output_tokens, set to the output limit Claude Code requested, "
            + ("narrows the card's" if hidden else "narrows it")
        )
    if cost["model_calls_assumed_standard"]:
        lines.append(
            f"    assumed: {counted(cost['model_calls_assumed_standard'], 'call')} whose "
            "recorded usage (a transcript's, or a hidden call's response) did not state every "
            "billing field (service_tier, speed or "
            "inference_geo: absent or empty), priced between standard and the multipliers the "
            "card states for those fields, such as data residency's (inference_geo=us); none it "
            "does not state, such as fast mode, is assumed (a contract states it)"
        )
    lacks = {
        "model": "a model the card does not know",
        "billing-context": "a billing context the card does not price",
        "web-search": "no web-search price on the card",
        "long-context": "more than 200,000 input tokens (input, cache reads and cache writes) "
        "before 2026-03-14, when the model's long-context rates still applied, which the "
        "card's one tier does not give",
        "cost-too-large": "a cost of 10^20 USD or more, from prices past any real one",
    }
    for reason, calls in cost["not_priced_for_lack_of"].items():
        lines.append(
            f"    not priced: {counted(calls, 'model call')}: {lacks[reason]} "
            f"({_STATES.get(reason, 'a contract states it')})"
        )
    if cost["tool_calls_not_priced"]:
        lines.append(
            f"    not priced: {counted(cost['tool_calls_not_priced'], 'tool call')} of tools "
            "whose price is yours to state in a contract (MCP; built-in tools cost nothing)"
        )
    left_out = cost.get("spend_left_out") or []
    if left_out:  # as scan's `+`: the findings above say which and where
        only_split = set(left_out) == {"CC-TREE-SPLIT-SESSION"}
        lines.append(
            f"    + spend in no figure: {', '.join(left_out)} (findings, below): "
            "the figure is short of it, and evaluate meets no cost gate with this session's "
            "bundle (EVAL-COST-LEFT-OUT, -UNPRICED or -UNBOUNDED)"
            + (" unless a bundle of each other part is in the workload too" if only_split else "")
        )
    return lines


def _kinds(report: dict[str, Any]) -> str:
    """What the bound files are: transcripts, metadata, workflow journals and manifests, and
    provider bodies."""
    c = report["counts"]
    bodies = report.get("provider_files", 0)
    workflow = report["bound_files"] - c["transcript_files"] - c["meta_files"] - bodies
    parts = [counted(c["transcript_files"], "transcript"), f"{c['meta_files']:,} metadata"]
    if workflow:
        parts.append(f"{workflow:,} workflow")
    if bodies:
        parts.append(counted(bodies, "provider body", "provider bodies"))
    return ", ".join(parts)


# What `auxiliary_calls` means, as inspect says it.
_AUXILIARY = {
    "observed": "every call no transcript records was looked for in the bodies' index",
    "not-observed": "the bodies' index does not name every complete call's response, or there "
    "is none: calls no transcript records may be missing",
}
# What a provider-bodies count of `not_read` counts, where it is not index lines.
_NOT_READ_UNIT = {"CC-BODY-NONE-SELECTED": "folder"}


def _places(places: list[dict[str, Any]], more: bool) -> str:
    """`at parent/file-… line 57; …`, and whether there are more than are named."""
    by_file: dict[str, list[str]] = {}  # in the order found, each file named once
    for p in places:
        lines = by_file.setdefault(p["file"], [])
        if p["line"] is not None:
            lines.append(str(p["line"]))  # no thousands commas: in a list, 1,475 reads as two
    named = "; ".join(
        f"{file} line{'s' if len(lines) > 1 else ''} {', '.join(lines)}" if lines else file
        for file, lines in by_file.items()
    )
    return f"at {named}" + (", and more (the first found are named)" if more else "")


def render_text(report: dict[str, Any]) -> str:
    c = report["counts"]
    u = report["usage"]
    state = "convertible"
    if not report["convertible"]:  # the codes on stdout too: a saved summary says why
        codes = ", ".join(dict.fromkeys(r["code"] for r in report["refusals"]))
        state = (
            f"NOT convertible ({codes}; each with its fix on stderr)"
            if codes
            else "NOT convertible"
        )
    lines = [
        f"Session tree: {state}",
        f"  {counted(report['bound_files'], 'bound source file')} ({_kinds(report)})",
        f"  {counted(c['subagents'], 'subagent')}, "
        f"{counted(c['delegations_expanded'], 'expanded delegation')}, "
        f"max depth {c['max_depth']}",
        f"  {counted(c['tasks'], 'task')}, {counted(c['model_calls'], 'model call')} "
        f"({c['usage_incomplete_calls']:,} usage-incomplete), "
        f"{counted(c['tool_calls'], 'tool call')}, {counted(c['edges'], 'edge')}, "
        f"{counted(c['synthetic_records'], 'synthetic record')}",
        # `;` between the items: `,` groups the thousands (a walkthrough read one as the other)
        f"  tokens: input {u['input_tokens']:,}; output {u['output_tokens']:,}; "
        f"cache read {u['cache_read_input_tokens']:,}; cache write 5m "
        f"{u['cache_creation_5m_input_tokens']:,} / 1h {u['cache_creation_1h_input_tokens']:,}"
        f" / unsplit {u['cache_creation_unsplit_input_tokens']:,}; web searches "
        f"{u['web_search_requests']:,}",
    ]
    for model, entry in report["by_model"].items():
        lines.append(f"  model {model}: {counted(entry['model_calls'], 'call')}")
    hidden = [
        f"{kind} {a['model_calls']:,}"
        for a in report["by_agent"]
        if (kind := hidden_kind_of(a["kind"]))
    ]
    if hidden:  # SPEC §5.4: by kind (their cost: evaluate's report)
        # by model call, advisor passes each one; the finding and a bundle's hidden_calls count
        # responses: the difference said, not left to look like two counts of one thing (a
        # provider-bodies audit: "compaction 2" beside "CC-BODY-HIDDEN-CALL: 1 time")
        calls = sum(a["model_calls"] for a in report["by_agent"] if hidden_kind_of(a["kind"]))
        responses = next(
            (f["count"] for f in report["findings"] if f["code"] == "CC-BODY-HIDDEN-CALL"), calls
        )
        passes = calls - responses
        lines.append(
            f"  hidden calls (provider bodies only), among the model calls: {', '.join(hidden)}"
            + (
                f" ({counted(responses, 'response')} and "
                f"{counted(passes, 'advisor pass', 'advisor passes')}, each a call)"
                if passes > 0
                else ""
            )
        )
    if "auxiliary_calls" in report:  # what a bundle made from these files would say
        said = report["auxiliary_calls"]
        lines.append(f"  auxiliary calls: {said} ({_AUXILIARY[said]})")
    if "card_cost" in report:
        lines += _cost_lines(report["card_cost"])
        unsplit = u["cache_creation_unsplit_input_tokens"]
        if unsplit and report["card_cost"]["model_calls_priced"]:
            # a walkthrough: the low end took the 5m rate for them, said nowhere, and its
            # contract's "1h" (as the docs advise) came out above scan's low end
            lines.append(
                f"    unsplit: {counted(unsplit, 'cache-write token')} with no 5m/1h split are "
                "priced at the 5m rate in the low end and the 1h rate in the high; a "
                "contract's unsplit_cache_write_rule picks one (Claude Code writes mostly 1h)"
            )
    if report["findings"]:
        lines.append("Findings (recorded, not refusals):")
        for f in report["findings"]:
            lines.append(
                f"  {f['code']}: {counted(f['count'], 'time')}. {CODES[f['code']].message}"
            )
            if (places := report["finding_places"].get(f["code"])) is not None:
                lines.append(f"    {_places(places['at'], places['more'])}")
    tree = [f for f in report["not_read"] if not f["code"].startswith("CC-BODY-")]
    if tree:
        lines.append("Not read (no model call in them; not bound):")
        lines += [
            f"  {f['code']}: {counted(f['count'], 'file')}. {CODES[f['code']].message}"
            for f in tree
        ]
    later = [f for f in report["not_read"] if f["code"].startswith("CC-BODY-")]
    if later:
        lines.append("Not read yet (not bound):")
        lines += [
            f"  {f['code']}: {counted(f['count'], _NOT_READ_UNIT.get(f['code'], 'line'))}. "
            f"{CODES[f['code']].message}"
            for f in later
        ]
    return "\n".join(lines)
