"""Redundantly fed rack whose surviving feeds cannot carry it when one feed or path fails.

## What it does
For every rack with two or more feeds (A/B 2N, or N+1 feeds on one path), plays each single
failure: the loss of one of its feeds, and, where the site has two or more power paths, the
loss of a whole path (every feed of that path across the site). A rack's load is shared
equally by its live feeds; racks untouched by the failure keep their normal share. Racks are
loaded with their peak (catalog `max_power` where known, as PWR003), or with their design IT
load when `design_load = true`; the message says which. Flags the rack when, in some failure,
one of its surviving feeds would carry more than its derated capacity (sqrt(3) x V x I x PF x
max utilisation), naming the worst case. Exactly at the capacity passes. Racks with a single
feed are not redundant and are not checked; a path whose loss takes all of a rack's feeds is
not a failure this rack is built to ride through.

## Why it matters
A 2N or N+1 rack is only redundant if, with one feed or path lost, the survivors carry its
whole load within their derated capacity (Uptime Institute Tier III/IV concurrent
maintainability and fault tolerance; NEC 210.20(A) for the 80% continuous limit). DCIM tools
(NetBox, Nautobot) judge a rack over all its feeds together and never play the N-1 case. With
N+1 feeds on one path, per-path allocation (PWR003) looks fine while one lost whip overloads
the others. For a 2N rack the loss of a path is also what PWR003 measures on each feed: an
undersized A/B pair gets the feed findings from PWR003 and this rack finding.

Sources: Uptime Institute, Tier Standard: Topology; NEC 210.20(A).

## Example
```yaml
racks:
  - id: r1
    platform: gb200-nvl72
    feeds: [n1, n2, n3]   # 415 V / 115 A: PWR004, with n1 lost n2 carries 66 of 62.82 kW
```

## Fix
Give the rack feeds that each carry its load shared by the survivors (a larger rating, or
another feed), or lower the rack's load. `dclint check --fix --unsafe-fixes` raises the current
rating of every feed of the rack that some single failure overloads, each to the next standard
size (NEC 240.6(A)) that carries its worst case. `PWR004 = { design_load = true }` plays the
failures at the design IT load instead of the peak, where power capping holds the racks to it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from dclint.api import (
    Context,
    Design,
    FeedItem,
    Rack,
    Topology,
    Violation,
    feed_capacity_kw,
    load_basis,
    rack_load_kw,
    rating_change,
    rule,
    topology_of,
)
from dclint.units import Q_, fmt

from ._shared import PowerRedundancyRule, design_load

_EPS = 1e-9


@dataclass(frozen=True)
class _Case:
    """A feed's load over its capacity in one failure case."""

    ratio: float
    failure: str
    feed: FeedItem
    load_kw: float


def _ratio(load_kw: float, capacity_kw: float) -> float:
    """Load over derated capacity; a feed derated to nothing (its ambient at or above its
    conductors' rating) carries no load: any load on it is over, by an unbounded ratio."""
    if capacity_kw > 0:
        return load_kw / capacity_kw
    return float("inf") if load_kw > 0 else 0.0


def _normal(topo: Topology, rack_kw: dict[str, float]) -> dict[str, float]:
    """Each feed's load with every feed live: each rack shared by all its feeds."""
    kw: dict[str, float] = defaultdict(float)
    for rack in topo.racks:
        for feed in rack.feeds:
            kw[feed.id] += rack_kw[rack.id] / len(rack.feeds)
    return kw


def _loads(
    lost: set[str], hit: list[Rack], normal: dict[str, float], rack_kw: dict[str, float]
) -> dict[str, float]:
    """Loads of the surviving feeds of `hit` racks once the `lost` feeds are down."""
    out: dict[str, float] = {}
    for rack in hit:
        live = [f for f in rack.feeds if f.id not in lost]
        if not live:
            continue
        kw = rack_kw[rack.id]
        for feed in live:
            # the rack's share moves from all its feeds to its live ones
            base = out.get(feed.id, normal[feed.id])
            out[feed.id] = base + kw / len(live) - kw / len(rack.feeds)
    return out


def _failures(topo: Topology) -> Iterator[tuple[str, set[str], list[Rack]]]:
    """Every single failure: (description, feeds lost, racks that lose a feed)."""
    for fid, feed in topo.feeds.items():
        yield f"feed {fid} lost", {fid}, list({r.id: r for r in feed.racks}.values())
    paths: dict[str, set[str]] = defaultdict(set)
    for fid, feed in topo.feeds.items():
        if feed.model.path:
            paths[feed.model.path].add(fid)
    if len(paths) < 2:
        return
    for name, fids in sorted(paths.items()):
        hit = {r.id: r for fid in fids for r in topo.feeds[fid].racks}
        yield f"path {name} lost", fids, list(hit.values())


@rule(
    "PWR004",
    "redundancy-lost-on-feed-failure",
    consequence="single-failure",
    covers=("uptime.power-redundancy",),
    needs=("feeds",),
)
class RedundancyLostOnFeedFailure(PowerRedundancyRule):
    options = {
        "design_load": design_load("feeds"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        topo = topology_of(design)
        peak = not ctx["design_load"]
        rack_kw = {r.id: rack_load_kw(r, peak) for r in topo.racks}
        capacity = feed_capacity_kw(topo)
        normal = _normal(topo, rack_kw)
        worst: dict[str, _Case] = {}
        # rack -> feed -> the most that feed carries as a survivor of any failure, where over
        survivors: dict[str, dict[str, float]] = defaultdict(dict)
        for failure, lost, hit in _failures(topo):
            redundant = [r for r in hit if len(r.feeds) >= 2]
            if not redundant:
                continue
            loads = _loads(lost, hit, normal, rack_kw)
            for rack in redundant:
                live = [f for f in rack.feeds if f.id not in lost]
                if not live:  # a failure that takes all its feeds is not one it rides through
                    continue
                for feed in live:
                    ratio = _ratio(loads[feed.id], capacity[feed.id])
                    if ratio <= 1 + _EPS:
                        continue
                    over = survivors[rack.id]
                    over[feed.id] = max(over.get(feed.id, 0.0), loads[feed.id])
                    if ratio > getattr(worst.get(rack.id), "ratio", 0.0):
                        worst[rack.id] = _Case(ratio, failure, feed, loads[feed.id])
        for rack in topo.racks:
            case = worst.get(rack.id)
            if case is None:
                continue
            load, cap = Q_(case.load_kw, "kW"), Q_(capacity[case.feed.id], "kW")
            yield Violation(
                (*rack.path, "feeds"),
                f"rack {rack.id} loses its redundancy: with {case.failure}, its feed "
                f"{case.feed.id} would carry {fmt(load)}, above its derated capacity "
                f"(rack load {fmt(Q_(rack_kw[rack.id], 'kW'))}, "
                f"its {load_basis([rack], peak)}, "
                f"on {len(rack.feeds)} feeds)",
                subject=rack.id,
                measured=load,
                limit=cap,
                fix="give the rack feeds whose survivors can carry its load after one failure "
                "(larger ratings or another feed), or lower the rack's load",
                # every feed that some failure overloads, each raised for its worst case
                changes=tuple(
                    change
                    for feed in rack.feeds
                    if feed.id in survivors[rack.id]
                    for change in rating_change(
                        feed,
                        Q_(survivors[rack.id][feed.id], "kW"),
                        Q_(capacity[feed.id], "kW"),
                    )
                ),
            )
