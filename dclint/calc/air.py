"""The air side of a hall: the heat each room's racks reject to air, against its air handlers'
capacity with the spare units out, and the airflow that heat needs at the room's temperature
rise (Vdot = Q / (rho x cp x dT))."""

from __future__ import annotations

from dataclasses import dataclass, field

from dclint.calc.cooling import CoolantProperties
from dclint.model.cooling import AirHandlers
from dclint.model.source import Path
from dclint.model.topology import Rack, Topology
from dclint.units import Q_, Quantity

__all__ = ["AIR", "RoomAir", "air_flow_needed", "room_air"]

AIR = CoolantProperties(
    "air",
    Q_(1.006, "kJ/(kg*K)"),
    Q_(1.2, "kg/m^3"),
    "dry air at 20 degC and sea level (ASHRAE Handbook - Fundamentals: standard air, 1.2 kg/m3)",
)


@dataclass
class RoomAir:
    """One hall with declared air handlers: the heat its racks reject to air and what carries it."""

    hall: str
    handlers: AirHandlers
    path: Path  # the hall's air_handlers entry
    racks: list[Rack] = field(default_factory=list)
    # heat to air besides the racks': ('fabric switches', kW) ... (loads `cooled_by` the hall,
    # or the hall's share, pro rata by rack, of those that name no cooler)
    extra: list[tuple[str, float]] = field(default_factory=list)

    @property
    def rack_heat(self) -> Quantity:
        """The racks' heat to air: each rack's IT load x (1 - liquid fraction), at its design
        load."""
        return Q_(sum((r.air_heat.m_as("kW") for r in self.racks), 0.0), "kW")

    @property
    def heat(self) -> Quantity:
        """Heat to air: the racks' and the declared loads' besides them."""
        return Q_(self.rack_heat.m_as("kW") + sum(kw for _, kw in self.extra), "kW")

    @property
    def includes(self) -> str:
        """'racks 40 kW + fabric switches 20.4 kW', or '' where the racks are all of it."""
        if not self.extra:
            return ""
        from dclint.calc.it_load import sum_text

        return sum_text([("racks", self.rack_heat.m_as("kW")), *self.extra])

    @property
    def working(self) -> int:
        """Units left with the spares out: count - redundant."""
        return max(self.handlers.count - self.handlers.redundant, 0)

    @property
    def capacity(self) -> Quantity:
        """Sensible capacity with the spare units out."""
        return Q_(self.working * self.handlers.capacity.m_as("kW"), "kW")

    @property
    def airflow(self) -> Quantity | None:
        """Airflow with the spare units out, in m^3/s; None where no unit airflow is declared."""
        unit = self.handlers.airflow
        return None if unit is None else Q_(self.working * unit.m_as("m^3/s"), "m^3/s")


def air_flow_needed(heat: Quantity, rise: Quantity) -> Quantity:
    """Airflow that carries `heat` at a temperature rise `rise`: Q / (rho x cp x dT), in m^3/s."""
    kelvin = rise.m_as("K")
    if kelvin <= 0:
        raise ValueError(f"temperature rise must be positive, got {rise}")
    rho_cp = AIR.density.m_as("kg/m^3") * AIR.cp.m_as("kJ/(kg*K)")  # kJ/(m^3 K)
    return Q_(heat.m_as("kW") / (rho_cp * kelvin), "m^3/s")


def _extra(room: RoomAir, what: str, kw: float) -> None:
    """Add a declared load's heat to a room, one entry a kind of load."""
    for i, (w, have) in enumerate(room.extra):
        if w == what:
            room.extra[i] = (w, have + kw)
            return
    room.extra.append((what, kw))


def room_air(topo: Topology) -> list[RoomAir]:
    """Every hall that declares air handlers, with the racks that stand in it."""

    def build() -> list[RoomAir]:
        halls = topo.design.site.halls
        rooms = {
            key: RoomAir(key, hall.air_handlers, ("site", "halls", key, "air_handlers"))
            for key, hall in halls.items()
            if hall.air_handlers is not None
        }
        for rack in topo.racks:
            room = rooms.get(rack.hall or "")
            if room is not None:
                room.racks.append(rack)
        from dclint.calc.it_load import declared_loads

        for part in declared_loads(topo):
            if part.cooled_by is not None:  # a CDU's, or a hall's whole
                room = rooms.get(part.cooled_by)
                if room is not None:
                    _extra(room, part.what, part.kw)
                continue
            if not part.it or not part.racks:
                continue
            per = part.kw / len(part.racks)
            for rid in part.racks:
                served = topo.rack_by_id.get(rid)
                room = rooms.get(served.hall or "") if served is not None else None
                if room is not None:
                    _extra(room, part.what, per)
        return list(rooms.values())

    return topo.derived.once(room_air, build)
