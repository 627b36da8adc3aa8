"""Checkpoint interval so far above the Young/Daly optimum that failures waste the run.

## What it does
For each workload with a `checkpoint` whose save time is known (its size, declared or
parameters x `bytes_per_parameter`, over the write bandwidth of its tier, as STO002), takes the
job's mean time between interruptions M (the site's `gpu_mtbf`, GPU-hours between
interruptions, over the workload's GPUs) and the optimum interval sqrt(2 x save x M) (Young
1974). It then projects the run's wall time at the declared interval and at the optimum, with
the projection's failure model: a save's stall every interval, half an interval redone and a
restart after each failure, Daly's higher-order expression M e^(R/M) (e^((tau + save)/M) - 1)
x work / tau once the interval nears the MTBF (Daly 2006, FGCS 22). Flags a declared interval
above the optimum whose wall time exceeds the optimum's by more than `max_loss` (default 5%).
The finding gives the goodput (steps over wall time) at both intervals and the days and money
the interval costs. An interval below the optimum costs save stalls: STO003's matter.

## Why it matters
A job's MTBF falls with its size: the Llama 3 paper reports 419 unexpected interruptions in 54
days on 16,384 H100, one every 3.09 h, so a job on 16,384 GPUs that saves every 4 h redoes on
average 2 h of work at each failure and more than half its wall time is lost (46% goodput). The
default `gpu_mtbf` of 50,687 GPU-hours is that rate; declare your site's as `site.gpu_mtbf`.
The 5% `max_loss` is dclint's own default, the same budget STO003 gives checkpoint stalls.

Sources: Meta, "The Llama 3 Herd of Models", 2024.

## Example
```yaml
workloads:
  - id: llm-405b
    model: {parameters: 405e9}
    tokens: 2e12
    gpus: 16384
    checkpoint:
      interval: 4 h   # REL001: job MTBF 3.093 h, Young/Daly optimum 5.922 min
```

## Fix
Checkpoint at about the Young/Daly interval the finding gives (a faster save, or an
asynchronous one, shortens it further), or run on fewer, more reliable GPUs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dclint.api import (
    Context,
    Design,
    Option,
    Remedy,
    Share,
    Violation,
    days_text,
    rule,
    run_of,
    save_time,
)
from dclint.units import Q_, fmt

from .._checkpoints import bytes_per_parameter
from ._shared import ReliabilityRule

if TYPE_CHECKING:
    from dclint.api import Finding, Projection


@rule(
    "REL001",
    "checkpoint-interval-too-long",
    severity="warning",
    consequence="performance",
    needs=("workload",),
)
class CheckpointIntervalTooLong(ReliabilityRule):
    options = {
        "max_loss": Option(
            "5%", Share, "Most wall time the interval may add over the Young/Daly optimum's"
        ),
        "bytes_per_parameter": bytes_per_parameter(),
    }

    @classmethod
    def remedy(
        cls, design: Design, finding: Finding, projection: Projection, options: dict[str, Any]
    ) -> Remedy | None:
        """The workload at fault checkpointed at the Young/Daly interval."""
        if finding.subject != projection.workload:
            return None
        wl = design.workloads[projection.index]
        run = run_of(design, projection.index)
        save = save_time(design, wl, options["bytes_per_parameter"])
        if run is None or save is None or wl.checkpoint is None:
            return None
        now = run.checkpointed_s(save[0].m_as("s"), wl.checkpoint.interval.m_as("s"))
        _, best = run.optimal_s(save[0].m_as("s"))
        return Remedy(wall=best / now) if now > 0 else None

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        limit = ctx["max_loss"].m_as("")
        for i, wl in enumerate(design.workloads):
            save = save_time(design, wl, ctx["bytes_per_parameter"])
            if save is None or wl.checkpoint is None:
                continue
            run = run_of(design, i)
            if run is None or run.steps_s <= 0:
                continue
            delta = save[0].m_as("s")
            tau = wl.checkpoint.interval.m_as("s")
            best_tau, best = run.optimal_s(delta)
            now = run.checkpointed_s(delta, tau)
            loss = now / best - 1
            if tau <= best_tau or loss <= limit * (1 + 1e-9):
                continue
            lost_days = (now - best) / 86400
            yield Violation(
                ("workloads", i, "checkpoint", "interval"),
                f"workload {wl.id} checkpoints every {fmt(wl.checkpoint.interval)}, "
                f"{tau / run.mtbf_s:.3g}x its {run.mtbf_text()}: goodput "
                f"{fmt(Q_(run.steps_s / now, '').to('percent'))}, against "
                f"{fmt(Q_(run.steps_s / best, '').to('percent'))} at the Young/Daly interval "
                f"sqrt(2 x {fmt(save[0], 's')} save x MTBF) = {fmt(Q_(best_tau, 's'), 'minute')}; "
                f"{days_text(now)} instead of {days_text(best)} for "
                f"{days_text(run.steps_s)} of steps: the interval costs "
                f"{fmt(Q_(lost_days, 'day'))}{run.money(lost_days)}, "
                f"{fmt(Q_(loss, '').to('percent'))} of the optimum's wall time",
                subject=wl.id,
                measured=Q_(loss, "").to("percent"),
                limit=ctx["max_loss"].to("percent"),
                fix=f"checkpoint about every {fmt(Q_(best_tau, 's'), 'minute')} "
                "(the Young/Daly interval)",
            )
