"""Per-tier bandwidth of a fabric, from its parametric tiers or its explicit switches and links."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dclint.calc.fabric_graph import FabricGraph, fabric_graph
from dclint.model.source import Path
from dclint.units import Q_, Quantity

if TYPE_CHECKING:
    from dclint.model.design import Design
    from dclint.model.fabric import Fabric

__all__ = ["TierBandwidth", "tier_bandwidths"]


@dataclass(frozen=True)
class TierBandwidth:
    name: str
    level: int  # 1 = faces the GPUs
    switches: int
    down: Quantity
    up: Quantity | None
    path: Path


def tier_bandwidths(design: Design, fabric_index: int) -> list[TierBandwidth]:
    """Down/up bandwidth of each tier of one fabric, lowest tier first (computed once)."""
    fabric = design.fabrics[fabric_index]
    topo = design.topology
    cached = topo.derived.tier_bandwidths
    if fabric_index not in cached:
        cached[fabric_index] = _compute(design, fabric, fabric_index)
    result = cached[fabric_index]
    return result


def _compute(design: Design, fabric: Fabric, index: int) -> list[TierBandwidth]:
    base: Path = ("fabrics", index)
    out = []
    catalog = design.topology.catalog
    for t, tier in enumerate(fabric.tiers):
        model = catalog.switches.get(tier.switch)
        speed = tier.link_speed or (model.port_speed if model else None)
        if speed is None:
            continue
        down = (speed * tier.downlinks * tier.count).to("Gb/s")
        up = (speed * tier.uplinks * tier.count).to("Gb/s") if tier.uplinks else None
        field = "uplinks" if tier.uplinks else "downlinks"
        out.append(
            TierBandwidth(tier.name, t + 1, tier.count, down, up, (*base, "tiers", t, field))
        )
    if fabric.switches:
        out.extend(_explicit(design, fabric, index, base))
    return out


def _explicit(design: Design, fabric: Fabric, index: int, base: Path) -> list[TierBandwidth]:
    fg = fabric_graph(design, index)
    switches = fg.switches
    level = _levels(design.topology.rack_by_id, fg)
    down: dict[str, float] = defaultdict(float)
    up: dict[str, float] = defaultdict(float)
    for a, b, k in fg.edges():
        link = fabric.links[k]
        gbps = link.speed.m_as("Gb/s") * link.count
        for x, y in ((a, b), (b, a)):
            if x in switches and y in level and x in level:
                if level[y] < level[x]:
                    down[switches[x][1]] += gbps
                elif level[y] > level[x]:
                    up[switches[x][1]] += gbps
    tiers: dict[str, tuple[int, int, int]] = {}
    for sid, (_, tier, entry) in switches.items():
        lvl, count, first = tiers.get(tier, (level.get(sid, 99), 0, entry))
        tiers[tier] = (min(lvl, level.get(sid, 99)), count + 1, min(first, entry))
    return [
        TierBandwidth(
            name,
            lvl,
            count,
            Q_(down[name], "Gb/s"),
            Q_(up[name], "Gb/s") if up[name] else None,
            (*base, "switches", first, "tier"),
        )
        for name, (lvl, count, first) in sorted(tiers.items(), key=lambda kv: kv[1][0])
    ]


def _levels(racks: Mapping[str, object], fg: FabricGraph) -> dict[str, int]:
    """Hops from the nearest rack (breadth-first): racks 0, leaves 1, spines 2, ..."""
    from collections import deque

    switches = fg.switches
    level = {r: 0 for r in racks}
    queue = deque(racks)
    while queue:
        node = queue.popleft()
        for end in fg.incident(node):
            other = end.other
            if other in switches and other not in level:
                level[other] = level[node] + 1
                queue.append(other)
    # a tier sits at the lowest level any of its switches reaches: a leaf without rack links
    # is still a leaf, not a switch above the spine
    lowest: dict[str, int] = {}
    for sid, (_, tier, _) in switches.items():
        if sid in level:
            lowest[tier] = min(lowest.get(tier, level[sid]), level[sid])
    for sid, (_, tier, _) in switches.items():
        if tier in lowest:
            level[sid] = lowest[tier]
    return level
