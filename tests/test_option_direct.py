"""Rule options read without a pydantic adapter (dclint.engine.options._direct) come out as the
adapter reads them: the same value, type and unit, or the same error, for every built-in rule's
default and for values a config may write."""

from __future__ import annotations

import math
from typing import Any

import pytest

from dclint.engine import options
from dclint.engine.registry import discover
from dclint.errors import ConfigError

VALUES: list[Any] = [
    "120 kW", "1e30 W", "-5 kW", "0 kW", "32 degC", "0 K", "5 K", "10 min", "1 PB", "400 Gb/s",
    "80%", "150%", "abc", "", 0.5, 1.5, 5, 5.0, 0, -1, 2.5, 10**10, True, False, None, [],
    math.nan, math.inf, "2:1", "3:2", "1:0", "0:1", {"x": "1 kW", "y": "2 MW"}, {"x": 1.5},
    {"x": "2:1"}, {1: "1 kW"}, {"x": "bad"}, {"x": 0},
]  # fmt: skip


def _read(read: Any, rule_id: str, name: str, tp: Any, value: Any) -> tuple[Any, ...]:
    try:
        got = read(rule_id, name, tp, value)
    except ConfigError as exc:
        return ("error", str(exc))
    return ("value", type(got), repr(got), str(getattr(got, "units", "")))


def _with_adapter(rule_id: str, name: str, tp: Any, value: Any) -> Any:
    direct = options._direct
    options._direct = lambda tp, value: options._UNREAD  # type: ignore[assignment]
    try:
        return options.parse_option(rule_id, name, tp, value)
    finally:
        options._direct = direct  # type: ignore[assignment]


def _options() -> list[tuple[str, str, Any, Any]]:
    return [
        (rule_id, name, option.type, option.default)
        for rule_id, cls in discover().items()
        for name, option in cls.options.items()
    ]


def test_every_default_is_read_directly_and_as_the_adapter_reads_it() -> None:
    found = _options()
    assert len(found) > 60
    for rule_id, name, tp, default in found:
        assert options._direct(tp, default) is not options._UNREAD, (rule_id, name)
        mine = _read(options.parse_option, rule_id, name, tp, default)
        assert mine == _read(_with_adapter, rule_id, name, tp, default), (rule_id, name)


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_a_configured_value_reads_as_the_adapter_reads_it(value: Any) -> None:
    seen = set()
    for rule_id, name, tp, _ in _options():
        if repr(tp) in seen:
            continue
        seen.add(repr(tp))
        mine = _read(options.parse_option, rule_id, name, tp, value)
        assert mine == _read(_with_adapter, rule_id, name, tp, value), (rule_id, name, tp)
