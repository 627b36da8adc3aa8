"""Every declared load counted (dclint.calc.it_load): the fabrics' switches, storage nodes and
fabric endpoints join the racks in the site and generator totals, and the messages say what
each total includes. Figures are hand calculations (pytest.approx within 2%, most exact)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from conftest import EXAMPLES
from dclint.calc.air import room_air
from dclint.calc.cooling import cdu_loads
from dclint.calc.failures.play import failure_table
from dclint.calc.it_load import it_parts, it_total_kw
from dclint.calc.power_chain import chain_loads, generation_loads
from dclint.engine.runner import Engine, run
from dclint.loader import load_text
from dclint.model.resolve import topology_of

BAD = EXAMPLES / "pwr006" / "bad-switches.yaml"


def _topo(text: str):  # type: ignore[no-untyped-def]
    return topology_of(load_text(text, "d.yaml"))


def run_text(text: str) -> list:  # type: ignore[type-arg]
    """The findings of a design written to a temporary file."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "d.yaml"
        path.write_text(text, encoding="utf-8")
        return list(run([str(path)], Engine()).findings)


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


# -- the UPS and cooling totals (dclint.calc.failures, cooling, air) ---------------------------

DR = EXAMPLES / "pwr009" / "good-distributed.yaml"
_FABRIC = (
    "fabrics:\n"
    "  - id: compute\n"
    "    kind: compute\n"
    "    racks: [r12, r13, r14, r23, r24, r34]\n{extra}"
    "    tiers:\n"
    "      - {{name: leaf, switch: qm9700, count: 8, downlinks: 32, uplinks: 32}}\n"
    "      - {{name: spine, switch: qm9700, count: 4, downlinks: 64}}\n"
)


def _dr(extra: str = "", rating: str = "250 kW") -> str:
    text = DR.read_text(encoding="utf-8").replace("rating: 250 kW", f"rating: {rating}")
    return text + _FABRIC.format(extra=extra)


def test_switches_ride_on_the_ups_of_the_racks_they_serve_pro_rata() -> None:
    # 12 QM9700 x 1.7 kW = 20.4 kW over the fabric's 6 racks: 3.4 kW a rack, 1.7 kW on each of
    # its two UPS. Each UPS feeds 3 racks: 150 kW of racks + 3 x 1.7 = 155.1 kW normally. With
    # ups-1 lost, its 150 kW of rack halves and its 5.1 kW of switch shares move to its three
    # partners, 50 + 1.7 kW each: (600 + 20.4) / (4 - 1) = 206.8 kW on a survivor.
    topo = _topo(_dr())
    table = failure_table(topo)
    assert table.normal_load["ups-1"] == pytest.approx(155.1, rel=1e-9)
    ups1 = next(f for f in table.failures if (f.kind, f.element) == ("ups", "ups-1"))
    assert ups1.worst is not None and ups1.worst.load == pytest.approx(620.4 / 3, rel=1e-9)
    assert ups1.moves == (
        "150 kW of 3 racks and 5.1 kW of fabric switches to ups-2 +51.7 kW, ups-3 +51.7 kW, "
        "ups-4 +51.7 kW"
    )
    load = chain_loads(topo)["ups-1"]
    # ups-1's worst is ups-2 lost: r12 whole (100 kW), r13 and r14 halves (50 kW each) = 200 kW;
    # switch shares 3.4 + 1.7 + 1.7 = 6.8 kW
    assert load.load_kw == pytest.approx(206.8, rel=1e-9)
    assert load.includes == "racks 200 kW + fabric switches 6.8 kW"


def test_the_ups_finding_says_what_its_total_includes() -> None:
    bad = _dr(rating="200 kW")
    findings = [
        f for f in run_text(bad) if f.rule == "PWR009" and f.message.startswith("UPS ups-1 ")
    ]
    (finding,) = findings
    assert finding.measured.m_as("kW") == pytest.approx(206.8, rel=0.02)
    assert finding.message.startswith(
        "UPS ups-1 carries 206.8 kW = racks 200 kW + fabric switches 6.8 kW (fabric switches on "
        "the UPS of the racks they serve, pro rata by rack, as no fed_by is declared; 3 racks at "
        "their "
    )
    # the racks alone (200 kW) fit a 200 kW UPS: the switches make the overload
    racks_only = DR.read_text(encoding="utf-8").replace("250 kW", "200 kW")
    assert not [f for f in run_text(racks_only) if f.rule == "PWR009"]


def test_a_fabric_fed_by_two_ups_puts_half_on_each_and_all_on_the_survivor() -> None:
    topo = _topo(_dr("    fed_by: [ups-1, ups-2]\n"))
    table = failure_table(topo)
    # 20.4 kW / 2 = 10.2 kW on ups-1 and ups-2; ups-1 lost: ups-2 carries 150 + 50 (its share of
    # ups-1's racks) + 20.4 = 220.4 kW
    assert table.normal_load["ups-1"] == pytest.approx(160.2, rel=1e-9)
    assert table.normal_load["ups-3"] == pytest.approx(150.0, rel=1e-9)
    ups1 = next(f for f in table.failures if (f.kind, f.element) == ("ups", "ups-1"))
    assert ups1.worst is not None
    assert (ups1.worst.element, ups1.worst.load) == ("ups-2", pytest.approx(220.4, rel=1e-9))
    assert chain_loads(topo)["ups-2"].includes == "racks 200 kW + fabric switches 20.4 kW"


def test_a_fabric_fed_by_one_ups_is_lost_with_it() -> None:
    table = failure_table(_topo(_dr("    fed_by: [ups-3]\n")))
    ups3 = next(f for f in table.failures if (f.kind, f.element) == ("ups", "ups-3"))
    assert ups3.moves.endswith("; 20.4 kW of fabric switches lost")


def test_cdu_pumps_join_the_ups_they_are_fed_by_and_the_heat_the_cdu_passes() -> None:
    text = _dr() + (
        "cooling:\n"
        "  cdus:\n"
        "    - {id: cdu-1, capacity: 600 kW, max_flow: 2000 L/min, power: 15 kW,"
        " fed_by: [ups-4]}\n"
        "  loops:\n"
        "    - {id: l1, cdu: cdu-1, supply_temperature: 30 degC, return_temperature: 40 degC,"
        " racks: [r12, r13, r14, r23, r24, r34]}\n"
    )
    topo = _topo(text)
    # the racks declare no liquid fraction: 0 kW of liquid heat, + the pumps' 15 kW
    load = cdu_loads(topo)["cdu-1"]
    assert load.heat.m_as("kW") == pytest.approx(15.0, rel=1e-9)
    assert load.includes == "CDU pumps 15 kW"
    table = failure_table(topo)
    # ups-4: 150 kW of racks + 5.1 kW of switches + 15 kW of pumps
    assert table.normal_load["ups-4"] == pytest.approx(170.1, rel=1e-9)
    # facility load: not in the site's IT total (it is in the PUE)
    assert it_total_kw(topo) == pytest.approx(620.4, rel=1e-9)


def test_the_cdu_finding_counts_its_pumps() -> None:
    # 8 GB200 NVL72 at 120 kW x 85% to liquid = 816 kW, + 15 kW of pumps = 831 kW on 820 kW
    text = (
        "name: cdu-pumps\n"
        "racks:\n  - {id: 'r[1-8]', platform: gb200-nvl72}\n"
        "cooling:\n"
        "  cdus:\n    - {id: cdu-1, capacity: 820 kW, max_flow: 2125 L/min, power: 15 kW}\n"
        "  loops:\n"
        "    - {id: l1, cdu: cdu-1, supply_temperature: 30 degC, return_temperature: 40 degC,"
        " racks: ['r[1-8]']}\n"
    )
    (finding,) = [f for f in run_text(text) if f.rule == "CLG001"]
    assert finding.measured.m_as("kW") == pytest.approx(816 + 15, rel=1e-9)
    assert finding.message == (
        "CDU cdu-1 carries 831 kW of liquid heat (racks 816 kW + CDU pumps 15 kW) on l1, above "
        "its rated capacity"
    )
    assert finding.limit_text == "820 kW"
    four = text.replace("power: 15 kW", "power: 4 kW")  # 820 kW: exactly at the rating passes
    assert not [f for f in run_text(four) if f.rule == "CLG001"]


def test_switch_heat_goes_to_air_in_the_halls_of_their_racks_or_where_declared() -> None:
    text = _dr() + (
        "site:\n  halls:\n"
        "    h1: {air_handlers: {capacity: 100 kW, count: 4, redundant: 1}}\n"
        "    h2: {air_handlers: {capacity: 200 kW, count: 4, redundant: 1}}\n"
    )
    text = text.replace("- {id: r12,", "- {id: r12, hall: h1,").replace(
        "- {id: r13,", "- {id: r13, hall: h1,"
    )
    for rid in ("r14", "r23", "r24", "r34"):
        text = text.replace(f"- {{id: {rid},", f"- {{id: {rid}, hall: h2,")
    rooms = {r.hall: r for r in room_air(_topo(text))}
    # 3.4 kW a rack: 2 racks in h1 (6.8 kW), 4 in h2 (13.6 kW), all of it to air; the racks
    # declare no liquid fraction: 100 kW each to air
    assert rooms["h1"].heat.m_as("kW") == pytest.approx(206.8, rel=1e-9)
    assert rooms["h1"].includes == "racks 200 kW + fabric switches 6.8 kW"
    assert rooms["h2"].heat.m_as("kW") == pytest.approx(413.6, rel=1e-9)
    declared = text.replace("    racks: [r12,", "    cooled_by: h1\n    racks: [r12,")
    rooms = {r.hall: r for r in room_air(_topo(declared))}
    assert rooms["h1"].heat.m_as("kW") == pytest.approx(220.4, rel=1e-9)
    assert rooms["h2"].heat.m_as("kW") == pytest.approx(400.0, rel=1e-9)
    # 3 of 4 x 100 kW = 300 kW carries 220.4 kW: CLG010 passes; at 70 kW a unit, 210 kW fails
    assert not [f for f in run_text(declared) if f.rule == "CLG010"]
    small = declared.replace(
        "h1: {air_handlers: {capacity: 100", "h1: {air_handlers: {capacity: 70"
    )
    (finding,) = [f for f in run_text(small) if f.rule == "CLG010" and f.subject == "h1"]
    assert finding.message.startswith(
        "hall h1's 2 racks and the loads cooled there reject 220.4 kW to air (racks 200 kW + "
        "fabric switches 20.4 kW), above what its air handlers carry"
    )
    assert finding.limit_text == "210 kW"


def test_a_generator_serving_a_ups_carries_the_switches_below_it() -> None:
    text = _dr().replace(
        "  ups:\n",
        "  generators: [{id: gen, site_rating: 300 kW, count: 2, redundant: 1, serves: ups-1}]\n"
        "  ups:\n",
    )
    (gl,) = generation_loads(_topo(text))
    # below ups-1, as PWR012 counts a rack (whole where any of its feeds is below, its other
    # feeds lost): r12, r13, r14 at 100 kW and their switch shares, 3 x 3.4 kW; x PUE 1.3
    assert gl.it_kw == pytest.approx(310.2, rel=1e-9)
    assert gl.load_kw == pytest.approx(310.2 * 1.3, rel=1e-9)


def test_unknown_fed_by_and_cooled_by_are_errors() -> None:
    from dclint.errors import LoadError

    with pytest.raises(LoadError) as err:
        load_text(_dr("    fed_by: [ups-9]\n    cooled_by: h9\n"), "d.yaml")
    said = [(p.line, p.column, p.message) for p in err.value.problems]
    assert said == [
        (42, 14, "unknown power element 'ups-9'; did you mean 'ups-4'?"),
        (43, 16, "unknown CDU or hall 'h9'"),
    ]


def test_a_lost_cdu_moves_its_racks_heat_not_its_own_pumps() -> None:
    text = (
        "name: pumps\n"
        "racks:\n  - {id: 'r[1-4]', platform: gb200-nvl72}\n"
        "cooling:\n"
        "  cdus:\n"
        "    - {id: cdu-1, capacity: 1000 kW, max_flow: 2125 L/min, power: 12 kW,"
        " redundancy_group: g}\n"
        "    - {id: cdu-2, capacity: 1000 kW, max_flow: 2125 L/min, power: 12 kW,"
        " redundancy_group: g}\n"
        "  loops:\n"
        "    - {id: l1, cdu: cdu-1, supply_temperature: 32 degC, return_temperature: 42 degC,"
        " racks: ['r[1-4]']}\n"
    )
    lost = next(
        f for f in failure_table(_topo(text)).failures if (f.kind, f.element) == ("cdu", "cdu-1")
    )
    # cdu-1: 4 x 102 kW = 408 kW of racks + 12 kW of its pumps; lost, its racks' 408 kW moves to
    # cdu-2, which carries it and its own 12 kW: 420 kW
    assert lost.moves == "408 kW of liquid heat to cdu-2"
    assert lost.worst is not None and lost.worst.load == pytest.approx(420.0, rel=1e-9)


def test_generators_serving_a_ups_do_not_count_its_cdu_pumps_twice() -> None:
    text = _dr().replace(
        "  ups:\n",
        "  generators: [{id: gen, site_rating: 1000 kW, count: 2, redundant: 1, serves: ups-4}]\n"
        "  ups:\n",
    ) + (
        "cooling:\n  cdus:\n"
        "    - {id: cdu-1, capacity: 600 kW, max_flow: 2000 L/min, power: 15 kW,"
        " fed_by: [ups-4]}\n"
    )
    table = failure_table(_topo(text))
    gen = next(f for f in table.failures if (f.kind, f.element) == ("generator", "gen"))
    # ups-4's worst (ups-1 lost): 200 kW of racks + 6.8 kW of switches + 15 kW of pumps =
    # 221.8 kW; the set carries its IT load, 206.8 kW, x PUE 1.3 (the pumps are in the PUE)
    assert table.worst_load["ups-4"][0] == pytest.approx(221.8, rel=1e-9)
    assert gen.worst is not None and gen.worst.load == pytest.approx(206.8 * 1.3, rel=1e-9)
