"""InfiniBand subnet with more ports and switches than it has unicast LIDs.

## What it does
For each fabric whose switches are InfiniBand (the catalog's `protocol`), counts the local
identifiers (LIDs) the subnet manager must assign: one a host channel adapter port (the GPUs'
NIC ports, `nics_per_gpu` x GPUs, and the ports of the fabric's `endpoints`) and one a switch
(counted tiers, or listed switches). Divides them by the fabric's `subnets` (default 1) and
flags a subnet above `max_lids` (default 49,151).

## Why it matters
An InfiniBand subnet addresses its ports with 16-bit LIDs, of which the unicast range is
0x0001-0xBFFF: 49,151 for every HCA port and switch of the subnet (InfiniBand Architecture
Specification, Vol. 1, IBTA). A single subnet of 65,536 GPUs cannot be brought up by one subnet
manager whatever its switches' radix; larger fabrics are split into subnets joined by
InfiniBand routers.

Sources: InfiniBand Architecture Specification, Vol. 1, IBTA.

## Example
```yaml
racks:
  - {id: "r[0001-2048]", platform: hgx-h100, nodes: 4}   # 65,536 GPUs
fabrics:
  - id: compute
    kind: compute
    tiers: [...]        # NET011: 65,536 HCA ports + 5,120 switches in one subnet
```

## Fix
Split the fabric into InfiniBand subnets joined by routers and declare `subnets`, or run
fewer ports a subnet (a separate fabric per pod).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from dclint.api import Context, Count, Design, Option, Violation, endpoint_ports, rule, topology_of

from ._shared import FabricRule


@rule(
    "NET011", "infiniband-subnet-too-large", tags=("fabric", "infiniband"), consequence="cannot-run"
)
class InfinibandSubnetTooLarge(FabricRule):
    options = {
        "max_lids": Option(49151, Count, "Unicast LIDs of one InfiniBand subnet"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        limit = int(ctx["max_lids"])
        switches = topology_of(design).catalog.switches
        for f, fabric in enumerate(design.fabrics):
            models = [t.switch for t in fabric.tiers] + [s.model for s in fabric.switches]
            if not models or any(
                (m := switches.get(key)) is None or m.protocol != "infiniband" for key in models
            ):
                continue
            ports = endpoint_ports(design, fabric)
            count = sum(t.count for t in fabric.tiers) + len(fabric.switches)
            lids = ports.total + count
            per = math.ceil(lids / fabric.subnets)
            if per <= limit:
                continue
            need = math.ceil(lids / limit)
            split = f" over {fabric.subnets} subnets" if fabric.subnets > 1 else ""
            yield Violation(
                ("fabrics", f, "subnets" if "subnets" in fabric.model_fields_set else "id"),
                f"InfiniBand fabric {fabric.id} needs {lids:,} LIDs ({ports.total:,} HCA ports: "
                f"{ports.gpu_ports:,} GPU NIC ports and {ports.other:,} of endpoints; "
                f"{count:,} switches){split}: {per:,} a subnet, above the unicast LIDs "
                f"of one subnet; at least {need} subnets joined by InfiniBand routers",
                subject=fabric.id,
                measured=float(per),
                limit=float(limit),
                fix=f"split the fabric into at least {need} subnets joined by InfiniBand "
                "routers (declare subnets)",
            )
