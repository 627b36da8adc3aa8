"""Where a command's output goes: never onto one of its inputs, atomically onto a regular file
(keeping its mode, through a symlink), directly onto a device or pipe."""

from __future__ import annotations

import argparse
import contextlib
import os
import stat
from collections.abc import Callable, Iterable
from typing import Any

from dclint.errors import ConfigError

__all__ = ["refuse_clobbering", "refuse_input", "write_atomic"]

_OUTPUTS = (
    ("output", "--output"),
    ("write_baseline", "--write-baseline"),
    ("profile", "--profile"),
    ("store", "--store"),  # plan --vary's SQLite store, written as points finish
    ("resume", "--resume"),
)
_INPUTS = ("paths", "design", "a", "b", "against", "config", "baseline", "runs")


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): compare where they would be
        return os.path.realpath(a) == os.path.realpath(b)


def _named_inputs(args: argparse.Namespace) -> list[str]:
    """The files a command line names as inputs, and the config each named design or folder
    finds (a found config is read too; the files a design includes are known once it is read,
    and write_atomic refuses them then)."""
    out: list[str] = []
    for dest in _INPUTS:
        value = getattr(args, dest, None)
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, list):
            out.extend(v for v in value if isinstance(v, str))
    if getattr(args, "config", None) or getattr(args, "isolated", False):
        return out
    from dclint.loader.configfile import find_config

    folders = set()
    for name in out:
        with contextlib.suppress(OSError, ValueError):
            real = os.path.realpath(name)
            folders.add(real if os.path.isdir(real) else os.path.dirname(real))
    found = {find_config(folder) for folder in folders}
    return out + sorted(f for f in found if f is not None)


def refuse_clobbering(args: argparse.Namespace) -> None:
    """Before any work: an output path that is also an input (a design given or found in a
    directory searched, the config, the baseline) or another output is a usage error."""
    outputs = [(flag, getattr(args, dest)) for dest, flag in _OUTPUTS if getattr(args, dest, None)]
    inputs = _named_inputs(args)
    for i, (flag, path) in enumerate(outputs):
        for other_flag, other in outputs[:i]:
            if _same(path, other):
                raise ConfigError(f"{flag} {path} is also {other_flag}: give two files")
        if not os.path.isfile(path):
            continue
        for name in inputs:
            if _same(path, name):
                raise ConfigError(f"{flag} {path} is also an input: write it elsewhere")
        directories = [d for d in getattr(args, "paths", None) or () if os.path.isdir(d)]
        if directories and path.endswith((".yaml", ".yml")):
            from dclint.engine.files import collect

            found, _ = collect(directories)
            if any(_same(path, f) for f in found):
                raise ConfigError(f"{flag} {path} is a design being checked: write it elsewhere")


def refuse_input(path: str, flag: str) -> None:
    """An output that is a file this run read (a design, an included file, a config found or
    given, a calibration profile, a baseline: dclint.loader.readfile notes each, by inode, so
    a hard link or another spelling is the same file) is a ConfigError, never written."""
    from dclint.loader.readfile import was_read

    read = was_read(path)
    if read is not None:
        same = "" if read == path else f" (read as {read})"
        raise ConfigError(f"{flag} {path} is also an input{same}: write it elsewhere")


def write_atomic(
    path: str,
    text: str | bytes | Iterable[str],
    flag: str = "--output",
    *,
    replaces_input: bool = False,
) -> None:
    """Write `text` to `path` (bytes: exactly those bytes, as a fix writes a design back with
    its own line endings and BOM). A regular file, or a new path, is written through a temporary
    file and a rename (never a partial file), keeping an existing file's mode (a new one follows
    the umask); a symlink is followed and its target replaced. A character device, FIFO or
    socket (`/dev/null`, `/dev/stdout`, a pipe) is written directly. Errors are ConfigError.
    Unless it `replaces_input` (--fix, plan --apply), `path` must not be a file the run read
    (refuse_input): checked before writing, and again before the rename (a report written as
    it is made may read more)."""
    check = None if replaces_input else (lambda: refuse_input(path, flag))
    if check is not None:
        check()
    try:
        info: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise ConfigError(f"{flag} {path}: {exc.strerror or exc}") from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise ConfigError(f"{flag} {path}: is a directory")
    try:
        if info is not None and not stat.S_ISREG(info.st_mode):
            with _open(path, text) as handle:
                _write(handle, text)
            return
        _replace(os.path.realpath(path), text, info, check)
    except OSError as exc:
        raise ConfigError(f"{flag} {path}: {exc.strerror or exc}") from None


def _open(path: str | int, text: str | bytes | Iterable[str]) -> Any:
    if isinstance(text, bytes):
        return open(path, "wb")
    return open(path, "w", encoding="utf-8")


def _write(handle: Any, text: str | bytes | Iterable[str]) -> None:
    """`text`, or its chunks in turn (a report made as it is written)."""
    if isinstance(text, (str, bytes)):
        handle.write(text)
        return
    for chunk in text:
        handle.write(chunk)


def _replace(
    real: str,
    text: str | bytes | Iterable[str],
    info: os.stat_result | None,
    check: Callable[[], None] | None = None,
) -> None:
    if info is not None:
        mode = stat.S_IMODE(info.st_mode)
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    directory, name = os.path.split(real)
    import tempfile  # random, shutil: not for a report on standard output

    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=directory or ".")
    try:
        with _open(fd, text) as handle:
            _write(handle, text)
        os.chmod(tmp, mode)  # mkstemp creates 0600
        if check is not None:
            check()
        os.replace(tmp, real)
    except BaseException:
        with contextlib.suppress(OSError):  # the original error matters, not unlink's
            os.unlink(tmp)
        raise
