"""Rack whose liquid cooling capacity is below its liquid heat load.

## What it does
Flags a rack whose declared `liquid_cooling_capacity` (what its manifold and cold plates can
remove) is below its liquid heat, IT load x liquid fraction, and, for NVL72-class platforms,
below `nvl72_minimum` (default 100 kW) whatever its load. Exactly at the limit passes. Racks
that declare no capacity are not checked.

## Why it matters
A GB200 NVL72 at its ~120 kW design power (NVIDIA GB200 NVL72 rack guide) sends 85% of its
heat, 102 kW, to liquid (OCP GB200 rack specification); heat the rack cannot move to the loop
stays in the GPUs, which throttle. The 100 kW `nvl72_minimum` is dclint's own default, that
102 kW rounded down: an NVL72-class rack's manifold and cold plates are sized for the platform,
so a rack whose design load is written lower (a capped or partly filled rack) still needs them,
as its load can rise to the platform's.

Sources: NVIDIA GB200 NVL72 rack guide; OCP GB200 rack specification.

## Example
```yaml
rack_types:
  nvl72:
    platform: gb200-nvl72            # 102 kW to liquid
    liquid_cooling_capacity: 90 kW   # CLG006: below 102 kW
```

## Fix
Specify a rack manifold and cold plates rated for the rack's liquid heat (>= 100 kW for an
NVL72 rack), or lower the rack's load.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, Option, Power, Violation, rule, topology_of
from dclint.units import fmt

from ._shared import CoolingRule


@rule("CLG006", "rack-liquid-capacity-too-small", covers=("ocp.liquid",), needs=("racks",))
class RackLiquidCapacityTooSmall(CoolingRule):
    options = {
        "nvl72_minimum": Option(
            "100 kW",
            Power,
            "Least liquid cooling capacity of an NVL72-class rack (dclint's own default)",
        ),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        minimum = ctx["nvl72_minimum"].to("kW")
        for rack in topology_of(design).racks:
            capacity = rack.liquid_cooling_capacity
            if capacity is None:
                continue
            heat = rack.liquid_heat.to("kW")
            need = heat
            nvl72 = rack.platform is not None and rack.platform.nvl72_class
            if nvl72 and minimum.m_as("kW") > heat.m_as("kW"):
                need = minimum
            if capacity.m_as("kW") >= need.m_as("kW") * (1 - 1e-9):
                continue
            why = "its liquid heat"
            if need is minimum:
                why = "what an NVL72-class rack needs"
            yield Violation(
                rack.field_path("liquid_cooling_capacity"),
                f"rack {rack.id} liquid cooling capacity {fmt(capacity, 'kW')} is below {why}",
                subject=rack.id,
                measured=capacity.to("kW"),
                limit=need,
                fix="specify a rack manifold and cold plates rated for the rack's liquid heat",
            )
