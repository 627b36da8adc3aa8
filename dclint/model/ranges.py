"""Id ranges: `r[001-128]` expands to r001 ... r128; `$n` in a template takes the number."""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["MAX_RANGE", "RangeError", "compact", "counted", "expand", "size", "substitute"]

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


# the inverse of expand: many ids written short, as a design writes them
_TAIL = re.compile(r"^(.*?)(\d+)$")


def compact(ids: Sequence[str], most: int = 4) -> str:
    """Ids with a common stem and numbered tails as ranges (`r[01-03,07]`), in first-seen order;
    beyond `most` groups, '... and N more'."""
    stems: dict[tuple[str], list[str]] = {}
    order: list[tuple[str] | str] = []
    for i in ids:
        m = _TAIL.match(i)
        if m is None:
            order.append(i)
            continue
        key = (m.group(1),)
        if key not in stems:
            stems[key] = []
            order.append(key)
        stems[key].append(m.group(2))
    parts = [item if isinstance(item, str) else _stem(item[0], stems[item]) for item in order]
    if len(parts) > most:
        return ", ".join(parts[:most]) + f" and {len(parts) - most} more"
    return ", ".join(parts)


def _stem(stem: str, numbers: list[str]) -> str:
    if len(numbers) == 1:
        return stem + numbers[0]
    values = sorted(set(numbers), key=int)
    runs: list[list[str]] = [[values[0]]]
    for n in values[1:]:
        if int(n) == int(runs[-1][-1]) + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    inner = ",".join(r[0] if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)
    return f"{stem}[{inner}]"
