"""Coolant properties and heat-flow arithmetic: Vdot = Q / (rho x cp x dT), CDU loads, and the
facility-to-secondary water temperatures of a CDU."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from dclint.model.cooling import Cdu, Loop
from dclint.model.source import Path
from dclint.model.topology import Rack, Topology
from dclint.units import Q_, Quantity, fmt

__all__ = [
    "ASHRAE_SUPPLY_LIMITS",
    "COOLANTS",
    "CduLoad",
    "CoolantProperties",
    "cdu_loads",
    "facility_supply",
    "heat_carried",
    "loop_delta",
    "loop_halls",
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
        "water",
        Q_(4.18, "kJ/(kg*K)"),
        Q_(997.0, "kg/m^3"),
        "water at 25 degC (NIST Chemistry WebBook, fluid properties of water)",
    ),
    "pg25": CoolantProperties(
        "PG25",
        Q_(3.92, "kJ/(kg*K)"),
        Q_(1021.5, "kg/m^3"),
        "25% propylene glycol at 25 degC (glycol makers' engineering tables, e.g. Dow DOWFROST)",
    ),
}

# Upper facility-water supply temperature of each ASHRAE liquid class (ASHRAE TC 9.9, Liquid
# Cooling Guidelines for Datacom Equipment Centers; classes W17...W45 and W+, which has none).
# They bound the facility (primary) water, not a CDU's secondary loop.
ASHRAE_SUPPLY_LIMITS: dict[str, Quantity | None] = {
    "W17": Q_(17.0, "degC"),
    "W27": Q_(27.0, "degC"),
    "W32": Q_(32.0, "degC"),
    "W40": Q_(40.0, "degC"),
    "W45": Q_(45.0, "degC"),
    "W+": None,
}


def loop_halls(racks: list[Rack]) -> list[str]:
    """The halls (site.halls keys) a loop's racks stand in, each once, in rack order."""
    return list(dict.fromkeys(r.hall for r in racks if r.hall is not None))


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


def facility_supply(cdu: Cdu, ashrae_class: str | None) -> tuple[Quantity | None, str]:
    """The facility water a CDU is designed to receive, and a phrase saying where the figure
    comes from: its declared `facility_supply_temperature`, else the upper limit of the site's
    ASHRAE class (the warmest water a plant of that class is built to deliver); None when
    neither is known."""
    if cdu.facility_supply_temperature is not None:
        temp = cdu.facility_supply_temperature
        return temp, f"facility water at {fmt(temp, 'degC')} (declared on the CDU)"
    limit = ASHRAE_SUPPLY_LIMITS.get(ashrae_class) if ashrae_class else None
    if limit is None:
        return None, ""
    return limit, f"facility water up to {fmt(limit, 'degC')} (ASHRAE {ashrae_class})"


@dataclass
class CduLoad:
    """Liquid heat on one CDU's loops; the flow they need (loops with dT <= 0 excluded) and the
    flow the racks are given (`coolant_flow`, or what a rack needs where it declares none)."""

    cdu: Cdu
    path: Path
    heat: Quantity = field(default_factory=lambda: Q_(0.0, "kW"))
    flow: Quantity = field(default_factory=lambda: Q_(0.0, "L/min"))
    given: Quantity = field(default_factory=lambda: Q_(0.0, "L/min"))
    loops: list[str] = field(default_factory=list)
    # the heat besides the racks' on its loops: ('fabric switches', kW), ('CDU pumps', kW) ...
    # (loads `cooled_by` it, and its own pumps' power); in `heat`, not in the loops' flow
    extra: list[tuple[str, float]] = field(default_factory=list)

    @property
    def includes(self) -> str:
        """'racks 816 kW + CDU pumps 15 kW', or '' where the racks' liquid heat is all of it."""
        if not self.extra:
            return ""
        from dclint.calc.it_load import sum_text

        racks = self.heat.m_as("kW") - sum(kw for _, kw in self.extra)
        return sum_text([("racks", racks), *self.extra])


def _heat(racks: list[Rack]) -> Quantity:
    kw = sum((r.it_load.m_as("kW") * r.liquid_fraction.m_as("") for r in racks), 0.0)
    return Q_(kw, "kW")


def _given(racks: list[Rack], loop: Loop, delta: Quantity) -> Quantity:
    """Flow the racks of a loop are given: each rack's `coolant_flow`, or what it needs where it
    declares none (nothing on a loop with no temperature rise, where no need can be computed)."""
    lpm = 0.0
    for rack in racks:
        if rack.coolant_flow is not None:
            lpm += rack.coolant_flow.m_as("L/min")
        elif delta.m_as("K") > 0:
            lpm += required_flow(rack.liquid_heat, loop.coolant, delta).m_as("L/min")
    return Q_(lpm, "L/min")


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
            load.given = load.given + _given(racks, loop, delta)
        from dclint.calc.it_load import declared_loads

        for part in declared_loads(topo):
            load = loads.get(part.cooled_by or "")
            if load is None or part.kw <= 0:
                continue
            load.heat = load.heat + Q_(part.kw, "kW")
            load.extra.append((part.what, part.kw))
        return loads

    return topo.derived.once(cdu_loads, build)
