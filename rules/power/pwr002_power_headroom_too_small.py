"""Three-phase power domain serving NVL72-class racks without 80 kW of headroom.

## What it does
For each three-phase panel or busway that serves NVL72-class racks (directly or through panels
below it), compares its derated capacity, sqrt(3) x V(line-line) x I x PF x maximum
utilisation, with the design IT load allocated to it: every rack it feeds, active and planned,
each once (a rack whose A and B feeds both land under it counts once, as in PWR008). Flags the
panel when less than `headroom` (default 80 kW) stays unallocated. With `per_rack = true` the
requirement is `headroom` for each planned NVL72-class rack it serves (at least one); the
planned racks still count at their full load: a planned rack draws power as soon as it is
installed, and the headroom is kept beyond it.

## Why it matters
The 80 kW is dclint's own default, from operators' practice of reserving at least 80 kW of
three-phase capacity for every GB200 NVL72 rack added (about two thirds of the rack's ~120 kW
design load, NVIDIA GB200 NVL72 documentation): a domain filled to its rating trips its
over-current protection when one more high-power system is plugged in beside it. Continuous
load is held to 80% of the breaker rating (NEC 210.20(A)). `per_rack` is off by default
(dclint's own default): one headroom a domain is the reserve for the next rack; turn it on
when several planned racks will be added one by one. A domain already loaded beyond its
rating is also an overload for PWR008, whatever racks it serves.

Sources: NVIDIA GB200 NVL72 documentation; NEC 210.20(A).

## Example
```yaml
power:
  panels:
    - id: busway-a
      voltage: 415 V
      current_rating: 1600 A   # PWR002: 874.1 kW derated, 840 kW allocated, 34.06 kW left
```

## Fix
Feed fewer racks from the domain, or give it a larger rating (e.g. 2000 A at 415 V).
Options: `PWR002 = { headroom = "80 kW", per_rack = true }`.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    Option,
    Power,
    Violation,
    panel_allocation,
    racks_below,
    rule,
    topology_of,
)
from dclint.units import fmt

from ._shared import PowerRule


@rule(
    "PWR002",
    "power-headroom-too-small",
    consequence="capacity",
    covers=("tia942.electrical",),
    needs=("panels",),
)
class PowerHeadroomTooSmall(PowerRule):
    shares = {"feed_headroom": "headroom"}
    options = {
        "headroom": Option("80 kW", Power, "Unallocated capacity to keep per domain"),
        "per_rack": Option(False, bool, "Require the headroom per planned NVL72-class rack"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        topo = topology_of(design)
        for panel in topo.panels.values():
            if panel.model.phases != 3 or panel.model.status != "active":
                continue
            racks = [r for r in racks_below(panel) if r.platform and r.platform.nvl72_class]
            if not racks:
                continue
            need = ctx["headroom"].to("kW")
            if ctx["per_rack"]:
                need = need * max(sum(r.status == "planned" for r in racks), 1)
            allocated = panel_allocation(topo, panel)
            left = (panel.capacity - allocated).to("kW")
            if left.m_as("kW") < need.m_as("kW"):
                kept = f"keeps {fmt(left)}" if left.magnitude >= 0 else f"is short by {fmt(-left)}"
                yield Violation(
                    (*panel.path, panel.capacity_field),
                    f"power domain {panel.id} {kept} unallocated "
                    f"({fmt(panel.capacity)} derated capacity, {fmt(allocated)} allocated), "
                    "less headroom than it needs",
                    subject=panel.id,
                    measured=left,
                    limit=need,
                    fix="move racks to another domain or raise the domain's rating",
                )
