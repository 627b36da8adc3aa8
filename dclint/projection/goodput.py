"""Goodput of a run under failures: interruption rate, restart, lost work and checkpoint stalls.

First-order model (Young 1974, Daly 2006): with a checkpoint every tau that stalls training for
delta, and failures at mean interval M, the share of wall time lost is
delta / tau + (tau / 2 + R) / M (half an interval of work redone and a restart R per failure);
tau* = sqrt(2 delta M) minimises it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dclint.units import Q_, Quantity

__all__ = [
    "FAILURES_PER_GPU_HOUR",
    "FAILURE_SOURCE",
    "RESTART",
    "Goodput",
    "goodput",
    "lost_share",
    "optimal_interval_s",
]

# Meta, "The Llama 3 Herd of Models" (2024), section 3.3.4: 419 unexpected interruptions in a
# 54-day snapshot of pre-training on 16,384 H100 GPUs.
FAILURES_PER_GPU_HOUR = 419 / (54 * 24 * 16384)
FAILURE_SOURCE = "Llama 3 paper: 419 unexpected interruptions in 54 days on 16,384 H100"
# dclint's own default: detect the failure, reschedule and reload the last checkpoint in 10 min
# (declare a measured figure instead; the Llama 3 paper reports >90% effective training time).
RESTART: Quantity = Q_(10.0, "minute")


def optimal_interval_s(save_s: float, mtbf_s: float) -> float:
    """Young/Daly checkpoint interval sqrt(2 x save time x MTBF), in seconds."""
    return math.sqrt(2.0 * save_s * mtbf_s)


def lost_share(save_s: float, interval_s: float, mtbf_s: float, restart_s: float) -> float:
    """Share of wall time lost to checkpoint stalls, redone work and restarts (capped at 1)."""
    if interval_s <= 0:
        return 1.0
    return min(1.0, save_s / interval_s + (interval_s / 2 + restart_s) / mtbf_s)


@dataclass(frozen=True)
class Goodput:
    """Failure and checkpoint accounting of one run."""

    mtbf: Quantity  # mean time between interruptions of the whole job
    interval: Quantity  # checkpoint interval used (declared, else the optimum)
    optimal_interval: Quantity
    save: Quantity
    restart: Quantity
    fraction: Quantity  # useful time / wall time
    optimal_fraction: Quantity  # the same at the optimal interval
    source: str


def goodput(gpus: int, save: Quantity, interval: Quantity | None) -> Goodput:
    """Goodput of a job on `gpus` GPUs whose checkpoint saves stall it for `save`."""
    mtbf_s = 3600.0 / (FAILURES_PER_GPU_HOUR * gpus)
    save_s = save.m_as("s")
    restart_s = RESTART.m_as("s")
    best = optimal_interval_s(save_s, mtbf_s) if save_s > 0 else 0.0
    used = interval.m_as("s") if interval is not None else best
    if save_s > 0:
        fraction = 1.0 - lost_share(save_s, used, mtbf_s, restart_s)
        optimal = 1.0 - lost_share(save_s, best, mtbf_s, restart_s)
    else:  # no checkpoints: each failure loses, on average, half the run so far; report restarts
        fraction = optimal = max(0.0, 1.0 - restart_s / mtbf_s)
    return Goodput(
        Q_(mtbf_s, "s").to("hour"),
        Q_(used, "s").to("minute"),
        Q_(best, "s").to("minute"),
        save.to("s"),
        RESTART,
        Q_(fraction, "dimensionless"),
        Q_(optimal, "dimensionless"),
        FAILURE_SOURCE,
    )
