"""Projected training time, memory, energy and cost of a design's workloads, and cluster TCO."""

from __future__ import annotations

from dclint.projection.money import CurrencyError
from dclint.projection.tco import Tco, tco
from dclint.projection.workloads import Projection, project_workloads, unprojected

__all__ = [
    "CurrencyError",
    "Projection",
    "Tco",
    "project_workloads",
    "tco",
    "unprojected",
]
