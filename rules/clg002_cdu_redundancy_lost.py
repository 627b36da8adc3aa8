"""CDU redundancy group that cannot carry its load with its largest CDU out (N+1).

## What it does
Groups CDUs by `redundancy_group`. For each group, adds up the liquid heat on all its CDUs'
loops and flags the group when the CDUs left after taking out the largest one (by capacity)
have less capacity than that load. Exactly equal passes. A group of one CDU has nothing left
once it is out, and is flagged when it carries any load. CDUs without a group are not checked.

## Why it matters
Uptime Institute Tier III (concurrently maintainable) needs N+1 capacity components, and NVIDIA's
GB200 SuperPOD reference architecture asks for a Tier III site or equivalent (TIA-942-B Rated 3,
EN 50600 Availability Class 3). A CDU's nameplate rating assumes all its own pumps and
exchangers run: what counts is the capacity left when one whole unit is down for maintenance or
failure.

## Example
```yaml
cooling:
  cdus:
    - {id: cdu-1, capacity: 1000 kW, max_flow: 2125 L/min, redundancy_group: row-1}
    - {id: cdu-2, capacity: 1000 kW, max_flow: 2125 L/min, redundancy_group: row-1}
  # CLG002: 1,632 kW of racks on the two; with cdu-1 out, 1,000 kW is left
```

## Fix
Add a CDU to the group, use larger CDUs, or move racks to another group's loops.
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

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        groups: dict[str, list[CduLoad]] = defaultdict(list)
        for load in cdu_loads(design.topology).values():
            if load.cdu.redundancy_group is not None:
                groups[load.cdu.redundancy_group].append(load)
        for name, members in groups.items():
            heat = sum((m.heat.m_as("kW") for m in members), 0.0)
            largest = max(members, key=lambda m: m.cdu.capacity.m_as("kW"))
            total = sum((m.cdu.capacity.m_as("kW") for m in members), 0.0)
            left = total - largest.cdu.capacity.m_as("kW")
            if heat <= left * (1 + 1e-9):
                continue
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
