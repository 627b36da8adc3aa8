"""Rack design IT load above the rack power limit.

## What it does
Flags a rack whose design IT load (declared, or the platform's power x nodes) exceeds the rack
power limit: 120 kW by default, or its platform's limit in `platform_limits` (by default
`gb300-nvl72` = 142 kW).

## Why it matters
A GB200 NVL72 rack is designed at ~120 kW sustained thermal design power, not a peak (NVIDIA
GB200 NVL72 documentation); the 120 kW default is that figure. Racks planned above the limit
exceed what the rack's power shelves, busway tap-offs and cooling were sized for. Typical
enterprise racks draw under 10 kW (Uptime Institute Global Data Center Survey). Where a rack
is built for more, `platform_limits` sets the limit for its platform. It ships with GB300
NVL72 racks at 142 kW, the rack power of the NVIDIA GB300 NVL72 enterprise reference
architecture: a GB300 NVL72 at its 135 kW design load (Lenovo's TDP) passes without config.
A `platform_limits` you set replaces the shipped table, as any option value replaces its
default: keep `gb300-nvl72 = "142 kW"` in it if you still want that limit.

## Example
```yaml
racks:
  - id: r01
    platform: gb200-nvl72
    it_load: 130 kW     # PWR001: over 120 kW
```

## Fix
Lower the rack's load (fewer nodes per rack, power capping), or, where the rack really is built
for more, raise the limit for its platform in config (keeping the shipped GB300 entry):
`PWR001 = { platform_limits = { gb300-nvl72 = "142 kW", gb200-nvl72 = "132 kW" } }`.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.calc.power import rack_power_limit
from dclint.engine.rule import Context, Option, Rule, Violation
from dclint.model.design import Design
from dclint.units import fmt


class RackPowerOverLimit(Rule):
    id = "PWR001"
    name = "rack-power-over-limit"
    severity = "error"
    tags = ("power",)
    needs = ("racks",)
    options = {
        "limit": Option("120 kW", "power", "Highest design IT load of one rack"),
        "platform_limits": Option(
            {"gb300-nvl72": "142 kW"},
            "dict:power",
            "Limits by platform key; a value set replaces this table (NVIDIA GB300 NVL72 RA)",
        ),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for rack in design.topology.racks:
            limit = rack_power_limit(ctx.options, rack.platform_key)
            if rack.it_load.m_as("kW") > limit.m_as("kW"):
                yield Violation(
                    rack.field_path("it_load"),
                    f"rack {rack.id} design IT load {fmt(rack.it_load, 'kW', digits=7)} exceeds "
                    f"the rack power limit {fmt(limit, 'kW')}",
                    subject=rack.id,
                    measured=rack.it_load.to("kW"),
                    limit=limit.to("kW"),
                    fix="reduce the rack's load or spread it over more racks; raise the limit "
                    "per platform only if the rack is built for it",
                )
