"""docs/refusals.md is generated from the code table; it must not be stale."""

from __future__ import annotations

from converter.errors import CODES
from converter.errors.codes import render_catalogue
from tests.conftest import ROOT


def test_catalogue_is_current() -> None:
    assert (ROOT / "docs" / "refusals.md").read_text() == render_catalogue(), "run `make docs`"


def test_every_code_is_documented() -> None:
    text = render_catalogue()
    assert [c for c in CODES if f"### `{c}`" not in text] == []


def test_auxiliary_finding_names_what_the_readme_says_is_omitted() -> None:
    """README's "What it does not do" lists the calls no transcript records; the finding that a
    report shows for them must name the same ones, not a shorter list."""
    readme = (ROOT / "README.md").read_text()
    bullet = readme.split("## What it does not do")[1].split("calls that no transcript records (")[
        1
    ]
    omitted = [part.strip() for part in bullet.split(")")[0].replace("\n", " ").split(",")]
    assert omitted == [
        "session titles",
        "compaction calls outside a compaction agent's transcript",
        "web-search side calls",
    ]
    message = CODES["EVAL-AUXILIARY-NOT-OBSERVED"].message
    assert [part for part in omitted if part not in message] == []
