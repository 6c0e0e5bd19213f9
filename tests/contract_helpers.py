"""Fill a contract template the way a user would, for tests: every null claim gets a value."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from converter.devtools.bench.fill import BASELINE, POLICY, PRICES, fill

__all__ = ["BASELINE", "POLICY", "PRICES", "as_decimal", "fill", "read_json", "write_json"]


def read_json(path: Path) -> Any:
    def no_float(text: str) -> Any:
        raise AssertionError(f"float in artifact: {text}")

    return json.loads(path.read_text(), parse_float=no_float)


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, sort_keys=True, default=str))


def as_decimal(text: str) -> Decimal:
    return Decimal(text)
