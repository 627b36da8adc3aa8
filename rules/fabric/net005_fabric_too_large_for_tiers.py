"""Compute fabric with more endpoints than a Clos of its switches holds at accepted ratios.

## What it does
Counts the fabric's endpoints (GPUs on the fabric x `nics_per_gpu`, plus the ports of its
`endpoints`: storage, management and gateway nodes) and compares them with the most a folded
Clos of its tiers holds: each top-tier switch reaches one sub-tree (a leaf on two tiers, a pod
on three) per port, and each lower tier's switch gives at most d = k x r / (1 + r) of its k
ports down, r being the down:up ratio NET001 accepts for that tier (its `tier_limits` entry,
else its `limit`, 1:1 by default). The bound is k_top x d_1 x ... x d_(n-1): one radix k at 1:1
gives the fat tree's k^2/2 on two tiers and k^3/4 on three; radix-64 leaves under 576-port
chassis spines hold 576 x 32 = 18,432; a radix-64 leaf tier accepted at 3:1 gives 48 ports
down, so 64 x 48 = 3,072 under radix-64 spines. A tier's radix is the fewest ports any of its
switches offers at the tier's link speed (a QM9700 is radix 64 at 400 Gb/s, 128 when split to
200 Gb/s); in the explicit form tiers are ordered by their distance from the racks. Only
`compute` fabrics are checked.

## Why it matters
Beyond that size the fabric cannot be built from these tiers at the accepted ratios: a
top-tier switch no longer reaches every leaf (or pod), so some pairs of leaves share no
spine and the tier between them is oversubscribed, or a tier is missing. The bound is the
Clos network's (Al-Fares et al., "A scalable, commodity data center network architecture",
SIGCOMM 2008: k^2/2 hosts on two tiers of radix k, k^3/4 on three; with unequal radixes
each tier contributes its own ports); NVIDIA's DGX SuperPOD H100 reference architecture builds
two tiers of 64-port QM9700 up to 2,048 GPUs and adds a core tier beyond. Where the counted
tiers reconcile (NET002, NET008 and NET009 pass) and every top switch reaches every leaf or
pod, the counted fabric holds no more than this bound, so the two agree. Whether every
endpoint also has a leaf port is NET009's check.

Sources: Al-Fares et al., "A scalable, commodity data center network architecture", SIGCOMM
2008; NVIDIA DGX SuperPOD H100 reference architecture.

## Example
```yaml
fabrics:
  - id: compute
    kind: compute
    tiers:               # NET005: 2,056 endpoints, two radix-64 tiers at 1:1 hold 64 x 32
      - {name: leaf, switch: qm9700, count: 65, downlinks: 32, uplinks: 32}
      - {name: spine, switch: qm9700, count: 65, downlinks: 32}
```

## Fix
Add a tier (three tiers of radix 64 hold 65,536 endpoints), use higher-radix switches at the
top (Quantum-X800 Q3400, 144 ports; a chassis spine), accept a ratio for the leaf tier in
NET001's `tier_limits` where the oversubscription is deliberate, or split the cluster into
fabrics that each fit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dclint.api import (
    Context,
    Design,
    Fabric,
    Remedy,
    Violation,
    clos_endpoints,
    down_ports,
    endpoint_ports,
    fabric_graph,
    ports_at,
    rule,
    step_ratio,
    tier_bandwidths,
    topology_of,
)

from ._shared import FabricRule, compute_fabrics
from .net001_fabric_oversubscribed import FabricOversubscribed

if TYPE_CHECKING:
    from dclint.api import Finding, Projection


@rule("NET005", "fabric-too-large-for-tiers", consequence="cannot-run")
class FabricTooLargeForTiers(FabricRule):
    @classmethod
    def remedy(
        cls, design: Design, finding: Finding, projection: Projection, options: dict[str, Any]
    ) -> Remedy | None:
        """Enough tiers for the fabric, every one at 1:1: the step-time model's step without
        oversubscription over the step as it is scales the run."""
        ratio = step_ratio(design, projection, nonblocking=True)
        return Remedy(running=ratio) if ratio is not None else None

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        net001 = ctx.peer(FabricOversubscribed.id)
        for f, fabric in compute_fabrics(design):
            shape = _shape(design, f, fabric)
            if shape is None:
                continue
            tiers, field = shape
            ratios = [
                float(net001["tier_limits"].get(f"{fabric.id}.{name}", net001["limit"]))
                for name, _ in tiers[:-1]
            ]
            radixes = [k for _, k in tiers]
            most = clos_endpoints(radixes, ratios)
            ports = endpoint_ports(design, fabric)
            endpoints = ports.total
            if endpoints <= most:
                continue
            nics = f"{fabric.nics_per_gpu:g} NIC{'' if fabric.nics_per_gpu == 1 else 's'}"
            other = f" + {ports.other:,} ports of other nodes" if ports.other else ""
            top_name, top_k = tiers[-1]
            parts = [f"{top_name} {top_k} ports"] + [
                f"{name} {down_ports(k, r)} of {k} ports down at {r:g}:1"
                for (name, k), r in zip(reversed(tiers[:-1]), reversed(ratios), strict=True)
            ]
            yield Violation(
                ("fabrics", f, field),
                f"fabric {fabric.id} has {endpoints:,} endpoints ({ports.gpus:,} GPUs x "
                f"{nics} per GPU{other}), more than a {len(tiers)}-tier Clos of "
                f"these switches holds at the accepted ratios ({' x '.join(parts)})",
                subject=fabric.id,
                measured=float(endpoints),
                limit=float(most),
                fix="add a tier, use higher-radix switches or split the fabric",
                key=True,
            )


def _shape(design: Design, f: int, fabric: Fabric) -> tuple[list[tuple[str, int]], str] | None:
    """Each tier's name and radix, lowest first, and the field to point at; None when a
    switch is unknown or cannot run its links' speed. A tier's radix is the fewest ports any
    of its switches offers at its link speed."""
    models = topology_of(design).catalog.switches
    if fabric.tiers:
        tiers: list[tuple[str, int]] = []
        for tier in fabric.tiers:
            model = models.get(tier.switch)
            ports = ports_at(model, tier.link_speed or model.port_speed) if model else None
            if ports is None:
                return None
            tiers.append((tier.name, ports))
        return tiers, "tiers"
    if not fabric.switches:
        return None
    fg = fabric_graph(design, f)
    radix: dict[str, int] = {}
    for sid, (key, name, _) in fg.switches.items():
        model = models.get(key)
        if model is None:
            return None
        # Radix at the speed most of the switch's links run at (its port speed if unlinked).
        speeds = Counter(e.speed.m_as("Gb/s") for e in fg.incident(sid))
        speed = model.port_speed
        if speeds:
            speed = speed * (speeds.most_common(1)[0][0] / speed.m_as("Gb/s"))
        k = ports_at(model, speed) or model.ports
        radix[name] = min(radix.get(name, k), k)
    order = [t.name for t in tier_bandwidths(design, f) if t.name in radix]
    order += [name for name in radix if name not in order]
    return [(name, radix[name]) for name in order], "switches"
