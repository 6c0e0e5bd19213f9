"""A record cut short inside a transcript (a crash mid-write, then the session resumed): read
around it when what it held is no spend, refused when it could be (sources/torn.py,
reader/transcript.py `_cut_code`). Claude Code skips such a line itself from 2.1.121 on
(delexw/claude-code-trace#66); glued to the next record without a newline (serpro69/capy#105) or
followed by one (anthropics/claude-code#50347). Was: CC-LINE-INVALID-JSON, "restore it from a
backup", for every such session."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from converter.sources.jsonl import CutRecord, Digest, iter_lines
from converter.sources.torn import _last_comma, names, split
from tests.damage import INSPECT, Tree, dump, run_guarded

# The synthetic tree's parent (tests/damage.py): line 3 the prompt (uuid f9c11be4…), 6 and 7
# two fragments of one call (text, then tool_use), 8 its tool result, 9 a call of one fragment.
_CALL = "msg_011C4SjQDgtfTaGWwDkm1sfW"


def _resumed(after: str) -> list[bytes]:
    """What a resumed session appends: a prompt continuing from the record `after`, answered."""
    prompt = {
        "parentUuid": after,
        "isSidechain": False,
        "type": "user",
        "message": {"role": "user", "content": "CANARY-resumed go on"},
        "uuid": "0f1e2d3c-0000-4000-8000-000000000001",
        "timestamp": "2026-07-21T10:00:00.000Z",
        "sessionId": "65e893e5-a69d-4955-a5e1-5d5ee7bc592e",
        "version": "2.1.121",
    }
    answer = {
        "parentUuid": prompt["uuid"],
        "isSidechain": False,
        "type": "assistant",
        "message": {
            "id": "msg_resumed",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [{"type": "text", "text": "CANARY-resumed done"}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 7, "output_tokens": 3},
        },
        "uuid": "0f1e2d3c-0000-4000-8000-000000000002",
        "timestamp": "2026-07-21T10:00:05.000Z",
        "sessionId": prompt["sessionId"],
        "version": "2.1.121",
    }
    return [dump(prompt), dump(answer)]


def _crash_at(syn: Tree, line: int, *, glued: bool, cut_at: float = 0.5) -> None:
    """The parent as a crash while writing `line` leaves it, then a resume: the lines before,
    that line's head, and the resumed records (on the same line when `glued`)."""
    lines = syn.lines()
    before = lines[: line - 1]
    cut = lines[line - 1][: int(len(lines[line - 1]) * cut_at)]
    loaded = [json.loads(raw) for raw in before]
    resumed = _resumed([r["uuid"] for r in loaded if "uuid" in r][-1])  # the last one loaded
    tail = [cut + resumed[0], resumed[1]] if glued else [cut, *resumed]
    syn.write_lines("", [*before, *tail])


def _inspect(cli: Any, syn: Tree, tmp_path: Path) -> Any:
    return run_guarded(cli, INSPECT.argv(syn.parent, tmp_path / "o"), watch=[syn.root])


def _refused(cli: Any, syn: Tree, tmp_path: Path, code: str, line: int) -> Any:
    """inspect refuses the parent with `code` at `line`; its outcome."""
    done = _inspect(cli, syn, tmp_path)
    assert done.code == 2, done.err
    assert done.has(code, syn.label("parent", ""), line)
    return done


def test_a_cut_fragment_of_a_call_another_record_holds_is_passed(
    cli: Any, syn: Tree, tmp_path: Path
) -> None:
    original = syn.parent.read_bytes()
    # Cut while writing the call's tool_use (an Agent call): a child transcript beside it is
    # then no agent this session ran as far as the files say, and is refused as an orphan ...
    _crash_at(syn, 7, glued=True)
    assert _inspect(cli, syn, tmp_path).has("CC-TREE-ORPHAN-CHILD")
    # ... while, as a crash leaves it, the agent never ran: no child.
    shutil.rmtree(syn.folder / "subagents")
    for glued in (True, False):
        syn.parent.write_bytes(original)
        _crash_at(syn, 7, glued=glued)  # the call's tool_use fragment, its text one kept
        done = _inspect(cli, syn, tmp_path)
        assert done.code == 0, done.err
        report = done.report
        assert report is not None
        findings = {f["code"]: f["count"] for f in report["findings"]}
        assert findings["CC-LINE-CUT-PASSED"] == 1
        # the cut call, priced from its text fragment, and the resumed session's
        assert report["counts"]["model_calls"] == 2


def test_a_cut_record_that_held_a_calls_only_record_is_refused(
    cli: Any, syn: Tree, tmp_path: Path
) -> None:
    _crash_at(syn, 9, glued=True)  # msg_011CpD5…: one fragment, nothing else states its usage
    done = _refused(cli, syn, tmp_path, "CC-LINE-CUT-LOST", 9)
    # a fix audit: "restore a backup taken before the crash" converted with the cut call and
    # all written after it missing, exit 0; no copy of the file can hold the cut record
    assert "leave it out of what you convert" in done.err
    assert "backup" not in done.err


def test_a_cut_prompt_and_a_cut_bookkeeping_record_are_passed(
    cli: Any, syn: Tree, tmp_path: Path
) -> None:
    original = syn.parent.read_bytes()
    for line in (8, 10):  # a tool result no call followed (the crash), a last-prompt record
        syn.parent.write_bytes(original)
        _crash_at(syn, line, glued=line == 8)
        done = _inspect(cli, syn, tmp_path)
        assert done.code == 0, (line, done.err)
        assert done.report is not None
        findings = {f["code"]: f["count"] for f in done.report["findings"]}
        assert findings["CC-LINE-CUT-PASSED"] == 1


def test_a_cut_record_a_later_record_descends_from_is_refused(
    cli: Any, syn: Tree, tmp_path: Path
) -> None:
    """Not the last write before a crash (two writers): what followed may have answered it."""
    original = syn.lines()
    lines = list(original)
    lines[7] = lines[7][: len(lines[7]) // 2]  # the tool result, and line 9 answers it
    syn.write_lines("", lines)
    _refused(cli, syn, tmp_path, "CC-LINE-CUT-LOST", 8)
    # glued to the record that answers it, on the same line (a review: that one was not seen)
    lines[7:9] = [lines[7] + original[8]]
    syn.write_lines("", lines)
    _refused(cli, syn, tmp_path, "CC-LINE-CUT-LOST", 8)


def test_a_cut_whose_head_does_not_say_what_it_was_is_refused(
    cli: Any, syn: Tree, tmp_path: Path
) -> None:
    """An assistant record writes its type after its message: cut before the message's id, it
    could be a call's only record."""
    _crash_at(syn, 7, glued=True, cut_at=0.02)
    _refused(cli, syn, tmp_path, "CC-LINE-CUT-LOST", 7)


def test_a_damaged_line_that_is_no_cut_stays_invalid_json(
    cli: Any, syn: Tree, tmp_path: Path
) -> None:
    lines = syn.lines()
    lines[3] = lines[3].replace(b'":"', b'"::"', 1)  # broken inside, not cut
    syn.write_lines("", lines)
    done = _refused(cli, syn, tmp_path, "CC-LINE-INVALID-JSON", 4)
    assert "CC-LINE-CUT-PASSED" not in done.err


def test_split_finds_the_head_and_the_record_glued_after_it() -> None:
    record = {"type": "user", "message": {"content": 'a } " { \\" ] ['}, "uuid": "u2"}
    whole = {
        "parentUuid": "u0",
        "type": "assistant",
        "message": {"model": "m", "id": "msg_1", "content": [{"type": "text", "text": "é{["}]},
        "uuid": "u1",
    }
    raw = dump(whole)
    cut = raw[: raw.index(b"\xc3") + 1]  # inside the two bytes of é
    found = split(cut + dump(record))
    assert found is not None
    assert found.record == record
    assert found.head == {
        "parentUuid": "u0",
        "type": "assistant",
        "message": {"model": "m", "id": "msg_1", "content": [{"type": "text"}]},
    }
    assert names(found.head) == ("assistant", "msg_1")
    alone = split(cut)
    assert alone is not None
    assert alone.record is None
    assert alone.head == found.head
    assert split(b'{"a":1}}') is None  # closes more than it opened
    assert split(b'{"a":1} x') is None  # a whole object, then text
    assert split(b'["a",') is None  # no record's beginning
    assert split(b'{"a":tru e,"b":') is None  # invalid before the cut


def _prefix_of(head: Any, whole: Any) -> bool:
    """Every member a head holds is the whole value's, or a prefix of it (the cut member)."""
    if isinstance(head, dict):
        return isinstance(whole, dict) and all(
            k in whole and _prefix_of(v, whole[k]) for k, v in head.items()
        )
    if isinstance(head, list):
        return isinstance(whole, list) and all(map(_prefix_of, head, whole))
    return bool(head == whole)


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


_RECORDS = st.builds(
    lambda parent, rest: {"parentUuid": parent, **rest},  # how every record with spend opens
    st.text(max_size=8) | st.none(),
    st.dictionaries(st.text(max_size=6), _VALUES, max_size=4),
)


def _cut(record: dict[str, Any], at: float, least: int = 1) -> bytes:
    raw = dump(record)
    return raw[: max(least, min(len(raw) - 1, int(len(raw) * at)))]


@settings(max_examples=max(300, settings.default.max_examples), deadline=None)
@given(whole=_RECORDS, glued=_RECORDS, at=st.floats(0, 1))
def test_a_cut_anywhere_gives_a_prefix_of_the_record_and_the_whole_next_one(
    whole: dict[str, Any], glued: dict[str, Any], at: float
) -> None:
    line = _cut(whole, at) + dump(glued)
    found = split(line)
    if found is None:  # cut where a value belongs: the glued record reads as that value too
        assert _last_comma(line.decode("utf-8", "surrogatepass")) is not None
    else:
        assert found.record == glued
        assert _prefix_of(found.head, whole)
    alone = split(_cut(whole, at))
    assert alone is not None
    assert alone.record is None
    assert _prefix_of(alone.head, whole)


@settings(max_examples=max(300, settings.default.max_examples), deadline=None)
@given(first=_RECORDS, second=_RECORDS, glued=_RECORDS, at=st.floats(0, 1), at2=st.floats(0, 1))
def test_two_cuts_on_one_line_are_no_cut(
    first: dict[str, Any], second: dict[str, Any], glued: dict[str, Any], at: float, at2: float
) -> None:
    """A review: a second cut record after the first was swallowed as the first one's text,
    a call's only record lost with exit 0. Its start (`{"parentUuid":`) gives it away once
    written whole; a second cut within its first 14 bytes is not told apart (two crashes, the
    second within a record's first bytes)."""
    line = _cut(first, at) + _cut(second, at2, least=len('{"parentUuid":')) + dump(glued)
    assert split(line) is None
    assert split(line[: -len(dump(glued))]) is None


def test_a_cut_right_after_an_inner_object_is_one_cut_record() -> None:
    """A review: a cut just after an inner `}` made that inner object "the record glued after"
    (an agent_progress copy of a subagent's call read into the main stream, exit 0)."""
    record = {"parentUuid": "p", "type": "progress", "data": {"message": {"id": "m", "x": 1}}}
    raw = dump(record)
    cut = raw[: raw.index(b"1}") + 2]
    found = split(cut)
    assert found is not None
    assert found.record is None
    assert found.head == {"parentUuid": "p", "type": "progress", "data": {"message": {"id": "m"}}}


def test_a_long_cut_line_is_read_in_bounded_time_and_memory() -> None:
    """A review: 20 MB of cut line took 2.4 GiB (a backtracking regex) and 7.5 s."""
    import time
    import tracemalloc

    text = 'x\\"{[' * 1_000_000  # 7 MB of string, escapes and brackets inside it
    line = ('{"parentUuid":"p","message":{"id":"msg_1","content":[{"text":"' + text).encode()
    tracemalloc.start()
    began = time.process_time()
    found = split(line + dump({"parentUuid": "q"}))
    spent = time.process_time() - began
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert found is not None
    assert names(found.head) == (None, "msg_1")
    assert peak < 8 * len(line)  # a few copies of the line (decoded, reversed, a token), no more
    assert spent < 20  # seconds: linear (~1 s here); the quadratic forms took minutes


def test_iter_lines_yields_the_cut_then_the_record_on_the_same_line() -> None:
    lines = [b'{"type":"user","uuid":"a"}\n', b'{"type":"assis{"type":"user","uuid":"b"}\n']
    items = list(iter_lines(lines, Digest(), split))
    assert items[0] == (1, {"type": "user", "uuid": "a"})
    assert items[1] == (2, CutRecord(2, {}))
    assert items[2] == (2, {"type": "user", "uuid": "b"})
    # without `cuts` (meta files, journals, indexes) the line stays invalid JSON
    plain = list(iter_lines(lines, Digest()))
    assert [type(item).__name__ for _, item in plain] == ["dict", "BadLine"]


def test_a_crash_never_resumed_leaves_a_last_line_that_is_passed_when_it_can_be(
    cli: Any, syn: Tree, tmp_path: Path
) -> None:
    """Was CC-LINE-TORN, "wait until idle", for good: a session that ended in a crash."""
    shutil.rmtree(syn.folder / "subagents")  # the crash cut the Agent call: it never ran
    lines = syn.lines()
    syn.write_lines("", [*lines[:6], lines[6][: len(lines[6]) // 2]], final_newline=False)
    done = _inspect(cli, syn, tmp_path)
    assert done.code == 0, done.err
    assert done.report is not None
    findings = {f["code"]: f["count"] for f in done.report["findings"]}
    assert findings["CC-LINE-CUT-PASSED"] == 1
    assert done.report["counts"]["model_calls"] == 1
    # a call's only record cut so may still be being written: convert again when idle
    syn.write_lines("", [*lines[:8], lines[8][: len(lines[8]) // 2]], final_newline=False)
    _refused(cli, syn, tmp_path, "CC-LINE-TORN", 9)


def test_two_whole_records_on_one_line_are_both_read(cli: Any, syn: Tree, tmp_path: Path) -> None:
    """A review: a newline lost between two writes (3 of 24 splices in anthropics/claude-code
    #81843) was CC-LINE-INVALID-JSON, "restore it from a backup", though nothing was lost."""
    lines = syn.lines()
    syn.write_lines("", [*lines[:7], lines[7] + lines[8], *lines[9:]])
    done = _inspect(cli, syn, tmp_path)
    assert done.code == 0, done.err
    assert done.report is not None
    findings = {f["code"]: f["count"] for f in done.report["findings"]}
    assert findings["CC-LINE-JOINED"] == 1
    assert "CC-LINE-CUT-PASSED" not in findings
    assert done.report["counts"]["model_calls"] == 4  # as whole: the line 9 call is read
    assert split(lines[7] + lines[8]) is not None


def test_nul_bytes_a_crash_left_are_no_cut(cli: Any, syn: Tree, tmp_path: Path) -> None:
    """A review: ext4 and NTFS leave NUL bytes for what a crash never wrote to disk, newlines
    and whole records included (anthropics/claude-code#49876, #76059); a head running into
    them read as a cut record, the records they erased lost with exit 0."""
    lines = syn.lines()
    hidden = lines[7][:20] + b"\x00" * (len(lines[7]) + len(lines[8]) + len(lines[9]) - 17)
    syn.write_lines("", [*lines[:7], hidden + _resumed("f4bb74cf")[0], _resumed("x")[1]])
    assert split(hidden) is None
    _refused(cli, syn, tmp_path, "CC-LINE-INVALID-JSON", 8)


def test_a_record_holding_a_record_with_nothing_after_it_has_two_readings() -> None:
    """A review: a record nested as an object in a record (an MCP tool's structured result),
    the line cut right after it, read as a cut record and a record glued after (a call made
    up, exit 0). The line reads both ways: refused."""
    inner = {"parentUuid": "x", "type": "assistant", "message": {"id": "msg_made_up"}}
    outer = '{"parentUuid":"p","type":"user","toolUseResult":{"structuredContent":'
    assert split(outer.encode() + dump(inner)) is None


def test_a_cut_attachment_is_passed_though_its_type_comes_last() -> None:
    """A review: attachments write `attachment` before `type` (148 of 148 in the corpus), so a
    cut one named no type and was refused as possibly spend."""
    raw = dump(
        {"parentUuid": "p", "attachment": {"type": "x", "content": "CANARY"}, "type": "attachment"}
    )
    found = split(raw[: raw.index(b"CANARY")])
    assert found is not None
    assert names(found.head) == ("attachment", None)


def test_a_cut_last_fragment_whose_call_no_other_record_states_the_input_of_is_lost(
    cli: Any, syn: Tree, tmp_path: Path
) -> None:
    """A fuzz hunt: behind a gateway a call's early fragments are stubs of 0 input and 0 cache
    (76 of the corpus's 754 calls of several fragments), its last the counts; that one cut, the
    call's input was in neither end of its interval, exit 0 (81,461 input tokens)."""
    shutil.rmtree(syn.folder / "subagents")

    def stub(record: dict[str, Any]) -> None:
        usage = record["message"]["usage"]
        for key in usage:
            if isinstance(usage[key], int):
                usage[key] = 0
        usage.pop("cache_creation", None)

    syn.edit_record("", 6, stub)
    _crash_at(syn, 7, glued=True)
    _refused(cli, syn, tmp_path, "CC-LINE-CUT-LOST", 7)


def test_bad_utf8_inside_an_unterminated_last_line_is_damage_not_a_torn_write() -> None:
    from converter.sources.jsonl import Digest, iter_lines

    lines = [b'{"a":1}\n', b'{"a":"\xff","b":2}']
    last = list(iter_lines(iter(lines), Digest()))[-1][1]
    assert getattr(last, "code", None) == "CC-LINE-INVALID-UTF8"
    cut = [b'{"a":1}\n', b'{"a":"\xe2\x82']  # a write cut inside a character: torn
    last = list(iter_lines(iter(cut), Digest()))[-1][1]
    assert getattr(last, "code", None) == "CC-LINE-TORN"
