"""`--provider-bodies DIR` (SPEC §3, §4.4, §5.4; docs/claude-code-shapes.md "Provider bodies").

The tree is the synthetic one with its subagent's first call made a streaming stub (no stop
reason, output 2), as ~15% of subagent calls are; the bodies folder is built beside it from what
Claude Code writes: one response per successful call, named by its request id, holding the final
message; with an index (2.1.274 on) or without; another session's bodies in the same folder.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import secrets
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from converter.firewall.keys import PseudonymKey
from converter.firewall.pseudonyms import Pseudonymizer
from tests.canary.leaks import index_outputs, leaks
from tests.conftest import TEST_KEY
from tests.contract_helpers import PRICES, fill, read_json, write_json
from tests.damage import (
    INSPECT,
    MARKER,
    Outcome,
    Refusal,
    Tree,
    copy_tree,
    dump,
    parse_refusals,
    run_command,
)
from tests.test_bundle_recompute import _by_hand

SID = "65e893e5-a69d-4955-a5e1-5d5ee7bc592e"
OTHER = "99999999-9999-4999-8999-999999999999"
CHILD = "subagents/agent-a3088bfe7965a5c04.jsonl"
MODEL = "claude-opus-4-8"
# The synthetic tree's calls: message id, request id.
A1 = ("msg_011C4SjQDgtfTaGWwDkm1sfW", "req_011CAMcCWzGgRuRLTLotfJsn")  # parent, delegates
A2 = ("msg_011CpD5wpCu5FpNmW8QHVPia", "req_011CWtfHVbX6Jmxw6nt8GjSF")  # parent, last
C1 = ("msg_011CjPz4Y7hqiU5EUunvWiB1", "req_011CAYyg3N2sa2JxT9ojx4qm")  # subagent: the stub
C2 = ("msg_011Cxq6TWh5RsuKjSsPLVCfX", "req_011CWY9FrJurzdimSKnL8qXT")  # subagent, last
CALLS = (A1, A2, C1, C2)
C1_FINAL_LINE = 5  # the subagent's line with C1's final usage (output 60), made a stub
TITLE = ("msg_01TitleCallNoTranscriptHas", "req_01TitleCall")  # a hidden call
_PSEUDO = Pseudonymizer(PseudonymKey(bytes.fromhex(TEST_KEY)))


def label(role: str, name: str) -> str:
    """The `role/file-<hmac>` label of a body file: keyed over its name in the folder."""
    return f"{role}/{_PSEUDO.name('file', 'provider-bodies/' + name)}"


def response_name(call: tuple[str, str]) -> str:
    return call[1] + ".response.json"


INDEX = label("provider-index", "index.jsonl")


def usage(i: int, o: int, cr: int, cw: int) -> dict[str, Any]:
    return {
        "input_tokens": i,
        "output_tokens": o,
        "cache_read_input_tokens": cr,
        "cache_creation_input_tokens": cw,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": cw},
        "service_tier": "standard",
    }


@dataclass
class Bodies:
    """A provider bodies folder as Claude Code writes it, built from the tree's final messages:
    edit `responses` or `lines`, then `write()`."""

    folder: Path
    responses: dict[str, dict[str, Any]]  # file name -> the response
    lines: list[dict[str, Any]] | None  # the index's lines; None: no index (before 2.1.274)
    raw: dict[str, bytes] = field(default_factory=dict)  # file name -> bytes, as written

    def write(self) -> Path:
        if self.folder.exists():
            shutil.rmtree(self.folder)
        self.folder.mkdir(parents=True)
        for n, name in enumerate(sorted(self.responses)):
            # a request file beside each (never read in this phase), compact JSON
            request = {
                "model": MODEL,
                "messages": [{"role": "user", "content": f"{MARKER}-request {n}"}],
                "metadata": {"user_id": json.dumps({"session_id": SID})},
                "max_tokens": 32000,
            }
            (self.folder / f"c0000000-0000-4000-8000-00000000000{n}.request.json").write_text(
                json.dumps(request, separators=(",", ":"))
            )
            data = self.raw[name] if name in self.raw else json.dumps(self.responses[name]).encode()
            (self.folder / name).write_bytes(data)
        for name, data in self.raw.items():
            if name not in self.responses:
                (self.folder / name).write_bytes(data)
        if self.lines is not None:
            (self.folder / "index.jsonl").write_bytes(
                b"".join(json.dumps(line).encode() + b"\n" for line in self.lines)
            )
        return self.folder

    def response(self, call: tuple[str, str]) -> dict[str, Any]:
        return self.responses[response_name(call)]

    def line_of(self, call: tuple[str, str]) -> int:
        assert self.lines is not None
        names = [line.get("response_file") for line in self.lines]
        return names.index(response_name(call)) + 1


def index_line(call: tuple[str, str], session: str = SID, model: str = MODEL) -> dict[str, Any]:
    return {
        "timestamp": "2026-07-21T09:14:05.463Z",
        "session_id": session,
        "query_source": "repl_main_thread",
        "model": model,
        "request_id": call[1],
        "message_id": call[0],
        "message_uuid": None,
        "request_file": "c0000000-0000-4000-8000-000000000000.request.json",
        "response_file": response_name(call),
    }


def final_messages(tree: Tree) -> dict[str, dict[str, Any]]:
    """Message id -> the message of its last fragment, as the unedited tree records it."""
    found: dict[str, dict[str, Any]] = {}
    for rel in ("parent", CHILD):
        for raw in tree.lines(rel):
            record = json.loads(raw)
            if record.get("type") == "assistant":
                found[record["message"]["id"]] = record["message"]
    return found


def make_stub(record: dict[str, Any]) -> None:
    message = record["message"]
    message["stop_reason"] = None
    message["usage"]["output_tokens"] = 2
    del message["usage"]["iterations"]  # a list marks the final usage (SPEC §4.4)


def setup(tmp_path: Path, *, index: bool = True, other: bool = True) -> tuple[Tree, Bodies]:
    """The tree (C1 a stub) and its bodies: a final response for each of its four calls; with
    `other`, another session's bodies in the folder that would each refuse if opened."""
    tree = copy_tree("synthetic_tree", tmp_path / "src")
    finals = final_messages(tree)
    tree.edit_record(CHILD, C1_FINAL_LINE, make_stub)
    responses = {}
    for msg_id, request_id in CALLS:
        message = finals[msg_id]
        responses[request_id + ".response.json"] = {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": message["model"],
            "content": [{"type": "text", "text": f"{MARKER}-response of {msg_id[-6:]}"}],
            "stop_reason": message["stop_reason"],
            "stop_sequence": None,
            "usage": message["usage"],
        }
    lines = [index_line(call) for call in CALLS] if index else None
    bodies = Bodies(tmp_path / "bodies", responses, lines)
    if other:
        # Another session's: a response with a repeated key, a symlink, a line naming a file
        # that is not there. Each would refuse the tree if it were opened or selected.
        bodies.raw["req_011OtherSession.response.json"] = b'{"id": "msg_x", "id": "msg_y"}'
        if lines is not None:
            lines.insert(1, index_line(("msg_x", "req_011OtherSession"), OTHER))
            lines.append(index_line(("msg_y", "req_011OtherMissing"), OTHER))
            lines.append(index_line(("msg_z", "req_011OtherLink"), OTHER))
    return tree, bodies


def with_link(folder: Path, name: str, target: str = "/etc/hostname") -> None:
    (folder / name).symlink_to(target)


def inspect(cli: Any, tree: Tree, tmp_path: Path, bodies: Path | None, *extra: str) -> Outcome:
    args = ["--provider-bodies", str(bodies)] if bodies is not None else []
    return run_command(cli, INSPECT, tree, tmp_path, *args, *extra)


def finding(report: dict[str, Any], code: str) -> int:
    return next((f["count"] for f in report["findings"] if f["code"] == code), 0)


def expect(outcome: Outcome, code: str, file: str | None, line: int | None = None) -> None:
    assert outcome.code == 2, (outcome.code, outcome.err[-2000:])
    assert Refusal(code, file, line) in outcome.refusals, outcome.refusals


def convert_chain(
    cli: Any, tree: Tree, work: Path, bodies: Path | None
) -> tuple[Path, Path, dict[str, Any]]:
    """Template, filled contract, bundle: (contract, bundle path, bundle)."""
    work.mkdir(exist_ok=True)
    given = ["--provider-bodies", str(bodies)] if bodies is not None else []
    template = work / "t.json"
    made = cli("convert", "--in", str(tree.parent), "--template", str(template), *given)
    assert made.code == 0, made.err
    contract = work / "c.json"
    write_json(contract, fill(read_json(template)))
    out = work / "b.json"
    done = cli(
        "convert", "--in", str(tree.parent), "--contract", str(contract), "--out", str(out), *given
    )
    assert done.code == 0, done.err
    return contract, out, read_json(out)


def refused_codes(err: str) -> list[str]:
    return re.findall(r"^refused: ([A-Z0-9-]+)", err, re.MULTILINE)


def event_of(bundle: dict[str, Any], msg_id: str) -> dict[str, Any]:
    wanted = _PSEUDO.name("event", f"model:{msg_id}")
    return next(e for e in bundle["events"] if e["id"] == wanted)


# --- using a response ---------------------------------------------------------------------


@pytest.mark.parametrize("index", [True, False], ids=["index", "no-index"])
def test_a_response_completes_a_usage_incomplete_call(
    cli: Any, tmp_path: Path, index: bool
) -> None:
    """C1's transcript stops at a stub (output 2, no stop reason): without bodies its cost is an
    interval; its response gives the final usage (output 60) with the same input and cache
    counts, and it is complete, priced exactly (low = high)."""
    tree, bodies = setup(tmp_path, index=index)
    folder = bodies.write()
    without = inspect(cli, tree, tmp_path, None)
    assert without.code == 0, without.err
    assert without.report is not None
    assert without.report["counts"]["usage_incomplete_calls"] == 1
    shown = inspect(cli, tree, tmp_path, folder)
    assert shown.code == 0, shown.err
    report = shown.report
    assert report is not None
    assert report["counts"]["usage_incomplete_calls"] == 0
    assert finding(report, "CC-BODY-USAGE-COMPLETED") == 1
    assert finding(report, "CC-REC-USAGE-INCOMPLETE") == 0
    assert report["usage"]["output_tokens"] == without.report["usage"]["output_tokens"] + 58
    assert report["provider_files"] == 4 + index  # the responses, and the index entry
    assert report["bound_files"] == 3 + 4 + index

    _, _, plain = convert_chain(cli, tree, tmp_path / "plain", None)
    stub = event_of(plain, C1[0])
    assert stub["usage_complete"] is False
    assert stub["usage"]["output_tokens"] == 2
    assert Decimal(stub["cost"]["low"]) < Decimal(stub["cost"]["high"])
    _, _, bundle = convert_chain(cli, tree, tmp_path / "bodies-run", folder)
    event = event_of(bundle, C1[0])
    assert event["usage_complete"] is True
    assert event["usage"]["output_tokens"] == 60
    assert event["cost"]["low"] == event["cost"]["high"]
    # priced as the filled contract's prices say: 5 input, 60 output, 8000 read, 1500 1h write
    expected = (5 * Decimal(3) + 60 * 15 + 8000 * Decimal("0.30") + 1500 * 6) / 10**6
    assert Decimal(event["cost"]["low"]) == expected
    assert bundle["receipt"]["counts"]["usage_incomplete_calls"] == 0
    assert {"code": "CC-BODY-USAGE-COMPLETED", "count": 1} in bundle["receipt"]["findings"]


def test_a_fork_copy_of_a_stub_a_response_completes_converts(cli: Any, tmp_path: Path) -> None:
    """A diff review: the fork's bootstrap copies A1, which its transcript holds as a stub of no
    cache-write split (as 2.1.167 writes them); the response completing A1 states the split.
    The copy repeats the stub, not the response: it refused CC-REC-COPY-DISAGREE with the
    bodies given, and converted without them."""
    tree, bodies = setup(tmp_path, other=False)

    def split_less_stub(record: dict[str, Any]) -> None:
        make_stub(record)
        del record["message"]["usage"]["cache_creation"]

    for rel in ("", CHILD):  # every fragment of A1, and the copy
        for n, raw in enumerate(tree.lines(rel), 1):
            record = json.loads(raw)
            if record.get("type") == "assistant" and record["message"]["id"] == A1[0]:
                tree.edit_record(rel, n, split_less_stub)
    folder = bodies.write()
    without = inspect(cli, tree, tmp_path, None)
    assert without.code == 0, without.err
    shown = inspect(cli, tree, tmp_path, folder)
    assert shown.code == 0, shown.err
    assert shown.report is not None
    assert finding(shown.report, "CC-BODY-USAGE-COMPLETED") == 2  # A1, and C1 as ever


def blind_stub(record: dict[str, Any]) -> None:
    """C1's stub (`setup` made it one) as if written before its input was counted (seen on
    gateway traffic): no input at all."""
    stated = record["message"]["usage"]
    stated.update(input_tokens=0, cache_read_input_tokens=0, cache_creation_input_tokens=0)
    stated["cache_creation"] = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}


def test_a_response_completes_a_stub_that_recorded_no_input(cli: Any, tmp_path: Path) -> None:
    """An audit: EVAL-COST-UNBOUNDED's fix sends such sessions to --provider-bodies, yet the
    response of a stub recording no input was refused (CC-BODY-USAGE-DISAGREES: its input 0 held
    as final). The stub states no input; the response's usage completes it."""
    tree, bodies = setup(tmp_path)
    tree.edit_record(CHILD, C1_FINAL_LINE, blind_stub)
    without = inspect(cli, tree, tmp_path, None, "--json").report
    assert without is not None
    assert finding(without, "CC-REC-USAGE-INCOMPLETE-NO-INPUT") == 1
    shown = inspect(cli, tree, tmp_path, bodies.write(), "--json")
    assert shown.code == 0, shown.err
    report = shown.report
    assert report is not None
    assert finding(report, "CC-BODY-USAGE-COMPLETED") == 1
    assert finding(report, "CC-REC-USAGE-INCOMPLETE-NO-INPUT") == 0
    assert report["counts"]["usage_incomplete_calls"] == 0
    assert report["usage"]["cache_read_input_tokens"] == (
        without["usage"]["cache_read_input_tokens"] + 8000
    )
    _, _, bundle = convert_chain(cli, tree, tmp_path / "run", bodies.folder)
    event = event_of(bundle, C1[0])
    assert event["usage_complete"] is True
    assert event["cost"]["low"] == event["cost"]["high"]


@pytest.mark.parametrize(
    "changed",
    [{"output_tokens": 1}, {"speed": "fast"}],
    ids=["output-less", "speed"],
)
def test_a_stub_that_recorded_no_input_still_holds_its_output_and_context(
    cli: Any, tmp_path: Path, changed: dict[str, Any]
) -> None:
    tree, bodies = setup(tmp_path)
    tree.edit_record(CHILD, C1_FINAL_LINE, blind_stub)
    response = bodies.response(C1)
    response["usage"] = {**response["usage"], **changed}
    outcome = inspect(cli, tree, tmp_path, bodies.write())
    expect(outcome, "CC-BODY-USAGE-DISAGREES", label("provider-response", response_name(C1)))


def test_a_stub_response_completes_nothing(cli: Any, tmp_path: Path) -> None:
    """A response with no stop reason is a stub too: its usage is not taken."""
    tree, bodies = setup(tmp_path)
    response = bodies.response(C1)
    response["stop_reason"] = None
    response["usage"] = {**response["usage"], "output_tokens": 30}
    del response["usage"]["iterations"]
    shown = inspect(cli, tree, tmp_path, bodies.write())
    assert shown.code == 0, shown.err
    assert shown.report is not None
    assert shown.report["counts"]["usage_incomplete_calls"] == 1
    assert finding(shown.report, "CC-BODY-USAGE-COMPLETED") == 0


@pytest.mark.parametrize("index", [True, False], ids=["index", "no-index"])
@pytest.mark.parametrize(
    ("call", "counter", "value"),
    [
        (C1, "input_tokens", 6),  # the stub's input is final already
        (C1, "cache_read_input_tokens", 7999),
        (C1, "output_tokens", 1),  # less than the stub's 2: output only grows
        (A2, "output_tokens", 91),  # a complete call: every counter must be the same
        (A2, "cache_creation_input_tokens", 399),
    ],
    ids=["stub-input", "stub-cache-read", "stub-output-less", "final-output", "final-cache"],
)
def test_a_response_whose_usage_disagrees_is_refused(
    cli: Any, tmp_path: Path, index: bool, call: tuple[str, str], counter: str, value: int
) -> None:
    tree, bodies = setup(tmp_path, index=index)
    response = bodies.response(call)
    response["usage"] = {**response["usage"], counter: value}
    if counter == "cache_creation_input_tokens":
        response["usage"]["cache_creation"] = {
            "ephemeral_5m_input_tokens": 0,
            "ephemeral_1h_input_tokens": value,
        }
    outcome = inspect(cli, tree, tmp_path, bodies.write())
    expect(outcome, "CC-BODY-USAGE-DISAGREES", label("provider-response", response_name(call)))


def test_a_complete_calls_response_without_a_cache_split_agrees(cli: Any, tmp_path: Path) -> None:
    """An audit: a complete call whose response had no `cache_creation` object was refused
    (CC-BODY-USAGE-DISAGREES), where a response leaving out its billing context was not, nor
    a stub's: a split left out states none. The bundle is the one made without it."""
    tree, bodies = setup(tmp_path)
    _, _, before = convert_chain(cli, tree, tmp_path / "before", bodies.write())
    response = bodies.response(A2)
    assert response["usage"]["cache_creation"]  # the transcript states the split, 1h
    del response["usage"]["cache_creation"]
    outcome = inspect(cli, tree, tmp_path, bodies.write())
    assert outcome.code == 0, outcome.err
    _, _, after = convert_chain(cli, tree, tmp_path / "after", bodies.write())
    assert after["events"] == before["events"]
    response["usage"]["cache_creation_input_tokens"] += 1  # the total is still compared
    expect(
        inspect(cli, tree, tmp_path, bodies.write()),
        "CC-BODY-USAGE-DISAGREES",
        label("provider-response", response_name(A2)),
    )


@pytest.mark.parametrize("call", [C1, A2], ids=["stub", "final"])
@pytest.mark.parametrize(
    "changed",
    [
        {"cache_creation": {"ephemeral_5m_input_tokens": 2000, "ephemeral_1h_input_tokens": 0}},
        {"speed": "fast"},
        {"inference_geo": "us"},
    ],
    ids=["cache-split", "speed", "inference-geo"],
)
def test_a_response_never_replaces_a_split_or_context_the_transcript_states(
    cli: Any, tmp_path: Path, call: tuple[str, str], changed: dict[str, Any]
) -> None:
    """A review: a stub's 1h cache write became 5m, its context fast mode, from the response,
    with exit 0 (and a complete call's response contradicting its context passed). A stub's
    region states nothing (the test below)."""
    if call == C1 and "inference_geo" in changed:
        pytest.skip("a stub's inference_geo is no statement")
    tree, bodies = setup(tmp_path)
    response = bodies.response(call)
    stated = response["usage"]
    key = next(iter(changed))
    if key == "cache_creation":  # the same total, split the other way
        total = stated["cache_creation_input_tokens"]
        changed = {key: {"ephemeral_5m_input_tokens": total, "ephemeral_1h_input_tokens": 0}}
    response["usage"] = {**stated, **changed}
    outcome = inspect(cli, tree, tmp_path, bodies.write())
    expect(outcome, "CC-BODY-USAGE-DISAGREES", label("provider-response", response_name(call)))


def test_what_a_response_leaves_out_the_stub_keeps(cli: Any, tmp_path: Path) -> None:
    """An audit: a response naming no `speed` or cache-write split completed a fast-mode stub as
    one of no context and an unsplit write (its cost a sixth, exit 0). What the stub states
    and the response does not say stays; fewer server-tool requests than the stub made refuse."""
    tree, bodies = setup(tmp_path)

    def fast(record: dict[str, Any]) -> None:
        record["message"]["usage"]["speed"] = "fast"

    tree.edit_record(CHILD, C1_FINAL_LINE, fast)
    response = bodies.response(C1)
    response["usage"] = {
        k: v for k, v in response["usage"].items() if k not in ("speed", "cache_creation")
    }
    folder = bodies.write()
    _, _, bundle = convert_chain(cli, tree, tmp_path / "run", folder)
    event = event_of(bundle, C1[0])
    assert event["usage_complete"] is True
    assert event["context"]["speed"] == "fast"
    assert event["usage"]["cache_creation_1h_input_tokens"] == 1500
    assert event["usage"]["cache_creation_unsplit_input_tokens"] == 0

    def searched(record: dict[str, Any]) -> None:
        record["message"]["usage"]["server_tool_use"] = {"web_search_requests": 3}

    tree.edit_record(CHILD, C1_FINAL_LINE, searched)
    outcome = inspect(cli, tree, tmp_path, bodies.write())
    expect(outcome, "CC-BODY-USAGE-DISAGREES", label("provider-response", response_name(C1)))


@pytest.mark.parametrize(("output", "refused"), [(220, False), (5000, True)])
def test_a_response_is_held_to_the_agent_results_statement_of_its_call(
    cli: Any, tmp_path: Path, output: int, refused: bool
) -> None:
    """An audit: the parent's Agent result states the child's last call's final usage (output
    220); a response completing that call's stub with output 5,000 was taken, exit 0, beside
    a finding that blamed a child cut short. Two records of one call that disagree refuse."""
    from tests.test_refusals import _resume_syn_agent

    tree, bodies = setup(tmp_path, other=False)
    for n, raw in enumerate(tree.lines(CHILD), 1):
        record = json.loads(raw)
        if record.get("type") == "assistant" and record["message"]["id"] == C2[0]:
            tree.edit_record(CHILD, n, make_stub)
    response = bodies.response(C2)
    response["usage"] = {**response["usage"], "output_tokens": output}
    folder = bodies.write()
    for sub in ("plain", "resumed"):
        (tmp_path / sub).mkdir()
    outcome = inspect(cli, tree, tmp_path / "plain", folder)
    # Resumed later, the agent's transcript goes on: the result speaks of a call in its
    # middle now (a second diff review: only the last call was held to it).
    _resume_syn_agent(tree)
    resumed = inspect(cli, tree, tmp_path / "resumed", folder, "--task-unit", "session")
    if refused:
        for shown in (outcome, resumed):
            expect(shown, "CC-BODY-USAGE-DISAGREES", label("provider-response", response_name(C2)))
        return
    for shown in (outcome, resumed):
        assert shown.code == 0, shown.err
        assert shown.report is not None
        assert finding(shown.report, "CC-REC-AGENT-USAGE-DISAGREE") == 0


@pytest.mark.parametrize(
    ("stated", "code"),
    [
        ({"server_tool_use": {"code_execution_requests": 2}}, "CC-REC-SERVER-TOOL-UNPRICED"),
        ({"fallback_credit": {"status": {"type": "redeemed"}}}, "CC-REC-FALLBACK-CREDIT"),
    ],
    ids=["unpriced-server-tool", "fallback-credit"],
)
def test_what_a_stub_says_of_its_spend_a_response_does_not_erase(
    cli: Any, tmp_path: Path, stated: dict[str, Any], code: str
) -> None:
    """A second diff review: a stub's unpriced server tool or redeemed fallback credit (each a
    finding that marks its figure a bound) vanished when a response that named neither
    completed it: the cost then read exact, exit 0."""
    tree, bodies = setup(tmp_path)
    tree.edit_record(CHILD, C1_FINAL_LINE, lambda r: r["message"]["usage"].update(stated))
    shown = inspect(cli, tree, tmp_path, bodies.write(), "--json")
    assert shown.code == 0, shown.err
    assert shown.report is not None
    assert finding(shown.report, "CC-BODY-USAGE-COMPLETED") == 1
    assert finding(shown.report, code) == 1


def test_a_response_of_no_input_completes_no_stub(cli: Any, tmp_path: Path) -> None:
    """An audit: a response stating no input at all "completed" a stub that recorded none,
    priced as if the call had read nothing, and its verdict went from INCOMPLETE to SCALE.
    Every call reads input: the call stays usage-incomplete."""
    tree, bodies = setup(tmp_path)
    tree.edit_record(CHILD, C1_FINAL_LINE, blind_stub)
    response = bodies.response(C1)
    response["usage"] = {
        **response["usage"],
        "input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
    }
    shown = inspect(cli, tree, tmp_path, bodies.write(), "--json")
    assert shown.code == 0, shown.err
    assert shown.report is not None
    assert shown.report["counts"]["usage_incomplete_calls"] == 1
    assert finding(shown.report, "CC-REC-USAGE-INCOMPLETE-NO-INPUT") == 1
    assert finding(shown.report, "CC-BODY-USAGE-COMPLETED") == 0


@pytest.mark.parametrize("place", ["context_management", "advisor"])
def test_usage_elsewhere_in_a_response_is_refused(cli: Any, tmp_path: Path, place: str) -> None:
    """An audit: usage under another field of a response was never looked for, where the same
    in a transcript record is CC-REC-USAGE-UNREAD: spend moved there would be left out."""
    tree, bodies = setup(tmp_path)
    response = bodies.response(C1)
    response[place] = {"usage": {"input_tokens": 9000, "output_tokens": 5}}
    outcome = inspect(cli, tree, tmp_path, bodies.write())
    expect(outcome, "CC-REC-USAGE-UNREAD", label("provider-response", response_name(C1)), 1)


def test_a_blank_index_line_changes_no_contract(cli: Any, tmp_path: Path) -> None:
    """A review: a blank line anywhere in the shared index was the finding CC-LINE-BLANK, bound
    in this session's contract, so a contract made before it refused (verify: exit 5)."""
    tree, bodies = setup(tmp_path)
    folder = bodies.write()
    contract, bundle, _ = convert_chain(cli, tree, tmp_path / "run", folder)
    with (folder / "index.jsonl").open("ab") as out:
        out.write(b"\n")
    verify = ["verify", "--bundle", str(bundle), "--contract", str(contract)]
    done = cli(*verify, "--in", str(tree.parent), "--provider-bodies", str(folder))
    assert done.code == 0, done.err
    report = inspect(cli, tree, tmp_path, folder, "--json").report
    assert report is not None
    assert {"code": "CC-BODY-INDEX-BLANK", "count": 1} in report["not_read"]


@pytest.mark.parametrize("index", [True, False], ids=["index", "no-index"])
def test_a_response_of_another_model_is_refused(cli: Any, tmp_path: Path, index: bool) -> None:
    tree, bodies = setup(tmp_path, index=index)
    bodies.response(C1)["model"] = "claude-sonnet-4-6"
    outcome = inspect(cli, tree, tmp_path, bodies.write())
    expect(outcome, "CC-BODY-MODEL-DISAGREES", label("provider-response", response_name(C1)))


def test_advisor_passes_in_a_response_are_calls_of_their_own(cli: Any, tmp_path: Path) -> None:
    """A response's `usage.iterations` is read as a transcript's: the advisor's pass becomes a
    call of its own when the response completes the call; a pass the transcript of a complete
    call does not have is usage that disagrees."""
    tree, bodies = setup(tmp_path)
    completing = bodies.response(C1)["usage"]
    own = {k: completing[k] for k in ("input_tokens", "output_tokens")}
    own |= {k: completing[k] for k in ("cache_read_input_tokens", "cache_creation_input_tokens")}
    completing["iterations"] = [
        {"type": "message", **own},
        {"type": "advisor_message", "model": MODEL, "input_tokens": 700, "output_tokens": 40},
    ]
    shown = inspect(cli, tree, tmp_path, bodies.write())
    assert shown.code == 0, shown.err
    assert shown.report is not None
    assert shown.report["counts"]["model_calls"] == 5  # four, and C1's advisor pass
    assert shown.report["counts"]["usage_incomplete_calls"] == 0

    final = bodies.response(A2)["usage"]
    final["iterations"] = [
        {"type": "message", **{k: final[k] for k in own}},
        {"type": "advisor_message", "model": MODEL, "input_tokens": 700, "output_tokens": 40},
    ]
    outcome = inspect(cli, tree, tmp_path, bodies.write())
    expect(outcome, "CC-BODY-USAGE-DISAGREES", label("provider-response", response_name(A2)))


# --- hidden calls -------------------------------------------------------------------------


PROMPT_ID = "bca0ea58-a127-4737-963d-f6ebfe45dea5"  # the synthetic tree's one turn
HAIKU = "claude-haiku-4-5-20251001"


def billing(**ids: str) -> str:
    """A billing header as Claude Code writes it, with `ids` (cc_prompt_id, cc_prev_req)."""
    fields = {"cc_version": "2.1.280.a1b", "cc_entrypoint": "cli", "cch": "0f3e1", **ids}
    return "x-anthropic-billing-header: " + " ".join(f"{k}={v};" for k, v in fields.items())


def add_hidden(
    bodies: Bodies,
    call: tuple[str, str],
    *,
    source: str = "generate_session_title",
    header: str | None = None,
    request: bytes | None = None,
    output: int = 12,
    max_tokens: object = 512,
) -> str:
    """A hidden call: its response, its index line, and its request (a billing header, or no
    system prompt at all when `header` is None; `request`: the file's bytes as written;
    `max_tokens`: the request's, left out when None). Returns the request file's name."""
    bodies.responses[response_name(call)] = {
        "id": call[0],
        "type": "message",
        "role": "assistant",
        "model": HAIKU,
        "content": [{"type": "text", "text": f"{MARKER}-hidden {call[0]}"}],
        "stop_reason": "end_turn",
        "usage": usage(300, output, 0, 0),
    }
    name = f"{call[1]}-request.request.json"
    body: dict[str, Any] = {
        "model": HAIKU,
        "messages": [{"role": "user", "content": f"{MARKER}-hidden request"}],
        "metadata": {"user_id": json.dumps({"session_id": SID})},
    }
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    if header is not None:
        body["system"] = [{"type": "text", "text": header}, {"type": "text", "text": MARKER}]
    bodies.raw[name] = request if request is not None else json.dumps(body).encode()
    assert bodies.lines is not None
    line = {**index_line(call, model=HAIKU), "query_source": source, "request_file": name}
    bodies.lines.append(line)
    return name


def hidden_events(bundle: dict[str, Any]) -> list[dict[str, Any]]:
    hidden = {a["id"]: a["kind"] for a in bundle["agents"] if a["agent_type"] == "hidden"}
    return [
        dict(e, agent_kind=hidden[e["agent"]]) for e in bundle["events"] if e["agent"] in hidden
    ]


def test_a_hidden_call_its_request_names_no_turn_of_is_refused(cli: Any, tmp_path: Path) -> None:
    """A session-title call sends neither cc_prompt_id nor cc_prev_req (nor does any request
    through a gateway): no prompt can be named as its cause, and none is guessed (SPEC §5.4)."""
    tree, bodies = setup(tmp_path)
    add_hidden(bodies, TITLE)
    shown = inspect(cli, tree, tmp_path, bodies.write())
    expect(shown, "CC-BODY-HIDDEN-UNATTRIBUTED", label("provider-response", response_name(TITLE)))


def test_under_the_session_task_unit_a_hidden_call_is_the_sessions(
    cli: Any, tmp_path: Path
) -> None:
    """The way out the refusal names: the whole tree is one task, so the call is its. It is a
    model event of the `hidden` agent of its kind, priced from its response, counted in the
    task's calls and in hidden_calls; the bundle says auxiliary calls were observed."""
    tree, bodies = setup(tmp_path)
    add_hidden(bodies, TITLE)
    folder = bodies.write()
    work = tmp_path / "run"
    work.mkdir()
    template = work / "t.json"
    given = ["--provider-bodies", str(folder), "--task-unit", "session"]
    made = cli("convert", "--in", str(tree.parent), "--template", str(template), *given)
    assert made.code == 0, made.err
    contract = work / "c.json"
    write_json(contract, fill(read_json(template)))
    out = work / "b.json"
    done = cli("convert", "--in", str(tree.parent), "--contract", str(contract), "--out", str(out))
    assert done.code == 2  # the contract binds the bodies: converting without them is refused
    done = cli(
        "convert",
        "--in",
        str(tree.parent),
        "--contract",
        str(contract),
        "--out",
        str(out),
        "--provider-bodies",
        str(folder),
    )
    assert done.code == 0, done.err
    bundle = read_json(out)
    (event,) = hidden_events(bundle)
    assert event["agent_kind"] == "hidden-title"
    assert event["model"] == HAIKU
    assert event["usage_complete"] is True
    assert event["task"] == bundle["tasks"][0]["id"]
    assert Decimal(event["cost"]["low"]) == Decimal(event["cost"]["high"]) > 0
    assert bundle["receipt"]["hidden_calls"] == 1
    assert bundle["receipt"]["auxiliary_calls"] == "observed"
    assert bundle["receipt"]["counts"]["model_calls"] == 5
    assert bundle["receipt"]["counts"]["subagents"] == 1  # the hidden agent is no subagent
    assert bundle["tasks"][0]["model_calls"] == 5
    roles = [f["role"] for f in bundle["receipt"]["files"]]
    assert roles.count("provider-request") == 0  # one task: no request decides anything


def test_a_hidden_call_is_attributed_by_its_requests_prompt_id(cli: Any, tmp_path: Path) -> None:
    """cc_prompt_id is the transcript's promptId: the call is that turn's task's, priced in it
    (evaluate's report shows it in the hidden column, not `n/o`)."""
    tree, bodies = setup(tmp_path)
    add_hidden(bodies, TITLE, source="prompt_suggestion", header=billing(cc_prompt_id=PROMPT_ID))
    contract, out, bundle = convert_chain(cli, tree, tmp_path / "run", bodies.write())
    (event,) = hidden_events(bundle)
    assert event["agent_kind"] == "hidden-other"
    assert event["task"] == bundle["tasks"][0]["id"]
    assert read_json(contract)["inventory"]["hidden_calls"] == 1
    shown = cli("evaluate", "--bundle", str(out), "--format", "json")
    assert shown.code in (0, 1), shown.err
    report = json.loads(shown.out)
    (task,) = report["tasks"]
    hidden = task["cost_by_agent_type"]["hidden:other"]  # by kind (SPEC §5.4)
    assert Decimal(hidden["high"]) == Decimal(event["cost"]["high"])
    markdown = cli("evaluate", "--bundle", str(out), "--format", "markdown")
    assert "n/o" not in markdown.out
    assert "auxiliary calls: observed; hidden calls (provider bodies only): other $" in (
        markdown.out
    )


def test_a_hidden_call_of_an_unpriced_server_tool_keeps_cost_gates_open(
    cli: Any, tmp_path: Path
) -> None:
    """A review: a hidden call whose response counts a server tool no price covers was left
    out of CC-REC-SERVER-TOOL-UNPRICED, and evaluate decided SCALE on costs without its
    requests (a transcript call's was counted)."""
    tree, bodies = setup(tmp_path)
    add_hidden(bodies, TITLE, source="prompt_suggestion", header=billing(cc_prompt_id=PROMPT_ID))
    response = bodies.responses[response_name(TITLE)]
    response["usage"]["server_tool_use"] = {"web_search_requests": 0, "code_execution_requests": 5}
    _, out, bundle = convert_chain(cli, tree, tmp_path / "run", bodies.write())
    findings = {f["code"]: f["count"] for f in bundle["receipt"]["findings"]}
    assert findings["CC-REC-SERVER-TOOL-UNPRICED"] == 1
    shown = cli("evaluate", "--bundle", str(out), "--format", "json")
    assert shown.code == 2, shown.err
    assert {r["code"] for r in json.loads(shown.out)["reasons"]} == {"EVAL-COST-UNPRICED"}


def test_a_hidden_call_is_attributed_along_its_requests_chain(cli: Any, tmp_path: Path) -> None:
    """A compaction's request names the previous call of its chain (cc_prev_req), and no
    turn: the call that request id names is a transcript call's, and the call is its task's.
    A later side call naming the compaction's request id is attributed through it."""
    tree, bodies = setup(tmp_path)
    compaction = ("msg_01CompactionCallHidden", "req_01CompactionCall")
    after = ("msg_01AfterTheCompaction", "req_01AfterCompaction")
    add_hidden(bodies, compaction, source="compact", header=billing(cc_prev_req=A2[1]))
    add_hidden(bodies, after, source="side_question", header=billing(cc_prev_req=compaction[1]))
    folder = bodies.write()
    shown = cli("inspect", "--in", str(tree.parent), "--provider-bodies", str(folder))
    assert "hidden calls (provider bodies only), among the model calls: compaction 1, other 1" in (
        shown.out
    )
    assert "  auxiliary calls: observed (every call no transcript records was looked for" in (
        shown.out
    )
    by_card = ["--in", str(tree.parent), "--provider-bodies", str(folder)]
    by_card += ["--price-card", "anthropic-2026-11"]
    kinds = json.loads(cli("inspect", "--json", *by_card).out)["card_cost"]["hidden_by_kind"]
    assert list(kinds) == ["compaction", "other"]  # with their cost (SPEC §5.4)
    assert all(k["model_calls"] == 1 and Decimal(k["low_usd"]) > 0 for k in kinds.values())
    said = cli("inspect", *by_card)
    assert said.code == 0, said.err
    assert "    of which hidden calls: compaction $" in said.out
    _, out, bundle = convert_chain(cli, tree, tmp_path / "run", folder)
    kinds = sorted(e["agent_kind"] for e in hidden_events(bundle))
    assert kinds == ["hidden-compaction", "hidden-other"]
    assert {e["task"] for e in hidden_events(bundle)} == {bundle["tasks"][0]["id"]}
    assert bundle["receipt"]["hidden_calls"] == 2
    shown = cli("evaluate", "--bundle", str(out), "--format", "json")
    assert shown.code in (0, 1), shown.err
    (task,) = json.loads(shown.out)["tasks"]
    assert {"hidden:compaction", "hidden:other"} <= set(task["cost_by_agent_type"])  # by kind


@pytest.mark.parametrize("order", ["xy", "yx"])
def test_a_prompt_and_chain_naming_two_tasks_refuse_in_either_order(
    cli: Any, tmp_path: Path, order: str
) -> None:
    """A red team: X names the first turn and, as its previous call, Y, which names the second
    turn; with X listed first, X was the first task's (exit 0), with Y first, ambiguous."""
    tree, bodies = setup(tmp_path)
    add_second_turn(tree, bodies)
    x, y = ("msg_01HiddenX", "req_01HiddenX"), ("msg_01HiddenY", "req_01HiddenY")
    second_turn = "2b7c4f1e-0000-4000-8000-000000000002"
    adds = {
        "x": lambda: add_hidden(
            bodies, x, header=billing(cc_prompt_id=PROMPT_ID, cc_prev_req=y[1])
        ),
        "y": lambda: add_hidden(bodies, y, header=billing(cc_prompt_id=second_turn)),
    }
    for name in order:
        adds[name]()
    shown = inspect(cli, tree, tmp_path, bodies.write())
    expect(shown, "CC-BODY-HIDDEN-AMBIGUOUS", label("provider-response", response_name(x)))
    assert len(shown.refusals) == 1


def test_two_hidden_calls_naming_one_request_are_refused(cli: Any, tmp_path: Path) -> None:
    """A red team: the file was bound twice, and the template's own contract then refused it
    (a file listed twice). One request attempt has one response."""
    tree, bodies = setup(tmp_path)
    name = add_hidden(bodies, TITLE, header=billing(cc_prompt_id=PROMPT_ID))
    other = ("msg_01AnotherHidden", "req_01AnotherHidden")
    add_hidden(bodies, other, header=billing(cc_prompt_id=PROMPT_ID))
    assert bodies.lines is not None
    bodies.lines[-1]["request_file"] = name
    shown = inspect(cli, tree, tmp_path, bodies.write())
    expect(shown, "CC-BODY-DUPLICATE", INDEX, bodies.line_of(other))


def test_a_response_named_by_a_calls_request_id_is_never_a_hidden_call(
    cli: Any, tmp_path: Path
) -> None:
    """A red team: a response file named by a transcript call's request id, holding another
    message id (its index line agreeing), was taken as a hidden call and priced beside the
    call whose response it is by its name."""
    tree, bodies = setup(tmp_path)
    bodies.response(A2)["id"] = "msg_01NotA2ButNamedByItsRequest"
    assert bodies.lines is not None
    bodies.lines[bodies.line_of(A2) - 1]["message_id"] = "msg_01NotA2ButNamedByItsRequest"
    shown = inspect(cli, tree, tmp_path, bodies.write(), "--task-unit", "session")
    expect(shown, "CC-BODY-ID-DISAGREES", INDEX, bodies.line_of(A2))


def test_a_chain_is_followed_whatever_order_the_index_lists_it_in(cli: Any, tmp_path: Path) -> None:
    """A call naming a hidden call the index lists after it waits for that one's task; two
    hidden calls naming each other (no chain of Claude Code's does) name no task: refused."""
    tree, bodies = setup(tmp_path)
    first = ("msg_01FirstOfTheChain", "req_01FirstOfTheChain")
    second = ("msg_01SecondOfTheChain", "req_01SecondOfTheChain")
    add_hidden(bodies, second, source="side_question", header=billing(cc_prev_req=first[1]))
    add_hidden(bodies, first, source="compact", header=billing(cc_prev_req=A2[1]))
    _, _, bundle = convert_chain(cli, tree, tmp_path / "run", bodies.write())
    assert {e["task"] for e in hidden_events(bundle)} == {bundle["tasks"][0]["id"]}
    assert len(hidden_events(bundle)) == 2
    tree, bodies = setup(tmp_path / "loop")
    add_hidden(bodies, second, header=billing(cc_prev_req=first[1]))
    add_hidden(bodies, first, header=billing(cc_prev_req=second[1]))
    shown = inspect(cli, tree, tmp_path / "loop", bodies.write())
    for call in (first, second):
        expect(
            shown, "CC-BODY-HIDDEN-UNATTRIBUTED", label("provider-response", response_name(call))
        )


def test_a_hidden_call_whose_prompt_and_chain_disagree_is_refused(cli: Any, tmp_path: Path) -> None:
    """Its prompt id names the tree's one turn, its previous request a call of no task (a
    request id no call of the tree has is no statement; one that names a hidden call
    attributed elsewhere would be): here both name the same task, so it converts; a prompt id
    no turn carries with no chain is unattributed."""
    tree, bodies = setup(tmp_path)
    add_hidden(bodies, TITLE, header=billing(cc_prompt_id=PROMPT_ID, cc_prev_req=A1[1]))
    assert inspect(cli, tree, tmp_path, bodies.write()).code == 0
    tree, bodies = setup(tmp_path / "again")
    add_hidden(bodies, TITLE, header=billing(cc_prompt_id="0000-not-a-turn"))
    shown = inspect(cli, tree, tmp_path / "again", bodies.write())
    expect(shown, "CC-BODY-HIDDEN-UNATTRIBUTED", label("provider-response", response_name(TITLE)))


SECOND = ("msg_01SecondTurnCall", "req_01SecondTurnCall")
SECOND_TURN = "2b7c4f1e-0000-4000-8000-000000000002"  # its promptId


def add_second_turn(tree: Tree, bodies: Bodies) -> None:
    """A second prompt (its own promptId) and one call answering it, appended to the parent,
    with the call's response and index line: the tree then has two tasks."""
    rows = tree.lines()
    last = json.loads(rows[-2])
    prompt = {
        "parentUuid": last["uuid"],
        "isSidechain": False,
        "promptId": SECOND_TURN,
        "type": "user",
        "message": {"role": "user", "content": f"And the timeouts? {MARKER}"},
        "uuid": "5e1d0c6a-0000-4000-8000-000000000001",
        "timestamp": "2026-07-21T09:15:00.000Z",
        "origin": {"kind": "human"},
        "sessionId": SID,
        "version": "2.1.216",
    }
    answer = dict(last)
    answer["parentUuid"], answer["uuid"] = prompt["uuid"], "5e1d0c6a-0000-4000-8000-000000000002"
    answer["timestamp"], answer["requestId"] = "2026-07-21T09:15:04.000Z", SECOND[1]
    answer["message"] = {**last["message"], "id": SECOND[0]}
    tree.write_lines("", [*rows, dump(prompt), dump(answer)])
    bodies.responses[response_name(SECOND)] = {
        "id": SECOND[0],
        "type": "message",
        "role": "assistant",
        "model": answer["message"]["model"],
        "content": [],
        "stop_reason": "end_turn",
        "usage": answer["message"]["usage"],
    }
    assert bodies.lines is not None
    bodies.lines.append(index_line(SECOND))


def test_a_hidden_call_whose_prompt_and_chain_name_two_tasks_is_refused(
    cli: Any, tmp_path: Path
) -> None:
    """Its request's turn is the first task's, the previous call of its chain the second's:
    the bodies do not say which task caused it, and none is chosen."""
    tree, bodies = setup(tmp_path)
    add_second_turn(tree, bodies)
    add_hidden(bodies, TITLE, header=billing(cc_prompt_id=PROMPT_ID, cc_prev_req=SECOND[1]))
    shown = inspect(cli, tree, tmp_path, bodies.write())
    expect(shown, "CC-BODY-HIDDEN-AMBIGUOUS", label("provider-response", response_name(TITLE)))
    tree, bodies = setup(tmp_path / "again")
    add_second_turn(tree, bodies)
    add_hidden(bodies, TITLE, header=billing(cc_prev_req=SECOND[1]))
    _, _, bundle = convert_chain(cli, tree, tmp_path / "again" / "run", bodies.write())
    (event,) = hidden_events(bundle)
    assert event["task"] == bundle["tasks"][1]["id"]  # the chain alone: the second task's
    assert [t["model_calls"] for t in bundle["tasks"]] == [4, 2]


@pytest.mark.parametrize(
    ("written", "code", "line"),
    [
        (
            b'{"system": [{"type": "text", "text": "x-anthropic-billing-header: cc_prompt_id=a; '
            b'cc_prompt_id=b;"}]}',
            "CC-BODY-REQUEST-SHAPE",
            1,
        ),
        (
            b'{"system": [{"type": "text", "text": "x-anthropic-billing-header: cc_prev_req=a b;"}]}',
            "CC-BODY-REQUEST-SHAPE",
            1,
        ),
        (b'{"model": "claude-haiku', "CC-BODY-REQUEST-UNFINISHED", 1),
        (b"", "CC-BODY-REQUEST-UNFINISHED", None),
        (b'{"a": 1, "a": 2}', "CC-LINE-DUPLICATE-KEY", 1),
        (b'event: message_start\ndata: {"type": "message_start"}\n\n', "CC-BODY-STREAMED", 1),
        (gzip.compress(b'{"model": "claude-haiku"}'), "CC-BODY-COMPRESSED", 1),
    ],
    ids=["key-twice", "not-an-id", "cut-short", "empty", "repeated-key", "streamed", "gzip"],
)
def test_a_hidden_calls_request_is_read_strictly(
    cli: Any, tmp_path: Path, written: bytes, code: str, line: int | None
) -> None:
    tree, bodies = setup(tmp_path)
    name = add_hidden(bodies, TITLE, request=written)
    shown = inspect(cli, tree, tmp_path, bodies.write())
    expect(shown, code, label("provider-request", name), line)
    # the request's refusal says why the call has no task: no follow-on refusal whose fix
    # (`--task-unit session`) would not help (an audit)
    assert [r.code for r in shown.refusals] == [code]


def test_a_hidden_calls_missing_or_misnamed_request_is_refused_at_its_index_line(
    cli: Any, tmp_path: Path
) -> None:
    tree, bodies = setup(tmp_path)
    name = add_hidden(bodies, TITLE, header=billing(cc_prompt_id=PROMPT_ID))
    del bodies.raw[name]
    folder = bodies.write()
    shown = inspect(cli, tree, tmp_path, folder)
    expect(shown, "CC-BODY-FILE-MISSING", INDEX, bodies.line_of(TITLE))
    assert [r.code for r in shown.refusals] == ["CC-BODY-FILE-MISSING"]
    assert bodies.lines is not None
    bodies.lines[bodies.line_of(TITLE) - 1]["request_file"] = "../outside.request.json"
    shown = inspect(cli, tree, tmp_path, bodies.write())
    expect(shown, "CC-BODY-INDEX-FIELD", INDEX, bodies.line_of(TITLE))


def suggestion_of_turn(
    cli: Any, tmp_path: Path, tree: Tree, bodies: Bodies, turn: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A hidden prompt-suggestion call whose request names `turn`, converted: its event and
    the bundle."""
    add_hidden(bodies, TITLE, source="prompt_suggestion", header=billing(cc_prompt_id=turn))
    _, _, bundle = convert_chain(cli, tree, tmp_path / "run", bodies.write())
    (event,) = hidden_events(bundle)
    return event, bundle


def test_a_commands_turn_is_its_tasks_though_records_of_it_come_before_it(
    cli: Any, tmp_path: Path
) -> None:
    """A review: Claude Code writes a slash command's local-command caveat, with the command's
    promptId, before the command (the corpus: 8 of 27 turns of its 2.1.167+ files span two
    tasks so); a hidden call naming that turn was refused as ambiguous. The turn is the task
    its own prompt starts."""
    tree, bodies = setup(tmp_path)
    rows = tree.lines()
    last = json.loads(rows[-2])
    turn = "2b7c4f1e-0000-4000-8000-000000000002"
    common = {"isSidechain": False, "promptId": turn, "type": "user", "sessionId": SID}
    common |= {"version": "2.1.216", "timestamp": "2026-07-21T09:15:00.000Z"}
    caveat = {
        **common,
        "parentUuid": last["uuid"],
        "uuid": "5e1d0c6a-0000-4000-8000-0000000000c0",
        "isMeta": True,
        "message": {
            "role": "user",
            "content": "<local-command-caveat>Caveat</local-command-caveat>",
        },
    }
    command = {
        **common,
        "parentUuid": caveat["uuid"],
        "uuid": "5e1d0c6a-0000-4000-8000-000000000001",
        "message": {"role": "user", "content": "<command-name>/review</command-name>"},
    }
    answer = dict(last)
    answer["parentUuid"], answer["uuid"] = command["uuid"], "5e1d0c6a-0000-4000-8000-000000000002"
    answer["timestamp"], answer["requestId"] = "2026-07-21T09:15:04.000Z", SECOND[1]
    answer["message"] = {**last["message"], "id": SECOND[0]}
    tree.write_lines("", [*rows, dump(caveat), dump(command), dump(answer)])
    bodies.responses[response_name(SECOND)] = {
        **bodies.response(A2),
        "id": SECOND[0],
        "usage": answer["message"]["usage"],
    }
    assert bodies.lines is not None
    bodies.lines.append(index_line(SECOND))
    event, bundle = suggestion_of_turn(cli, tmp_path, tree, bodies, turn)
    assert event["task"] == bundle["tasks"][1]["id"]
    assert [t["model_calls"] for t in bundle["tasks"]] == [4, 2]


def test_an_interrupted_call_leaves_hidden_calls_observed(cli: Any, tmp_path: Path) -> None:
    """A review: a call the transcript left a stub, answered by no response (an interrupted
    stream: Claude Code writes a response only for a success), made the session
    `not-observed`, though every call it made was looked for."""
    tree, bodies = setup(tmp_path)
    del bodies.responses[response_name(C1)]
    assert bodies.lines is not None
    bodies.lines = [line for line in bodies.lines if line["message_id"] != C1[0]]
    add_hidden(bodies, TITLE, header=billing(cc_prompt_id=PROMPT_ID))
    _, _, bundle = convert_chain(cli, tree, tmp_path / "run", bodies.write())
    assert bundle["receipt"]["auxiliary_calls"] == "observed"
    assert bundle["receipt"]["counts"]["usage_incomplete_calls"] == 1


def test_auxiliary_calls_are_observed_only_when_every_call_came_through_the_index(
    cli: Any, tmp_path: Path
) -> None:
    """With an index through which every call's response came, every call no transcript
    records was looked for: `observed`. Without an index (before 2.1.274), or with a call whose
    response the index does not name (bodies turned on mid-session), not."""
    tree, bodies = setup(tmp_path)
    _, _, bundle = convert_chain(cli, tree, tmp_path / "run", bodies.write())
    assert bundle["receipt"]["auxiliary_calls"] == "observed"
    tree, bodies = setup(tmp_path / "none", index=False)
    folder = bodies.write()
    shown = inspect(cli, tree, tmp_path / "none", folder)
    assert shown.report is not None
    assert shown.report["auxiliary_calls"] == "not-observed"  # inspect says it first
    _, _, bundle = convert_chain(cli, tree, tmp_path / "none" / "run", folder)
    assert bundle["receipt"]["auxiliary_calls"] == "not-observed"
    tree, bodies = setup(tmp_path / "part")
    assert bodies.lines is not None
    bodies.lines = [line for line in bodies.lines if line["message_id"] != A1[0]]
    _, _, bundle = convert_chain(cli, tree, tmp_path / "part" / "run", bodies.write())
    assert bundle["receipt"]["auxiliary_calls"] == "not-observed"


def test_verify_rederives_a_bundle_with_hidden_calls(cli: Any, tmp_path: Path) -> None:
    tree, bodies = setup(tmp_path)
    name = add_hidden(bodies, TITLE, header=billing(cc_prompt_id=PROMPT_ID))
    folder = bodies.write()
    contract, bundle, _ = convert_chain(cli, tree, tmp_path / "run", folder)
    verify = ["verify", "--bundle", str(bundle), "--contract", str(contract)]
    verify += ["--in", str(tree.parent), "--provider-bodies", str(folder)]
    done = cli(*verify)
    assert done.code == 0, done.err
    assert "byte for byte" in done.out
    request = json.loads(bodies.raw[name])
    request["max_tokens"] = 1024  # a request changed since: its bytes are bound
    (folder / name).write_text(json.dumps(request))
    changed = cli(*verify)
    assert changed.code == 5, changed.err
    assert "CONTRACT-FILE-CHANGED" in changed.err


def test_a_split_sessions_unrecorded_responses_are_not_counted_as_hidden(
    cli: Any, tmp_path: Path
) -> None:
    """A review: with the session's other transcript in another project folder, that part's
    calls were counted as this part's hidden calls (exit 0, a false count bound in the
    contract). They cannot be told apart from hidden calls here: said, not counted."""
    tree, bodies = setup(tmp_path)
    other_part = ("msg_01OtherPart", "req_011OtherPart")
    bodies.responses[response_name(other_part)] = {
        "id": other_part[0],
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [{"type": "text", "text": MARKER}],
        "stop_reason": "end_turn",
        "usage": usage(300, 12, 0, 0),
    }
    assert bodies.lines is not None
    bodies.lines.append(index_line(other_part))
    folder = bodies.write()
    elsewhere = tree.parent.parent.parent / "another-project"
    elsewhere.mkdir()
    (elsewhere / tree.parent.name).write_bytes(tree.parent.read_bytes().splitlines(True)[0])
    shown = inspect(cli, tree, tmp_path, folder)
    assert shown.report is not None
    assert finding(shown.report, "CC-BODY-HIDDEN-CALL") == 0
    assert finding(shown.report, "CC-BODY-HIDDEN-NOT-COUNTED") == 1
    # not looked for: the other part's hidden calls are not this one's to find
    assert shown.report["auxiliary_calls"] == "not-observed"
    # and no request is read: none could decide anything (a request is the most private file)
    assert shown.report["provider_files"] == 1 + 5  # the index and the five responses


def test_a_symlink_by_the_sessions_id_in_another_project_folder_is_refused(
    cli: Any, tmp_path: Path
) -> None:
    """A review: it was skipped (its children unread) once worktree folders were searched only
    as real folders; SPEC §3 refuses symlinks, as in the session's own folder."""
    tree = copy_tree("synthetic_tree", tmp_path / "src")
    elsewhere = tree.parent.parent.parent / "worktree-project"
    elsewhere.mkdir()
    (elsewhere / tree.parent.stem).symlink_to(tmp_path)
    outcome = inspect(cli, tree, tmp_path, None)
    assert outcome.code == 2
    assert "CC-TREE-SYMLINK" in {r.code for r in outcome.refusals}


# --- selection and binding ----------------------------------------------------------------


def _session_lines(index: bytes, session: str) -> bytes:
    return b"".join(
        raw for raw in index.splitlines(keepends=True) if json.loads(raw)["session_id"] == session
    )


def test_the_index_is_bound_as_this_sessions_lines_and_each_response_by_its_bytes(
    cli: Any, tmp_path: Path
) -> None:
    """The index is shared and grows: what is bound for it is this session's lines, each with its
    line end, in file order; anyone holding the folder recomputes it. Responses are bound by
    their exact bytes; another session's files are not bound (nor opened)."""
    tree, bodies = setup(tmp_path)
    folder = bodies.write()
    contract, _, _ = convert_chain(cli, tree, tmp_path / "run", folder)
    files = read_json(contract)["inventory"]["files"]
    ours = _session_lines((folder / "index.jsonl").read_bytes(), SID)
    bound = {f["label"]: f for f in files}
    index = bound[INDEX.split("/")[1]]
    assert index["role"] == "provider-index"
    assert (index["size"], index["sha256"]) == (len(ours), hashlib.sha256(ours).hexdigest())
    responses = [f for f in files if f["role"] == "provider-response"]
    assert len(responses) == 4
    for call in CALLS:
        data = (folder / response_name(call)).read_bytes()
        entry = bound[label("provider-response", response_name(call)).split("/")[1]]
        assert (entry["size"], entry["sha256"]) == (len(data), hashlib.sha256(data).hexdigest())
    assert [f["role"] for f in files[:3]] == ["parent", "subagent", "meta"]  # the tree's first


@pytest.mark.parametrize("index", [True, False], ids=["index", "no-index"])
def test_another_sessions_bodies_are_neither_opened_nor_bound(
    cli: Any, tmp_path: Path, index: bool
) -> None:
    """Beside this session's: another session's response with a repeated key, its line naming a
    missing file, a symlink, and a response no call of this tree names. Opened or selected, each
    would refuse; none is."""
    tree, bodies = setup(tmp_path, index=index)
    folder = bodies.write()
    with_link(folder, "req_011OtherLink.response.json")
    (folder / "req_011Unnamed.response.json").write_bytes(b"\x00 not json")
    shown = inspect(cli, tree, tmp_path, folder)
    assert shown.code == 0, shown.err
    assert shown.refusals == []
    assert shown.report is not None
    assert shown.report["provider_files"] == 4 + index


def test_a_folder_that_selects_nothing_changes_nothing(cli: Any, tmp_path: Path) -> None:
    """Without an index and with no response named by the tree's request ids, nothing is bound:
    the account, the template and the bundle are those made without --provider-bodies; inspect
    says the folder held none of the session's bodies (a review: a wrong folder was silent)."""
    tree, bodies = setup(tmp_path, index=False, other=True)
    bodies.responses = {}
    folder = bodies.write()
    plain = cli("inspect", "--json", "--in", str(tree.parent))
    given = cli("inspect", "--json", "--in", str(tree.parent), "--provider-bodies", str(folder))
    assert (plain.code, given.code) == (0, 0)
    said = given.json()
    assert said.pop("not_read") == [{"code": "CC-BODY-NONE-SELECTED", "count": 1}]
    assert {k: v for k, v in plain.json().items() if k != "not_read"} == said
    _, out_a, _ = convert_chain(cli, tree, tmp_path / "a", None)
    contract, out_b, _ = convert_chain(cli, tree, tmp_path / "b", folder)
    assert out_a.read_bytes() == out_b.read_bytes()
    # Was said by inspect alone: convert, given a wrong folder, made the same files in silence.
    notice = "notice: CC-BODY-NONE-SELECTED: A --provider-bodies folder was given"
    given = ["--in", str(tree.parent), "--provider-bodies", str(folder)]
    template = cli("convert", *given, "--template", str(tmp_path / "t2.json"))
    bundle = cli("convert", *given, "--contract", str(contract), "--out", str(tmp_path / "b2"))
    assert (template.code, bundle.code) == (0, 0)
    assert notice in template.err
    assert notice in bundle.err
    without = cli("convert", "--in", str(tree.parent), "--template", str(tmp_path / "t3.json"))
    assert "CC-BODY-NONE-SELECTED" not in without.err
    text = cli("inspect", "--in", str(tree.parent), "--provider-bodies", str(folder)).out
    assert "CC-BODY-NONE-SELECTED: 1 folder." in text  # was "1 line", of an empty folder


def _tear(bodies: Bodies, at: int, written: int | None) -> Path:
    """The folder with index line `at` moved to the end and cut after `written` bytes (None:
    whole but for its newline): a last line Claude Code is still writing."""
    assert bodies.lines is not None
    torn = bodies.lines.pop(at)
    folder = bodies.write()
    with (folder / "index.jsonl").open("ab") as out:
        out.write(json.dumps(torn).encode()[:written])
    return folder


@pytest.mark.parametrize("hidden", [False, True], ids=["a-calls-line", "a-title-calls-line"])
@pytest.mark.parametrize(
    "written",
    [20, 50, 58, 75, 120, None],
    ids=["in-timestamp", "in-key", "before-id", "in-id", "after-id", "whole-without-newline"],
)
def test_a_line_that_may_be_this_sessions_being_written_is_refused_until_whole(
    cli: Any, tmp_path: Path, written: int | None, hidden: bool
) -> None:
    """Audits: this session's last index line, still being written, named a hidden call (a
    session title, the last thing a session does); left for the next run, the bundle said
    `auxiliary_calls: "observed"` with the call in no figure. Said "not-observed" instead, a
    bundle made then differed from one made once the line was whole, and `verify` said 5 of
    sources no byte of which had changed. A last line that may be this session's is refused
    (CC-BODY-INDEX-PENDING, at its line) until it is whole; then the call is taken. A line
    whole but for its newline is still being written too (a fuzz: bound, `verify` said 5 once
    the newline came)."""
    tree, bodies = setup(tmp_path)
    if hidden:
        add_hidden(bodies, TITLE, header=billing(cc_prompt_id=PROMPT_ID))
    assert bodies.lines is not None
    at = len(bodies.lines) - 1 if hidden else bodies.line_of(C1) - 1
    whole = json.dumps(bodies.lines[at]).encode()
    folder = _tear(bodies, at, written)
    shown = inspect(cli, tree, tmp_path, folder)
    assert shown.code == 2, shown.err
    assert shown.report is not None
    refused = [r for r in shown.report["refusals"] if r["code"] == "CC-BODY-INDEX-PENDING"]
    assert [r["line"] for r in refused] == [len(bodies.lines) + 1]  # the last line: its own
    made = cli(
        "convert", "--in", str(tree.parent), "--template", str(tmp_path / "t.json"),
        "--provider-bodies", str(folder),
    )  # fmt: skip
    assert made.code == 2
    assert "CC-BODY-INDEX-PENDING" in made.err
    assert not (tmp_path / "t.json").exists()
    with (folder / "index.jsonl").open("ab") as out:
        out.write(whole[len(whole) if written is None else written :] + b"\n")
    _, _, bundle = convert_chain(cli, tree, tmp_path / "run", folder)
    assert bundle["receipt"]["auxiliary_calls"] == "observed"
    assert len(hidden_events(bundle)) == (1 if hidden else 0)


@pytest.mark.parametrize("written", [60, 100], ids=["in-id", "after-id"])
def test_another_sessions_line_being_written_changes_no_contract(
    cli: Any, tmp_path: Path, written: int
) -> None:
    """A torn last line that shows another session's id (whole, or the start of one): not
    bound, so a contract made while it was being written still converts, its bundle says
    "observed", and it re-derives once the line is whole. (Cut before any id is written, it
    may be this session's: refused, above.)"""
    tree, bodies = setup(tmp_path)
    folder = bodies.write()
    other = json.dumps(index_line(("msg_w", "req_011W"), OTHER)).encode()
    with (folder / "index.jsonl").open("ab") as out:
        out.write(other[:written])
    shown = inspect(cli, tree, tmp_path, folder)
    assert shown.code == 0, shown.err
    assert shown.report is not None
    assert {"code": "CC-BODY-INDEX-TORN", "count": 1} in shown.report["not_read"]
    assert finding(shown.report, "CC-BODY-INDEX-TORN") == 0  # counted, not bound
    contract, bundle, made = convert_chain(cli, tree, tmp_path / "run", folder)
    assert made["receipt"]["auxiliary_calls"] == "observed"
    with (folder / "index.jsonl").open("ab") as out:
        out.write(other[written:] + b"\n")
    verify = ["verify", "--bundle", str(bundle), "--contract", str(contract)]
    done = cli(*verify, "--in", str(tree.parent), "--provider-bodies", str(folder))
    assert done.code == 0, done.err


def test_a_last_line_joined_to_another_sessions_cut_line_may_still_be_this_sessions(
    cli: Any, tmp_path: Path
) -> None:
    """A last line a crashed write left cut, then continued by this session's line being
    written, shows two ids: the first another session's. Read by its first id alone, it was
    another's, and this session's call went unlooked-for; any id that may be this one's
    refuses until the line is whole."""
    tree, bodies = setup(tmp_path)
    add_hidden(bodies, TITLE, header=billing(cc_prompt_id=PROMPT_ID))
    assert bodies.lines is not None
    ours = json.dumps(bodies.lines.pop()).encode()
    folder = bodies.write()
    other = json.dumps(index_line(("msg_w", "req_011W"), OTHER)).encode()
    with (folder / "index.jsonl").open("ab") as out:
        out.write(other[:100] + ours[:120])
    shown = inspect(cli, tree, tmp_path, folder)
    assert shown.code == 2, shown.err
    assert "CC-BODY-INDEX-PENDING" in [r.code for r in shown.refusals]


# A write Claude Code was stopped in: cut before its session id (a provider-bodies audit).
_CUT_HEAD = b'{"timestamp": "2026-07-21T09:1'


def test_a_cut_line_joined_by_another_sessions_line_being_written_is_refused(
    cli: Any, tmp_path: Path
) -> None:
    """A last line cut before its id, then joined by another session's whole line (no newline
    yet): the cut one may be this session's. Read by the joined line's id, it was another's,
    the session converted "observed", and once the newline came every conversion refused and
    `verify` of that bundle said 2 for good. It is refused until whole, as the cut line alone
    is."""
    tree, bodies = setup(tmp_path)
    folder = bodies.write()
    other = json.dumps(index_line(("msg_w", "req_011W"), OTHER)).encode()
    with (folder / "index.jsonl").open("ab") as out:
        out.write(_CUT_HEAD + other)
    shown = inspect(cli, tree, tmp_path, folder)
    assert shown.code == 2, shown.err
    assert [r.code for r in shown.refusals] == ["CC-BODY-INDEX-PENDING"]


@pytest.mark.parametrize(
    ("first", "then", "ours"),
    [
        ("other", "other", False),  # cut after another's id, joined by another's line
        ("other-id-start", "other", False),  # cut inside another's id
        ("head", "other", True),  # cut before any id: may be this session's
        ("our-id-start", "other", True),  # cut inside an id this one's starts with
        ("other", "ours", True),  # another's cut line, joined by this session's
    ],
)
def test_a_cut_line_joined_by_the_next_is_judged_by_each_record(
    cli: Any, tmp_path: Path, first: str, then: str, ours: bool
) -> None:
    """A line (not the last) that a write cut short and the next line's write joined: made only
    of other sessions' records, it is their damage, left unread (CC-BODY-INDEX-TORN, as a cut
    last line of theirs; it refused every conversion for good: a provider-bodies audit), and
    the session converts. Any record of it that may be this session's refuses, with a fix the
    user can follow (there is no original to restore)."""
    tree, bodies = setup(tmp_path)
    folder = bodies.write()
    other = json.dumps(index_line(("msg_w", "req_011W"), OTHER)).encode()
    mine = json.dumps(index_line(("msg_m", "req_011M"))).encode()
    cut = {
        "other": other[:100],
        "other-id-start": other[: other.index(OTHER.encode()) + 4],
        "head": _CUT_HEAD,
        "our-id-start": mine[: mine.index(SID.encode()) + 4],
    }[first]
    joined = cut + {"other": other, "ours": mine}[then] + b"\n"
    lines = (folder / "index.jsonl").read_bytes().splitlines(keepends=True)
    lines.insert(2, joined)
    (folder / "index.jsonl").write_bytes(b"".join(lines))
    shown = inspect(cli, tree, tmp_path, folder)
    if ours:
        expect(shown, "CC-LINE-INVALID-JSON", INDEX, 3)
        assert "Work on a copy of the folder: in the copy's index.jsonl delete that" in shown.err
        assert "restore Claude Code's original" not in shown.err
        return
    assert shown.code == 0, shown.err
    assert shown.report is not None
    assert {"code": "CC-BODY-INDEX-TORN", "count": 1} in shown.report["not_read"]


def test_another_sessions_joined_line_being_written_changes_no_contract(
    cli: Any, tmp_path: Path
) -> None:
    """The same line before and after its newline is judged alike: a bundle made while the
    last line (another session's cut line joined by another's) was being written re-derives
    once it is whole."""
    tree, bodies = setup(tmp_path)
    folder = bodies.write()
    other = json.dumps(index_line(("msg_w", "req_011W"), OTHER)).encode()
    more = json.dumps(index_line(("msg_v", "req_011V"), OTHER)).encode()
    with (folder / "index.jsonl").open("ab") as out:
        out.write(other[:100] + more)
    contract, bundle, made = convert_chain(cli, tree, tmp_path / "run", folder)
    assert made["receipt"]["auxiliary_calls"] == "observed"
    with (folder / "index.jsonl").open("ab") as out:
        out.write(b"\n")
    verify = ["verify", "--bundle", str(bundle), "--contract", str(contract)]
    done = cli(*verify, "--in", str(tree.parent), "--provider-bodies", str(folder))
    assert done.code == 0, done.err


def test_a_bad_index_line_before_the_last_is_refused(cli: Any, tmp_path: Path) -> None:
    """A line that does not parse (not the last, being written) and may be this session's
    (here it names it) refuses with its line code, as in a transcript."""
    tree, bodies = setup(tmp_path)
    folder = bodies.write()
    lines = (folder / "index.jsonl").read_bytes().splitlines(keepends=True)
    lines[2] = b'{"session_id": "' + SID.encode() + b'", oops}\n'
    (folder / "index.jsonl").write_bytes(b"".join(lines))
    outcome = inspect(cli, tree, tmp_path, folder)
    expect(outcome, "CC-LINE-INVALID-JSON", INDEX, 3)


@pytest.mark.parametrize(
    "edit",
    [
        {"response_file": "../escape.response.json"},  # path-shaped: no path is built from it
        {"response_file": "/etc/passwd"},
        {"response_file": "req_011CAYyg3N2sa2JxT9ojx4qm.request.json"},
        {"response_file": None},
        {"message_id": None},
        {"message_id": 7},
        {"session_id": 7},
    ],
    ids=["dot-dot", "absolute", "not-a-response", "no-file", "no-message", "message-int", "sid"],
)
def test_an_index_line_of_this_session_must_name_its_response_and_message(
    cli: Any, tmp_path: Path, edit: dict[str, Any]
) -> None:
    tree, bodies = setup(tmp_path)
    assert bodies.lines is not None
    number = bodies.line_of(C1)
    bodies.lines[number - 1].update(edit)
    outcome = inspect(cli, tree, tmp_path, bodies.write())
    expect(outcome, "CC-BODY-INDEX-FIELD", INDEX, number)


def test_an_index_line_naming_a_missing_response_is_refused(cli: Any, tmp_path: Path) -> None:
    tree, bodies = setup(tmp_path)
    del bodies.responses[response_name(C2)]
    outcome = inspect(cli, tree, tmp_path, bodies.write())
    expect(outcome, "CC-BODY-FILE-MISSING", INDEX, bodies.line_of(C2))


def test_a_selected_body_that_is_no_regular_file_is_refused(cli: Any, tmp_path: Path) -> None:
    """A symlink (or a folder) where a selected response is: refused, never followed; with an
    index at the line naming it, without one as an unbound file; an index that is a symlink is
    refused rather than read as no index at all."""
    tree, bodies = setup(tmp_path)
    del bodies.responses[response_name(C2)]
    folder = bodies.write()
    with_link(folder, response_name(C2), str(tmp_path / "elsewhere.json"))
    expect(inspect(cli, tree, tmp_path, folder), "CC-BODY-NOT-REGULAR", INDEX, bodies.line_of(C2))

    bodies.lines = None
    folder = bodies.write()
    (folder / response_name(C2)).mkdir()
    unbound = f"unbound/{_PSEUDO.name('file', 'provider-bodies/' + response_name(C2))}"
    expect(inspect(cli, tree, tmp_path, folder), "CC-BODY-NOT-REGULAR", unbound)

    (folder / response_name(C2)).rmdir()
    with_link(folder, "index.jsonl", str(tmp_path / "index.jsonl"))
    index = f"unbound/{_PSEUDO.name('file', 'provider-bodies/index.jsonl')}"
    expect(inspect(cli, tree, tmp_path, folder), "CC-BODY-NOT-REGULAR", index)


@pytest.mark.parametrize("kind", ["symlink", "folder"])
def test_a_response_an_index_line_names_is_refused_once(
    cli: Any, tmp_path: Path, kind: str
) -> None:
    """A symlink or folder an index line of this session names is refused at that line only,
    not again as an unbound file by the request id a call records (a provider-bodies audit:
    one body, two refusals under two labels)."""
    tree, bodies = setup(tmp_path)
    del bodies.responses[response_name(C2)]
    folder = bodies.write()
    if kind == "symlink":
        with_link(folder, response_name(C2), str(tmp_path / "elsewhere.json"))
    else:
        (folder / response_name(C2)).mkdir()
    outcome = inspect(cli, tree, tmp_path, folder)
    expect(outcome, "CC-BODY-NOT-REGULAR", INDEX, bodies.line_of(C2))
    assert len(outcome.refusals) == 1, outcome.refusals


@pytest.mark.parametrize("kind", ["missing", "file", "symlink"])
@pytest.mark.parametrize("command", ["inspect", "template", "contract", "verify"])
def test_a_bodies_folder_that_is_not_one_is_refused(
    cli: Any, tmp_path: Path, kind: str, command: str
) -> None:
    """Exit 2 with its code (not click's usage error, 64), no traceback, nothing written."""
    tree, bodies = setup(tmp_path)
    real = bodies.write()
    contract, bundle, _ = convert_chain(cli, tree, tmp_path / "run", real)
    given = tmp_path / "given"
    if kind == "file":
        given.write_text("{}")
    elif kind == "symlink":
        given.symlink_to(real)
    out = tmp_path / "out.json"
    parent = str(tree.parent)
    argv = {
        "inspect": ["inspect", "--in", parent],
        "template": ["convert", "--in", parent, "--template", str(out)],
        "contract": ["convert", "--in", parent, "--contract", str(contract), "--out", str(out)],
        "verify": ["verify", "--bundle", str(bundle), "--contract", str(contract), "--in", parent],
    }[command]
    result = cli(*argv, "--provider-bodies", str(given))
    assert result.code == 2, result.err
    assert "Traceback" not in result.err
    # at the option that named it, never its path
    assert Refusal("CC-BODY-DIR-UNREADABLE", "--provider-bodies", None) in parse_refusals(
        result.err
    )
    assert not out.exists()
    assert str(given) not in result.err


# --- reading a response -------------------------------------------------------------------


def _without(key: str) -> Any:
    return lambda r: {k: v for k, v in r.items() if k != key}


@pytest.mark.parametrize(
    ("edit", "code"),
    [
        (_without("id"), "CC-BODY-RESPONSE-SHAPE"),
        (lambda r: {**r, "id": 7}, "CC-BODY-RESPONSE-SHAPE"),
        (lambda r: {**r, "model": None}, "CC-BODY-RESPONSE-SHAPE"),
        (lambda r: {**r, "stop_reason": 1}, "CC-BODY-RESPONSE-SHAPE"),
        (_without("usage"), "CC-BODY-RESPONSE-SHAPE"),
        (lambda r: [r], "CC-LINE-NOT-OBJECT"),
        (lambda r: {**r, "usage": {**r["usage"], "output_tokens": None}}, "CC-REC-NO-USAGE"),
        (lambda r: {**r, "usage": {**r["usage"], "output_tokens": -1}}, "CC-REC-BAD-TOKEN-COUNT"),
        (
            lambda r: {**r, "usage": {**r["usage"], "cache_write_24h_tokens": 5}},
            "CC-REC-USAGE-UNKNOWN-COUNTER",
        ),
        (
            lambda r: {
                **r,
                "usage": {
                    **r["usage"],
                    "iterations": [
                        {"type": "message", "input_tokens": 1},
                        {"type": "fallback_message"},
                    ],
                },
            },
            "CC-REC-USAGE-FALLBACK",
        ),
        (
            lambda r: {
                **r,
                "usage": {**r["usage"], "iterations": [{"type": "message", "input_tokens": 1}]},
            },
            "CC-REC-USAGE-ITERATIONS",
        ),
    ],
    ids=[
        "no-id",
        "id-int",
        "model-null",
        "stop-int",
        "no-usage",
        "array",
        "no-output",
        "negative",
        "unknown-counter",
        "fallback",
        "iterations",
    ],
)
def test_a_response_is_read_strictly(cli: Any, tmp_path: Path, edit: Any, code: str) -> None:
    tree, bodies = setup(tmp_path)
    name = response_name(C1)
    bodies.raw[name] = json.dumps(edit(bodies.responses[name])).encode()
    outcome = inspect(cli, tree, tmp_path, bodies.write())
    expect(outcome, code, label("provider-response", name), 1)
    if code.startswith("CC-LINE-"):  # a fuzz: its fix spoke of a transcript
        assert "Fix: This file is a provider body, not a transcript" in outcome.err
        assert "not a Claude Code transcript" not in outcome.err


_STREAMED = (
    b'event: message_start\ndata: {"type": "message_start", "message": {"id": "msg_1"}}\n\n'
    b'event: message_stop\ndata: {"type": "message_stop"}\n\n'
)


@pytest.mark.parametrize(
    ("data", "code", "line"),
    [
        (b'{"id": "a", "id": "b"}', "CC-LINE-DUPLICATE-KEY", 1),
        # written in one write, no rename: one being written is said to be so (an audit: it
        # was "damaged; restore an intact copy")
        (
            b'{"id": "msg_011CjPz4Y7hqiU5EUunvWiB1", "model": "claude-op',
            "CC-BODY-RESPONSE-UNFINISHED",
            1,
        ),
        (
            b'{"id": "msg_011CjPz4Y7hqiU5EUunvWiB1", "model": "claude-\xe2\x82',
            "CC-BODY-RESPONSE-UNFINISHED",
            1,
        ),
        (b'{"id": NaN}', "CC-LINE-NONFINITE", 1),
        (b"", "CC-BODY-RESPONSE-UNFINISHED", None),  # the first state of the one write
        # wrong before their end: no write cut these (a diff review)
        (b'{"id": "msg_1", "model": "x"} {"id": "msg_2"}', "CC-LINE-INVALID-JSON", 1),
        (b'{"id": "msg_1",, "model": "x"}', "CC-LINE-INVALID-JSON", 1),
        (b'{"id": "msg_\xff1", "model": "x"}', "CC-LINE-INVALID-UTF8", 1),
        # another form than Claude Code's, said as such, not as a transcript line's damage (a
        # provider-bodies audit: "A line is not valid JSON", "not valid UTF-8" at line 1)
        (_STREAMED, "CC-BODY-STREAMED", 1),
        (b"\xef\xbb\xbf\n" + _STREAMED[: len(_STREAMED) // 2], "CC-BODY-STREAMED", 1),
        (gzip.compress(b'{"id": "msg_1", "model": "x"}'), "CC-BODY-COMPRESSED", 1),
    ],
    ids=[
        "duplicate-key",
        "half-written",
        "cut-in-a-character",
        "nan",
        "empty",
        "two-documents",
        "double-comma",
        "bad-byte-inside",
        "streamed",
        "streamed-cut",
        "gzip",
    ],
)
def test_a_response_that_is_not_strict_json_is_refused(
    cli: Any, tmp_path: Path, data: bytes, code: str, line: int | None
) -> None:
    tree, bodies = setup(tmp_path, index=False)
    bodies.raw[response_name(C1)] = data
    outcome = inspect(cli, tree, tmp_path, bodies.write())
    expect(outcome, code, label("provider-response", response_name(C1)), line)


def test_an_unreadable_response_is_refused(modes_cli: Any, tmp_path: Path) -> None:
    tree, bodies = setup(tmp_path)
    folder = bodies.write()
    (folder / response_name(C1)).chmod(0)
    outcome = inspect(modes_cli, tree, tmp_path, folder)
    expect(outcome, "CC-TREE-UNREADABLE", label("provider-response", response_name(C1)))


# --- joins --------------------------------------------------------------------------------


def test_a_response_that_is_not_the_call_its_index_line_names_is_refused(
    cli: Any, tmp_path: Path
) -> None:
    tree, bodies = setup(tmp_path)
    bodies.response(C1)["id"] = "msg_01SomeOtherMessage"
    outcome = inspect(cli, tree, tmp_path, bodies.write())
    expect(outcome, "CC-BODY-ID-DISAGREES", INDEX, bodies.line_of(C1))


def test_an_index_line_pointing_a_call_at_another_requests_file_is_refused(
    cli: Any, tmp_path: Path
) -> None:
    """A fuzz: C1's response moved into the file named by C2's request id, C2's line dropped
    and C1's line pointed at that file, completed C1 (exit 0). A response's file is named by
    its request id: one the call's records do not name is not its response."""
    tree, bodies = setup(tmp_path)
    assert bodies.lines is not None
    response = bodies.responses.pop(response_name(C1))
    bodies.responses[response_name(C2)] = response
    bodies.lines = [line for line in bodies.lines if line["message_id"] != C2[0]]
    for line in bodies.lines:
        if line["message_id"] == C1[0]:
            line["response_file"] = response_name(C2)
    outcome = inspect(cli, tree, tmp_path, bodies.write())
    expect(outcome, "CC-BODY-ID-DISAGREES", INDEX, bodies.line_of(C2))


@pytest.mark.parametrize("other_id", [A2[0], "msg_01NoCallHasThisId"], ids=["other-call", "none"])
def test_without_an_index_a_response_must_be_the_call_its_name_is_for(
    cli: Any, tmp_path: Path, other_id: str
) -> None:
    """Without an index the file is selected by a call's request id: its id must be that call's
    message id (never a hidden call: nothing says the response is this session's)."""
    tree, bodies = setup(tmp_path, index=False)
    bodies.response(C1)["id"] = other_id
    outcome = inspect(cli, tree, tmp_path, bodies.write())
    expect(outcome, "CC-BODY-ID-DISAGREES", label("provider-response", response_name(C1)))
    assert not any(r.code == "CC-BODY-DUPLICATE" for r in outcome.refusals)


def test_two_responses_for_one_call_are_refused(cli: Any, tmp_path: Path) -> None:
    """With an index: two lines for one message id (at the second line). Without: two files
    named by request ids the call's records name (its copy in a fork names another)."""
    tree, bodies = setup(tmp_path)
    assert bodies.lines is not None
    second = {**index_line(C1), "response_file": "req_011CopyOfC1.response.json"}
    bodies.lines.append(second)
    bodies.responses["req_011CopyOfC1.response.json"] = bodies.response(C1)
    outcome = inspect(cli, tree, tmp_path, bodies.write())
    expect(outcome, "CC-BODY-DUPLICATE", INDEX, len(bodies.lines))

    tree.edit_record(CHILD, 2, lambda r: r.update(requestId="req_011ForkCopyOfA1"))
    bodies.lines = None
    bodies.responses["req_011ForkCopyOfA1.response.json"] = bodies.response(A1)
    outcome = inspect(cli, tree, tmp_path, bodies.write())
    expect(
        outcome,
        "CC-BODY-DUPLICATE",
        label("provider-response", "req_011ForkCopyOfA1.response.json"),
    )


# --- contracts and verify -----------------------------------------------------------------


def test_a_contract_made_with_bodies_refuses_a_conversion_without_them(
    cli: Any, tmp_path: Path
) -> None:
    """The one cause is named, not every body file removed and every count that follows; and
    the other way round."""
    tree, bodies = setup(tmp_path)
    folder = bodies.write()
    with_bodies, _, _ = convert_chain(cli, tree, tmp_path / "with", folder)
    without, _, _ = convert_chain(cli, tree, tmp_path / "without", None)
    out = tmp_path / "out.json"
    base = ["convert", "--in", str(tree.parent), "--out", str(out)]
    missing = cli(*base, "--contract", str(with_bodies))
    assert missing.code == 2
    assert refused_codes(missing.err) == ["CONTRACT-BODIES-MISSING"]
    unexpected = cli(*base, "--contract", str(without), "--provider-bodies", str(folder))
    assert unexpected.code == 2
    assert refused_codes(unexpected.err) == ["CONTRACT-BODIES-UNEXPECTED"]
    assert not out.exists()


def test_verify_rederives_a_bundle_made_with_bodies_byte_for_byte(cli: Any, tmp_path: Path) -> None:
    """With the same folder: byte for byte, also after another session appended to the shared
    index. Without it: refused (2), the cause named. With a response changed since: 5."""
    tree, bodies = setup(tmp_path)
    folder = bodies.write()
    contract, bundle, _ = convert_chain(cli, tree, tmp_path / "run", folder)
    verify = ["verify", "--bundle", str(bundle), "--contract", str(contract)]
    verify += ["--in", str(tree.parent)]
    done = cli(*verify, "--provider-bodies", str(folder))
    assert done.code == 0, done.err
    assert "byte for byte" in done.out

    with (folder / "index.jsonl").open("ab") as out:
        out.write(json.dumps(index_line(("msg_later", "req_011Later"), OTHER)).encode() + b"\n")
    assert cli(*verify, "--provider-bodies", str(folder)).code == 0

    # The verifier's to mend, said so (a walkthrough was told convert's fix: make the template
    # again without --provider-bodies)
    forgot = cli(*verify)
    assert forgot.code == 2
    assert refused_codes(forgot.err) == ["ATTEST-REDERIVE-BODIES-MISSING"]
    assert "Pass the producer's provider-bodies folder" in forgot.err
    plain_contract, plain_bundle, _ = convert_chain(cli, tree, tmp_path / "plain", None)
    given = cli(
        "verify",
        "--bundle",
        str(plain_bundle),
        "--contract",
        str(plain_contract),
        "--in",
        str(tree.parent),
        "--provider-bodies",
        str(folder),
    )
    assert given.code == 2, given.err
    assert refused_codes(given.err) == ["ATTEST-REDERIVE-BODIES-UNEXPECTED"]

    name = response_name(A2)
    changed = {**bodies.response(A2), "content": [{"type": "text", "text": "edited"}]}
    (folder / name).write_text(json.dumps(changed))
    edited = cli(*verify, "--provider-bodies", str(folder))
    assert edited.code == 5
    assert "ATTEST-REDERIVE-SOURCES-CHANGED" in edited.err
    assert "CONTRACT-FILE-CHANGED" in edited.err

    # A change that makes the sources refuse: the files are compared by their bytes.
    changed["usage"] = {**changed["usage"], "output_tokens": 91}
    (folder / name).write_text(json.dumps(changed))
    refused = cli(*verify, "--provider-bodies", str(folder), "--show-paths")
    assert refused.code == 5, refused.err
    lines = refused.err.splitlines()
    assert any(
        line.startswith("  found: CONTRACT-FILE-CHANGED") and f"(provider-bodies/{name})" in line
        for line in lines
    ), refused.err
    assert "CC-BODY-USAGE-DISAGREES" in refused.err


def test_show_paths_names_a_body_by_its_name_in_the_folder(cli: Any, tmp_path: Path) -> None:
    tree, bodies = setup(tmp_path)
    bodies.response(C1)["model"] = "claude-sonnet-4-6"
    folder = bodies.write()
    quiet = cli("inspect", "--in", str(tree.parent), "--provider-bodies", str(folder))
    assert quiet.code == 2
    assert response_name(C1) not in quiet.err
    assert C1[1] not in quiet.err
    shown = cli(
        "inspect", "--in", str(tree.parent), "--provider-bodies", str(folder), "--show-paths"
    )
    assert f"(provider-bodies/{response_name(C1)})" in shown.err


# --- privacy ------------------------------------------------------------------------------


def _canaries() -> Iterator[str]:
    while True:
        yield "Cn" + secrets.token_hex(8)


def test_nothing_of_a_body_crosses_the_firewall(cli: Any, tmp_path: Path) -> None:
    """A random canary in every string field of every request, response and index line (this
    session's, a hidden call's, another session's), and in the names of the files that can take
    one: no canary, nor any 8-character piece of one, is in any output of inspect, convert or
    verify, or any file they write (SPEC §6)."""
    fresh = _canaries()
    planted: list[str] = []

    def plant(value: Any, keep: frozenset[str] = frozenset()) -> Any:
        """Every string of `value` a canary, except those under the keys in `keep`."""
        if isinstance(value, dict):
            return {k: v if k in keep else plant(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plant(v) for v in value]
        if isinstance(value, str):
            planted.append(next(fresh))
            return planted[-1]
        return value

    tree, bodies = setup(tmp_path)
    for name, response in list(bodies.responses.items()):
        # the id and model join it to its call: what joins is the transcript's, not the body's
        kept = {k: response[k] for k in ("id", "model", "stop_reason")}
        bodies.responses[name] = {**plant(response, frozenset({"usage"})), **kept}
        bodies.responses[name]["usage"] = {
            **response["usage"],
            "service_tier": "standard",
            "cache_creation": response["usage"]["cache_creation"],
        }
        bodies.responses[name]["extra"] = plant({"system": "x", "metadata": {"user_id": "y"}})
    hidden = next(fresh)
    planted.append(hidden)
    bodies.responses[f"req_{hidden}.response.json"] = {
        **plant({"type": "message", "role": "assistant", "content": [{"text": "t"}]}),
        "id": hidden,
        "model": "claude-haiku-4-5-20251001",
        "stop_reason": "end_turn",
        "usage": usage(300, 12, 0, 0),
    }
    assert bodies.lines is not None
    lines = []
    for line in bodies.lines:
        keep = frozenset({"session_id", "message_id", "response_file", "model"})
        lines.append(plant(line, keep if line["session_id"] == SID else frozenset()))
    hidden_request = next(fresh)
    planted.append(hidden_request)
    lines.append(
        {
            **plant(index_line(("x", "y"))),
            "session_id": SID,
            "message_id": hidden,
            "response_file": f"req_{hidden}.response.json",
            "request_file": f"{hidden_request}.request.json",
            "model": "claude-haiku-4-5-20251001",
        }
    )
    other = next(fresh)
    planted.append(other)
    lines.append(plant(index_line((other, other), OTHER)))
    bodies.lines = lines
    folder = bodies.write()
    # the hidden call's request: every string a canary but the ids of its billing header
    # that attribute it (the transcript's own prompt id), which are compared, never written
    header_ids = {"cc_version": next(fresh), "cch": next(fresh), "cc_entrypoint": next(fresh)}
    planted.extend(header_ids.values())
    request = plant({"model": "m", "messages": [{"content": "c"}], "tools": [{"name": "n"}]})
    request["system"] = [
        {"type": "text", "text": billing(cc_prompt_id=PROMPT_ID, **header_ids)},
        plant({"type": "text", "text": "s"}),
    ]
    (folder / f"{hidden_request}.request.json").write_text(json.dumps(request))
    for _ in range(3):  # request files: every string a canary, and their names
        request = plant({"model": "m", "system": [{"text": "s"}], "metadata": {"user_id": "u"}})
        name = next(fresh)
        planted.append(name)
        (folder / f"{name}.request.json").write_text(json.dumps(request))

    outputs: dict[str, str | bytes] = {}
    work = tmp_path / "work"
    given = ["--provider-bodies", str(folder)]

    def run(name: str, *args: str) -> Any:
        result = cli(*args)
        outputs[f"{name}:stdout"] = result.out
        outputs[f"{name}:stderr"] = result.err
        return result

    parent = str(tree.parent)
    assert run("inspect", "inspect", "--in", parent, *given).code == 0
    assert run("inspect-json", "inspect", "--json", "--in", parent, *given).code == 0
    work.mkdir()
    template, contract, bundle = work / "t.json", work / "c.json", work / "b.json"
    assert run("template", "convert", "--in", parent, "--template", str(template), *given).code == 0
    write_json(contract, fill(read_json(template)))
    made = run(
        "bundle",
        "convert",
        "--in",
        parent,
        "--contract",
        str(contract),
        *given,
        "--out",
        str(bundle),
    )
    assert made.code == 0, made.err
    assert len(hidden_events(read_json(bundle))) == 1  # its request was read, and attributed
    verify = ["verify", "--bundle", str(bundle), "--contract", str(contract)]
    assert run("verify", *verify, "--in", parent, *given).code == 0
    # and a refusal: a response of this session whose model disagrees
    bad = bodies.response(C1)
    bad["model"] = "claude-sonnet-4-6"
    (folder / response_name(C1)).write_text(json.dumps(bad))
    assert run("refused", "inspect", "--in", parent, *given).code == 2
    for path in work.iterdir():
        outputs[f"file:{path.name}"] = path.read_bytes()
    index = index_outputs(outputs)
    canaries = [c for c in planted if c.startswith("Cn")]
    assert len(canaries) > 50
    assert not leaks(canaries, index), leaks(canaries, index)
    assert MARKER not in "".join(str(v) for v in outputs.values())


@pytest.mark.parametrize("name", ["response", "index"])
def test_a_bundle_never_replaces_a_body(cli: Any, tmp_path: Path, name: str) -> None:
    """A review: `convert --contract --out <a bound response>` replaced that response, the only
    copy of its evidence, with exit 0 (a transcript or the index as --out was refused)."""
    tree, bodies = setup(tmp_path)
    folder = bodies.write()
    contract, _, _ = convert_chain(cli, tree, tmp_path / "run", folder)
    target = folder / (response_name(C1) if name == "response" else "index.jsonl")
    before = target.read_bytes()
    args = ["convert", "--in", str(tree.parent), "--provider-bodies", str(folder)]
    result = cli(*args, "--contract", str(contract), "--out", str(target))
    assert result.code == 2
    assert "OUT-" in result.err
    assert target.read_bytes() == before


def test_an_index_created_later_leaves_an_older_sessions_contract_as_it_was(
    cli: Any, tmp_path: Path
) -> None:
    """A review: bodies kept from before 2.1.274, then a newer Claude Code creates index.jsonl
    in the same folder (another session's lines only). The older session's responses were no
    longer selected (its call usage-incomplete again), its contract refused and verify said
    exit 5. Responses the transcripts name are taken in every case, and an index with none of
    this session's lines is bound nowhere."""
    tree, bodies = setup(tmp_path, index=False)
    folder = bodies.write()
    contract, bundle, _ = convert_chain(cli, tree, tmp_path / "run", folder)
    other = json.dumps(index_line(("msg_o", "req_011O"), OTHER)).encode()
    (folder / "index.jsonl").write_bytes(other + b"\n")
    verify = ["verify", "--bundle", str(bundle), "--contract", str(contract)]
    done = cli(*verify, "--in", str(tree.parent), "--provider-bodies", str(folder))
    assert done.code == 0, done.err


def _two_passes(first: dict[str, int], second: dict[str, int]) -> dict[str, Any]:
    """A response's usage answered in two passes of the call's own: the top level is the sum."""
    keys = ("input_tokens", "output_tokens", "cache_read_input_tokens")
    top = usage(*(first[k] + second[k] for k in (*keys[:2], *keys[2:], "cw")))
    cw = {"cache_creation_input_tokens": first["cw"] + second["cw"]}
    top |= cw
    top["iterations"] = [
        {"type": "message", **{k: p[k] for k in keys}, "cache_creation_input_tokens": p["cw"]}
        for p in (first, second)
    ]
    return top


@pytest.mark.parametrize("stub_of", ["first", "second"])
def test_a_stub_of_a_call_answered_in_several_passes_is_completed_by_its_first(
    cli: Any, tmp_path: Path, stub_of: str
) -> None:
    """Was: refused (CC-BODY-USAGE-DISAGREES), its fix to convert without the bodies. A stub is
    written as the stream starts, with the first pass's input; the response states the sums of
    its passes. Held to the first pass: the second's input is no stub's."""
    tree, bodies = setup(tmp_path)
    # C1's stub (input 5, cache read 8000, cache write 1500, output 2)
    first = {"input_tokens": 5, "output_tokens": 20, "cache_read_input_tokens": 8000, "cw": 1500}
    second = {"input_tokens": 300, "output_tokens": 40, "cache_read_input_tokens": 9500, "cw": 200}
    if stub_of == "second":
        first, second = second, first
    bodies.response(C1)["usage"] = _two_passes(first, second)
    shown = inspect(cli, tree, tmp_path, bodies.write(), "--json")
    if stub_of == "second":
        expect(shown, "CC-BODY-USAGE-DISAGREES", label("provider-response", response_name(C1)))
        return
    assert shown.code == 0, shown.err
    report = shown.report
    assert report is not None
    assert finding(report, "CC-BODY-USAGE-COMPLETED") == 1
    assert report["counts"]["usage_incomplete_calls"] == 0
    _, _, bundle = convert_chain(cli, tree, tmp_path / "run", bodies.folder)
    event = event_of(bundle, C1[0])
    assert event["usage_complete"] is True
    assert event["usage"]["input_tokens"] == 305
    assert event["usage"]["output_tokens"] == 60
    assert event["usage"]["cache_read_input_tokens"] == 17500
    assert event["cost"]["low"] == event["cost"]["high"]


@pytest.mark.parametrize(("stub_geo", "geo"), [("not_available", ""), ("global", ""), ("", "us")])
def test_a_stubs_region_is_no_statement(cli: Any, tmp_path: Path, stub_geo: str, geo: str) -> None:
    """2.1.38-2.1.39 write `inference_geo` `not_available` or `global` on a call's stubs and
    `""` on its final record (FORMAT-NOTES 6): the response completes the stub, priced in the
    region it names, where it was refused as a disagreement."""
    tree, bodies = setup(tmp_path)

    def not_yet(record: dict[str, Any]) -> None:
        record["message"]["usage"]["inference_geo"] = stub_geo

    tree.edit_record(CHILD, C1_FINAL_LINE, not_yet)
    response = bodies.response(C1)
    response["usage"] = {**response["usage"], "inference_geo": geo}
    _, _, bundle = convert_chain(cli, tree, tmp_path / "run", bodies.write())
    event = event_of(bundle, C1[0])
    assert event["usage_complete"] is True
    assert event["context"]["inference_geo"] == geo


def test_a_complete_calls_region_not_available_is_a_statement(cli: Any, tmp_path: Path) -> None:
    """Only a stub's "not_available" says nothing: a complete call's stands against its
    response's."""
    tree, bodies = setup(tmp_path)

    def not_available(record: dict[str, Any]) -> None:
        record["message"]["usage"]["inference_geo"] = "not_available"

    parent = "parent"
    for number, raw in enumerate(tree.lines(parent), 1):
        if A2[0].encode() in raw:
            tree.edit_record(parent, number, not_available)
    response = bodies.response(A2)
    response["usage"] = {**response["usage"], "inference_geo": "us"}
    outcome = inspect(cli, tree, tmp_path, bodies.write())
    expect(outcome, "CC-BODY-USAGE-DISAGREES", label("provider-response", response_name(A2)))


def test_a_branched_sessions_copies_do_not_select_the_original_sessions_responses(
    cli: Any, tmp_path: Path
) -> None:
    """A review: a `/branch` session's leading copies of its origin's calls (marked
    forkedFrom) name the origin's request ids; the origin's responses, in the same folder,
    were selected by them and refused (CC-BODY-ID-DISAGREES), the copies being no calls here."""
    from tests.test_layouts import _branch, _write_branch

    project = tmp_path / "proj"
    project.mkdir()
    branch, own = _branch(project)
    for record in (*branch, *own):
        if record["type"] == "assistant":
            record["requestId"] = "req_" + record["message"]["id"].replace("_", "")
    parent = _write_branch(project, [*branch, *own])
    folder = tmp_path / "bodies"
    folder.mkdir()
    lines = []
    for record in (*branch, *own):
        if record["type"] != "assistant":
            continue
        message = {**record["message"], "type": "message"}
        name = f"{record['requestId']}.response.json"
        (folder / name).write_text(json.dumps(message))
        origin = record.get("forkedFrom", {}).get("sessionId", parent.stem)
        lines.append(
            {
                "session_id": origin,
                "message_id": message["id"],
                "request_id": record["requestId"],
                "response_file": name,
            }
        )
    (folder / "index.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    shown = cli("inspect", "--json", "--in", str(parent), "--provider-bodies", str(folder))
    assert shown.code == 0, shown.err
    report = json.loads(shown.out)
    assert finding(report, "CC-BODY-HIDDEN-CALL") == 0  # the origin's lines are not this one's
    assert report["provider_files"] == 1 + len(own) // 2  # the index, and the branch's own


def test_a_turn_whose_first_record_follows_a_re_emitted_copy_still_starts_there(
    cli: Any, tmp_path: Path
) -> None:
    """A review: Claude Code re-emits records before a compaction with a rewritten promptId
    (the first copy is kept, FORMAT-NOTES §7). A copy carrying the next turn's id hid that turn's
    start (its records then followed one of the same id), and a hidden call naming it was
    refused as unattributed, though the turn's records are all in the first task."""
    tree, bodies = setup(tmp_path)
    turn = "7e5a0000-0000-4000-8000-0000000000aa"
    rows = tree.lines()
    result = json.loads(rows[7])  # the tool result of the first turn
    copy = {**result, "promptId": turn}  # its re-emitted copy: the same uuid
    note = {
        "parentUuid": json.loads(rows[8])["uuid"],
        "isSidechain": False,
        "promptId": turn,
        "type": "user",
        "message": {"role": "user", "content": "<task-notification>done</task-notification>"},
        "uuid": "5e1d0c6a-0000-4000-8000-0000000000d1",
        "timestamp": "2026-07-21T09:15:00.000Z",
        "sessionId": SID,
        "version": "2.1.216",
    }
    tree.write_lines("", [*rows[:9], dump(copy), dump(note), *rows[9:]])
    add_hidden(bodies, TITLE, source="prompt_suggestion", header=billing(cc_prompt_id=turn))
    _, _, bundle = convert_chain(cli, tree, tmp_path / "run", bodies.write())
    (event,) = hidden_events(bundle)
    assert event["task"] == bundle["tasks"][0]["id"]


def test_a_hidden_calls_advisor_pass_is_its_calls_task(cli: Any, tmp_path: Path) -> None:
    """A hidden call's response answered in two passes, one an advisor's: the pass is a hidden
    call of its own beside it (`_hidden_calls`), of the task its call's request names, and
    counted in that task's calls."""
    tree, bodies = setup(tmp_path)
    add_hidden(bodies, TITLE, source="prompt_suggestion", header=billing(cc_prompt_id=PROMPT_ID))
    own = usage(300, 12, 0, 0)
    bodies.response(TITLE)["usage"] = {
        **own,
        "iterations": [
            {"type": "message", **{k: own[k] for k in ("input_tokens", "output_tokens")}},
            {"type": "advisor_message", "model": MODEL, "input_tokens": 700, "output_tokens": 40},
        ],
    }
    _, out, bundle = convert_chain(cli, tree, tmp_path / "run", bodies.write())
    events = hidden_events(bundle)
    assert sorted(e["model"] for e in events) == sorted([HAIKU, MODEL])
    assert {e["task"] for e in events} == {bundle["tasks"][0]["id"]}
    assert all(e["agent_kind"] == "hidden-other" for e in events)
    assert all(e["usage_complete"] is True for e in events)
    assert bundle["tasks"][0]["model_calls"] == 6  # four, the hidden call and its pass
    assert bundle["receipt"]["hidden_calls"] == 1
    # one hidden call, two events: the bundle opens (hidden_calls counts calls, not passes)
    shown = cli("evaluate", "--bundle", str(out), "--format", "json")
    assert shown.code in (0, 1), shown.err
    # inspect says both counts and which is which: "other 2" beside a finding of 1 read as
    # two counts of one thing (a provider-bodies audit)
    text = cli("inspect", "--in", str(tree.parent), "--provider-bodies", str(bodies.folder))
    assert text.code == 0, text.err
    assert "among the model calls: other 2 (1 response and 1 advisor pass, each a call)" in (
        text.out
    )
    assert "CC-BODY-HIDDEN-CALL: 1 time." in text.out
    assert "Counted by response, as the bundle's hidden_calls is" in text.out


@pytest.mark.parametrize(
    ("agents_turn", "task", "calls"),
    [("7d0e0c1a-0000-4000-8000-00000000a9e7", 0, [5, 1]), (SECOND_TURN, 1, [4, 2])],
    ids=["its-own", "the-main-transcripts"],
)
def test_a_turn_an_agent_carries(
    cli: Any, tmp_path: Path, agents_turn: str, task: int, calls: list[int]
) -> None:
    """A review: in the corpus, workflow agents' records carry promptIds no main-transcript
    record does; a hidden call naming one is the agent's task (the first), not unattributed.
    An id the main transcript carries is the task of its turn there (the second), though an
    agent of another task carries it too (a fork's copies of its parent's records carry the
    parent's ids)."""
    tree, bodies = setup(tmp_path)
    add_second_turn(tree, bodies)  # two tasks: the agent's (the first) is told from another
    rows = [raw.replace(PROMPT_ID.encode(), agents_turn.encode()) for raw in tree.lines(CHILD)]
    tree.write_lines(CHILD, rows)
    event, bundle = suggestion_of_turn(cli, tmp_path, tree, bodies, agents_turn)
    assert event["task"] == bundle["tasks"][task]["id"]
    assert [t["model_calls"] for t in bundle["tasks"]] == calls


def test_a_hidden_call_naming_itself_as_its_previous_call_waits_for_nothing(
    cli: Any, tmp_path: Path
) -> None:
    """A request whose cc_prev_req is its own request id names no other call to wait for: it is
    attributed by its prompt in the first round, and a call listed before it that names it
    then follows its chain (it is no cycle of two, where both would be left to their prompt)."""
    tree, bodies = setup(tmp_path)
    first = ("msg_01NamesItself", "req_01NamesItself")
    after = ("msg_01NamesTheFirst", "req_01NamesTheFirst")
    add_hidden(bodies, after, source="side_question", header=billing(cc_prev_req=first[1]))
    add_hidden(bodies, first, header=billing(cc_prompt_id=PROMPT_ID, cc_prev_req=first[1]))
    _, _, bundle = convert_chain(cli, tree, tmp_path / "run", bodies.write())
    assert len(hidden_events(bundle)) == 2
    assert {e["task"] for e in hidden_events(bundle)} == {bundle["tasks"][0]["id"]}


def test_a_turn_whose_records_are_in_two_tasks_and_start_neither_is_ambiguous(
    cli: Any, tmp_path: Path
) -> None:
    """A promptId that records of two tasks carry, none of them a task's prompt: the turn
    names two tasks, and a hidden call naming it is refused, not given either."""
    tree, bodies = setup(tmp_path)
    add_second_turn(tree, bodies)
    turn = "7e5a0000-0000-4000-8000-0000000000bb"
    rows = tree.lines()

    def note(parent: str, uuid: str) -> bytes:
        return dump(
            {
                "parentUuid": parent,
                "isSidechain": False,
                "promptId": turn,
                "type": "user",
                "message": {
                    "role": "user",
                    "content": "<task-notification>done</task-notification>",
                },
                "uuid": uuid,
                "timestamp": "2026-07-21T09:15:00.000Z",
                "sessionId": SID,
                "version": "2.1.216",
            }
        )

    in_first = note(json.loads(rows[8])["uuid"], "5e1d0c6a-0000-4000-8000-0000000000e1")
    in_second = note(json.loads(rows[-1])["uuid"], "5e1d0c6a-0000-4000-8000-0000000000e2")
    tree.write_lines("", [*rows[:9], in_first, *rows[9:], in_second])
    add_hidden(bodies, TITLE, source="prompt_suggestion", header=billing(cc_prompt_id=turn))
    shown = inspect(cli, tree, tmp_path, bodies.write())
    expect(shown, "CC-BODY-HIDDEN-AMBIGUOUS", label("provider-response", response_name(TITLE)))


@pytest.mark.parametrize(
    "first",
    [
        {"type": "document", "text": billing(cc_prompt_id=PROMPT_ID)},
        {"type": "text", "text": "You are Claude. " + billing(cc_prompt_id=PROMPT_ID)},
    ],
    ids=["not-a-text-block", "not-at-the-start"],
)
def test_a_billing_header_is_only_a_text_blocks_start(
    cli: Any, tmp_path: Path, first: dict[str, str]
) -> None:
    """The header is the start of the first system block's text: one in a block of another
    type, or further into the text, names no turn (unattributed, not that turn's)."""
    tree, bodies = setup(tmp_path)
    written = json.dumps({"system": [first]}).encode()
    add_hidden(bodies, TITLE, request=written)
    shown = inspect(cli, tree, tmp_path, bodies.write())
    expect(shown, "CC-BODY-HIDDEN-UNATTRIBUTED", label("provider-response", response_name(TITLE)))


def test_a_previous_request_two_tasks_calls_name_is_ambiguous(cli: Any, tmp_path: Path) -> None:
    """A request id the records of two calls of two tasks name (in two files: each file's
    request ids are checked on their own): a hidden call naming it as its previous call is
    refused, not given either task."""
    tree, bodies = setup(tmp_path)
    add_second_turn(tree, bodies)
    rows = tree.lines()
    answer = json.loads(rows[-1])
    answer["requestId"] = C2[1]  # the agent's call's (the first task's) request id
    tree.write_lines("", [*rows[:-1], dump(answer)])
    del bodies.responses[response_name(SECOND)]
    assert bodies.lines is not None
    bodies.lines = [line for line in bodies.lines if line["message_id"] != SECOND[0]]
    add_hidden(bodies, TITLE, source="compact", header=billing(cc_prev_req=C2[1]))
    shown = inspect(cli, tree, tmp_path, bodies.write())
    expect(shown, "CC-BODY-HIDDEN-AMBIGUOUS", label("provider-response", response_name(TITLE)))


@pytest.mark.parametrize(
    ("source", "kind"),
    [("Generate_Session_Title", "title"), ("COMPACT", "compaction"), ("agent:Custom", "other")],
)
def test_a_hidden_calls_kind_is_its_query_source_in_any_case(
    cli: Any, tmp_path: Path, source: str, kind: str
) -> None:
    tree, bodies = setup(tmp_path)
    add_hidden(bodies, TITLE, source=source, header=billing(cc_prompt_id=PROMPT_ID))
    shown = cli("inspect", "--in", str(tree.parent), "--provider-bodies", str(bodies.write()))
    assert shown.code == 0, shown.err
    assert f"hidden calls (provider bodies only), among the model calls: {kind} 1" in shown.out


def test_a_record_of_an_empty_prompt_id_is_no_turn(cli: Any, tmp_path: Path) -> None:
    """A record whose promptId is empty starts no turn: a hidden call whose request names none
    is not given that record's task (an empty id would match a request naming no turn)."""
    tree, bodies = setup(tmp_path)
    rows = tree.lines()
    result = json.loads(rows[7])  # a tool result of the first turn
    tree.write_lines("", [*rows[:7], dump({**result, "promptId": ""}), *rows[8:]])
    add_hidden(bodies, TITLE)
    shown = inspect(cli, tree, tmp_path, bodies.write())
    expect(shown, "CC-BODY-HIDDEN-UNATTRIBUTED", label("provider-response", response_name(TITLE)))


@pytest.mark.parametrize("input_tokens", [0, 300], ids=["no-input", "input"])
def test_a_hidden_stubs_cost_by_kind_is_a_range(
    cli: Any, tmp_path: Path, input_tokens: int
) -> None:
    """A hidden call whose response has no stop reason is usage-incomplete: its kind's cost is
    a range (low below high), and with no input recorded it is unbounded, said by kind."""
    tree, bodies = setup(tmp_path)
    add_hidden(bodies, TITLE, source="compact", header=billing(cc_prompt_id=PROMPT_ID))
    bodies.response(TITLE)["stop_reason"] = None
    bodies.response(TITLE)["usage"] = usage(input_tokens, 12, 0, 0)
    by_card = ["--in", str(tree.parent), "--provider-bodies", str(bodies.write())]
    shown = cli("inspect", "--json", *by_card, "--price-card", "anthropic-2026-11")
    assert shown.code == 0, shown.err
    (kind,) = json.loads(shown.out)["card_cost"]["hidden_by_kind"].values()
    assert kind["model_calls"] == 1
    assert kind["model_calls_unbounded"] == (1 if input_tokens == 0 else 0)
    assert Decimal(kind["low_usd"]) < Decimal(kind["high_usd_known"])
    # a high end is a bound or null: with no input recorded, none is known
    assert kind["high_usd"] == (None if input_tokens == 0 else kind["high_usd_known"])


def test_a_hidden_stub_of_a_model_with_no_max_output_on_the_card_is_counted_by_kind(
    cli: Any, tmp_path: Path
) -> None:
    """A hidden call usage-incomplete, of a model the card gives no max_output_tokens (Opus
    4), whose request gives no max_tokens either: its kind's figure counts it
    (model_calls_no_max_output), as the totals and its model do, and its span says no bound:
    the kind's high end holds only its recorded usage."""
    tree, bodies = setup(tmp_path)
    header = billing(cc_prompt_id=PROMPT_ID)
    add_hidden(bodies, TITLE, source="compact", header=header, max_tokens=None)
    bodies.response(TITLE)["model"] = "claude-opus-4-20250514"
    bodies.response(TITLE)["stop_reason"] = None
    by_card = ["--in", str(tree.parent), "--provider-bodies", str(bodies.write())]
    by_card += ["--price-card", "anthropic-2026-11"]
    shown = cli("inspect", "--json", *by_card)
    assert shown.code == 0, shown.err
    cost = json.loads(shown.out)["card_cost"]
    assert cost["by_model"]["claude-opus-4-20250514"]["model_calls_no_max_output"] == 1
    (kind,) = cost["hidden_by_kind"].values()
    assert (kind["model_calls"], kind["model_calls_no_max_output"]) == (1, 1)
    assert kind["model_calls_unbounded"] == 0
    said = cli("inspect", *by_card)
    assert said.code == 0, said.err
    assert re.search(r"of which hidden calls: compaction \$[0-9.,]+ – no bound", said.out), said.out


def _hidden_stub_chain(
    cli: Any, tmp_path: Path, task_unit: str, max_tokens: object, *, header: str | None = None
) -> tuple[Tree, Path, Path, Path, dict[str, Any]]:
    """A hidden compaction call whose response has no stop reason (12 tokens of output), its
    request's max_tokens `max_tokens`, converted under `task_unit` with the filled contract
    (max_output_tokens 64,000): (tree, bodies folder, contract, bundle path, bundle)."""
    tree, bodies = setup(tmp_path)
    header = header or billing(cc_prompt_id=PROMPT_ID)
    add_hidden(bodies, TITLE, source="compact", header=header, max_tokens=max_tokens)
    bodies.response(TITLE)["stop_reason"] = None
    return _hidden_stub_chain_of(cli, tmp_path, tree, bodies.write(), task_unit)


def _hidden_stub_chain_of(
    cli: Any, tmp_path: Path, tree: Tree, folder: Path, task_unit: str = "session"
) -> tuple[Tree, Path, Path, Path, dict[str, Any]]:
    """`tree` with the bodies in `folder` converted under `task_unit`, template to bundle."""
    work = tmp_path / "run"
    work.mkdir()
    given = ["--provider-bodies", str(folder)]
    template = work / "t.json"
    unit = ["--task-unit", task_unit]
    made = cli("convert", "--in", str(tree.parent), "--template", str(template), *given, *unit)
    assert made.code == 0, made.err
    write_json(work / "c.json", fill(read_json(template)))
    out = work / "b.json"
    args = ["--contract", str(work / "c.json"), "--out", str(out), *given]
    done = cli("convert", "--in", str(tree.parent), *args)
    assert done.code == 0, done.err
    return tree, folder, work / "c.json", out, read_json(out)


@pytest.mark.parametrize("task_unit", ["prompt", "session"])
def test_a_hidden_stubs_request_bounds_its_output(cli: Any, tmp_path: Path, task_unit: str) -> None:
    """SPEC §8.4: a usage-incomplete call's high end takes the request's max_tokens when its
    request is read. An audit: a hidden stub whose request asked for 512 tokens was priced up
    to the contract's 64,000 ($0.32 where $0.003 bounds it). Under either task unit (one task
    reads no request for its ids, but reads a stub's for its bound); the bundle says the bound,
    a reviewer recomputes the cost from it, and verify re-derives it byte for byte."""
    tree, folder, contract, out, bundle = _hidden_stub_chain(cli, tmp_path, task_unit, 512)
    (event,) = hidden_events(bundle)
    assert event["usage_complete"] is False
    assert event["request_max_tokens"] == 512
    assert event["pricing"]["output_tokens_high"] == 512
    width = Decimal(event["cost"]["high"]) - Decimal(event["cost"]["low"])
    assert width == Decimal(512 - 12) * Decimal(PRICES["output"]) / 10**6
    assert _by_hand(event, bundle["pricing"]) == (
        Decimal(event["cost"]["low"]),
        Decimal(event["cost"]["high"]),
    )
    roles = [f["role"] for f in bundle["receipt"]["files"]]
    assert roles.count("provider-request") == 1
    # only this event says a bound: every other is as it was (the golden bundle pins that)
    assert sum("request_max_tokens" in e for e in bundle["events"]) == 1
    verify = ["verify", "--bundle", str(out), "--contract", str(contract)]
    done = cli(*verify, "--in", str(tree.parent), "--provider-bodies", str(folder))
    assert done.code == 0, done.err
    assert "byte for byte" in done.out


def test_a_bound_with_no_request_body_bound_is_refused(cli: Any, tmp_path: Path) -> None:
    """A review: a call moved under a made-up hidden agent, its edges dropped and given a bound
    of 1, narrowed its high end and opened. A bound is read from a request body the bundle
    binds: the same bundle resealed without that file is BUNDLE-HIDDEN-CALLS at its event."""
    from converter.bundle.io import evidence_digest, open_bundle
    from converter.codec.canonical import canonical_bytes
    from converter.errors import Refused

    *_, bundle = _hidden_stub_chain(cli, tmp_path, "session", 512)
    at = next(i for i, e in enumerate(bundle["events"]) if "request_max_tokens" in e)
    files = bundle["receipt"]["files"]
    files[:] = [f for f in files if f["role"] != "provider-request"]
    bundle["receipt"]["counts"]["bound_files"] = len(files)
    bundle["receipt"].pop("evidence_sha256")
    bundle["receipt"]["evidence_sha256"] = evidence_digest(bundle)
    with pytest.raises(Refused) as refused:
        open_bundle(canonical_bytes(bundle))
    assert [(p.code, p.where) for p in refused.value.problems] == [
        ("BUNDLE-HIDDEN-CALLS", f"events/{at}/request_max_tokens")
    ]


def test_one_task_reads_a_stubs_request_for_its_bound_only(cli: Any, tmp_path: Path) -> None:
    """Under --task-unit session a request's ids decide nothing: a stub's request is read for
    its max_tokens, and a billing header that would refuse a per-prompt conversion
    (CC-BODY-REQUEST-SHAPE: an id given twice) refuses nothing there."""
    tree, bodies = setup(tmp_path)
    header = billing(cc_prompt_id=PROMPT_ID) + f" cc_prompt_id={PROMPT_ID};"
    name = add_hidden(bodies, TITLE, source="compact", header=header)
    bodies.response(TITLE)["stop_reason"] = None
    folder = bodies.write()
    per_prompt = inspect(cli, tree, tmp_path, folder)
    expect(per_prompt, "CC-BODY-REQUEST-SHAPE", label("provider-request", name), 1)
    *_, bundle = _hidden_stub_chain(cli, tmp_path / "one", "session", 512, header=header)
    (event,) = hidden_events(bundle)
    assert event["request_max_tokens"] == 512


@pytest.mark.parametrize("max_tokens", [512, None], ids=["request-bound", "no-request-bound"])
def test_a_hidden_stub_a_request_bounds_needs_no_max_output_tokens(
    cli: Any, tmp_path: Path, max_tokens: int | None
) -> None:
    """The request's bound stands in for the contract's: a contract that gives the model no
    max_output_tokens converts, and the template does not ask for one for that call. Without
    the request's bound, the same contract is refused: the call would have no high end."""
    tree, bodies = setup(tmp_path)
    header = billing(cc_prompt_id=PROMPT_ID)
    add_hidden(bodies, TITLE, source="compact", header=header, max_tokens=max_tokens)
    bodies.response(TITLE)["stop_reason"] = None
    given = ["--provider-bodies", str(bodies.write())]
    template = tmp_path / "t.json"
    made = cli("convert", "--in", str(tree.parent), "--template", str(template), *given)
    assert made.code == 0, made.err
    asks = f"max_output_tokens of {HAIKU}" in made.out
    assert asks == (max_tokens is None), made.out
    contract = fill(read_json(template))
    contract["claims"]["pricing"]["models"][HAIKU]["max_output_tokens"] = None
    write_json(tmp_path / "c.json", contract)
    out = tmp_path / "b.json"
    args = ["--contract", str(tmp_path / "c.json"), "--out", str(out), *given]
    done = cli("convert", "--in", str(tree.parent), *args)
    if max_tokens is None:
        assert done.code == 2
        assert "PRICE-MAX-OUTPUT-MISSING" in done.err
        return
    assert done.code == 0, done.err
    (event,) = hidden_events(read_json(out))
    assert event["pricing"]["output_tokens_high"] == 512


def test_inspect_by_card_says_a_hidden_stub_is_bounded_by_its_request(
    cli: Any, tmp_path: Path
) -> None:
    """A docs review: the card's figure said every usage-incomplete call was priced up to the
    card's max_output_tokens, while a hidden stub's width was its request's 500 tokens."""
    tree, bodies = setup(tmp_path)
    add_hidden(bodies, TITLE, source="compact", header=billing(cc_prompt_id=PROMPT_ID))
    bodies.response(TITLE)["stop_reason"] = None
    by_card = ["--in", str(tree.parent), "--provider-bodies", str(bodies.write())]
    shown = cli("inspect", *by_card, "--price-card", "anthropic-2026-12")
    assert shown.code == 0, shown.err
    assert "or a hidden call's up to its request's max_tokens" in shown.out
    cost = json.loads(cli("inspect", "--json", *by_card, "--price-card", "anthropic-2026-12").out)
    (kind,) = cost["card_cost"]["hidden_by_kind"].values()
    width = Decimal(kind["high_usd"]) - Decimal(kind["low_usd"])
    haiku_output = Decimal(5)  # USD per million output tokens on the card
    assert width == (512 - 12) * haiku_output / 10**6


def test_a_hidden_stubs_advisor_pass_takes_no_bound(cli: Any, tmp_path: Path) -> None:
    """A review: each advisor pass of a hidden stub took the stub's request bound, on a complete
    event; the bundle convert wrote was refused by its own evaluate (BUNDLE-COST-MISMATCH). The
    pass is complete: priced as it stands, with no bound."""
    tree, bodies = setup(tmp_path)
    add_hidden(bodies, TITLE, source="compact", header=billing(cc_prompt_id=PROMPT_ID))
    response = bodies.response(TITLE)
    response["stop_reason"] = None
    own = response["usage"]
    parts = ("input_tokens", "output_tokens", "cache_read_input_tokens")
    own["iterations"] = [
        {"type": "message", **{k: own[k] for k in parts}, "cache_creation_input_tokens": 0},
        {"type": "advisor_message", "model": MODEL, "input_tokens": 700, "output_tokens": 40},
    ]
    _, out, bundle = convert_chain(cli, tree, tmp_path / "run", bodies.write())
    events = hidden_events(bundle)
    assert [(e["usage_complete"], e.get("request_max_tokens")) for e in events] == [
        (False, 512),
        (True, None),
    ]
    assert cli("evaluate", "--bundle", str(out)).code in (0, 1)


@pytest.mark.parametrize("damage", ["missing", "symlink", "repeated-key", "not-json"])
def test_one_task_converts_with_a_stubs_request_unusable(
    cli: Any, tmp_path: Path, damage: str
) -> None:
    """A review: under --task-unit session, a hidden stub's request missing or damaged refused a
    session 0.6.12 converted without opening it. It bounds nothing then (the contract's
    max_output_tokens does) and is not bound; verify re-derives the bundle."""
    tree, bodies = setup(tmp_path)
    name = add_hidden(bodies, TITLE, source="compact")  # no ids: one task converts it
    bodies.response(TITLE)["stop_reason"] = None
    if damage == "repeated-key":
        bodies.raw[name] = b'{"max_tokens": 512, "max_tokens": 1}'
    elif damage == "not-json":
        bodies.raw[name] = b'{"max_tokens": 512} trailing'
    else:
        del bodies.raw[name]
    folder = bodies.write()
    if damage == "symlink":
        (folder / name).symlink_to(folder / "index.jsonl")
    tree_, _, contract, out, bundle = _hidden_stub_chain_of(cli, tmp_path, tree, folder)
    (event,) = hidden_events(bundle)
    assert "request_max_tokens" not in event
    assert event["pricing"]["output_tokens_high"] == 64000
    # one read whole is bound as read, damaged or not: a change to it is a change
    read = damage in ("repeated-key", "not-json")
    assert [f["role"] for f in bundle["receipt"]["files"]].count("provider-request") == read
    verify = ["verify", "--bundle", str(out), "--contract", str(contract)]
    verify += ["--in", str(tree_.parent), "--provider-bodies", str(folder)]
    done = cli(*verify)
    assert done.code == 0, done.err
    if read:
        (folder / name).write_bytes(json.dumps({"max_tokens": 512}).encode())
        changed = cli(*verify)
        assert changed.code == 5
        assert "CONTRACT-FILE-CHANGED" in changed.err
        assert "CONTRACT-FILE-REMOVED" not in changed.err


def test_one_task_refuses_a_request_the_index_names_twice(cli: Any, tmp_path: Path) -> None:
    """A review: two hidden stubs whose index lines name one request file were accepted under
    --task-unit session, the first bounded by it; whichever unit, that is ambiguous."""
    tree, bodies = setup(tmp_path)
    second = ("msg_01SecondHiddenCall", "req_01SecondHidden")
    name = add_hidden(bodies, TITLE, source="compact")
    add_hidden(bodies, second, source="compact")
    for call in (TITLE, second):
        bodies.response(call)["stop_reason"] = None
    assert bodies.lines is not None
    bodies.lines[-1]["request_file"] = name
    given = ["--provider-bodies", str(bodies.write()), "--task-unit", "session"]
    shown = cli("inspect", "--in", str(tree.parent), *given)
    assert shown.code == 2
    assert "CC-BODY-DUPLICATE" in shown.err


def test_one_task_refuses_a_stubs_request_it_cannot_read(modes_cli: Any, tmp_path: Path) -> None:
    """A review: a request that could not be read (its bytes unknown) was left out, and the
    session converted: a read error that passes would give another bundle of the same files."""
    tree, bodies = setup(tmp_path)
    name = add_hidden(bodies, TITLE, source="compact")
    bodies.response(TITLE)["stop_reason"] = None
    folder = bodies.write()
    (folder / name).chmod(0)
    shown = modes_cli(
        "inspect",
        "--in",
        str(tree.parent),
        "--provider-bodies",
        str(folder),
        "--task-unit",
        "session",
    )
    assert shown.code == 2, shown.err
    assert "CC-TREE-UNREADABLE" in shown.err


def test_one_task_refuses_a_stubs_request_still_being_written(cli: Any, tmp_path: Path) -> None:
    """A request cut short may be one still being written: a bundle made now would differ from
    one made once it is whole, so it refuses, as every body does."""
    tree, bodies = setup(tmp_path)
    name = add_hidden(bodies, TITLE, source="compact")
    bodies.response(TITLE)["stop_reason"] = None
    bodies.raw[name] = b'{"model": "claude-haiku'
    given = ["--provider-bodies", str(bodies.write()), "--task-unit", "session"]
    shown = cli("inspect", "--in", str(tree.parent), *given)
    assert shown.code == 2
    assert "CC-BODY-REQUEST-UNFINISHED" in shown.err


def test_a_request_bound_below_the_output_recorded_bounds_nothing(cli: Any, tmp_path: Path) -> None:
    """A review: a request whose max_tokens (1) is below the output its response states (12)
    cannot be this call's bound, yet collapsed its interval to the low end. The contract's
    max_output_tokens bounds it instead."""
    *_, bundle = _hidden_stub_chain(cli, tmp_path, "prompt", 1)
    (event,) = hidden_events(bundle)
    assert "request_max_tokens" not in event
    assert event["pricing"]["output_tokens_high"] == 64000


def _reopened(bundle: dict[str, Any], edit: Any) -> list[tuple[str, str | None]]:
    """The refusals of opening `bundle` edited by `edit` and resealed (its digest recomputed,
    as by someone who edits a bundle on purpose); [] when it opens."""
    from converter.bundle.io import evidence_digest, open_bundle
    from converter.codec.canonical import reference_bytes
    from converter.errors import Refused

    body = json.loads(json.dumps(bundle))
    edit(body)
    body["receipt"].pop("evidence_sha256", None)
    body["receipt"]["evidence_sha256"] = evidence_digest(body)
    try:
        open_bundle(reference_bytes(body))
    except Refused as refused:
        return [(p.code, p.where) for p in refused.problems]
    return []


def test_a_request_bound_edited_in_a_bundle_is_refused_on_opening(cli: Any, tmp_path: Path) -> None:
    """A review: a bound written where the converter writes none (a transcript call's event,
    below the output recorded, null), or one that does not price the high end, opened and
    narrowed the interval. Opening a bundle refuses each; as written, it opens."""
    *_, bundle = _hidden_stub_chain(cli, tmp_path, "prompt", 512)
    events = bundle["events"]
    (stub,) = [n for n, e in enumerate(events) if e.get("request_max_tokens")]
    other = next(
        n for n, e in enumerate(events) if e["kind"] == "model" and "request_max_tokens" not in e
    )

    def set_bound(n: int, value: object) -> Any:
        return lambda body: body["events"][n].__setitem__("request_max_tokens", value)

    assert _reopened(bundle, lambda body: None) == []
    cost = [("BUNDLE-COST-MISMATCH", f"events/{stub}/{part}") for part in ("cost", "pricing")]
    assert _reopened(bundle, set_bound(stub, 4096)) == cost  # its cost says 512
    assert _reopened(bundle, lambda body: body["events"][stub].pop("request_max_tokens")) == cost
    misplaced = [("BUNDLE-HIDDEN-CALLS", f"events/{stub}/request_max_tokens")]
    assert _reopened(bundle, set_bound(stub, None)) == misplaced + cost  # priced to 64,000
    below = _reopened(bundle, set_bound(stub, 11))  # it recorded 12 tokens of output
    assert below[0] == misplaced[0]
    placed = [("BUNDLE-HIDDEN-CALLS", f"events/{other}/request_max_tokens")]
    assert _reopened(bundle, set_bound(other, 4096)) == placed


@pytest.mark.parametrize(
    "max_tokens",
    [None, "512", 0, -5, True, 512.0, 10**8],
    ids=["absent", "text", "zero", "negative", "bool", "float", "huge"],
)
def test_a_requests_max_tokens_that_is_no_count_bounds_nothing(
    cli: Any, tmp_path: Path, max_tokens: object
) -> None:
    """A max_tokens that is absent or no whole number from 1 to 10,000,000 (a gateway's own
    shape) is not taken: the contract's max_output_tokens bounds the call, a wider interval,
    never a narrower one, and nothing is refused for it."""
    *_, bundle = _hidden_stub_chain(cli, tmp_path, "prompt", max_tokens)
    (event,) = hidden_events(bundle)
    assert "request_max_tokens" not in event
    assert event["pricing"]["output_tokens_high"] == 64000


def test_a_complete_hidden_calls_request_bounds_nothing(cli: Any, tmp_path: Path) -> None:
    """A call with a stop reason is priced as it stands: its request's max_tokens is not kept,
    and its event has no request_max_tokens."""
    tree, bodies = setup(tmp_path)
    add_hidden(bodies, TITLE, source="compact", header=billing(cc_prompt_id=PROMPT_ID))
    *_, bundle = convert_chain(cli, tree, tmp_path / "run", bodies.write())
    (event,) = hidden_events(bundle)
    assert event["usage_complete"] is True
    assert "request_max_tokens" not in event
    assert event["cost"]["low"] == event["cost"]["high"]


@pytest.mark.parametrize("final", [True, False])
def test_a_hidden_call_of_no_input_is_a_finding(cli: Any, tmp_path: Path, final: bool) -> None:
    """A review: a hidden call whose response counts no input was priced at $0 input with no
    finding when final, and a stub of none left evaluate open (EVAL-COST-UNBOUNDED) with no
    finding naming it. Each is a transcript call's finding now, at its response file; the
    bundle holds one event for each, and evaluate opens the task holding it."""
    tree, bodies = setup(tmp_path)
    add_hidden(bodies, TITLE, source="compact", header=billing(cc_prompt_id=PROMPT_ID))
    bodies.response(TITLE)["usage"] = usage(0, 12, 0, 0)
    if not final:
        bodies.response(TITLE)["stop_reason"] = None
    *_, out, bundle = _hidden_stub_chain_of(cli, tmp_path, tree, bodies.write())
    code = "CC-REC-FINAL-NO-INPUT" if final else "CC-REC-USAGE-INCOMPLETE-NO-INPUT"
    assert {"code": code, "count": 1} in bundle["receipt"]["findings"]
    assert cli("verify", "--bundle", str(out)).code == 0
    report = json.loads(cli("evaluate", "--bundle", str(out), "--format", "json").out)
    assert [t["high_is_bound"] for t in report["tasks"]] == [False]
    assert report["decision"] == "INCOMPLETE"


# --- a resealed bundle's counts held to its events and files -------------------------------


def _resealed_problems(bundle: dict[str, Any]) -> list[tuple[str, str | None]]:
    """What opening `bundle`, edited and its evidence digest recomputed (as anyone can), says:
    nothing when it opens. Unlike `_reopened`, it reseals `bundle` itself, in place: a test
    then writes that resealed bundle out for the CLI."""
    from converter.bundle.io import evidence_digest, open_bundle
    from converter.codec.canonical import canonical_bytes
    from converter.errors import Refused

    bundle["receipt"].pop("evidence_sha256")
    bundle["receipt"]["evidence_sha256"] = evidence_digest(bundle)
    try:
        open_bundle(canonical_bytes(bundle))
    except Refused as refused:
        return [(p.code, p.where) for p in refused.problems]
    return []


SUGGESTION = ("msg_01SuggestionCallNoTranscriptHas", "req_01SuggestionCall")


def test_hidden_calls_are_no_more_than_the_responses_bound(cli: Any, tmp_path: Path) -> None:
    """Each hidden call is a response no transcript call has, one file each (a second response
    of one id refuses, CC-BODY-DUPLICATE), bound as every body is; its advisor passes are events
    of the same file. A bundle counting more hidden calls than the provider-response files it
    binds was not written by a conversion: resealed so, it opened."""
    tree, bodies = setup(tmp_path)
    add_hidden(bodies, TITLE, header=billing(cc_prompt_id=PROMPT_ID))
    add_hidden(
        bodies, SUGGESTION, source="prompt_suggestion", header=billing(cc_prompt_id=PROMPT_ID)
    )
    _, _, bundle = convert_chain(cli, tree, tmp_path / "run", bodies.write())
    assert bundle["receipt"]["hidden_calls"] == 2
    files = bundle["receipt"]["files"]
    assert sum(f["role"] == "provider-response" for f in files) == 6  # four calls', two hidden
    assert _resealed_problems(json.loads(json.dumps(bundle))) == []
    # every response file but one unbound (the index and a response still bound)
    first = next(f for f in files if f["role"] == "provider-response")
    files[:] = [f for f in files if f["role"] != "provider-response" or f is first]
    bundle["receipt"]["counts"]["bound_files"] = len(files)
    assert _resealed_problems(bundle) == [("BUNDLE-HIDDEN-CALLS", "receipt/hidden_calls")]


def _incomplete_finding(bundle: dict[str, Any], code: str) -> int:
    """The place of finding `code` in the bundle's receipt."""
    return next(i for i, f in enumerate(bundle["receipt"]["findings"]) if f["code"] == code)


def test_usage_incomplete_findings_are_held_to_their_events(cli: Any, tmp_path: Path) -> None:
    """Evaluate takes a usage-incomplete call at both ends of its cost (INCOMPLETE where a gate
    falls between). Each is one CC-REC-USAGE-INCOMPLETE, in every version: a bundle resealed
    with the finding dropped, its count changed, or a call's `usage_complete` flipped with its
    cost, bound and counts made to agree, opened and looked cleaner."""
    tree, _ = setup(tmp_path)
    _, out, bundle = convert_chain(cli, tree, tmp_path / "run", None)  # C1 a stub
    at = _incomplete_finding(bundle, "CC-REC-USAGE-INCOMPLETE")
    assert bundle["receipt"]["findings"][at]["count"] == 1
    assert _resealed_problems(json.loads(json.dumps(bundle))) == []

    dropped = json.loads(json.dumps(bundle))
    del dropped["receipt"]["findings"][at]
    assert _resealed_problems(dropped) == [("BUNDLE-COUNT-MISMATCH", "receipt/findings")]
    raised = json.loads(json.dumps(bundle))
    raised["receipt"]["findings"][at]["count"] = 2
    where = f"receipt/findings/{at}/count"
    assert _resealed_problems(raised) == [("BUNDLE-COUNT-MISMATCH", where)]

    flipped = json.loads(json.dumps(bundle))
    stub = event_of(flipped, C1[0])
    stub["usage_complete"] = True
    stub["cost"]["high"] = stub["cost"]["low"]
    stub["pricing"]["output_tokens_high"] = stub["usage"]["output_tokens"]
    flipped["receipt"]["counts"]["usage_incomplete_calls"] = 0
    assert _resealed_problems(flipped) == [("BUNDLE-COUNT-MISMATCH", where)]
    (out.parent / "flipped.json").write_bytes(json.dumps(flipped).encode())
    for command in ("verify", "evaluate"):
        done = cli(command, "--bundle", str(out.parent / "flipped.json"))
        assert done.code == 2, (command, done.err)
        assert f"BUNDLE-COUNT-MISMATCH [{where}]" in done.err


def test_no_input_findings_are_held_to_their_events(cli: Any, tmp_path: Path) -> None:
    """From 0.6.14 a usage-incomplete call that recorded no input, a transcript call's or a
    hidden call's, is one CC-REC-USAGE-INCOMPLETE-NO-INPUT: a bundle resealed without it
    opened. A bundle of 0.6.13 (which did not say a hidden call's) is not held to it."""
    tree, bodies = setup(tmp_path)
    tree.edit_record(CHILD, C1_FINAL_LINE, blind_stub)
    add_hidden(bodies, TITLE, source="compact", header=billing(cc_prompt_id=PROMPT_ID))
    bodies.response(TITLE)["stop_reason"] = None
    bodies.response(TITLE)["usage"] = usage(0, 12, 0, 0)
    del bodies.responses[response_name(C1)]  # C1 stays a stub of no input
    assert bodies.lines is not None
    bodies.lines = [line for line in bodies.lines if line["message_id"] != C1[0]]
    _, _, bundle = convert_chain(cli, tree, tmp_path / "run", bodies.write())
    counts = {f["code"]: f["count"] for f in bundle["receipt"]["findings"]}
    assert counts["CC-REC-USAGE-INCOMPLETE-NO-INPUT"] == 2  # C1's and the hidden call's
    assert counts["CC-REC-USAGE-INCOMPLETE"] == 2
    assert _resealed_problems(json.loads(json.dumps(bundle))) == []

    at = _incomplete_finding(bundle, "CC-REC-USAGE-INCOMPLETE-NO-INPUT")
    one_said = json.loads(json.dumps(bundle))
    one_said["receipt"]["findings"][at]["count"] = 1
    assert _resealed_problems(one_said) == [
        ("BUNDLE-COUNT-MISMATCH", f"receipt/findings/{at}/count")
    ]
    dropped = json.loads(json.dumps(bundle))
    del dropped["receipt"]["findings"][at]
    assert _resealed_problems(dropped) == [("BUNDLE-COUNT-MISMATCH", "receipt/findings")]
    # 0.6.14's first builds did not say a hidden call's (a review): that version's bundle may
    # count it or not, no other count; 0.6.15 on must count it
    one_said["generator"]["version"] = "0.6.14"
    assert _resealed_problems(one_said) == []
    none_said = json.loads(json.dumps(one_said))
    none_said["receipt"]["findings"][at]["count"] = 0
    assert _resealed_problems(none_said) == [
        ("BUNDLE-COUNT-MISMATCH", f"receipt/findings/{at}/count")
    ]
    one_said["generator"]["version"] = "0.6.15"
    assert _resealed_problems(one_said) == [
        ("BUNDLE-COUNT-MISMATCH", f"receipt/findings/{at}/count")
    ]
    one_said["generator"]["version"] = "0.6.13"
    assert _resealed_problems(one_said) == []


def test_a_cut_line_of_this_session_padded_with_nuls_is_not_another_sessions(
    cli: Any, tmp_path: Path
) -> None:
    """A hidden call's index line cut inside its own session id, the rest of the write lost
    and the gap left as NUL bytes (a crash: the file's length grew, its data did not), then
    another session's whole line appended. The cut value reads `<id start>\\0\\0...`, no start
    of this id, and the other record shows another's: the line is taken as another session's
    (CC-BODY-INDEX-TORN, 'Nothing to do'), the hidden call's spend is silently left out, exit
    0 (a review). The cut value is compared up to its first byte no id holds."""
    tree, bodies = setup(tmp_path)
    add_hidden(bodies, TITLE, source="prompt_suggestion", header=billing(cc_prompt_id=PROMPT_ID))
    assert bodies.lines is not None
    ours = json.dumps(bodies.lines.pop()).encode()  # the hidden call's line, written by hand
    folder = bodies.write()
    cut = ours[: ours.index(SID.encode()) + 8] + b"\0" * 64
    other = json.dumps(index_line(("msg_w", "req_011W"), OTHER)).encode()
    with (folder / "index.jsonl").open("ab") as out:
        out.write(cut + other + b"\n")
    shown = inspect(cli, tree, tmp_path, folder)
    assert shown.code == 2, (shown.code, shown.err, shown.report and shown.report["not_read"])
