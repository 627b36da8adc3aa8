"""Network capex of a design's fabrics (the TCO's `network` item, and the share a workload's run
depreciates): switches x `cost.switch_price`, links x `cost.link_price`, optical modules x
`cost.transceiver_price`.

Links are the endpoint ports at the first tier and the uplinks between tiers. A link cabled
with `transceiver` (a tier's `cable`, else the fabric's `cabling.optics`; endpoint links take
the first tier's, uplinks the tier above's) takes an optical module at each end, and a module
carries the catalog's `links_per_transceiver` links of the cage it sits in: 2 in a twin-port
OSFP cage (QM9700 switches, DGX H100 nodes; NVIDIA LinkX: one 800G twin-port module carries two
400G NDR links), 1 elsewhere. A fabric in the explicit form (switches and links listed) is not
counted, and the notes say so.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from dclint.projection.money import sum_amounts
from dclint.units import Quantity, fmt

if TYPE_CHECKING:
    from dclint.model.design import Design
    from dclint.model.fabric import Fabric

__all__ = ["network_capex"]


def network_capex(design: Design, notes: list[str]) -> Quantity | None:
    """The fabrics' network capex at the declared prices; None when no price is declared.
    Prices in more than one currency are summed in the site's (CurrencyError without a rate)."""
    from dclint.calc.fabric_tiers import endpoint_ports
    from dclint.model.resolve import topology_of

    cost = design.cost
    prices = (cost.switch_price, cost.link_price, cost.transceiver_price)
    if all(p is None for p in prices):
        return None
    catalog = topology_of(design).catalog
    switches = links = optics = 0
    twin = False
    skipped = []
    for fabric in design.fabrics:
        if not fabric.tiers:
            if fabric.switches or fabric.links:
                skipped.append(fabric.id)
            continue
        optical = fabric.cabling.optics if fabric.cabling is not None else None
        cables = [t.cable or optical for t in fabric.tiers]
        per = [_per_module(catalog.switches.get(t.switch)) for t in fabric.tiers]
        switches += sum(t.count for t in fabric.tiers)
        ports = endpoint_ports(design, fabric)
        tier_links = [ports.total] + [low.count * low.uplinks for low in fabric.tiers[:-1]]
        links += sum(tier_links)
        for k, (n, cable) in enumerate(zip(tier_links, cables, strict=True)):
            if cable != "transceiver":
                continue
            upper = math.ceil(n / per[k])  # a module a port pair in twin-port cages
            if k == 0:
                nodes = _endpoint_modules(design, fabric)
                lower = (ports.gpu_ports if nodes is None else nodes) + ports.other
                twin = twin or nodes is not None
            else:
                lower = math.ceil(n / per[k - 1])
                twin = twin or per[k - 1] > 1
            optics += upper + lower
            twin = twin or per[k] > 1
    parts, terms = [], []
    for n, price, what in (
        (switches, cost.switch_price, "switches"),
        (links, cost.link_price, "links"),
        (optics, cost.transceiver_price, "transceivers"),
    ):
        if price is None:
            continue
        terms.append(price * n)
        parts.append(f"{n:,} {what} x {fmt(price)}")
    total = sum_amounts(terms, design.site.currency, design.site.exchange_rates)
    notes.append("network: " + " + ".join(parts) + " (counted tiers of the fabrics)")
    if twin and cost.transceiver_price is not None:
        notes.append("network: twin-port OSFP cages carry two links a transceiver (catalog)")
    if skipped:
        notes.append(f"network: fabrics {', '.join(skipped)} in the explicit form are not counted")
    return total


def _per_module(entry: object) -> int:
    return int(getattr(entry, "links_per_transceiver", 1) or 1)


def _endpoint_modules(design: Design, fabric: Fabric) -> int | None:
    """Optical modules at the GPU nodes' end of the first tier, where a platform's cages are
    twin-port: each node's (or rack's) NIC ports over the links a module carries; None where
    every platform takes one module a port (the ports themselves)."""
    from dclint.calc.fabric_graph import fabric_racks

    racks = fabric_racks(design, fabric)
    if all(_per_module(r.platform) == 1 for r in racks):
        return None
    total = 0
    for rack in racks:
        per = _per_module(rack.platform)
        node = rack.platform is not None and rack.platform.kind == "node"
        units = max(1, rack.nodes) if node else 1
        ports = math.ceil(rack.gpus * fabric.nics_per_gpu / units - 1e-9)
        total += units * math.ceil(ports / per)
    return total
