"""Outdoor heat-rejection fluid that freezes above the site's minimum temperature.

## What it does
For each set in `cooling.heat_rejection` whose fluid runs outdoors (`outdoor`; default yes for
dry coolers and cooling towers, no for chillers), takes the freezing point of its `coolant`:
0 degC for water, and for propylene glycol at its `glycol_share` by mass (or by volume, with
`glycol_share_basis: volume`) the figure of ASHRAE Handbook - Fundamentals, chapter 31, Table 5,
"Freezing and Boiling Points of Aqueous Solutions of Propylene Glycol", as Dow's DOWFROST guide
also gives it: by mass 20%: -7.1 degC, 25%: -9.6, 30%: -12.7, 35%: -16.4, 40%: -21.1, 50%:
-33.5 degC; the tables' volume column puts those solutions at 19.4, 24.4, 29.4, 34.4, 39.6 and
49.9% by volume; linear between the points. Flags the set when that freezing point is not at
least `margin` (default 3 K) below `site.min_temperature`. Sites that declare no minimum
temperature are not checked.

## Why it matters
A dry cooler's coils hold the facility water outdoors; on the coldest night, with the load
down or a pump stopped, plain water freezes and bursts the tubes, and the plant is lost for
weeks. Glycol makers (e.g. Dow's DOWFROST engineering data) and ASHRAE recommend a freeze point
a few kelvin below the lowest expected ambient; the default margin, 3 K (about 5 degF), is
dclint's own default after that practice, and configurable. Glycol costs heat capacity (PG25's
cp is 3.92 against water's 4.18 kJ/(kg K)), so the share should be enough, not more.

Sources: Dow, DOWFROST engineering data.

## Example
```yaml
site: {min_temperature: -18 degC}
cooling:
  heat_rejection:
    - {id: dc, kind: dry_cooler, capacity: 600 kW, coolant: propylene_glycol,
       glycol_share: 25%}   # CLG013: freezes at -9.6 degC, the site reaches -18 degC
```

## Fix
Raise the glycol share (40% freezes at -21.1 degC), or keep the outdoor circuit on its own
glycol loop behind a heat exchanger, with heat tracing and drain-down where the climate needs it.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    PG_FREEZING_POINTS,
    Context,
    Design,
    Option,
    TemperatureDelta,
    Violation,
    fmt,
    freezing_point,
    rule,
    topology_of,
)
from dclint.units import Q_

from ._shared import CoolingRule

_EPS = 1e-9


def _share_for(limit: float) -> str:
    """The least tabulated glycol share that freezes at or below `limit` degC."""
    share = next((s for s, t in PG_FREEZING_POINTS if t <= limit + _EPS), None)
    if share is None:
        return "a separate glycol loop or drain-down (even 60% glycol freezes at -51.1 degC)"
    return (
        f"{share:.0%} propylene glycol by mass ({freezing_point('propylene_glycol', share):g} degC)"
    )


@rule("CLG013", "loop-freeze-risk", covers=("ashrae.climate",), needs=("heat_rejection",))
class LoopFreezeRisk(CoolingRule):
    options = {
        "margin": Option(
            "3 K", TemperatureDelta, "How far below the minimum temperature the fluid must freeze"
        ),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        low = design.site.min_temperature
        if low is None:
            return
        margin = ctx["margin"].m_as("K")
        floor = float(low.m_as("degC"))
        topology_of(design)  # references resolved (serves), as every rule sees them
        for i, unit in enumerate(design.cooling.heat_rejection):
            outdoor = unit.outdoor if unit.outdoor is not None else unit.kind != "chiller"
            if not outdoor:
                continue
            share = None if unit.glycol_share is None else float(unit.glycol_share.m_as(""))
            basis = unit.glycol_share_basis
            freeze = freezing_point(unit.coolant, share, basis)
            if freeze <= floor - margin + _EPS:
                continue
            fluid = (
                f"{share * 100:.3g}% propylene glycol by {basis}"
                if unit.coolant == "propylene_glycol" and share
                else "water"
            )
            field = "glycol_share" if unit.coolant == "propylene_glycol" else "coolant"
            yield Violation(
                ("cooling", "heat_rejection", i, field),
                f"{unit.kind.replace('_', ' ')} set {unit.id}'s outdoor fluid ({fluid}) freezes "
                f"at {freeze:.3g} degC, not {margin:g} K below the site's minimum "
                f"{fmt(low, 'degC')} (freezing points: ASHRAE Handbook - Fundamentals, ch. 31, "
                "Table 5)",
                subject=unit.id,
                measured=Q_(freeze, "degC"),
                limit=Q_(floor - margin, "degC"),
                fix=f"use {_share_for(floor - margin)}, or a separate glycol loop behind a heat "
                "exchanger with heat tracing or drain-down",
            )
