"""The README keeps a short form of some pages of docs/ (the policy table, the Action's
workflow): where both hold the same text, it must stay the same text (a docs review: facts now
said in two places drift apart)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

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


def _many_sessions_script(fill: str) -> str:
    """The README's "Many sessions" script, with `fill` where the user fills the contracts."""
    block = README.split("Many sessions:", 1)[1].split("```\n", 2)[1]
    before, after = block.split("#   ... fill", 1)
    return f"{before}{fill}\n{after.split(chr(10), 1)[1]}"


def test_the_readme_many_sessions_loop_numbers_only_the_bundles_it_wrote(tmp_path: Path) -> None:
    """A walkthrough: the loop took a number before each convert, so a refused contract left a
    gap, and `bundle 1 of 8` was `session-004.json`, not the `session-001.json` README says."""
    projects = tmp_path / "claude" / "projects"
    for folder, fixture in (("a-first", "rich_tree"), ("b-second", "synthetic_tree")):
        shutil.copytree(ROOT / "fixtures" / fixture, projects / folder)
    # Claude Code 2.0.x keeps a subagent's transcript beside the session's: not a session (a
    # walkthrough: the loop said "no template" for it, with a fix naming subagents/)
    (projects / "b-second" / "agent-0a1b2c3.jsonl").write_text('{"type": "user"}\n')
    work = tmp_path / "work"
    shutil.copytree(ROOT / "contracts" / "examples", work / "contracts" / "examples")
    env = {
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
        "HOME": str(tmp_path / "home"),
        "CLAUDE_CONFIG_DIR": str(projects.parent),
        "AGENT_EVIDENCE_KEY": "de" * 32,  # the key the fixture's filled contract was made under
        "LANG": "C.UTF-8",
    }
    # The first session's template is left unfilled (refused); the second's is filled.
    synthetic = next((ROOT / "fixtures" / "synthetic_tree").glob("*.jsonl")).stem
    filled = ROOT / "fixtures" / "synthetic_contract.json"
    script = _many_sessions_script(f"cp '{filled}' 'contracts.d/b-second--{synthetic}.json'")
    done = subprocess.run(
        ["sh", "-c", script], cwd=work, env=env, capture_output=True, text=True, check=False
    )
    contracts = sorted(p.name for p in (work / "contracts.d").iterdir())
    assert contracts == [
        f"a-first--{next((ROOT / 'fixtures' / 'rich_tree').glob('*.jsonl')).stem}.json",
        f"b-second--{synthetic}.json",
    ]
    assert "no bundle: contracts.d/a-first--1b5e18bf" in done.stderr
    assert "agent-0a1b2c3" not in done.stderr
    assert sorted(p.name for p in (work / "bundles").iterdir()) == ["session-0001.json"]
    # evaluate judged the one bundle written (the fixture's contract decides SCALE)
    assert "Decision: SCALE (exit 0) — 1 task, 0 excluded" in done.stdout
    assert done.returncode == 0, done.stderr


def test_the_readme_counts_the_exceptions_to_every_problem_as_the_commands_page_does() -> None:
    """commands.md's "Refusal messages" grew a third exception to "a run reports every
    problem" (the files the options name, checked first); the README's pointer to it still said
    "the two exceptions" (a docs drift audit of 0.6.22)."""
    commands = (ROOT / "docs" / "commands.md").read_text()
    said = re.findall(r"(\w+) exceptions, on purpose", commands)
    assert len(said) == 1
    pointed = re.findall(r"the (\w+) exceptions to\s+\"every problem\"", README)
    assert pointed == [said[0].lower()]
