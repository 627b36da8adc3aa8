"""Training storage tier with less than 3x the read bandwidth its workloads demand.

## What it does
Adds up the data read demand of the workloads that run concurrently (each workload's
`data_read_rate`, or its token throughput x `bytes_per_token`, throughput being
GPUs x peak dense FLOPS x MFU / (6 x active parameters), with a 40% MFU where none is
declared) and compares it with the aggregate read bandwidth of the tiers that feed training
(`feeds_training: true`, else every parallel file system). Flags a shortfall against
`factor` x demand (default 3x).

## Why it matters
A cluster needing ~200 GB/s of reads wants >= 600 GB/s of aggregate storage bandwidth; a
Lustre at 200 GB/s fed thousands of GPUs at < 50% of need (founding article). Bursts (epoch
starts, restarts reading checkpoints, many jobs at once) need the margin.

## Example
```yaml
storage:
  tiers:
    - id: lustre
      kind: parallel_fs
      read_bandwidth: 200 GB/s   # STO001: demand 200 GB/s needs 600 GB/s
workloads:
  - id: vlm
    data_read_rate: 200 GB/s
```

## Fix
Add storage nodes (or a faster tier) until the aggregate read bandwidth reaches 3x demand, or
stage data on node-local NVMe and mark that tier `feeds_training: true`.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.calc.storage_demand import read_demand, training_tiers
from dclint.engine.rule import Context, Option, Rule, Violation
from dclint.model.design import Design
from dclint.units import Q_, fmt


class StorageReadBandwidthTooLow(Rule):
    id = "STO001"
    name = "storage-read-bandwidth-too-low"
    severity = "error"
    tags = ("storage",)
    options = {
        "factor": Option(3.0, "float", "Required multiple of the read demand"),
        "bytes_per_token": Option("4 B", "information", "Bytes read per training token"),
        "default_mfu": Option("40%", "share", "MFU assumed where a workload declares none"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        demand = read_demand(design, ctx["bytes_per_token"], ctx["default_mfu"])
        if demand.magnitude <= 0:
            return
        tiers = training_tiers(design)
        if not tiers:
            return
        bandwidth = Q_(0.0, "GB/s")
        for _, tier in tiers:
            bw = tier.aggregate("read")
            if bw is not None:
                bandwidth = bandwidth + bw
        need = (demand * ctx["factor"]).to("GB/s")
        if bandwidth.m_as("GB/s") < need.m_as("GB/s"):
            index, tier = tiers[0]
            field = "read_bandwidth" if tier.read_bandwidth is not None else "id"
            yield Violation(
                ("storage", "tiers", index, field),
                f"training storage ({', '.join(t.id for _, t in tiers)}) reads at "
                f"{fmt(bandwidth.to('GB/s'))}, below {ctx['factor']:g}x the workloads' read "
                f"demand of {fmt(demand)} ({fmt(need)} needed)",
                subject=tier.id,
                measured=bandwidth.to("GB/s"),
                limit=need,
                fix="add storage bandwidth or stage data on a node-local tier",
            )
