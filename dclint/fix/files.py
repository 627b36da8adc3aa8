"""The files a fix edits, read and written back as their author keeps them: the same line
endings (LF or CRLF), the same UTF-8 byte order mark, the same final newline (or none), and
every byte a fix does not change left as it was.

A file is read as bytes; its text for editing has the BOM dropped and CRLF written as LF, so
positions are those the check reported (the loader drops the BOM too, and a line break is one
break either way). Writing puts both back. A file with mixed line endings (CRLF and LF) or a
lone CR is not edited: no one rule keeps its lines as they were.

A write happens only when the file still holds the bytes the fix was planned on (it did not
change since it was read), through a temporary file and a rename; the file is then read back,
and the fix counts as applied only when it holds exactly what was written."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Kept", "NotKept", "encode", "read", "same_text", "write"]

BOM = b"\xef\xbb\xbf"
MAX_BYTES = 64 * 1024 * 1024  # as a design (dclint.loader.yamlsafe.MAX_BYTES) and a config


class NotKept(ValueError):
    """A file a fix cannot edit and keep as written: the message says why."""


@dataclass(frozen=True)
class Kept:
    """A file as read for a fix: its bytes, and how to write an edited text back."""

    raw: bytes
    text: str  # BOM dropped, CRLF as LF
    bom: bool
    newline: str  # "\n" or "\r\n"
    final: bool  # the text ends with a line break


def read(path: str) -> Kept:
    """The file at `path` as a fix edits it. OSError or UnicodeDecodeError when it cannot be
    read or decoded; NotKept for mixed line endings."""
    from dclint.loader.readfile import FileRejected, read_regular

    try:
        raw = read_regular(path, MAX_BYTES)
    except FileRejected as exc:
        raise OSError(str(exc)) from None
    text = raw.decode("utf-8")
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    crlf, lf = text.count("\r\n"), text.count("\n")
    if text.count("\r") != crlf:
        raise NotKept("it has a carriage return that ends no line")
    if crlf and crlf != lf:
        raise NotKept(f"it mixes line endings ({crlf} CRLF, {lf - crlf} LF)")
    newline = "\r\n" if crlf else "\n"
    text = text.replace("\r\n", "\n") if crlf else text
    return Kept(raw, text, bom, newline, text.endswith("\n"))


def same_text(kept: Kept, checked: str) -> bool:
    """Whether the text a check read (BOM dropped, line endings as on disk) is this file's."""
    return kept.text == checked.replace("\r\n", "\n")


def encode(kept: Kept, new: str) -> bytes:
    """The bytes of the edited text `new` (LF line breaks) written as the file was: its line
    endings, its BOM, and no final newline where it had none."""
    if not kept.final and kept.text and new.endswith("\n"):
        new = new[:-1]
    if kept.newline != "\n":
        new = new.replace("\n", kept.newline)
    return (BOM if kept.bom else b"") + new.encode("utf-8")


def write(path: str, kept: Kept, data: bytes, replace: Callable[[str, bytes], None]) -> str | None:
    """Write `data` over the file at `path`, read as `kept`, with `replace` (an atomic write:
    a temporary file in the same folder and a rename, dclint.cli._output.write_atomic); None
    when it now holds exactly `data`, else why it was not written (or not as intended)."""
    from dclint.loader.readfile import FileRejected, read_regular

    try:
        now = read_regular(path, MAX_BYTES)
    except FileRejected as exc:
        return f"it cannot be read again ({exc})"
    if now != kept.raw:
        return "it changed since it was checked"
    replace(path, data)
    try:
        again = read_regular(path, MAX_BYTES)
    except FileRejected as exc:
        return f"it cannot be read back ({exc})"
    if again != data:
        return "it does not read back as written (changed meanwhile?)"
    return None
