"""Fabric whose endpoints need more ports than its first tier has downlinks.

## What it does
In the counted form (`tiers`), adds up the ports the fabric's endpoints take at the first
tier: GPUs on the fabric x `nics_per_gpu` (rounded up), plus each `endpoints` entry's
`count x ports` (storage nodes, management appliances such as a subnet manager, gateways),
and compares them with the first tier's `count x downlinks`. Flags the fabric when the
endpoints need more, at the first tier's `downlinks`. Only `compute` fabrics are checked (a
front-end fabric's `nics_per_gpu` is often left at its default). In the explicit form each
link is listed, and NET002 counts an explicit switch's links, those to endpoint nodes
included, against its ports.

## Why it matters
An endpoint without a port is not on the fabric: 1,024 GPUs on 512 leaf downlinks leaves
half the GPUs unconnected, however non-blocking the tiers above are. Storage and management
nodes are easily forgotten: NVIDIA's DGX SuperPOD reference architectures attach the storage
fabric's nodes and the UFM appliances to leaf ports, which the leaf tier must have to spare.

Sources: NVIDIA DGX SuperPOD reference architectures.

## Example
```yaml
fabrics:
  - id: compute
    kind: compute
    tiers:
      - {name: leaf, switch: qm9700, count: 16, downlinks: 32, uplinks: 32}  # NET009
      - {name: spine, switch: qm9700, count: 8, downlinks: 64}
# 1,024 GPUs on 512 leaf downlinks
```

## Fix
Add leaf switches (and the spine ports they need), or move the extra nodes to a fabric of
their own.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, Violation, endpoint_ports, rule

from ._shared import FabricRule, compute_fabrics


@rule("NET009", "endpoints-exceed-leaf-ports", consequence="cannot-run")
class EndpointsExceedLeafPorts(FabricRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for f, fabric in compute_fabrics(design):
            if not fabric.tiers:
                continue
            leaf = fabric.tiers[0]
            have = leaf.count * leaf.downlinks
            need = endpoint_ports(design, fabric)
            if need.total <= have:
                continue
            nics = f"{fabric.nics_per_gpu:g} NIC{'' if fabric.nics_per_gpu == 1 else 's'}"
            parts = [f"{need.gpus:,} GPUs x {nics} per GPU = {need.gpu_ports:,} ports"]
            parts += [f"{e.count:,} {e.name} x {_ports(e.ports)}" for e in fabric.endpoints]
            yield Violation(
                ("fabrics", f, "tiers", 0, "downlinks"),
                f"fabric {fabric.id} has {need.total:,} endpoint ports ({' + '.join(parts)}) "
                f"but tier {leaf.name} has {leaf.count:,} switches x {leaf.downlinks} downlinks; "
                f"{need.total - have:,} endpoint ports have no leaf port",
                subject=fabric.id,
                measured=float(need.total),
                limit=float(have),
                fix=f"add {leaf.name} switches or move endpoints to a fabric of their own",
            )


def _ports(n: int) -> str:
    return f"{n} port{'' if n == 1 else 's'}"
