"""Markdown review: summary figures, grouped findings, projection (stubbed) and assumptions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dclint.analysis.summary import summarise
from dclint.cli import main
from dclint.engine.registry import discover
from dclint.loader import load
from dclint.report.markdown import md, summary_rows
from dclint.units import Q_

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_designs"


def test_summary_figures() -> None:
    s = summarise(load(str(SAMPLES / "gb200-superpod-su.yaml")), None, discover(()))
    assert summary_rows(s) == [
        ("GPUs", "576"),
        ("Racks", "8"),
        ("IT load", "960 kW"),
        ("Facility power (all racks: IT load x PUE 1.15)", "1104 kW"),
        ("Utility capacity", "1500 kW (margin 396 kW)"),
        ("Cooling: liquid heat / CDU capacity", "816 kW / 4000 kW (margin 3184 kW)"),
        ("Highest rack load", "120 kW (su1-r1; limit 120 kW)"),
        (
            "Fabric compute (compute) tier leaf",
            "1.00:1 down:up (230.4 Tb/s / 230.4 Tb/s; limit 1:1)",
        ),
        ("Fabric compute (compute) tier spine", "top tier: 230.4 Tb/s down, no uplinks"),
        ("Storage read (weka)", "400 GB/s against demand 20 GB/s (60 GB/s needed at 3x)"),
    ]
    assert s.feeds[0].share == pytest.approx(120 / 136.5722, rel=1e-5)
    assert [(c.id, c.load.m_as("kW")) for c in s.cdus] == [("cdu-1", 816.0), ("cdu-2", 0.0)]


def test_options_in_effect_change_the_limits() -> None:
    design = load(str(SAMPLES / "broken-fabric-2to1.yaml"))
    from dclint.engine.config import Config, validate_config
    from dclint.engine.registry import discover

    settings = {"NET001": {"limit": 2.5}, "PWR001": {"limit": "140 kW"}}
    s = summarise(design, validate_config(Config(rule_settings=settings), discover()))
    assert {r.limit.m_as("kW") for r in s.rack_loads} == {140.0}
    leaf = next(t for t in s.tiers if t.tier == "leaf")
    assert (leaf.ratio, leaf.limit) == (pytest.approx(2.0), 2.5)


def test_escape() -> None:
    assert md("a|b *c* <d>\n_e_ [f](g) & h") == r"a\|b \*c\* \<d\> \_e\_ \[f\](g) \& h"


def _stub(monkeypatch: pytest.MonkeyPatch) -> None:
    import dclint.analysis.assess.assessment
    from dclint.analysis.assess.assessment import Projected

    class P:
        def as_dict(self) -> dict[str, Any]:
            return {
                "design": "d",
                "workload": "llama-70b-pretrain",
                "flops": 6.4e24,
                "gpus": 576,
                "mfu": 0.4,
                "training_days": 38.25,
                "gpu_hours": 528768.0,
                "energy_mwh": 512.5,
                "currency": "CNY",
                "cost_total": 1.5e8,
                "cost_breakdown": {"energy": 4.1e5, "hardware": Q_(1.4e8, "CNY")},
                "memory_per_gpu_gib": {"total": 61.25},
                "assumptions": ["MFU 40% declared (workload.mfu)"],
            }

    class T:
        def as_dict(self) -> dict[str, Any]:
            return {
                "currency": "CNY",
                "total": 2e8,
                "items": {"hardware": 1.9e8},
                "period_years": 3.0,
                "assumptions": {"period": {"value": "3 years", "source": "default"}},
            }

    # the assessment's projection step, as a projection of these figures would fill it
    stub = Projected((P(),), (("moe", "no GPU"),), T())  # type: ignore[arg-type]
    monkeypatch.setattr(dclint.analysis.assess.assessment, "project", lambda design: stub)


def test_review_sections(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stub(monkeypatch)
    code = main(
        [
            "check",
            str(SAMPLES / "broken-rack-130kw.yaml"),
            "--format",
            "markdown",
            "--select",
            "PWR001,STO001",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("# dclint design review\n\nFound 1 error in 1 design.\n")
    assert "#### Errors (1)\n\n**power**\n\n- " in out
    assert ":53:14 **PWR001** rack-power-over-limit: rack su1-r8 design IT load 130 kW " in out
    assert (
        "| llama-70b-pretrain | 576 | 40% | 38.25 d | 528,768 | 512.5 "
        "| 61.25 (excl. activations: not estimated) | 150,000,000 CNY |"
    ) in out
    assert (
        "Cost breakdown of llama-70b-pretrain: energy 410,000 CNY, hardware 140,000,000 CNY" in out
    )
    # the rows `dclint cost` gives a TCO: the period on the total, an item a row
    assert "| total | 200,000,000 CNY over 3 years |\n| hardware | 190,000,000 CNY |\n" in out
    # a workload's projection lines are the review document's and `dclint cost`'s: the comment
    # (bounded in size) says where they are
    assert "| projection of llama-70b-pretrain | MFU 40% declared (workload.mfu) |" not in out
    assert (
        "Each workload's projection rests on the assumptions `dclint cost DESIGN` and "
        "`dclint review DESIGN` list.\n"
    ) in out
    assert "| projection: period | 3 years | - | default |" in out
    assert "_workload moe not projected: no GPU_" in out
    assert "Training step" not in out  # a projection without a step breakdown draws none
    assert "| PWR001.limit: Highest design IT load of one rack | 120 kW | 120 kW | PWR001: " in out
    assert "NET001.limit" not in out  # only the options of the rules that ran


def test_projection_failure_does_not_crash(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import dclint.projection

    def boom(design: object) -> list[object]:
        raise ZeroDivisionError("no GPUs")

    import dclint.api  # its lazy names keep the first value asked for: patch it first

    for module in (dclint.api, dclint.projection):
        monkeypatch.setattr(module, "project_workloads", boom)
        monkeypatch.setattr(module, "tco", boom)
    assert main(["check", str(SAMPLES / "gb200-superpod-su.yaml"), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "_projection failed: ZeroDivisionError: no GPUs_" in out


def test_warns_past_githubs_comment_limit(capsys: pytest.CaptureFixture[str]) -> None:
    """GitHub refuses a comment of more than 65,536 characters: a longer Markdown report says
    so on stderr and names the summary format; a shorter one says nothing."""
    root = Path(__file__).resolve().parent
    main(
        ["check", str(root / "reference_designs"), "--format", "markdown", "--today", "2026-12-02"]
    )
    out = capsys.readouterr()
    assert len(out.out) > 65_536
    assert out.err == (
        f"dclint: warning: the Markdown report is {len(out.out):,} characters, past GitHub's "
        "65,536-character limit for a comment; post --format markdown-summary instead (the "
        "counts and the top findings)\n"
    )
    main(
        [
            "check",
            str(root.parent / "sample_designs"),
            "--format",
            "markdown",
            "--today",
            "2026-12-02",
        ]
    )
    out = capsys.readouterr()
    assert 0 < len(out.out) <= 65_536
    assert out.err == ""


def test_assumptions_show_options_as_a_config_writes_them() -> None:
    from dclint.library import run
    from dclint.report.assumptions import assumptions

    a = run([str(SAMPLES / "gb200-superpod-su.yaml")]).designs[0]
    rows = {r.item.split(":")[0]: (r.value, r.default) for r in assumptions(a)}
    assert rows["PAR004.reserve"] == ("10%", "10%")  # a parsed share printed '0.1'
    assert rows["NET001.limit"] == ("1:1", "1:1")  # a parsed ratio printed '1'
