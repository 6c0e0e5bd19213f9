"""The reader's quick path for a plain usage object agrees with the checked path on every input.

Nearly every call line holds the same usage shape (FORMAT-NOTES §6); `records.parse_usage`
reads it without the general checks. Here hypothesis draws usage objects around that shape --
every value of the right type, of a wrong one, out of range, keys added or missing -- and both
paths must give the same Usage, or both the same refusal.
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from converter.limits import MAX_TOKEN_COUNT
from converter.reader.records import BadField, Usage, _plain_usage, checked_usage, parse_usage

_ODD = st.one_of(
    st.none(),
    st.booleans(),
    st.just(-1),
    st.just(MAX_TOKEN_COUNT),
    st.just(1.0),
    st.just("7"),
    st.just([]),
    st.just({}),
)
_COUNT = st.integers(0, 5000) | st.just(MAX_TOKEN_COUNT - 1) | _ODD
_TEXT = st.sampled_from(["standard", "", "priority"]) | _ODD


def _maybe(members: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional=members)


_SPLIT = _maybe(
    {"ephemeral_5m_input_tokens": _COUNT, "ephemeral_1h_input_tokens": _COUNT, "other": _COUNT}
)
_SERVER = _maybe(
    {"web_search_requests": _COUNT, "web_fetch_requests": _COUNT, "code_execution_requests": _COUNT}
)
_USAGE = _maybe(
    {
        "input_tokens": _COUNT,
        "output_tokens": _COUNT,
        "cache_read_input_tokens": _COUNT,
        "cache_creation_input_tokens": _COUNT,
        "cache_creation": _SPLIT | _ODD,
        "server_tool_use": _SERVER | _ODD,
        "service_tier": _TEXT,
        "speed": _TEXT,
        "inference_geo": _TEXT,
        "iterations": st.just([]) | _ODD,
        "output_tokens_details": _maybe({"thinking_tokens": _COUNT}),
        "fallback_credit": st.none() | st.just({"status": {"type": "redeemed"}}),
        "claude_cache_creation_5_m_tokens": _COUNT,
        "new_counter": _COUNT,
    }
)


def _read(read: Any, raw: Any) -> Usage | str:
    try:
        return read(raw)
    except BadField as bad:
        return bad.code


_PLAIN = {
    "input_tokens": 3,
    "cache_creation_input_tokens": 1200,
    "cache_read_input_tokens": 5000,
    "cache_creation": {"ephemeral_5m_input_tokens": 200, "ephemeral_1h_input_tokens": 1000},
    "output_tokens": 90,
    "service_tier": "standard",
    "server_tool_use": {"web_search_requests": 1, "web_fetch_requests": 0},
    "inference_geo": "",
    "iterations": [],
    "speed": "standard",
}


@given(raw=_USAGE)
@example(raw=_PLAIN)
@example(raw={**_PLAIN, "cache_creation": {"ephemeral_5m_input_tokens": False}})
@example(raw={**_PLAIN, "server_tool_use": {"web_search_requests": True}})
@example(raw={**_PLAIN, "cache_creation_input_tokens": 1199})
def test_the_quick_path_reads_as_the_checked_one(raw: dict[str, Any]) -> None:
    assert _read(parse_usage, raw) == _read(checked_usage, raw)


def test_the_quick_path_takes_claude_codes_usage() -> None:
    """The shape it exists for is read by it (else the speed-up would be gone unremarked)."""
    assert _plain_usage(_PLAIN) == checked_usage(_PLAIN)
    assert _plain_usage({"input_tokens": 1, "output_tokens": 2}) is not None
    assert _plain_usage({**_PLAIN, "cache_creation": {"ephemeral_5m_input_tokens": None}}) is None
