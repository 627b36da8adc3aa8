"""Cable runs longer than their medium reaches at the link speed.

## What it does
For each counted tier of a fabric that declares `cable_length` (the longest run of its
downlinks, from the hall layout or the cable plan), takes the tier's medium (`cable`, else the
fabric's `cabling.optics`) and its link speed (`link_speed`, else the switch's port speed) and
holds the length against the medium's reach: passive copper (`dac`) `dac_reach_400g` at up to
400 Gb/s (default 3 m) and `dac_reach_800g` above (2 m); optical transceivers by the tier's
`optics` class, `optics_reach` (sr 50 m, dr 500 m, fr 2 km). Active copper, active optical
cables and transceivers with no `optics` class are not checked.

## Why it matters
A link past its medium's reach does not train up, or runs with errors that stall a
collective for the whole job: passive copper carries 400G and 800G only 2-3 m, inside a rack
or to the next one, and multimode SR optics about 50 m on OM4 fibre, less than a row to a
distant spine. The defaults are NVIDIA LinkX product figures: DAC at 400/800G about 2-3 m,
400G SR4 multimode 50 m on OM4, single-mode DR 500 m and FR 2 km.

Sources: NVIDIA LinkX cables and transceivers product documentation.

## Example
```yaml
fabrics:
  - id: compute
    kind: compute
    tiers:
      - {name: leaf, switch: qm9700, count: 8, downlinks: 32, uplinks: 32,
         cable: dac, cable_length: 5 m}    # NET012: passive copper reaches 3 m at 400 Gb/s
```

## Fix
Use active copper or optics for runs past the reach (an `aoc`, or transceivers of a longer
class: `dr` instead of `sr`), or place the racks closer to their switches.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, Length, Option, Violation, rule, topology_of
from dclint.units import Q_, fmt

from ._shared import CablingRule


@rule("NET012", "cable-reach-exceeded", consequence="cannot-run")
class CableReachExceeded(CablingRule):
    options = {
        "dac_reach_400g": Option("3 m", Length, "Reach of passive copper at up to 400 Gb/s"),
        "dac_reach_800g": Option("2 m", Length, "Reach of passive copper above 400 Gb/s"),
        "optics_reach": Option(
            {"sr": "50 m", "dr": "500 m", "fr": "2 km"},
            dict[str, Length],
            "Reach of transceivers by the tier's optics class",
        ),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        switches = topology_of(design).catalog.switches
        for f, fabric in enumerate(design.fabrics):
            optical = fabric.cabling.optics if fabric.cabling is not None else None
            for k, tier in enumerate(fabric.tiers):
                length = tier.cable_length
                medium = tier.cable or optical
                if length is None or medium is None:
                    continue
                model = switches.get(tier.switch)
                speed = tier.link_speed or (model.port_speed if model is not None else None)
                if medium == "dac":
                    if speed is None:
                        continue
                    fast = speed.m_as("Gb/s") > 400 * (1 + 1e-9)
                    reach = ctx["dac_reach_800g" if fast else "dac_reach_400g"]
                    what = f"passive copper (dac) at {fmt(speed.to('Gb/s'))}"
                elif medium == "transceiver" and tier.optics is not None:
                    reach = ctx["optics_reach"].get(tier.optics)
                    if reach is None:
                        continue
                    what = f"{tier.optics} transceivers"
                else:
                    continue
                if length.m_as("m") <= reach.m_as("m") * (1 + 1e-9):
                    continue
                yield Violation(
                    ("fabrics", f, "tiers", k, "cable_length"),
                    f"fabric {fabric.id} tier {tier.name} runs its downlinks up to "
                    f"{fmt(length.to('m'))} on {what}, beyond its reach",
                    subject=f"{fabric.id}.{tier.name}",
                    measured=length.to("m"),
                    limit=Q_(reach.m_as("m"), "m"),
                    fix="use active copper or longer-reach optics past the reach, or place the "
                    "racks closer to their switches",
                )
