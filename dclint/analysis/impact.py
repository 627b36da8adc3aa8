"""Findings priced: training days and cost of the design as it is minus the same design with the
finding's limit met, summed over the workloads the finding touches.

- NET001, NET005 (fabric oversubscribed, too large for its tiers): every tier at 1:1; the
  step-time model's step with and without the oversubscription scales the run's step time.
- PAR002 (a tensor/expert/context group leaves the NVLink domain): a domain large enough for
  the group, same scaling.
- PAR005 (layout slower than the best): the layout search's best step, same scaling.
- STO002 (checkpoint write slower than its target): each save takes the target.
- STO003 (checkpoint overhead above its budget): each save takes the budget's share of the
  interval.
Failures keep their share of the run. Cost items (electricity, depreciation) scale with the
run's wall time. A finding the projection cannot price (no prediction, nothing saved) carries
no impact, and neither does one that saves under MIN_DAYS (0.01 day, about 15 minutes: dclint's
own floor, below what a projection of days to months resolves; a fix that changes nothing
otherwise prints float noise such as 1.421e-14 d). STO001 is not priced: the projection has no
data-loading term to relieve.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from dclint.engine.findings import Finding, Impact
from dclint.units import Q_

if TYPE_CHECKING:
    from dclint.model.design import Design
    from dclint.projection.workloads import Projection

__all__ = ["MIN_DAYS", "PRICED", "price"]

MIN_DAYS = 0.01  # an impact under this many days (and its cost) is no impact

PRICED = frozenset({"NET001", "NET005", "PAR002", "PAR005", "STO002", "STO003"})
_WORKLOAD = re.compile(r"workload (\S+)")


def price(
    design: Design, findings: list[Finding], options: dict[str, dict[str, Any]]
) -> list[Finding]:
    """`findings` with `impact` set on those whose fix changes the projection."""
    from dclint.projection import project_workloads

    if not any(f.rule in PRICED for f in findings):
        return findings
    projections = project_workloads(design)
    out = []
    for f in findings:
        impact = None
        if f.rule in PRICED and projections:
            try:
                impact = _impact(design, f, projections, options[f.rule])
            except Exception:  # a report must not fail because pricing did
                impact = None
        out.append(replace(f, impact=impact) if impact is not None else f)
    return out


def _impact(
    design: Design, f: Finding, projections: list[Projection], options: dict[str, Any]
) -> Impact | None:
    days = 0.0
    cost = 0.0
    priced = False
    currency = design.site.currency
    for p in projections:
        wall = p.training_time.m_as("day")
        fixed = _fixed_wall(design, f, p, options)
        if fixed is None or wall <= 0:
            continue
        priced = True
        saved = max(0.0, wall - fixed)
        days += saved
        cost += p.cost_total.m_as(currency) * saved / wall
    if not priced or days < MIN_DAYS:
        return None
    has_cost = any(p.cost_breakdown for p in projections)
    return Impact(Q_(days, "day"), Q_(cost, currency) if has_cost else None, currency)


def _fixed_wall(design: Design, f: Finding, p: Projection, options: dict[str, Any]) -> float | None:
    """Wall days of `p`'s run with `f`'s limit met, or None if `f` does not touch it."""
    t = p.timing
    running = (t.compute + t.communication).m_as("day")
    checkpoint = t.checkpoint.m_as("day")
    lost = t.failures.m_as("day") / (running + checkpoint) if running + checkpoint > 0 else 0.0
    if f.rule in ("NET001", "NET005", "PAR002", "PAR005"):
        ratio = _step_ratio(design, f, p, options)
        if ratio is None:
            return None
        running *= ratio
    else:
        named = _WORKLOAD.search(f.message)
        if f.subject != p.workload and (named is None or named.group(1) != p.workload):
            return None
        rel = t.reliability
        if rel is None or rel.save.magnitude <= 0 or checkpoint <= 0:
            return None
        save = rel.save.m_as("s")
        if f.rule == "STO002":
            target = options["target"].m_as("s")
        else:
            interval = rel.interval.m_as("s")
            target = options["max_overhead"].m_as("") * interval
        checkpoint *= min(save, target) / save
    return (running + checkpoint) * (1 + lost)


def _step_ratio(design: Design, f: Finding, p: Projection, options: dict[str, Any]) -> float | None:
    """Predicted step with the limit met over the step as it is."""
    from dclint.projection.predict import predict
    from dclint.projection.training import hardware_of

    pred = p.timing.prediction
    if pred is None:
        return None
    wl = design.workloads[p.index]
    if f.rule in ("PAR002", "PAR005") and f.subject != wl.id:
        return None
    if f.rule == "PAR005":
        from dclint.projection.search_design import best_ratio

        return best_ratio(design, wl, options)
    hw = hardware_of(design, wl.platform)
    if isinstance(hw, str):
        return None
    if f.rule == "PAR002":
        par = wl.parallel
        group = par.tp * (par.ep if par.expert_tp_in_nvlink else 1)
        group *= par.cp if par.context_in_nvlink else 1
        fixed = predict(design, wl, hw, wl.causal_attention, domain=group)
    else:
        fixed = predict(design, wl, hw, wl.causal_attention, nonblocking=True)
    if isinstance(fixed, str) or pred.step_time.magnitude <= 0:
        return None
    return float(fixed.step_time.m_as("s") / pred.step_time.m_as("s"))
