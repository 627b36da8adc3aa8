"""Feeder, busway or branch circuit whose voltage drop is above the recommended share.

## What it does
For every panel, busway, switchboard (its feeder from the element above) and rack feed that
declares its `length` and `conductor_size` (x `conductors_per_phase`, `conductor_material`
copper or aluminium), computes the resistive voltage drop of the load it carries with one path
lost (as PWR003 and PWR008 load it: peak, or the design IT load with `design_load = true`):
dV = sqrt(3) x I x R x PF three-phase, 2 x I x R x PF single-phase, with
R = rho x length / area at the conductor temperature (`conductor_temperature`, default 75 degC;
rho20 and its temperature coefficient from IEC 60287-1-1 Table 1: copper 0.017241 ohm mm^2/m
and 0.00393/K, aluminium 0.028264 and 0.00403/K). Flags
1. a circuit whose drop is above `limit` (default 3%) of its voltage;
2. a rack feed whose drop plus those of the panels above it (up to a UPS or transformer) is
   above `total_limit` (default 5%).
Reactance is not modelled: on large conductors it adds I x X x sin(phi), so the figure is a
floor. Exactly at a limit passes; circuits without a length or size are not checked.

## Why it matters
A long feeder at full load delivers less voltage than the racks' power supplies expect: the
informational notes to NEC 210.19(A) and 215.2(A) recommend at most 3% drop on a branch
circuit or a feeder and 5% on both together for "reasonable efficiency of operation", and IEC
60364-5-52 clause 525 gives similar limits. The drop is also lost power, I^2 R, paid every hour
of a training run at full load. AI halls run their feeders at a steady peak, with no diversity
to hide behind.

Sources: NEC 210.19(A) and 215.2(A) informational notes; IEC 60364-5-52, clause 525.

## Example
```yaml
power:
  panels:
    - id: pdu-1
      voltage: 415 V
      current_rating: 800 A
      length: 200 m
      conductor_size: 240 mm^2   # PWR014: 336 kW drops 3.409% (14.15 V) over 200 m
```

## Fix
Use larger conductors (the message gives the IEC 60228 size that keeps the limit) or more in
parallel, shorten the run, or distribute at a higher voltage.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    IEC_SIZES_MM2,
    Context,
    Design,
    Option,
    Share,
    Topology,
    Violation,
    VoltageDrop,
    fmt,
    rule,
    topology_of,
    voltage_drops,
)
from dclint.units import Q_

from ._shared import PowerRule, design_load, over

_EPS = 1e-9


def _size_for(drop: VoltageDrop, size_mm2: float, per_phase: int, limit: float) -> str:
    """The smallest IEC 60228 size (same number in parallel) that keeps the drop at the limit."""
    need = size_mm2 * drop.share / limit
    size = next((s for s in IEC_SIZES_MM2 if s >= need - _EPS), None)
    if size is None:
        return "more conductors in parallel"
    sets = f"{per_phase} x " if per_phase > 1 else ""
    return f"{sets}{size:g} mm^2 gives {fmt(Q_(drop.share * size_mm2 / size * 100, 'percent'))}"


def _what(drop: VoltageDrop) -> str:
    return "branch circuit" if drop.kind == "feed" else f"feeder of {drop.kind}"


@rule(
    "PWR014",
    "voltage-drop-too-high",
    severity="warning",
    consequence="over-rating",
    covers=("nec.voltage-drop",),
    needs=("feeds",),
)
class VoltageDropTooHigh(PowerRule):
    options = {
        "limit": Option("3%", Share, "Drop allowed on one feeder or branch circuit"),
        "total_limit": Option("5%", Share, "Drop allowed from the top panel to a rack feed"),
        "design_load": design_load("circuits"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        topo = topology_of(design)
        drops = voltage_drops(topo, peak=not ctx["design_load"])
        limit, total = ctx["limit"].m_as(""), ctx["total_limit"].m_as("")
        for eid, drop in drops.items():
            if not over(drop.share, limit):
                continue
            circuit = (topo.feeds[eid] if drop.kind == "feed" else topo.panels[eid]).model
            assert circuit.length is not None and circuit.conductor_size is not None
            size = float(circuit.conductor_size.m_as("mm^2"))
            n = circuit.conductors_per_phase
            yield Violation(
                (*drop.path, "conductor_size"),
                f"{_what(drop)} {eid} drops {fmt(Q_(drop.share * 100, 'percent'))} "
                f"({fmt(Q_(drop.drop_v, 'V'))} of {fmt(Q_(drop.volts, 'V'))}) carrying "
                f"{fmt(Q_(drop.load_kw, 'kW'))} ({fmt(Q_(drop.amps, 'A'))}) over "
                f"{fmt(circuit.length, 'm')} of {n} x {size:g} mm^2 {circuit.conductor_material} "
                f"at {drop.celsius:g} degC ({drop.ohms * 1000:.4g} mohm a conductor), "
                "above the limit of NEC 210.19(A)/215.2(A)'s informational notes",
                subject=eid,
                measured=Q_(drop.share * 100, "percent"),
                limit=Q_(limit * 100, "percent"),
                fix=f"use larger conductors ({_size_for(drop, size, n, limit)}), shorten the "
                "run, or distribute at a higher voltage",
            )
        yield from self._totals(topo, drops, total)

    def _totals(
        self, topo: Topology, drops: dict[str, VoltageDrop], total: float
    ) -> Iterator[Violation]:
        """Each rack feed with the drops of the panels above it, up to a UPS or transformer."""
        for fid, feed in topo.feeds.items():
            chain, panel = [], feed.panel
            if fid in drops:
                chain.append(drops[fid])
            while panel is not None:
                if panel.id in drops:
                    chain.append(drops[panel.id])
                panel = topo.panels.get(panel.model.fed_by or "")
            if len(chain) < 2:
                continue
            share = sum(d.share for d in chain)
            if not over(share, total):
                continue
            parts = " + ".join(f"{d.element} {fmt(Q_(d.share * 100, 'percent'))}" for d in chain)
            yield Violation(
                (*feed.path, "id"),
                f"rack feed {fid} is {fmt(Q_(share * 100, 'percent'))} below its source "
                f"({parts}), above the limit for feeder and branch circuit together of NEC "
                "210.19(A)'s informational note",
                subject=fid,
                measured=Q_(share * 100, "percent"),
                limit=Q_(total * 100, "percent"),
                fix="use larger conductors on the circuit that drops most, or shorten the runs",
            )
