"""Checkpoint restore slower than the target, read from the tier the checkpoint lives on.

## What it does
For each workload with a `checkpoint`, divides the checkpoint size (declared, else
parameters x `bytes_per_parameter`, 14 B as in STO002) by the aggregate read bandwidth of the
tier a restore reads it from: an asynchronous checkpoint's `drain_tier`, else the tier it is
written to. Flags a restore longer than `restore_target` (default 90 s). The time is the
read itself, with no headroom factor: STO001's 3x margin is for steady data loading and its
bursts, not for a read whose time is the figure. Node-local tiers are REL003's matter. Where
the run is projected, the finding gives the days the excess costs over the run: one restore a
failure, at the job's MTBF (the site's `gpu_mtbf` over the workload's GPUs).

## Why it matters
After every failure all ranks wait for the last checkpoint to be read back: the Llama 3
paper reports 419 unexpected interruptions in 54 days on 16,384 H100 (one every ~3 h). A
5.67 TB checkpoint read from a 10 GB/s checkpoint tier takes 567 s, whatever the training
tier's bandwidth. The 90 s `restore_target` is dclint's own default: at one failure every
3 h a 90 s restore costs under 1% of training time.

Sources: Meta, "The Llama 3 Herd of Models", 2024.

## Example
```yaml
storage:
  tiers:
    - {id: weka, kind: parallel_fs, read_bandwidth: 1 TB/s}
    - {id: ckpt, kind: parallel_fs, read_bandwidth: 10 GB/s, write_bandwidth: 80 GB/s}
workloads:
  - id: llama-405b
    model: {parameters: 405e9}
    checkpoint: {interval: 1 h, tier: ckpt}   # STO007: 5.67 TB in 567 s
```

## Fix
Read checkpoints from a faster tier (more storage nodes, a parallel file system instead of an
object store), keep the last checkpoint where it reads fast, or accept a longer target.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    Duration,
    Option,
    Violation,
    restore_tier,
    rule,
    run_of,
)
from dclint.units import Q_, fmt

from .._checkpoints import bytes_per_parameter, over, transfer
from ._shared import StorageRule


@rule(
    "STO007",
    "checkpoint-restore-too-slow",
    severity="warning",
    tags=("storage", "checkpoint", "reliability"),
    consequence="performance",
    covers=("nvidia.storage", "reliability.checkpoint"),
)
class CheckpointRestoreTooSlow(StorageRule):
    options = {
        "restore_target": Option(
            "90 s", Duration, "Longest time to read the last checkpoint after a failure"
        ),
        "bytes_per_parameter": bytes_per_parameter(),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        target = ctx["restore_target"].to("s")
        per = ctx["bytes_per_parameter"]
        for i, wl in enumerate(design.workloads):
            where = restore_tier(design, wl)
            if where is None or where[1].kind == "node_local":
                continue
            t = transfer(wl, per, where, "read")
            if t is None or not over(t.seconds, target):
                continue
            seconds = t.seconds
            cost = ""
            run = run_of(design, i)
            if run is not None and run.steps_s > 0 and wl.checkpoint is not None:
                failures = run.steps_s / run.mtbf_s
                days = failures * (seconds.m_as("s") - target.m_as("s")) / 86400
                cost = (
                    f"; about {failures:,.3g} failures in {fmt(Q_(run.steps_s / 86400, 'day'))} "
                    f"of steps ({run.mtbf_text()}) each wait "
                    f"{fmt(seconds - target, 's')} longer: {fmt(Q_(days, 'day'))}"
                    f"{run.money(days)}"
                )
            yield t.too_slow(
                wl, per, target, "read checkpoints from a faster tier or add storage nodes", cost
            )
