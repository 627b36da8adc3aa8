"""Storage bandwidth claimed beyond what the tier's nodes and NICs can carry, or contradicted.

## What it does
For a storage tier that declares `nodes`, `nics_per_node` and `nic_speed` (one NIC's line
rate), flags a declared read or write bandwidth above nodes x NICs x line rate x
`protocol_efficiency` (default 90%): the aggregate (`read_bandwidth`, `write_bandwidth`) and
the per-node figures (`per_node_read_bandwidth`, `per_node_write_bandwidth`, against NICs x
line rate x efficiency). Flags too an aggregate that contradicts `nodes` x the declared
per-node figure by more than `tolerance` (default 5%), whatever the NICs.

Behind the NIC, two more bounds where the tier declares them:

- the host link: each NIC sits in a PCIe slot (`pcie_generation`, `pcie_lanes`) that moves
  less than a fast NIC's ports (`ports_per_nic` x `nic_speed`) can: where the slots are the
  narrower, they carry the traffic instead of the line rate;
- write amplification: a tier that keeps `replication` copies of every block moves each byte
  written over the storage NICs once per copy, and an `erasure_code` of k data + m parity
  strips moves (k + m) / k of it, so the write bandwidth a client sees is the narrower link x
  efficiency / that factor.

## Why it matters
A storage vendor's aggregate figure is what STO001, STO002 and STO003 hold the design to; a
figure no network could carry makes every one of them pass on paper. The defaults:

- `protocol_efficiency` 90%: dclint's own default, above the best published share of line
  rate a parallel file system delivered: DeepSeek's 3FS read 6.6 TiB/s from 180 storage
  nodes with 2 x 200 Gb/s InfiniBand each (3FS README), 80.6% of their 9 TB/s.
- PCIe rates (PCI-SIG PCI Express Base Specification): 8, 16 and 32 GT/s a lane for 3.0,
  4.0 and 5.0 with 128b/130b encoding; 64 GT/s for 6.0 in flits of which 242 of 256 bytes
  carry data. A 5.0 x16 slot moves 63 GB/s each way, and ~55-57 GB/s after packet headers:
  a dual-port 400G NIC (100 GB/s of line rate) in it delivers about half its ports' rate.
- Write amplification: a replicated block is received by every node that keeps a copy, so
  the tier's NICs take in `replication` x what clients write; erasure-coded writes carry the
  parity strips too.
- `tolerance` 5%: dclint's own default for rounding in datasheets; a wider gap means one of
  the two figures is wrong.

Sources: DeepSeek 3FS README; PCI-SIG PCI Express Base Specification.

## Example
```yaml
storage:
  tiers:
    - id: weka
      kind: parallel_fs
      nodes: 8
      nics_per_node: 2
      nic_speed: 400 Gb/s
      read_bandwidth: 750 GB/s   # STO006: 8 x 2 x 400 Gb/s = 800 GB/s, x 90% = 720 GB/s
```

## Fix
Declare the bandwidth the tier measured (a vendor's sizing for this node count), or add
storage nodes or NICs (one NIC a PCIe slot of the NIC's generation); make the aggregate and
the per-node figures agree.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from dclint.api import Context, Design, Option, Share, StorageTier, Violation, pcie_link, rule
from dclint.units import Quantity, fmt

from ._shared import StorageRule

_DIRECTIONS: tuple[Literal["read", "write"], ...] = ("read", "write")


@rule("STO006", "storage-claim-exceeds-hardware", consequence="capacity", needs=("storage",))
class StorageClaimExceedsHardware(StorageRule):
    options = {
        "protocol_efficiency": Option(
            "90%", Share, "Highest share of NIC line rate a storage tier can deliver"
        ),
        "tolerance": Option(
            "5%", Share, "Allowed gap between an aggregate and nodes x per-node figure"
        ),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for index, tier in enumerate(design.storage.tiers):
            for direction in _DIRECTIONS:
                yield from _against_nics(index, tier, direction, ctx["protocol_efficiency"])
                found = _contradiction(index, tier, direction, ctx["tolerance"])
                if found is not None:
                    yield found


def _declared(
    tier: StorageTier, direction: Literal["read", "write"]
) -> tuple[Quantity | None, Quantity | None]:
    """The tier's declared aggregate and per-node bandwidth in one direction."""
    if direction == "read":
        return tier.read_bandwidth, tier.per_node_read_bandwidth
    return tier.write_bandwidth, tier.per_node_write_bandwidth


def _against_nics(
    index: int, tier: StorageTier, direction: Literal["read", "write"], efficiency: Quantity
) -> Iterator[Violation]:
    line = tier.line_rate()
    if line is None or tier.nics_per_node is None or tier.nic_speed is None:
        return
    eff = efficiency.m_as("percent")
    n = tier.nics_per_node
    nics = f"{n} NIC{'' if n == 1 else 's'}"
    ports = f" x {tier.ports_per_nic} ports" if tier.ports_per_nic > 1 else ""
    nic = f"{nics}{ports} x {fmt(tier.nic_speed.to('Gb/s'))}"
    node_line = tier.nic_speed * (n * tier.ports_per_nic)
    amplification = tier.write_amplification if direction == "write" else 1.0
    aggregate, per_node = _declared(tier, direction)
    claims: list[tuple[str, Quantity | None, Quantity, str]] = [
        (f"{direction}_bandwidth", aggregate, line, f"{tier.nodes} nodes x {nic}"),
        (f"per_node_{direction}_bandwidth", per_node, node_line, nic),
    ]
    for field, claim, carry, how in claims:
        if claim is None:
            continue
        what = f"{how} = {fmt(carry.to('GB/s'))} line rate"
        host = _host_link(tier, carry.m_as("GB/s") / node_line.m_as("GB/s"))
        if host is not None and host[0].m_as("GB/s") < carry.m_as("GB/s"):
            carry = host[0]
            what += f", but {host[1]} = {fmt(carry.to('GB/s'))}"
        limit = (carry * efficiency / amplification).to("GB/s")
        if claim.m_as("GB/s") <= limit.m_as("GB/s") * (1 + 1e-9):
            continue
        scope = "per-node" if field.startswith("per_node") else "aggregate"
        carried = "its NICs and host links carry" if host else "its NICs carry"
        copies = _amplification_text(tier) if amplification != 1.0 else ""
        yield Violation(
            ("storage", "tiers", index, field),
            f"storage tier {tier.id} claims {fmt(claim.to('GB/s'))} of {scope} {direction} "
            f"bandwidth, above what {carried}: {what} x {eff:g}% protocol efficiency"
            f"{copies}",
            subject=tier.id,
            measured=claim.to("GB/s"),
            limit=limit,
            fix="declare the measured bandwidth, or add storage nodes or NICs",
        )


def _host_link(tier: StorageTier, nodes: float) -> tuple[Quantity, str] | None:
    """What the NICs' PCIe slots move over `nodes` nodes, and how, where they are declared."""
    if tier.pcie_generation is None or tier.pcie_lanes is None or tier.nics_per_node is None:
        return None
    slot = pcie_link(tier.pcie_generation, tier.pcie_lanes)
    n = tier.nics_per_node
    count = f"{nodes:g} nodes x {n}" if nodes != 1 else f"{n}"
    how = (
        f"{count} PCIe {tier.pcie_generation}.0 x{tier.pcie_lanes} host link"
        f"{'' if n * nodes == 1 else 's'} x {fmt(slot)}"
    )
    return (slot * n * nodes).to("GB/s"), how


def _amplification_text(tier: StorageTier) -> str:
    if tier.replication is not None:
        return f" / {tier.replication} copies (replication {tier.replication})"
    amp = tier.write_amplification
    return f" / {amp:.4g} (erasure code {tier.erasure_code}: each write moves {amp:.4g}x its bytes)"


def _contradiction(
    index: int, tier: StorageTier, direction: Literal["read", "write"], tolerance: Quantity
) -> Violation | None:
    claim, per_node = _declared(tier, direction)
    if claim is None or per_node is None or tier.nodes is None:
        return None
    total = (per_node * tier.nodes).to("GB/s")
    gap = abs(claim.m_as("GB/s") - total.m_as("GB/s"))
    if gap <= total.m_as("GB/s") * tolerance.m_as("dimensionless") * (1 + 1e-9):
        return None
    return Violation(
        ("storage", "tiers", index, f"{direction}_bandwidth"),
        f"storage tier {tier.id} declares {fmt(claim.to('GB/s'))} of aggregate {direction} "
        f"bandwidth, but its {tier.nodes} nodes x {fmt(per_node.to('GB/s'))} per node make "
        f"another total (more than {fmt(tolerance.to('percent'))} apart)",
        subject=tier.id,
        measured=claim.to("GB/s"),
        limit=total,
        fix="make the aggregate equal nodes x the per-node figure, or correct one of them",
    )
