"""Derived power figures: load allocated to each feed per path, and to each panel."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any, cast

from dclint.model.site import Feed, Panel, is_apparent
from dclint.model.topology import (
    CONDUCTOR_TEMPERATURE,
    REFERENCE_AMBIENT,
    ChainItem,
    FeedItem,
    PanelItem,
    Rack,
    Topology,
    ambient_factor,
    apparent_capacity_kva,
)
from dclint.units import Q_, Quantity, fmt

__all__ = [
    "NO_PATH",
    "feed_allocation",
    "feed_capacity_kw",
    "feeds_below",
    "load_basis",
    "normal_feed_load_kw",
    "panel_allocation",
    "panel_share",
    "rack_load_kw",
    "rack_paths",
    "rack_power_limit",
    "racks_below",
    "rating_text",
    "site_load",
]

NO_PATH = "-"
_BELOW = "_feeds_below"  # feeds_below's result, kept on each PanelItem


def rack_load_kw(rack: Rack, peak: bool = False) -> float:
    """A rack's load in kW: its peak (catalog max_power, Rack.peak_load) or design IT load.
    A rack marked `power_capped` is held to its design IT load, peak or not."""
    top = peak and not rack.power_capped
    return float((rack.peak_load if top else rack.it_load).m_as("kW"))


def site_load(topo: Topology, peak: bool = False) -> Quantity:
    """The site's IT load, every rack (active and planned) at its peak or design IT load."""
    return Q_(sum((rack_load_kw(r, peak) for r in topo.racks), 0.0), "kW")


def rack_paths(rack: Rack) -> dict[str, list[FeedItem]]:
    """A rack's feeds grouped by power path (feeds without a path form one group)."""
    paths: dict[str, list[FeedItem]] = defaultdict(list)
    for feed in rack.feeds:
        paths[feed.model.path or NO_PATH].append(feed)
    return dict(paths)


def feed_allocation(topo: Topology, peak: bool = False) -> dict[str, Quantity]:
    """Load each feed must carry, per path: a rack's whole load is shared by the feeds of each
    of its paths, because with the other path lost those feeds carry it all (2N). Summing over
    all feeds together, as DCIM tools do, would halve a 2N rack's apparent load. `peak` loads
    each rack with its peak (catalog max_power) instead of its design IT load."""

    def build() -> dict[str, Quantity]:
        kw: dict[str, float] = defaultdict(float)
        for rack in topo.racks:
            load = rack_load_kw(rack, peak)
            for feeds in rack_paths(rack).values():
                for feed in feeds:
                    kw[feed.id] += load / len(feeds)
        return {fid: Q_(kw.get(fid, 0.0), "kW") for fid in topo.feeds}

    return topo.derived.once((feed_allocation, peak), build)


def normal_feed_load_kw(topo: Topology) -> dict[str, float]:
    """Each feed's design load in normal running, every feed live: a rack's IT load is shared
    by all its feeds (a 2N rack's A and B feeds carry half each)."""
    kw: dict[str, float] = defaultdict(float)
    for rack in topo.racks:
        if rack.feeds:
            share = rack.it_load.m_as("kW") / len(rack.feeds)
            for feed in rack.feeds:
                kw[feed.id] += share
    return {fid: kw.get(fid, 0.0) for fid in topo.feeds}


def feed_capacity_kw(topo: Topology) -> dict[str, float]:
    """Derated capacity of every feed in kW, computed once per feed entry: the feeds of a
    range share one model (and so one panel), and pint arithmetic per feed is slow on large
    designs."""

    def build() -> dict[str, float]:
        by_entry: dict[int, float] = {}
        for feed in topo.feeds.values():
            if id(feed.model) not in by_entry:
                by_entry[id(feed.model)] = feed.capacity.m_as("kW")
        return {fid: by_entry[id(f.model)] for fid, f in topo.feeds.items()}

    return topo.derived.once(feed_capacity_kw, build)


def panel_subtree(panel: PanelItem | ChainItem) -> list[PanelItem | ChainItem]:
    """A panel (or UPS, transformer) and every element fed from it, each once."""
    out: list[PanelItem | ChainItem] = []
    stack, seen = [panel], set()
    while stack:
        item = stack.pop()
        if item.id not in seen:
            seen.add(item.id)
            out.append(item)
            stack.extend(item.children)
    return out


def feeds_below(panel: PanelItem | ChainItem) -> list[FeedItem]:
    """Feeds of a panel and of every panel below it, in panel_subtree's order. Computed once
    for every panel of the subtree, children first: walking each panel's subtree again took
    seconds for a `fed_by` chain of a few thousand panels (quadratic)."""
    if _BELOW in panel.__dict__:
        return cast(list[FeedItem], panel.__dict__[_BELOW])
    order, stack = [], [panel]
    while stack:  # pre-order; the panels are a tree (resolve refuses cycles)
        item = stack.pop()
        if _BELOW not in item.__dict__:
            order.append(item)
            stack.extend(item.children)
    for item in reversed(order):  # children before their parent
        feeds = list(item.feeds)
        for child in reversed(item.children):  # panel_subtree visits the last child first
            feeds.extend(child.__dict__[_BELOW])
        item.__dict__[_BELOW] = feeds
    return cast(list[FeedItem], panel.__dict__[_BELOW])


def racks_below(panel: PanelItem | ChainItem) -> list[Rack]:
    """Racks fed from a panel or from panels below it, each once, in feed order."""
    found = {r.id: r for f in feeds_below(panel) for r in f.racks}
    return list(found.values())


def panel_share(rack: Rack, below: set[str]) -> float:
    """Share of a rack's load a panel carries when the feeds `below` it are fed from it: on
    each path, the share of that path's feeds below the panel (with the other paths lost they
    carry the whole rack); the largest over the paths. A rack whose A and B feeds both land
    under the panel counts once, not twice: either path may carry all of it, never both."""
    return max(
        (sum(f.id in below for f in feeds) / len(feeds) for feeds in rack_paths(rack).values()),
        default=0.0,
    )


def panel_allocation(
    topo: Topology,
    panel: PanelItem,
    statuses: tuple[str, ...] = ("active", "planned"),
    peak: bool = False,
) -> Quantity:
    """Load allocated to a panel from the racks fed by it or by panels below it, each rack
    once (panel_share): their design IT load, or with `peak` their peak (rack_load_kw), unless
    the panel is marked `power_capped`."""
    del topo  # the panel's subtree holds everything; kept for the callers' signature
    feeds = feeds_below(panel)
    below = {f.id for f in feeds}
    racks = {r.id: r for f in feeds for r in f.racks if r.status in statuses}
    top = peak and not panel.model.power_capped
    kw = sum((rack_load_kw(r, top) * panel_share(r, below) for r in racks.values()), 0.0)
    return Q_(kw, "kW")


def rating_text(circuit: Feed | Panel, volts: float | None = None) -> str:
    """How a derated capacity was derived, apparent and real power both, e.g.
    '415 V x 250 A three-phase at 80%: 143.8 kVA, x PF 0.95'."""
    kind = "three-phase" if circuit.phases == 3 else "single-phase"
    shown = circuit.voltage if volts is None else Q_(volts, "V")
    kva = apparent_capacity_kva(circuit, volts)
    text = (
        f"{fmt(shown, 'V')} x {fmt(circuit.current_rating, 'A')} {kind} at "
        f"{fmt(circuit.max_utilisation, 'percent')}{ambient_text(circuit)}: "
        f"{fmt(Q_(kva, 'kVA'))} x PF {circuit.power_factor:g}"
    )
    rating = circuit.rating if isinstance(circuit, Panel) else None
    if isinstance(circuit, Panel) and rating is not None:
        rating_kw = circuit.rating_kw or 0.0
        if rating_kw < kva * circuit.power_factor:
            pf = f" x PF {circuit.power_factor:g}" if is_apparent(rating) else ""
            named = f"nameplate {fmt(rating)}{pf}" if pf else "its nameplate"
            text = f"{named}, below {text}"
    return text


def ambient_text(circuit: Feed | Panel) -> str:
    """The ambient correction in a rating's text, e.g. ' x 0.8165 for 45 degC ambient (75 degC
    conductors, rated at 30 degC; NEC 310.15(B)(1))', or '' where no ambient is declared."""
    ambient = circuit.ambient_temperature
    if ambient is None:
        return ""
    tc, ref = circuit.conductor_temperature, circuit.reference_ambient
    tc_q = Q_(CONDUCTOR_TEMPERATURE, "degC") if tc is None else tc
    ref_q = Q_(REFERENCE_AMBIENT, "degC") if ref is None else ref
    return (
        f" x {ambient_factor(circuit):.4g} for {fmt(ambient, 'degC')} ambient ("
        f"{fmt(tc_q, 'degC')} conductors, rated at {fmt(ref_q, 'degC')}; NEC 310.15(B)(1), "
        "IEC 60364-5-52)"
    )


def load_basis(racks: list[Rack], peak: bool) -> str:
    """Which load a feed, panel or rack was given, for a message."""
    if not peak:
        return "design IT load (design_load = true)"
    free = [r for r in racks if not r.power_capped]
    capped = " (power-capped racks at their design IT load)" if len(free) < len(racks) else ""
    if not free:
        return "design IT load: power_capped"
    known = [r for r in free if r.platform is not None and r.platform.max_power is not None]
    if not known:
        return "design IT load: no catalog max_power known" + capped
    others = any(r.platform_key != known[0].platform_key for r in known)
    return (
        f"peak: catalog max_power of {known[0].platform_key}"
        + (" and others" if others else "")
        + capped
    )


def rack_power_limit(options: Mapping[str, Any], platform: str | None) -> Quantity:
    """The rack power limit for a rack of `platform` (its catalog key): the `platform_limits`
    entry, else `limit`; `options` are the typed options of PWR001. One home for the lookup
    the rule, the summary, `capacity` and `init` share."""
    limit: Quantity = options["platform_limits"].get(platform or "", options["limit"])
    return limit
