"""Feeder and branch voltage drop (dclint.calc.voltage_drop, PWR014): figures are the hand
calculations in each comment, within 2% (most exact)."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES
from dclint.calc.voltage_drop import resistivity, voltage_drops
from dclint.engine.runner import Engine, run
from dclint.loader import load, load_text
from dclint.model.resolve import topology_of

BAD = EXAMPLES / "pwr014" / "bad.yaml"


def test_copper_and_aluminium_at_75_degc() -> None:
    # IEC 60287-1-1: rho20 x (1 + alpha x 55 K)
    assert resistivity("copper", 75.0) == pytest.approx(0.017241 * 1.21615, rel=1e-9)
    assert resistivity("aluminium", 75.0) == pytest.approx(0.028264 * 1.22165, rel=1e-9)


def test_a_200_m_feeder_drops_3_4_percent() -> None:
    drops = voltage_drops(topology_of(load(BAD)))
    pdu = drops["pdu-1"]
    # 336 kW / (sqrt(3) x 415 V x 0.95) = 492.0 A; R = 0.020968 x 200 / 240 = 17.47 mohm;
    # sqrt(3) x 492.0 x 0.01747 x 0.95 = 14.15 V = 3.41% of 415 V
    assert pdu.amps == pytest.approx(492.0, rel=0.002)
    assert pdu.ohms == pytest.approx(0.017473, rel=0.001)
    assert pdu.drop_v == pytest.approx(14.15, rel=0.002)
    assert pdu.share == pytest.approx(0.03409, rel=0.002)
    # f3: 112 kW over 60 m of 35 mm^2 (35.94 mohm): 112,000 x 0.03594 / 415^2 = 2.34%
    assert drops["f3"].share == pytest.approx(0.02337, rel=0.002)
    assert "f1" not in drops  # no length or size: not computed


def test_single_phase_drop_is_two_conductors() -> None:
    text = (
        "name: one\npower:\n  feeds:\n    - {id: f1, phases: 1, voltage: 230 V, current_rating: "
        "32 A, length: 30 m, conductor_size: 6 mm^2}\nracks:\n  - {id: r1, it_load: 5 kW, "
        "feeds: [f1]}\n"
    )
    drop = voltage_drops(topology_of(load_text(text, "d.yaml")))["f1"]
    # I = 5000 / (230 x 0.95) = 22.88 A; R = 0.020968 x 30 / 6 = 0.10484 ohm;
    # 2 x 22.88 x 0.10484 x 0.95 = 4.558 V = 1.98% of 230 V
    assert drop.drop_v == pytest.approx(4.558, rel=0.002)
    assert drop.share == pytest.approx(0.01982, rel=0.002)


def test_the_findings_give_the_drop_and_the_size_that_fixes_it() -> None:
    found = {f.subject: f for f in run([str(BAD)], Engine()).findings if f.rule == "PWR014"}
    pdu = found["pdu-1"]
    assert pdu.measured.m_as("percent") == pytest.approx(3.409, rel=0.02)
    assert pdu.message.startswith("feeder of panel pdu-1 drops 3.409% (14.15 V of 415 V)")
    assert pdu.fix.startswith("use larger conductors (300 mm^2 gives 2.727%)")
    total = found["f3"]  # 2.338% + 3.409% = 5.746%, above 5%
    assert total.measured.m_as("percent") == pytest.approx(5.746, rel=0.02)
