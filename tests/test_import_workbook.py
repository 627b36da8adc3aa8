"""A client's workbook imported unedited (issue #49): a rack schedule whose "Qty nodes" and an
equipment list count the same nodes (reconciled, never summed), a Unit column, a unit in the
mapping's header and a column's unit in the mapping, a cabinet type `network` the mapping maps
to a rack without GPU nodes, a TOTAL row after a blank line (skipped on the ledger), a
declared load below its devices' draw (a warning at the cell), and a formula without a cached
value (an error at its cell). Written here with openpyxl."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest

openpyxl = pytest.importorskip("openpyxl", reason="openpyxl is in the test extra")

from dclint.cli import main  # noqa: E402
from dclint.loader import load  # noqa: E402
from dclint.model.resolve import topology_of  # noqa: E402

MAPPING = """\
name: hall1
device_types:
  DGX H100: {kind: gpu_node, platform: dgx-h100}
  QM9700: {kind: switch, switch: qm9700}
rack_platforms: {DGX H100: dgx-h100, network: null}
sheets:
  racks:
    sheet: Rack schedule
    columns: {id: Rack, row: Row, platform: Cabinet type, nodes: Qty nodes,
              it_load: Design load}
    units: {Design load: Unit}
  feeds:
    sheet: Feeds
    columns: {id: Feed, panel: Panel, rack: Rack, voltage: Voltage,
              current_rating: "Breaker (A)", phases: Phases}
  panels:
    sheet: Panels
    columns: {id: Panel, voltage: Voltage, current_rating: Rating, path: Path}
  devices:
    sheet: Equipment
    columns: {name: Name, rack: Rack, type: Model, role: Role,
              power: {column: Power, unit: kW}}
"""
GPU_RACKS = [f"A{i:02d}" for i in range(1, 5)] + [f"B{i:02d}" for i in range(1, 6)]
RACKS = [*GPU_RACKS, "N01"]
NODES = {rack: 1 if rack == "B05" else 4 for rack in GPU_RACKS}


def _cache(path: Path, sheet_xml: str, cell: str, cached: str) -> None:
    """The value a spreadsheet program caches for a formula (openpyxl writes none)."""
    with zipfile.ZipFile(path) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    xml = parts[sheet_xml].decode()
    xml, n = re.subn(
        rf'(<c r="{cell}"[^>]*>)(<f>[^<]*</f>)<v\s*/?>(</v>)?', rf"\1\2<v>{cached}</v>", xml
    )
    assert n == 1
    parts[sheet_xml] = xml.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)


def _workbook(path: Path, cached: bool = True, drop: str | None = None) -> None:
    wb = openpyxl.Workbook()
    racks = wb.active
    racks.title = "Rack schedule"
    racks.append(["Rack", "Row", "Cabinet type", "Qty nodes", "Design load", "Unit"])
    for rack in RACKS:
        if rack == "N01":
            racks.append([rack, "Row N", "network", None, 14, "kW"])
            continue
        load = 10.2 * NODES[rack] if rack != "B04" else 30.6  # B04 declares too little
        nodes: object = "=2*2" if rack == "A03" else NODES[rack]
        racks.append([rack, f"Row {rack[0]}", "DGX H100", nodes, round(load, 1), "kW"])
    racks.append([None] * 6)
    racks.append(["TOTAL", None, None, "=SUM(D2:D11)", "=SUM(E2:E11)", "kW"])
    feeds = wb.create_sheet("Feeds")
    feeds.append(["Feed", "Panel", "Rack", "Voltage", "Breaker", "Phases"])
    for side in ("a", "b"):
        for rack in RACKS:
            breaker = 32 if rack == "A04" else 100  # A04's feeds cannot carry its 40.8 kW
            feeds.append([f"{rack}-{side}", f"rpp-{side}", rack, "415 V", breaker, 3])
    panels = wb.create_sheet("Panels")
    panels.append(["Panel", "Voltage", "Rating", "Path"])
    panels.append(["rpp-a", "415 V", "800 A", "A"])
    panels.append(["rpp-b", "415 V", "800 A", "B"])
    equipment = wb.create_sheet("Equipment")
    equipment.append(["Name", "Rack", "Model", "Role", "Power"])
    for rack in GPU_RACKS:
        for n in range(1, NODES[rack] + 1):
            if f"{rack}-n{n}" != drop:
                equipment.append([f"{rack}-n{n}", rack, "DGX H100", "gpu", None])
    for k in range(1, 5):
        equipment.append([f"leaf{k}", "N01", "QM9700", "leaf", 1.72])
    for k in range(1, 3):
        equipment.append([f"pdu{k}", "N01", "PDU-X", "pdu", None])
    wb.save(path)
    sheet = {name: f"xl/worksheets/sheet{i}.xml" for i, name in enumerate(wb.sheetnames, 1)}
    if cached:
        _cache(path, sheet["Rack schedule"], "D4", "4")
    _cache(path, sheet["Rack schedule"], "D13", "33")
    _cache(path, sheet["Rack schedule"], "E13", "350.2")


def _run(tmp_path: Path, mapping: str = MAPPING, *extra: str) -> int:
    (tmp_path / "map.yaml").write_text(mapping, encoding="utf-8")
    args = ["import", "xlsx", str(tmp_path / "plan.xlsx"), "--map", str(tmp_path / "map.yaml")]
    return main([*args, "-o", str(tmp_path / "site.yaml"), *extra])


def test_the_workbook_imports_unedited_with_264_gpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _workbook(tmp_path / "plan.xlsx")
    assert _run(tmp_path, MAPPING, "--ledger", str(tmp_path / "ledger.json")) == 0
    err = capsys.readouterr().err
    design = load(str(tmp_path / "site.yaml"))
    topo = topology_of(design)
    assert topo.gpus == 264  # 33 DGX H100: the Qty nodes and the equipment rows, once
    loads = {r.id: round(r.it_load.m_as("kW"), 3) for r in topo.racks}
    assert loads == {
        **{r: 40.8 for r in GPU_RACKS if r != "B05"},  # B04 too: its devices' draw governs
        "B05": 10.2,
        "N01": 14.0,  # the declared 14 kW (Unit column) above its 4 x 1.72 kW leaves
    }
    assert {r.id: r.nodes for r in topo.racks if r.platform_key} == NODES
    assert {r.id: r.platform_key for r in topo.racks}["N01"] is None
    # B04's 30.6 kW is below its four DGX H100's 40.8 kW: a warning at the cell
    assert (
        "dclint import: warning: plan.xlsx Rack schedule!E9: rack 'B04': the declared load "
        "30.6 kW is below its devices' draw 40.8 kW: the larger governs (it_load)\n"
    ) in err
    ledger = json.loads((tmp_path / "ledger.json").read_text(encoding="utf-8"))
    counts = {
        k: (v["read"], v["imported"], v["merged"], v["skipped"], v["skipped_by_reason"])
        for k, v in ledger.items()
    }
    assert counts == {
        "rack": (11, 10, 0, 1, {"a total row": 1}),
        "power-feed": (20, 20, 0, 0, {}),
        "power-panel": (2, 2, 0, 0, {}),
        "device": (39, 0, 37, 2, {"unmapped type PDU-X": 2}),
    }
    assert ledger["rack"]["skipped_objects"] == [
        {"source": "plan.xlsx Rack schedule!A13", "reason": "a total row"}
    ]
    assert "dclint import: ledger: rack: read 11, imported 10, merged 0, skipped 1" in err
    text = (tmp_path / "site.yaml").read_text(encoding="utf-8")
    assert "#   plan.xlsx Rack schedule!A13: a total row\n" in text
    assert "#   plan.xlsx Equipment!A39: unmapped type PDU-X (device pdu1)\n" in text


def test_the_imported_hall_checks_with_the_real_overloads_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _workbook(tmp_path / "plan.xlsx")
    assert _run(tmp_path) == 0
    capsys.readouterr()
    assert main(["check", str(tmp_path / "site.yaml"), "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)["designs"][0]["findings"]
    # A04's 32 A feeds under its 40.8 kW; no panel overload (the nodes counted once), no
    # 350 kW TOTAL rack; each finding names the client's cell
    assert sorted((f["rule"], f["subject"], f["origin"]) for f in found) == [
        ("PWR003", "A04-a", "plan.xlsx Feeds!A5"),
        ("PWR003", "A04-b", "plan.xlsx Feeds!A15"),
        ("PWR004", "A04", "plan.xlsx Rack schedule!A5"),
    ]


def test_a_formula_without_a_cached_value_is_an_error_at_its_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _workbook(tmp_path / "plan.xlsx", cached=False)
    assert _run(tmp_path) == 2
    assert not (tmp_path / "site.yaml").exists()
    assert capsys.readouterr().err.splitlines() == [
        "dclint import: error: Rack schedule!D4: =2*2: a formula with no value cached (the "
        "workbook was written by a program that does not compute formulas): open and save it "
        "in a spreadsheet program, or enter the value"
    ]


def test_a_node_count_and_device_rows_that_disagree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _workbook(tmp_path / "plan.xlsx", drop="A02-n4")
    assert _run(tmp_path) == 2
    err = capsys.readouterr().err.splitlines()
    text = (
        "rack 'A02': its node count says 4 (plan.xlsx Rack schedule!D3), its device rows 3 "
        "(plan.xlsx Equipment!A6:A8): both count the same nodes; correct one, or set "
        "node_count: racks (or devices) in the mapping file to name the one that wins"
    )
    assert err == [
        f"dclint import: error: plan.xlsx Rack schedule!D3: {text}",
        f"dclint import: error: plan.xlsx Equipment!A6: {text}",
    ]
    # the mapping names the source that wins: the ledger says so
    ledger_file = tmp_path / "ledger.json"
    assert _run(tmp_path, MAPPING + "node_count: racks\n", "--ledger", str(ledger_file)) == 0
    assert topology_of(load(str(tmp_path / "site.yaml"))).gpus == 264
    ledger = json.loads(ledger_file.read_text(encoding="utf-8"))
    rack = next(i for i in ledger["rack"]["imported_objects"] if i["into"] == "A02")
    assert rack["note"] == (
        "node count 4 at plan.xlsx Rack schedule!D3 and 3 device rows disagree: racks wins "
        "(4 nodes)"
    )


def test_a_cabinet_type_the_catalog_cannot_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _workbook(tmp_path / "plan.xlsx")
    assert _run(tmp_path, MAPPING.replace(", network: null", "")) == 2
    assert not (tmp_path / "site.yaml").exists()
    assert capsys.readouterr().err.splitlines() == [
        "dclint import: error: plan.xlsx Rack schedule!C11: 'network' is not a platform the "
        "catalog knows: map it in the mapping file's rack_platforms ({network: null} for a "
        "rack without GPU nodes, or a catalog key such as dgx-h100)"
    ]


def test_a_bare_number_with_no_unit_anywhere_names_the_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _workbook(tmp_path / "plan.xlsx")
    mapping = MAPPING.replace("    units: {Design load: Unit}\n", "")
    assert _run(tmp_path, mapping) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 10  # each rack's load cell
    assert err[0] == (
        "dclint import: error: Rack schedule!E2: 40.8: expected a power with its unit: "
        "'40 kW', a unit in the header ('Design load (kW)'), a unit column (units: "
        "{Design load: Unit}) or the column's unit in the mapping file ({column: Design "
        "load, unit: kW})"
    )
    # the unit in the mapping's header string is read
    assert _run(tmp_path, mapping.replace("it_load: Design load", "it_load: Design load (kW)")) == 0
    loads = {
        r.id: r.it_load.m_as("kW") for r in topology_of(load(str(tmp_path / "site.yaml"))).racks
    }
    assert loads["A01"] == pytest.approx(40.8)


def test_footers_skip_rows_and_stop_at_go_on_the_ledger(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "racks.csv").write_text(
        "Rack;Load (kW)\n"
        "r01;40,8\n"
        "r02;40,8\n"
        "spare;0\n"  # row 4: the mapping's skip_rows
        "r03;12\n"
        "Notes;\n"  # row 6: stop_at, and all after it
        "r99;1000\n"
        "\n"
        ";93,6\n",  # after a blank row, a row with no id: a footer
        encoding="utf-8",
    )
    mapping = "sheets: {racks: {decimal: ',', columns: {id: Rack, it_load: Load}, %s}}\n"
    (tmp_path / "map.yaml").write_text(mapping % "skip_rows: [4]", encoding="utf-8")
    args = ["import", "csv", str(tmp_path / "racks.csv"), "--map", str(tmp_path / "map.yaml")]
    ledger = tmp_path / "ledger.json"
    assert main([*args, "-o", str(tmp_path / "a.yaml"), "--ledger", str(ledger)]) == 0
    skipped = json.loads(ledger.read_text(encoding="utf-8"))["rack"]["skipped_objects"]
    # without stop_at, Notes and r99 are racks (Notes, with no load, skipped on the ledger)
    assert [(s["source"], s["reason"]) for s in skipped] == [
        ("racks.csv!A4", "a row the mapping's skip_rows leaves out"),
        ("racks.csv!A6", "no devices and no load"),
        ("racks.csv!A9", "a footer after a blank row"),
    ]
    capsys.readouterr()
    (tmp_path / "map.yaml").write_text(mapping % "skip_rows: [4], stop_at: Notes", encoding="utf-8")
    assert main([*args, "-o", str(tmp_path / "b.yaml"), "--ledger", str(ledger)]) == 0
    skipped = json.loads(ledger.read_text(encoding="utf-8"))["rack"]["skipped_objects"]
    assert [(s["source"], s["reason"]) for s in skipped] == [
        ("racks.csv!A4", "a row the mapping's skip_rows leaves out"),
        ("racks.csv!A6", "a row the mapping's stop_at leaves out"),
        ("racks.csv!A7", "a row the mapping's stop_at leaves out"),
        ("racks.csv!A9", "a row the mapping's stop_at leaves out"),
    ]
    racks = {r.id: r.it_load.m_as("kW") for r in topology_of(load(str(tmp_path / "b.yaml"))).racks}
    assert racks == {"r01": 40.8, "r02": 40.8, "r03": 12.0}
