"""The client's hall of issue #49 in NetBox 4.x's REST shape (tests/integration/hall.py):
imported whole, or with every object left out named on the ledger. 256 GPUs in eight GPU racks
(the node offline for RMA counted and marked), the campus-level UPS panels upstream of the
hall's RPPs, rows from the rack groups (locations), not the floor grid, 40.8 kW per 4-DGX rack
from six redundant PSUs' draws, and `dclint check` finding the overload the offline node would
have hidden."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from integration.hall import GPU_RACKS, MAPPING, NAUTOBOT_MAPPING, hall_dump, nautobot_hall_dump

from dclint.cli import main
from dclint.loader import load
from dclint.model.design import Design
from dclint.model.ranges import expand
from dclint.model.resolve import topology_of

NB = "https://netbox.example.com/dcim"


def _rows(design: Design) -> dict[str, str | None]:
    return {i: g.row for g in design.racks for i, _ in expand(g.id)}


def _import(tmp_path: Path, dump: object, mapping: str = MAPPING) -> int:
    (tmp_path / "dump.json").write_text(json.dumps(dump), encoding="utf-8")
    (tmp_path / "map.yaml").write_text(mapping, encoding="utf-8")
    args = ["import", "netbox", "--from-file", str(tmp_path / "dump.json")]
    args += ["--map", str(tmp_path / "map.yaml"), "-o", str(tmp_path / "site.yaml")]
    return main([*args, "--ledger", str(tmp_path / "ledger.json")])


def test_the_hall_imports_with_256_gpus_its_rows_and_its_ups(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _import(tmp_path, hall_dump()) == 0
    design = load(str(tmp_path / "site.yaml"))
    topo = topology_of(design)
    assert topo.gpus == 256
    gpu_racks = [r for r in topo.racks if r.platform_key == "dgx-h100"]
    assert [r.id for r in gpu_racks] == GPU_RACKS
    # six PSUs of 3.3 kW maximum, 1.7 kW allocated each: a 10.2 kW device, not 19.8 kW
    assert {r.id: round(r.it_load.m_as("kW"), 3) for r in topo.racks} == {
        **{r: 40.8 for r in GPU_RACKS},
        "N01": 13.2,  # 12 QM9700 at 2 x 550 W allocated
    }
    assert _rows(design) == {
        **{r: f"Row {r[0]}" for r in GPU_RACKS},
        "N01": "Row N",
    }
    assert {r.id: r.status for r in topo.racks if r.status != "active"} == {"B04": "planned"}
    marked = {g.id: g.offline_nodes for g in design.racks if g.offline_nodes}
    assert marked == {"A02": 1}
    fed_by = {p.id: p.fed_by for p in design.power.panels}
    assert fed_by == {"rpp-a": "ups-a", "rpp-b": "ups-b", "ups-a": None, "ups-b": None}
    ledger = json.loads((tmp_path / "ledger.json").read_text(encoding="utf-8"))
    counts = {
        k: (v["read"], v["imported"], v["merged"], v["skipped"], v["skipped_by_reason"])
        for k, v in ledger.items()
    }
    assert counts == {
        "site": (1, 0, 0, 1, {"above the imported location": 1}),
        "location": (4, 1, 3, 0, {}),
        "rack": (9, 9, 0, 0, {}),
        "power-panel": (4, 4, 0, 0, {}),
        "power-feed": (20, 20, 0, 0, {}),
        "device": (
            64,
            0,
            44,
            20,
            {"unmapped type cm7200": 1, "unmapped type pdu-x": 10, "unmapped type sn2201": 9},
        ),
    }
    ups = {i["into"]: i.get("note") for i in ledger["power-panel"]["imported_objects"]}
    assert ups == {
        "ups-a": "upstream of panel rpp-a",
        "ups-b": "upstream of panel rpp-b",
        "rpp-a": None,
        "rpp-b": None,
    }
    offline = [i for i in ledger["device"]["merged_objects"] if "note" in i]
    assert offline == [
        {
            "source": f"NetBox device 7 <{NB}/devices/7/>",
            "into": "rack A02 (a dgx-h100 node)",
            "note": "device A02-n3, status offline: counted, marked offline_nodes",
        }
    ]
    err = capsys.readouterr().err
    # a kind imported whole is quiet on stderr (the ledger at the fragment's foot has it)
    assert "dclint import: ledger: power-panel:" not in err
    # the rows are the rack groups, not the floor grid's facility_id
    assert "G-1" not in (tmp_path / "site.yaml").read_text(encoding="utf-8")


def test_the_hall_checks_with_the_overload_the_offline_node_would_hide(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _import(tmp_path, hall_dump()) == 0
    capsys.readouterr()
    assert main(["check", str(tmp_path / "site.yaml"), "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)["designs"][0]["findings"]
    assert sorted((f["rule"], f["subject"], f["origin"]) for f in found) == [
        ("PWR003", "A02-a", f"NetBox power-feed 4 <{NB}/power-feeds/4/>"),
        ("PWR003", "A02-b", f"NetBox power-feed 13 <{NB}/power-feeds/13/>"),
        ("PWR004", "A02", f"NetBox rack 2 <{NB}/racks/2/>"),
    ]


def test_the_status_policy_decides_what_is_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = "status: {active: active, planned: planned, offline: skip}\n"
    assert _import(tmp_path, hall_dump(), MAPPING + policy) == 0
    topo = topology_of(load(str(tmp_path / "site.yaml")))
    assert topo.gpus == 248  # the RMA node left out, by the mapping's own policy
    ledger = json.loads((tmp_path / "ledger.json").read_text(encoding="utf-8"))
    assert ledger["device"]["skipped_by_reason"]["status offline"] == 1


def test_rows_from_the_floor_grid_when_the_mapping_says_so(tmp_path: Path) -> None:
    assert _import(tmp_path, hall_dump(), MAPPING + "rows: facility_id\n") == 0
    rows = _rows(load(str(tmp_path / "site.yaml")))
    assert rows["A01"] == "G-11" and rows["N01"] == "G-19"


def test_a_draw_above_the_platforms_rated_maximum_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dump = hall_dump()
    for t in dump["dcim/power-port-templates"]:
        if t["device_type"]["slug"] == "dgx-h100":
            t["allocated_draw"] = 2000  # 12 kW a device
    assert _import(tmp_path, dump) == 0
    err = capsys.readouterr().err
    assert (
        f"dclint import: warning: NetBox device 1 <{NB}/devices/1/>: device type dgx-h100: "
        "12 kW a device (its maximum draw over 6 power ports) is above dgx-h100's rated "
        "maximum of 10.2 kW in dclint's catalog\n"
    ) in err
    assert err.count("rated maximum") == 1  # once a device type


def test_every_object_of_the_hall_is_in_the_design_or_on_the_ledger(tmp_path: Path) -> None:
    from dclint.model.origins import origin_table

    dump = hall_dump()
    assert _import(tmp_path, dump) == 0
    design = load(str(tmp_path / "site.yaml"))
    in_design = set(origin_table(design.origins).values())
    ledger = json.loads((tmp_path / "ledger.json").read_text(encoding="utf-8"))
    # the imported location is the design's site (`site: {name: hall-1}`)
    assert design.site is not None and design.site.name == "hall-1"
    in_design |= {
        item["source"]
        for entry in ledger.values()
        for item in entry["imported_objects"]
        if item["into"] == "site"
    }
    on_ledger = {
        item["source"]
        for entry in ledger.values()
        for state in ("merged", "skipped")
        for item in entry[f"{state}_objects"]
    }
    kinds = {"sites": "site", "locations": "location", "racks": "rack"}
    kinds |= {"power-panels": "power-panel", "power-feeds": "power-feed", "devices": "device"}
    walked = 0
    for path, kind in kinds.items():
        for obj in dump[f"dcim/{path}"]:
            origin = f"NetBox {kind} {obj['id']} <{obj['display_url']}>"
            assert (origin in in_design) != (origin in on_ledger), origin  # one of the two
            walked += 1
    assert walked == 1 + 4 + 9 + 4 + 20 + 64
    assert all(entry["unplaced_objects"] == [] for entry in ledger.values())


def test_findings_carry_their_source_in_text_sarif_and_the_review(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _import(tmp_path, hall_dump()) == 0
    site = str(tmp_path / "site.yaml")
    sources = [
        f"NetBox power-feed 4 <{NB}/power-feeds/4/>",
        f"NetBox power-feed 13 <{NB}/power-feeds/13/>",
        f"NetBox rack 2 <{NB}/racks/2/>",
    ]
    capsys.readouterr()
    assert main(["check", site]) == 1
    text = capsys.readouterr().out
    assert [text.count(f"(source: {s})") for s in sources] == [1, 1, 1]
    assert main(["check", site, "--format", "sarif"]) == 1
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert sorted(r["properties"]["origin"] for r in results) == sorted(sources)
    review = tmp_path / "review.md"
    main(["review", site, "--format", "markdown", "--output", str(review)])
    doc = review.read_text(encoding="utf-8")  # Markdown escapes the URL's angle brackets
    escaped = [s.replace("<", "\\<").replace(">", "\\>") for s in sources]
    assert [doc.count(f"(source: {s})") for s in escaped] == [1, 1, 1]
    # the review lists the elements the source marks not active, counted as load
    assert (
        "| elements not active | counted as load | planned racks: B04; racks with nodes "
        "offline (in repair): A02 (1): counted in the loads, feeds and GPUs checked |"
    ) in doc


def test_the_hall_from_nautobot_follows_its_panel_to_panel_feeds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "dump.json").write_text(json.dumps(nautobot_hall_dump()), encoding="utf-8")
    (tmp_path / "map.yaml").write_text(NAUTOBOT_MAPPING, encoding="utf-8")
    args = ["import", "nautobot", "--from-file", str(tmp_path / "dump.json")]
    args += ["--map", str(tmp_path / "map.yaml"), "-o", str(tmp_path / "site.yaml")]
    assert main([*args, "--ledger", str(tmp_path / "ledger.json")]) == 0
    design = load(str(tmp_path / "site.yaml"))
    topo = topology_of(design)
    assert topo.gpus == 256
    assert {r.id: round(r.it_load.m_as("kW"), 3) for r in topo.racks if r.platform_key} == {
        r: 40.8 for r in GPU_RACKS
    }
    assert _rows(design) == {**{r: f"Row {r[0]}" for r in GPU_RACKS}, "N01": "Row N"}
    assert {g.id: g.offline_nodes for g in design.racks if g.offline_nodes} == {"A02": 1}
    # the campus UPS panels, outside the hall, followed upstream by their feeds to the RPPs
    assert {p.id: p.fed_by for p in design.power.panels} == {
        "rpp-a": "ups-a",
        "rpp-b": "ups-b",
        "ups-a": None,
        "ups-b": None,
    }
    ledger = json.loads((tmp_path / "ledger.json").read_text(encoding="utf-8"))
    counts = {k: (v["read"], v["imported"], v["merged"], v["skipped"]) for k, v in ledger.items()}
    assert counts == {
        "location": (2, 1, 0, 1),  # the hall imported; the campus above it
        "rack": (9, 9, 0, 0),
        "power-panel": (4, 4, 0, 0),
        "power-feed": (20, 18, 2, 0),  # the UPS-to-RPP feeds: the RPPs' fed_by
        "device": (64, 0, 44, 20),
    }
    assert sorted(i["into"] for i in ledger["power-feed"]["merged_objects"]) == [
        "fed_by of panel rpp-a",
        "fed_by of panel rpp-b",
    ]


def test_redundant_psus_with_no_allocated_draw_are_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dump = hall_dump()
    for t in dump["dcim/power-port-templates"]:
        if t["device_type"]["slug"] == "dgx-h100":
            t["allocated_draw"] = None
    assert _import(tmp_path, dump) == 0
    err = capsys.readouterr().err
    assert (
        f"dclint import: warning: NetBox device 1 <{NB}/devices/1/>: device type dgx-h100: 6 "
        "power ports (redundant PSUs) with no allocated draw: read as one port's maximum, "
        "3.3 kW a device, never their sum; give the device's draw as `power:` in the "
        "mapping's device_types\n"
    ) in err
    topo = topology_of(load(str(tmp_path / "site.yaml")))
    loads = {r.id: r.it_load.m_as("kW") for r in topo.racks}
    assert loads["A01"] == pytest.approx(13.2)  # 4 x 3.3 kW: what the warning says
