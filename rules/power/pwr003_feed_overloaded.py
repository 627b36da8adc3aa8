"""Rack feed whose load, evaluated per power path, exceeds its derated capacity.

## What it does
For each feed, takes the load allocated to it per power path: every rack's whole load is
shared by the rack's feeds on each of its paths, because with the other path lost those feeds
carry all of it (2N). A rack is loaded with its peak, the catalog `max_power` of its platform
(x nodes) where one is known and the design IT load where that is higher; with
`design_load = true`, with its design IT load. The message says which. Flags the feed when
that load exceeds its derated capacity, sqrt(3) x V(line-line) x I x PF x maximum
utilisation for three-phase, V x I x PF x maximum utilisation for single-phase; a single-phase
feed on a three-phase panel runs at the voltage written where that is the panel's line-to-line
voltage (208 V from a 208Y/120 V panel) or its leg is line-to-line (`phase: L1-L2`), else at
the line-to-neutral voltage, V(L-L) / sqrt(3) (239.6 V on a 415 V panel), and never above
the voltage it declares; the message says which wiring it read. A feed that declares its
`ambient_temperature` keeps the share sqrt((Tc - Ta) / (Tc - Tref)) of that capacity (NEC
310.15(B)(1)'s ampacity correction, which IEC 60364-5-52 Table B.52.14 follows: 0.88 at 40
degC for 75 degC conductors rated at 30 degC;
`conductor_temperature` Tc, default 75 degC, and `reference_ambient` Tref, default 30 degC,
say otherwise); the message gives the factor. Exactly at the capacity passes.

## Why it matters
Breakers trip on what flows, and a rack's power shelves can draw their full rating: a GB200
NVL72 is designed at ~120 kW (NVIDIA GB200 NVL72 documentation) but its 8 power shelves of
6 x 5.5 kW in N+N deliver 132 kW (HPE and Supermicro GB200 NVL72 power shelf specifications),
so a feed is sized for 132 kW. Continuous load on a breaker is held to 80% of its rating (NEC
210.20(A); NetBox's power feed model defaults `max_utilization` to 80%), and a feed's
default power factor, 0.95, is the one Nautobot's power port model uses to turn W into VA.
DCIM tools (NetBox, Nautobot) compute a rack's utilisation over all its feeds together, which
halves the apparent load of a 2N rack: the feeds look half full until path B fails and path A
trips. A 415 V / 250 A feed at PF 0.95 and 80% carries
136.6 kW. A 415 V / 60 A feed at 80% is 34.5 kVA, 32.8 kW at PF 0.95: a 132 kW rack needs
five such feeds a path (four would carry 131.1 kW; four suffice only at PF 1, 138 kW).

Sources: NVIDIA GB200 NVL72 documentation; HPE and Supermicro GB200 NVL72 power shelf
specifications; NEC 210.20(A); NetBox power feed model; Nautobot power port model.

## Example
```yaml
power:
  feeds:
    - id: tap-a1
      voltage: 415 V
      current_rating: 200 A   # PWR003: 109.3 kW derated, a 132 kW NVL72 rack on path A
      path: A
```

## Fix
Raise the feed's rating (e.g. 250 A at 415 V), add feeds to the path so the rack's load is
shared, or move racks to other feeds. `PWR003 = { design_load = true }` sizes feeds for the
design IT load instead of the peak, where power capping holds the racks to it.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    FeedItem,
    Violation,
    feed_allocation,
    feed_capacity_kw,
    load_basis,
    rating_change,
    rating_text,
    rule,
    topology_of,
)
from dclint.units import Q_, fmt, fmt_apart

from ._shared import PowerRedundancyRule, design_load, over


def supply_text(feed: FeedItem) -> str:
    """The feed's rating, and where its panel sets its voltage, why."""
    text = rating_text(feed.model, feed.volts)
    if feed.panel is None or not feed.wiring:
        return text
    panel = f"{feed.panel.id}'s {fmt(feed.panel.model.voltage, 'V')}"
    if feed.panel_sets_voltage:
        text += f"; {feed.wiring} of {panel}, not the {fmt(feed.model.voltage, 'V')} written"
    elif feed.wiring == "line-to-line":
        text += f"; single-phase line-to-line of {panel}, as written"
    else:
        text += f"; single-phase line-to-neutral of {panel}, as written"
    return text


@rule(
    "PWR003",
    "feed-overloaded",
    consequence="over-rating",
    covers=("nec.continuous", "nec.ampacity"),
    needs=("feeds",),
)
class FeedOverloaded(PowerRedundancyRule):
    shares = {"feeds_carry_design_load": "design_load"}
    options = {
        "design_load": design_load("feeds"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        topo = topology_of(design)
        peak = not ctx["design_load"]
        allocation, capacities = feed_allocation(topo, peak), feed_capacity_kw(topo)
        for fid, feed in topo.feeds.items():
            load = allocation[fid]
            if not over(load.m_as("kW"), capacities[fid]):
                continue
            load, capacity = load.to("kW"), Q_(capacities[fid], "kW")
            where = f"on path {feed.model.path}" if feed.model.path else "(no power path)"
            names = list(dict.fromkeys(r.id for r in feed.racks))
            racks = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
            racks, whose = (
                (f"racks {racks}", "their") if len(names) > 1 else (f"rack {racks}", "its")
            )
            yield Violation(
                (*feed.path, "current_rating"),
                f"feed {fid} carries {fmt_apart(load, capacity)} {where} ({racks} at {whose} "
                f"{load_basis(feed.racks, peak)}), above its derated capacity "
                f"({supply_text(feed)})",
                subject=fid,
                measured=load,
                limit=capacity,
                fix="raise the feed's rating, add feeds on this path so the racks share them, "
                "or move racks to other feeds",
                changes=rating_change(feed, load, capacity),
            )
