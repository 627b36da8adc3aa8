"""Every rule option changes what its rule reports on some design: an option the rule ignored
would leave this test red. Each option's default is moved (a quantity or number scaled, a
share halved, a flag flipped, a table's entries scaled or dropped) and the rule is run on its
own example designs; at least one move must change its findings (line, message or the limit
printed beside it: the rules state their limit once, outside the message).

Options whose default gives nothing to move (an empty table) are listed in ELSEWHERE with
the test that covers them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, TODAY
from dclint.engine.config import Config, find_config, load_config
from dclint.engine.registry import discover
from dclint.engine.runner import Engine, run

RULES = discover()
ELSEWHERE = {
    ("NET001", "tier_limits"): "tests/test_fabric_rules.py",
    ("PWR001", "platform_limits"): "tests/test_power_options.py",
}
_QUANTITY = re.compile(r"^\s*([-+]?\d*\.?\d+(?:[eE][-+]?\d+)?)\s*(.*)$")


def _scaled(value: Any, factor: float) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return max(1, round(value * factor))
    if isinstance(value, float):
        return value * factor
    if isinstance(value, str):
        match = _QUANTITY.match(value)
        if match:
            number, unit = float(match.group(1)) * factor, match.group(2)
            if unit == "%":
                number = min(number, 100.0)
            return f"{number:g} {unit}".strip() if unit != "%" else f"{number:g}%"
    if isinstance(value, dict):
        return {k: _scaled(v, factor) for k, v in value.items()}
    return value


def _moves(default: Any) -> list[Any]:
    if isinstance(default, bool):
        return [not default]
    moves = [_scaled(default, f) for f in (0.5, 2.0, 0.1, 10.0, 0.01, 100.0)]
    if isinstance(default, dict):
        moves.append({})
    return [m for m in moves if m != default]


def _findings(path: Path, rule: str, settings: dict[str, Any]) -> list[tuple[int, str, str | None]]:
    engine = Engine(config=Config(rule_settings=settings, select=(rule,)), today=TODAY)
    result = run([str(path)], engine)
    return sorted((f.line, f.message, f.limit_text) for f in result.findings if f.rule == rule)


def _base(folder: Path, rule: str) -> dict[str, Any]:
    """The example folder's own config (e.g. PAR005 turns its search on), for `rule` only."""
    found = find_config(folder)
    if found is None or found.parent != folder:
        return {}
    return dict(load_config(found).rule_settings.get(rule, {}))


CASES = [
    (rid, name)
    for rid, cls in sorted(RULES.items())
    for name in cls.options
    if (rid, name) not in ELSEWHERE
]


@pytest.mark.parametrize(("rule_id", "option"), CASES)
def test_option_changes_the_findings(rule_id: str, option: str) -> None:
    folder = EXAMPLES / rule_id.lower()
    base = _base(folder, rule_id)
    default = base.get(option, RULES[rule_id].options[option].default)
    for example in sorted(folder.glob("*.yaml")):
        before = _findings(example, rule_id, {rule_id: base})
        for value in _moves(default):
            if _findings(example, rule_id, {rule_id: {**base, option: value}}) != before:
                return
    pytest.fail(f"{rule_id}.{option}: no move of {default!r} changes a finding on its examples")


def test_options_covered_elsewhere_exist_and_are_tested_there() -> None:
    root = EXAMPLES.parent.parent
    for (rule_id, option), test_file in ELSEWHERE.items():
        assert option in RULES[rule_id].options
        assert option in (root / test_file).read_text(encoding="utf-8")
