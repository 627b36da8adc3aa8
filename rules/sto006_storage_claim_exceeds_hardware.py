"""Storage bandwidth claimed beyond what the tier's nodes and NICs can carry, or contradicted.

## What it does
For a storage tier that declares `nodes`, `nics_per_node` and `nic_speed` (one NIC's line
rate), flags a declared read or write bandwidth above nodes x NICs x line rate x
`protocol_efficiency` (default 90%): the aggregate (`read_bandwidth`, `write_bandwidth`) and
the per-node figures (`per_node_read_bandwidth`, `per_node_write_bandwidth`, against NICs x
line rate x efficiency). Flags too an aggregate that contradicts `nodes` x the declared
per-node figure by more than `tolerance` (default 5%), whatever the NICs.

## Why it matters
A storage vendor's aggregate figure is what STO001, STO002 and STO003 hold the design to; a
figure no network could carry makes every one of them pass on paper. The defaults:

- `protocol_efficiency` 90%: dclint's own default, above the best published share of line
  rate a parallel file system delivered: DeepSeek's 3FS read 6.6 TiB/s from 180 storage
  nodes with 2 x 200 Gb/s InfiniBand each (3FS README), 80.6% of their 9 TB/s.
- `tolerance` 5%: dclint's own default for rounding in datasheets; a wider gap means one of
  the two figures is wrong.

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
storage nodes or NICs; make the aggregate and the per-node figures agree.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from dclint.engine.rule import Context, Option, Rule, Violation
from dclint.model.design import Design
from dclint.model.storage import StorageTier
from dclint.units import Quantity, fmt

_DIRECTIONS: tuple[Literal["read", "write"], ...] = ("read", "write")


class StorageClaimExceedsHardware(Rule):
    id = "STO006"
    name = "storage-claim-exceeds-hardware"
    severity = "error"
    tags = ("storage",)
    needs = ("storage",)
    options = {
        "protocol_efficiency": Option(
            "90%", "share", "Highest share of NIC line rate a storage tier can deliver"
        ),
        "tolerance": Option(
            "5%", "share", "Allowed gap between an aggregate and nodes x per-node figure"
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
    nics = f"{tier.nics_per_node} NIC{'' if tier.nics_per_node == 1 else 's'}"
    nic = f"{nics} x {fmt(tier.nic_speed.to('Gb/s'))}"
    aggregate, per_node = _declared(tier, direction)
    claims: list[tuple[str, Quantity | None, Quantity, str]] = [
        (f"{direction}_bandwidth", aggregate, line, f"{tier.nodes} nodes x {nic}"),
        (f"per_node_{direction}_bandwidth", per_node, tier.nic_speed * tier.nics_per_node, nic),
    ]
    for field, claim, carry, how in claims:
        if claim is None:
            continue
        limit = (carry * efficiency).to("GB/s")
        if claim.m_as("GB/s") <= limit.m_as("GB/s") * (1 + 1e-9):
            continue
        scope = "per-node" if field.startswith("per_node") else "aggregate"
        yield Violation(
            ("storage", "tiers", index, field),
            f"storage tier {tier.id} claims {fmt(claim.to('GB/s'))} of {scope} {direction} "
            f"bandwidth, above what its NICs carry: {how} = {fmt(carry.to('GB/s'))} line rate "
            f"x {eff:g}% protocol efficiency = {fmt(limit)}",
            subject=tier.id,
            measured=claim.to("GB/s"),
            limit=limit,
            fix="declare the measured bandwidth, or add storage nodes or NICs",
        )


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
        f"bandwidth, but {tier.nodes} nodes x {fmt(per_node.to('GB/s'))} per node = "
        f"{fmt(total)} (more than {fmt(tolerance.to('percent'))} apart)",
        subject=tier.id,
        measured=claim.to("GB/s"),
        limit=total,
        fix="make the aggregate equal nodes x the per-node figure, or correct one of them",
    )
