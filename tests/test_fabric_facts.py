"""Fabric facts the design states, held against each other (issue 53, item 4): NICs a GPU
against the platform's compute ports (NET010), an InfiniBand subnet's LIDs (NET011)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import EXAMPLES, TODAY
from dclint.engine.findings import Finding
from dclint.engine.runner import Engine, run


def _found(path: Path, rule: str) -> list[Finding]:
    result = run([str(path)], Engine(today=TODAY))
    assert not result.errors
    return [f for f in result.findings if f.rule == rule]


def test_two_nics_a_gpu_on_a_dgx_h100_is_16_ports_of_8() -> None:
    (f,) = _found(EXAMPLES / "net010" / "bad.yaml", "NET010")
    assert (f.line, f.path, f.measured_text, f.limit_text) == (
        11,
        "fabrics[0].nics_per_gpu",
        "2",
        "1",
    )
    assert "16 a node of dgx-h100 (8 GPUs), which has 8 compute-fabric ports" in f.message


def test_65536_hcas_and_5120_switches_overflow_one_subnet() -> None:
    """2,048 racks x 4 nodes x 8 GPUs = 65,536 HCA ports; 2,048 + 2,048 + 1,024 switches:
    70,656 LIDs against 0xBFFF = 49,151; ceil(70,656 / 49,151) = 2 subnets."""
    (f,) = _found(EXAMPLES / "net011" / "bad.yaml", "NET011")
    assert 0xBFFF == 49_151
    assert (f.line, f.measured_text, f.limit_text) == (10, "70,656", "49,151")
    assert "at least 2 subnets joined by InfiniBand routers" in f.message
    assert _found(EXAMPLES / "net011" / "good.yaml", "NET011") == []


def test_ethernet_fabrics_have_no_lids(write: Callable[..., Path]) -> None:
    text = (EXAMPLES / "net011" / "bad.yaml").read_text(encoding="utf-8")
    assert _found(write(text.replace("qm9700", "sn5600")), "NET011") == []


def test_subnets_declared_are_each_held_to_the_limit(write: Callable[..., Path]) -> None:
    text = (EXAMPLES / "net011" / "good.yaml").read_text(encoding="utf-8")
    (f,) = _found(write(text.replace("subnets: 2", "subnets: 1")), "NET011")
    assert f.path == "fabrics[0].subnets"


def test_cable_runs_against_the_reach_of_their_medium() -> None:
    """NVIDIA LinkX reaches: passive copper 3 m at 400G and 2 m at 800G, SR 50 m, DR 500 m,
    FR 2 km; each run of the bad example is past its medium's."""
    found = _found(EXAMPLES / "net012" / "bad.yaml", "NET012")
    assert [(f.line, f.measured_text, f.limit_text) for f in found] == [
        (15, "4 m", "3 m"),
        (17, "60 m", "50 m"),
        (19, "600 m", "500 m"),
        (27, "2.5 m", "2 m"),
        (36, "2500 m", "2000 m"),
    ]
    assert "passive copper (dac) at 800 Gb/s" in found[3].message
    assert _found(EXAMPLES / "net012" / "good.yaml", "NET012") == []
