"""Rack feed whose load, evaluated per power path, exceeds its derated capacity.

## What it does
For each feed, takes the load allocated to it per power path: every rack's whole IT load is
shared by the rack's feeds on each of its paths, because with the other path lost those feeds
carry all of it (2N). Flags the feed when that load exceeds its derated capacity,
sqrt(3) x V(line-line) x I x PF x maximum utilisation for three-phase, V x I x PF x maximum
utilisation for single-phase. Exactly at the capacity passes.

## Why it matters
Continuous load on a breaker is held to 80% of its rating (NEC 210.20(A); NetBox's power feed
defaults max_utilization to 80%). DCIM tools (NetBox, Nautobot) compute a rack's utilisation
over all its feeds together, which halves the apparent load of a 2N rack: the feeds look half
full until path B fails and path A trips (DOMAIN.md, power practice). A 415 V / 250 A feed at
PF 0.95 and 80% carries 136.6 kW; a 132 kW rack needs at least four 415 V / 60 A feeds a path.

## Example
```yaml
power:
  feeds:
    - id: tap-a1
      voltage: 415 V
      current_rating: 200 A   # PWR003: 109.3 kW derated, 120 kW rack on path A
      path: A
```

## Fix
Raise the feed's rating (e.g. 250 A at 415 V), add feeds to the path so the rack's load is
shared, or move racks to other feeds.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.calc.power import feed_allocation, feed_capacity_kw
from dclint.engine.rule import Context, Rule, Violation
from dclint.model.design import Design
from dclint.model.topology import FeedItem
from dclint.units import Q_, fmt


def rating_text(feed: FeedItem) -> str:
    """How the capacity was derived, e.g. '415 V x 250 A three-phase, PF 0.95, 80%'."""
    m = feed.model
    kind = "three-phase" if m.phases == 3 else "single-phase"
    return (
        f"{fmt(m.voltage, 'V')} x {fmt(m.current_rating, 'A')} {kind}, PF {m.power_factor:g}, "
        f"{fmt(m.max_utilisation, 'percent')}"
    )


class FeedOverloaded(Rule):
    id = "PWR003"
    name = "feed-overloaded"
    severity = "error"
    tags = ("power", "redundancy")

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        topo = design.topology
        allocation, capacities = feed_allocation(topo), feed_capacity_kw(topo)
        for fid, feed in topo.feeds.items():
            load = allocation[fid]
            if load.m_as("kW") <= capacities[fid] * (1 + 1e-9):
                continue
            load, capacity = load.to("kW"), Q_(capacities[fid], "kW")
            where = f"on path {feed.model.path}" if feed.model.path else "(no power path)"
            names = list(dict.fromkeys(r.id for r in feed.racks))
            racks = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
            yield Violation(
                (*feed.path, "current_rating"),
                f"feed {fid} carries {fmt(load)} {where}, above its derated capacity "
                f"{fmt(capacity)} ({rating_text(feed)}; racks {racks})",
                subject=fid,
                measured=load,
                limit=capacity,
                fix="raise the feed's rating, add feeds on this path so the racks share them, "
                "or move racks to other feeds",
            )
