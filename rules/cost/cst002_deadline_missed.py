"""Projected training time longer than the deadline a workload or the design declares.

## What it does
Projects each workload's wall-clock training time: FLOPs (6 x N x D, or the exact
transformer count when the architecture is declared) over GPUs x peak dense FLOPS at its
precision x MFU, divided by (1 - communication share), plus synchronous checkpoint saves.
Flags a workload longer than its `deadline`, and a design whose workloads together (the
longest of the concurrent ones plus every non-concurrent one in turn) run past
`cost.deadline`.

## Why it matters
A schedule written without the arithmetic is off by months: a 300B-parameter model on
3T tokens on 800 H100 at 65% utilisation and 42% communication takes about 210 days
(6 x N x D / (GPUs x peak x MFU x (1 - share))), not the 14 weeks a plan might promise.
The MFU default where none is declared is listed in each projection's assumptions.

Sources: Kaplan et al., "Scaling Laws for Neural Language Models", 2020; Narayanan et al.,
"Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", SC 2021.

## Example
```yaml
workloads:
  - id: llm-300b
    model: {parameters: 300e9}
    tokens: 3e12
    gpus: 800
    mfu: 65%
    communication_overhead: 42%
    deadline: 14 week    # CST002: ~210 days projected
```

## Fix
Add GPUs, raise MFU (better overlap, a non-blocking fabric: lower communication share), use a
faster precision, train on fewer tokens, or move the deadline.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, Violation, project_workloads, rule
from dclint.units import Q_, fmt

from ._shared import CostRule


@rule("CST002", "deadline-missed", tags=("cost", "schedule"), needs=("workload", "deadline"))
class DeadlineMissed(CostRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        projections = project_workloads(design)
        for p in projections:
            deadline = design.workloads[p.index].deadline
            if deadline is None or p.training_time.m_as("day") <= deadline.m_as("day"):
                continue
            yield Violation(
                ("workloads", p.index, "deadline"),
                f"workload {p.workload} projected training time "
                f"{fmt(p.training_time, 'day')} on {p.gpus} GPUs at "
                f"{p.timing.mfu.m_as('percent'):.4g}% MFU misses its deadline",
                subject=p.workload,
                measured=p.training_time,
                limit=deadline.to("day"),
                fix="add GPUs, raise MFU, train fewer tokens or move the deadline",
            )
        deadline = design.cost.deadline
        if deadline is None or not projections:
            return
        concurrent = [p.training_time for p in projections if design.workloads[p.index].concurrent]
        serial = [p.training_time for p in projections if not design.workloads[p.index].concurrent]
        total = max(concurrent, default=Q_(0.0, "day")) + sum(serial, Q_(0.0, "day"))
        if total.m_as("day") > deadline.m_as("day"):
            yield Violation(
                ("cost", "deadline"),
                f"the design's workloads take {fmt(total.to('day'), 'day')} (the longest "
                f"concurrent one plus {len(serial)} run in turn), past the deadline",
                subject=design.name,
                measured=total.to("day"),
                limit=deadline.to("day"),
                fix="add GPUs, run workloads concurrently, or move the deadline",
            )
