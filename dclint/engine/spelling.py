"""Unit spellings (DCL005): a quantity dclint reads, written other than as dclint writes it.

`120kW`, `120 kilowatts`, `400 Gbps`, `10 l/min` and `40 celsius` load as `120 kW`, `400 Gb/s`,
`10 L/min` and `40 degC`; each is reported once where it is written, with a safe fix that
replaces the value's text (inside its quotes, the comment after it kept) by the same number and
unit as dclint prints them. The number is kept as written (`1.20`, `1e3`); the unit's long names
and aliases become its symbol (`kilowatt` -> `kW`, `litre` and `l` -> `L`, `hr` -> `h`), a
number glued to its unit gets one space (the SI Brochure, 9th edition, section 5.4.3: "a space
separates the number and the unit"), and `bps` becomes `b/s` as the README writes bandwidths.
A percentage stays `80%`, and a respelling must read back to the same quantity or it is not
offered. Units with several usual spellings are left as written: the time units from the day
up (`30 days`), tokens, currency codes (`RMB` is `CNY`), temperature differences (`delta_degC`),
`U` beside `RU`.

The text is scanned, not re-parsed: a `key: value` on one line (block or flow style) whose key
is a quantity field of the design model (or of the catalog models a `catalog:` section
overrides) and whose value reads as a quantity with a unit. The items of a list of quantities
(`split_speeds: [400Gbps, 200Gbps]`, or `- 400Gbps` lines below it) and the values of a table
of them (`exchange_rates: {USD: 7.2CNY}`) are found in the YAML's nodes, read only for a file
whose text has such a value to respell.
"""

from __future__ import annotations

import math
import re
import typing
from functools import cache, lru_cache
from typing import Any

from dclint.engine.config import Config, selected
from dclint.engine.findings import Finding
from dclint.engine.rule import Change, Rule
from dclint.model.source import Source

__all__ = ["UNIT_SPELLING_ID", "respelled", "unit_spellings"]

# The id of the findings the engine reports on unit spellings, spelled here once: the rule that
# documents them (rules/meta/) takes its id from here through dclint.api.
UNIT_SPELLING_ID = "DCL005"


@cache
def _kv() -> re.Pattern[str]:
    """`key: value` where the value ends at a comment, the line's end, or a flow collection's
    `,` `}` `]`; a quoted value is taken inside its quotes. Compiled on first use: only the
    lines of values that would be respelled are read so."""
    return re.compile(
        r"""(?:^|[\s{,])(?P<key>[A-Za-z_][A-Za-z0-9_-]*)\s*:[ \t]+"""
        r"""(?:(?P<q>["'])(?P<qv>[^"'\n]*)(?P=q)|(?P<pv>[^\s,{}\[\]#'"][^,{}\[\]#\n]*?))"""
        r"""[ \t]*(?=$|[,}\]]|[ \t]#)"""
    )


# a value after `key: ` that starts with a number and has a unit (the lines worth reading)
_CANDIDATE = re.compile(
    r":[ \t]+[\"']?([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?[ \t]*"
    r"[A-Za-zµμ°Ω_%][^,{}\[\]#'\"\n]*)"
)
# a value that starts a list item (`- 400Gbps`, `[400Gbps, 200Gbps]`): read in the YAML's nodes
_ITEM = re.compile(
    r"(?:(?:^|[ \t])-[ \t]+|[\[,][ \t]*)[\"']?([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?[ \t]*"
    r"[A-Za-zµμ°Ω_%][^,{}\[\]#'\"\n]*)",
    re.M,
)
_SPLIT = re.compile(r"^([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)(\s*)(\S.*)$")
_TOKEN = re.compile(r"[A-Za-zµμ°Ω_][A-Za-z0-9_µμΩ]*")

# unit name -> how dclint writes it, where that is not its (ASCII) symbol
_WRITTEN = {"degree_Celsius": "degC", "degree_Fahrenheit": "degF", "bits_per_second": "b/s"}
# units whose usual spellings are all fine
_ANY_SPELLING = {"token", "day", "week", "month", "year", "rack_unit", "cubic_foot_per_minute"}


@lru_cache(maxsize=4096)
def respelled(text: str) -> str | None:
    """How dclint writes the quantity `text` (``120kW`` -> ``120 kW``), or None where it
    already does, or `text` is not a quantity with a unit, or the respelling would change it."""
    from dclint.units import QuantityError, parse_quantity

    match = _SPLIT.match(text)
    if match is None or match.group(3) == "%" or text != text.strip():
        return None
    number, _, unit = match.groups()
    new = f"{number} {_unit_written(unit)}"
    if new == text:  # as dclint writes it (most values): no quantity parsed
        return None
    try:
        before = parse_quantity(text)
    except QuantityError:
        return None
    try:
        after = parse_quantity(new)
        same = after.dimensionality == before.dimensionality and math.isclose(
            float(after.to(before.units).magnitude), float(before.magnitude), rel_tol=1e-12
        )
    except Exception:  # QuantityError, or pint's on an offset unit it will not convert
        return None
    return new if same else None


@lru_cache(maxsize=1024)
def _unit_written(unit: str) -> str:
    """How dclint writes the unit text `unit` (`kilowatts` -> `kW`), judged once a spelling:
    a design repeats a few units over many values."""
    single = _TOKEN.fullmatch(unit) is not None
    return _TOKEN.sub(lambda m: _token(m.group(0), single), unit)


def _token(token: str, single: bool) -> str:
    """dclint's spelling of one unit name (`kilowatts` -> `kW`), or `token` as written."""
    from dclint.units import ureg

    try:
        found = set(ureg.parse_unit_name(token))
    except Exception:
        return token
    if len(found) != 1:
        return token  # ambiguous (`min`: minute or milli-inch): left as written
    prefix, name, _ = found.pop()
    definition = ureg._units.get(name)
    if definition is None or name in _ANY_SPELLING or name.startswith("delta_"):
        return token
    if any(str(d).startswith("[currency_") for d in ureg.get_dimensionality(name)):
        return token  # a currency code and its aliases (RMB is CNY)
    written = _written_prefix(token, prefix)
    if written is None:
        return token
    symbol = definition.symbol
    unit = _WRITTEN.get(name) or (symbol if symbol and symbol.isascii() else name)
    if "/" in unit and not single:
        return token  # `Gbps` in a compound unit stays: `Gb/s/port` would read differently
    p = ureg._prefixes[prefix] if prefix else None
    if p is not None and written == p.name:
        written = p.symbol or written  # `kilo` -> `k`; `u`, `µ` and `μ` stay as written
    return written + unit


def _written_prefix(token: str, prefix: str) -> str | None:
    """The part of `token` that spells `prefix` ("" for none), or None if it cannot be told."""
    from dclint.units import ureg

    if not prefix:
        return ""
    p = ureg._prefixes[prefix]
    for spelling in sorted({p.name, p.symbol, *p.aliases} - {None, ""}, key=len, reverse=True):
        if token.startswith(spelling):
            try:
                rest = ureg.parse_unit_name(token[len(spelling) :])
            except Exception:
                continue
            if any(not pre for pre, _, _ in rest):
                return spelling
    return None


def _code(line: str) -> str:
    """The line up to its comment (a `#` after a space, outside quotes)."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
    return line


@cache
def quantity_keys() -> frozenset[str]:
    """The keys of the design model's quantity fields (`it_load`, `link_speed`), and of the
    catalog models' a design's `catalog:` section overrides, less those that are also text
    fields somewhere (where `42U` could be a name)."""
    return _keys()[0]


@cache
def _keys() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The keys of quantity fields, of lists of quantities (`split_speeds`) and of tables of
    quantities by name (`exchange_rates`, `dense_flops`), each less the keys of text fields."""
    from dclint.model.catalog import CatalogData
    from dclint.model.design import Design
    from dclint.model.types import Dim, fields_of

    shapes: dict[str, set[str]] = {"quantity": set(), "list": set(), "map": set(), "text": set()}
    seen: set[Any] = set()

    def kinds(tp: Any, found: set[str], models: list[Any]) -> None:
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin is typing.Annotated:
            if any(isinstance(m, Dim) for m in args[1:]):
                found.add("quantity")
                return
            kinds(args[0], found, models)
            return
        if tp is str:
            found.add("text")
        elif isinstance(tp, type) and fields_of(tp):
            models.append(tp)
        elif origin in (list, tuple, set, frozenset, dict):
            inner: set[str] = set()
            for arg in args[1:] if origin is dict else args:  # a table's keys are names
                kinds(arg, inner, models)
            if "quantity" in inner:
                found.add("map" if origin is dict else "list")
            found.update(inner & {"text"})
        else:  # a union, an optional
            for arg in args:
                kinds(arg, found, models)

    def walk(cls: Any) -> None:
        if cls in seen:
            return
        seen.add(cls)
        for name, info in fields_of(cls).items():
            found: set[str] = set()
            models: list[Any] = []
            if any(isinstance(m, Dim) for m in info.metadata):
                found.add("quantity")
            kinds(info.annotation, found, models)
            for shape in found:
                shapes[shape].update({name, info.alias} - {None})
            for model in models:
                walk(model)

    walk(Design)
    walk(CatalogData)
    texts = shapes["text"]
    return (
        frozenset(shapes["quantity"] - texts),
        frozenset(shapes["list"] - texts),
        frozenset(shapes["map"] - texts),
    )


def _in_collections(text: str, lines: set[int]) -> list[tuple[str, int, int, str]]:
    """(name, 1-based line, 0-based column, text) of each item of a list of quantities and
    each value of a table of them, written on one of `lines`; read in the YAML's nodes of the
    top-level sections that hold those lines (a 20,000-rack `racks:` is not composed for a
    `catalog:` value), or of the whole text where a section does not compose alone."""
    rows = text.splitlines()
    starts = [i for i, row in enumerate(rows) if row[:1] not in ("", " ", "\t", "#", "-", "%")]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    spans = list(zip(starts, [*starts[1:], len(rows)], strict=True))
    out: list[tuple[str, int, int, str]] = []
    for first, last in spans:
        if not any(first < n <= last for n in lines):
            continue
        found = _nodes("\n".join(rows[first:last]) + "\n", rows[first:last], lines, first)
        if found is None:  # an alias of an anchor in another section, say
            return _nodes(text, rows, lines, 0) or []
        out.extend(found)
    return out


def _nodes(
    text: str, rows: list[str], lines: set[int], offset: int
) -> list[tuple[str, int, int, str]] | None:
    """_in_collections in `text`, whose first line is line `offset` + 1 of the file (None
    where it does not compose)."""
    import yaml

    _, lists, maps = _keys()
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    out: list[tuple[str, int, int, str]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
            continue
        if not isinstance(node, yaml.MappingNode):
            continue
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else None
            if name in lists and isinstance(value, yaml.SequenceNode):
                items = [(f"{name}[{i}]", item) for i, item in enumerate(value.value)]
            elif name in maps and isinstance(value, yaml.MappingNode):
                items = [(f"{name}.{k.value}", v) for k, v in value.value]
            else:
                stack.append(value)
                continue
            for label, item in items:
                line = item.start_mark.line
                if not isinstance(item, yaml.ScalarNode) or offset + line + 1 not in lines:
                    continue
                column = item.start_mark.column + (1 if item.style in ("'", '"') else 0)
                if item.end_mark.line != line or rows[line][column:].find(item.value) != 0:
                    continue  # not written as one run of text on its line (an escape)
                out.append((label, offset + line + 1, column, item.value))
    return out


def unit_spellings(
    source: Source, config: Config, file: str, rules: dict[str, type[Rule]]
) -> list[Finding]:
    """A DCL005 finding, with its safe fix, for each quantity of the design's text and of the
    files it includes that is not written as dclint writes it."""
    cls = rules.get(UNIT_SPELLING_ID)
    if cls is None or not selected(UNIT_SPELLING_ID, config, file):
        return []
    severity = config.rule_settings.get(UNIT_SPELLING_ID, {}).get("severity", cls.severity)
    out: list[Finding] = []
    for name, text in {source.file: source.text, **source.texts}.items():
        # one pass over the whole text for values that would be respelled (each distinct
        # value judged once); only their lines are read key by key
        wanted = sorted(
            {
                text.count("\n", 0, m.start()) + 1
                for m in _CANDIDATE.finditer(text)
                if respelled(m.group(1).rstrip()) is not None
            }
        )
        # lines whose value may be an item of a list or table of quantities: read in nodes
        loose = {
            text.count("\n", 0, m.start()) + 1
            for m in _ITEM.finditer(text)
            if respelled(m.group(1).rstrip()) is not None
        }
        done: set[tuple[int, int]] = set()
        # split into lines only where a value would be respelled: a clean 100,000-GPU design's
        # 84,000 lines as strings were the largest transient of its whole check (8 MB)
        lines = text.splitlines() if wanted else []
        for number in wanted:
            line = lines[number - 1]
            if line.lstrip().startswith("#"):
                continue
            code = -1  # where the line's comment starts, worked out if needed
            for m in _kv().finditer(line):
                group = "qv" if m.group("qv") is not None else "pv"
                value = m.group(group)
                if value is None:
                    continue
                new = respelled(value)
                if new is None:
                    continue
                # the model's quantity keys, walked only once a value would be respelled
                # (a clean design has none: the walk was ~1% of its cold check)
                if m.group("key") not in quantity_keys():
                    loose.add(number)  # a table's value (`USD: 7.2CNY`), if any
                    continue
                if code < 0:
                    code = len(_code(line)) if "#" in line else len(line)
                if m.end(group) > code:
                    continue  # in the comment (`# was it_load: 120kW`)
                start = m.start(group) + 1
                done.add((number, start))
                out.append(_finding(cls, severity, name, number, start, m.group("key"), value, new))
        for label, number, column, value in _in_collections(text, loose) if loose else []:
            new = respelled(value)
            if new is not None and (number, column + 1) not in done:
                out.append(_finding(cls, severity, name, number, column + 1, label, value, new))
    return out


def _finding(
    cls: type[Rule],
    severity: Any,
    file: str,
    number: int,
    start: int,
    label: str,
    value: str,
    new: str,
) -> Finding:
    """The DCL005 finding of `value` (at 1-based line `number`, column `start`), with the safe
    fix that writes `new` in its place."""
    return Finding(
        file,
        number,
        start,
        UNIT_SPELLING_ID,
        cls.name,
        severity,
        f"{label} is written '{value}'; dclint writes it '{new}'",
        "",
        f"line {number}",
        fix=f"write '{new}' (dclint check --fix does)",
        changes=(
            Change(
                new,
                f"respelled {value} as {new}",
                line=number,
                column=start,
                end=start + len(value),
                safe=True,
            ),
        ),
    )
