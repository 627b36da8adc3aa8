"""Checkpoint that takes longer than the target to write to its storage tier.

## What it does
For each workload with a `checkpoint`, divides the checkpoint size by the aggregate write
bandwidth of its tier (`checkpoint.tier`, else the tier marked `checkpoints: true`, else the
first parallel file system) and flags a save longer than `target` (default 90 s). The size is
`checkpoint.size`, else parameters x `bytes_per_parameter` (default 14 B: bf16 weights 2 B +
fp32 master weights 4 B + Adam first and second moments 8 B; the 16 B/parameter of mixed-
precision Adam in the ZeRO paper, Rajbhandari et al. 2020, less the 2 B of bf16 gradients,
which are not saved). The same figure is used by dclint's training-time projection.

## Why it matters
Training stops while a synchronous checkpoint is written: a trillion-parameter model's
14 TB at 200 GB/s blocks every GPU for over a minute per save. The 90 s `target` is dclint's
own default: hourly saves then cost at most 2.5% of training time, half of STO003's 5%
budget, and a restore reads the same bytes back within STO001's 90 s restore target.

Sources: Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter
Models", SC 2020.

## Example
```yaml
storage:
  tiers:
    - id: lustre
      kind: parallel_fs
      write_bandwidth: 10 GB/s   # STO002: a 988.4 GB checkpoint takes 98.84 s
workloads:
  - id: llama-70b
    model: {parameters: 70.6e9}
    checkpoint: {interval: 1 h, tier: lustre}
```

## Fix
Write checkpoints to a faster tier (more storage nodes, a parallel file system instead of an
object store), shard them over more writers, or use asynchronous checkpointing and declare the
size that blocks training as `checkpoint.size`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dclint.api import (
    Context,
    Design,
    Duration,
    Option,
    Remedy,
    Violation,
    checkpoint_ratio,
    checkpoint_tier,
    rule,
)

from .._checkpoints import bytes_per_parameter, over, transfer
from ._shared import CheckpointStorageRule

if TYPE_CHECKING:
    from dclint.api import Finding, Projection


@rule("STO002", "checkpoint-write-too-slow", consequence="performance")
class CheckpointWriteTooSlow(CheckpointStorageRule):
    options = {
        "target": Option("90 s", Duration, "Longest time to write one checkpoint"),
        "bytes_per_parameter": bytes_per_parameter(),
    }

    @classmethod
    def remedy(
        cls, design: Design, finding: Finding, projection: Projection, options: dict[str, Any]
    ) -> Remedy | None:
        """Each save of the workload at fault written within the target."""
        if projection.workload not in finding.refs:
            return None
        ratio = checkpoint_ratio(projection, options["target"].m_as("s"))
        return Remedy(checkpoint=ratio) if ratio is not None else None

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        target = ctx["target"].to("s")
        per = ctx["bytes_per_parameter"]
        for wl in design.workloads:
            t = transfer(wl, per, checkpoint_tier(design, wl), "write")
            if t is None or not over(t.seconds, target):
                continue
            yield t.too_slow(
                wl,
                per,
                target,
                "checkpoint to a faster tier, add storage nodes or checkpoint asynchronously",
            )
