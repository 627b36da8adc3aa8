"""Three-phase panel whose single-phase feeds load its phases unevenly.

## What it does
For each three-phase panel with single-phase feeds whose leg is given (`phase: L1`, `L2`, `L3`,
or `L1-L2`, `L2-L3`, `L3-L1` for line-to-line feeds), adds up the load on each phase: a feed's
per-path allocation (as PWR003) goes to its leg, half to each leg of a line-to-line feed, a
third to each phase for three-phase feeds. Imbalance = max |P(phase) - P(mean)| / P(mean).
Above `warning` (default 10%) it is a warning, above `error` (default 20%) an error; exactly
at a threshold stays in the lower band. A panel with a single-phase feed whose leg is not
given is skipped: its balance cannot be known.

## Why it matters
Phase imbalance under 10% is good, over 20% critical (common DCIM bands; DOMAIN.md, power
practice). An unbalanced panel trips its most loaded leg long before it reaches its rated
three-phase power, and the neutral carries the difference.

## Example
```yaml
power:
  panels:
    - id: pdu-1          # PWR005: racks of 4.5 kW put L1 9 kW, L2 4.5 kW, L3 4.5 kW: 50%
      voltage: 400 V
      current_rating: 100 A
  feeds:
    - {id: 'f[1-2]', panel: pdu-1, phases: 1, voltage: 230 V, current_rating: 32 A, phase: L1}
    - {id: f3, panel: pdu-1, phases: 1, voltage: 230 V, current_rating: 32 A, phase: L2}
    - {id: f4, panel: pdu-1, phases: 1, voltage: 230 V, current_rating: 32 A, phase: L3}
```

## Fix
Move single-phase feeds from the most loaded leg to the least loaded one, or feed the largest
racks three-phase. Thresholds: `PWR005 = { warning = "10%", error = "20%" }`.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.calc.power import feed_allocation
from dclint.engine.rule import Context, Option, Rule, Violation
from dclint.model.design import Design
from dclint.model.topology import PanelItem
from dclint.units import Q_, fmt

PHASES = ("L1", "L2", "L3")


def phase_loads(panel: PanelItem, allocation: dict[str, float]) -> dict[str, float] | None:
    """kW on each phase of a panel from its feeds, or None when a leg is unknown or there is
    no single-phase feed (three-phase feeds alone are balanced)."""
    kw = dict.fromkeys(PHASES, 0.0)
    single = False
    for feed in panel.feeds:
        load = allocation.get(feed.id, 0.0)
        if feed.model.phases == 3:
            for leg in PHASES:
                kw[leg] += load / 3
            continue
        if feed.model.phase is None:
            return None
        single = True
        legs = feed.model.phase.split("-")
        for leg in legs:
            kw[leg] += load / len(legs)
    return kw if single else None


class PhaseImbalance(Rule):
    id = "PWR005"
    name = "phase-imbalance"
    severity = "warning"
    tags = ("power",)
    options = {
        "warning": Option("10%", "share", "Imbalance above which a panel gets a warning"),
        "error": Option("20%", "share", "Imbalance above which a panel gets an error"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        topo = design.topology
        allocation = {k: v.m_as("kW") for k, v in feed_allocation(topo).items()}
        warn, err = ctx["warning"].m_as(""), ctx["error"].m_as("")
        for panel in topo.panels.values():
            if panel.model.phases != 3:
                continue
            kw = phase_loads(panel, allocation)
            if kw is None:
                continue
            mean = sum(kw.values()) / 3
            if mean <= 0:
                continue
            imbalance = max(abs(v - mean) for v in kw.values()) / mean
            if imbalance <= warn * (1 + 1e-9):
                continue
            over_error = imbalance > err * (1 + 1e-9)
            limit = err if over_error else warn
            legs = ", ".join(f"{leg} {fmt(Q_(v, 'kW'))}" for leg, v in kw.items())
            yield Violation(
                (*panel.path, "id"),
                f"panel {panel.id} phases are {fmt(Q_(imbalance * 100, 'percent'))} out of "
                f"balance ({legs}; mean {fmt(Q_(mean, 'kW'))}), above "
                f"{fmt(Q_(limit * 100, 'percent'))}",
                subject=panel.id,
                measured=Q_(imbalance * 100, "percent"),
                limit=Q_(limit * 100, "percent"),
                fix="move single-phase feeds from the most loaded phase to the least loaded one",
                severity="error" if over_error else None,
            )
