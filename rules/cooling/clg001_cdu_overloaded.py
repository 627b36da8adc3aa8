"""CDU carrying more liquid heat than its rated capacity.

## What it does
For each CDU, adds up the liquid heat of the racks on its loops (rack IT load x liquid
fraction: 85% for GB200/GB300 NVL72, from the catalog, unless the rack sets
`liquid_fraction`), of the switches, endpoints and storage nodes `cooled_by` it, and its own
pumps' `power` (pump work ends as heat in the loop it circulates; the message gives the sum),
and flags the CDU when it exceeds the CDU's rated `capacity`. Exactly at the capacity passes.
Active and planned racks both count.

## Why it matters
CDU makers rate a CDU's heat capacity at a stated approach temperature (e.g. 5 K between
facility and secondary supply); beyond it the secondary supply rises above design, the racks'
cold plates run hotter and the GPUs throttle. NVIDIA's GB200 SuperPOD reference architecture
builds a scalable unit of 8 NVL72 racks needing 1.2 MW, so every NVL72 rack added needs its CDU
capacity planned with it: 8 x 102 kW of liquid heat (OCP GB200 rack specification, 85% of
~120 kW) is 816 kW on a row CDU.

Sources: NVIDIA GB200 SuperPOD reference architecture; OCP GB200 rack specification.

## Example
```yaml
cooling:
  cdus:
    - id: cdu-1
      capacity: 800 kW     # CLG001: 8 NVL72 racks put 816 kW of liquid heat on it
      max_flow: 2125 L/min
```

## Fix
Move racks to another CDU's loop, add a CDU, or use a CDU rated for the load.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, Violation, cdu_loads, rule, topology_of
from dclint.units import fmt

from ._shared import CoolingRule, above


@rule("CLG001", "cdu-overloaded", covers=("ocp.liquid",))
class CduOverloaded(CoolingRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for cid, load in cdu_loads(topology_of(design)).items():
            capacity = load.cdu.capacity.to("kW")
            yield from above(
                (*load.path, "capacity"),
                cid,
                load.heat.to("kW"),
                capacity,
                f"CDU {cid} carries {fmt(load.heat, 'kW')} of liquid heat"
                + (f" ({load.includes})" if load.includes else "")
                + f" on {', '.join(load.loops) or 'no loop'}, above its rated capacity",
                "move racks to another CDU's loop, add a CDU, or use a larger one",
            )
