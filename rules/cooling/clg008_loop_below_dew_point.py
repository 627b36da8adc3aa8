"""Liquid loop supplied colder than the room's dew point plus a margin: pipes and cold plates
sweat.

## What it does
For each loop, takes the room's dew point: the highest `dew_point` declared on the halls its
racks stand in (`site.halls.<hall>.dew_point`), else `dew_point` (default 15 degC, the upper dew
point of ASHRAE TC 9.9's recommended envelope for data-center air). Flags the loop when its
`supply_temperature` is below that dew point plus `margin` (default 2 K, dclint's own default).
Exactly at the sum passes.

## Why it matters
A surface colder than the dew point of the air around it collects condensation. On a loop's
supply side that is the manifolds, hoses, quick disconnects and cold plates inside the servers:
water dripping onto live electronics. ASHRAE TC 9.9's Thermal Guidelines for Data Processing
Environments let the room's air reach a 15 degC dew point in the recommended envelope (18-27
degC dry bulb, up to 60% relative humidity), so a secondary supply at or below 15 degC can
sweat in a room run within its guidelines; CDU makers control the secondary supply above the
measured room dew point for this reason. The 2 K margin covers the sensors' tolerance and the
supply temperature's swing around its set point; set your own in config
(`CLG008 = { margin = "3 K" }`), or the room's design dew point in config (`dew_point`) or on
the hall where its air is dehumidified below the envelope.

Sources: ASHRAE TC 9.9, Thermal Guidelines for Data Processing Environments.

## Example
```yaml
cooling:
  loops:
    - id: loop-1
      cdu: cdu-1
      supply_temperature: 16 degC   # CLG008: below the 15 degC dew point + 2 K = 17 degC
      return_temperature: 26 degC
```

## Fix
Raise the loop's supply to at least the room's dew point plus the margin (warm-water loops at
32 degC and above never sweat), or dehumidify the room and declare its lower design dew point
(`site.halls.<hall>.dew_point`).
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    Option,
    Temperature,
    TemperatureDelta,
    Violation,
    loop_halls,
    rule,
    topology_of,
)
from dclint.units import Q_, fmt

from ._shared import CoolingRule, too_cold


@rule("CLG008", "loop-below-dew-point", covers=("ashrae.liquid",))
class LoopBelowDewPoint(CoolingRule):
    options = {
        "dew_point": Option(
            "15 degC",
            Temperature,
            "Room dew point where the hall declares none (ASHRAE recommended envelope's upper)",
        ),
        "margin": Option(
            "2 K", TemperatureDelta, "Least a loop's supply stays above the room's dew point"
        ),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        halls = design.site.halls
        margin = ctx["margin"].to("K")
        for loop, path, racks in topology_of(design).loops:
            declared = [
                (dew, h)
                for h in loop_halls(racks)
                if h in halls and (dew := halls[h].dew_point) is not None
            ]
            dew, origin = ctx["dew_point"], "the room dew point where no hall declares one"
            if declared:
                dew, hall = max(declared, key=lambda d: float(d[0].m_as("degC")))
                origin = f"hall {hall}'s declared dew point"
            least = Q_(dew.m_as("degC") + margin.m_as("K"), "degC")
            supply = loop.supply_temperature
            yield from too_cold(
                (*path, "supply_temperature"),
                loop.id,
                supply,
                least,
                f"loop {loop.id} supplies {fmt(supply, 'degC')}, below {fmt(dew, 'degC')} "
                f"({origin}) + {fmt(margin)} margin: its pipes, hoses "
                "and cold plates can collect condensation",
                "raise the loop's supply temperature above the room's dew point plus the "
                "margin, or dehumidify the room and declare its dew point on the hall",
            )
