"""Power designs from public reference figures, each with the verdict those figures give.

These are the designs a public reference set (NetBox's power model, NVIDIA's GB200 NVL72 and
DGX documentation, vendor power shelf figures) would contain; the expected verdicts follow
from the published numbers, worked in each case's comment.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import TODAY
from dclint.engine.runner import Engine, run
from dclint.loader.load import load_text
from dclint.model.resolve import topology_of

# NetBox PowerFeed.save(): available power = V x A x max_utilization (x 1.732 three-phase), in VA
NETBOX_FEEDS = """
name: netbox
power:
  feeds:
    - {id: default, phases: 1, voltage: 120 V, current_rating: 20 A}
    - {id: three, voltage: 208 V, current_rating: 30 A}
"""


def test_netbox_available_power_is_our_apparent_capacity() -> None:
    feeds = topology_of(load_text(NETBOX_FEEDS)).feeds
    assert feeds["default"].apparent_kva == pytest.approx(1.920)  # 120 x 20 x 0.8 = 1,920 VA
    assert feeds["three"].apparent_kva == pytest.approx(8.646, abs=0.001)  # NetBox: 8,646 VA
    # real power at the default PF 0.95: 1,824 W and 8,214 W
    assert feeds["three"].capacity.m_as("kW") == pytest.approx(8.214, abs=0.001)


SU_2N = """
name: gb200-su-2n
site: {utility_capacity: 1.5 MW, pue: 1.15}
power:
  panels:
    - {id: busway-a, kind: busway, voltage: 415 V, current_rating: 2000 A, path: A}
    - {id: busway-b, kind: busway, voltage: 415 V, current_rating: 2000 A, path: B}
  feeds:
    - {id: 'tap-a[1-8]', panel: busway-a, voltage: 415 V, current_rating: FEED, path: A}
    - {id: 'tap-b[1-8]', panel: busway-b, voltage: 415 V, current_rating: FEED, path: B}
racks:
  - {id: 'r[1-8]', platform: gb200-nvl72, feeds: [tap-a$n, tap-b$n]}
"""

DGX_H100_RACK = """
name: dgx-h100-rack
power:
  feeds:
    - {id: pa, voltage: 415 V, current_rating: FEED, path: A}
    - {id: pb, voltage: 415 V, current_rating: FEED, path: B}
racks:
  - {id: r1, platform: dgx-h100, nodes: 4, feeds: [pa, pb]}
"""

CASES = {
    # 8 x 120 kW = 960 kW on each 1,092.6 kW busway: 132.6 kW of headroom (PWR002 keeps 80);
    # 250 A taps carry 136.6 kW >= the 132 kW max_power; 960 x 1.15 = 1,104 kW < 1.5 MW
    "GB200 NVL72 SU, 2N busways, 250 A taps": (SU_2N.replace("FEED", "250 A"), set()),
    # 225 A taps carry 122.9 kW: enough for the 120 kW design load, not the 132 kW power shelves
    "GB200 NVL72 SU, 2N busways, 225 A taps": (
        SU_2N.replace("FEED", "225 A"),
        {"PWR003", "PWR004"},
    ),
    # four DGX H100 at 10.2 kW max = 40.8 kW: a 415 V / 63 A feed carries 34.4 kW, 100 A 54.6 kW
    "DGX H100 rack of four on 63 A": (DGX_H100_RACK.replace("FEED", "63 A"), {"PWR003", "PWR004"}),
    "DGX H100 rack of four on 100 A": (DGX_H100_RACK.replace("FEED", "100 A"), set()),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_reference_design_verdict(tmp_path: Path, case: str) -> None:
    text, expected = CASES[case]
    path = tmp_path / "design.yaml"
    path.write_text(text, encoding="utf-8")
    result = run([str(path)], Engine(today=TODAY))
    assert not result.errors, [str(e) for e in result.errors]
    assert {f.rule for f in result.findings if f.rule.startswith("PWR")} == expected
