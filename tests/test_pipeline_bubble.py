"""PAR006 (issue 53, item 3): the pipeline bubble (p - 1) / (v m + p - 1) held against 50%
without the layout search, with its days and money; figures derived here by hand."""

from __future__ import annotations

import json

import pytest

from conftest import EXAMPLES, TODAY
from dclint.cli import main
from dclint.engine.runner import Engine, run

H100_BF16 = 989e12


def test_pp16_with_two_micro_batches_idles_88_percent() -> None:
    found = [
        f
        for f in run([str(EXAMPLES / "par006" / "bad.yaml")], Engine(today=TODAY)).findings
        if f.rule == "PAR006"
    ]
    assert [(f.line, f.measured_text, f.limit_text) for f in found] == [
        (16, "88.24%", "50%"),  # 15 / (2 + 15)
        (24, "53.85%", "50%"),  # 7 / (2 x 3 + 7)
    ]
    steps = 6 * 70e9 * 0.1e12 / (512 * H100_BF16 * 0.40)
    saved = steps * (1 - (1 - 15 / 17) / 0.5) / 86400
    assert f"would take {saved:.4g} d less" in found[0].message
    assert round(saved, 3) == 1.835


def test_bubble_is_priced_by_the_steps_it_idles(capsys: pytest.CaptureFixture[str]) -> None:
    # PAR006 alone: the example's second workload fails PAR003 (cannot run as stated), under
    # which no finding is priced (tests/test_impact.py)
    bad = str(EXAMPLES / "par006" / "bad.yaml")
    main(["check", bad, "--select", "PAR006", "--format", "json"])
    design = json.loads(capsys.readouterr().out)["designs"][0]
    first = next(f for f in design["findings"] if f["rule"] == "PAR006")
    (p, _) = design["projections"]
    running = p["compute_days"] + p["communication_days"]
    lost = p["failure_days"] / running  # failures keep their share of the run (no checkpoint)
    ratio = (1 - 15 / 17) / 0.5
    assert first["impact"]["days"] == pytest.approx(running * (1 - ratio) * (1 + lost), rel=1e-6)


def test_the_layout_search_is_not_needed() -> None:
    """The rule runs under the default config: PAR005's search stays off."""
    result = run([str(EXAMPLES / "par006" / "bad.yaml")], Engine(today=TODAY))
    assert not any(f.rule == "PAR005" for f in result.findings)
    assert sum(f.rule == "PAR006" for f in result.findings) == 2
