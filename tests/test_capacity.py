"""`dclint capacity`: how many more racks fit, and which limit binds first."""

from __future__ import annotations

import json

import pytest

from conftest import SAMPLES
from dclint.cli import main

SU = str(SAMPLES / "gb200-superpod-su.yaml")


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> dict:  # type: ignore[type-arg]
    assert main(["capacity", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _racks(data: dict) -> dict[tuple[str, str], int | None]:  # type: ignore[type-arg]
    return {(lim["limit"], lim["subject"]): lim["racks"] for lim in data["limits"]}


def test_superpod_su_is_full(capsys: pytest.CaptureFixture[str]) -> None:
    data = _run(capsys, SU, "--add", "gb200-nvl72")
    # busway: sqrt(3) x 415 V x 2000 A x 0.95 x 0.8 = 1092.6 kW; 8 x 120 kW = 960 kW allocated;
    #   1092.6 - 960 - 80 kW kept (PWR002) = 52.6 kW < 120 kW -> 0 racks on each path
    # CDU cdu-1: liquid heat 8 x 120 x 0.85 = 816 kW; (2000 - 816) / 102 = 11.6 -> 11
    # flow at dT 10 K: 102 kW / (997 kg/m3 x 4.18 kJ/kg/K x 10 K) = 146.9 L/min a rack, but
    #   each rack is given 150 L/min (CLG003 counts the larger): (2125 - 8 x 150) / 150 = 6.2 -> 6
    # PWR008 at peak: 1092.6 - 8 x 132 kW (catalog max_power) = 36.6 kW < 132 kW -> 0
    # leaf ports: 18 x 32 = 576 downlinks, 576 NICs used -> 0 free -> 0
    # utility as PWR006 counts it: 1500 kW / 1.15 = 1304.3 kW IT; the racks at peak 1056 kW
    #   + 27 QM9700 x 1.7 kW = 1101.9 kW; (1304.3 - 1101.9) / 132 = 1.53 -> 1 (it said 2 on
    #   the design load, (1304.3 - 960) / 120, and a 10th rack fails PWR006: 1571 kW)
    assert _racks(data) == {
        ("rack power limit (PWR001)", "gb200-nvl72"): None,
        ("feeds (new, like the template's)", "path A"): None,
        ("power headroom (PWR002)", "path A"): 0,
        ("panel rating (PWR008)", "path A"): 0,
        ("feeds (new, like the template's)", "path B"): None,
        ("power headroom (PWR002)", "path B"): 0,
        ("panel rating (PWR008)", "path B"): 0,
        ("CDU capacity", "cdu-1"): 11,
        ("CDU flow", "cdu-1"): 6,
        ("fabric ports", "compute.leaf"): 0,
        ("storage bandwidth (STO001)", "workloads"): None,
        ("utility (PWR006)", "site"): 1,
    }
    assert data["racks"] == 0
    assert [(b["limit"], b["subject"]) for b in data["binding"]] == [
        ("power headroom (PWR002)", "path A"),
        ("panel rating (PWR008)", "path A"),
        ("power headroom (PWR002)", "path B"),
        ("panel rating (PWR008)", "path B"),
        ("fabric ports", "compute.leaf"),
    ]
    assert data["rack"] == {
        "it_load_kw": 120.0,
        "gpus": 72,
        "nodes": 1,
        "liquid_heat_kw": 102.0,
        "template": "su1-r1",
    }


def test_bigger_busways_and_leaves_leave_the_utility_binding(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = _run(
        capsys,
        SU,
        "--add",
        "gb200-nvl72",
        "--set",
        "power.panels[0].current_rating=4000 A",
        "--set",
        "power.panels[1].current_rating=4000 A",
        "--set",
        "fabrics[0].tiers[0].count=36",
    )
    # busway 4000 A: 2185.2 kW; (2185.2 - 960 - 80) / 120 = 9.5 -> 9; at peak (PWR008)
    #   (2185.2 - 1056) / 132 = 8.6 -> 8
    # leaves 36 x 32 = 1152 ports - 576 = 576 free / 72 = 8; CDU flow 6; the utility binds:
    #   1304.3 kW - (1056 kW + 45 QM9700 x 1.7 kW = 1132.5 kW) = 171.8 kW / 132 kW -> 1
    racks = _racks(data)
    assert racks[("power headroom (PWR002)", "path A")] == 9
    assert racks[("panel rating (PWR008)", "path A")] == 8
    assert racks[("fabric ports", "compute.leaf")] == 8
    assert data["racks"] == 1
    assert data["binding"] == [
        {
            "limit": "utility (PWR006)",
            "subject": "site",
            "lift": "+151.8 kW of utility capacity (rack load x PUE 1.15): +1 rack",
        }
    ]


def test_air_cooled_nodes(capsys: pytest.CaptureFixture[str]) -> None:
    data = _run(capsys, str(SAMPLES / "b200-1000gpu.yaml"), "--add", "dgx-b200")
    # racks of 2 x 14.3 kW = 28.6 kW, not NVL72-class: no PWR002 reserve;
    # switchboard 4000 A: 2185.2 kW - (62 x 28.6 + 14.3 = 1787.5 kW) = 397.7 / 28.6 = 13.9 -> 13
    # leaves: 32 x 32 = 1024 ports - 1000 NICs = 24 free; 16 NICs a rack -> 1
    # utility: 3000 / 1.3 = 2307.7 kW - (1787.5 + 48 QM9700 x 1.7 kW = 1869.1 kW) = 438.6
    #   / 28.6 = 15.3 -> 15 (the switches are in PWR006's IT load)
    racks = _racks(data)
    assert racks[("power headroom (PWR002)", "path A")] == 13
    assert racks[("panel rating (PWR008)", "path A")] == 13  # max_power is the design load
    assert racks[("CDU", "-")] is None
    assert racks[("utility (PWR006)", "site")] == 15
    assert data["racks"] == 1
    assert data["binding"] == [
        {
            "limit": "fabric ports",
            "subject": "compute.leaf",
            "lift": "+1 leaf switch (32 downlinks each, 16 NICs a rack): +2 racks",
        }
    ]


def test_rack_load_override_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["capacity", SU, "--add", "gb200-nvl72", "--rack-load", "150 kW"]) == 0
    out = capsys.readouterr().out
    # 150 kW > one 250 A feed's 136.6 kW a path, and > PWR001's 120 kW
    assert (
        "feeds (new, like the template's)  path A        0  1 feed like tap-a1: "
        "136.6 kW a path for 150 kW" in out
    )
    assert (
        "Result: 0 more racks (0 GPUs); binding first: rack power limit "
        "(PWR001) gb200-nvl72, feeds (new, like the template's) path A, power "
        "headroom (PWR002) path A, panel rating (PWR008) path A, feeds (new, like the "
        "template's) path B, power headroom (PWR002) path B, panel rating (PWR008) path B, "
        "fabric ports compute.leaf\nWhat lifts it:\n"
    ) in out
    # 150 kW / 136.6 kW = 1.1 -> two feeds a path; a new busway: (1,092.6 - 80) / 150 = 6.75
    assert (
        "  feeds (new, like the template's) path A: 2 feeds like tap-a1 on a path (136.6 kW each) "
        "carry 150 kW\n"
        "  power headroom (PWR002) path A: +1 busway like busway-a (1093 kW derated, PWR002's "
        "headroom kept): +6 racks\n"
    ) in out


def test_unknown_platform_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["capacity", SU, "--add", "gb900"]) == 2
    assert "--add gb900: unknown platform 'gb900'" in capsys.readouterr().err


def test_cdu_flow_counts_what_racks_are_given(capsys: pytest.CaptureFixture[str]) -> None:
    # racks given 200 L/min (above the 146.9 L/min they need): 8 x 200 = 1600 L/min used,
    # a new rack like them takes 200: (2125 - 1600) / 200 = 2.6 -> 2 (needs alone: 6)
    flow = "rack_types.nvl72.coolant_flow=200 L/min"
    data = _run(capsys, SU, "--add", "gb200-nvl72", "--set", flow)
    assert _racks(data)[("CDU flow", "cdu-1")] == 2


def test_fabric_ports_count_storage_and_management_endpoints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 18 leaves x 32 downlinks = 576, all taken by 576 GPU NICs; with the leaf doubled to 64
    # downlinks 576 are free, less 8 storage nodes x 2 ports + 2 UFM = 558, 72 NICs a rack -> 7
    sets = ["fabrics[0].tiers[0].downlinks=64"]
    data = _run(capsys, SU, "--add", "gb200-nvl72", *(f"--set={s}" for s in sets))
    before = _racks(data)[("fabric ports", "compute.leaf")]
    ends = (
        "[{name: weka, role: storage, count: 8, ports: 2}, {name: ufm, role: management, count: 2}]"
    )
    data = _run(
        capsys,
        SU,
        "--add",
        "gb200-nvl72",
        "--set",
        sets[0],
        "--set",
        f"fabrics[0].endpoints={ends}",
    )
    assert (before, _racks(data)[("fabric ports", "compute.leaf")]) == (8, 7)


def test_a_feed_derated_to_nothing_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """It said '1 feeds like a a path (0 kW each) carry 132 kW' (#27's probe)."""
    derated = str(SAMPLES.parent / "tests" / "corpus" / "feed-derated-to-nothing.yaml")
    data = _run(capsys, derated, "--add", "gb200-nvl72")
    lifts = [b["lift"] for b in data["binding"] if b["limit"].startswith("feeds (new")]
    assert lifts == [
        f"feed {f} carries nothing (derated to 0 kW at its ambient): no count of such feeds "
        "carries 132 kW; use conductors rated above its ambient temperature"
        for f in ("a", "b")
    ]


def test_power_capped_racks_count_at_their_design_load(capsys: pytest.CaptureFixture[str]) -> None:
    """A template rack marked power_capped is held to its design IT load by PWR003, PWR006
    and PWR008 (rack_load_kw): new racks like it are too, and the rows say which load."""
    data = _run(capsys, SU, "--add", "gb200-nvl72", "--set", "rack_types.nvl72.power_capped=true")
    got = {(lim["limit"], lim["subject"]): (lim["racks"], lim["detail"]) for lim in data["limits"]}
    assert got[("feeds (new, like the template's)", "path A")] == (
        None,
        "1 feed like tap-a1: 136.6 kW a path for 120 kW",  # not the catalog's 132 kW
    )
    # 1092.6 - 8 x 120 = 132.6 kW -> 1 rack of 120 kW
    assert got[("panel rating (PWR008)", "path A")] == (
        1,
        "busway-a: 1093 kW derated - 960 kW of racks = 132.6 kW -> 1; racks at their design IT "
        "load: power_capped; 120 kW a rack",
    )
    # 1304.3 - (960 + 45.9) = 298.4 kW -> 2 racks of 120 kW (3 would be 1570 kW x PUE)
    assert got[("utility (PWR006)", "site")][0] == 2


def test_a_utility_in_kva_says_its_power_factor(capsys: pytest.CaptureFixture[str]) -> None:
    """1500 kVA was shown as '1425 kW / PUE 1.15' with no word of the kVA or the PF."""
    data = _run(capsys, SU, "--add", "gb200-nvl72", "--set", "site.utility_capacity=1500 kVA")
    (site,) = [lim for lim in data["limits"] if lim["limit"] == "utility (PWR006)"]
    # 1500 kVA x 0.95 = 1425 kW / 1.15 = 1239.1 kW - 1101.9 kW = 137.2 kW -> 1 of 132 kW
    assert (site["racks"], site["detail"].split(" IT - ")[0]) == (
        1,
        "1500 kVA x PF 0.95 = 1425 kW / PUE 1.15 = 1239 kW",
    )
