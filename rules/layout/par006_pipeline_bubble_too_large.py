"""Pipeline layout whose bubble idles the GPUs for most of each step.

## What it does
For each workload with pipeline parallelism (`parallel.pp` p > 1) and a `global_batch`, counts
the micro-batches each pipeline runs a step, m = global_batch / (micro_batch x dp), and the
share of the step its stages wait in the pipeline's fill and drain: (p - 1) / (v m + p - 1)
with v the virtual stages (`parallel.vpp`; 1F1B schedule, Narayanan et al. 2021, the bubble
(p - 1) / (v m) of the ideal time). Flags a share above `max_bubble` (default 50%). Where the
run is projected, the finding gives the days and money the bubble costs beyond the limit: the
run's steps shortened by (1 - bubble) / (1 - max_bubble). It needs no layout search (PAR005).

## Why it matters
With pp 16 and 2 micro-batches a step, each stage works 2 of 17 slots: 88% of the GPUs' time
is idle, whatever the fabric or the GPUs. The 50% `max_bubble` is dclint's own default: from
there a stage waits longer than it computes, and the pipeline costs more than the memory it
saves; Megatron-LM's guidance is m much larger than p.

Sources: Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
Megatron-LM", SC 2021.

## Example
```yaml
workloads:
  - id: llm-70b
    global_batch: 8
    micro_batch: 1
    gpus: 512
    parallel: {tp: 8, pp: 16}   # PAR006: dp 4, 2 micro-batches, bubble 15 / 17 = 88.24%
```

## Fix
Raise the micro-batches a step (a larger global batch, a smaller micro-batch, less data
parallelism), interleave stages (`vpp`), or use fewer pipeline stages.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dclint.api import Context, Design, Option, Remedy, Share, Violation, Workload, rule, run_of
from dclint.units import Q_, fmt

from ._shared import LayoutRule

if TYPE_CHECKING:
    from dclint.api import Finding, Projection


def bubble(wl: Workload) -> tuple[float, int, int] | None:
    """(bubble share of the step, micro-batches a step m, dp) of a pipelined workload; None
    without pp > 1, a global batch or a whole number of micro-batches."""
    par = wl.parallel
    if par.pp <= 1 or wl.global_batch is None:
        return None
    dp = par.dp or wl.gpus // (par.tp * par.pp * par.cp)
    if dp < 1:
        return None
    per = wl.micro_batch * dp
    if wl.global_batch % per:
        return None  # PAR003's matter
    m = wl.global_batch // per
    p, v = par.pp, par.vpp
    return (p - 1) / (v * m + p - 1), m, dp


@rule(
    "PAR006",
    "pipeline-bubble-too-large",
    severity="warning",
    tags=("layout", "pipeline"),
    consequence="performance",
)
class PipelineBubbleTooLarge(LayoutRule):
    options = {
        "max_bubble": Option("50%", Share, "Largest share of a step the pipeline may idle"),
    }

    @classmethod
    def remedy(
        cls, design: Design, finding: Finding, projection: Projection, options: dict[str, Any]
    ) -> Remedy | None:
        """The workload's steps with the bubble at the limit."""
        if finding.subject != projection.workload:
            return None
        got = bubble(design.workloads[projection.index])
        limit = options["max_bubble"].m_as("")
        if got is None or limit >= 1:
            return None
        return Remedy(running=(1 - got[0]) / (1 - limit))

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        limit = ctx["max_bubble"].m_as("")
        for i, wl in enumerate(design.workloads):
            got = bubble(wl)
            if got is None or got[0] <= limit * (1 + 1e-9):
                continue
            share, m, dp = got
            par = wl.parallel
            cost = ""
            run = run_of(design, i)
            if run is not None and run.steps_s > 0 and limit < 1:
                days = run.steps_s * (1 - (1 - share) / (1 - limit)) / 86400
                cost = (
                    "; at the limit its "
                    f"{fmt(Q_(run.steps_s / 86400, 'day'))} of steps would take "
                    f"{fmt(Q_(days, 'day'))} less{run.money(days)}"
                )
            vpp = f", vpp {par.vpp}" if par.vpp > 1 else ""
            yield Violation(
                ("workloads", i, "parallel", "pp"),
                f"workload {wl.id} idles {fmt(Q_(share, '').to('percent'))} of each step in "
                f"the pipeline bubble: pp {par.pp}, {m} micro-batches a step (global batch "
                f"{wl.global_batch} / (micro-batch {wl.micro_batch} x dp {dp})){vpp}, "
                f"(p - 1) / (v m + p - 1) = {par.pp - 1} / {par.vpp * m + par.pp - 1}{cost}",
                subject=wl.id,
                measured=Q_(share, "").to("percent"),
                limit=ctx["max_bubble"].to("percent"),
                fix="raise the micro-batches a step, interleave stages (vpp) or lower pp",
            )
