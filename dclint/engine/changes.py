"""Fixes that several rules offer, built once: a rule passes them as `Violation.changes`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dclint.engine.rule import Change

if TYPE_CHECKING:
    from dclint.model.topology import FeedItem
    from dclint.units import Quantity

__all__ = ["rating_change"]


def rating_change(feed: FeedItem, load: Quantity, capacity: Quantity) -> tuple[Change, ...]:
    """Raise the feed's current rating to the next standard size (NEC 240.6(A)) whose derated
    capacity carries `load` (the capacity is linear in the current). Unsafe: it changes the
    design, and the panel above must carry it too (PWR008 checks)."""
    from dclint.calc.ratings import next_standard_rating
    from dclint.units import fmt

    amps = float(feed.model.current_rating.m_as("A"))
    cap_kw = float(capacity.m_as("kW"))
    if cap_kw <= 0:
        return ()
    need = next_standard_rating(amps * float(load.m_as("kW")) / cap_kw)
    if need is None or need <= amps:
        return ()
    return (
        Change(
            f"{need} A",
            f"feed {feed.id} current_rating {amps:g} A -> {need} A (the next standard rating, "
            f"NEC 240.6(A)) to carry {fmt(load)}",
            path=(*feed.path, "current_rating"),
        ),
    )
