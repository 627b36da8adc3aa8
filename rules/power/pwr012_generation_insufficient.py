"""Generator set that cannot carry the facility load with its spare generators out.

## What it does
For every generator set in `power.generators`, takes the facility load it must carry: the IT
load below the element it `serves` (without one, the whole site: every rack and every other load
the design declares, switches among them, as PWR006 counts it), each rack at its peak (catalog
`max_power`; `power_capped` racks, or `design_load = true`, at the design IT load), x the site's
PUE, because the generators carry the cooling and the losses too: its design-day PUE
(`site.design_pue`, the ASHRAE 0.4% cooling condition) where declared, else `pue`. Flags the set
when that load exceeds its firm output, `count - redundant` x its ISO 8528-1 `site_rating` (a
kVA rating x the set's power factor, 0.8 by ISO 8528's convention). Where `site.uptime_tier` is
III or IV, also flags a set without a spare generator (N+1), and a set rated `standby`. Exactly
at the firm output passes.

## Why it matters
A generator's nameplate is for standard reference conditions (ISO 8528-1, ISO 3046-1: 25 degC,
100 kPa); hot or high sites derate it, which is why the site rating is what counts. On utility
loss the generators carry the whole facility, IT x PUE (The Green Grid, White Paper 49). Uptime
Institute's Tier Standard: Topology asks for N+1 engine generators from Tier III, rated to run
without a limit on hours at the design load (prime, continuous or data-center continuous): a
standby (ESP) rating is limited in hours a year and does not qualify.

Sources: ISO 8528-1; ISO 3046-1; The Green Grid, "PUE: A Comprehensive Examination of the
Metric", White Paper 49; Uptime Institute, Tier Standard: Topology.

## Example
```yaml
site: {pue: 1.2, uptime_tier: III}
power:
  generators:
    - {id: gen, site_rating: 1000 kW, count: 2, redundant: 1}  # PWR012: 1,267 kW of 1,000
```

## Fix
Add a generator (or use larger sets at the site's conditions), keep one spare, or choose a
prime/continuous rating. `PWR012 = { design_load = true }` loads the sets with the design IT load.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    Violation,
    generation_loads,
    it_total_text,
    rule,
    topology_of,
)
from dclint.units import Q_, fmt

from ._shared import PowerRedundancyRule, design_load, over, overloaded


@rule(
    "PWR012",
    "generation-insufficient",
    consequence="single-failure",
    covers=("tia942.electrical", "uptime.power-redundancy"),
)
class GenerationInsufficient(PowerRedundancyRule):
    options = {
        "design_load": design_load("generators"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        topo = topology_of(design)
        peak = not ctx["design_load"]
        tier = design.site.uptime_tier
        pue = design.site.sizing_pue[0]  # the design day's where declared
        label = "design-day PUE" if design.site.design_pue is not None else "PUE"
        for gl in generation_loads(topo, peak):
            gen = gl.generator
            basis = "peak" if peak else "design IT load"
            where = f"on {gl.serves}" if gen.serves is None else f"below {gl.serves}"
            if gen.serves is None:  # the whole site: racks and every other declared load
                where += f" {it_total_text(topo, peak)}"
            if over(gl.load_kw, gl.firm_kw):
                yield overloaded(
                    (*gl.path, "site_rating"),
                    f"generator set {gen.id} must carry {fmt(Q_(gl.it_kw, 'kW'))} of IT load "
                    f"({basis}) {where} x {label} {pue:g} = {fmt(Q_(gl.load_kw, 'kW'))}, "
                    f"above its firm output ({gen.count - gen.redundant} of "
                    f"{gen.count} sets at {fmt(gen.site_rating)} site rating, {gen.redundant} "
                    "spare)",
                    gen.id,
                    gl.load_kw,
                    gl.firm_kw,
                    "add generators or use larger sets at the site's conditions",
                )
            if tier not in ("III", "IV"):
                continue
            if gen.redundant < 1:
                yield Violation(
                    (*gl.path, "redundant"),
                    f"generator set {gen.id} has no spare generator: Tier {tier} asks for N+1",
                    subject=gen.id,
                    measured=float(gen.redundant),
                    limit=1.0,
                    fix="add a spare generator (redundant: 1)",
                )
            if gen.rating_class == "standby":
                yield Violation(
                    (*gl.path, "rating_class"),
                    f"generator set {gen.id} is rated standby (ISO 8528-1 ESP, limited hours): "
                    f"Tier {tier} needs a rating without a limit on hours at the design load",
                    subject=gen.id,
                    measured="standby",
                    limit="prime, continuous or data_center_continuous",
                    fix="use the set's prime, continuous or data-center continuous rating",
                )
