"""The second reading process (`python -m converter.reader.worker`).

stdin: the msgpack list of transcript paths to read. stdout: the msgpack list of their
`FileReading`s, in the same order, written one file at a time. Nothing else is written: stderr is discarded by the caller, so
not even a crash can carry a byte of content anywhere; the caller then reads the files itself.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

import msgspec

from converter.heap import Trimmer, cyclic_gc_paused
from converter.reader.transcript import ENCODER, read_transcript


def array_header(length: int) -> bytes:
    """The msgpack header of an array of `length` items (the items follow, each encoded alone)."""
    if length < 16:
        return bytes([0x90 | length])
    if length < 2**16:
        return b"\xdc" + struct.pack(">H", length)
    return b"\xdd" + struct.pack(">I", length)


def main() -> None:
    """Each file's reading is sent as soon as it is read and then dropped: this process holds one
    file's records at a time, and the reader on the other end receives one msgpack array."""
    paths = msgspec.msgpack.decode(sys.stdin.buffer.read(), type=list[str])
    out = sys.stdout.buffer
    out.write(array_header(len(paths)))
    trimmer = Trimmer()
    with cyclic_gc_paused():
        for path in paths:
            out.write(ENCODER.encode(read_transcript(Path(path), trimmer)))
    out.flush()
    _report_peak()


PEAK_FILE_ENV = "AGENT_EVIDENCE_WORKER_PEAK_FILE"


def _report_peak() -> None:
    """For `make bench` only: append this process's peak RSS (kB) to the named file. The kernel
    charges a child started by fork+exec with its parent's peak at exec time, so the parent
    cannot learn the worker's own peak from getrusage."""
    target = os.environ.get(PEAK_FILE_ENV)
    if not target:
        return
    with open("/proc/self/status", encoding="ascii") as status:
        peak = next((line.split()[1] for line in status if line.startswith("VmHWM:")), None)
    if peak is not None:
        with open(target, "a", encoding="ascii") as out:
            out.write(peak + "\n")


if __name__ == "__main__":
    main()
