"""Efficiency constants of the step-time model, one set per GPU generation and precision, sourced.

Every constant is a fraction of a datasheet peak. None is fitted to a calibration run: the
calibration tests (tests/test_calibration.py) use these values unchanged for every run.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "BLACKWELL",
    "GENERATION",
    "Efficiency",
    "efficiency_for",
]

MAMF = "Bekman, Machine Learning Engineering, 'Maximum Achievable Matmul FLOPS' (MAMF) table"


@dataclass(frozen=True, slots=True)
class Efficiency:
    """Achievable fractions of a GPU's peaks, and where each comes from.

    matmul: large GEMM throughput over the dense peak of the precision (measured MAMF).
    attention: core attention (softmax(QK^T)V) throughput over the same peak.
    hbm: element-wise kernel bandwidth over the HBM peak.
    nvlink: collective bus bandwidth over the NVLink peak per GPU and direction.
    network: collective bus bandwidth over the NIC line rate.
    """

    matmul: float
    attention: float
    hbm: float
    nvlink: float
    network: float
    sources: tuple[tuple[str, str], ...]


# Element-wise kernels stream at best like a copy kernel; a large device copy reaches ~90% of
# HBM peak on H100-class parts (STREAM-style measurements), small normalisation kernels less:
# dclint's own default 0.8 for all generations.
_HBM = (0.8, "dclint's own default: element-wise kernels at 80% of HBM peak (a copy reaches ~90%)")
# NCCL's ring and tree collectives reach about 80% of the link rate as bus bandwidth on large
# messages (nccl-tests busbw on DGX systems); dclint's own default, measure yours with nccl-tests.
_NET = (0.8, "dclint's own default: collective bus bandwidth 80% of link rate (nccl-tests busbw)")

# Flash attention reaches 50-73% of A100's peak forward (Dao 2023, FlashAttention-2) and up to
# 75% of H100's BF16 peak forward (Shah et al. 2024, FlashAttention-3); the backward pass, 2.5x
# the forward FLOPs, runs slower than the forward. dclint takes 50%, the low end, for all.
_ATTENTION = (0.5, "Dao 2023 (FlashAttention-2: 50-73% of A100 peak forward); low end taken")

# (generation, precision) -> (matmul efficiency, its source)
_MATMUL: dict[tuple[str, str], tuple[float, str]] = {
    ("ampere", "bf16"): (0.859, f"{MAMF}: A100 SXM BF16 267.9 of 312 TFLOPS"),
    ("hopper", "bf16"): (0.801, f"{MAMF}: H100 SXM BF16 792.1 of 989 TFLOPS"),
    ("hopper", "fp8"): (0.734, f"{MAMF}: H200 SXM FP8 1453.4 of 1979 TFLOPS"),
    ("blackwell", "bf16"): (0.776, f"{MAMF}: B200 SXM BF16 1745.0 of 2250 TFLOPS"),
    ("blackwell", "fp8"): (0.763, f"{MAMF}: B200 SXM FP8 3432.5 of 4500 TFLOPS"),
    # No published FP4 matmul measurement: dclint assumes the FP8 fraction.
    ("blackwell", "fp4"): (0.763, "dclint's own default: FP4 at the measured B200 FP8 fraction"),
}

# Catalog GPU key -> generation. Blackwell Ultra (B300, GB300) and GB200 share B200's tensor
# cores; their fractions are B200's (dclint's assumption until MAMF is published for them).
GENERATION: dict[str, str] = {
    "a100-sxm": "ampere",
    "a100-sxm-80gb": "ampere",
    "a100-sxm-40gb": "ampere",
    "h100-sxm": "hopper",
    "h800-sxm": "hopper",
    "h200-sxm": "hopper",
    "b200": "blackwell",
    "gb200": "blackwell",
    "b300": "blackwell",
    "gb300": "blackwell",
}
BLACKWELL = "blackwell"


def efficiency_for(gpu_key: str, precision: str) -> Efficiency | None:
    """The constants for a catalog GPU and precision; None for an unknown generation."""
    generation = GENERATION.get(gpu_key)
    if generation is None:
        return None
    matmul = _MATMUL.get((generation, precision))
    if matmul is None:
        return None
    return Efficiency(
        matmul[0],
        _ATTENTION[0],
        _HBM[0],
        _NET[0],
        _NET[0],
        (
            ("matmul", matmul[1]),
            ("attention", _ATTENTION[1]),
            ("hbm", _HBM[1]),
            ("nvlink", _NET[1]),
            ("network", _NET[1]),
        ),
    )
