"""What the outputs say, read as a reader reads them: a figure printed apart from its limit
where it is over it, with its unit, once."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES
from dclint.cli import main
from dclint.units import Q_, fmt_apart


def test_fmt_apart_prints_the_digits_that_tell_a_figure_from_its_limit() -> None:
    assert fmt_apart(Q_(10.001, "kW"), Q_(10, "kW")) == "10.001 kW"
    assert fmt_apart(Q_(80.00004, "kW"), Q_(80, "kW")) == "80.00004 kW"
    assert fmt_apart(Q_(132, "kW"), Q_(109.3, "kW")) == "132 kW"  # 4 figures where they do
    assert fmt_apart(Q_(80_000.4, "W"), Q_(80, "kW")) == "80000.4 W"  # in the figure's unit
    assert fmt_apart(Q_(0.0800004, "MW"), Q_(80, "kW"), "kW") == "80.0004 kW"


def test_pwr003_never_prints_a_feed_load_equal_to_its_capacity(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Feed s2 carries 10.001 kW against 200 V x 50 A at PF 1, 10 kW: the message said
    'carries 10 kW', above its capacity of 10 kW, where the numbers after it say 10.001 kW."""
    bad = str(EXAMPLES / "pwr003/bad.yaml")
    assert main(["check", "--isolated", "--select", "PWR003", bad]) == 1
    line = next(x for x in capsys.readouterr().out.splitlines() if " feed s2 " in x)
    assert line == (
        f"{bad}:30:23: PWR003 [error] feed s2 carries 10.001 kW (no power path) (rack r5 at its "
        "design IT load: no catalog max_power known), above its derated capacity (200 V x 50 A "
        "single-phase at 100%: 10 kVA x PF 1) (measured 10.001 kW, limit 10 kW)"
    )
