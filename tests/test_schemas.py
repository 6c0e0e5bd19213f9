"""The published JSON Schemas, checked by an independent validator (jsonschema) against what
the tool really reads and writes: a team validating a hand-filled contract in an editor or a CI
step must get the tool's verdict, not its own (a SPEC audit: the contract schema called a price
written as a JSON number wrong, which convert takes, and passed `"abc"`, which it refuses)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.conftest import fixture_parent
from tests.contract_helpers import fill, read_json

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = json.loads((ROOT / "contracts" / "conversion-contract.schema.json").read_text())
BUNDLE = json.loads((ROOT / "contracts" / "bundle.schema.json").read_text())
FILLED = json.loads((ROOT / "fixtures" / "synthetic_contract.json").read_text())


def errors(schema: dict[str, Any], doc: Any) -> list[str]:
    validator = jsonschema.Draft202012Validator(schema)
    return ["/".join(map(str, e.absolute_path)) for e in validator.iter_errors(doc)]


def _first_model(doc: dict[str, Any]) -> dict[str, Any]:
    model: dict[str, Any] = next(iter(doc["claims"]["pricing"]["models"].values()))
    return model


def test_the_schemas_are_valid_json_schemas() -> None:
    jsonschema.Draft202012Validator.check_schema(CONTRACT)
    jsonschema.Draft202012Validator.check_schema(BUNDLE)


def test_the_completed_example_contract_and_the_golden_bundle_validate() -> None:
    assert errors(CONTRACT, FILLED) == []
    golden = json.loads((ROOT / "fixtures" / "synthetic_bundle.golden.json").read_text())
    assert errors(BUNDLE, golden) == []


def test_money_as_a_json_number_validates_in_a_contract_as_convert_reads_it() -> None:
    doc = copy.deepcopy(FILLED)
    task = next(iter(doc["claims"]["outcomes"]))
    doc["claims"]["outcomes"][task]["business_value_usd"] = 40
    doc["claims"]["policy"]["min_acceptable_rate"] = 0.8
    _first_model(doc)["tiers"][0]["output"] = 25.5
    assert errors(CONTRACT, doc) == []


@pytest.mark.parametrize(
    ("where", "value"),
    [
        ("price", "abc"),
        ("price", "-1"),
        ("price", -1),
        ("price", " 5"),
        ("rate", "1.5"),
        ("rate", 2),
        ("value", "$40"),
    ],
)
def test_what_convert_refuses_as_a_decimal_the_contract_schema_refuses(
    where: str, value: Any
) -> None:
    doc = copy.deepcopy(FILLED)
    task = next(iter(doc["claims"]["outcomes"]))
    if where == "price":
        _first_model(doc)["tiers"][0]["output"] = value
    elif where == "rate":
        doc["claims"]["policy"]["min_acceptable_rate"] = value
    else:
        doc["claims"]["outcomes"][task]["business_value_usd"] = value
    assert errors(CONTRACT, doc) != []


def test_a_bundle_writes_decimals_as_strings_only() -> None:
    """The bundle's schema is what convert writes: a number where a cost goes is not a bundle."""
    golden = json.loads((ROOT / "fixtures" / "synthetic_bundle.golden.json").read_text())
    event = next(e for e in golden["events"] if e["kind"] == "model")
    event["cost"]["low"] = 0.5
    assert errors(BUNDLE, golden) != []
    event["cost"]["low"] = "0.5 USD"
    assert errors(BUNDLE, golden) != []


# (where, JSON text as written): decimals in every form a person may type, and what convert
# must refuse. The schema must agree with convert on each (a review: "00.5" read, the schema
# refused it).
_WRITTEN = [
    ("rate", '"0.5"'),
    ("rate", '"00.5"'),
    ("rate", '"01"'),
    ("rate", '"1.000"'),
    ("rate", "0.75"),
    ("rate", "1"),
    ("rate", '"1.5"'),
    ("rate", "2"),
    ("rate", '"abc"'),
    ("rate", '"-0.1"'),
    ("price", '"25"'),
    ("price", "25"),
    ("price", "2.5E+1"),
    ("price", '"0025.50"'),
    ("price", '" 5"'),
    ("price", '"5 "'),
    ("price", "-1"),
    ("price", '"-1"'),
    ("price", '"1e3"'),
    ("price", "true"),
    ("value", '"40"'),
    ("value", "40.25"),
    ("value", '"$40"'),
]


@pytest.mark.parametrize(("where", "written"), _WRITTEN)
def test_the_contract_schema_accepts_what_convert_reads_and_no_more(
    cli: Any, tmp_path: Path, where: str, written: str
) -> None:
    parent = fixture_parent("synthetic_tree")
    template = tmp_path / "t.json"
    assert cli("convert", "--in", str(parent), "--template", str(template)).code == 0
    doc = fill(read_json(template))
    task = next(iter(doc["claims"]["outcomes"]))
    marker = "@WRITTEN@"
    if where == "rate":
        doc["claims"]["policy"]["min_acceptable_rate"] = marker
    elif where == "price":
        _first_model(doc)["tiers"][0]["output"] = marker
    else:
        doc["claims"]["outcomes"][task]["business_value_usd"] = marker
    text = json.dumps(doc).replace(f'"{marker}"', written)
    contract = tmp_path / "c.json"
    contract.write_text(text)
    out = tmp_path / "b.json"
    converted = cli("convert", "--in", str(parent), "--contract", str(contract), "--out", str(out))
    assert converted.code in (0, 2), converted.err
    schema_ok = errors(CONTRACT, json.loads(text)) == []
    assert schema_ok == (converted.code == 0), (written, converted.err)


# --- what the commands print -----------------------------------------------------------------

INSPECT = json.loads((ROOT / "contracts" / "inspect.schema.json").read_text())
SCAN = json.loads((ROOT / "contracts" / "scan.schema.json").read_text())


def test_the_output_schemas_are_valid_json_schemas() -> None:
    jsonschema.Draft202012Validator.check_schema(INSPECT)
    jsonschema.Draft202012Validator.check_schema(SCAN)


@pytest.mark.parametrize("tree", ["synthetic_tree", "rich_tree"])
@pytest.mark.parametrize("card", [(), ("--price-card", "anthropic-2026-12")], ids=["", "card"])
def test_inspect_json_validates(tree: str, card: tuple[str, ...], cli: Any) -> None:
    result = cli("inspect", "--in", str(fixture_parent(tree)), "--json", *card)
    assert result.code == 0, result.err
    doc = result.json()
    assert ("card_cost" in doc) == bool(card)
    assert errors(INSPECT, doc) == []


def test_inspect_json_of_a_refused_tree_validates(syn: Any, cli: Any) -> None:
    syn.set_line("", 2, b"not json at all")  # a line in the middle: CC-LINE-*, refused
    result = cli("inspect", "--in", str(syn.parent), "--json")
    assert result.code == 2
    doc = result.json()
    assert doc["refusals"][0]["line"] == 2
    assert errors(INSPECT, doc) == []


def test_the_output_schemas_refuse_free_text() -> None:
    """What the models refuse, the schemas refuse too: a sentence where a label is, a float."""
    report = {
        "convertible": True,
        "key_id": "key-0123456789abcdef",
        "refusals": [],
        "findings": [{"code": "CC-REC-PROGRESS-COPY", "count": 1}],
        "finding_places": {
            "CC-REC-PROGRESS-COPY": {
                "at": [{"file": "parent/file-0123456789ab", "line": 7}],
                "more": False,
            }
        },
        "not_read": [],
        "counts": dict.fromkeys(INSPECT["$defs"]["TreeCounts"]["required"], 0),
        "bound_files": 1,
        "usage": dict.fromkeys(INSPECT["$defs"]["Usage"]["required"], 0),
        "by_model": {},
        "by_agent": [],
        "claude_code_versions": ["2.1.39"],
    }
    assert errors(INSPECT, report) == []
    for path, value in [
        (("claude_code_versions", 0), "written by Alice"),
        (("findings", 0, "code"), "secret words"),
        (("finding_places", "CC-REC-PROGRESS-COPY", "at", 0, "file"), "/home/alice/x.jsonl"),
        (("finding_places", "CC-REC-PROGRESS-COPY", "at", 0, "line"), "line seven"),
        (("key_id",), "alice@example.com"),
        (("bound_files",), 1.5),
    ]:
        doc = copy.deepcopy(report)
        *inner, last = path
        place: Any = doc
        for step in inner:
            place = place[step]
        place[last] = value
        assert errors(INSPECT, doc), path
    doc = copy.deepcopy(report)
    doc["by_model"]["/home/alice/model"] = {"model_calls": 1, "usage": report["usage"]}
    assert errors(INSPECT, doc)
    doc = copy.deepcopy(report)
    doc["finding_places"]["secret words"] = {"at": [], "more": False}
    assert errors(INSPECT, doc)


@pytest.mark.parametrize(("schema", "part"), [("inspect", "CardCost"), ("scan", "TotalCost")])
def test_the_output_schemas_refuse_a_reserved_card_id(schema: str, part: str) -> None:
    """Was: the schemas let `none` and `mixed` through as a card id, which the models refuse:
    reports say them of no card and of several (a review)."""
    document = json.loads((ROOT / "contracts" / f"{schema}.schema.json").read_text())
    card = document["$defs"][part]["properties"]["price_card"]
    assert errors(card, "anthropic-2026-12") == []
    assert errors(card, "team-card.v2") == []
    for reserved in ("none", "mixed", "Team Card"):
        assert errors(card, reserved), reserved


EVALUATION = json.loads((ROOT / "contracts" / "evaluation.schema.json").read_text())


def test_evaluate_json_validates_decided_and_incomplete(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """contracts/evaluation.schema.json against what `evaluate --format json` prints: a
    decision, and an INCOMPLETE one whose reasons carry their sentence and fix."""
    jsonschema.Draft202012Validator.check_schema(EVALUATION)
    golden = ROOT / "fixtures" / "synthetic_bundle.golden.json"
    decided = cli("evaluate", "--bundle", str(golden), "--format", "json")
    assert decided.code == 0, decided.err
    assert errors(EVALUATION, decided.json()) == []
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", "de" * 32)  # the fixture contract's key
    contract = copy.deepcopy(FILLED)
    contract["claims"]["policy"]["min_tasks"] = 5
    path = tmp_path / "c.json"
    path.write_text(json.dumps(contract))
    bundle = tmp_path / "b.json"
    made = cli(
        "convert",
        "--in",
        str(fixture_parent("synthetic_tree")),
        "--contract",
        str(path),
        "--out",
        str(bundle),
    )
    assert made.code == 0, made.err
    incomplete = cli("evaluate", "--bundle", str(bundle), "--format", "json")
    assert incomplete.code == 2
    doc = incomplete.json()
    assert doc["reasons"][0]["text"]
    assert doc["reasons"][0]["fix"]
    assert errors(EVALUATION, doc) == []
    doc["reasons"][0]["note"] = "anything"
    assert errors(EVALUATION, doc)
