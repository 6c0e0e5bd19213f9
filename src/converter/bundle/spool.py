"""A bundle's bytes as they are built: held in memory, or, given a file to spill to, mostly on
disk. The events and edges (19 MB of the 200 MB bench tree's bundle) come before the receipt
in canonical key order, so they can leave memory a block at a time, hashed as they go; only
the part from the receipt on (what sealing rewrites) must stay in memory until the end.

Spilled, `convert --contract` holds no copy of the bundle on top of the public account it is
built from; its peak is then the reading's, not the bundle's (docs/performance.md).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

BLOCK = 1 << 20  # what is spilled, or read back, at a time


class Spool:
    """Bytes appended in order. With a `file`, whole blocks leave memory for it until `hold()`:
    from then on every byte stays in `tail`, where it can be rewritten in place."""

    def __init__(self, file: Spill | None) -> None:
        self.tail = bytearray()
        self.file = file
        self.spilled = hashlib.sha256()  # over the bytes in `file`, in order
        self.spilled_len = 0
        self.holding = file is None

    def add(self, part: bytes | bytearray) -> None:
        self.tail += part
        if not self.holding and len(self.tail) >= BLOCK:
            assert self.file is not None
            _write_all(self.file, self.tail)
            self.spilled.update(self.tail)
            self.spilled_len += len(self.tail)
            self.tail = bytearray()

    def hold(self) -> int:
        """Keep every byte from here on in memory; the offset of the next one in `tail`."""
        self.holding = True
        return len(self.tail)

    def __len__(self) -> int:
        return self.spilled_len + len(self.tail)

    def digest(self) -> Any:
        """A SHA-256 hasher over all the bytes so far (the spilled ones are not read again)."""
        hasher = self.spilled.copy()
        hasher.update(self.tail)
        return hasher


@dataclass(frozen=True, slots=True)
class SealedBytes:
    """A sealed bundle's bytes (`bundle.io.seal`): the spilled blocks, then the tail, and their
    SHA-256 (what an attestation's subject names), computed as they were built. Written with
    `chunks()`; `bytes()` joins them, for a bundle small enough to hold (tests)."""

    spool: Spool
    sha256: str

    def __len__(self) -> int:
        return len(self.spool)

    def chunks(self) -> Iterator[bytes | bytearray]:
        file = self.spool.file
        if isinstance(file, Discard):  # (a small bundle's tail would pass for the whole)
            raise ValueError("a re-derivation's bytes are hashed, not kept")
        if file is not None and self.spool.spilled_len:
            file.seek(0)  # (unbuffered: every spilled byte is in the file already)
            left = self.spool.spilled_len
            while left:
                block = file.read(min(BLOCK, left))
                if not block:  # the file is its own, unnamed: only a failing disk shortens it
                    raise OSError("the bundle's spilled bytes could not be read back")
                left -= len(block)
                yield block
        yield self.spool.tail

    def __bytes__(self) -> bytes:
        return b"".join(self.chunks())

    def close(self) -> None:
        """Free the spill file (unnamed: it is gone with its last handle)."""
        close_spill(self.spool.file)


class Discard:
    """A spill file that keeps nothing: the spool still hashes and counts every byte, which is
    all `verify`'s re-derivation compares (its bundle's length and SHA-256). The 19 MB of the
    bench bundle are then never held a second time beside the bundle read (`run.conversion`)."""

    def write(self, data: bytes | bytearray | memoryview) -> int:
        return len(data)

    def close(self) -> None:
        pass


Spill = IO[bytes] | Discard  # where a spool's blocks go


def _write_all(file: Spill, data: bytearray) -> None:
    """All of `data` into an unbuffered file, which may take less than it is given: a disk that
    fills mid-block raises on the next write, here, never later when the file is closed (a
    buffered file's close would then raise, in place of the refusal being reported)."""
    view = memoryview(data)
    while view:
        written = file.write(view)
        if not written:  # (a raw file returns None only when non-blocking)
            raise OSError("the spill file took no bytes")
        view = view[written:]


def close_spill(file: Spill | None) -> None:
    """Close a spill file, if any: unbuffered, it has nothing left to write, and what failed
    writing it was raised then; closing it never replaces that failure, or a refusal."""
    if file is not None:
        with contextlib.suppress(OSError):
            file.close()
