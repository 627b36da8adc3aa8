"""`--set` paths through list ids: find the item an id names, splitting a range item around it."""

from __future__ import annotations

import copy
import re
from typing import Any

from dclint.model.ranges import RangeError, counted, expand, substitute
from dclint.model.source import Path, Source

__all__ = ["find_item"]

_RANGE_RE = re.compile(r"\[(\d+)-(\d+)\]")


def find_item(
    items: list[Any], source: Source, path: Path, rest: tuple[str | int, ...] | list[str]
) -> tuple[int, int] | None:
    """Index of the item whose id is the longest dotted prefix of `rest` (ids may hold dots),
    and how many parts it used; None if none matches. An id inside a range or count splits
    that item first. Only the prefixes as long as some id are tried (a range's members have
    as many dots as the range): linear in `rest`, however long."""
    ids = [item.get("id") for item in items if isinstance(item, dict)]
    lengths = {ident.count(".") + 1 for ident in ids if isinstance(ident, str)}
    for used in sorted((n for n in lengths if n <= len(rest)), reverse=True):
        wanted = ".".join(map(str, rest[:used]))
        for i, item in enumerate(items):
            if isinstance(item, dict) and item.get("id") == wanted:
                return i, used
        for i, item in enumerate(items):
            if isinstance(item, dict) and wanted in _members(item):
                return _split(items, source, path, i, wanted), used
    return None


def _members(item: dict[str, Any]) -> dict[str, str]:
    ident, count = item.get("id"), item.get("count")
    if not isinstance(ident, str):
        return {}
    try:
        if isinstance(count, int) and not isinstance(count, bool) and 0 < count <= 100_000:
            return dict(counted(ident, count))
        names = expand(ident)
    except RangeError:
        return {}
    return dict(names) if len(names) > 1 or names[0][1] else {}


def _split(items: list[Any], source: Source, path: Path, i: int, wanted: str) -> int:
    """Replace the range item `i` by up to three: the ids before `wanted`, `wanted` alone
    (its `$n` templates filled in), the ids after. Positions follow the items."""
    item = items[i]
    members = list(_members(item).items())
    k = next(j for j, (rid, _) in enumerate(members) if rid == wanted)
    pattern = _pattern(item)
    parts: list[dict[str, Any]] = []
    for chunk in (members[:k], members[k + 1 :]):
        if chunk:
            part = {key: copy.deepcopy(v) for key, v in item.items() if key != "count"}
            part["id"] = _range(pattern, chunk[0][1], chunk[-1][1])
            parts.append(part)
    alone = {key: _fill(v, members[k][1]) for key, v in item.items() if key != "count"}
    alone["id"] = wanted
    parts.insert(1 if k > 0 else 0, alone)
    items[i : i + 1] = parts
    _shift(source, path, i, len(parts))
    return i + (1 if k > 0 else 0)


def _pattern(item: dict[str, Any]) -> tuple[str, str]:
    """(head, tail) around the number of a range or counted id."""
    ident = str(item["id"])
    match = _RANGE_RE.search(ident)
    if match is None:  # counted: `su1-r` with `count: 8`
        return ident, ""
    return ident[: match.start()], ident[match.end() :]


def _range(pattern: tuple[str, str], first: str, last: str) -> str:
    # numbers keep their padding, so `$n` still names the same feeds
    return f"{pattern[0]}[{first}-{last}]{pattern[1]}"


def _fill(value: Any, number: str) -> Any:
    if isinstance(value, str):
        return substitute(value, number)
    if isinstance(value, list):
        return [_fill(v, number) for v in value]
    return copy.deepcopy(value)


def _shift(source: Source, path: Path, i: int, n: int) -> None:
    """Item `i` of the list at `path` became `n` items: copy its positions to each, and move
    the positions of later items down by n - 1."""
    depth = len(path)
    for table in (source.values, source.keys, source.files):
        moved: dict[Path, Any] = {}
        for p, pos in table.items():
            if len(p) > depth and p[:depth] == path and isinstance(p[depth], int):
                j = p[depth]
                assert isinstance(j, int)
                if j == i:
                    for t in range(n):
                        moved[(*path, i + t, *p[depth + 1 :])] = pos
                    continue
                if j > i:
                    moved[(*path, j + n - 1, *p[depth + 1 :])] = pos
                    continue
            moved[p] = pos
        table.clear()
        table.update(moved)
