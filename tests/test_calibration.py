"""Calibration of the step-time model against published Megatron runs, with one set of constants.

Every run uses the efficiency constants of dclint.projection.efficiency unchanged; the software
switches (flash attention, overlaps, gradient bytes) are what each publication states for its
code. Narayanan et al.'s micro-batch size, interleaving and data-parallel implementation per row
are the published ones (Megatron-LM, examples/academic_paper_scripts/sc21/run_table_1.sh, the
scripts that produced Table 1); the Megatron-Core README publishes neither micro-batch nor
interleaving: dclint assumes micro-batch 1 and no interleaving (vpp 1) for those rows, and says
so in docs/performance-model.md.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from dclint.projection.collectives import Links
from dclint.projection.efficiency import efficiency_for
from dclint.projection.efficiency import machine as gpu_machine
from dclint.projection.step import Arch, Layout, Software, step


@dataclass(frozen=True)
class Run:
    name: str
    source: str
    gpu: str
    params_b: float
    heads: int
    hidden: int
    layers: int
    tp: int
    pp: int
    gpus: int
    batch: int
    published: float  # MFU (Megatron-Core) or HFU incl. recomputation (Narayanan et al.)
    micro_batch: int = 1
    vpp: int = 1
    torch_ddp: bool = False  # PyTorch DDP: all-reduce overlapped with the last backward


NARAYANAN = "Narayanan et al. 2021, Table 1 (A100, seq 2048, vocab 51,200, full recompute)"
MCORE = "Megatron-LM README, Megatron-Core H100 table (seq 4096, vocab 131,072)"
STRONG = "Megatron-LM README, 177B strong scaling, batch 1152 (r0.8.0)"
# params, heads, hidden, layers, tp, pp, GPUs, batch, TFLOPS per GPU; then run_table_1.sh's
# micro-batch, virtual stages (layers / pp / --num-layers-per-virtual-pipeline-stage) and
# whether --DDP-impl is torch (overlapped all-reduce) rather than local (after the backward)
_N = [
    (1.7, 24, 2304, 24, 1, 1, 32, 512, 137, 16, 1, True),
    (3.6, 32, 3072, 30, 2, 1, 64, 512, 138, 16, 1, True),
    (7.5, 32, 4096, 36, 4, 1, 128, 512, 142, 16, 1, True),
    (18.4, 48, 6144, 40, 8, 1, 256, 1024, 135, 8, 1, True),
    (39.1, 64, 8192, 48, 8, 2, 512, 1536, 138, 4, 1, False),
    (76.1, 80, 10240, 60, 8, 4, 1024, 1792, 140, 2, 3, False),
    (145.6, 96, 12288, 80, 8, 8, 1536, 2304, 148, 2, 2, False),
    (310.1, 128, 16384, 96, 8, 16, 1920, 2160, 155, 1, 2, False),
    (529.6, 128, 20480, 105, 8, 35, 2520, 2520, 163, 1, 3, False),
    (1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 163, 1, 1, False),
]
_M = [  # params, heads, hidden, layers, tp, pp, GPUs, batch, MFU %
    (1.7, 16, 2048, 24, 1, 1, 48, 192, 41),
    (7.1, 32, 4096, 30, 2, 1, 96, 192, 47),
    (16, 48, 6144, 32, 4, 1, 192, 192, 49),
    (32, 56, 7168, 48, 8, 1, 384, 192, 46),
    (70, 64, 8192, 84, 8, 2, 768, 384, 42),
    (119, 80, 10240, 92, 8, 4, 1536, 768, 43),
    (177, 96, 12288, 96, 8, 6, 2304, 1152, 44),
    (314, 128, 16384, 96, 8, 8, 3072, 1536, 48),
    (462, 144, 18432, 112, 8, 16, 6144, 3072, 47),
]
RUNS = (
    [Run(f"A100 {r[0]}B", NARAYANAN, "a100-sxm", *r[:8], r[8] / 312, *r[9:]) for r in _N]
    + [Run(f"H100 {r[0]}B", MCORE, "h100-sxm", *r[:8], r[8] / 100) for r in _M]
    + [
        Run("H100 177B x96", STRONG, "h100-sxm", 177, 96, 12288, 96, 8, 6, 96, 1152, 0.47),
        Run("H100 177B x4608", STRONG, "h100-sxm", 177, 96, 12288, 96, 8, 6, 4608, 1152, 0.42),
    ]
)
# DGX A100 (Selene): NVLink 3 600 GB/s, 8 x 200 Gb/s HDR per 8 GPUs; DGX H100 (Eos): NVLink 4
# 900 GB/s, 8 x 400 Gb/s NDR per 8 GPUs; both non-blocking fat trees.
SYSTEMS = {
    "a100-sxm": (312e12, 2.039e12, 600e9, 200e9 / 8),
    "h100-sxm": (989e12, 3.35e12, 900e9, 400e9 / 8),
}
# Narayanan et al. 2021 predates flash attention and the overlapped Megatron-Core paths, and
# trained in fp16 with fp16 gradient all-reduce, pipeline activations scattered over the tp ranks
# and gathered over NVLink (--scatter-gather-tensors-in-pipeline, on by default in that code);
# Megatron-Core's README states TP, DP and PP overlap, and Megatron-LM reduces bf16 runs'
# gradients in fp32.
SOFTWARE = {
    NARAYANAN: Software(False, False, False, False, False, 2.0, p2p_scatter_gather=True),
    MCORE: Software(),
    STRONG: Software(),
}


def predict(run: Run) -> float:
    """Predicted MFU (Megatron-Core rows) or HFU (Narayanan rows) of a published run."""
    peak, hbm, nvlink, nic = SYSTEMS[run.gpu]
    eff = efficiency_for(run.gpu, "bf16")
    assert eff is not None
    links = Links(8, nvlink / 2 * eff.nvlink, nic * eff.network)
    machine = gpu_machine(peak, hbm, eff, links)
    narayanan = run.source == NARAYANAN
    vocab, seq = (51200, 2048) if narayanan else (131072, 4096)
    h, layers = run.hidden, run.layers
    params = 12 * layers * h * h + vocab * h * (1 if narayanan else 2)  # untied in Megatron-Core
    arch = Arch(layers, h, run.heads, run.heads, 4 * h, vocab, seq, dense_params=params)
    dp = run.gpus // (run.tp * run.pp)
    layout = Layout(
        run.tp,
        run.pp,
        dp=dp,
        vpp=run.vpp,
        micro_batch=run.micro_batch,
        global_batch=run.batch,
        sequence_parallel=not narayanan and run.tp > 1,
        distributed_optimizer=not narayanan,
        recompute="full" if narayanan else "selective",
    )
    sw = SOFTWARE[run.source]
    if run.torch_ddp:
        sw = replace(sw, overlap_dp=True)
    st = step(arch, layout, machine, sw, causal=False)  # both publications count non-causal
    flops = st.hardware_flops if narayanan else st.model_flops
    return flops / (st.time * run.gpus * peak)


# Megatron-Bridge (NeMo 25.11 container) pre-training table, docs/performance-summary.md of
# NVIDIA-NeMo/Megatron-Bridge: tokens/s per GPU on DGX-GB200 (NVL72), DGX-B200 and DGX-H100
# (8 x 400 Gb/s per 8 GPUs), FP8 with current scaling (FP8-CS) unless noted, flash attention
# and Megatron-Core's overlaps. The 70B GB200 and 8B H100 rows run FSDP over their data-parallel
# GPUs (the table's FSDP column).
BRIDGE = "Megatron-Bridge performance summary, NeMo 25.11 container"
_ARCH: dict[str, dict[str, float]] = {  # published model configurations (Hugging Face config.json)
    "Llama3 8B": dict(layers=32, hidden=4096, heads=32, kv_heads=8, ffn=14336, vocab=128256,
                      dense_params=8.03e9),
    "Llama3 70B": dict(layers=80, hidden=8192, heads=64, kv_heads=8, ffn=28672, vocab=128256,
                       dense_params=70.6e9),
    "Llama3.1 405B": dict(layers=126, hidden=16384, heads=128, kv_heads=8, ffn=53248,
                          vocab=128256, dense_params=405.8e9),
    "Qwen3 30B-A3B": dict(layers=48, hidden=2048, heads=32, kv_heads=4, kv_channels=128,
                          ffn=768, vocab=151936, experts=128, top_k=8, dense_params=1.5e9,
                          expert_params=29.0e9),
    "Qwen3 235B-A22B": dict(layers=94, hidden=4096, heads=64, kv_heads=4, kv_channels=128,
                            ffn=1536, vocab=151936, experts=128, top_k=8, dense_params=8.0e9,
                            expert_params=227.0e9),
}  # fmt: skip
# system: (catalog GPU, NVLink domain, dense BF16 and FP8 peaks, HBM B/s, NVLink B/s, NIC b/s)
_SYSTEM = {
    "GB200": ("gb200", 72, 2.5e15, 5e15, 8e12, 1.8e12, 400e9),
    "B200": ("b200", 8, 2.25e15, 4.5e15, 8e12, 1.8e12, 400e9),
    "H100": ("h100-sxm", 8, 989e12, 1979e12, 3.35e12, 900e9, 400e9),
}


@dataclass(frozen=True)
class Bridge:
    system: str
    model: str
    precision: str
    gpus: int
    batch: int
    micro_batch: int
    seq: int
    tp: int
    pp: int
    cp: int
    vpp: int
    ep: int
    published: float  # tokens/s per GPU
    fsdp: bool = False

    @property
    def name(self) -> str:
        return f"{self.system} {self.model}, {self.gpus}"

    @property
    def moe(self) -> bool:
        return "experts" in _ARCH[self.model]


BRIDGE_RUNS = [
    Bridge("GB200", "Llama3 8B", "fp8", 8, 128, 2, 8192, 1, 1, 1, 1, 1, 31508),
    Bridge("GB200", "Llama3 70B", "fp8", 64, 256, 2, 8192, 1, 1, 1, 1, 1, 4312, fsdp=True),
    Bridge("GB200", "Llama3.1 405B", "fp8", 256, 1536, 1, 8192, 4, 16, 1, 4, 1, 813),
    Bridge("B200", "Llama3 8B", "fp8", 8, 128, 2, 8192, 1, 1, 1, 1, 1, 30624),
    Bridge("B200", "Llama3.1 405B", "fp8", 128, 64, 1, 8192, 4, 8, 2, 8, 1, 661),
    Bridge("H100", "Llama3 8B", "fp8", 8, 128, 1, 8192, 1, 1, 1, 1, 1, 14451, fsdp=True),
    Bridge("H100", "Llama3 70B", "fp8", 64, 128, 1, 8192, 4, 8, 1, 5, 1, 1602),
    Bridge("H100", "Llama3.1 405B", "fp8", 1024, 512, 1, 8192, 8, 8, 2, 8, 1, 292),
    # MoE (force-balanced routing, dropless); Qwen3 235B on GB200 in BF16, the others FP8 (MX)
    Bridge("GB200", "Qwen3 235B-A22B", "bf16", 256, 8192, 1, 4096, 1, 8, 1, 3, 32, 4916),
    Bridge("GB200", "Qwen3 30B-A3B", "fp8", 8, 512, 4, 4096, 1, 1, 1, 1, 8, 23766),
    Bridge("B200", "Qwen3 235B-A22B", "fp8", 64, 1024, 1, 4096, 1, 8, 1, 2, 8, 3269),
    Bridge("H100", "Qwen3 235B-A22B", "fp8", 256, 2048, 1, 4096, 2, 8, 1, 4, 32, 1575),
    Bridge("H100", "Qwen3 30B-A3B", "fp8", 16, 512, 2, 4096, 1, 2, 1, 24, 8, 5275),
]


def predict_bridge(run: Bridge) -> float:
    """Predicted tokens/s per GPU of a Megatron-Bridge run."""
    gpu, domain, bf16, fp8, hbm, nvlink, nic = _SYSTEM[run.system]
    peak = fp8 if run.precision == "fp8" else bf16
    eff = efficiency_for(gpu, run.precision, peak)
    assert eff is not None
    links = Links(domain, nvlink / 2 * eff.nvlink, nic / 8 * eff.network)
    machine = gpu_machine(peak, hbm, eff, links, bf16)
    arch = Arch(seq=run.seq, swiglu=True, **_ARCH[run.model])  # type: ignore[arg-type]
    dp = run.gpus // (run.tp * run.pp * run.cp)
    layout = Layout(
        run.tp,
        run.pp,
        run.cp,
        dp,
        run.ep,
        run.vpp,
        run.micro_batch,
        run.batch,
        sequence_parallel=run.tp > 1,
        fsdp=run.fsdp,
    )
    st = step(arch, layout, machine, Software())
    return run.batch * run.seq / st.time / run.gpus


# Runs the model misses by more than 15%, kept visible: the 32B row and the 4,608-GPU end of the
# strong-scaling curve spend less time in exposed data-parallel communication and the pipeline
# bubble than micro-batch 1 without interleaving (the assumption for rows whose settings are not
# published) gives them. The MoE rows but GB200's 235B: the model has no term for what makes
# Megatron-Core's dropless MoE layers slower than their GEMMs and all-to-alls (router, token
# counts synchronised to the host each layer, permutation kernels, small grouped GEMMs), and on
# H100's 235B it exposes all-to-alls the recipe overlaps.
MISSES = {
    "H100 32B",
    "H100 177B x4608",
    "GB200 Qwen3 30B-A3B, 8",
    "B200 Qwen3 235B-A22B, 64",
    "H100 Qwen3 235B-A22B, 256",
    "H100 Qwen3 30B-A3B, 16",
}


def error(run: Run | Bridge) -> float:
    """Predicted over published throughput, minus one."""
    if isinstance(run, Bridge):
        return predict_bridge(run) / run.published - 1
    return predict(run) / run.published - 1


ALL: list[Run | Bridge] = [*RUNS, *BRIDGE_RUNS]


def _cases() -> list[object]:
    miss = pytest.mark.xfail(strict=True, reason="known miss (docs/performance-model.md)")
    return [pytest.param(r, id=r.name, marks=[miss] if r.name in MISSES else []) for r in ALL]


@pytest.mark.parametrize("run", _cases())
def test_each_run_within_15_percent(run: Run | Bridge) -> None:
    assert abs(error(run)) <= 0.15, f"{run.name}: {error(run):+.1%}"


def test_mean_absolute_error_at_most_8_percent_on_dense_runs() -> None:
    errors = [abs(error(r)) for r in ALL if not isinstance(r, Bridge) or not r.moe]
    assert sum(errors) / len(errors) <= 0.08


def test_narayanan_set_within_10_percent() -> None:
    for run in (r for r in RUNS if r.source == NARAYANAN):
        assert abs(predict(run) / run.published - 1) <= 0.10, run.name


def test_strong_scaling_loses_efficiency() -> None:
    small, large = (predict(r) for r in RUNS if r.source == STRONG)
    assert large < small


def test_fp8_runs_keep_attention_at_the_bf16_peak() -> None:
    """FP8 runs: attention at the BF16 peak and the casts paid; a BF16 machine is slower on the
    GEMMs only."""
    run = BRIDGE_RUNS[0]
    fp8 = predict_bridge(run)
    assert fp8 < predict_bridge(replace(run, precision="bf16")) * 2


def test_uncertainty_bands_are_the_calibration_residuals() -> None:
    """dclint.projection.uncertainty's table is what the calibration runs give, per generation
    and class; when the model moves, this prints the table to paste."""
    from dclint.projection.efficiency import GENERATION
    from dclint.projection.uncertainty import BANDS, derive

    def key(r: Run | Bridge) -> tuple[str, bool]:
        if isinstance(r, Bridge):
            return GENERATION[_SYSTEM[r.system][0]], r.moe
        return GENERATION[r.gpu], False

    got = derive((*key(r), error(r)) for r in ALL)
    assert got == BANDS, f"BANDS = {got}"


def table() -> list[tuple[str, str, float, float]]:
    """(run, source, published, predicted) for docs/performance-model.md."""
    rows = [(r.name, r.source, r.published, predict(r)) for r in RUNS]
    return rows + [(r.name, BRIDGE, r.published, predict_bridge(r)) for r in BRIDGE_RUNS]
