"""Training layout whose per-GPU memory estimate exceeds the GPU's HBM less a reserve.

## What it does
Estimates the memory of the busiest GPU (the first pipeline stage) of each workload's
parallel layout: bf16 weights and fp32 gradients split over tp x pp (experts over ep), the
fp32 optimizer states sharded over dp x cp by the distributed optimizer, and the activations
of the micro-batches in flight (Korthikanti et al. 2022, with the declared `recompute` and
`sequence_parallel`). Flags a layout above the GPU's HBM less `reserve` (default 10%).

## Why it matters
A layout that does not fit fails with out-of-memory at the first step, after the cluster has
been booked; the reserve covers the CUDA context, NCCL buffers, allocator fragmentation and
the embedding and output-layer activations the estimate leaves out. Model-state bytes follow
Megatron-LM's distributed-optimizer table (6 + 12/d bytes a parameter for bf16 with fp32
gradients).

## Example
```yaml
workloads:
  - id: llm-70b
    model: {parameters: 70e9, layers: 80, hidden_size: 8192, vocab_size: 128256}
    parallel: {tp: 1, pp: 1}   # PAR004: 70B parameters on one GPU do not fit in 80 GB
    gpus: 64
```

## Fix
Shard more: raise tp (within the NVLink domain) or pp, turn on `sequence_parallel` and the
distributed optimizer, use selective or full recomputation, or lower `micro_batch`.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.engine.rule import Context, Option, Rule, Violation
from dclint.model.design import Design
from dclint.projection import project_workloads
from dclint.units import fmt


class GpuMemoryExceeded(Rule):
    id = "PAR004"
    name = "gpu-memory-exceeded"
    severity = "error"
    tags = ("parallel", "memory")
    options = {
        "reserve": Option("10%", "share", "Share of HBM kept free of the estimate"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        catalog = design.topology.catalog
        for p in project_workloads(design):
            gpu = catalog.gpus.get(p.gpu)
            if gpu is None:
                continue
            usable = (gpu.hbm * (1 - ctx["reserve"])).to("GiB")
            total = p.memory.total
            if total.m_as("GiB") <= usable.m_as("GiB"):
                continue
            parts = ", ".join(f"{k} {fmt(v, 'GiB')}" for k, v in p.memory.breakdown().items())
            wl = design.workloads[p.index]
            par = wl.parallel
            yield Violation(
                ("workloads", p.index, "parallel"),
                f"workload {p.workload} needs ~{fmt(total, 'GiB')} per GPU ({parts}) with "
                f"tp {par.tp}, pp {par.pp}, cp {par.cp}, ep {par.ep}, above the "
                f"{fmt(usable, 'GiB')} usable of {gpu.name}'s {fmt(gpu.hbm.to('GiB'), 'GiB')} "
                f"HBM ({ctx['reserve'].m_as('percent'):g}% reserve)",
                subject=p.workload,
                measured=total,
                limit=usable,
                fix="raise tp or pp, enable sequence parallelism and the distributed optimizer, "
                "recompute activations or lower micro_batch",
                key=True,
            )
