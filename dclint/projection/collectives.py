"""Time of a collective over a group of ranks placed Megatron-style on NVLink domains and tiers.

Ranks are numbered tp innermost, then cp, ep/dp, pp (Megatron-Core's order); a group of
`members` ranks `stride` apart covers `members x stride` consecutive ranks. A group inside one
NVLink domain runs at NVLink bus bandwidth; one that leaves it runs hierarchically (NCCL): the
bytes cross the fabric split over the group's members in each domain, at the NIC rate divided
by the oversubscription of the highest tier the group spans beyond (when every rank
communicates at once, a flow through an r:1 tier gets at most 1/r of its line rate).

Latency (alpha-beta): NCCL's own cost model (src/graph/tuning.cc, ncclTopoTuneModel and
ncclTopoGetAlgoTime) gives a ring collective of `steps` steps, `inter` of them between NVLink
domains, the latency base + (steps - inter) x NVLink step + inter x network step for each
protocol (LL, LL128, Simple), and the time latency + bytes / (bus bandwidth x the protocol's
share of it); NCCL runs the protocol that is fastest, and so does `group_time` when told how
many collectives (`calls`) the bytes are split into.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Links", "group_time", "ring_all_reduce_bytes", "ring_latency"]

# NCCL src/graph/tuning.cc, Ring row of baseLat and hwLat (microseconds), protocols LL, LL128,
# Simple; LL carries 8 bytes of data in 16 (flags) and runs at 1/4 of the bus bandwidth across
# nodes, LL128 120 bytes in 128 (x 0.92), Simple all of it; a multi-node LL's NVLink step x 1.8
RING_BASE_US = (3.6, 10.0, 8.4)
RING_NVLINK_STEP_US = (0.47, 1.9, 3.4)
RING_NET_STEP_US = (2.7, 4.0, 9.6)
PROTOCOL_BW_SHARE = (0.25, 0.92, 1.0)
LL_MULTINODE_NVLINK = 1.8


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


def ring_latency(links: Links, members: int, stride: int, ring: int = 1) -> tuple[float, ...]:
    """Seconds of latency of one ring collective of `members` ranks `stride` apart, per
    protocol (LL, LL128, Simple): `ring` 1 for a reduce-scatter or an all-gather (members - 1
    steps), 2 for an all-reduce (NCCL's tuning model, module doc)."""
    span = members * stride
    local = members if span <= links.domain else max(1, min(members, links.domain // stride))
    nodes = -(-members // local)
    steps, inter = ring * (members - 1), ring * (nodes - 1)
    out = []
    for p, base in enumerate(RING_BASE_US):
        nvl = RING_NVLINK_STEP_US[p] * (LL_MULTINODE_NVLINK if p == 0 and nodes > 1 else 1.0)
        out.append((base + (steps - inter) * nvl + inter * RING_NET_STEP_US[p]) * 1e-6)
    return tuple(out)


def group_time(
    links: Links,
    size: float,
    members: int,
    stride: int,
    all_to_all: bool = False,
    calls: int = 0,
    ring: int = 1,
) -> float:
    """Seconds to move `size` bytes per rank in a collective of `members` ranks `stride` apart;
    with `calls` > 0, the bytes go in that many NCCL ring collectives (`ring` as in
    `ring_latency`), each paying its latency, on the fastest protocol."""
    span = members * stride
    if span <= links.domain:
        bandwidth = size / links.nvlink
    else:
        local = max(1, min(members, links.domain // stride))  # members sharing a domain
        fabric = links.nic / oversubscription(links, span)
        if all_to_all:
            inside = local / members
            return size * (inside / links.nvlink + (1 - inside) / fabric)
        intra = size / links.nvlink if local > 1 else 0.0
        bandwidth = intra + size / (local * fabric)
    if calls <= 0 or members <= 1:
        return bandwidth
    lat = ring_latency(links, members, stride, ring)
    return min(
        calls * a + bandwidth / share for a, share in zip(lat, PROTOCOL_BW_SHARE, strict=True)
    )
