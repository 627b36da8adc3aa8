"""Network capex in the TCO: the fabrics' switches and links at declared prices, so a 1:1 and a
2:1 fabric differ in cost as they do in time (issue 29 item 5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dclint.loader import load, load_text
from dclint.loader.overrides import parse_overrides
from dclint.projection import project_workloads, tco

H100 = str(Path(__file__).resolve().parent.parent / "sample_designs" / "h100-40node.yaml")
PRICES = ("cost.switch_price=90000 CNY", "cost.link_price=1500 CNY")


def network(*sets: str) -> float | None:
    found = tco(load(H100, overrides=tuple(parse_overrides(list(sets))))).items.get("network")
    return None if found is None else float(found.m_as("CNY"))


def test_switches_and_links_at_declared_prices() -> None:
    # 16 leaves and 5 spines; 320 NIC links at the leaves and 16 x 20 uplinks to the spines
    assert network(*PRICES) == 21 * 90_000 + (320 + 320) * 1_500


def test_a_two_to_one_fabric_costs_less() -> None:
    one_to_one = network(*PRICES)
    # 2:1 at the leaves: 10 uplinks a leaf, and 3 spines take the 160 links
    two_to_one = network(*PRICES, "fabrics[0].tiers[0].uplinks=10", "fabrics[0].tiers[1].count=3")
    assert two_to_one == 19 * 90_000 + (320 + 160) * 1_500
    assert one_to_one is not None and two_to_one < one_to_one


def test_declared_network_wins_and_no_price_counts_nothing() -> None:
    assert network(*PRICES, "cost.network=1000000 CNY") == 1_000_000
    assert network() is None  # nothing declared: the item is omitted, never 0
    assert "network" in tco(load(H100)).omitted


OPTICS = "cost.transceiver_price=4000 CNY"


def test_optical_links_take_a_module_a_port_pair_in_twin_port_cages() -> None:
    # h100-40node's fabric is cabled with transceivers (cabling.optics): 640 links. QM9700 cages
    # are twin-port OSFP (catalog links_per_transceiver 2): the leaves' 320 down and 320 up and
    # the spines' 320 down take 160 modules each; the HGX H100 nodes' single-port NICs 320.
    assert network(*PRICES, OPTICS) == 21 * 90_000 + 640 * 1_500 + 800 * 4_000
    assert network(OPTICS) == 800 * 4_000  # a price alone counts its own item
    # copper to the servers (the leaf tier's downlinks): only the 320 uplinks carry optics
    assert network(OPTICS, "fabrics[0].tiers[0].cable=dac") == 320 * 4_000
    # 2:1 saves the optics of the 160 uplinks it drops as well as the links and switches
    two_to_one = ("fabrics[0].tiers[0].uplinks=10", "fabrics[0].tiers[1].count=3")
    assert network(OPTICS, *two_to_one) == (160 + 320 + 80 + 80) * 4_000
    notes = tco(load(H100, overrides=tuple(parse_overrides([OPTICS])))).assumptions
    assert "network: 800 transceivers x 4000 CNY (counted tiers of the fabrics)" in notes
    assert "network: twin-port OSFP cages carry two links a transceiver (catalog)" in notes


DGX = """
name: dgx
racks:
  - {id: "r[01-32]", platform: dgx-h100, nodes: 4}
fabrics:
  - id: compute
    kind: compute
    cabling: {optics: transceiver}
    tiers:
      - {name: leaf, switch: qm9700, count: 32, downlinks: 32, uplinks: 32}
      - {name: spine, switch: qm9700, count: 16, downlinks: 64}
cost:
  transceiver_price: 1000 USD
"""


def test_dgx_h100_and_qm9700_both_carry_two_links_a_module() -> None:
    """1,024 GPU links and 1,024 uplinks: 512 modules at each of the four ends (the DGX H100's
    four twin-port OSFP cages a node, the QM9700's 32 a switch), 2,048 in all, not 4,096."""
    items = tco(load_text(DGX)).items
    assert items["network"].m_as("USD") == 2_048 * 1_000


RUN = """
name: run
racks:
  - {id: "r[01-32]", platform: hgx-h100, nodes: 4}
workloads:
  - id: llm
    model: {parameters: 70e9}
    tokens: 1e12
    gpus: 512
    parallel: {tp: 8}
    mfu: 40%
cost:
  gpu_price: 30000 USD
  network: 3000000 USD
  depreciation: 3 year
"""


def test_a_runs_cost_carries_its_share_of_the_network() -> None:
    """The run depreciates the network as it does the GPUs: its 512 of the 1,024 GPUs, for its
    wall time over 3 years."""
    (p,) = project_workloads(load_text(RUN))
    wall_years = p.training_time.m_as("year")
    assert p.cost_breakdown["network"].m_as("USD") == pytest.approx(
        3_000_000 * 512 / 1024 * wall_years / 3, rel=1e-9
    )
    assert p.cost_breakdown["depreciation"].m_as("USD") == pytest.approx(
        30_000 * 512 * wall_years / 3, rel=1e-9
    )
    assert any("network depreciation: 512 of the cluster's 1,024 GPUs" in a for a in p.assumptions)
    bare = RUN.replace("  network: 3000000 USD\n", "")
    (q,) = project_workloads(load_text(bare))
    assert "network" not in q.cost_breakdown


def test_the_tco_shows_the_networks_share() -> None:
    found = tco(load(H100, overrides=tuple(parse_overrides([*PRICES, OPTICS]))))
    network = 21 * 90_000 + 640 * 1_500 + 800 * 4_000
    share = 100 * network / found.total.m_as("CNY")
    assert f"network: {share:.3g}% of the TCO (6,050,000 CNY)" in found.assumptions


def test_prices_in_two_currencies_sum_in_the_sites_or_are_named_omitted() -> None:
    """Switches in CNY and links in USD (it raised pint's DimensionalityError, a traceback):
    summed in the site's currency at its exchange rate; without a rate the item is omitted and
    named, in the TCO and in a run's cost, as any unconvertible price is."""
    mixed = ("cost.switch_price=90000 CNY", "cost.link_price=200 USD")
    usd = load(H100).site.exchange_rates["USD"].m_as("CNY")
    assert network(*mixed) == pytest.approx(21 * 90_000 + 640 * 200 * usd, rel=1e-12)
    bare = (*mixed, "site.exchange_rates={}")
    assert network(*bare) is None
    found = tco(load(H100, overrides=tuple(parse_overrides(list(bare)))))
    assert "network" in found.omitted
    assert any(
        n.startswith("network omitted: no exchange rate from USD to CNY") for n in found.unconverted
    )
    (p,) = project_workloads(load(H100, overrides=tuple(parse_overrides(list(bare)))))
    assert "network" not in p.cost_breakdown
    assert any(
        a.startswith("network depreciation omitted: no exchange rate from USD to CNY")
        for a in p.assumptions
    )
