"""What the power rules share: their family's metadata, and the pattern of an element of the
power chain (UPS, transformer, generator set) loaded beyond what it delivers with its spares
out (PWR009, PWR011, PWR012): the elements of one kind with their loads, what one carries in
words, its finding; the `design_load` option most of them take."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from dclint.api import (
    Context,
    Design,
    DesignPath,
    ElementLoad,
    Option,
    Rule,
    Topology,
    Violation,
    chain_feeds,
    chain_loads,
    load_basis,
    sharing_text,
    topology_of,
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


def over(value: float, limit: float) -> bool:
    """Whether a figure is above its limit, both in one unit (a load in kW over a capacity, a
    share over its limit): exactly at it passes, to a billionth of the limit."""
    return value > limit * (1 + _EPS)


@dataclass(frozen=True)
class Loaded:
    """An element of the power chain with the load it carries: its id, its entry in
    topology_of(design).chain (`item`: model, path, feeds), its `ElementLoad` (chain_loads) and
    whether the racks load it at their peak (catalog max_power) or their design IT load."""

    id: str
    item: Any
    load: ElementLoad
    topo: Topology
    peak: bool

    @property
    def over(self) -> bool:
        """Whether its load is above what it delivers with its spares out."""
        return over(self.load.load_kw, self.load.capacity_kw)

    def carried(self) -> str:
        """What it carries, in words: the default allocation of the loads besides the racks
        where one is used, then '12 racks at their peak (catalog max_power), in normal running'
        (or the single failure that puts its load on it)."""
        note = self.load.allocation(self.topo)
        racks = list({r.id: r for f in chain_feeds(self.item) for r in f.racks}.values())
        noted = f"{note}; " if note else ""
        basis = load_basis(racks, self.peak)
        return f"{noted}{self.load.racks} racks at their {basis}, {sharing_text(self.load.failure)}"


def chain_elements(design: Design, ctx: Context, kind: type) -> Iterator[Loaded]:
    """The power chain's elements of `kind` (`Ups`, `Transformer`) with their loads: the racks
    at their peak unless the rule's `design_load` option is on."""
    topo = topology_of(design)
    peak = not ctx["design_load"]
    loads = chain_loads(topo, peak)
    for cid, item in topo.chain.items():
        if isinstance(item.model, kind):
            yield Loaded(cid, item, loads[cid], topo, peak)


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
