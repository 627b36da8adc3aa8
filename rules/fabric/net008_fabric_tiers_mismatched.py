"""Counted fabric tier that sends up more or fewer links than the tier above takes down.

## What it does
In the counted form (`tiers`), every link a tier sends up lands on a downlink port of the
tier above, so `count x uplinks` of a tier must equal `count x downlinks` of the next one.
Flags each pair of adjacent tiers where they differ, at the lower tier's `uplinks`, with both
figures. Applies to every fabric kind (the wiring is impossible whatever the fabric carries).
The explicit form (`switches`, `links`) lists each link once and cannot disagree with itself.
The top tier's uplinks, if declared, leave the fabric and are not reconciled.

## Why it matters
A count that does not reconcile cannot be cabled as drawn. 16 leaves x 32 uplinks (512
links) under 4 spines x 32 downlinks (128 ports) leaves 384 uplinks with no port: the fabric
built is 4:1 at best, not the 1:1 the leaf tier declares (NET001 measures the capacity that
binds). The other way round, downlink ports that no tier below feeds inflate the bill of
materials and the upper tier's ratio. In a fat tree every link joins one port of each tier
(Al-Fares et al., "A scalable, commodity data center network architecture", SIGCOMM 2008);
NVIDIA's DGX SuperPOD reference architectures list leaf uplinks and spine downlinks that
match one for one.

Sources: Al-Fares et al., "A scalable, commodity data center network architecture", SIGCOMM
2008; NVIDIA DGX SuperPOD reference architectures.

## Example
```yaml
tiers:
  - {name: leaf, switch: qm9700, count: 16, downlinks: 32, uplinks: 32}  # NET008: 512 up
  - {name: spine, switch: qm9700, count: 4, downlinks: 32}                # 128 down
```

## Fix
Make the counts agree: add spine switches or spine downlinks (here 16 spines x 32, or 8 x 64),
or reduce the leaf uplinks and accept the ratio NET001 then reports.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, Violation, rule, tier_links

from ._shared import FabricRule


@rule("NET008", "fabric-tiers-mismatched", consequence="cannot-run")
class FabricTiersMismatched(FabricRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for f, fabric in enumerate(design.fabrics):
            for pair in tier_links(fabric):
                if pair.sent == pair.taken:
                    continue
                low, high = fabric.tiers[pair.lower], fabric.tiers[pair.lower + 1]
                if pair.sent > pair.taken:
                    gap = f"{pair.sent - pair.taken:,} uplinks have no port"
                else:
                    gap = f"{pair.taken - pair.sent:,} downlinks have no link"
                yield Violation(
                    ("fabrics", f, "tiers", pair.lower, "uplinks"),
                    f"fabric {fabric.id}: tier {low.name} sends {pair.sent:,} uplinks "
                    f"({low.count:,} switches x {low.uplinks}) but tier {high.name} takes "
                    f"{high.count:,} switches x {high.downlinks} downlinks; {gap}",
                    subject=f"{fabric.id}.{low.name}",
                    measured=float(pair.sent),
                    limit=float(pair.taken),
                    fix=f"make {low.name} count x uplinks equal {high.name} count x downlinks",
                )
