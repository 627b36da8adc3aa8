"""`dclint cost`: each workload's projection and each design's TCO, computed once for the
report (dclint.report.cost) to present."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dclint.projection import Projection, Tco, project_workloads, tco, unprojected

__all__ = ["Costs", "DesignCosts", "costs"]


@dataclass(frozen=True)
class DesignCosts:
    """One design's TCO, and the workloads it could not project with the reason of each."""

    name: str
    unprojected: list[tuple[str, str]]
    tco: Tco


@dataclass(frozen=True)
class Costs:
    """The projections of every workload of the designs, in order, and each design's costs."""

    projections: list[Projection]
    designs: list[DesignCosts]


def costs(designs: list[Any]) -> Costs:
    """The designs (loaded, calibrated) projected and priced."""
    return Costs(
        [p for d in designs for p in project_workloads(d)],
        [DesignCosts(d.name, list(unprojected(d)), tco(d)) for d in designs],
    )
