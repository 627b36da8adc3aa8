"""Findings priced: training days and cost of the design as it is minus the same design with the
finding fixed as its rule's fix says (the limit met, or what the fix does beyond it: PAR005's best
layout, REL001's Young/Daly interval), summed over the workloads the finding touches.

What "met" means is the rule's own knowledge: a rule whose findings can be priced overrides
`Rule.remedy` (dclint.engine.rule), which says how fixing a finding changes one workload's
projected run (its running time and each checkpoint save's time scaled). Failures keep their
share of the run. Cost items (electricity, depreciation) scale with the run's wall time. A
finding the projection cannot price (no prediction) carries no impact, and neither does one
that saves under MIN_DAYS (0.01 day, about 15 minutes: dclint's own floor, below what a
projection of days to months resolves; a fix that changes nothing otherwise prints float noise
such as 1.421e-14 d). Such a finding still says what it costs, in its `impact_note`: why its fix
saves a run nothing where the rule says (`Remedy.note`: NET001's collectives that stay under the
tier as placed, STO001's reads that meet the demand below the headroom); else the figures of a
saving under the floor ('costs the projected run under 0.01 d: 0.006732 d, 1289 CNY', and for a
tool the same days and money as `impact` carries them, `impact_under_floor`), or, for float
noise (NOISE), that it costs the run nothing: a finding whose fix touches a run always prints
a price or a note.

A limit the projection does not model slows the run as it is (`Remedy.slowed`: STO001's reads
below the demand stretch the steps by demand / bandwidth); the fix saves that slowed run less
the run fixed (its `running` scale of the projected steps), cost at the projected run's cost a
day.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from dclint.engine.findings import Finding, Impact
from dclint.units import Q_

if TYPE_CHECKING:
    from dclint.engine.rule import Rule
    from dclint.model.design import Design
    from dclint.projection.workloads import Projection

__all__ = ["MIN_DAYS", "NOTHING_SAVED", "price", "priced", "under_the_floor", "unpriced"]

MIN_DAYS = 0.01  # an impact under this many days (and its cost) is no impact
# a saving at most this share of the runs' wall days is float noise of subtracting two walls
# (1.421e-14 d of a 1.75-day run is 8e-15 of it; a double holds about 16 digits): dclint's own
NOISE = 1e-9
# what a priced finding whose fix saves the projected run nothing, and whose rule does not say
# why, says in place of a price (Finding.impact_note)
NOTHING_SAVED = "costs the projected run no training time"


def priced(findings: list[Finding], rules: Mapping[str, type[Rule]]) -> bool:
    """Whether any of `findings` is of a rule that prices its findings."""
    return any(_priced(f, rules) for f in findings)


def price(
    design: Design,
    findings: list[Finding],
    options: dict[str, dict[str, Any]],
    rules: Mapping[str, type[Rule]],
) -> list[Finding]:
    """`findings` with `impact` set on those whose fix changes the projection; while an error
    says the design cannot run its workload as stated, each priced rule's finding says it has
    no price until that error is fixed (`unpriced`), as the review and the projection's
    figures say they are not meaningful (it printed 'the fix saves 30.79 d' in every format
    of `dclint check` beside the review's '-' for the same finding)."""
    from dclint.engine.coverage import blocking
    from dclint.projection import project_workloads

    if not priced(findings, rules):
        return findings
    blocker = blocking(findings, rules)
    held = "" if blocker is None else unpriced(blocker)

    def on_hold(f: Finding) -> bool:
        # a blocking error itself is priced as ever: its fix is what makes the run
        return bool(held) and _priced(f, rules) and blocking([f], rules) is None

    if held and all(on_hold(f) or not _priced(f, rules) for f in findings):
        return [replace(f, impact_note=held) if on_hold(f) else f for f in findings]
    projections = project_workloads(design)
    out = []
    for f in findings:
        impact, note, tiny = None, "", None
        cls = rules.get(f.rule)
        if on_hold(f):
            out.append(replace(f, impact_note=held))
            continue
        if cls is not None and cls.priced() and projections:
            try:
                impact, note, tiny = _impact(design, f, projections, cls, options[f.rule])
            except Exception:  # a report must not fail because pricing did
                impact, note, tiny = None, "", None
        if impact is not None:
            f = replace(f, impact=impact)
        elif note:
            f = replace(f, impact_note=note, impact_under_floor=tiny)
        out.append(f)
    return out


def _priced(f: Finding, rules: Mapping[str, type[Rule]]) -> bool:
    """Whether `f` is of a rule that prices its findings."""
    return f.rule in rules and rules[f.rule].priced()


def _impact(
    design: Design,
    f: Finding,
    projections: list[Projection],
    cls: type[Rule],
    options: dict[str, Any],
) -> tuple[Impact | None, str, Impact | None]:
    """The finding's impact, or None and its note: why the fix saves the runs nothing where the
    rule says (the runs' `Remedy.note`, each once), else what a saving under MIN_DAYS comes to
    (under_the_floor, with that saving as an Impact for the tools: `impact_under_floor`), or
    NOTHING_SAVED; "" only where no run is touched (no remedy)."""
    days = high_days = 0.0
    cost = high_cost = 0.0
    found = ranged = False
    labels = ("", "")
    notes: list[str] = []
    currency = design.site.currency
    for p in projections:
        wall = p.training_time.m_as("day")
        remedy = cls.remedy(design, f, p, options)
        if remedy is None or wall <= 0:
            continue
        found = True
        if remedy.note and remedy.note not in notes:
            notes.append(remedy.note)
        if remedy.wall is not None:  # the rule gives the whole run's wall time fixed
            fixed = p.training_time.m_as("day") * remedy.wall
        elif remedy.slowed != 1.0:  # the run as it is is slower than projected
            fixed = _fixed_wall(p, remedy.running, remedy.checkpoint)
            fixed -= _fixed_wall(p, remedy.slowed, 1.0) - wall  # saved: the slowed run less it
        else:
            fixed = _fixed_wall(p, remedy.running, remedy.checkpoint)
        saved = max(0.0, wall - fixed)
        days += saved
        cost += p.cost_total.m_as(currency) * saved / wall
        other = saved
        if remedy.alternative is not None:
            ranged = True
            labels = (remedy.label, remedy.other)
            base, ratio = remedy.alternative
            as_is = _fixed_wall(p, base, 1.0)
            other = max(0.0, as_is - _fixed_wall(p, base * ratio, remedy.checkpoint))
        high_days += other
        high_cost += p.cost_total.m_as(currency) * other / wall
    if not found:
        return None, "", None
    has_cost = any(p.cost_breakdown for p in projections)
    if max(days, high_days) < MIN_DAYS:
        if notes:  # the rule says why the fix saves nothing
            return None, "; ".join(notes), None
        walls = sum(p.training_time.m_as("day") for p in projections)
        if max(days, high_days) <= NOISE * walls:
            return None, NOTHING_SAVED, None
        if ranged and days <= NOISE * walls:  # the low end saves nothing: 0, not float noise
            days, cost = 0.0, 0.0
        tiny = _impact_of(days, cost, high_days, high_cost, ranged, labels, currency, has_cost)
        return None, under_the_floor(tiny), tiny
    if ranged and days < MIN_DAYS:  # the low end is no impact: 0, not float noise
        days, cost = 0.0, 0.0
    return (
        _impact_of(days, cost, high_days, high_cost, ranged, labels, currency, has_cost),
        "",
        None,
    )


def _impact_of(
    days: float,
    cost: float,
    high_days: float,
    high_cost: float,
    ranged: bool,
    labels: tuple[str, str],
    currency: str,
    has_cost: bool,
) -> Impact:
    """The Impact of days and cost saved (a range of two ends where `ranged`); no money where
    no projection is priced."""
    money = Q_(cost, currency) if has_cost else None
    if not ranged:
        return Impact(Q_(days, "day"), money, currency)
    high = Q_(high_cost, currency) if has_cost else None
    return Impact(Q_(days, "day"), money, currency, Q_(high_days, "day"), high, *labels)


def unpriced(blocker: Finding) -> str:
    """What a priced finding says while `blocker`, an error that says the design cannot run
    its workload as stated, stands: 'has no price until NET009 endpoints-exceed-leaf-ports is
    fixed (the design cannot run its workload as stated)' (the review: 'It has no price ...')."""
    return (
        f"has no price until {blocker.rule} {blocker.name} is fixed (the design cannot run its "
        "workload as stated)"
    )


def under_the_floor(impact: Impact) -> str:
    """What a finding whose fix saves under MIN_DAYS costs, with the figures Impact.text prints:
    'costs the projected run under 0.01 d: 0.006732 d, 1289 CNY' (a finding says what its fix
    saves, or why it saves nothing; the review writes 'It costs ...', as it writes a price)."""
    saved = impact.text().removeprefix("the fix saves ")
    return f"costs the projected run under {MIN_DAYS:g} d: {saved}"


def _fixed_wall(p: Projection, running_scale: float, checkpoint_scale: float) -> float:
    """Wall days of `p`'s run with its steps' time (the batch ramp-up's included) and each
    checkpoint save's time scaled, evaluations as they are: failures keep their share of the
    run. The projection takes a save an interval of running time (steps and evaluations,
    dclint.projection.training), so a run made faster takes fewer saves, as the layout
    search's days count them (Plan.days: PAR005's saving is the review's declared row less
    its best row; holding the checkpoint time saved 32,760 CNY beside rows 32,801 CNY apart on
    h100-40node)."""
    t = p.timing
    steps = (t.compute + t.communication + t.rampup).m_as("day")
    evaluation = t.evaluation.m_as("day")
    checkpoint = t.checkpoint.m_as("day")
    held = steps + evaluation + checkpoint
    lost = t.failures.m_as("day") / held if held > 0 else 0.0
    running = steps * running_scale + evaluation
    saves = running / (steps + evaluation) if steps + evaluation > 0 else 1.0
    return (running + checkpoint * checkpoint_scale * saves) * (1 + lost)
