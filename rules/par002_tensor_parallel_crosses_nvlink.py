"""Tensor parallelism (or tensor x expert parallelism) larger than one NVLink domain.

## What it does
Compares each workload's `parallel.tp` with the NVLink domain of its platform (the
workload's `platform`, else the first rack's): 8 GPUs on HGX/DGX nodes, 72 on an NVL72 rack.
Where `parallel.expert_tp_in_nvlink` is set, tp x ep of the expert layers must fit too
(checked only when tp alone fits).

## Why it matters
Tensor parallelism exchanges activations in every layer, forward and backward: it needs
NVLink bandwidth (1.8 TB/s per GPU on Blackwell) and fails to scale over the 50 GB/s of a
400 Gb/s NIC. Megatron practice, and the founding articles, keep TP inside one NVLink domain
(8 GPUs in an HGX node, 72 in an NVL72; DOMAIN.md). Expert all-to-all is as chatty when the
experts of one layer are spread beyond the domain.

## Example
```yaml
racks:
  - {id: n01, platform: hgx-h100, nodes: 4}
workloads:
  - id: llm
    gpus: 32
    parallel: {tp: 16}   # PAR002: 16 > the 8-GPU NVLink domain of an HGX H100
```

## Fix
Lower tp to the NVLink domain and shard further with pp, cp or dp; or run on a platform with
a larger NVLink domain (GB200 NVL72).
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.engine.rule import Context, Rule, Violation
from dclint.model.design import Design
from dclint.projection.training import hardware_of


class TensorParallelCrossesNvlink(Rule):
    id = "PAR002"
    name = "tensor-parallel-crosses-nvlink"
    severity = "error"
    tags = ("parallel", "fabric")
    options = {}

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for i, wl in enumerate(design.workloads):
            hw = hardware_of(design, wl.platform)
            if isinstance(hw, str) or hw.platform is None:
                continue
            domain, name = hw.platform.nvlink_domain, hw.platform.name
            par = wl.parallel
            if par.tp > domain:
                yield Violation(
                    ("workloads", i, "parallel", "tp"),
                    f"workload {wl.id}: tp {par.tp} spans {par.tp} GPUs, more than the "
                    f"{domain}-GPU NVLink domain of {name}",
                    subject=wl.id,
                    measured=float(par.tp),
                    limit=float(domain),
                    fix=f"keep tp at or below {domain} and shard further with pp, cp or dp",
                )
            elif par.expert_tp_in_nvlink and par.tp * par.ep > domain:
                yield Violation(
                    ("workloads", i, "parallel", "ep"),
                    f"workload {wl.id}: tp {par.tp} x ep {par.ep} = {par.tp * par.ep} GPUs of "
                    f"each expert layer span more than the {domain}-GPU NVLink domain of {name}",
                    subject=wl.id,
                    measured=float(par.tp * par.ep),
                    limit=float(domain),
                    fix=f"keep tp x ep at or below {domain}, or drop expert_tp_in_nvlink",
                )
