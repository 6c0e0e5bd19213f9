"""Check a contract against itself and against a fresh reading of the sources (SPEC §7).

Every problem is collected, none stops the search for the next: each check runs on the parts
of the contract it needs (`ContractParts`), so a part that did not validate hides no problem of
another. Locations name only field names, task pseudonyms and allowed names (models, tools,
context keys) — never a value.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel

from converter.contract.model import Contract, Inventory
from converter.contract.read import ContractParts, safe_path, unknown_checks
from converter.errors import CODES, Problem
from converter.firewall.view import BoundFile, Task
from converter.pricing.card import card_problems, partial_card_problems
from converter.pricing.model import PricingProblem, partial_problems, template_problems


def _nulls(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, path)]
    while stack:
        node, where = stack.pop()
        if node is None:
            yield where
        elif isinstance(node, BaseModel):
            for name in type(node).model_fields:
                stack.append((getattr(node, name), (*where, name)))
        elif isinstance(node, dict):
            for key, item in node.items():
                stack.append((item, (*where, key)))


def own_problems(parts: ContractParts) -> list[Problem]:
    """What the contract shows without the sources: null claims, unknown gates, exclusions
    without a reason or with a label, and null, negative, non-finite or mis-ordered prices."""
    problems = null_claims(parts) + exclusion_problems(parts)
    problems += unknown_checks(
        parts.policy.disabled_checks if parts.policy is not None else parts.disabled_checks
    )
    if parts.pricing is not None:
        problems += _as_written(parts, template_problems(parts.pricing))
        problems += card_problems(parts.pricing)
    else:
        problems += _as_written(parts, partial_problems(parts.raw_pricing))
        problems += partial_card_problems(parts.raw_pricing)
    return problems


# Beside a null claim or price whose field the contract does not hold at all (deleted by hand:
# the template writes every field): "still null" would send the user looking for a null.
MISSING = " (the field is missing)"


def _missing(parts: ContractParts, loc: tuple[Any, ...]) -> str:
    return MISSING if loc in parts.absent else ""


def _as_written(parts: ContractParts, found: list[PricingProblem]) -> list[Problem]:
    """The pricing problems as refusals, a field the contract does not hold said to be
    missing; a model's deleted `tiers` once, not as each price of the one tier a model's entry
    defaults to (a walkthrough: five PRICE-NULL at `tiers/0/...`, a list that was not there)."""
    out: list[Problem] = []
    for p in found:
        loc = p.loc()
        if p.tier is not None and _missing(parts, loc[:5]):
            where = PricingProblem(code=p.code, model=p.model, field="tiers").where() + MISSING
            if not any(q.where == where for q in out):
                out.append(Problem(p.code, where=where))
            continue
        out.append(Problem(p.code, where=p.where() + _missing(parts, loc)))
    return out


def null_claims(parts: ContractParts) -> list[Problem]:
    found: list[Problem] = []
    sections = (
        ("outcome_contract", parts.outcome_contract),
        ("baseline", parts.baseline),
        ("policy", parts.policy),
    )
    for section, value in sections:
        if value is not None:
            found += [
                Problem("CONTRACT-CLAIM-NULL", where=safe_path(p) + _missing(parts, p))
                for p in sorted(_nulls(value, ("claims", section)), key=str)
            ]
    excluded = parts.excluded_tasks or {}
    found += [
        Problem("CONTRACT-CLAIM-NULL", where=parts.where(*p))
        for p in parts.raw_nulls
        if not (p[1] == "outcomes" and p[2] in excluded)
    ]
    for task_id, outcome in (parts.outcomes or {}).items():  # in the order written
        if task_id in excluded:
            continue
        found += [
            Problem("CONTRACT-CLAIM-NULL", where=parts.where(*p) + _missing(parts, p))
            for p in sorted(_nulls(outcome, ("claims", "outcomes", task_id)), key=str)
        ]
    return found


def task_claims(parts: ContractParts, tasks: tuple[Task, ...]) -> list[Problem]:
    """Outcomes and exclusions against `tasks`, the sources' task list: an edited task list is
    refused on its own, and must not make every outcome look missing or unknown."""
    ids = {t.id for t in tasks}
    outcomes, excluded = parts.outcome_ids, parts.excluded_ids  # as written: values may not parse
    problems = []
    if outcomes is not None and excluded is not None:
        problems += [
            Problem("CONTRACT-OUTCOME-MISSING", where=parts.where("claims", "outcomes", task_id))
            for task_id in sorted(ids)
            if task_id not in outcomes and task_id not in excluded
        ]
    for field, named in (("outcomes", outcomes), ("excluded_tasks", excluded)):
        for task_id in (task_id for task_id in named or () if task_id not in ids):  # as written
            where = parts.where("claims", field, task_id)
            problems.append(Problem("CONTRACT-OUTCOME-UNKNOWN-TASK", where=where))
    calls = {t.id: t.model_calls for t in tasks}
    # SPEC §5.1: only a prompt no model call followed may be excluded; excluding one that spent
    # would drop its spend from the evaluation without a word.
    problems += [
        Problem("CONTRACT-EXCLUDED-HAS-CALLS", where=parts.where("claims", "excluded_tasks", tid))
        for tid in excluded or ()  # in the order written
        if calls.get(tid, 0) > 0
    ]
    return problems


def exclusion_problems(parts: ContractParts) -> list[Problem]:
    """Each exclusion without a reason, and each excluded task that also carries a label."""
    problems = []
    for task_id, reason in (parts.excluded_tasks or {}).items():  # in the order written
        if reason is None:
            where = parts.where("claims", "excluded_tasks", task_id)
            problems.append(Problem("CONTRACT-EXCLUSION-REASON", where=where))
        outcome = (parts.outcomes or {}).get(task_id)
        if outcome is not None and any(v is not None for v in outcome.model_dump().values()):
            where = parts.where("claims", "outcomes", task_id)
            problems.append(Problem("CONTRACT-EXCLUDED-AND-LABELLED", where=where))
    return problems


def task_differences(
    bound: tuple[Task, ...], now: tuple[Task, ...], ignore: frozenset[str] = frozenset()
) -> list[Problem]:
    """Each field of the contract's task list that is not what the sources say, by location
    (`tasks/0/model_calls`): every field is source-owned, so an edit is named, never quoted.

    `now` must show `started_at` at the contract's timestamp precision, as the template did;
    when that precision is unknown (privacy did not validate), `ignore` holds `started_at`."""
    if len(bound) != len(now):
        return [Problem("CONTRACT-TASKS-MISMATCH", where="tasks")]
    return [
        Problem("CONTRACT-TASKS-MISMATCH", where=f"tasks/{index}/{name}")
        for index, (was, is_now) in enumerate(zip(bound, now, strict=True))
        for name in type(was).model_fields
        if name not in ignore and getattr(was, name) != getattr(is_now, name)
    ]


def check_against_sources(
    parts: ContractParts,
    fresh: Contract,
    ignore: frozenset[str] = frozenset(),
    paths: Mapping[str, str] | None = None,
) -> list[Problem]:
    """Compare the contract's source-owned fields that validated with a template made from the
    sources now (its `source` was compared before they were read: `conversion._checked_bundle`
    reads them as it names, or refuses). Under another key only the key is named: every
    pseudonym differs. A contract made for another session is named once (`other_session`):
    every file, count and task differs, and naming each would only hide that. `paths`: each
    file's local path, by location, as `file_differences` takes them."""
    if parts.key_id is not None and parts.key_id != fresh.key_id:
        return [Problem("CONTRACT-KEY-MISMATCH", where="key_id")]
    if parts.inventory is not None and other_session(parts.inventory, fresh.inventory):
        return [Problem("CONTRACT-OTHER-SESSION", where="inventory/files")]
    if parts.inventory is not None:
        # Made with provider bodies and converted without them, or the other way: every body
        # file, and every call a body completed, would be said to differ; the one cause is.
        was, now = binds_bodies(parts.inventory), binds_bodies(fresh.inventory)
        if was and not now:
            return [Problem("CONTRACT-BODIES-MISSING", where="inventory/files")]
        if now and not was:
            return [Problem("CONTRACT-BODIES-UNEXPECTED", where="inventory/files")]
    problems: list[Problem] = []
    if parts.inventory is not None:
        problems += _inventory_differences(parts.inventory, fresh.inventory, paths)
    if parts.tasks is not None:
        problems += task_differences(parts.tasks, fresh.tasks, ignore)
    if parts.observed is not None and parts.observed != fresh.observed:
        problems.append(Problem("CONTRACT-INVENTORY-MISMATCH", where="observed"))
    return problems


def binds_bodies(inventory: Inventory) -> bool:
    """Whether the inventory binds provider bodies (a response, or a bodies folder's index)."""
    return any(f.role.startswith("provider-") for f in inventory.files)


def other_session(bound: Inventory, fresh: Inventory) -> bool:
    """Whether the contract binds another session: no file of its inventory is the sources'
    main transcript, by keyed label (its name, the session id, keyed) or by digest (the same
    bytes renamed). A session that grew since the template keeps its main transcript's label
    and changes its digest: not another session, but CONTRACT-FILE-CHANGED and what follows.
    Without a main transcript in the fresh inventory nothing is decided here."""
    parents = [f for f in fresh.files if f.role == "parent"]
    if not parents:
        return False
    labels = {f.label for f in bound.files}
    digests = {f.sha256 for f in bound.files}
    return not any(p.label in labels or p.sha256 in digests for p in parents)


def file_differences(
    was: Mapping[str, BoundFile],
    now: Mapping[str, BoundFile],
    paths: Mapping[str, str] | None = None,
) -> list[Problem]:
    """Each file, by label, that changed (role, size or SHA-256), was added or was removed; a
    bound file that is in the tree under another name (`renames`) is said once, renamed, at
    its bound label, not as one file removed and another added (a browser's `excerpt (1).jsonl`
    was told to make a new template, and verify said not to trust the bundle).

    `paths`: `inventory/files/<label>` -> the local relative path of each file now, for
    `--show-paths` (a renamed file's is where it lies now, under its new label)."""
    changed = [label for label in sorted(was.keys() & now.keys()) if was[label] != now[label]]
    added, removed = now.keys() - was.keys(), was.keys() - now.keys()
    renamed = renames({k: was[k] for k in removed}, {k: now[k] for k in added})
    found = [
        *(("CONTRACT-FILE-CHANGED", label, label) for label in changed),
        *(("CONTRACT-FILE-RENAMED", label, renamed[label]) for label in sorted(renamed)),
        *(("CONTRACT-FILE-ADDED", label, label) for label in sorted(added - {*renamed.values()})),
        *(("CONTRACT-FILE-REMOVED", label, label) for label in sorted(removed - renamed.keys())),
    ]
    where_now = paths or {}
    return [
        Problem(
            code,
            where=f"inventory/files/{label}",
            local_path=where_now.get(f"inventory/files/{at}"),
        )
        for code, label, at in found
    ]


def renames(removed: Mapping[str, BoundFile], added: Mapping[str, BoundFile]) -> dict[str, str]:
    """Bound label -> label now, for each file gone from the contract's labels whose role, size
    and SHA-256 are those of exactly one file new to them, and no other gone file's: the same
    bytes under another name. Where two or more gone or new files share those (copies of one
    file, empty files of a role), none of them is paired: which name was which cannot be told
    from the bytes, and a wrong pairing would send the user to rename the wrong file; they stay
    added and removed."""
    gone: dict[tuple[str, int, str], list[str]] = {}
    new: dict[tuple[str, int, str], list[str]] = {}
    for into, files in ((gone, removed), (new, added)):
        for label, f in files.items():
            into.setdefault((f.role, f.size, f.sha256), []).append(label)
    return {
        labels[0]: new[key][0]
        for key, labels in gone.items()
        if len(labels) == 1 and len(new.get(key, ())) == 1
    }


def _finding_differences(bound: Inventory, fresh: Inventory) -> list[Problem]:
    """One problem per finding whose count differs, located by its code (a code is no content:
    the location says a remote agent's metadata was added, not only that something changed)."""
    if bound.findings == fresh.findings:
        return []
    was = {f.code: f.count for f in bound.findings}
    now = {f.code: f.count for f in fresh.findings}
    changed = sorted(code for code in was.keys() | now.keys() if was.get(code) != now.get(code))
    if not changed:  # the same counts listed otherwise (order, a code twice)
        return [Problem("CONTRACT-INVENTORY-MISMATCH", where="inventory/findings")]
    # A code this version does not have is the contract's text, typed there: named by its place
    # in the list, never quoted (a leak hunt: any code-shaped text came back whole).
    place: dict[str, int] = {}
    for index, finding in enumerate(bound.findings):
        place.setdefault(finding.code, index)  # its first place, where a code is listed twice
    return [
        Problem(
            "CONTRACT-INVENTORY-MISMATCH",
            where=f"inventory/findings/{code if code in CODES else place[code]}",
        )
        for code in changed
    ]


def _inventory_differences(
    bound: Inventory, fresh: Inventory, paths: Mapping[str, str] | None
) -> list[Problem]:
    problems: list[Problem] = []
    was = {f.label: f for f in bound.files}
    now = {f.label: f for f in fresh.files}
    # A label listed twice would collapse into `was`: the bundle's receipt copies the list as
    # written, so a forged second entry (another digest, another role) would reach it.
    seen: set[str] = set()
    for index, entry in enumerate(bound.files):
        if entry.label in seen:
            problems.append(
                Problem("CONTRACT-INVENTORY-MISMATCH", where=f"inventory/files/{index}")
            )
        seen.add(entry.label)
    if not problems and was.keys() == now.keys() and list(was) != list(now):
        problems.append(Problem("CONTRACT-INVENTORY-MISMATCH", where="inventory/files"))  # order
    problems += file_differences(was, now, paths)
    for name in type(bound.counts).model_fields:
        if getattr(bound.counts, name) != getattr(fresh.counts, name):
            problems.append(Problem("CONTRACT-COUNT-MISMATCH", where=f"inventory/counts/{name}"))
    if bound.inventory_sha256 != fresh.inventory_sha256:
        problems.append(Problem("CONTRACT-INVENTORY-MISMATCH", where="inventory/inventory_sha256"))
    # What the bundle's receipt copies from the inventory must be what the sources say now: a
    # hand-edited contract must not put its own versions or findings into a bundle.
    for name in ("claude_code_versions", "hidden_calls"):
        if getattr(bound, name) != getattr(fresh, name):
            problems.append(Problem("CONTRACT-INVENTORY-MISMATCH", where=f"inventory/{name}"))
    problems += _finding_differences(bound, fresh)
    return problems
