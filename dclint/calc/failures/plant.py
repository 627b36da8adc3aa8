"""The failures of the plant outside the power distribution graph: the utility and a
generator of each set, each CDU, one pump of a CDU, one air handler of a hall and one
heat-rejection unit, each with its survivors judged (dclint.calc.failures.play plays them all)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from dclint.calc.failures.records import Failure, Survivor, kw_text
from dclint.calc.it_load import it_total_kw
from dclint.model.power_chain import Generator, rating_kw
from dclint.model.source import Path
from dclint.model.topology import Topology

__all__ = ["cooling_failures", "generation_failures"]


def generation_failures(
    topo: Topology, peak: bool, worst: dict[str, tuple[float, str | None]]
) -> list[Failure]:
    """The utility lost (the generator sets take the facility load, every unit running), and
    one generator of each set lost while it runs (the rest carry it). A set carries IT x PUE:
    the whole site's IT load, or the most the element it `serves` carries in any single
    failure (`worst`, which counts the losses of the UPS systems below it)."""
    if not topo.racks or (not topo.generators and topo.design.site.utility_capacity is None):
        return []
    site: Path = ("site", "utility_capacity")
    if not topo.generators:
        ids = tuple(r.id for r in topo.racks)
        moves = "no generators: the racks run on UPS batteries, where they have any"
        return [Failure("utility", "utility", site, "power", moves, None, (), ids)]
    pue, _ = topo.design.site.sizing_pue
    total = it_total_kw(topo, peak)  # racks, switches and the other declared loads
    sets: list[tuple[Generator, Path, float]] = []
    for gen, path in topo.generators:
        it = total if gen.serves is None else worst.get(gen.serves, (0.0, None))[0]
        sets.append((gen, path, it * pue))
    survivors = [Survivor(g.id, "generator", p, kw, g.count * _unit(g)) for g, p, kw in sets]
    moves = "facility load to " + ", ".join(f"{s.element} +{kw_text(s.load)}" for s in survivors)
    top = max(survivors, key=lambda s: (s.share, s.load))
    over = tuple(s for s in survivors if s.over)
    out = [Failure("utility", "utility", site, "power", moves, top, over)]
    for gen, path, kw in sets:
        left = gen.count - 1
        me = Survivor(gen.id, "generator", path, kw, left * _unit(gen))
        moves = f"on generator power, {left} of {gen.count} sets of {gen.id} run"
        out.append(Failure(gen.id, "generator", path, "power", moves, me, (me,) * me.over))
    return out


def _unit(gen: Generator) -> float:
    """One generator's site rating in kW."""
    return rating_kw(gen.site_rating, gen.power_factor)


def cooling_failures(topo: Topology) -> list[Failure]:
    """Each CDU lost (its group's others share its heat, but for its own pumps', in proportion
    to their capacity; with no group, the racks on its loops lose cooling) and one air handler
    of each hall lost."""
    from dclint.calc.air import room_air
    from dclint.calc.cooling import cdu_loads

    out: list[Failure] = []
    loads = cdu_loads(topo)
    groups: dict[str, list[str]] = defaultdict(list)
    for cid, load in loads.items():
        if load.cdu.redundancy_group is not None:
            groups[load.cdu.redundancy_group].append(cid)
    racks_on: dict[str, list[str]] = defaultdict(list)
    for loop, _, racks in topo.loops:
        racks_on[loop.cdu].extend(r.id for r in racks)
    for cid, load in loads.items():
        # its racks' heat and what it cools besides; its own pumps' heat stops with it
        own = load.cdu.power.m_as("kW") if load.cdu.power is not None else 0.0
        heat = load.heat.m_as("kW") - own
        group = groups.get(load.cdu.redundancy_group or "", [])
        others = [loads[o] for o in group if o != cid]
        if not others:
            lost = tuple(dict.fromkeys(racks_on.get(cid, [])))
            moves = f"{kw_text(heat)} of liquid heat lost: no CDU backs it up"
            out.append(Failure(cid, "cdu", load.path, "cooling", moves, None, (), lost))
            continue
        total = heat + sum(o.heat.m_as("kW") for o in others)
        cap = sum(o.cdu.capacity.m_as("kW") for o in others)
        survivors = [
            Survivor(
                o.cdu.id,
                "cdu",
                o.path,
                total * o.cdu.capacity.m_as("kW") / cap,
                o.cdu.capacity.m_as("kW"),
            )
            for o in others
        ]
        worst = max(survivors, key=lambda s: (s.share, s.load))
        moves = f"{kw_text(heat)} of liquid heat to " + ", ".join(o.cdu.id for o in others)
        over = tuple(s for s in survivors if s.over)
        out.append(Failure(cid, "cdu", load.path, "cooling", moves, worst, over))
    out.extend(_pumps(loads))
    out.extend(_rejection(topo))
    for room in room_air(topo):
        h = room.handlers
        left = h.count - 1
        me = Survivor(
            f"{room.hall} air handlers",
            "air handlers",
            room.path,
            room.heat.m_as("kW"),
            left * h.capacity.m_as("kW"),
        )
        ids = tuple(r.id for r in room.racks) if left == 0 else ()
        moves = f"{kw_text(me.load)} of heat to air on {left} of {h.count} units"
        out.append(
            Failure(
                f"{room.hall} air handler",
                "air handler",
                room.path,
                "cooling",
                moves,
                me,
                (me,) * me.over,
                ids,
            )
        )
    return out


def _pumps(loads: dict[str, Any]) -> list[Failure]:
    """One pump of each CDU that declares its pumps lost: the duty pumps move `max_flow`, so
    with a spare the flow holds; without one the others move (pumps - 1) / pumps of it, against
    the flow its loops need or are given (the more, as CLG003 counts it)."""
    out: list[Failure] = []
    for cid, load in loads.items():
        cdu = load.cdu
        if cdu.pumps is None:
            continue
        duty = max(cdu.pumps - cdu.redundant_pumps, 1)
        left = min(cdu.pumps - 1, duty)
        flow = cdu.max_flow.m_as("L/min") * left / duty
        need = max(load.flow.m_as("L/min"), load.given.m_as("L/min"))
        me = Survivor(cid, "cdu pumps", load.path, need, flow, "L/min")
        moves = f"{left} of {cdu.pumps} pumps of {cid} run ({duty} duty)"
        out.append(Failure(cid, "pump", load.path, "cooling", moves, me, (me,) * me.over))
    return out


def _rejection(topo: Topology) -> list[Failure]:
    """One unit of each heat-rejection set lost: the others reject the heat at the design-day
    ambient (dclint.calc.heat_rejection)."""
    from dclint.calc.heat_rejection import rejection_loads

    out: list[Failure] = []
    for load in rejection_loads(topo):
        u = load.unit
        left = u.count - 1
        me = Survivor(u.id, u.kind.replace("_", " "), load.path, load.heat_kw, left * load.unit_kw)
        moves = f"{kw_text(load.heat_kw)} on {left} of {u.count} units, at the design-day ambient"
        out.append(
            Failure(u.id, "heat rejection", load.path, "cooling", moves, me, (me,) * me.over)
        )
    return out
