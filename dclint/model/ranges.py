"""Id ranges: `r[001-128]` expands to r001 ... r128; `$n` in a template takes the number."""

from __future__ import annotations

import re

__all__ = ["MAX_RANGE", "RangeError", "counted", "expand", "size", "substitute"]

_RANGE_RE = re.compile(r"\[(\d+)-(\d+)\]")
MAX_RANGE = 100_000


class RangeError(ValueError):
    """An id range that is malformed, reversed or too long."""


def _range(pattern: str) -> tuple[re.Match[str], int, int] | None:
    """The one range in a pattern and its bounds (None for a plain id); RangeError if bad."""
    matches = list(_RANGE_RE.finditer(pattern))
    if not matches:
        if "[" in pattern or "]" in pattern:
            raise RangeError(f"'{pattern}' is not a valid id range; write e.g. r[001-128]")
        return None
    if len(matches) > 1:
        raise RangeError(f"'{pattern}' has more than one range; use one [a-b] per id")
    m = matches[0]
    if max(len(m.group(1)), len(m.group(2))) > 20:  # int() refuses past 4,300 digits
        raise RangeError(f"range in '{pattern[:40]}' has a bound of more than 20 digits")
    start, stop = int(m.group(1)), int(m.group(2))
    if stop < start:
        raise RangeError(f"range [{m.group(1)}-{m.group(2)}] in '{pattern}' runs backwards")
    if stop - start + 1 > MAX_RANGE:
        raise RangeError(f"range in '{pattern}' names more than {MAX_RANGE:,} ids")
    return m, start, stop


def size(pattern: str) -> int:
    """How many ids `pattern` names, without naming them; RangeError as expand() raises it."""
    found = _range(pattern)
    return 1 if found is None else found[2] - found[1] + 1


def expand(pattern: str) -> list[tuple[str, str]]:
    """(id, number) for each id a pattern names; a plain id gives [(id, "")]."""
    found = _range(pattern)
    if found is None:
        return [(pattern, "")]
    m, start, stop = found
    width = len(m.group(1)) if m.group(1).startswith("0") else 0
    head, tail = pattern[: m.start()], pattern[m.end() :]
    out = []
    for i in range(start, stop + 1):
        number = str(i).zfill(width)
        out.append((f"{head}{number}{tail}", number))
    return out


def counted(prefix: str, count: int) -> list[tuple[str, str]]:
    """`id: su1-r` with `count: 8` -> su1-r1 ... su1-r8 (zero-padded to the count's width)."""
    width = len(str(count))
    return [(f"{prefix}{str(i).zfill(width)}", str(i).zfill(width)) for i in range(1, count + 1)]


def substitute(template: str, number: str) -> str:
    """Put a rack's number into a reference template: `feed-a$n` -> `feed-a07`."""
    return template.replace("$n", number) if "$n" in template else template
