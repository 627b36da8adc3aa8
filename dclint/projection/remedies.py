"""What a fix does to a projected run, for the rules' `remedy` hooks (dclint.engine.rule):
the predicted step with one setting changed over the step as it is, and the checkpoint time
with each save brought within a bound."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dclint.model.design import Design
    from dclint.projection.workloads import Projection

__all__ = ["checkpoint_ratio", "placement_open", "spread_design", "step_ratio"]


def step_ratio(design: Design, projection: Projection, **change: Any) -> float | None:
    """The step of `projection`'s workload predicted with `change` (the step-time model's
    what-ifs: ``nonblocking=True`` for every fabric tier at 1:1, ``domain=N`` for an NVLink
    domain of N GPUs) over its step as it is; None without a step prediction."""
    from dclint.projection.predict import predict
    from dclint.projection.training import hardware_of

    pred = projection.timing.prediction
    if pred is None:
        return None
    wl = design.workloads[projection.index]
    hw = hardware_of(design, wl.platform)
    if isinstance(hw, str):
        return None
    fixed = predict(design, wl, hw, wl.causal_attention, **change)
    if isinstance(fixed, str) or pred.step_time.magnitude <= 0:
        return None
    return float(fixed.step_time.m_as("s") / pred.step_time.m_as("s"))


def placement_open(design: Design) -> bool:
    """Whether a compute fabric leaves its jobs' placement unstated (`placement` absent)."""
    return any(f.kind == "compute" and f.placement is None for f in design.fabrics)


def spread_design(design: Design) -> Design:
    """`design` with every compute fabric that states no placement taking `spread`."""
    fabrics = [
        f.model_copy(update={"placement": "spread"})
        if f.kind == "compute" and f.placement is None
        else f
        for f in design.fabrics
    ]
    return design.model_copy(update={"fabrics": fabrics})


def checkpoint_ratio(projection: Projection, seconds: float) -> float | None:
    """The checkpoint time of `projection`'s run with each save taking at most `seconds`,
    over its checkpoint time as it is; None when the run saves nothing."""
    t = projection.timing
    rel = t.reliability
    if rel is None or rel.save.magnitude <= 0 or t.checkpoint.m_as("day") <= 0:
        return None
    save = rel.save.m_as("s")
    return float(min(save, seconds) / save)
