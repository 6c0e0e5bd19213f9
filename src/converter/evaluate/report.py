"""Reports from an `Evaluation`: text for terminals, Markdown for PRs and step summaries, JSON.

Renderers only read the result; nothing here computes a verdict. Number formats are in fmt.py.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal

from converter.codec.canonical import pretty_bytes
from converter.errors import CODES
from converter.evaluate.checks import failing_whatever_comes
from converter.evaluate.fmt import number, percent, places_against
from converter.evaluate.inputs import (
    HIDDEN_CALLS,
    ROOT_AGENT,
    Digests,
    Interval,
    hidden_key,
    is_hidden,
)
from converter.evaluate.result import (
    Bounds,
    Evaluation,
    Finding,
    GateResult,
    Measure,
    Metrics,
    PrintedEvaluation,
    Span,
    TaskCost,
)
from converter.limits import MONEY_SUMS, money_sum
from converter.text import counted, usd, usd_span
from converter.vocabulary import HIDDEN_KINDS

_SYMBOL = {"<=": "≤", ">=": "≥"}
_WOULD = {"pass": "pass", "fail": "fail", "indeterminate": "be indeterminate"}
_ZERO = Decimal(0)
# Markdown goes where size is bounded: a GitHub job summary holds 1 MiB and refuses a larger one
# whole; a pull-request comment holds 65,536 characters. A workload of thousands of tasks lists
# its costliest tasks and its first findings, by count and by bytes (a task row grows with each
# subagent type); the JSON report lists every one.
MARKDOWN_TASK_ROWS = 200
MARKDOWN_TASK_BYTES = 30_000
MARKDOWN_FINDINGS = 100
# Subagent types given a column of their own in the Markdown cost table, the costliest; the
# others share one (a walkthrough's 6 bundles made 17 columns, unreadable in a step summary).
MARKDOWN_AGENT_COLUMNS = 5
MARKDOWN_FINDING_BYTES = 12_000


def _value(bounds: Bounds, unit: str, places: int | None = None) -> str:
    span = bounds.ordered()
    if span is None:
        return "n/a"
    low, high = span
    if low == high:
        return number(low, unit, places)
    return f"{number(low, unit, places)} – {number(high, unit, places)}"


def _observed_and_limit(measure: Measure) -> tuple[str, str]:
    """`$26.0000`, `limit ≤ $25.0000`: labelled, so "253, limit ≤ 50 [fail]" never reads as a
    true claim; with the decimals that keep the value on its side of the limit (fmt.py)."""
    span = measure.observed.ordered()
    places = places_against(measure.limit, list(span or ()), measure.unit)
    limit = number(measure.limit, measure.unit, places)
    observed = _value(measure.observed, measure.unit, places)
    if span is None and measure.name == "cost per acceptable outcome":  # why it fails
        observed = "n/a (no acceptable task)"  # (every other measure has a value, or none is)
    if _no_bound(measure):
        # Its value at high cost meets the limit but bounds nothing (EVAL-COST-UNBOUNDED): a
        # span inside the limit beside "indeterminate" read as a mistake (a walkthrough).
        low = number(measure.observed.at_low_cost, measure.unit, places)
        observed = f"{low} at low cost, no bound at high cost"
        if measure.observed.at_high_cost is not None:  # what is priced, which bounds nothing
            # (a FinOps reading: JSON gave the figure, the text and Markdown never did)
            high = number(measure.observed.at_high_cost, measure.unit, places)
            observed += f" (as priced: {high})"
    return observed, f"limit {_SYMBOL[measure.comparison]} {limit}"


def _no_bound(measure: Measure) -> bool:
    """Whether the measure's value at high cost bounds nothing: calls recorded no input, so
    that cost has no high end (`checks._unbounded`), whether the value there meets the limit
    or not (a walkthrough: a failing p95 row showed `$26.66 – $139.61` as a span)."""
    return not measure.high_is_bound and measure.observed.at_low_cost is not None


def _headline(ev: Evaluation) -> str:
    m = ev.metrics
    base = f"{ev.decision} (exit {ev.exit_code}) — {counted(m.tasks, 'task')}, "
    base += f"{ev.excluded_tasks:,} excluded"
    failed = [g.check.id for g in ev.gates if g.status == "fail"]
    if ev.reasons:
        # A gate that routes to ASSIST or STOP and fails whatever the unknowns are is said here:
        # more data would not give SCALE, and a reader of the headline alone should not think so.
        deciding = [
            g.check.id + (" (disabled)" if g.status == "disabled" else "")
            for g in failing_whatever_comes(ev.gates, ev.metrics)
            if g.check.route != "INCOMPLETE"
        ]
        also = f"; already failing: {', '.join(deciding)}" if deciding else ""
        reasons = counted(len(ev.reasons), "reason")
        return f"{base}; {reasons} it is incomplete{also} (at best {ev.at_best})"
    return f"{base}; failed: {', '.join(failed)}" if failed else f"{base}; every gate passes"


def _measure_status(measure: Measure) -> str:
    low, high = measure.passes_at_low_cost, measure.passes_at_high_cost
    return "indeterminate" if low != high else "pass" if low else "fail"


def _gate_rows(gate: GateResult) -> list[tuple[str, str, str, str, str, str]]:
    """One row per measure, each with its own status; a gate without measures gets one row."""
    c = gate.check
    head: tuple[str, str, str] = (f"{c.id} v{c.version}", c.coverage, c.route)
    if not gate.measures:
        return [(*head, "—", "—", gate.status)]
    rows = []
    for m in gate.measures:
        observed, limit = _observed_and_limit(m)
        status = _measure_status(m)
        if gate.status == "disabled":  # what it would have said, beside what it says
            status = f"disabled (would {_WOULD[status]})"
        rows.append((*head, f"{m.name}: {observed}", limit, status))
    return rows


def _as_is(text: str) -> str:
    return text


def _code(text: str) -> str:
    """A Markdown code span: a label a producer typed (`https://…`, `__bold__`) renders as
    itself, never as a link or formatting. No label, name or id can hold a backtick."""
    return f"`{text}`"


def _finding_text(f: Finding, quote: Callable[[str], str] | None = None) -> str:
    parts = [f.code, f"×{f.count}"]
    if f.task:
        parts.append(f"task {f.task}")
    if f.subject:
        parts.append(f"tool {(quote or _as_is)(f.subject)}")
    if f.extent is not None:
        parts.append(f"longest {f.extent}")
    if f.bundle is not None:
        parts.append(f"in bundle {f.bundle}")
    message = CODES[f.code].message if f.code in CODES else ""
    return " ".join(parts) + (f" — {message}" if message else "")


# A column of the cost table: its heading, and the agent types whose costs it sums.
Column = tuple[str, tuple[str, ...]]


def _agent_columns(ev: Evaluation) -> list[Column]:
    """Root agent first, subagent types sorted, hidden calls last. Past MARKDOWN_AGENT_COLUMNS
    subagent types, those whose cost has no high end, then the costliest (high end, then name)
    keep a column and the rest share one (a FinOps reading: a type of no bound, cheap at its
    low end, was folded away while one with a bound kept its column)."""
    keys = {k for t in ev.tasks for k in t.cost_by_agent_type}
    hidden = tuple(hidden_key(kind) for kind in HIDDEN_KINDS)
    middle = sorted(k for k in keys - {ROOT_AGENT} if not is_hidden(k))
    if len(middle) > MARKDOWN_AGENT_COLUMNS:
        spend = ev.metrics.cost_by_agent_type
        open_above = _open_by_type(ev.metrics)
        ranked = sorted(middle, key=lambda k: (not open_above.get(k), -spend[k].high, k))
        kept = sorted(ranked[: MARKDOWN_AGENT_COLUMNS - 1])
        rest = tuple(sorted(ranked[MARKDOWN_AGENT_COLUMNS - 1 :]))
        columns: list[Column] = [(_code(k), (k,)) for k in kept]
        columns.append((f"{len(rest)} other subagent types", rest))
    else:
        columns = [(_code(k), (k,)) for k in middle]
    return [(_code(ROOT_AGENT), (ROOT_AGENT,)), *columns, (_code(HIDDEN_CALLS), hidden)]


def _cell(part: Interval | Span | None, unbounded: int = 0) -> str:
    """A cost in a split (by agent type, by model): `no bound` at its high end when `unbounded`
    of its calls recorded no input."""
    return usd(_ZERO) if part is None else usd_span(part.low, part.high, unbounded)


# Where the cost-per-task table says `no bound` (an audit: a task's row gave a range while the
# total said no bound, and its JSON no mark of it).
_NO_BOUND_LEGEND = (
    "`no bound`: some of that cost is in no figure, so its high end bounds nothing: calls that "
    "recorded no input (usage-incomplete or final) and WebSearch calls whose search count is "
    "unknown leave their task's cost open, and their agent's and model's (a search is priced "
    "on the call that requested it); findings of a bundle that some spend is in no cost and "
    "that name no task (the evidence completeness below lists each) leave every task of that "
    "bundle open, in its Effective column."
)

NOT_OBSERVED = "n/o"
_NOT_OBSERVED_LEGEND = (
    f"{NOT_OBSERVED}: not observed — calls that no transcript records (session titles, "
    "compaction calls outside a compaction agent's transcript, web-search side calls) are not "
    "in these costs: no provider bodies were given, or they were not looked for in all of "
    "them (no index.jsonl, before Claude Code 2.1.274; a call whose response it does not "
    "name); not a zero. An amount followed by `+ n/o` is the hidden calls found; others may "
    "not have been looked for."
)


def _agent_cell(
    ev: Evaluation,
    column: Column,
    costs: dict[str, Interval] | dict[str, Span],
    unbounded: dict[str, int],
    bundle: int | None = None,
) -> str:
    """The cost of a column's agent types; hidden calls that were never looked for are `n/o`,
    not `$0`: a task's, by its `bundle`; the total's, where any bundle's were not (the sum of
    those that were, then `+ n/o`)."""
    keys = column[1]
    parts = [costs[k] for k in keys if k in costs]
    observed = ev.auxiliary_calls
    if bundle is not None and ev.auxiliary_by_bundle:
        observed = ev.auxiliary_by_bundle[bundle - 1]
    unseen = column[0] == _code(HIDDEN_CALLS) and observed == "not-observed"
    if not parts:
        return NOT_OBSERVED if unseen else _cell(None)
    low, high = _sum([p.low for p in parts]), _sum([p.high for p in parts])
    shown = usd_span(low, high, sum(unbounded.get(k, 0) for k in keys))
    return f"{shown} + {NOT_OBSERVED}" if unseen else shown


def _sum(values: list[Decimal]) -> Decimal:
    return money_sum(values)


def _digest_lines(ev: Evaluation, quote: Callable[[str], str] = _as_is) -> list[str]:
    d = ev.digests
    lines = [f"decision contract: {ev.decision_contract_sha256}"]
    if len(d.evidence_sha256) == 1:
        lines += [f"evidence: {d.evidence_sha256[0]}"]
        lines += [f"conversion contract: {c}" for c in d.contract_sha256]
    else:  # numbered as the tasks name their bundle
        lines += [f"evidence, bundle {n}: {e}" for n, e in enumerate(d.evidence_sha256, 1)]
        lines += [
            f"conversion contract, bundle {n}: {c}" for n, c in enumerate(d.contract_sha256, 1)
        ]
    own = ""
    if (d.own_prices or d.own_max_output_tokens) and d.price_card_id != "none":
        whole, contexts = _own_split(ev)
        parts = [counted(len(whole), "model")] if whole else []
        count = sum(map(len, contexts.values()))
        parts += [counted(count, "billing context")] if count else []
        bounds = len(d.own_max_output_tokens)
        parts += [f"{bounds:,} max_output_tokens"] if bounds else []
        listed = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
        own = f"; priced by the contract, not the card: {listed}"

    def card(card_id: str) -> str:  # a card not shipped is not a list price: its prices are own
        unshipped = card_id in d.unshipped_price_cards
        return quote(card_id) + (" (not shipped with this version: unchecked)" if unshipped else "")

    lines += [
        (
            f"price card: {card(d.price_card_id)}"
            if len(set(d.price_card_ids)) < 2
            else "price cards, one per bundle: "
            f"{', '.join(card(i) for i in d.price_card_ids)} (where two bundles use one price, they agree)"
        )
        + own,
        f"rubric: {quote(d.rubric_version)} (labels: {quote(d.label_source)})",
        f"signatures: every attestation verified with key {d.signed_by}"
        if d.signed_by
        else "signatures: not checked (evaluate --public-key checks them)",
        _limits_line(d),
    ]
    return lines


def _limits_line(d: Digests) -> str:
    """Whose limits decided: a team's policy file (by digest, with what it left to the
    bundles), or whatever the bundles carry."""
    if d.limits_required_by is None:
        return "limits: the bundles' own (evaluate --policy requires a team's file)"
    total = len(d.limits_fixed) + len(d.limits_left)
    line = (
        f"limits: {len(d.limits_fixed)} of {total} fixed by the policy file {d.limits_required_by}"
    )
    if d.limits_left:
        line += f"; the bundles' own: {', '.join(d.limits_left)}"
    return line


def _hidden_by_kind(ev: Evaluation) -> str:
    """`, of which <kind> <cost>, ...`: what the hidden calls cost, by kind (SPEC §5.4)."""
    m = ev.metrics
    parts = [
        f"{kind} {_cell(m.cost_by_agent_type[key], m.unbounded_by_agent_type.get(key, 0))}"
        for kind in HIDDEN_KINDS
        if (key := hidden_key(kind)) in m.cost_by_agent_type
    ]
    return f"; hidden calls (provider bodies only): {', '.join(parts)}" if parts else ""


def _completeness_lines(ev: Evaluation) -> list[str]:
    m = ev.metrics
    return [
        f"usage-incomplete calls: {m.usage_incomplete_calls}"
        + (
            f", {m.unbounded_calls:,} of which recorded no input: their input is in no figure, "
            "so no high end bounds their cost (a task's, an agent's or a model's)"
            if m.unbounded_calls
            else ""
        ),
        f"auxiliary calls: {ev.auxiliary_calls}" + _hidden_by_kind(ev),
        f"cache read share: {percent(m.cache_read_tokens, m.input_tokens_total)}"
        f" ({m.cache_read_tokens:,} of {counted(m.input_tokens_total, 'input token')})",
    ]


def _remedies(ev: Evaluation) -> list[tuple[str, str]]:
    """What to do about each kind of reason the decision is INCOMPLETE, once per code."""
    codes = dict.fromkeys(r.code for r in ev.reasons)
    return [(code, CODES[code].fix) for code in codes]


def _left_out_of_high(ev: Evaluation) -> str:
    """What the total's high end leaves out, when it is no bound: ` (high end $X without A, B
    and C)`, the figure named (a new user's reading: a bare amount looked like a second total),
    each kind once (a walkthrough: each kind its own parenthesis, stacked, and the figure
    said only for calls that recorded no input)."""
    m = ev.metrics
    left = []
    if m.unbounded_calls:
        left.append(f"the input of the {counted(m.unbounded_calls, 'call')} that recorded none")
    if m.unpriced_calls:
        calls = counted(m.unpriced_calls, "call")
        left.append(f"the requests of {calls} to a server tool no price covers")
    if m.spend_left_out:
        says = "says" if m.spend_left_out == 1 else "say"
        findings = counted(m.spend_left_out, "finding")
        left.append(f"the spend {findings} of the bundles {says} is in no cost")
    if not left:
        return ""
    listed = left[0] if len(left) == 1 else ", ".join(left[:-1]) + " and " + left[-1]
    return f" (high end {usd(m.total_effective_cost.high)} without {listed})"


def render_text(ev: Evaluation) -> str:
    out = [f"Decision: {_headline(ev)}"]
    out += [f"  because {r.code}: {r.text()}" for r in ev.reasons]
    out += [f"  to complete it ({code}): {fix}" for code, fix in _remedies(ev)]
    out += ["", "Gates:"]
    for gate in ev.gates:
        for name, coverage, route, observed, limit, status in _gate_rows(gate):
            out.append(f"  [{status}] {name} ({coverage}, fails to {route}): {observed}, {limit}")
    m = ev.metrics
    out += [
        "",
        "Total effective cost: "
        + usd_span(m.total_effective_cost.low, m.total_effective_cost.high, _open_calls(ev))
        + _left_out_of_high(ev),
        *_spend_lines(ev),
        f"Baseline {ev.baseline.name}: net value per attempt {usd(m.baseline_net_value_per_attempt)}",
        "",
        "Evidence completeness:",
    ]
    out += [f"  {line}" for line in _completeness_lines(ev)]
    out += [f"  {_finding_text(f)}" for f in ev.findings] or ["  no findings"]
    out += ["", "Digests:"] + [f"  {line}" for line in _digest_lines(ev)]
    return "\n".join(out) + "\n"


def _table(header: list[str], rows: list[list[str]], right: int = 1) -> list[str]:
    align = ["---"] * min(right, len(header)) + ["---:"] * (len(header) - right)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    # a `|` in a cell (a billing context, standard|fast|absent) would end it
    return lines + [
        "| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows
    ]


def _within(lines: Iterable[tuple[int, str]], count: int, budget: int) -> list[str]:
    """The lines, in the order given, while both `count` lines and `budget` bytes hold (one at
    least); returned in the order of their keys."""
    kept: list[tuple[int, str]] = []
    used = 0
    for key, line in lines:
        size = len(line.encode())
        if kept and (len(kept) == count or used + size > budget):
            break
        kept.append((key, line))
        used += size
    return [line for _, line in sorted(kept)]


def _task_row(ev: Evaluation, columns: list[Column], t: TaskCost) -> str:
    several = len(ev.digests.evidence_sha256) > 1  # which bundle holds it: its evidence digest
    cells = [
        f"`{t.id}`" + (f" (bundle {t.bundle})" if several else ""),
        t.started_at or "—",
        "yes" if t.acceptable else "no",
        *(_agent_cell(ev, c, t.cost_by_agent_type, _open_by_type(t), t.bundle) for c in columns),
        usd(t.human_usd),
        usd(t.remediation_usd),
        usd(t.incident_loss_usd),
        usd_span(t.effective.low, t.effective.high, not t.high_is_bound),
    ]
    return "| " + " | ".join(cells) + " |"


def _open_by_type(costs: TaskCost | Metrics) -> dict[str, int]:
    """By agent type, what leaves its cost no high end: calls that recorded no input, and
    events whose spend is partly in no cost (a WebSearch of unknown count, a call final with
    no input)."""
    both = Counter(costs.unbounded_by_agent_type)
    both.update(costs.left_out_by_agent_type)
    return dict(both)


def _in_start_order(tasks: Sequence[TaskCost]) -> list[TaskCost]:
    """The tasks as the template listed them: bundle by bundle, each bundle's in its order (the
    prompts' order in the transcript; the JSON report lists them by id, which is no order a
    reader can follow, and times can tie at a coarse precision, or be missing)."""
    return sorted(tasks, key=lambda t: (t.bundle, t.position, t.id))


def _costliest_rows(ev: Evaluation, columns: list[Column]) -> list[str]:
    """Every task's row when they fit; else the costliest (effective cost, high bound; earlier
    first on a tie) that fit; in start order either way."""
    tasks = _in_start_order(ev.tasks)
    ranked = sorted(range(len(tasks)), key=lambda i: (-tasks[i].effective.high, i))
    rows = ((i, _task_row(ev, columns, tasks[i])) for i in ranked)
    return _within(rows, MARKDOWN_TASK_ROWS, MARKDOWN_TASK_BYTES)


def _open_calls(ev: Evaluation) -> int:
    """Calls that leave the workload's total cost with no high end: those that recorded no
    input, and those of a server tool no price covers (which task's is not published: every
    task of its bundle is open), and findings that some spend is in no cost."""
    return ev.metrics.unbounded_calls + ev.metrics.unpriced_calls + ev.metrics.spend_left_out


def _model_rows(ev: Evaluation) -> list[list[str]]:
    """Each model's spend, then the tool calls' (priced per call, no model's), then the sum of
    both: the same total as the cost-per-task table's agent columns."""
    m = ev.metrics
    own = _own_by_model(ev)
    rows = [
        [
            f"`{name}`" + (f" ({own[name]})" if name in own else ""),
            _cell(span, m.unbounded_by_model.get(name, 0) + m.left_out_by_model.get(name, 0)),
        ]
        for name, span in m.cost_by_model.items()
    ]
    parts = m.cost_by_agent_type.values()
    low, high = _sum([p.low for p in parts]), _sum([p.high for p in parts])
    models = m.cost_by_model.values()
    tools_low = MONEY_SUMS.subtract(low, _sum([p.low for p in models]))
    tools_high = MONEY_SUMS.subtract(high, _sum([p.high for p in models]))
    rows.append(["tool calls", usd_span(tools_low, tools_high)])
    rows.append(["**all**", usd_span(low, high, _open_calls(ev))])
    return rows


def _spend_lines(ev: Evaluation) -> list[str]:
    """What the total is made of, for the text report: the agents' spend, by model as the
    Markdown's table has it (a walkthrough read the total, human time in it, as what the agents
    cost), then the rest of the effective cost."""
    rows = _model_rows(ev)
    (_, every), parts = rows[-1], rows[:-1]
    unseen = " (calls no transcript records: not observed)"
    human, remediation, incident = _outcome_costs(ev)
    return [
        f"  agents' spend: {every}" + (unseen if ev.auxiliary_calls == "not-observed" else ""),
        *(f"    {_plain(name)}: {spend}" for name, spend in parts),
        f"  human time: {human}; remediation: {remediation}; incident loss: {incident}",
        # (a FinOps reading: the model lines added up to $0.0001 off the total)
        "  (each amount rounded to $0.0001 on its own; each total is the exact sum, rounded once)",
    ]


def _outcome_costs(ev: Evaluation) -> tuple[str, str, str]:
    """The rest of the effective cost, summed over the tasks: human time, remediation and
    incident loss, each as `usd` says it."""
    tasks = ev.tasks
    return (
        usd(_sum([t.human_usd for t in tasks])),
        usd(_sum([t.remediation_usd for t in tasks])),
        usd(_sum([t.incident_loss_usd for t in tasks])),
    )


def _plain(cell: str) -> str:
    """A Markdown cell's model name as text: `claude-x` (note) -> claude-x (note)."""
    return cell.replace("`", "")


def _own_split(ev: Evaluation) -> tuple[set[str], dict[str, list[str]]]:
    """The models the contracts priced whole, and per other model the billing contexts whose
    multiplier they chose (`digests.own_prices`)."""
    whole = {p.model for p in ev.digests.own_prices if p.context is None}
    contexts: dict[str, list[str]] = {}
    for p in ev.digests.own_prices:
        if p.context is not None and p.model not in whole:
            contexts.setdefault(p.model, []).append(p.context)
    return whole, contexts


def _own_by_model(ev: Evaluation) -> dict[str, str]:
    """Per model, what of its prices the contracts chose, not the card they name."""
    whole, contexts = _own_split(ev)
    said = dict.fromkeys(sorted(whole), "the contract's own prices, not a card's")
    for model, keys in contexts.items():
        said[model] = "the contract's own multiplier for " + ", ".join(keys)
    for bound in ev.digests.own_max_output_tokens:  # the high end of its unfinished calls
        mine = f"the contract's own max_output_tokens, {bound.max_output_tokens:,}"
        said[bound.model] = f"{said[bound.model]}; {mine}" if bound.model in said else mine
    return said


def render_markdown(ev: Evaluation) -> str:
    out = [f"**Decision: {_headline(ev)}**", ""]
    if ev.reasons:
        out += [f"- `{r.code}`: {r.text()}" for r in ev.reasons] + [""]
        out += [f"To complete it (`{code}`): {fix}" for code, fix in _remedies(ev)] + [""]
    out += ["### Gates", ""]
    rows = [list(row) for gate in ev.gates for row in _gate_rows(gate)]
    out += _table(["Gate", "Coverage", "Fails to", "Observed", "Limit", "Status"], rows, right=6)
    out += ["", "### Cost per task", ""]
    columns = _agent_columns(ev)
    header = [
        "Task",
        "Started",
        "Acceptable",
        *(title for title, _ in columns),
        "Human",
        "Remediation",
        "Incident",
        "Effective",
    ]
    shown = _costliest_rows(ev, columns)
    m = ev.metrics
    total = ["**all**", "", f"{m.acceptable_tasks}/{m.tasks}"]
    total += [_agent_cell(ev, c, m.cost_by_agent_type, _open_by_type(m)) for c in columns]
    total += [
        *_outcome_costs(ev),
        usd_span(m.total_effective_cost.low, m.total_effective_cost.high, _open_calls(ev)),
    ]
    table = _table(header, [total], right=3)
    out += [*table[:2], *shown, *table[2:]]
    out += [
        "",
        "Each amount is rounded to $0.0001 on its own; the **all** row is the exact sum, "
        "rounded once, so it can differ from the rows shown in the last place.",
    ]
    if not m.high_is_bound or not all(t.high_is_bound for t in ev.tasks):
        out += ["", _NO_BOUND_LEGEND]
    folded = [keys for _, keys in columns[1:-1] if len(keys) > 1]  # not main, not hidden
    if folded:
        out += [
            "",
            f"Only {MARKDOWN_AGENT_COLUMNS - 1} subagent types have a column of their own (those "
            "whose cost has no high end first, then the costliest); the other "
            f"{len(folded[0]):,} share one (`--format json` lists each: `cost_by_agent_type`).",
        ]
    if len(shown) < len(ev.tasks):
        out += [
            "",
            f"The {len(shown):,} costliest of {counted(len(ev.tasks), 'task')} (by effective "
            "cost, high bound), in start order; the **all** row sums every task, and "
            "`--format json` lists each.",
        ]
    out += [
        "",
        f"Baseline {_code(ev.baseline.name)}: net value per attempt "
        f"{usd(m.baseline_net_value_per_attempt)}",
    ]
    if ev.auxiliary_calls == "not-observed":
        out += ["", _NOT_OBSERVED_LEGEND]
    out += ["", "### Cost per model", ""]
    out += _table(["Model", "Spend"], _model_rows(ev))
    out += ["", "### Evidence completeness", ""]
    out += [f"- {line}" for line in _completeness_lines(ev)]
    lines = ((i, f"- {_finding_text(f, _code)}") for i, f in enumerate(ev.findings))
    listed = _within(lines, MARKDOWN_FINDINGS, MARKDOWN_FINDING_BYTES)
    out += listed or ["- no findings"]
    if len(listed) < len(ev.findings):
        more = len(ev.findings) - len(listed)
        out.append(f"- … and {counted(more, 'more finding')} (`--format json` lists each)")
    out += ["", "### Digests", ""] + [f"- {line}" for line in _digest_lines(ev, _code)]
    return "\n".join(out) + "\n"


def render_json(ev: Evaluation) -> str:
    """The result model with decimals as strings, plus each reason's sentence. No float:
    checked as `PrintedEvaluation`, the published schema's model (a ValidationError is a bug,
    exit 70, as for inspect's and scan's reports), and encoded as every pretty file is."""
    data = ev.model_dump(mode="json")
    data["reasons"] = [
        {**entry, "text": reason.text(), "fix": CODES[reason.code].fix}
        for entry, reason in zip(data["reasons"], ev.reasons, strict=True)
    ]
    text = pretty_bytes(data).decode()
    PrintedEvaluation.model_validate_json(text)
    return text
