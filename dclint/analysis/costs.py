"""`dclint cost`: each workload's projection and each design's TCO, computed once for the
report (dclint.report.cost) to present."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import dclint.projection
from dclint.projection import Projection, Tco, tco, unprojected

__all__ = ["Costs", "DesignCosts", "costs"]


@dataclass(frozen=True)
class DesignCosts:
    """One design's TCO, the workloads it could not project with the reason of each, and the
    error that makes its projections no figure (dclint.engine.coverage.blocking, as the
    review reads it), or None."""

    name: str
    unprojected: list[tuple[str, str]]
    tco: Tco
    blocked: Any = None  # a Finding


@dataclass(frozen=True)
class Costs:
    """The projections of every workload of the designs, in order, and each design's costs."""

    projections: list[Projection]
    designs: list[DesignCosts]


def costs(designs: list[Any], blocked: list[Any] | None = None) -> Costs:
    """The designs (loaded, calibrated) projected and priced; `blocked`, one per design, the
    error that says it cannot run its workload as stated (or None)."""
    blocks = blocked or [None] * len(designs)
    return Costs(
        # looked up at call time: a stand-in set on dclint.projection (tests/test_diff.py)
        # is seen while it stands, and not after
        [p for d in designs for p in dclint.projection.project_workloads(d)],
        [
            DesignCosts(d.name, list(unprojected(d)), tco(d), b)
            for d, b in zip(designs, blocks, strict=True)
        ],
    )
