"""Rule options are declared with types, not kind names (#26 item 4)."""

from __future__ import annotations

import pytest

from dclint.api import Count, Option, Positive, Power, Ratio, Share
from dclint.engine.options import kind_name, parse_option
from dclint.engine.registry import discover
from dclint.errors import ConfigError


def test_every_built_in_option_is_declared_with_a_type() -> None:
    named = [
        f"{rid}.{name}: {opt.type!r}"
        for rid, cls in sorted(discover(()).items())
        for name, opt in cls.options.items()
        if isinstance(opt.type, str)
    ]
    assert named == []


@pytest.mark.parametrize(
    ("tp", "name"),
    [
        (Power, "power"),
        (Share, "share"),
        (Ratio, "ratio"),
        (float, "float"),
        (bool, "bool"),
        (Positive, "positive"),
        (Count, "count"),
        (dict[str, Ratio], "dict:ratio"),
        (dict[str, Power], "dict:power"),
        (list[int], "list:int"),
        ("dict:bandwidth", "dict:bandwidth"),
    ],
)
def test_an_option_type_keeps_its_kind_name_for_the_docs(tp: object, name: str) -> None:
    assert kind_name(tp) == name
    assert Option(0, tp, "").kind == name


def test_typed_values_are_read_as_their_type() -> None:
    assert parse_option("X1", "a", Power, "1.2 MW").m_as("kW") == pytest.approx(1200.0)
    assert parse_option("X1", "b", dict[str, Ratio], {"compute.spine": "7:2"}) == {
        "compute.spine": 3.5
    }
    assert parse_option("X1", "c", Share, "10%").m_as("") == pytest.approx(0.1)
    # a kind name, as plug-ins written before types declare it, reads the same
    assert parse_option("X1", "d", "dict:ratio", {"f.t": "2/1"}) == {"f.t": 2.0}


@pytest.mark.parametrize("tp", [float, dict[str, float], "float"])
def test_a_float_option_refuses_nan(tp: object) -> None:
    value = {"x": "nan"} if tp == dict[str, float] else "nan"
    # a table's value is named by its key
    at = "X1.e.x" if tp == dict[str, float] else "X1.e"
    with pytest.raises(ConfigError, match=rf"^option {at}: expected a finite number, got 'nan'$"):
        parse_option("X1", "e", tp, value)


def test_a_wrong_dimension_names_the_option() -> None:
    with pytest.raises(
        ConfigError, match=r"option X1.f: expected power, e.g. '120 kW', got a value in 'm'$"
    ):
        parse_option("X1", "f", Power, "3 m")


@pytest.mark.parametrize(
    ("tp", "value", "message"),
    [
        (Count, "abc", "option X1.n: expected a whole number from 1 to 1,000,000,000, got 'abc'"),
        (Count, 10**16, "option X1.n: expected a whole number from 1 to 1,000,000,000, got 1e+16"),
        (Count, 0, "option X1.n: expected a whole number from 1 to 1,000,000,000, got 0"),
        (Count, 2.5, "option X1.n: expected a whole number from 1 to 1,000,000,000, got 2.5"),
        (Positive, -12345, "option X1.n: expected a finite number above 0, got -12,345"),
        (Positive, "abc", "option X1.n: expected a finite number above 0, got 'abc'"),
        (float, "nan", "option X1.n: expected a finite number, got 'nan'"),
        (int, "x", "option X1.n: expected a whole number, got 'x'"),
        (bool, "abc", "option X1.n: expected true or false, got 'abc'"),
        (bool, 3, "option X1.n: expected true or false, got 3"),
        (dict[str, Count], 3, "option X1.n: expected a table of names to values, got 3"),
        (
            dict[str, Count],
            {"a": 1, "b": 0},
            "option X1.n.b: expected a whole number from 1 to 1,000,000,000, got 0",
        ),
        (list[Positive], [1, 0], "option X1.n[1]: expected a finite number above 0, got 0"),
        (Power, "-5 kW", "option X1.n: power must be greater than zero, got '-5 kW'"),
        (
            Power,
            "abc",
            "option X1.n: 'abc' is not a number followed by a unit; expected power, e.g. '120 kW'",
        ),
    ],
)
def test_a_bad_value_reads_as_dclint_says_it(tp: object, value: object, message: str) -> None:
    """What the option takes, its range with separators, and what it got: no pydantic
    'Input should be' text, no 10000000000000000."""
    with pytest.raises(ConfigError) as caught:
        parse_option("X1", "n", tp, value)
    assert str(caught.value) == message
