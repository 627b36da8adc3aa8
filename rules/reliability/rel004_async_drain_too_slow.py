"""Asynchronous checkpoint whose copy to the persistent tier does not finish within the interval.

## What it does
For each workload with `checkpoint.mode: async`, training stalls only for the write to the
fast tier (`checkpoint.tier`: size over its aggregate write bandwidth, the stall the projection
counts), and each checkpoint is then copied to `drain_tier` in the background. The copy runs at
the smaller of the drain tier's aggregate write bandwidth and the fast tier's aggregate read
bandwidth (where declared). Flags a copy longer than the interval: the next checkpoint starts
before the last one is safe, so only every n-th one reaches the drain tier (n = the copy time
over the interval, rounded up) and a failure redoes up to n intervals of work. Where the run is
projected, the finding gives the days that costs: the run's wall time with a persistent
checkpoint every n intervals against every interval (the projection's failure model).

## Why it matters
Asynchronous checkpointing (PyTorch DCP's async save, Megatron-Core's async checkpointing,
NVIDIA's checkpointing to node-local NVMe) hides the slow write from training, not from the
failure: a checkpoint is only a restore point once it is complete on storage that outlives
the node. A 5.67 TB checkpoint drained to a 20 GB/s object store takes 283.5 s, fine every
hour; every 2 minutes it falls behind.

Sources: PyTorch Distributed Checkpoint, async save; Megatron-Core async checkpointing.

## Example
```yaml
workloads:
  - id: llama-405b
    checkpoint:
      interval: 2 min     # REL004: the 283.5 s copy to s3 does not fit
      tier: nvme
      mode: async
      drain_tier: s3
```

## Fix
Lengthen the interval past the copy time, drain to a faster tier, or keep fewer bytes a
checkpoint (shard the optimizer state, save it less often).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    Violation,
    checkpoint_size,
    days_text,
    drain_tier,
    rule,
    size_unit,
)
from dclint.units import fmt

from .._checkpoints import bytes_per_parameter, run_and_stall
from ._shared import StoredCheckpointRule


@rule("REL004", "async-drain-too-slow", consequence="performance")
class AsyncDrainTooSlow(StoredCheckpointRule):
    options = {
        "bytes_per_parameter": bytes_per_parameter(),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for i, wl in enumerate(design.workloads):
            ckpt = wl.checkpoint
            drain = drain_tier(design, wl)
            size = checkpoint_size(wl, ctx["bytes_per_parameter"])
            if ckpt is None or drain is None or size is None:
                continue
            local = next((t for t in design.storage.tiers if t.id == ckpt.tier), None)
            write = drain[1].aggregate("write")
            read = local.aggregate("read") if local is not None else None
            if write is None or write.magnitude <= 0:
                continue
            rate, bounded = write.to("GB/s"), f"{drain[1].id}'s write"
            if read is not None and 0 < read.m_as("GB/s") < rate.m_as("GB/s"):
                rate, bounded = read.to("GB/s"), f"{ckpt.tier}'s read"
            copy = (size[0] / rate).to("s")
            interval = ckpt.interval.to("s")
            if copy.m_as("s") <= interval.m_as("s") * (1 + 1e-9):
                continue
            n = math.ceil(copy.m_as("s") / interval.m_as("s") - 1e-9)
            cost = ""
            priced = run_and_stall(design, i, wl, ctx["bytes_per_parameter"])
            if priced is not None:
                run, stall = priced
                tau = interval.m_as("s")
                # a persistent checkpoint every n intervals: the same stalls, n x the lost work
                now = run.checkpointed_s(stall * n, tau * n)
                kept = run.checkpointed_s(stall, tau)
                days = (now - kept) / 86400
                cost = (
                    f"; a failure redoes up to {n} intervals: {days_text(now - kept)} more over "
                    f"the run's {days_text(run.steps_s)} of steps{run.money(days)}"
                )
            yield Violation(
                ("workloads", i, "checkpoint", "interval"),
                f"workload {wl.id} copies each {fmt(size[0], size_unit(size[0]))} checkpoint "
                f"from {ckpt.tier} to {drain[1].id} at {fmt(rate)} ({bounded}) in "
                f"{fmt(copy, 's')}, longer than its checkpoint interval: one checkpoint "
                f"in {n} is complete on {drain[1].id}{cost}",
                subject=wl.id,
                refs=(drain[1].id,),
                measured=copy,
                limit=interval,
                fix=f"checkpoint at most every {fmt(copy.to('minute'))}, or drain to a faster tier",
            )
