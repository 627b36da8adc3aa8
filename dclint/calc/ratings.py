"""Standard ampere ratings of fuses and inverse-time circuit breakers, for fixes that raise a
circuit's rating: the next standard size, not an arbitrary number of amperes.

Source: NFPA 70 (NEC) 240.6(A), the standard ampere ratings 15 A to 6,000 A. IEC installations
use the preferred ratings of IEC 60898-1 / IEC 60947-2 frames, which coincide with most of
these above 100 A; a rating that is not standard where the design is built is the engineer's
call, so the fix is offered as unsafe (it changes the design).
"""

from __future__ import annotations

import math

__all__ = ["STANDARD_AMPERES", "next_standard_rating"]

STANDARD_AMPERES = (
    15, 20, 25, 30, 35, 40, 45, 50, 60, 70, 80, 90, 100, 110, 125, 150, 175, 200, 225, 250,
    300, 350, 400, 450, 500, 600, 700, 800, 1000, 1200, 1600, 2000, 2500, 3000, 4000, 5000,
    6000,
)  # fmt: skip


def next_standard_rating(amps: float) -> int | None:
    """The smallest standard rating of at least `amps` (None above 6,000 A)."""
    need = math.ceil(amps - 1e-9)
    return next((a for a in STANDARD_AMPERES if a >= need), None)
