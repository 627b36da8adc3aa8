"""`dclint cost` says, above its figures, that a projection is no figure while an error says
the design cannot run its workload as stated, in the review's words and from the review's
source of truth (dclint.engine.coverage.blocking over the config's selection)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_published_gpu_hours import BLOOM_RUN

from dclint.cli import main

LINE = (
    "bloom-176b: projection not meaningful until PAR003 layout-not-divisible is fixed: "
    "{path}:24:27: workload bloom-176b: 70 layers do not split over pp 12 stages "
    "(70 = 12 x 5 + 10)"
)


def _bloom(tmp_path: Path) -> Path:
    path = tmp_path / "bloom.yaml"
    path.write_text(BLOOM_RUN, "utf-8")
    return path


def test_cost_says_a_layout_that_does_not_divide(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _bloom(tmp_path)
    assert main(["cost", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == LINE.format(path=path)
    assert lines[2] == "workload                          bloom-176b"
    assert main(["cost", "--format", "json", str(path)]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["not_meaningful"]
    assert entry == {
        "design": "bloom-176b",
        "reason": "not meaningful until PAR003 layout-not-divisible is fixed",
        "rule": "PAR003",
        "file": str(path),
        "line": 24,
        "column": 27,
        "message": "workload bloom-176b: 70 layers do not split over pp 12 stages "
        "(70 = 12 x 5 + 10)",
    }
    assert main(["cost", "--format", "markdown", str(path)]) == 0
    md = capsys.readouterr().out.splitlines()
    assert md[2].startswith(LINE.split("{path}")[0])  # the path's underscores escaped
    assert md[2].endswith(LINE.split("{path}")[1])


def test_cost_follows_the_config_as_the_review_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A config that ignores PAR003 leaves the review's projection a figure: cost says nothing."""
    path = _bloom(tmp_path)
    (tmp_path / ".dclint.yaml").write_text("ignore: [PAR003]\n", "utf-8")
    assert main(["cost", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("workload                          bloom-176b\n")
    assert "not meaningful" not in out
    assert main(["cost", "--format", "json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["not_meaningful"] == []
