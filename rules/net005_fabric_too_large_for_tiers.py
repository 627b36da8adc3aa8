"""Compute fabric with more endpoints than a non-blocking fat tree of its radix and tiers holds.

## What it does
Counts the fabric's endpoints (GPUs on the fabric x `nics_per_gpu`, plus the ports of its
`endpoints`: storage, management and gateway nodes) and compares them with the most a
non-blocking fat tree of radix k and n tiers can hold: 2 (k/2)^n, that is k^2/2 for two
tiers and k^3/4 for three. The radix is the smallest number of ports any tier's switch
offers at that tier's link speed (a QM9700 is radix 64 at 400 Gb/s, 128 when split to
200 Gb/s); n is the number of parametric tiers, or of distinct switch tiers in the explicit
form. Only `compute` fabrics are checked.

## Why it matters
Beyond that size the fabric cannot be both non-blocking and built from these tiers: some
tier must be oversubscribed, or a tier is missing. The bound is the fat tree's (Al-Fares et
al., "A scalable, commodity data center network architecture", SIGCOMM 2008: k^2/2 hosts on
two tiers, k^3/4 on three); NVIDIA's DGX SuperPOD H100 reference architecture builds two
tiers of 64-port QM9700 and adds a core tier for the largest pods. Whether every endpoint
also has a leaf port is NET009's check.

## Example
```yaml
fabrics:
  - id: compute
    kind: compute
    tiers:               # NET005: 4096 endpoints, two radix-64 tiers hold 2048
      - {name: leaf, switch: qm9700, count: 128, downlinks: 32, uplinks: 32}
      - {name: spine, switch: qm9700, count: 64, downlinks: 64}
```

## Fix
Add a tier (three tiers of radix 64 hold 65,536 endpoints), use higher-radix switches
(Quantum-X800 Q3400, 144 ports), or split the cluster into fabrics that each fit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dclint.calc.fabric_graph import fabric_graph, fat_tree_endpoints, ports_at
from dclint.calc.fabric_tiers import endpoint_ports
from dclint.engine.rule import Context, Remedy, Rule, Violation
from dclint.model.design import Design
from dclint.model.fabric import Fabric
from dclint.projection.remedies import step_ratio

if TYPE_CHECKING:
    from dclint.engine.findings import Finding
    from dclint.projection import Projection


class FabricTooLargeForTiers(Rule):
    id = "NET005"
    name = "fabric-too-large-for-tiers"
    severity = "error"
    tags = ("fabric",)
    needs = ("fabric",)
    options = {}

    @classmethod
    def remedy(
        cls, design: Design, finding: Finding, projection: Projection, options: dict[str, Any]
    ) -> Remedy | None:
        """Enough tiers for the fabric, every one at 1:1: the step-time model's step without
        oversubscription over the step as it is scales the run."""
        ratio = step_ratio(design, projection, nonblocking=True)
        return Remedy(running=ratio) if ratio is not None else None

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for f, fabric in enumerate(design.fabrics):
            if fabric.kind != "compute":
                continue
            shape = _shape(design, f, fabric)
            if shape is None:
                continue
            radix, tiers, field = shape
            ports = endpoint_ports(design, fabric)
            gpus = ports.gpus
            endpoints = ports.total
            nics = f"{fabric.nics_per_gpu:g} NIC{'' if fabric.nics_per_gpu == 1 else 's'}"
            other = f" + {ports.other:,} ports of other nodes" if ports.other else ""
            most = fat_tree_endpoints(radix, tiers)
            if endpoints <= most:
                continue
            yield Violation(
                ("fabrics", f, field),
                f"fabric {fabric.id} has {endpoints:,} endpoints ({gpus:,} GPUs x "
                f"{nics} per GPU{other}), more than the {most:,} a non-blocking "
                f"{tiers}-tier fat tree of radix {radix} holds",
                subject=fabric.id,
                measured=float(endpoints),
                limit=float(most),
                fix="add a tier, use higher-radix switches or split the fabric",
                key=True,
            )


def _shape(design: Design, f: int, fabric: Fabric) -> tuple[int, int, str] | None:
    """(radix, tiers, field to point at), or None when the switches are unknown."""
    models = design.topology.catalog.switches
    radixes: list[int] = []
    if fabric.tiers:
        for tier in fabric.tiers:
            model = models.get(tier.switch)
            ports = ports_at(model, tier.link_speed or model.port_speed) if model else None
            if ports is None:
                return None
            radixes.append(ports)
        return min(radixes), len(fabric.tiers), "tiers"
    if not fabric.switches:
        return None
    fg = fabric_graph(design, f)
    names: set[str] = set()
    for sid, (key, name, _) in fg.switches.items():
        model = models.get(key)
        if model is None:
            return None
        names.add(name)
        # Radix at the speed most of the switch's links run at (its port speed if unlinked).
        speeds = Counter(e.speed.m_as("Gb/s") for e in fg.incident(sid))
        speed = model.port_speed
        if speeds:
            speed = speed * (speeds.most_common(1)[0][0] / speed.m_as("Gb/s"))
        radixes.append(ports_at(model, speed) or model.ports)
    return min(radixes), len(names), "switches"
