"""The review's diagrams as data: layered graphs whose boxes carry an element's load against its
capacity, and the rack groups (type and row, or the `racks` entry) a diagram draws for racks."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dclint.analysis.summary import DesignSummary
from dclint.report.ranges import compact

if TYPE_CHECKING:
    from dclint.model.design import Design
    from dclint.model.topology import Rack, Topology

__all__ = ["Graph", "Node", "flags", "rack_group", "rack_nodes", "share"]


@dataclass(frozen=True)
class Node:
    """One box: `title` names it, `detail` gives load against capacity; `over` when the load
    exceeds the capacity or a finding names it (`rules`); `binding` marks the limiting tier."""

    key: str
    title: str
    detail: str
    layer: int
    share: float | None = None
    over: bool = False
    rules: tuple[str, ...] = ()
    binding: bool = False
    members: tuple[str, ...] = ()  # the ids a group box stands for


@dataclass
class Graph:
    name: str
    nodes: list[Node] = field(default_factory=list)
    edges: list[tuple[str, str, str]] = field(default_factory=list)  # (from, to, label)

    def add(self, node: Node) -> None:
        self.nodes.append(node)

    def link(self, a: str, b: str, label: str = "") -> None:
        if (a, b, label) not in self.edges:
            self.edges.append((a, b, label))


def share(load: float, capacity: float) -> float | None:
    return load / capacity if capacity > 0 else None


def flags(ids: Iterable[str], flagged: dict[str, list[str]]) -> tuple[str, ...]:
    return tuple(sorted({r for i in ids for r in flagged.get(i, [])}))


def rack_group(design: Design, rack: Rack) -> str:
    """Group key of a rack: its type (or platform) and its row (or the `racks` entry)."""
    entry = design.racks[int(rack.path[1])] if len(rack.path) > 1 else None
    kind = rack.type_key or rack.platform_key or "rack"
    where = (entry.row if entry is not None and entry.row else None) or (
        entry.id if entry is not None else rack.id
    )
    return f"{kind} @ {where}"


def rack_nodes(
    design: Design, s: DesignSummary, topo: Topology, flagged: dict[str, list[str]], layer: int
) -> tuple[list[Node], dict[str, str]]:
    limits = {r.id: r.limit.m_as("kW") for r in s.rack_loads}
    groups: dict[str, list[Rack]] = {}
    for rack in topo.racks:
        groups.setdefault(rack_group(design, rack), []).append(rack)
    nodes, where = [], {}
    for key, racks in groups.items():
        loads = [r.it_load.m_as("kW") for r in racks]
        over = [r.id for r in racks if r.it_load.m_as("kW") > limits.get(r.id, 1e300) * (1 + 1e-9)]
        limit = max(limits.get(r.id, 0.0) for r in racks)
        ids = [r.id for r in racks]
        spread = (
            f"{min(loads):.4g}-{max(loads):.4g} kW"
            if min(loads) != max(loads)
            else (f"{loads[0]:.4g} kW")
        )
        detail = f"{len(racks)} x {spread} / {limit:.4g} kW limit"
        if over:
            detail += f"; over: {compact(over)}"
        rules = flags(ids, flagged)
        node_key = f"racks:{key}"
        nodes.append(
            Node(
                node_key,
                f"{compact(ids)} ({key.split(' @ ')[0]})",
                detail,
                layer,
                share(max(loads), limit),
                bool(over or rules),
                rules,
                members=tuple(ids),
            )
        )
        where.update(dict.fromkeys(ids, node_key))
    return nodes, where
