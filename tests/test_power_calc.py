"""The power figures of dclint.calc.power and the topology, each against a hand-worked number."""

from __future__ import annotations

import pytest

from dclint.calc.power import feed_allocation, panel_allocation
from dclint.engine.config import default_options
from dclint.engine.registry import discover
from dclint.engine.rule import Context, Violation
from dclint.errors import LoadError
from dclint.loader.load import load_text
from dclint.model.topology import Topology


def _topo(text: str) -> Topology:
    return load_text(text).topology


FOUR_2N = """
name: four-2n
power:
  panels:
    - {id: main, voltage: 415 V, current_rating: 1200 A, power_capped: true}
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
    # 415 V x 400 A x sqrt(3) x 0.95 x 0.8 = 218.5 kW; 10 x 4 x 8.5 kW = 340 kW
    assert topo.panels["pdu-1"].capacity.m_as("kW") == pytest.approx(218.51, abs=0.01)
    assert panel_allocation(topo, topo.panels["pdu-1"]).m_as("kW") == pytest.approx(340.0)
    (found,) = _violations("PWR008", H100_PANEL)
    assert found.measured.m_as("kW") == pytest.approx(340.0)  # type: ignore[union-attr]
    assert found.limit.m_as("kW") == pytest.approx(218.51, abs=0.01)  # type: ignore[union-attr]
    assert _violations("PWR002", H100_PANEL) == []  # no NVL72-class rack: not PWR002's


def test_a_1_mva_utility_is_1000_kva_not_1000_kw() -> None:
    text = "name: s\nsite: {utility_capacity: 1 MVA, pue: 1.1}\nracks: [{id: 'r[1-9]', it_load: 100 kW}]\n"
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
