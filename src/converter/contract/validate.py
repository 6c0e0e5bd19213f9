"""Check a completed contract against a fresh reading of the sources (SPEC §7).

Every problem is collected, none stops the search for the next. Locations name only field
names, task pseudonyms and allowed names (models, tools, context keys) — never a value.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from converter.contract.model import CheckId, Contract, SourceOwned
from converter.errors import Problem
from converter.firewall.boundary import may_name
from converter.firewall.view import Task
from converter.jsontext import NotStrictJSON, as_tuples, loads_exact


def _field_names(schema: Any) -> frozenset[str]:
    """Every property name anywhere in a JSON schema."""
    names: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            names.update(node.get("properties", {}))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return frozenset(names)


# What a diagnostic may name (SPEC §6.4 quotes no key): the contract's own field names, keyed
# pseudonyms (task-, tool-, model-, x-<hex>), built-in tool names, billing-context keys and model
# ids. Any other key a user wrote into the contract is `<key>`.
_FIELDS = _field_names(Contract.model_json_schema())


def parse_contract(data: bytes) -> Contract | list[Problem]:
    """Strict JSON (no duplicate keys, no NaN, decimals exact) into the contract model."""
    try:
        raw = as_tuples(loads_exact(data))
    except NotStrictJSON as bad:
        return [Problem("CONTRACT-UNREADABLE", line=bad.line)]
    try:
        # Strict: a boolean must be true/false, a count an integer; money may be a JSON number
        # (read as an exact Decimal above) or a plain decimal string, never "yes" or " 40 ".
        return Contract.model_validate(raw, strict=True)
    except ValidationError as invalid:
        return [
            Problem(
                "CONTRACT-SHAPE",
                where=f"{safe_path(err['loc'], last_is_key=extra(err))} (expected: {expected(err)})",
            )
            for err in invalid.errors()
        ]


# What a field wants, in words. Only the schema's own values are quoted (the allowed literals,
# the bounds): never the input, which may hold anything a user pasted.
_WANTS = {
    "missing": "a value (the field is missing)",
    "extra_forbidden": "no such field",
    "int_type": "an integer",
    "bool_type": "true or false",
    "string_type": "text",
    "dict_type": "an object",
    "tuple_type": "an array",
    "list_type": "an array",
    "decimal_type": "a number or a decimal string",
    "string_pattern_mismatch": "text of the documented form",
    "string_too_long": "shorter text",
    "decimal_max_digits": "fewer digits",
    "decimal_max_places": "fewer decimal places",
    "finite_number": "a finite number",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "enum": "one of the documented values",
    "too_short": "more items",
    "too_long": "fewer items",
    "string_too_short": "longer text",
    "bool_parsing": "true or false",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "decimal_parsing": "a number or a decimal string",
    "is_instance_of": "a value of the documented type",
}
_BOUNDS = {
    "greater_than_equal": ("ge", ">="),
    "greater_than": ("gt", ">"),
    "less_than_equal": ("le", "<="),
    "less_than": ("lt", "<"),
}


def extra(err: Any) -> bool:
    return bool(err.get("type") == "extra_forbidden")


def expected(err: Any) -> str:
    """The plain-words expectation of one pydantic error, e.g. `one of 'a' or 'b'`, `>= 0`."""
    kind = str(err.get("type", ""))
    ctx = err.get("ctx") or {}
    if kind == "literal_error" and "expected" in ctx:
        return f"one of {ctx['expected']}"
    if kind in _BOUNDS:
        key, sign = _BOUNDS[kind]
        if key in ctx:
            return f"a number {sign} {ctx[key]}"
    return _WANTS.get(kind, "a value of the documented type and range")


def _nameable(text: str) -> bool:
    return text in _FIELDS or may_name(text)


def safe_path(loc: tuple[Any, ...] | list[Any], *, last_is_key: bool = False) -> str:
    """A JSON path of what a diagnostic may name; anything else (a key the user typed) is
    `<key>`. `last_is_key`: the last part is a key the schema does not have: always masked."""
    parts = []
    for index, part in enumerate(loc):
        text = str(part)
        if isinstance(part, int):
            parts.append(text)
        elif last_is_key and index == len(loc) - 1:
            parts.append("<key>")
        else:
            parts.append(text if _nameable(text) else "<key>")
    return "/".join(parts)


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


def unknown_checks(contract: Contract) -> list[Problem]:
    """Each disabled gate that `evaluate` does not run: a typo would otherwise pass convert and
    verify and only be refused by evaluate."""
    known = get_args(CheckId)
    return [
        Problem("CONTRACT-UNKNOWN-CHECK", where=f"claims/policy/disabled_checks/{index}")
        for index, name in enumerate(contract.claims.policy.disabled_checks)
        if name not in known
    ]


def null_claims(contract: Contract) -> list[Problem]:
    claims = contract.claims
    found: list[Problem] = []
    for section in ("outcome_contract", "baseline", "policy"):
        found += [
            Problem("CONTRACT-CLAIM-NULL", where=safe_path(p))
            for p in sorted(_nulls(getattr(claims, section), ("claims", section)), key=str)
        ]
    for task_id, outcome in sorted(claims.outcomes.items()):
        if task_id in claims.excluded_tasks:
            continue
        found += [
            Problem("CONTRACT-CLAIM-NULL", where=safe_path(p))
            for p in sorted(_nulls(outcome, ("claims", "outcomes", task_id)), key=str)
        ]
    return found


def check_tasks(contract: Contract, tasks: tuple[Task, ...]) -> list[Problem]:
    """Outcomes and exclusions against `tasks`, the sources' task list: an edited task list is
    refused on its own, and must not make every outcome look missing or unknown."""
    claims = contract.claims
    ids = {t.id for t in tasks}
    problems = []
    for task_id in sorted(ids):
        if task_id not in claims.outcomes and task_id not in claims.excluded_tasks:
            problems.append(
                Problem(
                    "CONTRACT-OUTCOME-MISSING", where=safe_path(("claims", "outcomes", task_id))
                )
            )
    for field, named in (("outcomes", claims.outcomes), ("excluded_tasks", claims.excluded_tasks)):
        for task_id in sorted(set(named) - ids):
            where = safe_path(("claims", field, task_id))
            problems.append(Problem("CONTRACT-OUTCOME-UNKNOWN-TASK", where=where))
    calls = {t.id: t.model_calls for t in tasks}
    for task_id, reason in sorted(claims.excluded_tasks.items()):
        # SPEC §5.1: only a prompt no model call followed may be excluded; excluding one that
        # spent would drop its spend from the evaluation without a word.
        if calls.get(task_id, 0) > 0:
            problems.append(
                Problem(
                    "CONTRACT-EXCLUDED-HAS-CALLS",
                    where=safe_path(("claims", "excluded_tasks", task_id)),
                )
            )
        if reason is None:
            problems.append(
                Problem(
                    "CONTRACT-EXCLUSION-REASON",
                    where=safe_path(("claims", "excluded_tasks", task_id)),
                )
            )
        outcome = claims.outcomes.get(task_id)
        if outcome is not None and any(v is not None for v in outcome.model_dump().values()):
            problems.append(
                Problem(
                    "CONTRACT-EXCLUDED-AND-LABELLED",
                    where=safe_path(("claims", "outcomes", task_id)),
                )
            )
    return problems


def task_differences(bound: tuple[Task, ...], now: tuple[Task, ...]) -> list[Problem]:
    """Each field of the contract's task list that is not what the sources say, by location
    (`tasks/0/model_calls`): every field is source-owned, so an edit is named, never quoted.

    `now` must show `started_at` at the contract's timestamp precision, as the template did."""
    if len(bound) != len(now):
        return [Problem("CONTRACT-TASKS-MISMATCH", where="tasks")]
    return [
        Problem("CONTRACT-TASKS-MISMATCH", where=f"tasks/{index}/{name}")
        for index, (was, is_now) in enumerate(zip(bound, now, strict=True))
        for name in type(was).model_fields
        if getattr(was, name) != getattr(is_now, name)
    ]


def parse_source_owned(data: bytes) -> SourceOwned | None:
    """The source-owned part alone, so a shape error in the claims does not hide a stale
    inventory (every problem is reported, not only the first kind)."""
    try:
        raw = as_tuples(loads_exact(data))
    except NotStrictJSON:
        return None
    if not isinstance(raw, dict):
        return None
    part = {k: v for k, v in raw.items() if k in SourceOwned.model_fields}
    try:
        return SourceOwned.model_validate(part, strict=True)
    except ValidationError:
        return None


def check_against_sources(contract: SourceOwned, fresh: SourceOwned) -> list[Problem]:
    """Compare the contract's source-owned fields with a template made from the sources now."""
    problems: list[Problem] = []
    if contract.key_id != fresh.key_id:
        problems.append(Problem("CONTRACT-KEY-MISMATCH", where="key_id"))
        return problems  # every pseudonym differs under another key: the rest is noise
    if contract.source != fresh.source:
        problems.append(Problem("CONTRACT-SOURCE-MISMATCH", where="source"))
    bound = {f.label: f for f in contract.inventory.files}
    now = {f.label: f for f in fresh.inventory.files}
    for label in sorted(bound.keys() & now.keys()):
        if bound[label] != now[label]:
            problems.append(Problem("CONTRACT-FILE-CHANGED", where=f"inventory/files/{label}"))
    for label in sorted(now.keys() - bound.keys()):
        problems.append(Problem("CONTRACT-FILE-ADDED", where=f"inventory/files/{label}"))
    for label in sorted(bound.keys() - now.keys()):
        problems.append(Problem("CONTRACT-FILE-REMOVED", where=f"inventory/files/{label}"))
    for name in type(contract.inventory.counts).model_fields:
        if getattr(contract.inventory.counts, name) != getattr(fresh.inventory.counts, name):
            problems.append(Problem("CONTRACT-COUNT-MISMATCH", where=f"inventory/counts/{name}"))
    if contract.inventory.inventory_sha256 != fresh.inventory.inventory_sha256:
        problems.append(Problem("CONTRACT-INVENTORY-MISMATCH", where="inventory/inventory_sha256"))
    # What the bundle's receipt copies from the inventory must be what the sources say now: a
    # hand-edited contract must not put its own versions or findings into a bundle.
    for name in ("claude_code_versions", "findings", "hidden_calls"):
        if getattr(contract.inventory, name) != getattr(fresh.inventory, name):
            problems.append(Problem("CONTRACT-INVENTORY-MISMATCH", where=f"inventory/{name}"))
    problems += task_differences(contract.tasks, fresh.tasks)
    if contract.observed != fresh.observed:
        problems.append(Problem("CONTRACT-INVENTORY-MISMATCH", where="observed"))
    return problems
