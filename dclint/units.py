"""dclint's unit registry and the strict quantity parser every design value goes through."""

from __future__ import annotations

import math
import re
from functools import lru_cache
from importlib import resources
from typing import Any

import pint

from dclint._fastq import Registry
from dclint.figures import figures

__all__ = [
    "DEFINED_UNITS",
    "Q_",
    "Quantity",
    "QuantityError",
    "days_quoted",
    "dimension_of",
    "fmt",
    "fmt_apart",
    "fmt_band",
    "fmt_factors",
    "narrow_hint",
    "parse_quantity",
    "parse_unit",
    "unit_text",
    "ureg",
]


def _build_registry() -> pint.UnitRegistry:
    # Built from dclint's own definitions rather than by patching pint's defaults, which leaves
    # `bit` dimensionless, `Gb` a gilbert, `b` a barn and `U` an enzyme unit. Parsed on every run,
    # with no disk cache: pint's cache is a pickle, and a pickle that someone else could have
    # written runs their code when loaded; the parse costs about 13 ms of a cold check.
    text = (resources.files("dclint") / "data" / "units.txt").read_text(encoding="utf-8")
    registry: pint.UnitRegistry = Registry(  # dclint._fastq: pint's Quantity, faster
        None,  # the definitions are added below
        autoconvert_offset_to_baseunit=False,  # it silently gives wrong heat loads
        cache_folder=None,
    )
    definitions = _plain_definitions(text, registry)
    if definitions is None:  # a line only pint's whole-file parser reads: let it read them all
        registry.load_definitions(text.splitlines())
    else:
        for definition in definitions:
            registry._helper_dispatch_adder(definition)
    # pint's _build_cache() would now work out every unit's root units and dimensionality
    # (about 12 ms of a cold check); pint computes and caches each on first use without it, as
    # it does for prefixed units. What it alone fills is the table of units by dimension, read
    # by get_compatible_units and contexts' graphs only, which dclint uses neither of.
    registry.formatter.default_format = "~"
    # pint's own parse cache never hits a prefixed symbol ("kW" is not a key of its unit table,
    # the guard of pint issue #1097), so every `q.to("kW")` parsed "kW" again (~0.2 ms each).
    # dclint's registry defines no units after this point, so caching the parse is safe.
    registry.parse_units_as_container = lru_cache(maxsize=4096)(  # type: ignore[method-assign]
        registry.parse_units_as_container
    )
    # Quantities unpickled in another process must land on this registry, not pint's default.
    pint.set_application_registry(registry)  # type: ignore[no-untyped-call]
    return registry


def _plain_definitions(text: str, registry: Any) -> list[Any] | None:
    """units.txt's definitions, one a line, as pint's definition file parser reads them, or
    None where a line is not a plain definition (a `@` block) or this pint lacks the parts.

    units.txt holds only prefixes, dimensions, units and aliases, one a line. pint's file
    parser (flexparser) reads each such line with the same statement classes tried in the same
    order, but builds its block machinery around them: about 6 ms of a 0.3 s cold check, for
    the same definitions (tests/test_units_registry.py compares them, positions included)."""
    try:
        from flexparser import ParsingError
        from pint.delegates.txt_defparser import plain

        config = registry._def_parser._default_config
    except (ImportError, AttributeError):
        return None
    # the order of pint's root block (pint.delegates.txt_defparser.defparser.PintRootBlock)
    kinds: list[Any] = [
        plain.AliasDefinition.from_string,
        plain.DerivedDimensionDefinition.from_string_and_config,
        plain.DimensionDefinition.from_string,
        plain.PrefixDefinition.from_string_and_config,
        plain.UnitDefinition.from_string_and_config,
    ]
    out: list[Any] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        body = raw.split("#", 1)[0]
        line = body.strip()
        if not line:
            continue
        if line.startswith("@"):
            return None
        for kind in kinds:
            definition = kind(line, config) if kind.__name__.endswith("config") else kind(line)
            if definition is not None:
                break
        if definition is None or isinstance(definition, ParsingError):
            return None
        column = len(body) - len(body.lstrip())
        definition.set_position(number, column, number, column + len(line))
        definition.set_raw(line)
        out.append(definition)
    return out


ureg: pint.UnitRegistry = _build_registry()
# pint adds each prefixed unit it parses (kW, GB) to its unit table: what units.txt defines is
# recorded before anything is parsed, so what is derived from the table (the schema's unit
# patterns) does not depend on what a process parsed before
DEFINED_UNITS: frozenset[str] = frozenset(ureg._units)
Q_ = ureg.Quantity
Quantity = pint.Quantity


class QuantityError(ValueError):
    """A quantity string that does not parse, or has the wrong dimension."""


# number, then a unit expression of names, `*`, `/`, `^`/`**` small integer powers and brackets.
# Any exponent length, so that `1e999999 W` reads as a number (then refused as not finite)
# rather than as 1 of a unit named `e999999`.
_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_NAME = r"(?:[A-Za-zµμ°Ω_][A-Za-z0-9_µμΩ]*|%)"
_POWER = r"(?:\s*(?:\^|\*\*)\s*-?[1-4])?"
_FACTOR = rf"(?:{_NAME}{_POWER})"
_UNIT = rf"(?:[\s(]*{_FACTOR}[\s)]*(?:[\s*/()]+{_FACTOR}[\s)]*)*)"
# ASCII digits and spaces only (re.ASCII): `\d` would take Arabic-Indic or full-width digits and
# `\s` a no-break space, which the JSON Schema's pattern refuses; the unit names' own µ, μ, °
# and Ω are listed explicitly
_QUANTITY_RE = re.compile(rf"^\s*({_NUMBER})\s*({_UNIT})?\s*$", re.ASCII)
_UNIT_RE = re.compile(rf"^\s*{_UNIT}\s*$", re.ASCII)
MAX_LENGTH = 64


@lru_cache(maxsize=4096)
def parse_unit(text: str) -> pint.Unit:
    """Parse a unit expression (``kW``, ``L/min``, ``CNY/kWh``) once; raises QuantityError."""
    if len(text) > MAX_LENGTH or not _UNIT_RE.match(text):
        raise QuantityError(f"'{_clip(text)}' is not a unit expression{_ascii_hint(text)}")
    if text.count("(") != text.count(")"):
        raise QuantityError(f"unbalanced brackets in unit '{_clip(text)}'")
    small, guesses = _data_prefix(text)
    if small:  # 'pb' is a picobit to pint, and never what a design means
        raise QuantityError(f"ambiguous unit in '{_clip(text)}': {small}{guesses}")
    try:
        unit = ureg.parse_units(text.strip().replace("^", "**"))
    except (pint.errors.UndefinedUnitError, pint.errors.DefinitionSyntaxError) as exc:
        hint = _case_hint(text) or guesses
        raise QuantityError(f"unknown unit in '{_clip(text)}'{hint}") from exc
    except Exception as exc:  # pint's parser raises assorted errors on odd input
        raise QuantityError(f"cannot read unit '{_clip(text)}'") from exc
    return unit


@lru_cache(maxsize=65536)
def parse_quantity(text: str) -> pint.Quantity:
    """Parse ``"120 kW"`` into a Quantity. Nothing is evaluated: number and unit are split by a
    strict grammar, the unit is parsed once and cached, and the Quantity built from a float."""
    if len(text) > MAX_LENGTH:
        raise QuantityError(f"quantity string longer than {MAX_LENGTH} characters")
    match = _QUANTITY_RE.match(text)
    if not match:
        raise QuantityError(
            f"'{_clip(text)}' is not a number followed by a unit{_ascii_hint(text)}"
        )
    number = float(match.group(1))
    if not math.isfinite(number):
        raise QuantityError(f"'{_clip(text)}' is not a finite number")
    unit_text = match.group(2)
    if not unit_text or not unit_text.strip():
        return Q_(number, ureg.dimensionless)
    return Q_(number, parse_unit(unit_text))


@lru_cache(maxsize=256)
def dimension_of(example: str) -> Any:
    """The dimensionality of an example unit expression, e.g. ``dimension_of("kW")``."""
    return parse_unit(example).dimensionality


def unit_text(unit: Any) -> str:
    """A unit expression `parse_unit` reads back to the same unit: the short form (``kW``,
    ``Gb/s``) where it parses, else registry names (``delta_degree_Celsius``)."""
    short = format(unit, "~").replace(" ", "")
    try:
        if parse_unit(short) == unit:
            return short
    except QuantityError:
        pass
    parts = [name if exp == 1 else f"{name}**{exp:g}" for name, exp in unit._units.items()]
    return "*".join(parts) or "dimensionless"


_HINT = re.compile(r" \(did you mean ('[^']+'(?: or '[^']+')*)\?\)")


def narrow_hint(message: str, example_unit: str) -> str:
    """`message` (a QuantityError's) with its 'did you mean' spellings narrowed to those of
    `example_unit`'s dimension: a value wanted in kW is never told 'kWh' (energy); the hint is
    dropped when none is left."""
    found = _HINT.search(message)
    if found is None:
        return message
    wanted = dimension_of(example_unit)
    kept = []
    for guess in re.findall(r"'([^']+)'", found.group(1)):
        try:
            if parse_unit(guess).dimensionality == wanted:
                kept.append(guess)
        except QuantityError:
            continue
    hint = " (did you mean " + " or ".join(f"'{k}'" for k in kept) + "?)" if kept else ""
    return message[: found.start()] + hint + message[found.end() :]


# letters whose case carries meaning a guess must not change: a bit is not a byte (8x), a
# milli- or pico- prefix is not mega- or peta- (1e9, 1e27 apart)
_MEANINGFUL_CASE = frozenset("bBmMpP")
# bytes per second written as bits per second are (`GBps`, `KBps`): the capital B is bytes
_BYTES_PER_SECOND = re.compile(r"^([A-Za-zµμ]?)Bps$")


def _same_scale(name: str, guess: str) -> bool:
    """Whether `guess` differs from `name` only in the case of letters whose case does not
    change the quantity (`KW` -> `kW`, not `GBps` -> `Gbps`)."""
    return all(a == b or a not in _MEANINGFUL_CASE for a, b in zip(name, guess, strict=True))


def _byte_rate(name: str) -> str | None:
    """`GB/s` for `GBps`, `kB/s` for `KBps`: bytes per second as dclint writes them; None for
    any other name, or a prefix that is not one in any case."""
    found = _BYTES_PER_SECOND.match(name)
    if found is None:
        return None
    prefix = found.group(1)
    if not prefix:
        return "B/s"
    if prefix in "mp":  # milli- or pico-bytes a second: no guess (dclint refuses `mB`)
        return None
    options = _lowered_cache().get((prefix + "B").lower(), set())
    same = [o for o in options if _same_scale(prefix + "B", o)]
    return f"{same[0]}/s" if len(same) == 1 else None


def _case_hint(text: str) -> str:
    """` (did you mean 'kW'?)` where each unknown name of `text` is a known prefix and unit
    symbol in other letter cases (`KW`, `kw`) and only one such (`mw` could be mW or MW); a
    guess never changes a bit to a byte or a prefix's scale (`GBps` is `GB/s`, never `Gbps`:
    8x off)."""
    parts = []
    for name in re.findall(_NAME, text):
        rate = _byte_rate(name)
        if rate is not None:
            parts.append(rate)
            continue
        if name.lower() in _lowered_cache():
            try:
                ureg.parse_units(name)
                parts.append(name)  # known as written
                continue
            except Exception:
                pass
        found = _lowered_cache().get(name.lower(), set())
        if len(found) != 1 or not _same_scale(name, next(iter(found))):
            return ""
        parts.append(next(iter(found)))
    names = iter(parts)
    guess = re.sub(_NAME, lambda m: next(names), text.strip())
    return f" (did you mean '{guess}'?)" if guess != text.strip() else ""


# A data unit whose prefix is a lower-case letter that is a large prefix in capitals: `pb`,
# `mB`, `mbps` read as pico- and milli-units of data, `tb`, `gb` and `eb` as nothing; a design
# means peta-, mega-, tera-, giga-, exa-. (`kb` is kilo, `K` no prefix; `zB`, `yB` are left to
# the magnitude bounds: no one writes a zettabyte in lower case by habit.)
_DATA_PREFIX = re.compile(r"^([mgtpe])(b|B|bps)$")


def _data_prefix(text: str) -> tuple[str, str]:
    """For a unit expression with such a data unit: what a sub-unit prefix would read it as
    (`'pb' is pico (1e-12) bits`, '' where the prefix is none) and the hint of the spellings
    meant (` (did you mean 'Pb/s' or 'PB/s'?)`); ('', '') for every other expression."""
    small, spellings = "", [text.strip()]
    for name in re.findall(_NAME, text):
        found = _DATA_PREFIX.match(name)
        if found is None:
            continue
        letter, unit = found.groups()
        if letter in _PREFIX_NAMES and not small:
            prefix = ureg._prefixes[_PREFIX_NAMES[letter]]
            what = {"b": "bits", "B": "bytes", "bps": "bits per second"}[unit]
            small = f"'{name}' is {prefix.name} ({float(prefix.converter.scale):g}) {what}"
        units = [unit] if unit in ("B", "bps") else ["b", "B"]
        big = letter.upper()
        spellings = [
            re.sub(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", big + u, s)
            for s in spellings
            for u in units
        ]
    if spellings == [text.strip()]:
        return "", ""
    return small, " (did you mean " + " or ".join(f"'{s}'" for s in spellings) + "?)"


_PREFIX_NAMES = {"m": "milli", "p": "pico"}  # the letters of _DATA_PREFIX that are prefixes


@lru_cache(maxsize=1)
def _lowered_cache() -> dict[str, set[str]]:
    """Lower-cased prefix + unit symbols (`kw`) -> their spellings (`kW`), for the hint."""
    out: dict[str, set[str]] = {}
    prefixes = {p.symbol or "" for p in ureg._prefixes.values()} | {""}
    symbols = {ureg._units[name].symbol for name in DEFINED_UNITS}
    for symbol in symbols:
        if symbol and symbol.isascii():
            for prefix in prefixes:
                out.setdefault((prefix + symbol).lower(), set()).add(prefix + symbol)
    return out


def _ascii_hint(text: str) -> str:
    """A hint naming the first non-ASCII digit or space in `text`, if there is one."""
    for char in text:
        if not char.isascii() and (char.isdigit() or char.isspace() or char.isnumeric()):
            kind = "space" if char.isspace() else "digit"
            return f" (write ASCII digits and spaces: found the {kind} U+{ord(char):04X})"
    return ""


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def fmt(q: pint.Quantity, unit: str | None = None, digits: int = 4) -> str:
    """Format compactly, e.g. ``132 kW``, ``171.9 L/min``; ``unit`` converts first."""
    if unit is not None:
        q = q.to(unit)
    text = figures(float(q.magnitude), digits)
    units = _unit_label(q.units)
    if units in ("", "dimensionless"):
        return text
    if units == "%":
        return f"{text}%"
    return f"{text} {units}"


def fmt_apart(q: pint.Quantity, other: pint.Quantity, unit: str | None = None) -> str:
    """`q` as `fmt` prints it, with the significant digits it takes to print otherwise than
    `other` at as many: a load just over its limit reads '10.001 kW' beside '10 kW', never
    '10 kW' (a finding's measured value beside its limit, as the reports' '(measured 10.001 kW,
    limit 10 kW)' print them); `unit` converts both first (default: `q`'s unit)."""
    q = q.to(unit) if unit is not None else q
    other = other.to(q.units)
    for digits in range(4, 16):
        text = fmt(q, digits=digits)
        if text != fmt(other, digits=digits):
            return text
    return fmt(q)  # equal to the last digit a float holds


@lru_cache(maxsize=1024)
def _unit_label(unit: Any) -> str:
    """A unit as `fmt` prints it (``kW``, ``L/min``, ``degC``); once a unit: pint's formatter
    takes longer than the rest of a report line."""
    units = f"{unit:~}".replace(" ", "").replace("**", "^")
    return units.replace("Δ°C", "K").replace("°C", "degC").replace("°F", "degF")


def number_text(value: Any) -> str:
    """A number as dclint's output prints one: thousands separators below 1e15
    (`1,000,000,000`), four significant digits in exponent form above (`1e+16`)."""
    if isinstance(value, int) and abs(value) < 10**15:
        return f"{value:,}"
    number = float(value)
    if not math.isfinite(number) or abs(number) >= 1e15:
        return f"{number:.4g}"
    return f"{number:,.15g}"


def fmt_band(low: float, high: float, digits: int = 2) -> str:
    """A range as a consultant quotes it: '31-41', to `digits` significant figures, rounded
    outward (the low end down, the high end up), so the printed range holds every value the
    computed one does: 126.1-235 -> '120-240', never '130-240'."""
    lo, hi = _sig(low, digits, math.floor), _sig(high, digits, math.ceil)
    if lo == hi:
        lo, hi = _sig(low, digits + 1, math.floor), _sig(high, digits + 1, math.ceil)
    return f"{lo}-{hi}"


def fmt_factors(low: float, high: float, sep: str = "-") -> str:
    """A calibration band's factors, measured over predicted step, as the band table holds
    them (dclint.projection.uncertainty rounds them outward to 3 places): '0.740-1.997', not
    '0.74-1.997' (the low end read as coarser than the high)."""
    return f"{low:.3f}{sep}{high:.3f}"


def days_quoted(days: pint.Quantity, low_high: tuple[Any, Any] | None = None) -> str:
    """Training days as `dclint cost` prints them, with the calibration band where the days
    are predicted: '1.996 d (1.6-2.2 d)', or '136.6 d': the one way dclint prints a time and
    its band (the what-if tables, `dclint diff`, `dclint plan` and its grid; report.values
    gives it to the presenters)."""
    text = fmt(days, "day")
    if low_high is not None:
        text += f" ({fmt_band(low_high[0].m_as('day'), low_high[1].m_as('day'))} d)"
    return text


def _sig(x: float, digits: int, direction: Any = round) -> str:
    """`x` to `digits` significant figures, thousands separated from 10,000 as `fmt` does:
    137,851 -> '140,000', 1,673 -> '1700'; `direction` (round, math.floor or math.ceil)
    says which way the last figure goes. A
    trailing zero that is one of the figures is printed: 2.70 at 3 figures is '2.70', 1.04
    down at 2 is '1.0' (a band '2.70-3.17 s' says its precision; '2.7-3.17 s' read as a
    coarser low end beside a point of 2.708 s, and '1-1.7 d' as a low end of one figure)."""
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    places = digits - 1 - math.floor(math.log10(abs(x)))
    step = 10.0**places
    rounded = direction(round(x * step, 9)) / step  # round(.., 9): 1.2 * 10 is 12, not 12.000001
    # a carry into the next power of ten (9.96 up at 2 figures: 10) keeps `digits` figures
    places = digits - 1 - math.floor(math.log10(abs(rounded)))
    # thousands separated from 10,000, as `fmt` (dclint.figures) prints the point beside it:
    # '1673 d (1200-2000 d)', where it printed '1673 d (1,200-2,000 d)'
    sep = "," if abs(rounded) >= 1e4 else ""
    return f"{rounded:{sep}.{max(places, 0)}f}"
