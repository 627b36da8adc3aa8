"""`predict(design, workload, hardware)`: the step-time model fed from a design, in quantities.

Reads the workload's architecture and layout, the GPU's peaks, the platform's NVLink domain and
the compute fabric's NIC rate and tiers, runs `dclint.projection.step.model.step`, and returns the
step, its parts, MFU, HFU and tokens/s as pint quantities with the assumptions it made.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from dclint.model.defaults import DEFAULT_TOP_K
from dclint.model.resolve import topology_of
from dclint.model.software import (
    FULL_ITERATION,
    TORCHAO_FP8_RECIPES,
    gradient_sync_in_effect,
    per_projection,
)
from dclint.projection.collectives import ECMP_COLLISION, LL_MAX_NODE_GBS, Links
from dclint.projection.efficiency import (
    CUDNN_SDPA_SOURCE,
    FUSED_ATTENTION_SOURCE,
    FUSED_NARROW_SOURCE,
    GENERATION,
    GUIDE_MS,
    MXFP8_GEMM_RATE,
    SDPA_BLACKWELL,
    SDPA_NARROW_SOURCE,
    SDPA_SOURCE,
    efficiency_for,
    narrow,
    power_clock,
)
from dclint.projection.efficiency import machine as gpu_machine
from dclint.projection.layout_checks import framework_split
from dclint.projection.memory import expert_parameters, split_slots
from dclint.projection.step.model import (
    Arch,
    Layout,
    Machine,
    Software,
    Step,
    stage_steps,
    tp_collectives,
)
from dclint.projection.step.records import (
    ADAM_BF16_BYTES,
    ADAM_BYTES,
    ATTENTION_KERNEL_SLOWDOWN,
    CLIP_BF16_BYTES,
    CLIP_BYTES,
    COMPOSER_ADAM_BF16_BYTES,
    COMPOSER_ADAM_BYTES,
    EAGER_NORM_BYTES,
    EAGER_ROTARY_BYTES,
    EAGER_SWIGLU_BYTES,
    FP8_RECIPE_BYTES,
    FSDP_FP8_GATHER_BYTES,
    FSDP_SM_SHARE,
    HOST_EXPERT_GEMM_SECONDS,
    MEGATRON_CLIP_BYTES,
    MX_CAST_BYTES,
    ROWWISE_GEMM_RATE,
    ROWWISE_INPUT_BYTES,
    ROWWISE_RESCALE_BYTES,
    TORCH_CP_MERGE_BYTES,
)
from dclint.projection.uncertainty import Band, band_for_gpu
from dclint.units import Q_, Quantity, fmt

if TYPE_CHECKING:
    from dclint.model.design import Design
    from dclint.model.fabric import Fabric
    from dclint.model.software import Settings
    from dclint.model.workload import Workload
    from dclint.projection.hardware import Hardware

__all__ = ["DEFAULT_MICRO_BATCHES_PER_STAGE", "Prediction", "inputs", "predict", "software"]

DEFAULT_MICRO_BATCHES_PER_STAGE = 4  # dclint's own default when global_batch is not declared


@dataclass(frozen=True)
class Prediction:
    """One step of a workload as the model predicts it."""

    step: Step
    step_time: Quantity
    breakdown: dict[str, Quantity]
    mfu: Quantity
    hfu: Quantity
    tokens_per_second: Quantity
    tokens_per_step: float
    assumptions: tuple[str, ...]
    band: Band  # measured / predicted step time seen in calibration (uncertainty.py)

    @property
    def step_time_band(self) -> tuple[Quantity, Quantity]:
        """(low, high) step time: the calibration band of the GPU generation (the envelope
        outside the calibration domain of its class)."""
        low, high = self.band.step_time(self.step_time.m_as("s"))
        return Q_(low, "s"), Q_(high, "s")

    @property
    def mfu_band(self) -> tuple[Quantity, Quantity]:
        """(low, high) MFU on the same basis and convention as `mfu`."""
        low, high = self.band.mfu(self.mfu.m_as(""))
        return Q_(low, "dimensionless"), Q_(high, "dimensionless")


def _arch(wl: Workload) -> Arch | None:
    m = wl.model
    if m.layers is None or m.hidden_size is None or m.vocab_size is None:
        return None
    heads = m.attention_heads or max(1, m.hidden_size // 128)
    experts = expert_parameters(wl)
    return Arch(
        m.layers,
        m.hidden_size,
        heads,
        m.query_groups or heads,
        m.ffn_hidden_size or 4 * m.hidden_size,
        m.vocab_size,
        wl.sequence_length,
        m.swiglu,
        m.experts or 0,
        m.top_k or DEFAULT_TOP_K,
        float(m.parameters) - experts,
        experts,
        m.kv_channels or 0,
    )


def _compute_fabric(design: Design) -> tuple[int, Fabric] | None:
    for i, fabric in enumerate(design.fabrics):
        if fabric.kind == "compute":
            return i, fabric
    return None


def _links(design: Design, hw: Hardware, eff_nvl: float, eff_net: float, notes: list[str]) -> Links:
    from dclint.calc.fabric_graph import nic_speed

    domain = hw.platform.nvlink_domain if hw.platform is not None else 1
    nvl = hw.gpu.nvlink_bandwidth
    nvlink = nvl.m_as("B/s") / 2 * eff_nvl if nvl is not None else 0.0  # per direction
    found = _compute_fabric(design)
    rack = next((r for r in topology_of(design).racks if r.platform is hw.platform), None)
    speed = nic_speed(design, found[1], rack) if found else None
    if found is None or speed is None:
        nic_gbps = 400.0
        notes.append("no compute fabric NIC speed: 400 Gb/s per GPU assumed")
        tiers: tuple[tuple[int, float], ...] = ()
    else:
        index, fabric = found
        nic_gbps = speed[0].m_as("Gb/s") * fabric.nics_per_gpu
        tiers = _tiers(design, index, fabric, speed[0].m_as("Gb/s"), domain)
    if nvlink <= 0:
        nvlink = nic_gbps / 8 * 1e9 * eff_net
    collision, spread = 1.0, 0
    if found is not None and tiers:
        fabric = found[1]
        if _hashed(design, fabric):
            collision = ECMP_COLLISION
            notes.append(
                f"fabric '{fabric.id}' hashes flows over its uplinks (ECMP): a tier delivers "
                f"1/{ECMP_COLLISION:g} of its uplink capacity to collectives (Gangidi et al., "
                "SIGCOMM 2024: baseline ECMP up to 40% slower on AllReduce)"
            )
        if fabric.placement == "spread":
            spread = max(1, topology_of(design).gpus)
    ll_max = LL_MAX_NODE_GBS.get(GENERATION.get(hw.family, hw.family), 0.0) * 1e9
    return Links(
        max(1, domain), nvlink, nic_gbps / 8 * 1e9 * eff_net, tiers, collision, spread, ll_max
    )


def _hashed(design: Design, fabric: Fabric) -> bool:
    """Whether the fabric's tiers hash flows (ECMP): as declared, else on Ethernet switches."""
    if fabric.routing is not None:
        return fabric.routing == "ecmp"
    switches = topology_of(design).catalog.switches
    models = [t.switch for t in fabric.tiers] + [s.model for s in fabric.switches]
    return any((m := switches.get(k)) is not None and m.protocol == "ethernet" for k in models)


def _tiers(
    design: Design, index: int, fabric: Fabric, nic_gbps: float, domain: int
) -> tuple[tuple[int, float], ...]:
    """(GPUs under one switch group, down:up ratio) for each tier with uplinks, lowest first."""
    from dclint.calc.fabric_tiers import tier_bandwidths

    total = max(1, topology_of(design).gpus)
    out: list[tuple[int, float]] = []
    span = 0
    for tier in tier_bandwidths(design, index):
        ports = tier.down.m_as("Gb/s") / max(1, tier.switches) / nic_gbps
        if span == 0:  # rail-optimised: one leaf per rail, reached over NVLink (PXN)
            rails = min(domain, tier.switches) if fabric.rail_optimised else 1
            span = int(ports / fabric.nics_per_gpu * rails)
        else:
            span = int(span * ports)
        span = max(1, min(total, span))
        if tier.up is not None and tier.up.magnitude > 0:
            out.append((span, tier.down.m_as("Gb/s") / tier.up.m_as("Gb/s")))
    return tuple(out)


def _busiest_stage(wl: Workload) -> float:
    """Layers of the stage with the most when first or last stage layers are declared, or
    when the framework splits layers that do not divide over its stages itself (TorchTitan:
    layout_checks.framework_split, a rank holding virtual stages r, r + pp, ...); 0: an even
    split, layers / pp, or the embedding and the loss counted in it (`split_slots`: the step
    model times each stage that can bind)."""
    p, layers = wl.parallel, wl.model.layers
    ends = [v for v in (p.first_stage_layers, p.last_stage_layers) if v is not None]
    if layers is None or p.pp == 1 or any(split_slots(wl)):
        return 0.0
    stages = p.pp * p.vpp
    split = framework_split(wl.software_in_effect.framework, layers, stages)
    if not ends and split and layers % stages:
        return float(max(sum(split[r :: p.pp]) for r in range(p.pp)))
    if not ends:
        return 0.0
    others = p.pp - len(ends)
    middle = [(layers - sum(ends)) / others] if others > 0 else []
    return float(max(*ends, *middle)) if len(ends) + len(middle) > 1 else float(ends[0])


def inputs(
    design: Design, wl: Workload, hw: Hardware, notes: list[str]
) -> tuple[Arch, Layout, Machine, Software] | str:
    """The model's inputs for a workload, or why it cannot be predicted."""
    arch = _arch(wl)
    if arch is None:
        return "model.layers, hidden_size and vocab_size are needed to predict a step"
    peak = hw.gpu.dense_flops.get(wl.precision)
    if peak is None:
        return f"GPU '{hw.gpu_key}' has no dense {wl.precision} FLOPS in the catalog"
    eff = efficiency_for(hw.family, wl.precision, peak.m_as("FLOP/s"))
    if eff is None:
        return f"no efficiency constants for GPU '{hw.gpu_key}' at {wl.precision}"
    bf16 = hw.gpu.dense_flops.get("bf16")
    attention_peak = bf16.m_as("FLOP/s") if bf16 is not None else 0.0
    p = wl.parallel
    dp = p.dp or max(1, wl.gpus // (p.tp * p.pp * p.cp))
    batch = wl.global_batch
    if batch is None:
        batch = dp * wl.micro_batch * DEFAULT_MICRO_BATCHES_PER_STAGE * p.pp
        notes.append(
            f"global_batch not declared: {batch} sequences assumed "
            f"({DEFAULT_MICRO_BATCHES_PER_STAGE} x pp micro-batches a step, dclint's own default)"
        )
    settings = wl.software_in_effect
    sw = software(settings)
    torch_fsdp = settings.sharding in ("fsdp", "hsdp")
    reshard = settings.reshard_after_forward
    layout = Layout(
        p.tp,
        p.pp,
        p.cp,
        dp,
        p.ep,
        p.vpp,
        wl.micro_batch,
        batch,
        p.tp > 1 and p.sequence_parallel is not False,  # Megatron-Core recipes run it with tp
        p.distributed_optimizer,
        wl.recompute,
        p.sharding >= 3 or torch_fsdp,  # ZeRO-3 / FSDP: parameters sharded
        stage_layers=_busiest_stage(wl),
        split_slots=split_slots(wl),
        # FSDP's default: reshard after forward unless pipelined (TorchTitan); ZeRO-3 always
        reshard=(p.pp == 1 if reshard is None else reshard) if torch_fsdp else True,
        shard_group=settings.shard_group if settings.sharding == "hsdp" else 0,
        torch_fsdp=torch_fsdp,
    )
    ends = (p.first_stage_layers, p.last_stage_layers)
    if layout.stage_layers and p.pp > 1 and ends != (None, None):
        declared = ", ".join(
            f"{w} stage {n}" for w, n in zip(("first", "last"), ends, strict=True) if n is not None
        )
        notes.append(
            f"step timed on the busiest pipeline stage's {layout.stage_layers:g} layers with the"
            f" output layer and the loss (layers declared: {declared})"
        )
    links = _links(design, hw, eff.nvlink, eff.network, notes)
    machine = gpu_machine(
        peak.m_as("FLOP/s"), hw.gpu.hbm_bandwidth.m_as("B/s"), eff, links, attention_peak
    )
    # a power limit, or a catalog entry's own board power, below its family's measured part
    board = hw.power_limit if hw.power_limit is not None else hw.gpu.tdp
    scaled = power_clock(hw.family, board.m_as("W"))
    if scaled is not None and scaled[0] < 1.0:
        factor, note = scaled
        machine = replace(
            machine,
            matmul_eff=machine.matmul_eff * factor,
            attention_eff=machine.attention_eff * factor,
        )
        notes.append(note)
    # the attention kernels' narrow-head panels, as the step model picks them (model._layer_pass)
    narrow_heads = narrow(arch.q / arch.heads)
    if settings.flash_attention and settings.attention_kernel in ("sdpa", "flash2"):
        kernel = (
            "PyTorch SDPA's flash backend (FlashAttention-2)"
            if settings.attention_kernel == "sdpa"
            else "the flash-attn package's FlashAttention-2"
        )
        if machine.sdpa != (1.0, 1.0, 1.0):
            panel = f"; {SDPA_NARROW_SOURCE}" if narrow_heads else ""
            notes.append(f"core attention in {kernel}: {SDPA_SOURCE}{panel}")
        elif settings.attention_kernel == "sdpa" and (
            GENERATION.get(hw.family, hw.family) == "blackwell"
        ):
            notes.append(f"core attention in PyTorch SDPA: {SDPA_BLACKWELL}")
        else:
            notes.append(
                f"core attention in {kernel}: no per-pass measurement on '{hw.gpu_key}', the "
                "generation's attention rate"
            )
    if settings.flash_attention and sw.varlen_padding:
        notes.append(
            "llm-foundry's attn_impl flash gathers q, k and v out of their padding before "
            "flash-attn's varlen kernel and scatters the output back (flash_attn_fn, "
            "bert_padding): q, k and v read and written forward, their gradients scattered "
            "into zeros backward, the output the other way round (VARLEN_PAD_PASSES)"
        )
    if (
        settings.flash_attention
        and settings.attention_kernel in ("flash", "cudnn")
        and machine.fused_attention != (1.0, 1.0, 1.0)
    ):
        source = (
            FUSED_ATTENTION_SOURCE if settings.attention_kernel == "flash" else CUDNN_SDPA_SOURCE
        )
        panel = f"; {FUSED_NARROW_SOURCE}" if narrow_heads else ""
        notes.append(f"core attention in {source}{panel}")
    profile = design.calibration
    entry = profile.gpus.get(hw.gpu_key) if profile is not None else None
    if profile is not None and entry is not None:  # a profile changes only the GPUs it holds
        from dclint.projection.calibrate import calibrated

        machine = calibrated(machine, entry)
        notes.append(profile.describe(hw.gpu_key) or "")
    blackwell = GENERATION.get(hw.family, hw.family) == "blackwell"
    if wl.precision == "fp8" and settings.fp8_recipe == "mxfp8" and not blackwell:
        notes.append(
            f"fp8_recipe mxfp8 needs Blackwell tensor cores (block scaling in hardware); "
            f"'{hw.gpu_key}' has none: the step is predicted as if it ran"
        )
    torchao = wl.precision == "fp8" and settings.fp8_recipe in TORCHAO_FP8_RECIPES
    torchao_mx = wl.precision == "fp8" and settings.fp8_recipe == "mxfp8" and sw.torchao_mx

    def fp8_line(k: str, v: str) -> str:
        if k == "fp8" and torchao:
            return _torchao_fp8(settings, layout, machine)
        return _TORCHAO_MX if k == "fp8" and torchao_mx else v

    notes.append(
        f"step model: {settings.describe()}; efficiencies "
        + "; ".join(
            f"{k} {fp8_line(k, v)}" + (_fp4_recipe(settings) if k == "fp4" else "")
            for k, v in eff.sources
        )
    )
    notes.extend(_software_notes(settings, sw, layout, arch, fp8=wl.precision == "fp8"))
    if arch.experts and settings.cuda_graphs != FULL_ITERATION:
        local = arch.experts // max(1, layout.ep)
        notes.append(
            f"eager dropless experts: the host issues the GEMMs of each local expert ({local} a "
            f"GPU), {HOST_EXPERT_GEMM_SECONDS * 1e6:.0f} us a GEMM (2 forward, 4 backward), "
            "dclint's own calibration on Megatron-Bridge's Qwen3 runs of NeMo 25.11-26.06 "
            "(docs/performance-model.md); software.cuda_graphs: full-iteration removes it"
        )
    if arch.experts and layout.ep > 1 and not settings.overlap_ep:
        notes.append(_exposed_all_to_all(layout, settings, links.domain))
    expert_tp = settings.expert_tp or layout.tp
    if arch.experts and expert_tp > 1:
        notes.append(_expert_tp_collectives(expert_tp, settings.ep_dispatcher))
    return arch, layout, machine, sw


def _torchao_fp8(s: Settings, layout: Layout, machine: Machine) -> str:
    """What torchao's Float8 training does in an fp8 run of its recipes, as the step model
    charges it, in place of the efficiencies' Transformer Engine line (Megatron-Core's and
    NeMo's recipes): the Linear layers' GEMM operands cast to FP8 with their transpose
    (Machine.fp8_cast_bytes), the amax read the recipe adds (FP8_RECIPE_BYTES, its own
    line), attention in BF16 (torchao converts nn.Linear modules only), and the FSDP
    all-gather in FP8 where the workload declares it."""
    gather = (
        f"; FSDP all-gathers the weights in FP8, {FSDP_FP8_GATHER_BYTES:g} B a parameter "
        "(enable_fsdp_float8_all_gather)"
        if s.fp8_all_gather and layout.torch_fsdp and layout.dp * layout.cp > 1
        else ""
    )
    return (
        f"torchao Float8 training, {s.fp8_recipe} scaling: the converted Linear layers' GEMM "
        f"operands cast to FP8 with their transpose ({machine.fp8_cast_bytes:g} B an element, "
        f"and {FP8_RECIPE_BYTES[s.fp8_recipe]:g} B for the amax: torchao float8 "
        f"{s.fp8_recipe} scaling, below); attention in BF16 (torchao converts nn.Linear "
        f"modules only){gather}"
    )


# what torchao's MX linear casts, in place of the efficiencies' Transformer Engine line
_TORCHAO_MX = (
    "torchao MX linear (mxfp8_cublas, torchao/prototype/mx_formats/mx_linear.py at "
    "d8bb51f63): each converted Linear casts its input and weight along the rows forward, and "
    "its output gradient along rows and columns, its weight and saved input along columns "
    f"backward, {MX_CAST_BYTES:.3g} B an element a cast (read BF16, write e4m3 and an E8M0 "
    "scale every 32: dclint's count); TorchTitan's wq, wk and wv each cast x; attention in "
    "BF16 (torchao converts nn.Linear modules only)"
)


def _fp4_recipe(s: Settings) -> str:
    """What an FP4 run's step is charged beyond the efficiencies' NVFP4 line: the step model
    reads the declared fp8_recipe's amax bytes in FP4 runs too (FP8_RECIPE_BYTES); not an FP8
    recipe's GEMM rate (the NVFP4 rate is already block-scaled: Machine.fp4)."""
    extra = FP8_RECIPE_BYTES[s.fp8_recipe]
    return f"; and {extra:g} B an element for fp8_recipe {s.fp8_recipe}'s scaling" if extra else ""


def _software_notes(
    s: Settings, sw: Software, layout: Layout, arch: Arch, fp8: bool = False
) -> list[str]:
    """The assumptions behind the PyTorch-native terms a workload's settings turn on, each
    with its source or as dclint's own (docs/performance-model.md, Software)."""
    notes: list[str] = []
    # TorchTitan's tensor-parallel overlap is PyTorch's async TP (the step model's async_tp)
    async_tp = s.overlap_tp and s.framework == "torchtitan" and layout.tp > 1
    if s.gradient_sync and not (layout.torch_fsdp and layout.dp * layout.cp > 1):
        notes.append(
            f"gradient_sync {s.gradient_sync} not read: it is PyTorch FSDP's, and this layout "
            "shards nothing with it (ZeRO-3 without PyTorch FSDP reduces every micro-batch)"
        )
    if layout.torch_fsdp and layout.dp * layout.cp > 1:
        sync = gradient_sync_in_effect(s.gradient_sync, layout.pp)
        one = layout.global_batch // (layout.dp * layout.micro_batch) <= 1
        reduced = (
            "reduce-scattered once (one micro-batch a step)"
            if one
            else "reduce-scattered every micro-batch"
            if sync == "every-micro-batch"
            else "reduce-scattered after the last micro-batch only, accumulated unsharded "
            "until then ("
            + (
                "gradient_sync last-micro-batch: set_requires_gradient_sync(False) on the others)"
                if s.gradient_sync
                else "PyTorch's pipeline stages: backward_maybe_with_nosync)"
            )
        )
        when = (
            f"gathered for every micro-batch's forward and backward, gradients {reduced}"
            if layout.reshard
            else f"gathered once a step, gradients {reduced} (reshard_after_forward false: "
            "FSDP2 under pipeline parallelism, as TorchTitan runs it)"
            if layout.pp > 1
            else f"gathered for every micro-batch's forward, kept for its backward, gradients "
            f"{reduced} (reshard_after_forward false)"
        )
        group = (
            f"; HSDP: sharded over groups of {layout.shard_group}, gradients all-reduced across"
            if layout.shard_group
            else ""
        )
        notes.append(
            f"PyTorch FSDP: parameters {when}{group}; one collective a block, the next block's "
            "gather prefetched, the first gather and last reduction of a pass exposed; NCCL's "
            f"kernels take {FSDP_SM_SHARE:.0%} of the compute they run under on every leg, "
            "NVLink or network (Calculon's NVLink processor_usage, applied by dclint to FSDP's "
            "collectives)"
        )
    if s.kernels == "eager" and arch.swiglu:
        notes.append(
            "eager PyTorch kernels: a Llama-style layer's RMSNorm, rotary embedding and SwiGLU "
            f"one kernel an operation, {EAGER_NORM_BYTES} x h + {EAGER_ROTARY_BYTES} x (q + kv)"
            f" + {EAGER_SWIGLU_BYTES} x f bytes a token and layer beyond the fused kernels "
            "(dclint's count of TorchTitan's llama3 model code)"
        )
    if s.fp8_recipe in TORCHAO_FP8_RECIPES:
        notes.append(
            f"torchao float8 {s.fp8_recipe} scaling: {FP8_RECIPE_BYTES[s.fp8_recipe]:g} B an "
            "element beyond the cast-transpose for the amax (dclint's own count)"
        )
    if s.fp8_recipe == "rowwise":
        notes.append(
            f"torchao rowwise GEMMs: forward on PyTorch's CUTLASS row-wise kernel at "
            f"{ROWWISE_GEMM_RATE:g} of cuBLAS's tensor-wise FP8 rate (pytorch/pytorch#147971: most "
            "shapes at 90-100%), backward on cuBLAS with the scales applied in a separate pass, "
            f"{ROWWISE_RESCALE_BYTES:g} B an output element (pytorch/ao#1325); each Linear's "
            f"input cast row-wise forward and column-wise backward, {ROWWISE_INPUT_BYTES:g} B an "
            "input element (dclint's derivation from torchao's per-shape rowwise table, H100: "
            "narrow outputs such as TorchTitan's wk and wv cost more than they gain)"
            + (
                "; under async TP only the reduce-scatters fuse, the all-gathers move BF16 "
                "before the cast and stay blocking (pytorch/pytorch#149990)"
                if async_tp
                else ""
            )
            + "; fp8 runs only"
        )
    if s.fp8_recipe == "mxfp8":
        notes.append(
            f"MXFP8 GEMMs at {MXFP8_GEMM_RATE:.3f} of the per-tensor FP8 rate (Transformer "
            f"Engine's GEMM profiling guide, B300: a layer's GEMMs "
            f"{GUIDE_MS[('B300 SXM', 'mxfp8')]} ms in MXFP8 against "
            f"{GUIDE_MS[('B300 SXM', 'fp8')]} ms with per-tensor current scaling, inputs "
            "pre-quantized); fp8 runs only"
        )
    if s.flash_attention and s.attention_kernel == "triton":
        fwd, bwd = ATTENTION_KERNEL_SLOWDOWN[s.attention_kernel]
        notes.append(
            f"core attention in FlashAttention's Triton implementation: {fwd:g}x the flash "
            f"kernel's time forward and {bwd:g}x backward (Dao 2023, FlashAttention-2 sec. 4.1: "
            "1.3-1.5x faster forward, about 2x backward)"
        )
    if s.framework == "llm-foundry" and fp8:
        notes.append(
            "llm-foundry FP8 (fc_type te: llmfoundry/models/layers/fc.py, attention.py and "
            "ffn.py at b2a43a147): every attention and FFN Linear a Transformer Engine "
            "te.Linear after PyTorch's own LayerNorm, so the QKV's and the first FFN GEMM's "
            "BF16 inputs are cast to FP8 with their transpose too (no LayerNormLinear writes "
            "them in FP8, as Megatron-Core's layer does)"
        )
    notes.append(_optimizer_note(s))
    if s.fp32_state_note:
        notes.append(s.fp32_state_note)
    if async_tp and fp8 and s.fp8_recipe == "rowwise":
        notes.append(
            "async tensor parallelism (PyTorch's micro-pipeline TP) under torchao's rowwise "
            "recipe: the forward and recomputed passes' reduce-scatters run on the copy engines, "
            "each under the matmul it is fused with (wo's, w2's); their all-gathers stay "
            "blocking (pytorch/pytorch#149990), as do the backward's collectives (no "
            "matmul-reduce-scatter pattern in the backward graph, pytorch/pytorch#149946)"
        )
    elif async_tp:
        notes.append(
            "async tensor parallelism (PyTorch's micro-pipeline TP): the forward and recomputed "
            "passes' all-gathers and reduce-scatters run on the copy engines, each under the "
            "matmuls it is fused with (an all-gather under QKV's or the MLP's first GEMMs, a "
            "reduce-scatter under wo's or w2's: micro_pipeline_tp.py); the backward's stay "
            "blocking (no matmul-reduce-scatter pattern in the backward graph, "
            "pytorch/pytorch#149946)"
        )
    if per_projection(s.tp_plan, layout.tp, layout.sequence_parallel):
        each = tp_collectives(arch, layout, sw)
        megatron = tp_collectives(arch, layout, replace(sw, tp_plan="megatron"))
        notes.append(
            # model._tp_comm's async branch budgets Megatron's plan's collectives
            f"tp_plan per-projection under async TP: not modelled (no source says how "
            f"PyTorch's micro-pipelining fuses the extra all-gathers); timed with Megatron's "
            f"plan's {megatron} collectives a layer's pass, each under its matmuls, and the "
            "loss over the whole vocabulary"
            if async_tp
            else f"tensor parallel per projection (tp_plan per-projection, KempnerForge's "
            "DTensor plan: ColwiseParallel(input_layouts=Shard(1)) on q, k, v, gate and up): "
            f"each column-parallel projection all-gathers the sequence-sharded input itself, "
            f"{each} collectives a layer's pass where Megatron's plan has {megatron}, blocking; "
            "torch.compile merges their uses but still runs them (pytorch/pytorch#146045), "
            f"though a compiled full recomputation re-runs only the {megatron} the backward "
            "needs (AOTAutograd's partition of the deduplicated graph); the output head's "
            "logits all-gathered over the vocabulary each micro-batch (output_layouts "
            "Replicate()) and the loss computed over all of it on every rank"
        )
    if not s.overlap_pp and s.framework == "torchtitan" and layout.pp > 1:
        notes.append(
            "pipeline sends blocking: PyTorch's pipeline schedules wait on each batched send and "
            "receive before the next stage computation (torch.distributed.pipelining, "
            "Schedule1F1B)"
        )
    if s.cp_comm_type == "all_gather" and layout.cp > 1:
        notes.append(
            "context parallel as Transformer Engine's cp_comm_type all_gather (Llama 3's, Dubey "
            "et al. 2024, sec. 3.3.2): the query groups' K and V all-gathered from the cp ranks "
            "in each forward and again in the backward, dK and dV reduce-scattered, each exposed "
            "('The all-gather is not async, and cannot be overlapped'); the rank's two sequence "
            "chunks attend to the gathered K and V up to their positions, no ring merge"
        )
    if s.framework == "torchtitan" and s.cp_comm_type == "p2p" and layout.cp > 1:
        hidden = (
            "every all-gather and send waited on where it is issued, exposed (torch.compile "
            "traces the ring: a traced functional collective waits at once, and Inductor's "
            "reorder_for_compute_comm_overlap is off by default)"
            if s.kernels == "compiled"
            else "the all-gather under the first chunk's attention, each send under the next step's"
        )
        notes.append(
            "PyTorch's context parallel: K and V reach attention repeated to the query heads "
            "(TorchTitan's repeat_kv), the other ranks' chunks all-gathered at once (the default "
            "all-gather rotater of torch.distributed.tensor.experimental), the fp32 dK and dV "
            f"passed on at every backward step, {hidden}; each step after "
            f"the first merges its output into the fp32 running one ({TORCH_CP_MERGE_BYTES[0]:g} B "
            f"an output element) and its gradients into fp32 dQ, dK and dV "
            f"({TORCH_CP_MERGE_BYTES[1]:g} B), dclint's count of the code's operations as "
            "torch.compile fuses them"
        )
    if s.selective_recompute == "op" and layout.recompute == "selective":
        notes.append(
            "op-level selective recomputation (TorchTitan's policy: the attention output and "
            "every other matmul's saved): the backward repeats half the layer's GEMMs and its "
            "element-wise operations"
        )
    return notes


def _exposed_all_to_all(lay: Layout, s: Settings, domain: int) -> str:
    """Where the expert all-to-all runs and the published settings that hide or shorten it:
    the step model leaves it exposed unless the workload declares the overlap."""
    stride = (s.expert_tp or lay.tp) if s.moe_parallel_folding else lay.tp * lay.cp
    span = lay.ep * stride
    local = lay.ep if span <= domain else max(1, min(lay.ep, domain // stride))
    where = (
        f"ep {lay.ep} ranks {stride} apart span {span:,} GPUs, {local} of them in a "
        f"{domain}-GPU NVLink domain: {1 - local / lay.ep:.0%} of its bytes cross the "
        "scale-out network"
        if span > domain
        else f"ep {lay.ep} inside one {domain}-GPU NVLink domain"
    )
    return (
        f"expert all-to-all not overlapped ({where}): Megatron-Core's "
        "--overlap-moe-expert-parallel-comm (software.overlap_ep: true, Megatron-Bridge's "
        "moe_a2a_overlap) runs it under the paired micro-batch's compute, and MoE parallel "
        "folding at expert_tp 1 numbers the ep ranks next to each other"
    )


def _optimizer_note(s: Settings) -> str:
    """The optimizer step's HBM bytes a parameter as the step model charges them
    (optimizer_parts, whose sum is the software record's), with what they count."""
    adam, clip = optimizer_parts(s)
    total = adam + clip
    dtype = "bf16" if s.bf16_state else "fp32"
    model = " on a bf16 model (param_dtype bf16: moments in the parameters' dtype)"
    if s.framework == "llm-foundry":
        return (
            f"optimizer step as Composer runs it{model if s.bf16_state else ''}: {total:g} B "
            f"of HBM traffic a parameter (DecoupledAdamW, one kernel an operation on {dtype} "
            "state, after clipping the gradients by norm; composer/optim/"
            "decoupled_weight_decay.py, v0.16) where a fused Adam on fp32 state after "
            f"torch's clipping moves {ADAM_BYTES + CLIP_BYTES:g} B"
        )
    what = (
        f"AdamW{model}, {adam:g} B, no fp32 master weight"
        if s.bf16_state
        else f"a fused Adam on fp32 state, {adam:g} B"
    )
    if s.framework == "megatron-core":
        clipping = (
            f"the gradients' norm, {clip:g} B (it reads each fp32 main gradient; Megatron-Core "
            "scales them only when the norm exceeds clip_grad)"
        )
    elif s.framework == "deepspeed":
        clipping = (
            "the gradients' norm and the unscaling by DeepSpeed's loss scale, which its ZeRO "
            f"optimizers run whatever gradient_clipping says, at least {clip:g} B (the norm "
            "reads each gradient, the scale reads and writes it; the norm's fp64 copies not "
            "counted)"
        )
    else:
        clipping = (
            f"clipping the gradients by norm, {clip:g} B (the norm reads each {dtype} "
            "gradient, the scale reads and writes it)"
        )
    return f"optimizer step: {total:g} B of HBM traffic a parameter ({what}; {clipping})"


def _expert_tp_collectives(expert_tp: int, dispatcher: str) -> str:
    """How the step model times the expert-tp collectives of the token dispatcher."""
    if dispatcher != "alltoall":
        return (
            f"expert tp {expert_tp} with the flex dispatcher: the dispatch sends each routed "
            f"token to the {expert_tp} expert-tp ranks of its expert (Megatron-Core's "
            "MoEFlexTokenDispatcher, top-k and experts x expert tp over the tp x ep group); "
            "the step model times the all-to-all at one copy"
        )
    return (
        f"expert tp {expert_tp}: Megatron-Core's all-to-all dispatcher all-gathers the routed "
        f"tokens over the {expert_tp} expert-tp ranks after the dispatch and reduce-scatters "
        "them before the combine (their backward: a reduce-scatter and an all-gather), "
        "blocking NCCL calls on the compute stream outside the userbuffers and the "
        "all-to-all overlap: charged exposed, BF16, in the tensor-parallel term"
    )


def optimizer_parts(s: Settings) -> tuple[float, float]:
    """HBM bytes the optimizer step moves a (sharded) parameter and those of the gradients'
    clipping before it, as each framework runs it (step.records, CLIP_BYTES's comment):
    Composer's DecoupledAdamW under llm-foundry (COMPOSER_ADAM_BYTES, its clipping counted
    in: 0 apart), a fused AdamW elsewhere (ADAM_BYTES) after the norm alone under Megatron-Core
    (MEGATRON_CLIP_BYTES: it scales only when clipping) and the norm and the scale elsewhere
    (CLIP_BYTES); their bf16 counts on a bf16 model whose optimizer keeps its state in the
    parameters' dtype (Settings.bf16_state)."""
    if s.framework == "llm-foundry":
        return (COMPOSER_ADAM_BF16_BYTES if s.bf16_state else COMPOSER_ADAM_BYTES), 0.0
    if s.bf16_state:
        return ADAM_BF16_BYTES, CLIP_BF16_BYTES
    return ADAM_BYTES, MEGATRON_CLIP_BYTES if s.framework == "megatron-core" else CLIP_BYTES


def software(s: Settings) -> Software:
    """The step model's software record from a workload's resolved settings."""
    return Software(
        s.flash_attention,
        s.overlap_tp,
        s.overlap_dp,
        s.overlap_pp,
        s.overlap_cp,
        s.grad_bytes,
        s.p2p_scatter_gather,
        s.fp8_recipe,
        s.expert_tp,
        s.moe_parallel_folding,
        bool(s.cuda_graphs),
        s.overlap_ep,
        s.cuda_graphs == FULL_ITERATION,
        s.ep_dispatcher != "alltoall",
        s.kernels,
        s.fp8_all_gather,
        s.selective_recompute == "op",
        s.attention_kernel,
        # TorchTitan's tensor-parallel overlap is PyTorch's async TP
        s.overlap_tp and s.framework == "torchtitan",
        # PyTorch's context parallel: TorchTitan's ring
        s.framework == "torchtitan" and s.cp_comm_type == "p2p",
        float(s.ddp_bucket_size),
        sum(optimizer_parts(s)),
        cp_all_gather=s.cp_comm_type == "all_gather",
        fused_cross_entropy=bool(s.fused_cross_entropy),
        moe_sequence_parallel=s.framework == "megatron-core",
        gradient_sync=s.gradient_sync,
        # llm-foundry's fc_type te: each Linear a te.Linear after PyTorch's own norm
        fp8_cast_every_input=s.framework == "llm-foundry",
        # TorchTitan's MXFP8 is torchao's MX linear (TorchTitan runs no Transformer Engine)
        torchao_mx=s.fp8_recipe == "mxfp8" and s.framework == "torchtitan",
        tp_plan=s.tp_plan,
        # llm-foundry's attn_impl flash: flash_attn_varlen_func on unpadded q, k and v
        varlen_padding=s.framework == "llm-foundry" and s.attention_kernel == "flash2",
    )


def run(
    arch: Arch,
    layout: Layout,
    machine: Machine,
    sw: Software,
    gpus: int,
    causal: bool,
    notes: list[str],
    band: Band,
) -> Prediction:
    """The step's quantities from the model's inputs."""
    staged = stage_steps(arch, layout, machine, sw, causal)
    binding = max(staged, key=lambda named: named[2].time)  # the stage `step` returns
    st = binding[2]
    if len(staged) > 1:
        notes = [*notes, _stage_note(staged, binding, layout)]
    seconds = st.time
    denominator = seconds * gpus * machine.peak
    tokens = layout.global_batch * arch.seq
    return Prediction(
        st,
        Q_(seconds, "s"),
        {k: Q_(v, "s") for k, v in st.parts().items()},
        Q_(st.model_flops / denominator, "dimensionless"),
        Q_(st.hardware_flops / denominator, "dimensionless"),
        Q_(tokens / seconds, "token/s"),
        float(tokens),
        tuple(notes),
        band,
    )


def _stage_note(
    staged: tuple[tuple[str, Layout, Step], ...],
    binding: tuple[str, Layout, Step],
    layout: Layout,
) -> str:
    """Which pipeline stage the step was timed on (`binding`, the slowest of `staged`), when
    the embedding or the loss takes a layer's place in the split (`stage_steps`: the stages
    differ)."""
    name, lay, _ = binding
    which = "a middle one" if name == "middle" and layout.pp > 3 else f"the {name} one"
    each = ", ".join(
        f"{n} {fmt(Q_(s.time, 's'))}"  # the binding stage's as the predicted step prints
        + (" with the output layer and the loss" if stage.head else "")
        for n, stage, s in staged
    )
    embedding, loss = layout.split_slots
    counted = " and ".join(w for w, on in (("the embedding", embedding), ("the loss", loss)) if on)
    return (
        f"step timed on the slowest pipeline stage: {which}, {lay.stage_layers:g} layers"
        f" ({each}); {counted} counted in the pipeline split"
    )


def predict(
    design: Design,
    wl: Workload,
    hw: Hardware,
    causal: bool = True,
    nonblocking: bool = False,
    domain: int | None = None,
) -> Prediction | str:
    """The predicted step of `wl`, or why it cannot be predicted. `nonblocking` re-runs the
    same design with every fabric tier at 1:1 (what NET001's limit asks for); `domain` with
    NVLink domains of at least that many GPUs (what PAR002's asks for)."""
    notes: list[str] = []
    got = inputs(design, wl, hw, notes)
    if isinstance(got, str):
        return got
    arch, layout, machine, sw = got
    if nonblocking:  # every tier at 1:1; ECMP collisions stay
        flat = tuple((under, 1.0) for under, _ in machine.links.tiers)
        machine = replace(machine, links=replace(machine.links, tiers=flat))
    if domain is not None and domain > machine.links.domain:
        machine = replace(machine, links=replace(machine.links, domain=domain))
    framework = wl.software_in_effect.framework
    band = band_for_gpu(
        hw.family,
        arch.experts > 0,
        framework,
        wl.gpus,
        layout.cp,
        wl.software_in_effect.cp_comm_type,
    )
    return run(arch, layout, machine, sw, wl.gpus, causal, notes, band)
