"""UPS system loaded beyond its output with its spare modules out, or a catcher too small.

## What it does
For every UPS in `power.ups`, adds up the load of the racks below it (through the panels,
busways and elements it feeds) at their peak (catalog `max_power`; `power_capped` racks and
panels, or `design_load = true`, at the design IT load), plus the losses of any UPS below it
(output / efficiency), and the loads besides the racks it feeds: the fabrics' switches and
endpoints and the storage nodes (`fed_by` where they declare it, else an equal share a rack of
the racks they serve, on each rack's UPS systems; dclint.calc.it_load) and the CDUs'
pumps with a `fed_by`; the message gives the sum ("racks 580 kW + fabric switches 20.4 kW").
Each rack's load is shared by its live feeds, and the UPS counts the most
it carries in normal running or as a survivor of any single failure (`dclint failures` lists
them; the message names the failure): a distributed-redundant scheme of N UPS with each rack on
two of them and the racks spread evenly over the pairs puts total / (N - 1) on a survivor, not
every rack's full load on each of its UPS. Flags the UPS when that load exceeds
what it delivers with its spare modules out: the least of its frame `rating` (a kVA rating x the
load's power factor), its frame `power` (kW) and `modules - redundant_modules` x `module_rating`.
A UPS in N+1 carries its load on N modules. A catcher UPS (`catches`: the UPS systems of a
block-redundant or distributed-redundant scheme it backs up) is flagged when it cannot take over
the largest load among them. Exactly at the capacity passes.

## Why it matters
A UPS frame is rated twice, in kVA and in kW (IEC 62040-3 output ratings): a "1,250 kVA" frame
at unity-rated 1,250 kW still delivers only 1,187.5 kW to a 0.95 PF load, and a 0.9 output
power factor frame only 1,125 kW. Modular UPS systems rated N+1 (makers' datasheets: e.g.
250 kW modules in a 1,250 kW frame) keep one module spare: the load must fit the others, or the
first module fault drops the system to bypass. Uptime Institute's Tier Standard: Topology asks
for N+1 capacity components from Tier II up. A catcher (Uptime calls the scheme "block
redundant") only protects what it can carry.

Sources: IEC 62040-3; Uptime Institute, Tier Standard: Topology.

## Example
```yaml
power:
  ups:
    - id: ups-a
      rating: 1250 kVA
      module_rating: 250 kW
      modules: 5
      redundant_modules: 1   # PWR009: 4 x 250 kW = 1000 kW for 1056 kW of racks
```

## Fix
Add a module (or a frame), move racks to another UPS, or mark racks `power_capped` where capping
holds them to their design load. `PWR009 = { design_load = true }` loads UPS systems with the
design IT load.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, ElementLoad, Ups, Violation, chain_loads, rule
from dclint.units import Q_, fmt

from ._shared import Loaded, PowerRedundancyRule, chain_elements, design_load, over, overloaded


@rule(
    "PWR009",
    "ups-overloaded",
    consequence="over-rating",
    covers=("iec62040.ups", "tia942.electrical", "uptime.power-redundancy"),
)
class UpsOverloaded(PowerRedundancyRule):
    options = {
        "design_load": design_load("UPS systems"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for e in chain_elements(design, ctx, Ups):
            cid, item, load = e.id, e.item, e.load
            if e.over:
                field = "redundant_modules" if item.model.redundant_modules else "rating"
                if item.model.module_rating is not None and field == "rating":
                    field = "modules"
                yield overloaded(
                    (*item.path, field),
                    f"UPS {cid} carries {fmt(Q_(load.load_kw, 'kW'))}"
                    + (f" = {load.includes}" if load.includes else "")
                    + f" ({e.carried()}), above what it delivers{_basis(load)}",
                    cid,
                    load.load_kw,
                    load.capacity_kw,
                    "add a power module or frame, move racks to another UPS, or cap the "
                    "racks' power",
                )
            yield from _catcher(e)


def _basis(load: ElementLoad) -> str:
    """How the UPS's output was derived, ' (frame 500 kVA x PF 0.95)'; '' where that is its
    frame's kW alone, which the printed limit gives."""
    if load.capacity_text == f"frame {fmt(Q_(load.capacity_kw, 'kW'))}":
        return " (its frame's rating)"
    return f" ({load.capacity_text})"


def _catcher(e: Loaded) -> Iterator[Violation]:
    """A catcher UPS that cannot take over the largest UPS it backs up besides its own load."""
    loads = chain_loads(e.topo, e.peak)
    caught = [loads[c] for c in e.item.model.catches if c in loads]
    if not caught:
        return
    worst = max(caught, key=lambda c: c.load_kw)
    own = e.load.load_kw
    need = worst.load_kw + own
    if not over(need, e.load.capacity_kw):
        return
    yield overloaded(
        (*e.item.path, "catches"),
        f"catcher UPS {e.id} must take over {worst.id}'s {fmt(Q_(worst.load_kw, 'kW'))}"
        + (f" besides its own {fmt(Q_(own, 'kW'))}" if own > 0 else "")
        + f", above what it delivers{_basis(e.load)}",
        e.id,
        need,
        e.load.capacity_kw,
        "give the catcher a rating at least the largest UPS it backs up",
    )
