"""Rack heavier over its footprint than the floor it stands on is rated for.

## What it does
Where the design declares a floor rating (`floor_rating` on the rack's hall, else on the site;
a uniformly distributed load in kN/m^2, kPa, kg/m^2 or lbf/ft^2), divides each rack's weight by
its footprint and flags the rack when that is above the rating. A rack's weight is its own
`weight`, else its platform's catalog weight (x nodes for node platforms; a GB200 NVL72 weighs
1.36 t, NVIDIA at GTC 2024); its footprint is its own `footprint`, else `footprint` (default
0.72 m^2, a 600 mm x 1,200 mm cabinet, dclint's own default: the common width and the deep
cabinet AI racks use). Racks whose weight is unknown are not checked. Exactly at the rating
passes.

## Why it matters
A liquid-cooled rack-scale system concentrates more than a tonne on a cabinet's footprint: a
GB200 NVL72 at 1.36 t on 0.72 m^2 is 1,889 kg/m^2 (18.52 kN/m^2), while TIA-942 asks a
computer room's floor to carry at least 7.2 kPa (150 lbf/ft^2) distributed and recommends
12 kPa (250 lbf/ft^2). A floor loaded past its rating deflects or fails, and
raised-floor pedestals and tiles are rated per point and per area too. Structural engineers
spread such racks on load-spreading plinths or place them on slab.

Sources: TIA-942, Telecommunications Infrastructure Standard for Data Centers; NVIDIA, GB200
NVL72 at GTC 2024.

## Example
```yaml
site:
  halls:
    h1: {floor_rating: 12 kN/m^2}
racks:
  - {id: 'r[1-8]', platform: gb200-nvl72, hall: h1}   # STR001: 18.52 kN/m^2
```

## Fix
Put the racks on slab or on load-spreading plinths (declare the larger `footprint` they
spread over), reinforce the floor and declare its new rating, or use lighter racks.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Area, Context, Design, Option, Rule, Violation, rule, topology_of
from dclint.units import Q_, Quantity, fmt

_EPS = 1e-9
_G = 9.80665  # standard gravity, m/s^2 (kg/m^2 -> N/m^2)


@rule(
    "STR001",
    "floor-load-exceeded",
    tags=("structure",),
    consequence="over-rating",
    covers=("tia942.floor",),
    needs=("floor_rating",),
)
class FloorLoadExceeded(Rule):
    options = {
        "footprint": Option(
            "0.72 m^2",
            Area,
            "Floor area of a rack that declares none (dclint's own default: 600 x 1,200 mm)",
        ),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        site = design.site
        default = ctx["footprint"]
        for rack in topology_of(design).racks:
            hall = site.halls.get(rack.hall or "")
            rating, where = site.floor_rating, "the site's"
            if hall is not None and hall.floor_rating is not None:
                rating, where = hall.floor_rating, f"hall {rack.hall}'s"
            if rating is None or rack.weight is None:
                continue
            area = rack.footprint if rack.footprint is not None else default
            per_area = Q_(float(rack.weight.m_as("kg")) / float(area.m_as("m^2")), "kg/m^2")
            pressure = Q_(per_area.m_as("kg/m^2") * _G / 1000.0, "kN/m^2")
            measured = (per_area if _mass_per_area(rating) else pressure).to(rating.units)
            if measured.magnitude <= float(rating.magnitude) * (1 + _EPS):
                continue
            note = "" if rack.footprint is not None else " (no footprint declared: the default)"
            yield Violation(
                rack.field_path("weight"),
                f"rack {rack.id} puts {fmt(rack.weight, 'kg')} on {fmt(area, 'm^2')}{note}: "
                f"{fmt(pressure)} ({fmt(per_area)}), above {where} floor rating",
                subject=rack.id,
                measured=measured,
                limit=rating,
                fix="put the rack on slab or a load-spreading plinth (declare the footprint it "
                "spreads over), reinforce the floor and declare its rating, or use lighter racks",
            )


def _mass_per_area(q: Quantity) -> bool:
    """A rating written as mass per area (kg/m^2), not as a pressure (kN/m^2)."""
    return bool(q.check("[mass]/[length]**2"))
