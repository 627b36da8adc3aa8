"""A memory figure without activations says so itself, not only in the assumptions: b200-1000gpu
declares no layers or hidden size, so its 45.26 GiB a GPU is weights, gradients and optimizer
only; h100-40node's 12.97 GiB includes them."""

from __future__ import annotations

from pathlib import Path

import pytest

from dclint.cli import main

SAMPLES = Path(__file__).resolve().parent.parent / "sample_designs"


def _line(out: str, start: str) -> str:
    (line,) = [x for x in out.splitlines() if x.startswith(start)]
    return line


def test_cost_memory_says_it_leaves_out_activations(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cost", str(SAMPLES / "b200-1000gpu.yaml")]) == 0
    out = capsys.readouterr().out
    assert _line(out, "memory/GPU").split(None, 1)[1] == (
        "45.26 GiB (excl. activations: not estimated)"
    )
    assert "  - activations not estimated: model layers and hidden_size not declared" in out
    assert main(["cost", str(SAMPLES / "h100-40node.yaml")]) == 0
    assert _line(capsys.readouterr().out, "memory/GPU").split(None, 1)[1] == "12.97 GiB"


def test_review_memory_says_it_leaves_out_activations(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["review", "--format", "markdown", str(SAMPLES / "b200-1000gpu.yaml")]) == 0
    row = _line(capsys.readouterr().out, "| llm-300b | 1,000 |")
    assert row.split(" | ")[6] == "45.26 (excl. activations: not estimated)"
