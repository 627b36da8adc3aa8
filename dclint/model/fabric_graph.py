"""A fabric's racks, switches and links as a networkx graph, with port and NIC helpers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dclint.model.fabric_tiers import switch_ids
from dclint.ranges import RangeError, expand
from dclint.units import Quantity

if TYPE_CHECKING:
    from dclint.model.catalog import SwitchModel
    from dclint.model.design import Design
    from dclint.model.fabric import Fabric
    from dclint.model.topology import Rack

__all__ = [
    "FabricGraph",
    "fabric_graph",
    "fabric_racks",
    "fat_tree_endpoints",
    "nic_speed",
    "port_share",
    "ports_at",
]


def port_share(model: SwitchModel, speed: Quantity) -> float | None:
    """Share of one physical port a link at `speed` takes (0.5 for 200G on a 400G port split
    in two), or None if the switch cannot run that speed."""
    full = model.port_speed.m_as("Gb/s")
    gbps = speed.m_as("Gb/s")
    if abs(gbps - full) <= 1e-9 * full:
        return 1.0
    if any(abs(gbps - s.m_as("Gb/s")) <= 1e-9 * full for s in model.split_speeds):
        return gbps / full
    return None


def ports_at(model: SwitchModel, speed: Quantity) -> int | None:
    """Ports the switch offers at `speed` (64 x 400G splits to 128 x 200G), None if unsupported."""
    share = port_share(model, speed)
    return None if share is None else round(model.ports / share)


def fat_tree_endpoints(radix: int, tiers: int) -> int:
    """Endpoints a non-blocking fat tree of `tiers` tiers of radix-k switches holds:
    2 (k/2)^n, i.e. k, k^2/2, k^3/4 (Al-Fares et al. 2008; DOMAIN.md)."""
    return 2 * (radix // 2) ** tiers


def fabric_racks(design: Design, fabric: Fabric) -> list[Rack]:
    """Racks on a fabric: its `racks` list expanded, else every rack with GPUs."""
    topo = design.topology
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
    nics = design.topology.catalog.nics
    key = fabric.nic
    if key is None and fabric.kind == "compute" and rack is not None and rack.platform:
        key = rack.platform.compute_nic
    nic = nics.get(key) if key else None
    return (nic.speed, key or "") if nic is not None else None


@dataclass(frozen=True)
class FabricGraph:
    """`graph` is a networkx MultiGraph: nodes are switch and rack ids (attribute `kind`),
    one edge per expanded link with `count`, `speed` (Quantity) and `link` (entry index)."""

    graph: Any
    switches: dict[str, tuple[str, str, int]]  # id -> (model, tier, `switches` entry)
    racks: list[Rack]

    def components(self) -> list[set[str]]:
        """Connected parts that hold racks, the one with the most GPUs first."""
        import networkx as nx

        gpus = {r.id: r.gpus for r in self.racks}
        parts = [c for c in nx.connected_components(self.graph) if any(n in gpus for n in c)]
        return sorted(parts, key=lambda c: (-sum(gpus.get(n, 0) for n in c), min(c)))

    def incident(self, node: str) -> list[tuple[str, dict[str, Any]]]:
        """(other end, edge data) of each link at a node; a self-loop appears twice."""
        out = []
        for u, v, data in self.graph.edges(node, data=True):
            out.append((v if u == node else u, data))
            if u == v:
                out.append((u, data))
        return out


def fabric_graph(design: Design, index: int) -> FabricGraph:
    """The explicit form of fabric `index` as a graph (built once per design)."""
    result: FabricGraph = design.topology.cached(
        f"fabric.graph.{index}", lambda: _build(design, design.fabrics[index])
    )
    return result


def _build(design: Design, fabric: Fabric) -> FabricGraph:
    import networkx as nx  # only designs with explicit fabrics pay for the import

    graph = nx.MultiGraph()
    switches = switch_ids(fabric)
    racks = fabric_racks(design, fabric)
    for sid, (model, tier, entry) in switches.items():
        graph.add_node(sid, kind="switch", model=model, tier=tier, entry=entry)
    for rack in racks:
        graph.add_node(rack.id, kind="rack", gpus=rack.gpus)
    known = set(switches) | set(design.topology.rack_by_id)
    for k, link in enumerate(fabric.links):
        for a in _ids(link.a):
            for b in _ids(link.b):
                if a in known and b in known:
                    graph.add_edge(a, b, count=link.count, speed=link.speed, link=k)
    for node, data in graph.nodes(data=True):
        data.setdefault("kind", "switch" if node in switches else "rack")
    return FabricGraph(graph, switches, racks)


def _ids(pattern: str) -> list[str]:
    try:
        return [i for i, _ in expand(pattern)]
    except RangeError:
        return []
