"""Opening a file for reading only if it is a regular one, when it is opened.

A path is checked before it is opened, so no device or FIFO is ever opened (and O_NOCTTY and
O_NONBLOCK besides, should one be put there in between), and the file opened is checked to be
the one looked at. A listing's look can be stale by the time a file is read: a robustness probe
swapped a subagent transcript for a FIFO mid-run, and both reading processes waited on it for
ever. Every reader of an input opens it here: transcripts, meta files, journals, provider
bodies, contracts, bundles, cards, keys. A file of a session tree or of the provider bodies is
opened with `follow=False`: the listing refused every symlink there, and one put in a file's
place after it (a robustness probe: a subagent transcript swapped for a link to a file outside
the tree was read and bound through it, with no CC-TREE-SYMLINK) is not followed either.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from pathlib import Path

_FLAGS = os.O_RDONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_NONBLOCK", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class NotRegularFile(OSError):
    """What the path names is not a regular file, or was replaced between two looks: an
    OSError, so each reader takes it as a file it could not read."""

    def __init__(self) -> None:
        super().__init__(errno.EINVAL, "not a regular file")


def open_regular(path: Path, *, follow: bool = True) -> BinaryIO:
    """`path` (through a symbolic link, unless not `follow`) opened for reading in blocking
    mode, if it is a regular file both before and once opened; NotRegularFile otherwise (a
    symbolic link too, when not `follow`), another OSError when it cannot be opened."""
    named = os.stat(path) if follow else os.lstat(path)
    if not stat.S_ISREG(named.st_mode):
        raise NotRegularFile
    fd = os.open(path, _FLAGS if follow else _FLAGS | _NOFOLLOW)
    try:
        opened = os.fstat(fd)
        if (opened.st_dev, opened.st_ino) != (named.st_dev, named.st_ino):
            raise NotRegularFile  # replaced between the two looks
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def file_identity(path: Path) -> tuple[int, int] | None:
    """The device and inode `path` names, its links followed; None where it names none: two
    names of one file (a link, `./x` and `x`, a bind mount of its folder) have one identity. An
    inode of 0 is none (a file system that numbers no inodes would make every file one)."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return (found.st_dev, found.st_ino) if found.st_ino else None
