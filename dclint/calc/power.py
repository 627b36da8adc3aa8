"""Derived power figures: load allocated to each feed per path, and to each panel."""

from __future__ import annotations

from collections import defaultdict

from dclint.model.topology import FeedItem, PanelItem, Rack, Topology, derated_capacity
from dclint.units import Q_, Quantity

__all__ = ["NO_PATH", "feed_allocation", "feed_capacity_kw", "panel_allocation", "rack_paths"]

NO_PATH = "-"


def rack_paths(rack: Rack) -> dict[str, list[FeedItem]]:
    """A rack's feeds grouped by power path (feeds without a path form one group)."""
    paths: dict[str, list[FeedItem]] = defaultdict(list)
    for feed in rack.feeds:
        paths[feed.model.path or NO_PATH].append(feed)
    return dict(paths)


def feed_allocation(topo: Topology) -> dict[str, Quantity]:
    """Load each feed must carry, per path: a rack's whole load is shared by the feeds of each
    of its paths, because with the other path lost those feeds carry it all (2N). Summing over
    all feeds together, as DCIM tools do, would halve a 2N rack's apparent load."""

    def build() -> dict[str, Quantity]:
        kw: dict[str, float] = defaultdict(float)
        for rack in topo.racks:
            load = rack.it_load.m_as("kW")
            for feeds in rack_paths(rack).values():
                for feed in feeds:
                    kw[feed.id] += load / len(feeds)
        return {fid: Q_(kw.get(fid, 0.0), "kW") for fid in topo.feeds}

    if topo.derived.feed_allocation is None:
        topo.derived.feed_allocation = build()
    result = topo.derived.feed_allocation
    return result


def feed_capacity_kw(topo: Topology) -> dict[str, float]:
    """Derated capacity of every feed in kW, computed once per feed entry: the feeds of a
    range share one model, and pint arithmetic per feed is slow on large designs."""

    def build() -> dict[str, float]:
        by_entry: dict[int, float] = {}
        for feed in topo.feeds.values():
            if id(feed.model) not in by_entry:
                by_entry[id(feed.model)] = derated_capacity(feed.model).m_as("kW")
        return {fid: by_entry[id(f.model)] for fid, f in topo.feeds.items()}

    if topo.derived.feed_capacity_kw is None:
        topo.derived.feed_capacity_kw = build()
    result = topo.derived.feed_capacity_kw
    return result


def panel_subtree(panel: PanelItem) -> list[PanelItem]:
    """A panel and every panel fed from it, each once."""
    out: list[PanelItem] = []
    stack, seen = [panel], set()
    while stack:
        item = stack.pop()
        if item.id not in seen:
            seen.add(item.id)
            out.append(item)
            stack.extend(item.children)
    return out


def racks_below(panel: PanelItem) -> list[Rack]:
    """Racks fed from a panel or from panels below it, each once, in feed order."""
    found = {r.id: r for item in panel_subtree(panel) for f in item.feeds for r in f.racks}
    return list(found.values())


def panel_allocation(
    topo: Topology, panel: PanelItem, statuses: tuple[str, ...] = ("active", "planned")
) -> Quantity:
    """Load allocated to a panel: its feeds' allocations plus those of panels below it."""
    kw = 0.0
    for item in panel_subtree(panel):
        for feed in item.feeds:
            for rack in feed.racks:
                if rack.status not in statuses:
                    continue
                same_path = [f for f in rack.feeds if f.model.path == feed.model.path]
                kw += rack.it_load.m_as("kW") / len(same_path)
    return Q_(kw, "kW")
