"""Name and time policy at the firewall crossing (SPEC §6.3, issue 5).

`cross(account, pseudo, Policy(reveal_names=..., timestamps=...))`: built-in tool and agent-type
names cross as they are; MCP tools (`mcp__server__tool`) and plugin or custom agent types cross
as keyed pseudonyms unless `reveal_names` lists them; `timestamps` coarsens every timestamp of
the account to the minute, hour or day.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from converter.firewall.boundary import Policy, cross
from converter.firewall.keys import PseudonymKey
from converter.firewall.names import BUILTIN_AGENT_TYPES, BUILTIN_TOOLS
from converter.firewall.pseudonyms import Pseudonymizer
from converter.firewall.times import coarsen
from converter.reader.model import Account
from converter.run.pipeline import read_tree
from tests.canary.generate import CallPlan, ChildPlan, ToolPlan, TreePlan, TurnPlan, write_tree
from tests.conftest import TEST_KEY

PSEUDO = Pseudonymizer(PseudonymKey(bytes.fromhex(TEST_KEY)))
TOOL_PSEUDONYM = re.compile(r"tool-[0-9a-f]{12}")
TYPE_PSEUDONYM = re.compile(r"agent-type-[0-9a-f]{12}")


def _child(custom: bool) -> ChildPlan:
    return ChildPlan(
        calls=1,
        incomplete=False,
        custom_type=custom,
        legacy_task=False,
        meta=True,
        spawn_depth=False,
    )


PLAN = TreePlan(
    seed=7,
    version="2.1.216",
    turns=(
        TurnPlan(
            prompt="string",
            calls=(
                CallPlan(
                    model="claude-opus-4-8",
                    thinking="none",
                    text=True,
                    tools=(
                        ToolPlan(kind="mcp"),
                        ToolPlan(kind="mcp"),
                        ToolPlan(kind="builtin", name="Read"),
                        ToolPlan(kind="agent", child=_child(custom=True)),
                        ToolPlan(kind="agent", child=_child(custom=True)),
                    ),
                    incomplete=False,
                ),
                CallPlan(
                    model="claude-sonnet-5", thinking="none", text=True, tools=(), incomplete=False
                ),
            ),
            api_error=False,
            attachment=False,
            compaction=False,
            unknown=False,
            bookkeeping=False,
        ),
    ),
)


@pytest.fixture
def account(tmp_path: Path) -> Account:
    tree = write_tree(PLAN, tmp_path)
    acc = read_tree(tree.parent)
    assert acc.convertible
    return acc


def _mcp_names(acc: Account) -> list[str]:
    return sorted(t.name for t in acc.tools.values() if t.name.startswith("mcp__"))


def _custom_types(acc: Account) -> list[str]:
    return sorted(
        s.agent_type
        for s in acc.streams
        if s.agent_type and s.agent_type not in BUILTIN_AGENT_TYPES
    )


def test_default_policy_pseudonymizes_mcp_tools_and_custom_agent_types(account: Account) -> None:
    public = cross(account, PSEUDO, Policy())
    names = {t.name for t in public.tool_events}
    for local in _mcp_names(account):
        assert local not in names
        assert PSEUDO.name("tool", local) in names
    assert all(n in BUILTIN_TOOLS or TOOL_PSEUDONYM.fullmatch(n) for n in names)
    assert "Read" in names
    assert "Agent" in names
    types = {a.agent_type for a in public.agents}
    for local in _custom_types(account):
        assert local not in types
        assert PSEUDO.name("agent-type", local) in types
    assert all(
        t == "main" or t in BUILTIN_AGENT_TYPES or TYPE_PSEUDONYM.fullmatch(t) for t in types
    )


def test_revealed_names_cross_as_they_are_and_only_those(account: Account) -> None:
    mcp_shown, mcp_hidden = _mcp_names(account)
    type_shown, type_hidden = _custom_types(account)
    public = cross(account, PSEUDO, Policy(reveal_names=frozenset({mcp_shown, type_shown})))
    names = {t.name for t in public.tool_events}
    assert mcp_shown in names
    assert mcp_hidden not in names
    assert PSEUDO.name("tool", mcp_hidden) in names
    types = {a.agent_type for a in public.agents}
    assert type_shown in types
    assert type_hidden not in types
    assert PSEUDO.name("agent-type", type_hidden) in types


def test_revealing_a_name_that_cannot_be_a_public_name_pseudonymizes_it(account: Account) -> None:
    """A revealed name must still fit the output type (identifier characters, ≤ 64): one that
    does not is pseudonymized instead of crashing the conversion."""
    long_name = "mcp__" + "x" * 80
    spaced = "mcp__a b__c d"
    first, second = (t for t in account.tools.values() if t.name.startswith("mcp__"))
    first.name, second.name = long_name, spaced
    public = cross(account, PSEUDO, Policy(reveal_names=frozenset({long_name, spaced})))
    names = {t.name for t in public.tool_events}
    assert PSEUDO.name("tool", long_name) in names
    assert PSEUDO.name("tool", spaced) in names


TS = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?Z")
EXPECTED_SHAPE = {
    "exact": TS,
    "minute": re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:00Z"),
    "hour": re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:00:00Z"),
    "day": re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}"),
}


def _truncate(ts: str, precision: str) -> str:
    return {
        "exact": ts,
        "minute": ts[:16] + ":00Z",
        "hour": ts[:13] + ":00:00Z",
        "day": ts[:10],
    }[precision]


@pytest.mark.parametrize("precision", ["exact", "minute", "hour", "day"])
def test_timestamps_are_coarsened_everywhere(account: Account, precision: str) -> None:
    public = cross(account, PSEUDO, Policy(timestamps=precision))
    local_calls = list(account.calls.values())
    assert len(public.model_events) == len(local_calls)
    for event, call in zip(public.model_events, local_calls, strict=True):
        assert call.timestamp is not None
        assert event.timestamp is not None
        assert EXPECTED_SHAPE[precision].fullmatch(event.timestamp), event.timestamp
        assert event.timestamp == _truncate(call.timestamp, precision)
    for task, local in zip(public.tasks, account.tasks, strict=True):
        assert local.timestamp is not None
        assert task.started_at is not None
        assert task.started_at == _truncate(local.timestamp, precision)
    # every timestamp-bearing field of the account, found by walking the dump
    dumped = public.model_dump()
    found = [v for v in _walk(dumped) if isinstance(v, str) and re.match(r"\d{4}-\d{2}-\d{2}", v)]
    assert found
    assert all(EXPECTED_SHAPE[precision].fullmatch(v) for v in found), found


def _walk(value: object) -> list[object]:
    out: list[object] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)
        else:
            out.append(node)
    return out


@pytest.mark.parametrize(
    ("value", "precision", "expected"),
    [
        ("2026-07-22T14:03:51.402Z", "exact", "2026-07-22T14:03:51.402Z"),
        ("2026-07-22T14:03:51.402Z", "minute", "2026-07-22T14:03:00Z"),
        ("2026-07-22T14:03:51.402Z", "hour", "2026-07-22T14:00:00Z"),
        ("2026-07-22T14:03:51.402Z", "day", "2026-07-22"),
        ("2026-07-22T14:03:51Z", "hour", "2026-07-22T14:00:00Z"),
        # anything not in canonical UTC form is dropped, never passed through
        ("2026-07-22T14:03:51+02:00", "exact", None),
        ("2026-07-22 14:03:51", "minute", None),
        ("K3x9 secret text", "day", None),
        (None, "day", None),
        # digits that are not a time: not a calendar instant, or more than milliseconds
        ("9999-99-99T99:99:99.123Z", "exact", None),
        ("4111-11-11T11:11:11.111111Z", "exact", None),
        ("2026-02-30T10:00:00.000Z", "day", None),
    ],
)
def test_coarsen(value: str | None, precision: str, expected: str | None) -> None:
    assert coarsen(value, precision) == expected


@pytest.mark.parametrize(
    ("written", "crosses"),
    [
        ("claude-opus-4-5-20251101", True),
        ("MiniMax-M2.7", True),
        ("anthropic/claude-3.5-sonnet", True),
        ("claude-3-5-sonnet-v2@20241022", True),
        ("us.anthropic.claude-3-5-sonnet-20241022-v2:0", True),
        ("alice.smith42@corp.example.com", False),  # an e-mail
        ("home/alice/.ssh/id_rsa2", False),  # a path
        ("ghp_0123456789abcdefABCDEF0123456789abcd", False),  # a token
        ("alice-laptop", False),  # no version: a host or user name
        ("<synthetic>extra9", False),
        ("c" * 60 + "-1" + "x" * 30, False),  # longer than any model id
        ("AKIAIOSFODNN7EXAMPLE", False),  # a key id: no known family
        ("db01.corp.acme-internal.com", False),  # a host name
        ("10.20.30.40", False),
        ("customer-acme-9", False),
        ("acmecorp/claude-3-opus", False),  # a customer as vendor prefix
        ("sk-ant-api03-" + "a" * 40, False),
        ("gpt-4o", True),
        ("gemini-2.5-pro", True),
        ("jp.anthropic.claude-sonnet-4-5-20250929-v1:0", True),  # Bedrock cross-region
        ("anthropic/claude-3.7-sonnet:thinking", True),  # OpenRouter variant
        ("o3", True),
        ("llama3.gateway.corp.example.com", False),  # a host under a family's name
        ("claude-3-acme-payroll-prod", False),  # a gateway alias: free text after the family
        ("claude-opus-4-8-alicesecret", False),
        ("claude-3-sk-ant-api03-AbCdEf123", False),  # a token glued to a family
        ("o1-internal.corp", False),
        ("claude-3/x", False),
        ("qwen2-hunter2password", False),
        ("claude-fable-5", True),  # a real gateway name in the corpus
        ("claude-mythos-5-1", True),  # a family published transcripts name
        ("claude-mythos-preview", False),  # no version: a pseudonym until a contract reveals it
        ("qwen3-235b-a22b", True),
        ("gpt-4o-2024-08-06", True),
    ],
)
def test_a_model_name_crosses_only_in_the_shape_of_a_model_id(
    written: str, crosses: bool, cli: Any, tmp_path: Path
) -> None:
    import shutil

    from tests.conftest import FIXTURES

    tree = tmp_path / "t"
    shutil.copytree(FIXTURES / "synthetic_tree", tree)
    parent = next(tree.glob("*.jsonl"))
    original = re.search(r'"model":"(claude-[^"]+)"', parent.read_text())
    assert original is not None
    for transcript in tree.rglob("*.jsonl"):
        text = transcript.read_text()
        transcript.write_text(
            text.replace(f'"model":"{original.group(1)}"', f'"model":"{written}"')
        )
    report = json.loads(cli("inspect", "--json", "--in", str(parent)).out)
    assert (written in report["by_model"]) is crosses
    assert (written in json.dumps(report)) is crosses
    if not crosses:  # priced under its pseudonym, and a contract can reveal a plain name
        assert any(m.startswith("model-") for m in report["by_model"])


def test_a_contract_can_reveal_a_plain_model_name() -> None:
    from converter.firewall.names import model_crosses

    assert not model_crosses("gateway-model-7")
    assert model_crosses("gateway-model-7", frozenset({"gateway-model-7"}))
    assert model_crosses("my_model-1", frozenset({"my_model-1"}))  # revealed: any identifier
    assert not model_crosses("db01.acme.com", frozenset({"other-name-1"}))


@pytest.mark.parametrize(
    "name",
    [
        "claude-sonnet-4-20250514",
        "claude-3.5-sonnet",
        "gpt-4.1-nano",
        "gemini-2.5-pro-preview-05-06",
        "gemini-1.5-flash-8b",
        "glm-4.5-air",
        "kimi-k2-instruct",
        "deepseek-v3.1",
        "qwen2.5-coder-32b-instruct",
        "meta-llama/llama-3.1-405b-instruct",
        "mistral-large-2411",
        "codestral-2501",
        "grok-code-fast-1",
        "anthropic.claude-3-5-sonnet-20240620-v1:0",
        "claude-sonnet-4@20250514",
        "gpt-3.5-turbo-16k",
        "gpt-oss-120b",
        "gemini-2.5-flash-image-preview",
        "o3-deep-research",
        "deepseek-r1-distill-llama-70b",
        # Kept when version parts were narrowed to the letters real ids use (diff review):
        "glm-4v-plus",
        "glm-4.5v",
        "glm-4.1v-thinking-flash",
        "glm-z1-air",
        "qwen2.5-0.5b-instruct",
        "deepseek-coder-6.7b-instruct",
        "gpt-4o-mini-search-preview-2025-03-11",
        # Kept when digits were counted (a firewall hunt): the most a real id has.
        "qwen3-235b-a22b-instruct-2507",
        "us.anthropic.claude-3-5-sonnet-20241022-v2:0",
        "claude-3-5-sonnet-v2@20241022",
        "gemini-2.0-flash-001",
        "gpt-4-32k-0613",
        "gpt-3.5-turbo-0125",
        "claude-opus-4-1-20250805-v1:0",
        "qwen3-30b-a3b-instruct-2507",
    ],
)
def test_real_model_ids_of_known_families_cross(name: str) -> None:
    from converter.firewall.names import model_crosses

    assert model_crosses(name)


@pytest.mark.parametrize(
    "name",
    [
        "gpt-4-customer-acme-payments",
        "glm-4-fix-the-payment-bug",
        "claude-3-5-Z2l0aHViX3BhdF8xMjM0NTY3ODkw",
        "claude-3-john.smith",
        "gpt-4-contoso-finance-eastus",
        "claude-3-jd1985",
        "claude-3-j0-o0-h0-n0-s0-m0-i0-t0-h0",  # a name spelled one version-like part at a time
        "gpt-4o-1c-1n-1r-1y-5551-2368",
        "claude-3-5-7-9-11-13-17-19-23",  # more parts than any real id
        # Digits alone are a channel (a firewall hunt): a card number, an address, a number in
        # a date's place, two dates, more digits than any real id.
        "claude-4111-1111-1111-1111",
        "claude-192-168-10-20",
        "claude-12345678",
        "claude-3-20241022-20241023",
        "claude-4111-1111-1111",
        # ... and a review of it: digits hidden in the suffixes, a second date of the other
        # form, a phone number after a date, a day no month has.
        "claude-1111-1111@41111111",
        "claude-411-111-1111-20241022@41111111:999:9999k",
        "claude-3-5-sonnet-20241022@41111111",
        "claude-1111-1111@20241022",
        "gpt-2024-08-06-2024-09-06",
        "claude-20240806-2024-08-07",
        "claude-2024-08-06-20240807",
        "claude-20241022-555-867-5309",
        "claude-3-20241239",
    ],
)
def test_free_text_after_a_family_name_does_not_cross(name: str) -> None:
    from converter.firewall.names import model_crosses

    assert not model_crosses(name)


def test_a_bundle_of_schema_v1_with_a_model_name_that_no_longer_crosses_still_opens() -> None:
    """The output type keeps v1's shape: an older bundle's signature can still be checked."""
    from pydantic import TypeAdapter

    from converter.firewall.types import ModelName

    assert TypeAdapter(ModelName).validate_python("anthropic/claude-3.5-sonnet:beta")
    assert TypeAdapter(ModelName).validate_python("gateway_model-7")


@pytest.mark.parametrize("version", ["2.1.216", "12.345.6789"])
def test_a_version_is_three_short_numbers(version: str) -> None:
    from converter.firewall.boundary import _VERSION

    assert _VERSION.fullmatch(version)
    for smuggled in ("4111.111111.111111.1", "2.1.216.7", "123.1.1", "2.1.12345"):
        assert not _VERSION.fullmatch(smuggled)


def test_unknown_billing_context_values_are_pseudonymized(cli: Any, tmp_path: Path) -> None:
    """A gateway can write any string as service_tier / speed / inference_geo: only documented
    values cross; another becomes a keyed `x-<8 hex>` that still prices."""
    import shutil

    from tests.conftest import FIXTURES

    tree = tmp_path / "t"
    shutil.copytree(FIXTURES / "synthetic_tree", tree)
    parent = next(tree.glob("*.jsonl"))
    assert '"service_tier":"standard"' in parent.read_text()
    for transcript in tree.rglob("*.jsonl"):
        text = transcript.read_text()
        transcript.write_text(
            text.replace('"service_tier":"standard"', '"service_tier":"acmecorp-secret"')
        )
    result = cli("inspect", "--json", "--in", str(parent))
    assert "acmecorp" not in result.out + result.err
    template = tmp_path / "t.json"
    assert cli("convert", "--in", str(parent), "--template", str(template)).code == 0
    contexts = json.loads(template.read_text())["claims"]["pricing"]["models"]
    keys = [k for entry in contexts.values() for k in entry["contexts"]]
    assert keys
    assert all(k.startswith("x-") for k in keys)


def test_a_context_key_with_an_empty_part_is_not_shown() -> None:
    """A diagnostic shows a context key as written only in the template's spelling: an empty
    value is written `empty`, so `standard||us` is a key the user typed, shown as `<key>`."""
    from converter.firewall.names import may_name

    assert may_name("standard|empty|us")
    assert not may_name("standard||us")


def test_four_number_parts_after_a_family_do_not_cross() -> None:
    """A name of many number parts (a year spelled out) is a pseudonym, not a model name (a
    mutation review: dropping the three-part cap survived, every sample being caught by the
    digit caps)."""
    from converter.firewall.names import model_crosses

    assert model_crosses("claude-3-5-haiku-20241022")
    assert not model_crosses("claude-1-9-8-5")
    assert not model_crosses("claude-3-1-2-3-4")
