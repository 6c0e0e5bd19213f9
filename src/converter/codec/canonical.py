"""The one canonical encoder: every byte that is hashed or signed comes from here.

The canonical form is canonicaljson's (sorted keys, no insignificant whitespace, UTF-8, the
shortest escapes). orjson with sorted keys writes exactly those bytes, ten times faster on a bundle
of 30k events; tests/test_canonical.py proves the two byte-identical over arbitrary JSON values
with hypothesis and on the golden bundle. canonicaljson stays the reference: `verify` recomputes
a bundle's digest with it (each event and edge by `reference_encode`, or the whole value by
`reference_bytes`), so an auditor's check never rests on the encoder that wrote the bundle.
Floats are refused outright: money and rates must be exact, and a float's text is not portable
across encoders. For models that is a static property (no output model has a float field;
tests/test_no_float.py checks every schema), so only plain dicts and lists are walked at run
time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import Any

import orjson
from pydantic import BaseModel, TypeAdapter


class FloatInArtifact(TypeError):
    """A float reached the encoder: a bug in a model, never an input condition."""


def _check(value: Any) -> None:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, float):
            raise FloatInArtifact
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)


def to_jsonable(value: BaseModel | dict[str, Any] | list[Any]) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return value


def encode(data: Any) -> bytes:
    """Canonical bytes of a JSON-able value already known to hold no float."""
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)


def canonical_bytes(
    value: BaseModel | dict[str, Any] | list[Any], *, float_free: bool = False
) -> bytes:
    """`float_free=True`: `value` is known to hold no float (a model's JSON-mode dump, or a
    document read by `jsontext.loads_integral`), so the walk that looks for one is skipped."""
    data = to_jsonable(value)
    if not isinstance(value, BaseModel) and not float_free:
        _check(data)
    return encode(data)


def reference_bytes(value: dict[str, Any]) -> bytes:
    """The same canonical bytes from canonicaljson itself, for independent re-checks."""
    import canonicaljson

    _check(value)
    encoded: bytes = canonicaljson.encode_canonical_json(value)
    return encoded


def reference_encode(value: Any) -> bytes:
    """canonicaljson's bytes of a value read by `jsontext`'s integral readers (which refuse a
    fraction: no float to look for), one bundle item at a time: `verify`'s encoder. A value the
    fast encoder cannot write either (an integer past 64 bits) raises its TypeError: no bundle
    this program writes holds one, and the whole-document reader refuses it by its shape, as
    `evaluate` does (an audit: a cost of 2**64 as a JSON integer, resealed, verified)."""
    import canonicaljson

    encode(value)
    encoded: bytes = canonicaljson.encode_canonical_json(value)
    return encoded


def foreign_bytes(value: dict[str, Any]) -> bytes:
    """canonicaljson's bytes of a value another writer made, floats and all: only to tell
    whether such a value was sealed over (`bundle.io`), never written. ValueError if it
    cannot be encoded."""
    import canonicaljson

    encoded: bytes = canonicaljson.encode_canonical_json(value)
    return encoded


# Streaming: the same canonical bytes, written one member at a time. A field holding a tuple of
# models (30k events) is encoded item by item, so the model's whole JSON dump never exists (44 MB
# for the inventory of the 200 MB bench tree, more for a bundle). tests/test_canonical.py checks
# the bytes against canonicaljson over the full dump on the fixtures, the golden bundle and every
# corpus tree. Models streamed here have no aliases: field names are the JSON keys.


def field_chunks(model: BaseModel, name: str) -> Iterator[bytes]:
    """Canonical bytes of one field's JSON value, in parts to consume at once (append them to
    one buffer or a hasher): orjson's output keeps its 4 KB working buffer, so keeping 30k parts
    costs 120 MB."""
    value = getattr(model, name)
    if isinstance(value, tuple) and value and all(isinstance(v, BaseModel) for v in value):
        yield from array_chunks(dumped(value))
    else:
        yield encode(model.model_dump(mode="json", include={name})[name])


def batched(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    """`items` in lists of `size` (the last one shorter), none empty."""
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch


_ADAPTERS: dict[type[BaseModel], TypeAdapter[list[Any]]] = {}
_BATCH = 1000


def dumped(items: Sequence[BaseModel]) -> Iterator[Any]:
    """Each model's JSON-mode dump, as `model_dump(mode="json")` gives it. Models of one type
    are dumped a thousand at a time (one call into pydantic's serializer per batch is 2-3x
    faster for small models such as edges); memory stays one batch of dicts."""
    kind = type(items[0]) if items else None
    if kind is None or any(type(item) is not kind for item in items):
        for item in items:
            yield item.model_dump(mode="json")
        return
    adapter = _ADAPTERS.get(kind)
    if adapter is None:
        adapter = _ADAPTERS[kind] = TypeAdapter(list[kind])  # type: ignore[valid-type]
    for start in range(0, len(items), _BATCH):
        yield from adapter.dump_python(list(items[start : start + _BATCH]), mode="json")


def object_chunks(
    members: dict[str, Iterable[bytes | bytearray]], encoder: Callable[[Any], bytes] = encode
) -> Iterator[bytes | bytearray]:
    """A JSON object from each member's canonical value bytes, keys in canonical order (each
    written by `encoder`)."""
    yield b"{"
    for position, name in enumerate(sorted(members)):
        yield (b"," if position else b"") + encoder(name) + b":"
        yield from members[name]
    yield b"}"


def value_sha256(value: Any) -> str:
    """SHA-256 of `encode(value)`, streamed: a top-level member that is a list is encoded one
    item at a time, so a parsed bundle is hashed without a second copy of its bytes."""
    if not isinstance(value, dict):
        return sha256_hex(encode(value))
    members: dict[str, Iterable[bytes | bytearray]] = {}
    for name, member in value.items():
        members[name] = array_chunks(member) if isinstance(member, list) else [encode(member)]
    hasher = hashlib.sha256()
    for chunk in object_chunks(members):
        hasher.update(chunk)
    return hasher.hexdigest()


def array_chunks(items: Iterable[Any]) -> Iterator[bytes]:
    """A JSON array of JSON values, encoded as they come, a batch at a time: `[`, then the
    batches' items, comma-separated, `]`. orjson writes a list as `[` and its items' own bytes
    joined by `,` (no whitespace), so each batch's bytes less its brackets are its items' bytes:
    one call per batch, not per item (70k items in a bundle, as many in an inventory digest)."""
    yield b"["
    first = True
    for batch in batched(items, _BATCH):
        data = encode(batch)
        yield (b"" if first else b",") + data[1:-1]
        first = False
    yield b"]"


def model_sha256(
    model: BaseModel, exclude: frozenset[str] = frozenset(), hasher: Any = None
) -> str:
    """SHA-256 of `canonical_bytes(model.model_dump(mode="json", exclude=exclude))`, streamed
    (into `hasher` when given: a keyed one, `Pseudonymizer.hasher`)."""
    hasher = hasher if hasher is not None else hashlib.sha256()
    names = [name for name in type(model).model_fields if name not in exclude]
    for chunk in object_chunks({name: field_chunks(model, name) for name in names}):
        hasher.update(chunk)
    return str(hasher.hexdigest())


def sha256_hex(data: bytes | bytearray) -> str:
    return hashlib.sha256(data).hexdigest()


def pretty_bytes(value: BaseModel | dict[str, Any]) -> bytes:
    """Human-editable form (templates, contracts): sorted keys, 2-space indent, trailing newline.

    Deterministic, float-free, and what the user edits; digests are taken over canonical_bytes.
    """
    data = to_jsonable(value)
    if not isinstance(value, BaseModel):
        _check(data)
    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()
