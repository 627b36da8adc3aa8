"""Training workloads: the model, its data, its parallel layout and its checkpoints."""

# Annotations are evaluated as written, without `from __future__ import annotations`: pydantic
# reads this module's field types (why: the top of dclint.model.types).
from typing import Annotated, Literal

from pydantic import Field, model_validator
from pydantic import Strict as StrictMode

from dclint.model.catalog import Precision
from dclint.model.software import Settings, Software
from dclint.model.types import (
    Bandwidth,
    Compute,
    Count,
    Dim,
    Duration,
    Fraction,
    Id,
    Information,
    Money,
    PositiveInt,
    Ref,
    Strict,
)
from dclint.units import Quantity

__all__ = [
    "MAX_EXPERTS",
    "MAX_GPUS",
    "MAX_LAYERS",
    "MAX_PARAMETERS",
    "BatchRampup",
    "Checkpoint",
    "Evaluation",
    "ModelSpec",
    "Parallel",
    "TokenRate",
    "Workload",
]

TokenRate = Annotated[Quantity, Dim("2.5e6 token/s", "token rate")]
# Upper bounds at load, dclint's own, far above any model or cluster built (Llama 3.1 405B:
# 126 layers; DeepSeek-V3: 256 routed experts; DeepNet trained 1,000 layers): the layout
# search and the projections work on these figures, and a value past them is a typo
MAX_LAYERS = 10_000
MAX_EXPERTS = 100_000
MAX_GPUS = 10_000_000
MAX_PARAMETERS = 1e16
Layers = Annotated[int, StrictMode(), Field(gt=0, le=MAX_LAYERS)]
Experts = Annotated[int, StrictMode(), Field(gt=0, le=MAX_EXPERTS)]
Gpus = Annotated[int, StrictMode(), Field(gt=0, le=MAX_GPUS)]
Parameters = Annotated[float, Field(gt=0, le=MAX_PARAMETERS, allow_inf_nan=False)]


class ModelSpec(Strict):
    parameters: Parameters = Field(description="Total parameters, e.g. 1.7e12")
    active_parameters: Parameters | None = Field(None, description="Active per token (MoE)")
    layers: Layers | None = None
    hidden_size: PositiveInt | None = None
    attention_heads: PositiveInt | None = None
    query_groups: PositiveInt | None = None
    kv_channels: PositiveInt | None = Field(
        None,
        description="Width of one attention head (--kv-channels); default hidden / heads",
    )
    ffn_hidden_size: PositiveInt | None = None
    vocab_size: PositiveInt | None = None
    experts: Experts | None = None
    top_k: Experts | None = None
    swiglu: bool = False
    dropout: bool = Field(
        True,
        description="Hidden and attention dropout in training (PAR004 counts Korthikanti et al.'s "
        "two dropout masks a layer); false for models trained without, hidden_dropout and "
        "attention_dropout 0 (Llama 3, Qwen3: PyTorch's dropout at p 0 stores no mask)",
    )


class Parallel(Strict):
    """Megatron-Core layout: world = tp x pp x cp x dp; ep is carved out of dp x cp."""

    tp: PositiveInt = 1
    pp: PositiveInt = 1
    cp: PositiveInt = 1
    dp: PositiveInt | None = Field(None, description="Default: GPUs / (tp x pp x cp)")
    ep: PositiveInt = 1
    vpp: PositiveInt = 1
    first_stage_layers: PositiveInt | None = Field(
        None, description="Layers on the first pipeline stage (--decoder-first-pipeline-num-layers)"
    )
    last_stage_layers: PositiveInt | None = Field(
        None, description="Layers on the last pipeline stage (--decoder-last-pipeline-num-layers)"
    )
    account_for_embedding_in_pipeline_split: bool = Field(
        False,
        description="Count the embedding as one layer when splitting layers over the pipeline "
        "stages (Megatron-Core --account-for-embedding-in-pipeline-split)",
    )
    account_for_loss_in_pipeline_split: bool = Field(
        False,
        description="Count the loss as one layer when splitting layers over the pipeline "
        "stages (Megatron-Core --account-for-loss-in-pipeline-split)",
    )
    sequence_parallel: bool | None = Field(
        None, description="Default: on when tp > 1, as Megatron-Core training recipes run it"
    )
    distributed_optimizer: bool = True
    zero_stage: Literal[0, 1, 2, 3] | None = Field(
        None,
        description="Data-parallel sharding: 1 optimizer states (the distributed optimizer), "
        "2 + gradients, 3 + weights (FSDP full shard); default 1 with distributed_optimizer, "
        "else 0",
    )
    expert_tp_in_nvlink: bool = Field(
        False, description="Require tp x ep to fit in one NVLink domain (PAR002)"
    )
    context_in_nvlink: bool = Field(
        False, description="Require tp x cp to fit in one NVLink domain (PAR002)"
    )

    @property
    def split_extra(self) -> int:
        """Slots the even pipeline split counts beyond the decoder layers: the embedding and
        the loss, each one layer when its account_for_* flag is set (Megatron-Core)."""
        return int(self.account_for_embedding_in_pipeline_split) + int(
            self.account_for_loss_in_pipeline_split
        )

    @property
    def sequence_parallel_on(self) -> bool:
        """Sequence parallelism as run: declared, else on when tp > 1; never with tp 1."""
        declared = self.sequence_parallel
        return self.tp > 1 and (declared if declared is not None else True)

    @property
    def sharding(self) -> int:
        """ZeRO stage in effect: declared, else 1 with the distributed optimizer, else 0."""
        if self.zero_stage is not None:
            return self.zero_stage
        return 1 if self.distributed_optimizer else 0


class Checkpoint(Strict):
    interval: Duration
    size: Information | None = Field(None, description="Default: from parameters")
    tier: Ref | None = Field(None, description="Storage tier id (default: the checkpoint tier)")
    retained: PositiveInt = 1
    mode: Literal["sync", "async"] = Field(
        "sync",
        description="sync: training waits for the whole save to `tier`; async: training waits "
        "only for the write to `tier` (a fast, e.g. node-local, tier), which is then copied to "
        "`drain_tier` in the background (REL004)",
    )
    drain_tier: Ref | None = Field(
        None,
        description="async: the persistent tier each checkpoint is copied to from `tier`; "
        "the copy must finish within the interval, and a restore reads from it",
    )

    @model_validator(mode="after")
    def _drain_only_when_async(self) -> "Checkpoint":
        if self.drain_tier is not None and self.mode != "async":
            raise ValueError("drain_tier is for mode: async (a synchronous save has no drain)")
        if self.mode == "async" and self.drain_tier is None:
            raise ValueError("mode: async needs drain_tier, the persistent tier it copies to")
        return self


# the most batch sizes a ramp may step through: each is timed by the step model (about 70 us),
# and a hostile design's millions would hold the command for minutes. BLOOM's ramp (192 to
# 2,048 by 16) takes 116, Megatron-LM's GPT-3 175B example (16 to 1,536 by 16) 95: dclint's own
MAX_RAMP_SIZES = 4096


class BatchRampup(Strict):
    """Megatron's batch-size ramp-up, `--rampup-batch-size <start> <increment> <samples>`:
    the run starts at `start` sequences a step and adds `increment` each time another
    samples / ((global_batch - start) / increment) samples are consumed, up to global_batch
    (megatron/core/num_microbatches_calculator.py, RampupBatchsizeNumMicroBatchesCalculator)."""

    start: PositiveInt = Field(description="Sequences a step at the start of the run")
    increment: PositiveInt = Field(description="Sequences added to the batch at each increment")
    samples: Count = Field(
        description="Samples (sequences) consumed over the whole ramp, e.g. 9.765625e6"
    )


class Evaluation(Strict):
    """Evaluation during training (Megatron's `--eval-interval`): every `interval` steps the
    run stops training for `time` to evaluate."""

    interval: PositiveInt = Field(description="Training steps between evaluations")
    time: Duration = Field(description="Wall time of one evaluation, e.g. 12 min")


# the software presets of NVIDIA's recipes, which count the embedding and the loss as pipeline
# layers for the models that need it (Workload._recipe_pipeline_split)
RECIPE_SPLIT_PRESETS = frozenset({"nemo", "nemo-2", "nemo-25.11"})


class Workload(Strict):
    id: Id
    model: ModelSpec
    tokens: Count
    sequence_length: PositiveInt = 4096
    global_batch: PositiveInt | None = Field(None, description="Sequences per step")
    micro_batch: PositiveInt = 1
    batch_rampup: BatchRampup | None = Field(
        None,
        description="Batch-size ramp-up (Megatron --rampup-batch-size): smaller batches, "
        "with fewer micro-batches a step, at the start of the run; needs global_batch",
    )
    precision: Precision = "bf16"
    parallel: Parallel = Field(default_factory=Parallel.model_construct)  # as Design's sections
    gpus: Gpus
    platform: str | None = Field(None, description="Default: the design's GPU platform")
    data_read_rate: Bandwidth | None = None
    bytes_per_token: Information | None = None
    bytes_per_sample: Information | None = Field(
        None, description="Bytes read per training sample (one sequence), e.g. an image"
    )
    modality: Literal["text", "image", "video"] = Field(
        "text", description="What the data loader reads; image and video set STO001's floor"
    )
    high_resolution_media: bool = Field(
        False,
        description="Image or video data at 1080p or 4K, or uncompressed images: with a "
        "dataset_size above STO001's media_dataset_size, NVIDIA's per-GPU read guidance "
        "applies instead of its Best level per scalable unit",
    )
    dataset_size: Information | None = None
    files_per_sample: float | None = Field(
        None,
        gt=0,
        le=1e6,
        description="Files the data loader opens for each sample (one sequence) it reads, e.g. "
        "1 for one image a file: with the samples a second, the metadata rate STO008 holds "
        "against the training tiers' metadata_rate",
    )
    checkpoint: Checkpoint | None = None
    evaluation: Evaluation | None = Field(
        None, description="Evaluations during training: their cadence in steps and time each"
    )
    mfu: Fraction | None = None
    mfu_basis: Literal["model", "hardware"] = Field(
        "model", description="mfu counts model FLOPs, or hardware FLOPs incl. recomputation"
    )
    communication_overhead: Fraction | None = None
    step_time: Duration | None = Field(
        None, description="Measured time of one step; decides the projected time"
    )
    tokens_per_second: TokenRate | None = Field(
        None, description="Measured throughput of the whole job, e.g. '2.5e6 token/s'"
    )
    achieved_flops: Compute | None = Field(
        None, description="Measured FLOPS per GPU on mfu_basis FLOPs, e.g. '400 TFLOPS'"
    )
    flops_convention: Literal["exact", "6nd"] = Field(
        "exact", description="Model FLOPs: the exact transformer count, or 6 x N x D"
    )
    causal_attention: bool = Field(
        True,
        description="Count core attention under a causal mask (half: what flash attention "
        "computes, Megatron-Core 2024+); false for the full score matrix (Narayanan et al. 2021)",
    )
    recompute: Literal["none", "selective", "full"] = "selective"
    framework: Literal["megatron-core", "deepspeed", "torchtitan", "llm-foundry"] | None = Field(
        None,
        description="Training framework the layout runs on: PAR003 and the layout search hold "
        "it to what that framework runs (DeepSpeed: ZeRO stage 0 or 1 with pp > 1); default: "
        "the software preset's, else megatron-core",
    )
    software: Software = Field(
        default_factory=Software.model_construct,  # as Design's sections
        description="The training software: a named preset and settings that override it "
        "(flash attention, communication overlap, gradient-reduction dtype, FP8 recipe, expert "
        "tensor parallelism, MoE parallel folding, CUDA graphs)",
    )
    power_basis: Literal["gpu_tdp", "rack_share"] = "rack_share"
    concurrent: bool = Field(True, description="Runs at the same time as the other workloads")
    budget: Money | None = None
    deadline: Duration | None = None

    @property
    def software_in_effect(self) -> Settings:
        """The software settings the workload runs: its preset's, overridden by those it
        declares (dclint.model.software); `framework` declared overrides the preset's."""
        got = self.software.settings()
        if self.framework is not None and self.framework != got.framework:
            from dataclasses import replace

            got = replace(got, framework=self.framework)
        return got

    @model_validator(mode="after")
    def _recipe_pipeline_split(self) -> "Workload":
        """NVIDIA's recipe presets count the embedding and the loss as pipeline layers where
        the model's layers need it: Megatron-Bridge's and NeMo's recipes set
        account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split per
        model, for those whose layers do not split over their pp x vpp (Llama 3.1 405B's 126
        + 2 = 128 on pp 8 x vpp 8, Qwen3 235B's 94 + 2 = 96 on pp 8) and not for the others
        (Llama 3 70B's 80 on pp 8 x vpp 5). A declared flag, or declared uneven stages, win."""
        p = self.parallel
        flags = {"account_for_embedding_in_pipeline_split", "account_for_loss_in_pipeline_split"}
        layers = self.model.layers
        if (
            flags & p.model_fields_set
            or p.pp == 1
            or p.first_stage_layers is not None
            or p.last_stage_layers is not None
            or layers is None
            or self.software_in_effect.preset not in RECIPE_SPLIT_PRESETS
        ):
            return self
        even = layers % p.pp == 0 and (layers // p.pp) % p.vpp == 0
        slots = layers + 2
        if even or slots % p.pp or (slots // p.pp) % p.vpp:
            return self
        counted = p.model_copy(update=dict.fromkeys(flags, True))
        object.__setattr__(self, "parallel", counted)  # frozen: set once, while validating
        return self

    @model_validator(mode="after")
    def _fsdp_shards_the_weights(self) -> "Workload":
        """PyTorch FSDP (software.sharding kind fsdp or hsdp, or a preset that runs it) shards
        weights, gradients and optimizer states: ZeRO stage 3 for memory and the search,
        unless parallel.zero_stage is declared."""
        if (
            self.software_in_effect.sharding in ("fsdp", "hsdp")
            and self.parallel.zero_stage is None
        ):
            sharded = self.parallel.model_copy(update={"zero_stage": 3})
            object.__setattr__(self, "parallel", sharded)  # frozen: set once, while validating
        return self

    @model_validator(mode="after")
    def _offload_needs_one_stage(self) -> "Workload":
        """Megatron-Core's TransformerConfig refuses CPU activation offloading with pipeline
        parallelism, on as many layers as the model has, and with recomputation."""
        n = self.software_in_effect.activation_offload_layers
        if not n:
            return self
        why = None
        if self.parallel.pp > 1:
            why = f"parallel.pp {self.parallel.pp}: Megatron-Core offloads with pp 1 only"
        elif self.model.layers is not None and n >= self.model.layers:
            why = f"the model's {self.model.layers} layers: offload fewer than all of them"
        elif self.recompute != "none" and "recompute" in self.model_fields_set:
            why = f"recompute {self.recompute}: Megatron-Core offloads without recomputation"
        if why is not None:
            raise ValueError(f"software.activation_offload_layers {n} with {why}")
        return self

    @model_validator(mode="after")
    def _rampup_as_megatron_runs_it(self) -> "Workload":
        """Megatron's ramp-up calculator asserts the start below the global batch, the
        difference a whole number of increments, and every batch of the ramp a whole number
        of micro-batches on every data-parallel rank (start and increment divisible by
        micro_batch x dp)."""
        ramp = self.batch_rampup
        if ramp is None:
            return self
        batch = self.global_batch
        if batch is None:
            raise ValueError("batch_rampup needs global_batch, the batch the ramp ends at")
        if ramp.start >= batch:
            raise ValueError(
                f"batch_rampup.start {ramp.start} is not below global_batch {batch}: "
                "the ramp starts below the batch it ends at"
            )
        if (batch - ramp.start) % ramp.increment:
            raise ValueError(
                f"batch_rampup: global_batch {batch} - start {ramp.start} = "
                f"{batch - ramp.start} is not a multiple of increment {ramp.increment} "
                "(Megatron asserts it)"
            )
        sizes = (batch - ramp.start) // ramp.increment
        if sizes > MAX_RAMP_SIZES:
            raise ValueError(
                f"batch_rampup: {sizes:,} batch sizes from start {ramp.start} to global_batch "
                f"{batch} by {ramp.increment}; dclint times each with the step model and takes "
                f"at most {MAX_RAMP_SIZES:,} (Megatron's published ramps take about 100): use a "
                "larger increment"
            )
        p = self.parallel
        dp = p.dp or max(1, self.gpus // (p.tp * p.pp * p.cp))
        unit = self.micro_batch * dp
        for name, value in (("start", ramp.start), ("increment", ramp.increment)):
            if value % unit:
                raise ValueError(
                    f"batch_rampup.{name} {value} is not a multiple of micro_batch x dp = "
                    f"{self.micro_batch} x {dp} = {unit}: Megatron asserts every batch of the "
                    "ramp divisible by it"
                )
        return self

    @model_validator(mode="after")
    def _expert_tp_needs_folding(self) -> "Workload":
        sw = self.software_in_effect
        if sw.expert_tp and sw.expert_tp != self.parallel.tp and not sw.moe_parallel_folding:
            raise ValueError(
                f"software.expert_tp {sw.expert_tp} differs from parallel.tp "
                f"{self.parallel.tp}: an expert tensor-parallel size of its own needs "
                "software.moe_parallel_folding: true (Megatron-Core with MoE parallel folding)"
            )
        return self
