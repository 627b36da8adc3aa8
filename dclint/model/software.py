"""The training software a workload runs: typed settings, or a named preset of them.

A workload's `software:` names a `preset` (a framework and version whose settings are sourced
below, in `PRESETS`) and/or declares settings; a declared setting overrides the preset's, and
a setting neither declares takes dclint's default (`DEFAULTS`: Megatron-Core with Transformer
Engine as NVIDIA's current recipes run it). `Workload.software_in_effect` gives the resolved
`Settings`; the step model (dclint.projection.step) and PAR004's memory read only that.
"""

# Annotations are evaluated as written, without `from __future__ import annotations`: pydantic
# reads this module's field types (why: the top of dclint.model.types).
from dataclasses import dataclass, fields, replace
from typing import Literal

from pydantic import Field

from dclint.model.types import PositiveInt, Strict

__all__ = [
    "DEFAULTS",
    "EP_DISPATCHERS",
    "FP8_RECIPES",
    "FULL_ITERATION",
    "MOVED_KEYS",
    "PRESETS",
    "PRESET_SOURCES",
    "Fp8Recipe",
    "PresetName",
    "Settings",
    "Software",
]

FULL_ITERATION = "full-iteration"
EpDispatcher = Literal["alltoall", "deepep", "hybridep"]
# a dispatcher's name as the prediction's notes say it
EP_DISPATCHERS = {"alltoall": "all-to-all", "deepep": "DeepEP", "hybridep": "HybridEP"}
Fp8Recipe = Literal["delayed", "current", "blockwise", "mxfp8"]
FP8_RECIPES: tuple[str, ...] = ("delayed", "current", "blockwise", "mxfp8")
PresetName = Literal[
    "megatron-lm-2021", "megatron-core-0.8", "nemo-2", "nemo-25.11", "deepspeed-zero3"
]


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
    # transformer layers whose activations go to host memory (Megatron-Core's
    # --cpu-offloading-num-layers, activations only); 0: none
    activation_offload_layers: int = 0
    framework: str = "megatron-core"
    preset: str = ""  # the preset the settings came from ("": none)

    @property
    def grad_bytes(self) -> float:
        """Bytes a gradient element is reduced in: fp32 4, else the parameters' 16 bits."""
        return 4.0 if self.grad_reduce_in_fp32 else 2.0

    def describe(self) -> str:
        """One phrase for a prediction's assumptions: the settings the step model honours."""
        over = [k for k in ("tp", "dp", "pp", "cp", "ep") if getattr(self, f"overlap_{k}")]
        parts = [
            "flash attention" if self.flash_attention else "unfused attention",
            ("communication overlapped: " + ", ".join(o.upper() for o in over))
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
    # (expert_tensor_parallel_size set per recipe)
    "nemo-2": Settings(grad_reduce_in_fp32=False, moe_parallel_folding=True, preset="nemo-2"),
    # NeMo Framework 25.11 container, Megatron-Bridge performance recipes (scripts/performance:
    # set_basic_perf_overrides, the models' perf configs set ddp.grad_reduce_in_fp32 False; the
    # performance summary's FP8 rows use current scaling, FP8-CS)
    "nemo-25.11": Settings(
        grad_reduce_in_fp32=False,
        fp8_recipe="current",
        moe_parallel_folding=True,
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
}

# keys that moved into `software:` -> where they are now (the loader's hint for older designs)
MOVED_KEYS = {
    "flash_attention": "the workload's software.flash_attention",
    "grad_reduce_in_fp32": "the workload's software.grad_reduce_in_fp32",
}

_SETTINGS = tuple(f.name for f in fields(Settings) if f.name not in ("framework", "preset"))


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
        description="Transformer Engine FP8 scaling recipe for fp8 workloads: delayed (default), "
        "current, blockwise or mxfp8 (Blackwell)",
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

    activation_offload_layers: PositiveInt | None = Field(
        None,
        description="Transformer layers whose activations are offloaded to host memory during "
        "the forward and brought back for the backward (Megatron-Core's "
        "--cpu-offloading-num-layers, weights kept on the GPU, as Megatron-Bridge's recipes "
        "set cpu_offloading_num_layers): PAR004 does not count their activations. Megatron-Core "
        "runs it with pp 1 and no recomputation only, on fewer layers than the model's",
    )

    def settings(self) -> Settings:
        """The resolved settings: the preset's (else dclint's defaults), then those declared."""
        base = PRESETS[self.preset] if self.preset else DEFAULTS
        declared = {k: getattr(self, k) for k in _SETTINGS if getattr(self, k) is not None}
        return replace(base, **declared) if declared else base
