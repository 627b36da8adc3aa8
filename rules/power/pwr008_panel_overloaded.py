"""Panel, busway or upstream power domain loaded beyond its derated capacity.

## What it does
For every panel, busway, switchboard or UPS, whatever kind of rack it feeds, adds up the load
of the racks fed from it or from panels below it (active and planned), each rack once, at its
peak: the catalog `max_power` of its platform (x nodes) where one is known, the design IT load
where that is higher, as PWR003 loads feeds. A rack (or rack type) marked `power_capped: true`,
every rack below a panel marked `power_capped: true`, and every rack with `design_load = true`
counts at its design IT load instead; the message says which. A panel carries,
for each rack, the share of the rack's feeds on one path that land under it,
the largest over the rack's paths, because with the other path lost those feeds carry the
whole rack; a rack whose A and B feeds both land under the panel counts once, never twice.
Flags the panel when that load exceeds its derated capacity, sqrt(3) x V(line-line) x I x PF
x maximum utilisation (V x I x PF x maximum utilisation single-phase), or its nameplate
`rating` where that is lower: a UPS rated "500 kVA" delivers 500 kVA x its power factor, 475 kW
at PF 0.95, never 500 kW. A panel or busway that declares its `ambient_temperature` is derated
as PWR003 derates feeds (NEC 310.15(B)(1); a busway's `reference_ambient` is its maker's rating
ambient, commonly 40 degC), the factor in the message. Exactly at the capacity passes.

## Why it matters
Continuous load on a breaker is held to 80% of its rating (NEC 210.20(A); NetBox's and
Nautobot's power feed models default `max_utilization` to 80%), and AI training holds racks at
their design load for days, with no diversity to rely on. Ten HGX H100 racks of 4 x 8.5 kW on
a 415 V / 400 A panel draw 340 kW from 218.5 kW: the panel's breaker trips under the first
full-scale job. PWR002 only asks for headroom on domains that serve NVL72-class racks; this
rule holds every domain to its rating. Synchronous training drives every node to its peak
together (Meta reports power swings of tens of megawatts across a training cluster, "The Llama 3
Herd of Models", 2024): a panel sees the sum of the peaks, not of the design figures, unless
capping holds the racks down. A feeder is sized on its calculated load (NEC Art. 215/220;
IEC 60364 maximum demand), not on the sum of the breakers below it: only this calculated load
is checked.

Sources: NEC 210.20(A); NetBox and Nautobot power feed models; Meta, "The Llama 3 Herd of
Models", 2024; NEC Articles 215 and 220; IEC 60364, maximum demand.

## Example
```yaml
power:
  panels:
    - id: pdu-1
      voltage: 415 V
      current_rating: 400 A   # PWR008: 10 racks of hgx-h100 at peak, 408 kW on 218.5 kW
```

## Fix
Move racks to other panels, give the panel (and its upstream breaker) a larger rating, or lower
the racks' load (fewer nodes a rack, power capping: mark the racks `power_capped: true`).
`PWR008 = { design_load = true }` loads every panel with the design IT load instead.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    Violation,
    load_basis,
    panel_allocation,
    racks_below,
    rating_text,
    rule,
    topology_of,
)
from dclint.units import fmt

from ._shared import PowerRule, design_load, over


@rule(
    "PWR008",
    "panel-overloaded",
    consequence="over-rating",
    covers=("nec.continuous",),
    needs=("panels",),
)
class PanelOverloaded(PowerRule):
    options = {
        "design_load": design_load("panels"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        topo = topology_of(design)
        peak = not ctx["design_load"]
        for panel in topo.panels.values():
            load = panel_allocation(topo, panel, peak=peak).to("kW")
            capacity = panel.capacity.to("kW")
            if not over(load.m_as("kW"), capacity.m_as("kW")):
                continue
            racks = racks_below(panel)
            basis = (
                "design IT load: panel power_capped"
                if peak and panel.model.power_capped
                else load_basis(racks, peak)
            )
            yield Violation(
                (*panel.path, panel.capacity_field),
                f"{panel.model.kind} {panel.id} carries {fmt(load)} of rack load "
                f"({len(racks)} rack{'s' if len(racks) != 1 else ''}, active and planned, each "
                f"once, at their {basis}), above its derated capacity "
                f"({rating_text(panel.model)})",
                subject=panel.id,
                measured=load,
                limit=capacity,
                fix="move racks to other panels, raise the panel's rating (and its upstream "
                "breaker's), or lower the racks' load",
            )
