"""Projected training time, memory, energy and cost of a design's workloads, and cluster TCO."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dclint.projection.money import CurrencyError
from dclint.projection.tco import Tco, tco
from dclint.projection.workloads import Projection, project_workloads, unprojected

if TYPE_CHECKING:
    from dclint.model.design import Design

__all__ = [
    "CurrencyError",
    "Projection",
    "Tco",
    "design_extras",
    "project_workloads",
    "tco",
    "unprojected",
]


def design_extras(design: Design) -> dict[str, Any]:
    """What `check --format json` adds to a design: its projections and TCO (never raises)."""
    try:
        return {
            "projections": [p.as_dict() for p in project_workloads(design)],
            "unprojected": [{"workload": w, "reason": r} for w, r in unprojected(design)],
            "tco": tco(design).as_dict(),
        }
    except Exception as exc:  # a report must not fail because a projection did
        return {"projections": [], "projection_error": f"{type(exc).__name__}: {exc}"}
