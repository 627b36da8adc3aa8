"""Tensor-parallel group (or a group declared inside NVLink) that straddles NVLink domains.

## What it does
Checks each workload's `parallel.tp` against the NVLink domain of its platform (the
workload's `platform`, else the first rack's): 8 GPUs on HGX/DGX nodes, 72 on an NVL72 rack.
tp must divide the domain: tp 16 on an NVL72 is under 72 GPUs, but 72 = 4 x 16 + 8, so every
fifth TP group of consecutive ranks spans two racks. Groups the design declares to live
inside NVLink are held to the same test (checked only when tp alone passes):
`expert_tp_in_nvlink` for tp x ep of the expert layers, `context_in_nvlink` for tp x cp.

## Why it matters
Tensor parallelism exchanges activations in every layer, forward and backward: it needs
NVLink bandwidth (900 GB/s per H100, 1.8 TB/s per Blackwell GPU, NVIDIA datasheets) and fails
to scale over the 50 GB/s of a 400 Gb/s NIC, which is why Megatron-LM keeps tensor
parallelism within a node (Narayanan et al. 2021). Megatron-Core numbers ranks tp first, then
cp, ep and dp (its default order "tp-cp-ep-dp-pp"), so a group is contiguous and stays inside
one domain only when its size divides the domain. Expert all-to-all and context-parallel
ring exchanges are as chatty when declared to run over NVLink.

Sources: NVIDIA H100 and Blackwell datasheets; Narayanan et al., "Efficient Large-Scale
Language Model Training on GPU Clusters Using Megatron-LM", SC 2021.

## Example
```yaml
workloads:
  - id: llm
    platform: gb200-nvl72
    gpus: 576
    parallel: {tp: 16}   # PAR002: 16 does not divide the 72-GPU NVLink domain
```

## Fix
Use a tp (or tp x ep, tp x cp) that divides the NVLink domain: 1, 2, 4 or 8 on an HGX node;
1, 2, 3, 4, 6, 8, 9, 12, 18, 24, 36 or 72 on an NVL72; shard further with pp, cp or dp.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dclint.api import Context, Design, Remedy, Violation, hardware_of, rule, step_ratio

from ._shared import LayoutRule

if TYPE_CHECKING:
    from dclint.api import Finding, Projection


@rule(
    "PAR002",
    "tensor-parallel-crosses-nvlink",
    tags=("parallel", "fabric"),
    consequence="cannot-run",
)
class TensorParallelCrossesNvlink(LayoutRule):
    @classmethod
    def remedy(
        cls, design: Design, finding: Finding, projection: Projection, options: dict[str, Any]
    ) -> Remedy | None:
        """An NVLink domain large enough for the workload's tensor group (with its expert and
        context groups where they are kept in NVLink): the predicted step in such a domain
        over the step as it is scales the run of the workload at fault."""
        if projection.timing.prediction is None or finding.subject != projection.workload:
            return None
        par = design.workloads[projection.index].parallel
        group = par.tp * (par.ep if par.expert_tp_in_nvlink else 1)
        group *= par.cp if par.context_in_nvlink else 1
        ratio = step_ratio(design, projection, domain=group)
        return Remedy(running=ratio) if ratio is not None else None

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for i, wl in enumerate(design.workloads):
            hw = hardware_of(design, wl.platform)
            if isinstance(hw, str) or hw.platform is None:
                continue
            domain, name = hw.platform.nvlink_domain, hw.platform.name
            par = wl.parallel
            groups = [("tp", f"tp {par.tp}", par.tp, "")]
            if par.expert_tp_in_nvlink:
                groups.append(
                    ("ep", f"tp {par.tp} x ep {par.ep}", par.tp * par.ep, "expert_tp_in_nvlink")
                )
            if par.context_in_nvlink:
                groups.append(
                    ("cp", f"tp {par.tp} x cp {par.cp}", par.tp * par.cp, "context_in_nvlink")
                )
            for field, what, size, flag in groups:
                if domain % size == 0:
                    continue
                why = (
                    f"{size} GPUs, more than"
                    if size > domain
                    else f"{size} GPUs, which does not divide"
                )
                extra = f" (declared with {flag})" if flag else ""
                spill = f"; {domain} = {size} x {domain // size} + {domain % size}"
                yield Violation(
                    ("workloads", i, "parallel", field),
                    f"workload {wl.id}: each group of {what} spans {why} the {domain}-GPU "
                    f"NVLink domain of {name}{extra}, so groups straddle domains"
                    f"{spill if size < domain else ''}",
                    subject=wl.id,
                    measured=float(size),
                    limit=float(domain),
                    fix=f"use a group size that divides {domain}"
                    + (f", or drop {flag}" if flag else " and shard further with pp, cp or dp"),
                )
                break
