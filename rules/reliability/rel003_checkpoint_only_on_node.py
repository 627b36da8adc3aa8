"""Checkpoints kept only on storage that fails with the node.

## What it does
For each workload with a `checkpoint`, finds the tier a restore reads the last complete
checkpoint from: the asynchronous checkpoint's `drain_tier`, else the tier it is written to
(`checkpoint.tier`, else the tier marked `checkpoints: true`, else the first parallel file
system). Flags a `node_local` one. Where the run is projected, the finding gives its expected
wall time as it is, every failure restarting it from the start (M e^(R/M) (e^(W/M) - 1), Daly
2006, as REL002), against the same checkpoints kept where a failed node does not take them.

## Why it matters
Each rank saves its own shard: on node-local NVMe the shard of a failed node (a GPU, its host
or its NVMe: most of the 419 unexpected interruptions in 54 days on 16,384 H100 of the Llama 3
paper were hardware) is gone, and with it the only complete checkpoint. The run then restarts
from its start; the checkpoints cost their saves and save nothing.

Sources: Meta, "The Llama 3 Herd of Models", 2024.

## Example
```yaml
storage:
  tiers:
    - {id: nvme, kind: node_local, per_node_write_bandwidth: 10 GB/s, nodes: 128}
workloads:
  - id: llm-70b
    checkpoint:
      interval: 1 h
      tier: nvme        # REL003: lost with the node
```

## Fix
Checkpoint to a shared tier (a parallel file system or an object store), or keep the fast
local save and copy each checkpoint out: `mode: async` with a `drain_tier` (REL004 checks that
the copy keeps up).
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    Violation,
    days_text,
    restore_tier,
    rule,
)

from .._checkpoints import bytes_per_parameter, run_and_stall
from ._shared import StoredCheckpointRule


@rule("REL003", "checkpoint-only-on-node", consequence="single-failure")
class CheckpointOnlyOnNode(StoredCheckpointRule):
    options = {
        "bytes_per_parameter": bytes_per_parameter(),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for i, wl in enumerate(design.workloads):
            ckpt = wl.checkpoint
            where = restore_tier(design, wl)
            if ckpt is None or where is None or where[1].kind != "node_local":
                continue
            field = "drain_tier" if ckpt.mode == "async" else "tier"
            path = ("workloads", i, "checkpoint", field if getattr(ckpt, field) else "interval")
            cost = ""
            priced = run_and_stall(design, i, wl, ctx["bytes_per_parameter"])
            if priced is not None:
                run, stall = priced
                expected = run.unprotected_s()
                kept = run.checkpointed_s(stall, ckpt.interval.m_as("s"))
                lost = (expected - kept) / 86400
                cost = (
                    f": its {days_text(run.steps_s)} of steps ({run.mtbf_text()}) are expected "
                    f"to take {days_text(expected)}, against {days_text(kept)} with the "
                    f"checkpoints on a shared tier ({days_text(expected - kept)} lost"
                    f"{run.money(lost)})"
                )
            yield Violation(
                path,
                f"workload {wl.id} keeps its last complete checkpoint only on {where[1].id} "
                f"(node_local): a failed node takes its shard with it and the run restarts "
                f"from the start{cost}",
                subject=wl.id,
                refs=(where[1].id,),
                fix="checkpoint to a shared tier, or mode: async with a drain_tier",
            )
