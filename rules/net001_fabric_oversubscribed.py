"""Compute fabric tier with more downlink than uplink bandwidth (oversubscribed).

## What it does
In each fabric of kind `compute` (the GPU back-end), computes every tier's downlink and uplink
bandwidth: switch count x ports x link speed for the parametric form, the sum of its links for
the explicit form. Flags a tier whose downlink:uplink ratio exceeds the limit (default 1:1,
non-blocking). Ratios are always written down:up. Top tiers (no uplinks) are not checked.

## Why it matters
A 2:1 oversubscribed two-tier fat tree raised gradient-sync latency by 120% and cut training
throughput by 31% (founding article). NVIDIA's SuperPOD reference designs are 1:1 rail-optimised
fat trees. Some designs oversubscribe deliberately between pods (Meta's Llama 3 cluster joins
3072-GPU pods at 7:1): set a per-tier limit for those.

## Example
```yaml
tiers:
  - name: leaf
    switch: qm9700
    count: 18
    downlinks: 42
    uplinks: 22     # NET001: 1.91:1
```

## Fix
Add uplinks (or spine switches) until each tier is 1:1, or accept a deliberate ratio per tier:
`NET001 = { tier_limits = { "compute.spine" = 7.0 } }` (keys are `fabric-id.tier-name`).
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.calc.fabric_tiers import tier_bandwidths
from dclint.engine.rule import Context, Option, Rule, Violation
from dclint.model.design import Design
from dclint.units import fmt


class FabricOversubscribed(Rule):
    id = "NET001"
    name = "fabric-oversubscribed"
    severity = "error"
    tags = ("fabric",)
    options = {
        "limit": Option(1.0, "float", "Highest downlink:uplink ratio of a compute-fabric tier"),
        "tier_limits": Option({}, "dict:float", "Limits by 'fabric-id.tier-name'"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for fabric_index, fabric in enumerate(design.fabrics):
            if fabric.kind != "compute":
                continue
            for tier in tier_bandwidths(design, fabric_index):
                if tier.up is None or tier.up.magnitude == 0:
                    continue
                limit = ctx["tier_limits"].get(f"{fabric.id}.{tier.name}", ctx["limit"])
                ratio = float(tier.down / tier.up)
                if ratio > limit * (1 + 1e-9):
                    yield Violation(
                        tier.path,
                        f"fabric {fabric.id} tier {tier.name} is oversubscribed "
                        f"{ratio:.2f}:1 (down:up), {fmt(tier.down, 'Tb/s')} down vs "
                        f"{fmt(tier.up, 'Tb/s')} up; limit {limit:g}:1",
                        subject=f"{fabric.id}.{tier.name}",
                        measured=f"{ratio:.2f}:1",
                        limit=f"{limit:g}:1",
                        fix="add uplinks or spine switches until the tier is 1:1",
                    )
