"""The README keeps a short form of some pages of docs/ (the policy table, the Action's
workflow): where both hold the same text, it must stay the same text (a docs review: facts now
said in two places drift apart)."""

from __future__ import annotations

import re

from tests.conftest import ROOT

README = (ROOT / "README.md").read_text()


def _policy_rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(r"\s*\| `(policy|baseline)\.", line)]


def _yaml_blocks(text: str) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", text, re.S)


def test_the_policy_table_is_the_same_in_the_readme_and_in_the_contract_page() -> None:
    rows = _policy_rows(README)
    assert len(rows) == 14  # every policy and baseline field
    assert rows == _policy_rows((ROOT / "docs" / "contract.md").read_text())


def test_the_actions_workflow_is_the_same_in_the_readme_and_in_the_action_page() -> None:
    (readme,) = _yaml_blocks(README)
    assert "uses: <owner>/agent-evidence@" in readme
    assert readme == _yaml_blocks((ROOT / "docs" / "action.md").read_text())[0]


def test_every_page_the_readme_links_exists_and_every_page_is_linked() -> None:
    linked = set(re.findall(r"\]\((docs/[a-z-]+\.md)(?:#[a-z0-9-]+)?\)", README))
    pages = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    assert linked <= pages, linked - pages
    assert pages <= linked, pages - linked


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to -."""
    kept = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return kept.replace(" ", "-")


def test_every_anchor_the_readme_links_is_a_heading_of_its_page() -> None:
    links = re.findall(r"\]\((docs/[a-z-]+\.md)#([a-z0-9-]+)\)", README)
    assert links
    for page, anchor in links:
        text = (ROOT / page).read_text()
        headings = {_slug(h) for h in re.findall(r"^#+ (.+)$", text, re.M)}
        assert anchor in headings, (page, anchor)
