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
    "PG_VOLUME_SHARES",
    "RejectionLoad",
    "freezing_point",
    "rejection_loads",
]

# Freezing point (degC) of propylene glycol - water by the MASS share of glycol: ASHRAE Handbook -
# Fundamentals (2017, 2021), chapter 31, "Physical Properties of Secondary Coolants (Brines)",
# Table 5, "Freezing and Boiling Points of Aqueous Solutions of Propylene Glycol", which gives the
# same figures as Dow's "Engineering and Operating Guide for DOWFROST and DOWFROST HD" (freezing
# points of DOWFROST solutions, percent by weight and by volume). Checked against Melinder's
# correlation (IIR, "Properties of Secondary Working Fluids for Indirect Systems", 2010): -7.2,
# -12.8, -20.6, -32.2 degC at 20, 30, 40, 50% by mass, within 1.3 K. Linear between the points.
PG_FREEZING_POINTS: tuple[tuple[float, float], ...] = (
    (0.0, 0.0), (0.05, -1.6), (0.10, -3.3), (0.15, -5.1), (0.20, -7.1), (0.25, -9.6),
    (0.30, -12.7), (0.35, -16.4), (0.40, -21.1), (0.45, -26.7), (0.50, -33.5),
    (0.55, -41.1), (0.60, -51.1),
)  # fmt: skip

# The same solutions' share of glycol by VOLUME, point for point (the tables' volume column:
# 20% by mass is 19.4% by volume)
PG_VOLUME_SHARES: tuple[float, ...] = (
    0.0, 0.048, 0.096, 0.145, 0.194, 0.244, 0.294, 0.344, 0.396, 0.447, 0.499, 0.550, 0.600,
)  # fmt: skip


def freezing_point(coolant: str, share: float | None, basis: str = "mass") -> float:
    """Freezing point in degC of water (0) or of propylene glycol at a share by mass (or by
    volume, `basis`), linear between the table's points; above 60%, the 60% figure (the table
    ends there; a solution that strong is rarely pumped)."""
    if coolant != "propylene_glycol" or not share:
        return 0.0
    if basis == "volume":
        points = tuple(zip(PG_VOLUME_SHARES, (t for _, t in PG_FREEZING_POINTS), strict=True))
    else:
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
