"""Parallel layout whose tp x pp x cp x dp is not the workload's GPUs, or more GPUs than built.

## What it does
Megatron-Core lays a job out as world size = tp x pp x cp x dp (expert parallelism is
carved out of dp x cp). Flags a workload whose declared `dp` makes that product differ from
its `gpus`, or, with `dp` left to default, whose `gpus` is not a multiple of tp x pp x cp.
Flags too a workload that uses more GPUs than the design has (its racks of the workload's
`platform`, or all racks when it names none that is built).

## Why it matters
Megatron refuses to start when the world size is not divisible by tp x pp x cp (Megatron-LM
`megatron/training/arguments.py`: "world size is not divisible by total_model_size"), and a
layout written for a different GPU count silently changes dp, and with it the global batch
and the learning-rate schedule. A workload larger than the cluster cannot run at all, and
every projection (time, cost, storage demand) built on it is wrong.

Sources: Megatron-LM, megatron/training/arguments.py.

## Example
```yaml
workloads:
  - id: llm
    gpus: 576
    parallel: {tp: 8, pp: 4, dp: 20}   # PAR001: 8 x 4 x 1 x 20 = 640, not 576
```

## Fix
Make tp x pp x cp x dp equal to `gpus` (or drop `dp` and let it follow), and keep `gpus`
within the GPUs the design builds.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, Violation, rule, topology_of

from ._shared import LayoutRule


@rule("PAR001", "layout-world-size-mismatch", consequence="cannot-run")
class LayoutWorldSizeMismatch(LayoutRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        racks = topology_of(design).racks
        for i, wl in enumerate(design.workloads):
            par = wl.parallel
            base = par.tp * par.pp * par.cp
            dims = f"tp {par.tp} x pp {par.pp} x cp {par.cp}"
            if par.dp is not None and base * par.dp != wl.gpus:
                yield Violation(
                    ("workloads", i, "parallel", "dp"),
                    f"workload {wl.id}: {dims} x dp {par.dp} = {base * par.dp} GPUs, not the "
                    "GPUs the workload uses",
                    subject=wl.id,
                    measured=float(base * par.dp),
                    limit=float(wl.gpus),
                    fix="make tp x pp x cp x dp equal to gpus, or leave dp out",
                )
            elif par.dp is None and wl.gpus % base:
                yield Violation(
                    ("workloads", i, "parallel"),
                    f"workload {wl.id}: {wl.gpus} GPUs are not a multiple of {dims}, so dp is "
                    f"not a whole number ({wl.gpus / base:.3g})",
                    subject=wl.id,
                    measured=float(wl.gpus),
                    limit=float(base),
                    fix="use a GPU count that is a multiple of tp x pp x cp",
                )
            own = [r for r in racks if wl.platform is not None and r.platform_key == wl.platform]
            built = sum(r.gpus for r in (own or racks))
            if 0 < built < wl.gpus:
                scope = f"{wl.platform} racks have" if own else "design has"
                yield Violation(
                    ("workloads", i, "gpus"),
                    f"workload {wl.id} uses {wl.gpus:,} GPUs, more than the {scope}",
                    subject=wl.id,
                    measured=float(wl.gpus),
                    limit=float(built),
                    fix="lower the workload's gpus or add racks",
                )
