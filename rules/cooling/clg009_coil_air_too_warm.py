"""Liquid-to-air cooler (rear door, in-row coil) whose air cannot be as cold as the platforms
it serves take in.

## What it does
A loop that declares `air_cooler` (`rear_door` or `in_row`) feeds liquid-to-air coils: their
air goes back into the room as the racks' inlet air, and it is no colder than the loop's supply
plus the coil's approach (`coil_approach` on the loop; where none is declared but the coils'
`coil_effectiveness` e and the racks' air temperature rise dT are, dT x (1 - e) / e: in a room
where the air a door returns is the next racks' inlet, the air leaving a coil of effectiveness e,
(air in - air out) / (air in - water in), settles there above the water, e.g. 6.4 K for 70% at
a 15 K rise; else 0 K, which is dclint's own default: no coil cools air below the water that
cools it). The rise is the loop's `air_temperature_rise`, else its hall's air handlers'
`temperature_rise`. Flags the loop when
that is above the air inlet limit: the lower of `inlet_limit` (default 27 degC) and the lowest
`max_inlet_temperature` (catalog, with its source) of the platforms of its racks. Exactly at
the limit passes. Loops without `air_cooler` feed cold plates and are not checked (CLG004
bounds those).

## Why it matters
A rear door moves the rack's exhaust heat into water, but the air it returns is the next rack's
inlet: a warm-water loop built for cold plates (32/42 degC, ASHRAE W32) gives at best 32 degC
air, above the 18-27 degC recommended envelope of ASHRAE TC 9.9's Thermal Guidelines for Data
Processing Environments (class A1-A4 equipment is only allowed above 27 degC for limited
periods, at more fan power and risk), and close to the 35 degC allowable limit of class A2
servers such as the DGX H100. Rear-door and in-row coil makers rate their capacity at a stated
approach between entering water and leaving air, typically a few kelvin; fans then run harder
and GPUs throttle as the inlet climbs.

Sources: ASHRAE TC 9.9, Thermal Guidelines for Data Processing Environments; ASHRAE TC 9.9,
Liquid Cooling Guidelines for Datacom Equipment Centers.

## Example
```yaml
racks:
  - {id: 'r[1-8]', platform: dgx-h100, nodes: 4, liquid_fraction: 100%}  # rear doors
cooling:
  loops:
    - id: rdhx
      cdu: cdu-1
      air_cooler: rear_door
      supply_temperature: 32 degC   # CLG009: 32 degC air, above the 27 degC inlet limit
      return_temperature: 42 degC
      racks: ['r[1-8]']
```

## Fix
Supply the coils from a colder loop (supply + coil approach at or below the inlet limit, e.g.
20-22 degC with a 3-5 K coil), use coils with a closer approach, or move the air-cooled racks
to liquid-cooled platforms on the warm loop. Where the hall is run in an ASHRAE allowable class
on purpose, set `CLG009 = { inlet_limit = "32 degC" }`.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    Loop,
    Option,
    Rack,
    Temperature,
    Violation,
    rule,
    topology_of,
)
from dclint.units import Q_, Quantity, fmt

from ._shared import CoolingRule, colder, too_warm


def _approach(design: Design, loop: Loop, racks: list[Rack]) -> tuple[Quantity, str]:
    """The coils' approach, air leaving minus water entering, and how it was found: declared;
    else from the coils' effectiveness e and the racks' air rise dT: where the air a door
    returns is the next racks' inlet, it leaves at supply + dT (1 - e) / e; else 0 K."""
    if loop.coil_approach is not None:
        approach = loop.coil_approach.to("K")
        return approach, f"its {fmt(approach)} coil approach"
    rise = loop.air_temperature_rise
    if rise is None:
        halls = design.site.halls
        hall = next((halls[r.hall] for r in racks if r.hall in halls), None)
        if hall is not None and hall.air_handlers is not None:
            rise = hall.air_handlers.temperature_rise
    eff = loop.coil_effectiveness
    if eff is None or rise is None or eff.m_as("") <= 0:
        return Q_(0.0, "K"), "0 K coil approach (none declared)"
    e, dt = float(eff.m_as("")), float(rise.m_as("K"))
    approach = Q_(dt * (1 - e) / e, "K")
    return approach, (
        f"a {fmt(approach)} coil approach ({fmt(eff, 'percent')} effective coils at a "
        f"{fmt(rise.to('K'))} air rise through the racks: {dt:g} x (1 - {e:g}) / {e:g}, the air "
        "leaving the coils being the next racks' inlet)"
    )


@rule("CLG009", "coil-air-too-warm", covers=("ashrae.air",))
class CoilAirTooWarm(CoolingRule):
    options = {
        "inlet_limit": Option(
            "27 degC",
            Temperature,
            "Highest air inlet temperature a liquid-to-air cooler may return (ASHRAE TC 9.9 "
            "recommended envelope)",
        ),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        configured = ctx["inlet_limit"].to("degC")
        for loop, path, racks in topology_of(design).loops:
            if loop.air_cooler is None:
                continue
            limit, why = configured, "the ASHRAE recommended inlet limit (inlet_limit)"
            for rack in racks:
                own = rack.platform.max_inlet_temperature if rack.platform else None
                if own is not None and colder(own, limit):
                    source = rack.platform.sources.get(  # type: ignore[union-attr]
                        "max_inlet_temperature", "catalog"
                    )
                    limit, why = own.to("degC"), f"{rack.platform_key}'s inlet limit ({source})"
            approach, coil = _approach(design, loop, racks)
            supply = loop.supply_temperature
            leaving = Q_(supply.m_as("degC") + approach.m_as("K"), "degC")
            kind = loop.air_cooler.replace("_", "-")
            yield from too_warm(
                (*path, "supply_temperature"),
                loop.id,
                leaving,
                limit,
                f"loop {loop.id} feeds {kind} coils for {len(racks)} racks: its "
                f"{fmt(supply, 'degC')} supply + {coil} returns air at "
                f"{fmt(leaving, 'degC')} at best, above {why}",
                "supply the coils from a colder loop (supply + coil approach at or below "
                "the inlet limit), use coils with a closer approach, or move the racks to "
                "liquid-cooled platforms",
            )
