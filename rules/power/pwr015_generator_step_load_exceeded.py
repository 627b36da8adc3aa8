"""Generator set that cannot accept the load step of a synchronous training job's power swings.

## What it does
Where `power.load_swing` is declared (the share of the racks' load a synchronous training job
drops and restores within a second), takes for each generator set the racks it carries (below
the element it `serves`, the whole site without one) at their peak (catalog `max_power`;
`power_capped` racks, or `design_load = true`, at the design IT load) x `load_swing` x (1 -
`power.swing_smoothing`, the share the racks' own energy storage absorbs). Flags the set when
that step is above what its working units accept at once: `(count - redundant)` x site rating
x `step_load` (ISO 8528-5 load acceptance, the maker's declared first step; where a set declares
none, `default_step`, 35%, dclint's own default for large turbocharged sets and gas engines,
which accept a third or less of their rating in one step). Exactly at the limit passes.

## Why it matters
Training is synchronous: thousands of GPUs go from compute to communication together, and the
cluster's draw swings by a large share of its peak within a second, over and over
(Choukse et al., "Power Stabilization for AI Training Datacenters", 2025; Meta reports swings
of tens of megawatts in "The Llama 3 Herd of Models", 2024). On utility power the grid absorbs
it; on generators each rise is a load step. ISO 8528-5 classes a set by the frequency and
voltage dip it holds for a step, and makers declare the first step a set accepts (a diesel
50-100%, a large gas engine 10-35%); beyond it frequency sags, UPS rectifiers drop to battery
and the set may trip. NVIDIA's GB300 NVL72 adds power smoothing (energy storage and ramp
limits in the power shelves) for this.

Sources: Choukse et al., "Power Stabilization for AI Training Datacenters", 2025; Meta, "The
Llama 3 Herd of Models", 2024; ISO 8528-5.

## Example
```yaml
power:
  load_swing: 50%          # PWR015: 528 kW step, 480 kW accepted
  generators:
    - {id: gen, site_rating: 2000 kW, count: 3, redundant: 1, step_load: 12%}
```

## Fix
Declare and use platform power smoothing (`swing_smoothing`), add load banks or battery energy
storage that fill the troughs, choose sets with a larger first step, or add sets.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    Option,
    Share,
    Violation,
    fmt,
    rack_load_kw,
    racks_below,
    rating_kw,
    rule,
    topology_of,
)
from dclint.units import Q_

from ._shared import PowerRule, over


@rule(
    "PWR015",
    "generator-step-load-exceeded",
    consequence="single-failure",
    covers=("iso8528.acceptance",),
)
class GeneratorStepLoadExceeded(PowerRule):
    options = {
        "default_step": Option(
            "35%", Share, "First load step a set accepts where it declares no step_load"
        ),
        "design_load": Option(False, bool, "Swing the design IT load, not the catalog max_power"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        power = design.power
        if power.load_swing is None or not power.generators:
            return
        topo = topology_of(design)
        peak = not ctx["design_load"]
        swing = float(power.load_swing.m_as(""))
        kept = 1.0 - (float(power.swing_smoothing.m_as("")) if power.swing_smoothing else 0.0)
        for gen, path in topo.generators:
            element = topo.panels.get(gen.serves or "") or topo.chain.get(gen.serves or "")
            racks = topo.racks if element is None else racks_below(element)
            load = sum(rack_load_kw(r, peak) for r in racks)
            step_kw = load * swing * kept
            share = gen.step_load if gen.step_load is not None else ctx["default_step"]
            working = max(gen.count - gen.redundant, 0)
            unit = rating_kw(gen.site_rating, gen.power_factor)
            accept = working * unit * float(share.m_as(""))
            if not over(step_kw, accept):
                continue
            smooth = (
                f" x (1 - {fmt(power.swing_smoothing, 'percent')} smoothing)"
                if power.swing_smoothing
                else ""
            )
            basis = "peak" if peak else "design IT load"
            whose = "declared step_load" if gen.step_load is not None else "default_step"
            yield Violation(
                (*path, "step_load" if gen.step_load is not None else "site_rating"),
                f"generator set {gen.id} sees a {fmt(Q_(step_kw, 'kW'))} load step: "
                f"{len(racks)} racks' {fmt(Q_(load, 'kW'))} ({basis})"
                f" x {fmt(power.load_swing, 'percent')} training swing{smooth}, above what "
                f"its {working} working sets accept at once "
                f"({fmt(Q_(unit, 'kW'))} each x {fmt(share, 'percent')} first step, {whose}, "
                "ISO 8528-5)",
                subject=gen.id,
                measured=Q_(step_kw, "kW"),
                limit=Q_(accept, "kW"),
                fix="use platform power smoothing, add load banks or battery storage that fill "
                "the troughs, choose sets with a larger first step, or add sets",
            )
