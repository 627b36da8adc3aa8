"""Capacity's facility limits (issue 32): the UPS systems and transformers above the template
rack (PWR009, PWR011: spare modules out, UPS losses carried upstream), the generator sets that
back it up (PWR012: IT x PUE with the spare sets out), its CDUs' facility water (CLG007), its
hall's air handlers (CLG010: heat to air and airflow with the spares out) and the floor under it
(STR001). Each limit counts what its rule counts, from the same calculators, and says what lifts
it."""

from __future__ import annotations

from typing import Any

from dclint.analysis.capacity.limits import EPS, Limit, NewRack, fits, summed
from dclint.calc.air import air_flow_needed, room_air
from dclint.calc.cooling import cdu_loads, required_flow
from dclint.calc.it_load import it_parts, it_total_text
from dclint.calc.power_chain import ElementLoad, GenerationLoad, chain_loads, generation_loads
from dclint.model.power_chain import Ups, rating_kw
from dclint.model.topology import Topology
from dclint.units import Q_, Quantity, fmt

__all__ = ["chain_limits", "peak_kw", "plant_limits"]

_G = 9.80665  # standard gravity, m/s^2, as STR001 converts kg/m^2 to kN/m^2


def _tidy(x: float, digits: int = 9) -> float:
    """A difference without float noise: -2.8e-14 kW is 0 kW (and never -0)."""
    return round(x, digits) + 0.0


def peak_kw(topo: Topology, rack: NewRack, peak: bool) -> float:
    """A new rack's load as the rules load it: its catalog peak (max_power) unless `peak` is
    off or the template it copies, of its platform, is `power_capped` (held to its design IT
    load, as rack_load_kw holds it), never below its design IT load."""
    load = rack.it_load.m_as("kW")
    spec = topo.catalog.platforms.get(rack.platform)
    t = rack.template
    capped = t is not None and t.power_capped and t.platform_key == rack.platform
    if peak and not capped and spec is not None and spec.max_power is not None:
        nodes = rack.nodes if spec.kind == "node" else 1
        load = max(load, spec.max_power.m_as("kW") * nodes)
    return float(load)


def _above(topo: Topology, rack: NewRack) -> dict[str, float]:
    """The transformers and UPS systems above the template rack's feeds, each with what one kW
    of rack load puts on it (1 / efficiency of each UPS between them: a UPS draws its output
    over its efficiency), in the order met going up."""
    t = rack.template
    found: dict[str, float] = {}
    if t is None:
        return found
    for feed in t.feeds:
        factor, up = 1.0, feed.model.panel
        seen: set[str] = set()
        while up is not None and up not in seen:
            seen.add(up)
            if up in topo.chain:
                item = topo.chain[up]
                found[up] = max(found.get(up, 0.0), factor)
                if isinstance(item.model, Ups):
                    eff = float(item.model.efficiency.m_as(""))
                    factor = factor / eff if eff > 0 else factor
                up = item.model.fed_by
            elif up in topo.panels:
                up = topo.panels[up].model.fed_by
            else:
                break
    return found


def _ancestors(topo: Topology, rack: NewRack) -> set[str]:
    """Every panel and element above the template rack's feeds."""
    t = rack.template
    out: set[str] = set()
    for feed in t.feeds if t is not None else []:
        up = feed.model.panel
        while up is not None and up not in out:
            out.add(up)
            element = topo.panels.get(up) or topo.chain.get(up)
            up = element.model.fed_by if element is not None else None
    return out


def chain_limits(topo: Topology, rack: NewRack, peak: bool = True) -> list[Limit]:
    """UPS systems (and the catchers that back them up), transformers and generator sets above
    the template rack: new racks go where it is. `peak`: their rules load the racks' peak
    (diagrams.power_basis of the rules in effect, as the review's one-line draws them)."""
    out: list[Limit] = []
    for cid, factor in _above(topo, rack).items():
        item = topo.chain[cid]
        ups = isinstance(item.model, Ups)
        load = chain_loads(topo, peak)[cid]
        per = peak_kw(topo, rack, peak) * factor
        room = _tidy(load.capacity_kw - load.load_kw)
        n = fits(room, per)
        lost = f" (1 / {1 / factor:.4g} UPS efficiency below)" if factor > 1 + EPS else ""
        out.append(
            Limit(
                "UPS (PWR009)" if ups else "transformer (PWR011)",
                cid,
                n,
                f"{fmt(Q_(load.capacity_kw, 'kW'))} ({load.capacity_text}) - "
                f"{fmt(Q_(load.load_kw, 'kW'))} carried {_basis(peak)}{_includes(topo, load)} "
                f"= {fmt(Q_(room, 'kW'))}; {fmt(Q_(per, 'kW'))} a rack{lost}",
                _chain_lift(item.model, load.load_kw, load.capacity_kw, per, n),
            )
        )
        if ups:
            out += _catchers(topo, cid, per, peak)
    out += _generation(topo, rack, peak)
    return out


def _includes(topo: Topology, load: ElementLoad) -> str:
    """' (racks 200 kW + fabric switches 6.8 kW; fabric switches on the UPS of the racks they
    serve, ...)' where the load holds more than racks, else ''."""
    if not load.includes:
        return ""
    note = load.allocation(topo)
    return f" ({load.includes}{'; ' + note if note else ''})"


def _basis(peak: bool) -> str:
    return "at peak" if peak else "at design load"


def _chain_lift(model: Any, load: float, cap: float, per: float, now: int) -> str:
    """'+1 module of 250 kVA (237.5 kW at PF 0.95): +1 rack' where a UPS's modules bind;
    else the rating a rack needs."""
    if isinstance(model, Ups) and model.module_rating is not None:
        module = rating_kw(model.module_rating, model.power_factor)
        left = model.modules - model.redundant_modules
        limits = [rating_kw(model.rating, model.power_factor), (left + 1) * module]
        if model.power is not None:
            limits.append(float(model.power.m_as("kW")))
        more = fits(min(limits) - load, per) - now
        if more > 0:
            return (
                f"+1 module of {fmt(model.module_rating)} ({fmt(Q_(module, 'kW'))}): "
                f"+{more} rack{'s' * (more != 1)}"
            )
        return f"a larger UPS frame: its {fmt(Q_(cap, 'kW'))} binds; {fmt(Q_(per, 'kW'))} a rack"
    kind = "UPS" if isinstance(model, Ups) else "transformer"
    kva = per / model.power_factor
    return (
        f"+{fmt(Q_(kva, 'kVA'))} of {kind} rating ({fmt(Q_(per, 'kW'))} at PF "
        f"{model.power_factor:g}): +1 rack"
    )


def _catchers(topo: Topology, cid: str, per: float, peak: bool) -> list[Limit]:
    """A catcher UPS that takes over `cid` must carry its own load and `cid`'s (PWR009)."""
    loads = chain_loads(topo, peak)
    out = []
    for catcher, item in topo.chain.items():
        if not isinstance(item.model, Ups) or cid not in item.model.catches:
            continue
        own, cap = loads[catcher].load_kw, loads[catcher].capacity_kw
        room = cap - own - loads[cid].load_kw
        out.append(
            Limit(
                "catcher UPS (PWR009)",
                catcher,
                fits(room, per),
                f"{fmt(Q_(cap, 'kW'))} - its own {fmt(Q_(own, 'kW'))} - {cid}'s "
                f"{fmt(Q_(loads[cid].load_kw, 'kW'))} it takes over = {fmt(Q_(room, 'kW'))}; "
                f"{fmt(Q_(per, 'kW'))} a rack",
                f"a larger catcher: +{fmt(Q_(per, 'kW'))} of output a rack",
            )
        )
    return out


def _generation(topo: Topology, rack: NewRack, peak: bool) -> list[Limit]:
    """Generator sets backing up the site or an element above the template rack (PWR012)."""
    above = _ancestors(topo, rack)
    pue, _ = topo.design.site.sizing_pue
    per = peak_kw(topo, rack, peak) * pue
    out = []
    for gl in generation_loads(topo, peak):
        gen = gl.generator
        if gen.serves is not None and gen.serves not in above:
            continue
        room = _tidy(gl.firm_kw - gl.load_kw)
        one = rating_kw(gen.site_rating, gen.power_factor)
        more = fits(one, per) if room >= 0 else fits(room + one, per)
        out.append(
            Limit(
                "generation (PWR012)",
                gen.id,
                fits(room, per),
                f"{gen.count - gen.redundant} of {gen.count} x {fmt(gen.site_rating)} = "
                f"{fmt(Q_(gl.firm_kw, 'kW'))} firm - {fmt(Q_(gl.it_kw, 'kW'))} IT "
                f"{_basis(peak)}{_it_includes(topo, gl, peak)} x PUE {pue:g} = "
                f"{fmt(Q_(room, 'kW'))}; "
                f"{fmt(Q_(per, 'kW'))} a rack (x PUE)",
                f"+1 generator of {fmt(gen.site_rating)} ({fmt(Q_(one, 'kW'))} site rating): "
                f"+{more} rack{'s' * (more != 1)}",
            )
        )
    return out


def _it_includes(topo: Topology, gl: GenerationLoad, peak: bool) -> str:
    """What a set's IT load includes where the site's loads besides the racks are in it: ' (racks
    326.4 kW at their peak; 12 fabric switches 20.4 kW: ...)'."""
    if gl.generator.serves is not None or len(it_parts(topo, peak)) < 2:
        return ""
    return f" {it_total_text(topo, peak)}"


def plant_limits(topo: Topology, rack: NewRack, footprint: Quantity | None = None) -> list[Limit]:
    """The CDUs' facility water (CLG007), the hall's air handlers (CLG010) and the floor under
    the rack (STR001, with `footprint` for a rack that declares none; no floor limit without
    it), where the design declares them."""
    return [*_facility_flow(topo, rack), *_air(topo, rack), *_floor(topo, rack, footprint)]


def _facility_flow(topo: Topology, rack: NewRack) -> list[Limit]:
    """Racks go on any CDU that serves a loop, as capacity's CDU limits place them."""
    heat = rack.liquid_heat
    if heat.m_as("kW") <= 0:
        return []
    serving = {loop.cdu for loop, _, _ in topo.loops}
    parts, lifts = [], []
    for cid, load in cdu_loads(topo).items():
        cdu = load.cdu
        given, rise = cdu.facility_flow, cdu.facility_temperature_rise
        if cid not in serving or given is None or rise is None:
            continue
        need = required_flow(load.heat, cdu.facility_coolant, rise).m_as("L/min")
        per = required_flow(heat, cdu.facility_coolant, rise).m_as("L/min")
        free = _tidy(given.m_as("L/min") - need)
        n = fits(free, per)
        parts.append(
            (
                n,
                f"{cid}: {fmt(given, 'L/min')} - {fmt(Q_(need, 'L/min'))} = "
                f"{fmt(Q_(free, 'L/min'))}, {fmt(Q_(per, 'L/min'))} a rack at "
                f"{fmt(rise.to('K'))} rise",
            )
        )
        lifts.append((n, f"+{fmt(Q_(per, 'L/min'))} of facility water to {cid}: +1 rack"))
    if not parts:
        return []
    limit = summed("CDU facility flow (CLG007)", parts, "facility flow Q / (rho cp dT)")
    lift = max(lifts)[1]  # on the CDU with the most room, where a new rack goes first
    return [Limit(limit.name, limit.subject, limit.racks, limit.detail, lift)]


def _air(topo: Topology, rack: NewRack) -> list[Limit]:
    """The template's hall: its air handlers' capacity and airflow with the spares out."""
    t = rack.template
    hall = t.hall if t is not None else None
    room = next((r for r in room_air(topo) if r.hall == hall), None)
    if room is None:
        return []
    air = rack.it_load.m_as("kW") - rack.liquid_heat.m_as("kW")
    h = room.handlers
    free = _tidy(room.capacity.m_as("kW") - room.heat.m_as("kW"))
    unit = h.capacity.m_as("kW")
    spares = f"{room.working} of {h.count} x {fmt(h.capacity, 'kW')}"
    out = [
        Limit(
            "air handlers (CLG010)",
            f"hall {room.hall}",
            fits(free, air),
            f"{spares} = {fmt(room.capacity)} - {fmt(room.heat)} to air"
            + (f" ({room.includes})" if room.includes else "")
            + f" = {fmt(Q_(free, 'kW'))}; {fmt(Q_(air, 'kW'))} a rack to air",
            f"+1 air handler of {fmt(h.capacity, 'kW')}: +{fits(unit, air)} racks",
        )
    ]
    given, rise = room.airflow, h.temperature_rise
    if given is not None and rise is not None and h.airflow is not None:
        need = air_flow_needed(room.heat, rise).m_as("m^3/s")
        per = air_flow_needed(Q_(air, "kW"), rise).m_as("m^3/s")
        left = _tidy(given.m_as("m^3/s") - need, 12)
        one = h.airflow.m_as("m^3/s")
        out.append(
            Limit(
                "air handler airflow (CLG010)",
                f"hall {room.hall}",
                fits(left, per),
                f"{fmt(given)} - {fmt(Q_(need, 'm^3/s'))} = {fmt(Q_(left, 'm^3/s'))}; "
                f"{fmt(Q_(per, 'm^3/s'))} a rack at {fmt(rise.to('K'))} rise",
                f"+1 air handler of {fmt(h.airflow)}: +{fits(one, per)} racks",
            )
        )
    return out


def _floor(topo: Topology, rack: NewRack, footprint: Quantity | None) -> list[Limit]:
    """The new rack's weight over its footprint against the floor where it stands (STR001):
    a per-rack limit, as the rack power limit is."""
    t = rack.template
    site = topo.design.site
    if t is None or t.weight is None or footprint is None:
        return []
    if t.platform_key != rack.platform:  # the template's weight is another platform's
        return []
    hall = site.halls.get(t.hall or "")
    rating = hall.floor_rating if hall is not None and hall.floor_rating is not None else None
    rating = rating if rating is not None else site.floor_rating
    if rating is None:
        return []
    area = t.footprint if t.footprint is not None else footprint
    per_area = float(t.weight.m_as("kg")) / float(area.m_as("m^2"))
    pressure = Q_(per_area * _G / 1000.0, "kN/m^2")
    mass = bool(rating.check("[mass]/[length]**2"))
    measured = (Q_(per_area, "kg/m^2") if mass else pressure).to(rating.units)
    over = measured.magnitude > float(rating.magnitude) * (1 + EPS)
    return [
        Limit(
            "floor load (STR001)",
            f"hall {t.hall}" if hall is not None and hall.floor_rating is not None else "site",
            0 if over else None,
            f"{fmt(t.weight, 'kg')} on {fmt(area, 'm^2')} = {fmt(pressure)}, "
            f"{'above' if over else 'within'} {fmt(rating)}",
            f"a load-spreading plinth (declare its footprint) or a floor rated for {fmt(pressure)}",
        )
    ]
