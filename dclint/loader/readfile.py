"""Reading an input file: regular files only, never blocking, never past a size limit.

Every file dclint reads (designs, includes, config files, baselines) comes through here, so a FIFO
named `design.yaml` cannot block a run and `--baseline /dev/zero` cannot grow without bound.
"""

from __future__ import annotations

import os
import stat

__all__ = ["FileRejected", "read_regular", "remember_reads", "was_read"]

_CHUNK = 1 << 20
# (device, inode) -> path of every regular file read since remember_reads() (a command's run,
# dclint.cli.dispatch), so that no output is written over an input (dclint.cli._output)
_read: dict[tuple[int, int], str] | None = None


def remember_reads() -> None:
    """From now on note every file read (forgetting those noted before)."""
    global _read
    _read = {}


def was_read(path: str | os.PathLike[str]) -> str | None:
    """The path an input was read as, when `path` is that same file (the same inode: a hard
    link, a symlink or another spelling), else None. Nothing is noted unless remember_reads()
    was called."""
    if not _read:
        return None
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    read = _read.get((info.st_dev, info.st_ino))
    if read is None:
        return None
    try:  # the inode may have been freed and reused since it was read
        return read if os.path.samefile(read, path) else None
    except (OSError, ValueError):
        return None


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
        if _read is not None:
            _read.setdefault((info.st_dev, info.st_ino), os.fspath(path))
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
