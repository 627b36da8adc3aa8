"""Every declared load counted (dclint.calc.it_load): the fabrics' switches, storage nodes and
fabric endpoints join the racks in the site and generator totals, and the messages say what
each total includes. Figures are hand calculations (pytest.approx within 2%, most exact)."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES
from dclint.calc.failures.play import failure_table
from dclint.calc.it_load import it_parts, it_total_kw
from dclint.calc.power_chain import generation_loads
from dclint.engine.runner import Engine, run
from dclint.loader import load_text
from dclint.model.resolve import topology_of

BAD = EXAMPLES / "pwr006" / "bad-switches.yaml"


def _topo(text: str):  # type: ignore[no-untyped-def]
    return topology_of(load_text(text, "d.yaml"))


def test_the_switches_join_the_racks() -> None:
    topo = _topo(BAD.read_text(encoding="utf-8"))
    parts = it_parts(topo, peak=True)
    # 8 racks x 4 HGX H100 x 10.2 kW = 326.4 kW; 12 QM9700 x 1.7 kW = 20.4 kW
    assert [(p.what, p.count) for p in parts] == [("racks", 8), ("fabric switches", 12)]
    assert parts[0].kw == pytest.approx(326.4, rel=1e-9)
    assert parts[1].kw == pytest.approx(20.4, rel=1e-9)
    assert parts[1].detail == "fabric compute: 12 x qm9700 at 1.7 kW (catalog power)"
    assert it_total_kw(topo, peak=True) == pytest.approx(346.8, rel=1e-9)


def test_the_site_finding_counts_and_names_the_switches() -> None:
    (finding,) = [f for f in run([str(BAD)], Engine()).findings if f.rule == "PWR006"]
    # 346.8 kW x PUE 1.3 = 450.84 kW against 440 kW
    assert finding.measured.m_as("kW") == pytest.approx(450.8, rel=0.02)
    assert "12 fabric switches 20.4 kW: fabric compute: 12 x qm9700 at 1.7 kW" in finding.message


def test_switches_the_racks_hold_or_the_design_reprices() -> None:
    text = BAD.read_text(encoding="utf-8")
    held = text.replace(
        "    kind: compute\n", "    kind: compute\n    switches_in_rack_load: true\n"
    )
    assert it_total_kw(_topo(held), peak=True) == pytest.approx(326.4, rel=1e-9)
    priced = text + "catalog:\n  switches:\n    qm9700: {power: 2 kW}\n"
    assert it_total_kw(_topo(priced), peak=True) == pytest.approx(326.4 + 24.0, rel=1e-9)


def test_storage_and_endpoint_nodes_with_a_power_count() -> None:
    text = BAD.read_text(encoding="utf-8") + (
        "storage:\n  tiers:\n    - {id: weka, kind: parallel_fs, nodes: 8, node_power: 1.2 kW}\n"
    )
    text = text.replace(
        "    tiers:\n",
        "    endpoints:\n      - {name: ufm, role: management, count: 2, power: 0.5 kW}\n"
        "    tiers:\n",
        1,
    )
    topo = _topo(text)
    parts = {p.what: p for p in it_parts(topo, peak=True)}
    assert parts["ufm nodes"].kw == pytest.approx(1.0, rel=1e-9)  # 2 x 0.5 kW
    assert parts["storage weka nodes"].kw == pytest.approx(9.6, rel=1e-9)  # 8 x 1.2 kW
    assert it_total_kw(topo, peak=True) == pytest.approx(326.4 + 20.4 + 1.0 + 9.6, rel=1e-9)


def test_generators_carry_the_switches_too() -> None:
    text = BAD.read_text(encoding="utf-8").replace(
        "racks:\n",
        "power:\n  generators: [{id: gen, site_rating: 500 kW, count: 2, redundant: 1}]\nracks:\n",
    )
    topo = _topo(text)
    (gl,) = generation_loads(topo)
    assert gl.load_kw == pytest.approx(450.84, rel=1e-9)  # 346.8 kW x 1.3
    utility = next(f for f in failure_table(topo).failures if f.kind == "utility")
    assert utility.worst is not None and utility.worst.load == pytest.approx(450.84, rel=1e-9)


def test_capacity_is_sized_on_the_design_day_pue() -> None:
    path = EXAMPLES / "pwr006" / "bad-design-pue.yaml"
    (finding,) = [f for f in run([str(path)], Engine()).findings if f.rule == "PWR006"]
    # 800 kW x design-day PUE 1.35 = 1,080 kW (the annual 1.15 would give 920 kW)
    assert finding.measured.m_as("kW") == pytest.approx(1080.0, rel=1e-9)
    assert "x design-day PUE 1.35 = 1080 kW" in finding.message
    text = path.read_text(encoding="utf-8").replace(
        "racks:\n",
        "power:\n  generators: [{id: g, site_rating: 1200 kW, count: 2, redundant: 1}]\nracks:\n",
    )
    (gl,) = generation_loads(_topo(text))
    assert gl.load_kw == pytest.approx(1080.0, rel=1e-9)  # generators too
