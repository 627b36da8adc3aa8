"""Per-tier bandwidth of explicit fabrics: levels come from the tier, not from each switch."""

from __future__ import annotations

import dclint
from dclint.calc.fabric_tiers import tier_bandwidths

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
