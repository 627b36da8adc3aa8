"""Generator step load from training power swings (PWR015): the figures of its examples, by
hand (within 2%)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import EXAMPLES
from dclint.engine.runner import Engine, run


def test_a_training_swing_is_a_load_step_on_the_generators() -> None:
    (finding,) = [
        f
        for f in run([str(EXAMPLES / "pwr015" / "bad.yaml")], Engine()).findings
        if f.rule == "PWR015"
    ]
    # 8 x 132 kW x 50% = 528 kW against 2 x 2,000 kW x 12% = 480 kW
    assert finding.measured.m_as("kW") == pytest.approx(528.0, rel=0.02)
    assert finding.limit.m_as("kW") == pytest.approx(480.0, rel=0.02)
    assert "x 50% training swing, above what its 2 working sets accept" in finding.message


def test_smoothing_and_a_set_serving_one_busway(tmp_path: Path) -> None:
    good = EXAMPLES / "pwr015" / "good.yaml"
    assert [f for f in run([str(good)], Engine()).findings if f.rule == "PWR015"] == []
    # without the 60% smoothing: gen sees 1,056 x 50% = 528 kW (480 kW accepted); gen-b, at the
    # default 35% x 2 x 1,000 kW = 700 kW, the 4 racks below busway-b: 528 x 50% = 264 kW
    bare = tmp_path / "d.yaml"
    bare.write_text(
        good.read_text(encoding="utf-8").replace("  swing_smoothing: 60%\n", ""), encoding="utf-8"
    )
    found = [f for f in run([str(bare)], Engine()).findings if f.rule == "PWR015"]
    assert [(f.subject, f.measured.m_as("kW")) for f in found] == [("gen", pytest.approx(528.0))]
