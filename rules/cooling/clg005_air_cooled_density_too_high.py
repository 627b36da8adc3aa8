"""Rack rejecting too much heat to air, or a liquid-cooled platform on no cooling loop.

## What it does
Flags (1) a rack whose heat to air, IT load x (1 - liquid fraction), is above `limit`
(default 60 kW; exactly at the limit passes), and (2) a rack whose platform requires liquid
cooling (GB200/GB300 NVL72 in the catalog) that no loop serves. A rack with neither a
platform nor a `liquid_fraction` is not judged on its air heat: how it is cooled is unknown.
The second check applies to designs that have a `cooling` section (CDUs or loops); a design
without one is taken as a power-only or partial design.

## Why it matters
Air carries about 1/3,500 of the heat of the same volume of water: past a few tens of kW a
rack needs more airflow than its fans and the aisle can move, and hot air recirculates to the
inlets. The 60 kW limit is dclint's own default, set just above the densest air-cooled rack
in NVIDIA's published reference architectures: the NVIDIA DGX SuperPOD B300 XDR reference
architecture puts four DGX B300 (~14 kW each) in a standard air-cooled rack with AC PDUs,
~56 kW a rack, which passes, as does the DGX SuperPOD H100 rack of four DGX H100 (4 x 10.2 kW
= 40.8 kW at maximum power, NVIDIA DGX H100 user guide). The same B300 architecture tells the
reader to adjust the layout to the site's maximum power per rack, and many halls cannot air-cool
that much: Schneider Electric's AI data center guidance names 50 kW per rack as the point past
which thermal management becomes critical. Set your hall's figure in config:
`CLG005 = { limit = "50 kW" }`, or `"30 kW"` for a hall without containment. Direct-to-chip
liquid cooling is required for Blackwell NVL72 racks, which still reject 15% of ~120 kW to air
(OCP GB200 rack specification: 85% to liquid).

Sources: NVIDIA DGX SuperPOD B300 XDR reference architecture; NVIDIA DGX H100 user guide;
Schneider Electric, AI data center guidance; OCP GB200 rack specification.

## Example
```yaml
racks:
  - id: r01
    platform: hgx-h100
    nodes: 8        # CLG005: 68 kW to air, above 60 kW
```

## Fix
Put fewer air-cooled nodes in the rack, move to liquid-cooled nodes or a rear-door heat
exchanger (then set `liquid_fraction`: a rear door moves the rack's heat into water), or put
the liquid-cooled rack on a loop.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, Option, Power, Rack, Violation, rule, topology_of
from dclint.api import DesignPath as Path
from dclint.units import Q_, fmt

from ._shared import CoolingRule, over


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


@rule("CLG005", "air-cooled-density-too-high", covers=("ashrae.air",), needs=("racks",))
class AirCooledDensityTooHigh(CoolingRule):
    options = {
        "limit": Option(
            "60 kW", Power, "Highest heat one rack may reject to air (dclint's own default)"
        ),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        limit = ctx["limit"].to("kW")
        topo = topology_of(design)
        has_cooling = bool(topo.loops or topo.cdus)
        for rack in topo.racks:
            air = Q_(rack.it_load.m_as("kW") * (1 - rack.liquid_fraction.m_as("")), "kW")
            if _cooling_known(rack) and over(air, limit):
                share = fmt(rack.liquid_fraction, "percent")
                yield Violation(
                    _load_path(rack),
                    f"rack {rack.id} rejects {fmt(air)} to air ({fmt(rack.it_load, 'kW')} "
                    f"with {share} to liquid), above the air-cooling limit",
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
