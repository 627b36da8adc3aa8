"""`dclint capacity`: how many more racks of a platform fit before the first limit binds.

New racks copy a template (the first rack of that platform, else the first rack): new feeds like
its feeds, on any panel of the same path (keeping PWR002's headroom), below the UPS systems and
transformers above it and the generator sets that back them up (`facility`), any CDU
serving a loop, its hall's air handlers and floor, the compute fabrics it is on. Storage is
never bound (STO001's demand comes from workloads, not racks); the site allows utility capacity
/ PUE of IT load, counted as PWR006 counts it (the racks at their peak, the switches and other
declared loads). `lift` says what lifts a binding limit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dclint.analysis.capacity.cooling import cooling_limits
from dclint.analysis.capacity.facility import chain_limits, peak_kw, plant_limits
from dclint.analysis.capacity.limits import EPS, Limit, NewRack, fits
from dclint.analysis.capacity.power import power_limits, rack_limit
from dclint.analysis.diagrams import UPSTREAM, power_basis
from dclint.calc.it_load import it_total_kw, it_total_text
from dclint.engine.shared import shared_settings
from dclint.model.ranges import RangeError, expand
from dclint.model.resolve import topology_of
from dclint.model.site import is_apparent
from dclint.model.topology import Topology
from dclint.units import Q_, Quantity, fmt

__all__ = ["Capacity", "Limit", "NewRack", "capacity", "lift"]


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
    topo: Topology = topology_of(design)
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


def capacity(
    design: Any,
    rack: NewRack,
    options: dict[str, dict[str, Any]],
    rules: Mapping[str, Any] | None = None,
) -> Capacity:
    """Every limit for adding racks like `rack`; `options` are the typed rule options, `rules`
    the rules in effect (default: the built-in ones), whose declarations say how the facility's
    limits count (the upstream rules' design_load, the floor rule's footprint)."""
    if rules is None:
        from dclint.engine.registry import discover

        rules = discover(plugins=False)
    basis = power_basis(rules, options)
    up_peak = basis.get(UPSTREAM, True)
    shared = shared_settings(options, rules or None)
    limits = [rack_limit(rack, shared)]
    limits += power_limits(topology_of(design), rack, shared, basis.get("panels", True))
    limits += chain_limits(topology_of(design), rack, up_peak)
    limits += cooling_limits(topology_of(design), rack)
    limits += plant_limits(topology_of(design), rack, _footprint(rules, options))
    limits += _fabric(design, rack)
    limits.append(
        Limit(
            "storage bandwidth (STO001)",
            "workloads",
            None,
            f"{shared.storage_read_factor:g}x the workloads' read demand; more racks add no demand",
        )
    )
    limits.append(_site(design, rack, basis.get("site_power", True)))
    return Capacity(design.name, rack, limits)


def _footprint(rules: Mapping[str, Any], options: dict[str, dict[str, Any]]) -> Any:
    """The default rack footprint of the rule that needs a floor rating and declares one."""
    for rid, rule in rules.items():
        if "floor_rating" in getattr(rule, "needs", ()) and rid in options:
            found = options[rid].get("footprint")
            if found is not None:
                return found
    return None


def _fabric(design: Any, rack: NewRack) -> list[Limit]:
    topo: Topology = topology_of(design)
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


def _site(design: Any, rack: NewRack, peak: bool = True) -> Limit:
    """The utility as PWR006 counts it: the site's whole IT load (the racks at their peak
    unless PWR006's `design_load` says otherwise, the fabrics' switches, storage and other
    declared loads) x the design-day PUE; the new racks at their peak too."""
    site = design.site
    if site.utility_capacity is None:
        return Limit("utility (PWR006)", "site", None, "site.utility_capacity not declared")
    topo = topology_of(design)
    pue = site.sizing_pue[0]  # the design day's where declared
    budget = site.utility_power.m_as("kW") / pue  # a capacity in VA x the site's PF
    it = it_total_kw(topo, peak)
    per = peak_kw(topo, rack, peak)
    given = fmt(site.utility_power)
    if is_apparent(site.utility_capacity):  # kVA: PWR006 compares it through the site's PF
        given = f"{fmt(site.utility_capacity)} x PF {site.power_factor:g} = {given}"
    return Limit(
        "utility (PWR006)",
        "site",
        fits(budget - it, per),
        f"{given} / PUE {pue:g} = "
        f"{fmt(Q_(budget, 'kW'))} IT - {fmt(Q_(it, 'kW'))} {it_total_text(topo, peak)} = "
        f"{fmt(Q_(budget - it, 'kW'))}; {fmt(Q_(per, 'kW'))} a rack",
        f"+{fmt(Q_(per * pue, 'kW'))} of utility capacity (rack load x PUE {pue:g}): +1 rack",
    )


def lift(design: Any, c: Capacity, binding: Limit) -> str:
    """What lifts a binding limit, in the form '+1 leaf switch: +2 racks': the limit's own
    where it knows (the facility's), else from the design."""
    if binding.lift:
        return binding.lift
    rack = c.rack
    if binding.name == "fabric ports":
        fid, _, tier = binding.subject.partition(".")
        fabric = next((f for f in design.fabrics if f.id == fid), None)
        if fabric is not None and fabric.tiers:
            leaf = fabric.tiers[0]
            per_rack = math.ceil(rack.gpus * fabric.nics_per_gpu - EPS)
            switches = max(1, math.ceil(per_rack / leaf.downlinks)) if leaf.downlinks else 1
            more = fits(switches * leaf.downlinks, per_rack)
            return (
                f"+{switches} {tier} switch{'es' * (switches != 1)} ({leaf.downlinks} "
                f"downlinks each, {per_rack} NICs a rack): +{more} rack{'s' * (more != 1)}"
            )
    if binding.name.startswith("rack power limit"):
        return "a lower rack load, or a higher rack power limit where the racks are rated for it"
    return f"more {binding.name} at {binding.subject}"
