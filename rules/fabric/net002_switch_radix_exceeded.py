"""Switch that uses more ports than it has at the declared link speed.

## What it does
Counts the ports each switch uses and compares them with the ports its catalog model offers at
the link speed. Parametric tiers use `downlinks + uplinks` per switch at the tier's
`link_speed` (default: the switch's port speed). Explicit switches add up the links that land
on them (to racks, switches and endpoint nodes: storage, management and gateway nodes
declared with an `id` in `endpoints`), each link taking the share of a physical port its
speed needs: a 64 x 400 Gb/s QM9700 split to 200 Gb/s offers 128 ports (`split_speeds` in
the catalog), so 128 links of 200 Gb/s fit and 65 of 400 Gb/s do not. Speeds a switch
cannot run at all are NET003's.

## Why it matters
A tier that needs more ports than its switches have cannot be cabled as drawn: the missing
ports become missing uplinks (oversubscription) or missing GPUs. Port counts come from the
vendors' datasheets (NVIDIA Quantum-2 QM9700: 64 x 400 Gb/s NDR ports, 128 x 200 Gb/s
split).

Sources: NVIDIA Quantum-2 QM9700 datasheet.

## Example
```yaml
tiers:
  - name: leaf
    switch: qm9700      # 64 x 400 Gb/s
    count: 16
    downlinks: 40
    uplinks: 32         # NET002: 72 of 64 ports
```

## Fix
Use more switches with fewer ports each in use, a higher-radix model (Quantum-X800 Q3400:
144 x 800 Gb/s), or split the ports to a lower speed where the NICs run at it.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    Violation,
    fabric_graph,
    port_share,
    ports_at,
    rule,
    topology_of,
)
from dclint.units import fmt

from ._shared import FabricRule

_FIX = "use more switches, a higher-radix switch, or split ports to a lower speed"


@rule("NET002", "switch-radix-exceeded", consequence="over-rating")
class SwitchRadixExceeded(FabricRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        models = topology_of(design).catalog.switches
        for f, fabric in enumerate(design.fabrics):
            for t, tier in enumerate(fabric.tiers):
                model = models.get(tier.switch)
                if model is None:
                    continue
                speed = tier.link_speed or model.port_speed
                have = ports_at(model, speed)
                used = tier.downlinks + tier.uplinks
                if have is None or used <= have:
                    continue
                field = "uplinks" if tier.uplinks else "downlinks"
                yield Violation(
                    ("fabrics", f, "tiers", t, field),
                    f"fabric {fabric.id} tier {tier.name}: each {tier.switch} uses {used} ports "
                    f"({tier.downlinks} down + {tier.uplinks} up) at {fmt(speed, 'Gb/s')}, "
                    "more than it has at that speed",
                    subject=f"{fabric.id}.{tier.name}",
                    measured=float(used),
                    limit=float(have),
                    fix=_FIX,
                )
            if fabric.switches:
                yield from _explicit(design, f)


def _explicit(design: Design, f: int) -> Iterator[Violation]:
    fabric = design.fabrics[f]
    models = topology_of(design).catalog.switches
    fg = fabric_graph(design, f)
    over: dict[int, list[tuple[float, str, str]]] = {}  # entry -> (ports used, id, text)
    for sid, (key, _, entry) in fg.switches.items():
        model = models.get(key)
        if model is None:
            continue
        ends = fg.incident(sid)
        # Physical ports used; a link at a speed the switch cannot run takes a whole port.
        used = sum(e.count * (port_share(model, e.speed) or 1.0) for e in ends)
        if used <= model.ports + 1e-9:
            continue
        speeds = {fmt(e.speed, "Gb/s"): e.speed for e in ends}
        links = sum(e.count for e in ends)
        have = ports_at(model, next(iter(speeds.values()))) if len(speeds) == 1 else None
        if have is not None:
            text = f"uses {links} links at {next(iter(speeds))}, more than its ports at that speed"
        else:
            text = (
                f"uses {used:g} ports' worth of links ({', '.join(sorted(speeds))}) but has "
                f"{model.ports} x {fmt(model.port_speed, 'Gb/s')} ports"
            )
        over.setdefault(entry, []).append((used, sid, text))
    for entry, hits in sorted(over.items()):
        used, sid, text = max(hits)
        key = fabric.switches[entry].model
        others = f"; {len(hits)} switches of this entry are over" if len(hits) > 1 else ""
        yield Violation(
            ("fabrics", f, "switches", entry, "id"),
            f"fabric {fabric.id}: switch {sid} ({key}) {text}{others}",
            subject=sid,
            measured=used,
            limit=float(models[key].ports),
            fix=_FIX,
        )
