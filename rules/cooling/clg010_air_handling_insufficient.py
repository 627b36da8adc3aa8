"""Room whose air handlers cannot carry its racks' heat to air, or move the air it needs, with
their spare units out.

## What it does
For each hall that declares `air_handlers`, adds up the heat its racks reject to air: each
rack's design IT load x (1 - its liquid fraction; catalog: 15% to air for a GB200 NVL72, 100%
for an air-cooled DGX; a rack's own `liquid_fraction` wins, e.g. with a rear door), and the
heat of the switches, endpoints and storage nodes the design declares: all of it to air, in the
hall they are `cooled_by`, else in the halls of the racks they serve, an equal share a rack
(dclint.calc.it_load; the message gives the sum). Flags
1. the hall when that heat is above the sensible capacity of its units with the spares out,
   `(count - redundant) x capacity`;
2. where the handlers declare `airflow` (per unit, m^3/s or CFM) and their
   `temperature_rise` (hot aisle minus cold aisle), the hall when the air that heat needs,
   Vdot = Q / (rho x cp x dT) with standard air (rho 1.2 kg/m3, cp 1.006 kJ/(kg K), ASHRAE
   Handbook - Fundamentals), is more than the units left move;
3. where `site.uptime_tier` is III or IV, air handlers with no spare unit (N+1).
Exactly at a limit passes. Racks stand in the hall they name (`hall`), or their row's.

## Why it matters
Liquid cooling does not take all the heat: a GB200 NVL72 still sends about 15% of its ~120 kW
to air (OCP GB200 rack specification: 85% to liquid; NVIDIA's and Vertiv's GB200 reference
designs size the room's air cooling for it), 18 kW a rack, and the switches, storage and
air-cooled nodes send all of theirs. Eight NVL72 racks put 144 kW into the room's air, which
needs 11.9 m3/s (25,300 CFM) at a 10 K rise. Uptime Institute's Tier III and IV ask for N+1
cooling units, so the capacity that counts is the one left with a unit out for maintenance.

Sources: OCP GB200 rack specification; NVIDIA and Vertiv GB200 reference designs; Uptime
Institute, Tier Standard: Topology.

## Example
```yaml
site:
  halls:
    h1:
      air_handlers:
        capacity: 100 kW       # CLG010: 144 kW to air, 100 kW with one of two out
        count: 2
        redundant: 1
```

## Fix
Add air handlers (or larger ones) to the hall, keep a spare unit, widen the air temperature
rise (containment), or move heat to liquid (rear doors on the air-cooled racks).
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    RoomAir,
    Topology,
    Violation,
    air_flow_needed,
    default_note,
    room_air,
    rule,
    topology_of,
)
from dclint.units import fmt

from ._shared import CoolingRedundancyRule, above


def _note(room: RoomAir, topo: Topology) -> str:
    """The default allocation of the loads besides the racks, where one is used: '; ...'."""
    note = default_note(topo, [w for w, _ in room.extra], cooling=True)
    return f"; {note}" if note else ""


@rule(
    "CLG010",
    "air-handling-insufficient",
    covers=("ashrae.air", "uptime.cooling-redundancy"),
    needs=("air_handlers",),
)
class AirHandlingInsufficient(CoolingRedundancyRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        tier = design.site.uptime_tier
        topo = topology_of(design)
        for room in room_air(topo):
            yield from self._heat(room, topo)
            yield from self._airflow(room)
            if tier in ("III", "IV") and room.handlers.redundant < 1:
                yield Violation(
                    (*room.path, "redundant"),
                    f"hall {room.hall}'s {room.handlers.count} air handlers have no spare "
                    f"unit: Tier {tier} asks for N+1",
                    subject=room.hall,
                    measured=float(room.handlers.redundant),
                    limit=1.0,
                    fix="add a spare air handler (redundant: 1)",
                )

    def _spares(self, room: RoomAir) -> str:
        h = room.handlers
        return f"{room.working} of {h.count} units, {h.redundant} spare"

    def _heat(self, room: RoomAir, topo: Topology) -> Iterator[Violation]:
        heat, capacity = room.heat, room.capacity
        yield from above(
            (*room.path, "capacity"),
            room.hall,
            heat,
            capacity,
            f"hall {room.hall}'s {len(room.racks)} racks"
            + (" and the loads cooled there" if room.extra else "")
            + f" reject {fmt(heat)} to air"
            + (f" ({room.includes}{_note(room, topo)})" if room.includes else "")
            + ", above what its air handlers carry with the spares out "
            f"({self._spares(room)}, {fmt(room.handlers.capacity, 'kW')} each)",
            "add air handlers or larger ones, or move heat to liquid (rear doors)",
        )

    def _airflow(self, room: RoomAir) -> Iterator[Violation]:
        given, rise = room.airflow, room.handlers.temperature_rise
        if given is None or rise is None or room.heat.m_as("kW") <= 0:
            return
        need = air_flow_needed(room.heat, rise)
        yield from above(
            (*room.path, "airflow"),
            room.hall,
            need,
            given,
            f"hall {room.hall}'s {fmt(room.heat)} of heat to air needs {fmt(need)} "
            f"({fmt(need, 'CFM')}) of air at a {fmt(rise.to('K'))} rise (Q = rho x Vdot x cp x "
            f"dT, standard air), above what its air handlers move with the spares out "
            f"({fmt(given, 'CFM')}; {self._spares(room)})",
            "add air handlers, widen the air temperature rise (containment), or move heat "
            "to liquid",
        )
