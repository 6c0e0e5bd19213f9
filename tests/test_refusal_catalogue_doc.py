"""docs/refusals.md is generated from the code table; it must not be stale."""

from __future__ import annotations

from converter.errors import CODES, render_catalogue
from tests.conftest import ROOT


def test_catalogue_is_current() -> None:
    assert (ROOT / "docs" / "refusals.md").read_text() == render_catalogue(), "run `make docs`"


def test_every_code_is_documented() -> None:
    text = render_catalogue()
    assert [c for c in CODES if f"### `{c}`" not in text] == []
