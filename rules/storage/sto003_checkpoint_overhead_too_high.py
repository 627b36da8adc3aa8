"""Checkpoint saves that take more than 5% of the checkpoint interval.

## What it does
For each workload with a `checkpoint`, computes the time one save takes (size / aggregate
write bandwidth of its tier, as STO002 does; `bytes_per_parameter` 14 B where the size is
not declared: bf16 weights, fp32 master weights and Adam moments, the 16 B/parameter of the
ZeRO paper, Rajbhandari et al. 2020, less the bf16 gradients) and divides it by
`checkpoint.interval`. Flags a ratio above `max_overhead` (default 5%).

## Why it matters
Synchronous saves stop training: a trillion-parameter model's 14 TB at 200 GB/s takes 70 s
a save, so saving every few minutes costs a large share of the run. Saving less often is no
cure, because a failure then loses more work: the Llama 3 paper reports an unexpected
interruption every ~3 h on 16,384 H100. The 5% `max_overhead` is dclint's own default for
the checkpoint share of a goodput budget; set your own in config.

Sources: Meta, "The Llama 3 Herd of Models", 2024; Rajbhandari et al., "ZeRO: Memory
Optimizations Toward Training Trillion Parameter Models", SC 2020.

## Example
```yaml
workloads:
  - id: llama-70b
    model: {parameters: 70.6e9}
    checkpoint:
      interval: 1 min   # STO003: a 4.942 s save is 8.237% of it at 200 GB/s
      tier: weka
```

## Fix
Lengthen the interval, write to a faster tier, or checkpoint asynchronously and declare the
blocking part as `checkpoint.size`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dclint.api import (
    Context,
    Design,
    Option,
    Remedy,
    Share,
    Violation,
    checkpoint_ratio,
    checkpoint_size,
    checkpoint_tier,
    rule,
    size_unit,
)
from dclint.units import fmt

from .._checkpoints import bytes_per_parameter
from ._shared import CheckpointStorageRule

if TYPE_CHECKING:
    from dclint.api import Finding, Projection


@rule(
    "STO003",
    "checkpoint-overhead-too-high",
    severity="warning",
    consequence="performance",
    needs=("workload",),
)
class CheckpointOverheadTooHigh(CheckpointStorageRule):
    options = {
        "max_overhead": Option("5%", Share, "Highest save time : checkpoint interval"),
        "bytes_per_parameter": bytes_per_parameter(),
    }

    @classmethod
    def remedy(
        cls, design: Design, finding: Finding, projection: Projection, options: dict[str, Any]
    ) -> Remedy | None:
        """Each save of the workload at fault within the budget's share of its interval."""
        reliability = projection.timing.reliability
        if finding.subject != projection.workload or reliability is None:
            return None
        budget = options["max_overhead"].m_as("") * reliability.interval.m_as("s")
        ratio = checkpoint_ratio(projection, budget)
        return Remedy(checkpoint=ratio) if ratio is not None else None

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        limit = ctx["max_overhead"].to("percent")
        for i, wl in enumerate(design.workloads):
            size = checkpoint_size(wl, ctx["bytes_per_parameter"])
            where = checkpoint_tier(design, wl)
            if size is None or where is None or wl.checkpoint is None:
                continue
            bandwidth = where[1].aggregate("write")
            if bandwidth is None or bandwidth.magnitude <= 0:
                continue
            save = (size[0] / bandwidth).to("s")
            share = (save / wl.checkpoint.interval).to("percent")
            if share.m_as("percent") <= limit.m_as("percent") * (1 + 1e-9):
                continue
            yield Violation(
                ("workloads", i, "checkpoint", "interval"),
                f"workload {wl.id} spends {fmt(share)} of each "
                f"{fmt(wl.checkpoint.interval)} checkpoint interval saving: a "
                f"{fmt(size[0], size_unit(size[0]))} checkpoint takes {fmt(save, 's')} at "
                f"{fmt(bandwidth.to('GB/s'))} to {where[1].id}",
                subject=wl.id,
                measured=share,
                limit=limit,
                fix="lengthen the interval, write to a faster tier or checkpoint asynchronously",
            )
