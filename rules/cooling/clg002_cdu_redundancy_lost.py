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

Sources: Uptime Institute, Tier Standard: Topology; NVIDIA GB200 SuperPOD reference
architecture; TIA-942-B; EN 50600.

## Example
```yaml
cooling:
  cdus:
    - {id: cdu-a, capacity: 1000 kW, max_flow: 2125 L/min, redundancy_group: row-1}
    - {id: cdu-b, capacity: 600 kW, max_flow: 2125 L/min, redundancy_group: row-1}
  # CLG002: 700 kW of racks on the two; with cdu-a out, cdu-b gives 600 kW
    - {id: cdu-c, capacity: 1000 kW, max_flow: 1000 L/min, redundancy_group: row-2}
    - {id: cdu-d, capacity: 1000 kW, max_flow: 1000 L/min, redundancy_group: row-2}
  # CLG002: eight 100 kW racks at 32/42 degC need 1152 L/min; with one out, 1000 L/min is left
```

## Fix
Add a CDU to the group (`--fix --unsafe-fixes` appends copies of the CDU the finding names,
with new ids, as many as heat and flow need with the largest out), use larger CDUs (heat and
pumps), or move racks to another group's loops; where only flow binds, widen the loops' dT or
give the CDUs larger pumps.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from dclint.api import (
    Cdu,
    CduLoad,
    Change,
    Context,
    Design,
    Violation,
    cdu_loads,
    entry_copies_change,
    next_ids,
    rule,
    topology_of,
)
from dclint.units import Q_, fmt

from ._shared import CoolingRedundancyRule


@rule("CLG002", "cdu-redundancy-lost", covers=("uptime.cooling-redundancy",))
class CduRedundancyLost(CoolingRedundancyRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        groups: dict[str, list[CduLoad]] = defaultdict(list)
        loads = cdu_loads(topology_of(design))
        for load in loads.values():
            if load.cdu.redundancy_group is not None:
                groups[load.cdu.redundancy_group].append(load)
        taken = set(loads)  # CDU ids, with those the fixes add
        for name, members in groups.items():
            heat, flow = _Need.heat(members), _Need.flow(members)
            if not (heat.short or flow.short):
                continue
            fix, change = _more_cdus(name, heat if heat.short else flow, heat, flow, taken)
            if heat.short:
                yield self._heat(name, members, heat, fix, change)
            if flow.short:
                yield self._flow(name, members, flow, fix, change)

    def _heat(
        self, name: str, members: list[CduLoad], need: _Need, fix: str, change: tuple[Change, ...]
    ) -> Violation:
        """One CDU out, the one with the largest heat capacity: the rest must carry the heat."""
        demand = f"carries {fmt(Q_(need.demand, 'kW'))} of liquid heat"
        fix = f"{fix}, use larger CDUs, or move racks to another group"
        return _largest_out(name, members, need, demand, ("largest", "give"), fix, change)

    def _flow(
        self, name: str, members: list[CduLoad], need: _Need, fix: str, change: tuple[Change, ...]
    ) -> Violation:
        """One CDU out, the one with the largest pumps: the rest must pump the group's flow."""
        given = sum((m.given.m_as("L/min") for m in members), 0.0)
        needed = sum((m.flow.m_as("L/min") for m in members), 0.0)
        basis = "given to the racks" if given > needed else "the racks' liquid heat needs"
        demand = f"must pump {fmt(Q_(need.demand, 'L/min'))} ({basis})"
        fix = (
            f"{fix}, give the CDUs larger pumps, widen the loops' temperature rise, or move "
            "racks to another group"
        )
        return _largest_out(name, members, need, demand, ("largest-pumping", "pump"), fix, change)


def _largest_out(
    name: str,
    members: list[CduLoad],
    need: _Need,
    demand: str,
    words: tuple[str, str],
    fix: str,
    change: tuple[Change, ...],
) -> Violation:
    """The group's finding with its largest CDU in `need`'s resource out: the group's `demand`
    against what the rest give. `words`: what makes that CDU the largest ('largest-pumping')
    and what the rest do ('pump')."""
    largest, (which, verb) = need.largest, words
    rating = fmt(getattr(largest.cdu, need.field), need.unit)
    others = _rest(members, largest, f"{verb} too little")
    return Violation(
        (*largest.path, need.field),
        f"CDU group {name} {demand}; with its {which} CDU {largest.cdu.id} ({rating}) out, "
        f"{others}",
        subject=name,
        measured=Q_(need.demand, need.unit),
        limit=Q_(need.left, need.unit),
        fix=fix,
        changes=change,
    )


@dataclass(frozen=True)
class _Need:
    """One resource of a group (heat in kW or flow in L/min) with its largest CDU out."""

    demand: float
    total: float
    largest: CduLoad
    unit: str

    @property
    def left(self) -> float:
        return self.total - self.size(self.largest.cdu)

    @property
    def short(self) -> bool:
        return self.demand > self.left * (1 + 1e-9)  # exactly equal passes

    @property
    def field(self) -> str:
        """The CDU field that rates this resource."""
        return "capacity" if self.unit == "kW" else "max_flow"

    def size(self, cdu: Cdu) -> float:
        return float(getattr(cdu, self.field).m_as(self.unit))

    def copies(self, template: Cdu) -> int:
        """Copies of `template` that bring what is left with the largest out up to demand
        (the largest stays the largest: the template is no larger)."""
        if not self.short:
            return 0
        return max(1, math.ceil((self.demand - self.left) / self.size(template) - 1e-9))

    @staticmethod
    def heat(members: list[CduLoad]) -> _Need:
        return _Need(
            sum((m.heat.m_as("kW") for m in members), 0.0),
            sum((m.cdu.capacity.m_as("kW") for m in members), 0.0),
            max(members, key=lambda m: m.cdu.capacity.m_as("kW")),
            "kW",
        )

    @staticmethod
    def flow(members: list[CduLoad]) -> _Need:
        need = sum((m.flow.m_as("L/min") for m in members), 0.0)
        given = sum((m.given.m_as("L/min") for m in members), 0.0)
        return _Need(
            max(need, given),
            sum((m.cdu.max_flow.m_as("L/min") for m in members), 0.0),
            max(members, key=lambda m: m.cdu.max_flow.m_as("L/min")),
            "L/min",
        )


MAX_COPIES = 20  # dclint's own bound: past it the fix is larger CDUs, not a row of copies


def _more_cdus(
    group: str, binding: _Need, heat: _Need, flow: _Need, taken: set[str]
) -> tuple[str, tuple[Change, ...]]:
    """The fix both findings of a group state and offer: copies of the CDU the binding finding
    names (its largest), as many as heat and flow both need with that one out. Unsafe."""
    template = binding.largest
    count = max(heat.copies(template.cdu), flow.copies(template.cdu))
    if count > MAX_COPIES:
        return f"add CDUs to the group ({count} copies of {template.cdu.id} would be needed)", ()
    ids = next_ids(template.cdu.id, taken, count)
    taken.update(ids)
    summary = (
        f"CDU group {group}: added {', '.join(ids)}, "
        f"{'a copy' if count == 1 else 'copies'} of {template.cdu.id} "
        f"({fmt(template.cdu.capacity, 'kW')}, {fmt(template.cdu.max_flow, 'L/min')}), for N+1"
    )
    fix = (
        f"add {'a CDU' if count == 1 else f'{count} CDUs'} like {template.cdu.id} to the group "
        f"({', '.join(ids)})"
    )
    return fix, (entry_copies_change(template.cdu, template.path[:-1], ids, summary),)


def _rest(members: list[CduLoad], largest: CduLoad, what: str) -> str:
    """What the group's other CDUs do with `largest` out ('the rest (cdu-b, cdu-c) give too
    little': what they give is the finding's limit), or that none is left."""
    if len(members) <= 1:
        return "no CDU is left"
    return f"the rest ({', '.join(m.cdu.id for m in members if m is not largest)}) {what}"
