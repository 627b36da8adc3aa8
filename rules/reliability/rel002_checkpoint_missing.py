"""Training run long enough to meet failures that declares no checkpoint.

## What it does
For each workload without a `checkpoint`, takes its projected days of steps W (compute and
communication, as `dclint cost` projects them) and the job's mean time between interruptions
M (the site's `gpu_mtbf`, GPU-hours between interruptions, over the workload's GPUs). With no
checkpoint every failure restarts the run from its start, so the expected wall time is
M e^(R/M) (e^(W/M) - 1) (Daly 2006, FGCS 22, with the interval the whole run and no save; R
the restart, 10 min). Flags a run whose expected wall time exceeds that of the same run
checkpointed at the Young/Daly interval by more than `max_loss` (default 5%). The checkpoint
it would write is parameters x `bytes_per_parameter` to the design's checkpoint tier, as
STO002 counts it (restarts only where no tier has a write bandwidth). The finding gives both
wall times and the days and money between them.

## Why it matters
The projection's training time counts restarts, not work lost, for a run without checkpoints:
an 11-day job on 1,024 H100 (MTBF 49.5 h at the Llama 3 paper's rate of 419 unexpected
interruptions in 54 days on 16,384 GPUs) is projected at 11 days and expected to take about
427 days, as it almost never runs 11 days without a failure. The 5% `max_loss` is dclint's own
default, the budget REL001 and STO003 use.

Sources: Meta, "The Llama 3 Herd of Models", 2024.

## Example
```yaml
workloads:
  - id: llm-70b
    model: {parameters: 70e9}
    tokens: 1e12
    gpus: 1024      # REL002: 11 d of steps, 427 d expected without checkpoints
```

## Fix
Declare the workload's `checkpoint` (interval, tier): about the Young/Daly interval the
finding gives, to a tier that survives a node (REL003).
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    Option,
    Share,
    Violation,
    checkpoint_tier,
    days_text,
    rule,
    run_of,
)
from dclint.units import Q_, fmt

from .._checkpoints import bytes_per_parameter
from ._shared import ReliabilityRule


@rule("REL002", "checkpoint-missing", severity="warning", consequence="performance")
class CheckpointMissing(ReliabilityRule):
    options = {
        "max_loss": Option(
            "5%", Share, "Most wall time the missing checkpoint may add over checkpointing"
        ),
        "bytes_per_parameter": bytes_per_parameter(
            "Bytes per parameter of the checkpoint the workload would write"
        ),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        limit = ctx["max_loss"].m_as("")
        if not design.storage.tiers:
            return  # a design that declares no storage says nothing of where checkpoints go
        for i, wl in enumerate(design.workloads):
            if wl.checkpoint is not None:
                continue
            run = run_of(design, i)
            if run is None or run.steps_s <= 0:
                continue
            where = checkpoint_tier(design, wl)
            write = where[1].aggregate("write") if where is not None else None
            size = (ctx["bytes_per_parameter"] * float(wl.model.parameters)).to("GB")
            if where is not None and write is not None and write.magnitude > 0:
                save = (size / write).m_as("s")
                tau, best = run.optimal_s(save)
                how = (
                    f"with a {fmt(size, 'TB' if size.m_as('GB') >= 1000 else 'GB')} checkpoint "
                    f"to {where[1].id} ({fmt(Q_(save, 's'))} a save) every "
                    f"{fmt(Q_(tau, 's'), 'minute')} (the Young/Daly interval)"
                )
            else:
                best = run.steps_s * (1 + run.restart_s / run.mtbf_s)
                how = "with checkpoints (restarts only: no tier's write bandwidth to time a save)"
            expected = run.unprotected_s()
            loss = expected / best - 1
            if loss <= limit * (1 + 1e-9):
                continue
            lost = (expected - best) / 86400
            yield Violation(
                ("workloads", i, "id"),
                f"workload {wl.id} declares no checkpoint: its {days_text(run.steps_s)} of "
                f"steps, each failure restarting them from the start ({run.mtbf_text()}), are "
                f"expected to take {days_text(expected)}, against {days_text(best)} {how}: "
                f"{days_text(expected - best)} lost{run.money(lost)}",
                subject=wl.id,
                measured=Q_(expected / 86400, "day"),
                limit=Q_(best * (1 + limit) / 86400, "day"),
                fix="declare a checkpoint (interval and a tier that survives a node)",
            )
