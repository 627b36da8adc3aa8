"""CDU redundancy group that cannot carry its heat or pump its flow with one CDU out (N+1).

## What it does
Groups CDUs by `redundancy_group`. For each group, checks heat and flow separately:
(1) adds up the liquid heat on all its CDUs' loops and flags the group when the CDUs left after
taking out the largest one (by `capacity`) have less capacity than that load; (2) adds up the
flow the group's loops must be pumped, the racks' need at each loop's dT or the flow they are
given (`coolant_flow`), whichever is more, as CLG003 counts it, and flags the group when the
CDUs left after taking out the one with the largest `max_flow` pump less than that. Each
finding points at the CDU taken out (`capacity` or `max_flow`). Exactly equal passes. A group
of one CDU has nothing left once it is out, and is flagged when it carries any load. CDUs
without a group are not checked.

## Why it matters
Uptime Institute Tier III (concurrently maintainable) needs N+1 capacity components, and NVIDIA's
GB200 SuperPOD reference architecture asks for a Tier III site or equivalent (TIA-942-B Rated 3,
EN 50600 Availability Class 3). A CDU's nameplate rating assumes all its own pumps and
exchangers run: what counts is the capacity left when one whole unit is down for maintenance or
failure. Heat capacity alone is not enough: a surviving CDU moves the heat only with the flow
(Q = rho x Vdot x cp x dT), and CDU makers rate both (e.g. 2,000 kW and 2,125 L/min at a 5 K
approach); one whose pumps cannot take over the lost unit's flow leaves racks short of coolant
and their GPUs throttle.

## Example
```yaml
cooling:
  cdus:
    - {id: cdu-1, capacity: 1000 kW, max_flow: 2125 L/min, redundancy_group: row-1}
    - {id: cdu-2, capacity: 1000 kW, max_flow: 2125 L/min, redundancy_group: row-1}
  # CLG002: 1,632 kW of racks on the two; with cdu-1 out, 1,000 kW is left
    - {id: cdu-3, capacity: 1000 kW, max_flow: 1000 L/min, redundancy_group: row-2}
    - {id: cdu-4, capacity: 1000 kW, max_flow: 1000 L/min, redundancy_group: row-2}
  # CLG002: 800 kW of racks at dT 10 K need 1,151 L/min; with one out, 1,000 L/min is left
```

## Fix
Add a CDU to the group, use larger CDUs (heat and pumps), or move racks to another group's
loops; where only flow binds, widen the loops' dT or give the CDUs larger pumps.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from dclint.calc.cooling import CduLoad, cdu_loads
from dclint.engine.rule import Context, Rule, Violation
from dclint.model.design import Design
from dclint.units import Q_, fmt


class CduRedundancyLost(Rule):
    id = "CLG002"
    name = "cdu-redundancy-lost"
    severity = "error"
    tags = ("cooling", "redundancy")
    needs = ("cooling",)

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        groups: dict[str, list[CduLoad]] = defaultdict(list)
        for load in cdu_loads(design.topology).values():
            if load.cdu.redundancy_group is not None:
                groups[load.cdu.redundancy_group].append(load)
        for name, members in groups.items():
            yield from self._heat(name, members)
            yield from self._flow(name, members)

    def _heat(self, name: str, members: list[CduLoad]) -> Iterator[Violation]:
        """One CDU out, the one with the largest heat capacity: the rest must carry the heat."""
        heat = sum((m.heat.m_as("kW") for m in members), 0.0)
        largest = max(members, key=lambda m: m.cdu.capacity.m_as("kW"))
        total = sum((m.cdu.capacity.m_as("kW") for m in members), 0.0)
        left = total - largest.cdu.capacity.m_as("kW")
        if heat <= left * (1 + 1e-9):
            return
        others = (
            f"the rest ({', '.join(m.cdu.id for m in members if m is not largest)}) give "
            f"{fmt(Q_(left, 'kW'))}"
            if len(members) > 1
            else "no CDU is left"
        )
        yield Violation(
            (*largest.path, "capacity"),
            f"CDU group {name} carries {fmt(Q_(heat, 'kW'))} of liquid heat; with its "
            f"largest CDU {largest.cdu.id} ({fmt(largest.cdu.capacity, 'kW')}) out, "
            f"{others}",
            subject=name,
            measured=Q_(heat, "kW"),
            limit=Q_(left, "kW"),
            fix="add a CDU to the group, use larger CDUs, or move racks to another group",
        )

    def _flow(self, name: str, members: list[CduLoad]) -> Iterator[Violation]:
        """One CDU out, the one with the largest pumps: the rest must pump the group's flow."""
        need = sum((m.flow.m_as("L/min") for m in members), 0.0)
        given = sum((m.given.m_as("L/min") for m in members), 0.0)
        demand = max(need, given)
        largest = max(members, key=lambda m: m.cdu.max_flow.m_as("L/min"))
        total = sum((m.cdu.max_flow.m_as("L/min") for m in members), 0.0)
        left = total - largest.cdu.max_flow.m_as("L/min")
        if demand <= left * (1 + 1e-9):
            return
        others = (
            f"the rest ({', '.join(m.cdu.id for m in members if m is not largest)}) pump "
            f"{fmt(Q_(left, 'L/min'))}"
            if len(members) > 1
            else "no CDU is left"
        )
        basis = "given to the racks" if given > need else "the racks' liquid heat needs"
        yield Violation(
            (*largest.path, "max_flow"),
            f"CDU group {name} must pump {fmt(Q_(demand, 'L/min'))} ({basis}); with its "
            f"largest-pumping CDU {largest.cdu.id} ({fmt(largest.cdu.max_flow, 'L/min')}) out, "
            f"{others}",
            subject=name,
            measured=Q_(demand, "L/min"),
            limit=Q_(left, "L/min"),
            fix="add a CDU to the group, give the CDUs larger pumps, widen the loops' "
            "temperature rise, or move racks to another group",
        )
