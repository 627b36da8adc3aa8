"""Facility load above the utility capacity.

## What it does
The site's total IT load x PUE must not exceed `site.utility_capacity`. The IT load is every
rack (active and planned) and every other load the design declares: the fabrics' switches at
their catalog power (a design's `catalog` overrides it; a fabric with `switches_in_rack_load`
adds none, its racks hold them), fabric endpoints with a `power` and storage tiers with a
`node_power`; the message says what the total includes. CDU pumps and fans are facility load, in
the PUE. The PUE is `site.design_pue` where declared: the utility must carry the design day (the
site's ASHRAE 0.4% cooling condition), when chillers and dry coolers work hardest, not the
year's average `pue` (ISO/IEC 30134-2 defines PUE as an annual energy ratio). Each rack counts
at its peak: the catalog `max_power` of its platform (x nodes) where one is known, the design IT
load where that is higher, as PWR003 and PWR008 load feeds and panels. A rack (or rack type)
marked `power_capped: true`, and every rack with `design_load = true`, counts at its design IT
load instead; the message says which. A capacity written in VA (kVA, MVA) is apparent power: the
facility load in kW is divided by the site's `power_factor` (default 0.95) and compared in kVA,
and the message gives both. Exactly at the limit passes; a design without `utility_capacity` is
not checked.

A board or switchboard feeding panels whose breaker ratings add up to more than its own is not
flagged: feeders are sized on the calculated load (NEC Art. 215 and 220; IEC 60364 maximum
demand), and PWR008 checks that calculated load on every panel.

## Why it matters
Facility power is IT load x PUE (The Green Grid, "PUE: A Comprehensive Examination of the
Metric", White Paper 49): the cooling and distribution losses come out of the same utility
connection. Synchronous training drives every node to its peak together (Meta reports power
swings of tens of megawatts across a training cluster, "The Llama 3 Herd of Models", 2024), so
the utility sees the sum of the peaks: a GB200 NVL72 is designed at ~120 kW but its power
shelves deliver 132 kW (HPE, Supermicro). Utilities and transformers are rated in kVA: at PF
0.95, 990 kW of facility load is 1,042 kVA and overloads a 1 MVA connection that reads as
"1,000 kW" if VA is taken for W. The default PF 0.95 is the one Nautobot's power port model
uses to turn W into VA; declare the measured one.

Sources: The Green Grid, "PUE: A Comprehensive Examination of the Metric", White Paper 49;
Meta, "The Llama 3 Herd of Models", 2024; HPE and Supermicro GB200 NVL72 power shelf
specifications; Nautobot power port model.

## Example
```yaml
site: {utility_capacity: 1 MVA, pue: 1.1}   # PWR006: 900 kW x 1.1 = 990 kW = 1,042 kVA
racks:
  - {id: 'r[1-9]', it_load: 100 kW}
```

## Fix
Reduce the IT load, cap the racks' power (`power_capped: true`) where capping holds them to
their design load, or raise the utility contract (or correct the power factor you measured).
`PWR006 = { design_load = true }` counts every rack at its design IT load.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    Violation,
    is_apparent,
    it_total_kw,
    it_total_text,
    rule,
    topology_of,
)
from dclint.units import Q_, fmt

from ._shared import PowerRule, design_load, over


@rule(
    "PWR006",
    "site-capacity-exceeded",
    consequence="over-rating",
    covers=("tia942.electrical",),
    needs=("site_power",),
)
class SiteCapacityExceeded(PowerRule):
    options = {
        "design_load": design_load("the site"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        topo = topology_of(design)
        site = design.site
        utility = site.utility_capacity
        if utility is None or not topo.racks:
            return
        peak = not ctx["design_load"]
        it = Q_(it_total_kw(topo, peak), "kW")
        pue = site.sizing_pue[0]  # the design day's where declared
        label = f"design-day PUE {pue:g}" if site.design_pue is not None else f"PUE {pue:g}"
        facility = (it * pue).to("kW")
        what = it_total_text(topo, peak)
        found = f"site IT load {fmt(it)} {what} x {label} = {fmt(facility)}"
        if is_apparent(utility):  # VA: compare apparent power through the site's PF
            measured = Q_(facility.m_as("kW") / site.power_factor, "kVA")
            limit = utility.to("kVA")
            found += f", {fmt(measured)} at PF {site.power_factor:g},"
        else:
            measured, limit = facility, utility.to("kW")
        if not over(measured.magnitude, limit.magnitude):
            return
        yield Violation(
            ("site", "utility_capacity"),
            f"{found} exceeds the utility capacity",
            subject=site.name or design.name,
            measured=measured,
            limit=limit,
            fix="reduce the IT load, cap the racks' power, improve the PUE or the power "
            "factor, or raise the utility capacity",
        )
