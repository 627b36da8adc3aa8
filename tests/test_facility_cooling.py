"""Issue 32, the plant behind the rack: the facility water a CDU is given (CLG007), the room's
dew point under its loops (CLG008), liquid-to-air coils against the air inlet limit (CLG009),
the room's air handlers (CLG010) and the floor under the racks (STR001), with exact figures."""

from __future__ import annotations

from typing import Any

import pytest
from _rules import RULES
from _rules import check as _check
from _rules import design as _design
from _rules import m as _m

from conftest import EXAMPLES, finding_counts
from dclint.engine.config import Config
from dclint.model.design import Design


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


# --- item 9: rear doors and in-row coils return air no colder than their water + approach


def _coil(platform: str, supply: str, approach: str | None, cooler: str | None = "rear_door"):
    loop: dict[str, Any] = {
        "id": "l1",
        "cdu": "c1",
        "supply_temperature": supply,
        "return_temperature": "40 degC",
        "racks": ["r[1-2]"],
    }
    if cooler:
        loop["air_cooler"] = cooler
    if approach:
        loop["coil_approach"] = approach
    return _design(
        {
            "racks": [{"id": "r[1-2]", "platform": platform, "nodes": 4, "liquid_fraction": 1}],
            "cooling": {
                "cdus": [{"id": "c1", "capacity": "1000 kW", "max_flow": "2125 L/min"}],
                "loops": [loop],
            },
        }
    )


def test_a_rear_door_on_a_warm_water_loop_returns_air_above_27_degc() -> None:
    (v,) = _check("CLG009", _coil("dgx-h100", "24 degC", "3.5 K"))
    assert v.path == ("cooling", "loops", 0, "supply_temperature")
    assert _m(v.measured, "degC") == pytest.approx(27.5)
    assert _m(v.limit, "degC") == pytest.approx(27.0)
    assert _check("CLG009", _coil("dgx-h100", "24 degC", "3 K")) == []


def test_the_platforms_own_inlet_limit_binds_where_lower() -> None:
    (v,) = _check("CLG009", _coil("dgx-a100", "28 degC", "3 K"), inlet_limit="40 degC")
    assert _m(v.limit, "degC") == pytest.approx(30.0)  # NVIDIA DGX A100 user guide: 5-30 degC
    assert "dgx-a100's inlet limit" in v.message
    assert _check("CLG009", _coil("dgx-h100", "28 degC", "3 K"), inlet_limit="40 degC") == []


def test_a_loop_without_air_coolers_feeds_cold_plates_and_is_not_checked() -> None:
    assert _check("CLG009", _coil("hgx-h100", "40 degC", None, cooler=None)) == []


# --- item 10: the air side of the hall


def _hall(handlers: dict[str, Any], tier: str | None = None, racks: int = 8) -> Design:
    return _design(
        {
            "site": {"uptime_tier": tier, "halls": {"h1": {"air_handlers": handlers}}},
            "racks": [{"id": f"n[1-{racks}]", "platform": "gb200-nvl72", "hall": "h1"}],
        }
    )


def test_eight_nvl72_put_144_kw_into_the_rooms_air() -> None:
    handlers = {"capacity": "70 kW", "count": 3, "redundant": 1}
    (v,) = _check("CLG010", _hall(handlers))
    assert v.path == ("site", "halls", "h1", "air_handlers", "capacity")
    assert _m(v.measured, "kW") == pytest.approx(8 * 120 * 0.15)
    assert _m(v.limit, "kW") == pytest.approx(140.0)  # two of three units
    assert _check("CLG010", _hall({**handlers, "capacity": "72 kW"})) == []


def test_airflow_is_the_heat_over_rho_cp_dt_of_standard_air() -> None:
    handlers = {"capacity": "100 kW", "count": 3, "redundant": 1, "airflow": "5 m^3/s"}
    (v,) = _check("CLG010", _hall({**handlers, "temperature_rise": "10 K"}))
    assert v.path == ("site", "halls", "h1", "air_handlers", "airflow")
    assert _m(v.measured, "m^3/s") == pytest.approx(144 / (1.2 * 1.006 * 10), rel=1e-9)
    assert _m(v.limit, "m^3/s") == pytest.approx(10.0)
    assert "CFM" in v.message
    assert _check("CLG010", _hall({**handlers, "temperature_rise": "12 K"})) == []  # 9.94 m3/s
    assert _check("CLG010", _hall(handlers)) == []  # no rise declared: airflow not checked


def test_tier_iii_asks_for_a_spare_air_handler() -> None:
    handlers = {"capacity": "100 kW", "count": 2}
    assert _check("CLG010", _hall(handlers)) == []
    (v,) = _check("CLG010", _hall(handlers, tier="III"))
    assert v.path == ("site", "halls", "h1", "air_handlers", "redundant")


# --- item 11: floor loading


def _floor(rating: str, rack: dict[str, Any]) -> Design:
    return _design({"site": {"floor_rating": rating}, "racks": [{"id": "r1", **rack}]})


def test_a_gb200_nvl72_loads_the_default_footprint_with_18_5_kn_m2() -> None:
    (v,) = _check("STR001", _floor("12 kN/m^2", {"platform": "gb200-nvl72"}))
    assert _m(v.measured, "kN/m^2") == pytest.approx(1360 / 0.72 * 9.80665 / 1000)
    assert _m(v.limit, "kN/m^2") == pytest.approx(12.0)
    assert v.path == ("racks", 0, "platform")  # the weight comes from the platform
    spread = {"platform": "gb200-nvl72", "footprint": "1.2 m^2"}
    assert _check("STR001", _floor("12 kN/m^2", spread)) == []  # 11.1 kN/m^2


def test_a_rating_in_kg_per_m2_is_compared_as_mass_per_area() -> None:
    (v,) = _check("STR001", _floor("1500 kg/m^2", {"it_load": "1 kW", "weight": "1.2 t"}))
    assert _m(v.measured, "kg/m^2") == pytest.approx(1200 / 0.72)
    assert v.path == ("racks", 0, "weight")
    assert _check("STR001", _floor("1500 kg/m^2", {"it_load": "1 kW"})) == []  # weight unknown


def test_str001_footprint_option_is_read() -> None:
    design = _floor("12 kN/m^2", {"platform": "gb200-nvl72"})
    assert _check("STR001", design, footprint="1.2 m^2") == []


# --- the review's power one-line draws the load PWR006, PWR008 and PWR003 check


def test_the_power_diagram_draws_the_load_the_power_rules_check() -> None:
    import dclint
    from conftest import SAMPLES
    from dclint.analysis.assess.assessment import diagrams
    from dclint.analysis.diagrams import power_basis
    from dclint.analysis.summary import summarise
    from dclint.engine.config import default_options

    design = dclint.load(str(SAMPLES / "broken-feed-headroom.yaml"))
    options = default_options()
    summary = summarise(design, options)

    def details() -> dict[str, str]:
        graphs = dict(diagrams(design, summary, {}, power_basis(RULES, options)).graphs)
        return {
            n.key: n.detail for n in graphs["Power one-line: load against derated capacity"].nodes
        }

    peak = details()
    assert peak["panel:busway-a"].startswith("1056 kW at peak / 983.3 kW derated")
    assert peak["feeds:busway-a"] == "worst 132 kW at peak / 136.6 kW derated"
    assert "at peak x PUE" in peak["utility"]
    for rid, rule in RULES.items():  # every power rule with a design_load option turned on
        if "design_load" in rule.options:
            options[rid] = {**options[rid], "design_load": True}
    low = details()
    assert low["panel:busway-a"].startswith("960 kW at design load / 983.3 kW derated")
    assert low["feeds:busway-a"] == "worst 120 kW at design load / 136.6 kW derated"
    assert "at design load x PUE" in low["utility"]


def test_the_cooling_diagram_draws_a_cdus_facility_flow_where_declared() -> None:
    import dclint
    from dclint.analysis.diagrams import cooling_graph
    from dclint.analysis.summary import summarise

    design = dclint.load(str(EXAMPLES / "clg007" / "bad.yaml"))
    graph = cooling_graph(design, summarise(design), {})
    assert graph is not None
    details = {n.key: n.detail for n in graph.nodes}
    assert details["cdu:cdu-3"] == (
        "heat 816 / 1000 kW; flow 1175 / 2125 L/min; facility 1175 / 1000 L/min"
    )


# --- item 5: conductors and busways derated for their ambient (NEC 310.15(B)(1))


def _feeds(ambient: str | None, **extra: Any) -> Design:
    feed: dict[str, Any] = {"voltage": "415 V", "current_rating": "100 A", **extra}
    if ambient is not None:
        feed["ambient_temperature"] = ambient
    return _design(
        {
            "power": {
                "feeds": [{"id": "a1", "path": "A", **feed}, {"id": "b1", "path": "B", **feed}]
            },
            "racks": [{"id": "r1", "it_load": "40 kW", "feeds": ["a1", "b1"]}],
        }
    )


def test_the_ambient_factor_is_nec_310_15_b_1s_equation() -> None:
    from dclint.model.topology import ambient_factor

    feed = _feeds("40 degC").power.feeds[0]
    assert ambient_factor(feed) == pytest.approx((35 / 45) ** 0.5)  # 0.8819; table: 0.88
    xlpe = _feeds("40 degC", conductor_temperature="90 degC").power.feeds[0]
    assert ambient_factor(xlpe) == pytest.approx((50 / 60) ** 0.5)  # IEC B.52.14 XLPE: 0.91
    assert ambient_factor(_feeds("25 degC").power.feeds[0]) == 1.0  # never above the rating
    assert ambient_factor(_feeds("75 degC").power.feeds[0]) == 0.0
    busway = _feeds("40 degC", reference_ambient="40 degC").power.feeds[0]
    assert ambient_factor(busway) == 1.0


def test_a_feed_in_55_degc_air_keeps_two_thirds_of_its_capacity() -> None:
    (a, _) = _check("PWR003", _feeds("55 degC"), design_load=False)
    full = 415 * 100 * 3**0.5 * 0.8 * 0.95 / 1000  # 54.62 kW at 30 degC
    assert _m(a.limit, "kW") == pytest.approx(full * (20 / 45) ** 0.5)  # 36.41 kW
    assert _m(a.measured, "kW") == pytest.approx(40.0)
    assert "x 0.6667 for 55 degC ambient (75 degC conductors, rated at 30 degC" in a.message
    assert _check("PWR003", _feeds(None), design_load=False) == []
    assert _check("PWR003", _feeds("40 degC"), design_load=False) == []
