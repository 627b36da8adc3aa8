"""`--set PATH=VALUE` overrides, applied to a design's raw YAML data before validation.

PATH is dotted: `site.pue`, `rack_types.nvl72.it_load`, `racks[0].it_load`, and a list item may
be named by its `id` (`racks.su1-r8.it_load`); an id inside a range (`su1-r8` of `su1-r[1-8]`)
splits the range so that only that item changes. VALUE is read as YAML (`130 kW`, `1.2`,
`[a, b]`, `{pue: 1.2}`). Every value an override writes is positioned at file `--set`, line 1,
column = the 1-based index of the flag, so findings and errors caused by it point at the flag
(`--sweep` values are at file `--sweep`, line 1, column 1).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, replace
from typing import Any

from dclint.errors import ConfigError, LoadError, Problem
from dclint.loader.yamlsafe import YamlError, read_yaml
from dclint.model.ranges import RangeError, counted, expand, substitute
from dclint.model.source import Path, Source

__all__ = [
    "OVERRIDE_FILE",
    "Override",
    "apply_overrides",
    "find_item",
    "forbid_swept",
    "parse_override",
    "parse_overrides",
]

OVERRIDE_FILE = "--set"
_SHOWN = 120  # characters of a flag's text an error line shows


@dataclass(frozen=True)
class Override:
    """One `--set` flag: its 1-based position among the flags, the path parts and the value."""

    index: int
    text: str
    parts: tuple[str | int, ...]
    value: Any
    file: str = OVERRIDE_FILE  # the flag's name, reported as the file (`--set`, `--sweep`)

    @property
    def flag(self) -> str:
        """The flag as typed, cut short in the middle past _SHOWN characters (a 20,000-part
        path is no error line)."""
        text = self.text
        if len(text) > _SHOWN:
            text = f"{text[: _SHOWN - 40]}...{text[-37:]}"
        return f"{self.file} {text}"


def parse_override(text: str, index: int, flag: str = "--set") -> Override:
    """`PATH=VALUE` -> Override; ConfigError (naming the flag) when it cannot be read."""
    path, sep, raw = text.partition("=")
    if not sep or not path.strip():
        raise ConfigError(f"{flag} {text}: write PATH=VALUE, e.g. {flag} site.pue=1.2")
    if not raw.strip():
        raise ConfigError(f"{flag} {text}: no value after '='")
    try:
        value, _ = read_yaml(f"{flag} {text}", raw)
    except YamlError as exc:
        raise ConfigError(f"{flag} {text}: value is not valid YAML: {exc}") from None
    return Override(index, text, _parts(path.strip(), text, flag), value, flag)


def forbid_swept(sets: tuple[Override, ...], swept: list[str], flag: str) -> None:
    """ConfigError where a --set writes a path a sweep varies, or a path inside or around it
    (`site.pue`, `site`): the swept values, applied last, would replace the --set's value at
    every point without a word."""
    for path in swept:
        parts = _parts(path, path, flag)
        for o in sets:
            n = min(len(parts), len(o.parts))
            if parts[:n] == o.parts[:n]:
                raise ConfigError(
                    f"{o.flag} and {flag} {_clip(path)}: the swept values would replace the "
                    f"--set value at every point; drop the --set, or give its value in {flag}"
                )


def _clip(text: str) -> str:
    return text if len(text) <= _SHOWN else f"{text[: _SHOWN - 40]}...{text[-37:]}"


def parse_overrides(texts: list[str] | tuple[str, ...] | None) -> tuple[Override, ...]:
    return tuple(parse_override(t, i) for i, t in enumerate(texts or (), start=1))


def _parts(path: str, text: str, flag: str) -> tuple[str | int, ...]:
    """The parts of a dotted path, each trailing `[N]` an int; linear in the path's length."""
    out: list[str | int] = []
    for segment in path.split("."):
        segment, indexes = _indexes(segment)
        for digits in indexes:
            if len(digits) > 9:
                raise ConfigError(f"{flag} {_clip(text)}: list index {digits[:20]}... is too large")
        if segment:
            out.append(segment)
        elif not indexes:
            raise ConfigError(f"{flag} {_clip(text)}: empty part in path '{_clip(path)}'")
        out.extend(int(d) for d in indexes)
    return tuple(out)


def _indexes(segment: str) -> tuple[str, list[str]]:
    """`racks[0][2]` -> ("racks", ["0", "2"]): the trailing `[N]` list indexes, read from the
    end, each bracket once (a search per index from the start would be quadratic)."""
    end, found = len(segment), []
    while end and segment[end - 1] == "]":
        start = segment.rfind("[", 0, end - 1)
        digits = segment[start + 1 : end - 1]
        if start < 0 or not digits.isdecimal():
            break
        found.append(digits)
        end = start
    found.reverse()
    return segment[:end], found


def apply_overrides(data: Any, source: Source, overrides: tuple[Override, ...]) -> Any:
    """A copy of `data` with every override applied; their positions recorded in `source`."""
    data = copy.deepcopy(data)
    for ov in overrides:
        data = _apply(data, source, ov)
    return data


def _fail(ov: Override, message: str) -> LoadError:
    return LoadError([Problem(ov.file, 1, ov.index, f"{ov.flag}: {message}")])


def _apply(data: Any, source: Source, ov: Override) -> Any:
    """Walk `ov.parts` down `data` and set the value. Linear in the path: one step a part, the
    design path kept as a list (a tuple rebuilt a step, or the path's name formatted a step,
    would be quadratic in a 20,000-part path), and a path that would nest the design deeper
    than the loader allows (MAX_DEPTH) is refused rather than built."""
    from dclint.loader.builder import MAX_DEPTH

    node, parts = data, ov.parts
    path: list[str | int] = []
    if not isinstance(node, dict):
        raise _fail(ov, "the design is not a mapping")
    at = 0
    while at < len(parts):
        part = parts[at]
        at += 1
        last = at == len(parts)
        if len(path) >= MAX_DEPTH:
            raise _fail(ov, f"the path is deeper than the {MAX_DEPTH} levels a design may nest")
        if isinstance(node, dict):
            key = str(part)
            if last:
                node[key] = copy.deepcopy(ov.value)
                _record(source, (*path, key), ov)
                return data
            if node.get(key) is None:  # create missing sections: validation judges them
                created = key not in node
                node[key] = [] if isinstance(parts[at], int) else {}
                if created:  # the flag wrote the key: an error about it names the flag
                    _record(source, (*path, key), replace(ov, value=None))
            node = node[key]
            path.append(key)
        elif isinstance(node, list):
            if isinstance(part, int):
                if part >= len(node):
                    where = _name(tuple(path))
                    raise _fail(ov, f"{where} has {_items(len(node))}, no index {part}")
                index = part
            else:
                index, used = _find(node, source, tuple(path), parts[at - 1 :], ov)
                at += used - 1
                last = at == len(parts)
            if last:
                node[index] = copy.deepcopy(ov.value)
                _record(source, (*path, index), ov)
                return data
            node = node[index]
            path.append(index)
        else:
            where = _name(tuple(path))
            raise _fail(ov, f"{where} is {_kind(node)}, not a mapping or list; cannot set {part}")
    return data


def _find(
    items: list[Any], source: Source, path: Path, rest: tuple[str | int, ...], ov: Override
) -> tuple[int, int]:
    """find_item, or the error naming the ids there are."""
    found = find_item(items, source, path, rest)
    if found is not None:
        return found
    ids = [str(item["id"]) for item in items if isinstance(item, dict) and "id" in item]
    if not ids:
        raise _fail(ov, f"{_name(path)} items have no ids; use an index, e.g. {_name(path)}[0]")
    shown = ", ".join(ids[:8]) + (", ..." if len(ids) > 8 else "")
    wanted = _clip(str(rest[0]))
    raise _fail(ov, f"no item with id '{wanted}' in {_name(path)} (ids: {shown})")


def _record(source: Source, path: Path, ov: Override) -> None:
    """The override's value and everything under it now come from the flag.

    A Source that reads its positions lazily keeps doing so: the flag's positions are laid
    over every later reading of the text (reading every position of the design here, as this
    once did, cost a what-if grid two full passes over the file per point)."""
    before = source.locate(path)
    if before.file == source.file:  # a finding about it also lands on the design's own line
        source.origins[path] = (before, ov.flag)
    if source.reread is not None:
        source.reread = _Overlaid(source.reread, path, ov)
    _lay_over(source, path, ov)


@dataclass(frozen=True)
class _Overlaid:
    """A Source's reader followed by one override's positions (picklable, as the reader is)."""

    inner: Any  # dclint.model.source.Reread
    path: Path
    ov: Override

    def __call__(self, source: Source, want: set[Path] | None) -> None:
        self.inner(source, want)
        _lay_over(source, self.path, self.ov)


def _lay_over(source: Source, path: Path, ov: Override) -> None:
    """Forget the positions the text gave `path` and what is under it; record the flag's."""
    values, keys = source.tables()
    depth = len(path)
    for table in (values, keys, source.files):
        for p in [p for p in table if p[:depth] == path]:
            del table[p]
    _walk(values, keys, source.files, path, ov.value, ov, path)


def _walk(
    values: dict[Path, tuple[int, int]],
    keys: dict[Path, tuple[int, int]],
    files: dict[Path, str],
    path: Path,
    value: Any,
    ov: Override,
    top: Path,
) -> None:
    values[path] = (1, ov.index)
    files[path] = ov.file
    if path == top or isinstance(path[-1], str):
        keys[path] = (1, ov.index)
    if isinstance(value, dict):
        for key, v in value.items():
            _walk(values, keys, files, (*path, key), v, ov, top)
    elif isinstance(value, list):
        for j, v in enumerate(value):
            _walk(values, keys, files, (*path, j), v, ov, top)


def _name(path: Path) -> str:
    from dclint.model.source import format_path

    return format_path(path) or "the design"


def _items(n: int) -> str:
    return f"{n} item{'s' if n != 1 else ''}"


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return f"the string '{value[:40]}'"
    return "nothing" if value is None else f"the {type(value).__name__} {value!r}"


# --set paths through list ids: find the item an id names, splitting a range item around it

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
