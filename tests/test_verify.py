"""`agent-evidence verify` through the real CLI (SPEC §2, §9; issue 8).

Exit 0: every requested check passed. Exit 5: a check ran and found a mismatch. Exit 2: a check
could not run (missing file, unusable key, sources refused against the contract).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from converter.attest.dsse import sign_envelope
from converter.attest.keys import load_private_key, load_public_key
from converter.attest.statement import PAYLOAD_TYPE, attest, build_statement
from converter.bundle.io import evidence_digest
from converter.codec.canonical import canonical_bytes
from tests.conftest import FIXTURES, fixture_parent
from tests.contract_helpers import write_json
from tests.envelope_helpers import (
    cosigned,
    reindented,
    unsigned_positions,
    url_safe,
    with_extra_fields,
    with_keyid,
    with_other_signers,
)

PARENT = fixture_parent("synthetic_tree")
CONTRACT = FIXTURES / "synthetic_contract.json"
DEMO_KEY = "de" * 32  # the key fixtures/synthetic_contract.json was made under


@pytest.fixture(autouse=True)
def _demo_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", DEMO_KEY)


def make_bundle(
    cli: Any, folder: Path, name: str, *, edit: Any = None, signing_key: Path | None = None
) -> tuple[Path, Path]:
    """Convert the synthetic tree under a (possibly edited) contract; (bundle, contract) paths."""
    contract = json.loads(CONTRACT.read_text())
    if edit is not None:
        edit(contract["claims"])
    contract_path = folder / f"{name}.contract.json"
    write_json(contract_path, contract)
    out = folder / f"{name}.bundle.json"
    args = ["convert", "--in", str(PARENT), "--contract", str(contract_path), "--out", str(out)]
    if signing_key is not None:
        args += ["--attest-key", str(signing_key)]
    result = cli(*args)
    assert result.code == 0, result.err
    return out, contract_path


def keygen(cli: Any, path: Path) -> Path:
    assert cli("keygen", "--out", str(path)).code == 0
    return Path(f"{path}.pub")


def expensive(claims: dict[str, Any]) -> None:
    claims["policy"]["max_trace_cost_per_task_usd"] = "0.01"


@pytest.fixture
def signed(cli: Any, tmp_path: Path) -> tuple[Path, Path, Path]:
    """(bundle, its contract, public key) with <bundle>.intoto.json beside the bundle."""
    public = keygen(cli, tmp_path / "producer.pem")
    bundle, contract = make_bundle(cli, tmp_path, "b", signing_key=tmp_path / "producer.pem")
    return bundle, contract, public


def flip(path: Path, position: int) -> None:
    data = bytearray(path.read_bytes())
    data[position] ^= 0x01
    path.write_bytes(bytes(data))


# --- verified -----------------------------------------------------------------------------


def test_digest_only(cli: Any, signed: tuple[Path, Path, Path]) -> None:
    bundle, _, _ = signed
    result = cli("verify", "--bundle", str(bundle))
    assert result.code == 0, result.err
    assert result.out.count("ok: ") == 2
    assert "evidence digest recomputed" in result.out
    assert (
        "its parts agree, and the costs of its 6 events match the prices it carries" in result.out
    )
    # Signed, but no key given: the attestation's presence is not a checked signature.
    assert "not checked: the attestation beside it (who signed it): pass --public-key" in result.out


def test_an_evaluation_says_whether_signatures_were_checked(
    cli: Any, signed: tuple[Path, Path, Path]
) -> None:
    """Was: the same report with or without --public-key; forwarded alone, a reader could not
    tell an authenticated decision from one on whatever bundle was at hand."""
    from converter.attest.dsse import key_id
    from converter.attest.keys import load_public_key

    bundle, _, public = signed
    plain = cli("evaluate", "--bundle", str(bundle))
    assert "signatures: not checked (evaluate --public-key checks them)" in plain.out
    checked = cli("evaluate", "--bundle", str(bundle), "--public-key", str(public))
    expected = key_id(load_public_key(public))
    assert f"signatures: every attestation verified with key {expected}" in checked.out
    as_json = cli(
        "evaluate", "--bundle", str(bundle), "--public-key", str(public), "--format", "json"
    )
    assert json.loads(as_json.out)["digests"]["signed_by"] == expected


def test_verify_says_a_named_cards_prices_were_checked(cli: Any, tmp_path: Path) -> None:
    from converter.pricing.card import load_price_card

    body = json.loads((FIXTURES / "synthetic_bundle.golden.json").read_bytes())
    ref = load_price_card("anthropic-2026-11").ref().model_dump()
    body["receipt"]["price_card"] = body["pricing"]["price_card"] = ref
    body["receipt"].pop("evidence_sha256")
    body["receipt"]["evidence_sha256"] = evidence_digest(body)
    named = tmp_path / "named.json"
    named.write_bytes(canonical_bytes(body))
    result = cli("verify", "--bundle", str(named))
    assert result.code == 0, result.err
    line = "ok: the prices it carries for what the card prices are the card's (anthropic-2026-11)"
    assert line in result.out
    golden = cli("verify", "--bundle", str(FIXTURES / "synthetic_bundle.golden.json"))
    assert "the card's" not in golden.out  # it names no card


def test_signed_bundle_verifies(cli: Any, signed: tuple[Path, Path, Path]) -> None:
    bundle, _, public = signed
    result = cli("verify", "--bundle", str(bundle), "--public-key", str(public))
    assert result.code == 0, result.err
    notes = [line for line in result.out.splitlines() if line.startswith("note: ")]
    lines = [line for line in result.out.splitlines() if not line.startswith("note: ")]
    assert len(lines) == 4
    assert all(line.startswith("ok: ") for line in lines)
    assert "signature verifies" in lines[2]
    assert "receipt" in lines[3]
    # its contract names no card (an audit: nothing said whose its prices were)
    assert notes == ["note: it names no price card: every price it carries is the contract's own"]


def test_explicit_attestation_path(cli: Any, signed: tuple[Path, Path, Path]) -> None:
    bundle, _, public = signed
    moved = bundle.parent / "elsewhere.intoto.json"
    Path(f"{bundle}.intoto.json").rename(moved)
    result = cli(
        "verify", "--bundle", str(bundle), "--attestation", str(moved), "--public-key", str(public)
    )
    assert result.code == 0, result.err


def test_every_check_at_once(cli: Any, signed: tuple[Path, Path, Path]) -> None:
    bundle, contract, public = signed
    result = cli(
        "verify",
        "--bundle",
        str(bundle),
        "--public-key",
        str(public),
        "--contract",
        str(contract),
        "--in",
        str(PARENT),
    )
    assert result.code == 0, result.err
    assert result.out.count("ok: ") == 5
    assert "byte for byte" in result.out


def test_rederive_equal(cli: Any, tmp_path: Path) -> None:
    bundle, contract = make_bundle(cli, tmp_path, "b", edit=expensive)
    result = cli(
        "verify", "--bundle", str(bundle), "--contract", str(contract), "--in", str(PARENT)
    )
    assert result.code == 0, result.err
    assert result.out.count("ok: ") == 3


def test_checked_in_golden_bundle_rederives(cli: Any) -> None:
    golden = FIXTURES / "synthetic_bundle.golden.json"
    result = cli(
        "verify", "--bundle", str(golden), "--contract", str(CONTRACT), "--in", str(PARENT)
    )
    assert result.code == 0, result.err


def test_a_bundle_of_another_version_is_not_re_derived(cli: Any, tmp_path: Path) -> None:
    """Was: a 0.1 bundle gave ten refusals (inventory, tasks, outcomes) whose fixes told an
    auditor to change a contract that was not wrong; another version writes other bytes. (A v2
    bundle naming 0.1, which wrote only v1, is BUNDLE-SCHEMA-MISMATCH: a later one stands in.)"""
    body = json.loads((FIXTURES / "synthetic_bundle.golden.json").read_bytes())
    body["generator"]["version"] = "0.5.0"
    body["receipt"].pop("evidence_sha256")
    body["receipt"]["evidence_sha256"] = evidence_digest(body)
    old = tmp_path / "old.json"
    old.write_bytes(canonical_bytes(body))
    result = cli("verify", "--bundle", str(old), "--contract", str(CONTRACT), "--in", str(PARENT))
    assert result.code == 2
    said = [line for line in result.err.splitlines() if not line.startswith("notice: ")]
    assert [line.split(":")[1].strip() for line in said] == [
        "ATTEST-REDERIVE-OTHER-VERSION [generator/version 0.5.0]"  # which one to check out
    ]
    assert "ok: evidence digest recomputed" in result.out  # what this version can check, it did


@pytest.mark.parametrize(
    "rewrite",
    [
        reindented,
        url_safe,
        with_extra_fields,
        with_keyid(None),
        cosigned(Ed25519PrivateKey.generate(), first=True),
    ],
    ids=["indent", "url-safe", "extra-fields", "no-keyid", "co-signed"],
)
def test_envelope_rewritten_as_dsse_allows_verifies(
    cli: Any, signed: tuple[Path, Path, Path], rewrite: Any
) -> None:
    """Only PAE(payloadType, payload) is signed: a reformatted, co-signed or otherwise re-encoded
    envelope is the same attestation (DSSE envelope spec), for verify and for evaluate."""
    bundle, _, public = signed
    envelope = Path(f"{bundle}.intoto.json")
    decided = cli("evaluate", "--bundle", str(bundle), "--public-key", str(public)).code
    envelope.write_bytes(rewrite(envelope.read_bytes()))
    result = cli("verify", "--bundle", str(bundle), "--public-key", str(public))
    assert result.code == 0, result.err
    assert result.out.count("ok: ") == 4
    rerun = cli("evaluate", "--bundle", str(bundle), "--public-key", str(public))
    assert (rerun.code, "ATTEST-" in rerun.err) == (decided, False)


def test_a_co_signed_envelope_verifies_with_the_co_signers_key(
    cli: Any, signed: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    bundle, _, _ = signed
    co_public = keygen(cli, tmp_path / "co-signer.pem")
    envelope = Path(f"{bundle}.intoto.json")
    co_signer = cosigned(load_private_key(tmp_path / "co-signer.pem"), first=False)
    envelope.write_bytes(co_signer(envelope.read_bytes()))
    result = cli("verify", "--bundle", str(bundle), "--public-key", str(co_public))
    assert result.code == 0, result.err


def test_an_envelope_with_more_signatures_than_the_bound_is_refused_unchecked(
    cli: Any, signed: tuple[Path, Path, Path]
) -> None:
    """Was ATTEST-ENVELOPE-MALFORMED, exit 5 (do not trust; attest again) for a valid envelope
    co-signed by 16 other signers: DSSE sets no limit, in-toto wants several signers, and other
    verifiers accept it. Nothing was found altered, a check did not run: 2, its own code."""
    from converter.attest.dsse import MAX_SIGNATURES

    bundle, _, public = signed
    envelope = Path(f"{bundle}.intoto.json")
    original = envelope.read_bytes()
    decided = cli("evaluate", "--bundle", str(bundle), "--public-key", str(public)).code
    envelope.write_bytes(with_other_signers(MAX_SIGNATURES - 1, first=True)(original))
    assert cli("verify", "--bundle", str(bundle), "--public-key", str(public)).code == 0
    rerun = cli("evaluate", "--bundle", str(bundle), "--public-key", str(public))
    assert (rerun.code, "ATTEST-" in rerun.err) == (decided, False)
    envelope.write_bytes(with_other_signers(MAX_SIGNATURES, first=False)(original))
    for command in ("verify", "evaluate"):
        result = cli(command, "--bundle", str(bundle), "--public-key", str(public))
        assert result.code == 2, result.err
        assert result.err.startswith("refused: ATTEST-TOO-MANY-SIGNATURES"), result.err
        assert "ATTEST-ENVELOPE-MALFORMED" not in result.err
        assert "integrity" not in result.err


def test_verify_names_the_signing_key_by_the_envelopes_keyid(
    cli: Any, signed: tuple[Path, Path, Path]
) -> None:
    """One id for the signing key: what keygen and verify print is the envelope's keyid."""
    bundle, _, public = signed
    [signature] = json.loads(Path(f"{bundle}.intoto.json").read_bytes())["signatures"]
    result = cli("verify", "--bundle", str(bundle), "--public-key", str(public))
    assert f"verifies with key {signature['keyid']} " in result.out


def test_an_attestation_made_by_0_1_verifies(cli: Any, signed: tuple[Path, Path, Path]) -> None:
    """0.1 wrote keyid = SHA-256 of the raw public key; keyid is an unsigned hint."""
    bundle, _, public = signed
    raw = load_public_key(public).public_bytes(Encoding.Raw, PublicFormat.Raw)
    envelope = Path(f"{bundle}.intoto.json")
    envelope.write_bytes(with_keyid(hashlib.sha256(raw).hexdigest())(envelope.read_bytes()))
    result = cli("verify", "--bundle", str(bundle), "--public-key", str(public))
    assert result.code == 0, result.err


# --- mismatch: exit 5 ---------------------------------------------------------------------


def test_flipped_byte_in_bundle(cli: Any, signed: tuple[Path, Path, Path]) -> None:
    bundle, _, public = signed
    data = bundle.read_bytes()
    start = data.index(b'"output_tokens":') + len(b'"output_tokens":')
    last_digit = start + len(re.match(rb"\d+", data[start:]).group()) - 1  # stays valid JSON
    flip(bundle, last_digit)
    for args in ([], ["--public-key", str(public)]):
        result = cli("verify", "--bundle", str(bundle), *args)
        assert result.code == 5
        assert "BUNDLE-DIGEST-MISMATCH" in result.err


def test_a_bundle_damaged_into_invalid_json(cli: Any, signed: tuple[Path, Path, Path]) -> None:
    """Unsigned, no digest can be checked on bytes that do not parse: refused (2) like a cut
    download. Signed, the signature is over those very bytes: a mismatch (5), for verify and
    evaluate alike (was: 2 with the attestation beside it, for about 1 flip in 3)."""
    bundle, _, public = signed
    data = bundle.read_bytes()
    bundle.write_bytes(data.replace(b'"output_tokens":', b'"output_tokens"', 1))
    result = cli("verify", "--bundle", str(bundle))
    assert result.code == 2
    assert "BUNDLE-NOT-A-BUNDLE" in result.err
    for command in ("verify", "evaluate"):
        result = cli(command, "--bundle", str(bundle), "--public-key", str(public))
        assert result.code == 5, (command, result.err)
        assert result.err.startswith("integrity: ATTEST-SUBJECT-MISMATCH"), result.err
        # and what is wrong with the bundle itself, said with it (every problem of a run)
        assert "refused: BUNDLE-NOT-A-BUNDLE" in result.err


@pytest.mark.parametrize("damage", ["first-byte", "nul-inside", "nul-first"])
def test_a_signed_bundle_refused_by_its_first_bytes_is_a_mismatch(
    damage: str, cli: Any, signed: tuple[Path, Path, Path]
) -> None:
    """Was: a first byte no JSON starts with, or a NUL in the first block, was refused (2)
    before the signature was checked, in verify, evaluate and the Action alike, where every
    other changed byte was 5 (a supply-chain audit). Unsigned, it is still refused; signed
    over these very bytes, it would be too."""
    bundle, _, public = signed
    data = bytearray(bundle.read_bytes())
    at = {"first-byte": 0, "nul-inside": 3000, "nul-first": 0}[damage]
    data[at] = ord("x") if damage == "first-byte" else 0
    bundle.write_bytes(bytes(data))
    result = cli("verify", "--bundle", str(bundle))
    assert result.code == 2, result.err
    assert result.err.startswith("refused: BUNDLE-NOT-A-BUNDLE")
    for command in ("verify", "evaluate"):
        result = cli(command, "--bundle", str(bundle), "--public-key", str(public))
        assert result.code == 5, (command, result.err)
        assert result.err.startswith("integrity: ATTEST-SUBJECT-MISMATCH"), result.err
        assert "refused: BUNDLE-NOT-A-BUNDLE" in result.err
    Path(f"{bundle}.intoto.json").unlink()  # nothing to check it against: refused as before
    result = cli("verify", "--bundle", str(bundle), "--public-key", str(public))
    assert result.code == 2, result.err
    assert "integrity:" not in result.err


@pytest.mark.parametrize(
    "unusable", ["no-attestation", "not-an-envelope", "bad-key", "no-attestation-and-bad-key"]
)
def test_a_tampered_bundle_is_a_mismatch_whatever_stops_the_signature_check(
    unusable: str, cli: Any, signed: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """Was (for a day): the attestation was read before the bundle's digest was checked, so a
    changed value with no usable attestation or key beside it was refused (2), not 5."""
    bundle, _, public = signed
    data = bundle.read_bytes()
    start = data.index(b'"output_tokens":') + len(b'"output_tokens":')
    flip(bundle, start + len(re.match(rb"\d+", data[start:]).group()) - 1)
    envelope = Path(f"{bundle}.intoto.json")
    if unusable.startswith("no-attestation"):
        envelope.unlink()
    elif unusable == "not-an-envelope":
        envelope.write_bytes(data)
    if unusable.endswith("bad-key"):
        public = tmp_path / "not-a-key.pub"
        public.write_text("not a key")
    for command in ("verify", "evaluate"):
        result = cli(command, "--bundle", str(bundle), "--public-key", str(public))
        assert result.code == 5, (command, result.err)
        assert result.err.startswith("integrity: BUNDLE-DIGEST-MISMATCH"), result.err
        assert "refused: ATTEST-" in result.err  # and why the signature was not checked
        if unusable == "no-attestation-and-bad-key" and command == "verify":
            assert "ATTEST-MISSING" in result.err  # both: every finding of the run
            assert "ATTEST-PUBLIC-KEY-INVALID" in result.err


def test_resealed_bundle_fails_the_attestation(cli: Any, signed: tuple[Path, Path, Path]) -> None:
    """An edit that recomputes evidence_sha256 passes the digest check; the signature catches it."""
    bundle, _, public = signed
    body = json.loads(bundle.read_text())
    body["policy"]["min_tasks"] = 0 if body["policy"]["min_tasks"] else 1
    body["receipt"]["evidence_sha256"] = evidence_digest(body)
    bundle.write_bytes(canonical_bytes(body))
    assert cli("verify", "--bundle", str(bundle)).code == 0  # self-consistent on its own
    result = cli("verify", "--bundle", str(bundle), "--public-key", str(public))
    assert result.code == 5
    assert "ATTEST-SUBJECT-MISMATCH" in result.err


@pytest.mark.parametrize("where", [0.2, 0.4, 0.6, 0.8])
def test_flipped_byte_in_envelope(cli: Any, signed: tuple[Path, Path, Path], where: float) -> None:
    bundle, _, public = signed
    envelope = Path(f"{bundle}.intoto.json")
    data = envelope.read_bytes()
    position = int(where * len(data))
    assert data.index(b'"payload":"') < position < data.index(b'","payloadType"')  # signed
    flip(envelope, position)
    result = cli("verify", "--bundle", str(bundle), "--public-key", str(public))
    assert result.code == 5, result.err
    assert "integrity: ATTEST-" in result.err


def test_every_signed_byte_of_the_envelope_matters(
    cli: Any, signed: tuple[Path, Path, Path]
) -> None:
    """A flip may verify only where DSSE signs nothing (the keyid hint, spare base64 bits)."""
    bundle, _, public = signed
    envelope = Path(f"{bundle}.intoto.json")
    original = envelope.read_bytes()
    unsigned = unsigned_positions(original)
    in_keyid = original.index(b'"keyid":"') + len(b'"keyid":"')
    step = max(1, len(original) // 97)
    for position in sorted({*range(0, len(original), step), in_keyid}):
        damaged = bytearray(original)
        damaged[position] ^= 0x01
        envelope.write_bytes(bytes(damaged))
        result = cli("verify", "--bundle", str(bundle), "--public-key", str(public))
        if position == in_keyid:
            assert result.code == 0, result.err
        else:
            # A flip that leaves no JSON (a broken brace or quote) still leaves an envelope's
            # bytes: damaged, 5. So is a flipped field name (an envelope missing a field).
            assert result.code in ((0, 5) if position in unsigned else (5,)), position


def test_wrong_public_key(cli: Any, signed: tuple[Path, Path, Path], tmp_path: Path) -> None:
    bundle, _, _ = signed
    other = keygen(cli, tmp_path / "other.pem")
    result = cli("verify", "--bundle", str(bundle), "--public-key", str(other))
    assert result.code == 5
    assert "ATTEST-SIGNATURE-INVALID" in result.err


def test_attestation_of_another_bundle(
    cli: Any, signed: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    bundle, _, public = signed
    other, _ = make_bundle(
        cli, tmp_path, "other", edit=expensive, signing_key=tmp_path / "producer.pem"
    )
    result = cli(
        "verify",
        "--bundle",
        str(bundle),
        "--attestation",
        f"{other}.intoto.json",
        "--public-key",
        str(public),
    )
    assert result.code == 5
    assert "ATTEST-SUBJECT-MISMATCH" in result.err


def test_signed_receipt_must_be_the_bundles(
    cli: Any, signed: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """A validly signed statement naming these bytes but carrying another receipt is refused."""
    bundle, _, public = signed
    data = bundle.read_bytes()
    receipt = json.loads(data)["receipt"]
    receipt["rubric_version"] = receipt["rubric_version"] + "-other"
    envelope = attest(data, bundle.name, receipt, load_private_key(tmp_path / "producer.pem"))
    Path(f"{bundle}.intoto.json").write_bytes(envelope)
    result = cli("verify", "--bundle", str(bundle), "--public-key", str(public))
    assert result.code == 5
    assert "ATTEST-RECEIPT-MISMATCH" in result.err
    assert result.out.count("ok: ") == 3  # digest, parts and signature passed before the mismatch


def test_rederive_under_another_contract(cli: Any, tmp_path: Path) -> None:
    bundle, _ = make_bundle(cli, tmp_path, "b")
    _, other_contract = make_bundle(cli, tmp_path, "other", edit=expensive)
    result = cli(
        "verify", "--bundle", str(bundle), "--contract", str(other_contract), "--in", str(PARENT)
    )
    assert result.code == 5
    assert "ATTEST-REDERIVE-OTHER-CONTRACT" in result.err


def test_a_receipt_edited_to_name_another_task_unit_is_a_mismatch(cli: Any, tmp_path: Path) -> None:
    """Was: the receipt's task unit chose how to read the sources, so a resealed receipt naming
    `session` made the genuine contract refuse (2, CONTRACT-SOURCE-MISMATCH): "could not
    check" for a bundle that does not match its contract."""
    bundle, contract = make_bundle(cli, tmp_path, "b")
    body = json.loads(bundle.read_bytes())
    body["receipt"]["task_unit"] = "session"
    body["receipt"].pop("evidence_sha256")
    body["receipt"]["evidence_sha256"] = evidence_digest(body)
    bundle.write_bytes(canonical_bytes(body))
    result = cli(
        "verify", "--bundle", str(bundle), "--contract", str(contract), "--in", str(PARENT)
    )
    assert result.code == 5, result.err
    assert "ATTEST-REDERIVE-MISMATCH" in result.err


def _without(field: str, renamed: str | None = None) -> Any:
    def damage(envelope: bytes) -> bytes:
        document = json.loads(envelope)
        value = document.pop(field)
        if renamed is not None:
            document[renamed] = value
        return canonical_bytes(document)

    return damage


@pytest.mark.parametrize(
    "damage",
    [
        _without("signatures"),
        _without("signatures", renamed="signature"),
        _without("payload"),
        _without("payloadType", renamed="payload_type"),
        lambda envelope: canonical_bytes({**json.loads(envelope), "signatures": []}),
    ],
    ids=["no-signatures", "signatures-renamed", "no-payload", "payloadType-renamed", "empty"],
)
def test_an_envelope_missing_a_field_is_an_integrity_failure(
    cli: Any, signed: tuple[Path, Path, Path], damage: Any
) -> None:
    """Was: a deleted or renamed `signatures` was ATTEST-NOT-AN-ENVELOPE (2), while
    `signatures: []` was 5. An object with a payload or payloadType is an envelope that was
    damaged after it was written, by verify and by evaluate alike."""
    bundle, _, public = signed
    envelope = Path(f"{bundle}.intoto.json")
    envelope.write_bytes(damage(envelope.read_bytes()))
    for command in ("verify", "evaluate"):
        result = cli(command, "--bundle", str(bundle), "--public-key", str(public))
        assert result.code == 5, result.err
        assert "ATTEST-" in result.err
        assert "ATTEST-NOT-AN-ENVELOPE" not in result.err


# --- could not check: exit 2 --------------------------------------------------------------


@pytest.mark.parametrize("how", ["missing", "empty"])
def test_missing_attestation_with_key(how: str, cli: Any, signed: tuple[Path, Path, Path]) -> None:
    """An empty file is a write or download that never happened, not a forged envelope."""
    bundle, _, public = signed
    attestation = Path(f"{bundle}.intoto.json")
    if how == "missing":
        attestation.unlink()
    else:
        attestation.write_bytes(b"")
    for command in ("verify", "evaluate"):
        result = cli(command, "--bundle", str(bundle), "--public-key", str(public))
        assert result.code == 2
        assert "ATTEST-MISSING" in result.err


def test_a_resealed_bundle_says_every_problem_beside_the_signature(
    cli: Any, signed: tuple[Path, Path, Path]
) -> None:
    """Was ATTEST-SUBJECT-MISMATCH alone with --public-key, while verify without it listed the
    bundle's own disagreements: a run reports every problem it finds. The signed receipt is
    compared too, so the report says the receipt is not the one signed."""
    bundle, _, public = signed
    bundle_before = bundle.read_bytes()
    document = json.loads(bundle_before)
    document["events"][0]["task"] = "task-000000000000"
    document["receipt"]["rubric_version"] = "other-rubric"
    document["receipt"]["evidence_sha256"] = evidence_digest(document)
    bundle.write_bytes(canonical_bytes(document))
    plain = cli("verify", "--bundle", str(bundle))
    assert plain.code == 2
    assert "BUNDLE-DANGLING-REFERENCE" in plain.err
    for command in ("verify", "evaluate"):
        result = cli(command, "--bundle", str(bundle), "--public-key", str(public))
        assert result.code == 5, (command, result.err)
        assert result.err.startswith("integrity: ATTEST-SUBJECT-MISMATCH"), result.err
        assert "BUNDLE-DANGLING-REFERENCE" in result.err
    # The same edit to the receipt alone: the bundle opens, and its receipt is not the signed one.
    document["events"][0]["task"] = json.loads(bundle_before)["events"][0]["task"]
    document["receipt"]["evidence_sha256"] = evidence_digest(document)
    bundle.write_bytes(canonical_bytes(document))
    result = cli("verify", "--bundle", str(bundle), "--public-key", str(public))
    assert result.code == 5, result.err
    assert "ATTEST-SUBJECT-MISMATCH" in result.err
    assert "ATTEST-RECEIPT-MISMATCH" in result.err


def _resign(bundle: Path, signing_key: Path, receipt: dict[str, Any], **digests: str) -> None:
    """<bundle>.intoto.json re-signed by the producer over a statement of the bundle's bytes whose
    subject names `digests` too, as another in-toto producer's may (algorithm agility)."""
    statement = build_statement(bundle.read_bytes(), "bundle.json", receipt)
    document = statement.model_dump(mode="json", by_alias=True)
    document["subject"][0]["digest"].update(digests)
    key = load_private_key(signing_key)
    envelope = sign_envelope(canonical_bytes(document), PAYLOAD_TYPE, key).to_bytes()
    Path(f"{bundle}.intoto.json").write_bytes(envelope)


@pytest.mark.parametrize("command", ["verify", "evaluate"])
def test_every_subject_digest_verify_can_compute_must_be_the_bundles(
    command: str, cli: Any, signed: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """Was: only the subject's sha256 was compared, so a statement signed by the key whose
    sha512 named other bytes verified (0). Every digest it can compute is checked: one wrong
    is ATTEST-SUBJECT-MISMATCH (5), as a wrong sha256 is; an algorithm it does not know is
    ignored, as in-toto's DigestSet requires."""
    bundle, _, public = signed
    data = bundle.read_bytes()
    receipt = json.loads(data)["receipt"]
    sha512 = hashlib.sha512(data).hexdigest()
    args = (command, "--bundle", str(bundle), "--public-key", str(public))

    _resign(bundle, tmp_path / "producer.pem", receipt, sha512=sha512, sha3_256="0" * 64)
    result = cli(*args)
    assert result.code == 5, result.err
    assert result.err.startswith("integrity: ATTEST-SUBJECT-MISMATCH"), result.err
    assert "ATTEST-RECEIPT-MISMATCH" not in result.err  # the receipt signed is the bundle's

    _resign(bundle, tmp_path / "producer.pem", receipt, sha512=hashlib.sha512(b"other").hexdigest())
    result = cli(*args)
    assert result.code == 5, result.err
    assert result.err.startswith("integrity: ATTEST-SUBJECT-MISMATCH"), result.err

    _resign(bundle, tmp_path / "producer.pem", receipt, sha512=sha512)
    assert cli(*args).code == 0, cli(*args).err

    _resign(bundle, tmp_path / "producer.pem", receipt, sha512=sha512, somecoolhash="not hex")
    assert cli(*args).code == 0, cli(*args).err


def test_a_bundle_refused_by_its_first_bytes_is_a_mismatch_on_any_digest(
    cli: Any, signed: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """The bundle no JSON starts, read a block at a time for the signature (never held whole):
    a signature over these very bytes leaves it refused (2) only when every digest it names
    is theirs; a wrong sha512 beside the right sha256 is a mismatch (5) there too."""
    bundle, _, public = signed
    data = bytearray(bundle.read_bytes())
    receipt = json.loads(data)["receipt"]
    data[0] = ord("x")
    bundle.write_bytes(bytes(data))
    args = ("verify", "--bundle", str(bundle), "--public-key", str(public))

    _resign(bundle, tmp_path / "producer.pem", receipt, sha512=_flipped(hashlib.sha512(data)))
    result = cli(*args)
    assert result.code == 5, result.err
    assert result.err.startswith("integrity: ATTEST-SUBJECT-MISMATCH"), result.err
    assert "refused: BUNDLE-NOT-A-BUNDLE" in result.err

    _resign(bundle, tmp_path / "producer.pem", receipt, sha512=hashlib.sha512(data).hexdigest())
    result = cli(*args)
    assert result.code == 2, result.err
    assert result.err.startswith("refused: BUNDLE-NOT-A-BUNDLE"), result.err


def _flipped(digest: Any) -> str:
    """A digest's hex, its last digit changed: the same form, other bytes."""
    hex_digest: str = digest.hexdigest()
    return hex_digest[:-1] + ("0" if hex_digest[-1] != "0" else "1")


def test_an_attestation_larger_than_any_we_write_is_not_read(
    cli: Any, signed: tuple[Path, Path, Path]
) -> None:
    """Was read whole: a 200 MiB envelope took verify to 663 MB of memory (and 1 GB with a bad
    signature). Nothing this program writes comes near 64 MiB; a larger file is refused unread."""
    from converter.attest.signed import MAX_ENVELOPE_BYTES

    bundle, _, public = signed
    attestation = Path(f"{bundle}.intoto.json")
    with attestation.open("r+b") as stream:
        stream.truncate(MAX_ENVELOPE_BYTES + 1)  # sparse: costs the disk nothing
    for command in ("verify", "evaluate"):
        result = cli(command, "--bundle", str(bundle), "--public-key", str(public))
        assert result.code == 2, result.err
        assert "ATTEST-TOO-LARGE" in result.err


def _cut_short(bundle: Path, envelope: bytes) -> bytes:
    return envelope[: len(envelope) // 2]


def _the_bundle(bundle: Path, envelope: bytes) -> bytes:
    return bundle.read_bytes()


def _signatures_only(bundle: Path, envelope: bytes) -> bytes:
    """Another signed document's shape (TUF metadata, an in-toto 0.9 link): `signatures` alone."""
    return canonical_bytes({"signed": {}, "signatures": json.loads(envelope)["signatures"]})


@pytest.mark.parametrize(
    ("damage", "exit_code", "code"),
    [
        (_cut_short, 5, "ATTEST-ENVELOPE-MALFORMED"),
        (_the_bundle, 2, "ATTEST-NOT-AN-ENVELOPE"),
        (_signatures_only, 2, "ATTEST-NOT-AN-ENVELOPE"),
    ],
)
def test_an_attestation_that_is_no_envelope_is_refused(
    cli: Any, signed: tuple[Path, Path, Path], damage: Any, exit_code: int, code: str
) -> None:
    """An envelope's bytes that no longer parse were changed after they were written (5). Not
    JSON with a payload key, or an object with neither payload nor payloadType: no signature
    to check, so refused (2) as a file that is not a bundle is, by verify and evaluate alike."""
    bundle, _, public = signed
    envelope = Path(f"{bundle}.intoto.json")
    envelope.write_bytes(damage(bundle, envelope.read_bytes()))
    for command in ("verify", "evaluate"):
        result = cli(command, "--bundle", str(bundle), "--public-key", str(public))
        assert result.code == exit_code, result.err
        assert code in result.err
    if exit_code == 5:
        return
    explicit = cli(
        "verify", "--bundle", str(bundle), "--attestation", str(bundle), "--public-key", str(public)
    )
    assert explicit.code == 2
    assert "ATTEST-NOT-AN-ENVELOPE" in explicit.err


def test_unreadable_public_key(cli: Any, signed: tuple[Path, Path, Path], tmp_path: Path) -> None:
    bundle, _, _ = signed
    result = cli("verify", "--bundle", str(bundle), "--public-key", str(tmp_path / "none.pub"))
    assert result.code == 2
    assert "ATTEST-KEY-UNREADABLE" in result.err


def test_missing_bundle(cli: Any, tmp_path: Path) -> None:
    result = cli("verify", "--bundle", str(tmp_path / "none.json"))
    assert result.code == 2
    assert "BUNDLE-UNREADABLE" in result.err


def _rederive(cli: Any, bundle: Path, contract: Path, parent: str, *extra: str) -> Any:
    return cli(
        "verify", "--bundle", str(bundle), "--contract", str(contract), "--in", parent, *extra
    )


def test_rederive_after_a_source_file_changed(cli: Any, tmp_path: Path) -> None:
    """5, was 2: the bundle's own contract binds every source file's SHA-256, and a file that
    no longer has it is a digest that does not match (SPEC §2), not input to fix. Each changed
    file is named below the failure (CONTRACT-FILE-CHANGED), as convert would name it."""
    bundle, contract = make_bundle(cli, tmp_path, "b")
    tree = tmp_path / "tree"
    shutil.copytree(PARENT.parent, tree)
    child = next((tree / PARENT.stem / "subagents").glob("agent-*.jsonl"))
    text = child.read_bytes()
    assert b"retry paths" in text
    child.write_bytes(text.replace(b"retry paths", b"retry pathz", 1))  # still valid JSON
    result = _rederive(cli, bundle, contract, str(tree / PARENT.name))
    assert result.code == 5
    lines = [line for line in result.err.splitlines() if not line.startswith("notice: ")]
    assert lines[0].startswith("integrity: ATTEST-REDERIVE-SOURCES-CHANGED: ")
    assert [line.split()[1] for line in lines[1:]] == [
        "CONTRACT-FILE-CHANGED",
        "CONTRACT-INVENTORY-MISMATCH",
    ]
    assert result.out.count("ok: ") == 2  # the digest and parts checks still ran and passed


def test_rederive_after_an_agent_transcript_was_copied_into_the_tree(
    cli: Any, tmp_path: Path
) -> None:
    """A copy of an agent transcript added to the tree is a file added (5, the copy named), as
    it was before CC-TREE-AGENT-ID-TWICE made the layout refuse it: a layout that lists every
    file still compares by the files' bytes."""
    bundle, contract = make_bundle(cli, tmp_path, "b")
    tree = tmp_path / "tree"
    shutil.copytree(PARENT.parent, tree)
    child = next((tree / PARENT.stem / "subagents").glob("agent-*.jsonl"))
    run = tree / PARENT.stem / "subagents" / "workflows" / "wf_copy"
    run.mkdir(parents=True)
    shutil.copy(child, run / child.name)
    result = _rederive(cli, bundle, contract, str(tree / PARENT.name))
    assert result.code == 5, result.err
    found = [line.split()[1] for line in result.err.splitlines() if line.startswith("  found: ")]
    assert "CONTRACT-FILE-ADDED" in found
    assert "CC-TREE-AGENT-ID-TWICE" in found


def test_rederive_names_the_file_of_each_line_it_found(cli: Any, tmp_path: Path) -> None:
    """An attest audit: after a token count was edited, the `found:` lines said `[line 4]`, of
    no file, where convert says `[subagent/file-… line 4]`; and `--show-paths` added nothing."""
    bundle, contract = make_bundle(cli, tmp_path, "b")
    tree = tmp_path / "tree"
    shutil.copytree(PARENT.parent, tree)
    parent = tree / PARENT.name
    text = parent.read_bytes()
    old = re.search(rb'"output_tokens": ?150', text)
    assert old is not None
    parent.write_bytes(text.replace(old.group(0), b'"output_tokens": 151', 1))
    result = _rederive(cli, bundle, contract, str(parent))
    assert result.code == 5
    found = [line for line in result.err.splitlines() if line.startswith("  found: ")]
    with_line = [line for line in found if " line " in line]
    assert with_line, found
    for line in with_line:
        assert re.search(r"\[(parent|subagent)/file-[0-9a-f]{12} line [0-9]+\]", line), line
    shown = _rederive(cli, bundle, contract, str(parent), "--show-paths")
    assert PARENT.name in shown.err  # the local path, with --show-paths only
    assert PARENT.name not in result.err


def test_rederive_after_the_session_went_on_with_a_delegation_running(
    cli: Any, tmp_path: Path
) -> None:
    """5, was 2 (CC-TREE-UNEXPANDED-DELEGATION alone): a session that went on after the
    conversion, with an Agent call whose child has not been written yet, no longer converts,
    and its files are compared by their bytes."""
    bundle, contract = make_bundle(cli, tmp_path, "b")
    tree = tmp_path / "tree"
    shutil.copytree(PARENT.parent, tree)
    parent = tree / PARENT.name
    last = json.loads(parent.read_bytes().splitlines()[-2])  # the parent's last call
    last["uuid"] = "0a9e0000-0000-4000-8000-000000000001"
    last["message"]["id"] = "msg_a_call_made_after_the_conversion"
    last["message"]["content"] = [
        {"type": "tool_use", "id": "toolu_still_running_0001", "name": "Agent", "input": {}}
    ]
    with parent.open("a") as out:
        out.write(json.dumps(last) + "\n")
    result = cli(
        "verify", "--bundle", str(bundle), "--contract", str(contract), "--in", str(parent)
    )
    assert result.code == 5, result.err
    lines = [line for line in result.err.splitlines() if not line.startswith("notice: ")]
    assert lines[0].startswith("integrity: ATTEST-REDERIVE-SOURCES-CHANGED")
    assert lines[1].startswith("  found: CONTRACT-FILE-CHANGED [inventory/files/file-")
    assert any("CC-TREE-UNEXPANDED-DELEGATION" in line for line in lines[2:])
    assert PARENT.name not in result.err
    shown = _rederive(cli, bundle, contract, str(parent), "--show-paths")
    assert f"({PARENT.name})" in shown.err  # the changed file, traced on this terminal only


def _single_file_bundle(cli: Any, tmp_path: Path) -> tuple[Path, Path, Path]:
    """(transcript `excerpt.jsonl`, its bundle, its contract), converted `--from claude-code`."""
    from tests.contract_helpers import fill, read_json
    from tests.test_layouts import _parent  # one prompt, one call: no children

    folder = tmp_path / "session"
    folder.mkdir()
    excerpt = _parent(folder).rename(folder / "excerpt.jsonl")
    template, contract, bundle = (tmp_path / n for n in ("t.json", "c.json", "b.json"))
    single = ("--from", "claude-code", "--in", str(excerpt))
    assert cli("convert", *single, "--template", str(template)).code == 0
    write_json(contract, fill(read_json(template)))
    made = cli("convert", *single, "--contract", str(contract), "--out", str(bundle))
    assert made.code == 0, made.err
    return excerpt, bundle, contract


def test_rederive_from_a_renamed_transcript_is_renamed_not_changed(
    cli: Any, tmp_path: Path
) -> None:
    """A determinism audit: a `--from claude-code` transcript saved again by a browser as
    `excerpt (1).jsonl`, byte for byte the one converted, was ATTEST-REDERIVE-SOURCES-CHANGED,
    5, "do not trust the bundle" (a file added, one removed, the inventory's digest). The
    label is keyed over the name: the check could not run as given (2), the rename said below
    it, no file name without --show-paths; under its own name again, it verifies."""
    excerpt, bundle, contract = _single_file_bundle(cli, tmp_path)
    renamed = excerpt.rename(excerpt.with_name("excerpt (1).jsonl"))
    result = _rederive(cli, bundle, contract, str(renamed))
    assert result.code == 2, result.err
    lines = [line for line in result.err.splitlines() if not line.startswith("notice: ")]
    assert lines[0].startswith("refused: ATTEST-REDERIVE-RENAMED: ")
    assert [line.split()[1] for line in lines[1:]] == ["CONTRACT-FILE-RENAMED"]
    assert lines[1].startswith("  found: CONTRACT-FILE-RENAMED [inventory/files/file-")
    assert "Fix:" not in lines[1]  # the producer's fixes are not the verifier's
    assert "SOURCES-CHANGED" not in result.err
    assert "excerpt" not in result.err
    assert result.out.count("ok: ") == 2  # the digest and parts checks still ran and passed
    shown = _rederive(cli, bundle, contract, str(renamed), "--show-paths")
    assert shown.code == 2
    assert "] (excerpt (1).jsonl): " in shown.err
    back = renamed.rename(excerpt)
    assert _rederive(cli, bundle, contract, str(back)).code == 0


def test_rederive_from_a_renamed_transcript_that_changed_too(cli: Any, tmp_path: Path) -> None:
    """Renamed and grown by a line: no file of the bundle's is given, by name or bytes, so it
    is another session's (5), never a rename."""
    excerpt, bundle, contract = _single_file_bundle(cli, tmp_path)
    renamed = excerpt.rename(excerpt.with_name("excerpt (1).jsonl"))
    lines = renamed.read_bytes().splitlines(keepends=True)
    renamed.write_bytes(b"".join([*lines, lines[-1]]))
    result = _rederive(cli, bundle, contract, str(renamed))
    assert result.code == 5, result.err
    assert "RENAMED" not in result.err


@pytest.mark.parametrize("change", [False, True], ids=["renamed", "renamed-and-changed"])
def test_rederive_with_a_renamed_subagent(cli: Any, tmp_path: Path, change: bool) -> None:
    """The synthetic tree's subagent renamed to another valid agent id (its transcript and
    meta): the reader refuses the tree (its records name the id it was converted under,
    CC-TREE-JOIN-CONFLICT), and its files' bytes are the bound ones: renamed, 2, the
    refusal below. Its transcript changed too, that is a file added and one removed: 5."""
    from tests.test_convert import _rename_child

    bundle, contract = make_bundle(cli, tmp_path, "b")
    tree = tmp_path / "tree"
    shutil.copytree(PARENT.parent, tree)
    _rename_child(tree / PARENT.name, change=change)
    result = _rederive(cli, bundle, contract, str(tree / PARENT.name))
    found = [line.split()[1] for line in result.err.splitlines() if line.startswith("  found: ")]
    assert "a3088bfe7965a5c0" not in result.err  # the agent ids of the file names
    if not change:
        assert result.code == 2, result.err
        assert "refused: ATTEST-REDERIVE-RENAMED: " in result.err
        assert sorted(found) == ["CC-TREE-JOIN-CONFLICT", *["CONTRACT-FILE-RENAMED"] * 2]
        return
    assert result.code == 5, result.err
    assert "integrity: ATTEST-REDERIVE-SOURCES-CHANGED: " in result.err
    assert {"CONTRACT-FILE-ADDED", "CONTRACT-FILE-REMOVED", "CONTRACT-FILE-RENAMED"} <= set(found)


@pytest.mark.parametrize("mistake", ["missing-parent", "single-file", "child-as-parent"])
def test_a_mistyped_rederivation_is_a_refusal_not_a_mismatch(
    cli: Any, tmp_path: Path, mistake: str
) -> None:
    """A parent that does not exist, `--from claude-code` against a tree's contract, or a
    subagent given as the parent: the files cannot be compared, so 2 with its refusal (the
    byte comparison of a tree that does not convert said "removed" of every unlisted file: 5)."""
    bundle, contract = make_bundle(cli, tmp_path, "b")
    child = next(PARENT.parent.rglob("agent-*.jsonl"))
    given = {
        "missing-parent": ["--in", str(PARENT.with_suffix(".json"))],
        "single-file": ["--in", str(PARENT), "--from", "claude-code"],
        "child-as-parent": ["--in", str(child)],
    }[mistake]
    result = cli("verify", "--bundle", str(bundle), "--contract", str(contract), *given)
    assert result.code == 2, result.err
    assert "ATTEST-REDERIVE-SOURCES-CHANGED" not in result.err


def test_rederive_under_another_pseudonym_key(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle, contract = make_bundle(cli, tmp_path, "b")
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", "ab" * 32)
    result = cli(
        "verify", "--bundle", str(bundle), "--contract", str(contract), "--in", str(PARENT)
    )
    assert result.code == 2
    # the verifier's to fix (a walk-through: the producer's "make a new template" was shown)
    refused = [line for line in result.err.splitlines() if line.startswith("refused")]
    assert len(refused) == 1
    assert refused[0].startswith("refused: ATTEST-REDERIVE-OTHER-KEY ")
    assert "template" not in result.err


def test_rederive_from_another_session_is_one_refusal(cli: Any, tmp_path: Path) -> None:
    """The bundle's own contract, but --in names another session: one cause, not every file,
    count, task and price that differs because of it; the sources are not the bundle's (5).
    It was said as ATTEST-REDERIVE-SOURCES-CHANGED, as if the files had changed (a
    walk-through: a wrong --in looked like tampering)."""
    bundle, contract = make_bundle(cli, tmp_path, "b")
    other = fixture_parent("rich_tree")
    result = cli("verify", "--bundle", str(bundle), "--contract", str(contract), "--in", str(other))
    assert result.code == 5
    lines = [line for line in result.err.splitlines() if not line.startswith(("ok:", "not "))]
    assert lines == [
        line for line in lines if line.startswith(("notice:", "integrity: ATTEST-REDERIVE-OTHER-"))
    ]
    assert "integrity: ATTEST-REDERIVE-OTHER-SESSION: " in result.err
    assert "CHANGED" not in result.err
    assert "refused: " not in result.err


def test_convert_of_a_contract_never_creates_a_key(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A walk-through: with no key anywhere, convert --contract made a new key (which can never
    be the contract's), then refused CONTRACT-KEY-MISMATCH, and left the key behind (a later
    `key init` said KEY-EXISTS). So did --from-contract."""
    bundle, contract = make_bundle(cli, tmp_path, "b")
    monkeypatch.delenv("AGENT_EVIDENCE_KEY")
    result = cli("convert", "--in", str(PARENT), "--contract", str(contract), "--out", str(bundle))
    assert (result.code, _codes(result.err)) == (2, ["KEY-MISSING"])
    again = tmp_path / "again.json"
    result = cli(
        "convert", "--in", str(PARENT), "--template", str(again), "--from-contract", str(contract)
    )
    assert (result.code, _codes(result.err)) == (2, ["KEY-MISSING"])
    assert not (tmp_path / "config").exists()
    assert cli("convert", "--in", str(PARENT), "--template", str(again)).code == 0  # makes one
    assert (tmp_path / "config").exists()


def _codes(err: str) -> list[str]:
    return [line.split()[1].rstrip(":") for line in err.splitlines() if line.startswith("refused")]


def test_rederive_never_creates_a_key(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle, contract = make_bundle(cli, tmp_path, "b")
    monkeypatch.delenv("AGENT_EVIDENCE_KEY")
    result = cli(
        "verify", "--bundle", str(bundle), "--contract", str(contract), "--in", str(PARENT)
    )
    assert result.code == 2
    assert "KEY-MISSING" in result.err
    assert not (tmp_path / "config").exists()


def test_the_key_and_the_contract_are_said_with_the_bundles_problems(
    cli: Any, signed: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Was: a missing or invalid --key-file, and a contract that is no contract at all (a
    stray comma), said only once every problem of the bundle and its attestation was fixed,
    where docs/commands.md says the files the options name are checked first, together.
    The sources are still never read for a run that cannot re-derive."""
    monkeypatch.setattr("converter.run.conversion.make_bundle", _never_made)
    bundle, contract, public = signed
    missing, junk = tmp_path / "no.key", tmp_path / "junk.key"
    junk.write_text("not a key")
    junk.chmod(0o600)
    broken = tmp_path / "broken.json"
    broken.write_text('{"a": 1,}')
    rederive = ("--contract", str(broken), "--in", str(PARENT))
    absent = ("--public-key", str(public), "--attestation", str(tmp_path / "none.intoto.json"))
    for key, code in ((missing, "KEY-FILE-MISSING"), (junk, "KEY-INVALID")):
        keyed = ("--key-file", str(key))
        result = cli("verify", "--bundle", str(bundle), *absent, *rederive, *keyed)
        assert (result.code, _codes(result.err)) == (
            2,
            ["ATTEST-MISSING", code, "CONTRACT-UNREADABLE"],
        )
        # the bundle sound: the first two checks said, then the key and the contract
        signature = ("--public-key", str(public))
        result = cli("verify", "--bundle", str(bundle), *signature, *rederive, *keyed)
        assert result.code == 2
        assert result.out.count("ok: ") == 4
        assert _codes(result.err) == [code, "CONTRACT-UNREADABLE"]
    # a bundle resealed after an edit: 5 all the same, the key's problem said with it
    document = json.loads(bundle.read_bytes())
    document["events"][0]["task"] = "task-000000000000"
    document["receipt"]["evidence_sha256"] = evidence_digest(document)
    bundle.write_bytes(canonical_bytes(document))
    keyed = ("--key-file", str(missing))
    result = cli("verify", "--bundle", str(bundle), "--public-key", str(public), *rederive, *keyed)
    assert result.code == 5
    assert result.err.startswith("integrity: ATTEST-SUBJECT-MISMATCH"), result.err
    assert _codes(result.err)[-2:] == ["KEY-FILE-MISSING", "CONTRACT-UNREADABLE"]
    plain = ("--contract", str(contract), "--in", str(PARENT), *keyed)
    result = cli("verify", "--bundle", str(bundle), *plain)
    assert result.code == 2
    assert _codes(result.err)[0] == "BUNDLE-DANGLING-REFERENCE"
    assert _codes(result.err)[-1] == "KEY-FILE-MISSING"


def _never_made(*_: Any, **__: Any) -> Any:
    raise AssertionError("the sources were read for a run that could not re-derive")


# --- usage --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [
        ["--attestation", "a.intoto.json"],  # nothing to check it with
        ["--contract", "c.json"],  # re-deriving needs --in too
        ["--in", "s.jsonl"],
        ["--task-unit", "prompt"],  # only with --contract/--in
    ],
)
def test_usage_errors(cli: Any, signed: tuple[Path, Path, Path], extra: list[str]) -> None:
    bundle, _, _ = signed
    assert cli("verify", "--bundle", str(bundle), *extra).code == 64


def test_evaluate_with_a_key_also_requires_the_bundles_own_receipt(
    cli: Any, signed: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """evaluate --public-key applies the same receipt check as verify (it used to skip it)."""
    bundle, _, public = signed
    data = bundle.read_bytes()
    receipt = json.loads(data)["receipt"]
    receipt["rubric_version"] = receipt["rubric_version"] + "-other"
    envelope = attest(data, bundle.name, receipt, load_private_key(tmp_path / "producer.pem"))
    Path(f"{bundle}.intoto.json").write_bytes(envelope)
    result = cli("evaluate", "--bundle", str(bundle), "--public-key", str(public))
    assert result.code == 5
    assert "ATTEST-RECEIPT-MISMATCH" in result.err


def test_verify_shows_the_paths_behind_a_source_refusal_when_asked(
    cli: Any, tmp_path: Path
) -> None:
    """Was: `--show-paths` was no verify option (64), so a changed source could not be traced."""
    import shutil

    tree = tmp_path / "tree"
    shutil.copytree(PARENT.parent, tree)
    bundle, contract = make_bundle(cli, tmp_path, "b")
    parent = tree / PARENT.name
    parent.write_bytes(parent.read_bytes() + b"\n")  # a blank line: the file's bytes changed
    args = ["verify", "--bundle", str(bundle), "--contract", str(contract), "--in", str(parent)]
    plain = cli(*args)
    shown = cli(*args, "--show-paths")
    assert plain.code == shown.code == 5
    assert "CONTRACT-FILE-CHANGED" in shown.err
    assert PARENT.name not in plain.err
    assert f"({PARENT.name})" in shown.err


def test_show_paths_without_rederivation_is_a_usage_error(cli: Any, tmp_path: Path) -> None:
    bundle, _ = make_bundle(cli, tmp_path, "b")
    result = cli("verify", "--bundle", str(bundle), "--show-paths")
    assert result.code == 64
    assert "--show-paths only apply with --contract/--in" in result.err.replace(
        "--from, --task-unit, --key-file and ", ""
    )


def test_evaluate_with_a_bad_key_still_names_a_missing_bundle(cli: Any, tmp_path: Path) -> None:
    bad = tmp_path / "bad.pub"
    bad.write_text("not a key")
    result = cli("evaluate", "--bundle", str(tmp_path / "missing.json"), "--public-key", str(bad))
    assert result.code == 2
    assert "ATTEST-PUBLIC-KEY-INVALID" in result.err
    assert "BUNDLE-UNREADABLE" in result.err
    # a verifier needs the producer's key (a walk-through: the fix said to run keygen)
    assert "producer's public key" in result.err
    assert "keygen --out" not in result.err
