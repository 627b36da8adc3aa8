"""Time of a collective over a group of ranks placed Megatron-style on NVLink domains and tiers.

Ranks are numbered tp innermost, then cp, ep/dp, pp (Megatron-Core's order); a group of
`members` ranks `stride` apart covers `members x stride` consecutive ranks. A group inside one
NVLink domain runs at NVLink bus bandwidth; one that leaves it runs hierarchically (NCCL): the
bytes cross the fabric split over the group's members in each domain, at the NIC rate divided
by the oversubscription of the highest tier the group spans beyond (when every rank
communicates at once, a flow through an r:1 tier gets at most 1/r of its line rate).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Links", "group_time", "ring_all_reduce_bytes"]


@dataclass(frozen=True, slots=True)
class Links:
    """Achievable bandwidths (B/s per GPU and direction) and the fabric's tiers.

    tiers: (GPUs under one switch group of the tier, its downlink:uplink ratio), lowest
    first, for tiers that have uplinks; a group spanning more GPUs crosses those uplinks.
    """

    domain: int
    nvlink: float
    nic: float
    tiers: tuple[tuple[int, float], ...] = ()


def ring_all_reduce_bytes(size: float, ranks: int) -> float:
    """Bytes each rank sends in a ring all-reduce of `size` bytes: 2 (n - 1) / n x size."""
    return 2.0 * (ranks - 1) / ranks * size


def oversubscription(links: Links, span: int) -> float:
    """The worst downlink:uplink ratio among the tiers a group of `span` ranks crosses."""
    worst = 1.0
    for under, ratio in links.tiers:
        if span > under and ratio > worst:
            worst = ratio
    return worst


def group_time(
    links: Links, size: float, members: int, stride: int, all_to_all: bool = False
) -> float:
    """Seconds to move `size` bytes per rank in a collective of `members` ranks `stride` apart."""
    span = members * stride
    if span <= links.domain:
        return size / links.nvlink
    local = max(1, min(members, links.domain // stride))  # members sharing a domain
    fabric = links.nic / oversubscription(links, span)
    if all_to_all:
        inside = local / members
        return size * (inside / links.nvlink + (1 - inside) / fabric)
    intra = size / links.nvlink if local > 1 else 0.0
    return intra + size / (local * fabric)
