"""Rack rejecting too much heat to air, or a liquid-cooled platform on no cooling loop.

## What it does
Flags (1) a rack whose heat to air, IT load x (1 - liquid fraction), is above `limit`
(default 40 kW; exactly at the limit passes), and (2) a rack whose platform requires liquid
cooling (GB200/GB300 NVL72 in the catalog) that no loop serves. A rack with neither a
platform nor a `liquid_fraction` is not judged on its air heat: how it is cooled is unknown.
The second check applies to designs that have a `cooling` section (CDUs or loops); a design
without one is taken as a power-only or partial design.

## Why it matters
Direct-to-chip liquid cooling is required for Blackwell racks (memo; DOMAIN.md, cooling), and
a GB200 NVL72 still rejects 15% of its ~120 kW to air (OCP GB200 rack specification: 85% to
liquid). Typical legacy air-cooled racks are 6-12 kW (DOMAIN.md). The 40 kW default is
dclint's own planning ceiling for one air-cooled rack with hot- or cold-aisle containment; it
is not a figure from the founding articles: set your hall's figure in config.

## Example
```yaml
racks:
  - id: r01
    platform: hgx-h100
    nodes: 5        # CLG005: 42.5 kW to air, above 40 kW
```

## Fix
Put fewer air-cooled nodes in the rack, move to liquid-cooled nodes or a rear-door heat
exchanger (then set `liquid_fraction`), or put the liquid-cooled rack on a loop. Limit:
`CLG005 = { limit = "30 kW" }`.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.engine.rule import Context, Option, Rule, Violation
from dclint.model.design import Design
from dclint.model.source import Path
from dclint.model.topology import Rack
from dclint.units import Q_, fmt


def _cooling_known(rack: Rack) -> bool:
    """A platform, or a written liquid_fraction, says how the rack is cooled; a bare it_load
    (a power-only model of a rack) does not."""
    return rack.platform is not None or rack.field_path("liquid_fraction")[-1:] == (
        "liquid_fraction",
    )


def _load_path(rack: Rack) -> Path:
    """Where the rack's load was set: its it_load, or its node count for node platforms."""
    path = rack.field_path("it_load")
    nodes = rack.field_path("nodes")
    if path[-1:] != ("it_load",) and nodes[-1:] == ("nodes",):
        return nodes
    return path


class AirCooledDensityTooHigh(Rule):
    id = "CLG005"
    name = "air-cooled-density-too-high"
    severity = "error"
    tags = ("cooling",)
    options = {
        "limit": Option("40 kW", "power", "Highest heat one rack may reject to air"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        limit = ctx["limit"].to("kW")
        limit_kw = limit.m_as("kW")
        topo = design.topology
        has_cooling = bool(topo.loops or topo.cdus)
        for rack in topo.racks:
            air_kw = rack.it_load.m_as("kW") * (1 - rack.liquid_fraction.m_as(""))
            if _cooling_known(rack) and air_kw > limit_kw * (1 + 1e-9):
                air = Q_(air_kw, "kW")
                share = fmt(rack.liquid_fraction, "percent")
                yield Violation(
                    _load_path(rack),
                    f"rack {rack.id} rejects {fmt(air)} to air ({fmt(rack.it_load, 'kW')} "
                    f"with {share} to liquid), above the air-cooling limit {fmt(limit)}",
                    subject=rack.id,
                    measured=air,
                    limit=limit,
                    fix="put fewer air-cooled nodes in the rack or move its heat to liquid",
                )
            required = rack.platform is not None and rack.platform.liquid_cooling_required
            if has_cooling and required and rack.loop is None:
                yield Violation(
                    rack.field_path("platform"),
                    f"rack {rack.id} ({rack.platform_key}) requires liquid cooling for "
                    f"{fmt(rack.liquid_heat, 'kW')} of liquid heat but is on no cooling loop",
                    subject=rack.id,
                    measured=rack.liquid_heat.to("kW"),
                    fix="add the rack to a loop's `racks` list",
                )
