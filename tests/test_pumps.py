"""A CDU's pump curve against its loop's pressure drop (dclint.calc.pumps, CLG014): figures by
hand, within 2%."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES
from dclint.calc.pumps import pump_matches
from dclint.loader import load, load_text
from dclint.model.resolve import topology_of


def test_pump_and_loop_meet_short_of_the_need() -> None:
    (m,) = pump_matches(topology_of(load(EXAMPLES / "clg014" / "bad.yaml")))
    # 800 kW at 10 K: 800 / (0.997 x 4.18 x 10) x 60 = 1,151.8 L/min
    assert m.need_lpm == pytest.approx(1151.8, rel=0.002)
    # head 300 - 0.13333 Q: 146.4 kPa there, against a 200 kPa drop
    assert m.head_kpa == pytest.approx(146.4, rel=0.002)
    assert m.drop_kpa == pytest.approx(200.0)
    # 300 - 0.13333 Q = 200 (Q / 1151.8)^2 at Q = 1,036.1 L/min: 10.0% short
    assert m.operating_lpm == pytest.approx(1036.1, rel=0.002)
    assert m.short == pytest.approx(0.1004, rel=0.01)


def test_a_flow_beyond_the_curve_has_no_head() -> None:
    text = (EXAMPLES / "clg014" / "good.yaml").read_text(encoding="utf-8")
    topo = topology_of(load_text(text.replace("1500 L/min, head", "1000 L/min, head"), "d.yaml"))
    (m,) = pump_matches(topo)
    assert m.head_kpa is None  # 1,151.8 L/min is past the curve's last point
