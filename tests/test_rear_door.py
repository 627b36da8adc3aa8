"""Rear-door air-off temperature from the coils' effectiveness (CLG009): the air a door returns
is the next rack's inlet, so it settles dT (1 - e) / e above the water."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import EXAMPLES
from dclint.engine.runner import Engine, run

BAD = EXAMPLES / "clg009" / "bad-effectiveness.yaml"


def _clg009(path: Path) -> list:  # type: ignore[type-arg]
    return [f for f in run([str(path)], Engine()).findings if f.rule == "CLG009"]


def test_effective_coils_set_the_air_off_temperature() -> None:
    (finding,) = _clg009(BAD)
    # 24 degC + 15 K x 0.3 / 0.7 = 30.43 degC against 27 degC
    assert finding.measured.m_as("degC") == pytest.approx(30.43, rel=0.02)
    assert finding.limit.m_as("degC") == pytest.approx(27.0)


def test_the_halls_air_rise_stands_in(tmp_path: Path) -> None:
    text = BAD.read_text(encoding="utf-8").replace("      air_temperature_rise: 15 K\n", "")
    text = text.replace(
        "rack_types:",
        "site:\n  halls:\n    h1: {air_handlers: {capacity: 500 kW, count: 2, "
        "temperature_rise: 12 K}}\nrack_types:",
    ).replace("{id: 'r[1-4]', type: rear-door}", "{id: 'r[1-4]', type: rear-door, hall: h1}")
    design = tmp_path / "d.yaml"
    design.write_text(text, encoding="utf-8")
    (finding,) = _clg009(design)
    # 24 degC + 12 K x 0.3 / 0.7 = 29.14 degC
    assert finding.measured.m_as("degC") == pytest.approx(29.14, rel=0.02)
    # no rise known at all: 0 K approach, 24 degC passes
    bare = text.replace("temperature_rise: 12 K", "airflow: 10 m^3/s")
    design.write_text(bare, encoding="utf-8")
    assert _clg009(design) == []
