"""Reading an input file: regular files only, never blocking, never past a size limit.

Every file dclint reads (designs, includes, config files, baselines) comes through here, so a FIFO
named `design.yaml` cannot block a run and `--baseline /dev/zero` cannot grow without bound.
"""

from __future__ import annotations

import os
import stat

__all__ = ["FileRejected", "read_regular"]

_CHUNK = 1 << 20


class FileRejected(ValueError):
    """A file that is not read: its message says why (no file name: the caller adds it)."""


def _kind(mode: int) -> str:
    kinds = (
        (stat.S_ISDIR, "is a directory"),
        (stat.S_ISFIFO, "is a FIFO (named pipe)"),
        (stat.S_ISCHR, "is a character device"),
        (stat.S_ISBLK, "is a block device"),
        (stat.S_ISSOCK, "is a socket"),
    )
    for test, text in kinds:
        if test(mode):
            return text
    return "is not a regular file"


def read_regular(path: str | os.PathLike[str], limit: int, what: str = "design") -> bytes:
    """The bytes of the regular file at `path` (symlinks followed), at most `limit` of them.

    Opened non-blocking, so opening a FIFO returns at once and is then refused for what it is;
    FileRejected for anything that is not a regular file, is over `limit`, or cannot be read."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_BINARY", 0))
    except IsADirectoryError:
        raise FileRejected(f"is a directory, not a {what} file") from None
    except OSError as exc:
        raise FileRejected(f"cannot read file: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRejected(f"{_kind(info.st_mode)}, not a {what} file")
        if info.st_size > limit:
            raise FileRejected(f"file is over the {limit:,}-byte limit for a {what}")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:  # the file may grow after fstat: stop one byte past the limit
            chunk = os.read(fd, min(_CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise FileRejected(f"file is over the {limit:,}-byte limit for a {what}")
        return b"".join(chunks)
    except OSError as exc:
        raise FileRejected(f"cannot read file: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
