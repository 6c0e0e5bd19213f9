"""The bundle's `receipt.contract_sha256` is keyed (HMAC-SHA256 under the pseudonym key).

A contract holds little its bundle does not show, but what it holds is what the user chose not
to publish: each task's exact `started_at` when `privacy.timestamps` was made coarser after the
template (docs/privacy.md says to set it), and `reveal_names` that matched nothing. The rest of
the contract can be rebuilt from the bundle (claims, inventory, keys, task ids and digests), so
a plain SHA-256 of it, which the attestation and every report repeat, confirmed a guess at the
exact start: a firewall review hashed every millisecond of the day a one-task bundle shows and
found it in 29 s (as `inventory_sha256` was found before it was keyed).
"""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TEST_KEY, fixture_parent
from tests.contract_helpers import fill, read_json, write_json

OTHER_KEY = "1" * 64


def _made(cli: Any, tmp_path: Path, edit: Any = None) -> tuple[Path, Path, Path]:
    """(parent, contract, bundle) of the synthetic tree, its filled contract edited by `edit`."""
    parent = fixture_parent("synthetic_tree")
    template, contract, bundle = (tmp_path / n for n in ("t.json", "c.json", "b.json"))
    made = cli("convert", "--in", str(parent), "--template", str(template))
    assert made.code == 0, made.err
    data = fill(read_json(template))
    if edit is not None:
        edit(data)
    write_json(contract, data)  # the template's own layout, which an editor keeps
    made = cli("convert", "--in", str(parent), "--contract", str(contract), "--out", str(bundle))
    assert made.code == 0, made.err
    return parent, contract, bundle


def _keyed(secret_hex: str, data: bytes) -> str:
    """The digest as docs/privacy.md states it: HMAC-SHA256 under the key, its own domain."""
    domain = b"agent-evidence/v1/contract\x00"
    return hmac.new(bytes.fromhex(secret_hex), domain + data, hashlib.sha256).hexdigest()


@pytest.mark.parametrize("precision", ["minute", "hour", "day"])
def test_a_coarsened_contract_is_bound_by_a_digest_no_guess_can_confirm(
    precision: str, cli: Any, tmp_path: Path
) -> None:
    exact: list[str] = []

    def coarser(data: Any) -> None:
        exact.extend(t["started_at"] for t in data["tasks"])
        data["claims"]["privacy"]["timestamps"] = precision

    _, contract, bundle = _made(cli, tmp_path, coarser)
    assert exact
    assert all("." in s for s in exact)  # the contract's starts: to the millisecond
    shown = read_json(bundle)
    assert all("." not in t["started_at"] for t in shown["tasks"])  # the bundle's: coarsened
    digest = shown["receipt"]["contract_sha256"]
    data = contract.read_bytes()
    assert digest != hashlib.sha256(data).hexdigest()  # was: the plain digest, a guess's check
    assert digest == _keyed(TEST_KEY, data)
    assert digest != _keyed(OTHER_KEY, data)


def test_unmatched_reveal_names_are_bound_but_not_confirmable(cli: Any, tmp_path: Path) -> None:
    """A name listed to reveal that the session never used is left out of the bundle: the
    contract's plain digest would have confirmed a guess at it."""

    def reveal(data: Any) -> None:
        data["claims"]["privacy"]["reveal_names"] = ["mcp__acme_payroll__lookup"]

    _, contract, bundle = _made(cli, tmp_path, reveal)
    receipt = read_json(bundle)["receipt"]
    assert receipt["privacy"]["reveal_names"] == []
    assert receipt["contract_sha256"] != hashlib.sha256(contract.read_bytes()).hexdigest()
    assert "acme" not in bundle.read_text()


def test_rederivation_checks_the_keyed_digest(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`verify --contract` compares the keyed digest: the bundle's own contract re-derives, an
    edited one is another contract (5), and under another key the key is named (2), not the
    contract called another."""
    parent, contract, bundle = _made(cli, tmp_path)
    verify = ("verify", "--bundle", str(bundle), "--contract")
    result = cli(*verify, str(contract), "--in", str(parent))
    assert result.code == 0, result.err
    edited = tmp_path / "edited.json"
    edited.write_bytes(contract.read_bytes() + b"\n")
    result = cli(*verify, str(edited), "--in", str(parent))
    assert result.code == 5, result.err
    assert "ATTEST-REDERIVE-OTHER-CONTRACT" in result.err
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", OTHER_KEY)
    result = cli(*verify, str(contract), "--in", str(parent))
    assert result.code == 2, result.err
    assert "ATTEST-REDERIVE-OTHER-KEY" in result.err
