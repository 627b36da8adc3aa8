"""Dry coolers, cooling towers or chillers that cannot reject the heat on the design day.

## What it does
For each set in `cooling.heat_rejection`, adds up the liquid heat of the CDUs it `serves`
(default: every CDU; as CLG001 counts a CDU: its racks' liquid heat, the loads `cooled_by` it and
its own pumps' power) and compares it with the set's capacity at the site's design-day ambient,
with its spare units out: `(count - redundant)` x one unit's capacity. A dry cooler's capacity is
rated at an ambient dry bulb (`rated_ambient`) for a fluid entering at `entering_temperature`;
its heat transfer is driven by the initial temperature difference, entering minus ambient, so at
the site's `design_dry_bulb` it is the rating x (entering - design) / (entering - rated), never
more than the rating. A cooling tower is scaled the same way on the wet bulb
(`site.design_wet_bulb`). A chiller keeps its rating (declare the capacity at the design-day
condition). Without the temperatures, the rating is used, and the message says so. Exactly at
the heat passes.

## Why it matters
Heat rejection must carry the load on the hottest hours of the year, not on an average day:
ASHRAE's climatic design conditions (ASHRAE Handbook - Fundamentals, chapter 14) give the 0.4%
cooling dry bulb and evaporation wet bulb a site exceeds only 35 hours a year, and data-center
plants are selected there or at the extreme (Uptime Institute asks Tier III/IV sites for the
extreme values). Dry-cooler makers rate at e.g. 35 degC ambient; on a 40 degC day with 45 degC
water entering, the initial temperature difference halves from 10 K to 5 K and so does the
capacity, and warm-water liquid cooling (ASHRAE W32-W45) runs with small differences.

Sources: ASHRAE Handbook - Fundamentals, chapter 14; Uptime Institute, Tier Standards; ASHRAE
TC 9.9, Liquid Cooling Guidelines for Datacom Equipment Centers.

## Example
```yaml
site: {design_dry_bulb: 40 degC}
cooling:
  heat_rejection:
    - {id: dc, kind: dry_cooler, capacity: 600 kW, count: 3, redundant: 1,
       rated_ambient: 35 degC, entering_temperature: 45 degC}   # CLG012: 600 kW for 816 kW
```

## Fix
Add units, select them at the design-day ambient, raise the water temperature (a larger
entering-minus-ambient difference), or add adiabatic pre-cooling or trim chillers.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, Violation, fmt, rejection_loads, rule, topology_of
from dclint.units import Q_

from ._shared import CoolingRule, above


@rule(
    "CLG012", "heat-rejection-insufficient", covers=("ashrae.climate",), needs=("heat_rejection",)
)
class HeatRejectionInsufficient(CoolingRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for load in rejection_loads(topology_of(design)):
            u = load.unit
            yield from above(
                (*load.path, "capacity"),
                u.id,
                Q_(load.heat_kw, "kW"),
                Q_(load.firm_kw, "kW"),
                f"{u.kind.replace('_', ' ')} set {u.id} must reject {fmt(Q_(load.heat_kw, 'kW'))} "
                f"of liquid heat (CDUs {', '.join(load.cdus)}), above what "
                f"its {load.working} of {u.count} units reject on "
                f"the design day ({u.redundant} spare; each {fmt(Q_(load.unit_kw, 'kW'))}: "
                f"{load.basis})",
                "add units or select them at the design-day ambient, raise the water "
                "temperature, or add adiabatic pre-cooling or trim chillers",
            )
