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

from dclint.analysis.capacity_cooling import cooling_limits
from dclint.analysis.capacity_limits import EPS, Limit, NewRack, fits
from dclint.analysis.capacity_power import power_limits, rack_limit
from dclint.model.ranges import RangeError, expand
from dclint.model.topology import Topology
from dclint.units import Q_, Quantity, fmt

__all__ = ["Capacity", "Limit", "NewRack", "capacity"]


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
    limits = [rack_limit(rack, options)]
    limits += power_limits(design.topology, rack, options)
    limits += cooling_limits(design.topology, rack)
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
        used = sum(math.ceil(r.gpus * fabric.nics_per_gpu - EPS) for r in on)
        others = sum(e.count * e.ports for e in fabric.endpoints)  # storage, UFM, gateways
        per_rack = math.ceil(rack.gpus * fabric.nics_per_gpu - EPS)
        free = ports - used - others
        taken = f"{used} NICs" + (f" - {others} other endpoint ports" if others else "")
        out.append(
            Limit(
                "fabric ports",
                f"{fabric.id}.{leaf.name}",
                fits(free, per_rack),
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
        fits(budget - it, rack.it_load.m_as("kW")),
        f"{fmt(site.utility_power)} / PUE {site.pue:g} = "
        f"{fmt(Q_(budget, 'kW'))} IT - {fmt(Q_(it, 'kW'))} = "
        f"{fmt(Q_(budget - it, 'kW'))}; {fmt(rack.it_load)} a rack",
    )
