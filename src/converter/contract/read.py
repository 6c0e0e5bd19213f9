"""Read a contract's bytes (SPEC §7): strict JSON into the contract model, and, when the whole
does not validate, each part on its own, so that one bad part hides no other part's problems.

Locations name only field names, keyed pseudonyms and allowed names — never a value, nor a key
the user typed (SPEC §6.4).
"""

from __future__ import annotations

import codecs
import difflib
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, get_args

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

from converter.codec.jsontext import NotStrictJSON, as_tuples, is_json_lines, loads_exact
from converter.contract.model import (
    BaselineClaim,
    CheckId,
    Claims,
    Contract,
    ExclusionReason,
    Inventory,
    Observed,
    OutcomeClaim,
    OutcomeContract,
    PolicyClaim,
    Preset,
    Privacy,
    Source,
    SourceOwned,
)
from converter.errors import Problem, Refused
from converter.files import read_contract_file, read_input
from converter.firewall.names import key_places, masked_path, schema_field_names
from converter.firewall.view import Task
from converter.pricing.model import PricingTemplate


@dataclass(frozen=True, slots=True)
class ContractParts:
    """A contract read part by part. `contract` is the whole when it validates; otherwise
    `problems` names every shape error and each part that validated on its own is set (None:
    the part did not validate, and its problems are among `problems`)."""

    problems: tuple[Problem, ...]
    contract: Contract | None = None
    source: Source | None = None
    key_id: str | None = None
    inventory: Inventory | None = None
    tasks: tuple[Task, ...] | None = None
    observed: Observed | None = None
    outcomes: dict[str, OutcomeClaim] | None = None
    excluded_tasks: dict[str, ExclusionReason | None] | None = None
    outcome_contract: OutcomeContract | None = None
    pricing: PricingTemplate | None = None
    baseline: BaselineClaim | None = None
    policy: PolicyClaim | None = None
    privacy: Privacy | None = None
    # The policy's disabled gates as written, when the policy as a whole did not validate: an
    # unknown gate is still reported beside the shape error (SPEC §7: every problem).
    disabled_checks: tuple[str | None, ...] = ()
    # The null claims of the claim sections that did not validate, found in the JSON as
    # written: a shape error beside them does not hide them until the next run.
    raw_nulls: tuple[tuple[Any, ...], ...] = ()
    # The task ids `outcomes` and `excluded_tasks` name as written (None: not an object): a
    # missing or unknown task is named even when a value beside it does not validate.
    # In the order written (a masked id is named by its place: `<key #N>`).
    outcome_ids: tuple[str, ...] | None = None
    excluded_ids: tuple[str, ...] | None = None
    # The pricing section as written, when it did not validate as a whole (its parts' null and
    # negative prices are still named: `pricing.model.partial_problems`).
    raw_pricing: Any = None

    # Each key of the contract as written, by its path: its place in its object (`key_places`).
    places: Mapping[tuple[Any, ...], int] = field(default_factory=dict)
    # The claims' fields the schema has and the contract does not hold (deleted by hand: a
    # template writes every field), of the parts that validated: their default is no value
    # written, and a refusal says so (`_absent`).
    absent: frozenset[tuple[Any, ...]] = frozenset()

    def where(self, *loc: Any) -> str:
        """`safe_path` of a path into the contract: a key the firewall does not let a message
        quote (a mistyped task id) is named by its place as written, `<key #N>`."""
        return safe_path(loc, places=self.places)


_OWNED = ("source", "key_id", "inventory", "tasks", "observed")
_CLAIMS = tuple(Claims.model_fields)


def _adapter(field: FieldInfo) -> TypeAdapter[Any]:
    hint: Any = field.annotation
    for constraint in field.metadata:  # e.g. key_id's pattern
        hint = Annotated[hint, constraint]
    return TypeAdapter(hint)


_PARTS: dict[str, tuple[FieldInfo, TypeAdapter[Any]]] = {
    name: (field, _adapter(field))
    for model, names in ((SourceOwned, _OWNED), (Claims, _CLAIMS))
    for name, field in model.model_fields.items()
    if name in names
}


def _contract_json(data: bytes) -> Any:
    """The contract's strict JSON, or the one problem that keeps the file from being a
    contract at all (not strict JSON, or another of this tool's files), as a list."""
    if data.startswith(codecs.BOM_UTF8):  # Notepad writes one; the transcript reader takes it
        data = data[len(codecs.BOM_UTF8) :]
    try:
        raw = as_tuples(loads_exact(data))
    except NotStrictJSON as bad:
        if is_json_lines(data):  # a session's transcript, given as the contract
            return [Problem("CONTRACT-IS-A-TRANSCRIPT")]
        # An editor's UTF-16 (its byte-order mark first) is wrong from the first line on: say
        # so, or the fix would read as "the file could not be read at all" (an operations
        # review).
        utf16 = data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
        return [Problem("CONTRACT-UNREADABLE", line=1 if utf16 else bad.line)]
    if _is_bundle(raw):  # every field would be "no such field": name the mix-up instead
        return [Problem("CONTRACT-IS-A-BUNDLE")]
    if _is_preset(raw):  # the team's --policy file: the same, one line instead of ten
        return [Problem("CONTRACT-IS-A-POLICY-FILE")]
    return raw


def not_a_contract(data: bytes) -> list[Problem]:
    """What keeps the file from being a contract at all (`read_contract`'s list), said before
    the sources are read with the other problems of the files the options name; [] for one
    that is (its shape and claims are checked with the sources)."""
    raw = _contract_json(data)
    return raw if isinstance(raw, list) else []


def contract_file(path: Path) -> bytes:
    """The contract's bytes, or what keeps the file from being a contract at all (not strict
    JSON: a hand edit's stray comma; a bundle, a policy file or a transcript given instead),
    said with the other options' problems before the sources are read (convert --contract,
    verify --contract): it was said a run after a mistyped key path, and the tree's own
    problems were never said beside it."""
    data = read_contract_file(path)
    problems = not_a_contract(data)
    if problems:
        raise Refused(problems)
    return data


def read_contract(data: bytes) -> ContractParts | list[Problem]:
    """The contract, or its parts and every shape problem; a list when it is not strict JSON
    (no duplicate keys, no NaN, decimals exact) at all."""
    raw = _contract_json(data)
    if isinstance(raw, list):
        return raw
    try:
        # Strict: a boolean must be true/false, a count an integer; money may be a JSON number
        # (read as an exact Decimal above) or a plain decimal string, never "yes" or " 40 ".
        contract = Contract.model_validate(raw, strict=True)
    except ValidationError as invalid:
        errors = [err for err in invalid.errors() if not _unknown_check(err)]
        places = key_places(raw)
        return _parts(raw, tuple(_shape(err, places) for err in errors), places)
    claims = {name: getattr(contract.claims, name) for name in _CLAIMS}
    owned = {name: getattr(contract, name) for name in _OWNED}
    outcome_ids, excluded_ids = _task_ids(raw)
    return ContractParts(
        (),
        contract,
        **owned,
        **claims,
        outcome_ids=outcome_ids,
        excluded_ids=excluded_ids,
        places=_task_places(outcome_ids, excluded_ids),
        absent=_absent(claims, raw["claims"]),
    )


def contract_paths(data: bytes, locs: Iterable[tuple[Any, ...]]) -> tuple[str, ...]:
    """Each path into the contract `data` (one `read_contract` has read) as a message may say
    it: a key the firewall keeps from messages named by its place as written, `<key #N>`."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    places = key_places(as_tuples(loads_exact(data)))
    return tuple(safe_path(loc, places=places) for loc in locs)


def read_preset(data: bytes) -> Preset | list[Problem]:
    """The claims of a `--policy` file, or every problem with it: not strict JSON
    (CONTRACT-POLICY-FILE-UNREADABLE, with its line), or a field missing, unknown or of the wrong type
    (CONTRACT-POLICY-FILE-SHAPE, named by its path in the file, `policy/...`)."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        raw = as_tuples(loads_exact(data))
    except NotStrictJSON as bad:
        if is_json_lines(data):  # a session's transcript, given as the --policy file
            return [Problem("CONTRACT-IS-A-TRANSCRIPT")]
        return [Problem("CONTRACT-POLICY-FILE-UNREADABLE", line=bad.line)]
    sections = tuple(Preset.model_fields)
    if isinstance(raw, dict) and ("claims" in raw or _is_bundle(raw)):  # a contract, a bundle
        wants = "a policy file: the " + ", ".join(sections) + " sections of a contract's claims"
        given = "a bundle" if _is_bundle(raw) else "a whole contract"
        where = f"whole file (expected: {wants}, not {given})"
        return [Problem("CONTRACT-POLICY-FILE-SHAPE", where=where)]
    try:
        preset = Preset.model_validate(raw, strict=True)
    except ValidationError as invalid:
        problems = []
        places = key_places({"claims": raw})  # named as the contract's own paths
        errors = [
            e for e in invalid.errors() if not _unknown_check({**e, "loc": ("claims", *e["loc"])})
        ]
        # A gate id mistyped: named with the ids known, as in a contract, beside any other
        # problem (an id of a gate's shape but no gate's is no shape error: found here too).
        problems += unknown_checks(_disabled_as_written(raw))
        for err in errors:
            if err["type"] == "extra_forbidden" and len(err["loc"]) == 1:  # not a section
                wants = "expected: no such field; the file holds " + ", ".join(sections)
                if isinstance(err["loc"][0], str):  # `polcy`: the section meant, as below it
                    wants += _did_you_mean(err["loc"][0], frozenset(sections))
                key = safe_path(("claims", *err["loc"]), last_is_key=True, places=places)
                key = key.removeprefix("claims/")
                problems.append(Problem("CONTRACT-POLICY-FILE-SHAPE", where=f"{key} ({wants})"))
                continue
            shape = _shape({**err, "loc": ("claims", *err["loc"])}, places)
            problems.append(replace(shape, code="CONTRACT-POLICY-FILE-SHAPE"))
        # Named as in the file, whose sections are at the top (a review: `claims/policy/...`
        # beside evaluate's `policy/...` for the same field read as two places)
        return [replace(p, where=_in_file(p.where)) for p in problems]
    if all(getattr(preset, name) is None for name in sections):  # `{}`: fills nothing
        wants = "at least one of " + ", ".join(sections)
        return [Problem("CONTRACT-POLICY-FILE-SHAPE", where=f"whole file (expected: {wants})")]
    return preset


def _in_file(where: str | None) -> str | None:
    """A contract path of a policy file's claims as the file spells it: `claims/policy/x` is
    `policy/x` there."""
    return where.removeprefix("claims/") if where is not None else None


def load_preset(path: Path) -> Preset:
    """The claims of a `--policy` file (`convert --template`, `evaluate`), or every problem with
    it, raised: unreadable, not strict JSON, of the wrong shape, or a gate id mistyped (said
    now, not in every template or evaluation made from it)."""
    return load_policy_file(path)[0]


def load_policy_file(path: Path) -> tuple[Preset, bytes]:
    """`load_preset`, with the bytes the claims were read from (for their digest)."""
    data = read_input(
        path, "CONTRACT-POLICY-FILE-UNREADABLE", not_json="CONTRACT-POLICY-FILE-UNREADABLE"
    )
    preset = read_preset(data)
    if isinstance(preset, list):
        raise Refused(preset)
    if preset.policy is not None:
        unknown = unknown_checks(preset.policy.disabled_checks)
        if unknown:
            raise Refused([replace(p, where=_in_file(p.where)) for p in unknown])
    return preset, data


# Every bundle's schema_version, past and future, begins so (`bundle.model`).
_BUNDLE_SCHEMA_PREFIX = "agent-evidence/bundle/"


def _is_bundle(raw: Any) -> bool:
    """Whether a document given as a contract is a bundle (convert's output, not its input)."""
    version = raw.get("schema_version") if isinstance(raw, dict) else None
    return isinstance(version, str) and version.startswith(_BUNDLE_SCHEMA_PREFIX)


def _is_preset(raw: Any) -> bool:
    """Whether a document given as a contract is a `--policy` file: none of a contract's own
    top-level fields, and at least one of the claim sections such a file holds."""
    if not isinstance(raw, dict) or any(name in raw for name in Contract.model_fields):
        return False
    return any(name in raw for name in Preset.model_fields)


def parse_contract(data: bytes) -> Contract | list[Problem]:
    """The whole contract, or every problem that keeps it from being one."""
    parts = read_contract(data)
    if isinstance(parts, list):
        return parts
    return parts.contract if parts.contract is not None else list(parts.problems)


def _disabled_as_written(claims: Any) -> tuple[str | None, ...]:
    """The policy's disabled gate ids of the claims as written, each at its index (none when
    not an array; an entry that is not text, as None)."""
    policy = claims.get("policy") if isinstance(claims, dict) else None
    written = policy.get("disabled_checks") if isinstance(policy, dict) else None
    if not isinstance(written, list | tuple):  # the raw value holds arrays as tuples
        return ()
    return tuple(n if isinstance(n, str) else None for n in written)


def _parts(
    raw: Any, problems: tuple[Problem, ...], places: Mapping[tuple[Any, ...], int]
) -> ContractParts:
    top = raw if isinstance(raw, dict) else {}
    claims = top.get("claims")
    found = {name: _part(name, top) for name in _OWNED}
    found |= {name: _part(name, claims if isinstance(claims, dict) else None) for name in _CLAIMS}
    names = _disabled_as_written(claims)
    failed = [n for n in _NULLABLE if found[n] is None and isinstance(claims, dict)]
    nulls = _raw_nulls(claims, failed) if isinstance(claims, dict) else ()
    outcome_ids, excluded_ids = _task_ids(raw)
    return ContractParts(
        problems,
        None,
        **found,
        disabled_checks=names,
        absent=_absent({n: found[n] for n in _CLAIMS}, claims)
        if isinstance(claims, dict)
        else frozenset(),
        raw_nulls=nulls,
        raw_pricing=claims.get("pricing") if isinstance(claims, dict) else None,
        outcome_ids=outcome_ids,
        excluded_ids=excluded_ids,
        places=places,
    )


def _absent(parts: Mapping[str, Any], claims: Mapping[str, Any]) -> frozenset[tuple[Any, ...]]:
    """Where a claim part that validated (None: it did not) has a field `claims`, as written,
    does not hold: walked side by side, one step at a time (no recursion on input depth)."""
    found: list[tuple[Any, ...]] = []
    stack: list[tuple[Any, Any, tuple[Any, ...]]] = [
        (part, claims[name], ("claims", name))
        for name, part in parts.items()
        if part is not None and name in claims
    ]
    while stack:
        node, written, where = stack.pop()
        if isinstance(node, BaseModel) and isinstance(written, dict):
            for name in type(node).model_fields:
                if name in written:
                    stack.append((getattr(node, name), written[name], (*where, name)))
                else:
                    found.append((*where, name))
        elif isinstance(node, dict) and isinstance(written, dict):
            stack += [(v, written[k], (*where, k)) for k, v in node.items() if k in written]
        elif isinstance(node, tuple) and isinstance(written, tuple):
            stack += [
                (v, w, (*where, i)) for i, (v, w) in enumerate(zip(node, written, strict=False))
            ]
    return frozenset(found)


def _task_ids(raw: Any) -> tuple[tuple[str, ...] | None, tuple[str, ...] | None]:
    """The task ids `outcomes` and `excluded_tasks` name, as written, in their order."""
    claims = raw.get("claims") if isinstance(raw, dict) else None
    named = [claims.get(s) if isinstance(claims, dict) else None for s in _TASK_SECTIONS]
    outcomes, excluded = (tuple(n) if isinstance(n, dict) else None for n in named)
    return outcomes, excluded


_TASK_SECTIONS = ("outcomes", "excluded_tasks")


def _task_places(*named: tuple[str, ...] | None) -> dict[tuple[Any, ...], int]:
    """The places of the task ids `outcomes` and `excluded_tasks` name (`_task_ids`), as
    written: all a contract that validated is asked to place (kept while the contract is, so
    not every key)."""
    return {
        ("claims", section, key): place
        for section, ids in zip(_TASK_SECTIONS, named, strict=True)
        for place, key in enumerate(ids or (), 1)
    }


# The claim sections whose nulls are claims left to fill (CONTRACT-CLAIM-NULL).
_NULLABLE = ("outcome_contract", "baseline", "policy", "outcomes")


def _raw_nulls(claims: dict[str, Any], sections: list[str]) -> tuple[tuple[Any, ...], ...]:
    """Where a null stands for a field the schema has, in the named sections as written."""
    found: list[tuple[Any, ...]] = []
    stack: list[tuple[Any, tuple[Any, ...]]] = [
        (claims[name], ("claims", name)) for name in sections if name in claims
    ]
    while stack:
        node, where = stack.pop()
        if not isinstance(node, dict):
            continue
        nullable = _nullable_at(where)
        for key, item in node.items():
            if item is None and key in nullable:
                found.append((*where, key))
            elif isinstance(item, dict):
                stack.append((item, (*where, key)))
    return tuple(sorted(found, key=str))


def _part(name: str, raw: dict[str, Any] | None) -> Any:
    """One part validated on its own, as the whole would; None when it does not validate."""
    if raw is None:
        return None
    field, adapter = _PARTS[name]
    if name not in raw:
        return None if field.is_required() else field.get_default(call_default_factory=True)
    try:
        return adapter.validate_python(raw[name], strict=True)
    except ValidationError:
        return None


def unknown_checks(disabled: tuple[str | None, ...]) -> list[Problem]:
    """Each disabled gate that `evaluate` does not run: a typo would otherwise pass convert and
    verify and only be refused by evaluate. (None: an entry that is not text, which its shape
    error names.)"""
    known = get_args(CheckId)
    return [
        Problem("CONTRACT-UNKNOWN-CHECK", where=f"claims/policy/disabled_checks/{index}")
        for index, name in enumerate(disabled)
        if name is not None and name not in known
    ]


def _unknown_check(err: Any) -> bool:
    """A disabled gate id that is text but not a gate's: CONTRACT-UNKNOWN-CHECK names it, with
    the ids evaluate knows; a second, vaguer shape error for it would only repeat it."""
    loc = tuple(err.get("loc", ()))
    return (
        loc[:3] == ("claims", "policy", "disabled_checks")
        and len(loc) == 4
        and err.get("type") in ("literal_error", "string_pattern_mismatch")
    )


# pydantic's errors for an exclusion reason that is none of the three (a word, a number, a list)
_NO_REASON = frozenset({"literal_error", "string_type"})


def _shape(err: Any, places: Mapping[tuple[Any, ...], int]) -> Problem:
    loc = tuple(err["loc"])
    if len(loc) == 3 and loc[:2] == ("claims", "excluded_tasks") and err["type"] in _NO_REASON:
        # a reason not of the three (SPEC §5.1): its own code, as a null one has
        return Problem("CONTRACT-EXCLUSION-REASON", where=safe_path(loc, places=places))
    # An empty path is the document itself (an array, say, where the contract's object goes).
    extra = err.get("type") == "extra_forbidden"
    where = safe_path(err["loc"], last_is_key=extra, places=places) or "(contract)"
    wants = expected(err)
    if extra and err["loc"] and isinstance(err["loc"][-1], str):
        wants += _did_you_mean(err["loc"][-1], _fields_at(err["loc"][:-1]))
    return Problem("CONTRACT-SHAPE", where=f"{where} (expected: {wants})")


def _did_you_mean(typed: str, fields: frozenset[str]) -> str:
    """A near schema field for a mistyped key: the suggestion names only the schema's own
    field, never the key typed (SPEC §6.4), and still points at the typo."""
    near = difflib.get_close_matches(typed.lower(), sorted(fields), n=1, cutoff=0.75)
    return f"; did you mean {near[0]}?" if near else ""


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    """The models an annotation holds (`X | None`, `dict[str, X]`, `tuple[X, ...]`, ...)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def _fields_at(loc: tuple[Any, ...]) -> frozenset[str]:
    """The fields of the object at `loc` in a contract: where a key was typed, its siblings
    are what it could have meant. Every field name of the schema when the path is not a plain
    walk down the models."""
    model = _model_at(loc)
    return _FIELDS if model is None else frozenset(model.model_fields)


def _model_at(loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model of the object at `loc` in a contract; None when the path is not a plain walk
    down the models."""
    model: type[BaseModel] = Contract
    pending: type[BaseModel] | None = None  # a container's element: next comes a key or index
    for part in loc:
        if pending is not None:
            model, pending = pending, None
            continue
        field = model.model_fields.get(part) if isinstance(part, str) else None
        if field is None:
            return None
        annotation = _without_none(field.annotation)
        found = _models_in(annotation)
        if len(found) != 1:
            return None
        if typing.get_origin(annotation) in (dict, tuple, list):
            pending = found[0]
        else:
            model = found[0]
    return None if pending is not None else model


def _nullable_at(loc: tuple[Any, ...]) -> frozenset[str]:
    """The fields at `loc` a template leaves null for the user to fill (their type admits
    None); a null anywhere else is a shape error, not a claim to fill."""
    model = _model_at(loc)
    if model is None:
        return frozenset()
    return frozenset(
        name
        for name, field in model.model_fields.items()
        if type(None) in typing.get_args(field.annotation)
    )


def _without_none(annotation: Any) -> Any:
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1:
        return args[0]
    return annotation


# What a field wants, in words. Only the schema's own values are quoted (the allowed literals,
# the bounds): never the input, which may hold anything a user pasted.
_WANTS = {
    "missing": "a value (the field is missing)",
    "extra_forbidden": "no such field",
    "decimal_digits": "a decimal with at most 30 digits before and after the point",
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
    "finite_number": "a finite number of at most 30 digits before and after the point",
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


def _signed_zero(given: Any) -> bool:
    """Whether a value is zero with a sign (`-0`, `-0.0`, `"-0.000"`), which no claim takes."""
    if isinstance(given, str) and given.strip().startswith("-"):
        try:
            given = Decimal(given)
        except ArithmeticError:  # decimal.InvalidOperation: not a number at all
            return False
    return isinstance(given, Decimal) and given.is_zero() and given.is_signed()


def expected(err: Any) -> str:
    """The plain-words expectation of one pydantic error, e.g. `one of 'a' or 'b'`, `>= 0`."""
    kind = str(err.get("type", ""))
    ctx = err.get("ctx") or {}
    if _signed_zero(err.get("input")):  # (a review: `-0` was told "expected: an integer")
        return "a number without a sign on zero (0, not -0)"
    if kind == "literal_error" and "expected" in ctx:
        return f"one of {ctx['expected']}"
    if kind == "is_instance_of" and ctx.get("class") == "Decimal":  # money, a rate, a price
        # (an example every such field takes: a rate lies in [0, 1], "40" is money's only)
        return 'a decimal number, written as a string such as "1" or "0.30"'
    if kind == "value_error" and "decimal" in str(err.get("msg", "")):  # a price's own check
        # (the message is the validator's fixed text, never the input): "5e0", "40 USD"
        return 'a decimal string of digits and an optional point ("40", "0.30"), or a number'
    if kind in _BOUNDS:
        key, sign = _BOUNDS[kind]
        if key in ctx and isinstance(err.get("input"), str):  # money written as text, as allowed
            # (a walkthrough: "-1" told "a number >= 0" read as if a string were the fault)
            # (a review: `<= 1, such as "40"` contradicted itself: the example is the bound)
            bound = str(ctx[key])
            example = (
                "" if sign in (">", "<") else f' such as "{"0.30" if bound == "0" else bound}"'
            )
            return f"a decimal {sign} {ctx[key]}, as a string{example} or as a number"
        if key in ctx:
            return f"a number {sign} {ctx[key]}"
    if kind == "string_pattern_mismatch" and isinstance(ctx.get("pattern"), str):
        return f"text matching {ctx['pattern']}"  # the schema's pattern, never the input
    return _WANTS.get(kind, "a value of the documented type and range")


# What a diagnostic may name (SPEC §6.4 quotes no key): the contract's own field names, keyed
# pseudonyms (task-, tool-, model-, x-<hex>), built-in tool names, billing-context keys and model
# ids. Any other key a user wrote into the contract is `<key #N>` (its place), or `<key>`.
_FIELDS = schema_field_names(Contract.model_json_schema())


def safe_path(
    loc: tuple[Any, ...] | list[Any],
    *,
    last_is_key: bool = False,
    places: Mapping[tuple[Any, ...], int] | None = None,
) -> str:
    """A contract path a diagnostic may show (`names.masked_path` over the contract's fields;
    `places`, of the contract as written, place a masked key: `<key #N>`)."""
    return masked_path(loc, _FIELDS, last_is_key=last_is_key, places=places)
