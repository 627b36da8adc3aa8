"""Heat rejection on the site's worst days: each dry cooler, cooling tower or chiller set's
capacity at the design-day ambient against the heat of the CDUs it serves, and the freezing point
of its outdoor fluid against the site's minimum temperature."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from dclint.calc.cooling import cdu_loads
from dclint.model.cooling import HeatRejection
from dclint.model.source import Path
from dclint.model.topology import Topology
from dclint.units import Quantity

__all__ = [
    "PG_FREEZING_POINTS",
    "RejectionLoad",
    "freezing_point",
    "rejection_loads",
]

# Freezing point (degC) of propylene glycol - water by mass share of glycol (ASHRAE Handbook -
# Fundamentals, chapter 31, "Physical properties of secondary coolants", propylene glycol
# table; 25% -> -9.6 degC as the PG25 of dclint.calc.cooling). Linear between the points.
PG_FREEZING_POINTS: tuple[tuple[float, float], ...] = (
    (0.0, 0.0), (0.05, -1.6), (0.10, -3.3), (0.15, -5.1), (0.20, -7.1), (0.25, -9.6),
    (0.30, -12.7), (0.35, -16.4), (0.40, -21.1), (0.45, -26.7), (0.50, -33.5),
)  # fmt: skip


def freezing_point(coolant: str, share: float | None) -> float:
    """Freezing point in degC of water (0) or of propylene glycol at a mass share (linear
    between the table's points; above 50%, the 50% figure: the table ends there)."""
    if coolant != "propylene_glycol" or not share:
        return 0.0
    points = PG_FREEZING_POINTS
    if share >= points[-1][0]:
        return points[-1][1]
    for (s0, t0), (s1, t1) in pairwise(points):
        if s0 <= share <= s1:
            return t0 + (t1 - t0) * (share - s0) / (s1 - s0)
    return 0.0


@dataclass(frozen=True)
class RejectionLoad:
    """One heat-rejection set: the heat it must reject (kW), one unit's capacity at the
    design-day ambient (kW), and how that was derived."""

    unit: HeatRejection
    path: Path
    heat_kw: float
    unit_kw: float
    basis: str
    cdus: tuple[str, ...]

    @property
    def working(self) -> int:
        return max(self.unit.count - self.unit.redundant, 0)

    @property
    def firm_kw(self) -> float:
        """Capacity at the design-day ambient with the spare units out."""
        return self.working * self.unit_kw


def _design_ambient(topo: Topology, unit: HeatRejection) -> tuple[Quantity | None, str]:
    site = topo.design.site
    if unit.kind == "cooling_tower":
        return site.design_wet_bulb, "wet bulb"
    return site.design_dry_bulb, "dry bulb"


def _unit_capacity(topo: Topology, unit: HeatRejection) -> tuple[float, str]:
    """One unit's capacity at the design day: a dry cooler's or tower's rated capacity x
    (entering - design ambient) / (entering - rated ambient), the initial temperature difference
    that drives its heat transfer; never above its rating (no credit for a cooler day). A
    chiller, and a unit without the temperatures, keeps its rating."""
    rated = float(unit.capacity.m_as("kW"))
    ambient, bulb = _design_ambient(topo, unit)
    if unit.kind == "chiller":
        return rated, "rated capacity (a chiller is not derated: declare it at the design day)"
    if ambient is None or unit.rated_ambient is None or unit.entering_temperature is None:
        return (
            rated,
            "rated capacity (no design-day ambient, rated ambient or entering temperature)",
        )
    enter = float(unit.entering_temperature.m_as("degC"))
    design = float(ambient.m_as("degC"))
    rating = float(unit.rated_ambient.m_as("degC"))
    if enter <= rating:
        return rated, "rated capacity (entering temperature at or below the rated ambient)"
    factor = min(max(enter - design, 0.0) / (enter - rating), 1.0)
    return rated * factor, (
        f"{rated:.4g} kW rated at {rating:g} degC {bulb} x ({enter:g} - {design:g}) / "
        f"({enter:g} - {rating:g}) at the {design:g} degC design-day {bulb}"
    )


def rejection_loads(topo: Topology) -> list[RejectionLoad]:
    """Every heat-rejection set with the liquid heat of the CDUs it serves and its capacity at
    the design-day ambient."""

    def build() -> list[RejectionLoad]:
        loads = cdu_loads(topo)
        out = []
        for i, unit in enumerate(topo.design.cooling.heat_rejection):
            cdus = tuple(unit.serves) if unit.serves is not None else tuple(loads)
            heat = sum(loads[c].heat.m_as("kW") for c in cdus if c in loads)
            kw, basis = _unit_capacity(topo, unit)
            out.append(RejectionLoad(unit, ("cooling", "heat_rejection", i), heat, kw, basis, cdus))
        return out

    return topo.derived.once(rejection_loads, build)
