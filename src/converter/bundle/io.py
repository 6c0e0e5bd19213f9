"""Bundle bytes: seal (compute evidence_sha256) and open (recompute it, refuse a mismatch)."""

from __future__ import annotations

import codecs
import hashlib
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any, Protocol, TypeVar

from pydantic import TypeAdapter, ValidationError

from converter.bundle.build import BuiltBundle
from converter.bundle.integrity import PER_RULE, Consistency
from converter.bundle.model import (
    BULK_FIELDS,
    Bundle,
    BundleEvent,
    BundleHead,
    ModelEventOut,
    ToolEventOut,
)
from converter.bundle.spool import SealedBytes
from converter.codec.canonical import (
    canonical_bytes,
    encode,
    foreign_bytes,
    object_chunks,
    reference_bytes,
    reference_encode,
    sha256_hex,
    value_sha256,
)
from converter.codec.jsontext import (
    NotStrictJSON,
    Packed,
    Split,
    is_json_lines,
    loads_exact,
    loads_integral,
    loads_integral_split,
    loads_with_floats,
)
from converter.contract.model import CONTRACT_SCHEMA
from converter.errors import IntegrityFailure, Problem, Refused
from converter.firewall.names import masked_path, schema_field_names
from converter.firewall.view import Edge
from converter.heap import return_free_memory


def evidence_digest(
    body: dict[str, Any], *, float_free: bool = False, reference: bool = False
) -> str:
    """SHA-256 of the canonical JSON of a bundle's JSON value without `receipt.evidence_sha256`.

    Computed over the JSON values as written, not over a re-serialization of the model, so the
    check does not depend on how this version formats a decimal. `reference`: encode with
    canonicaljson rather than the fast encoder (the same bytes; an independent implementation).
    """
    receipt = body.get("receipt")
    if not isinstance(receipt, dict):
        raise IntegrityFailure("BUNDLE-DIGEST-MISMATCH")
    unsealed = {**body, "receipt": {k: v for k, v in receipt.items() if k != "evidence_sha256"}}
    try:
        if not reference:
            try:
                if float_free:
                    return value_sha256(unsealed)  # streamed: no second copy of the bytes
                return sha256_hex(canonical_bytes(unsealed))
            except TypeError:
                # The fast encoder writes no integer past 64 bits; canonicaljson does. Such a
                # count, resealed, has a digest that holds: its shape refuses it (2), it is
                # not called changed since it was sealed (5).
                pass
        return sha256_hex(reference_bytes(unsealed))
    except (TypeError, ValueError):  # a float or Decimal smuggled into a bundle
        raise IntegrityFailure("BUNDLE-DIGEST-MISMATCH") from None


def seal(built: BuiltBundle) -> tuple[BundleHead, SealedBytes]:
    """The sealed head and the bundle's bytes: the digest of the bytes as built (the receipt
    without `evidence_sha256`), then the receipt re-encoded with it, in place in the spool's
    tail (canonical key order puts the receipt's members in the same order either way). No
    spilled byte is read again: both digests continue the hash of those already taken."""
    spool = built.data
    digest = spool.digest().hexdigest()
    receipt = built.head.receipt.model_dump(mode="json")
    receipt["evidence_sha256"] = digest
    at, length = built.receipt_at, built.receipt_len
    spool.tail[at : at + length] = encode(receipt)
    sealed = built.head.receipt.model_copy(update={"evidence_sha256": digest})
    head = built.head.model_copy(update={"receipt": sealed})
    return head, SealedBytes(spool, spool.digest().hexdigest())


class BundleSink(Protocol):
    """Receives a bundle's head, then each event and edge as soon as it is validated."""

    def start(self, head: BundleHead) -> None: ...

    def event(self, event: ModelEventOut | ToolEventOut) -> None: ...

    def edge(self, edge: Edge) -> None: ...


_EVENT: TypeAdapter[ModelEventOut | ToolEventOut] = TypeAdapter(BundleEvent)


# The receipt's key for the evidence digest, as any bundle's bytes hold it.
_EVIDENCE_KEY = b'"evidence_sha256"'


def _checked_value(data: bytes, reference: bool) -> dict[str, Any]:
    """Strict parse (no duplicate keys, NaN, floats or fractions) and the evidence digest
    recomputed over the values as written; the parsed value, or integrity failure (5).

    A file with no evidence digest to compare is not a bundle, refused (2) rather than called
    changed after it was written: empty, cut short, not JSON, another document (a contract, a
    report, a usage export with fractions or a repeated key). Parsed JSON that this program never writes (a repeated key, a fraction, NaN) was
    edited: a mismatch (5), unless its one fault is fractions and canonicaljson's digest over
    them holds (resealed after the edit: refused as such, 2, `_resealed_with_fractions`).
    """
    not_a_bundle = Refused([Problem("BUNDLE-NOT-A-BUNDLE")])
    # A UTF-8 byte order mark (an editor re-saving the file) is no part of the JSON: the values
    # are what the digest covers, as for a re-indented bundle (a signature covers the bytes).
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        raw = loads_integral(data)  # no float, no fraction: nothing for the encoder to walk
    except NotStrictJSON as bad:
        # A contract writes money as JSON numbers: a fraction in one is not an edit.
        if bad.parsed and _is_contract(data):
            raise Refused([Problem("BUNDLE-IS-A-CONTRACT")]) from None
        # A number with a fraction, resealed over it: edited like any resealed bundle whose
        # digest holds, and refused as such (2), not called changed since it was sealed.
        if bad.parsed and _resealed_with_fractions(data):
            raise Refused([Problem("BUNDLE-SHAPE")]) from None
        # JSON the writer never writes (a repeated key makes two readers disagree; an integer
        # or a nesting the parser stops at, which no conversion writes: an auditor's edit was
        # called not a bundle, 2): edited, when it claims an evidence digest at all; a document
        # that names none is no bundle (an audit: a usage export with fractions, given as a
        # bundle, exited 5 as tampered). Past the parser's limits the rest is not known to be
        # JSON: only one that ends as an object does is called changed, not cut short.
        beyond = bad.exceeds and data.rstrip().endswith(b"}")
        if (bad.parsed or beyond) and _EVIDENCE_KEY in data:
            raise IntegrityFailure("BUNDLE-DIGEST-MISMATCH") from None
        if bad.parsed:
            raise not_a_bundle from None
        # A session's transcript, given as a bundle; not a bundle with lines appended to it
        # (a robustness audit: told "convert the session first")
        if is_json_lines(data) and _EVIDENCE_KEY not in data.partition(b"\n")[0]:
            raise Refused([Problem("BUNDLE-IS-A-TRANSCRIPT")]) from None
        raise not_a_bundle from None
    if not isinstance(raw, dict):
        raise not_a_bundle
    receipt = raw.get("receipt")
    claimed = receipt.get("evidence_sha256") if isinstance(receipt, dict) else None
    if not isinstance(claimed, str):
        if raw.get("schema_version") == CONTRACT_SCHEMA:
            raise Refused([Problem("BUNDLE-IS-A-CONTRACT")])
        if "payload" in raw and "payloadType" in raw:  # a DSSE envelope: the .intoto.json
            raise Refused([Problem("BUNDLE-IS-AN-ATTESTATION")])
        raise not_a_bundle
    if claimed != evidence_digest(raw, float_free=True, reference=reference):
        raise IntegrityFailure("BUNDLE-DIGEST-MISMATCH")
    return raw


def _split_value(data: bytes, reference: bool) -> Split | None:
    """The bundle read as `_checked_value` reads it, but with its events and edges kept as
    their canonical bytes (`loads_integral_split`), when it is strict JSON of the bulk arrays
    and its evidence digest matches. A digest that does not match is integrity failure (5),
    as the whole reader would find it over the very same bytes, said without reading it again
    (a tampered bench bundle cost `verify` 0.5 s and 74 MB more). None for anything else,
    which `_checked_value` decides (and refuses) as before.

    The digest is taken over the same canonical bytes: with `reference`, canonicaljson's,
    written item by item (the bytes it writes for the whole value, which `verify` then never
    holds: it peaks at 94 MB for the 19 MB bench bundle, not 169 MB)."""
    encoder = reference_encode if reference else encode
    data = data.removeprefix(codecs.BOM_UTF8)
    split = loads_integral_split(data, BULK_FIELDS, encoder)
    if split is None:
        return None
    receipt = split.members.get("receipt")
    claimed = receipt.get("evidence_sha256") if isinstance(receipt, dict) else None
    if not isinstance(claimed, str):
        return None
    assert isinstance(receipt, dict)
    unsealed = {k: v for k, v in receipt.items() if k != "evidence_sha256"}
    hasher = hashlib.sha256()
    try:
        members: dict[str, Iterable[bytes | bytearray]] = {
            name: [encoder(value)] for name, value in split.members.items() if name != "receipt"
        }
        members["receipt"] = [encoder(unsealed)]
        for name, packed in split.arrays.items():
            members[name] = [packed.data]
        for chunk in object_chunks(members, encoder):  # (encodes each key)
            hasher.update(chunk)
    except (TypeError, ValueError):  # what an encoder cannot write: the whole reader decides
        return None
    if hasher.hexdigest() != claimed:
        raise IntegrityFailure("BUNDLE-DIGEST-MISMATCH")
    return split


def _resealed_with_fractions(data: bytes) -> bool:
    """Whether strict JSON `data`, whose one fault is numbers with a fraction (this program
    writes money as text, and no float), holds the evidence digest canonicaljson computes over
    those numbers: it was resealed after an edit (an audit), as a bundle that fails its shape
    with a matching digest was. Only on that refusal's path: the document is parsed again."""
    try:
        raw = loads_with_floats(data)  # no repeated key, no NaN: its fractions are its only fault
    except NotStrictJSON:
        return False
    receipt = raw.get("receipt") if isinstance(raw, dict) else None
    if not isinstance(receipt, dict) or not isinstance(receipt.get("evidence_sha256"), str):
        return False
    claimed: str = receipt["evidence_sha256"]
    unsealed = {**raw, "receipt": {k: v for k, v in receipt.items() if k != "evidence_sha256"}}
    try:
        return sha256_hex(foreign_bytes(unsealed)) == claimed
    except ValueError:
        return False


def _is_contract(data: bytes) -> bool:
    """Whether strict JSON `data` is a contract or its template (the contract's schema_version,
    no evidence digest): given where a bundle goes, it is refused as such, never called
    changed after it was written (5). Anything with a digest to check is a bundle's."""
    try:
        raw = loads_exact(data)
    except NotStrictJSON:  # a repeated key, NaN: what the writer of neither ever writes
        return False
    if not isinstance(raw, dict) or raw.get("schema_version") != CONTRACT_SCHEMA:
        return False
    receipt = raw.get("receipt")
    return not (isinstance(receipt, dict) and "evidence_sha256" in receipt)


@cache
def _bundle_fields() -> frozenset[str]:
    """The bundle's own field names, which a BUNDLE-SHAPE path may show (built on first use:
    every command that opens a bundle imports this module, few meet a misshapen one)."""
    return schema_field_names(Bundle.model_json_schema())


def _shape_problems(at: tuple[Any, ...], bad: ValidationError) -> list[Problem]:
    """BUNDLE-SHAPE at each field that does not validate (the bundle's own field names, indices
    and pseudonyms; any other key is `<key>`). An event's errors begin with the kind it was
    validated as (`model`, `tool`: the union's tag), which is not part of its path."""
    paths = set()
    for err in bad.errors():
        loc = tuple(err["loc"])
        if at[:1] == ("events",) and loc[:1] in (("model",), ("tool",)):
            loc = loc[1:]
        if err.get("type") in ("union_tag_invalid", "union_tag_not_found"):
            loc = (*loc, "kind")  # the tag that names the event's kind
        extra = err.get("type") == "extra_forbidden"
        paths.add(masked_path((*at, *loc), _bundle_fields(), last_is_key=extra))
    return [Problem("BUNDLE-SHAPE", where=p or None) for p in sorted(paths)]


def open_bundle(
    data: bytes, *, reference: bool = False, sink: BundleSink | None = None
) -> BundleHead:
    """Check a bundle's digest, then validate every field against the bundle model. A digest
    that does not match is integrity (5); a file that is not a bundle, or whose digest matches
    but whose content is not a bundle of this schema, is refused (2): nothing changed it after
    it was written, it was written by something else. `reference`: recompute the digest with
    canonicaljson (what `verify` does).

    The bulk fields are validated one item at a time, each handed to `sink` and dropped, and each
    item's parsed value is freed once validated: a bundle of 30k events never exists as models
    (141 MB for the 19 MB bench bundle). Items are validated from their canonical JSON, in JSON
    mode, exactly as the whole document would be (money as decimal strings, read exactly).

    Then its parts must agree (`bundle.integrity`): every reference resolves, every task not
    excluded has an outcome, every receipt count matches; each disagreement is refused (2) with
    its field path, all of them at once. The sink has then seen the bundle: discard its result.
    """
    split = _split_value(data, reference)
    events: Packed | list[Any] | None
    edges: Packed | list[Any] | None
    if split is not None:  # the bulk items as their canonical bytes, checked already
        raw, encoded = split.members, True
        events, edges = (split.arrays[name] for name in BULK_FIELDS)
    else:  # the exact reader decides what the split one could not
        raw, encoded = _checked_value(data, reference), False
        events, edges = (raw.pop(name, None) for name in BULK_FIELDS)
    shape: list[Problem] = []  # every misshapen part, each named: the run goes on past one
    head = check = None
    try:
        head = BundleHead.model_validate_json(encode(raw))
    except ValidationError as bad:
        shape += _shape_problems((), bad)
    except TypeError:
        shape.append(Problem("BUNDLE-SHAPE"))
    shape += [
        Problem("BUNDLE-SHAPE", where=name)
        for name, bulk in zip(BULK_FIELDS, (events, edges), strict=True)
        if type(bulk) is not list and not isinstance(bulk, Packed)
    ]
    if head is not None:
        check = Consistency(head)
        if sink is not None:
            sink.start(head)
    for index, item in enumerate(_each(events)):
        event = _item(_EVENT.validate_json, item, ("events", index), shape, encoded)
        if event is not None and check is not None and not shape:
            check.event(index, event)
            if sink is not None:
                sink.event(event)
    for index, item in enumerate(_each(edges)):
        edge = _item(Edge.model_validate_json, item, ("edges", index), shape, encoded)
        if edge is not None and check is not None and not shape:
            check.edge(index, edge)
            if sink is not None:
                sink.edge(edge)
    if shape or head is None or check is None:
        # (parts that did validate are not checked against each other: with a part missing,
        # every reference to it would be a second, misleading problem)
        raise Refused(_capped(shape) or [Problem("BUNDLE-SHAPE")])
    problems = check.problems()
    if problems:  # resealed after an edit: parts that disagree would be summed silently
        raise Refused(problems)
    return_free_memory()  # the parsed JSON value's pages
    return head


def _each(bulk: Packed | list[Any] | None) -> Iterator[Any]:
    """A bulk field's items: a packed array's as their bytes; a parsed list's values, each
    dropped from the list as it is taken (freed once validated). Nothing from anything else."""
    if isinstance(bulk, Packed):
        yield from bulk.items()
    elif type(bulk) is list:
        for index, item in enumerate(bulk):
            bulk[index] = None
            yield item


T = TypeVar("T")
_INDEX = re.compile(r"(?<=/)[0-9]+(?=/|$)")


def _capped(problems: list[Problem]) -> list[Problem]:
    """At most PER_RULE problems per field with its positions starred (`events/*/usage`), then
    a count of the rest, as the consistency rules are: a bundle edited on every one of 31k
    events says so in a few lines, and its other problems stay visible."""
    shown: Counter[str] = Counter()
    out = []
    for problem in problems:
        rule = _INDEX.sub("*", problem.where or "")
        shown[rule] += 1
        if shown[rule] <= PER_RULE:
            out.append(problem)
    more = [
        Problem("BUNDLE-SHAPE", where=f"{rule}: {count - PER_RULE:,} more")
        for rule, count in shown.items()
        if count > PER_RULE
    ]
    return out + more


def _item(
    validate: Callable[[bytes], T],
    item: Any,
    at: tuple[Any, ...],
    shape: list[Problem],
    encoded: bool,
) -> T | None:
    """One event or edge validated from its canonical JSON (`item` itself when `encoded`), or
    None with its problems added."""
    try:
        return validate(item if encoded else encode(item))
    except ValidationError as bad:
        shape += _shape_problems(at, bad)
    except TypeError:
        shape.append(Problem("BUNDLE-SHAPE", where=masked_path(at, _bundle_fields()) or None))
    return None


def bundle_problems(
    data: bytes, reference: bool = False
) -> tuple[BundleHead | None, list[Problem], list[Problem]]:
    """The bundle opened on its own, or None; and its own integrity failures and refusals:
    what a signature check that failed or could not run (no attestation, an unusable key) must
    not hide, so that a run reports every problem, not the first."""
    try:
        return open_bundle(data, reference=reference), [], []
    except IntegrityFailure as failure:
        return None, list(failure.problems), list(failure.refusals)
    except Refused as refused:
        return None, [], list(refused.problems)
