"""Capacity's power limits: the rack limit (PWR001), new feeds, panel headroom (PWR002)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from dclint.analysis.capacity.facility import peak_kw
from dclint.analysis.capacity.limits import EPS, Limit, NewRack, fits, summed
from dclint.calc.power import load_basis, panel_allocation, rack_paths, racks_below
from dclint.model.topology import PanelItem, Topology
from dclint.units import Q_, fmt

if TYPE_CHECKING:
    from dclint.engine.shared import Shared

__all__ = ["power_limits", "rack_limit"]


def rack_limit(rack: NewRack, shared: Shared) -> Limit:
    if rack.template is not None:  # the envelope the template's row, hall or site declares
        limit = rack.template.power_limit(shared.rack_power_limit, shared.platform_rack_limits)[0]
    else:
        limit = shared.rack_limit(rack.platform)
    over = rack.it_load.m_as("kW") > limit.m_as("kW") * (1 + EPS)
    word = "exceeds" if over else "within"
    return Limit(
        "rack power limit (PWR001)",
        rack.platform,
        0 if over else None,
        f"{fmt(rack.it_load)} a rack, {word} {fmt(limit.to('kW'))}",
    )


def power_limits(
    topo: Topology, rack: NewRack, shared: Shared, panel_peak: bool = True
) -> list[Limit]:
    """The new feeds, each path's panel headroom (PWR002, on the design IT load) and each
    path's panel rating (PWR008, on the racks' peak unless `panel_peak` is off)."""
    t = rack.template
    if t is None or not t.feeds:
        return [Limit("power", "-", None, "no feeds on the template rack to copy")]
    # feeds are sized for the rack's peak, as PWR003 loads them (a power_capped template's:
    # its design IT load)
    load = peak_kw(topo, rack, not shared.feeds_carry_design_load)
    out = []
    for path, feeds in rack_paths(t).items():
        cap = sum(f.capacity.m_as("kW") for f in feeds)
        racks = 0 if load > cap * (1 + EPS) else None
        one = min(f.capacity.m_as("kW") for f in feeds)
        need = math.ceil(load / one - EPS) if one > 0 else len(feeds)
        out.append(
            Limit(
                "feeds (new, like the template's)",
                f"path {path}",
                racks,
                f"{len(feeds)} feed{'s' * (len(feeds) != 1)} like {'+'.join(f.id for f in feeds)}: "
                f"{fmt(Q_(cap, 'kW'))} a path for {fmt(Q_(load, 'kW'))}",
                f"{need} feed{'s' * (need != 1)} like {feeds[0].id} on a path "
                f"({fmt(Q_(one, 'kW'))} each) carry {fmt(Q_(load, 'kW'))}"
                if one > 0
                else f"feed {feeds[0].id} carries nothing (derated to 0 kW at its ambient): no "
                f"count of such feeds carries {fmt(Q_(load, 'kW'))}; use conductors rated "
                "above its ambient temperature",
            )
        )
        out.append(_path_power(topo, rack, path, feeds, shared))
        out.append(_path_rating(topo, rack, path, feeds, panel_peak))
    return out


def _path_panels(topo: Topology, feeds: list[Any]) -> tuple[PanelItem, list[PanelItem]] | None:
    """The template's panel and the panels new racks may go on: every panel of its path that
    feeds racks (the panel alone where it has no path); None where its feeds are on several
    panels or none."""
    panels = {f.model.panel for f in feeds}
    first = topo.panels.get(str(next(iter(panels))))
    if first is None or len(panels) > 1:
        return None
    same = [p for p in topo.panels.values() if p.feeds and p.model.path == first.model.path]
    return first, same if first.model.path is not None else [first]


def _upstream(topo: Topology, panels: list[PanelItem]) -> list[str]:
    """The panels upstream of `panels`, by id, that bound them; UPS systems and transformers
    on the way have their own limits (PWR009/PWR011)."""
    seen: set[str] = set()
    for item in panels:
        up = item.model.fed_by
        while up is not None and up not in seen:
            element = topo.panels.get(up) or topo.chain.get(up)
            if element is None:
                break
            seen.add(up)
            up = element.model.fed_by
    return [pid for pid in sorted(seen) if pid not in topo.chain]


def _path_rating(topo: Topology, rack: NewRack, path: str, feeds: list[Any], peak: bool) -> Limit:
    """PWR008 on the panels new racks may go on (as _path_power places them) and those
    upstream of them: each panel's derated capacity against its racks at their peak (catalog
    max_power, as PWR008 loads a panel; the design IT load where `peak` is off or the panel
    is power_capped), so a panel PWR002's headroom on the design load leaves room on is not
    filled past its rating."""
    found = _path_panels(topo, feeds)
    if found is None:
        return Limit(
            "panel rating (PWR008)",
            f"path {path}",
            None,
            "template feeds are on several or no panels: not computed",
        )
    first, candidates = found

    def room(item: PanelItem) -> tuple[float, float, str, str]:
        top = peak and not item.model.power_capped
        per = peak_kw(topo, rack, top)
        cap = item.capacity.m_as("kW")
        used = panel_allocation(topo, item, peak=top).m_as("kW")
        basis = (
            "design IT load: panel power_capped"
            if peak and not top
            else load_basis(racks_below(item), top)
        )
        return (
            cap - used,
            per,
            f"{fmt(Q_(cap, 'kW'))} derated - {fmt(Q_(used, 'kW'))} of racks = "
            f"{fmt(Q_(cap - used, 'kW'))}",
            basis,
        )

    parts, bases, total = [], [], 0
    for item in candidates:
        left, per, text, basis = room(item)
        n = fits(left, per)
        total += n
        parts.append((n, f"{item.id}: {text}"))
        bases.append(basis)
    for pid in _upstream(topo, candidates):
        left, per, text, basis = room(topo.panels[pid])
        n = fits(left, per)
        total = min(total, n)
        parts.append((n, f"upstream {pid}: {text}"))
        bases.append(basis)
    _, per, _, _ = room(first)
    if len(set(bases)) > 1:  # each panel's racks on their own basis: said with each
        parts = [(n, f"{text} at their {b}") for (n, text), b in zip(parts, bases, strict=True)]
        tail = f"{fmt(Q_(per, 'kW'))} a rack"
    else:  # one basis: said once
        tail = f"racks at their {bases[0]}; {fmt(Q_(per, 'kW'))} a rack"
    limit = summed("panel rating (PWR008)", parts, tail)
    more = fits(first.capacity.m_as("kW"), per)
    lift = (
        f"+1 {first.model.kind} like {first.id} ({fmt(first.capacity)} derated): "
        f"+{more} rack{'s' * (more != 1)}"
    )
    return Limit(limit.name, f"path {path}", total, limit.detail, lift)


def _path_power(
    topo: Topology, rack: NewRack, path: str, feeds: list[Any], shared: Shared
) -> Limit:
    """New racks may go on any panel of the template's path that feeds racks (each rack's
    path load on one panel); panels upstream bound the total (conservatively)."""
    load = rack.it_load.m_as("kW")
    found = _path_panels(topo, feeds)
    if found is None:
        return Limit(
            "power headroom (PWR002)",
            f"path {path}",
            None,
            "template feeds are on several or no panels: not computed",
        )
    first, candidates = found
    parts, total = [], 0
    for item in candidates:
        room, text = _room(topo, rack, item, shared)
        n = fits(room, load)
        total += n
        parts.append((n, f"{item.id}: {text}"))
    for pid in _upstream(topo, candidates):
        room, text = _room(topo, rack, topo.panels[pid], shared)
        n = fits(room, load)
        total = min(total, n)
        parts.append((n, f"upstream {pid}: {text}"))
    limit = summed("power headroom (PWR002)", parts, f"{fmt(rack.it_load)} a rack")
    room, _ = _room(topo, rack, first, shared)
    fresh = room + panel_allocation(topo, first).m_as("kW")  # an empty one: capacity - kept
    more = fits(fresh, load)
    lift = (
        f"+1 {first.model.kind} like {first.id} ({fmt(first.capacity)} derated, PWR002's "
        f"headroom kept): +{more} rack{'s' * (more != 1)}"
    )
    return Limit(limit.name, f"path {path}", total, limit.detail, lift)


def _room(topo: Topology, rack: NewRack, item: PanelItem, shared: Shared) -> tuple[float, str]:
    reserve = shared.feed_headroom.m_as("kW")
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
