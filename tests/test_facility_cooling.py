"""Issue 32, the plant behind the rack: the facility water a CDU is given (CLG007) and the room's
dew point under its loops (CLG008), with exact figures."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import EXAMPLES, finding_counts
from dclint.engine.config import Config
from dclint.engine.options import parse_option
from dclint.engine.registry import discover
from dclint.engine.rule import Context, Violation
from dclint.model.design import Design
from dclint.units import Quantity

RULES = discover()


def _m(value: Quantity | float | str | None, unit: str) -> float:
    assert value is not None and not isinstance(value, (float, int, str))
    return float(value.m_as(unit))


def _design(data: dict[str, Any]) -> Design:
    return Design.model_validate({"name": "t", **data}, strict=False)


def _check(rule_id: str, design: Design, **options: Any) -> list[Violation]:
    rule = RULES[rule_id]
    values = {k: o.default for k, o in rule.options.items()} | options
    typed = {k: parse_option(rule_id, k, rule.options[k].kind, v) for k, v in values.items()}
    return list(rule().check(design, Context(typed)))


def _plant(cdu: dict[str, Any], supply: str = "32 degC", halls: Any = None) -> Design:
    return _design(
        {
            "site": {"halls": halls or {}},
            "racks": [{"id": "n[1-8]", "platform": "gb200-nvl72", "hall": "h1" if halls else None}],
            "cooling": {
                "cdus": [{"id": "c1", "capacity": "1000 kW", "max_flow": "2125 L/min", **cdu}],
                "loops": [
                    {
                        "id": "l1",
                        "cdu": "c1",
                        "supply_temperature": supply,
                        "return_temperature": "45 degC",
                        "racks": ["n[1-8]"],
                    }
                ],
            },
        }
    )


# --- item 7: the facility (primary) water carries what the CDU passes


def test_eight_nvl72_at_a_10_k_facility_rise_need_1175_l_min_of_water() -> None:
    (v,) = _check(
        "CLG007", _plant({"facility_flow": "1000 L/min", "facility_temperature_rise": "10 K"})
    )
    assert v.path == ("cooling", "cdus", 0, "facility_flow")
    # 8 x 120 kW x 85% = 816 kW; 816 / (997 x 4.18 x 10) m3/s = 1,174.9 L/min
    assert _m(v.measured, "L/min") == pytest.approx(816 / (997 * 4.18 * 10) * 60000, rel=1e-9)
    assert _m(v.limit, "L/min") == pytest.approx(1000.0)
    assert "816 kW" in v.message and "10 K rise" in v.message


def test_facility_flow_is_read_at_the_facility_fluids_properties() -> None:
    water = {"facility_flow": "1200 L/min", "facility_temperature_rise": "10 K"}
    assert _check("CLG007", _plant(water)) == []
    (v,) = _check("CLG007", _plant({**water, "facility_coolant": "pg25"}))
    assert _m(v.measured, "L/min") == pytest.approx(816 / (1021.5 * 3.92 * 10) * 60000, rel=1e-9)
    assert "PG25" in v.message


def test_a_cdu_without_both_facility_figures_is_not_checked() -> None:
    assert _check("CLG007", _plant({"facility_flow": "1 L/min"})) == []
    assert _check("CLG007", _plant({"facility_temperature_rise": "1 K"})) == []


def test_a_wider_facility_rise_needs_less_water() -> None:
    cdu = {"facility_flow": "1000 L/min", "facility_temperature_rise": "12 K"}
    assert _check("CLG007", _plant(cdu)) == []  # 979.1 L/min


# --- item 8: no loop colder than the room's dew point + margin


def test_a_16_degc_loop_sweats_in_an_ashrae_recommended_room() -> None:
    (v,) = _check("CLG008", _plant({}, supply="16 degC"))
    assert v.path == ("cooling", "loops", 0, "supply_temperature")
    assert _m(v.measured, "degC") == pytest.approx(16.0)
    assert _m(v.limit, "degC") == pytest.approx(17.0)  # 15 degC dew point + 2 K
    assert _check("CLG008", _plant({}, supply="17 degC")) == []


def test_the_halls_declared_dew_point_replaces_the_default() -> None:
    dry = {"h1": {"dew_point": "8 degC"}}
    assert _check("CLG008", _plant({}, supply="10 degC", halls=dry)) == []
    (v,) = _check("CLG008", _plant({}, supply="9.9 degC", halls=dry))
    assert _m(v.limit, "degC") == pytest.approx(10.0)
    assert "hall h1's declared dew point" in v.message


def test_clg008_options_are_read() -> None:
    good = EXAMPLES / "clg008" / "good.yaml"
    assert not {f for f in finding_counts(good) if f[0] == "CLG008"}
    margin = Config(rule_settings={"CLG008": {"margin": "3 K"}})
    # loop-1 at 17 degC needs 18 now; loop-2 (hall dry, 10 degC) at 14 needs 13: passes
    assert {f for f in finding_counts(good, config=margin) if f[0] == "CLG008"} == {("CLG008", 19)}
    dew = Config(rule_settings={"CLG008": {"dew_point": "16 degC"}})
    assert {f for f in finding_counts(good, config=dew) if f[0] == "CLG008"} == {("CLG008", 19)}
