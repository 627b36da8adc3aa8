"""Storage tier too small for the data sets and retained checkpoints placed on it.

## What it does
Adds up, for each shared storage tier, the data sets it holds (each workload's
`dataset_size` on every tier that feeds training: those marked `feeds_training`, else the
parallel file systems) and the checkpoints it keeps (`checkpoint.retained` x the checkpoint
size, on the workload's checkpoint tier, or an asynchronous checkpoint's `drain_tier`;
`bytes_per_parameter` 14 B where no size is declared, the ZeRO paper's 16 B/parameter of
mixed-precision Adam less the bf16 gradients, as in STO002). Flags a tier whose total exceeds
`max_fill` (default 100%) of its `capacity`. Node-local tiers are not checked (their capacity
is per node and they hold staged copies).
A tier whose `capacity_basis` is `raw` states raw media: its usable capacity is what the
protection keeps, k/(k+m) of an `erasure_code` k+m (8+2: 80%) or 1/r of `replication` r.

## Why it matters
A checkpoint that cannot be written because the file system is full stops training, and
the retained checkpoints are what a restart falls back on. A 1 PB parallel file system is
filled quickly by a 14 TB trillion-parameter checkpoint kept five times and a few hundred TB
of data. The default `max_fill` of 100% is dclint's own: set a lower one in config to keep
headroom for the file system's own performance.

Sources: Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter
Models", SC 2020.

## Example
```yaml
storage:
  tiers:
    - id: weka
      kind: parallel_fs
      capacity: 100 TB        # STO005: 120 TB data set + 5 x 988.4 GB checkpoints
workloads:
  - id: llama-70b
    dataset_size: 120 TB
    checkpoint: {interval: 1 h, tier: weka, retained: 5}
```

## Fix
Add capacity, keep fewer checkpoints on the tier (move older ones to the object store), or
place the data set or the checkpoints on another tier.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    Option,
    Share,
    Violation,
    checkpoint_size,
    data_tiers,
    restore_tier,
    rule,
    size_unit,
)
from dclint.units import Q_, Quantity, fmt

from .._checkpoints import bytes_per_parameter
from ._shared import StorageRule


@rule("STO005", "storage-capacity-too-small", consequence="cannot-run")
class StorageCapacityTooSmall(StorageRule):
    options = {
        "max_fill": Option("100%", Share, "Highest share of a tier's capacity in use"),
        "bytes_per_parameter": bytes_per_parameter(),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        parts: dict[int, list[tuple[str, Quantity]]] = {}
        shared = data_tiers(design)
        for wl in design.workloads:
            if wl.dataset_size is not None:
                for index, _ in shared:
                    parts.setdefault(index, []).append((f"{wl.id} data set", wl.dataset_size))
            size = checkpoint_size(wl, ctx["bytes_per_parameter"])
            where = restore_tier(design, wl)  # an asynchronous one's drain tier keeps them
            if size is not None and where is not None and wl.checkpoint is not None:
                kept = wl.checkpoint.retained
                one = fmt(size[0], size_unit(size[0]))
                label = f"{wl.id} {kept} x {one} checkpoints" if kept > 1 else f"{wl.id} checkpoint"
                parts.setdefault(where[0], []).append((label, size[0] * kept))
        for index, items in sorted(parts.items()):
            tier = design.storage.tiers[index]
            capacity = tier.usable_capacity
            if tier.kind == "node_local" or capacity is None or tier.capacity is None:
                continue
            usable = (capacity * ctx["max_fill"]).to("GB")
            total = sum((q.to("GB") for _, q in items), Q_(0.0, "GB"))
            if total.m_as("GB") <= usable.m_as("GB") * (1 + 1e-9):
                continue
            unit = size_unit(usable)
            what = "; ".join(f"{label}: {fmt(q, size_unit(q))}" for label, q in items)
            fill = (
                ""
                if ctx["max_fill"].m_as("percent") == 100
                else (f" ({fmt(ctx['max_fill'].to('percent'))} of {fmt(capacity, unit)})")
            )
            if tier.capacity_basis == "raw":
                keeps = tier.protection_text() or "no erasure_code or replication declared"
                fill += f" (raw {fmt(tier.capacity, size_unit(tier.capacity))}: {keeps})"
            yield Violation(
                ("storage", "tiers", index, "capacity"),
                f"storage tier {tier.id} must hold {fmt(total, unit, digits=7)} ({what}), more "
                f"than its usable capacity{fill}",
                subject=tier.id,
                measured=total.to(unit),
                limit=usable.to(unit),
                fix="add capacity, retain fewer checkpoints here or move data to another tier",
            )
