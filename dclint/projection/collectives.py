"""Time of a collective over a group of ranks placed Megatron-style on NVLink domains and tiers.

Ranks are numbered tp innermost, then cp, ep/dp, pp (Megatron-Core's order); a group of
`members` ranks `stride` apart covers `members x stride` consecutive ranks. A group inside one
NVLink domain runs at NVLink bus bandwidth; one that leaves it runs hierarchically (NCCL): the
bytes cross the fabric split over the group's members in each domain, at the NIC rate.

Oversubscription by collective (`tier_load`): every group of a layout runs its collective at
once, so each NIC under a switch group carries a flow, and a tier's uplinks carry the flows
that leave the group: a share x of them, against 1/r of the NICs' rate on an r:1 tier. A ring
(NCCL orders it by rank) visits its domains in turn and leaves a switch group once a group it
spans, x = groups spanned / domains visited when the job's nodes are packed in rank order, or
1 - 1/G when they are spread over the fabric's G groups; a ring runs at the pace of its
slowest hop, so the whole ring slows by x r when that exceeds 1. An all-to-all sends each
member's bytes to every other: the share bound for other switch groups crosses the tier (its
bisection), at most 1/r of the NIC rate. On ECMP-hashed tiers the uplinks deliver 1/c of their
capacity (hash collisions of a few long flows: `ECMP_COLLISION`).

Node-deduplicated dispatch (`node_share`): Megatron-Core's flex token dispatcher (DeepEP,
HybridEP) sends a token across the network once for each node that holds one of its experts,
with the set of that node's GPUs that need it, and forwards it over NVLink there (DeepSeek-V3
technical report, arXiv 2412.19437, sec. 3.2.2; DeepEP's internode kernels count tokens per
RDMA rank and carry an `is_token_in_nvl_rank` mask). With E experts spread evenly over the
group's D domains and k routed a token (uniform, as force-balanced routing is), a remote
domain is hit with probability 1 - C(E - E/D, k) / C(E, k): the network carries D x that / k
of the bytes the all-to-all sends across it, and NVLink forwards the remote copies as they
arrive, under the network transfer ("communications via IB and NVLink are fully overlapped",
DeepSeek-V3, sec. 3.2.2), so the dispatch is never slower than the plain all-to-all.

Latency (alpha-beta): NCCL's own cost model (src/graph/tuning.cc, ncclTopoTuneModel and
ncclTopoGetAlgoTime, v2.23.4-1 to v2.30.7-1) gives a ring collective of `steps` steps, `inter`
of them between NVLink domains, the latency base + (steps - inter) x NVLink step + inter x
network step for each protocol (LL, LL128, Simple), the NVLink step floored at the host's
network overhead when the ring leaves the domain and the network step NCCL's Tree one when the
ring has one rank a domain, a Simple all-reduce's across nodes x 1.4 (the ring's plateau);
and the time latency + bytes / (bus bandwidth x the protocol's share of it, LL's capped); NCCL
runs the protocol that is fastest, and so does `group_time` when told how many collectives
(`calls`) the bytes are split into.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "ECMP_COLLISION",
    "Links",
    "domain_split",
    "group_time",
    "node_share",
    "ring_all_reduce_bytes",
    "ring_latency",
    "tier_load",
]

# NCCL src/graph/tuning.cc, unchanged from v2.23.4-1 to v2.30.7-1 but Blackwell's LL cap (the
# NCCL of the calibration and validation runs from 2025 on; the 2023-24 runs' 2.18-2.22 give
# every published run's figure within 0.01 points but NCCLX's Llama 3; 2021's ran 2.17 or
# older: the table in docs/performance-model.md, *Latency*), microseconds, protocols LL, LL128,
# Simple: baseLat's Ring row; hwLat's Ring row over NVLink and across the network
# (NCCL_HW_NET); and hwLat's NET Tree row, which a ring of one rank a node pays at each network
# step ("With ppn=1 latencies are fully exposed, use the Tree network latency", 2.23.4 on).
# The NVLink steps of a ring that leaves the node are floored at the host's network overhead
# (getNetOverhead: 1 us on x86 Intel and on other hosts, 2 on AMD x86, which no design
# states), x 3 for Simple.
RING_BASE_US = (6.6, 14.0, 8.4)
RING_NVLINK_STEP_US = (0.6, 1.9, 3.4)
RING_NET_STEP_US = (2.7, 4.0, 14.0)
RING_NET_STEP_ONE_A_NODE_US = (5.0, 8.5, 14.0)
NET_OVERHEAD = 1.0  # getNetOverhead, x86 Intel and other hosts (us)
NET_OVERHEAD_US = (NET_OVERHEAD, NET_OVERHEAD, 3 * NET_OVERHEAD)
# ncclTopoGetAlgoTime ("Plateau effect of ring", v2.18.1-1 to v2.30.7-1): a Simple ring
# all-reduce of a communicator across nodes, of at least 64 bytes a channel and rank, pays its
# latency x 1.4 (x 1.9 below compute capability 8.0, no catalog GPU)
RING_ALL_REDUCE_PLATEAU = 1.4
SIMPLE = 2  # the Simple protocol's index in the per-protocol tuples
# LL carries 8 bytes of data in 16 (flags): NCCL's Ring/LL bus bandwidth x 1/2 (2.21.5-1 on;
# 1/4 or 1/3 before), capped at llMaxBws (GB/s): by GPU generation inside one node (Ampere 87.7,
# Hopper 141, Blackwell 2 x 141 from v2.25.1-1: LL_MAX_NODE_GBS; 2.23 and 2.24 gave sm100
# Hopper's 141), by node count across nodes on x86 Intel and other hosts (39.0 on 2 nodes, 20.4
# on more); LL128 120 bytes in 128 (x 0.92), Simple all of it
PROTOCOL_BW_SHARE = (0.5, 0.92, 1.0)
_LL_MAX_HOPPER = 141.0
LL_MAX_NODE_GBS = {"ampere": 87.7, "hopper": _LL_MAX_HOPPER, "blackwell": 2 * _LL_MAX_HOPPER}
LL_MAX_NODES_GBS = (39.0, 20.4)
# Gangidi et al., 'RDMA over Ethernet for Distributed AI Training at Meta Scale' (SIGCOMM 2024):
# hashing on the destination queue pair too (E-ECMP) with NCCL's QP scaling improved AllReduce
# by up to 40% over baseline ECMP, whose few long RoCE flows collide on the same uplinks: a
# hashed tier delivers 1 / 1.4 of its uplink capacity to a collective
ECMP_COLLISION = 1.4


@dataclass(frozen=True, slots=True)
class Links:
    """Achievable bandwidths (B/s per GPU and direction) and the fabric's tiers.

    tiers: (GPUs under one switch group of the tier, its downlink:uplink ratio), lowest
    first, for tiers that have uplinks; a group spanning more GPUs crosses those uplinks.
    collision: the share of its uplink capacity a tier loses (delivers 1 / collision) to ECMP
    hash collisions; 1.0 where the fabric routes adaptively (InfiniBand).
    spread: 0 when a job's nodes are packed in rank order under the switch groups (a
    topology-aware scheduler); else the GPUs of the fabric its nodes are spread over.
    ll_max: NCCL's cap on LL's bus bandwidth inside one node (B/s; `LL_MAX_NODE_GBS` of the
    GPU's generation), 0 for none (a GPU of no known generation).
    """

    domain: int
    nvlink: float
    nic: float
    tiers: tuple[tuple[int, float], ...] = ()
    collision: float = 1.0
    spread: int = 0
    ll_max: float = 0.0


def ring_all_reduce_bytes(size: float, ranks: int) -> float:
    """Bytes each rank sends in a ring all-reduce of `size` bytes: 2 (n - 1) / n x size."""
    return 2.0 * (ranks - 1) / ranks * size


def domain_split(links: Links, members: int, stride: int) -> tuple[int, int]:
    """A collective's members `stride` apart that share an NVLink domain, and the domains it
    visits: all of them in one when they span no more than a domain."""
    if members * stride <= links.domain:
        return members, 1
    local = max(1, min(members, links.domain // stride))
    return local, -(-members // local)


def node_share(links: Links, members: int, stride: int, experts: int, k: int) -> float:
    """Network bytes of a node-deduplicated dispatch over those of an all-to-all among
    `members` ranks `stride` apart, `experts` spread over them and `k` routed a token (module
    doc); 1 inside one NVLink domain."""
    _, domains = domain_split(links, members, stride)
    if domains <= 1 or k <= 0:
        return 1.0
    elsewhere = experts - experts / domains  # experts on the other domains than a given one
    miss = 1.0
    for i in range(k):  # C(E - E/D, k) / C(E, k): none of the k experts on a given domain
        miss *= max(0.0, elsewhere - i) / (experts - i)
    return min(1.0, domains * (1.0 - miss) / k)


def tier_load(links: Links, members: int, stride: int, all_to_all: bool = False) -> float:
    """Demand on the busiest tier's uplinks over their capacity while every group runs the
    collective at once: the share of the NICs' flows (a ring) or bytes (an all-to-all) that
    leave a switch group x its down:up ratio x the ECMP collision factor (module doc). A ring
    slows by it where it exceeds 1; an all-to-all's fabric time is at least it."""
    span = members * stride
    if span <= links.domain:
        return 0.0
    local, nodes = domain_split(links, members, stride)  # nodes: the domains the group visits
    worst = 0.0
    for under, ratio in links.tiers:
        if links.spread:
            groups = links.spread // under
            if groups <= 1:
                continue
            leaving = 1.0 - 1.0 / groups
            if all_to_all:
                leaving *= 1.0 - local / members
        elif span <= under:
            continue
        elif all_to_all:
            leaving = 1.0 - under / span
        else:
            leaving = min(1.0, -(-span // under) / nodes)
        load = leaving * ratio * links.collision
        if load > worst:
            worst = load
    return worst


def ring_latency(links: Links, members: int, stride: int, ring: int = 1) -> tuple[float, ...]:
    """Seconds of latency of one ring collective of `members` ranks `stride` apart, per
    protocol (LL, LL128, Simple): `ring` 1 for a reduce-scatter or an all-gather (members - 1
    steps), 2 for an all-reduce (NCCL's tuning model, module doc)."""
    local, nodes = domain_split(links, members, stride)
    steps, inter = ring * (members - 1), ring * (nodes - 1)
    net = RING_NET_STEP_ONE_A_NODE_US if local == 1 else RING_NET_STEP_US
    out = []
    for p, base in enumerate(RING_BASE_US):
        nvl = RING_NVLINK_STEP_US[p]
        if nodes > 1:
            nvl = max(nvl, NET_OVERHEAD_US[p])
        lat = (base + (steps - inter) * nvl + inter * net[p]) * 1e-6
        if p == SIMPLE and ring == 2 and nodes > 1:
            lat *= RING_ALL_REDUCE_PLATEAU
        out.append(lat)
    return tuple(out)


# A pure function of its arguments, asked the same question many times by a layout search
# (the data-parallel collectives of one (tp, pp, cp, dp, ep) are the same for every micro-batch,
# recomputation and vpp): answered once each.
@lru_cache(maxsize=1 << 14)
def group_time(
    links: Links,
    size: float,
    members: int,
    stride: int,
    all_to_all: bool = False,
    calls: int = 0,
    ring: int = 1,
    dedup: float = 1.0,
) -> float:
    """Seconds to move `size` bytes per rank in a collective of `members` ranks `stride` apart;
    with `calls` > 0, the bytes go in that many NCCL ring collectives (`ring` as in
    `ring_latency`), each paying its latency, on the fastest protocol. An all-to-all with
    `dedup` < 1 (`node_share`) sends that share of its cross-domain bytes over the network
    and forwards the remote copies over NVLink under that transfer."""
    local, nodes = domain_split(links, members, stride)  # members sharing a domain, domains
    if nodes == 1:
        bandwidth = size / links.nvlink
    else:
        load = tier_load(links, members, stride, all_to_all) if links.tiers else 0.0
        if all_to_all:
            inside = local / members
            network = size * max(1 - inside, load) * dedup / links.nic
            # a deduplicated dispatch forwards the remote copies over NVLink as they arrive,
            # under the network transfer (DeepSeek-V3 report, sec. 3.2.2: "fully overlapped")
            forward = size * (1 - inside) / links.nvlink if dedup < 1.0 else 0.0
            return size * inside / links.nvlink + max(network, forward)
        intra = size / links.nvlink if local > 1 else 0.0
        bandwidth = intra + size * max(1.0, load) / (local * links.nic)
    if calls <= 0 or members <= 1:
        return bandwidth
    lat = ring_latency(links, members, stride, ring)
    times = [calls * a + bandwidth / share for a, share in zip(lat, PROTOCOL_BW_SHARE, strict=True)]
    # LL's bus bandwidth capped (llMaxBws): inside one domain by the GPU's generation, across
    # domains by their number; the bytes are bus bytes, as `size / links.nvlink` counts them
    cap = links.ll_max if nodes == 1 else LL_MAX_NODES_GBS[nodes > 2] * 1e9
    if cap > 0:
        times[0] = max(times[0], calls * lat[0] + size / cap)
    return min(times)
