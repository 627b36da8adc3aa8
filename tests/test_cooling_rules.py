"""Cooling rules on the figures of issue 17: facility vs secondary water (CLG004), the flow a
CDU's racks are given (CLG003), the air-cooled rack limit (CLG005), and every CLG option."""

from __future__ import annotations

from typing import Any

import pytest
from _rules import RULES
from _rules import check as _check
from _rules import design as _design
from _rules import m as _m

from conftest import EXAMPLES, finding_counts
from dclint.calc.cooling import facility_supply
from dclint.engine.config import Config
from dclint.model.design import Design
from dclint.model.resolve import topology_of


def _loop_design(
    supply: str, *, cls: str | None = "W32", cdu: dict[str, Any] | None = None
) -> Design:
    return _design(
        {
            "site": {"ashrae_class": cls} if cls else {},
            "racks": [{"id": "r1", "it_load": "50 kW", "liquid_fraction": "100%"}],
            "cooling": {
                "cdus": [
                    {
                        "id": "c1",
                        "capacity": "1000 kW",
                        "max_flow": "2125 L/min",
                        "approach": "5 K",
                        **(cdu or {}),
                    }
                ],
                "loops": [
                    {
                        "id": "l1",
                        "cdu": "c1",
                        "supply_temperature": supply,
                        "return_temperature": "50 degC",
                        "racks": ["r1"],
                    }
                ],
            },
        }
    )


# --- item 9: CLG004 checks the facility water against the class, the secondary against both


def test_w32_with_5_k_approach_takes_a_37_degc_secondary_loop() -> None:
    assert _check("CLG004", _loop_design("37 degC")) == []


def test_w32_with_5_k_approach_refuses_a_20_degc_secondary_loop() -> None:
    (v,) = _check("CLG004", _loop_design("20 degC"))
    assert v.path == ("cooling", "loops", 0, "supply_temperature")
    assert _m(v.measured, "degC") == pytest.approx(20.0)
    assert _m(v.limit, "degC") == pytest.approx(37.0)  # 32 degC (W32) + 5 K
    assert "needs facility water at 15 degC" in v.message


def test_declared_chilled_facility_water_within_the_class_makes_20_degc_reachable() -> None:
    design = _loop_design("20 degC", cdu={"facility_supply_temperature": "15 degC"})
    assert _check("CLG004", design) == []
    design = _loop_design("19.9 degC", cdu={"facility_supply_temperature": "15 degC"})
    (v,) = _check("CLG004", design)
    assert _m(v.limit, "degC") == pytest.approx(20.0)


def test_facility_water_above_its_class_is_flagged_on_the_cdu() -> None:
    design = _loop_design("40 degC", cdu={"facility_supply_temperature": "33 degC"})
    (v,) = _check("CLG004", design)
    assert v.path == ("cooling", "cdus", 0, "facility_supply_temperature")
    assert _m(v.limit, "degC") == pytest.approx(32.0)


def test_the_class_bounds_facility_water_not_the_secondary_loop() -> None:
    # 45 degC secondary on a W32 site: above 32 degC, but the class bounds the facility water
    assert _check("CLG004", _loop_design("45 degC")) == []


def test_facility_supply_comes_from_the_cdu_or_the_class() -> None:
    design = _loop_design("40 degC", cls="W27")
    cdu = design.cooling.cdus[0]
    temp, why = facility_supply(cdu, "W27")
    assert temp is not None and temp.m_as("degC") == pytest.approx(27.0)
    assert "ASHRAE W27" in why
    assert facility_supply(cdu, "W+") == (None, "")
    assert facility_supply(cdu, None) == (None, "")


def _platform_loop(platform: str, supply: str, **rack: Any) -> Design:
    return _design(
        {
            "racks": [{"id": "n1", "platform": platform, **rack}],
            "cooling": {
                "cdus": [{"id": "c1", "capacity": "1000 kW", "max_flow": "2125 L/min"}],
                "loops": [
                    {
                        "id": "l1",
                        "cdu": "c1",
                        "supply_temperature": supply,
                        "return_temperature": "60 degC",
                        "racks": ["n1"],
                    }
                ],
            },
        }
    )


def test_secondary_supply_is_held_to_the_platform_liquid_inlet_limit_with_its_source() -> None:
    assert _check("CLG004", _platform_loop("gb200-nvl72", "45 degC")) == []
    (v,) = _check("CLG004", _platform_loop("gb200-nvl72", "45.5 degC"))
    assert _m(v.limit, "degC") == pytest.approx(45.0)
    assert "OCP GB200 rack specification" in v.message


def test_an_air_inlet_limit_never_applies_to_a_liquid_loop() -> None:
    # HGX H100's 35 degC is an air inlet limit (ASHRAE A2); the platform publishes no liquid one
    design = _platform_loop("hgx-h100", "50 degC", nodes=4, liquid_fraction="70%")
    assert _check("CLG004", design) == []


# --- item 10: a CDU is checked against the flow its racks are given


def _given_design(per_rack: str, max_flow: str) -> Design:
    return _design(
        {
            "racks": [{"id": "n[1-8]", "platform": "gb200-nvl72", "coolant_flow": per_rack}],
            "cooling": {
                "cdus": [{"id": "c1", "capacity": "1000 kW", "max_flow": max_flow}],
                "loops": [
                    {
                        "id": "l1",
                        "cdu": "c1",
                        "supply_temperature": "32 degC",
                        "return_temperature": "42 degC",
                        "racks": ["n[1-8]"],
                    }
                ],
            },
        }
    )


def test_eight_racks_given_200_l_per_min_overload_a_1200_l_per_min_cdu() -> None:
    (v,) = _check("CLG003", _given_design("200 L/min", "1200 L/min"))
    assert v.path == ("cooling", "cdus", 0, "max_flow")
    assert _m(v.measured, "L/min") == pytest.approx(1600.0)
    assert _m(v.limit, "L/min") == pytest.approx(1200.0)
    # they need 8 x 102 kW / (997 kg/m3 x 4.18 kJ/(kg K) x 10 K) = 1,174.8 L/min: it fits that
    assert "need 1175 L/min" in v.message


def test_a_cdu_giving_exactly_what_its_racks_are_given_passes() -> None:
    assert _check("CLG003", _given_design("150 L/min", "1200 L/min")) == []


# --- item 11: CLG005's default passes NVIDIA's air-cooled DGX H100 and DGX B300 reference racks


def _air_rack(nodes: int) -> Design:
    return _design({"racks": [{"id": "d1", "platform": "dgx-h100", "nodes": nodes}]})


def test_four_dgx_h100_at_40_8_kw_pass_the_default() -> None:
    design = _air_rack(4)
    assert topology_of(design).racks[0].air_heat.m_as("kW") == pytest.approx(40.8)
    assert _check("CLG005", design) == []


def test_four_dgx_b300_at_56_kw_pass_the_default() -> None:
    """NVIDIA's DGX SuperPOD B300 XDR rack: four DGX B300 (~14 kW each), ~56 kW to air."""
    design = _design({"racks": [{"id": "b1", "platform": "dgx-b300", "nodes": 4}]})
    assert topology_of(design).racks[0].air_heat.m_as("kW") == pytest.approx(56.0)
    assert _check("CLG005", design) == []


def test_six_dgx_h100_at_61_2_kw_fail_the_default() -> None:
    assert _check("CLG005", _air_rack(5)) == []  # 51 kW
    (v,) = _check("CLG005", _air_rack(6))
    assert _m(v.measured, "kW") == pytest.approx(61.2)
    assert _m(v.limit, "kW") == pytest.approx(60.0)


# --- issue 21: every option of every CLG rule changes a verdict


def test_every_clg_option_is_covered_here() -> None:
    options = {
        (rid, name) for rid, rule in RULES.items() if rid[:3] == "CLG" for name in rule.options
    }
    assert options == {
        ("CLG005", "limit"),
        ("CLG006", "nvl72_minimum"),
        ("CLG008", "dew_point"),  # these two: tests/test_facility_cooling.py
        ("CLG008", "margin"),
        ("CLG009", "inlet_limit"),
        ("CLG013", "margin"),
    }


def test_clg013_margin_option_is_read() -> None:
    good = EXAMPLES / "clg013" / "good.yaml"
    assert not {f for f in finding_counts(good) if f[0] == "CLG013"}
    # 40% glycol freezes at -21.1 degC: 3.1 K below -18 degC; a 5 K margin asks for -23 degC
    config = Config(rule_settings={"CLG013": {"margin": "5 K"}})
    assert {f for f in finding_counts(good, config=config) if f[0] == "CLG013"} == {("CLG013", 7)}


def test_clg005_limit_option_is_read() -> None:
    good = EXAMPLES / "clg005" / "good.yaml"
    assert not {f for f in finding_counts(good) if f[0] == "CLG005"}
    config = Config(rule_settings={"CLG005": {"limit": "40 kW"}})
    found = {f for f in finding_counts(good, config=config) if f[0] == "CLG005"}
    # a 40 kW limit fails b3 (56 kW), d1 (40.8 kW), h1 (59.5 kW) and r1 (60 kW to air)
    assert found == {("CLG005", 8), ("CLG005", 9), ("CLG005", 10), ("CLG005", 11)}


def test_clg006_nvl72_minimum_option_is_read() -> None:
    good = EXAMPLES / "clg006" / "good.yaml"
    assert not {f for f in finding_counts(good) if f[0] == "CLG006"}
    config = Config(rule_settings={"CLG006": {"nvl72_minimum": "110 kW"}})
    found = {f for f in finding_counts(good, config=config) if f[0] == "CLG006"}
    assert found == {("CLG006", 6), ("CLG006", 7)}  # n1 at 102 kW, n2 at 100 kW


# --- item 12 and issue 21: the docs users read cite public sources, every default explained

UNPUBLISHED = ("the article", "the memo", "(memo", "memo)", "domain.md", "founding", "the brief")


@pytest.mark.parametrize("rule_id", sorted(r for r in RULES if r.startswith("CLG")))
def test_clg_doc_cites_no_unpublished_document(rule_id: str) -> None:
    doc = RULES[rule_id].doc().lower()
    assert not [w for w in UNPUBLISHED if w in doc]
    for name, option in RULES[rule_id].options.items():
        assert option.default in RULES[rule_id].doc(), (rule_id, name)
        assert "dclint's own default" in doc


def test_init_comments_cite_no_unpublished_document() -> None:
    from dclint.analysis.scaffold import scaffold

    for platform in ("gb200-nvl72", "hgx-h100"):
        text = scaffold(platform, 9).lower()
        assert not [w for w in UNPUBLISHED if w in text]
