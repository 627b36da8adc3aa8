"""PCIe host links: the data rate of a slot by generation and lanes, one direction."""

from __future__ import annotations

from dclint.units import Q_, Quantity

__all__ = ["PCIE_LANE_RATE", "pcie_link"]

# Data rate of one lane, one direction, in Gb/s, after line encoding (PCI-SIG PCI Express Base
# Specification): 3.0, 4.0 and 5.0 signal 8, 16 and 32 GT/s with 128b/130b encoding; 6.0 signals
# 64 GT/s (PAM4) in 256-byte flits of which 242 carry transaction- and link-layer bytes (the rest
# CRC and FEC). A 5.0 x16 slot moves 63 GB/s each way: a dual-port 400G NIC in it cannot reach its
# 100 GB/s of line rate. Packet headers take a further share, left to STO006's efficiency.
PCIE_LANE_RATE: dict[int, float] = {
    3: 8 * 128 / 130,
    4: 16 * 128 / 130,
    5: 32 * 128 / 130,
    6: 64 * 242 / 256,
}


def pcie_link(generation: int, lanes: int) -> Quantity:
    """One direction of a PCIe slot of that generation and width, in GB/s."""
    return Q_(PCIE_LANE_RATE[generation] * lanes, "Gb/s").to("GB/s")
