"""Per-tier bandwidth: explicit levels come from the tier; counted sides are what binds."""

from __future__ import annotations

import pytest

import dclint
from dclint.calc.fabric_tiers import endpoint_ports, tier_bandwidths, tier_links

DESIGN = """name: t
racks:
  - {id: 'r[1-2]', it_load: 10 kW}
fabrics:
  - id: f
    kind: compute
    switches:
      - {id: 'leaf[1-3]', model: qm9700, tier: leaf}
      - {id: spine1, model: qm9700, tier: spine}
    links:
      - {a: r1, b: leaf1, speed: 400 Gb/s, count: 4}
      - {a: r2, b: leaf2, speed: 400 Gb/s, count: 4}
      - {a: 'leaf[1-3]', b: spine1, speed: 400 Gb/s, count: 4}
"""


def test_leaf_without_rack_links_stays_a_leaf() -> None:
    design = dclint.load_text(DESIGN)
    tiers = {t.name: t for t in tier_bandwidths(design, 0)}
    assert (tiers["leaf"].level, tiers["spine"].level) == (1, 2)
    assert tiers["leaf"].down.m_as("Gb/s") == 3200.0
    assert tiers["leaf"].up.m_as("Gb/s") == 4800.0  # leaf3's uplinks count as leaf uplinks
    assert tiers["spine"].down.m_as("Gb/s") == 4800.0 and tiers["spine"].up is None


def _counted(tiers: str, racks: str = "r[01-16]", nodes: int = 4, extra: str = "") -> str:
    return f"""name: t
racks:
  - {{id: '{racks}', platform: hgx-h100, nodes: {nodes}}}
fabrics:
  - id: compute
    kind: compute
{extra}    tiers:
{tiers}"""


def test_uplinks_bound_by_the_tier_above() -> None:
    """The issue's case: 16 leaves x 32 uplinks under 4 spines x 32 downlinks: 128 links, 4:1."""
    design = dclint.load_text(
        _counted(
            "      - {name: leaf, switch: qm9700, count: 16, downlinks: 32, uplinks: 32}\n"
            "      - {name: spine, switch: qm9700, count: 4, downlinks: 32}\n"
        )
    )
    leaf, spine = tier_bandwidths(design, 0)
    assert leaf.down.m_as("Gb/s") == pytest.approx(512 * 400)
    assert leaf.up is not None and leaf.up.m_as("Gb/s") == pytest.approx(128 * 400)
    assert float(leaf.down / leaf.up) == pytest.approx(4.0)
    assert leaf.note == "512 uplinks, tier spine takes 128"
    assert spine.down.m_as("Gb/s") == pytest.approx(128 * 400) and spine.up is None
    assert spine.note == ""


def test_downlinks_bound_by_the_tier_below() -> None:
    """9 spines x 64 downlinks under 16 leaves x 32 uplinks carry 512 links, not 576."""
    design = dclint.load_text(
        _counted(
            "      - {name: leaf, switch: qm9700, count: 16, downlinks: 32, uplinks: 32}\n"
            "      - {name: spine, switch: qm9700, count: 9, downlinks: 64, uplinks: 64}\n"
            "      - {name: core, switch: qm9700, count: 9, downlinks: 64}\n"
        )
    )
    _, spine, core = tier_bandwidths(design, 0)
    assert spine.down.m_as("Gb/s") == pytest.approx(512 * 400)
    assert spine.up is not None and spine.up.m_as("Gb/s") == pytest.approx(576 * 400)
    assert spine.note == "576 downlinks, tier leaf sends 512"
    assert core.down.m_as("Gb/s") == pytest.approx(576 * 400)


def test_first_tier_bound_by_endpoint_ports() -> None:
    """240 GPUs on 8 x 34 leaf downlinks carry 240 links; 16 storage nodes x 2 ports add 32."""
    tiers = (
        "      - {name: leaf, switch: qm9700, count: 8, downlinks: 34, uplinks: 30}\n"
        "      - {name: spine, switch: qm9700, count: 4, downlinks: 60}\n"
    )
    bare = dclint.load_text(_counted(tiers, "r[01-10]", 3))
    leaf = tier_bandwidths(bare, 0)[0]
    assert leaf.down.m_as("Gb/s") == pytest.approx(240 * 400)
    assert leaf.note == "272 downlinks, 240 endpoint ports"
    storage = "    endpoints:\n      - {name: vast, role: storage, count: 16, ports: 2}\n"
    with_storage = dclint.load_text(_counted(tiers, "r[01-10]", 3, storage))
    leaf = tier_bandwidths(with_storage, 0)[0]
    assert leaf.down.m_as("Gb/s") == pytest.approx(272 * 400) and leaf.note == ""
    assert leaf.up is not None and float(leaf.down / leaf.up) == pytest.approx(272 / 240)
    ports = endpoint_ports(with_storage, with_storage.fabrics[0])
    assert (ports.gpus, ports.gpu_ports, ports.other, ports.total) == (240, 240, 32, 272)


def test_first_tier_fullest_switch() -> None:
    """E endpoint ports on n leaves of d downlinks: the fullest carries min(d, ceil(E / n))."""
    tiers = (
        "      - {name: leaf, switch: qm9700, count: 8, downlinks: 34, uplinks: 30}\n"
        "      - {name: spine, switch: qm9700, count: 4, downlinks: 60}\n"
    )
    bare = tier_bandwidths(dclint.load_text(_counted(tiers, "r[01-10]", 3)), 0)[0]
    assert bare.fullest is not None and bare.fullest.m_as("Gb/s") == pytest.approx(30 * 400)
    assert bare.ratio == pytest.approx(1.0)  # 240 on 8 leaves: 30:30 on every one
    ufm = "    endpoints:\n      - {name: ufm, role: management, count: 1, ports: 1}\n"
    one_more = tier_bandwidths(dclint.load_text(_counted(tiers, "r[01-10]", 3, ufm)), 0)[0]
    assert one_more.fullest is not None and one_more.fullest.m_as("Gb/s") == pytest.approx(31 * 400)
    assert one_more.ratio == pytest.approx(31 / 30)
    storage = "    endpoints:\n      - {name: vast, role: storage, count: 40, ports: 2}\n"
    full = tier_bandwidths(dclint.load_text(_counted(tiers, "r[01-10]", 3, storage)), 0)[0]
    assert full.fullest is not None and full.fullest.m_as("Gb/s") == pytest.approx(34 * 400)
    _, spine = tier_bandwidths(dclint.load_text(_counted(tiers, "r[01-10]", 3)), 0)
    assert spine.fullest is None  # only the first tier faces the endpoints


def test_endpoint_ports_round_nics_up() -> None:
    """nics_per_gpu 0.125 (one front-end NIC a node of 8) on 15 GPUs needs 2 ports, not 1.875."""
    design = dclint.load_text(
        "name: t\nracks:\n  - {id: r1, platform: hgx-h100, nodes: 2}\nfabrics:\n"
        "  - {id: f, kind: frontend, nics_per_gpu: 0.125, racks: [r1],\n"
        "     endpoints: [{name: gw, role: gateway, count: 2, ports: 4}]}\n"
    )
    ports = endpoint_ports(design, design.fabrics[0])
    assert (ports.gpus, ports.gpu_ports, ports.other) == (16, 2, 8)


def test_tier_links_pairs_each_tier_with_the_next() -> None:
    design = dclint.load_text(
        _counted(
            "      - {name: leaf, switch: qm9700, count: 16, downlinks: 32, uplinks: 32}\n"
            "      - {name: spine, switch: qm9700, count: 16, downlinks: 32, uplinks: 32}\n"
            "      - {name: core, switch: qm9700, count: 7, downlinks: 64}\n"
        )
    )
    links = tier_links(design.fabrics[0])
    assert [(p.lower, p.sent, p.taken) for p in links] == [(0, 512, 512), (1, 512, 448)]
