"""The power figures of dclint.calc.power and the topology, each against a hand-worked number."""

from __future__ import annotations

from pathlib import Path

import pytest

from dclint.calc.power import feed_allocation, normal_feed_load_kw, panel_allocation
from dclint.engine.config import default_options
from dclint.engine.registry import discover
from dclint.engine.rule import Context, Violation
from dclint.errors import LoadError
from dclint.loader.load import load_text
from dclint.model.resolve import topology_of
from dclint.model.topology import Topology
from dclint.rules.power.pwr005_phase_imbalance import imbalance, line_currents


def _topo(text: str) -> Topology:
    return topology_of(load_text(text))


FOUR_2N = """
name: four-2n
power:
  panels:
    - {id: main, voltage: 415 V, current_rating: 1200 A}
    - {id: pa, fed_by: main, voltage: 415 V, current_rating: 1200 A, path: A}
    - {id: pb, fed_by: main, voltage: 415 V, current_rating: 1200 A, path: B}
  feeds:
    - {id: 'a[1-4]', panel: pa, voltage: 415 V, current_rating: 250 A, path: A}
    - {id: 'b[1-4]', panel: pb, voltage: 415 V, current_rating: 250 A, path: B}
racks:
  - {id: 'r[1-4]', platform: gb200-nvl72, it_load: 120 kW, feeds: [a$n, b$n]}
"""


def test_a_rack_counts_once_on_the_panel_above_its_a_and_b_panels() -> None:
    topo = _topo(FOUR_2N)
    # each path panel carries all four racks with the other path lost: 4 x 120 kW
    assert panel_allocation(topo, topo.panels["pa"]).m_as("kW") == pytest.approx(480.0)
    assert panel_allocation(topo, topo.panels["pb"]).m_as("kW") == pytest.approx(480.0)
    # the main above both carries each rack once: 480 kW, not 960 kW
    assert panel_allocation(topo, topo.panels["main"]).m_as("kW") == pytest.approx(480.0)
    # 415 V x 1200 A x sqrt(3) x 0.95 x 0.8 = 655.5 kW
    assert topo.panels["main"].capacity.m_as("kW") == pytest.approx(655.54, abs=0.01)
    # 480 kW leaves 175.5 kW of headroom on the main; its A and B panels need one path's
    # 655.5 kW of it, not both
    for rule in ("PWR002", "PWR006", "PWR008"):
        assert _violations(rule, FOUR_2N) == [], rule


def test_a_rack_counts_once_when_both_feeds_land_on_one_panel() -> None:
    topo = _topo(FOUR_2N.replace("panel: pb", "panel: pa"))
    assert panel_allocation(topo, topo.panels["pa"]).m_as("kW") == pytest.approx(480.0)
    assert panel_allocation(topo, topo.panels["pb"]).m_as("kW") == pytest.approx(0.0)


def test_a_panel_carries_the_share_of_a_path_it_feeds() -> None:
    # r1 has two A feeds, one on each panel, and one B feed on pb: with B lost, pa carries half
    # the rack; with A lost, pb carries it all (its one B feed): pb 120 kW, pa 60 kW
    topo = _topo(
        """
name: split
power:
  panels:
    - {id: pa, voltage: 415 V, current_rating: 400 A}
    - {id: pb, voltage: 415 V, current_rating: 400 A}
  feeds:
    - {id: a1, panel: pa, voltage: 415 V, current_rating: 250 A, path: A}
    - {id: a2, panel: pb, voltage: 415 V, current_rating: 250 A, path: A}
    - {id: b1, panel: pb, voltage: 415 V, current_rating: 250 A, path: B}
racks:
  - {id: r1, it_load: 120 kW, feeds: [a1, a2, b1]}
"""
    )
    assert panel_allocation(topo, topo.panels["pa"]).m_as("kW") == pytest.approx(60.0)
    assert panel_allocation(topo, topo.panels["pb"]).m_as("kW") == pytest.approx(120.0)
    assert feed_allocation(topo)["b1"].m_as("kW") == pytest.approx(120.0)


def _violations(rule_id: str, text: str, **options: object) -> list[Violation]:
    """The violations one rule yields on a design, with its default options (or `options`)."""
    rule = discover()[rule_id]
    ctx = Context({**default_options()[rule_id], **options})
    return list(rule().check(load_text(text), ctx))


H100_PANEL = """
name: h100-panel
power:
  panels:
    - {id: pdu-1, voltage: 415 V, current_rating: 400 A}
  feeds:
    - {id: 'h[01-10]', panel: pdu-1, voltage: 415 V, current_rating: 100 A}
racks:
  - {id: 'h[01-10]', platform: hgx-h100, nodes: 4, feeds: [h$n]}
"""


def test_ten_34_kw_h100_racks_overload_a_400_a_panel() -> None:
    topo = _topo(H100_PANEL)
    # 415 V x 400 A x sqrt(3) x 0.95 x 0.8 = 218.5 kW; 10 x 4 x 8.5 kW = 340 kW designed,
    # 10 x 4 x 10.2 kW = 408 kW at the catalog max_power, which PWR008 loads panels with
    assert topo.panels["pdu-1"].capacity.m_as("kW") == pytest.approx(218.51, abs=0.01)
    assert panel_allocation(topo, topo.panels["pdu-1"]).m_as("kW") == pytest.approx(340.0)
    peak = panel_allocation(topo, topo.panels["pdu-1"], peak=True)
    assert peak.m_as("kW") == pytest.approx(408.0)
    (found,) = _violations("PWR008", H100_PANEL)
    assert found.measured.m_as("kW") == pytest.approx(408.0)  # type: ignore[union-attr]
    assert found.limit.m_as("kW") == pytest.approx(218.51, abs=0.01)  # type: ignore[union-attr]
    assert _violations("PWR002", H100_PANEL) == []  # no NVL72-class rack: not PWR002's


def test_a_1_mva_utility_is_1000_kva_not_1000_kw() -> None:
    text = (
        "name: s\nsite: {utility_capacity: 1 MVA, pue: 1.1}\n"
        "racks: [{id: 'r[1-9]', it_load: 100 kW}]\n"
    )
    design = load_text(text)
    assert design.site.utility_power.m_as("kW") == pytest.approx(950.0)  # type: ignore[union-attr]
    (found,) = _violations("PWR006", text)
    # 9 x 100 kW x PUE 1.1 = 990 kW; / PF 0.95 = 1,042.1 kVA, above 1,000 kVA
    assert found.measured.m_as("kVA") == pytest.approx(1042.11, abs=0.01)  # type: ignore[union-attr]
    assert found.limit.m_as("kVA") == pytest.approx(1000.0)  # type: ignore[union-attr]
    assert "990 kW" in found.message and "1042 kVA at PF 0.95" in found.message
    # the same utility in kW passes, and a declared PF 0.99 (1,000 kVA) passes at the edge
    assert _violations("PWR006", text.replace("1 MVA", "1 MW")) == []
    assert _violations("PWR006", text.replace("pue: 1.1", "pue: 1.1, power_factor: 0.99")) == []


def test_a_kva_value_is_refused_where_real_power_is_meant() -> None:
    with pytest.raises(LoadError, match="expected power"):
        load_text("name: x\nracks: [{id: r1, it_load: 120 kVA}]\n")


WYE = """
name: wye
power:
  panels:
    - {id: p415, voltage: 415 V, current_rating: 400 A}
  feeds:
    - {id: ln, panel: p415, phases: 1, voltage: 250 V, current_rating: 32 A}
    - {id: as_written, panel: p415, phases: 1, voltage: 415 V, current_rating: 32 A}
    - {id: l1, panel: p415, phases: 1, phase: L1, voltage: 240 V, current_rating: 32 A}
    - {id: ll, panel: p415, phases: 1, phase: L1-L2, voltage: 415 V, current_rating: 32 A}
    - {id: free, phases: 1, voltage: 415 V, current_rating: 32 A}
"""


def test_a_single_phase_feed_on_a_415_v_wye_panel_runs_at_240_v() -> None:
    feeds = _topo(WYE).feeds
    # written at 250 V, not the panel's line-to-line voltage: line-to-neutral, 415 V / sqrt(3)
    # = 239.6 V; x 32 A x 0.95 x 80% = 5.827 kW
    assert feeds["ln"].volts == pytest.approx(239.60, abs=0.01)
    assert feeds["ln"].capacity.m_as("kW") == pytest.approx(5.827, abs=0.001)
    assert feeds["ln"].panel_sets_voltage and feeds["ln"].wiring == "line-to-neutral"
    # written at the panel's 415 V: line-to-line, as written (issue 52): 10.09 kW
    assert feeds["as_written"].wiring == "line-to-line"
    assert feeds["as_written"].capacity.m_as("kW") == pytest.approx(10.09, abs=0.01)
    assert feeds["l1"].volts == pytest.approx(239.60, abs=0.01)  # never above the panel's
    # a line-to-line leg sees 415 V; a feed without a panel keeps the voltage it declares
    assert feeds["ll"].capacity.m_as("kW") == pytest.approx(10.09, abs=0.01)
    assert feeds["free"].capacity.m_as("kW") == pytest.approx(10.09, abs=0.01)
    assert not feeds["ll"].panel_sets_voltage


def test_a_208_v_feed_on_a_208y_120_v_panel_is_line_to_line() -> None:
    text = """
name: us
power:
  panels:
    - {id: p208, voltage: 208 V, current_rating: 225 A}
  feeds:
    - {id: ll, panel: p208, phases: 1, voltage: 208 V, current_rating: 30 A}
    - {id: ln, panel: p208, phases: 1, voltage: 120 V, current_rating: 30 A}
"""
    feeds = _topo(text).feeds
    # 208 V x 30 A x 80% x PF 0.95 = 4.742 kW (read at 120 V it was 2.736 kW)
    assert feeds["ll"].wiring == "line-to-line" and not feeds["ll"].panel_sets_voltage
    assert feeds["ll"].capacity.m_as("kW") == pytest.approx(4.742, abs=0.001)
    # 120 V: line-to-neutral of 208 V = 120.09 V, never above the 120 V written
    assert feeds["ln"].wiring == "line-to-neutral"
    assert feeds["ln"].capacity.m_as("kW") == pytest.approx(2.736, abs=0.001)


def test_a_415_v_60_a_feed_carries_32_8_kw_at_pf_0_95() -> None:
    text = """
name: sixty
power:
  feeds:
    - {id: 'a[1-4]', voltage: 415 V, current_rating: 60 A, path: A}
    - {id: 'b[1-4]', voltage: 415 V, current_rating: 60 A, path: B, power_factor: 1}
racks:
  - {id: r1, platform: gb200-nvl72, feeds: [a1, a2, a3, a4, b1, b2, b3, b4]}
"""
    topo = _topo(text)
    # sqrt(3) x 415 V x 60 A x 80% = 34.50 kVA; x PF 0.95 = 32.78 kW; four carry 131.1 kW
    assert topo.feeds["a1"].apparent_kva == pytest.approx(34.50, abs=0.01)
    assert topo.feeds["a1"].capacity.m_as("kW") == pytest.approx(32.78, abs=0.01)
    # the rack is loaded with its catalog max_power, 132 kW: 33 kW a feed on each path
    assert topo.racks[0].peak_load.m_as("kW") == pytest.approx(132.0)
    assert feed_allocation(topo, peak=True)["a1"].m_as("kW") == pytest.approx(33.0)
    assert feed_allocation(topo)["a1"].m_as("kW") == pytest.approx(30.0)  # design: 120 kW
    found = {v.subject for v in _violations("PWR003", text)}
    assert found == {"a1", "a2", "a3", "a4"}  # at PF 1 (34.5 kW each) four feeds suffice
    assert _violations("PWR003", text, design_load=True) == []


def test_peak_load_of_node_racks_is_max_power_times_nodes() -> None:
    topo = _topo(H100_PANEL)
    # HGX H100: 8.5 kW design, 10.2 kW max_power (catalog) a node; 4 nodes
    assert topo.racks[0].it_load.m_as("kW") == pytest.approx(34.0)
    assert topo.racks[0].peak_load.m_as("kW") == pytest.approx(40.8)
    # a rack without a catalog max_power peaks at its design load
    other = _topo("name: x\nracks: [{id: r1, it_load: 7 kW}]\n").racks[0]
    assert other.peak_load.m_as("kW") == pytest.approx(7.0)


def test_line_to_line_load_draws_current_on_both_lines() -> None:
    topo = _topo(
        """
name: y208
power:
  panels:
    - {id: p, voltage: 208 V, current_rating: 100 A}
  feeds:
    - {id: f1, panel: p, phase: L1-L2, phases: 1, voltage: 208 V, current_rating: 30 A,
       power_factor: 1}
    - {id: f2, panel: p, phase: L3, phases: 1, voltage: 120 V, current_rating: 20 A,
       power_factor: 1}
racks:
  - {id: r1, it_load: 4 kW, feeds: [f1]}
  - {id: r2, it_load: 1.5 kW, feeds: [f2]}
"""
    )
    amps = line_currents(topo.panels["p"], normal_feed_load_kw(topo))
    assert amps is not None
    # 4,000 W / 208 V = 19.23 A on L1 and L2; 1,500 W / 120 V = 12.5 A on L3
    assert amps["L1"] == pytest.approx(19.23, abs=0.01)
    assert amps["L2"] == pytest.approx(19.23, abs=0.01)
    assert amps["L3"] == pytest.approx(12.5, abs=0.01)
    assert imbalance(amps) == pytest.approx(0.2642, abs=0.0001)  # kW a leg would say 18.2%


def test_a_2n_rack_puts_half_its_load_on_each_feed_in_normal_running() -> None:
    topo = _topo(FOUR_2N)
    load = normal_feed_load_kw(topo)
    assert load["a1"] == pytest.approx(60.0)
    assert load["b1"] == pytest.approx(60.0)
    assert feed_allocation(topo)["a1"].m_as("kW") == pytest.approx(120.0)  # with B lost


def test_a_500_kva_ups_carries_475_kw_at_pf_0_95() -> None:
    text = """
name: ups
power:
  panels:
    - {id: u1, kind: ups, voltage: 415 V, current_rating: 1600 A, rating: 500 kVA}
    - {id: u2, kind: ups, voltage: 415 V, current_rating: 1600 A, rating: 500 kW}
    - {id: u3, kind: ups, voltage: 415 V, current_rating: 400 A, rating: 500 kVA}
"""
    panels = _topo(text).panels
    assert panels["u1"].capacity.m_as("kW") == pytest.approx(475.0)  # 500 kVA x 0.95
    assert panels["u1"].capacity_field == "rating"
    assert panels["u2"].capacity.m_as("kW") == pytest.approx(500.0)
    # the breaker binds below the nameplate: 415 V x 400 A x sqrt(3) x 0.95 x 0.8 = 218.5 kW
    assert panels["u3"].capacity.m_as("kW") == pytest.approx(218.51, abs=0.01)
    assert panels["u3"].capacity_field == "current_rating"


def test_the_feed_finding_says_which_wiring_it_read(tmp_path: Path) -> None:
    from dclint.engine.runner import Engine, run

    design = tmp_path / "d.yaml"
    design.write_text(
        "name: us\npower:\n  panels:\n    - {id: p208, voltage: 208 V, current_rating: 225 A}\n"
        "  feeds:\n    - {id: f1, panel: p208, phases: 1, voltage: 208 V, current_rating: 30 A}\n"
        "racks:\n  - {id: r1, it_load: 5 kW, feeds: [f1]}\n",
        encoding="utf-8",
    )
    (finding,) = [f for f in run([str(design)], Engine()).findings if f.rule == "PWR003"]
    # 5 kW on 208 V x 30 A x 0.8 x 0.95 = 4.742 kW
    assert finding.limit.m_as("kW") == pytest.approx(4.742, abs=0.001)
    assert finding.message.endswith(
        "(208 V x 30 A single-phase at 80%: 4.992 kVA x PF 0.95; single-phase line-to-line of "
        "p208's 208 V, as written)"
    )
