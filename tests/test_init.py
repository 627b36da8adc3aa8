"""`dclint init`: scaffolds that pass `dclint check` with no findings, never overwriting."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import findings_of
from dclint.cli import main
from dclint.engine.runner import Engine, run
from dclint.loader import load
from dclint.model.resolve import topology_of
from dclint.units import Q_


@pytest.mark.parametrize(
    ("platform", "racks", "nodes"),
    [
        ("gb200-nvl72", 8, None),
        ("gb200-nvl72", 1, None),
        ("gb200-nvl72", 20, None),
        ("gb300-nvl72", 8, None),
        ("hgx-h100", 10, None),
        ("hgx-h100", 10, 2),
        ("dgx-b200", 63, None),
        ("hgx-b300", 4, None),
        ("dgx-h100", 300, None),
        ("dgx-a100", 2, None),
        ("dgx-a100", 40, None),
        ("dgx-b300", 8, None),
        ("dgx-h200", 8, None),
    ],
)
def test_scaffold_checks_clean(
    tmp_path: Path, platform: str, racks: int, nodes: int | None
) -> None:
    out = tmp_path / "design.yaml"
    args = ["init", "--platform", platform, "--racks", str(racks), "--output", str(out)]
    assert main([*args, *(["--nodes", str(nodes)] if nodes else [])]) == 0
    assert findings_of(out) == set()
    design = load(out)
    per_rack = {
        "gb200-nvl72": 72,
        "gb300-nvl72": 72,
        "hgx-h100": 8 * (nodes or 4),
        "dgx-b200": 32,  # four DGX a rack: NVIDIA's DGX SuperPOD reference architecture
        "hgx-b300": 32,
        "dgx-h100": 32,
        "dgx-a100": 32,
        "dgx-b300": 32,
        "dgx-h200": 32,
    }[platform]
    assert topology_of(design).gpus == racks * per_rack
    assert len(topology_of(design).racks) == racks


def test_gb300_design_declares_the_hall_it_needs(tmp_path: Path) -> None:
    """135 kW GB300 NVL72 racks are above PWR001's 120 kW default: the starting design declares
    a hall built for the platform's 142 kW rated maximum (site.rack_power_limit), so it passes
    with nothing suppressed and the figure is there to replace."""
    out = tmp_path / "gb300.yaml"
    assert main(["init", "--platform", "gb300-nvl72", "--racks", "2", "-o", str(out)]) == 0
    assert topology_of(load(out)).racks[0].it_load.m_as("kW") == pytest.approx(135)
    assert "dclint: ignore" not in out.read_text(encoding="utf-8")
    assert load(out).site.rack_power_limit == Q_(142, "kW")
    result = run([str(out)], Engine())
    assert result.designs[0].suppressed == 0 and result.findings == []


def test_never_overwrites_without_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "design.yaml"
    out.write_text("keep me\n", encoding="utf-8")
    assert main(["init", "--platform", "gb200-nvl72", "--racks", "8", "-o", str(out)]) == 2
    assert "exists; pass --force" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "keep me\n"
    assert (
        main(["init", "--platform", "gb200-nvl72", "--racks", "8", "-o", str(out), "--force"]) == 0
    )
    assert out.read_text(encoding="utf-8").startswith("# Starting design: 8 x GB200 NVL72")


def test_stdout_and_bad_platform(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", "--platform", "gb200-nvl72", "--racks", "2"]) == 0
    assert "name: gb200-nvl72-2r\n" in capsys.readouterr().out
    assert main(["init", "--platform", "nope", "--racks", "2"]) == 2
    assert main(["init", "--platform", "gb200-nvl72", "--racks", "0"]) == 2
