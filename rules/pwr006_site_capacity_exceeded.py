"""Facility load above the utility capacity, or a panel feeding more capacity than it has.

## What it does
Two checks. (1) The site's total IT load (every rack, active and planned) x PUE must not exceed
`site.utility_capacity`. A capacity written in VA (kVA, MVA) is apparent power: the facility
load in kW is divided by the site's `power_factor` (default 0.95) and compared in kVA, and the
message gives both. (2) An upstream panel's derated capacity must be at least the derated
capacity of the panels it feeds (`fed_by`): those without a power path, plus the largest sum
over one path (the A and B panels of 2N racks are never both full), unless it is marked
`power_capped: true` (the downstream load is held by power capping). The load actually on
each panel, each rack once, is checked by PWR008. Exactly at the limit passes; a design without
`utility_capacity` skips the first check.

## Why it matters
Facility power is IT load x PUE (The Green Grid, "PUE: A Comprehensive Examination of the
Metric", White Paper 49): the cooling and distribution losses come out of the same utility
connection. A GB200 SuperPOD scalable unit of 8 NVL72 racks at ~120 kW each (NVIDIA GB200
NVL72 documentation) alone needs ~1.1 MW at PUE 1.15. Utilities and transformers are rated in
kVA: at PF 0.95, 990 kW of facility load is 1,042 kVA and overloads a 1 MVA connection that
reads as "1,000 kW" if VA is taken for W. The default PF 0.95 is the one Nautobot's power
port model uses to turn W into VA; declare the measured one. Downstream panels rated above
their upstream breaker trip it at full AI-training load, which is flat, with no diversity to
rely on; each breaker is held to 80% continuous (NEC 210.20(A)).

## Example
```yaml
site: {utility_capacity: 1 MVA, pue: 1.1}   # PWR006: 900 kW x 1.1 = 990 kW = 1,042 kVA
power:
  panels:
    - {id: main, voltage: 415 V, current_rating: 1000 A}  # PWR006: feeds 1,093 kW of panels
    - {id: p1, fed_by: main, voltage: 415 V, current_rating: 1000 A}
    - {id: p2, fed_by: main, voltage: 415 V, current_rating: 1000 A}
```

## Fix
Reduce the IT load or raise the utility contract (or correct the power factor you measured);
give the upstream panel a larger rating, feed fewer panels from it, or mark it
`power_capped: true` where capping enforces the limit.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from dclint.engine.rule import Context, Rule, Violation
from dclint.model.design import Design
from dclint.model.site import is_apparent
from dclint.model.topology import PanelItem
from dclint.units import Q_, fmt

_EPS = 1e-9


def children_capacity_kw(panel: PanelItem) -> float:
    """Derated capacity of the panels a panel feeds, in kW: those without a power path, plus
    the largest sum over one path. The A and B panels of 2N racks are never both full: either
    carries a rack's whole load only while the other is lost."""
    by_path: dict[str, float] = defaultdict(float)
    common = 0.0
    for child in panel.children:
        if child.model.path is None:
            common += child.capacity.m_as("kW")
        else:
            by_path[child.model.path] += child.capacity.m_as("kW")
    return common + max(by_path.values(), default=0.0)


class SiteCapacityExceeded(Rule):
    id = "PWR006"
    name = "site-capacity-exceeded"
    severity = "error"
    tags = ("power",)

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        topo = design.topology
        site = design.site
        utility = site.utility_capacity
        if utility is not None and topo.racks:
            it = topo.it_load.to("kW")
            facility = (it * site.pue).to("kW")
            found = f"site IT load {fmt(it)} x PUE {site.pue:g} = {fmt(facility)}"
            if is_apparent(utility):  # VA: compare apparent power through the site's PF
                measured = Q_(facility.m_as("kW") / site.power_factor, "kVA")
                limit = utility.to("kVA")
                found += f", {fmt(measured)} at PF {site.power_factor:g},"
            else:
                measured, limit = facility, utility.to("kW")
            if measured.magnitude > limit.magnitude * (1 + _EPS):
                yield Violation(
                    ("site", "utility_capacity"),
                    f"{found} exceeds the utility capacity {fmt(utility)}",
                    subject=site.name or design.name,
                    measured=measured,
                    limit=limit,
                    fix="reduce the IT load, improve the PUE or the power factor, or raise the "
                    "utility capacity",
                )
        for panel in topo.panels.values():
            if not panel.children or panel.model.power_capped:
                continue
            below = Q_(children_capacity_kw(panel), "kW")
            own = panel.capacity.to("kW")
            if below.m_as("kW") <= own.m_as("kW") * (1 + _EPS):
                continue
            names = ", ".join(c.id for c in panel.children)
            yield Violation(
                (*panel.path, panel.capacity_field),
                f"panel {panel.id} feeds {fmt(below)} of derated panel capacity ({names}), "
                f"above its own derated capacity {fmt(own)}",
                subject=panel.id,
                measured=below,
                limit=own,
                fix="raise the panel's rating, feed fewer panels from it, or mark it "
                "power_capped where capping holds the load",
            )
