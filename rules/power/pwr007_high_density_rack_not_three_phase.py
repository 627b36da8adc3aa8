"""High-density rack fed by single-phase power.

## What it does
Flags a rack whose design IT load is above `threshold` (default 20 kW) and that has one or
more single-phase feeds (`phases: 1`). Exactly at the threshold passes; racks without feeds
are not checked.

## Why it matters
Single-phase whips carry little power: a 230 V / 32 A feed at PF 0.95 and 80% continuous
(NEC 210.20(A)) delivers 5.6 kW, so a high-density rack needs many of them, and they load one
line of the panel (PWR005). Three-phase power is P = sqrt(3) x V(L-L) x I x PF: at the same
current a 415 V three-phase feed carries 3.1 times a 230 V single-phase one, and a 415 V / 63 A
feed gives 34.4 kW. The 20 kW threshold is dclint's own default: above it a rack needs four or
more 230 V / 32 A whips a path, where one three-phase feed would do; a GB200 NVL72 rack is
~120 kW (NVIDIA GB200 NVL72 documentation).

Sources: NEC 210.20(A); NVIDIA GB200 NVL72 documentation.

## Example
```yaml
racks:
  - id: r01
    platform: hgx-h100
    nodes: 3          # 25.5 kW
    feeds: [s1, s2]   # PWR007: single-phase feeds
```

## Fix
Feed the rack from three-phase feeds (e.g. 415 V / 63 A), or spread the load over more racks.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, Option, Power, Violation, rule, topology_of
from dclint.units import fmt

from ._shared import PowerRule, over


@rule(
    "PWR007",
    "high-density-rack-not-three-phase",
    severity="warning",
    consequence="over-rating",
    covers=("ocp.rack-power",),
    needs=("racks",),
)
class HighDensityRackNotThreePhase(PowerRule):
    options = {
        "threshold": Option("20 kW", Power, "IT load above which a rack must be three-phase"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        threshold = ctx["threshold"].to("kW")
        for rack in topology_of(design).racks:
            single = list(dict.fromkeys(f.id for f in rack.feeds if f.model.phases == 1))
            if not single or not over(rack.it_load.m_as("kW"), threshold.m_as("kW")):
                continue
            yield Violation(
                (*rack.path, "feeds"),
                f"rack {rack.id} draws {fmt(rack.it_load, 'kW')}, above the three-phase threshold, "
                "from "
                f"single-phase feed{'s' if len(single) > 1 else ''} {', '.join(single)}",
                subject=rack.id,
                measured=rack.it_load.to("kW"),
                limit=threshold,
                fix="feed the rack from three-phase feeds, or spread its load over more racks",
            )
