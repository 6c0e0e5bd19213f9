"""JSON Schemas of the contract, the bundle and the JSON the commands print (inspect, scan,
evaluate), generated from the models (`make schemas`).

A test fails when the checked-in files in contracts/ are stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode

from converter.bundle.model import Bundle
from converter.contract.model import Contract
from converter.evaluate.result import PrintedEvaluation
from converter.run.outputs import InspectReport, ScanReport

# A contract is written by people and read by convert: its schema says what convert reads (a
# price as a decimal string or a JSON number; an editor or a CI step validating a hand-filled
# contract must not call a number wrong). A bundle is written only by convert: its schema says
# what convert writes (decimal strings).
SCHEMAS: dict[str, tuple[type[BaseModel], JsonSchemaMode]] = {
    "conversion-contract.schema.json": (Contract, "validation"),
    "bundle.schema.json": (Bundle, "serialization"),
    # what `inspect --json`, `scan --json` and `evaluate --format json` print
    "inspect.schema.json": (InspectReport, "serialization"),
    "scan.schema.json": (ScanReport, "serialization"),
    "evaluation.schema.json": (PrintedEvaluation, "serialization"),
}


def _keys_closed(node: Any) -> None:
    """A map whose keys have a pattern (`dict[ModelName, ...]`) is written as patternProperties,
    which alone lets any other key through; the tool refuses such a key, so the schema must."""
    if isinstance(node, dict):
        if "patternProperties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
        for value in node.values():
            _keys_closed(value)
    elif isinstance(node, list):
        for value in node:
            _keys_closed(value)


def render(model: type[BaseModel], mode: JsonSchemaMode) -> str:
    schema = model.model_json_schema(mode=mode)
    _keys_closed(schema)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    folder = Path("contracts")
    stale = []
    for name, (model, mode) in SCHEMAS.items():
        text = render(model, mode)
        path = folder / name
        if "--write" in argv:
            path.write_text(text)
        elif not path.exists() or path.read_text() != text:
            stale.append(name)
    for name in stale:
        print(f"stale: contracts/{name} (run `make schemas`)", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
