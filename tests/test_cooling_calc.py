"""Coolant flow arithmetic, Q = rho x Vdot x cp x dT with water at 25 degC (4.18 kJ/(kg K),
997 kg/m3) and PG25 (3.92 kJ/(kg K), 1021.5 kg/m3), and the CDU tallies."""

from __future__ import annotations

import pytest

from dclint.calc.cooling import cdu_loads, heat_carried, loop_delta, required_flow
from dclint.model.cooling import Loop
from dclint.model.design import Design
from dclint.model.resolve import topology_of
from dclint.units import Q_


def test_120_kw_rack_at_10_k_on_water_needs_about_172_l_per_min() -> None:
    flow = required_flow(Q_(120, "kW"), "water", Q_(10, "K"))
    assert flow.m_as("L/min") == pytest.approx(172.8, abs=0.1)
    assert flow.m_as("L/min") == pytest.approx(172, rel=0.01)  # the usual "~172 L/min"


def test_150_l_per_min_of_water_at_10_k_carries_about_105_kw() -> None:
    heat = heat_carried(Q_(150, "L/min"), "water", Q_(10, "K"))
    assert heat.m_as("kW") == pytest.approx(104.2, abs=0.1)


def test_pg25_needs_more_flow_than_water() -> None:
    # rho x cp: water 4167 kJ/(m3 K), PG25 4004 kJ/(m3 K): 4.1% more flow
    flow = required_flow(Q_(120, "kW"), "pg25", Q_(10, "K"))
    assert flow.m_as("L/min") == pytest.approx(179.8, abs=0.1)


def test_units_convert_through_pint() -> None:
    flow = required_flow(Q_(0.12, "MW"), "water", Q_(10, "delta_degC"))
    assert flow.m_as("m^3/h") == pytest.approx(10.37, abs=0.01)


def test_loop_delta_of_absolute_temperatures_is_a_difference() -> None:
    loop = Loop.model_validate(
        {"id": "l", "cdu": "c", "supply_temperature": "32 degC", "return_temperature": "42 degC"},
        strict=False,
    )
    delta = loop_delta(loop)
    assert delta.m_as("K") == pytest.approx(10.0)
    assert delta.units == Q_(1, "K").units  # not degC: a difference
    mixed = Loop.model_validate(
        {"id": "l", "cdu": "c", "supply_temperature": "86 degF", "return_temperature": "313.15 K"},
        strict=False,
    )
    assert loop_delta(mixed).m_as("K") == pytest.approx(10.0)  # 30 degC to 40 degC


def test_non_positive_rise_is_refused() -> None:
    with pytest.raises(ValueError):
        required_flow(Q_(120, "kW"), "water", Q_(0, "K"))


def test_cdu_loads_sum_liquid_heat_and_flow_of_their_loops() -> None:
    design = Design.model_validate(
        {
            "name": "t",
            "racks": [{"id": "r[1-2]", "platform": "gb200-nvl72", "it_load": "120 kW"}],
            "cooling": {
                "cdus": [{"id": "c1", "capacity": "2000 kW", "max_flow": "2125 L/min"}],
                "loops": [
                    {
                        "id": "l1",
                        "cdu": "c1",
                        "supply_temperature": "32 degC",
                        "return_temperature": "42 degC",
                        "racks": ["r[1-2]"],
                    }
                ],
            },
        },
        strict=False,
    )
    load = cdu_loads(topology_of(design))["c1"]
    assert load.heat.m_as("kW") == pytest.approx(204.0)  # 2 x 120 kW x 85% to liquid
    assert load.flow.m_as("L/min") == pytest.approx(2 * 146.85, abs=0.1)
    assert load.loops == ["l1"]
    assert load.given.m_as("L/min") == pytest.approx(2 * 146.85, abs=0.1)  # none declared


def test_cdu_loads_count_the_flow_racks_are_given() -> None:
    design = Design.model_validate(
        {
            "name": "t",
            "racks": [
                {"id": "r1", "platform": "gb200-nvl72", "coolant_flow": "200 L/min"},
                {"id": "r2", "platform": "gb200-nvl72", "coolant_flow": "100 L/min"},
                {"id": "r3", "platform": "gb200-nvl72"},
            ],
            "cooling": {
                "cdus": [{"id": "c1", "capacity": "2000 kW", "max_flow": "2125 L/min"}],
                "loops": [
                    {
                        "id": "l1",
                        "cdu": "c1",
                        "supply_temperature": "32 degC",
                        "return_temperature": "42 degC",
                        "racks": ["r1", "r2", "r3"],
                    }
                ],
            },
        },
        strict=False,
    )
    load = cdu_loads(topology_of(design))["c1"]
    assert load.flow.m_as("L/min") == pytest.approx(3 * 146.85, abs=0.1)
    # 200 + 100 given, r3 declares none and is counted at the 146.85 L/min it needs
    assert load.given.m_as("L/min") == pytest.approx(446.85, abs=0.1)
