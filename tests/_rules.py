"""Shared by the rule tests that call a rule directly (test_cooling_rules, test_facility_cooling):
a design from a dict, one rule's violations under its default options (or the ones given, typed
as a config's would be), and a violation's value in a unit."""

from __future__ import annotations

from typing import Any

from dclint.engine.options import parse_option
from dclint.engine.registry import discover
from dclint.engine.rule import Context, Violation
from dclint.model.design import Design
from dclint.units import Quantity

RULES = discover()


def m(value: Quantity | float | str | None, unit: str) -> float:
    """A Violation's measured or limit value in `unit` (it must be a quantity)."""
    assert value is not None and not isinstance(value, (float, int, str))
    return float(value.m_as(unit))


def design(data: dict[str, Any]) -> Design:
    """A design named 't' from `data`, validated as a loaded file is (not strict)."""
    return Design.model_validate({"name": "t", **data}, strict=False)


def check(rule_id: str, design: Design, **options: Any) -> list[Violation]:
    """`rule_id`'s violations on `design`: its default options, `options` over them, each typed
    by parse_option as a config's value is."""
    rule = RULES[rule_id]
    values = {k: o.default for k, o in rule.options.items()} | options
    typed = {k: parse_option(rule_id, k, rule.options[k].kind, v) for k, v in values.items()}
    return list(rule().check(design, Context(typed)))
