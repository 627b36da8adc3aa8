"""`dclint import xlsx|csv`: real workbooks written here with openpyxl (merged cells, empty
rows, formulas with the values a spreadsheet program caches, a sheet in a decimal-comma
locale), imported by the column map and checked; every bad cell reported at its cell."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest

openpyxl = pytest.importorskip("openpyxl", reason="openpyxl is in the test extra")

from dclint.cli import main  # noqa: E402

MAPPING = """\
name: hall1
device_types:
  DGX H100: {kind: gpu_node, platform: dgx-h100}
  QM9700: {kind: switch, switch: qm9700}
roles: {leaf: leaf}
sheets:
  panels:
    sheet: Panels
    columns: {id: Panel, voltage: Voltage, current_rating: Rating, path: Path}
  racks:
    sheet: Elevation
    header_row: 2
    columns: {id: Rack, row: Row}
  feeds:
    sheet: Feeds
    columns: {id: Feed, panel: Panel, rack: Rack, voltage: Voltage,
              current_rating: Breaker, phases: Phases, max_utilisation: Max}
  devices:
    sheet: Geräte
    decimal: ","
    columns: {name: Name, rack: Schrank, type: Modell, role: Rolle, power: Leistung}
"""


def _cache_formula(path: Path, sheet_xml: str, cell: str, cached: str) -> None:
    """Write the value a spreadsheet program caches for a formula (openpyxl leaves it out:
    an Excel-saved file holds `<f>16*2</f><v>32</v>`), by rewriting the sheet's XML."""
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


def _workbook(path: Path, bad: bool = False) -> None:
    wb = openpyxl.Workbook()
    panels = wb.active
    panels.title = "Panels"
    panels.append(["Panel", "Voltage (V)", "Rating (A)", "Path"])
    panels.append(["pp-a", 415, 800, "A"])
    panels.append(["pp-b", "415 V", "800 A", "b"])
    elev = wb.create_sheet("Elevation")
    elev.append(["Hall 1 elevation"])
    elev.merge_cells("A1:B1")  # a title over the table
    elev.append(["Row", "Rack"])
    racks = [f"gpu-r{i:02d}" for i in range(1, 9)] + ["net-r01"]
    for i, rack in enumerate(racks):
        elev.append(["A" if i < 4 else "B", rack])
        if i == 3:
            elev.append([None, None])  # an empty row between the rows of racks
    elev.merge_cells("A3:A6")  # row A written once over its four racks
    elev.merge_cells("A8:A12")
    feeds = wb.create_sheet("Feeds")
    feeds.append(["Feed", "Panel", "Rack", "Voltage", "Breaker (A)", "Phases", "Max"])
    for side in ("a", "b"):
        for i, rack in enumerate(racks, start=1):
            feeds.append(
                [
                    f"pf-{side}{i:02d}",
                    f"pp-{side}",
                    rack,
                    "415 V",
                    100 if rack not in ("gpu-r08", "net-r01") else "=16*2",
                    3,
                    0.8,
                ]
            )
            feeds.cell(feeds.max_row, 7).number_format = "0%"
    if bad:
        feeds["D3"] = "415"  # no unit
        feeds["E4"] = "lots"
        feeds["F5"] = 2
        feeds["G6"] = 1.5  # 150 %
        feeds["D7"] = "415 kW"
    dev = wb.create_sheet("Geräte")
    dev.append(["Name", "Schrank", "Modell", "Rolle", "Leistung (kW)"])
    for rack in racks[:-1]:
        for n in range(1, 5):
            dev.append([f"{rack}-n{n}", rack, "DGX H100", "gpu", None])
    for k in range(1, 9):
        # a German sheet: text with a decimal comma, and a number shown as 1.100,00
        power = "1,1" if k % 2 else 1.1
        dev.append([f"leaf{k}", "net-r01", "QM9700", "leaf", power])
        if k % 2 == 0:
            dev.cell(dev.max_row, 5).number_format = "#.##0,00"
    dev.append(["console1", "net-r01", "CM7200", "console", "0,04"])
    if bad:
        dev["E40"] = "1.1,5"
    wb.save(path)
    sheet = {name: f"xl/worksheets/sheet{i}.xml" for i, name in enumerate(wb.sheetnames, 1)}
    # the formula cells of gpu-r08 and net-r01's feeds, as Excel would have saved them
    for row in (9, 10, 18, 19):
        _cache_formula(path, sheet["Feeds"], f"E{row}", "32")


def _run(tmp_path: Path, *args: str) -> int:
    (tmp_path / "map.yaml").write_text(MAPPING, encoding="utf-8")
    return main(
        ["import", *args, "--map", str(tmp_path / "map.yaml"), "-o", str(tmp_path / "site.yaml")]
    )


def test_workbook_imports_and_checks_with_exact_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _workbook(tmp_path / "plan.xlsx")
    assert _run(tmp_path, "xlsx", str(tmp_path / "plan.xlsx")) == 0
    text = (tmp_path / "site.yaml").read_text(encoding="utf-8")
    err = capsys.readouterr().err
    assert err.count("unmapped type CM7200: 1") == 1  # on the ledger's device line, once
    assert "hint: name device type CM7200 in the mapping file's device_types" in err
    assert "    - id: pp-b  # plan.xlsx Panels!A3\n      voltage: 415 V\n" in text
    # the merged Row cells hold over their racks; the empty row is skipped
    assert (
        "racks:\n"
        "  - id: gpu-r[01-04]  # plan.xlsx Elevation!B3:B6\n"
        "    type: dgx-h100-x4\n"
        "    feeds: [pf-a$n, pf-b$n]\n"
        "    row: A\n"
        "  - id: gpu-r[05-08]  # plan.xlsx Elevation!B8:B11\n"
    ) in text
    # the cached formula value (32 A); the decimal-comma powers: 8 x 1.1 kW
    assert "    - id: pf-a[08-09]  # plan.xlsx Feeds!A9:A10\n" in text
    assert "      current_rating: 32 A\n" in text
    assert "  - id: net-r01  # plan.xlsx Elevation!B12\n    it_load: 8.8 kW\n" in text
    capsys.readouterr()
    assert main(["check", str(tmp_path / "site.yaml"), "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)["designs"][0]["findings"]
    # each names the cell it came from: the client fixes the sheet, not the YAML
    assert sorted((f["rule"], f["subject"], f["origin"]) for f in found) == [
        ("PWR003", "pf-a08", "plan.xlsx Feeds!A9"),
        ("PWR003", "pf-b08", "plan.xlsx Feeds!A18"),
        ("PWR004", "gpu-r08", "plan.xlsx Elevation!B11"),
    ]


def test_every_bad_cell_is_reported_at_its_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _workbook(tmp_path / "plan.xlsx", bad=True)
    assert _run(tmp_path, "xlsx", str(tmp_path / "plan.xlsx")) == 2
    assert not (tmp_path / "site.yaml").exists()
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "dclint import: error: Feeds!D3: '415': expected a voltage with its unit, e.g. '415 V'",
        "dclint import: error: Feeds!E4: 'lots': expected a current, e.g. '63 A'",
        "dclint import: error: Feeds!F5: 2: expected 1 or 3 phases",
        "dclint import: error: Feeds!G6: 1.5: expected a utilisation in percent, e.g. 80%",
        "dclint import: error: Feeds!D7: '415 kW': expected a voltage, e.g. '415 V'",
        "dclint import: error: Geräte!E40: '1.1,5': expected a power, e.g. '1.2 kW'",
    ]


def test_bad_cells_beyond_the_cap_are_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = "".join(f"r{i};{i} bananas\n" for i in range(1, 301))
    (tmp_path / "racks.csv").write_text("Rack;Load\n" + rows, encoding="utf-8")
    (tmp_path / "map.yaml").write_text(
        "sheets: {racks: {columns: {id: Rack, it_load: Load}}}\n", encoding="utf-8"
    )
    code = main(["import", "csv", str(tmp_path / "racks.csv"), "--map", str(tmp_path / "map.yaml")])
    assert code == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 201
    # in reading order, the first 200, then a count
    assert (
        err[0] == "dclint import: error: racks.csv!B2: '1 bananas': expected a power, e.g. '40 kW'"
    )
    assert err[199].startswith("dclint import: error: racks.csv!B201: '200 bananas'")
    assert err[-1] == "dclint import: error: ... and 100 more"


def test_csv_files_with_a_decimal_comma(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "racks.csv").write_text(
        "Rack;Platform;Nodes;Load (kW)\nr01;dgx-h100;4;\nr02;dgx-h100;4;\n\nr03;;;12,5\n",
        encoding="utf-8",
    )
    (tmp_path / "map.yaml").write_text(
        "sheets:\n  racks:\n    decimal: ','\n"
        "    columns: {id: Rack, platform: Platform, nodes: Nodes, it_load: Load}\n",
        encoding="utf-8",
    )
    code = main(["import", "csv", str(tmp_path / "racks.csv"), "--map", str(tmp_path / "map.yaml")])
    out = capsys.readouterr().out
    assert code == 0
    assert (
        "racks:\n"
        "  - id: r[01-02]  # racks.csv!A2:A3\n"
        "    type: dgx-h100-x4\n"
        "  - id: r03  # racks.csv!A5\n"
        "    it_load: 12.5 kW\n"
    ) in out
