"""Rack or CDU given less coolant flow than its liquid heat needs at the loop's design dT.

## What it does
The flow a liquid heat load Q needs is Vdot = Q / (rho x cp x dT), with the loop's coolant
at 25 degC (water: cp 4.18 kJ/(kg K), rho 997 kg/m3, NIST Chemistry WebBook; PG25, 25%
propylene glycol: cp 3.92 kJ/(kg K), rho 1021.5 kg/m3, glycol makers' engineering tables such
as Dow's DOWFROST guide) and dT = return - supply temperature of the loop. Flags (1) a rack on
a loop whose `coolant_flow` is below what its liquid heat needs, and (2) a CDU whose `max_flow`
is below what its racks need or what they are given, whichever is more: the sum of the racks'
`coolant_flow` (a rack without one counted at what it needs) is what the balancing valves draw
from the CDU's pumps. Exactly equal passes. Racks without `coolant_flow` are not checked
themselves, and loops whose return is not above their supply (CLG004) add no need.

## Why it matters
Q = rho x Vdot x cp x dT: water at 150 L/min and dT = 10 K carries 104 kW; a 120 kW rack at
dT = 10 K needs 173 L/min. The OCP GB200 rack specification gives up to 130 L/min for a 120 kW
rack with 85% of its heat to liquid (102 kW, an 11.3 K rise on water), and CDU makers size flow
at 1.2-1.5 L/min per kW. A rack short of flow returns warmer than design and its cold plates run
hot: the GPUs throttle. A CDU is not short of flow only when its racks' need fits: eight racks
whose valves are set to 200 L/min draw 1,600 L/min, and a 1,200 L/min CDU cannot give it, so
the far racks get less than they were set for. Glycol mixes carry less heat per litre than water
(PG25: rho x cp 4,004 vs 4,167 kJ/(m3 K)) and need ~4% more flow.

Sources: OCP GB200 rack specification.

## Example
```yaml
rack_types:
  nvl72:
    platform: gb200-nvl72     # 120 kW, 85% to liquid: 102 kW
    coolant_flow: 140 L/min   # CLG003: needs 146.9 L/min of water at 32/42 degC
cooling:
  cdus:
    - id: cdu-1
      capacity: 1000 kW
      max_flow: 1200 L/min    # CLG003: 8 racks given 200 L/min each draw 1,600 L/min
```

## Fix
Raise the rack's flow (balance valves, larger manifold), widen the loop's dT, or give the CDU
more pump capacity; move racks to another CDU if its pumps are at their limit.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    Violation,
    cdu_loads,
    loop_delta,
    required_flow,
    rule,
    topology_of,
)
from dclint.units import fmt

from ._shared import CoolingRule, above, over


@rule("CLG003", "coolant-flow-insufficient", covers=("ocp.liquid",))
class CoolantFlowInsufficient(CoolingRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        topo = topology_of(design)
        for loop, _, racks in topo.loops:
            delta = loop_delta(loop)
            if delta.m_as("K") <= 0:
                continue
            for rack in racks:
                if rack.coolant_flow is None:
                    continue
                need = required_flow(rack.liquid_heat, loop.coolant, delta)
                given = rack.coolant_flow.to("L/min")
                if not over(
                    need, given
                ):  # tested first: the message is built for a short rack only
                    continue
                temps = (
                    f"{fmt(loop.supply_temperature, 'degC')}/{fmt(loop.return_temperature, 'degC')}"
                )
                yield Violation(
                    rack.field_path("coolant_flow"),
                    f"rack {rack.id} needs {fmt(need)} of {loop.coolant} for "
                    f"{fmt(rack.liquid_heat, 'kW')} of liquid heat at {temps} (dT "
                    f"{fmt(delta)}, loop {loop.id}), above the flow it is given",
                    subject=rack.id,
                    measured=need,
                    limit=given,
                    fix="raise the rack's coolant flow or widen the loop's temperature rise",
                )
        for cid, load in cdu_loads(topo).items():
            max_flow = load.cdu.max_flow.to("L/min")
            need, given = load.flow.to("L/min"), load.given.to("L/min")
            demand = given if given.m_as("L/min") > need.m_as("L/min") else need
            yield from above(
                (*load.path, "max_flow"),
                cid,
                demand,
                max_flow,
                f"CDU {cid} loops {', '.join(load.loops)} need {fmt(need)} for "
                f"{fmt(load.heat, 'kW')} of liquid heat and give their racks {fmt(given)}; "
                f"it must pump {fmt(demand)}, above its maximum flow",
                "give the CDU more pump capacity, lower the racks' coolant flow to what "
                "they need, widen the loops' temperature rise, or move racks to another CDU",
            )
