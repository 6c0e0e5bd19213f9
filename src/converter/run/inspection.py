"""The `inspect` report: the JSON object of a PublicSummary (issue #2's report)."""

from __future__ import annotations

from typing import Any

from converter.errors import CODES
from converter.firewall.view import PublicSummary, UsageTotals
from converter.text import counted

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
    return {
        "convertible": summary.convertible,
        "key_id": summary.key_id,
        "refusals": [r.model_dump() for r in summary.refusals],
        "findings": [f.model_dump() for f in summary.findings],
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


def _kinds(report: dict[str, Any]) -> str:
    """What the bound files are: transcripts, metadata, and workflow journals and manifests."""
    c = report["counts"]
    workflow = report["bound_files"] - c["transcript_files"] - c["meta_files"]
    parts = [counted(c["transcript_files"], "transcript"), f"{c['meta_files']:,} metadata"]
    if workflow:
        parts.append(f"{workflow:,} workflow")
    return ", ".join(parts)


def render_text(report: dict[str, Any]) -> str:
    c = report["counts"]
    u = report["usage"]
    state = "convertible" if report["convertible"] else "NOT convertible"
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
        f"  tokens: input {u['input_tokens']:,}, output {u['output_tokens']:,}, "
        f"cache read {u['cache_read_input_tokens']:,}, cache write 5m "
        f"{u['cache_creation_5m_input_tokens']:,} / 1h {u['cache_creation_1h_input_tokens']:,}"
        f" / unsplit {u['cache_creation_unsplit_input_tokens']:,}, web searches "
        f"{u['web_search_requests']}",
    ]
    for model, entry in report["by_model"].items():
        lines.append(f"  model {model}: {counted(entry['model_calls'], 'call')}")
    if report["findings"]:
        lines.append("Findings (recorded, not refusals):")
        lines += [
            f"  {f['code']}: {counted(f['count'], 'time')}. {CODES[f['code']].message}"
            for f in report["findings"]
        ]
    return "\n".join(lines)
