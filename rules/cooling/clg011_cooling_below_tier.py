"""Cooling plant that a Tier III or IV site cannot keep running with one CDU or pump out.

## What it does
Where `site.uptime_tier` is III or IV, reads the failure engine's cooling failures (`dclint
failures`) and flags
1. a CDU that carries liquid heat with no `redundancy_group` (no other CDU backs it up): with it
   out for maintenance or failed, the racks on its loops lose cooling. CDUs in a group are
   CLG002's: it flags a group whose others cannot carry the heat or pump the flow with one out,
   and a group of one;
2. a CDU that declares its `pumps` with no spare (`redundant_pumps: 0`) whose other pumps then
   move less than its loops need (the racks' liquid heat at each loop's dT, or the flow they are
   given, whichever is more, as CLG003): `max_flow` x (pumps - 1) / pumps.
Air handlers at Tier III/IV are CLG010's (N+1 units). Exactly at the need passes; below Tier
III nothing is flagged.

## Why it matters
Uptime Institute's Tier Standard: Topology asks a Tier III site to be concurrently maintainable
(every capacity component, a CDU or a pump among them, can be taken out for maintenance without
affecting the IT) and a Tier IV site to be fault tolerant (any single failure of a component or
path leaves the IT running, with continuous cooling); TIA-942-B Rated 3/4 and EN 50600
Availability Classes 3/4 say the same. NVIDIA's GB200 SuperPOD reference architecture asks for
a Tier III site or equivalent. PWR013 judges the power paths so; a liquid-cooled rack loses
cooling as surely as it loses power, and a GB200 NVL72 throttles or trips within seconds
without coolant flow.

Sources: Uptime Institute, Tier Standard: Topology; TIA-942-B; EN 50600; NVIDIA GB200 SuperPOD
reference architecture.

## Example
```yaml
site: {uptime_tier: III}
cooling:
  cdus:
    - {id: cdu-1, capacity: 2000 kW, max_flow: 2125 L/min}   # CLG011: 816 kW, no spare CDU
```

## Fix
Put the CDU in a `redundancy_group` with another that can carry its heat and flow (N+1), or
give it a spare pump (`redundant_pumps: 1`); or declare the tier the site is built to.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, Violation, cdu_loads, failure_table, fmt, rule, topology_of
from dclint.units import Q_

from .._text import first_ids
from ._shared import CoolingRedundancyRule

_NAMES = {"III": "concurrently maintainable", "IV": "fault tolerant"}


@rule("CLG011", "cooling-below-tier", covers=("uptime.cooling-redundancy",))
class CoolingBelowTier(CoolingRedundancyRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        tier = design.site.uptime_tier
        if tier not in _NAMES:
            return
        topo = topology_of(design)
        loads = cdu_loads(topo)
        need = f"Tier {tier} ({_NAMES[tier]}) needs the cooling to carry on with it out"
        for f in failure_table(topo).failures:
            if f.kind == "cdu" and f.racks_lost:
                load = loads[f.element]
                if load.cdu.redundancy_group is not None or load.heat.m_as("kW") <= 0:
                    continue  # a group (of one, too) is CLG002's
                yield Violation(
                    (*f.path, "capacity"),
                    f"CDU {f.element} carries {fmt(load.heat)} of liquid heat for "
                    f"{len(f.racks_lost)} rack{'s' * (len(f.racks_lost) != 1)} "
                    f"({first_ids(f.racks_lost)}) and no other CDU backs it up "
                    f"(no redundancy_group): with it out for maintenance or failed they lose "
                    f"cooling; {need}",
                    subject=f.element,
                    measured=load.heat,
                    limit=Q_(0.0, "kW"),
                    fix="put the CDU in a redundancy_group with another that carries its heat "
                    "and flow (N+1)",
                )
            elif f.kind == "pump" and f.worst is not None and f.worst.over:
                s = f.worst
                cdu = loads[f.element].cdu
                if cdu.redundant_pumps or cdu.pumps is None:
                    continue  # a spare pump keeps max_flow: more need than that is CLG003's
                yield Violation(
                    (*f.path, "redundant_pumps"),
                    f"CDU {f.element}'s loops need {fmt(Q_(s.load, 'L/min'))}; with one of its "
                    f"{cdu.pumps} pumps out ({cdu.redundant_pumps} spare) the others move "
                    f"{fmt(cdu.max_flow, 'L/min')} x {cdu.pumps - 1}/{cdu.pumps}; {need}",
                    subject=f.element,
                    measured=Q_(s.load, "L/min"),
                    limit=Q_(s.capacity, "L/min"),
                    fix="give the CDU a spare pump (redundant_pumps: 1) or larger pumps",
                )
