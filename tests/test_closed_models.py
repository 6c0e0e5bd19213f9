"""The firewall as a type boundary: no model that can leave it holds an unconstrained string.

Every subclass of `Closed` in the package is walked, field by field, through `Optional`,
unions, containers and `Annotated`; a `str` found anywhere (a dict key too) must carry a
pattern or be a `Literal`. The few fields of free text are listed below with why each cannot
hold an input's content; a new one fails here until it is either constrained or listed.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from typing import Annotated, Any, Literal, get_args, get_origin

from pydantic import BaseModel, Field

import converter
from converter.firewall.types import Closed, PublicName

# (module, model, field): why its text is no input's.
FREE_TEXT = {
    # a sentence and a fix from the code catalogue (errors/codes.py), fixed text of the program
    ("converter.evaluate.result", "PrintedReason", "text_"),
    ("converter.evaluate.result", "PrintedReason", "fix"),
    # the in-toto predicate: the bundle itself, a Closed model validated before it is placed
    ("converter.attest.statement", "Statement", "predicate"),
    # the price card's own remark: read from a card, never written into any artifact
    ("converter.pricing.card", "PriceCard", "note"),
}


def _closed_models() -> list[type[BaseModel]]:
    for module in pkgutil.walk_packages(converter.__path__, "converter."):
        if not module.name.endswith("__main__"):  # running it runs the command
            importlib.import_module(module.name)
    found: set[type[BaseModel]] = set()
    todo: list[type[BaseModel]] = [Closed]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return sorted(found, key=lambda c: (c.__module__, c.__qualname__))


def _free_strings(annotation: Any, metadata: tuple[Any, ...] = ()) -> Iterator[str]:
    """Where in `annotation` a `str` without a pattern is (its path of types)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        base, *more = get_args(annotation)
        yield from _free_strings(base, (*metadata, *more))
        return
    if annotation is str:
        if not any(getattr(item, "pattern", None) for item in metadata):
            yield "str"
        return
    if origin is Literal or annotation is Any:
        return
    for arg in get_args(annotation):
        # a field's own metadata (`Field(pattern=...)` on `str | None`) bounds each member;
        # a container's members are bounded by their own
        inherited = metadata if origin is not dict and origin not in (list, tuple) else ()
        yield from _free_strings(arg, inherited)


def _unconstrained() -> set[tuple[str, str, str]]:
    return {
        (model.__module__, model.__qualname__, name)
        for model in _closed_models()
        for name, field in model.model_fields.items()
        if any(_free_strings(field.annotation, tuple(field.metadata)))
    }


def test_no_closed_model_has_a_free_string_but_the_listed_ones() -> None:
    """An architecture review: `Agent.agent_type` retyped as a plain `str` passed every test."""
    assert _unconstrained() == FREE_TEXT


def test_the_walk_sees_the_models_and_finds_a_free_string() -> None:
    """The check above can fail: it knows the output models, and it finds a plain `str`, in a
    container, an optional, a dict key, and it passes a patterned one."""
    models = {model.__qualname__ for model in _closed_models()}
    assert {"Agent", "Bundle", "Refusal", "PriceCard", "Statement"} <= models

    class Probe(BaseModel):  # not Closed: it would join the models the other test walks
        ok: PublicName
        ok_optional: str | None = Field(default=None, pattern="^[a-z]+$")
        plain: str = ""
        listed: tuple[str, ...] = ()
        keyed: dict[str, int] = Field(default_factory=dict)
        maybe: str | None = None

    found = {name for name, f in Probe.model_fields.items() if any(_free_strings(f.annotation))}
    found_with_meta = {
        name
        for name, f in Probe.model_fields.items()
        if any(_free_strings(f.annotation, tuple(f.metadata)))
    }
    assert found_with_meta == {"plain", "listed", "keyed", "maybe"}
    assert "ok_optional" in found  # its pattern is the field's metadata, seen only with it
