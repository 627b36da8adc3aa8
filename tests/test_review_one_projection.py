"""One review, one training time per workload: the projection table, the layout table and the
price of a slow layout all quote the workload's one projection (issue: '136.6 d in one table,
124.9 d (130-240 d) in another, costs 27.8 d against 25.4 d in a third')."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import SAMPLES
from dclint.cli import main
from dclint.report.values import band


def _review(path: Path, tmp_path: Path) -> str:
    out = tmp_path / "review.md"
    main(["review", str(path), "-o", str(out), "--today", "2026-12-06"])
    return out.read_text()


def _row(text: str, first: str) -> list[str]:
    line = next(ln for ln in text.splitlines() if ln.startswith(f"| {first} |"))
    return [cell.strip() for cell in line.strip("|").split("|")]


def _days(cell: str) -> float:
    match = re.match(r"([\d,.]+) d\b", cell)
    assert match is not None, cell
    return float(match.group(1).replace(",", ""))


def test_a_declared_mfu_run_is_quoted_one_way(tmp_path: Path) -> None:
    text = _review(SAMPLES / "broken-fabric-2to1.yaml", tmp_path)
    projected = _row(text, "llama-70b-pretrain")
    declared, best = _row(text, "declared"), _row(text, "best")
    # the projection (declared MFU 40%) and the declared layout's row: one value, one text
    assert projected[2:4] == ["40%", "136.6 d"]
    assert declared[4:7] == ["40%", "136.6 d", "26,163,093 CNY"]
    assert projected[7] == "26,163,093 CNY"
    # the best layout scales the projection by the step model's ratio (5.993 s / 7.481 s)
    assert best[5] == "109.4 d"
    # and PAR005 prices exactly that gap: 136.6 d - 109.4 d (the 2:1 leaf's NET001, an error,
    # ranks first)
    assert _row(text, "1")[3] == "NET001 fabric-oversubscribed"
    summary = _row(text, "2")
    assert summary[3] == "PAR005 layout-slower-than-best"
    assert summary[6] == "27.18 d"
    assert abs(_days(declared[5]) - _days(best[5]) - _days(summary[6])) < 0.1
    # no band where the days are the user's measurement, and a sentence says how they are made
    assert "(" not in declared[5] and "(" not in best[5]
    assert "The table is at the MFU the design declares" in text
    assert "at your declared MFU 40%: your layout " in text


def test_a_predicted_run_is_quoted_one_way_inside_its_band(tmp_path: Path) -> None:
    design = tmp_path / "h100.yaml"
    source = (SAMPLES / "h100-40node.yaml").read_text()
    assert source.count("    mfu: 45%\n") == 1
    design.write_text(source.replace("    mfu: 45%\n", ""))  # the step model predicts the MFU
    text = _review(design, tmp_path)
    projected, declared = _row(text, "llm-13b"), _row(text, "declared")
    assert projected[3] == declared[5] == "2.026 d (1.7-2.6 d)"
    assert projected[2].startswith(declared[4])  # 38.88% both


def test_a_band_is_rounded_outward() -> None:
    # 124.9 d x 1.01-1.88 printed '130-240 d', a band that left its own point outside
    assert band(126.1, 234.8) == "120-240"
    assert band(0.7531, 1.149) == "0.75-1.2"
    assert band(100.0, 190.0) == "100-190"
    assert band(23_921_260 * 1.01, 23_921_260 * 1.88) == "24,000,000-45,000,000"
