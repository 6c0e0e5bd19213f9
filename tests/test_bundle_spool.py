"""`convert --contract` builds the bundle in an unnamed file beside --out, not in memory
(bundle/spool.py): the bench tree's 19 MB bundle sat on top of the public account it was built
from and made the bundle step the peak of the whole run. The blocks here are shrunk so the small
fixtures spill too; the bytes must be the very bytes an in-memory build gives."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

from converter.firewall.pseudonyms import Pseudonymizer, PseudonymKey
from converter.run.conversion import make_bundle
from tests.conftest import FIXTURES, fixture_parent

PARENT = fixture_parent("synthetic_tree")
CONTRACT = FIXTURES / "synthetic_contract.json"
GOLDEN = FIXTURES / "synthetic_bundle.golden.json"
DEMO_KEY = "de" * 32  # the key the checked-in contract was made under
PSEUDO = Pseudonymizer(PseudonymKey(bytes.fromhex(DEMO_KEY)))
SMALL = 256  # a block: the fixture's bundle is some 30 kB


@pytest.fixture(autouse=True)
def _demo_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_EVIDENCE_KEY", DEMO_KEY)


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("converter.bundle.spool.BLOCK", SMALL)


def _convert(cli: Any, out: Path, *extra: str, contract: Path = CONTRACT) -> Any:
    return cli(
        "convert", "--in", str(PARENT), "--contract", str(contract), "--out", str(out), *extra
    )


@pytest.mark.usefixtures("small_blocks")
def test_a_spilled_bundle_is_the_bytes_built_in_memory(tmp_path: Path) -> None:
    contract = CONTRACT.read_bytes()
    held = make_bundle(PARENT, None, None, PSEUDO, contract)
    spilled = make_bundle(PARENT, None, None, PSEUDO, contract, spill_to=tmp_path)
    try:
        assert held.data.spool.file is None
        spool = spilled.data.spool
        assert spool.file is not None
        assert spool.spilled_len > 0
        assert list(tmp_path.iterdir()) == []  # the spill file has no name: nothing to leave
        data = bytes(spilled.data)
        assert data == bytes(held.data) == GOLDEN.read_bytes()
        assert len(spilled.data) == len(data)
        assert spilled.data.sha256 == held.data.sha256 == hashlib.sha256(data).hexdigest()
        assert spilled.head == held.head
        # What stayed in memory: less than a block before the receipt, and the receipt on.
        from_receipt = len(data) - data.index(b',"receipt":')
        assert len(spool.tail) < SMALL + from_receipt
        assert bytes(spilled.data) == data  # read back again: the same bytes
    finally:
        spilled.data.close()


@pytest.mark.usefixtures("small_blocks")
def test_a_rederivation_hashes_the_bytes_and_keeps_none() -> None:
    """`verify --contract` compares the length and SHA-256 of the bundle made again, nothing
    else: its bytes (19 MB for the bench tree) were held beside the bundle read (verify then
    peaked at 175 MB against convert's 154)."""
    golden = GOLDEN.read_bytes()
    made = make_bundle(PARENT, None, None, PSEUDO, CONTRACT.read_bytes(), keep=False)
    assert len(made.data) == len(golden)
    assert made.data.sha256 == hashlib.sha256(golden).hexdigest()
    assert made.data.spool.spilled_len > 0
    with pytest.raises(ValueError, match="not kept"):
        bytes(made.data)


def test_a_small_rederivation_is_not_taken_for_its_bytes() -> None:
    """A review: under one block nothing is spilled, and the tail alone would pass for the
    bundle's bytes: a caller that wrote or signed one would have worked on every fixture and
    failed on a real bundle."""
    made = make_bundle(PARENT, None, None, PSEUDO, CONTRACT.read_bytes(), keep=False)
    assert made.data.spool.spilled_len == 0
    assert made.data.sha256 == hashlib.sha256(GOLDEN.read_bytes()).hexdigest()
    with pytest.raises(ValueError, match="not kept"):
        bytes(made.data)


def test_a_bundle_of_one_block_is_never_spilled(tmp_path: Path) -> None:
    made = make_bundle(PARENT, None, None, PSEUDO, CONTRACT.read_bytes(), spill_to=tmp_path)
    try:
        assert made.data.spool.spilled_len == 0
        assert bytes(made.data) == GOLDEN.read_bytes()
    finally:
        made.data.close()


@pytest.mark.usefixtures("small_blocks")
def test_convert_writes_and_signs_the_spilled_bytes(cli: Any, tmp_path: Path) -> None:
    """The file, the attestation's subject and what convert prints all name the same bytes,
    and `verify` re-derives them."""
    assert cli("keygen", "--out", str(tmp_path / "producer.pem")).code == 0
    out = tmp_path / "b.json"
    result = _convert(cli, out, "--attest-key", str(tmp_path / "producer.pem"))
    assert result.code == 0, result.err
    data = out.read_bytes()
    assert data == GOLDEN.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    assert f"sha256 {digest}" in result.out
    envelope = json.loads((tmp_path / "b.json.intoto.json").read_text())
    from converter.attest.dsse import b64decode

    statement = json.loads(b64decode(envelope["payload"]))
    assert statement["subject"][0]["digest"]["sha256"] == digest
    checked = cli(
        "verify",
        *("--bundle", str(out), "--contract", str(CONTRACT), "--in", str(PARENT)),
        *("--public-key", str(tmp_path / "producer.pem.pub")),
    )
    assert checked.code == 0, checked.err
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "b.json",
        "b.json.intoto.json",
        "producer.pem",
        "producer.pem.pub",
    ]


@pytest.mark.usefixtures("small_blocks")
def test_an_unsigned_run_keeps_the_attestation_of_the_same_bytes(cli: Any, tmp_path: Path) -> None:
    """The attestation beside the bundle is kept when it signs these bytes: compared with the
    spilled bundle's digest, not with bytes held in memory."""
    assert cli("keygen", "--out", str(tmp_path / "producer.pem")).code == 0
    out = tmp_path / "b.json"
    assert _convert(cli, out, "--attest-key", str(tmp_path / "producer.pem")).code == 0
    envelope = (tmp_path / "b.json.intoto.json").read_bytes()
    again = _convert(cli, out)
    assert again.code == 0, again.err
    assert (tmp_path / "b.json.intoto.json").read_bytes() == envelope
    assert "removed the attestation" not in again.out


def test_a_folder_with_no_room_for_a_spill_file_builds_in_memory(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unnamed file cannot be made (a file system without O_TMPFILE and a folder that
    refuses the fallback's name): the bundle is held in memory, as before, and written."""

    def refused(**_: Any) -> Any:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr("converter.files.tempfile.TemporaryFile", refused)
    out = tmp_path / "b.json"
    result = _convert(cli, out)
    assert result.code == 0, result.err
    assert out.read_bytes() == GOLDEN.read_bytes()


@pytest.mark.usefixtures("small_blocks")
def test_a_refusal_while_pricing_closes_the_spill_file(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Prices that multiply past any artifact are found as the events are written, after some
    have spilled: the refusal leaves nothing behind and no file open."""
    opened: list[Any] = []
    real = tempfile.TemporaryFile

    def tracked(**kwargs: Any) -> Any:
        opened.append(real(**kwargs))
        return opened[-1]

    monkeypatch.setattr("converter.files.tempfile.TemporaryFile", tracked)
    contract = json.loads(CONTRACT.read_text())
    for entry in contract["claims"]["pricing"]["models"].values():
        entry["tiers"][0]["output"] = "9" * 30
        entry["contexts"] = dict.fromkeys(entry["contexts"], "9" * 30)
    edited = tmp_path / "c.json"
    edited.write_text(json.dumps(contract))
    result = _convert(cli, tmp_path / "b.json", contract=edited)
    assert result.code == 2, result.err
    assert "PRICE-COST-TOO-LARGE" in result.err
    assert len(opened) == 1
    assert opened[0].closed
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]


class _FillingDisk:
    """An unnamed file on a disk with `room` bytes left: a write past it is cut short, the next
    raises `error`; closing it raises too, as a buffered file's close would, flushing what a
    short write left behind (an audit: that close replaced the refusal with exit 70)."""

    def __init__(self, room: int, error: int) -> None:
        self.room, self.error, self.closed = room, error, False

    def write(self, data: Any) -> int:
        if not self.room:
            raise OSError(self.error, os.strerror(self.error))
        taken = min(self.room, len(data))
        self.room -= taken
        return taken

    def close(self) -> None:
        self.closed = True
        raise OSError(self.error, os.strerror(self.error))


@pytest.mark.usefixtures("small_blocks")
@pytest.mark.parametrize(
    ("error", "code"),
    [
        ("ENOSPC", "OUT-NO-SPACE"),
        ("EDQUOT", "OUT-NO-SPACE"),
        ("EFBIG", "OUT-NO-SPACE"),  # past `ulimit -f`
        ("EIO", "OUT-UNWRITABLE"),
    ],
)
def test_a_disk_that_fills_mid_block_is_said_as_such(
    error: str, code: str, cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[_FillingDisk] = []

    def filling(**_: Any) -> _FillingDisk:
        made.append(_FillingDisk(SMALL + SMALL // 2, getattr(errno, error)))
        return made[-1]

    monkeypatch.setattr("converter.files.tempfile.TemporaryFile", filling)
    result = _convert(cli, tmp_path / "b.json")
    assert result.code == 2, result.err
    assert f"{code} [--out]" in result.err  # the output's option (a resource audit: none)
    assert "OUT-STDOUT-FAILED" not in result.err
    assert "Traceback" not in result.err
    assert [f.closed for f in made] == [True]
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_at_the_write_is_not_replaced_by_closing_the_spill(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bundle was spilled whole; the disk fills as it is written out, and the spill file's
    close fails too: the refusal said is the write's."""
    real = tempfile.TemporaryFile

    class ClosingFails:
        def __init__(self, **kwargs: Any) -> None:
            self.file = real(**kwargs)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.file, name)

        def close(self) -> None:
            self.file.close()
            raise OSError(errno.ENOSPC, "No space left on device")

    def no_room(_: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("converter.bundle.spool.BLOCK", SMALL)
    monkeypatch.setattr("converter.files.tempfile.TemporaryFile", ClosingFails)
    monkeypatch.setattr("converter.files.os.fsync", no_room)
    result = _convert(cli, tmp_path / "b.json")
    assert result.code == 2, result.err
    assert "OUT-NO-SPACE [--out]" in result.err
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_is_said_at_the_option_of_the_output_it_stopped(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resource audit: OUT-NO-SPACE named no output, where a run writes a bundle and its
    attestation, or a template, or a report."""

    def no_room(_: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("converter.files.os.fsync", no_room)
    parent = fixture_parent("synthetic_tree")
    template = cli("convert", "--in", str(parent), "--template", str(tmp_path / "t.json"))
    assert template.code == 2, template.err
    assert "refused: OUT-NO-SPACE [--template]" in template.err
    golden = FIXTURES / "synthetic_bundle.golden.json"
    report = cli("evaluate", "--bundle", str(golden), "--report", str(tmp_path / "r.md"))
    assert report.code == 2, report.err
    assert "refused: OUT-NO-SPACE [--report]" in report.err
    assert list(tmp_path.iterdir()) == []


def test_the_spill_file_is_unbuffered(tmp_path: Path) -> None:
    """Unbuffered, a write that fails, fails where it is made: nothing is left for close()."""
    from converter.files import spill_file

    spill = spill_file(tmp_path)
    assert spill is not None
    try:
        assert not hasattr(spill, "raw")  # a raw file, not a BufferedRandom over one
    finally:
        spill.close()
