"""Per-tier bandwidth of a fabric, from its parametric tiers or its explicit switches and links."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dclint.ranges import RangeError, expand
from dclint.source import Path
from dclint.units import Q_, Quantity

if TYPE_CHECKING:
    from dclint.model.design import Design
    from dclint.model.fabric import Fabric

__all__ = ["TierBandwidth", "switch_ids", "tier_bandwidths"]


@dataclass(frozen=True)
class TierBandwidth:
    name: str
    level: int  # 1 = faces the GPUs
    switches: int
    down: Quantity
    up: Quantity | None
    path: Path


def switch_ids(fabric: Fabric) -> dict[str, tuple[str, str, int]]:
    """Explicit switches expanded: id -> (model, tier, index of its `switches` entry)."""
    out: dict[str, tuple[str, str, int]] = {}
    for i, sw in enumerate(fabric.switches):
        try:
            names = expand(sw.id)
        except RangeError:
            continue
        for sid, _ in names:
            out[sid] = (sw.model, sw.tier, i)
    return out


def tier_bandwidths(design: Design, fabric_index: int) -> list[TierBandwidth]:
    """Down/up bandwidth of each tier of one fabric, lowest tier first (computed once)."""
    fabric = design.fabrics[fabric_index]
    topo = design.topology
    key = f"fabric.tiers.{fabric_index}"
    result: list[TierBandwidth] = topo.cached(key, lambda: _compute(design, fabric, fabric_index))
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
        out.extend(_explicit(design, fabric, base))
    return out


def _explicit(design: Design, fabric: Fabric, base: Path) -> list[TierBandwidth]:
    switches = switch_ids(fabric)
    racks = design.topology.rack_by_id
    links: list[tuple[str, str, float]] = []
    for link in fabric.links:
        gbps = link.speed.m_as("Gb/s") * link.count
        for a, _ in _safe(link.a):
            for b, _ in _safe(link.b):
                links.append((a, b, gbps))
    level = _levels(racks, switches, links)
    down: dict[str, float] = defaultdict(float)
    up: dict[str, float] = defaultdict(float)
    for a, b, gbps in links:
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


def _levels(
    racks: Mapping[str, object],
    switches: dict[str, tuple[str, str, int]],
    links: list[tuple[str, str, float]],
) -> dict[str, int]:
    """Hops from the nearest rack (breadth-first): racks 0, leaves 1, spines 2, ..."""
    from collections import deque

    adjacent: dict[str, list[str]] = defaultdict(list)
    for a, b, _ in links:
        adjacent[a].append(b)
        adjacent[b].append(a)
    level = {r: 0 for r in racks}
    queue = deque(racks)
    while queue:
        node = queue.popleft()
        for other in adjacent.get(node, ()):
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


def _safe(pattern: str) -> list[tuple[str, str]]:
    try:
        return expand(pattern)
    except RangeError:
        return []
