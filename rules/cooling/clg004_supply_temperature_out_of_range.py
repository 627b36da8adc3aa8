"""Facility or secondary water temperature outside what the plant, the CDU or the racks allow.

## What it does
ASHRAE's liquid classes bound the facility (primary) water; a CDU passes the heat of its
secondary loop (technology cooling system) to that water across a heat exchanger, so the
secondary supply is at least the facility supply plus the CDU's approach. For each CDU and loop
it flags:
1. a CDU whose declared `facility_supply_temperature` is above the upper limit of the site's
   ASHRAE class (`site.ashrae_class`: W17 = 17 degC, W27, W32, W40, W45; W+ has no limit);
2. a loop whose supply is below facility supply + approach: the CDU cannot make it. The facility
   supply is the CDU's `facility_supply_temperature`, else the upper limit of the site's class
   (the warmest water a plant of that class is built to deliver); the approach is the CDU's
   `approach`, else 0 K (no heat exchanger cools below the water that cools it). Without either
   temperature the check is skipped;
3. a loop whose supply is above the lowest secondary-loop liquid inlet limit (`liquid_inlet_max`
   in the catalog, with its source) of the platforms of its racks that take heat to liquid. A
   platform with no published liquid limit is not checked; an air inlet limit
   (`max_inlet_temperature`) is never applied to a liquid loop;
4. a loop whose return temperature is not above its supply.
Exactly at a limit passes.

## Why it matters
At W32 with a 5 K approach the secondary loop cannot be colder than 37 degC on a design day: a
20 degC secondary loop needs 15 degC facility water, which a W32 plant (dry coolers, no
chillers) does not promise (ASHRAE TC 9.9, Liquid Cooling Guidelines for Datacom Equipment
Centers). CDU makers rate capacity at a stated approach, e.g. 5 K. A secondary supply warmer
than the platform accepts throttles the GPUs: the GB200 NVL72 takes liquid up to 45 degC (OCP
GB200 rack specification). A return at or below the supply carries no heat: Q = rho x Vdot x
cp x dT is zero.

Sources: ASHRAE TC 9.9, Liquid Cooling Guidelines for Datacom Equipment Centers; OCP GB200 rack
specification.

## Example
```yaml
site: {ashrae_class: W32}
cooling:
  cdus:
    - {id: cdu-1, capacity: 2000 kW, max_flow: 2125 L/min, approach: 5 K}
  loops:
    - id: loop-1
      cdu: cdu-1
      supply_temperature: 20 degC   # CLG004: needs 15 degC facility water; W32 gives up to 32
      return_temperature: 30 degC
```

## Fix
Design the secondary loop at or above facility supply + approach (37/47 degC on a W32 site with
a 5 K approach), or declare the colder facility water the plant guarantees
(`facility_supply_temperature`, e.g. from chillers) within its class; keep the secondary supply
at or below the platforms' liquid inlet limit; set the return above the supply.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    ASHRAE_SUPPLY_LIMITS,
    Cdu,
    Context,
    Design,
    Loop,
    Rack,
    Violation,
    facility_supply,
    loop_delta,
    rule,
    topology_of,
)
from dclint.api import DesignPath as Path
from dclint.units import Q_, Quantity, fmt

from ._shared import CoolingRule, too_cold, too_warm


def _inlet_limit(racks: list[Rack]) -> tuple[Quantity, Rack, str] | None:
    """The lowest secondary liquid inlet limit of the loop's liquid-cooled racks' platforms,
    the rack it comes from and the limit's source; None when no platform publishes one."""
    limits = [
        (r.platform.liquid_inlet_max, r, r.platform.sources.get("liquid_inlet_max", "catalog"))
        for r in racks
        if r.platform is not None
        and r.platform.liquid_inlet_max is not None
        and r.liquid_fraction.magnitude > 0
    ]
    return min(limits, key=lambda x: x[0].m_as("degC")) if limits else None


@rule("CLG004", "supply-temperature-out-of-range", covers=("ashrae.liquid",))
class SupplyTemperatureOutOfRange(CoolingRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        cls = design.site.ashrae_class
        class_limit = ASHRAE_SUPPLY_LIMITS.get(cls) if cls else None
        topo = topology_of(design)
        for cdu, path in topo.cdus.values():
            given = cdu.facility_supply_temperature
            if given is None or class_limit is None:
                continue
            yield from too_warm(
                (*path, "facility_supply_temperature"),
                cdu.id,
                given,
                class_limit,
                f"CDU {cdu.id} receives facility water at {fmt(given, 'degC')}, above the "
                f"upper limit of the site's ASHRAE class {cls}",
                "design the site for a warmer ASHRAE class or the plant for colder water",
            )
        for loop, path, racks in topo.loops:
            yield from self._loop(design, loop, path, racks)

    def _loop(
        self, design: Design, loop: Loop, path: Path, racks: list[Rack]
    ) -> Iterator[Violation]:
        supply, ret = loop.supply_temperature, loop.return_temperature
        at = (*path, "supply_temperature")
        found = topology_of(design).cdus.get(loop.cdu)
        if found is not None:
            yield from _below_facility(loop, at, found[0], design.site.ashrae_class)
        inlet = _inlet_limit(racks)
        if inlet is not None:
            limit, rack, source = inlet
            yield from too_warm(
                at,
                loop.id,
                supply,
                limit,
                f"loop {loop.id} supplies {fmt(supply, 'degC')}, above the "
                f"liquid inlet limit of {rack.platform_key} (rack "
                f"{rack.id}; {source})",
                "lower the loop's supply temperature to what its platforms accept",
            )
        if loop_delta(loop).m_as("K") <= 0:
            yield Violation(
                (*path, "return_temperature"),
                f"loop {loop.id} returns at {fmt(ret, 'degC')}, not above its supply "
                f"{fmt(supply, 'degC')}: the coolant carries no heat",
                subject=loop.id,
                measured=ret.to("degC"),
                limit=supply.to("degC"),
                fix="set the return temperature above the supply (e.g. 32/42 degC)",
            )


def _below_facility(
    loop: Loop, at: Path, cdu: Cdu, ashrae_class: str | None
) -> Iterator[Violation]:
    """The loop's supply below what its CDU can deliver: facility supply + approach."""
    facility, origin = facility_supply(cdu, ashrae_class)
    if facility is None:
        return
    supply = loop.supply_temperature
    approach = cdu.approach.to("K") if cdu.approach is not None else Q_(0.0, "K")
    least = Q_(facility.m_as("degC") + approach.m_as("K"), "degC")
    needs = Q_(supply.m_as("degC") - approach.m_as("K"), "degC")
    how = (
        f"its {fmt(approach)} approach"
        if cdu.approach is not None
        else "0 K approach (none declared; no heat exchanger cools below the water that cools it)"
    )
    yield from too_cold(
        at,
        loop.id,
        supply,
        least,
        f"loop {loop.id} supplies {fmt(supply, 'degC')}, below what "
        f"CDU {cdu.id} can deliver: {origin} + {how}; "
        f"{fmt(supply, 'degC')} needs facility water at {fmt(needs, 'degC')}",
        "raise the loop's supply to at least facility supply + approach, or declare the "
        "colder facility water the plant guarantees (facility_supply_temperature)",
    )
