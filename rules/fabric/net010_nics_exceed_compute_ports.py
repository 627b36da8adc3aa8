"""Fabric that gives each GPU more NICs than its platform has compute-fabric ports.

## What it does
For each compute fabric, takes `nics_per_gpu` x the GPUs of each platform on it (a node's or a
rack's) and holds it against the platform's compute-fabric NICs in the catalog
(`compute_nics`, one a GPU on DGX/HGX H100 and B200, 72 on a GB200 NVL72 rack's 18 trays).
Flags a fabric that declares more, once a platform. Platforms whose catalog entry gives no
compute NICs are not checked.

## Why it matters
A DGX H100 has eight 400 Gb/s ConnectX-7 ports for the compute fabric, one per GPU (NVIDIA DGX
H100 SuperPOD reference architecture): a fabric declared with 2 NICs a GPU counts 16 ports a
node that do not exist, so NET001, NET009 and the step model see twice the injection bandwidth
and twice the leaf ports in use.

Sources: NVIDIA DGX H100 SuperPOD reference architecture.

## Example
```yaml
racks:
  - {id: "r[01-32]", platform: dgx-h100, nodes: 4}
fabrics:
  - id: compute
    kind: compute
    nics_per_gpu: 2   # NET010: 16 ports a node, the DGX H100 has 8
```

## Fix
Declare the NICs the platform has (`nics_per_gpu: 1` on DGX H100), or a platform entry with
the ports you will install.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, Violation, fabric_racks, rule

from ._shared import FabricRule, compute_fabrics


@rule("NET010", "nics-exceed-compute-ports", consequence="cannot-run")
class NicsExceedComputePorts(FabricRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for f, fabric in compute_fabrics(design):
            seen: set[str] = set()
            for rack in fabric_racks(design, fabric):
                platform = rack.platform
                key = rack.platform_key or ""
                if platform is None or key in seen or platform.compute_nics <= 0:
                    continue
                seen.add(key)
                wanted = fabric.nics_per_gpu * platform.gpus
                if wanted <= platform.compute_nics + 1e-9:
                    continue
                unit = "node" if platform.kind == "node" else "rack"
                yield Violation(
                    ("fabrics", f, "nics_per_gpu"),
                    f"fabric {fabric.id} gives each GPU {fabric.nics_per_gpu:g} NICs: "
                    f"{wanted:g} a {unit} of {key} ({platform.gpus} GPUs), which has "
                    f"{platform.compute_nics} compute-fabric ports (catalog)",
                    subject=fabric.id,
                    measured=float(fabric.nics_per_gpu),
                    limit=platform.compute_nics / platform.gpus,
                    fix=f"declare nics_per_gpu: {platform.compute_nics / platform.gpus:g} "
                    f"(the {key}'s compute ports)",
                )
