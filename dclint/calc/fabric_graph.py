"""A fabric's racks, switches and links as a compact graph, with port and NIC helpers."""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from dclint.model.ranges import RangeError, expand
from dclint.model.resolve import topology_of
from dclint.units import Quantity

if TYPE_CHECKING:
    from dclint.model.catalog import SwitchModel
    from dclint.model.design import Design
    from dclint.model.fabric import Fabric, Link
    from dclint.model.topology import Rack

__all__ = [
    "End",
    "FabricGraph",
    "clos_endpoints",
    "down_ports",
    "endpoint_ids",
    "fabric_graph",
    "fabric_racks",
    "fat_tree_endpoints",
    "nic_speed",
    "port_share",
    "ports_at",
    "switch_ids",
]


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


def endpoint_ids(fabric: Fabric) -> dict[str, int]:
    """Endpoint nodes the explicit form can link: id -> index of its `endpoints` entry (only
    entries that declare an `id`; the first entry to take an id keeps it)."""
    out: dict[str, int] = {}
    for i, ep in enumerate(fabric.endpoints):
        if ep.id is None:
            continue
        try:
            names = expand(ep.id)
        except RangeError:
            continue
        for eid, _ in names:
            out.setdefault(eid, i)
    return out


def port_share(model: SwitchModel, speed: Quantity) -> float | None:
    """Share of one physical port a link at `speed` takes (0.5 for 200G on a 400G port split
    in two), or None if the switch cannot run that speed."""
    full, splits = model.speeds_gbps
    gbps = speed.m_as("Gb/s")
    if abs(gbps - full) <= 1e-9 * full:
        return 1.0
    if any(abs(gbps - s) <= 1e-9 * full for s in splits):
        return gbps / full
    return None


def ports_at(model: SwitchModel, speed: Quantity) -> int | None:
    """Ports the switch offers at `speed` (64 x 400G splits to 128 x 200G), None if unsupported."""
    share = port_share(model, speed)
    return None if share is None else round(model.ports / share)


def fat_tree_endpoints(radix: int, tiers: int) -> int:
    """Endpoints a non-blocking fat tree of `tiers` tiers of radix-k switches holds:
    2 (k/2)^n, i.e. k, k^2/2, k^3/4 (Al-Fares et al., SIGCOMM 2008)."""
    return 2 * (radix // 2) ** tiers


def down_ports(radix: int, ratio: float) -> int:
    """Ports a switch of `radix` ports can give down at a down:up ratio of at most `ratio`
    (32 of 64 at 1:1, 48 at 3:1), keeping at least one port up."""
    return max(0, min(radix - 1, math.floor(radix * ratio / (1 + ratio) + 1e-9)))


def clos_endpoints(radixes: list[int], ratios: list[float]) -> int:
    """Endpoints a folded Clos holds, built from these tiers (lowest first), each tier below
    the top at most at its down:up ratio: every top switch reaches one sub-tree (a leaf on two
    tiers, a pod on three) per port, each lower switch gives `down_ports` of its ports down, so
    k_top x d_1 x ... x d_(n-1). One radix k at 1:1 gives the fat tree's k^2/2 and k^3/4
    (Al-Fares et al., SIGCOMM 2008); radix-64 leaves under 576-port spines hold 576 x 32."""
    if not radixes:
        return 0
    most = radixes[-1]
    for radix, ratio in zip(radixes[:-1], ratios, strict=False):
        most *= down_ports(radix, ratio)
    return most


def fabric_racks(design: Design, fabric: Fabric) -> list[Rack]:
    """Racks on a fabric: its `racks` list expanded, else every rack with GPUs."""
    topo = topology_of(design)
    if fabric.racks is None:
        return [r for r in topo.racks if r.gpus > 0]
    out: list[Rack] = []
    for pattern in fabric.racks:
        for rid in _ids(pattern):
            rack = topo.rack_by_id.get(rid)
            if rack is not None and rack not in out:
                out.append(rack)
    return out


def nic_speed(design: Design, fabric: Fabric, rack: Rack | None) -> tuple[Quantity, str] | None:
    """Speed of a rack's NICs on a fabric and where it comes from: the fabric's `nic_speed`,
    its `nic`, or (compute fabrics) the rack platform's compute NIC."""
    if fabric.nic_speed is not None:
        return fabric.nic_speed, "nic_speed"
    nics = topology_of(design).catalog.nics
    key = fabric.nic
    if key is None and fabric.kind == "compute" and rack is not None and rack.platform:
        key = rack.platform.compute_nic
    nic = nics.get(key) if key else None
    return (nic.speed, key or "") if nic is not None else None


@dataclass(slots=True, unsafe_hash=True)
class End:
    """One link as seen from one of its ends. Read-only by convention (and hashable), not
    frozen: incident() builds one per link end on every call, and a frozen dataclass is 3x
    slower to build."""

    other: str  # the id at the far end
    count: int
    speed: Quantity
    link: int  # index of the fabric's `links` entry it was written in


@dataclass(frozen=True)
class FabricGraph:
    """A fabric's switches, racks, endpoint nodes and links. Nodes (switch, rack and endpoint
    ids) are numbered; each
    expanded link is an edge (a, b, its `links` entry), three ints in `ends`; `start` and
    `adjacent` list each node's edges (compressed rows: node i's are adjacent[start[i]:
    start[i + 1]], a self-loop twice). That is some 20 bytes a link, where a networkx MultiGraph
    with attributes cost 800 (30 MB for a 100,000-GPU fabric) and tuples and lists 180; the rules
    only ask what is at a node and what is connected. `graph` is the same fabric as a networkx
    Graph, for API users' own analyses, built (and networkx imported) only when asked for."""

    switches: dict[str, tuple[str, str, int]]  # id -> (model, tier, `switches` entry)
    racks: list[Rack]
    links: list[Link]
    endpoints: dict[str, int]  # endpoint node id -> `endpoints` entry (empty: none declared)
    nodes: list[str]  # node number -> id
    number: dict[str, int]  # id -> node number
    ends: array[int]  # a, b, k for each edge
    start: array[int]  # len(nodes) + 1 offsets into `adjacent`
    adjacent: array[int]  # edge numbers, grouped by node

    @property
    def edge_count(self) -> int:
        return len(self.ends) // 3

    def edges(self) -> Iterator[tuple[str, str, int]]:
        """(a, b, index of the `links` entry) for each expanded link, in the order written."""
        ends, nodes = self.ends, self.nodes
        for j in range(0, len(ends), 3):
            yield nodes[ends[j]], nodes[ends[j + 1]], ends[j + 2]

    @cached_property
    def graph(self) -> Any:
        """networkx Graph: nodes are the switch and rack ids, an edge wherever a link runs."""
        import networkx as nx

        graph = nx.Graph()
        graph.add_nodes_from(self.switches)
        graph.add_nodes_from(r.id for r in self.racks)
        graph.add_nodes_from(self.endpoints)
        graph.add_edges_from((a, b) for a, b, _ in self.edges())
        return graph

    def components(self) -> list[set[str]]:
        """Connected parts that hold racks or endpoint nodes, the one with the most GPUs first
        (a walk of the edge index: linear, and no networkx graph of every link to build)."""
        gpus = {r.id: r.gpus for r in self.racks}
        endpoints = self.endpoints
        seen: set[str] = set()
        parts = []
        for first in (*self.switches, *gpus, *endpoints):
            if first in seen:
                continue
            seen.add(first)
            part, todo = {first}, [first]
            while todo:
                for end in self.incident(todo.pop()):
                    if end.other not in seen:
                        seen.add(end.other)
                        part.add(end.other)
                        todo.append(end.other)
            if any(n in gpus or n in endpoints for n in part):
                parts.append(part)
        return sorted(parts, key=lambda c: (-sum(gpus.get(n, 0) for n in c), min(c)))

    def incident(self, node: str) -> list[End]:
        """Each link at a node, seen from it; a self-loop appears twice."""
        i = self.number.get(node)
        if i is None:
            return []
        ends, links, nodes, out = self.ends, self.links, self.nodes, []
        for e in self.adjacent[self.start[i] : self.start[i + 1]]:
            a, b, k = ends[3 * e : 3 * e + 3]
            link = links[k]
            out.append(End(nodes[b if a == i else a], link.count, link.speed, k))
        return out


def fabric_graph(design: Design, index: int) -> FabricGraph:
    """The explicit form of fabric `index` as a graph (built once per design)."""
    return topology_of(design).derived.once(
        (fabric_graph, index), lambda: _build(design, design.fabrics[index])
    )


def _build(design: Design, fabric: Fabric) -> FabricGraph:
    switches = switch_ids(fabric)
    endpoints = endpoint_ids(fabric) if fabric.endpoints else {}
    number: dict[str, int] = {}
    for node in (*switches, *topology_of(design).rack_by_id, *endpoints):
        number.setdefault(node, len(number))
    ends = array("i")
    for k, link in enumerate(fabric.links):
        for a in _ids(link.a):
            if (i := number.get(a)) is not None:
                for b in _ids(link.b):
                    if (j := number.get(b)) is not None:
                        ends.extend((i, j, k))
    start = array("i", bytes(4 * (len(number) + 1)))  # node i's edge count, then offsets
    for j in range(len(ends) // 3):
        start[ends[3 * j] + 1] += 1
        start[ends[3 * j + 1] + 1] += 1
    for i in range(len(number)):
        start[i + 1] += start[i]
    adjacent, fill = array("i", bytes(4 * start[-1])), start[:-1]
    for j in range(len(ends) // 3):
        for end in (ends[3 * j], ends[3 * j + 1]):
            adjacent[fill[end]] = j
            fill[end] += 1
    nodes = list(number)
    return FabricGraph(
        switches,
        fabric_racks(design, fabric),
        fabric.links,
        endpoints,
        nodes,
        number,
        ends,
        start,
        adjacent,
    )


def _ids(pattern: str) -> list[str]:
    if "[" not in pattern and "]" not in pattern:  # a plain id, as explicit links are
        return [pattern]
    try:
        return [i for i, _ in expand(pattern)]
    except RangeError:
        return []
