"""Three-phase panel whose line currents are out of balance in normal running.

## What it does
For each three-phase panel with single-phase feeds whose leg is given (`phase: L1`, `L2`, `L3`,
or `L1-L2`, `L2-L3`, `L3-L1` for line-to-line feeds), computes each line's current in normal
running, every feed live: a rack's design IT load is shared by all its feeds (a 2N rack's A and
B feeds carry half each). A single-phase feed on one leg draws P / (V x PF) on that line, at
its line-to-neutral voltage (V(L-L) / sqrt(3) of the panel, or the lower voltage it declares);
a line-to-line feed draws P / (V(L-L) x PF) on both its lines; a three-phase feed
P / (sqrt(3) x V(L-L) x PF) on each. Currents on a line add as magnitudes: where
line-to-line and line-to-neutral loads share a line their phasors are 30 degrees apart and the
true sum is up to 3.4% lower, so the figure errs on the safe side. Imbalance =
max |I(line) - I(mean)| / I(mean). Above `warning` (default 10%) it is a warning, above
`error` (default 20%) an error; exactly at a threshold stays in the lower band. A panel with
a single-phase feed whose leg is not given is skipped: its balance cannot be known.

## Why it matters
A breaker trips on its most loaded line, not on the panel's total power: an unbalanced panel
trips long before it reaches its rated three-phase power, and the neutral carries the
difference. Summing kW per leg hides what a line-to-line load does: 4 kW on L1-L2 plus 1.5 kW
on L3 of a 208Y/120 V panel is 2/2/1.5 kW a leg (18.2%), but 19.23/19.23/12.5 A a line (26.42%).
The 10% and 20% bands are dclint's own defaults, the bands DCIM tools commonly use (under 10%
good, over 20% critical); NEMA MG 1 defines voltage unbalance the same way, as the largest
deviation from the average over the average.

Sources: NEMA MG 1.

## Example
```yaml
power:
  panels:
    - id: pdu-1          # PWR005: 4 kW L1-L2, 1.5 kW L3: 19.23/19.23/12.5 A, 26.42%
      voltage: 208 V
      current_rating: 100 A
  feeds:
    - {id: f1, panel: pdu-1, phases: 1, voltage: 208 V, current_rating: 30 A, phase: L1-L2}
    - {id: f2, panel: pdu-1, phases: 1, voltage: 120 V, current_rating: 20 A, phase: L3}
```

## Fix
Move single-phase feeds from the most loaded line to the least loaded one, or feed the largest
racks three-phase. Thresholds: `PWR005 = { warning = "10%", error = "20%" }`.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    Option,
    PanelItem,
    Share,
    Violation,
    normal_feed_load_kw,
    rule,
    topology_of,
)
from dclint.units import Q_, fmt

from ._shared import PowerRule, over

LINES = ("L1", "L2", "L3")


def line_currents(panel: PanelItem, load_kw: dict[str, float]) -> dict[str, float] | None:
    """Amperes on each line of a three-phase panel from its feeds' loads (kW), or None when a
    single-phase feed's leg is unknown or there is none (three-phase feeds alone balance)."""
    amps = dict.fromkeys(LINES, 0.0)
    single = False
    line_volts = float(panel.model.voltage.m_as("V"))
    for feed in panel.feeds:
        watts = load_kw.get(feed.id, 0.0) * 1000.0
        pf = feed.model.power_factor
        if feed.model.phases == 3:
            for line in LINES:
                amps[line] += watts / (3**0.5 * line_volts * pf)
            continue
        if feed.model.phase is None:
            return None
        single = True
        for line in feed.model.phase.split("-"):
            amps[line] += watts / (feed.volts * pf)
    return amps if single else None


def imbalance(amps: dict[str, float]) -> float | None:
    """max |I - mean| / mean, or None without current."""
    mean = sum(amps.values()) / len(amps)
    return max(abs(v - mean) for v in amps.values()) / mean if mean > 0 else None


@rule(
    "PWR005",
    "phase-imbalance",
    severity="warning",
    consequence="over-rating",
    covers=("phase.panel",),
    needs=("panels",),
)
class PhaseImbalance(PowerRule):
    options = {
        "warning": Option("10%", Share, "Imbalance above which a panel gets a warning"),
        "error": Option("20%", Share, "Imbalance above which a panel gets an error"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        topo = topology_of(design)
        load = normal_feed_load_kw(topo)
        warn, err = ctx["warning"].m_as(""), ctx["error"].m_as("")
        for panel in topo.panels.values():
            if panel.model.phases != 3:
                continue
            amps = line_currents(panel, load)
            share = imbalance(amps) if amps is not None else None
            if amps is None or share is None or not over(share, warn):
                continue
            over_error = over(share, err)
            limit = err if over_error else warn
            lines = ", ".join(f"{line} {fmt(Q_(a, 'A'))}" for line, a in amps.items())
            mean = sum(amps.values()) / 3
            yield Violation(
                (*panel.path, "id"),
                f"panel {panel.id} line currents are {fmt(Q_(share * 100, 'percent'))} out of "
                f"balance in normal running, every feed live ({lines}; mean "
                f"{fmt(Q_(mean, 'A'))}), above its {'error' if over_error else 'warning'} "
                "threshold",
                subject=panel.id,
                measured=Q_(share * 100, "percent"),
                limit=Q_(limit * 100, "percent"),
                fix="move single-phase feeds from the most loaded line to the least loaded one",
                severity="error" if over_error else None,
            )
