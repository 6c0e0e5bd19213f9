"""The second reading process (`python -m converter.reader.worker`).

stdin: the msgpack list of transcript paths to read. stdout: the msgpack list of their
`FileReading`s, in the same order. Nothing else is written: stderr is discarded by the caller, so
not even a crash can carry a byte of content anywhere; the caller then reads the files itself.
"""

from __future__ import annotations

import sys
from pathlib import Path

import msgspec

from converter.heap import cyclic_gc_paused
from converter.reader.transcript import ENCODER, read_transcript


def main() -> None:
    paths = msgspec.msgpack.decode(sys.stdin.buffer.read(), type=list[str])
    with cyclic_gc_paused():
        readings = [read_transcript(Path(p)) for p in paths]
    sys.stdout.buffer.write(ENCODER.encode(readings))
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
