"""Loop supply temperature above what its racks or the facility class allow, or no rise.

## What it does
For each cooling loop, flags (1) a supply temperature above the lowest
`max_inlet_temperature` of the platforms of its racks that take heat to liquid, (2) a supply
temperature above the upper limit of the site's ASHRAE liquid class (`site.ashrae_class`:
W17 = 17 degC, W27, W32, W40, W45; W+ has no limit), and (3) a return temperature not above
the supply. Exactly at a limit passes. Air-cooled platforms on a loop (liquid fraction 0) are
not held to their air-inlet limits.

## Why it matters
Blackwell racks are specified for a secondary loop at 32/42 degC supply/return (memo), and the
GB200 rack accepts supply up to 45 degC (ASHRAE W45, OCP GB200 rack specification; catalog).
Warmer supply than the platform accepts throttles the GPUs. ASHRAE's classes are named after
the upper supply temperature they cover (DOMAIN.md, cooling practice); a loop designed above
its site's class is outside what the facility plant was built to deliver. A return at or
below the supply carries no heat: Q = rho x Vdot x cp x dT is zero.

## Example
```yaml
site: {ashrae_class: W32}
cooling:
  loops:
    - id: loop-1
      cdu: cdu-1
      supply_temperature: 35 degC   # CLG004: above W32's 32 degC
      return_temperature: 45 degC
```

## Fix
Lower the loop's design supply temperature, or choose a site class and platforms rated for it;
set the return above the supply (e.g. 32/42 degC).
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.calc.cooling import ASHRAE_SUPPLY_LIMITS, loop_delta
from dclint.engine.rule import Context, Rule, Violation
from dclint.model.design import Design
from dclint.units import fmt

_EPS = 1e-9


class SupplyTemperatureOutOfRange(Rule):
    id = "CLG004"
    name = "supply-temperature-out-of-range"
    severity = "error"
    tags = ("cooling",)

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        cls = design.site.ashrae_class
        site_limit = ASHRAE_SUPPLY_LIMITS.get(cls) if cls else None
        for loop, path, racks in design.topology.loops:
            supply, ret = loop.supply_temperature, loop.return_temperature
            at = (*path, "supply_temperature")
            limits = [
                (r.platform.max_inlet_temperature, r)
                for r in racks
                if r.platform is not None
                and r.platform.max_inlet_temperature is not None
                and r.liquid_fraction.magnitude > 0
            ]
            if limits:
                limit, rack = min(limits, key=lambda lr: lr[0].m_as("degC"))
                if supply.m_as("degC") > limit.m_as("degC") + _EPS:
                    yield Violation(
                        at,
                        f"loop {loop.id} supplies {fmt(supply, 'degC')}, above the "
                        f"{fmt(limit, 'degC')} maximum inlet of {rack.platform_key} (rack "
                        f"{rack.id})",
                        subject=loop.id,
                        measured=supply.to("degC"),
                        limit=limit.to("degC"),
                        fix="lower the loop's supply temperature to what its platforms accept",
                    )
            if site_limit is not None and supply.m_as("degC") > site_limit.m_as("degC") + _EPS:
                yield Violation(
                    at,
                    f"loop {loop.id} supplies {fmt(supply, 'degC')}, above the "
                    f"{fmt(site_limit, 'degC')} upper limit of the site's ASHRAE class {cls}",
                    subject=loop.id,
                    measured=supply.to("degC"),
                    limit=site_limit.to("degC"),
                    fix="lower the loop's supply temperature or design the site for a "
                    "warmer ASHRAE class",
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
