"""No float can appear in an artifact: no output model has a float-typed field.

canonical.py relies on this to skip its run-time float walk for models.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from converter.bundle.model import Bundle
from converter.contract.model import Contract
from converter.evaluate.result import Evaluation
from converter.firewall.view import PublicAccount


def _number_types(schema: Any) -> list[str]:
    found = []
    stack = [("", schema)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            if node.get("type") == "number":
                found.append(path)
            stack.extend((f"{path}/{k}", v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((f"{path}/{i}", v) for i, v in enumerate(node))
    return found


@pytest.mark.parametrize("model", [Bundle, Contract, PublicAccount, Evaluation])
def test_no_model_that_leaves_the_tool_has_a_float_field(model: type[BaseModel]) -> None:
    assert _number_types(model.model_json_schema(mode="serialization")) == []
