"""`dclint capacity` and the facility behind the rack (issue 32): UPS systems with their spare
modules out, catchers, transformers carrying the UPS losses, generator sets (IT x PUE with the
spare sets out), CDU facility water, air handlers and the floor, each with exact numbers, and
what lifts the one that binds first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_power_oneline import CHAIN

from conftest import EXAMPLES
from dclint.cli import main

GB200 = "gb200-nvl72"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["capacity", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _limits(data: dict[str, Any]) -> dict[tuple[str, str], tuple[int | None, str]]:
    return {(x["limit"], x["subject"]): (x["racks"], x["detail"]) for x in data["limits"]}


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "d.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_the_chain_above_the_template_rack(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _run(capsys, _write(tmp_path, CHAIN), "--add", GB200)
    got = _limits(data)
    # ups-a: 5 of 6 x 250 kVA x 0.95 = 1,187.5 kW - 8 x 132 kW = 131.5 kW < 132 kW a rack
    assert got[("UPS (PWR009)", "ups-a")] == (
        0,
        "1188 kW (frame 1250 kVA x PF 0.95; 6 modules of 250 kVA in N+1: 5 carry the load) - "
        "1056 kW carried at peak = 131.5 kW; 132 kW a rack",
    )
    # tx-a: 2,375 kW - (1,056 + 528) / 0.96 = 725 kW; 132 / 0.96 = 137.5 kW a rack -> 5
    assert got[("transformer (PWR011)", "tx-a")] == (
        5,
        "2375 kW (nameplate 2500 kVA x PF 0.95) - 1650 kW carried at peak = 725 kW; 137.5 kW a "
        "rack (1 / 0.96 UPS efficiency below)",
    )
    assert got[("transformer (PWR011)", "tx-b")][0] == 9  # (2,375 - 1,100) / 137.5 = 9.27
    # 2 of 3 x 2,000 kVA x 0.8 = 3,200 kW - 1,584 kW x 1.2 = 1,299.2 kW; 132 x 1.2 = 158.4 a rack
    assert got[("generation (PWR012)", "gen")] == (
        8,
        "2 of 3 x 2000 kVA = 3200 kW firm - 1584 kW IT at peak x PUE 1.2 = 1299 kW; 158.4 kW a "
        "rack (x PUE)",
    )
    binding = {(b["limit"], b["subject"]): b["lift"] for b in data["binding"]}
    # the frame binds as much as the modules do: one more module lifts nothing
    assert binding[("UPS (PWR009)", "ups-a")] == (
        "a larger UPS frame: its 1188 kW binds; 132 kW a rack"
    )
    # the PWR002 line no longer folds the UPS and transformers in (they have their own lines)
    assert "ups-" not in got[("power headroom (PWR002)", "path A")][1]
    assert "tx-" not in got[("power headroom (PWR002)", "path A")][1]


def test_one_more_ups_module_lifts_n_plus_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 4 of 5 x 250 kVA x 0.95 = 950 kW - 6 x 132 kW = 158 kW -> 1 rack; a sixth module: 5 carry
    # 1,187.5 kW, 395.5 kW free -> 2 racks: +1
    design = """\
name: n1
power:
  ups:
    - {id: ups-a, rating: 2000 kVA, module_rating: 250 kVA, modules: 5, redundant_modules: 1}
  panels:
    - {id: bus-a, kind: busway, fed_by: ups-a, voltage: 415 V, current_rating: 4000 A}
  feeds:
    - {id: 'a[1-6]', panel: bus-a, voltage: 415 V, current_rating: 250 A}
racks:
  - {id: 'r[1-6]', platform: gb200-nvl72, feeds: [a$n]}
cooling:
  cdus: [{id: c1, capacity: 2000 kW, max_flow: 4000 L/min}]
  loops:
    - {id: l1, cdu: c1, supply_temperature: 32 degC, return_temperature: 42 degC, racks: ['r[1-6]']}
"""
    data = _run(capsys, _write(tmp_path, design), "--add", GB200)
    assert data["racks"] == 1
    assert data["binding"] == [
        {
            "limit": "UPS (PWR009)",
            "subject": "ups-a",
            "lift": "+1 module of 250 kVA (237.5 kW): +1 rack",
        }
    ]


def test_a_catcher_carries_the_ups_it_takes_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = """\
name: catcher
power:
  ups:
    - {id: ups-1, rating: 1250 kVA}
    - {id: ups-c, rating: 625 kVA, catches: [ups-1]}
  panels:
    - {id: bus-1, kind: busway, fed_by: ups-1, voltage: 415 V, current_rating: 4000 A}
  feeds:
    - {id: 'c[1-4]', panel: bus-1, voltage: 415 V, current_rating: 250 A}
racks:
  - {id: 'p[1-4]', platform: gb200-nvl72, feeds: [c$n]}
"""
    got = _limits(_run(capsys, _write(tmp_path, design), "--add", GB200))
    assert got[("UPS (PWR009)", "ups-1")][0] == 4  # (1,187.5 - 528) / 132 = 4.99
    # 625 kVA x 0.95 = 593.75 kW - 528 kW of ups-1 = 65.75 kW < 132 kW
    assert got[("catcher UPS (PWR009)", "ups-c")] == (
        0,
        "593.8 kW - its own 0 kW - ups-1's 528 kW it takes over = 65.75 kW; 132 kW a rack",
    )


def test_design_load_options_load_the_chain_with_the_design_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".dclint.yaml").write_text(
        "PWR009: {design_load: true}\nPWR011: {design_load: true}\nPWR012: {design_load: true}\n",
        encoding="utf-8",
    )
    got = _limits(_run(capsys, _write(tmp_path, CHAIN), "--add", GB200))
    # 1,187.5 - 8 x 120 = 227.5 kW; 120 kW a rack -> 1
    assert got[("UPS (PWR009)", "ups-a")][0] == 1
    # 2,375 - 1,440 / 0.96 = 875 kW; 125 kW a rack -> 7
    assert got[("transformer (PWR011)", "tx-a")][0] == 7
    # 3,200 - 1,440 x 1.2 = 1,472 kW; 144 kW a rack -> 10
    assert got[("generation (PWR012)", "gen")][0] == 10


def test_the_floor_limit_reads_the_floor_rules_footprint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 1,360 kg on 2 m^2 = 6.67 kN/m^2, within str001/bad.yaml's 250 lbf/ft^2 (11.97 kN/m^2)
    (tmp_path / "d.yaml").write_text(
        (EXAMPLES / "str001" / "bad.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (tmp_path / ".dclint.yaml").write_text("STR001: {footprint: 2 m^2}\n", encoding="utf-8")
    got = _limits(_run(capsys, str(tmp_path / "d.yaml"), "--add", GB200))
    assert got[("floor load (STR001)", "hall raised")] == (
        None,
        "1360 kg on 2 m^2 = 6.669 kN/m^2, within 250 lbf/ft^2",
    )


def test_generator_serving_one_path(capsys: pytest.CaptureFixture[str]) -> None:
    data = _run(capsys, str(EXAMPLES / "pwr012" / "good.yaml"), "--add", GB200)
    got = _limits(data)
    # gen-b serves bus-b: 1,280 kW firm - 1,056 x 1.2 = 12.8 kW < 158.4 kW
    assert got[("generation (PWR012)", "gen-b")][0] == 0
    assert got[("generation (PWR012)", "gen")][0] == 12  # (3,200 - 1,267.2) / 158.4 = 12.2
    lifts = {b["subject"]: b["lift"] for b in data["binding"]}
    # one more 640 kW set: 652.8 kW free -> 4 racks
    assert lifts["gen-b"] == "+1 generator of 640 kW (640 kW site rating): +4 racks"


def test_cdu_facility_flow(capsys: pytest.CaptureFixture[str]) -> None:
    data = _run(capsys, str(EXAMPLES / "clg007" / "good.yaml"), "--add", GB200)
    got = _limits(data)
    # cdu-1: 800 kW at 10 K in water needs 1,151.8 L/min of its 1,152; a 102 kW rack 146.9
    # cdu-2: 400 kW in PG25 needs 599.4 L/min of 600; 152.8 a rack. cdu-3 declares no rise.
    assert got[("CDU facility flow (CLG007)", "all")] == (
        0,
        "cdu-1: 1152 L/min - 1152 L/min = 0.2193 L/min, 146.9 L/min a rack at 10 K rise -> 0; "
        "cdu-2: 600 L/min - 599.4 L/min = 0.6413 L/min, 152.8 L/min a rack at 10 K rise -> 0; "
        "facility flow Q / (rho cp dT)",
    )
    assert data["binding"][0]["limit"] == "CDU facility flow (CLG007)"


def test_air_handlers_heat_and_airflow(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / "clg010" / "good.yaml")
    data = _run(capsys, path, "--add", GB200, "--set", "site.halls.h1.air_handlers.count=4")
    got = _limits(data)
    # 3 of 4 x 72 kW = 216 kW - 8 x 18 kW to air = 72 kW; 18 kW a rack -> 4
    assert got[("air handlers (CLG010)", "hall h1")] == (
        4,
        "3 of 4 x 72 kW = 216 kW - 144 kW to air = 72 kW; 18 kW a rack to air",
    )
    # 3 x 12,700 CFM = 17.98 m^3/s; 144 kW / (1.2 x 1.006 x 10 K) = 11.93; 1.491 a rack -> 4
    assert got[("air handler airflow (CLG010)", "hall h1")][0] == 4
    full = _limits(_run(capsys, path, "--add", GB200))
    assert full[("air handlers (CLG010)", "hall h1")] == (
        0,
        "2 of 3 x 72 kW = 144 kW - 144 kW to air = 0 kW; 18 kW a rack to air",
    )


def test_floor_load_is_a_per_rack_limit(capsys: pytest.CaptureFixture[str]) -> None:
    bad = _limits(_run(capsys, str(EXAMPLES / "str001" / "bad.yaml"), "--add", GB200))
    assert bad[("floor load (STR001)", "hall raised")] == (
        0,
        "1360 kg on 0.72 m^2 = 18.52 kN/m^2, above 250 lbf/ft^2",
    )
    good = _limits(_run(capsys, str(EXAMPLES / "str001" / "good.yaml"), "--add", GB200))
    assert good[("floor load (STR001)", "hall slab")][0] is None


def test_the_text_says_what_lifts_the_binding_limit(capsys: pytest.CaptureFixture[str]) -> None:
    from conftest import SAMPLES

    assert main(["capacity", str(SAMPLES / "gb200-superpod-su.yaml"), "--add", GB200]) == 0
    out = capsys.readouterr().out
    assert out.endswith(
        "What lifts it:\n"
        "  power headroom (PWR002) path A: +1 busway like busway-a (1093 kW derated, PWR002's "
        "headroom kept): +8 racks\n"
        "  panel rating (PWR008) path A: +1 busway like busway-a (1093 kW derated): +8 racks\n"
        "  power headroom (PWR002) path B: +1 busway like busway-b (1093 kW derated, PWR002's "
        "headroom kept): +8 racks\n"
        "  panel rating (PWR008) path B: +1 busway like busway-b (1093 kW derated): +8 racks\n"
        "  fabric ports compute.leaf: +3 leaf switches (32 downlinks each, 72 NICs a rack): "
        "+1 rack\n"
    )


def test_the_arithmetic_says_what_each_total_includes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fabric = (
        "fabrics:\n  - id: compute\n    kind: compute\n    racks: ['r[1-8]']\n    tiers:\n"
        "      - {name: leaf, switch: qm9700, count: 8, downlinks: 32, uplinks: 32}\n"
        "      - {name: spine, switch: qm9700, count: 4, downlinks: 64}\n"
    )
    got = _limits(_run(capsys, _write(tmp_path, CHAIN + fabric), "--add", GB200))
    note = (
        "fabric switches on the UPS of the racks they serve, pro rata by rack, as no fed_by is "
        "declared"
    )
    # 12 QM9700 x 1.7 kW = 20.4 kW over r1-r8, half a rack's share on each of its UPS; with
    # tx-b (or ups-b) lost ups-a carries every r rack (8 x 132 = 1,056 kW) and all 20.4 kW:
    # 1,187.5 - 1,076.4 = 111.1 kW < 132 kW a rack
    assert got[("UPS (PWR009)", "ups-a")] == (
        0,
        "1188 kW (frame 1250 kVA x PF 0.95; 6 modules of 250 kVA in N+1: 5 carry the load) - "
        f"1076 kW carried at peak (racks 1056 kW + fabric switches 20.4 kW; {note}) = 111.1 kW; "
        "132 kW a rack",
    )
    # tx-a with tx-b lost: (1,076.4 + 528 of ups-c) / 0.96 = 1,671.25 kW, of which the UPS
    # losses are 1,604.4 x (1 / 0.96 - 1) = 66.85 kW; 2,375 - 1,671.25 = 703.75 kW -> 5 racks
    assert got[("transformer (PWR011)", "tx-a")] == (
        5,
        "2375 kW (nameplate 2500 kVA x PF 0.95) - 1671 kW carried at peak (racks 1584 kW + "
        f"fabric switches 20.4 kW + losses of the UPS below 66.85 kW; {note}) = 703.8 kW; "
        "137.5 kW a rack (1 / 0.96 UPS efficiency below)",
    )
    # (1,584 + 20.4) x 1.2 = 1,925.3 kW; 3,200 - 1,925.3 = 1,274.7 kW -> 8 racks of 158.4 kW
    assert got[("generation (PWR012)", "gen")] == (
        8,
        "2 of 3 x 2000 kVA = 3200 kW firm - 1604 kW IT at peak (racks 1584 kW at their peak: "
        "catalog max_power of gb200-nvl72; 12 fabric switches 20.4 kW: fabric compute: 12 x "
        "qm9700 at 1.7 kW (catalog power)) x PUE 1.2 = 1275 kW; 158.4 kW a rack (x PUE)",
    )


def test_cooling_arithmetic_says_what_each_total_includes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = """\
name: cdu-cap
site:
  halls:
    h1: {air_handlers: {capacity: 100 kW, count: 4, redundant: 1}}
racks:
  - {id: 'r[1-4]', platform: gb200-nvl72, hall: h1}
fabrics:
  - id: compute
    kind: compute
    tiers:
      - {name: leaf, switch: qm9700, count: 8, downlinks: 32, uplinks: 32}
      - {name: spine, switch: qm9700, count: 4, downlinks: 64}
cooling:
  cdus:
    - {id: cdu-1, capacity: 1000 kW, max_flow: 2125 L/min, power: 12 kW}
  loops:
    - {id: l1, cdu: cdu-1, supply_temperature: 32 degC, return_temperature: 42 degC,
       racks: ['r[1-4]']}
"""
    got = _limits(_run(capsys, _write(tmp_path, text), "--add", GB200))
    # 4 x 120 kW x 85% = 408 kW of liquid heat + the CDU's 12 kW of pumps = 420 kW;
    # (1,000 - 420) / 102 kW a rack = 5.7 -> 5
    assert got[("CDU capacity", "cdu-1")] == (
        5,
        "cdu-1: 1000 kW - 420 kW (racks 408 kW + CDU pumps 12 kW) = 580 kW -> 5; 102 kW a rack",
    )
    # to air: 4 x 120 x 15% = 72 kW + the fabric's 12 x 1.7 = 20.4 kW (all of it, the racks'
    # hall, pro rata); 3 of 4 x 100 kW = 300 kW; (300 - 92.4) / 18 kW a rack = 11.5 -> 11
    assert got[("air handlers (CLG010)", "hall h1")] == (
        11,
        "3 of 4 x 100 kW = 300 kW - 92.4 kW to air (racks 72 kW + fabric switches 20.4 kW) = "
        "207.6 kW; 18 kW a rack to air",
    )
