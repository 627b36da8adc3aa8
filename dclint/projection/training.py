"""Per-workload projection: training time, GPU-hours, energy, cost and per-GPU memory.

Time = FLOPs / (GPUs x peak dense FLOPS at the workload's precision x MFU); a declared
communication share then divides it by (1 - communication share), and synchronous checkpoint saves
(size / write bandwidth of the checkpoint tier, once per interval) are added. With
`mfu_basis: model` (default) the model FLOPs are used, with `hardware` the FLOPs including
recomputation (see flops.py). Energy = IT power attributable to the workload x wall time x PUE.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dclint.model.defaults import CHECKPOINT_BYTES_PER_PARAMETER, default_mfu
from dclint.model.storage import StorageTier
from dclint.model.workload import Workload
from dclint.projection.declared import declared_mfu
from dclint.projection.flops import FlopsCount, training_flops
from dclint.projection.goodput import DALY_FROM, RESTART, Goodput, goodput, wall_factor
from dclint.projection.hardware import Hardware, attributable_power, hardware_of
from dclint.projection.memory import MemoryEstimate, memory_per_gpu
from dclint.projection.predict import Prediction, predict
from dclint.projection.rampup import evaluation_time, ramp
from dclint.units import Q_, Quantity, fmt

if TYPE_CHECKING:
    from dclint.model.design import Design

__all__ = ["COMMUNICATION", "Hardware", "Timing", "attributable_power", "hardware_of", "timing"]

COMMUNICATION = ("tp", "pp_p2p", "dp", "cp", "ep")  # step parts that are communication


@dataclass(frozen=True)
class Timing:
    """Compute, communication, checkpoint and failure time of one run, and what they rest on.

    `prediction` is the step-time model's step (None when the architecture is not declared,
    `prediction_note` says why); `mfu` is the MFU the time was computed with, `mfu_predicted`
    the model's on the same FLOP basis."""

    flops: FlopsCount
    peak: Quantity
    mfu: Quantity
    mfu_source: str
    compute: Quantity
    communication: Quantity
    checkpoint: Quantity
    memory: MemoryEstimate
    assumptions: list[str] = field(default_factory=list)
    failures: Quantity = field(default_factory=lambda: Q_(0.0, "day"))
    prediction: Prediction | None = None
    prediction_note: str = ""
    mfu_predicted: Quantity | None = None
    steps: float | None = None  # optimizer steps in the run (tokens / tokens a step)
    reliability: Goodput | None = None
    mfu_basis: str = "model"  # the FLOPs MFU counts: model, or hardware (with recomputation)
    # the batch-size ramp-up's steps beyond the same samples at the full batch (rampup.py)
    rampup: Quantity = field(default_factory=lambda: Q_(0.0, "day"))
    evaluation: Quantity = field(default_factory=lambda: Q_(0.0, "day"))  # evaluations

    @property
    def running(self) -> Quantity:
        """Time the run holds its GPUs in steps and evaluations: what checkpoints are saved
        over and failures interrupt."""
        return (self.compute + self.communication + self.rampup + self.evaluation).to("day")

    @property
    def wall(self) -> Quantity:
        return (self.running + self.checkpoint + self.failures).to("day")

    @property
    def goodput(self) -> Quantity:
        """Share of wall time spent in training steps, the ramp-up's included (not
        evaluations, checkpoint stalls, restarts or work redone after a failure)."""
        steps = self.compute + self.communication + self.rampup
        return (steps / self.wall).to("dimensionless")

    @property
    def step_time(self) -> Quantity | None:
        """Time of one step at the MFU used (declared or predicted)."""
        if not self.steps:
            return None
        return ((self.compute + self.communication) / self.steps).to("s")


def _checkpoint_tier(design: Design, wl: Workload) -> StorageTier | None:
    tiers = design.storage.tiers
    if wl.checkpoint is not None and wl.checkpoint.tier is not None:
        return next((t for t in tiers if t.id == wl.checkpoint.tier), None)
    return next((t for t in tiers if t.checkpoints), None) or next(
        (t for t in tiers if t.kind == "parallel_fs" and t.checkpoints is not False), None
    )


def _checkpoint_time(
    design: Design, wl: Workload, running: Quantity, notes: list[str]
) -> tuple[Quantity, Quantity | None]:
    """Total synchronous checkpoint stall of the run, and one save's time (None if unknown)."""
    ckpt = wl.checkpoint
    if ckpt is None:
        return Q_(0.0, "day"), None
    tier = _checkpoint_tier(design, wl)
    bandwidth = tier.aggregate("write") if tier is not None else None
    if bandwidth is None:
        notes.append("checkpoint overhead not estimated: no write bandwidth for its tier")
        return Q_(0.0, "day"), None
    size = ckpt.size
    if size is None:
        size = Q_(float(wl.model.parameters) * CHECKPOINT_BYTES_PER_PARAMETER, "B")
        notes.append(
            f"checkpoint size {CHECKPOINT_BYTES_PER_PARAMETER:g} B/parameter "
            "(bf16 weights, fp32 master weights, Adam moments)"
        )
    save = (size / bandwidth).to("s")
    saves = float((running / ckpt.interval).to("dimensionless").magnitude)
    if ckpt.mode == "async":
        notes.append(
            f"asynchronous checkpoints: training stalls {fmt(save, 's')} a save for the "
            f"write to {tier.id if tier else '?'}, {saves:.0f} saves, then copied to "
            f"{ckpt.drain_tier} in the background"
        )
    else:
        notes.append(
            f"synchronous checkpoint saves: {fmt(save, 's')} each, "
            f"{saves:.0f} saves to {tier.id if tier else '?'}"
        )
    return (save * saves).to("day"), save


def timing(design: Design, wl: Workload, hw: Hardware) -> Timing | str:
    """The run's timing, or the reason it cannot be projected."""
    peak = hw.gpu.dense_flops.get(wl.precision)
    if peak is None:
        return f"GPU '{hw.gpu_key}' has no dense {wl.precision} FLOPS in the catalog"
    flops = training_flops(wl, wl.causal_attention, wl.flops_convention)
    notes: list[str] = [f"FLOPs: {flops.formula}"]
    work = flops.hardware if wl.mfu_basis == "hardware" else flops.model
    capacity = (wl.gpus * peak).to("FLOP/s")
    try:
        predicted: Prediction | str = predict(design, wl, hw, causal=wl.causal_attention)
    except (ArithmeticError, ValueError) as exc:  # a layout the model cannot evaluate
        predicted = f"step model failed: {type(exc).__name__}: {exc}"
    pred = predicted if isinstance(predicted, Prediction) else None
    steps = None
    mfu_predicted = None
    if pred is not None:
        steps = float(wl.tokens) / pred.tokens_per_step
        mfu_predicted = (work / (capacity * pred.step_time * steps)).to("dimensionless")
        if not 0 < mfu_predicted.magnitude < math.inf:  # e.g. a NIC for 10,000 GPUs
            predicted = (
                f"its step of {pred.step_time.m_as('s'):.4g} s is an MFU of "
                f"{mfu_predicted.m_as('percent'):.3g}%, not a prediction"
            )
            pred, steps, mfu_predicted = None, None, None
    declared = declared_mfu(wl, work, peak)
    if isinstance(declared, str):
        return declared
    if declared is not None:
        mfu, source = declared
    elif pred is not None and mfu_predicted is not None:
        mfu, source = mfu_predicted, "predicted (step model, docs/performance-model.md)"
    else:
        mfu, source = default_mfu(hw.gpu_key, wl.precision)
        source = f"default for {hw.gpu_key} {wl.precision}: {source}"
    notes.append(f"MFU {mfu.m_as('percent'):.4g}% {source}, on {wl.mfu_basis} FLOPs")
    if mfu.magnitude <= 0:
        return "MFU is 0%"
    comm_share = wl.communication_overhead
    if declared is None and pred is not None and steps is not None:
        parts = pred.step.parts()
        busy = sum(v for k, v in parts.items() if k not in COMMUNICATION)
        compute = Q_(busy * steps, "s").to("day")
        communication = Q_((pred.step.time - busy) * steps, "s").to("day")
        if comm_share is not None:
            notes.append(
                f"declared communication_overhead {comm_share.m_as('percent'):.4g}% not used: "
                f"the step model gives {(pred.step.time - busy) / pred.step.time:.1%}"
            )
    else:
        compute = (work / (capacity * mfu)).to("day")
        communication = Q_(0.0, "day")
        if comm_share is not None:
            if comm_share.magnitude >= 1:
                return "communication_overhead is 100%"
            communication = (compute * comm_share / (1 - comm_share)).to("day")
            notes.append(
                f"communication {comm_share.m_as('percent'):.4g}% of each step "
                "(compute time / (1 - share), as declared)"
            )
        elif pred is None:
            notes.append("no communication overhead declared (workload.communication_overhead)")
    if pred is None:
        notes.append(f"step model not used: {predicted}")
    else:
        notes.extend(pred.assumptions)
        # where the predicted step's band comes from, and why it is the envelope outside the
        # calibration domain: the text formats print no other account of it
        notes.append(f"band of the predicted step: {pred.band.source}")
    rampup, evaluation = _rampup_and_evaluation(
        design, wl, hw, compute + communication, steps, pred, notes
    )
    running = compute + communication + rampup + evaluation
    checkpoint, save = _checkpoint_time(design, wl, running, notes)
    interval = wl.checkpoint.interval if wl.checkpoint is not None else None
    gpu_mtbf = design.site.gpu_mtbf
    reliability = goodput(wl.gpus, save if save is not None else Q_(0.0, "s"), interval, gpu_mtbf)
    mtbf = reliability.mtbf.m_as("s")
    if save is not None and interval is not None:
        # each failure redoes half an interval of work and waits a restart (Young/Daly); near
        # the MTBF, Daly's higher-order expression (goodput.wall_factor)
        tau, delta, restart = interval.m_as("s"), save.m_as("s"), RESTART.m_as("s")
        factor = wall_factor(delta, tau, mtbf, restart)
        failures = (running * factor - running - checkpoint).to("day")
        if (tau + delta) / mtbf >= DALY_FROM:
            notes.append(
                f"failures: Daly's higher-order expression (interval + save "
                f"{(tau + delta) / mtbf:.2f} x MTBF, at least {DALY_FROM:g}): wall = "
                f"{factor:.4g} x steps"
            )
    else:
        lost = RESTART.m_as("s") / mtbf
        notes.append("failures: restarts only (no checkpoint save time to bound the lost work)")
        failures = ((running + checkpoint) * lost).to("day")
    notes.append(
        f"failures: {reliability.source}; job MTBF {fmt(reliability.mtbf, 'hour')}, "
        f"restart {fmt(RESTART, 'minute')}, Young/Daly interval "
        f"{fmt(reliability.optimal_interval, 'minute')}"  # as REL001 prints them
    )
    memory = memory_per_gpu(wl, hw.blackwell)
    return Timing(
        flops,
        peak.to("TFLOPS"),
        mfu,
        source,
        compute,
        communication,
        checkpoint,
        memory,
        notes,
        failures,
        pred,
        predicted if isinstance(predicted, str) else "",
        mfu_predicted,
        steps,
        reliability,
        wl.mfu_basis,
        rampup,
        evaluation,
    )


def _rampup_and_evaluation(
    design: Design,
    wl: Workload,
    hw: Hardware,
    steps_time: Quantity,
    steps: float | None,
    pred: Prediction | None,
    notes: list[str],
) -> tuple[Quantity, Quantity]:
    """The batch-size ramp-up's extra time and the evaluations' time (rampup.py), each noted
    in the assumptions."""
    zero = Q_(0.0, "day")
    if wl.global_batch is not None:
        steps = float(wl.tokens) / (wl.global_batch * wl.sequence_length)
    elif pred is None:
        steps = None
    rampup, run_steps = zero, steps
    if steps:
        got = ramp(design, wl, hw, steps_time.m_as("s") / steps, wl.causal_attention)
        if got is not None:
            rampup = got.extra
            run_steps = steps - got.samples / float(wl.global_batch or 1) + got.steps
            notes.append(got.note)
    evaluation = zero
    if wl.evaluation is not None:
        if run_steps is None:
            notes.append("evaluations not counted: no steps (global_batch or the step model)")
        else:
            evaluation, note = evaluation_time(wl.evaluation, run_steps)
            notes.append(note)
    return rampup, evaluation
