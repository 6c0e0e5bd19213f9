"""Independent reference counter ("oracle") for Claude Code session trees.

Pure standard library, written without looking at the product code. It implements the
accounting rules of SPEC.md §4 in the most literal way it can, so that tests can compare the
product's ``inspect --json`` numbers against it:

* A tree is one parent ``<dir>/<session>.jsonl`` plus its children:
  ``<dir>/<session>/subagents/agent-*.jsonl``,
  ``<dir>/<session>/subagents/workflows/*/agent-*.jsonl`` and (2.0.x layout)
  ``<dir>/agent-<7-8 hex>.jsonl`` whose ``sessionId`` equals the parent's. 1.0.x sidechain
  records live inside the parent file and need nothing special.
* Files are read parent first, then children in sorted relative-path order; records are taken
  in line order. A record whose ``uuid`` was already seen is dropped (first copy wins).
* Assistant records with model ``<synthetic>`` or ``isApiErrorMessage: true`` are not calls;
  they are counted as ``synthetic_records``.
* One call = one ``message.id``. Its usage is the usage of its LAST fragment. The call is
  usage-incomplete when that fragment has neither a non-null ``stop_reason`` nor a list-valued
  ``usage.iterations``.
* ``progress`` records (and anything else that is not a top-level ``assistant`` record) never
  count, so ``data.message`` copies are ignored by construction.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

SYNTHETIC_MODEL = "<synthetic>"
_AGENT_20X = re.compile(r"^agent-[0-9a-f]{7,8}\.jsonl$")

USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_5m_input_tokens",
    "cache_creation_1h_input_tokens",
    "cache_creation_unsplit_input_tokens",
    "web_search_requests",
)


def _read_records(path: Path) -> tuple[list[dict[str, Any]], int]:
    """All JSON-object lines of a file, in order, and the count of lines that did not parse."""
    records: list[dict[str, Any]] = []
    bad = 0
    with path.open("rb") as fh:
        for raw in fh:
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except ValueError:
                bad += 1
                continue
            if isinstance(obj, dict):
                records.append(obj)
            else:
                bad += 1
    return records, bad


def _session_id(path: Path) -> str | None:
    records, _ = _read_records(path)
    for rec in records:
        sid = rec.get("sessionId")
        if isinstance(sid, str):
            return sid
    return None


def tree_files(parent_path: str | Path) -> tuple[list[Path], list[Path]]:
    """(transcript files in reading order, meta files) of the tree rooted at parent_path."""
    parent = Path(parent_path)
    session_dir = parent.parent / parent.stem
    children: list[Path] = []
    subagents = session_dir / "subagents"
    if subagents.is_dir():
        children.extend(subagents.glob("agent-*.jsonl"))
        children.extend(subagents.glob("workflows/*/agent-*.jsonl"))
    parent_sid = _session_id(parent)
    if parent_sid is not None:
        for sibling in parent.parent.iterdir():
            if (
                sibling != parent
                and _AGENT_20X.match(sibling.name)
                and _session_id(sibling) == parent_sid
            ):
                children.append(sibling)
    children.sort(key=lambda p: p.relative_to(parent.parent).as_posix())
    metas: list[Path] = []
    if subagents.is_dir():
        metas.extend(subagents.glob("agent-*.meta.json"))
        metas.extend(subagents.glob("workflows/*/agent-*.meta.json"))
    metas.sort()
    return [parent, *children], metas


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _is_synthetic(rec: dict[str, Any]) -> bool:
    msg = rec.get("message")
    model = msg.get("model") if isinstance(msg, dict) else None
    return model == SYNTHETIC_MODEL or rec.get("isApiErrorMessage") is True


def count_tree(parent_path: str | Path) -> dict[str, Any]:
    """Reference counts for one session tree (same meaning as ``inspect --json``)."""
    files, metas = tree_files(parent_path)
    seen_uuids: set[str] = set()
    versions: set[str] = set()
    synthetic = 0
    unparseable = 0
    no_message_id = 0
    last_fragment: dict[str, dict[str, Any]] = {}  # message.id -> last fragment's message
    tool_ids: set[str] = set()
    websearch_ids: set[str] = set()

    for path in files:
        records, bad = _read_records(path)
        unparseable += bad
        for rec in records:
            uuid = rec.get("uuid")
            if isinstance(uuid, str):
                if uuid in seen_uuids:
                    continue
                seen_uuids.add(uuid)
            version = rec.get("version")
            if isinstance(version, str):
                versions.add(version)
            if rec.get("type") != "assistant":
                continue
            if _is_synthetic(rec):
                synthetic += 1
                continue
            msg = rec.get("message")
            if not isinstance(msg, dict):
                no_message_id += 1
                continue
            mid = msg.get("id")
            if not isinstance(mid, str):
                no_message_id += 1
                continue
            last_fragment[mid] = msg  # later fragments overwrite: last one wins
            content = msg.get("content")
            if isinstance(content, list):
                for block in content:
                    if isinstance(block, dict) and block.get("type") == "tool_use":
                        tid = block.get("id")
                        if isinstance(tid, str):
                            tool_ids.add(tid)
                            if block.get("name") == "WebSearch":
                                websearch_ids.add(tid)

    totals = dict.fromkeys(USAGE_KEYS, 0)
    by_model: dict[str, int] = {}
    incomplete = 0
    for msg in last_fragment.values():
        model = msg.get("model")
        key = model if isinstance(model, str) else "<none>"
        by_model[key] = by_model.get(key, 0) + 1
        usage = msg.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        final = msg.get("stop_reason") is not None or isinstance(usage.get("iterations"), list)
        if not final:
            incomplete += 1
        totals["input_tokens"] += _int(usage.get("input_tokens"))
        totals["output_tokens"] += _int(usage.get("output_tokens"))
        totals["cache_read_input_tokens"] += _int(usage.get("cache_read_input_tokens"))
        split = usage.get("cache_creation")
        split = split if isinstance(split, dict) else {}
        five = _int(split.get("ephemeral_5m_input_tokens"))
        hour = _int(split.get("ephemeral_1h_input_tokens"))
        totals["cache_creation_5m_input_tokens"] += five
        totals["cache_creation_1h_input_tokens"] += hour
        totals["cache_creation_unsplit_input_tokens"] += (
            _int(usage.get("cache_creation_input_tokens")) - five - hour
        )
        server = usage.get("server_tool_use")
        server = server if isinstance(server, dict) else {}
        totals["web_search_requests"] += _int(server.get("web_search_requests"))

    result: dict[str, Any] = {
        "transcript_files": len(files),
        "meta_files": len(metas),
        "model_calls": len(last_fragment),
        "synthetic_records": synthetic,
        "usage_incomplete_calls": incomplete,
        "tool_calls": len(tool_ids),
        "websearch_tool_calls": len(websearch_ids),
        **totals,
        "by_model": dict(sorted(by_model.items())),
        "claude_code_versions": sorted(versions),
        "unparseable_lines": unparseable,
        "assistant_records_without_message_id": no_message_id,
    }
    return result


def corpus_parents(real_root: str | Path) -> list[Path]:
    """Every file the corpus holds as a tree root: a ``*.jsonl`` that is not inside a
    ``<session>/subagents/`` folder and is not a 2.0.x ``agent-<7-8 hex>.jsonl`` sibling."""
    root = Path(real_root)
    parents = []
    for path in root.rglob("*.jsonl"):
        rel = path.relative_to(root).parts
        if "subagents" in rel or _AGENT_20X.match(path.name):
            continue
        parents.append(path)
    return sorted(parents, key=lambda p: p.relative_to(root).as_posix())


def _is_transcript(path: Path) -> bool:
    """A transcript has at least one record with a ``type`` and a ``sessionId`` or ``uuid``,
    or is a Claude Code bookkeeping-only file (a lone ``summary`` / ``last-prompt`` line)."""
    records, _ = _read_records(path)
    for rec in records:
        if "type" in rec and ("sessionId" in rec or "uuid" in rec or "leafUuid" in rec):
            return True
    return False


# Files whose place in a tree the layout rules cannot decide; counted as their own tree.
NOTES = {
    "oneryalcin__fasthooks/specs/data/sample_agent_sidechain.jsonl": (
        "2.0.x agent file renamed by its publisher (not agent-<8 hex>.jsonl); shares its sessionId"
        " with sample_main_transcript.jsonl, which has no Task call; counted as its own tree"
    ),
    "marot__spotter/subagent.jsonl": (
        "a main-stream excerpt despite its name; its Task child file is not in the corpus"
    ),
}


def count_corpus(real_root: str | Path) -> dict[str, dict[str, Any]]:
    root = Path(real_root)
    out: dict[str, dict[str, Any]] = {}
    for parent in corpus_parents(root):
        key = parent.relative_to(root).as_posix()
        result = count_tree(parent)
        if not _is_transcript(parent):
            result["note"] = "not a Claude Code transcript"
        elif key in NOTES:
            result["note"] = NOTES[key]
        out[key] = result
    return out


if __name__ == "__main__":  # pragma: no cover - manual regeneration helper
    import sys

    default = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "real"
    real = Path(sys.argv[1]) if len(sys.argv) > 1 else default
    print(json.dumps(count_corpus(real), indent=2, sort_keys=True))
