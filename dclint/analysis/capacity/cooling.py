"""Capacity's cooling limits: CDU heat capacity and CDU flow for new liquid-cooled racks."""

from __future__ import annotations

from dclint.analysis.capacity.limits import Limit, NewRack, fits, summed
from dclint.calc.cooling import cdu_loads, loop_delta, required_flow
from dclint.model.topology import Topology
from dclint.units import Q_, fmt

__all__ = ["cooling_limits"]


def cooling_limits(topo: Topology, rack: NewRack) -> list[Limit]:
    """Racks go on any CDU that serves a loop (CDUs with no loop are taken as standby)."""
    heat = rack.liquid_heat
    if heat.m_as("kW") <= 0:
        return [Limit("CDU", "-", None, "air-cooled racks: no liquid heat")]
    loops = {loop.cdu: loop for loop, _, _ in reversed(topo.loops)}
    loads = {cid: load for cid, load in cdu_loads(topo).items() if cid in loops}
    if not loads:
        return [
            Limit(
                "CDU",
                "-",
                0,
                f"{fmt(heat)} of liquid heat a rack and no CDU loop",
                "a CDU and a loop that serves the new racks",
            )
        ]
    cap_parts, flow_parts = [], []
    for cid, load in loads.items():
        room = (load.cdu.capacity - load.heat).m_as("kW")
        cap_parts.append(
            (
                fits(room, heat.m_as("kW")),
                f"{cid}: {fmt(load.cdu.capacity)} - {fmt(load.heat)}"
                + (f" ({load.includes})" if load.includes else "")
                + f" = {fmt(Q_(room, 'kW'))}",
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
                    fits(free, flow.m_as("L/min")),
                    f"{cid}: {fmt(load.cdu.max_flow)} - {fmt(used)} = "
                    f"{fmt(Q_(free, 'L/min'))}, {fmt(flow)} a rack at dT {fmt(delta)}",
                )
            )
    out = [summed("CDU capacity", cap_parts, f"{fmt(heat)} a rack")]
    if flow_parts:
        out.append(summed("CDU flow", flow_parts, "flow Q / (rho cp dT)"))
    return out
