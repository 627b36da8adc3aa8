"""The failure engine (dclint.calc.failures.play) and `dclint failures`: every single failure
played, load re-distributed by the design's own topology, the worst survivor judged. Figures are
the hand calculations in each comment (pytest.approx within 2%, most exact)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from conftest import EXAMPLES, SAMPLES
from dclint.calc.failures.play import Failure, failure_table, most_severe_first
from dclint.calc.power_chain import chain_loads
from dclint.cli import main
from dclint.loader import load, load_text
from dclint.model.resolve import topology_of

DR = EXAMPLES / "pwr009" / "good-distributed.yaml"


def _table(path: Path, peak: bool = True) -> dict[tuple[str, str], Failure]:
    table = failure_table(topology_of(load(path)), peak)
    return {(f.kind, f.element): f for f in table.failures}


def test_distributed_redundant_survivor_carries_total_over_n_minus_1() -> None:
    # 4 UPS, six 100 kW racks, one on each pair: 600 kW, 150 kW a UPS normally; with ups-1
    # lost its three racks' other halves (50 kW each) move to ups-2, ups-3, ups-4: 200 kW each,
    # 600 / (4 - 1), against 250 kW: margin 50 kW
    cases = _table(DR)
    ups1 = cases[("ups", "ups-1")]
    assert ups1.worst is not None
    assert ups1.worst.kind == "ups"
    assert ups1.worst.load == pytest.approx(600 / 3, rel=1e-9)
    assert ups1.worst.margin == pytest.approx(50.0, rel=1e-9)
    assert ups1.moves == "150 kW of 3 racks to ups-2 +50 kW, ups-3 +50 kW, ups-4 +50 kW"
    assert ups1.racks_lost == () and ups1.overloaded == ()
    loads = chain_loads(topology_of(load(DR)))
    assert loads["ups-1"].load_kw == pytest.approx(200.0, rel=1e-9)  # not 300 kW
    assert loads["ups-1"].failure == "UPS ups-2 lost"
    table = failure_table(topology_of(load(DR)))
    assert table.normal_load["ups-1"] == pytest.approx(150.0, rel=1e-9)


def test_every_single_element_of_the_plant_is_played() -> None:
    cases = _table(DR)
    # 4 UPS, 4 panels, 12 feeds, no modules, no generator, no utility capacity, no cooling
    assert sorted({k for k, _ in cases}) == ["feed", "panel", "ups"]
    assert len(cases) == 20


def test_a_feed_lost_moves_the_rack_to_its_other_feed() -> None:
    f = _table(DR)[("feed", "f12a")]
    # r12's 100 kW: 50 kW moves to f12b under ups-2 (150 -> 200 kW of 250 kW)
    assert f.moves == "50 kW of 1 rack to ups-2 +50 kW"
    assert f.worst is not None and (f.worst.element, f.worst.load) == ("ups-2", 200.0)


def test_a_catcher_takes_over_the_ups_it_backs_up() -> None:
    cases = _table(EXAMPLES / "pwr009" / "good.yaml")
    # ups-1 carries four 132 kW racks (528 kW); the catcher ups-c (1,250 kVA x 0.95 =
    # 1,187.5 kW) takes it over: 528 of 1,187.5 kW, nothing lost
    caught = cases[("ups", "ups-1")]
    assert caught.moves == "528 kW to catcher ups-c"
    assert caught.racks_lost == ()
    # ups-a, no catcher: its eight racks are lost (8 x 132 = 1,056 kW)
    lost = cases[("ups", "ups-a")]
    assert lost.racks_lost == tuple(f"r{i}" for i in range(1, 9))
    assert lost.moves == "1056 kW lost with 8 racks"
    # one module of ups-a (6 x 250 kVA, N+1) lost: 5 x 237.5 = 1,187.5 kW for 1,056 kW
    module = cases[("ups module", "ups-a")]
    assert module.worst is not None and module.worst.element == "ups-a"
    assert module.worst.capacity == pytest.approx(1187.5, rel=1e-9)
    assert module.worst.load == pytest.approx(1056.0, rel=1e-9)


def test_racks_lost_agree_with_the_single_point_of_failure_rule() -> None:
    cases = _table(EXAMPLES / "pwr013" / "bad.yaml")
    assert cases[("panel", "pdu-1")].racks_lost == ("r1",)
    assert cases[("ups", "ups-1")].racks_lost == ("r2", "r3")
    assert cases[("feed", "f4")].racks_lost == ("r4",)


def test_the_utility_and_a_generator_lost() -> None:
    cases = _table(EXAMPLES / "pwr012" / "good.yaml")
    utility = cases[("utility", "utility")]
    # 8 x 132 kW x PUE 1.2 = 1,267.2 kW on gen-b: all three 640 kW sets run (1,920 kW)
    assert utility.worst is not None and utility.worst.element == "gen-b"
    assert utility.worst.load == pytest.approx(1267.2, rel=1e-9)
    assert utility.worst.capacity == pytest.approx(1920.0, rel=1e-9)
    # one of gen's three 2,000 kVA x 0.8 = 1,600 kW sets lost: two carry 3,200 kW
    gen = cases[("generator", "gen")]
    assert gen.worst is not None and gen.worst.capacity == pytest.approx(3200.0, rel=1e-9)
    assert gen.overloaded == ()


def test_a_cdu_lost_is_shared_by_its_group_or_loses_its_racks() -> None:
    cases = _table(EXAMPLES / "clg002" / "bad.yaml")
    # row-1: 600 kW on cdu-a + 100 kW on cdu-b; with cdu-a lost cdu-b (600 kW) carries 700 kW
    a = cases[("cdu", "cdu-a")]
    assert a.worst is not None and a.worst.element == "cdu-b"
    assert a.worst.load == pytest.approx(700.0, rel=1e-9)
    assert a.worst.margin == pytest.approx(-100.0, rel=1e-9)
    assert [s.element for s in a.overloaded] == ["cdu-b"]
    # row-2 is cdu-c alone: its rack c1 loses cooling
    c = cases[("cdu", "cdu-c")]
    assert c.racks_lost == ("c1",) and c.worst is None


def test_failures_command_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["failures", str(DR)]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == (
        "Single failures of pwr009-good-distributed: 20 played, racks at their peak (catalog "
        "max_power); 0 overload a survivor, 0 leave racks without supply or cooling; worst first"
    )
    row = next(line for line in text.splitlines() if line.startswith("UPS ups-1 "))
    assert "ups-2 (ups) 200 kW of 250 kW (80%)" in row and "50 kW" in row
    out = tmp_path / "f.json"
    assert main(["failures", str(DR), "--format", "json", "-o", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    first = data["failures"][0]
    assert (first["kind"], first["element"], first["path"]) == ("ups", "ups-1", "power.ups[0]")
    assert first["at"].endswith("good-distributed.yaml:9:7")
    assert first["worst_survivor"]["load"] == pytest.approx(200.0, rel=1e-9)


def _expected_failures(path: Path) -> list[tuple[str, str]]:
    """Every single failure a design declares, read from the design itself (not from the
    engine): each feed, panel (busway, switchboard), transformer and UPS, one module of a
    modular UPS, the power paths whose sources are undeclared (two or more), the utility and
    one generator of each set, each CDU, one pump of each CDU that counts its pumps, one air
    handler of each hall and one unit of each heat-rejection set."""
    design = load(path)
    topo = topology_of(design)
    out: list[tuple[str, str]] = []
    power = design.power
    out += [("transformer", t.id) for t in power.transformers]
    for u in power.ups:
        out.append(("ups", u.id))
        if u.module_rating is not None and u.modules >= 2:
            out.append(("ups module", u.id))
    out += [(str(p.kind), p.id) for p in power.panels]
    out += [("feed", fid) for fid in topo.feeds]
    chained = set(topo.chain)
    paths: set[str] = set()
    for feed in topo.feeds.values():
        up, above = feed.model.panel, False
        while up is not None:
            above |= up in chained
            item = topo.panels.get(up) or topo.chain.get(up)
            up = item.model.fed_by if item is not None else None
        if feed.model.path and not above:
            paths.add(feed.model.path)
    if len(paths) >= 2:
        out += [("path", p) for p in sorted(paths)]
    if topo.racks and (power.generators or design.site.utility_capacity is not None):
        out.append(("utility", "utility"))
        out += [("generator", g.id) for g in power.generators]
    out += [("cdu", c.id) for c in design.cooling.cdus]
    out += [("pump", c.id) for c in design.cooling.cdus if c.pumps is not None]
    out += [("heat rejection", u.id) for u in design.cooling.heat_rejection]
    halls = design.site.halls
    out += [("air handler", f"{h} air handler") for h in halls if halls[h].air_handlers]
    return out


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.glob("*.yaml")))
def test_every_sample_lists_its_failures(
    sample: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = SAMPLES / sample
    expected = _expected_failures(path)
    table = failure_table(topology_of(load(path)))
    # exactly the failures the design declares, each once
    assert sorted((f.kind, f.element) for f in table.failures) == sorted(expected)
    # each with its worst survivor (load and capacity), or the racks it leaves without supply
    # or cooling where nothing survives it
    for f in table.failures:
        assert f.worst is not None or f.racks_lost, f.label
    # the command prints a row for each, named as the table names it, and its JSON the same
    assert main(["failures", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"Single failures of {load(path).name}: {len(expected)} played, ")
    labels = [f.label for f in most_severe_first(table.failures)]  # worst first, in text and JSON
    rows = lines[3 : 3 + len(labels)]
    assert [r.split("  ")[0] for r in rows] == labels
    out = tmp_path / "f.json"
    assert main(["failures", str(path), "--format", "json", "-o", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))["failures"]
    assert [(d["kind"], d["element"]) for d in data] == [
        (f.kind, f.element) for f in most_severe_first(table.failures)
    ]
    for d, f in zip(data, most_severe_first(table.failures), strict=True):
        if f.worst is None:
            assert d["worst_survivor"] is None and d["racks_lost"] == list(f.racks_lost)
        else:
            assert d["worst_survivor"]["element"] == f.worst.element
            assert d["worst_survivor"]["load"] == pytest.approx(f.worst.load, rel=1e-9)


def _scale_design(racks: int) -> str:
    """`racks` GB200 racks on A/B busways (25 feeds each) under 2 x 8 UPS and 2 x 4 transformers,
    CDUs in groups of five."""
    lines = [
        "name: scale",
        "site: {utility_capacity: 400 MW}",
        "power:",
        "  generators: [{id: gen, site_rating: 3000 kW, count: 200, redundant: 1}]",
        "  transformers:",
    ]
    lines += [f"    - {{id: tx-{s}{t}, rating: 50 MVA}}" for s in "ab" for t in range(4)]
    lines.append("  ups:")
    lines += [
        f"    - {{id: ups-{s}{u}, rating: 25 MVA, fed_by: tx-{s}{u // 2}, "
        "module_rating: 2500 kVA, modules: 11, redundant_modules: 1}"
        for s in "ab"
        for u in range(8)
    ]
    panels = racks // 25
    lines.append("  panels:")
    lines += [
        f"    - {{id: bus-{s}{p:03d}, kind: busway, fed_by: ups-{s}{p * 8 // panels}, "
        "voltage: 415 V, current_rating: 8000 A}"
        for s in "ab"
        for p in range(panels)
    ]
    lines.append("  feeds:")
    lines += [
        f"    - {{id: '{s}[{p * 25 + 1:04d}-{p * 25 + 25:04d}]', panel: bus-{s}{p:03d}, "
        f"voltage: 415 V, current_rating: 250 A, path: {s.upper()}}}"
        for s in "ab"
        for p in range(panels)
    ]
    lines.append("racks:")
    lines.append(f"  - {{id: 'r[0001-{racks:04d}]', platform: gb200-nvl72, feeds: [a$n, b$n]}}")
    lines.append("cooling:\n  cdus:")
    cdus = racks // 8
    lines += [
        f"    - {{id: cdu-{c:03d}, capacity: 2000 kW, max_flow: 2125 L/min, "
        f"redundancy_group: g{c // 5}}}"
        for c in range(cdus)
    ]
    lines.append("  loops:")
    lines += [
        f"    - {{id: l{c:03d}, cdu: cdu-{c:03d}, supply_temperature: 32 degC, "
        f"return_temperature: 42 degC, racks: ['r[{c * 8 + 1:04d}-{c * 8 + 8:04d}]']}}"
        for c in range(cdus)
    ]
    return "\n".join(lines) + "\n"


# a wall-clock bound at scale: integration (the default tier builds the table of every sample
# in test_every_sample_lists_its_failures)
@pytest.mark.integration
def test_a_1000_rack_table_in_under_5_s() -> None:
    design = load_text(_scale_design(1000), "scale.yaml")
    topo = topology_of(design)
    start = time.perf_counter()
    table = failure_table(topo)
    took = time.perf_counter() - start
    # 2 x 40 busways, 2,000 feeds, 16 UPS (+16 module failures), 8 transformers, utility, one
    # generator, 125 CDUs
    assert len(table.failures) == 80 + 2000 + 32 + 8 + 2 + 125
    assert took < 5.0, f"{took:.2f} s"  # measured ~1 s on the project's 2-core machine


def test_a_cdu_no_other_backs_up_and_a_pump_without_a_spare() -> None:
    cases = _table(EXAMPLES / "clg011" / "bad.yaml")
    # eight racks at 120 kW x 85% to liquid = 816 kW on cdu-1 alone: all eight lose cooling
    lone = cases[("cdu", "cdu-1")]
    assert lone.racks_lost == tuple(f"a{i}" for i in range(1, 9))
    assert lone.moves == "816 kW of liquid heat lost: no CDU backs it up"
    # cdu-2: 4 x 102 kW = 408 kW at 10 K: 408 / (0.997 kg/L x 4.18 kJ/(kg K) x 10 K) x 60 s =
    # 587.4 L/min; one of two pumps (no spare) out: 1,000 x 1/2 = 500 L/min
    pump = cases[("pump", "cdu-2")]
    assert pump.worst is not None and pump.worst.unit == "L/min"
    assert pump.worst.load == pytest.approx(587.4, rel=0.02)
    assert pump.worst.capacity == pytest.approx(500.0, rel=1e-9)
    assert pump.overloaded == (pump.worst,)
    # cdu-3 has a spare: one out leaves its 1,000 L/min
    spare = cases[("pump", "cdu-3")]
    assert spare.worst is not None and spare.worst.capacity == pytest.approx(1000.0, rel=1e-9)


def test_maintenance_then_a_failure() -> None:
    from dclint.calc.failures.play import maintenance_table

    cases = {c.maintained: c for c in maintenance_table(topology_of(load(DR)))}
    # ups-1 out for service loses nothing; ups-2 failing then takes r12 (on ups-1 and ups-2)
    # and puts r13 and r23 wholly, r34 half on ups-3: 100 + 100 + 50 = 250 kW of 250 kW
    c = cases["ups-1"]
    assert c.lost_alone == () and c.failure == "UPS ups-2" and c.racks_lost == ("r12",)
    assert c.worst is not None and c.worst.element == "ups-3"
    assert c.worst.load == pytest.approx(250.0, rel=1e-9)


def test_failures_command_maintenance(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["failures", str(DR), "--maintenance"]) == 0
    text = capsys.readouterr().out
    assert "Maintenance mode: 8 elements out for service, each then its worst failure" in text
    tail = text.split("Maintenance mode:")[1]
    row = next(line for line in tail.splitlines() if line.startswith("UPS ups-1  "))
    assert row.split() == [
        "UPS",
        "ups-1",
        "UPS",
        "ups-2",
        "ups-3",
        "(ups)",
        "250",
        "kW",
        "of",
        "250",
        "kW",
        "(100%)",
        "1",
    ]


def test_the_review_carries_the_fmea_appendix(tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    sample = SAMPLES / "gb200-superpod-su.yaml"
    assert main(["review", str(sample), "--format", "markdown", "-o", str(out)]) in (0, 1)
    text = out.read_text(encoding="utf-8")
    assert "### Single failures (FMEA)" in text
    assert (
        "23 single failures of the power and cooling plant played, racks at their peak: 0 "
        "overload a survivor, 1 leaves racks without supply or cooling." in text
    )
    # busway-a lost: its 8 racks' halves (8 x 66 kW) move to busway-b, 1,056 of 1,093 kW
    assert (
        "| busway busway-a | 528 kW of 8 racks to busway-b +528 kW | busway-b 1056 kW of 1093 kW "
        "| 36.58 kW | 0 |" in text
    )


def test_the_failure_that_drops_racks_is_listed_first(capsys: pytest.CaptureFixture[str]) -> None:
    """An FMEA's criticality order: gb200-superpod-su's utility loss (no generators: all 8
    racks on their batteries) was row 21 of 23, under feeds with 4.572 kW to spare."""
    assert main(["failures", str(SAMPLES / "gb200-superpod-su.yaml")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(
        "0 overload a survivor, 1 leaves racks without supply or cooling; worst first"
    )
    assert lines[3].split() == [
        "utility", "-", "-", "8", "no", "generators:", "the", "racks", "run", "on", "UPS",
        "batteries,", "where", "they", "have", "any",
    ]  # fmt: skip
    assert lines[4].startswith("busway busway-a  busway-b (busway) 1056 kW of 1093 kW (97%)")
    assert lines[-1].startswith("cdu cdu-2        cdu-1 (cdu) 816 kW of 2000 kW (41%)")
