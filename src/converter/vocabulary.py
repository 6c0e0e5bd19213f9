"""Words every stage shares, spelled once: the models, the pipeline and the CLI's choices all
take them from here (adding a value is one edit, and mypy sees every use)."""

from __future__ import annotations

from typing import Literal, get_args

# What one task is (SPEC §5.1): one root human prompt, or the whole session tree.
TaskUnit = Literal["prompt", "session"]
# The source adapters (SPEC §2): a session's whole tree, or one transcript file on its own.
SourceName = Literal["claude-code-tree", "claude-code"]
# How precise a timestamp that crosses is (a contract's `privacy.timestamps`, `--timestamps`).
TimestampPrecision = Literal["exact", "minute", "hour", "day"]

# What a call only provider bodies show was for (SPEC §5.4), in the order reports list them.
HiddenKind = Literal["title", "compaction", "other"]
# Each kind's agent in the account and the bundle (`firewall/view.py` AgentKind).
HiddenAgentKind = Literal["hidden-title", "hidden-compaction", "hidden-other"]
# Their agents' agent type, and the prefix of their keys in evaluate's cost split.
HIDDEN = "hidden"

TASK_UNITS: tuple[TaskUnit, ...] = get_args(TaskUnit)
HIDDEN_KINDS: tuple[HiddenKind, ...] = get_args(HiddenKind)
HIDDEN_AGENT_KINDS: dict[HiddenKind, HiddenAgentKind] = dict(
    zip(HIDDEN_KINDS, get_args(HiddenAgentKind), strict=True)
)
SOURCE_NAMES: tuple[SourceName, ...] = get_args(SourceName)
TIMESTAMP_PRECISIONS: tuple[TimestampPrecision, ...] = get_args(TimestampPrecision)
_KIND_OF_AGENT: dict[str, HiddenKind] = {agent: kind for kind, agent in HIDDEN_AGENT_KINDS.items()}


def hidden_kind_of(agent_kind: str) -> HiddenKind | None:
    """The kind of hidden call an agent of `agent_kind` holds; None for any other agent."""
    return _KIND_OF_AGENT.get(agent_kind)


# A price card's id, shipped or a card file's own: the card model, and every report naming one
# (`run/outputs.py`, which may not load pricing), take the shape from here.
CARD_ID_PATTERN = r"^[a-z0-9][a-z0-9.-]{0,63}$"
# What reports say of no card and of several (`evaluate`'s digests): no card may be named so,
# or a report could not tell a card "none" from no card at all (a review).
RESERVED_CARD_IDS = frozenset({"none", "mixed"})


def not_reserved_card_id(card_id: str) -> str:
    """A card id, checked not to be one reports reserve (a pydantic validator's shape)."""
    if card_id in RESERVED_CARD_IDS:
        raise ValueError("a card id reports use for no card or for several")
    return card_id


# The client tool whose result names the server searches it ran (SPEC §4.7).
WEB_SEARCH_TOOL = "WebSearch"
# The finding for a WebSearch call whose search count is unknown (`search_count_unknown`).
SEARCH_COUNT_UNKNOWN = "CC-REC-WEBSEARCH-COUNT-UNKNOWN"
# The findings for a call that recorded no input: recorded final (`firewall.view.final_no_input`),
# or usage-incomplete (`firewall.view.no_input_recorded`); a transcript call's or a hidden call's.
FINAL_NO_INPUT = "CC-REC-FINAL-NO-INPUT"
INCOMPLETE_NO_INPUT = "CC-REC-USAGE-INCOMPLETE-NO-INPUT"
# The finding of a usage-incomplete call, one per call, a transcript call's or a hidden call's
# (`reader.build`), so one per usage-incomplete model event (`bundle.integrity` holds it so).
USAGE_INCOMPLETE = "CC-REC-USAGE-INCOMPLETE"
# The findings of spend in no cost that one event each stands for: evaluate knows, from the
# event, whose cost lacks it.
LEFT_OUT_PLACED = frozenset({SEARCH_COUNT_UNKNOWN, FINAL_NO_INPUT})


def search_count_unknown(name: str, searches: int, status: str) -> bool:
    """A WebSearch call that did not fail and whose result names no search: it ran at least
    one that no figure prices. The reader finds it (SEARCH_COUNT_UNKNOWN) in a tool call, and
    evaluate in the bundle's tool event, by this one rule: a task's cost holding one has no
    high end (a review: the workload's total said `no bound`, the task's own row a range)."""
    return name == WEB_SEARCH_TOOL and searches == 0 and status != "error"
