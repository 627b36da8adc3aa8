"""Shared by test_diff and test_whatif: h100-40node with llm-13b at tp 3, which 320 GPUs do not
split (PAR001), and what `dclint diff` and `check --sweep` say of its projection while that
error stands (JSON `not_meaningful`, the words `dclint cost` and the review use)."""

from __future__ import annotations

from typing import Any

from conftest import SAMPLES

H100 = str(SAMPLES / "h100-40node.yaml")
TP3 = "workloads.llm-13b.parallel.tp=3"
BLOCKED = "not meaningful until PAR001 layout-world-size-mismatch is fixed"


def not_meaningful_at_tp3() -> dict[str, Any]:
    """The JSON `not_meaningful` of h100-40node at tp 3: the reason and the PAR001 finding."""
    return {
        "reason": BLOCKED,
        "rule": "PAR001",
        "file": H100,
        "line": 99,
        "column": 15,
        "message": "workload llm-13b: 320 GPUs are not a multiple of tp 3 x pp 1 x cp 1, so "
        "dp is not a whole number (107)",
    }
