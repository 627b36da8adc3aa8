"""`dclint capacity`: how many more racks of a platform fit before the first limit binds.

New racks copy a template (the first rack of that platform, else the first rack): new feeds like
its feeds, on any panel of the same path (keeping PWR002's headroom), any CDU serving a loop,
the compute fabrics it is on. Storage is never bound (STO001's demand comes from workloads,
not racks); the site allows utility capacity / PUE of IT load.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from dclint.calc.cooling import cdu_loads, loop_delta, required_flow
from dclint.calc.power import panel_allocation, rack_paths, racks_below
from dclint.model.ranges import RangeError, expand
from dclint.model.topology import PanelItem, Rack, Topology
from dclint.units import Q_, Quantity, fmt

__all__ = ["Capacity", "Limit", "NewRack", "capacity"]

_EPS = 1e-9


@dataclass(frozen=True)
class Limit:
    """One constraint: how many more racks it allows (None: not bound) and why."""

    name: str
    subject: str
    racks: int | None
    detail: str


@dataclass(frozen=True)
class NewRack:
    platform: str
    nodes: int
    gpus: int
    it_load: Quantity
    liquid_heat: Quantity
    template: Rack | None


@dataclass(frozen=True)
class Capacity:
    design: str
    rack: NewRack
    limits: list[Limit] = field(default_factory=list)

    @property
    def racks(self) -> int | None:
        bound = [lim.racks for lim in self.limits if lim.racks is not None]
        return min(bound) if bound else None

    @property
    def binding(self) -> list[Limit]:
        return [lim for lim in self.limits if lim.racks is not None and lim.racks == self.racks]


def _fits(room: float, per_rack: float) -> int:
    if per_rack <= 0:
        return 0 if room < 0 else 10**9
    return max(0, math.floor(room / per_rack + _EPS))


def new_rack(
    design: Any, platform: str, nodes: int | None = None, load: Quantity | None = None
) -> NewRack:
    """The rack to add; ValueError if the platform is unknown."""
    topo: Topology = design.topology
    spec = topo.catalog.platforms.get(platform)
    if spec is None:
        known = ", ".join(sorted(topo.catalog.platforms))
        raise ValueError(f"unknown platform '{platform}' (catalog: {known})")
    same = [r for r in topo.racks if r.platform_key == platform]
    template = same[0] if same else (topo.racks[0] if topo.racks else None)
    n = nodes or (same[0].nodes if same else 1)
    if spec.kind == "rack":
        n = 1
    if load is None:
        load = same[0].it_load if same and nodes in (None, same[0].nodes) else spec.power * n
    frac = same[0].liquid_fraction.m_as("") if same else spec.liquid_fraction
    gpus = spec.gpus * (n if spec.kind == "node" else 1)
    return NewRack(platform, n, gpus, load.to("kW"), (load * frac).to("kW"), template)


def capacity(design: Any, rack: NewRack, options: dict[str, dict[str, Any]]) -> Capacity:
    """Every limit for adding racks like `rack`; `options` are the typed rule options."""
    limits = [_rack_limit(rack, options)]
    limits += _power(design.topology, rack, options)
    limits += _cooling(design.topology, rack)
    limits += _fabric(design, rack)
    limits.append(
        Limit(
            "storage bandwidth (STO001)",
            "workloads",
            None,
            "3x the workloads' read demand; more racks add no demand",
        )
    )
    limits.append(_site(design, rack))
    return Capacity(design.name, rack, limits)


def _rack_limit(rack: NewRack, options: dict[str, dict[str, Any]]) -> Limit:
    opts = options["PWR001"]
    limit = opts["platform_limits"].get(rack.platform, opts["limit"])
    over = rack.it_load.m_as("kW") > limit.m_as("kW") * (1 + _EPS)
    word = "exceeds" if over else "within"
    return Limit(
        "rack power limit (PWR001)",
        rack.platform,
        0 if over else None,
        f"{fmt(rack.it_load)} a rack, {word} {fmt(limit.to('kW'))}",
    )


def _power(topo: Topology, rack: NewRack, options: dict[str, dict[str, Any]]) -> list[Limit]:
    t = rack.template
    if t is None or not t.feeds:
        return [Limit("power", "-", None, "no feeds on the template rack to copy")]
    load = rack.it_load.m_as("kW")
    spec = topo.catalog.platforms.get(rack.platform)
    if spec is not None and spec.max_power is not None and not options["PWR003"]["design_load"]:
        # feeds are sized for the rack's peak, as PWR003 loads them
        load = max(load, spec.max_power.m_as("kW") * (rack.nodes if spec.kind == "node" else 1))
    out = []
    for path, feeds in rack_paths(t).items():
        cap = sum(f.capacity.m_as("kW") for f in feeds)
        racks = 0 if load > cap * (1 + _EPS) else None
        out.append(
            Limit(
                "feeds (new, like the template's)",
                f"path {path}",
                racks,
                f"{len(feeds)} feed(s) like {'+'.join(f.id for f in feeds)}: "
                f"{fmt(Q_(cap, 'kW'))} a path for {fmt(Q_(load, 'kW'))}",
            )
        )
        out.append(_path_power(topo, rack, path, feeds, options))
    return out


def _path_power(
    topo: Topology, rack: NewRack, path: str, feeds: list[Any], options: dict[str, dict[str, Any]]
) -> Limit:
    """New racks may go on any panel of the template's path that feeds racks (each rack's
    path load on one panel); panels upstream bound the total (conservatively)."""
    load = rack.it_load.m_as("kW")
    panels = {f.model.panel for f in feeds}
    first = topo.panels.get(str(next(iter(panels))))
    if first is None or len(panels) > 1:
        return Limit(
            "power headroom (PWR002)",
            f"path {path}",
            None,
            "template feeds are on several or no panels: not computed",
        )
    same = [p for p in topo.panels.values() if p.feeds and p.model.path == first.model.path]
    candidates = same if first.model.path is not None else [first]
    parts, total, upstream = [], 0, set()
    for item in candidates:
        room, text = _room(topo, rack, item, options)
        n = _fits(room, load)
        total += n
        parts.append((n, f"{item.id}: {text}"))
        up = item.model.fed_by
        while up is not None and up in topo.panels and up not in upstream:
            upstream.add(up)
            up = topo.panels[up].model.fed_by
    for pid in sorted(upstream):
        room, text = _room(topo, rack, topo.panels[pid], options)
        n = _fits(room, load)
        total = min(total, n)
        parts.append((n, f"upstream {pid}: {text}"))
    limit = _summed("power headroom (PWR002)", parts, f"{fmt(rack.it_load)} a rack")
    return Limit(limit.name, f"path {path}", total, limit.detail)


def _room(
    topo: Topology, rack: NewRack, item: PanelItem, options: dict[str, dict[str, Any]]
) -> tuple[float, str]:
    reserve = options["PWR002"]["headroom"].m_as("kW")
    spec = topo.catalog.platforms.get(rack.platform)
    nvl = (spec is not None and spec.nvl72_class) or any(
        r.platform is not None and r.platform.nvl72_class for r in racks_below(item)
    )
    keep = reserve if nvl and item.model.phases == 3 and item.model.status == "active" else 0.0
    cap, used = item.capacity.m_as("kW"), panel_allocation(topo, item).m_as("kW")
    room = cap - used - keep
    return room, (
        f"{fmt(Q_(cap, 'kW'))} derated - {fmt(Q_(used, 'kW'))} allocated - "
        f"{fmt(Q_(keep, 'kW'))} kept = {fmt(Q_(room, 'kW'))}"
    )


def _cooling(topo: Topology, rack: NewRack) -> list[Limit]:
    """Racks go on any CDU that serves a loop (CDUs with no loop are taken as standby)."""
    heat = rack.liquid_heat
    if heat.m_as("kW") <= 0:
        return [Limit("CDU", "-", None, "air-cooled racks: no liquid heat")]
    loops = {loop.cdu: loop for loop, _, _ in reversed(topo.loops)}
    loads = {cid: load for cid, load in cdu_loads(topo).items() if cid in loops}
    if not loads:
        return [Limit("CDU", "-", 0, f"{fmt(heat)} of liquid heat a rack and no CDU loop")]
    cap_parts, flow_parts = [], []
    for cid, load in loads.items():
        room = (load.cdu.capacity - load.heat).m_as("kW")
        cap_parts.append(
            (
                _fits(room, heat.m_as("kW")),
                f"{cid}: {fmt(load.cdu.capacity)} - {fmt(load.heat)} = {fmt(Q_(room, 'kW'))}",
            )
        )
        delta = loop_delta(loops[cid])
        if delta.m_as("K") > 0:
            # as CLG003 checks a CDU: the larger of what its racks need and what they are given
            flow = required_flow(heat, loops[cid].coolant, delta)
            given = rack.template.coolant_flow if rack.template is not None else None
            if given is not None and given.m_as("L/min") > flow.m_as("L/min"):
                flow = given.to("L/min")
            used = max(load.flow.to("L/min"), load.given.to("L/min"), key=lambda q: q.magnitude)
            free = (load.cdu.max_flow - used).m_as("L/min")
            flow_parts.append(
                (
                    _fits(free, flow.m_as("L/min")),
                    f"{cid}: {fmt(load.cdu.max_flow)} - {fmt(used)} = "
                    f"{fmt(Q_(free, 'L/min'))}, {fmt(flow)} a rack at dT {fmt(delta)}",
                )
            )
    out = [_summed("CDU capacity", cap_parts, f"{fmt(heat)} a rack")]
    if flow_parts:
        out.append(_summed("CDU flow", flow_parts, "flow Q / (rho cp dT)"))
    return out


def _summed(name: str, parts: list[tuple[int, str]], tail: str) -> Limit:
    parts = sorted(parts, key=lambda p: -p[0])
    shown = [f"{text} -> {n}" for n, text in parts[:3]]
    more = [f"{len(parts) - 3} more"] if len(parts) > 3 else []  # long designs: top 3 only
    return Limit(
        name,
        "all" if len(parts) > 1 else parts[0][1].split(":")[0],
        sum(n for n, _ in parts),
        "; ".join([*shown, *more, tail]),
    )


def _fabric(design: Any, rack: NewRack) -> list[Limit]:
    topo: Topology = design.topology
    t = rack.template
    out: list[Limit] = []
    for fabric in design.fabrics:
        if fabric.kind != "compute" or not fabric.tiers:
            continue
        on = topo.racks
        if fabric.racks is not None:
            ids: set[str] = set()
            for pattern in fabric.racks:
                try:
                    ids.update(i for i, _ in expand(pattern))
                except RangeError:
                    continue
            if t is None or t.id not in ids:
                continue
            on = [r for r in topo.racks if r.id in ids]
        leaf = fabric.tiers[0]
        ports = leaf.count * leaf.downlinks
        used = sum(math.ceil(r.gpus * fabric.nics_per_gpu - _EPS) for r in on)
        others = sum(e.count * e.ports for e in fabric.endpoints)  # storage, UFM, gateways
        per_rack = math.ceil(rack.gpus * fabric.nics_per_gpu - _EPS)
        free = ports - used - others
        taken = f"{used} NICs" + (f" - {others} other endpoint ports" if others else "")
        out.append(
            Limit(
                "fabric ports",
                f"{fabric.id}.{leaf.name}",
                _fits(free, per_rack),
                f"{leaf.count} x {leaf.downlinks} downlinks - {taken} = "
                f"{free} free; {per_rack} NICs a rack",
            )
        )
    return out


def _site(design: Any, rack: NewRack) -> Limit:
    site = design.site
    if site.utility_capacity is None:
        return Limit("utility", "site", None, "site.utility_capacity not declared")
    budget = site.utility_power.m_as("kW") / site.pue  # a capacity in VA x the site's PF
    it = design.topology.it_load.m_as("kW")
    return Limit(
        "utility",
        "site",
        _fits(budget - it, rack.it_load.m_as("kW")),
        f"{fmt(site.utility_power)} / PUE {site.pue:g} = "
        f"{fmt(Q_(budget, 'kW'))} IT - {fmt(Q_(it, 'kW'))} = "
        f"{fmt(Q_(budget - it, 'kW'))}; {fmt(rack.it_load)} a rack",
    )
