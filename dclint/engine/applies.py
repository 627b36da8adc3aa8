"""What a rule needs a design to declare before it can say anything: a rule whose needs are
missing does not apply (JUnit marks it skipped, the review's scope statement says what was not
checked and why), rather than passing for want of anything to check.

A rule names its needs in `Rule.needs`, from the vocabulary below; each need is a test of the
design and the sentence that says it is missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["NEEDS", "missing"]


def _budget(d: Any) -> bool:
    return d.cost.budget is not None or any(w.budget is not None for w in d.workloads)


def _deadline(d: Any) -> bool:
    return d.cost.deadline is not None or any(w.deadline is not None for w in d.workloads)


NEEDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "racks": (lambda d: bool(d.racks), "the design declares no racks"),
    "panels": (lambda d: bool(d.power.panels), "the design declares no power panels"),
    "feeds": (lambda d: bool(d.power.feeds), "the design declares no power feeds"),
    "site_power": (
        lambda d: d.site.utility_capacity is not None or bool(d.power.panels),
        "the design declares no utility capacity and no panels",
    ),
    "cooling": (
        lambda d: bool(d.cooling.cdus or d.cooling.loops),
        "the design declares no CDUs or loops",
    ),
    "heat_rejection": (
        lambda d: bool(d.cooling.heat_rejection),
        "the design declares no heat rejection (cooling.heat_rejection)",
    ),
    "air_handlers": (
        lambda d: any(h.air_handlers is not None for h in d.site.halls.values()),
        "the design declares no air handlers (site.halls.<hall>.air_handlers)",
    ),
    "floor_rating": (
        lambda d: (
            d.site.floor_rating is not None
            or any(h.floor_rating is not None for h in d.site.halls.values())
        ),
        "the design declares no floor rating",
    ),
    "fabric": (lambda d: bool(d.fabrics), "the design declares no fabric"),
    "storage": (lambda d: bool(d.storage.tiers), "the design declares no storage tiers"),
    "workload": (lambda d: bool(d.workloads), "the design declares no training workload"),
    "budget": (_budget, "the design declares no budget"),
    "deadline": (_deadline, "the design declares no deadline"),
}


def missing(design: Any, needs: tuple[str, ...]) -> str:
    """Why a rule with `needs` cannot apply to `design` ('' when it can)."""
    for need in needs:
        present, why = NEEDS[need]
        if not present(design):
            return why
    return ""
