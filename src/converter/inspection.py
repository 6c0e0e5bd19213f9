"""The `inspect` report: a summary view of a PublicAccount (issue #2's JSON object)."""

from __future__ import annotations

from typing import Any

from converter.firewall.view import PublicAccount, UsageTotals

_USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_5m_input_tokens",
    "cache_creation_1h_input_tokens",
    "cache_creation_unsplit_input_tokens",
    "web_search_requests",
)


def _usage(total: list[int]) -> dict[str, int]:
    return dict(zip(_USAGE_KEYS, total, strict=True))


def _add(total: list[int], usage: UsageTotals) -> None:
    for i, key in enumerate(_USAGE_KEYS):
        total[i] += getattr(usage, key)


def inspect_report(account: PublicAccount) -> dict[str, Any]:
    total = [0] * len(_USAGE_KEYS)
    by_model: dict[str, dict[str, Any]] = {}
    calls_by_agent: dict[str, int] = {}
    for event in account.model_events:
        _add(total, event.usage)
        entry = by_model.setdefault(
            event.model, {"model_calls": 0, "usage": [0] * len(_USAGE_KEYS)}
        )
        entry["model_calls"] += 1
        _add(entry["usage"], event.usage)
        calls_by_agent[event.agent] = calls_by_agent.get(event.agent, 0) + 1
    counts = account.counts.model_dump()
    counts.pop("bound_files")
    return {
        "convertible": account.convertible,
        "key_id": account.key_id,
        "refusals": [r.model_dump() for r in account.refusals],
        "findings": [f.model_dump() for f in account.findings],
        "counts": counts,
        "bound_files": account.counts.bound_files,
        "usage": _usage(total),
        "by_model": {
            name: {"model_calls": v["model_calls"], "usage": _usage(v["usage"])}
            for name, v in sorted(by_model.items())
        },
        "by_agent": [
            {
                "agent": a.id,
                "agent_type": a.agent_type,
                "kind": a.kind,
                "depth": a.depth,
                "model_calls": calls_by_agent.get(a.id, 0),
            }
            for a in account.agents
        ],
        "claude_code_versions": list(account.claude_code_versions),
    }


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def render_text(report: dict[str, Any]) -> str:
    c = report["counts"]
    u = report["usage"]
    state = "convertible" if report["convertible"] else "NOT convertible"
    lines = [
        f"Session tree: {state}",
        f"  {report['bound_files']} bound source files ({c['transcript_files']} transcripts, "
        f"{c['meta_files']} metadata)",
        f"  {_n(c['subagents'], 'subagent')}, "
        f"{_n(c['delegations_expanded'], 'expanded delegation')}, "
        f"max depth {c['max_depth']}",
        f"  {c['tasks']} tasks, {c['model_calls']} model calls "
        f"({c['usage_incomplete_calls']} usage-incomplete), {c['tool_calls']} tool calls, "
        f"{c['edges']} edges, {c['synthetic_records']} synthetic records",
        f"  tokens: input {u['input_tokens']:,}, output {u['output_tokens']:,}, "
        f"cache read {u['cache_read_input_tokens']:,}, cache write 5m "
        f"{u['cache_creation_5m_input_tokens']:,} / 1h {u['cache_creation_1h_input_tokens']:,}"
        f" / unsplit {u['cache_creation_unsplit_input_tokens']:,}, web searches "
        f"{u['web_search_requests']}",
    ]
    for model, entry in report["by_model"].items():
        lines.append(f"  model {model}: {entry['model_calls']} calls")
    if report["findings"]:
        lines.append("Findings:")
        lines += [f"  {f['code']}: {f['count']}" for f in report["findings"]]
    return "\n".join(lines)
