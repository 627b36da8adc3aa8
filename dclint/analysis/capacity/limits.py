"""Capacity's records and arithmetic: one limit, the rack to add, racks that fit a room."""

from __future__ import annotations

import math
from dataclasses import dataclass

from dclint.model.topology import Rack
from dclint.units import Quantity

__all__ = ["EPS", "Limit", "NewRack", "fits", "summed"]

EPS = 1e-9


@dataclass(frozen=True)
class Limit:
    """One constraint: how many more racks it allows (None: not bound) and why."""

    name: str
    subject: str
    racks: int | None
    detail: str
    lift: str = ""  # what lifts it, where the limit knows: '+1 module of 250 kVA: +1 rack'


@dataclass(frozen=True)
class NewRack:
    platform: str
    nodes: int
    gpus: int
    it_load: Quantity
    liquid_heat: Quantity
    template: Rack | None


def fits(room: float, per_rack: float) -> int:
    if per_rack <= 0:
        return 0 if room < 0 else 10**9
    return max(0, math.floor(room / per_rack + EPS))


def summed(name: str, parts: list[tuple[int, str]], tail: str) -> Limit:
    parts = sorted(parts, key=lambda p: -p[0])
    shown = [f"{text} -> {n}" for n, text in parts[:3]]
    more = [f"{len(parts) - 3} more"] if len(parts) > 3 else []  # long designs: top 3 only
    return Limit(
        name,
        "all" if len(parts) > 1 else parts[0][1].split(":")[0],
        sum(n for n, _ in parts),
        "; ".join([*shown, *more, tail]),
    )
