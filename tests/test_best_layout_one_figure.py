"""One best layout, one set of figures: where the design declares its MFU, the review scaled the
best layout to that MFU (6.699 s a step, 9.614 d) while PAR005 and `dclint plan` quoted only the
step model's (4.965 s). All three now read `Plan.used` and label the two: the step model's,
and at your declared MFU."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import EXAMPLES, SAMPLES
from dclint.cli import main

BAD = (EXAMPLES / "par005" / "bad.yaml").read_text(encoding="utf-8")
# the first workload alone (tp 8, micro-batch 1 on 64 H100), declared at 30% MFU
DECLARED = BAD[: BAD.index("  # tp 2, pp 2")].replace(
    "    parallel: {tp: 8, pp: 1}  # expect: PAR005\n",
    "    parallel: {tp: 8, pp: 1}  # expect: PAR005\n    mfu: 30%\n",
)
USED = (
    "at your declared MFU 30%: your layout 9.072 s a step, 13.02 d; the best 6.699 s a step, "
    "MFU 40.63%, 9.614 d (the step model's: 6.723 s and 4.964 s a step, the best at MFU "
    "54.83%, as dclint plan lists them)"
)


def test_plan_finding_and_review_quote_the_same_best_layout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    design = tmp_path / "d.yaml"
    design.write_text(DECLARED, encoding="utf-8")
    assert main(["plan", str(design), "--workload", "tp8-mb1", "--top", "1"]) == 0
    plan = capsys.readouterr().out.splitlines()
    assert USED + "." in plan
    assert (
        "   1   2   1    1   1   1  32   4       none  on      zero2  4.964 s  54.83%"
        in "\n".join(plan)
    )
    assert main(["check", str(design), "--select", "PAR005", "--layout-search"]) == 0  # a warning
    finding = capsys.readouterr().out
    assert (
        "35.4% slower than the best (6.723 s against 4.964 s a step, predicted; calibration "
        "band 0.868-1.266x; at your declared MFU 30%: 9.072 s against 6.699 s); "
    ) in finding
    assert "[the fix saves 3.406 d]" in finding  # 13.02 d - 9.614 d
    review = tmp_path / "r.md"
    assert main(["review", str(design), "-o", str(review)]) in (0, 1)
    text = review.read_text(encoding="utf-8")
    assert (
        "| best | tp 2, pp 1, vpp 1, cp 1, ep 1, dp 32, mb 4 | none | 6.699 s | 40.63% | "
        "9.614 d | - |"
    ) in text
    assert f"as the findings price the gap): {USED}." in text


def test_a_predicted_mfu_has_one_set_of_figures(capsys: pytest.CaptureFixture[str]) -> None:
    """Without a declared MFU the model's figures are the run's: no second pair."""
    assert main(["plan", str(EXAMPLES / "par005" / "bad.yaml"), "--workload", "tp8-mb1"]) == 0
    assert "declared MFU" not in capsys.readouterr().out


def test_plan_json_carries_both(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    design = tmp_path / "d.yaml"
    design.write_text(DECLARED, encoding="utf-8")
    assert main(["plan", str(design), "--workload", "tp8-mb1", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["declared_mfu"] == pytest.approx(0.30)
    best, mine = data["layouts"][0], data["declared"]
    assert round(best["step_time_s"], 3) == 4.964
    assert round(best["at_declared_mfu"]["step_time_s"], 3) == 6.699
    assert round(best["at_declared_mfu"]["days"], 3) == 9.614
    assert mine["at_declared_mfu"]["mfu"] == pytest.approx(0.30, rel=1e-9)


def test_a_declared_mfu_carried_above_what_calibration_measured_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """h100-40node declares 45% where the step model predicts 38.88% for its layout: carried
    to the best layout, the declared MFU gives 61.06%, above the 49% any H100 dense
    calibration run published. plan, its JSON and the review say so, each once."""
    h100 = str(SAMPLES / "h100-40node.yaml")
    assert main(["plan", h100, "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert (
        "MFU 61.06%, 1.29 d (the step model's: 2.625 s and 1.934 s a step, the best at MFU "
        "52.76%, as dclint plan lists them).\n\n"
        "outside what dclint has seen measured: 1 of the layouts listed predicts more than "
        "49% MFU (up to 52.76%), and your declared MFU 45% carried to the best layout comes "
        "to 61.06%; 49% is the best MFU any calibration run of this GPU generation and class "
        "published (megatron-core-0.8-h100: gpt-16b): read them as a ranking, not as a "
        "throughput to expect.\n"
    ) in out
    assert out.count("outside what dclint has seen measured") == 1  # it said it twice
    assert main(["plan", h100, "--top", "1", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    best, mine = data["layouts"][0], data["declared"]
    assert best["at_declared_mfu"]["mfu"] == pytest.approx(0.6106, abs=5e-5)
    assert best["at_declared_mfu"]["above_calibrated_mfu"] is True
    assert mine["at_declared_mfu"]["above_calibrated_mfu"] is False  # 45%
    review = tmp_path / "r.md"
    assert main(["review", h100, "-o", str(review)]) in (0, 1)
    text = review.read_text(encoding="utf-8")
    said = "the best layout's MFU at your declared MFU, 61.06%, is above 49%"
    assert text.count(said) == 1
    assert text.count("outside what dclint has seen measured: 61.06%") == 0
