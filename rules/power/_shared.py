"""What the power rules share: their family's metadata, and the pattern of an element of the
power chain (UPS, transformer, generator set) loaded beyond what it delivers with its spares
out (PWR009, PWR011, PWR012); the `design_load` option most of them take."""

from __future__ import annotations

from typing import Any, ClassVar

from dclint.api import (
    DesignPath,
    ElementLoad,
    Option,
    Rule,
    Violation,
    chain_feeds,
    load_basis,
    sharing_text,
)
from dclint.units import Q_

_EPS = 1e-9


class PowerRule(Rule):
    """A power rule: tagged `power`. A rule states only what differs."""

    tags: ClassVar[tuple[str, ...]] = ("power",)


class PowerRedundancyRule(PowerRule):
    """A power rule on what survives a failure (a feed, path, UPS or generator set lost)."""

    tags: ClassVar[tuple[str, ...]] = ("power", "redundancy")


def design_load(what: str) -> Option:
    """The `design_load` option: load `what` ('feeds', 'UPS systems') with the racks' design IT
    load instead of their catalog max_power (the peak)."""
    return Option(False, bool, f"Load {what} with the design IT load, not the catalog max_power")


def over(load_kw: float, capacity_kw: float) -> bool:
    """Whether a load is above a capacity (exactly at it passes)."""
    return load_kw > capacity_kw * (1 + _EPS)


def carried(load: ElementLoad, item: Any, peak: bool) -> str:
    """What a chain element (`item`, of topology_of(design).chain) carries, in words: '12 racks
    at their peak (catalog max_power), in normal running' (or the single failure that puts
    its load on it)."""
    racks = list({r.id: r for f in chain_feeds(item) for r in f.racks}.values())
    return f"{load.racks} racks at their {load_basis(racks, peak)}, {sharing_text(load.failure)}"


def overloaded(
    path: DesignPath, message: str, subject: str, load_kw: float, capacity_kw: float, fix: str
) -> Violation:
    """The finding of an element carrying `load_kw` above the `capacity_kw` it delivers."""
    return Violation(
        path,
        message,
        subject=subject,
        measured=Q_(load_kw, "kW"),
        limit=Q_(capacity_kw, "kW"),
        fix=fix,
    )
