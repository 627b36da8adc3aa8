"""dclint's unit registry: the traps of pint's defaults are fixed, and the parser is strict."""

from __future__ import annotations

import pickle
import time
from typing import Any

import pint
import pytest

from dclint.units import Q_, QuantityError, fmt, parse_quantity, ureg


def test_bits_and_bytes_with_si_and_iec_prefixes() -> None:
    assert parse_quantity("400 Gb/s").to("GB/s").magnitude == pytest.approx(50.0)
    assert parse_quantity("400 Gbps").to("Gb/s").magnitude == pytest.approx(400.0)
    assert parse_quantity("1 GiB").to("B").magnitude == 2**30
    assert parse_quantity("1 GB").to("B").magnitude == 10**9
    assert parse_quantity("1 TB/s").to("Gb/s").magnitude == pytest.approx(8000.0)
    assert [n for n, _ in parse_quantity("1 b").unit_items()] == ["bit"]  # not barn


def test_gigabit_is_not_gilbert_and_bit_has_a_dimension() -> None:
    assert dict(parse_quantity("1 Gb").dimensionality) == {"[information]": 1}
    assert dict(parse_quantity("1 bit").dimensionality) == {"[information]": 1}


def test_flops_with_prefixes() -> None:
    assert parse_quantity("1 PFLOPS").to("TFLOPS").magnitude == pytest.approx(1000.0)
    assert (parse_quantity("989 TFLOPS") * Q_(1, "s")).to("FLOP").magnitude == pytest.approx(989e12)


def test_currencies_are_separate_dimensions() -> None:
    with pytest.raises(pint.DimensionalityError):
        parse_quantity("1 USD").to("CNY")
    price = parse_quantity("0.8 CNY/kWh")
    cost = (price * Q_(1.33, "MW") * Q_(24, "h")).to("CNY")
    assert cost.magnitude == pytest.approx(25536.0)  # the memo's daily cost, not x 10^5


def test_rack_unit_is_not_an_enzyme_unit() -> None:
    assert parse_quantity("2 U").to("mm").magnitude == pytest.approx(88.9)


def test_kva_is_apparent_power_not_watts() -> None:
    # VA converts only within apparent power; W = VA x a power factor, never VA as W
    assert parse_quantity("34.5 kVA").to("VA").magnitude == pytest.approx(34500.0)
    assert parse_quantity("1 MVA").to("kVA").magnitude == pytest.approx(1000.0)
    with pytest.raises(pint.DimensionalityError):
        parse_quantity("34.5 kVA").to("W")


def test_flow_and_percent() -> None:
    assert parse_quantity("150 L/min").to("m**3/s").magnitude == pytest.approx(0.0025)
    assert parse_quantity("80%").to("dimensionless").magnitude == pytest.approx(0.8)


def test_temperatures_absolute_and_difference() -> None:
    supply, back = parse_quantity("32 degC"), parse_quantity("42 degC")
    delta = back - supply
    assert [name for name, _ in delta.unit_items()] == ["delta_degree_Celsius"]
    assert delta.to("K").magnitude == pytest.approx(10.0)
    with pytest.raises(pint.errors.OffsetUnitCalculusError):
        _ = supply * Q_(2.0, "kW")
    assert not ureg.autoconvert_offset_to_baseunit


def test_quantity_never_equals_a_bare_number_silently() -> None:
    assert (Q_(120, "kW") == 120) is False  # why dclint never compares to bare numbers


GARBAGE = [
    "9**9**9 W",
    "2**2**2**2**50 kW",
    "'abc' W",
    "nan W",
    "inf W",
    "1e999 W",
    "120 kW; rm",
    "__import__('os') W",
    "W",
    "",
    "1 " + "k" * 100,
    "1 (W",
    "12 kW kW kW" * 10,
]


@pytest.mark.parametrize("text", GARBAGE)
def test_strict_grammar_refuses_code_and_garbage(text: str) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(text)


@pytest.mark.integration  # wall-clock bound
@pytest.mark.parametrize("text", GARBAGE)
def test_garbage_is_refused_at_once(text: str) -> None:
    start = time.perf_counter()
    with pytest.raises(QuantityError):
        parse_quantity(text)
    assert time.perf_counter() - start < 0.5


def test_unknown_unit() -> None:
    with pytest.raises(QuantityError, match="unknown unit"):
        parse_quantity("100 foo")


def test_each_distinct_string_is_parsed_once() -> None:
    parse_quantity.cache_clear()
    first = parse_quantity("123.5 kW")
    assert parse_quantity("123.5 kW") is first
    assert parse_quantity.cache_info().hits == 1


def test_pickled_quantities_return_to_dclints_registry() -> None:
    q = pickle.loads(pickle.dumps(parse_quantity("400 Gb/s")))
    assert q.to("GB/s").magnitude == pytest.approx(50.0)


@pytest.mark.parametrize(
    ("q", "unit", "text"),
    [
        ("132 kW", None, "132 kW"),
        ("171.93 L/min", None, "171.9 L/min"),
        ("120000 W", "kW", "120 kW"),
        ("5 delta_degC", None, "5 K"),
        ("32 degC", None, "32 degC"),
        ("9999.4 kW", None, "9999 kW"),
        ("9999.5 kW", None, "10,000 kW"),  # rounds up to five digits: not "1e+04 kW"
        ("-9999.7 kW", None, "-10,000 kW"),
        ("123456.7 kW", None, "123,457 kW"),
        ("0.00012345 kW", None, "0.0001234 kW"),
        ("2e15 W", None, "2e+15 W"),
    ],
)
def test_fmt_is_compact(q: str, unit: str | None, text: str) -> None:
    assert fmt(parse_quantity(q), unit) == text


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("-273 degC", True),
        ("-273.15 degC", False),  # absolute zero itself
        ("-300 degC", False),
        ("200 K", True),  # in K, a plausible one (below 200 K: tests/test_hardening_text.py)
        ("0 K", False),
        ("-459 degF", True),
        ("-460 degF", False),
    ],
)
def test_a_temperature_at_or_below_absolute_zero_is_refused(text: str, ok: bool) -> None:
    from pydantic import TypeAdapter, ValidationError

    from dclint.model.types import Temperature

    adapter: TypeAdapter[Any] = TypeAdapter(Temperature)
    for _ in range(2):  # the second of a valid text comes from the field kind's memory
        if ok:
            assert adapter.validate_python(text) == parse_quantity(text)
        else:
            with pytest.raises(ValidationError, match="at or below absolute zero"):
                adapter.validate_python(text)


def test_a_field_kind_checks_each_distinct_valid_text_once() -> None:
    from pydantic import TypeAdapter, ValidationError

    from dclint.model.types import Power, Voltage

    dim = Power.__metadata__[0]
    dim._seen.clear()
    adapter: TypeAdapter[Any] = TypeAdapter(Power)
    first = adapter.validate_python("123 kW")
    assert dim._seen == {"123 kW": first}
    assert adapter.validate_python("123 kW") is first
    for text, error in [("123 V", "expected power"), ("-5 kW", "greater than zero")]:
        for _ in range(2):  # a text that failed is checked again, and fails again
            with pytest.raises(ValidationError, match=error):
                adapter.validate_python(text)
    assert set(dim._seen) == {"123 kW"}
    assert "123 kW" not in Voltage.__metadata__[0]._seen  # each kind has its own


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("120 KW", " (did you mean 'kW'?)"),
        ("120kw", " (did you mean 'kW'?)"),
        ("5 KWH", " (did you mean 'kWh'?)"),
        ("120 KVA", " (did you mean 'kVA'?)"),
        ("1 mw", ""),  # mW or MW: a factor of 10^9 apart, so no guess
        ("10 gb", " (did you mean 'Gb' or 'GB'?)"),  # a data unit: both spellings named
        ("2 tb/s", " (did you mean 'Tb/s' or 'TB/s'?)"),
        ("1 tB", " (did you mean 'TB'?)"),
        ("8 tbps", " (did you mean 'Tbps'?)"),
        # issue 54: bytes a second stay bytes (never 'Gbps', 8x off), the prefix's case kept
        ("300 GBps", " (did you mean 'GB/s'?)"),
        ("2 TBps", " (did you mean 'TB/s'?)"),
        ("500 MBps", " (did you mean 'MB/s'?)"),
        ("64 KBps", " (did you mean 'kB/s'?)"),
        ("9 Bps", " (did you mean 'B/s'?)"),
        ("5 mBps", ""),  # millibytes a second: no guess
        ("3 xyz", ""),
    ],
)
def test_a_unit_in_the_wrong_letter_case_gets_a_hint(text: str, hint: str) -> None:
    """The spelling a wrong-case unit has, where exactly one known prefix and symbol read so
    (dclint never guesses it: the value stays an error)."""
    unit = text.split(" ")[-1] if " " in text else text[3:]
    with pytest.raises(QuantityError) as caught:
        parse_quantity(text)
    assert str(caught.value) == f"unknown unit in '{unit}'{hint}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 pb", "ambiguous unit in 'pb': 'pb' is pico (1e-12) bits (did you mean 'Pb' or 'PB'?)"),
        ("1 pB", "ambiguous unit in 'pB': 'pB' is pico (1e-12) bytes (did you mean 'PB'?)"),
        ("3 mb", "ambiguous unit in 'mb': 'mb' is milli (0.001) bits (did you mean 'Mb' or 'MB'?)"),
        (
            "2 pb/s",
            "ambiguous unit in 'pb/s': 'pb' is pico (1e-12) bits (did you mean 'Pb/s' or 'PB/s'?)",
        ),
        (
            "100 mbps",
            "ambiguous unit in 'mbps': 'mbps' is milli (0.001) bits per second "
            "(did you mean 'Mbps'?)",
        ),
    ],
)
def test_a_data_unit_with_a_small_prefix_is_ambiguous(text: str, message: str) -> None:
    """pint reads `1 pb` as a picobit: a design means a petabit or petabyte, so the value is
    refused with both spellings, as a wrong-case unit is."""
    with pytest.raises(QuantityError) as caught:
        parse_quantity(text)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("text", "bits"),
    [("1 Pb", 1e15), ("1 PB", 8e15), ("1 kb", 1e3), ("1 Mbps", 1e6), ("1 GiB", 8 * 2**30)],
)
def test_data_units_spelled_right_still_read(text: str, bits: float) -> None:
    q = parse_quantity(text)
    assert q.to("b" if "ps" not in text else "b/s").magnitude == pytest.approx(bits)
