"""The records of the facility what-if grid: what each point needs, and what it found."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["GridPoint", "Setup"]


@dataclass(frozen=True)
class Setup:
    """What every point needs to rebuild the engine in its own process (all picklable)."""

    file: str
    workload: str | None
    sets: tuple[str, ...] = ()  # --set texts
    config: str | None = None
    rules_dirs: tuple[str, ...] = ()
    cli: dict[str, Any] = field(default_factory=dict)
    today: str | None = None
    by: str = "time"
    isolated: bool = False  # --isolated: no config file, dclint's defaults


@dataclass(frozen=True)
class GridPoint:
    values: tuple[str, ...]
    counts: dict[str, int]
    errors: list[str]
    best: dict[str, Any] | None  # the fastest layout, as `dclint plan --format json` gives it
    days: float | None
    run_cost: float | None
    tco: float | None
    currency: str | None
    note: str = ""
    pareto: bool = False

    @property
    def cost(self) -> float | None:
        return self.tco if self.tco is not None else self.run_cost
