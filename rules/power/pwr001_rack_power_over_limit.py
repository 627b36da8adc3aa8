"""Rack design IT load above the rack power limit.

## What it does
Flags a rack whose design IT load (declared, or the platform's power x nodes) exceeds the rack
power limit: the rack power envelope the design declares for the rack's row, hall or site
(`rack_power_limit`), else this rule's `limit`, 120 kW by default for every platform.

Separately, it flags a rack whose declared load on its platform is above that platform's own
rated maximum (the catalog's `max_power` x nodes, without the rack's `extra_load`): a data
error, as no such rack can draw it; the load or the platform is wrong.

## Why it matters
The limit belongs to the facility, not to the platform. A GB200 NVL72 rack is designed at
~120 kW sustained thermal design power, not a peak (NVIDIA GB200 NVL72 documentation), and
halls for NVL72-class racks are built to that figure: the 120 kW default is it. A GB300 NVL72
draws up to 142 kW (NVIDIA GB300 NVL72 enterprise reference architecture; Lenovo gives 135 kW
TDP): in a hall built for 120 kW racks that is exactly the overload this rule exists to
catch, as its power shelves, busway tap-offs and cooling were sized for less. Typical
enterprise racks draw under 10 kW (Uptime Institute Global Data Center Survey).

A hall built for more declares it: `site.rack_power_limit`, `site.halls.<hall>.rack_power_limit`
(racks name their hall in `hall`, or their row's `hall`) or `site.rows.<row>.rack_power_limit`
(racks name their row in `row`); the row's envelope wins over the hall's, the hall's over the
site's. Where the design declares none, a config can raise the limit (`limit`, or
`platform_limits` by platform key, empty by default).

Sources: NVIDIA GB200 NVL72 documentation; NVIDIA GB300 NVL72 enterprise reference
architecture; Uptime Institute Global Data Center Survey.

## Example
```yaml
racks:
  - id: r01
    platform: gb300-nvl72     # PWR001: 135 kW over 120 kW, no envelope declared
```

## Fix
Lower the rack's load (fewer nodes per rack, power capping) or spread it over more racks; or,
where the hall really is built for more, declare its envelope:
`site: {halls: {h1: {rack_power_limit: 142 kW}}}` with `hall: h1` on the racks.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, Option, Power, Rack, Violation, rule, topology_of
from dclint.units import Q_, fmt

from ._shared import PowerRule, over


@rule(
    "PWR001",
    "rack-power-over-limit",
    consequence="over-rating",
    covers=("ocp.rack-power",),
    needs=("racks",),
)
class RackPowerOverLimit(PowerRule):
    shares = {"rack_power_limit": "limit", "platform_rack_limits": "platform_limits"}
    options = {
        "limit": Option("120 kW", Power, "Highest design IT load of one rack"),
        "platform_limits": Option(
            {},
            dict[str, Power],
            "Limits by platform key where the design declares no envelope (none by default)",
        ),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        default, per_platform = ctx["limit"], ctx["platform_limits"]
        for rack in topology_of(design).racks:
            yield from self._rating(rack)
            limit, what = rack.power_limit(default, per_platform)
            if rack.it_load.m_as("kW") <= limit.m_as("kW"):
                continue
            where = (
                ""
                if rack.power_envelope_path is None
                else " declared at " + ".".join(str(p) for p in rack.power_envelope_path)
            )
            yield Violation(
                rack.field_path("it_load"),
                f"rack {rack.id} design IT load {fmt(rack.it_load, 'kW', digits=7)} exceeds "
                f"{what}{where}",
                subject=rack.id,
                measured=rack.it_load.to("kW"),
                limit=limit.to("kW"),
                fix="reduce the rack's load or spread it over more racks; if the hall is built "
                "for more, declare its envelope (site, hall or row `rack_power_limit`)",
            )

    @staticmethod
    def _rating(rack: Rack) -> Iterator[Violation]:
        rating = rack.platform_rating
        if rating is None:
            return
        own = rack.it_load.m_as("kW") - (
            rack.extra_load.m_as("kW") if rack.extra_load is not None else 0.0
        )
        if not over(own, rating.m_as("kW")):
            return
        yield Violation(
            rack.field_path("it_load"),
            f"rack {rack.id} load on its platform {fmt(Q_(own, 'kW'), digits=7)} is above "
            f"{rack.platform_key}'s own rated maximum (catalog max_power): a data "
            "error, no such rack draws it",
            subject=rack.id,
            measured=Q_(own, "kW"),
            limit=rating,
            fix="correct the rack's it_load or its platform (put other equipment in extra_load)",
        )
