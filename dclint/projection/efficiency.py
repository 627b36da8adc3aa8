"""Efficiency constants of the step-time model, one set per GPU generation and precision, sourced.

Every constant is a fraction of a datasheet peak. None is fitted to a calibration run: the
calibration tests (tests/test_calibration.py) use these values unchanged for every run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dclint.projection.collectives import Links
from dclint.projection.step.records import Machine

__all__ = [
    "ATTENTION_LENGTHS",
    "AT_LAYER",
    "BLACKWELL",
    "CUDNN_SDPA_SOURCE",
    "FP8_CAST_BYTES",
    "FP8_TRANSPOSE_BYTES",
    "FUSED_ATTENTION_SOURCE",
    "FUSED_NARROW_SOURCE",
    "GEMM_GUIDE",
    "GENERATION",
    "GUIDE_LAYER",
    "GUIDE_MS",
    "MXFP8_GEMM_RATE",
    "NARROW_HEAD",
    "SDPA_BLACKWELL",
    "SDPA_NARROW_SOURCE",
    "SDPA_SOURCE",
    "SMS",
    "Efficiency",
    "efficiency_for",
    "guide_layer_seconds",
    "length_factors",
    "machine",
    "narrow",
    "power_clock",
    "tile_share",
]

MAMF = "Bekman, Machine Learning Engineering, 'Maximum Achievable Matmul FLOPS' (MAMF) table"


@dataclass(frozen=True, slots=True)
class Efficiency:
    """Achievable fractions of a GPU's peaks, and where each comes from.

    matmul: GEMM throughput over the dense peak of the precision (measured MAMF, at a layer's
    shapes back to back: AT_LAYER).
    attention: core attention (softmax(QK^T)V) throughput over the same peak.
    hbm: element-wise kernel bandwidth over the HBM peak.
    nvlink: collective bus bandwidth over the NVLink peak per GPU and direction.
    network: collective bus bandwidth over the NIC line rate.
    sms: streaming multiprocessors a GEMM's tiles are scheduled on (wave quantization).
    nvlink_sm_share, network_sm_share: share of the GPU's compute a collective over NVLink or
    the scale-out network takes while it runs under computation (overlapped communication).
    """

    matmul: float
    attention: float
    hbm: float
    nvlink: float
    network: float
    sources: tuple[tuple[str, str], ...]
    sms: int = 0
    nvlink_sm_share: float = 0.0
    network_sm_share: float = 0.0
    fp8_cast_bytes: float = 0.0  # HBM bytes an element of a GEMM operand's cast to FP8
    # of those, the FP8 transpose's, which per-tensor recipes do not write on this GPU
    # (FP8_TRANSPOSE_BYTES on Blackwell in FP8 runs; 0 elsewhere)
    fp8_transpose_free: float = 0.0
    # PyTorch SDPA's flash backend per pass over `attention` (causal forward, forward, backward)
    sdpa: tuple[float, float, float] = (1.0, 1.0, 1.0)
    # Transformer Engine's fused attention (cuDNN) per pass over `attention`, the same passes
    fused_attention: tuple[float, float, float] = (1.0, 1.0, 1.0)
    # the output layer's GEMM rate over `matmul`'s: BF16 in FP8 and FP4 runs (Machine.head_rate)
    head_rate: float = 1.0
    fp4: bool = False  # an FP4 run (Machine.fp4)
    # the two kernels' measured rates by sequence length (length_factors); (): none published
    sdpa_lengths: tuple[tuple[float, ...], ...] = ()
    fused_lengths: tuple[tuple[float, ...], ...] = ()
    # the same at head dim NARROW_HEAD (); (): head dim 128's for every head dim
    sdpa_lengths_narrow: tuple[tuple[float, ...], ...] = ()
    fused_lengths_narrow: tuple[tuple[float, ...], ...] = ()


# Element-wise kernels stream at best like a copy kernel; a large device copy reaches ~90% of
# HBM peak on H100-class parts (STREAM-style measurements), small normalisation kernels less:
# dclint's own default 0.8 for all generations.
_HBM = (0.8, "dclint's own default: element-wise kernels at 80% of HBM peak (a copy reaches ~90%)")
# NCCL's ring and tree collectives reach about 80% of the link rate as bus bandwidth on large
# messages (nccl-tests busbw on DGX systems); dclint's own default, measure yours with nccl-tests.
_NET = (0.8, "dclint's own default: collective bus bandwidth 80% of link rate (nccl-tests busbw)")

# Flash attention reaches 50-73% of A100's peak forward (Dao 2023, FlashAttention-2) and up to
# 75% of H100's BF16 peak forward (Shah et al. 2024, FlashAttention-3); the backward pass, 2.5x
# the forward FLOPs, runs slower than the forward. dclint takes 50%, the low end, for Ampere and
# (dclint's own default, no published Blackwell figure) for Blackwell.
_ATTENTION = (0.5, "Dao 2023 (FlashAttention-2: 50-73% of A100 peak forward); low end taken")
# On Hopper the same FlashAttention-2-class kernels reach 35% of H100's peak (Shah et al. 2024,
# FlashAttention-3, abstract): the rate of the FlashAttention-2 kernels PyTorch runs (SDPA,
# Triton, below); Transformer Engine's fused attention runs cuDNN's faster kernels on Hopper
# (_FUSED_HOPPER).
# On Blackwell, FlashAttention-4 reaches 1,613 TFLOPS BF16 forward on B200 (71% of peak) and is
# up to 1.3x faster than cuDNN 9.13 (Zadouri, Dao et al. 2026, 'FlashAttention-4', arXiv
# 2603.05451), the fused attention Transformer Engine ran in the published Blackwell runs:
# 1613 / 1.3 / 2250 = 55% of B200's peak, taken for the backward too.
_ATTENTION_BLACKWELL = (
    0.551,
    "Zadouri, Dao et al. 2026 (FlashAttention-4): cuDNN 9.13 at about 1,241 TFLOPS on B200 "
    "(FlashAttention-4's 1,613 over its up-to-1.3x lead)",
)
# PyTorch SDPA on Blackwell runs cuDNN's kernels, not FlashAttention-2: TorchTitan puts
# SDPBackend.CUDNN_ATTENTION first on compute capability 10.0 ("Add CuDNN on B200 w/ highest
# priority", ScaledDotProductAttention._init_backend, torchtitan/models/attention.py at
# 6fc499f, the commit of torchao's B200 benchmarks; cuDNN first on every GPU in torchtitan/
# models/common/attention.py at bcc09297a), and PyTorch's own order puts cuDNN first on sm90
# and sm100 once its cuDNN is recent enough (check_prefer_cudnn_attention, aten/src/ATen/
# native/transformers/cuda/sdp_utils.cpp; "[cuDNN][SDPA] Enable cuDNN SDPA by default for SM
# 9.0, SM 10.0", pytorch/pytorch#162073, September 2025). So an sdpa kernel on Blackwell takes
# the generation's cuDNN rate.
SDPA_BLACKWELL = (
    "on Blackwell cuDNN's kernels (TorchTitan puts SDPBackend.CUDNN_ATTENTION first on sm100, "
    "torchtitan/models/attention.py at 6fc499f; PyTorch's own order puts cuDNN first on sm100 "
    "since pytorch/pytorch#162073), at the generation's cuDNN rate"
)
_ATTENTION_HOPPER = (
    0.35,
    "Shah et al. 2024 (FlashAttention-3): FlashAttention-2 at 35% of H100 peak",
)
# The FlashAttention-3 paper's benchmarks (Shah et al. 2024, sec. 4.1, Fig. 5 forward and Fig. 6
# backward: H100 80GB SXM5, head dim 128, hidden 2,048, batch x length 16K tokens) measure
# FlashAttention-2 (the kernels PyTorch SDPA's flash backend bundles) and cuDNN's fused attention
# (Transformer Engine's on Hopper) per pass and sequence length: TFLOPS at 512, 1K, 2K, 4K, 8K
# and 16K tokens, for the causal forward, the forward without the mask and the backward. At 16K
# FlashAttention-2 runs 335, 370 and 322 against the 35% (346 TFLOPS) of the abstract that
# Hopper's attention efficiency is, and cuDNN 539, 595 and 516, 1.6x FlashAttention-2 in each
# pass. A pass takes the time factor of its 16K rate over that efficiency (Machine.sdpa,
# Machine.fused_attention; PyTorch's context parallel runs one causal block and c - 1 unmasked
# ones a rank), times the 16K rate over the rate at the rank's sequence share (length_factors:
# interpolated in log length, held at 512 and 16K). Most passes run below their 16K rate on
# shorter sequences (FlashAttention-2's causal forward 298 TFLOPS at 2K); cuDNN's unmasked
# forward peaks at 2K (617). No per-pass figure for the other generations: their rate
ATTENTION_LENGTHS: tuple[int, ...] = (512, 1024, 2048, 4096, 8192, 16384)
_FA2_H100_BY_LENGTH: tuple[tuple[float, ...], ...] = (
    (191.0, 260.0, 298.0, 319.0, 333.0, 335.0),
    (309.0, 350.0, 362.0, 368.0, 370.0, 370.0),
    (214.0, 260.0, 291.0, 310.0, 318.0, 322.0),
)
_CUDNN_H100_BY_LENGTH: tuple[tuple[float, ...], ...] = (
    (315.0, 410.0, 484.0, 518.0, 529.0, 539.0),
    (497.0, 574.0, 617.0, 609.0, 600.0, 595.0),
    (305.0, 408.0, 465.0, 499.0, 518.0, 516.0),
)
# The same figures' head dim 64 panels (Fig. 5 and 6, head dim 64, the same lengths): both
# kernels run slower there (cuDNN's unmasked forward 413 TFLOPS at 16K against 595). A model of
# head dim 64 or less takes them, any other head dim head dim 128's; the time factors stay over
# head dim 128's 16K rates, the ones Hopper's per-pass factors are built on
_FA2_H100_HD64_BY_LENGTH: tuple[tuple[float, ...], ...] = (
    (180.0, 229.0, 262.0, 284.0, 295.0, 299.0),
    (282.0, 306.0, 318.0, 321.0, 322.0, 324.0),
    (198.0, 238.0, 264.0, 279.0, 287.0, 291.0),
)
_CUDNN_H100_HD64_BY_LENGTH: tuple[tuple[float, ...], ...] = (
    (225.0, 288.0, 334.0, 363.0, 379.0, 388.0),
    (335.0, 373.0, 395.0, 408.0, 412.0, 413.0),
    (266.0, 348.0, 395.0, 417.0, 432.0, 433.0),
)
NARROW_HEAD = 64  # the head dim of the narrow panels: a head this wide or narrower takes them


def narrow(head: float) -> bool:
    """Whether attention heads `head` wide take the narrow panels (NARROW_HEAD or narrower)."""
    return head <= NARROW_HEAD


_FA2_H100 = _ATTENTION_HOPPER[0] * 989.0  # TFLOPS: 35% of H100 SXM's dense BF16 peak


def _rates_text(rates: tuple[tuple[float, ...], ...], head: int = 128) -> str:
    """'335 TFLOPS forward with the causal mask, ...' at 16K and the rates at 2K, from `rates`
    (the panel of head dim `head`)."""
    at = {n: tuple(f"{row[i]:g}" for row in rates) for i, n in enumerate(ATTENTION_LENGTHS)}
    c16, f16, b16 = at[16384]
    c2, f2, b2 = at[2048]
    return (
        f"{c16} TFLOPS forward with the causal mask, {f16} without, {b16} backward (head dim "
        f"{head}, 16K); at a run's sequence length its rate by length (Fig. 5 and 6, 512 to 16K "
        f"tokens: {c2}, {f2} and {b2} at 2K), interpolated in log length"
    )


def _factors(rates: tuple[tuple[float, ...], ...]) -> tuple[float, float, float]:
    """Each pass's time at its 16K rate over Hopper's attention efficiency's."""
    causal, full, backward = (_FA2_H100 / row[-1] for row in rates)
    return causal, full, backward


_SDPA_HOPPER: tuple[tuple[float, float, float], str] = (
    _factors(_FA2_H100_BY_LENGTH),
    "Shah et al. 2024 (FlashAttention-3, sec. 4.1): FlashAttention-2 measured on H100 at "
    + _rates_text(_FA2_H100_BY_LENGTH),
)
SDPA_SOURCE = _SDPA_HOPPER[1]
# Transformer Engine runs core attention in cuDNN's fused kernels on Hopper and later when both
# they and FlashAttention support the call ("Disabling FlashAttention to give FusedAttention
# preference on Hopper+ for performance reasons": get_attention_backend, transformer_engine/
# pytorch/attention/dot_product_attention/utils.py; NeMo's docs: "Transformer Engine prefers
# cuDNN flash attention on Hopper+ architectures"), at cuDNN's rates above. Blackwell's rate is
# already cuDNN's (FlashAttention-4's figure above); on Ampere Transformer Engine keeps
# FlashAttention-2 (the preference is sm90+).
_FUSED_HOPPER: tuple[tuple[float, float, float], str] = (
    _factors(_CUDNN_H100_BY_LENGTH),
    "cuDNN's kernels measured on H100 at "
    + _rates_text(_CUDNN_H100_BY_LENGTH)
    + " (Shah et al. 2024, FlashAttention-3 sec. 4.1)",
)
FUSED_ATTENTION_SOURCE = (
    "Transformer Engine's fused attention in cuDNN on Hopper (get_attention_backend prefers it "
    f"on sm90+): {_FUSED_HOPPER[1]}"
)
# what the notes add for a model whose heads are NARROW_HEAD wide or narrower, by kernel
SDPA_NARROW_SOURCE = (
    f"its heads {NARROW_HEAD} wide or narrower, at the head dim {NARROW_HEAD} panel's rates: "
    + _rates_text(_FA2_H100_HD64_BY_LENGTH, NARROW_HEAD)
)
FUSED_NARROW_SOURCE = (
    f"its heads {NARROW_HEAD} wide or narrower, at the head dim {NARROW_HEAD} panel's rates: "
    + _rates_text(_CUDNN_H100_HD64_BY_LENGTH, NARROW_HEAD)
)
# PyTorch SDPA's cuDNN backend (attention_kernel cudnn) runs the same kernels
CUDNN_SDPA_SOURCE = (
    "PyTorch SDPA's cuDNN attention (first on sm90 and sm100 once PyTorch's cuDNN is above "
    "9.15: check_prefer_cudnn_attention in sdp_utils.cpp, torch 2.10 and later): "
    f"{_FUSED_HOPPER[1]}"
)


def length_factors(
    rates: tuple[tuple[float, ...], ...],
    length: float,
    panel: tuple[tuple[float, ...], ...] = (),
    head: float = NARROW_HEAD,
) -> tuple[float, ...]:
    """Each pass's time at `length` tokens over its time at `rates`' 16K rate (TFLOPS by pass
    at ATTENTION_LENGTHS), at `panel`'s rates (the narrow heads' panel) where heads `head`
    wide are `narrow` (a panel given without a width is taken), at `rates`' otherwise:
    interpolated in log length, held at 512 and 16K. No rates: 1."""
    if not rates:
        return (1.0, 1.0, 1.0)
    measured = panel if panel and narrow(head) else rates
    lengths = ATTENTION_LENGTHS
    x = min(max(float(length), lengths[0]), lengths[-1])
    i = 0
    while i < len(lengths) - 2 and x >= lengths[i + 1]:
        i += 1
    w = math.log(x / lengths[i]) / math.log(lengths[i + 1] / lengths[i])
    return tuple(
        base[-1] / (row[i] + (row[i + 1] - row[i]) * w)
        for base, row in zip(rates, measured, strict=True)
    )


# Overlapped communication is not free: NCCL moves NVLink traffic with SM load/store loops and
# reduces on SMs, so the GEMMs it runs under lose that share of the GPU; over InfiniBand the NIC
# does the DMA and little is lost. Calculon's published system files (Isaev et al. SC23,
# systems/a100_80g.json and h100_80g_nvl8.json, "processor_usage") charge 15% for NVLink
# collectives and 2% for the network ones.
_SM_SHARE = (0.15, 0.02, "Calculon system files: overlapped NVLink 15%, network 2% of compute")

# SMs per GPU (vendor whitepapers: A100 108, H100/H200/H800 SXM 132, B200 148; GB200, B300 and
# GB300 taken as B200). GEMM output tiles are scheduled on them in waves (NVIDIA, 'Matrix
# Multiplication Background User's Guide': tile and wave quantization).
SMS: dict[str, int] = {"ampere": 108, "hopper": 132, "blackwell": 148}
# The guide's most efficient tile is 256 x 128 (either orientation); cuBLAS picks per shape.
_TILES = ((128, 256), (256, 128))


def tile_share(rows: float, cols: float, sms: int, groups: float = 1.0) -> float:
    """Useful share of the tile slots a GEMM output of `rows` x `cols` (per group, `groups`
    of them in one grouped GEMM) occupies: tiles padded to whole tiles and waves of `sms`
    tiles (tile and wave quantization). 1.0 with `sms` 0 (quantization not modelled)."""
    if sms <= 0 or rows <= 0 or cols <= 0:
        return 1.0
    best = 0.0
    for tm, tn in _TILES:
        tiles = groups * -(-rows // tm) * -(-cols // tn)
        waves = -(-tiles // sms)
        share = groups * rows * cols / (waves * sms * tm * tn)
        if share > best:
            best = share
    return best


# (generation, precision) -> (measured large-GEMM rate in TFLOPS, the dense peak of the part
# it was measured on, the source). A GPU's matmul efficiency is the measured rate over ITS
# datasheet peak: GB200 and GB300 carry B200's tensor cores and have no public MAMF figure, so
# they get B200's measured rate, which is 70% of GB200's higher (power-envelope) datasheet peak
# rather than B200's 78% of its own. The FP8 rates are `torch._scaled_mm` at its default
# `use_fast_accum=False` (mamf-finder.py as of the measurements, stas00/ml-engineering da5eec5:
# `torch._scaled_mm(A, B, scale, scale)`): cuBLAS promoting its accumulators to fp32 as it goes,
# as the backward GEMMs of torchao's float8 recipes and Transformer Engine's run; their forward
# GEMMs run with fast accumulation, faster by a margin no public measurement gives at training
# shapes, not modelled (docs/performance-model.md, torchao's float8 training benchmarks)
_MATMUL: dict[tuple[str, str], tuple[float, float, str]] = {
    ("ampere", "bf16"): (267.9, 312.0, f"{MAMF}: A100 SXM BF16 267.9 TFLOPS measured"),
    ("hopper", "bf16"): (792.1, 989.0, f"{MAMF}: H100 SXM BF16 792.1 TFLOPS measured"),
    ("hopper", "fp8"): (1453.4, 1979.0, f"{MAMF}: H200 SXM FP8 1453.4 TFLOPS measured"),
    ("blackwell", "bf16"): (1745.0, 2250.0, f"{MAMF}: B200 SXM BF16 1745.0 TFLOPS measured"),
    ("blackwell", "fp8"): (3432.5, 4500.0, f"{MAMF}: B200 SXM FP8 3432.5 TFLOPS measured"),
    # No published FP4 matmul measurement: dclint assumes the FP8 fraction of the FP4 peak.
    ("blackwell", "fp4"): (
        6865.0,
        9000.0,
        "dclint's own default: FP4 at the measured B200 FP8 fraction (no FP4 measurement)",
    ),
}

# GEMMs at a transformer layer's shapes, run back to back: Transformer Engine's GEMM profiling
# guide (NVIDIA/TransformerEngine docs/examples/gemm_profiling/gemm_profiling.rst at 8f2e635;
# its benchmarks/gemm/benchmark_gemm.py times each GEMM 100 calls back to back under CUDA
# events, after 10 warm-up calls) gives a layer's 12 GEMMs (forward, data and weight gradients
# of the fused QKV, attention output, MLP up and down projections) at hidden 4,096, fused QKV
# 12,288, ffn 16,384 and 31 x 512 = 15,872 tokens, inputs pre-quantized (`--pre-quantize`: the
# GEMM kernels alone), on B300 SXM and H200 NVL. MAMF's rates (_MATMUL) time one large GEMM
# with idle or memory-bound time between calls; at a layer's shapes back to back both
# generations and every precision the guide measured run below them. The factor of each
# (generation, precision) is the model's time for the guide's 12 GEMMs (the generation's
# measured rate, its tile and wave quantization, on the guide's part) over the published time.
GUIDE_LAYER = (15872, 4096, 12288, 16384)  # tokens, hidden, fused QKV, ffn
GEMM_GUIDE = (
    "Transformer Engine's GEMM profiling guide (gemm_profiling.rst at 8f2e635): a layer's 12 "
    f"GEMMs at hidden {GUIDE_LAYER[1]:,}, ffn {GUIDE_LAYER[3]:,}, {GUIDE_LAYER[0]:,} tokens, "
    "inputs pre-quantized"
)
# per-layer GEMM time (ms), pre-quantized: (part, format) -> ms; fp8 is per-tensor current
# scaling (FP8CurrentScaling), mxfp8 the block-scaled MXFP8, fp4 NVFP4
GUIDE_MS: dict[tuple[str, str], float] = {
    ("B300 SXM", "bf16"): 13.102,
    ("B300 SXM", "fp8"): 6.812,
    ("B300 SXM", "mxfp8"): 7.161,
    ("B300 SXM", "fp4"): 3.764,
    ("H200 NVL", "bf16"): 31.968,
    ("H200 NVL", "fp8"): 16.785,
}
# The guide's parts as the model runs them: B300 at B200's measured rates (GENERATION, below);
# H200 NVL (600 W, the H200 SXM's die) at the rates of the SXM parts they were measured on
# scaled by its datasheet's dense peaks, 835.5 BF16 and 1,670.5 FP8 TFLOPS (1,671 and 3,341
# with sparsity), against those parts' 989 and 1,979: its clock (NVIDIA H200 NVL datasheet)
_GUIDE_PARTS: dict[str, tuple[str, dict[str, float]]] = {
    "B300 SXM": ("blackwell", {}),
    "H200 NVL": ("hopper", {"bf16": 835.5, "fp8": 1670.5}),
}


# B300's FP4 tensor cores are rated above B200's (the catalog's dense fp4 peaks): at the rate
# measured on B300, B200 and GB200 run FP4 no faster than that, an upper bound for them
_FP4_CAVEAT = (
    "; every Blackwell part takes this B300 rate, whose FP4 peak is above B200's: an upper "
    "bound for B200 and GB200 (no FP4 run calibrates it)"
)


def guide_layer_seconds(generation: str, rate: float) -> float:
    """The model's time (s) for the guide's 12 GEMMs of a layer at `rate` (FLOP/s) on
    `generation`'s SMs, each GEMM's output padded to whole tiles and waves (tile_share)."""
    tokens, hidden, qkv, ffn = GUIDE_LAYER
    total = 0.0
    for out, k in ((qkv, hidden), (hidden, hidden), (ffn, hidden), (hidden, ffn)):
        # forward (tokens x out), data gradient (tokens x k), weight gradient (k x out)
        for m, n, depth in ((tokens, out, k), (tokens, k, out), (k, out, tokens)):
            total += 2 * m * n * depth / (rate * tile_share(m, n, SMS[generation]))
    return total


def _at_layer() -> dict[tuple[str, str], tuple[float, str]]:
    """(generation, precision) -> (the guide's rate at a layer's shapes over the measured rate,
    the reading to print)."""
    out = {}
    for (part, fmt), published in GUIDE_MS.items():
        if fmt == "mxfp8":  # a recipe's GEMMs against per-tensor FP8 (MXFP8_GEMM_RATE)
            continue
        generation, peaks = _GUIDE_PARTS[part]
        measured, measured_peak, _ = _MATMUL[(generation, fmt)]
        clock = peaks[fmt] / measured_peak if fmt in peaks else 1.0
        model = 1e3 * guide_layer_seconds(generation, measured * 1e12 * clock)
        name = {"fp8": "FP8 current scaling", "fp4": "NVFP4"}.get(fmt, fmt.upper())
        at = f" at its datasheet clock {clock:.3f}" if clock != 1.0 else ""
        out[(generation, fmt)] = (
            model / published,
            f"{name} on {part}: {published} ms against the model's {model:.3f} ms{at}"
            + (_FP4_CAVEAT if fmt == "fp4" else ""),
        )
    return out


AT_LAYER = _at_layer()


def _at_layer_of(generation: str, precision: str) -> tuple[float, str]:
    """AT_LAYER's factor and reading; 1.0 and '' where the guide measured no such GEMM (a
    generation or precision that keeps MAMF's rate)."""
    return AT_LAYER.get((generation, precision), (1.0, ""))


# Transformer Engine's MXFP8 GEMMs (block-scaled, E8M0 scales every 32 elements) against its
# per-tensor FP8 GEMMs on Blackwell, kernel time only: the guide's B300 layer, 6.812 ms with FP8
# current scaling and 7.161 ms with MXFP8, the rate 0.951 of the per-tensor one
MXFP8_GEMM_RATE = GUIDE_MS[("B300 SXM", "fp8")] / GUIDE_MS[("B300 SXM", "mxfp8")]

# Transformer Engine (FP8 training) casts each GEMM input and output gradient with a fused
# cast-transpose kernel: reads the BF16 tensor (2 B an element), writes the FP8 tensor and its
# transpose (1 B each), and keeps dot-product attention in BF16 unless FP8 attention is asked for
# (NVTE_FP8_DPA off by default). Counted from Transformer Engine's design (its
# `cast_transpose` kernels and `fp8_dpa` recipe flag, default False).
FP8_CAST_BYTES = 4.0
# Of those, the FP8 transpose's write (1 B an element), which Transformer Engine's per-tensor
# quantizers (delayed and current scaling) skip where FP8 GEMMs take any layout, compute
# capability 10.x (TE bee4649, the version NeMo 25.04's manifest names, and v2.9:
# transformer_engine/pytorch/csrc/extensions/quantizer.cpp, `create_transpose =
# columnwise_usage && !non_tn_fp8_gemm_supported()`; util.cpp: `major >= 10`): 3 B an element on
# Blackwell. MXFP8 and NVFP4 still write their column-wise copy. The GEMM profiling guide's B300
# layer (gemm_profiling.rst at 8f2e635) agrees: delayed scaling with its casts 7.802 ms against
# 6.812 ms pre-quantized, 0.99 ms of casts for 2.48e9 elements, 1.16 ms at 3 B and 80% of 8 TB/s,
# 1.55 ms at 4 B.
FP8_TRANSPOSE_BYTES = 1.0
_FP8 = (
    f"Transformer Engine: FP8 GEMM operands cast with their transpose ({FP8_CAST_BYTES:g} B an "
    f"element; {FP8_CAST_BYTES - FP8_TRANSPOSE_BYTES:g} B on Blackwell under delayed or current "
    "scaling, which write no transpose there), the MLP's second GEMM input and an MoE layer's "
    "routed tokens cast too (Megatron-Core's TERowParallelLinear and TEGroupedMLP); attention "
    "in BF16"
)
# FP4 (Transformer Engine's NVFP4) runs are charged FP8's cast-transpose bytes: dclint's own, no
# NVFP4 count (its 4-bit elements, an E4M3 scale a 16-element block and a per-tensor amax)
_FP4 = (
    f"Transformer Engine NVFP4: GEMM operands cast with their transpose, charged at FP8's "
    f"{FP8_CAST_BYTES:g} B an element (dclint's own: NVFP4's 4-bit elements and their E4M3 "
    "scales not counted apart); attention in BF16"
)
# The output layer (logits) is no Transformer Engine module in Megatron-Core (GPTModel's
# output_layer is tensor_parallel.ColumnParallelLinear, a BF16 matmul outside fp8_autocast),
# and TorchTitan's Float8 and MX configs leave it out of the conversion (filter_fqns
# ["output"]): its GEMMs run at the generation's measured BF16 rate in FP8 and FP4 runs.
_HEAD = (
    "the output layer's GEMMs in BF16 at the measured BF16 rate (Megatron-Core's output_layer is "
    "a ColumnParallelLinear outside Transformer Engine; TorchTitan filters 'output' from Float8)"
)

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


# GPUs as deployed: a board power limit (nvidia-smi -pl) below the power a family's matmul rate
# was measured at lowers the clock its tensor cores sustain. CMOS dynamic power is C V^2 f and
# the voltage follows the clock over the DVFS range, so power grows as f^3 and the sustained
# clock as the cube root of the power: dclint's own relation from that physics. NVIDIA's
# datasheets of one die at two board powers agree within 2-4%: H100 NVL at 400 W, 835 dense BF16
# TFLOPS against H100 SXM's 989 at 700 W (0.845; the cube root 0.830); B200 at 1000 W against
# GB200 at 1200 W, 2.25 and 2.5 PFLOPS (0.900; 0.941); B300 at 1100 W against GB300 at 1400 W
# (0.900; 0.923). HBM-bound kernels keep their rate (the memory clock is not throttled).
POWER_CLOCK_EXPONENT = 1 / 3
# Board power of the parts the measured matmul rates come from (_MATMUL): A100 SXM 400 W,
# H100 and H200 SXM 700 W, B200 1000 W (their datasheets)
_MEASURED_AT_W: dict[str, float] = {"ampere": 400.0, "hopper": 700.0, "blackwell": 1000.0}
_POWER_CLOCK = (
    "dclint's own relation: sustained clock as the cube root of the power (dynamic power C V^2 f, "
    "V following f); NVIDIA's datasheets of one die at two powers agree within 2-4% (H100 NVL "
    "400 W against SXM 700 W: 0.845, the rule 0.830), and not always (H200 NVL 600 W: 0.845, "
    "the rule 0.950; B100 700 W against B200 1000 W: 0.778, the rule 0.888)"
)


def power_clock(family: str, power: float) -> tuple[float, str] | None:
    """The factor a GPU's board power `power` (W: its power limit, else its tdp) scales its
    tensor-core rate by, and the assumption to print; None for an unknown generation. The
    reference is the power its family's matmul rate was measured at: no power at or above it
    makes the GPU faster (a GB200's 1200 W keeps B200's measured rate)."""
    generation = GENERATION.get(family, family if family in SMS else None)
    if generation is None:
        return None
    reference = _MEASURED_AT_W[generation]
    factor = min(1.0, power / reference) ** POWER_CLOCK_EXPONENT
    note = (
        f"board power {power:g} W against the {reference:g} W its family's matmul rate is "
        f"measured at: tensor-core rate x {factor:.3f} ({_POWER_CLOCK})"
    )
    return factor, note


def efficiency_for(gpu_key: str, precision: str, peak: float | None = None) -> Efficiency | None:
    """The constants for a catalog GPU and precision (`peak` its dense FLOP/s at the precision,
    which the measured matmul rate is divided by); None for an unknown generation."""
    # a built-in key, or an architecture a catalog entry declares (Hardware.family)
    generation = GENERATION.get(gpu_key, gpu_key if gpu_key in SMS else None)
    if generation is None:
        return None
    matmul = _MATMUL.get((generation, precision))
    if matmul is None:
        return None
    measured, part_peak, matmul_source = matmul
    # the rate at a layer's shapes back to back (AT_LAYER; a generation the guide did not
    # measure keeps MAMF's)
    at_layer, reading = _at_layer_of(generation, precision)
    measured *= at_layer
    fraction = measured / (peak / 1e12 if peak else part_peak)
    attention = {"hopper": _ATTENTION_HOPPER, "blackwell": _ATTENTION_BLACKWELL}.get(
        generation, _ATTENTION
    )
    fp8 = precision in ("fp8", "fp4")
    # the output layer's GEMMs stay in BF16 in FP8 and FP4 runs: BF16's measured rate over
    # the precision's (the generation's; no BF16 measurement: the precision's own rate)
    bf16 = _MATMUL.get((generation, "bf16"))
    head_rate = 1.0
    if fp8 and bf16 is not None:
        head_rate = bf16[0] * _at_layer_of(generation, "bf16")[0] / measured
    return Efficiency(
        min(1.0, fraction),
        attention[0],
        _HBM[0],
        _NET[0],
        _NET[0],
        (
            (
                "matmul",
                f"{matmul_source}"
                + (
                    f"; x {at_layer:.3f} at a layer's shapes back to back ({GEMM_GUIDE}: {reading})"
                    if reading
                    else ""
                )
                + f", {fraction:.1%} of the datasheet peak",
            ),
            ("attention", attention[1]),
            ("hbm", _HBM[1]),
            ("nvlink", _NET[1]),
            ("network", _NET[1]),
            ("tiles", f"{SMS[generation]} SMs (vendor whitepaper), tile and wave quantization"),
            ("overlapped communication", _SM_SHARE[2]),
            *(((precision, _FP4 if precision == "fp4" else _FP8),) if fp8 else ()),
            *(((f"{precision} output layer", _HEAD),) if head_rate != 1.0 else ()),
        ),
        SMS[generation],
        _SM_SHARE[0],
        _SM_SHARE[1],
        FP8_CAST_BYTES if fp8 else 0.0,
        FP8_TRANSPOSE_BYTES if precision == "fp8" and generation == BLACKWELL else 0.0,
        _SDPA_HOPPER[0] if generation == "hopper" else (1.0, 1.0, 1.0),
        _FUSED_HOPPER[0] if generation == "hopper" else (1.0, 1.0, 1.0),
        head_rate,
        precision == "fp4",
        _FA2_H100_BY_LENGTH if generation == "hopper" else (),
        _CUDNN_H100_BY_LENGTH if generation == "hopper" else (),
        _FA2_H100_HD64_BY_LENGTH if generation == "hopper" else (),
        _CUDNN_H100_HD64_BY_LENGTH if generation == "hopper" else (),
    )


def machine(
    peak: float, hbm: float, eff: Efficiency, links: Links, attention_peak: float = 0.0
) -> Machine:
    """The step model's GPU: dense peak (FLOP/s) and HBM bandwidth (B/s) from the datasheet at
    `eff`'s efficiencies, on `links` (their bandwidths already scaled by `eff`); core attention
    at `attention_peak` (the BF16 peak in FP8 runs; 0: `peak`)."""
    return Machine(
        peak,
        eff.matmul,
        eff.attention,
        hbm,
        eff.hbm,
        links,
        eff.sms,
        eff.nvlink_sm_share,
        eff.network_sm_share,
        attention_peak,
        eff.fp8_cast_bytes,
        fp8_transpose_free=eff.fp8_transpose_free,
        sdpa=eff.sdpa,
        fused_attention=eff.fused_attention,
        head_rate=eff.head_rate,
        fp4=eff.fp4,
        sdpa_lengths=eff.sdpa_lengths,
        fused_lengths=eff.fused_lengths,
        sdpa_lengths_narrow=eff.sdpa_lengths_narrow,
        fused_lengths_narrow=eff.fused_lengths_narrow,
    )
