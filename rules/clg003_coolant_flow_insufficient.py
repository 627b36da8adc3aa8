"""Rack or CDU given less coolant flow than its liquid heat needs at the loop's design dT.

## What it does
The flow a liquid heat load Q needs is Vdot = Q / (rho x cp x dT), with the loop's coolant
(water: cp 4.18 kJ/(kg K), rho 997 kg/m3; PG25: cp 3.92 kJ/(kg K), rho 1021.5 kg/m3) and dT =
return - supply temperature of the loop. Flags (1) a rack on a loop whose `coolant_flow` is
below what its liquid heat needs, and (2) a CDU whose `max_flow` is below the sum of what all
the racks on its loops need. Exactly equal passes. Racks without `coolant_flow`, and loops
whose return is not above their supply (CLG004), are skipped.

## Why it matters
Water at 150 L/min and dT = 10 K carries ~105 kW; a 120 kW rack at dT = 10 K needs ~172 L/min
(DOMAIN.md, cooling). An undersized CDU pump left the far racks 15% short of flow: GPU
junction temperature went from 75 to 92 degC and the GPUs throttled (memo). Glycol mixes
carry less heat per litre than water and need ~4% more flow.

## Example
```yaml
rack_types:
  nvl72:
    platform: gb200-nvl72     # 120 kW, 85% to liquid: 102 kW
    coolant_flow: 140 L/min   # CLG003: needs 146.9 L/min of water at 32/42 degC
```

## Fix
Raise the rack's flow (balance valves, larger manifold), widen the loop's dT, or give the CDU
more pump capacity; move racks to another CDU if its pumps are at their limit.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.calc.cooling import cdu_loads, loop_delta, required_flow
from dclint.engine.rule import Context, Rule, Violation
from dclint.model.design import Design
from dclint.units import fmt

_EPS = 1e-9


class CoolantFlowInsufficient(Rule):
    id = "CLG003"
    name = "coolant-flow-insufficient"
    severity = "error"
    tags = ("cooling",)

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        topo = design.topology
        for loop, _, racks in topo.loops:
            delta = loop_delta(loop)
            if delta.m_as("K") <= 0:
                continue
            for rack in racks:
                if rack.coolant_flow is None:
                    continue
                need = required_flow(rack.liquid_heat, loop.coolant, delta)
                if need.m_as("L/min") <= rack.coolant_flow.m_as("L/min") * (1 + _EPS):
                    continue
                given = rack.coolant_flow.to("L/min")
                temps = (
                    f"{fmt(loop.supply_temperature, 'degC')}/{fmt(loop.return_temperature, 'degC')}"
                )
                yield Violation(
                    rack.field_path("coolant_flow"),
                    f"rack {rack.id} needs {fmt(need)} of {loop.coolant} for "
                    f"{fmt(rack.liquid_heat, 'kW')} of liquid heat at {temps} (dT "
                    f"{fmt(delta)}, loop {loop.id}), above the {fmt(given)} it is given",
                    subject=rack.id,
                    measured=need,
                    limit=given,
                    fix="raise the rack's coolant flow or widen the loop's temperature rise",
                )
        for cid, load in cdu_loads(topo).items():
            max_flow = load.cdu.max_flow.to("L/min")
            if load.flow.m_as("L/min") <= max_flow.m_as("L/min") * (1 + _EPS):
                continue
            yield Violation(
                (*load.path, "max_flow"),
                f"CDU {cid} loops {', '.join(load.loops)} need {fmt(load.flow)} for "
                f"{fmt(load.heat, 'kW')} of liquid heat, above its maximum flow {fmt(max_flow)}",
                subject=cid,
                measured=load.flow.to("L/min"),
                limit=max_flow,
                fix="give the CDU more pump capacity, widen the loops' temperature rise, or "
                "move racks to another CDU",
            )
