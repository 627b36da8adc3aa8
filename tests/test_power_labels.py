"""Two figures, two labels: `dclint cost`'s facility power is the workload's GPUs' share of the
racks x PUE, the review summary's every rack's IT load x PUE. On moe-1.7t-nvl72 they differ
(15,701 kW against 15,732 kW) and each says which it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from dclint.analysis.summary import summarise
from dclint.cli import main
from dclint.engine.registry import discover
from dclint.loader import load
from dclint.report.markdown import summary_rows

MOE = str(Path(__file__).resolve().parent.parent / "sample_designs" / "moe-1.7t-nvl72.yaml")


def test_cost_and_summary_power_say_what_they_are(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cost", MOE]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "power" in line[:40]]
    assert rows[0] == "facility power (workload's GPUs)  15,701 kW"
    summary = dict(summary_rows(summarise(load(MOE), None, discover(()))))
    assert summary["Facility power (all racks: IT load x PUE 1.15)"] == "15,732 kW"
