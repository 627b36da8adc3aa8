"""Panel, busway or upstream power domain loaded beyond its derated capacity.

## What it does
For every panel, busway, switchboard or UPS, whatever kind of rack it feeds, adds up the design
IT load of the racks fed from it or from panels below it (active and planned), each rack once:
a panel carries, for each rack, the share of the rack's feeds on one path that land under it,
the largest over the rack's paths, because with the other path lost those feeds carry the
whole rack; a rack whose A and B feeds both land under the panel counts once, never twice.
Flags the panel when that load exceeds its derated capacity, sqrt(3) x V(line-line) x I x PF
x maximum utilisation (V x I x PF x maximum utilisation single-phase), or its nameplate
`rating` where that is lower: a UPS rated "500 kVA" delivers 500 kVA x its power factor, 475 kW
at PF 0.95, never 500 kW. Exactly at the capacity passes.

## Why it matters
Continuous load on a breaker is held to 80% of its rating (NEC 210.20(A); NetBox's and
Nautobot's power feed models default `max_utilization` to 80%), and AI training holds racks at
their design load for days, with no diversity to rely on. Ten HGX H100 racks of 4 x 8.5 kW on
a 415 V / 400 A panel draw 340 kW from 218.5 kW: the panel's breaker trips under the first
full-scale job. PWR002 only asks for headroom on domains that serve NVL72-class racks; this
rule holds every domain to its rating. Racks are counted at their design IT load here; each
feed is held to the rack's peak by PWR003.

## Example
```yaml
power:
  panels:
    - id: pdu-1
      voltage: 415 V
      current_rating: 400 A   # PWR008: 10 x 34 kW = 340 kW on 218.5 kW
```

## Fix
Move racks to other panels, give the panel (and its upstream breaker) a larger rating, or lower
the racks' load (fewer nodes a rack, power capping).
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.calc.power import panel_allocation, racks_below, rating_text
from dclint.engine.rule import Context, Rule, Violation
from dclint.model.design import Design
from dclint.units import fmt

_EPS = 1e-9


class PanelOverloaded(Rule):
    id = "PWR008"
    name = "panel-overloaded"
    severity = "error"
    tags = ("power",)

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        topo = design.topology
        for panel in topo.panels.values():
            load = panel_allocation(topo, panel).to("kW")
            capacity = panel.capacity.to("kW")
            if load.m_as("kW") <= capacity.m_as("kW") * (1 + _EPS):
                continue
            racks = racks_below(panel)
            yield Violation(
                (*panel.path, panel.capacity_field),
                f"{panel.model.kind} {panel.id} carries {fmt(load)} of rack design IT load "
                f"({len(racks)} rack{'s' if len(racks) != 1 else ''}, active and planned, each "
                f"once), above its derated capacity {fmt(capacity)} "
                f"({rating_text(panel.model)})",
                subject=panel.id,
                measured=load,
                limit=capacity,
                fix="move racks to other panels, raise the panel's rating (and its upstream "
                "breaker's), or lower the racks' load",
            )
