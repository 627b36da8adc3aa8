"""Every load a design declares, not only its racks: the fabrics' switches (catalog power,
overridable in the design's `catalog`), storage nodes (`node_power`) and fabric endpoints
(`power`), each with what it counts, for the site and generator totals; and where each is fed
and cooled, for the UPS, transformer and cooling totals: the elements it declares (`fed_by`,
`cooled_by`), else the supply and the halls of the racks it serves, pro rata by rack. A CDU's
own `power` (its pumps) joins the element it is fed by and the heat it passes; it is facility
load, in the PUE, not IT load."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from dclint.calc.power import load_basis, site_load
from dclint.model.source import Path
from dclint.model.topology import Topology
from dclint.units import Q_, fmt

__all__ = [
    "ItPart",
    "declared_loads",
    "default_note",
    "it_parts",
    "it_total_kw",
    "it_total_text",
    "sum_text",
]


@dataclass(frozen=True)
class ItPart:
    """One kind of load: what it is, how many, its total in kW, how it was counted, and where
    it is declared."""

    what: str
    count: int
    kw: float
    detail: str
    path: Path
    fed_by: tuple[str, ...] = ()  # declared power elements; () : the racks' supply, pro rata
    cooled_by: str | None = None  # a CDU or hall; None: the racks' halls, pro rata, to air
    racks: tuple[str, ...] = ()  # the racks it serves (the default allocation's basis)
    it: bool = True  # IT load; False: facility load (CDU pumps), in the PUE

    @property
    def allocation(self) -> str:
        """Where its power and heat are counted, for a message or the review."""
        fed = (
            f"fed by {', '.join(self.fed_by)}"
            if self.fed_by
            else f"on the supply of its {len(self.racks)} racks, pro rata"
        )
        if self.cooled_by is not None:
            cooled = f"cooled by {self.cooled_by}"
        else:
            cooled = "to air in its racks' halls, pro rata"
        return f"{fed}; {cooled}"


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
        where = _where(fabric.fed_by, fabric.cooled_by, _served(topo, fabric))
        out.append(
            ItPart("fabric switches", sum(counts.values()), kw, detail, ("fabrics", i), *where)
        )
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
                    *_where(fabric.fed_by, fabric.cooled_by, _served(topo, fabric)),
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
                *_where(st.fed_by, st.cooled_by, tuple(r.id for r in topo.racks)),
            )
        )
    return out


def _served(topo: Topology, fabric: Any) -> tuple[str, ...]:
    """The racks a fabric serves: its `racks`, else every rack with GPUs."""
    from dclint.calc.fabric_graph import fabric_racks

    return tuple(r.id for r in fabric_racks(topo.design, fabric))


def _where(
    fed_by: list[str] | None, cooled_by: str | None, racks: tuple[str, ...]
) -> tuple[tuple[str, ...], str | None, tuple[str, ...]]:
    """An ItPart's fed_by, cooled_by and racks served."""
    return tuple(fed_by or ()), cooled_by, racks


def declared_loads(topo: Topology, peak: bool = False) -> list[ItPart]:
    """Every load besides the racks: the IT parts after the racks (switches, endpoints, storage
    nodes), then each CDU that declares its `power` (its pumps: facility load, `it` False)."""

    def build() -> list[ItPart]:
        out = list(it_parts(topo, peak)[1:])
        for i, cdu in enumerate(topo.design.cooling.cdus):
            if cdu.power is None:
                continue
            kw = float(cdu.power.m_as("kW"))
            out.append(
                ItPart(
                    "CDU pumps",
                    1,
                    kw,
                    f"CDU {cdu.id}: {fmt(cdu.power, 'kW')} (declared)",
                    ("cooling", "cdus", i),
                    tuple(cdu.fed_by or ()),
                    cdu.id,
                    (),
                    False,
                )
            )
        return out

    return topo.derived.once((declared_loads, peak), build)


def sum_text(parts: list[tuple[str, float]], total: float | None = None) -> str:
    """'racks 580 kW + fabric switches 20.4 kW + storage nodes 11.6 kW', the parts of a total
    as messages and the review print them; a remainder of the `total` the parts do not cover
    (the losses of UPS systems below) is named too."""
    shown = [(w, kw) for w, kw in parts if abs(kw) > 1e-9]
    text = " + ".join(f"{w} {fmt(Q_(kw, 'kW'))}" for w, kw in shown)
    if total is not None:
        rest = total - sum(kw for _, kw in shown)
        if rest > 1e-6 * max(total, 1.0):
            text += f" + losses of the UPS below {fmt(Q_(rest, 'kW'))}"
    return text


def default_note(topo: Topology, whats: list[str], cooling: bool = False) -> str:
    """The loads among `whats` counted by the default allocation, as a message says so: 'fabric
    switches on the UPS of the racks they serve, pro rata by rack, as no fed_by is declared', or
    '' where every one declares its `fed_by` (`cooled_by` for `cooling`)."""
    by = {p.what: p for p in declared_loads(topo)}
    named = [
        w
        for w in dict.fromkeys(whats)
        if w in by and by[w].it and not (by[w].cooled_by if cooling else by[w].fed_by)
    ]
    if not named:
        return ""
    if cooling:
        return (
            f"{' and '.join(named)} to air in the halls of the racks they serve, pro rata by "
            "rack, as no cooled_by is declared"
        )
    return (
        f"{' and '.join(named)} on the UPS of the racks they serve, pro rata by rack, as no "
        "fed_by is declared"
    )


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
