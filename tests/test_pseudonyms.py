"""Dictionary resistance (SPEC §6.2, issue 5): a short prompt cannot be recovered by guessing.

A plain SHA-256 of "fix the bug" would be reversed by anyone hashing a list of likely prompts;
the task's `input_digest` is an HMAC under the pseudonym key instead, so only the key holder can
test a guess.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

from converter.firewall.keys import PseudonymKey
from converter.firewall.pseudonyms import Pseudonymizer
from tests.canary.commands import COMMANDS, Invocation
from tests.conftest import TEST_KEY
from tests.crossing import cross_tree

PROMPT = "fix the bug"
SID = "3f2c9a1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"
OTHER_KEY = PseudonymKey(bytes.fromhex("a5" * 32))


def _record(kind: str, uuid: str, parent: str | None, **body: Any) -> dict[str, Any]:
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "type": kind,
        "uuid": uuid,
        "timestamp": "2026-05-04T10:11:12.345Z",
        "sessionId": SID,
        "version": "2.1.216",
        "cwd": "/home/dev/project",
        **body,
    }


def _call(uuid: str, parent: str, msg: str) -> dict[str, Any]:
    usage = {"input_tokens": 5, "output_tokens": 7, "iterations": []}
    message = {
        "id": msg,
        "model": "claude-opus-4-8",
        "role": "assistant",
        "type": "message",
        "content": [{"type": "text", "text": "done"}],
        "stop_reason": "end_turn",
        "usage": usage,
    }
    return _record("assistant", uuid, parent, message=message, requestId=f"req_{msg}")


def write_prompt_tree(folder: Path, content: Any) -> Path:
    """A one-prompt session: the prompt `content`, then one model call."""
    u1, u2 = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
    records = [
        _record("user", u1, None, message={"role": "user", "content": content}),
        _call(u2, u1, "msg_01FixTheBugCall"),
    ]
    parent = folder / f"{SID}.jsonl"
    parent.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return parent


def plain_digests(prompt: str) -> set[str]:
    """Plain hashes a guesser would try: of the text, of its block form, of common spellings."""
    forms = [
        prompt,
        prompt + "\n",
        json.dumps(prompt),
        json.dumps([{"type": "text", "text": prompt}]),
        json.dumps([{"text": prompt, "type": "text"}], separators=(",", ":")),
    ]
    out: set[str] = set()
    for form in forms:
        data = form.encode()
        out |= {hashlib.sha256(data).hexdigest(), hashlib.md5(data).hexdigest()}
        out.add(hashlib.sha1(data).hexdigest())
    return out


CONTENTS = [PROMPT, [{"type": "text", "text": PROMPT}]]


@pytest.mark.parametrize("content", CONTENTS, ids=["string", "blocks"])
def test_plain_hash_of_short_prompt_appears_nowhere(content: Any, cli: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        project = base / "projects" / "-home-dev-project"
        project.mkdir(parents=True)
        parent = write_prompt_tree(project, content)
        key = base / "k.key"
        key.write_text(TEST_KEY + "\n")
        os.chmod(key, 0o600)
        outputs: dict[str, str] = {}
        for name, runner in COMMANDS.items():
            workdir = Path(tempfile.mkdtemp(dir=base))
            out = runner(Invocation(parent, workdir, key, cli))
            outputs.update(
                {k: v if isinstance(v, str) else v.decode() for k, v in out.texts(name).items()}
            )
        _, public = cross_tree(parent, Pseudonymizer(PseudonymKey(bytes.fromhex(TEST_KEY))))
        outputs["public-account"] = public.model_dump_json()
        assert len(public.tasks) == 1
        for digest in plain_digests(PROMPT):
            for label, text in outputs.items():
                assert digest not in text, label
                assert digest[:16] not in text, label  # nor a truncated form
        assert PROMPT not in "".join(outputs.values())


def test_input_digest_needs_the_key(tmp_path: Path) -> None:
    parent = write_prompt_tree(tmp_path, PROMPT)
    right = PseudonymKey(bytes.fromhex(TEST_KEY))
    _, public = cross_tree(parent, Pseudonymizer(right))
    digest = public.tasks[0].input_digest
    plain = hashlib.sha256(PROMPT.encode()).hexdigest()

    # the key holder can test a guess
    assert Pseudonymizer(right).digest("task-input", plain.encode("ascii")) == digest
    # a guess under another key, or with no key, does not match
    assert Pseudonymizer(OTHER_KEY).digest("task-input", plain.encode("ascii")) != digest
    assert digest != f"hmac-sha256:{plain}"
    assert digest.removeprefix("hmac-sha256:") not in plain_digests(PROMPT)
    assert digest.removeprefix("hmac-sha256:") != hashlib.sha256(plain.encode()).hexdigest()
    # an HMAC keyed with the guessable plain hash itself, or without the domain, differs too
    bare = hmac.new(right.secret, plain.encode(), hashlib.sha256).hexdigest()
    assert digest != f"hmac-sha256:{bare}"
    # and another key yields a different digest of the same tree
    _, other = cross_tree(parent, Pseudonymizer(OTHER_KEY))
    assert other.tasks[0].input_digest != digest
    assert other.tasks[0].id != public.tasks[0].id


def test_equal_prompts_share_a_digest_under_one_key(tmp_path: Path) -> None:
    """The digest still does its job: the same prompt spelled as a string or as one text block
    gives the same keyed digest, so equal inputs can be recognised across bundles of one key."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    pseudo = Pseudonymizer(PseudonymKey(bytes.fromhex(TEST_KEY)))
    _, first = cross_tree(write_prompt_tree(tmp_path / "a", CONTENTS[0]), pseudo)
    _, second = cross_tree(write_prompt_tree(tmp_path / "b", CONTENTS[1]), pseudo)
    assert first.tasks[0].input_digest == second.tasks[0].input_digest


def test_the_inventory_digest_is_keyed() -> None:
    """Was: a plain SHA-256 of the account with exact timestamps, which confirmed a guess at
    the times a contract publishes coarsened (a reviewer found a small session's exact times
    from the bundle alone in 2,212 tries). Keyed, it cannot be recomputed without the key."""
    from converter.codec.canonical import model_sha256
    from converter.contract.template import inventory_sha256
    from tests.conftest import fixture_parent

    parent = fixture_parent("synthetic_tree")
    pseudo = Pseudonymizer(PseudonymKey(bytes.fromhex(TEST_KEY)))
    _, account = cross_tree(parent, pseudo)
    keyed = inventory_sha256(account, pseudo)
    plain = model_sha256(account, exclude=frozenset({"convertible", "refusals"}))
    assert keyed != plain
    assert keyed == inventory_sha256(account, Pseudonymizer(PseudonymKey(bytes.fromhex(TEST_KEY))))
    other = Pseudonymizer(PseudonymKey(bytes(32)))
    _, under_other = cross_tree(parent, other)
    assert inventory_sha256(under_other, other) != keyed
    with pytest.raises(ValueError):  # never a digest of one account under another's key
        inventory_sha256(account, other)


def test_each_kind_is_its_own_domain() -> None:
    """One value named as two kinds gets two unrelated pseudonyms (a task id cannot be matched
    to an event id of the same local id), and each is the HMAC of its kind's domain and the
    value, not of the value alone. Was caught only by a golden contract no longer matching."""
    key = bytes.fromhex(TEST_KEY)
    pseudo = Pseudonymizer(PseudonymKey(key))
    kinds = ("task", "event", "agent", "file", "tool", "agent-type", "model", "run", "edge")
    names = {kind: pseudo.name(kind, "same-local-id") for kind in kinds}  # type: ignore[arg-type]
    hexes = [name.rsplit("-", 1)[1] for name in names.values()]
    assert len(set(hexes)) == len(kinds)
    for kind, name in names.items():
        domain = b"agent-evidence/v1/" + kind.encode() + b"\x00"
        mac = hmac.digest(key, domain + b"same-local-id", "sha256").hex()
        assert name == f"{kind}-{mac[:12]}"


@pytest.mark.parametrize("size", [0, 1, 31, 32, 63, 64, 65, 128, 200])
def test_keyed_digests_are_hmac_sha256(size: int) -> None:
    """The pseudonymizer keys one HMAC and copies it per value: each pseudonym, digest and
    streamed hash is `hmac.digest`'s, for a key shorter than, as long as, and longer than
    SHA-256's 64-byte block (a longer key is hashed first)."""
    key = bytes((7 * i + size) % 256 for i in range(size))
    pseudo = Pseudonymizer(PseudonymKey(key))
    values = ["", "x", "model:msg_01ABC", "é\ud800" * 40, "a" * 1000]
    for value in values:
        raw = value.encode("utf-8", "surrogatepass")
        mac = hmac.digest(key, b"agent-evidence/v1/event\x00" + raw, "sha256").hex()
        assert pseudo.name("event", value) == f"event-{mac[:12]}"
        full = hmac.digest(key, b"agent-evidence/v1/task-input\x00" + raw, "sha256").hex()
        assert pseudo.digest("task-input", raw) == f"hmac-sha256:{full}"
        streamed = pseudo.hasher("inventory")
        streamed.update(raw)
        whole = hmac.digest(key, b"agent-evidence/v1/inventory\x00" + raw, "sha256").hex()
        assert streamed.hexdigest() == whole
