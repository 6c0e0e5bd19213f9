"""Building an account, step 6 (SPEC §4.2-4.9): model calls grouped by message.id across the
tree with the last fragment's usage, the copies' agreement with the calls they repeat, tool
calls and the results naming them, and the usage an Agent result states for its subagent
checked against the subagent's calls. Pure, iterative."""

from __future__ import annotations

from converter.errors import Problem
from converter.reader.model import Account, Call, Stream, ToolCall
from converter.reader.records import Rec, Usage
from converter.recorded import SUBAGENT_TOOLS
from converter.vocabulary import WEB_SEARCH_TOOL


def copies_agree(acc: Account) -> None:
    """A copy (a fork's bootstrap, a `/btw` replay) is not counted: the call it repeats is. It
    must still be that call (SPEC §4.6: a duplicate no rule explains is refused): a copy naming
    another model, other input and cache counters (which, unlike output, never climb between
    fragments), or more output than the call's final usage states, is CC-REC-COPY-DISAGREE,
    as the same message id over two calls in one file is CC-REC-MESSAGE-ID-REUSED."""
    for stream in acc.streams[1:]:
        for rec in stream.records[: stream.head]:
            if rec.type != "assistant":
                continue
            if rec.synthetic:  # checked as in a stream's own records (`group_calls`)
                if rec.usage is not None and not rec.usage.is_zero():
                    acc.problems.append(Problem("CC-REC-SYNTHETIC-WITH-USAGE", rec.file, rec.line))
                continue
            call = acc.calls.get(rec.msg_id or "")
            if call is None or call.stream == stream.index:
                continue
            usage = rec.usage or _ZERO
            # A copy repeats one fragment of the call: a streaming stub's (every input counter
            # 0 before the final fragment, as gateway calls write them) is compared by output
            # only, and another's with the input counters of any fragment (they differ only
            # where CC-REC-FRAGMENT-DISAGREE says so). Output climbs over the fragments, to the
            # final usage at most.
            seen = usage.input_side()
            other_input = (
                any(seen) and seen != call.usage.input_side() and seen not in call.earlier_inputs
            )
            more_output = call.final and usage.output_tokens > call.usage.output_tokens
            if rec.model != call.model or other_input or more_output:
                acc.problems.append(Problem("CC-REC-COPY-DISAGREE", rec.file, rec.line))


def _own_records(stream: Stream) -> list[tuple[int, Rec]]:
    return list(enumerate(stream.records))[stream.head :]


def group_calls(acc: Account) -> None:
    owner: dict[str, int] = {}
    for stream in acc.streams:  # orphans too: their usage is shown even though the tree refuses
        for pos, rec in _own_records(stream):
            if rec.version is not None:
                acc.versions.add(rec.version)
            if rec.type == "progress" and rec.progress_has_usage:
                acc.found("CC-REC-PROGRESS-COPY", rec.file, rec.line)
            if rec.type != "assistant":
                continue
            if rec.synthetic:
                acc.synthetic_records += 1
                acc.found("CC-REC-SYNTHETIC", rec.file, rec.line)
                if rec.usage is not None and not rec.usage.is_zero():
                    acc.problems.append(Problem("CC-REC-SYNTHETIC-WITH-USAGE", rec.file, rec.line))
                continue
            _add_fragment(acc, owner, stream, pos, rec)


def _drops_advisor(was: tuple[tuple[str, Usage], ...], now: tuple[tuple[str, Usage], ...]) -> bool:
    return len(now) < len(was) or any(a[0] != b[0] for a, b in zip(was, now, strict=False))


def advisor_calls(acc: Account) -> None:
    """Each advisor pass of a call's final usage is a call of its own, beside the call: its
    model, its usage, final, the call's place (its task and agent); no event of the
    conversation's flow (no edge). Run once calls are grouped and provider bodies joined (a
    response completing a call can bring its advisor passes)."""
    if not any(call.advisor for call in acc.calls.values()):
        return
    calls: dict[str, Call] = {}
    for msg_id, call in acc.calls.items():
        calls[msg_id] = call
        for n, (model, usage) in enumerate(call.advisor, 1):
            key = f"{msg_id}#advisor-{n}"
            if key in acc.calls:  # a message id of that very form: two calls under one key
                acc.problems.append(Problem("CC-REC-MESSAGE-ID-REUSED", call.file, call.line))
                continue
            calls[key] = Call(
                key,
                call.stream,
                call.file,
                call.line,
                call.position,
                model,
                usage,
                True,
                call.timestamp,
                [],
                advisor_of=msg_id,
            )
    acc.calls = calls


def progress_copies_matched(acc: Account) -> None:
    """A progress line copies a child's call (2.1.3x), never counted: a copy of a call no
    transcript of the tree records is spend recorded nowhere else, which ignoring it would
    lose. (Not asked of one file read alone: its children are refused as not read.) A fork's
    leading copies are looked at too: a copy there of a call recorded nowhere is no less lost."""
    for stream in acc.streams:
        for rec in stream.records:
            if rec.progress_copies_call and rec.progress_msg_id not in acc.calls:
                acc.problems.append(Problem("CC-REC-PROGRESS-UNMATCHED", rec.file, rec.line))


def _add_fragment(acc: Account, owner: dict[str, int], stream: Stream, pos: int, rec: Rec) -> None:
    msg_id = rec.msg_id or ""
    call = acc.calls.get(msg_id)
    if call is None:
        owner[msg_id] = stream.index
        acc.calls[msg_id] = Call(
            msg_id,
            stream.index,
            rec.file,
            rec.line,
            pos,
            rec.model,
            rec.usage or _ZERO,
            rec.final,
            rec.timestamp,
            list(dict.fromkeys(u.id for u in rec.tool_uses)),
            advisor=rec.advisor,
            ended=rec.final,
            named_request=rec.request_named,
        )
    elif owner[msg_id] != stream.index:
        acc.problems.append(Problem("CC-REC-UNEXPLAINED-DUPLICATE", rec.file, rec.line))
        return
    else:
        new = rec.usage or _ZERO
        if _another_call(call, new, rec.request_named):
            acc.problems.append(Problem("CC-REC-MESSAGE-ID-REUSED", rec.file, rec.line))
            return
        if new.input_side() != call.usage.input_side():
            acc.found("CC-REC-FRAGMENT-DISAGREE", rec.file, rec.line)
        if rec.model != call.model:
            acc.problems.append(Problem("CC-REC-MODEL-DISAGREE", rec.file, rec.line))
        if _drops_advisor(call.advisor, rec.advisor):
            # a later fragment drops an advisor pass already written, or names another model:
            # its counts may grow as the usage does (the last fragment's are taken), not vanish
            acc.problems.append(Problem("CC-REC-USAGE-ITERATIONS", rec.file, rec.line))
            return
        call.take_usage(new)
        call.final, call.fragments = rec.final, call.fragments + 1
        call.ended = call.ended or rec.final
        call.named_request = call.named_request and rec.request_named
        call.advisor = rec.advisor
        # a tool id already taken is this call's (an earlier fragment) or refused below; a
        # look-up in the account, not in the call's list: one call may have thousands
        call.tool_ids.extend(dict.fromkeys(u.id for u in rec.tool_uses if u.id not in acc.tools))
    for use in rec.tool_uses:
        if use.id in acc.tools:
            if acc.tools[use.id].stream != stream.index or acc.tools[use.id].msg_id != msg_id:
                acc.problems.append(Problem("CC-REC-UNEXPLAINED-DUPLICATE", rec.file, rec.line))
            continue
        acc.tools[use.id] = ToolCall(
            use.id,
            use.name,
            stream.index,
            msg_id,
            use.shape,
            pos,
            rec.file,
            rec.line,
            prompt_digest=use.prompt_digest,
            agent_type=use.agent_type,
            send_to=use.send_to,
            message_digests=use.message_digests,
            resume_of=use.resume_of,
        )


_ZERO = Usage()


def _another_call(call: Call, new: Usage, named: bool) -> bool:
    """Can this fragment not be one more of `call`'s? Output only grows between a call's
    fragments (56,524 of 56,524 calls, FORMAT-NOTES §6; all 1,134 of the corpus). Two calls
    under one message id (a gateway reusing ids, files joined) would be counted as one, the
    first one's spend lost. Input and cache counts do diverge between one call's fragments,
    rarely (13 of 201k records): that stays the finding CC-REC-FRAGMENT-DISAGREE unless the
    fragments also name two requests (reader/transcript.py). After a fragment with the final
    usage no count changes (each of the corpus's 150 fragments after one repeats all of them):
    output that changes there is a second call under the id; so are input or cache counts
    that change where a fragment names no request (`requestId`) to say it is the same call
    (with one named, the finding CC-REC-FRAGMENT-DISAGREE stands)."""
    if call.ended:
        if new.output_tokens != call.usage.output_tokens:
            return True
        return not (named and call.named_request) and new.input_side() != call.usage.input_side()
    return new.output_tokens < call.usage.output_tokens


def match_results(acc: Account) -> None:
    for stream in acc.streams:
        if stream.depth < 0:
            continue
        for pos, rec in _own_records(stream):
            if rec.type != "user":
                continue
            for result in rec.tool_results:
                tool = acc.tools.get(result.tool_use_id)
                if tool is None:
                    acc.found("CC-REC-ORPHAN-TOOL-RESULT", rec.file, rec.line)
                    continue
                if tool.result_position is not None or tool.stream != stream.index:
                    # A second result, or one in another transcript than its call's: not the
                    # call's (an audit: both were dropped unremarked; none in the corpus).
                    acc.found("CC-REC-EXTRA-TOOL-RESULT", rec.file, rec.line)
                    continue
                if pos < tool.position:
                    # Written before the tool_use it names: no result of that call (taken, it
                    # would answer the call and make an edge back to the call that asked).
                    acc.found("CC-REC-ORPHAN-TOOL-RESULT", rec.file, rec.line)
                    continue
                if rec.result_states_usage and tool.name not in SUBAGENT_TOOLS:
                    # Another tool's result with usage (a tool that calls a model itself):
                    # spend no call records, which this version does not read.
                    acc.problems.append(Problem("CC-REC-USAGE-UNREAD", rec.file, rec.line))
                tool.status = "error" if result.is_error else "ok"
                tool.result_position = pos
                tool.result_agent_id = rec.result_agent_id
                tool.result_status = rec.result_status
                tool.result_run_id = rec.result_run_id
                tool.result_usage = rec.result_usage
                tool.web_searches = rec.web_searches if tool.name == WEB_SEARCH_TOOL else 0
    # The calls of a stream with no depth had no result looked for (it is refused: in a cycle,
    # an orphan, a join conflict, or hanging from one): not said to have none
    for t in acc.tools.values():
        if t.status == "no-result" and acc.streams[t.stream].depth >= 0:
            acc.found("CC-REC-TOOL-NO-RESULT", t.file, t.line)


def stated_usage_agrees(acc: Account) -> None:
    """An Agent or Task result states the usage of its subagent's last call
    (`toolUseResult.usage`, FORMAT-NOTES §4: a consistency check, never spend; the corpus's 13
    agree). When no call of that subagent's transcript can have had it, the finding
    CC-REC-AGENT-USAGE-DISAGREE says so: a subagent transcript cut short of its last calls, or
    another run's, would otherwise pass unseen, its missing spend with it."""
    own: dict[int, list[Call]] = {}
    for call in acc.calls.values():
        if call.advisor_of is None:  # the statement is of the child's own calls
            own.setdefault(call.stream, []).append(call)
    streams = {s.agent_id: s.index for s in acc.streams[1:] if s.depth >= 0 and s.agent_id}
    for tool in acc.tools.values():
        stated = tool.result_usage
        if stated is None or tool.name not in SUBAGENT_TOOLS:
            continue
        stream = streams.get(tool.result_agent_id or "")
        if stream is None:
            continue
        calls = sorted(own.get(stream, []), key=lambda c: c.position)
        if not any(_could_be(stated, call, call is calls[-1]) for call in calls) and (
            calls or any(_counters(stated))
        ):
            completed = [
                c.body
                for c in calls
                if c.body is not None and c.usage.input_totals() == stated.input_totals()
            ]
            if completed:
                # A call its response completed, and the parent's statement of that same call's
                # final usage (its input side; the last of a run, wherever a resumed agent's
                # later runs put it) disagree on its output: two records of one call, neither
                # explained (an audit: the response's 5,000 taken where the transcript said
                # 997, with a finding that blamed a child cut short).
                acc.problems.extend(Problem("CC-BODY-USAGE-DISAGREES", b) for b in completed)
                continue
            acc.found("CC-REC-AGENT-USAGE-DISAGREE", tool.file, tool.line)


def _could_be(stated: Usage, call: Call, last: bool) -> bool:
    """Could `stated` be this call's final usage? A finished call must match it; a streaming
    stub records its final input and cache counts and less output. A stub that recorded no
    input at all (gateway stubs do) could be any call, but only the child's last one is the
    call an Agent result speaks of: a cut child whose middle holds such a stub is still seen."""
    seen = call.usage
    if call.final:
        return _counters(seen) == _counters(stated)
    if not any(seen.input_side()):
        return last
    return (
        seen.input_totals() == stated.input_totals() and seen.output_tokens <= stated.output_tokens
    )


def _counters(u: Usage) -> tuple[int, int, int, int]:
    return (*u.input_totals(), u.output_tokens)
