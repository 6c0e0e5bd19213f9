"""Provider response bodies: read the selected ones, join them to calls, use what they say
(SPEC §3, §4.4, §5.4; FORMAT-NOTES §5; docs/claude-code-shapes.md "Provider bodies").

`read_bodies` (I/O, after `load`): selects this tree's bodies (`sources/bodies.py`), binds each
selected response by the SHA-256 of its exact bytes, read once, and reads it strictly: an object
with a string `id`, a string `model`, a `stop_reason` string or null, and a `usage` read as a
transcript's is (`records.parse_usage`, advisor passes with `records.with_passes`; usage under
another field is refused). One that is not whole JSON may still be being written.

`join_bodies` (pure, inside `build_account` once calls are grouped): unique joins only, never by
position or time. A response joins the one call whose message id is its `id`; with an index,
the line naming it must give that same message id; without one, the request id that selected
it must be one that call's records name. Then:
  - its model must be the call's;
  - a call the transcript left usage-incomplete, answered by a response with a stop reason whose
    input side (input, cache read, cache write total) is the call's and whose output is no less,
    takes the response's usage (advisor passes included) and is complete (a response of several
    passes of its own: the first pass's input side, which the stub was written with); so does one whose
    stub recorded no input at all (written before its input was counted: it states none to
    compare), answered with no less output in the same billing context, by a response that
    states some input; a response never has fewer server-tool requests than its stub, and
    what the stub states and the response leaves out (context, split) is kept;
  - a call already complete must have exactly the response's counters (and advisor passes);
  - a response with no stop reason is a stub too: checked like a fragment, completes nothing.
A response whose id no transcript call has, named by this session's index line, is a hidden call
(SPEC §5.4; CC-BODY-HIDDEN-CALL): a call of its own (`HiddenCall`), priced from the response as
any call is, of the kind its index line's `query_source` says (`hidden_kind`). `read_bodies`
reads its request (the line's `request_file`, bound like every body) for the billing header's
`cc_prompt_id` and `cc_prev_req`; `reader/hidden.py` (pure, once every call has its task) gives
it the task they name. A hidden call whose response is not final keeps its request's
`max_tokens`, the high end's output (SPEC §8.4). Two responses for one call, or a join that
does not agree, refuse.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import msgspec

from converter.errors import Problem
from converter.limits import MAX_REQUESTED_OUTPUT
from converter.reader.load import LoadedTree, read_bytes
from converter.reader.model import Account, Call, HiddenCall
from converter.reader.records import (
    COUNTERS,
    BadField,
    Usage,
    first_pass_input,
    lacks_counts,
    parse_usage,
    usage_elsewhere,
    with_passes,
)
from converter.sources.bodies import RESPONSE_SUFFIX, Selected, request_entry, select
from converter.sources.jsonl import BadLine, cut_short, read_document
from converter.sources.tree import SourceFile, entry_kind
from converter.vocabulary import HiddenKind


@dataclass(frozen=True, slots=True)
class Response:
    file: int  # the response file's index in the layout
    stem: str  # its name less `.response.json`: the request id it is named by
    index: int | None  # the index entry's file index, when an index named it
    index_line: int | None
    message_id: str | None  # the message id the index line gives
    id: str
    model: str
    final: bool  # a stop reason: the final usage, not a stub
    usage: Usage
    advisor: tuple[tuple[str, Usage], ...] = ()
    # Answered in several passes of its own (`usage.iterations`): the first pass's input totals,
    # which a transcript's streaming stub of the call holds (`_agrees`).
    first_pass: tuple[int, int, int] | None = None
    query_source: str | None = None  # its index line's, as written (`hidden_kind`)
    # A hidden call's request, when read: the billing header's ids.
    request: Request | None = None
    # Its request is refused (a symlink, damaged, cut short): that refusal says why it has
    # no task, not a follow-on CC-BODY-HIDDEN-UNATTRIBUTED and its wrong fix (an audit).
    request_refused: bool = False


@dataclass(frozen=True, slots=True)
class Request:
    """What a hidden call's request names: the turn (`cc_prompt_id`, the transcript's
    `promptId`) and the previous call of its chain (`cc_prev_req`, a request id); and the most
    output it asked for (`max_tokens`), which bounds the call's output if its response is not
    final (SPEC §8.4)."""

    prompt_id: str | None
    prev_request: str | None
    max_tokens: int | None = None


def session_of(tree: LoadedTree) -> str:
    """The tree's session id: its parent's name, else the first its parent's records name (a
    single file read with `--from claude-code`, whose name need not be one)."""
    if tree.layout.session_id:
        return tree.layout.session_id
    return next((r.session_id for r in tree.records.get(0, ()) if r.session_id), None) or ""


def read_bodies(tree: LoadedTree, folder: Path, *, requests: bool = True) -> None:
    """Select, bind and read this tree's provider bodies in `folder` into `tree.responses`;
    every problem met goes to `tree.problems`. Nothing is selected for a tree with no parent.
    `requests`: read every hidden call's request (not when the whole tree is one task: their
    ids would decide nothing, and a request is the most private file there is); without it,
    only the request of a hidden call whose response is not final, for its `max_tokens`."""
    if not tree.layout.files:  # no parent laid out: its refusal says why; the folder is
        if entry_kind(Path(os.path.abspath(folder))) != "dir":  # still judged
            tree.problems.append(Problem("CC-BODY-DIR-UNREADABLE"))
        return
    bound = {f.index for f in tree.bound_files}
    # A `/branch` session's copies of the session it was branched from name that session's
    # requests: their responses are its calls', not this tree's (a review: refused as
    # CC-BODY-ID-DISAGREES, since the copies are no calls here).
    # Only a main transcript's copies are dropped (`streams.drop_branch_copies`), and a copy
    # of a call in another file names its own request id: by file.
    parents = {f.index for f in tree.bound_files if f.role == "parent"}
    copied = {
        (i, r.msg_id) for i in parents for r in tree.records.get(i, ()) if r.branched and r.msg_id
    }
    named = [
        rid
        for index, ids in tree.request_ids.items()
        if index in bound
        for msg_id, rid in ids.items()
        if (index, msg_id) not in copied
    ]
    selection = select(folder, tree.layout, session_of(tree), named)
    tree.problems.extend(selection.problems)
    if selection.index is not None and selection.index_digest is not None:
        tree.digests[selection.index.index] = selection.index_digest
        if not selection.index_digest.size:
            # none of this session's lines: nothing of the index is its evidence (an index
            # another session's Claude Code created leaves its contract as it was)
            tree.unbound.add(selection.index.index)
    if not selection.responses and not selection.problems:
        # a folder of none of this session's bodies (another folder, the projects folder, a
        # session whose calls wrote none): said, since it changes nothing
        tree.layout.not_read["CC-BODY-NONE-SELECTED"] += 1
    for selected in selection.responses:
        found = _read_response(tree, selected, selection.index.index if selection.index else None)
        if found is not None:
            tree.responses.append(found)
    if selection.index is not None and not tree.layout.split:
        by_file = {s.entry.index: s for s in selection.responses}
        _read_requests(tree, folder, bound, by_file, every=requests)


def _read_requests(
    tree: LoadedTree, folder: Path, bound: set[int], selected: dict[int, Selected], *, every: bool
) -> None:
    """Read the request of each hidden call (a response named by this session's index line
    whose id no record of the tree's transcripts has; not `every`: of each whose response is
    not final): its billing header names the turn and the chain it belongs to, its `max_tokens`
    the most output it could have. Only theirs: a request is 100-200 KB of prompts and schemas,
    and a transcript call needs none. In a split session no response is taken as hidden.
    (`join_bodies` decides which responses are hidden calls, once calls are grouped; this
    reads ahead by the records' message ids, which name the same calls.)"""
    recorded = {
        r.msg_id
        for index, records in tree.records.items()
        if index in bound
        for r in records
        if r.msg_id is not None
    }
    taken: set[str] = set()  # the request files named so far
    for n, r in enumerate(tree.responses):
        if r.index_line is None or r.id in recorded or r.message_id not in (None, r.id):
            continue
        if not every and r.final:
            continue
        entry = request_entry(folder, tree.layout, selected[r.file], taken)
        if entry is None:  # no request named: attributed without one, or refused as such
            continue
        if not every:
            tree.responses[n] = replace(r, request=_request_for_bound(tree, entry))
            continue
        if isinstance(entry, Problem):
            tree.problems.append(entry)
            tree.responses[n] = replace(r, request_refused=True)
            continue
        request = _read_request(tree, entry, ids=True)
        tree.responses[n] = replace(r, request=request, request_refused=request is None)


def _request_for_bound(tree: LoadedTree, entry: SourceFile | Problem) -> Request | None:
    """A hidden stub's request read for its `max_tokens` alone (the whole tree one task). Where
    0.6.12 never opened it, a request that is not there to read bounds nothing and refuses
    nothing: missing, or not a regular file (never opened), so not bound; or read whole and
    damaged (not JSON, a key twice), bound as read, so that a later change to it is one (a
    review: 0.6.12 converted such sessions). The contract's `max_output_tokens` bounds the
    call then, as for a request that states no `max_tokens`. Anything else refuses, as every
    body does: one that may still be being written (a bundle made now would differ from one
    made once it is whole), one that could not be read (its bytes unknown), and an index line
    naming a request another line names or no request file (ambiguous, whichever unit)."""
    if isinstance(entry, Problem):
        if entry.code not in ("CC-BODY-FILE-MISSING", "CC-BODY-NOT-REGULAR"):
            tree.problems.append(entry)
        return None
    return _read_request(tree, entry, ids=False)


_REQUEST_UNFINISHED = "CC-BODY-REQUEST-UNFINISHED"
_BILLING_HEADER = "x-anthropic-billing-header:"
_HEADER_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")


def _read_request(tree: LoadedTree, entry: SourceFile, *, ids: bool) -> Request | None:
    """A request read, bound and parsed; with `ids`, its billing header's too. Without: only
    its `max_tokens` is wanted, and neither a header it does not need nor bytes read whole that
    are no JSON object refuse anything (`_request_for_bound`)."""
    doc = _body_document(tree, entry, _REQUEST_UNFINISHED, damage_refuses=ids)
    if doc is None:
        return None
    prompt_id = prev_request = None
    if ids:
        try:
            prompt_id, prev_request = billing_ids(doc)
        except BadField as bad:
            tree.problems.append(Problem(bad.code, entry.index, 1))
            return None
    return Request(prompt_id, prev_request, requested_output(doc))


def requested_output(request: dict[str, Any]) -> int | None:
    """A request's `max_tokens`: the API stops the answer there, so it bounds the output of a
    call whose response is not final (SPEC §8.4). None when it is not a whole number from 1 to
    `MAX_REQUESTED_OUTPUT` (absent, or a gateway's own shape): the contract's
    `max_output_tokens` bounds the call then, a wider interval, never a narrower one."""
    value = request.get("max_tokens")
    if type(value) is not int or not 1 <= value <= MAX_REQUESTED_OUTPUT:
        return None
    return value


def _body_document(
    tree: LoadedTree, entry: SourceFile, unfinished: str, *, damage_refuses: bool = True
) -> dict[str, Any] | None:
    """A body file read once, bound (size and SHA-256 of its bytes) and parsed strictly as one
    JSON object; None, its problem said, otherwise. Each is written in one write with no rename
    (FORMAT-NOTES §5): one being written reads empty, or cut short, said as `unfinished`, not
    "damaged". Without `damage_refuses`, bytes read whole that are no JSON object (a key twice,
    not JSON) are None and said nothing of: bound as read, they change nothing else."""
    data = read_bytes(tree, entry, empty=unfinished)
    if data is None:
        return None
    doc = read_document(data)
    if isinstance(doc, BadLine):
        code = doc.code
        if code in ("CC-LINE-INVALID-JSON", "CC-LINE-INVALID-UTF8"):
            code = _other_form(data) or (unfinished if cut_short(data) else code)
        if damage_refuses or code == unfinished:
            tree.problems.append(Problem(code, entry.index, 1))
        return None
    return doc


_GZIP_MAGIC = b"\x1f\x8b"
_SSE_FIELDS = (b"event:", b"data:")


def _other_form(data: bytes) -> str | None:
    """The code of a body that is no JSON because it is in another form than Claude Code's
    (a streamed body, a compressed file), said as such rather than as a transcript line's
    damage at "line 1" (a provider-bodies audit); None for any other failed parse."""
    if data.startswith(_GZIP_MAGIC):
        return "CC-BODY-COMPRESSED"
    if data.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(_SSE_FIELDS):
        return "CC-BODY-STREAMED"
    return None


def billing_ids(request: dict[str, Any]) -> tuple[str | None, str | None]:
    """`cc_prompt_id` and `cc_prev_req` of a request's billing header (FORMAT-NOTES §5: the
    first system block, `x-anthropic-billing-header: k=v; ...`, read by key, not position);
    (None, None) when it has none (a gateway's, Bedrock's). A key given twice, or a value not
    in an id's shape, is CC-BODY-REQUEST-SHAPE: it is compared with ids, never shown."""
    system = request.get("system")
    first = system[0] if isinstance(system, list) and system else system
    if isinstance(first, dict):
        first = first.get("text") if first.get("type") == "text" else None
    if not isinstance(first, str) or not first.startswith(_BILLING_HEADER):
        return None, None
    found: dict[str, str] = {}
    for part in first[len(_BILLING_HEADER) :].split(";"):
        key, _, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if key not in ("cc_prompt_id", "cc_prev_req"):
            continue
        if key in found or not _HEADER_ID.fullmatch(value):
            raise BadField("CC-BODY-REQUEST-SHAPE")
        found[key] = value
    return found.get("cc_prompt_id"), found.get("cc_prev_req")


_UNFINISHED = "CC-BODY-RESPONSE-UNFINISHED"


def _read_response(tree: LoadedTree, selected: Selected, index: int | None) -> Response | None:
    entry = selected.entry
    doc = _body_document(tree, entry, _UNFINISHED)
    if doc is None:
        return None
    try:
        return _response(doc, entry.index, entry.path.name, index, selected)
    except BadField as bad:
        tree.problems.append(Problem(bad.code, entry.index, 1))
        return None


def _response(
    doc: dict[str, Any], file: int, name: str, index: int | None, selected: Selected
) -> Response:
    msg_id, model, stop = doc.get("id"), doc.get("model"), doc.get("stop_reason")
    raw_usage = doc.get("usage")
    if (
        not isinstance(msg_id, str)
        or not msg_id
        or not isinstance(model, str)
        or not model
        or (stop is not None and not isinstance(stop, str))
        or not isinstance(raw_usage, dict)
    ):
        raise BadField("CC-BODY-RESPONSE-SHAPE")
    if lacks_counts(raw_usage):
        raise BadField("CC-REC-NO-USAGE")
    if usage_elsewhere(doc, "usage"):
        # usage under another field of the response (`context_management.usage`): a call or a
        # pass written in a new place, its spend left out if unread, as in a transcript
        raise BadField("CC-REC-USAGE-UNREAD")
    usage, advisor = with_passes(raw_usage, parse_usage(raw_usage), model)
    return Response(
        file=file,
        stem=name.removesuffix(RESPONSE_SUFFIX),
        index=index,
        index_line=selected.index_line,
        message_id=selected.message_id,
        id=msg_id,
        model=model,
        final=stop is not None,
        usage=usage,
        advisor=advisor,
        first_pass=first_pass_input(raw_usage),
        query_source=selected.query_source,
    )


def named_requests(acc: Account) -> dict[str, set[str]]:
    """Message id -> every request id the tree's bound transcripts name for it."""
    named: dict[str, set[str]] = defaultdict(set)
    bound = {f.index for f in acc.tree.bound_files}
    for index, ids in acc.tree.request_ids.items():
        if index not in bound:  # a 2.0.x sibling of another session
            continue
        for msg_id, request_id in ids.items():
            named[msg_id].add(request_id)
    return named


def join_bodies(acc: Account) -> None:
    """Join each response read to its call and use it (the module's docstring says how)."""
    responses = acc.tree.responses
    if not responses:
        return
    named = named_requests(acc)
    requested = {request_id for ids in named.values() for request_id in ids}
    joined: set[str] = set()
    completed = hidden = 0
    for r in responses:
        if r.message_id is not None and r.message_id != r.id:  # said at the index line
            acc.problems.append(Problem("CC-BODY-ID-DISAGREES", r.index, r.index_line))
            continue
        call = acc.calls.get(r.id)
        if r.index_line is None and (call is None or r.stem not in named.get(r.id, ())):
            # selected by a call's request id, yet its id is not that call's: not its response
            acc.problems.append(Problem("CC-BODY-ID-DISAGREES", r.file))
            continue
        if (
            r.index_line is not None
            and call is not None
            and named.get(r.id)
            and r.stem not in named[r.id]
        ):
            # an index line pairing a call with a response file named by another request id
            # than the call's records name: the file name is the request id, by construction
            acc.problems.append(Problem("CC-BODY-ID-DISAGREES", r.index, r.index_line))
            continue
        if r.index_line is not None and call is None and r.stem in requested:
            # named by a request id a transcript call's records give, yet no call's id: that
            # call's response by its name, not a hidden call (a red team: priced twice, exit 0)
            acc.problems.append(Problem("CC-BODY-ID-DISAGREES", r.index, r.index_line))
            continue
        if r.id in joined:  # two responses for one call
            acc.problems.append(Problem("CC-BODY-DUPLICATE", r.file))
            continue
        joined.add(r.id)
        if call is None:  # named by this session's index line: a call no transcript records
            if acc.tree.layout.split:  # or one the session's other transcript records
                acc.findings["CC-BODY-HIDDEN-NOT-COUNTED"] += 1
            else:
                hidden += 1
                acc.hidden.extend(_hidden_calls(r))
            continue
        if r.model != call.model:
            acc.problems.append(Problem("CC-BODY-MODEL-DISAGREES", r.file))
            continue
        if not _agrees(call, r):
            acc.problems.append(Problem("CC-BODY-USAGE-DISAGREES", r.file))
            continue
        if not call.final and r.final:
            if not any(r.usage.input_side()):
                # Every call reads input: a response stating none gives no input a stub that
                # recorded none lacks, and would price it as if it had read nothing. The call
                # stays usage-incomplete (an audit: a gateway stub's verdict flipped to SCALE).
                continue
            # the stub's input side is kept: a copy in another transcript may repeat it
            call.take_usage(_kept(call.usage, r.usage))
            call.advisor, call.final = r.advisor, True
            call.body = r.file
            completed += 1
    if completed:
        acc.findings["CC-BODY-USAGE-COMPLETED"] += completed
    if hidden:
        acc.findings["CC-BODY-HIDDEN-CALL"] += hidden  # the inventory's hidden_calls
    acc.auxiliary_observed = _all_indexed(acc)


def _all_indexed(acc: Account) -> bool:
    """Whether every call no transcript records was looked for: this session's index lines
    were read (2.1.274 on), and every complete transcript call's response came through one of
    them. A call with no indexed response was made before the index or the bodies setting
    existed, and so might a hidden call of that time have been."""
    through_index = {r.id for r in acc.tree.responses if r.index_line is not None}
    index = next((f for f in acc.tree.bound_files if f.role == "provider-index"), None)
    if index is None or index.index in acc.tree.unbound or acc.tree.layout.split:
        return False
    # A call the transcript left a stub and no response completed did not succeed (an
    # interrupted stream): Claude Code writes a response only for a success, so its missing
    # line says nothing of when the index began (a review: one Esc made a session unobserved).
    return all(msg_id in through_index for msg_id, call in acc.calls.items() if call.final)


def hidden_kind(query_source: str | None) -> HiddenKind:
    """What a hidden call was for, by its index line's `query_source` (its values are not
    documented; docs/claude-code-shapes.md "Provider bodies"): a session title, a compaction,
    or another (a prompt suggestion, a web search's side call, a value not known)."""
    source = (query_source or "").lower()
    if "title" in source:
        return "title"
    if "compact" in source:
        return "compaction"
    return "other"


def _hidden_calls(r: Response) -> list[HiddenCall]:
    """A hidden call, and each advisor pass of its response as a call of its own beside it
    (as a transcript call's are, `calls.advisor_calls`)."""
    request = r.request
    call = HiddenCall(
        msg_id=r.id,
        file=r.file,
        request_id=r.stem,
        kind=hidden_kind(r.query_source),
        model=r.model,
        usage=r.usage,
        final=r.final,
        prompt_id=request.prompt_id if request else None,
        prev_request=request.prev_request if request else None,
        max_tokens=_output_bound(r),
        request_refused=r.request_refused,
    )
    passes = [
        replace(
            call,
            msg_id=f"{r.id}#advisor-{n}",
            model=model,
            usage=usage,
            final=True,
            max_tokens=None,  # a pass is complete: no bound (a review: it took the call's)
            advisor_of=r.id,
        )
        for n, (model, usage) in enumerate(r.advisor, 1)
    ]
    return [call, *passes]


def _output_bound(r: Response) -> int | None:
    """The request's `max_tokens` of a hidden call whose response is not final: the most output
    it could have had (SPEC §8.4). None for a final one (priced as it stands), and for a bound
    below the output the response already states, which cannot be this call's: the contract's
    `max_output_tokens` bounds it then (a review: the interval collapsed to its low end)."""
    bound = r.request.max_tokens if r.request is not None and not r.final else None
    return bound if bound is not None and bound >= r.usage.output_tokens else None


def _kept(seen: Usage, said: Usage) -> Usage:
    """The response's usage completing a stub, with what the stub states and the response
    leaves out: its billing context, its unpriced server tools and fallback credit, and its
    cache-write split where the stub recorded its input (an audit: a response that named no `speed` or split turned a stub's fast mode into
    no context and its 1h write into an unsplit one, its cost a sixth, exit 0). A stub that
    recorded no input states no split: its zeros were not yet counted."""
    kept: dict[str, Any] = {
        name: getattr(seen, name)
        for name in ("service_tier", "speed", "inference_geo")
        if getattr(said, name) is None and getattr(seen, name) is not None
    }
    if seen.split_present and not said.split_present and any(seen.input_side()):
        kept.update(cache_5m=seen.cache_5m, cache_1h=seen.cache_1h, split_present=True)
    # what the stub says of its spend beyond the counts: an unpriced server tool used, a
    # fallback credit redeemed (each a finding that marks the figure a bound)
    if seen.unpriced_server_tools and not said.unpriced_server_tools:
        kept["unpriced_server_tools"] = True
    if seen.credit_redeemed and not said.credit_redeemed:
        kept["credit_redeemed"] = True
    return msgspec.structs.replace(said, **kept) if kept else said


def _stated_alike(seen: Usage, said: Usage, *, split: bool = True, stub: bool = False) -> bool:
    """What both state of the call's cache-write split and billing context is the same: a
    response never replaces a split or a context the transcript states (a review: a stub's
    1h write became 5m, its context fast mode, with exit 0). Without `split`, the context only.
    A `stub`'s `inference_geo` is no statement: 2.1.38-2.1.39 write `not_available` or `global`
    on a call's stubs and `""` on its final record (260 calls of the corpus go from one to the
    other; FORMAT-NOTES 6), so its answer names the region."""
    if (
        split
        and seen.split_present
        and said.split_present
        and (seen.cache_5m, seen.cache_1h) != (said.cache_5m, said.cache_1h)
    ):
        return False
    pairs = (
        (seen.service_tier, said.service_tier),
        (seen.speed, said.speed),
        (None if stub else seen.inference_geo, said.inference_geo),
    )
    return all(a is None or b is None or a == b for a, b in pairs)


def _same_counts(seen: Usage, said: Usage) -> bool:
    """Every counter the same, the cache-write split only where both state one: a response
    that leaves it out states no other (an audit: a complete call whose response had no
    `cache_creation` object was refused, where leaving out its billing context was not)."""
    if seen.split_present and said.split_present:
        return seen.counters() == said.counters()
    kept = [i for i, name in enumerate(COUNTERS) if name not in ("cache_5m", "cache_1h")]
    ours, theirs = seen.counters(), said.counters()
    return all(ours[i] == theirs[i] for i in kept)


def _agrees(call: Call, r: Response) -> bool:
    """Whether the response can be this call's answer as the transcript records the call."""
    seen, said = call.usage, r.usage
    if not call.final and (
        said.web_search_requests < seen.web_search_requests
        or said.web_fetch_requests < seen.web_fetch_requests
    ):
        return False  # a stub's server-tool requests are made already: its answer has them all
    if not call.final and not any(seen.input_side()):
        # A stub written before its input was counted (CC-REC-USAGE-INCOMPLETE-NO-INPUT): its
        # zero input and cache split are not yet counted, not stated; what it states is its
        # billing context and its output so far.
        return (
            _stated_alike(seen, said, split=False, stub=True)
            and said.output_tokens >= seen.output_tokens
        )
    if not call.final and r.first_pass is not None and seen.input_totals() == r.first_pass:
        # A stub of a call answered in several passes (an advisor, a server tool): written as
        # the stream started, it holds the first pass's input and cache split; the response
        # states the passes' sums, which hold the first's.
        return (
            _stated_alike(seen, said, split=False, stub=True)
            and seen.cache_5m <= said.cache_5m
            and seen.cache_1h <= said.cache_1h
            and said.output_tokens >= seen.output_tokens
        )
    if not _stated_alike(seen, said, stub=not call.final):
        return False
    if call.final and r.final:  # both final: the same usage, counter for counter
        return _same_counts(seen, said) and call.advisor == r.advisor
    if call.final:  # a stub response of a complete call: written before it, never after
        return (
            seen.input_totals() == said.input_totals() and said.output_tokens <= seen.output_tokens
        )
    # the transcript's stub: its input side is final already, its output only grows
    return seen.input_totals() == said.input_totals() and said.output_tokens >= seen.output_tokens
