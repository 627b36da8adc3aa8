"""Per-tier bandwidth of a fabric, from its parametric tiers or its explicit switches and links."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

from dclint.calc.fabric_graph import FabricGraph, fabric_graph, fabric_racks
from dclint.model.resolve import topology_of
from dclint.model.source import Path
from dclint.units import Q_, Quantity

if TYPE_CHECKING:
    from dclint.model.design import Design
    from dclint.model.fabric import Fabric

__all__ = [
    "EndpointPorts",
    "TierBandwidth",
    "TierLinks",
    "endpoint_ports",
    "tier_bandwidths",
    "tier_links",
]


@dataclass(frozen=True)
class TierBandwidth:
    """One tier's bandwidth down and up: the capacity that binds, not only what it declares.

    In the counted form a tier's uplinks are the tier above's downlinks, so each side is the
    smaller of the two (16 leaves x 32 uplinks under 4 spines x 32 downlinks: 128 links up, not
    512), and the first tier's downlinks are at most the fabric's endpoint ports. `note` says
    what bound a side, empty when the declared ports did.

    `fullest` is the downlink bandwidth of the tier's fullest switch, set on a counted first
    tier whose endpoints are known: E endpoint ports on n switches of d downlinks put at least
    min(d, ceil(E / n)) on one of them, so the tier average can hide a full switch."""

    name: str
    level: int  # 1 = faces the GPUs
    switches: int
    down: Quantity
    up: Quantity | None
    path: Path
    note: str = ""
    fullest: Quantity | None = None

    @property
    def ratio(self) -> float | None:
        """Down:up on the worst switch (the fullest one if known, else the tier average)."""
        if self.up is None or self.up.magnitude == 0:
            return None
        if self.fullest is not None and self.switches:
            return float(self.fullest * self.switches / self.up)
        return float(self.down / self.up)


@dataclass(frozen=True)
class TierLinks:
    """Links between a counted tier and the one above: what it sends up, what the next takes."""

    lower: int  # index in `tiers`
    sent: int  # lower.count x lower.uplinks
    taken: int  # upper.count x upper.downlinks


@dataclass(frozen=True)
class EndpointPorts:
    """Fabric ports the endpoints need: GPU NICs, and storage, management and gateway nodes."""

    gpus: int
    gpu_ports: int  # GPUs x nics_per_gpu, rounded up
    other: int  # sum of endpoints' count x ports

    @property
    def total(self) -> int:
        return self.gpu_ports + self.other


def endpoint_ports(design: Design, fabric: Fabric) -> EndpointPorts:
    """The ports a fabric's endpoints take at the first tier."""
    gpus = sum(r.gpus for r in fabric_racks(design, fabric))
    other = sum(e.count * e.ports for e in fabric.endpoints)
    return EndpointPorts(gpus, math.ceil(gpus * fabric.nics_per_gpu - 1e-9), other)


def tier_links(fabric: Fabric) -> list[TierLinks]:
    """For each counted tier below the top: the links it sends up and the next tier takes."""
    tiers = fabric.tiers
    return [
        TierLinks(t, low.count * low.uplinks, high.count * high.downlinks)
        for t, (low, high) in enumerate(pairwise(tiers))
    ]


def tier_bandwidths(design: Design, fabric_index: int) -> list[TierBandwidth]:
    """Down/up bandwidth of each tier of one fabric, lowest tier first (computed once)."""
    fabric = design.fabrics[fabric_index]
    return topology_of(design).derived.once(
        (tier_bandwidths, fabric_index), lambda: _compute(design, fabric, fabric_index)
    )


def _compute(design: Design, fabric: Fabric, index: int) -> list[TierBandwidth]:
    out = _counted(design, fabric, index)
    if fabric.switches:
        out.extend(_explicit(design, fabric, index, ("fabrics", index)))
    return out


def _counted(design: Design, fabric: Fabric, index: int) -> list[TierBandwidth]:
    """Counted tiers, each side bound by its neighbour: links below, tier above, endpoints."""
    base: Path = ("fabrics", index)
    tiers, out = fabric.tiers, []
    catalog = topology_of(design).catalog
    ports = endpoint_ports(design, fabric).total if tiers else 0
    for t, tier in enumerate(tiers):
        model = catalog.switches.get(tier.switch)
        speed = tier.link_speed or (model.port_speed if model else None)
        if speed is None:
            continue
        down, up, notes = tier.count * tier.downlinks, tier.count * tier.uplinks, []
        fullest = None
        if t and (sent := tiers[t - 1].count * tiers[t - 1].uplinks) < down:
            notes.append(f"{down:,} downlinks, tier {tiers[t - 1].name} sends {sent:,}")
            down = sent
        elif not t and 0 < ports < down:  # no endpoints known: the declared ports stand
            notes.append(f"{down:,} downlinks, {ports:,} endpoint ports")
            down = ports
        if not t and ports and tier.count:
            fullest = min(tier.downlinks, math.ceil(ports / tier.count))
        if up and t + 1 < len(tiers):
            above = tiers[t + 1].count * tiers[t + 1].downlinks
            if above < up:
                notes.append(f"{up:,} uplinks, tier {tiers[t + 1].name} takes {above:,}")
                up = above
        field = "uplinks" if tier.uplinks else "downlinks"
        out.append(
            TierBandwidth(
                tier.name,
                t + 1,
                tier.count,
                (speed * down).to("Gb/s"),
                (speed * up).to("Gb/s") if tier.uplinks else None,
                (*base, "tiers", t, field),
                "; ".join(notes),
                (speed * fullest).to("Gb/s") if fullest is not None else None,
            )
        )
    return out


def _explicit(design: Design, fabric: Fabric, index: int, base: Path) -> list[TierBandwidth]:
    fg = fabric_graph(design, index)
    switches = fg.switches
    level = _levels(topology_of(design).rack_by_id, fg)
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
    """Hops from the nearest rack or endpoint node (breadth-first): racks and endpoint nodes
    (storage, management, gateways) 0, leaves 1, spines 2, ..."""
    from collections import deque

    switches = fg.switches
    level = {r: 0 for r in racks}
    queue = deque(racks)
    if fg.endpoints:  # their links count as a leaf's downlinks
        level.update(dict.fromkeys(fg.endpoints, 0))
        queue.extend(fg.endpoints)
    while queue:
        node = queue.popleft()
        for end in fg.incident(node):
            other = end.other
            if other in switches and other not in level:
                level[other] = level[node] + 1
                queue.append(other)
    _level_unreached(fg, level)
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


# tier names that say a tier faces the endpoints (dclint's own reading of common names)
_FIRST_TIER_WORDS = ("leaf", "tor", "access", "edge")


def _level_unreached(fg: FabricGraph, level: dict[str, int]) -> None:
    """Switches no rack or endpoint reaches (a fabric whose endpoint links were not declared or
    imported: NET004 reports it partitioned) still sit in tiers: in each such group of
    switches, the tier whose name says it faces the endpoints (leaf, tor, access, edge), else
    the most numerous tier (leaves outnumber spines in a folded Clos), else the first
    declared, is level 1, and the tiers linked to it above. So an imported leaf-spine fabric
    with only its leaf-spine links keeps leaf under spine and their bandwidth (dclint's own
    rule; a reachable switch keeps its hop count)."""
    from collections import deque

    switches = fg.switches
    left = [s for s in switches if s not in level]
    while left:
        group, queue = {left[0]}, deque([left[0]])
        while queue:  # the switches linked to this one, through switches only
            for end in fg.incident(queue.popleft()):
                if end.other in switches and end.other not in level and end.other not in group:
                    group.add(end.other)
                    queue.append(end.other)
        tiers: dict[str, list[str]] = {}
        for sid in switches:  # in the design's order
            if sid in group:
                tiers.setdefault(switches[sid][1], []).append(sid)
        named = [t for t in tiers if any(w in t.lower() for w in _FIRST_TIER_WORDS)]
        first = named[0] if named else max(tiers, key=lambda t: len(tiers[t]))
        level.update(dict.fromkeys(tiers[first], 1))
        queue = deque(tiers[first])
        while queue:
            node = queue.popleft()
            for end in fg.incident(node):
                if end.other in group and end.other not in level:
                    level[end.other] = level[node] + 1
                    queue.append(end.other)
        for sid in group:  # a switch linked to none of the first tier's: its own level 1
            level.setdefault(sid, 1)
        left = [s for s in left if s not in level]
