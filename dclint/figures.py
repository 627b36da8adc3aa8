"""How dclint prints a figure: one function, with nothing to import (a replayed check prints a
stored finding's measured value without loading pint)."""

from __future__ import annotations

__all__ = ["figures", "percent"]


def figures(value: float, digits: int = 4) -> str:
    """A number as `fmt` prints a quantity's: `digits` significant figures ('168.6', '0.00746');
    from 10**digits, and what rounds up to it (9999.5 -> '10,000', not '1e+04'), whole with
    thousands separators ('6,356,180'). The one print of a figure: `fmt`, the reports' `show`
    (a plain number: a table's days, MWh, GiB) and a finding's measured value print by it."""
    text = f"{value:.{digits}g}"
    if 1 <= abs(value) < 1e15 and (abs(value) >= 10**digits or "e" in text):
        text = f"{value:,.0f}"
    return text


def percent(share: float) -> str:
    """A share (an MFU) as a percentage to 4 figures, as `figures` prints a number: 0.4808 ->
    '48.08%', 0.45 -> '45%', 100 -> '10,000%'. The one print of an MFU: `dclint cost`, the
    review's tables and sentences, `dclint plan`."""
    return f"{figures(share * 100)}%"
