"""Goodput of a run under failures: interruption rate, restart, lost work and checkpoint stalls.

First-order model (Young 1974, Daly 2006): with a checkpoint every tau that stalls training for
delta, and failures at mean interval M, the share of wall time lost is
delta / tau + (tau / 2 + R) / M (half an interval of work redone and a restart R per failure);
tau* = sqrt(2 delta M) minimises it.

Higher-order model (Daly 2006, "A higher order estimate of the optimum checkpoint interval for
restart dumps", FGCS 22): with exponentially distributed failures the expected wall time of
`work` is T = M e^(R/M) (e^((tau + delta)/M) - 1) x work / tau. It agrees with the first-order
model while tau << M and grows faster as tau approaches M (at tau = 0.65 M the first order
is 7% short); the projection uses it where the two differ (`wall_factor`). A run with no
checkpoint is the case tau = work, delta = 0: every failure restarts it from the beginning.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dclint.units import Q_, Quantity

__all__ = [
    "DALY_FROM",
    "FAILURES_PER_GPU_HOUR",
    "FAILURE_SOURCE",
    "GPU_MTBF",
    "RESTART",
    "Goodput",
    "daly_factor",
    "first_order_factor",
    "goodput",
    "job_mtbf_s",
    "lost_share",
    "no_checkpoint_wall_s",
    "optimal_interval_s",
    "wall_factor",
]

# Meta, "The Llama 3 Herd of Models" (2024), section 3.3.4: 419 unexpected interruptions in a
# 54-day snapshot of pre-training on 16,384 H100 GPUs.
FAILURES_PER_GPU_HOUR = 419 / (54 * 24 * 16384)
FAILURE_SOURCE = "Llama 3 paper: 419 unexpected interruptions in 54 days on 16,384 H100"
# The same rate as GPU-hours between interruptions: 54 d x 24 h x 16,384 / 419 = 50,687 h; a
# job's MTBF is this over its GPUs (3.09 h on 16,384). A site declares its own: site.gpu_mtbf.
GPU_MTBF: Quantity = Q_(1.0 / FAILURES_PER_GPU_HOUR, "hour")
# Where the projection leaves the first-order model for Daly's expression: once the interval
# plus a save reaches a tenth of the job MTBF. Below it the two differ by under 0.2% of the wall
# time (about x^2/6 at x = tau/M = 0.1), within the 4 significant digits the projection prints;
# dclint's own bound, so that figures at ordinary intervals stay those of the first-order model.
DALY_FROM = 0.1
# dclint's own default: detect the failure, reschedule and reload the last checkpoint in 10 min
# (declare a measured figure instead; the Llama 3 paper reports >90% effective training time).
RESTART: Quantity = Q_(10.0, "minute")


def optimal_interval_s(save_s: float, mtbf_s: float) -> float:
    """Young/Daly checkpoint interval sqrt(2 x save time x MTBF), in seconds."""
    return math.sqrt(2.0 * save_s * mtbf_s)


def job_mtbf_s(gpus: int, gpu_mtbf: Quantity | None = None) -> float:
    """A job's mean time between interruptions on `gpus` GPUs, in seconds: the GPU-hours
    between interruptions (the site's, else the Llama 3 rate's 50,687 h) over the GPUs."""
    per_gpu = (gpu_mtbf if gpu_mtbf is not None else GPU_MTBF).m_as("s")
    return float(per_gpu) / max(1, gpus)


def first_order_factor(save_s: float, interval_s: float, mtbf_s: float, restart_s: float) -> float:
    """Wall time over work, first order: (1 + delta/tau)(1 + (tau/2 + R)/M), the projection's
    model (checkpoint stalls, then a share of half an interval redone and a restart a failure)."""
    return (1.0 + save_s / interval_s) * (1.0 + (interval_s / 2 + restart_s) / mtbf_s)


def daly_factor(save_s: float, interval_s: float, mtbf_s: float, restart_s: float) -> float:
    """Wall time over work by Daly (2006): M e^(R/M) (e^((tau + delta)/M) - 1) / tau; infinite
    where it overflows a float."""
    try:
        grow = math.expm1((interval_s + save_s) / mtbf_s)
        return mtbf_s * math.exp(restart_s / mtbf_s) * grow / interval_s
    except OverflowError:
        return math.inf


def wall_factor(save_s: float, interval_s: float, mtbf_s: float, restart_s: float) -> float:
    """Wall time over work as the projection counts it: first order while the interval plus a
    save stays under DALY_FROM of the MTBF, Daly's higher-order expression from there."""
    if (interval_s + save_s) / mtbf_s < DALY_FROM:
        return first_order_factor(save_s, interval_s, mtbf_s, restart_s)
    return daly_factor(save_s, interval_s, mtbf_s, restart_s)


def no_checkpoint_wall_s(work_s: float, mtbf_s: float, restart_s: float) -> float:
    """Expected wall time of `work_s` seconds of steps that no checkpoint saves, each failure
    restarting the run from its start: Daly's expression with tau = work and delta = 0,
    M e^(R/M) (e^(work/M) - 1); infinite where it overflows a float."""
    return daly_factor(0.0, work_s, mtbf_s, restart_s) * work_s


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


def goodput(
    gpus: int, save: Quantity, interval: Quantity | None, gpu_mtbf: Quantity | None = None
) -> Goodput:
    """Goodput of a job on `gpus` GPUs whose checkpoint saves stall it for `save`; `gpu_mtbf`
    is the site's GPU-hours between interruptions (default GPU_MTBF)."""
    mtbf_s = job_mtbf_s(gpus, gpu_mtbf)
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
        FAILURE_SOURCE if gpu_mtbf is None else f"site.gpu_mtbf {gpu_mtbf.m_as('hour'):,.0f} h",
    )
