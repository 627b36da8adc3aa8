"""A CDU's pump curve against its loops' pressure drop: the head the pumps give at the flow the
racks need, and the flow where pump and loop meet (the loop's drop rises as the square of the
flow)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from dclint.calc.cooling import cdu_loads
from dclint.model.cooling import PumpPoint
from dclint.model.source import Path
from dclint.model.topology import Topology

__all__ = ["PumpMatch", "head_at", "pump_matches"]


@dataclass(frozen=True)
class PumpMatch:
    """One CDU: the flow its loops need (L/min), the head its pumps give there (kPa; None
    beyond the curve), the largest loop drop at that flow (kPa) and its loop, and the flow
    where the pump curve meets that loop's curve (L/min)."""

    cdu: str
    path: Path
    need_lpm: float
    head_kpa: float | None
    drop_kpa: float
    loop: str
    operating_lpm: float

    @property
    def short(self) -> float:
        """Share of the needed flow the pumps do not deliver (0 where they do)."""
        return max(1.0 - self.operating_lpm / self.need_lpm, 0.0) if self.need_lpm > 0 else 0.0


def _points(curve: list[PumpPoint]) -> list[tuple[float, float]]:
    return sorted((p.flow.m_as("L/min"), p.head.m_as("kPa")) for p in curve)


def head_at(curve: list[PumpPoint], lpm: float) -> float | None:
    """Head in kPa at a flow, linear between the curve's points; the first point's head below
    it; None beyond its last point (the maker gives nothing there)."""
    pts = _points(curve)
    if lpm <= pts[0][0]:
        return pts[0][1]
    for (q0, h0), (q1, h1) in pairwise(pts):
        if q0 <= lpm <= q1:
            return h0 + (h1 - h0) * (lpm - q0) / (q1 - q0) if q1 > q0 else min(h0, h1)
    return None


def _operating(curve: list[PumpPoint], k: float) -> float:
    """Flow where head(Q) = k Q^2, by bisection over the curve's flow range."""
    pts = _points(curve)
    lo, hi = 0.0, pts[-1][0]
    if (head_at(curve, hi) or 0.0) - k * hi * hi >= 0:
        return hi
    for _ in range(60):
        mid = (lo + hi) / 2
        if (head_at(curve, mid) or 0.0) - k * mid * mid >= 0:
            lo = mid
        else:
            hi = mid
    return lo


def pump_matches(topo: Topology) -> list[PumpMatch]:
    """Every CDU with a pump curve and at least one loop with a declared pressure drop."""
    loads = cdu_loads(topo)
    drops: dict[str, tuple[float, str]] = {}
    for loop, _, _ in topo.loops:
        if loop.pressure_drop is not None:
            kpa = float(loop.pressure_drop.m_as("kPa"))
            if kpa > drops.get(loop.cdu, (-1.0, ""))[0]:
                drops[loop.cdu] = (kpa, loop.id)
    out = []
    for cid, load in loads.items():
        curve = load.cdu.pump_curve
        if not curve or cid not in drops:
            continue
        need = max(load.flow.m_as("L/min"), load.given.m_as("L/min"))
        if need <= 0:
            continue
        drop, worst = drops[cid]
        k = drop / (need * need)  # the worst loop's curve, scaled to the CDU's whole flow
        out.append(
            PumpMatch(cid, load.path, need, head_at(curve, need), drop, worst, _operating(curve, k))
        )
    return out
