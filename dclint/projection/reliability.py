"""What failures cost a workload's run, for the reliability rules (REL001-REL004, STO007): its
job MTBF (the site's GPU-hours between interruptions over its GPUs), its days of steps from the
projection, and the wall time and money of a run checkpointed one way or another (goodput.py's
first-order and Daly models)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dclint.projection.goodput import (
    FAILURE_SOURCE,
    RESTART,
    job_mtbf_s,
    no_checkpoint_wall_s,
    optimal_interval_s,
    wall_factor,
)
from dclint.units import Q_, Quantity, fmt

if TYPE_CHECKING:
    from dclint.model.design import Design
    from dclint.projection.workloads import Projection

__all__ = ["Run", "days_text", "run_of"]


@dataclass(frozen=True)
class Run:
    """A workload's run as the reliability rules see it: seconds of steps, job MTBF, restart,
    and what a day of its wall time costs (None where the projection prices nothing)."""

    workload: str
    gpus: int
    # the run's steps (the batch ramp-up's included) and evaluations: what checkpoints are
    # saved over and failures interrupt (Timing.running), no checkpoint stalls or failures
    steps_s: float
    mtbf_s: float
    mtbf_source: str
    restart_s: float
    day_cost: Quantity | None  # the run's cost over its projected wall days

    @property
    def mtbf(self) -> Quantity:
        return Q_(self.mtbf_s, "s").to("hour")

    def mtbf_text(self) -> str:
        return f"job MTBF {fmt(self.mtbf, 'hour')} on {self.gpus:,} GPUs ({self.mtbf_source})"

    def checkpointed_s(self, save_s: float, interval_s: float) -> float:
        """Expected wall seconds with a save of `save_s` every `interval_s` (the projection's
        model: first order, Daly's expression near the MTBF)."""
        return self.steps_s * wall_factor(save_s, interval_s, self.mtbf_s, self.restart_s)

    def optimal_s(self, save_s: float) -> tuple[float, float]:
        """(Young/Daly interval sqrt(2 x save x MTBF), expected wall seconds at it)."""
        tau = optimal_interval_s(save_s, self.mtbf_s)
        return tau, self.checkpointed_s(save_s, tau)

    def unprotected_s(self) -> float:
        """Expected wall seconds with no checkpoint: each failure restarts from the start."""
        return no_checkpoint_wall_s(self.steps_s, self.mtbf_s, self.restart_s)

    def money(self, days: float) -> str:
        """', 1.2M USD' for `days` of this run's wall time, '' where the run is not priced."""
        if self.day_cost is None or not math.isfinite(days):
            return ""
        return f", {fmt(self.day_cost * days)}"


def run_of(design: Design, index: int) -> Run | None:
    """The run of `design.workloads[index]` (None when the projection cannot project it)."""
    from dclint.projection.workloads import project_workloads

    p: Projection | None = next((p for p in project_workloads(design) if p.index == index), None)
    if p is None:
        return None
    t = p.timing
    steps = t.running.m_as("s")
    gpu_mtbf = design.site.gpu_mtbf
    source = FAILURE_SOURCE if gpu_mtbf is None else f"site.gpu_mtbf {fmt(gpu_mtbf, 'hour')}"
    wall = p.training_time.m_as("day")
    day_cost = None
    if p.cost_breakdown and wall > 0:
        day_cost = (p.cost_total / wall).to(p.currency)
    return Run(
        p.workload,
        p.gpus,
        float(steps),
        job_mtbf_s(p.gpus, gpu_mtbf),
        source,
        float(RESTART.m_as("s")),
        day_cost,
    )


def days_text(seconds: float) -> str:
    """Seconds of wall time as days, '1e+34 d' style past a million days, 'forever' past a
    float."""
    if not math.isfinite(seconds):
        return "longer than a float holds"
    return fmt(Q_(seconds / 86400, "day"))
