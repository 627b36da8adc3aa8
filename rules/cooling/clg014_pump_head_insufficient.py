"""CDU whose pumps cannot push the flow its racks need through its loops.

## What it does
For each CDU that declares its `pump_curve` (available head outside the CDU at rising flows,
from the maker's data) and has loops that declare their `pressure_drop` (piping, manifolds and
the racks' cold plates, at the flow their racks need), takes the flow the CDU must pump (the
racks' need at each loop's dT or the flow they are given, whichever is more, as CLG003) and
the head its pumps give there (linear between the curve's points). Flags the CDU when that head
is below its largest loop's pressure drop, or the flow is beyond the curve, and gives the flow
where pump and loop meet: a loop's drop rises as the square of its flow (turbulent flow:
dP = k Q^2, Darcy-Weisbach), so the CDU settles where head(Q) = k Q^2 and the racks get that
flow, short of their need. Exactly at the drop passes.

## Why it matters
A CDU's nameplate flow is at one head; a long loop with many cold plates needs more, and the
pump then delivers less flow than the racks need: far racks run short, GPU junction
temperatures climb and the GPUs throttle. Practitioners report an undersized pump head that
left the far racks 15% short of flow, their GPUs going from 75 to 92 degC, fixed only with a
booster pump and re-balancing. Heat is carried by the flow (Q = rho x Vdot x cp x dT): 15%
less flow at the same heat is a 15% larger temperature rise.

Sources: ASHRAE Handbook, HVAC Systems and Equipment (2020), chapter 44, Centrifugal Pumps;
the CDU maker's published pump curve.

## Example
```yaml
cooling:
  cdus:
    - id: cdu-1
      capacity: 1000 kW
      max_flow: 1500 L/min
      pump_curve:   # CLG014: 146.4 kPa at the 1152 L/min the racks need, the loop drops 200 kPa
        - {flow: 100 L/min, head: 286.7 kPa}
        - {flow: 1500 L/min, head: 100 kPa}
```

## Fix
Choose pumps (or a CDU) with more head at the flow, add a booster pump, shorten or widen the
loop's piping, or split the racks over more loops.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, Violation, fmt, pump_matches, rule, topology_of
from dclint.units import Q_

from ._shared import CoolingRule

_EPS = 1e-9


@rule("CLG014", "pump-head-insufficient", covers=("ocp.liquid",))
class PumpHeadInsufficient(CoolingRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for m in pump_matches(topology_of(design)):
            if m.head_kpa is not None and m.head_kpa >= m.drop_kpa * (1 - _EPS):
                continue
            need = fmt(Q_(m.need_lpm, "L/min"))
            drop = fmt(Q_(m.drop_kpa, "kPa"))
            head = (
                f"its pumps' head at the {need} its racks need is below the {drop} loop "
                f"{m.loop} drops at that flow"
                if m.head_kpa is not None
                else f"the {need} its racks need is beyond its pump curve, and loop {m.loop} "
                f"drops {drop} at that flow"
            )
            yield Violation(
                (*m.path, "pump_curve"),
                f"CDU {m.cdu}: {head}; pump and loop meet at {fmt(Q_(m.operating_lpm, 'L/min'))}, "
                f"{fmt(Q_(m.short * 100, 'percent'))} short (the loop's drop rising as the "
                "square of the flow)",
                subject=m.cdu,
                measured=Q_(m.drop_kpa, "kPa"),
                limit=Q_(m.head_kpa or 0.0, "kPa"),
                fix="choose pumps with more head at the flow, add a booster pump, widen or "
                "shorten the loop's piping, or split the racks over more loops",
            )
