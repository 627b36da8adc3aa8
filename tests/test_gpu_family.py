"""A catalog GPU of a known architecture inherits its family's step-model constants (issue 51):
an H100 variant with 96 GB at 500 W, declared in a design's own catalog, is predicted with
Hopper's measured matmul rate, attention efficiency and SMs at its own board power (the cube
root of 500 / 700 W), and gets Hopper's band; without `architecture` it has no constants and no
prediction, and says so. A power limit (the GPU's or its platform's) scales the same way."""

from __future__ import annotations

import pytest

from dclint.loader import load_text
from dclint.projection import project_workloads
from dclint.projection.step.records import Machine
from dclint.projection.uncertainty import BANDS

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
    # same peak, HBM bandwidth and NVLink as the datasheet part, at 500 W against the 700 W
    # Hopper's matmul rate is measured at: GEMMs and attention x 0.894, the rest unchanged
    step, full = variant["step_time_predicted_s"], datasheet["step_time_predicted_s"]
    ratio = step / full  # type: ignore[operator]
    assert 1.0 < ratio < 1 / (500 / 700) ** (1 / 3)
    band = variant["uncertainty"]
    assert band["in_domain"] is True  # type: ignore[index]
    # a catalog variant of a known architecture takes its generation's band, Hopper's
    assert (band["low_factor"], band["high_factor"]) == BANDS["hopper"][:2]  # type: ignore[index]
    assert variant["memory_per_gpu_gib"]["total"] == datasheet["memory_per_gpu_gib"]["total"]  # type: ignore[index]


def test_a_catalog_gpu_without_architecture_says_why_it_is_not_predicted() -> None:
    got = _projection("h100-96gb-500w", "")
    assert got["step_time_predicted_s"] is None
    assert got["prediction_unavailable"] == (
        "no efficiency constants for GPU 'h100-96gb-500w' at bf16"
    )


LIMITED = """
name: h100-limited
catalog:
  gpus:
    h100-96gb-500w:
      name: H100 96GB at 500 W
      tdp: 700 W
{limit}      dense_flops: {{bf16: 989 TFLOPS}}
      hbm: 96 GB
      hbm_bandwidth: 3.35 TB/s
      nvlink_bandwidth: 900 GB/s
      architecture: hopper
  platforms:
    node: {{name: node, kind: node, gpu: h100-96gb-500w, gpus: 8, nvlink_domain: 8,
            power: 8 kW{platform_limit}}}
workloads:
  - id: llm
    platform: node
    model: {{parameters: 8.03e9, layers: 32, hidden_size: 4096, attention_heads: 32,
            query_groups: 8, ffn_hidden_size: 14336, vocab_size: 128256, swiglu: true}}
    tokens: 1e11
    sequence_length: 8192
    global_batch: 128
    gpus: 64
    power_basis: gpu_tdp
    parallel: {{tp: 1, pp: 1}}
"""


def _machine(limit: str = "", platform_limit: str = "") -> tuple[Machine, list[str]]:
    from dclint.projection.hardware import hardware_of
    from dclint.projection.predict import inputs

    design = load_text(LIMITED.format(limit=limit, platform_limit=platform_limit))
    wl = design.workloads[0]
    hw = hardware_of(design, wl.platform)
    assert not isinstance(hw, str)
    notes: list[str] = []
    got = inputs(design, wl, hw, notes)
    assert not isinstance(got, str)
    return got[2], notes


def test_a_power_limit_scales_the_tensor_core_rate_by_the_cube_root_of_the_power() -> None:
    """500 W on a 700 W H100: the matmul and attention rates x (5/7)^(1/3) = 0.894; HBM-bound
    kernels and the links keep theirs; the note names the relation."""
    full, _ = _machine()
    capped, notes = _machine(limit="      power_limit: 500 W\n")
    factor = (500 / 700) ** (1 / 3)
    assert capped.matmul_eff == pytest.approx(full.matmul_eff * factor, rel=1e-12)
    assert capped.attention_eff == pytest.approx(full.attention_eff * factor, rel=1e-12)
    assert (capped.hbm_eff, capped.links, capped.peak) == (full.hbm_eff, full.links, full.peak)
    said = [n for n in notes if n.startswith("board power 500 W against the 700 W")]
    assert len(said) == 1 and "tensor-core rate x 0.894" in said[0]


def test_the_platform_s_limit_wins_and_a_limit_at_the_rating_changes_nothing() -> None:
    full, _ = _machine()
    platform, _ = _machine("      power_limit: 500 W\n", ", gpu_power_limit: 600 W")
    assert platform.matmul_eff == pytest.approx(full.matmul_eff * (600 / 700) ** (1 / 3))
    at_rating, _ = _machine(limit="      power_limit: 700 W\n")
    assert at_rating.matmul_eff == full.matmul_eff


def test_a_power_limited_step_is_slower_and_draws_the_limit() -> None:
    text = LIMITED.format(limit="      power_limit: 500 W\n", platform_limit="")
    (capped,) = project_workloads(load_text(text))
    (full,) = project_workloads(load_text(LIMITED.format(limit="", platform_limit="")))
    c, f = capped.as_dict(), full.as_dict()
    ratio = c["step_time_predicted_s"] / f["step_time_predicted_s"]  # type: ignore[operator]
    # GEMMs and attention slow by 1/0.894 = 1.119; the element-wise kernels do not
    assert 1.0 < ratio < 1 / (500 / 700) ** (1 / 3)
    assert c["it_power_kw"] == pytest.approx(64 * 0.5)
    assert f["it_power_kw"] == pytest.approx(64 * 0.7)


def test_a_gb200_limited_to_b200_s_power_keeps_b200_s_measured_rate() -> None:
    """GB200 takes B200's measured matmul rate (measured at 1000 W): a limit of 1100 W is no
    slower; 800 W is (800/1000)^(1/3)."""
    from dclint.projection.efficiency import power_clock

    assert power_clock("gb200", 1200)[0] == 1.0  # type: ignore[index]
    assert power_clock("gb200", 1100)[0] == 1.0  # type: ignore[index]
    assert power_clock("gb200", 800)[0] == pytest.approx(0.8 ** (1 / 3))  # type: ignore[index]
    assert power_clock("mi300x", 500) is None
