"""The privacy property (SPEC §6.5, issue 5): generated session trees with a distinct secret in
every string field go through every command; no secret, and no 8-character piece of any source
string that is not an allowed name, appears in stdout, stderr or any written file — for valid
trees and for trees with one broken line. Pseudonyms are stable under one key and differ under
another.

Bounded and deterministic by default (the "default" hypothesis profile in conftest);
`make fuzz` runs the same tests (their names contain "property") with the "fuzz" profile.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import secrets
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.canary.commands import (
    COMMANDS,
    PSEUDONYM_COMMANDS,
    SINGLE_FILE,
    Invocation,
    Output,
    run,
)
from tests.canary.generate import (
    CORRUPTIONS,
    MARKUP,
    Corruption,
    Tree,
    TreePlan,
    corrupt,
    trees,
    unexplained,
    write_tree,
)
from tests.canary.leaks import HEX_GRAM, OutputIndex, describe, index_outputs, leaks

PSEUDONYM = re.compile(r"\b(?:task|event|agent|file|tool|agent-type|model|run|edge)-[0-9a-f]{12}\b")
KEY_ID = re.compile(r"key-[0-9a-f]{16}")


def write_key(path: Path) -> Path:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(secrets.token_bytes(32).hex() + "\n")
    return path


@contextmanager
def planted(plan: TreePlan) -> Iterator[tuple[Tree, Path]]:
    """The planned tree written under a fresh folder, and a scratch folder beside it."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        tree = write_tree(plan, root / "projects")
        scratch = root / "scratch"
        scratch.mkdir()
        yield tree, scratch


def invoke(command: str, tree: Tree, scratch: Path, key: Path, cli: Any, *options: str) -> Output:
    workdir = Path(tempfile.mkdtemp(dir=scratch))
    return COMMANDS[command](Invocation(tree.parent, workdir, key, cli, options))


def assert_no_leak(tree: Tree, command: str, output: Output) -> None:
    assert "Traceback" not in output.stderr
    assert "internal error" not in output.stderr
    index = index_outputs(output.texts(command))
    canaries = {c: index.where(c) for c in tree.secrets if index.where(c)}
    assert not canaries, f"canaries in outputs: {canaries}"
    found = leaks(tree.sources, index, MARKUP)
    assert not found, describe(found)
    # A plain (unkeyed) digest of a source is content too: whoever holds a guess of a prompt
    # can confirm it. Every digest an output carries is keyed, or of a whole file.
    digested = [s for s in tree.sources if _plain_digest_in(s, index)]
    assert not digested, f"plain SHA-256 of {len(digested)} source strings in the outputs"


def _plain_digest_in(source: str, index: OutputIndex) -> bool:
    digest = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
    return any(digest[i : i + HEX_GRAM] in index.hex_grams for i in range(64 - HEX_GRAM + 1))


def test_generated_trees_are_valid_property_selfcheck(cli: Any) -> None:
    """The generator is trusted by the property, so check it: a sample of its trees converts,
    with exactly the calls it planted, and every string it wrote is a recorded source, an
    allowed name or a timestamp."""

    @given(plan=trees())
    def check(plan: TreePlan) -> None:
        with planted(plan) as (tree, scratch):
            assert not unexplained(tree)
            key = write_key(scratch / "k.key")
            report = invoke("inspect-json", tree, scratch, key, cli)
            assert report.code == 0, report.stderr
            counts = json.loads(report.stdout)["counts"]
            assert counts["model_calls"] == tree.model_calls
            assert counts["tool_calls"] == tree.tool_calls
            assert counts["subagents"] == tree.subagents

    check()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_leak_property(command: str, cli: Any) -> None:
    # the single-file source refuses a tree with subagents before it writes anything: it gets
    # trees it converts, so its template, contract and bundle are checked every time
    @given(plan=trees(delegations=command not in SINGLE_FILE))
    def check(plan: TreePlan) -> None:
        with planted(plan) as (tree, scratch):
            key = write_key(scratch / "k.key")
            output = invoke(command, tree, scratch, key, cli)
            assert output.code == 0, output.stderr
            assert_no_leak(tree, command, output)

    check()


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_leak_on_failing_runs_property(command: str, cli: Any) -> None:
    @given(plan=trees(), mode=st.sampled_from(CORRUPTIONS), pick=st.integers(0, 10_000))
    def check(plan: TreePlan, mode: Corruption, pick: int) -> None:
        with planted(plan) as (tree, scratch):
            corrupt(tree, mode, pick)
            key = write_key(scratch / "k.key")
            output = invoke(command, tree, scratch, key, cli)
            if command.startswith("scan"):  # a refused row, the scan itself done
                assert output.code == 0, output.stderr
                if "json" in command:
                    (row,) = json.loads(output.stdout)["sessions"]
                    assert row["status"] != "convertible", (mode, row)
            elif not command.startswith("key"):  # every command that reads the tree refuses it
                assert output.code == 2, (mode, output.stderr)
                assert "refused: " in output.stderr
            assert_no_leak(tree, command, output)

    check()


def test_pseudonyms_keyed_property(cli: Any) -> None:
    """Same key twice: byte-identical output. Another key: no pseudonym in common."""

    @given(plan=trees())
    def check(plan: TreePlan) -> None:
        with planted(plan) as (tree, scratch):
            key_a = write_key(scratch / "a.key")
            key_b = write_key(scratch / "b.key")
            for command in PSEUDONYM_COMMANDS:
                first = invoke(command, tree, scratch, key_a, cli)
                again = invoke(command, tree, scratch, key_a, cli)
                other = invoke(command, tree, scratch, key_b, cli)
                assert first.stdout == again.stdout
                names_a = set(PSEUDONYM.findall(first.stdout))
                names_b = set(PSEUDONYM.findall(other.stdout))
                assert names_a, "expected pseudonyms in the output"
                assert len(names_a) == len(names_b)
                assert not names_a & names_b
                assert KEY_ID.findall(first.stdout) != KEY_ID.findall(other.stdout)
                # the pseudonyms are the only thing a key changes
                assert PSEUDONYM.sub("P", KEY_ID.sub("K", first.stdout)) == PSEUDONYM.sub(
                    "P", KEY_ID.sub("K", other.stdout)
                )
            # The template too: its task ids, file labels and keyed digests move with the key.
            first = _template(invoke("convert-template", tree, scratch, key_a, cli))
            again = _template(invoke("convert-template", tree, scratch, key_a, cli))
            other = _template(invoke("convert-template", tree, scratch, key_b, cli))
            assert first == again
            keyed_a = set(PSEUDONYM.findall(first)) | set(KEYED.findall(first))
            keyed_b = set(PSEUDONYM.findall(other)) | set(KEYED.findall(other))
            assert keyed_a
            assert not keyed_a & keyed_b
            assert _unkeyed(first) == _unkeyed(other)

    check()


# Keyed digests: a task's input, and the inventory's digest (an HMAC written as plain hex).
KEYED = re.compile(r"hmac-sha256:[0-9a-f]{64}|(?<=\"inventory_sha256\": \")[0-9a-f]{64}")


def _template(output: Output) -> str:
    assert output.code == 0, output.stderr
    (text,) = [v for k, v in output.files.items() if k.endswith("t.json")]
    return text.decode() if isinstance(text, bytes) else text


def _unkeyed(text: str) -> str:
    """The template with what the key decides masked: pseudonyms, key id, keyed digests. The
    same positions must hold them under any key (sorted by pseudonym, lists may reorder)."""
    masked = KEYED.sub("D", PSEUDONYM.sub("P", KEY_ID.sub("K", text)))
    return "\n".join(sorted(masked.splitlines()))


def test_leak_checker_finds_planted_fragments(cli: Any) -> None:
    """The checker is not blind: pieces of a secret, an id or a file name pasted into an output
    are found; the output as produced is clean."""
    plan = TreePlan(seed=3, version="2.1.216", turns=())
    with planted(plan) as (tree, scratch):
        key = write_key(scratch / "k.key")
        output = invoke("inspect-text", tree, scratch, key, cli)
        assert_no_leak(tree, "inspect-text", output)
        secret = sorted(tree.secrets)[0]
        for piece in (secret, secret[2:10], tree.session_id[-12:], tree.parent.parent.name[3:11]):
            output.stderr += f" {piece}"
            index = index_outputs(output.texts("inspect-text"))
            assert leaks(tree.sources, index, MARKUP), piece
            output.stderr = output.stderr[: -len(piece) - 1]


def test_non_ascii_session_id_under_session_task_unit_does_not_crash(
    tmp_path: Path, cli: Any
) -> None:
    """Regression: a renamed parent whose records name a non-ASCII session id made the task
    digest crash (exit 70) under --task-unit session; it refuses with a code instead."""
    record = {
        "type": "assistant",
        "uuid": "u2",
        "sessionId": "sé-K7Hd92kLmQ2x",
        "message": {
            "id": "msg_1",
            "model": "claude-opus-4-8",
            "content": [],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
        "timestamp": "2026-01-01T00:00:01.000Z",
    }
    parent = tmp_path / "renamed.jsonl"
    parent.write_text(json.dumps(record) + "\n", encoding="utf-8")
    result = cli("inspect", "--task-unit", "session", "--in", str(parent))
    assert result.code == 2
    assert "CC-TREE-PARENT-NAME" in result.err
    assert "K7Hd92kLmQ2x" not in result.out + result.err


MCP_NAME = re.compile(r"mcp__K[A-Za-z0-9]{12}__K[A-Za-z0-9]{12}")


def test_show_paths_names_reach_stderr_only_property(cli: Any) -> None:
    """`inspect --show-paths` tells the user which local name each pseudonym stands for, on
    stderr: every MCP tool of the tree is listed there with its `tool-<hex>`, while stdout is
    byte-for-byte what it is without the flag and leaks nothing, and no file is written."""

    @given(plan=trees())
    def check(plan: TreePlan) -> None:
        with planted(plan) as (tree, scratch):
            key = write_key(scratch / "k.key")
            workdir = Path(tempfile.mkdtemp(dir=scratch))
            inv = Invocation(tree.parent, workdir, key, cli)
            key_args = ("--key-file", str(key))
            plain = run(inv, "inspect", "--json", "--in", str(tree.parent), *key_args)
            shown = run(
                inv, "inspect", "--json", "--in", str(tree.parent), "--show-paths", *key_args
            )
            assert shown.code == plain.code == 0, shown.stderr
            assert shown.stdout == plain.stdout
            assert not shown.files
            assert not [line for line in plain.stderr.splitlines() if line.startswith("name: ")]
            local = set(MCP_NAME.findall(b"".join(tree.files.values()).decode("utf-8", "replace")))
            listed = dict(
                line[len("name: ") :].split(" = ", 1)
                for line in shown.stderr.splitlines()
                if line.startswith("name: ")
            )
            assert {n for n in listed.values() if n.startswith("mcp__")} == local
            assert all(PSEUDONYM.fullmatch(p) for p, n in listed.items() if n in local)
            stdout_only = Output(shown.code, shown.stdout, "", shown.files)
            assert_no_leak(tree, "inspect-json", stdout_only)

    check()


def test_scan_show_paths_names_reach_stderr_only_property(cli: Any) -> None:
    """`scan --show-paths` adds, on stderr only, each session's keyed label with its paths under
    the projects folder, and the paths of the entries it skipped (docs/privacy.md, "What never
    crosses"; docs/commands.md, `scan`): stdout is byte-for-byte what it is without the flag
    and leaks nothing, no file is written, and every line on stderr is a row's label (or an
    entry's kind) and the tree's own relative paths: with those paths taken out, nothing of the
    tree is left (no id, no content, no other path)."""

    @given(plan=trees())
    def check(plan: TreePlan) -> None:
        with planted(plan) as (tree, scratch):
            key = write_key(scratch / "k.key")
            inv = Invocation(tree.parent, Path(tempfile.mkdtemp(dir=scratch)), key, cli)
            args = ("scan", str(tree.base), "--json", "--jobs", "1", "--key-file", str(key))
            plain = run(inv, *args)
            shown = run(inv, *args, "--show-paths")
            assert shown.code == plain.code == 0, shown.stderr
            assert shown.stdout == plain.stdout
            assert not shown.files
            assert_no_leak(tree, "scan-json", plain)
            assert_no_leak(tree, "scan-json", Output(0, shown.stdout, ""))
            labels = {row["session"] for row in json.loads(plain.stdout)["sessions"]}
            # the other entries the flag lists by their paths (none in these trees, so far)
            labels |= {"skipped", "symlinked", "unreadable"}
            folders = {p.parent.as_posix() for p in map(Path, tree.files)} - {"."}
            places = {*tree.files, *folders, *(f"{d}/" for d in folders)}
            listed: set[str] = set()
            for line in shown.stderr.splitlines():
                label, *paths = line.split("  ")
                assert label in labels, line
                assert paths, line
                assert set(paths) <= places, line
                listed.update(paths)
            assert tree.parent.relative_to(tree.base).as_posix() in listed
            # what --show-paths says beyond the paths it is for: nothing of the tree
            rest = shown.stderr
            for place in sorted(listed, key=len, reverse=True):
                rest = rest.replace(place, "")
            assert_no_leak(tree, "scan-json", Output(0, "", rest))

    check()


def test_a_masked_key_is_named_by_its_place_only_property() -> None:
    """`masked_path` with the document as written: every part is a schema field, an allowed
    name, an index, or `<key #N>` where N is the key's 1-based place in its object; the text of
    a masked key never appears."""
    from converter.contract.read import _FIELDS, safe_path
    from converter.firewall.names import key_places, may_name

    keys = st.text(min_size=1, max_size=12).filter(lambda k: k not in _FIELDS and not may_name(k))

    @given(
        outer=st.lists(keys, min_size=1, max_size=6, unique=True),
        inner=st.lists(keys, min_size=1, max_size=6, unique=True),
        pick=st.tuples(st.integers(0, 5), st.integers(0, 5)),
    )
    def check(outer: list[str], inner: list[str], pick: tuple[int, int]) -> None:
        first, second = outer[pick[0] % len(outer)], inner[pick[1] % len(inner)]
        doc = {"claims": {"outcomes": {key: dict.fromkeys(inner) for key in outer}}}
        places = key_places(doc)
        shown = safe_path(("claims", "outcomes", first, second), places=places)
        where = (outer.index(first) + 1, inner.index(second) + 1)
        assert shown == f"claims/outcomes/<key #{where[0]}>/<key #{where[1]}>"
        # without the document (or a key it does not hold) the place is not guessed
        assert safe_path(("claims", "outcomes", first)) == "claims/outcomes/<key>"
        assert safe_path(("claims", "x", first), places=places) == "claims/<key>/<key>"
        # a key inside an array's object: placed in that object
        listed = key_places({"claims": {"tasks": [{}, dict.fromkeys(inner, 1)]}})
        shown = safe_path(("claims", "tasks", 1, second), places=listed)
        assert shown == f"claims/tasks/1/<key #{where[1]}>"

    check()


# --- names the firewall lets cross, written by a hostile gateway -------------------------------
# The trees above draw models, versions, billing values, stop reasons, tool names and agent types
# from Claude Code's own vocabulary, so they never test the checks that let such a name cross (a
# firewall hunt). Here each of those fields holds a secret in a shape meant to pass a check: a
# model id's, a version's, an address's, with terminal controls and at length.

# A chain's output holds every step's stdout and stderr and every file it wrote: evaluate's
# covers the template, the contract and the bundle; verify's the attestation. The template
# alone too (a refusal after it would leave only its own run checked), and every format of
# scan and evaluate: each writes the names its own way (evaluate's JSON report and its text
# lines; scan --json's rows, and with a card its `by_model`, the one place scan names models).
_NAMED_COMMANDS = (
    "inspect-text",
    "inspect-json",
    "convert-template",
    "evaluate-text",
    "evaluate-markdown",
    "evaluate-json",
    "verify",
    "scan-text",
    "scan-json",
    "scan-priced-json",
)
_DELEGATION_TOOLS = frozenset({"Agent", "Task", "Workflow"})


def _digits(n: int) -> st.SearchStrategy[str]:
    return st.text("0123456789", min_size=n, max_size=n)


@st.composite
def _numbers(draw: st.DrawFn) -> str:
    """A model field made of numbers in places a model id has them (parts, a date, `@`, `:`):
    the value itself is the secret, so the digit budget is tested, not only the grammar (a
    review: with letters alone, removing the budget left the property passing)."""
    date = draw(st.sampled_from(("20241022", "2024-08-06", "20250929")))
    four = [draw(_digits(4)) for _ in range(4)]
    shape = draw(
        st.sampled_from(
            (
                "claude-{0}-{1}-{2}-{3}",
                "claude-3-{0}-{1}-{2}",
                "claude-{0}-{1}@{date}",
                "claude-3-5-sonnet-{date}@{0}{1}",
                "claude-{date}-{a}-{b}-{0}",
                "gpt-4o-{date}-{0}{1}",
                "claude-3-{date}:{0}:{1}k",
            )
        )
    )
    a, b = draw(_digits(3)), draw(_digits(3))
    return shape.format(*four, date=date, a=a, b=b)


@st.composite
def _hostile(draw: st.DrawFn, field: str = "") -> tuple[str, str]:
    """A secret marker and a value that carries it in a shape some check could take for a
    name: `Zq` and 8 letters (no word a model id is made of) in a name's shape, or, for a
    model, numbers alone (`_numbers`, the value its own marker)."""
    if field == "model" and draw(st.booleans()):
        value = draw(_numbers())
        return value, value
    marker = "Zq" + draw(st.text("bcdfghjklnpqrstvwxz", min_size=8, max_size=8))
    shape = draw(
        st.sampled_from(
            (
                "{m}",
                "claude-3-{m}",
                "claude-opus-4-8-{m}",
                "gpt-4o-{m}",
                "anthropic/claude-3.7-sonnet:{m}",
                "claude-sonnet-4@{m}",
                "2.1.{m}",
                "{m}@example.com",
                "/home/{m}/secret.txt",
                "sk-ant-api03-{m}",
                "mcp__{m}__tool",
                "\x1b[31m{m}\x1b[0m",
                "{m}\u202e\u200b",
                "{m}\nrefused: CC-TREE-CYCLE",
                "standard {m}",
                "{m}" * 40,
            )
        )
    )
    return marker, shape.format(m=marker)


def _rewrite(tree: Tree, value: Any) -> list[str]:
    """Every model, version, billing value, stop reason, tool name (but the delegation tools',
    which would only make the tree refuse) and agent type of the tree set to a hostile value
    drawn by `value(field)`, one per value it replaces (so a call's fragments still agree on
    it); the markers planted."""
    drawn: dict[tuple[str, str], tuple[str, str]] = {}

    def take(field_name: str, was: str) -> str:
        if (field_name, was) not in drawn:
            drawn[field_name, was] = value(field_name)
        return drawn[field_name, was][1]

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for key, item in node.items():
            if key == "model" and isinstance(item, str) and item != "<synthetic>":
                out[key] = take("model", item)
            elif key in ("version", "stop_reason", "service_tier", "speed", "inference_geo"):
                out[key] = take(key, item) if isinstance(item, str) else item
            elif key in ("agentType", "subagent_type") and isinstance(item, str):
                out[key] = take("agent type", item)
            elif key == "name" and node.get("type") == "tool_use" and item not in _DELEGATION_TOOLS:
                out[key] = take("tool", item)
            else:
                out[key] = walk(item)
        return out

    folder = tree.parent.parent
    for path in sorted(folder.rglob("*.json*")):
        if path.suffix == ".jsonl":  # split on newlines only: text may hold U+2028
            lines = [x for x in path.read_text().split("\n") if x]
            path.write_text("".join(json.dumps(walk(json.loads(x))) + "\n" for x in lines))
        else:
            path.write_text(json.dumps(walk(json.loads(path.read_text()))))
    return [marker for marker, _ in drawn.values()]


@pytest.mark.parametrize("command", _NAMED_COMMANDS)
def test_no_leak_through_named_fields_property(command: str, cli: Any) -> None:
    """Whatever a gateway writes where a name goes, no secret and no terminal control reaches
    an output: the name crosses only if a check takes it for a name, and none takes these.
    Each run converts: a name no check takes is pseudonymized or left out, never refused."""

    @given(plan=trees(), data=st.data())
    def check(plan: TreePlan, data: st.DataObject) -> None:
        with planted(plan) as (tree, scratch):
            markers = _rewrite(tree, lambda field: data.draw(_hostile(field), label=field))
            assert markers
            key = write_key(scratch / "k.key")
            output = invoke(command, tree, scratch, key, cli)
            # Each hostile name stands for one name throughout, so the tree still converts:
            # the names went all the way to the bundle, the attestation and the reports.
            if command.startswith("evaluate"):
                assert any(name.endswith("/b.json") for name in output.files), output.stderr
            else:
                assert output.code == 0, output.stderr
            assert "Traceback" not in output.stderr
            assert "internal error" not in output.stderr
            texts = output.texts(command)
            for label, text in texts.items():
                body = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
                lowered = body.lower()
                found = [m for m in markers if m.lower() in lowered]
                assert not found, f"{label} holds {found[:3]}"
                if label.endswith((":stdout", ":stderr")):
                    assert "\x1b" not in body, label
                    assert "\u202e" not in body, label
            if command in ("scan-json", "scan-priced-json"):  # the tree's account, no refusal
                (row,) = json.loads(output.stdout)["sessions"]
                assert row["status"] == "convertible", row

    check()


# --- provider bodies: their content is content too (SPEC §6.5 names body contents) -------------


def _final_calls(tree: Tree) -> dict[str, tuple[str, str, dict[str, Any]]]:
    """message id -> (request id, model, usage of its last fragment) over the tree's transcripts."""
    calls: dict[str, tuple[str, str, dict[str, Any]]] = {}
    for path in sorted(tree.base.rglob("*.jsonl")):
        for line in path.read_bytes().splitlines():
            record = json.loads(line)
            message = record.get("message")
            if record.get("type") != "assistant" or not isinstance(message, dict):
                continue
            ident, request = message.get("id"), record.get("requestId")
            if isinstance(ident, str) and isinstance(request, str) and message.get("usage"):
                calls[ident] = (request, message["model"], message["usage"])
                if message.get("stop_reason") is None:  # a stub: its response would complete it
                    del calls[ident]  # (with the output an Agent result states, for a child's)
    return calls


def _bodies(tree: Tree, folder: Path, rng: random.Random) -> None:
    """A bodies folder as Claude Code writes it for this session, a secret in every free place
    (content, unknown keys, the index's free fields, a request file) and a hidden call too,
    whose request (a billing header naming no turn) is read."""

    def secret() -> str:
        return tree.new_secret(rng)

    folder.mkdir()
    lines = []
    calls = list(_final_calls(tree).items())
    usage = {"input_tokens": 3, "output_tokens": 5}
    hidden = (f"msg_{secret()}", (f"req_{secret()}", "claude-haiku-4-5-20251001", usage))
    for message_id, (request_id, model, usage) in [*calls, hidden]:
        response = {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": secret()}],
            "stop_reason": "end_turn",
            "usage": usage,
            secret(): {"note": secret()},
        }
        name = f"{request_id}.response.json"
        (folder / name).write_text(json.dumps(response))
        request = f"{secret()}.request.json"
        system: Any = secret()
        if message_id == hidden[0]:  # as Claude Code writes it: a billing header of secrets
            header = f"x-anthropic-billing-header: cc_version={secret()}; cch={secret()};"
            system = [{"type": "text", "text": header}, {"type": "text", "text": secret()}]
        (folder / request).write_text(json.dumps({"system": system, "messages": [secret()]}))
        lines.append(
            {
                "timestamp": "2026-07-21T09:14:05.463Z",
                "session_id": tree.session_id,
                "query_source": secret(),
                "model": model,
                "request_id": request_id,
                "message_id": message_id,
                "message_uuid": None,
                "request_file": request,
                "response_file": name,
                secret(): secret(),
            }
        )
    (folder / "index.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


# Every command that reads the bodies, in every format: their content must not reach a
# contract, a bundle, an attestation, a report or a re-derivation's diagnostics either.
_BODIES_COMMANDS = (
    "inspect-json",
    "inspect-text",
    "convert-template",
    "convert-contract",
    "evaluate-text",
    "evaluate-markdown",
    "evaluate-json",
    "verify",
)


@pytest.mark.parametrize("command", _BODIES_COMMANDS)
def test_no_leak_through_provider_bodies_property(command: str, cli: Any) -> None:
    @given(plan=trees(), seed=st.integers(0, 2**32 - 1))
    def check(plan: TreePlan, seed: int) -> None:
        with planted(plan) as (tree, scratch):
            key = write_key(scratch / "k.key")
            bodies = scratch / "bodies"
            _bodies(tree, bodies, random.Random(seed))
            # given wherever the tree is read: both conversions and verify's re-derivation
            # (a contract made with bodies refuses a conversion without them); the hidden call
            # names no turn (as a session title's does): the session is its task
            options = ("--provider-bodies", str(bodies), "--task-unit", "session")
            output = invoke(command, tree, scratch, key, cli, *options)
            assert output.code == 0, output.stderr
            said = output.stdout + "".join(
                f.decode("utf-8", "replace") for f in output.files.values()
            )
            assert "CC-BODY-HIDDEN-CALL" in said or command == "inspect-text"
            if command.startswith(("evaluate", "verify", "convert-contract")):
                # the hidden call, a body's own, is in the bundle the command was given
                (bundle,) = [v for k, v in output.files.items() if k.endswith("/b.json")]
                assert b"CC-BODY-HIDDEN-CALL" in bundle
            if command == "inspect-json":  # every response and the index were read and bound
                bound = json.loads(output.stdout)["provider_files"]
                # (no request: one task, a request decides nothing and is not opened; what a
                # read request can say is test_provider_bodies' firewall test's)
                assert bound == len(list(bodies.glob("*.response.json"))) + 1
            assert_no_leak(tree, command, output)

    check()
