"""CDU given less facility (primary) water than the heat it passes needs.

## What it does
A CDU passes the liquid heat of its loops' racks (IT load x liquid fraction, as CLG001 adds it
up) across its heat exchanger to the facility water. Where the CDU declares its facility
`facility_flow` and `facility_temperature_rise` (facility return minus supply), the flow that
heat needs is Vdot = Q / (rho x cp x dT) at the facility fluid's properties at 25 degC
(`facility_coolant`: water, cp 4.18 kJ/(kg K), rho 997 kg/m3, NIST Chemistry WebBook; PG25,
cp 3.92 kJ/(kg K), rho 1021.5 kg/m3, glycol makers' tables such as Dow's DOWFROST guide).
Flags the CDU when its declared facility flow is below that. Exactly equal passes. A CDU that
declares neither figure, or only one, is not checked.

## Why it matters
Q = rho x Vdot x cp x dT holds on both sides of the exchanger: the facility water must carry
away every kW the secondary loop brings in. CDU makers rate capacity at a stated facility flow
and approach (e.g. 2,000 kW at 2,125 L/min and a 5 K approach); a plant that delivers less
water, or a narrower rise, leaves the heat in the secondary loop, whose supply then climbs
above design until the GPUs throttle. 816 kW of liquid heat (8 GB200 NVL72 racks, 85% of
~120 kW each, OCP GB200 rack specification) at a 10 K facility rise needs 1,175 L/min of
water; at 6 K it needs 1,958 L/min.

Sources: OCP GB200 rack specification.

## Example
```yaml
cooling:
  cdus:
    - id: cdu-1
      capacity: 1000 kW
      max_flow: 1500 L/min
      facility_flow: 1000 L/min          # CLG007: 816 kW at a 10 K rise needs 1,175 L/min
      facility_temperature_rise: 10 K
```

## Fix
Raise the facility water flow to the CDU (valve, pump or branch sizing on the primary side),
design the facility loop for a wider temperature rise, or move racks to another CDU.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    COOLANTS,
    Context,
    Design,
    Violation,
    cdu_loads,
    required_flow,
    rule,
    topology_of,
)
from dclint.units import fmt

from ._shared import CoolingRule, above


@rule("CLG007", "facility-flow-insufficient", covers=("ocp.liquid",))
class FacilityFlowInsufficient(CoolingRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for cid, load in cdu_loads(topology_of(design)).items():
            cdu = load.cdu
            given, rise = cdu.facility_flow, cdu.facility_temperature_rise
            if given is None or rise is None or load.heat.m_as("kW") <= 0:
                continue
            need = required_flow(load.heat, cdu.facility_coolant, rise)
            fluid = COOLANTS[cdu.facility_coolant].name
            yield from above(
                (*load.path, "facility_flow"),
                cid,
                need,
                given.to("L/min"),
                f"CDU {cid} passes {fmt(load.heat, 'kW')} of liquid heat ({', '.join(load.loops)})"
                f" to the facility {fluid}, which needs {fmt(need)} at its {fmt(rise.to('K'))} "
                f"rise (Q = rho x Vdot x cp x dT), above the facility flow it "
                "is given",
                "raise the facility water flow to the CDU, design the facility loop for a "
                "wider temperature rise, or move racks to another CDU",
            )
