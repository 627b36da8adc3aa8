"""Training layout whose per-GPU memory estimate exceeds the GPU's memory less a reserve.

## What it does
Estimates the memory of the GPU of each pipeline stage that can bind and checks the largest:
the first stage (the most micro-batches in flight, and the input embedding), a middle one when
`first_stage_layers` / `last_stage_layers` make stages uneven, and the last (the output layer,
and the logits of its micro-batch: sequence x micro-batch x vocabulary / tp in bf16 plus the
fp32 copy the loss keeps). On each: bf16 weights and fp32 gradients of its layers (bf16 with
`software.grad_reduce_in_fp32: false`) split over tp (experts over ep), the fp32 optimizer
states sharded over dp x cp by the distributed optimizer (`zero_stage` 2 shards the gradients
too, 3, FSDP's full shard, the weights as well; HSDP over its shard group only), and the
activations of the micro-batches in flight (Korthikanti et al. 2022's terms, from the layer's
shapes: grouped-query K and V, the SwiGLU's two up-projections, `ffn_hidden_size`; with the
declared `recompute`, TorchTitan's op-level policy under `software.selective_recompute: op`;
sequence parallelism on by default when tp > 1, as Megatron-Core training recipes run it, and
said so in the finding). What the software states counts too: FP8 parameters
(`software.fp8_param_gather`: 1 B a layer weight on Blackwell, 2 on Hopper), Transformer
Engine's fused cross-entropy (`software.fused_cross_entropy`: bf16 logits only), llm-foundry's
default loss (flash-attn's cross-entropy: the bf16 logits and their bf16 gradient, 4 B a logit),
a loss run a sequence chunk at a time (`software.loss_chunks`, TorchTitan's ChunkedLossWrapper:
one chunk's logits and the wrapper's buffers), a model built in bf16 (`software.param_dtype:
bf16`, KempnerForge's: bf16 gradients and AdamW moments, 8 B a parameter), activations
offloaded to host memory. docs/performance-model.md gives the table of terms. The attention scores
(Korthikanti's 5 a s / h term) count only with `software.flash_attention: false`: flash
attention, which the step model assumes too, never stores them. The finding names the stage
that binds.
Flags a layout above the GPU's memory less `reserve` (default 10%). The memory is the figure
the device reports (nvidia-smi memory.total: 81,559 MiB = 79.6 GiB on an H100 80GB), the
datasheet figure where the catalog knows no device figure.

## Why it matters
A layout that does not fit fails with out-of-memory at the first step, after the cluster has
been booked. Model-state bytes follow Megatron-LM's distributed-optimizer table (6 + 12/d bytes
a parameter for bf16 with fp32 gradients) and the ZeRO paper (Rajbhandari et al. 2020). The
logits follow Megatron-Core's vocab-parallel cross-entropy, which casts the bf16 logits to fp32
and keeps them for the backward. The 10% `reserve` is dclint's own default for what the
estimate leaves out: the CUDA context (287 MB with PyTorch's lazy module loading, 667 MB
without: pytorch/pytorch#86509), NCCL's buffers (linear in channels, peers and communicators:
NVIDIA/nccl#864, #986; 0.5-1.6 GB a communicator measured; NVLink SHARP's are why NeMo's
launcher sets NCCL_NVLS_ENABLE=0 "for memory saving") and the caching allocator's
fragmentation, which no public source gives as a share: no published sum replaces it
(docs/performance-model.md, Memory). The estimate passes the published layouts it was checked
against (Narayanan et al. 2021 Table 1 on A100 80GB, Llama 3 405B on H100, NVIDIA's Llama 3.1
405B recipe on 512 H100 with bf16 gradients as Megatron-Bridge runs it) and the 66
Megatron-Bridge and MLPerf recipe layouts of tests/calibration/ (GB200's 25.11 Llama 3.1 405B,
the tightest, needs 88.2% of the device). Of the runs of tests/calibration/ and tests/validation/
that their publishers ran, it flags five: Meta's three Llama 3 405B rows (81.6-88.3 GiB, with
the fp32 gradients the paper accumulates over micro-batches), whose schedule's micro-batches a
round are not published, and TorchTitan's two Llama 3 8B runs on GB200 (168.0 GiB), whose own
published reserved peaks (174.5, 179.9 GiB) are above what the reserve leaves; the estimates
against the peaks TorchTitan and KempnerForge publish are tabled in docs/performance-model.md
(Memory, Published peaks). FP8 runs save each GEMM's input in FP8, but
Megatron-Core's attention output projection, under a recipe other than delayed scaling, saves
the attention's own bf16 output (`save_original_input`, megatron/core/transformer/
attention.py, core_v0.14.0). FP8 parameters: Transformer Engine keeps an FP8 weight's transpose
where FP8 GEMMs take the TN layout only (transformer_engine/pytorch/csrc/quantizer.cpp, v2.9);
the fused cross-entropy writes the gradient over the logits (transformer_engine/pytorch/triton/
cross_entropy.py); op-level recomputation saves every other matmul's output
(torchtitan/distributed/activation_checkpoint.py, v0.2.2); the chunked loss
(torchtitan/components/loss.py, ChunkedLossWrapper, bcc09297a); llm-foundry's loss
(llmfoundry/models/mpt/modeling_mpt.py v0.3.0, flash-attn v1.0.9 losses/cross_entropy.py);
the bf16 model (KempnerForge kempnerforge/distributed/parallel.py, 01b461a).

Sources: Megatron-LM distributed optimizer; Rajbhandari et al., "ZeRO: Memory Optimizations
Toward Training Trillion Parameter Models", SC 2020; Narayanan et al., "Efficient Large-Scale
Language Model Training on GPU Clusters Using Megatron-LM", SC 2021; Meta, "The Llama 3 Herd of
Models", 2024; NVIDIA Megatron-Bridge and MLPerf recipes (tests/calibration/); Transformer
Engine v2.9; Megatron-Core core_v0.14.0; torchtitan v0.2.2 and bcc09297a; llm-foundry v0.3.0;
flash-attn v1.0.9; KempnerForge 01b461a.

## Example
```yaml
workloads:
  - id: llm-70b
    model: {parameters: 70e9, layers: 80, hidden_size: 8192, vocab_size: 128256}
    parallel: {tp: 1, pp: 1}   # PAR004: 70B parameters on one GPU do not fit in 80 GB
    gpus: 64
```

## Fix
Shard more: raise tp (within the NVLink domain) or pp, keep sequence parallelism and the
distributed optimizer on (or a higher `zero_stage`), use selective or full recomputation, or
lower `micro_batch`.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    MEMORY_RESERVE,
    Context,
    Design,
    Option,
    Share,
    Violation,
    project_workloads,
    rule,
    topology_of,
)
from dclint.units import fmt

from ._shared import LayoutRule


@rule("PAR004", "gpu-memory-exceeded", tags=("parallel", "memory"), consequence="cannot-run")
class GpuMemoryExceeded(LayoutRule):
    options = {
        "reserve": Option(
            f"{MEMORY_RESERVE:.0%}", Share, "Share of GPU memory kept free of the estimate"
        ),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        catalog = topology_of(design).catalog
        for p in project_workloads(design):
            gpu = catalog.gpus.get(p.gpu)
            if gpu is None:
                continue
            memory = gpu.hbm_capacity.to("GiB")
            usable = (memory * (1 - ctx["reserve"])).to("GiB")
            total = p.memory.total
            if total.m_as("GiB") <= usable.m_as("GiB"):
                continue
            parts = ", ".join(f"{k} {fmt(v, 'GiB')}" for k, v in p.memory.breakdown().items())
            wl = design.workloads[p.index]
            par = wl.parallel
            seen = "as the device reports it" if gpu.hbm_device is not None else "datasheet"
            yield Violation(
                ("workloads", p.index, "parallel"),
                f"workload {p.workload} needs ~{fmt(total, 'GiB')} per GPU ({parts}) with "
                f"tp {par.tp}, pp {par.pp}, cp {par.cp}, ep {par.ep}, above what "
                f"{gpu.name}'s {fmt(memory, 'GiB')} leave usable "
                f"({seen}; {ctx['reserve'].m_as('percent'):g}% reserve); estimate: "
                + "; ".join(p.memory.notes),
                subject=p.workload,
                measured=total,
                limit=usable,
                fix="raise tp or pp, keep sequence parallelism and the distributed optimizer on "
                "(or raise zero_stage), recompute activations or lower micro_batch",
                key=True,
            )
