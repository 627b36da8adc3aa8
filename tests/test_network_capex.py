"""Network capex in the TCO: the fabrics' switches and links at declared prices, so a 1:1 and a
2:1 fabric differ in cost as they do in time (issue 29 item 5)."""

from __future__ import annotations

from pathlib import Path

from dclint.loader import load
from dclint.loader.overrides import parse_overrides
from dclint.projection import tco

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


def test_optical_links_take_two_transceivers_each() -> None:
    # h100-40node's fabric is cabled with transceivers (cabling.optics): 640 links, 1,280 optics
    assert network(*PRICES, OPTICS) == 21 * 90_000 + 640 * 1_500 + 1_280 * 4_000
    assert network(OPTICS) == 1_280 * 4_000  # a price alone counts its own item
    # copper to the servers (the leaf tier's downlinks): only the 320 uplinks carry optics
    assert network(OPTICS, "fabrics[0].tiers[0].cable=dac") == 640 * 4_000
    # 2:1 saves the optics of the 160 uplinks it drops as well as the links and switches
    two_to_one = ("fabrics[0].tiers[0].uplinks=10", "fabrics[0].tiers[1].count=3")
    assert network(OPTICS, *two_to_one) == (320 + 160) * 2 * 4_000
    notes = tco(load(H100, overrides=tuple(parse_overrides([OPTICS])))).assumptions
    assert "network: 1,280 transceivers x 4000 CNY (counted tiers of the fabrics)" in notes
