"""Coolant properties and heat-flow arithmetic: Vdot = Q / (rho x cp x dT), CDU loads."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from dclint.model.cooling import Cdu, Loop
from dclint.model.source import Path
from dclint.model.topology import Rack, Topology
from dclint.units import Q_, Quantity

__all__ = [
    "ASHRAE_SUPPLY_LIMITS",
    "COOLANTS",
    "CduLoad",
    "CoolantProperties",
    "cdu_loads",
    "heat_carried",
    "loop_delta",
    "required_flow",
]


@dataclass(frozen=True)
class CoolantProperties:
    """Specific heat and density of a coolant at 25 degC, with where the figures come from."""

    name: str
    cp: Quantity
    density: Quantity
    source: str


COOLANTS: dict[str, CoolantProperties] = {
    "water": CoolantProperties(
        "water", Q_(4.18, "kJ/(kg*K)"), Q_(997.0, "kg/m^3"), "DOMAIN.md: water at 25 degC"
    ),
    "pg25": CoolantProperties(
        "PG25", Q_(3.92, "kJ/(kg*K)"), Q_(1021.5, "kg/m^3"), "DOMAIN.md: PG25 at 25 degC"
    ),
}

# Upper facility-water supply temperature of each ASHRAE liquid class; W+ has none.
ASHRAE_SUPPLY_LIMITS: dict[str, Quantity | None] = {
    "W17": Q_(17.0, "degC"),
    "W27": Q_(27.0, "degC"),
    "W32": Q_(32.0, "degC"),
    "W40": Q_(40.0, "degC"),
    "W45": Q_(45.0, "degC"),
    "W+": None,
}


def loop_delta(loop: Loop) -> Quantity:
    """Return minus supply temperature, as a temperature difference in K (absolute degC
    values subtract to a delta; pint refuses to add them, which is the point)."""
    rise = loop.return_temperature.m_as("degC") - loop.supply_temperature.m_as("degC")
    return Q_(rise, "K")  # a difference of two degC readings is a rise in K


def required_flow(heat: Quantity, coolant: str, delta: Quantity) -> Quantity:
    """Volume flow that carries `heat` at a temperature rise `delta`: Q / (rho x cp x dT)."""
    kelvin = delta.m_as("K")
    if kelvin <= 0:
        raise ValueError(f"temperature rise must be positive, got {delta}")
    return Q_(heat.m_as("kW") * _lpm_per_kw_k(coolant) / kelvin, "L/min")


@cache
def _lpm_per_kw_k(coolant: str) -> float:
    """1 / (rho x cp) in L/min per (kW/K): pint works the units out once per coolant, and each
    rack's flow is then plain arithmetic (L/min = kW x this / K)."""
    props = COOLANTS[coolant]
    return float((Q_(1.0, "kW/K") / (props.density * props.cp)).m_as("L/min"))


def heat_carried(flow: Quantity, coolant: str, delta: Quantity) -> Quantity:
    """Heat a coolant stream carries: rho x Vdot x cp x dT."""
    props = COOLANTS[coolant]
    return (props.density * flow * props.cp * delta.to("K")).to("kW")


@dataclass
class CduLoad:
    """Liquid heat on one CDU's loops, and the flow they need (loops with dT <= 0 excluded)."""

    cdu: Cdu
    path: Path
    heat: Quantity = field(default_factory=lambda: Q_(0.0, "kW"))
    flow: Quantity = field(default_factory=lambda: Q_(0.0, "L/min"))
    loops: list[str] = field(default_factory=list)


def _heat(racks: list[Rack]) -> Quantity:
    kw = sum((r.it_load.m_as("kW") * r.liquid_fraction.m_as("") for r in racks), 0.0)
    return Q_(kw, "kW")


def cdu_loads(topo: Topology) -> dict[str, CduLoad]:
    """Every CDU with the liquid heat of the racks on its loops and the flow they need."""

    def build() -> dict[str, CduLoad]:
        loads = {cid: CduLoad(cdu, path) for cid, (cdu, path) in topo.cdus.items()}
        for loop, _, racks in topo.loops:
            load = loads.get(loop.cdu)
            if load is None:
                continue
            heat = _heat(racks)
            load.heat = load.heat + heat
            load.loops.append(loop.id)
            delta = loop_delta(loop)
            if delta.m_as("K") > 0:
                load.flow = load.flow + required_flow(heat, loop.coolant, delta)
        return loads

    if topo.derived.cdu_loads is None:
        topo.derived.cdu_loads = build()
    result = topo.derived.cdu_loads
    return result
