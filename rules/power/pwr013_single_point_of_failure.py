"""Rack whose whole supply is lost to the failure of one element, however its feeds are labelled.

## What it does
Plays the loss of every single element of the supply, each on its own: every feed, panel,
busway, switchboard, UPS and transformer (a UPS that a catcher UPS backs up with `catches` is
ridden through, and the utility is backed by the generators, PWR012). A rack loses all its
supply to an element when every one of its feeds is that element or is fed from it through
`fed_by`. Flags such a rack when it claims redundancy (two or more feeds), or, where
`site.uptime_tier` is III or IV, any rack: Tier III (concurrently maintainable) and Tier IV (fault
tolerant) both need every rack to keep a supply with any one element out. Racks written by one
`racks` entry that lose their supply to the same elements make one finding, which names them.
That the survivors then carry the load within their capacity is what PWR003/PWR004 (feeds),
PWR008 (panels), PWR009 (UPS) and PWR011 (transformers) check, each path loaded with the whole
rack.

## Why it matters
A and B whips from one panel are not 2N: the panel's main breaker, its busbar or its one
upstream UPS takes both. Uptime Institute's Tier Standard: Topology defines Tier III as
concurrently maintainable (every capacity component and distribution path can be removed for
maintenance without affecting the IT) and Tier IV as fault tolerant (a single failure of any
component or path does not affect the IT); TIA-942-B Rated 3/4 and EN 50600 Availability
Classes 3/4 say the same. DCIM tools (NetBox, Nautobot) record the A/B labels and never check
that the paths part.

Sources: Uptime Institute, Tier Standard: Topology; TIA-942-B; EN 50600.

## Example
```yaml
power:
  panels:
    - {id: pdu-1, voltage: 415 V, current_rating: 800 A}
  feeds:
    - {id: a1, panel: pdu-1, voltage: 415 V, current_rating: 250 A, path: A}
    - {id: b1, panel: pdu-1, voltage: 415 V, current_rating: 250 A, path: B}
racks:
  - {id: r1, it_load: 120 kW, feeds: [a1, b1]}   # PWR013: both feeds from pdu-1
```

## Fix
Feed the rack's paths from separate panels, UPS systems and transformers up to the point where
the generators and the utility back them up; add a catcher UPS (`catches`) for a block-redundant
scheme.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from dclint.api import Context, Design, Rack, Violation, failure_cases, rule, topology_of
from dclint.api import DesignPath as Path

from .._text import first_ids
from ._shared import PowerRedundancyRule


@rule(
    "PWR013",
    "single-point-of-failure",
    consequence="single-failure",
    covers=("uptime.power-redundancy",),
)
class SinglePointOfFailure(PowerRedundancyRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        topo = topology_of(design)
        tier = design.site.uptime_tier
        strict = tier in ("III", "IV")
        by_rack: dict[str, list[str]] = defaultdict(list)
        for case in failure_cases(topo):
            for rid in case.racks_lost:
                by_rack[rid].append(f"{case.kind} {case.element}")
        groups: dict[tuple[Path, tuple[str, ...]], list[Rack]] = defaultdict(list)
        for rack in topo.racks:
            spof = by_rack.get(rack.id)
            if not spof or not (strict or len(rack.feeds) >= 2):
                continue
            groups[(rack.path, tuple(spof))].append(rack)
        for (path, elements), racks in groups.items():
            ids = [r.id for r in racks]
            first = racks[0]
            paths = sorted({f.model.path for f in first.feeds if f.model.path})
            label = f" (labelled {'/'.join(paths)})" if len(paths) > 1 else ""
            kind = "concurrently maintainable" if tier == "III" else "fault tolerant"
            need = (
                f"; Tier {tier} ({kind}) needs a supply left with any one element out"
                if strict
                else ""
            )
            many = len(ids) > 1
            which = (
                f"any one of {', '.join(elements)}" if len(elements) > 1 else f"{elements[0]} alone"
            )
            yield Violation(
                (*path, "feeds"),
                f"{'racks' if many else 'rack'} {first_ids(ids)} {'lose' if many else 'loses'} all "
                f"supply to the failure of {which}: no feed of {'theirs' if many else 'its'}"
                f"{label} bypasses it{need}",
                subject=first.id,
                measured=float(len(elements)),
                limit=0.0,
                fix="feed the rack's paths from separate panels, UPS systems and transformers, "
                "or add a catcher UPS",
            )
