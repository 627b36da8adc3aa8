"""dclint.fastq: each fast path gives what pint's own method gives, and hands back what it
does not cover (offset and logarithmic units, other registries, arrays, bools)."""

from __future__ import annotations

import operator
from typing import Any

import pint
import pytest

from dclint import fastq
from dclint.units import Q_, parse_quantity, ureg


@pytest.mark.parametrize("text", ["kW", "Gb/s", "degC", "kW/K", "L/min", "CNY/kWh", "b"])
def test_unit_texts_are_parsed_once_and_as_pint_parses_them(text: str) -> None:
    fastq._UNITS.pop(text, None)
    q = Q_(2.0, text)
    assert q.units == ureg.parse_units(text) and q.magnitude == 2.0
    assert fastq._UNITS[text] is Q_(3, text)._units  # the second build reuses the first parse
    assert Q_(2.0, ureg.parse_units(text)) == q


@pytest.mark.parametrize("value", [2, 2.5, -0.0, 10**30])
def test_a_quantity_built_fast_is_the_one_pint_builds(value: float) -> None:
    ours = Q_(value, "kW")
    theirs = fastq._pint["new"](type(ours), value, ureg.parse_units("kW")._units)
    assert type(ours) is type(theirs) and vars(ours) == vars(theirs)
    assert ours.to("W").magnitude == theirs.to("W").magnitude
    with pytest.raises(TypeError):  # anything but a plain number takes pint's path
        Q_(True, "kW")


@pytest.mark.parametrize(
    ("text", "target", "expected"),
    [("400 Gb/s", "GB/s", 50.0), ("132 kW", "W", 132000.0), ("32 degC", "K", 305.15)],
)
def test_cached_conversions_agree_with_pint(text: str, target: str, expected: float) -> None:
    q = parse_quantity(text)
    first, second = q.m_as(target), q.m_as(target)  # the second uses the cached factor
    assert first == second == pytest.approx(expected)
    assert q.to(target).magnitude == pytest.approx(fastq._pint["to"](q, target).magnitude)
    source, factor = fastq._FACTORS[id(q._units), target]
    assert source is q._units  # the entry keeps its key's object alive
    assert (factor is None) == (target == "K")  # an offset conversion is never a factor


OPS = [
    (operator.add, "add"),
    (operator.sub, "sub"),
    (operator.iadd, "iadd"),
    (operator.isub, "isub"),
]


@pytest.mark.parametrize(("op", "name"), OPS)
@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("120 kW", "80 kW"),
        ("3 kW", "2.5 kW"),
        ("400 Gb/s", "100 Gb/s"),
        ("5 K", "2 K"),
        ("5 delta_degC", "3 delta_degC"),
        ("0.8 CNY/kWh", "0.1 CNY/kWh"),
    ],
)
def test_sums_in_the_same_units_are_pints_sums(op: Any, name: str, a: str, b: str) -> None:
    x, y = parse_quantity(a), parse_quantity(b)
    ours = op(x, y)
    theirs = fastq._pint[name](x, y)
    assert type(ours) is type(theirs)
    assert (ours.magnitude, ours._units) == (theirs.magnitude, theirs._units)
    assert x == parse_quantity(a)  # the left operand is not changed in place


@pytest.mark.parametrize(("op", "name"), OPS)
def test_sums_the_fast_paths_do_not_cover_are_pints(op: Any, name: str) -> None:
    mixed = op(parse_quantity("1 kW"), parse_quantity("500 W"))  # converted by pint
    assert (mixed.magnitude, mixed._units) == (op(1.0, 0.5), ureg.parse_units("kW")._units)
    warm, cool = parse_quantity("32 degC"), parse_quantity("5 degC")
    if name in ("add", "iadd"):
        with pytest.raises(pint.errors.OffsetUnitCalculusError):  # as pint: degC + degC
            op(warm, cool)
    else:  # degC - degC is a difference, in delta_degC
        diff = op(warm, cool)
        assert (diff.magnitude, diff._units) == (27.0, ureg.parse_units("delta_degC")._units)
    with pytest.raises(pint.errors.DimensionalityError):
        op(parse_quantity("1 kW"), parse_quantity("1 m"))
    other = pint.UnitRegistry().Quantity(1.0, "meter")
    with pytest.raises(ValueError, match="different registries"):
        op(parse_quantity("1 kW"), other)


def test_sum_of_a_list_and_a_delta_temperature_on_an_absolute_one() -> None:
    loads = [parse_quantity(t) for t in ("120 kW", "118.5 kW", "0 kW")]
    assert sum(loads, Q_(0.0, "kW")) == Q_(238.5, "kW")
    assert sum(loads).magnitude == 238.5  # 0 + q goes through pint's __radd__
    warm = parse_quantity("32 degC") + parse_quantity("5 delta_degC")
    assert (warm.magnitude, warm._units) == (37.0, ureg.parse_units("degC")._units)
