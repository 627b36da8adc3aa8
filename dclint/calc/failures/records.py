"""The failure engine's records: a survivor of a failure, and a failure with what it does."""

from __future__ import annotations

from dataclasses import dataclass

from dclint.model.source import Path

__all__ = ["EPS", "Failure", "Survivor", "failure_name", "kw_text"]

EPS = 1e-9


def kw_text(kw: float) -> str:
    """A power in kW as messages print it ('528 kW')."""
    from dclint.units import Q_, fmt

    return fmt(Q_(kw, "kW"))


def failure_name(kind: str, element: str) -> str:
    """A failure's name in a table or message: 'UPS ups-1', 'feed a1'."""
    return f"{'UPS' if kind == 'ups' else kind} {element}"


@dataclass(frozen=True)
class Survivor:
    """An element left running after a failure, with the load it then carries and its capacity
    (kW, or L/min for a CDU's flow)."""

    element: str
    kind: str
    path: Path
    load: float
    capacity: float
    unit: str = "kW"

    @property
    def margin(self) -> float:
        """Capacity minus load: negative where the survivor is overloaded."""
        return self.capacity - self.load

    @property
    def share(self) -> float:
        if self.capacity > 0:
            return self.load / self.capacity
        return float("inf") if self.load > EPS else 0.0

    @property
    def over(self) -> bool:
        return self.load > self.capacity * (1 + EPS) + EPS


@dataclass(frozen=True)
class Failure:
    """One single failure: the element lost, what moves where, the worst survivor (the one
    nearest to or furthest over its capacity), every overloaded survivor, and the racks left
    without supply (power) or cooling."""

    element: str
    kind: str
    path: Path
    plant: str  # "power" or "cooling"
    moves: str
    worst: Survivor | None = None
    overloaded: tuple[Survivor, ...] = ()
    racks_lost: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """The failure as a table names it: 'UPS ups-1', 'feed a1', 'utility'."""
        return self.kind if self.element == self.kind else failure_name(self.kind, self.element)
