"""Every IT load a design declares, not only its racks: the fabrics' switches (catalog power,
overridable in the design's `catalog`), storage nodes (`node_power`) and fabric endpoints
(`power`), each with what it counts, for the site and generator totals."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from dclint.calc.power import load_basis, site_load
from dclint.model.source import Path
from dclint.model.topology import Topology
from dclint.units import Q_, fmt

__all__ = ["ItPart", "it_parts", "it_total_kw", "it_total_text"]


@dataclass(frozen=True)
class ItPart:
    """One kind of load: what it is, how many, its total in kW, how it was counted, and where
    it is declared."""

    what: str
    count: int
    kw: float
    detail: str
    path: Path


def it_parts(topo: Topology, peak: bool = False) -> list[ItPart]:
    """The racks (at their peak or design IT load) and every other declared load, in order:
    fabric switches, fabric endpoints, storage nodes. A fabric whose `switches_in_rack_load`
    is set adds nothing (its racks hold them); a switch the catalog gives no power for, and a
    node without a declared power, add nothing and are named in the detail."""
    return topo.derived.once((it_parts, peak), lambda: _parts(topo, peak))


def _parts(topo: Topology, peak: bool) -> list[ItPart]:
    design = topo.design
    out = [
        ItPart(
            "racks",
            len(topo.racks),
            float(site_load(topo, peak).m_as("kW")),
            f"at their {load_basis(topo.racks, peak)}",
            ("racks",),
        )
    ]
    switches = topo.catalog.switches
    for i, fabric in enumerate(design.fabrics):
        if fabric.switches_in_rack_load:
            continue
        counts: dict[str, int] = defaultdict(int)
        if fabric.switches:
            for sw in fabric.switches:
                counts[sw.model] += 1
        else:
            for tier in fabric.tiers:
                counts[tier.switch] += tier.count
        kw, said, unknown = 0.0, [], []
        for key, n in counts.items():
            model = switches.get(key)
            if model is None or model.power is None:
                unknown.append(f"{n} x {key}")
                continue
            each = float(model.power.m_as("kW"))
            kw += n * each
            said.append(f"{n} x {key} at {fmt(model.power, 'kW')}")
        if not counts:
            continue
        detail = f"fabric {fabric.id}: " + ", ".join(said) if said else f"fabric {fabric.id}"
        if said:
            detail += " (catalog power)"
        if unknown:
            detail += f"; not counted, no catalog power: {', '.join(unknown)}"
        out.append(ItPart("fabric switches", sum(counts.values()), kw, detail, ("fabrics", i)))
        for j, ep in enumerate(fabric.endpoints):
            if ep.power is None:
                continue
            out.append(
                ItPart(
                    f"{ep.name} nodes",
                    ep.count,
                    ep.count * float(ep.power.m_as("kW")),
                    f"fabric {fabric.id}: {ep.count} x {fmt(ep.power, 'kW')}",
                    ("fabrics", i, "endpoints", j),
                )
            )
    for i, st in enumerate(design.storage.tiers):
        if st.node_power is None or st.nodes is None:
            continue
        out.append(
            ItPart(
                f"storage {st.id} nodes",
                st.nodes,
                st.nodes * float(st.node_power.m_as("kW")),
                f"{st.nodes} x {fmt(st.node_power, 'kW')}",
                ("storage", "tiers", i),
            )
        )
    return out


def it_total_kw(topo: Topology, peak: bool = False) -> float:
    """The site's whole IT load in kW: the racks and every other declared load."""
    return sum(p.kw for p in it_parts(topo, peak))


def it_total_text(topo: Topology, peak: bool = False) -> str:
    """What the IT total includes, for a message: '(racks at their ...)' where the racks are all
    of it, else '(racks 326.4 kW at their ...; 12 fabric switches 20.4 kW: fabric compute: 12 x
    qm9700 at 1.7 kW (catalog power))'."""
    parts = it_parts(topo, peak)
    racks, others = parts[0], parts[1:]
    if not others:
        return f"(racks {racks.detail})"
    text = "; ".join(f"{p.count} {p.what} {fmt(Q_(p.kw, 'kW'))}: {p.detail}" for p in others)
    return f"(racks {fmt(Q_(racks.kw, 'kW'))} {racks.detail}; {text})"
