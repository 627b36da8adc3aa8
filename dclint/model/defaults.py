"""Defaults the projections and storage rules fall back on (MFU by GPU and precision, checkpoint
bytes per parameter, depreciation, TCO period), each with its source; every use is reported."""

from __future__ import annotations

from dclint.units import Q_, Quantity

__all__ = [
    "AVERAGE_LOAD",
    "CHECKPOINT_BYTES_PER_PARAMETER",
    "DEFAULT_TOP_K",
    "DEPRECIATION",
    "MEMORY_RESERVE",
    "TCO_PERIOD",
    "default_mfu",
]

# Model FLOPs utilisation by (GPU catalog key, precision); "*" is any GPU.
# bf16 40%: Llama 3 405B pre-training reached 38-43% BF16 MFU on 8k-16k H100 (Llama 3 paper),
# and STO001 assumes the same. FP8 and FP4: a lower share of their doubled peaks, because
# attention, norms and communication do not speed up with the GEMMs (dclint assumption; declare
# workload.mfu from a measured run instead).
_MFU: dict[tuple[str, str], tuple[float, str]] = {
    ("*", "bf16"): (0.40, "Llama 3 paper: 38-43% BF16 MFU on H100"),
    ("*", "fp8"): (0.30, "dclint assumption: FP8 MFU against the FP8 peak"),
    ("*", "fp4"): (0.25, "dclint assumption: FP4 MFU against the FP4 peak"),
    ("a100-sxm", "bf16"): (0.45, "Narayanan et al. 2021: 140-163 of 312 TFLOPS on A100"),
}

# Experts each token is routed to when an MoE model does not say: Megatron-Core's
# --moe-router-topk default. The FLOPs count, the memory model and the step model all read it.
DEFAULT_TOP_K = 2

# bf16 weights 2 B + fp32 master weights 4 B + Adam moments 8 B (gradients are not saved).
CHECKPOINT_BYTES_PER_PARAMETER = 14.0
# dclint's own defaults: straight line over 3 years, the short end of the 3-5 year server lives
# cloud providers state, as GPU generations turn over in about two years; TCO over the same term
DEPRECIATION: Quantity = Q_(3.0, "year")
TCO_PERIOD: Quantity = Q_(3.0, "year")
AVERAGE_LOAD: Quantity = Q_(0.8, "dimensionless")  # dclint assumption: 80% of design IT load
# Share of GPU memory a layout's estimate must leave free: what the estimate leaves out (the
# CUDA context, allocator fragmentation, communication buffers). dclint's own default, PAR004's
# and PAR005's `reserve` (their docs give the reasoning); the layout search and its fixes use it.
MEMORY_RESERVE = 0.10


def default_mfu(gpu_key: str, precision: str) -> tuple[Quantity, str]:
    """The default MFU for a GPU and precision, and where it comes from."""
    value, source = _MFU.get((gpu_key, precision)) or _MFU[("*", precision)]
    return Q_(value, "dimensionless"), source
