"""The second reading process (`python -m converter.reader.worker`).

stdin: the msgpack list of transcript paths to read. stdout: their `FileReading`s in the same
order, one frame each (`reader/transcript.py`), written as each file is read. Nothing else is
written: stderr is discarded by the caller, so not even a crash can carry a byte of content
anywhere; the caller then reads the files itself.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import msgspec

from converter.heap import Trimmer, cyclic_gc_paused, map_large_blocks
from converter.reader.transcript import frame, read_transcript, wire_fingerprint

FINGERPRINT_ENV = "AGENT_EVIDENCE_WORKER_FINGERPRINT"
REQUEST_IDS_ENV = "AGENT_EVIDENCE_WORKER_REQUEST_IDS"  # "1": keep each call's request id


def main() -> None:
    """Each file's reading is sent as one frame as soon as it is read, then dropped: this process
    holds one file's records at a time. Exits 3 at once if its frame layout is not the one the
    reader expects (the reader then reads the files itself)."""
    if os.environ.get(FINGERPRINT_ENV) != wire_fingerprint():
        sys.exit(3)
    map_large_blocks()
    paths = msgspec.msgpack.decode(sys.stdin.buffer.read(), type=list[str])
    out = sys.stdout.buffer
    trimmer = Trimmer()
    keep = os.environ.get(REQUEST_IDS_ENV) == "1"
    with cyclic_gc_paused():
        for path in paths:
            out.write(frame(read_transcript(Path(path), trimmer, keep)))
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
