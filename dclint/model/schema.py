"""The design's JSON Schema (draft 2020-12), generated from the pydantic models: every property
described (with its unit), and each quantity's pattern accepting only units of its dimension,
so an editor flags `it_load: 130 bananas` or `it_load: 130 V` as the design is typed."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

__all__ = [
    "FRAGMENT_ID",
    "SCHEMAS",
    "SCHEMA_ID",
    "design_schema",
    "fragment_schema",
    "schema_text",
    "unit_pattern",
]

# a URN: a schema id names the schema, it need not be fetched (editors use `$schema` paths)
SCHEMA_ID = "urn:dclint:schema:design:1"
FRAGMENT_ID = "urn:dclint:schema:fragment:1"
_NUMBER = r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?\s*"
_ANY_UNIT = _NUMBER + r"[^\s].*$"  # the pattern the field types give: any unit at all
# what dclint refuses as ambiguous though pint reads it (units._DATA_PREFIX): a data unit under
# a milli or pico prefix ('1 pb' is a picobit, '3 mb' a millibit), so that editors flag it too
_NOT_A_SUB_UNIT_OF_DATA = r"(?![mp](?:bps|b|B)(?![A-Za-z0-9_]))"

# example unit -> (what the value is, the units a reader would write)
KINDS: dict[str, tuple[str, str]] = {
    "kW": ("power", "W, kW, MW"),
    "MW": ("power (W) or apparent power (VA)", "kW, MW, kVA, MVA"),
    "V": ("voltage", "V, kV"),
    "A": ("current", "A, kA"),
    "kWh": ("energy", "Wh, kWh, MWh, J"),
    "L/min": ("volume flow", "L/min, L/s, m^3/h, gal/min"),
    "degC": ("temperature", "degC, degF, K"),
    "K": ("temperature difference", "K, delta_degC"),
    "kg": ("mass", "kg, t, lb"),
    "m^2": ("area", "m^2, ft^2"),
    "m": ("length", "m, km, ft"),
    "kPa": ("pressure", "kPa, bar, psi"),
    "kN/m^2": ("pressure or mass per area", "kN/m^2, kPa, kg/m^2, lbf/ft^2"),
    "PB": ("data size", "B, GB, TB, PB, TiB, bit"),
    "Gb/s": ("bandwidth", "Gb/s, GB/s, Gbps, Tb/s"),
    "TFLOPS": ("compute rate", "TFLOPS, PFLOPS, FLOP/s"),
    "year": ("duration", "s, min, h, d, week, month, year"),
    "USD": ("amount of money", "a currency code: USD, CNY, EUR, GBP, JPY, SGD, HKD, INR"),
    "CNY/kWh": ("electricity price", "a currency per energy: CNY/kWh, USD/MWh"),
    "token/s": ("token rate", "token/s"),
    "op/s": ("metadata operation rate", "op/s"),
}


def _parses(token: str) -> bool:
    from dclint.units import parse_unit

    try:
        parse_unit(token)
    except Exception:  # QuantityError, or pint's own for a symbol it cannot read alone ('%')
        return False
    return True


def _alternation(tokens: set[str]) -> str:
    return "(?:" + "|".join(re.escape(t) for t in sorted(tokens, key=lambda t: (-len(t), t))) + ")"


@cache
def _families() -> list[tuple[str, Any]]:
    """(regex, dimensionality) of each unit with an optional prefix, grouped by dimension,
    with squares and cubes of lengths (m^3) besides."""
    from dclint.units import ureg

    prefixes = {t for p in ureg._prefixes.values() for t in (p.name, p.symbol, *p.aliases) if t}
    by_dim: dict[Any, set[str]] = {}
    from dclint.units import DEFINED_UNITS as defined  # units.txt's own, not pint's additions

    for token, definition in ureg._units.items():
        if token not in defined or not _parses(
            token
        ):  # a name dclint's parser refuses ('°C': write degC)
            continue
        by_dim.setdefault(ureg.get_dimensionality(definition.name), set()).add(token)
    # A prefixed name pint happens to hold ('kilogram', 'decimeter': they appear once the registry
    # has met them) is a prefix and a unit the pattern has already: leave it out, so the pattern
    # does not depend on what the registry was asked before.
    for tokens in by_dim.values():
        tokens -= {
            t
            for t in tokens
            if any(t[len(p) :] in tokens for p in prefixes if t.startswith(p) and t != p)
        }
    prefix = _alternation(prefixes) + "?"
    out = [(prefix + _alternation(tokens), dim) for dim, tokens in by_dim.items()]
    length = ureg.get_dimensionality("meter")
    for n in (2, 3):
        out.append((prefix + _alternation(by_dim[length]) + rf"\s*(?:\^|\*\*)\s*{n}", length**n))
    return out


def unit_pattern(example_unit: str) -> str:
    """A regular expression (ECMA-262 subset) for a quantity whose units have the dimension of
    `example_unit`: one unit, or one unit over another ('L/min', 'CNY/kWh', 'm^3/h')."""
    return _NUMBER + _NOT_A_SUB_UNIT_OF_DATA + _units_of(example_unit) + r"\s*$"


def _units_of(example_unit: str) -> str:
    from dclint.units import ureg

    if example_unit == "K":  # a temperature difference: kelvin, or a delta of a scale
        deltas = {"K", "kelvin", "delta_degC", "delta_degF", "delta_degree_Celsius"}
        return _alternation(deltas)
    if example_unit == "MW":  # a rating: real or apparent power
        return f"(?:{_unit_alternatives('W')}|{_unit_alternatives('VA')})"
    if example_unit == "kN/m^2":  # a floor rating: a pressure, or a mass per area
        kinds = f"{_unit_alternatives('kPa')}|{_unit_alternatives('kg/m^2')}"
        return f"(?:{kinds})"
    wanted = ureg.get_dimensionality(example_unit)
    if any(str(k).startswith("[currency_") for k in wanted):
        return _money_alternatives(example_unit)
    return _unit_alternatives(example_unit)


@cache  # a pure function of the unit (the families are cached): schemas ask it for ~500 fields
def _unit_alternatives(example_unit: str) -> str:
    from dclint.units import ureg

    wanted = ureg.get_dimensionality(example_unit)
    families = _families()
    forms = [rx for rx, dim in families if dim == wanted]
    forms += [
        f"{a}\\s*/\\s*{b}"
        for a, da in families
        for b, db in families
        if db and da / db == wanted and da != wanted
    ]
    return "(?:" + "|".join(f"(?:{f})" for f in forms) + ")"


def _money_alternatives(example_unit: str) -> str:
    """A currency (optionally a multiple: 'kUSD'), or a currency per unit of what it prices."""
    from dclint.units import DEFINED_UNITS, ureg

    currencies = {
        t
        for t, d in ureg._units.items()
        if t in DEFINED_UNITS and d.name[:1].isupper() and len(d.name) == 3
    }
    currencies = {t for t in currencies if "[currency_" in str(ureg.get_dimensionality(t))}
    money = "(?:k|M|G)?" + _alternation(currencies)
    if "/" not in example_unit:
        return money
    per = _unit_alternatives(example_unit.split("/", 1)[1])
    return f"(?:{money}\\s*/\\s*{per})"


def _quantity(node: dict[str, Any]) -> None:
    """A quantity's own schema: its dimension's pattern and a description naming its units."""
    example = node["examples"][0]
    unit = example.split(" ", 1)[1]
    kind, units = KINDS.get(unit, ("quantity", unit))
    node["pattern"] = unit_pattern(unit)
    node["description"] = f'{kind} with its unit ({units}), e.g. "{example}"'


def _is_quantity(node: Any) -> bool:
    return isinstance(node, dict) and node.get("pattern") == _ANY_UNIT and "examples" in node


_SHARE = "a share: '80%' or a number from 0 to 1"  # what the Fraction type says of itself


def _unit_text(prop: dict[str, Any]) -> str | None:
    """The description of the quantity (or share) a property holds, if it holds one."""
    options = [o for o in [prop, *prop.get("anyOf", [])] if isinstance(o, dict)]
    for option in options:
        if "examples" in option:  # a quantity (its pattern is already its dimension's)
            return str(option["description"])
    if any(o.get("description") == _SHARE for o in options):
        return "a share: a percentage ('80%') or a number from 0 to 1"
    return None


def _describe(model: str, name: str, prop: dict[str, Any]) -> None:
    from dclint.model.schema_docs import describe

    for option in [prop, *prop.get("anyOf", [])]:
        if _is_quantity(option):
            _quantity(option)
    own = prop.get("description")
    unit = _unit_text(prop)
    if own and unit and unit not in own:
        prop["description"] = f"{own.rstrip('.')}; {unit}"
    elif not own:
        prop["description"] = unit or describe(model, name, prop)


def design_schema() -> dict[str, Any]:
    from dclint.model.design import Design

    schema = Design.model_json_schema(mode="validation")
    out: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
    }
    out.update(schema)
    for model, node in [(str(schema.get("title", "Design")), out), *out["$defs"].items()]:
        for name, prop in node.get("properties", {}).items():
            _describe(model, name, prop)
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            _describe(model, "*", extra)
    return out


def fragment_schema() -> dict[str, Any]:
    """A fragment's schema (a file other designs `include:` or `extends:`): the design's, with
    nothing required but the `id` by which list items merge, since the design that includes a
    fragment supplies the rest (its `name`, a rack's `type`)."""
    out = design_schema()
    out["$id"] = FRAGMENT_ID
    out["title"] = "DesignFragment"
    out["description"] = (
        "A fragment of a dclint design (a site profile, a rack-type library): any design "
        "section, merged into the designs that include or extend it; list items merge by id."
    )
    for node in [out, *out["$defs"].values()]:
        if "required" in node:
            kept = [key for key in node["required"] if key == "id"]
            if kept:
                node["required"] = kept
            else:
                del node["required"]
    return out


# `dclint schema KIND` and the files in schemas/: name -> (file, generator)
SCHEMAS = {
    "design": ("design.schema.json", design_schema),
    "fragment": ("fragment.schema.json", fragment_schema),
}


def schema_text(kind: str = "design") -> str:
    """A schema as checked in under schemas/ (sorted keys, two-space indent)."""
    schema = SCHEMAS[kind][1]()
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
