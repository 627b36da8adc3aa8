"""What a batch-size ramp-up and evaluations add to a run's training time.

Ramp-up (Megatron's `--rampup-batch-size <start> <increment> <samples>`): the batch starts at
`start` sequences and grows by `increment` each time another samples / n samples are consumed
(n = (global batch - start) / increment increments), the batch read before each step from the
samples consumed so far (megatron/core/num_microbatches_calculator.py,
RampupBatchsizeNumMicroBatchesCalculator.update). `phases` replays that schedule step by step.
Each phase's step is timed by the step model at its own batch: fewer micro-batches a step, so
the pipeline's fill and drain and the data-parallel collectives, the same each step, weigh on
fewer sequences. The ramp's term is what its steps take beyond the same samples at the full
batch, on the step time the run uses (declared or predicted): each phase's predicted step
times the ratio of the used step to the predicted one at the full batch.

Evaluations (Megatron's `--eval-interval`): one every `interval` steps of the run (the ramp's
steps counted: Megatron counts iterations), each `time` long.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from dclint.projection.predict import inputs
from dclint.projection.step.model import step
from dclint.units import Q_, Quantity

if TYPE_CHECKING:
    from dclint.model.design import Design
    from dclint.model.workload import Evaluation, Workload
    from dclint.projection.hardware import Hardware

__all__ = ["Phase", "Ramp", "evaluation_time", "phases", "ramp"]


@dataclass(frozen=True)
class Phase:
    """Steps taken at one batch size of the ramp."""

    batch: int  # sequences a step
    steps: int


def phases(
    start: int, increment: int, ramp_samples: float, batch: int, samples: float
) -> list[Phase]:
    """The ramp's steps below the full batch, as Megatron takes them: before each step the
    batch is start + int(consumed / per_increment) x increment while consumed <= the ramp's
    samples, the full batch after; the run stops once `samples` are consumed."""
    per_increment = ramp_samples / ((batch - start) // increment)

    def batch_at(consumed: float) -> int:  # Megatron's update(consumed_samples)
        if consumed > ramp_samples:
            return batch
        return start + int(consumed / per_increment) * increment

    out: list[Phase] = []
    consumed = 0.0
    while consumed < samples:
        current = batch_at(consumed)
        if current >= batch:
            break
        # steps at this batch: up to the next increment's threshold, the ramp's end or the
        # run's, then corrected step by step against batch_at itself (float rounding)
        k = int(consumed / per_increment)
        limit = min((k + 1) * per_increment, samples)
        n = max(1, math.ceil((limit - consumed) / current))
        if ramp_samples < limit:
            n = min(n, int((ramp_samples - consumed) // current) + 1)
        while n > 1 and (
            batch_at(consumed + (n - 1) * current) != current
            or consumed + (n - 1) * current >= samples
        ):
            n -= 1
        while consumed + n * current < samples and batch_at(consumed + n * current) == current:
            n += 1
        out.append(Phase(current, n))
        consumed += n * current
    return out


@dataclass(frozen=True)
class Ramp:
    """The ramp's steps and samples, and the time its steps take beyond the same samples at
    the full batch."""

    phases: tuple[Phase, ...]
    extra: Quantity  # days
    note: str

    @property
    def steps(self) -> int:
        return sum(p.steps for p in self.phases)

    @property
    def samples(self) -> int:
        return sum(p.steps * p.batch for p in self.phases)


def ramp(design: Design, wl: Workload, hw: Hardware, step_s: float, causal: bool) -> Ramp | None:
    """The ramp-up of `wl` on the step time `step_s` the run uses at its full batch (None
    without one); where the step model cannot time its phases, their steps with no extra
    time and a note that says why."""
    got = wl.batch_rampup
    if got is None or wl.global_batch is None:
        return None
    samples = float(wl.tokens) / wl.sequence_length
    steps = tuple(phases(got.start, got.increment, got.samples, wl.global_batch, samples))
    n = sum(p.steps for p in steps)
    model = inputs(design, wl, hw, [])
    if isinstance(model, str):
        return Ramp(steps, Q_(0.0, "day"), f"batch ramp-up not timed ({n:,} steps): {model}")
    arch, layout, machine, sw = model

    # the predicted step at each batch, each timed once (the first phase's is the note's)
    timed = {
        b: step(arch, replace(layout, global_batch=b), machine, sw, causal).time
        for b in dict.fromkeys((wl.global_batch, got.start, *(p.batch for p in steps)))
    }
    scale = step_s / timed[wl.global_batch]
    ramp_s = sum(p.steps * timed[p.batch] for p in steps) * scale
    same_at_full = sum(p.steps * p.batch for p in steps) / wl.global_batch * step_s
    extra = Q_(max(0.0, ramp_s - same_at_full), "s").to("day")
    first = timed[got.start] * scale
    note = (
        f"batch ramp-up: {got.start} to {wl.global_batch} sequences by {got.increment} over "
        f"{got.samples:.6g} samples (Megatron --rampup-batch-size), {n:,} steps of "
        f"{len(steps)} batches, each timed by the step model at its batch (a {got.start}-"
        f"sequence step {first:.4g} s against {step_s * got.start / wl.global_batch:.4g} s "
        f"at the full batch's rate): {extra.m_as('day'):.3g} d beyond the same samples at "
        "the full batch"
    )
    return Ramp(steps, extra, note)


def evaluation_time(ev: Evaluation, steps: float) -> tuple[Quantity, str]:
    """Evaluations over a run of `steps` steps (the ramp's counted), and a note."""
    count = int(steps // ev.interval)
    total = (ev.time * count).to("day")
    note = (
        f"evaluations: one every {ev.interval:,} steps, {ev.time.m_as('min'):.3g} min each, "
        f"{count:,} in {steps:,.0f} steps: {total.m_as('day'):.3g} d"
    )
    return total, note
