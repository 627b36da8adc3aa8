"""A catalog GPU of a known architecture inherits its family's step-model constants (issue 51):
an H100 variant with 96 GB at 500 W, declared in a design's own catalog, is predicted with
Hopper's measured matmul rate, attention efficiency and SMs, and gets Hopper's band; without
`architecture` it has no constants and no prediction, and says so."""

from __future__ import annotations

import pytest

from dclint.loader import load_text
from dclint.projection import project_workloads

DESIGN = """
name: h100-variant
catalog:
  gpus:
    h100-96gb-500w:
      name: H100 96GB at 500 W
      tdp: 500 W
      dense_flops: {{bf16: 989 TFLOPS}}
      hbm: 96 GB
      hbm_bandwidth: 3.35 TB/s
      nvlink_bandwidth: 900 GB/s
{architecture}  platforms:
    node: {{name: node, kind: node, gpu: {gpu}, gpus: 8, nvlink_domain: 8, power: 8 kW}}
workloads:
  - id: llm
    platform: node
    model: {{parameters: 8.03e9, layers: 32, hidden_size: 4096, attention_heads: 32,
            query_groups: 8, ffn_hidden_size: 14336, vocab_size: 128256, swiglu: true}}
    tokens: 1e11
    sequence_length: 8192
    global_batch: 128
    gpus: 64
    parallel: {{tp: 1, pp: 1}}
"""


def _projection(gpu: str, architecture: str) -> dict[str, object]:
    text = DESIGN.format(gpu=gpu, architecture=architecture)
    (p,) = project_workloads(load_text(text))
    return p.as_dict()


def test_a_variant_with_its_architecture_is_predicted_as_its_family() -> None:
    variant = _projection("h100-96gb-500w", "      architecture: hopper\n")
    datasheet = _projection("h100-sxm", "")
    assert variant["prediction_unavailable"] is None
    # same peak, HBM bandwidth and NVLink as the datasheet part: the same step
    assert variant["step_time_predicted_s"] == pytest.approx(
        datasheet["step_time_predicted_s"], rel=1e-12
    )
    band = variant["uncertainty"]
    assert band["in_domain"] is True  # type: ignore[index]
    assert (band["low_factor"], band["high_factor"]) == (0.82, 1.089)  # type: ignore[index]
    assert variant["memory_per_gpu_gib"]["total"] == datasheet["memory_per_gpu_gib"]["total"]  # type: ignore[index]


def test_a_catalog_gpu_without_architecture_says_why_it_is_not_predicted() -> None:
    got = _projection("h100-96gb-500w", "")
    assert got["step_time_predicted_s"] is None
    assert got["prediction_unavailable"] == (
        "no efficiency constants for GPU 'h100-96gb-500w' at bf16"
    )
