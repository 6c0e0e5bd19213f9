"""The leak check: does any source string, or any 8-character piece of one, occur in an output?

Outputs are indexed once: every 8-character window goes into a set, so each source string costs
one set lookup per position. Windows made only of lowercase hex digits and dashes are the one
exception. Outputs are full of them by design (pseudonyms `agent-<12 hex>`, `key_id`, SHA-256
file digests), and so are sources (uuids, `a<16 hex>` agent ids). Two random 8-hex windows collide
with probability 16^-8, which over thousands of pairs per run would make the check flaky. Hex
windows are therefore compared at 12 characters (16^-12): an id or digest fragment as long as a
pseudonym is still caught. Every window of a canary-bearing string holds non-hex letters, so
canaries are checked at full 8-character resolution.

Claude Code's own markup around free text (`generate.MARKUP`) is split off before windowing:
its pieces are Claude Code vocabulary, not content.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

GRAM = 8
HEX_GRAM = 12
_HEXISH = re.compile(r"[0-9a-f-]+")
_HEX_RUN = re.compile(r"[0-9a-f-]{12,}")


def _hexish(window: str) -> bool:
    return _HEXISH.fullmatch(window) is not None


@dataclass
class OutputIndex:
    grams: set[str] = field(default_factory=set)  # 8-windows with a non-hex character
    hex_grams: set[str] = field(default_factory=set)  # 12-windows of hex digits and dashes
    texts: dict[str, str] = field(default_factory=dict)  # label -> full text, for reports

    def add(self, label: str, text: str) -> None:
        self.texts[label] = text
        for i in range(len(text) - GRAM + 1):
            window = text[i : i + GRAM]
            if not _hexish(window):
                self.grams.add(window)
        for run in _HEX_RUN.findall(text):
            self.hex_grams.update(run[i : i + HEX_GRAM] for i in range(len(run) - HEX_GRAM + 1))

    def where(self, piece: str) -> list[str]:
        return [label for label, text in self.texts.items() if piece in text]


def index_outputs(outputs: Mapping[str, str | bytes]) -> OutputIndex:
    """Index every output (stdout, stderr, written files) by label."""
    index = OutputIndex()
    for label, value in outputs.items():
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        index.add(label, text)
    return index


def split_markup(source: str, markup: Iterable[str]) -> list[str]:
    parts = [source]
    for token in markup:
        parts = [piece for part in parts for piece in part.split(token)]
    return parts


def first_leak(source: str, index: OutputIndex) -> str | None:
    """The first piece of `source` found in the outputs: the whole string, an 8-window with a
    non-hex character, or a 12-window of hex."""
    if len(source) >= GRAM and any(source in text for text in index.texts.values()):
        return source
    grams = index.grams
    for i in range(len(source) - GRAM + 1):
        window = source[i : i + GRAM]
        if window in grams:
            return window
    if index.hex_grams:
        for run in _HEX_RUN.findall(source):
            for i in range(len(run) - HEX_GRAM + 1):
                if run[i : i + HEX_GRAM] in index.hex_grams:
                    return run[i : i + HEX_GRAM]
    return None


def leaks(
    sources: Iterable[str], index: OutputIndex, markup: Iterable[str] = ()
) -> dict[str, tuple[str, list[str]]]:
    """source string -> (piece found, output labels holding it), for every leaking source."""
    markup = tuple(markup)
    found: dict[str, tuple[str, list[str]]] = {}
    for source in sources:
        for part in split_markup(source, markup) if markup else [source]:
            piece = first_leak(part, index)
            if piece is not None:
                found[source] = (piece, index.where(piece))
                break
    return found


def describe(found: Mapping[str, tuple[str, list[str]]], limit: int = 5) -> str:
    lines = [
        f"{piece!r} of source {source[:60]!r} in {where}"
        for source, (piece, where) in list(found.items())[:limit]
    ]
    return f"{len(found)} leaking source strings:\n" + "\n".join(lines)
