"""The fabric graph and its port, speed and fat-tree helpers, with exact numbers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dclint.calc.fabric_graph import (
    fabric_graph,
    fabric_racks,
    fat_tree_endpoints,
    nic_speed,
    port_share,
    ports_at,
)
from dclint.loader import load
from dclint.model.builtin_catalog import builtin
from dclint.units import Q_

DESIGN = """
name: graph
racks:
  - {id: "r[01-03]", platform: hgx-h100, nodes: 1}
  - {id: s01, it_load: 10 kW}
fabrics:
  - id: compute
    kind: compute
    switches:
      - {id: "leaf[01-02]", model: qm9700, tier: leaf}
      - {id: spine01, model: qm9700, tier: spine}
    links:
      - {a: "r[01-02]", b: leaf01, count: 8, speed: 400 Gb/s}
      - {a: r03, b: leaf02, count: 8, speed: 200 Gb/s}
      - {a: leaf01, b: spine01, count: 16, speed: 400 Gb/s}
      - {a: leaf01, b: leaf01, count: 1, speed: 400 Gb/s}
"""


@pytest.fixture
def design(write: Any) -> Any:
    path: Path = write(DESIGN)
    return load(path)


@pytest.mark.parametrize(
    ("switch", "speed", "ports"),
    [
        ("qm9700", "400 Gb/s", 64),
        ("qm9700", "200 Gb/s", 128),
        ("qm9700", "100 Gb/s", None),
        ("sn5600", "200 Gb/s", 256),
        ("q3400", "800 Gb/s", 144),
        ("q3400", "1600 Gb/s", None),
    ],
)
def test_ports_at_speed(switch: str, speed: str, ports: int | None) -> None:
    assert ports_at(builtin().switches[switch], Q_(speed)) == ports


def test_port_share_of_a_split_port() -> None:
    assert port_share(builtin().switches["qm9700"], Q_("200 Gb/s")) == pytest.approx(0.5)


def test_a_switch_models_speeds_follow_a_copy_with_new_values() -> None:
    model = builtin().switches["qm9700"]
    assert model.speeds_gbps == (400.0, (200.0,))
    faster = model.model_copy(update={"port_speed": Q_("800 Gb/s")})
    assert faster.speeds_gbps == (800.0, (200.0,))  # not the original's converted values
    assert port_share(faster, Q_("400 Gb/s")) is None and port_share(model, Q_("400 Gb/s")) == 1
    assert model.speeds_gbps == (400.0, (200.0,))


@pytest.mark.parametrize(
    ("radix", "tiers", "most"), [(64, 1, 64), (64, 2, 2048), (64, 3, 65536), (144, 2, 10368)]
)
def test_fat_tree_endpoints(radix: int, tiers: int, most: int) -> None:
    assert fat_tree_endpoints(radix, tiers) == most


def test_graph_parts_incidence_and_caching(design: Any) -> None:
    fg = fabric_graph(design, 0)
    assert fabric_graph(design, 0) is fg  # built once per design
    assert [r.id for r in fg.racks] == ["r01", "r02", "r03"]  # s01 has no GPUs
    assert [sorted(p) for p in fg.components()] == [
        ["leaf01", "r01", "r02", "spine01"],
        ["leaf02", "r03"],
    ]
    # leaf01: 2 x 8 rack links + 16 spine links + a self-loop counted at both of its ends.
    assert sum(e.count for e in fg.incident("leaf01")) == 34
    ends = fg.incident("leaf02")
    assert len(set(ends)) == len({(e.other, e.link) for e in ends})  # ends hash by value


def test_rack_nic_speed_from_the_platform(design: Any) -> None:
    fabric = design.fabrics[0]
    rack = fabric_racks(design, fabric)[0]
    speed, source = nic_speed(design, fabric, rack) or (None, "")
    assert source == "connectx-7"
    assert speed is not None and speed.m_as("Gb/s") == pytest.approx(400)


def test_components_match_networkx_on_the_same_graph(design: Any) -> None:
    import networkx as nx

    fg = fabric_graph(design, 0)
    racks = {r.id for r in fg.racks}
    theirs = [c for c in nx.connected_components(fg.graph) if c & racks]
    assert sorted(map(sorted, fg.components())) == sorted(map(sorted, theirs))
    assert fg.graph.number_of_edges() == len({frozenset(e[:2]) for e in fg.edges()})


def test_each_nodes_links_are_the_edges_that_end_there(design: Any) -> None:
    from collections import Counter

    fg = fabric_graph(design, 0)
    expected: dict[str, Counter[tuple[str, int]]] = {}
    for a, b, k in fg.edges():
        expected.setdefault(a, Counter())[(b, k)] += 1
        expected.setdefault(b, Counter())[(a, k)] += 1
    assert fg.edge_count == len(list(fg.edges())) > 0
    for node in fg.nodes:
        got = Counter((e.other, e.link) for e in fg.incident(node))
        assert got == expected.get(node, Counter()), node
    assert fg.incident("no-such-node") == []
