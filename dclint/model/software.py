"""The training software a workload runs: typed settings, or a named preset of them.

A workload's `software:` names a `preset` (a framework and version whose settings are sourced
below, in `PRESETS`) and/or declares settings; a declared setting overrides the preset's, and
a setting neither declares takes dclint's default (`DEFAULTS`: Megatron-Core with Transformer
Engine as NVIDIA's current recipes run it). `Workload.software_in_effect` gives the resolved
`Settings`; the step model (dclint.projection.step.model) and PAR004's memory read only that.
"""

# Annotations are evaluated as written, without `from __future__ import annotations`: pydantic
# reads this module's field types (why: the top of dclint.model.types).
from dataclasses import dataclass, fields, replace
from typing import Literal

from pydantic import Field

from dclint.model.types import PositiveInt, Strict

__all__ = [
    "ATTENTION_KERNELS",
    "DEFAULTS",
    "EP_DISPATCHERS",
    "FP8_RECIPES",
    "FULL_ITERATION",
    "GRADIENT_SYNCS",
    "KERNELS",
    "MOVED_KEYS",
    "PRESETS",
    "PRESET_SOURCES",
    "SHARDING_KINDS",
    "STATE_IN_PARAM_DTYPE",
    "TORCHAO_FP8_RECIPES",
    "Fp8Recipe",
    "GradientSync",
    "PresetName",
    "Settings",
    "Sharding",
    "Software",
    "gradient_sync_in_effect",
    "per_projection",
    "vocabulary_shards",
]

FULL_ITERATION = "full-iteration"
EpDispatcher = Literal["alltoall", "deepep", "hybridep"]
# a dispatcher's name as the prediction's notes say it
EP_DISPATCHERS = {"alltoall": "all-to-all", "deepep": "DeepEP", "hybridep": "HybridEP"}
# Transformer Engine's recipes (delayed, current, blockwise, mxfp8) and torchao's float8
# training recipes (tensorwise: dynamic scaling a tensor; rowwise: a scale a row)
Fp8Recipe = Literal["delayed", "current", "blockwise", "mxfp8", "tensorwise", "rowwise"]
FP8_RECIPES: tuple[str, ...] = (
    "delayed",
    "current",
    "blockwise",
    "mxfp8",
    "tensorwise",
    "rowwise",
)
# the recipes torchao's Float8 training runs (TorchTitan's float8 converter); the others are
# Transformer Engine's
TORCHAO_FP8_RECIPES: tuple[str, ...] = ("tensorwise", "rowwise")
PresetName = Literal[
    "megatron-lm-2021",
    "megatron-core-0.8",
    "megatron-core",
    "nemo",
    "nemo-2",
    "nemo-25.11",
    "deepspeed-zero3",
    "accelerate-deepspeed",
    "torchtitan",
    "llm-foundry",
]
# where the element-wise kernels (norms, activation, rotary embedding, residuals) come from:
# Transformer Engine's fused modules, PyTorch eager (one kernel an operation), or
# torch.compile's fused Triton kernels
Kernels = Literal["transformer-engine", "eager", "compiled"]
KERNELS: tuple[str, ...] = ("transformer-engine", "eager", "compiled")
ShardingKind = Literal["fsdp", "hsdp", "zero"]
SHARDING_KINDS: tuple[str, ...] = ("fsdp", "hsdp", "zero")
# what selective recomputation repeats: Megatron-Core's core attention (Korthikanti et al.
# 2022), or TorchTitan's op-level policy (every other matmul of a layer and the element-wise
# operations around them; docs/performance-model.md, Software)
SelectiveRecompute = Literal["core-attention", "op"]
# core attention's kernel: Transformer Engine's fused attention (FlashAttention-2-class; cuDNN's
# kernels on Hopper and later, where Transformer Engine prefers them), FlashAttention's Triton
# implementation (flash_attn_triton, llm-foundry's attn_impl: triton), or PyTorch SDPA's flash
# backend (the FlashAttention-2 kernels PyTorch bundles, at their rate measured per pass)
AttentionKernel = Literal["flash", "triton", "sdpa", "flash2", "cudnn"]
ATTENTION_KERNELS: tuple[str, ...] = ("flash", "triton", "sdpa", "flash2", "cudnn")
# how context parallelism moves K and V, by Transformer Engine's names (DotProductAttention's
# cp_comm_type, Megatron-Core's --cp-comm-type, default p2p): p2p, a ring of K and V chunks
# (Transformer Engine's AttnFuncWithCPAndKVP2P; under TorchTitan, PyTorch's context parallel,
# itself a ring); all_gather, the query groups' K and V all-gathered once a layer pass and
# the local query chunks' attention run against them (AttnFuncWithCPAndKVAllGather, "Refer
# section 3.3.2 of The Llama 3 Herd of Models"). TE's a2a (Ulysses) is not modelled.
CpCommType = Literal["p2p", "all_gather"]
# the dtype the parameters are kept in (Settings.param_dtype)
ParamDtype = Literal["fp32", "bf16"]
# frameworks whose optimizer keeps its state in the parameters' dtype (Settings.bf16_state):
# TorchTitan's torch.optim.AdamW (torch/optim/adamw.py: exp_avg = torch.zeros_like(p)) and
# Composer's DecoupledAdamW, a torch.optim.AdamW subclass with the same zeros_like state
# (composer/optim/decoupled_weight_decay.py, v0.16). Megatron's mixed-precision optimizers
# (the distributed one's shard_model_param.clone().float()) and DeepSpeed's bf16 and ZeRO
# optimizers (the partition .clone().float()) keep fp32 main weights and moments whatever the
# model's dtype.
STATE_IN_PARAM_DTYPE: tuple[str, ...] = ("torchtitan", "llm-foundry")
# the optimizer that keeps fp32 state, as Settings.fp32_state_note names it
_FP32_STATE_OPTIMIZERS = {
    "megatron-core": "Megatron's mixed-precision optimizer",
    "deepspeed": "DeepSpeed's bf16 or ZeRO optimizer",
}
# when PyTorch FSDP reduce-scatters the gradients of a step of several micro-batches: after
# every micro-batch's backward (FSDP2 and FSDP1 as they run by default; TorchTitan, Composer),
# or after the last one's only, the others accumulating unsharded gradients (FSDP2's
# set_requires_gradient_sync(False), FSDP1's no_sync(): KempnerForge, Accelerate's FSDP)
GradientSync = Literal["every-micro-batch", "last-micro-batch"]
GRADIENT_SYNCS: tuple[str, ...] = ("every-micro-batch", "last-micro-batch")


def per_projection(tp_plan: str, tp: int, sequence_parallel: bool) -> bool:
    """Whether the per-projection TP plan is in effect: declared, at tp > 1, with sequence
    parallelism (without it both plans all-reduce the same two outputs a pass); the step
    model's collectives, the assumptions and `vocabulary_shards` read this one test."""
    return tp_plan == "per-projection" and sequence_parallel and tp > 1


def vocabulary_shards(tp_plan: str, tp: int, sequence_parallel: bool) -> int:
    """The tp ranks the output layer's logits and the loss are split over: tp, but 1 under the
    per-projection plan, whose output head is a ColwiseParallel with Replicate output (the
    logits all-gathered, the loss over the whole vocabulary on every rank: KempnerForge's);
    the step model's loss and PAR004's logits read the same count."""
    return 1 if per_projection(tp_plan, tp, sequence_parallel) else tp


def gradient_sync_in_effect(declared: str, pp: int) -> str:
    """When PyTorch FSDP reduce-scatters a step's gradients, as the step model times it and
    PAR004 holds them: as declared, else after the last micro-batch under pipeline parallelism
    (torch.distributed.pipelining's PipelineStage.backward_maybe_with_nosync turns the sync
    and the resharding off on every backward but the last, the gradients accumulating
    unsharded) and after every micro-batch without it (fully_shard's default, with or without
    reshard_after_forward)."""
    return declared or ("last-micro-batch" if pp > 1 else "every-micro-batch")


# where a tensor-parallel layer's sequence-parallel input is all-gathered (Settings.tp_plan):
# megatron, once for attention's projections and once for the MLP's (Megatron-Core's fused
# QKV and fc1 ColumnParallelLinear; TorchTitan's PrepareModuleInput on attention and
# feed_forward), or per-projection, by each column-parallel projection for itself (a DTensor
# plan of ColwiseParallel(input_layouts=Shard(1)) on q, k, v, gate and up: KempnerForge's)
TpPlan = Literal["megatron", "per-projection"]
TP_PLANS: tuple[str, ...] = ("megatron", "per-projection")
_ATTENTION_PHRASE = {
    "flash": "flash attention",
    "triton": "flash attention in Triton",
    "sdpa": "flash attention (PyTorch SDPA's FlashAttention-2)",
    "flash2": "flash attention (the flash-attn package's FlashAttention-2)",
    "cudnn": "flash attention (PyTorch SDPA's cuDNN attention)",
}


@dataclass(frozen=True, slots=True)
class Settings:
    """Every software setting, resolved (preset, then declared, then dclint's default)."""

    flash_attention: bool = True
    overlap_tp: bool = True
    overlap_dp: bool = True
    overlap_pp: bool = True
    overlap_cp: bool = True
    overlap_ep: bool = False  # Megatron-Core's --overlap-moe-expert-parallel-comm (opt-in)
    grad_reduce_in_fp32: bool = True
    p2p_scatter_gather: bool = False
    fp8_recipe: str = "delayed"
    expert_tp: int = 0  # 0: the workload's tp (Megatron-Core's default)
    moe_parallel_folding: bool = False
    # True: the layers' attention, router and dispatch preprocessing captured (the dropless
    # experts stay eager); "full-iteration": the whole step captured, experts included
    cuda_graphs: bool | str = False
    # the expert all-to-all's implementation: Megatron-Core's alltoall dispatcher, or the flex
    # dispatcher's DeepEP or HybridEP backend (one network copy of a token a node)
    ep_dispatcher: str = "alltoall"
    kernels: str = "transformer-engine"
    # FSDP2 / torchao: FP8 weights all-gathered in FP8 (enable_fsdp_float8_all_gather)
    fp8_all_gather: bool = False
    selective_recompute: str = "core-attention"
    # core attention's kernel: flash (Transformer Engine's fused attention: FlashAttention-2-
    # class, cuDNN's on Hopper), triton (FlashAttention in Triton), sdpa (PyTorch SDPA's flash
    # backend) or flash2 (the flash-attn package's FlashAttention-2 kernels: sdpa's rates)
    attention_kernel: str = "flash"
    # context parallelism's communication (CpCommType): p2p (a ring; every framework's
    # default) or all_gather
    cp_comm_type: str = "p2p"
    # data-parallel sharding as the framework runs it ("": parallel.zero_stage's, Megatron-
    # Core's distributed optimizer or ZeRO); fsdp / hsdp: PyTorch FSDP (Sharding below)
    sharding: str = ""
    shard_group: int = 0  # hsdp: ranks a shard group holds (0: every data-parallel rank)
    # None: FSDP's default (True without pipeline parallelism, False with it, as TorchTitan
    # sets it); True: parameters regathered every micro-batch; False: once a step
    reshard_after_forward: bool | None = None
    # PyTorch FSDP's gradient reduce-scatter (GradientSync); "": gradient_sync_in_effect's
    # default, the last micro-batch under pipeline parallelism (PyTorch's pipeline stages sync
    # on the last backward), every micro-batch without it
    gradient_sync: str = ""
    # where the tensor-parallel layers all-gather their sequence-parallel input (TpPlan):
    # megatron (every preset's: Megatron-Core's sequence parallelism, TorchTitan's
    # PrepareModuleInput) or per-projection (each column-parallel projection for itself, the
    # output head's logits all-gathered: KempnerForge's plan)
    tp_plan: str = "megatron"
    # transformer layers whose activations go to host memory (Megatron-Core's
    # --cpu-offloading-num-layers, activations only); 0: none
    activation_offload_layers: int = 0
    # Megatron-Core's --fp8-param-gather: fp8 runs keep the layers' weights in FP8
    # (Transformer Engine's Float8Tensor) and all-gather them in FP8
    fp8_param_gather: bool = False
    # Megatron-Core's cross_entropy_loss_fusion with cross_entropy_fusion_impl "te": Transformer
    # Engine's parallel_cross_entropy writes the gradient over the bf16 logits
    fused_cross_entropy: bool = False
    # TorchTitan's ChunkedLossWrapper (num_chunks): the output layer and the loss run a chunk
    # of the sequence at a time, forward and backward; 1: the whole micro-batch's logits at once
    loss_chunks: int = 1
    # the dtype the parameters are kept in: fp32 (bf16 compute copies, fp32 master weights and
    # Adam moments), or bf16 (a model built in bf16 before sharding, KempnerForge: bf16
    # parameters, gradients and AdamW states, no fp32 copy, where bf16_state says so)
    param_dtype: str = "fp32"
    # Megatron-Core's DistributedDataParallelConfig.bucket_size (parameters a gradient bucket
    # holds); 0: its default, max(4e7, 1e6 x the data-parallel group's ranks)
    ddp_bucket_size: int = 0
    framework: str = "megatron-core"
    preset: str = ""  # the preset the settings came from ("": none)

    @property
    def bf16_state(self) -> bool:
        """Whether a bf16 model (param_dtype bf16) keeps its gradients and AdamW moments in
        bf16, no fp32 copy: under the frameworks whose optimizer keeps state in the
        parameters' dtype (`STATE_IN_PARAM_DTYPE`). PAR004's state bytes, the step model's
        optimizer bytes and both notes read this one test."""
        return self.param_dtype == "bf16" and self.framework in STATE_IN_PARAM_DTYPE

    @property
    def fp32_state_note(self) -> str:
        """The phrase PAR004's notes and a prediction's assumptions share where param_dtype
        bf16 is declared under a framework that keeps fp32 state ("" elsewhere)."""
        if self.param_dtype != "bf16" or self.bf16_state:
            return ""
        optimizer = _FP32_STATE_OPTIMIZERS.get(self.framework, "its optimizer")
        return (
            f"param_dtype bf16 under {self.framework}: {optimizer} keeps fp32 main weights and "
            "Adam moments whatever the model's dtype, counted and timed as fp32 state"
        )

    @property
    def grad_bytes(self) -> float:
        """Bytes a gradient element is reduced in: fp32 4, else the parameters' 16 bits."""
        return 4.0 if self.grad_reduce_in_fp32 else 2.0

    def _overlapped(self, kind: str) -> str:
        """A kind of communication the step model overlaps, as describe() names it: under
        torchao's rowwise recipe TorchTitan's async TP fuses only the reduce-scatters
        (pytorch/pytorch#149990)."""
        if kind == "tp" and self.framework == "torchtitan" and self.fp8_recipe == "rowwise":
            return "TP reduce-scatters"
        return kind.upper()

    def describe(self) -> str:
        """One phrase for a prediction's assumptions: the settings the step model honours."""
        # the all-gather context parallel runs exposed whatever overlap_cp says
        over = [
            k
            for k in ("tp", "dp", "pp", "cp", "ep")
            if getattr(self, f"overlap_{k}") and (k != "cp" or self.cp_comm_type == "p2p")
        ]
        parts = [
            _ATTENTION_PHRASE[self.attention_kernel]
            if self.flash_attention
            else "unfused attention",
            ("communication overlapped: " + ", ".join(self._overlapped(o) for o in over))
            if over
            else "no communication overlapped",
            f"gradients reduced in {'fp32' if self.grad_reduce_in_fp32 else '16-bit'}",
        ]
        if self.cuda_graphs == FULL_ITERATION:
            parts.append("the whole iteration in one CUDA graph")
        elif self.cuda_graphs:
            parts.append("CUDA graphs")
        if self.moe_parallel_folding:
            parts.append("MoE parallel folding")
        if self.ep_dispatcher != "alltoall":
            parts.append(f"{EP_DISPATCHERS[self.ep_dispatcher]} expert dispatch")
        if self.kernels != "transformer-engine":
            parts.append(
                "torch.compile's fused kernels"
                if self.kernels == "compiled"
                else "eager PyTorch kernels (one an element-wise operation)"
            )
        if self.sharding in ("fsdp", "hsdp"):
            kind = "HSDP" if self.sharding == "hsdp" else "FSDP"
            group = f", shard groups of {self.shard_group}" if self.shard_group else ""
            re = self.reshard_after_forward
            when = (
                "regathered every micro-batch"
                if re
                else "gathered once a step"
                if re is False
                else "resharded after forward unless pipelined"
            )
            synced = {
                "every-micro-batch": ", gradients reduce-scattered every micro-batch",
                "last-micro-batch": ", gradients reduce-scattered on the last micro-batch only",
            }.get(self.gradient_sync, "")
            parts.append(f"{kind}{group}, parameters {when}{synced}")
        if self.tp_plan == "per-projection":
            parts.append("tensor parallel per projection (each gathers its own input)")
        if self.fp8_all_gather:
            parts.append("FP8 parameter all-gather")
        if self.selective_recompute == "op":
            parts.append("op-level selective recomputation")
        if self.cp_comm_type == "all_gather":
            parts.append("context parallel K and V all-gathered (cp_comm_type all_gather)")
        if self.ddp_bucket_size:
            parts.append(f"gradient buckets of {self.ddp_bucket_size:,} parameters")
        name = f"preset {self.preset}" if self.preset else "dclint's default software"
        return f"{name} ({'; '.join(parts)})"


# dclint's defaults: Megatron-Core with Transformer Engine as NVIDIA's current performance
# recipes run it (flash attention, TP/DP/PP/CP overlap), fp32 gradient reduction (Megatron-
# Core's DistributedDataParallelConfig default), Transformer Engine's default FP8 recipe
# (DelayedScaling), no MoE parallel folding, no expert-parallel all-to-all overlap and no CUDA
# graphs (all three opt-in)
DEFAULTS = Settings()

# Each preset's settings, from the named source (docs/performance-model.md, "Software presets").
PRESETS: dict[str, Settings] = {
    # Narayanan et al. 2021 (SC21) and its code (Megatron-LM v2, examples/academic_paper_scripts
    # /sc21): unfused softmax attention (before flash attention), no TP or PP overlap, the
    # gradient all-reduce after the backward (local DDP), fp16 gradients, pipeline activations
    # scattered over the tp ranks and all-gathered over NVLink (--scatter-gather-tensors-in-
    # pipeline, on by default)
    "megatron-lm-2021": Settings(
        flash_attention=False,
        overlap_tp=False,
        overlap_dp=False,
        overlap_pp=False,
        overlap_cp=False,
        grad_reduce_in_fp32=False,
        p2p_scatter_gather=True,
        preset="megatron-lm-2021",
    ),
    # Megatron-Core 0.8 (Megatron-LM README at core_r0.8.0, its throughput tables: flash
    # attention, TP, DP and PP communication overlapped); Megatron-Core reduces bf16 runs'
    # gradients in fp32 by default;
    # Transformer Engine's default DelayedScaling recipe; --expert-tensor-parallel-size and
    # MoE parallel folding came later (Liu et al. 2025)
    "megatron-core-0.8": Settings(preset="megatron-core-0.8"),
    # NeMo 2.0 performance recipes (NeMo scripts/performance/llm): Megatron-Core with TP
    # overlap (userbuffers), overlapped gradient reduce and parameter gather, bf16 gradient
    # reduction (grad_reduce_in_fp32 False), FP8 delayed scaling, MoE parallel folding
    # (expert_tensor_parallel_size set per recipe); FP8 weights gathered in FP8 and
    # Transformer Engine's fused cross-entropy: at NeMo 6f2c6fd, 7a8f1cc and b4148d2 (the
    # 25.04 containers), scripts/performance/utils.py set_primary_perf_configs takes
    # bf16_with_fp8_mixed() for fp8 (recipes/precision/mixed_precision.py: "cfg.fp8_param_gather
    # = True") and sets cross_entropy_fusion_impl "te" over GPTConfig's
    # cross_entropy_loss_fusion True
    "nemo-2": Settings(
        grad_reduce_in_fp32=False,
        moe_parallel_folding=True,
        fp8_param_gather=True,
        fused_cross_entropy=True,
        preset="nemo-2",
    ),
    # NeMo Framework 25.11 container, Megatron-Bridge performance recipes (scripts/performance:
    # set_basic_perf_overrides, the models' perf configs set ddp.grad_reduce_in_fp32 False; the
    # performance summary's FP8 rows use current scaling, FP8-CS, whose precision config,
    # bf16_with_fp8_current_scaling_mixed, sets fp8_param_gather True; the common perf
    # overrides set cross_entropy_fusion_impl "te" over the model provider's
    # cross_entropy_loss_fusion True)
    "nemo-25.11": Settings(
        grad_reduce_in_fp32=False,
        fp8_recipe="current",
        moe_parallel_folding=True,
        fp8_param_gather=True,
        fused_cross_entropy=True,
        preset="nemo-25.11",
    ),
    # Rajbhandari et al. 2020 (ZeRO, SC20) and DeepSpeed's ZeRO-3 engine: fp16 mixed precision
    # with fp16 gradient reduce-scatter, communication overlapped with the backward
    # (overlap_comm) and parameters prefetched for the forward; no tensor-parallel overlap,
    # unfused attention (Megatron-DeepSpeed's GPT of the paper)
    "deepspeed-zero3": Settings(
        flash_attention=False,
        overlap_tp=False,
        overlap_pp=False,
        overlap_cp=False,
        grad_reduce_in_fp32=False,
        framework="deepspeed",
        preset="deepspeed-zero3",
    ),
    # Megatron-Core as NVIDIA's current recipes run it: dclint's defaults, named
    "megatron-core": Settings(preset="megatron-core"),
    # NeMo / Megatron-Bridge performance recipes: bf16 gradient reduction, FP8 current scaling
    # with FP8 parameters, MoE parallel folding, Transformer Engine's fused cross-entropy; the
    # embedding and loss counted in the pipeline split (model.workload)
    "nemo": Settings(
        grad_reduce_in_fp32=False,
        fp8_recipe="current",
        moe_parallel_folding=True,
        fp8_param_gather=True,
        fused_cross_entropy=True,
        preset="nemo",
    ),
    # Hugging Face Accelerate with DeepSpeed ZeRO-3 (accelerate's DeepSpeedPlugin): the
    # DeepSpeed engine's overlap_comm and prefetch, PyTorch SDPA (flash) attention through
    # transformers, eager PyTorch element-wise kernels, fp32 gradient reduction in bf16 runs
    # (DeepSpeed's bf16 optimizer keeps fp32 gradients); ZeRO 2 and 3 reduce every micro-batch
    # (Accelerator.no_sync skips the model's no_sync under them, src/accelerate/accelerator.py)
    "accelerate-deepspeed": Settings(
        overlap_tp=False,
        overlap_pp=False,
        overlap_cp=False,
        kernels="eager",
        attention_kernel="sdpa",
        sharding="zero",
        framework="deepspeed",
        preset="accelerate-deepspeed",
    ),
    # TorchTitan (Liang et al. 2025, arXiv 2410.06511, and its docs/performance.md): FSDP2
    # (fully_shard, reshard_after_forward as FSDP's default: not under pipeline parallelism),
    # gradients reduced in fp32 (mixed_precision_reduce float32), eager PyTorch unless
    # compile is on (its config's default), PyTorch SDPA (its flash backend; cuDNN's kernels on
    # Blackwell, which TorchTitan and PyTorch put first on sm100: efficiency.SDPA_BLACKWELL),
    # torchao Float8 tensorwise for fp8 runs, op-level selective activation checkpointing, TP
    # collectives blocking unless AsyncTP (enable_async_tensor_parallel, with compile:
    # overlap_tp); no CUDA graphs. Gradients reduce-scattered every micro-batch (gradient_sync
    # unset): torchtitan/train.py at 820504e and e7c0cae runs forward_backward_step for each
    # micro-batch and never calls set_requires_gradient_sync (pytorch/torchtitan#1710, closed
    # unmerged); 9dec370 has no gradient accumulation; under PP, PyTorch's stages sync once
    "torchtitan": Settings(
        overlap_tp=False,
        overlap_pp=False,
        fp8_recipe="tensorwise",
        kernels="eager",
        selective_recompute="op",
        attention_kernel="sdpa",
        sharding="fsdp",
        framework="torchtitan",
        preset="torchtitan",
    ),
    # MosaicML llm-foundry / Composer (scripts/train/benchmarking/README.md): PyTorch FSDP
    # FULL_SHARD (parameters regathered every micro-batch), eager PyTorch with flash attention,
    # fp32 gradient reduction (amp_bf16 keeps fp32 parameters and gradients), no TP or PP;
    # gradients reduce-scattered every micro-batch (gradient_sync unset): Composer's
    # _train_microbatch (composer/trainer/trainer.py, v0.13.0 to v0.17.2) takes no_sync only
    # for a DistributedDataParallel model, and FSDP wraps the model's children
    "llm-foundry": Settings(
        overlap_tp=False,
        overlap_pp=False,
        overlap_cp=False,
        kernels="eager",
        attention_kernel="triton",
        sharding="fsdp",
        reshard_after_forward=True,
        framework="llm-foundry",
        preset="llm-foundry",
    ),
}

# preset -> (framework and version, source of its settings): the docs' presets table
PRESET_SOURCES: dict[str, tuple[str, str]] = {
    "megatron-lm-2021": (
        "Megatron-LM of 2021",
        "Narayanan et al. 2021 (SC21) and its scripts, Megatron-LM examples/"
        "academic_paper_scripts/sc21",
    ),
    "megatron-core-0.8": (
        "Megatron-Core 0.8",
        "Megatron-LM README at core_r0.8.0 (its Megatron-Core throughput tables)",
    ),
    "nemo-2": ("NeMo 2.0", "NVIDIA NeMo performance recipes, scripts/performance/llm"),
    "nemo-25.11": (
        "NeMo Framework 25.11 (Megatron-Bridge)",
        "NVIDIA-NeMo/Megatron-Bridge scripts/performance and docs/performance-summary.md",
    ),
    "deepspeed-zero3": (
        "DeepSpeed ZeRO-3",
        "Rajbhandari et al. 2020 (ZeRO, SC20) and DeepSpeed's ZeRO configuration docs",
    ),
    "megatron-core": ("Megatron-Core", "dclint's defaults (NVIDIA's current recipes)"),
    "nemo": (
        "NeMo / Megatron-Bridge",
        "NVIDIA-NeMo/Megatron-Bridge scripts/performance (the recipes' defaults)",
    ),
    "accelerate-deepspeed": (
        "Hugging Face Accelerate with DeepSpeed ZeRO",
        "Accelerate's DeepSpeedPlugin and DeepSpeed's ZeRO configuration docs",
    ),
    "torchtitan": (
        "TorchTitan (FSDP2, torch.compile, torchao Float8)",
        "Liang et al. 2025, TorchTitan (arXiv 2410.06511), and pytorch/torchtitan "
        "docs/performance.md",
    ),
    "llm-foundry": (
        "MosaicML llm-foundry / Composer (PyTorch FSDP)",
        "mosaicml/llm-foundry scripts/train/benchmarking/README.md and its yamls",
    ),
}

# keys that moved into `software:` -> where they are now (the loader's hint for older designs)
MOVED_KEYS = {
    "flash_attention": "the workload's software.flash_attention",
    "grad_reduce_in_fp32": "the workload's software.grad_reduce_in_fp32",
}

_SETTINGS = tuple(
    f.name
    for f in fields(Settings)
    if f.name not in ("framework", "preset", "sharding", "shard_group", "reshard_after_forward")
)


class Sharding(Strict):
    """How the data-parallel ranks shard the model (PyTorch FSDP / FSDP2, HSDP, ZeRO)."""

    kind: ShardingKind = Field(
        description="fsdp: PyTorch FSDP full shard over every data-parallel rank (FSDP2's "
        "fully_shard); hsdp: sharded inside shard groups of shard_group ranks and replicated "
        "across them (gradients all-reduced between groups); zero: Megatron-Core's "
        "distributed optimizer or DeepSpeed ZeRO, as parallel.zero_stage says"
    )
    shard_group: PositiveInt | None = Field(
        None,
        description="hsdp: data-parallel ranks a shard group holds, e.g. 8 (one node); "
        "default: every data-parallel rank",
    )
    reshard_after_forward: bool | None = Field(
        None,
        description="Free the gathered parameters after each forward and gather them again "
        "for the backward, every micro-batch (FSDP's reshard_after_forward); false: gathered "
        "once a step and kept; default: true without pipeline parallelism, false with it "
        "(TorchTitan's default)",
    )


class Software(Strict):
    """The training software: a preset, and settings that override it."""

    preset: PresetName | None = Field(
        None,
        description="A framework and version whose settings apply (docs/performance-model.md, "
        "Software presets); a setting declared here overrides the preset's",
    )
    flash_attention: bool | None = Field(
        None,
        description="Fused flash attention, which never stores the sequence x sequence scores "
        "and skips masked blocks (default: true); false for unfused attention (Megatron-LM of "
        "2021): PAR004 then counts the scores' memory and the step model their time",
    )
    overlap_tp: bool | None = Field(
        None, description="Tensor-parallel communication under the GEMMs (--tp-comm-overlap)"
    )
    overlap_dp: bool | None = Field(
        None,
        description="Gradient reduce-scatter and parameter all-gather under the backward and "
        "forward (--overlap-grad-reduce, --overlap-param-gather)",
    )
    overlap_pp: bool | None = Field(
        None, description="Pipeline sends and receives asynchronous, under compute"
    )
    overlap_cp: bool | None = Field(
        None, description="Context-parallel ring exchanges under the attention blocks"
    )
    overlap_ep: bool | None = Field(
        None,
        description="Expert-parallel all-to-alls of one micro-batch under the computation of "
        "another (Megatron-Core's --overlap-moe-expert-parallel-comm, combined 1F1B; default: "
        "false); Megatron-Bridge's performance recipes set it per model (moe_a2a_overlap)",
    )
    grad_reduce_in_fp32: bool | None = Field(
        None,
        description="Main gradients kept and reduced in fp32 (default: true, Megatron-Core "
        "DistributedDataParallelConfig.grad_reduce_in_fp32); false: in bf16 (or fp16), as "
        "NVIDIA's NeMo and Megatron-Bridge performance recipes run",
    )
    p2p_scatter_gather: bool | None = Field(
        None,
        description="Pipeline activations scattered over the tp ranks and all-gathered over "
        "NVLink (Megatron-LM of 2021, --scatter-gather-tensors-in-pipeline)",
    )
    fp8_recipe: Fp8Recipe | None = Field(
        None,
        description="FP8 scaling recipe for fp8 workloads: Transformer Engine's delayed "
        "(default), current, blockwise or mxfp8 (Blackwell), or torchao's float8 training "
        "tensorwise or rowwise (TorchTitan)",
    )
    expert_tp: PositiveInt | None = Field(
        None,
        description="Tensor-parallel size of the expert layers (--expert-tensor-parallel-size; "
        "default: parallel.tp); another value needs moe_parallel_folding",
    )
    moe_parallel_folding: bool | None = Field(
        None,
        description="Expert layers take their own parallel groups over tp x cp x dp (Liu et al. "
        "2025, MoE Parallel Folding): the expert all-to-all stays inside expert_tp x ep "
        "consecutive ranks instead of striding over tp x cp",
    )
    cuda_graphs: Literal[False, True, "full-iteration"] | None = Field(
        None,
        description="Layers captured as CUDA graphs (true: attention, router and dispatch "
        "preprocessing, as Megatron-Core's per-layer graphs capture a dropless MoE layer; the "
        "experts stay eager and the host issues each local expert's GEMMs), or "
        "'full-iteration': the whole step in one graph, experts included (Megatron-Bridge's "
        "cuda_graph_impl full_iteration); default: false",
    )
    ep_dispatcher: EpDispatcher | None = Field(
        None,
        description="How the expert all-to-all moves tokens: 'alltoall' (Megatron-Core's "
        "default --moe-token-dispatcher-type alltoall: every routed copy of a token crosses "
        "the network to its expert's GPU), or the flex dispatcher's 'deepep' or 'hybridep' "
        "backend (--moe-flex-dispatcher-backend): a token crosses the network once for each "
        "node that holds one of its experts and is forwarded over NVLink there (DeepSeek-V3 "
        "technical report, sec. 3.2.2; DeepEP's internode kernels)",
    )

    kernels: Kernels | None = Field(
        None,
        description="Where the element-wise kernels (norms, activation, rotary embedding, "
        "residual adds) come from: transformer-engine (fused modules, the default), eager "
        "(PyTorch, one kernel an operation) or compiled (torch.compile's fused kernels)",
    )
    compile: bool | None = Field(
        None,
        description="torch.compile on the model: true sets kernels compiled, false eager "
        "(where kernels is not declared)",
    )
    fp8_all_gather: bool | None = Field(
        None,
        description="FSDP all-gathers FP8 weights in FP8 (torchao's "
        "enable_fsdp_float8_all_gather; fp8 workloads): half the bytes of bf16",
    )
    selective_recompute: SelectiveRecompute | None = Field(
        None,
        description="What recompute: selective repeats: core-attention (Megatron-Core, the "
        "default) or op (TorchTitan's op-level policy: every other matmul of a layer and the "
        "element-wise operations)",
    )
    attention_kernel: AttentionKernel | None = Field(
        None,
        description="Core attention's kernel with flash_attention: flash (Transformer Engine's "
        "fused attention, the default: FlashAttention-2-class, cuDNN's kernels on Hopper at "
        "their measured H100 rate, Shah et al. 2024), triton (FlashAttention's "
        "Triton implementation, llm-foundry's attn_impl: triton: 1.4x slower forward and 2x "
        "slower backward, Dao 2023, FlashAttention-2 sec. 4.1) or sdpa (PyTorch SDPA's flash "
        "backend, TorchTitan's: FlashAttention-2 at its H100 rate per pass, Shah et al. 2024) or "
        "flash2 (the flash-attn package's own FlashAttention-2 kernels, llm-foundry's attn_impl: "
        "flash with flash-attn 2: sdpa's rates) or cudnn (PyTorch SDPA's cuDNN backend, first "
        "on Hopper and Blackwell once PyTorch's cuDNN is above 9.15: cuDNN's kernels at flash's "
        "rates)",
    )
    cp_comm_type: CpCommType | None = Field(
        None,
        description="How context parallelism moves K and V (Transformer Engine's cp_comm_type, "
        "Megatron-Core's --cp-comm-type): p2p, the default, a ring of K and V chunks under the "
        "attention (Transformer Engine's p2p; with preset torchtitan, PyTorch's context "
        "parallel); all_gather, the query groups' K and V all-gathered from the cp ranks before "
        "the local attention and dK, dV reduce-scattered after it, exposed (Transformer "
        "Engine's all_gather: 'The all-gather is not async, and cannot be overlapped'; Llama 3's "
        "context parallelism, Dubey et al. 2024, sec. 3.3.2)",
    )
    sharding: Sharding | None = Field(
        None,
        description="Data-parallel sharding as PyTorch FSDP runs it (kind fsdp or hsdp, the "
        "shard group, reshard_after_forward); default: parallel.zero_stage's",
    )
    gradient_sync: GradientSync | None = Field(
        None,
        description="When PyTorch FSDP reduce-scatters the gradients of a step of several "
        "micro-batches: every-micro-batch (FSDP2 and FSDP1 as they run unless told otherwise: "
        "TorchTitan, Composer / llm-foundry) or last-micro-batch (FSDP2's "
        "set_requires_gradient_sync(False), FSDP1's no_sync() on the others, which keep "
        "unsharded gradients between micro-batches, in FSDP2 in the reduce dtype: "
        "KempnerForge, Hugging Face Accelerate's FSDP); default: the last micro-batch under "
        "pipeline parallelism (PyTorch's pipeline stages sync on the last backward), every "
        "micro-batch without it",
    )
    tp_plan: TpPlan | None = Field(
        None,
        description="Where the tensor-parallel layers all-gather their sequence-parallel "
        "input: megatron, the default and every preset's (once for attention's projections and "
        "once for the MLP's: Megatron-Core's sequence parallelism, TorchTitan's "
        "PrepareModuleInput on attention and feed_forward: two all-gathers and two "
        "reduce-scatters a layer's pass), or per-projection (a DTensor plan with "
        "ColwiseParallel(input_layouts=Shard(1)) on each of q, k, v, gate and up, as "
        "KempnerForge's kempnerforge/distributed/tensor_parallel.py builds it: five "
        "all-gathers and two reduce-scatters a forward, five reduce-scatters and two "
        "all-gathers a backward, none removed by torch.compile; and the output head's "
        "logits all-gathered, output_layouts Replicate(), the loss over the whole "
        "vocabulary on each rank). Only with sequence parallelism: without it both plans "
        "all-reduce twice a pass",
    )
    activation_offload_layers: PositiveInt | None = Field(
        None,
        description="Transformer layers whose activations are offloaded to host memory during "
        "the forward and brought back for the backward (Megatron-Core's "
        "--cpu-offloading-num-layers, weights kept on the GPU, as Megatron-Bridge's recipes "
        "set cpu_offloading_num_layers): PAR004 does not count their activations. Megatron-Core "
        "runs it with pp 1 and no recomputation only, on fewer layers than the model's",
    )

    fp8_param_gather: bool | None = Field(
        None,
        description="fp8 runs keep the transformer layers' weights in FP8 and all-gather them "
        "in FP8 (Megatron-Core's --fp8-param-gather; Megatron-Bridge's FP8 precision configs "
        "set it): PAR004 counts 1 B a weight on Blackwell, 2 on Hopper (the FP8 copy and its "
        "transpose) for the delayed and current recipes",
    )
    fused_cross_entropy: bool | None = Field(
        None,
        description="Transformer Engine's fused cross-entropy (Megatron-Core's "
        "cross_entropy_loss_fusion with cross_entropy_fusion_impl te, as Megatron-Bridge's "
        "performance recipes set it): the gradient is written over the bf16 logits, so PAR004 "
        "counts 2 B a logit instead of 6 (the bf16 logits and an fp32 copy)",
    )
    loss_chunks: PositiveInt | None = Field(
        None,
        description="The output layer and the loss run a chunk of the micro-batch's sequence at "
        "a time, each chunk's forward and backward before the next (TorchTitan's "
        "ChunkedLossWrapper, num_chunks, default 8 where a config sets the wrapper; default "
        "here: 1, the whole logits at once): PAR004 counts one chunk's logits and the "
        "wrapper's bf16 copy of the hidden states and fp32 gradient accumulator (6 B an "
        "element of sequence x micro-batch x hidden)",
    )
    param_dtype: ParamDtype | None = Field(
        None,
        description="The dtype the parameters are kept in (default fp32: bf16 compute copies "
        "beside fp32 master weights and Adam moments); bf16: a model built in bf16 before "
        "sharding (KempnerForge: Transformer(...).to(dtype=param_dtype), then fully_shard). "
        "Under the torchtitan and llm-foundry frameworks, whose optimizers keep their state in "
        "the parameters' dtype (torch.optim.AdamW, Composer's DecoupledAdamW), the gradients "
        "and AdamW moments are bf16 too: PAR004 counts bf16 gradients and moments (no fp32 "
        "master weight), and the step model's optimizer step and gradient clipping move bf16 bytes "
        "(docs/performance-model.md: ADAM_BF16_BYTES, CLIP_BF16_BYTES, "
        "COMPOSER_ADAM_BF16_BYTES). Under "
        "megatron-core and deepspeed, whose optimizers keep fp32 main weights and moments "
        "whatever the model's dtype, state is counted and timed as fp32, and the prediction's "
        "assumptions and PAR004's notes say so",
    )
    ddp_bucket_size: PositiveInt | None = Field(
        None,
        description="Parameters a gradient bucket of Megatron-Core's DDP holds "
        "(DistributedDataParallelConfig.bucket_size, --ddp-bucket-size; default: max(4e7, 1e6 x "
        "the data-parallel ranks)). With overlap_dp the buckets fill in the backward's order and "
        "the last, which holds the embedding, is reduced after the backward and gathered before "
        "the next forward, outside both: the step model charges it",
    )

    def settings(self) -> Settings:
        """The resolved settings: the preset's (else dclint's defaults), then those declared."""
        base = PRESETS[self.preset] if self.preset else DEFAULTS
        values = self.__dict__  # the fields' values (a search resolves thousands of copies)
        declared = {k: v for k in _SETTINGS if (v := values[k]) is not None}
        if self.compile is not None and self.kernels is None:
            declared["kernels"] = "compiled" if self.compile else "eager"
        declared.pop("compile", None)
        if self.sharding is not None:
            declared["sharding"] = self.sharding.kind
            declared["shard_group"] = self.sharding.shard_group or 0
            declared["reshard_after_forward"] = self.sharding.reshard_after_forward
        return replace(base, **declared) if declared else base
