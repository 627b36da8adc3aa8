"""dclint._fastq: each fast path gives what pint's own method gives, and hands back what it
does not cover (offset and logarithmic units, other registries, arrays, bools)."""

from __future__ import annotations

import operator
from typing import Any

import pint
import pytest

from dclint import _fastq as fastq
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


@pytest.fixture(scope="module")
def other_registry() -> pint.UnitRegistry:
    """A registry of pint's own, not dclint's: building one costs 0.3 CPU-seconds, so the
    module's tests share it (they only read it)."""
    return pint.UnitRegistry()


@pytest.mark.parametrize(("op", "name"), OPS)
def test_sums_the_fast_paths_do_not_cover_are_pints(
    op: Any, name: str, other_registry: pint.UnitRegistry
) -> None:
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
    other = other_registry.Quantity(1.0, "meter")
    with pytest.raises(ValueError, match="different registries"):
        op(parse_quantity("1 kW"), other)


def test_sum_of_a_list_and_a_delta_temperature_on_an_absolute_one() -> None:
    loads = [parse_quantity(t) for t in ("120 kW", "118.5 kW", "0 kW")]
    assert sum(loads, Q_(0.0, "kW")) == Q_(238.5, "kW")
    assert sum(loads).magnitude == 238.5  # 0 + q goes through pint's __radd__
    warm = parse_quantity("32 degC") + parse_quantity("5 delta_degC")
    assert (warm.magnitude, warm._units) == (37.0, ureg.parse_units("degC")._units)


SCALINGS = [
    (operator.mul, "mul"),
    (lambda q, n: n * q, "rmul"),
    (operator.truediv, "truediv"),
]


@pytest.mark.parametrize(("op", "name"), SCALINGS)
@pytest.mark.parametrize("n", [2, 2.5, -1, 1e-3])
@pytest.mark.parametrize(
    ("text", "target"),
    [
        ("400 Gb/s", "GB/s"),
        ("120 kW", "W"),
        ("5 K", "mK"),
        ("5 delta_degC", "delta_degF"),
        ("0.8 CNY/kWh", "CNY/MWh"),
    ],
)
def test_scaling_by_a_number_is_pints_and_keeps_the_units(
    op: Any, name: str, n: float, text: str, target: str
) -> None:
    q = parse_quantity(text)
    ours = op(q, n)
    theirs = fastq._pint[name](q, n)
    assert type(ours) is type(theirs) and type(ours.magnitude) is type(theirs.magnitude)
    assert (ours.magnitude, ours._units) == (theirs.magnitude, theirs._units)
    assert ours._units is q._units  # so a conversion of the product hits the factor cache
    assert ours.m_as(target) == pytest.approx(fastq._pint["to"](theirs, target).magnitude)


def test_an_int_magnitude_scales_as_python_ints_do() -> None:
    q = Q_(3, "kW")
    assert (q * 2).magnitude == 6 and type((q * 2).magnitude) is int
    assert (q / 2).magnitude == 1.5 and (q * 0.0).magnitude == 0.0
    with pytest.raises(ZeroDivisionError):  # as pint's own division raises
        q / 0


def test_scalings_the_fast_paths_do_not_cover_are_pints() -> None:
    with pytest.raises(pint.OffsetUnitCalculusError):  # 32 degC x 2 is ambiguous in pint
        parse_quantity("32 degC") * 2
    with pytest.raises(pint.OffsetUnitCalculusError):
        2 * parse_quantity("32 degC")
    assert (Q_(3, "dB") * 2).magnitude == 6  # logarithmic: pint's own method
    assert (Q_(2, "kW") * Q_(3, "h")).to("kWh").magnitude == 6  # a quantity, not a number
    assert (Q_(1, "kW") / Q_(4, "kW")).m_as("") == 0.25
    with pytest.raises(TypeError):  # a bool takes pint's path, which refuses it
        Q_(1.5, "kW") * True
    assert (2 / Q_(4, "s")).m_as("Hz") == 0.5  # n / q changes the units: pint's path


def test_an_int_magnitude_divides_as_pint_divides_it() -> None:
    big = Q_(2**53 + 1, "kW")  # pint casts it to float first; Python's int / int would not
    assert (big / 3).magnitude == fastq._pint["truediv"](big, 3).magnitude == 3002399751580330.5
    assert (Q_(7.0, "kW") / 2**60).magnitude == fastq._pint["truediv"](Q_(7.0, "kW"), 2**60).m
    for huge in (Q_(3, "kW"), Q_(10**400, "kW")):
        with pytest.raises(OverflowError):  # as in pint: the int is cast to a float
            huge / 10**399
        with pytest.raises(OverflowError):
            fastq._pint["truediv"](huge, 10**399)


def test_conversion_caches_stay_bounded_while_products_make_new_units() -> None:
    """Every product makes a new units container; the id-keyed caches must not keep them all
    alive (a 10,000-point grid grew 7 KiB a point), and conversions stay right after the
    recent-containers cache is emptied."""
    power = parse_quantity("2 kW")
    for i in range(12_288):
        energy = power * parse_quantity(f"{i + 1} h")  # a new container each time
        assert energy.m_as("kWh") == pytest.approx(2.0 * (i + 1))
        assert energy + energy == energy * 2
    assert len(fastq._FACTORS) <= 4096
    assert len(fastq._MULTIPLICATIVE) <= 4096
