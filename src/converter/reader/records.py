"""Typed, content-free views of transcript records: only the fields accounting needs.

Each JSON line becomes a small `Rec`. Content is reduced on the spot to SHA-256 digests (for the
task input digest and for joins by prompt equality, FORMAT-NOTES §4); text itself is never kept.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import msgspec
import orjson

from converter.limits import MAX_TOKEN_COUNT
from converter.recorded import SUBAGENT_TOOLS, SYNTHETIC_MODEL, ShapeTuple, shape_tuple

# A slash command typed by a person (`/init`, a skill, `/context`) is a task boundary, like a
# prompt (SPEC §5.1 lists local commands among tasks that may have no calls), and so is a shell
# command run with `!` (bash mode). What a local command or a `!` command printed back is not.
_COMMAND_MARKERS = ("<command-name>", "<command-message>", "<bash-input>")
_COMMAND_OUTPUT_MARKERS = (
    "<local-command-stdout>",
    "<local-command-caveat>",
    "<local-command-stderr>",
    "<bash-stdout>",
    "<bash-stderr>",
)
# A background task's notice, and a teammate's message to the lead (agent teams: the teammate's
# own transcript starts with one from the lead; later versions put a sentence before the tag):
# no prompt a person typed, so no task.
_NOTIFICATION_MARKERS = (
    "<task-notification>",
    "<teammate-message",
    "Another Claude session sent a message:",
)
# What Claude Code writes when Esc stops a turn, before it names the message interrupted
# (`interruptedMessageId`, seen from 2.1.212): a user record of exactly one text block saying
# so (10 of 10 such records in the corpus, 1.0.17 to 2.1.167).
# The interrupted task goes on after it (a task notification, a queued prompt): not a task.
_INTERRUPTED = frozenset(
    {"[Request interrupted by user]", "[Request interrupted by user for tool use]"}
)
# `turnOrigin` values that name no person (a background task, another session, a schedule);
# `human` and `sdk` are prompts, and a value not known here is judged by the content as before.
_NOT_A_PERSON = frozenset({"task_notification", "peer", "scheduled"})
# Blocks a person's prompt is made of: text, a pasted image, an attached document (a PDF).
_PROMPT_BLOCKS = frozenset({"text", "image", "document"})

COUNTERS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
    "cache_5m",
    "cache_1h",
    "web_search_requests",
    "web_fetch_requests",
)


class BadField(Exception):
    """A field accounting depends on has the wrong type; carries the code."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


# Records are msgspec Structs: compact, never tracked by the cyclic GC (they hold no cycles), and
# sent between the reading processes as msgpack arrays at ~300 MB/s (`reader/load.py`).
class Usage(msgspec.Struct, frozen=True, gc=False, array_like=True):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_5m: int = 0
    cache_1h: int = 0
    split_present: bool = False
    web_search_requests: int = 0
    web_fetch_requests: int = 0
    service_tier: str | None = None
    speed: str | None = None
    inference_geo: str | None = None
    # A non-zero `server_tool_use` counter other than web search and web fetch: a server tool
    # this reader cannot price (counted as a finding, never silently dropped).
    unpriced_server_tools: bool = False
    # `fallback_credit.status.type: "redeemed"`: after a model switch the provider bills the
    # cache the call wrote anew as if it were already cached, by an amount not written here;
    # priced as written, the call's cost is an upper bound (a finding).
    credit_redeemed: bool = False

    @property
    def cache_unsplit(self) -> int:
        return max(self.cache_creation_input_tokens - self.cache_5m - self.cache_1h, 0)

    def is_zero(self) -> bool:
        return not any(self.counters())

    def counters(self) -> tuple[int, ...]:
        """Every count, in `COUNTERS` order."""
        return tuple(getattr(self, name) for name in COUNTERS)

    def input_totals(self) -> tuple[int, int, int]:
        """Input, cache read and cache write, totals only: what a streaming stub already
        records as final (only output grows between a call's records)."""
        return (self.input_tokens, self.cache_read_input_tokens, self.cache_creation_input_tokens)

    def input_side(self) -> tuple[int, int, int, int, int]:
        return (
            self.input_tokens,
            self.cache_read_input_tokens,
            self.cache_creation_input_tokens,
            self.cache_5m,
            self.cache_1h,
        )


class ToolUse(msgspec.Struct, frozen=True, gc=False, array_like=True):
    id: str
    name: str
    shape: ShapeTuple
    prompt_digest: str | None  # sha256 of input.prompt (delegations), for joins only
    agent_type: str | None  # input.subagent_type
    spawn_name: str | None  # input.name: a named spawn is an in-process teammate (joins only)
    # A SendMessage call (2.1.77 on, how a stopped agent is resumed and a teammate given work):
    # whom it names (`input.to`, an agent id or a teammate's name) and the sha256 of its
    # `input.message` as written and stripped, to find where the agent took the message up.
    send_to: str | None = None
    message_digests: tuple[str, ...] = ()
    # `input.resume` of an Agent or Task call (2.0.28-2.1.76): the agent it resumes, whose
    # transcript then holds both runs
    resume_of: str | None = None


class ToolResult(msgspec.Struct, frozen=True, gc=False, array_like=True):
    tool_use_id: str
    is_error: bool


class Rec(msgspec.Struct, gc=False, array_like=True):
    file: int
    line: int
    type: str
    uuid: str | None = None
    parent_uuid: str | None = None
    session_id: str | None = None
    sidechain: bool = False
    version: str | None = None
    timestamp: str | None = None
    agent_id: str | None = None
    subtype: str | None = None
    # assistant
    msg_id: str | None = None
    model: str | None = None
    synthetic: bool = False
    final: bool = False
    refusal: bool = False  # stop_reason "refusal": the model declined (billed only if it wrote)
    request_named: bool = False  # a `requestId` names the request (one call, whatever changes)
    usage: Usage | None = None
    # A call record written with its four counts zeroed, its split or passes kept (`_zeroed`):
    # the code reading it as written earns, its usage zero. Dropped as a copy of the record of
    # its uuid it repeats (`streams.dedup_uuids`), refused with this code otherwise.
    blanked: str | None = None
    # ... and what its own passes say the call used (`_restored`), to compare with that record's
    # usage; never priced. None when they say nothing (no pass, or one that does not read).
    restored: Usage | None = None
    tool_uses: tuple[ToolUse, ...] = ()
    # advisor passes in usage.iterations: (model, usage) each, billed beside the top-level usage
    advisor: tuple[tuple[str, Usage], ...] = ()
    # user
    # prompt | command | command-output | tool_result | meta | notification | compact | other;
    # an attachment: queued-prompt
    kind: str = ""
    content_digest: str | None = None
    # The messages a user record hands an agent (its text, or each <teammate-message> body),
    # as digests: where an agent took up a SendMessage (reader/tasks.py `_resumes`).
    said: tuple[str, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()
    result_agent_id: str | None = None
    result_status: str | None = None
    result_run_id: str | None = None
    result_usage: Usage | None = None  # an Agent result's statement of the child's usage
    result_states_usage: bool = False  # toolUseResult.usage is an object (whatever the tool)
    web_searches: int = 0
    # progress / fork-context-ref
    progress_agent_id: str | None = None
    progress_tool_use_id: str | None = None
    progress_has_usage: bool = False
    progress_msg_id: str | None = None  # the message id of the call a progress line copies
    progress_copies_call: bool = False  # ... a call with spend (not an API-error placeholder)
    fork_parent_uuid: str | None = None
    branched: bool = False  # `forkedFrom`: a copy from the session this one was branched from
    branch_origin: str | None = None  # the session `forkedFrom` names (its `sessionId`, if text)
    unknown_with_usage: bool = False  # an unknown record type that carries usage


def _opt_str(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise BadField("CC-REC-BAD-FIELD")


def _req_str(obj: dict[str, Any], key: str) -> str:
    value = obj.get(key)
    if isinstance(value, str) and value:
        return value
    raise BadField("CC-REC-BAD-FIELD")


def _count(obj: Any, key: str) -> int:
    if not isinstance(obj, dict):
        return 0
    value = obj.get(key)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_TOKEN_COUNT:
        raise BadField("CC-REC-BAD-TOKEN-COUNT")
    return value


def _context(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise BadField("CC-REC-BAD-FIELD")


_PRICED_SERVER_TOOLS = frozenset({"web_search_requests", "web_fetch_requests"})
# Every key of a usage object this reader knows (FORMAT-NOTES §6, and all the corpus holds);
# any other that holds a count would be spend left out (CC-REC-USAGE-UNKNOWN-COUNTER).
_USAGE_KEYS = frozenset(
    {
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
        "cache_creation",
        "server_tool_use",
        "service_tier",
        "speed",
        "inference_geo",
        "iterations",
    }
)
_CACHE_SPLIT_KEYS = frozenset({"ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"})
# Keys that break down counts the known keys hold, never add to them: checked as such, not
# refused as unknown. A thinking-token split of the output (a real 2.1 transcript line holds
# `output_tokens_details: {thinking_tokens: 596}` beside `output_tokens: 790`; output includes
# thinking, FORMAT-NOTES §6), and the cache-write split as relays (new-api, one-api) name it,
# which Claude Code writes as the relay sent it.
_OUTPUT_DETAILS = "output_tokens_details"
_RELAY_SPLIT = ("claude_cache_creation_5_m_tokens", "claude_cache_creation_1_h_tokens")
_USAGE_KEYS_READ = _USAGE_KEYS | {_OUTPUT_DETAILS, *_RELAY_SPLIT}


# A number written as text (`"5000"`, `" 1.5e3 "`): how a relay may write counts.
_NUMBER_TEXT = re.compile(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*")


def _holds_count(value: Any) -> bool:
    """Whether a non-zero number is anywhere in `value` (itself, or nested in its objects and
    arrays), a number written as text too: a counter a relay writes as `"5000"` is still spend
    (a format-drift review: such a compaction pass, or a cache write of another duration, went
    unpriced where the same as an integer was refused). Iterative: a line's nesting is bounded
    (jsonl.MAX_DEPTH), its breadth is not."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif _nonzero(item):
            return True
    return False


def _nonzero(item: object) -> bool:
    """A number other than 0, or the text of one."""
    if isinstance(item, str):
        return _NUMBER_TEXT.fullmatch(item) is not None and Decimal(item) != 0
    return isinstance(item, int | float) and not isinstance(item, bool) and item != 0


def _unknown_counter(obj: Any, known: frozenset[str]) -> bool:
    """A key other than `known` holding a non-zero number, at once or nested in an object or
    array: a counter this version does not price (a new one, a renamed or moved one, a cache
    write of another duration)."""
    return isinstance(obj, dict) and any(
        key not in known and _holds_count(value) for key, value in obj.items()
    )


def _credit_redeemed(credit: Any) -> bool:
    """A fallback credit redeemed on this call (`{status: {type: "redeemed"}}`; `null` and
    `not_applied` say none was): the Anthropic docs' "billed as though the conversation had
    been on the new model all along". A credit that states an amount holds a count no key here
    reads, and is refused as such (CC-REC-USAGE-UNKNOWN-COUNTER)."""
    status = credit.get("status") if isinstance(credit, dict) else None
    return isinstance(status, dict) and status.get("type") == "redeemed"


_PLAIN_COUNTS = ("input_tokens", "output_tokens", "cache_read_input_tokens")
_PLAIN_CONTEXT = ("service_tier", "speed", "inference_geo")


def _token(value: Any) -> bool:
    return type(value) is int and 0 <= value < MAX_TOKEN_COUNT


_CACHE_5M, _CACHE_1H = "ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"
_SEARCHES, _FETCHES = "web_search_requests", "web_fetch_requests"


def _plain_pair(
    raw: dict[str, Any], key: str, first: str, second: str, allowed: frozenset[str]
) -> tuple[int, int] | None:
    """The two token counts of the object at `key` (none there: 0 and 0), or None where that
    object is not plainly two such counts."""
    sub = raw.get(key)
    if sub is None:
        return 0, 0
    if type(sub) is not dict or not sub.keys() <= allowed:
        return None
    a, b = sub.get(first, 0), sub.get(second, 0)
    return (a, b) if _token(a) and _token(b) else None


def _plain_usage(raw: dict[str, Any]) -> Usage | None:
    """The usage Claude Code writes on nearly every line (FORMAT-NOTES §6), read without the
    general checks it cannot fail: only known keys, every count an int in range, the split and
    the server tools of known keys only, the context strings. None for anything else, which
    `parse_usage` then reads (and refuses) the long way; both read a plain usage alike (a
    property test holds them to it)."""
    if not raw.keys() <= _USAGE_KEYS:
        return None
    for key in _PLAIN_COUNTS:
        value = raw.get(key)
        if value is not None and not _token(value):
            return None
    written = raw.get("cache_creation_input_tokens")
    if written is not None and not _token(written):
        return None
    for key in _PLAIN_CONTEXT:
        value = raw.get(key)
        if value is not None and type(value) is not str:
            return None
    split = _plain_pair(raw, "cache_creation", _CACHE_5M, _CACHE_1H, _CACHE_SPLIT_KEYS)
    server = _plain_pair(raw, "server_tool_use", _SEARCHES, _FETCHES, _PRICED_SERVER_TOOLS)
    if split is None or server is None:
        return None
    (cache_5m, cache_1h), (searches, fetches) = split, server
    if cache_5m + cache_1h > (written or 0):
        return None
    return Usage(
        input_tokens=raw.get("input_tokens") or 0,
        output_tokens=raw.get("output_tokens") or 0,
        cache_read_input_tokens=raw.get("cache_read_input_tokens") or 0,
        cache_creation_input_tokens=written or 0,
        cache_5m=cache_5m,
        cache_1h=cache_1h,
        split_present=raw.get("cache_creation") is not None,
        web_search_requests=searches,
        web_fetch_requests=fetches,
        service_tier=raw.get("service_tier"),
        speed=raw.get("speed"),
        inference_geo=raw.get("inference_geo"),
    )


def parse_usage(raw: Any) -> Usage:
    """A usage object read as counts; BadField names what refuses it."""
    if type(raw) is dict:
        plain = _plain_usage(raw)
        if plain is not None:
            return plain
    return checked_usage(raw)


def checked_usage(raw: Any) -> Usage:
    """`parse_usage` the long way, for any usage: every check, every refusal."""
    if not isinstance(raw, dict):
        raise BadField("CC-REC-BAD-FIELD")
    split = raw.get("cache_creation")
    server = raw.get("server_tool_use")
    for part in (split, server):  # an array or a string of counts would be read as none
        if part is not None and not isinstance(part, dict):
            raise BadField("CC-REC-BAD-FIELD")
    if _unknown_counter(raw, _USAGE_KEYS_READ) or _unknown_counter(split, _CACHE_SPLIT_KEYS):
        raise BadField("CC-REC-USAGE-UNKNOWN-COUNTER")
    details = raw.get(_OUTPUT_DETAILS)
    if _holds_count(details) and (
        not isinstance(details, dict)
        or sum(_count(details, key) for key in details) > _count(raw, "output_tokens")
    ):
        raise BadField("CC-REC-USAGE-UNKNOWN-COUNTER")  # more than a split of the output
    relay_5m, relay_1h = (_count(raw, key) for key in _RELAY_SPLIT)
    if relay_5m + relay_1h > _count(raw, "cache_creation_input_tokens"):
        raise BadField("CC-REC-USAGE-UNKNOWN-COUNTER")  # more than a split of the cache write
    if not isinstance(split, dict) and any(key in raw for key in _RELAY_SPLIT):
        split = {"ephemeral_5m_input_tokens": relay_5m, "ephemeral_1h_input_tokens": relay_1h}
    if isinstance(server, dict):
        for key in server:  # an unpriced server tool is counted (a finding), never misread
            _count(server, key)
    usage = Usage(
        input_tokens=_count(raw, "input_tokens"),
        output_tokens=_count(raw, "output_tokens"),
        cache_read_input_tokens=_count(raw, "cache_read_input_tokens"),
        cache_creation_input_tokens=_count(raw, "cache_creation_input_tokens"),
        cache_5m=_count(split, "ephemeral_5m_input_tokens"),
        cache_1h=_count(split, "ephemeral_1h_input_tokens"),
        split_present=isinstance(split, dict),
        web_search_requests=_count(server, "web_search_requests"),
        web_fetch_requests=_count(server, "web_fetch_requests"),
        service_tier=_context(raw, "service_tier"),
        speed=_context(raw, "speed"),
        inference_geo=_context(raw, "inference_geo"),
        unpriced_server_tools=isinstance(server, dict)
        and any(value for key, value in server.items() if key not in _PRICED_SERVER_TOOLS),
        credit_redeemed=_credit_redeemed(raw.get("fallback_credit")),
    )
    if usage.cache_5m + usage.cache_1h > usage.cache_creation_input_tokens:
        raise BadField("CC-REC-BAD-TOKEN-COUNT")
    return usage


def digest_content(content: Any) -> str:
    """SHA-256 of a content value in a spelling-independent form (string or block list)."""
    if isinstance(content, str):
        data = content.encode("utf-8", "surrogatepass")
    elif (
        isinstance(content, list)
        and len(content) == 1
        and isinstance(content[0], dict)
        and content[0].get("type") == "text"
        and isinstance(content[0].get("text"), str)
    ):
        data = content[0]["text"].encode("utf-8", "surrogatepass")
    else:
        try:
            data = orjson.dumps(content, option=orjson.OPT_SORT_KEYS)
        except orjson.JSONEncodeError:  # a lone surrogate, or deeper than orjson writes (255)
            data = _standard_spelling(content)
    return hashlib.sha256(data).hexdigest()


def _standard_spelling(content: Any) -> bytes:
    """The content as the standard library writes it (keys sorted, compact, UTF-8 with lone
    surrogates kept as written): what orjson cannot write, the line reader can still accept."""
    try:
        text = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except RecursionError:  # MAX_DEPTH keeps it out of reach; said as the line's depth if not
        raise BadField("CC-LINE-TOO-DEEP") from None
    return text.encode("utf-8", "surrogatepass")


def _assistant(rec: Rec, obj: dict[str, Any]) -> None:
    message = obj.get("message")
    if not isinstance(message, dict):
        raise BadField("CC-REC-BAD-FIELD")
    rec.msg_id = _req_str(message, "id")
    rec.model = _opt_str(message, "model")
    request = obj.get("requestId")
    rec.request_named = isinstance(request, str) and bool(request)
    api_error = obj.get("isApiErrorMessage")
    if api_error is not None and not isinstance(api_error, bool):
        raise BadField("CC-REC-BAD-FIELD")  # "true" or 1: a synthetic record or a call?
    rec.synthetic = rec.model == SYNTHETIC_MODEL or api_error is True
    stop = message.get("stop_reason")
    if stop is not None and not isinstance(stop, str):
        raise BadField("CC-REC-BAD-FIELD")  # false or 0 would mark a stub's usage final
    rec.refusal = stop == "refusal"
    raw_usage = message.get("usage")
    if not rec.synthetic and lacks_counts(raw_usage):  # a real call's fragments carry both
        raise BadField("CC-REC-NO-USAGE")
    iterations = raw_usage.get("iterations") if isinstance(raw_usage, dict) else None
    rec.final = stop is not None or isinstance(iterations, list)
    try:
        rec.usage = parse_usage(raw_usage) if raw_usage is not None else Usage()
        rec.usage, rec.advisor = with_passes(raw_usage, rec.usage, rec.model)
    except BadField as bad:
        if rec.synthetic or bad.code not in _ZEROED_CODES or not _zeroed(raw_usage):
            raise
        rec.usage, rec.advisor, rec.blanked = Usage(), (), bad.code
        rec.restored = _restored(raw_usage, rec.model)
    content = message.get("content")
    if isinstance(content, list):
        rec.tool_uses = tuple(_tool_uses(content))


# What a zeroed record's usage earns read as written: a split above its zero total, passes that
# do not add up to it. Any other code is the record's own fault, refused as ever.
_ZEROED_CODES = frozenset({"CC-REC-BAD-TOKEN-COUNT", "CC-REC-USAGE-ITERATIONS"})


def _zeroed(raw: Any) -> bool:
    """A usage whose four top-level counts are all written as 0 while its cache-write split or
    its passes (`usage.iterations`) still hold a count: how Claude Code 2.1.211 re-emits a
    turn's call records, under their uuids, before a manual compaction
    (docs/claude-code-shapes.md §17)."""
    return (
        isinstance(raw, dict)
        and all(type(raw.get(key)) is int and raw[key] == 0 for key in _PASS_COUNTERS)
        and (_holds_count(raw.get("cache_creation")) or _holds_count(raw.get("iterations")))
    )


def _restored(raw: Any, model: str | None) -> Usage | None:
    """What a zeroed usage's own passes say the call used: the four top-level counts their sums,
    all else as written, read as any usage is (so equal to the usage of the record it repeats).
    None when no pass of the call's own is listed, or the usage so restored does not read."""
    iterations = raw.get("iterations") if isinstance(raw, dict) else None
    passes = _own_passes(iterations) if isinstance(iterations, list) else []
    if not passes or not all(isinstance(item, dict) for item in passes):
        return None
    try:
        sums = {key: sum(_count(item, key) for item in passes) for key in _PASS_COUNTERS}
        whole = {**raw, **sums}
        usage, _ = with_passes(whole, parse_usage(whole), model)
    except BadField:
        return None
    return usage


def with_passes(
    raw_usage: Any, usage: Usage, model: str | None
) -> tuple[Usage, tuple[tuple[str, Usage], ...]]:
    """A call's usage read with the passes its `usage.iterations` lists, if it lists any: the
    advisor's passes (each a call of its own), and the cache-write split of the call's own
    passes where the top level's falls short. Raises BadField on a fallback pass beside a
    declined one (a lone one is the call's own), or on passes
    that do not add up to the top level (`_iterations_add_up`). A provider response's usage is
    read with this too (reader/bodies.py)."""
    iterations = raw_usage.get("iterations") if isinstance(raw_usage, dict) else None
    if iterations is None:
        return usage, ()
    if not isinstance(iterations, list) or not all(isinstance(i, dict) for i in iterations):
        # passes in a shape this version does not read: an advisor's among them would go
        # uncounted, its spend left out
        raise BadField("CC-REC-USAGE-ITERATIONS")
    if any(i.get("type") == _FALLBACK for i in iterations):
        if any(i.get("type") == _OWN for i in iterations):
            raise BadField("CC-REC-USAGE-FALLBACK")  # a declined pass beside the serving one
        # Served by the fallback model with no declined pass (the hour after a fallback, the
        # API serves a request so directly): its pass is the call's own, checked as one.
        iterations = [{**i, "type": _OWN} if i.get("type") == _FALLBACK else i for i in iterations]
    advisor = _advisor_passes(iterations)
    if advisor is None or not _iterations_add_up(iterations, usage, model):
        raise BadField("CC-REC-USAGE-ITERATIONS")
    return _split_from_passes(iterations, usage), advisor


_PASS_COUNTERS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


# What a pass of `usage.iterations` may hold besides its kind (the API's snake_case names).
_PASS_KEYS = frozenset({*_PASS_COUNTERS, "type", "cache_creation"})


_ADVISOR = "advisor_message"
# A server-side fallback: the model asked for declined (its `message` pass) and another served
# the call (this pass); what the declined pass and the credited serving pass are billed is not
# in the file, so such a call is not priced. Alone, with no declined pass, it is the call's own.
_FALLBACK = "fallback_message"
_OWN = "message"


def _is_advisor(item: Any) -> bool:
    return isinstance(item, dict) and item.get("type") == _ADVISOR


def first_pass_input(raw_usage: dict[str, Any]) -> tuple[int, int, int] | None:
    """The input totals (input, cache read, cache write) of the first of a call's own passes,
    when `usage.iterations` lists more than one (read after `with_passes` checked that they add
    up): a streaming stub of such a call was written at its start and holds these, not the
    sums the top level states."""
    iterations = raw_usage.get("iterations")
    passes = _own_passes(iterations) if isinstance(iterations, list) else []
    if len(passes) < 2:
        return None
    first = passes[0]
    return (
        _count(first, "input_tokens"),
        _count(first, "cache_read_input_tokens"),
        _count(first, "cache_creation_input_tokens"),
    )


def _own_passes(iterations: list[Any]) -> list[Any]:
    """The passes of the call's own model that count anything (an advisor's stand beside)."""
    return [i for i in iterations if _holds_count(i) and not _is_advisor(i)]


def _advisor_passes(iterations: list[Any]) -> tuple[tuple[str, Usage], ...] | None:
    """The advisor's passes (`/advisor`, 2.1.98 on): `{type: "advisor_message", model, ...}`,
    billed under the advisor's model and left out of the top-level counts (ccusage#1115), so
    each is a call of its own. None when one does not read as usage of a named model."""
    found = []
    for item in filter(_is_advisor, iterations):
        model = item.get("model")
        if not isinstance(model, str) or not model or lacks_counts(item):
            return None  # no model to price, or no input or output count: no free call
        if _unknown_counter(item, _PASS_KEYS | {"model"}):
            return None  # a count this reader does not take (a nested pass, a server tool)
        try:
            usage = parse_usage({k: v for k, v in item.items() if k not in ("type", "model")})
        except BadField:
            return None
        found.append((model, usage))
    return tuple(found)


def _iterations_add_up(iterations: list[Any], usage: Usage, model: str | None) -> bool:
    """Whether the sampling passes `usage.iterations` lists (none in the calls the corpus
    holds: `[]`), the advisor's aside (`_advisor_passes`), are all counted in the call's
    top-level usage. With server-side compaction the API lists the compaction pass there and
    leaves it out of the top-level counts, though it is billed: such a call's spend is not
    what the top level says. A pass's `model` of null (2.1.257 on) is the call's own; an
    advisor's pass stands beside passes of the call's own that add up to the top level."""
    advised = any(map(_is_advisor, iterations))
    passes = _own_passes(iterations)
    if not passes:
        # an advisor's pass with no pass of the call's own: nothing shows that the top level
        # is the call's own spend and not the advisor's again
        return not advised
    if not all(isinstance(i, dict) and not _unknown_counter(i, _PASS_KEYS) for i in passes):
        return False  # a count under another name (`inputTokens`, a nested `usage`): unread
    if any(i.get("model") not in (None, model) for i in passes):
        return False  # a pass of another model (a fallback) priced as this one's
    stated = tuple(getattr(usage, key) for key in _PASS_COUNTERS)  # Usage's own field names
    summed = tuple(sum(_count(i, key) for i in passes) for key in _PASS_COUNTERS)
    return summed == stated


def _split_from_passes(iterations: list[Any], usage: Usage) -> Usage:
    """The cache-write split of the call's own passes, where the top level's split falls short
    of its total and theirs adds up to it exactly. A real `/advisor` line wrote 1,441 tokens at
    1h in its first pass and 1,652 at 5m in its last; its top level counted 3,093 written but
    split only the first pass's 1,441, which left 1,652 to the contract's rule for unsplit
    writes. The passes' split must hold the top level's (each bucket at least as large); any
    other shortfall stays unsplit, as written."""
    if usage.cache_5m + usage.cache_1h >= usage.cache_creation_input_tokens:
        return usage
    passes = _own_passes(iterations)
    splits = [i.get("cache_creation") for i in passes]
    if not all(isinstance(split, dict) for split in splits):
        return usage
    try:
        cache_5m = sum(_count(split, "ephemeral_5m_input_tokens") for split in splits)
        cache_1h = sum(_count(split, "ephemeral_1h_input_tokens") for split in splits)
    except BadField:
        return usage
    if cache_5m + cache_1h != usage.cache_creation_input_tokens:
        return usage
    if cache_5m < usage.cache_5m or cache_1h < usage.cache_1h:
        return usage  # the passes contradict the split the top level states: not guessed at
    return msgspec.structs.replace(usage, cache_5m=cache_5m, cache_1h=cache_1h, split_present=True)


def lacks_counts(usage: Any) -> bool:
    """No usage, or one without its input or output count (any other type is CC-REC-BAD-FIELD,
    from `parse_usage`): read as zeros, a call would convert as complete at no cost."""
    if usage is None:
        return True
    return isinstance(usage, dict) and (
        usage.get("input_tokens") is None or usage.get("output_tokens") is None
    )


def _text_in(value: Any, names: frozenset[str]) -> bool:
    """Whether a value read from a record is one of `names`: a list or an object there is
    unhashable, and `in` on a set would raise (a fuzz hunt: exit 70)."""
    return isinstance(value, str) and value in names


def _tool_uses(blocks: list[Any]) -> list[ToolUse]:
    uses = []
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "tool_use":
            args = block.get("input")
            prompt = args.get("prompt") if isinstance(args, dict) else None
            agent_type = args.get("subagent_type") if isinstance(args, dict) else None
            # a named spawn of an Agent or Task call, for joins; no other tool's input name
            named = args.get("name") if isinstance(args, dict) else None
            # a name that is not text (a list is unhashable) is no spawn; the record is refused
            # for it where the tool call is read (CC-REC-BAD-FIELD), never a crash here
            spawns = _text_in(block.get("name"), SUBAGENT_TOOLS)
            spawn_name = named if spawns else None
            send_to, sent = _message_sent(block.get("name"), args)
            resume = args.get("resume") if isinstance(args, dict) else None
            resume_of = resume if spawns else None
            uses.append(
                ToolUse(
                    id=_req_str(block, "id"),
                    name=_req_str(block, "name"),
                    shape=shape_tuple(args),
                    prompt_digest=digest_content(prompt) if isinstance(prompt, str) else None,
                    agent_type=agent_type if isinstance(agent_type, str) else None,
                    spawn_name=spawn_name if isinstance(spawn_name, str) else None,
                    send_to=send_to,
                    message_digests=sent,
                    resume_of=resume_of if isinstance(resume_of, str) and resume_of else None,
                )
            )
    return uses


def _message_sent(name: Any, args: Any) -> tuple[str | None, tuple[str, ...]]:
    """Whom a SendMessage call writes to, and the digests of its text message (as written and
    stripped); a message of another kind (a shutdown request's object) has none."""
    if name != "SendMessage" or not isinstance(args, dict):
        return None, ()
    # `to` and `message`; 2.1.20-2.1.3x named them `recipient` and `content`
    to = args.get("to", args.get("recipient"))
    message = args.get("message", args.get("content"))
    if not isinstance(to, str) or not isinstance(message, str):
        return None, ()
    return to, _digests(message)


def _digests(text: str) -> tuple[str, ...]:
    """A message's digests as written and stripped (one when they are the same)."""
    return tuple(dict.fromkeys((digest_content(text), digest_content(text.strip()))))


# Messages handed to a teammate, as its transcript records them: one or more elements in one
# text (batched), attributes quoted (a summary is free text and may hold '>').
_OPEN, _CLOSE = "<teammate-message", "</teammate-message>"
_TAG_END = re.compile(r'(?:[^>"]|"[^"]*")*>')  # the rest of an opening tag, quotes skipped
_TAG_MAX = 4096  # an opening tag's attributes (an id, a colour, a one-line summary) are short


def _bodies(text: str) -> list[str]:
    """Each <teammate-message> element's body: for each closing tag, the element the last
    opener before it starts. One pass however many openers lack a closing tag (a prompt can be
    megabytes): each stretch between closing tags is searched once."""
    bodies: list[str] = []
    done = 0
    close = text.find(_CLOSE)
    while close >= 0:
        at = text.rfind(_OPEN, done, close)
        if at >= 0:
            start = at + len(_OPEN)
            head = _TAG_END.match(text, start, min(close, start + _TAG_MAX))
            if head is not None and text.startswith((">", " ", "\t", "\n"), start):
                bodies.append(text[head.end() : close])
        done = close + len(_CLOSE)
        close = text.find(_CLOSE, done)
    return bodies


def _said(text: str) -> tuple[str, ...]:
    """The digests of each message a user record's text hands an agent: each
    <teammate-message> body when there are any, else the text itself."""
    bodies = _bodies(text)
    if not bodies:
        return _digests(text)
    return tuple(dict.fromkeys(d for body in bodies for d in _digests(body)))


_CHANNEL = "channel"
# 2.1.289: a background task's notice, `origin: {kind: "task-notification"}` beside
# `turnOrigin: "task_notification"` (docs/claude-code-shapes.md §11): Claude Code's, no task.
_NOTICE_ORIGIN = "task-notification"
# A message the main agent sent an agent (SendMessage), as the agent's transcript records it in
# 2.1.2xx: a user record `isMeta: true`, `origin: {kind: "coordinator"}`, its text framed by
# Claude Code ("The coordinator sent a message while you were working:" ... "Address this
# before completing your current task.", with a later warning paragraph). Not a task; the
# message it hands is read from inside the frame.
COORDINATOR = "coordinator"
_COORDINATOR_LEAD = "The coordinator sent a message while you were working:"
_COORDINATOR_TAIL = "\n\nAddress this before completing your current task."


def _coordinator_said(text: str) -> tuple[str, ...]:
    """The digests of the message a coordinator record hands its agent: the text as written,
    and, when framed, what stands between the lead line and the closing sentence."""
    found = list(_digests(text))
    body = text.lstrip()
    if body.startswith(_COORDINATOR_LEAD):
        body = body[len(_COORDINATOR_LEAD) :]
        end = body.rfind(_COORDINATOR_TAIL)
        if end >= 0:
            body = body[:end]
        body = body.removeprefix("\n")
        found += _digests(body)
    return tuple(dict.fromkeys(found))


def _user_kind(obj: dict[str, Any], content: Any, results: list[ToolResult]) -> str:
    if results or obj.get("sourceToolAssistantUUID") or obj.get("toolUseResult") is not None:
        return "tool_result"
    if obj.get("isCompactSummary") is True:
        return "compact"
    origin = obj.get("origin")
    kind = origin.get("kind") if isinstance(origin, dict) else None
    if kind == COORDINATOR:
        return COORDINATOR  # whatever `isMeta` says: a message handed to an agent, no task
    if kind == _CHANNEL:
        # A message sent into the session through a channel (a chat bridge: Telegram, Slack,
        # a phone app), written `isMeta` with `origin.kind: "channel"`: a request from outside
        # the session, answered as a typed prompt is (docs/claude-code-shapes.md §11).
        return _CHANNEL if isinstance(content, str) or _is_blocks(content) else "unknown"
    if obj.get("isMeta") is True:
        return "meta"
    if _text_in(obj.get("turnOrigin"), _NOT_A_PERSON) or kind == _NOTICE_ORIGIN:
        return "notification"
    if kind not in (None, "human"):
        return "other"  # sent by a source this version does not know: refused in tasks.py
    if isinstance(obj.get("interruptedMessageId"), str):
        return "interruption"  # the marker Esc writes (2.1.212 on): Claude Code's, not typed
    if _is_interruption(content):
        return "interruption"  # the same marker before it named the message, by its fixed text
    text = _text_of(content)
    if text is None:
        return "prompt" if _is_blocks(content) else "unknown"
    stripped = text.lstrip()
    if stripped.startswith(_COMMAND_MARKERS):
        return "command"
    if stripped.startswith(_COMMAND_OUTPUT_MARKERS):
        return "command-output"
    if stripped.startswith(_NOTIFICATION_MARKERS):
        return "notification"
    return "prompt"


def _is_interruption(content: Any) -> bool:
    """Exactly one text block whose text is an interruption marker, as Claude Code writes it (a
    person typing it would write a string, or other text beside it)."""
    if not isinstance(content, list) or len(content) != 1:
        return False
    block = content[0]
    return (
        isinstance(block, dict)
        and block.get("type") == "text"
        and _text_in(block.get("text"), _INTERRUPTED)
        and block.keys() <= {"type", "text"}
    )


def _is_blocks(content: Any) -> bool:
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(b, dict) and _text_in(b.get("type"), _PROMPT_BLOCKS) for b in content)
    )


def _text_of(content: Any) -> str | None:
    """A message's text: the string, or the first text block of prompt blocks."""
    return content if isinstance(content, str) else _first_text(content)


def _first_text(content: Any) -> str | None:
    if not _is_blocks(content):
        return None
    for block in content:
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            return str(block["text"])
    return None


def _web_searches(result: dict[str, Any]) -> int:
    """The searches a WebSearch result reports: one per server tool call it names (distinct
    ids: an entry repeated, by an edit or a copy, is the same search, not another one billed)."""
    entries = result.get("results")
    if not isinstance(entries, list):
        return 0
    return len(
        {
            e["tool_use_id"]
            for e in entries
            if isinstance(e, dict) and isinstance(e.get("tool_use_id"), str)
        }
    )


def _user(rec: Rec, obj: dict[str, Any]) -> None:
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    results: list[ToolResult] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                results.append(
                    ToolResult(_req_str(block, "tool_use_id"), block.get("is_error") is True)
                )
    rec.tool_results = tuple(results)
    rec.kind = _user_kind(obj, content, results)
    if rec.kind in ("prompt", "channel", "other", "command", "unknown") and content is not None:
        rec.content_digest = digest_content(content)
    if rec.kind in ("prompt", "notification"):
        text = _text_of(content)
        rec.said = _said(text) if text is not None else ()
    elif rec.kind == COORDINATOR:
        text = _text_of(content)
        rec.said = _coordinator_said(text) if text is not None else ()
    outcome = obj.get("toolUseResult")
    if isinstance(outcome, dict):
        rec.result_agent_id = _opt_str(outcome, "agentId")
        status = outcome.get("status")
        rec.result_status = status if isinstance(status, str) else None
        rec.result_run_id = _opt_str(outcome, "runId")
        rec.web_searches = _web_searches(outcome)
        rec.result_states_usage = isinstance(outcome.get("usage"), dict)
        if rec.result_agent_id is not None:
            rec.result_usage = _stated_usage(outcome.get("usage"))


def _stated_usage(raw: Any) -> Usage | None:
    """The usage an Agent result states for its subagent (FORMAT-NOTES §4: a consistency check,
    never spend). One that does not state all four counts (every one in the corpus does), or
    does not read as usage, is not compared: no count is taken from it."""
    if not isinstance(raw, dict) or any(
        not isinstance(raw.get(key), int) for key in _PASS_COUNTERS
    ):
        return None
    try:
        return parse_usage(raw)
    except BadField:
        return None


def _progress(rec: Rec, obj: dict[str, Any]) -> None:
    data = obj.get("data")
    if not isinstance(data, dict):
        return
    rec.subtype = data.get("type") if isinstance(data.get("type"), str) else None
    if rec.subtype == "agent_progress":
        rec.progress_agent_id = _opt_str(data, "agentId")
        rec.progress_tool_use_id = _opt_str(obj, "parentToolUseID")
    embedded = data.get("message")
    if isinstance(embedded, dict):
        inner = embedded.get("message")
        rec.progress_has_usage = isinstance(inner, dict) and inner.get("usage") is not None
        if rec.progress_has_usage and isinstance(inner, dict):
            found = inner.get("id")
            rec.progress_msg_id = found if isinstance(found, str) else None
            # A copy of a child's API-error placeholder (`<synthetic>`, zero usage) copies no
            # call: no transcript groups one as a call, and it carries no spend.
            rec.progress_copies_call = inner.get("model") != SYNTHETIC_MODEL and _holds_count(
                inner.get("usage")
            )


# Claude Code writes `Date.toISOString()`: UTC, "Z", milliseconds. An RFC 3339 offset is the same
# instant written another way, and a fraction up to nanoseconds (a file rewritten by another
# tool) the same instant cut to the milliseconds a bundle holds; anything else (no zone, a leap
# second, words) is no instant.
_INSTANT = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2})(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})"
)


def utc_timestamp(value: Any) -> str | None:
    """The instant in Claude Code's own form (UTC, "Z"), or None when `value` is none."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    match = _INSTANT.fullmatch(value)
    if match is None:
        return None
    whole, fraction, zone = match.groups()
    try:
        # a real instant (not 23:59:60, not month 13), in UTC
        instant = datetime.fromisoformat(whole + ("+00:00" if zone == "Z" else zone))
        if zone != "Z":
            whole = instant.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="seconds")
    except (ValueError, OverflowError):  # the offset moves it out of years 1-9999
        return None
    # isoformat, not strftime: glibc writes year 1 as "1", not "0001"
    return whole + (fraction or "")[:4] + "Z"


# Every record type Claude Code is known to write (docs/claude-code-shapes.md); another is
# counted (CC-REC-UNKNOWN-TYPE) and skipped, or refused when it carries usage.
KNOWN_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "attachment",
        "summary",
        "mode",
        "permission-mode",
        "last-prompt",
        "file-history-snapshot",
        "ai-title",
        "custom-title",
        "queue-operation",
        "agent-name",
        "bridge-session",
        "progress",
        "fork-context-ref",
        "pr-link",
        "worktree-state",
        "tag",
        "cost-state",  # Claude Code's own running cost estimate (2.1.24x on): no `usage`
        "atis-latch",
        "agent-setting",  # the first line of a headless `--agent` run
        "frame-link",  # a published artifact's link (path, URL, title): no spend
        "artifact-autoreact-ledger",
        "artifact-comment-monitor",
        "file-history-delta",
        "relocated",  # the session's working folder moved (`relocatedCwd`): no spend
        # the last line of a transcript `←`/`/bg` moves on under a new session id
        # (`continuedInSessionId`): not followed (docs/claude-code-shapes.md §7)
        "continued-in",
    }
)


# Where a record carries usage this reader takes: an assistant's `message.usage` (a call), a
# tool result's `toolUseResult.usage` (what an Agent or Task result states of its child:
# checked, not spend; another tool's is refused in calls.match_results), a progress line's
# `data.message.message.usage` (a copy of a child's record: deeper than `_unread_usage` looks).
# The corpus has usage nowhere else.
_READ_HERE = {"assistant": "message", "user": "toolUseResult"}


def _has_usage(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("usage"), dict)


def _unread_usage(obj: dict[str, Any], kind: str) -> bool:
    """Usage written where no reader takes it: at the record's top, or under one of its fields
    (`<field>.usage`, `<field>.message.usage`, or `<field>.message.message.usage`, a progress
    copy's shape: a title or compaction call Claude Code might one day record in a `system`,
    `attachment` or new record). Its spend would be left out. A record of a type this version
    does not know, and a `system` record (notes, errors, durations: no content), is searched
    whole (`_counts_anywhere`): such records are few, and one may hold a call in any shape (a FORMAT-NOTES audit: a list of calls, a call two levels deep, a
    `tokenUsage` object, each dropped with exit 0)."""
    if _has_usage(obj) or usage_elsewhere(obj, _READ_HERE.get(kind)):
        return True
    if kind not in KNOWN_TYPES or kind == "system":  # a system record holds no content
        return _counts_anywhere(obj)
    if kind in _DEEPER_NOT_LOOKED:
        return False
    return any(
        isinstance(value, dict)
        and isinstance(message := value.get("message"), dict)
        and _has_usage(message.get("message"))
        for value in obj.values()
    )


# Records not looked into for a progress copy's shape: a progress line's is a child's copy, read
# as such; an assistant's or user's fields are the call's and the prompt's or result's, taken
# as they are, and they are most records: a look into each of their fields costs every read.
_DEEPER_NOT_LOOKED = frozenset({"progress", "assistant", "user"})


def _counts_anywhere(root: Any) -> bool:
    """Whether an object anywhere in `root` holds an integer `input_tokens` or `output_tokens`
    (a usage object, under whatever key): walked with a stack, as deep as the line reader let
    it be (`sources.jsonl.MAX_DEPTH`)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            counts = (node.get("input_tokens"), node.get("output_tokens"))
            if any(isinstance(c, int) and not isinstance(c, bool) for c in counts):
                return True
            stack.extend(v for v in node.values() if isinstance(v, dict | list))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, dict | list))
    return False


def usage_elsewhere(obj: dict[str, Any], read: str | None) -> bool:
    """Usage under a field of `obj` other than `read` (where a reader takes it): its
    `<field>.usage` or `<field>.message.usage` (a record's, or a provider response's,
    `reader/bodies.py`, whose `read` is its top-level `usage`)."""
    for key, value in obj.items():
        if key == read or not isinstance(value, dict):
            continue
        if _has_usage(value) or _has_usage(value.get("message")):
            return True
    return False


def starts_task(rec: Rec) -> bool:
    """A root prompt (typed, or sent through a channel) or slash command: a task when a task is
    a prompt (SPEC §5.1)."""
    return rec.type == "user" and rec.kind in _TASK_KINDS and bool(rec.content_digest)


_TASK_KINDS = frozenset({"prompt", _CHANNEL, "command"})


def extract(obj: dict[str, Any], file: int, line: int) -> Rec:
    """Build a Rec from one parsed line. Raises BadField with a code on a malformed field."""
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise BadField("CC-REC-BAD-FIELD")
    rec = Rec(file=file, line=line, type=kind)
    rec.uuid = _opt_str(obj, "uuid")
    rec.parent_uuid = _opt_str(obj, "parentUuid")
    session = _opt_str(obj, "sessionId")
    rec.session_id = sys.intern(session) if session is not None else None
    rec.sidechain = obj.get("isSidechain") is True
    version = obj.get("version")
    # Not a string (a number, a list) is still a version given: kept as one that is no version
    # (CC-REC-VERSION-SHAPE counts it), never dropped unsaid; absent or null is none given.
    rec.version = (
        sys.intern(version) if isinstance(version, str) else None if version is None else "?"
    )
    timestamp = obj.get("timestamp")
    if kind in ("user", "assistant") and timestamp is not None:  # only calls and prompts
        rec.timestamp = utc_timestamp(timestamp)  # None: no instant (CC-REC-BAD-TIMESTAMP)
    agent = obj.get("agentId")
    rec.agent_id = agent if isinstance(agent, str) else None
    # `/branch` (2.1.2xx) copies the session's records into a new session,
    # each marked `forkedFrom: {sessionId, messageUuid}`: that session's record, not this one's
    forked = obj.get("forkedFrom")
    if isinstance(forked, dict):
        rec.branched = True
        origin = forked.get("sessionId")
        rec.branch_origin = origin if isinstance(origin, str) else None
    subtype = obj.get("subtype")
    rec.subtype = subtype if isinstance(subtype, str) else None
    if kind == "assistant":
        _assistant(rec, obj)
    elif kind == "user":
        _user(rec, obj)
    elif kind == "progress":
        _progress(rec, obj)
    elif kind == "fork-context-ref":
        rec.fork_parent_uuid = _opt_str(obj, "parentLastUuid")
        rec.agent_id = _opt_str(obj, "agentId")
    elif kind == "attachment":
        attachment = obj.get("attachment")
        origin = attachment.get("origin") if isinstance(attachment, dict) else None
        if (
            isinstance(attachment, dict)
            and attachment.get("type") == "queued_command"
            and isinstance(origin, dict)
            and origin.get("kind") == COORDINATOR
        ):
            # A message the main agent sent a running agent, delivered at its next tool round
            # (2.1.2xx): no prompt a person typed; the message it hands is read as a
            # coordinator record's is.
            rec.kind = COORDINATOR
            text = _text_of(attachment.get("prompt"))
            rec.said = _coordinator_said(text) if text is not None else ()
        elif (
            isinstance(attachment, dict)
            and attachment.get("type") == "queued_command"
            and attachment.get("commandMode", "prompt") == "prompt"
        ):
            rec.kind = "queued-prompt"  # typed while the agent worked (FORMAT-NOTES §3)
    if _unread_usage(obj, kind):
        if kind not in KNOWN_TYPES:
            rec.unknown_with_usage = True  # CC-REC-UNKNOWN-WITH-USAGE, where the type is counted
        else:
            raise BadField("CC-REC-USAGE-UNREAD")
    return rec
