"""The core schema for plain scalars and the explicit scalar tags (dclint.loader.scalars)."""

from __future__ import annotations

from typing import Any

import pytest

from dclint.loader.scalars import CORE, plain, tagged


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("", None),
        ("~", None),
        ("true", True),
        ("no", "no"),  # YAML 1.1's boolean stays a string
        ("on", "on"),
        ("010", "010"),  # not octal
        ("1:30", "1:30"),  # not sexagesimal
        ("0x1F", "0x1F"),
        ("42", 42),
        ("-7", -7),
        ("12345678901234567890", "12345678901234567890"),  # 20 digits: an id, not a count
        ("1.5e3", 1500.0),
        (".5", 0.5),
        ("1e400", float("inf")),  # a number; the models refuse it as not finite
        ("120 kW", "120 kW"),
    ],
)
def test_plain_scalars(text: str, value: Any) -> None:
    got = plain(text)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize(
    ("tag", "text", "result"),
    [
        ("str", "010", ("010", None)),
        ("int", "3", (3, None)),
        ("float", "3", (3.0, None)),
        ("bool", "false", (False, None)),
        ("null", "~", (None, None)),
        ("int", "abc", (None, "'abc' is not a valid !!int")),
        ("int", "true", (None, "'true' is not a valid !!int")),  # a bool is not an int here
        ("bool", "yes", (None, "'yes' is not a valid !!bool")),
        ("float", "1:30", (None, "'1:30' is not a valid !!float")),
    ],
)
def test_tagged_scalars(tag: str, text: str, result: tuple[Any, str | None]) -> None:
    got = tagged(CORE + tag, text)
    assert got == result and type(got[0]) is type(result[0])
