"""Optical links (AOC or transceiver) without a bit-error-rate burn-in or symbol-error alert.

## What it does
A fabric uses optical links when its `cabling.optics`, any tier's `cable` (a tier that names
none takes `cabling.optics`) or any explicit link's `cable` is `aoc` or `transceiver`. For
such a fabric, checks `cabling.burn_in` (at least `min_burn_in`, default 48 h) and
`cabling.symbol_error_alert` (declared and at most `max_symbol_error_alert`, default 1e-6).
A missing or short burn-in is one finding and a missing or too lax alert another, at the
value when declared, else where the fabric first names an optical cable. Copper (`dac`,
`acc`), the usual cable from a server to its leaf, needs neither.

## Why it matters
Optical links, active optical cables and pluggable transceivers alike, fail young and
intermittently: a link that flaps retrains, and a collective that crosses it stalls the whole
job. The InfiniBand specification requires a bit error rate below 1e-12 and NVIDIA tests its
cables to 1e-15 at the factory (NVIDIA DGX SuperPOD cabling design guide); NVIDIA's ibdiagnet
reports each port's symbol (post-FEC) error rate for exactly this check. The defaults are
dclint's own: a 48 h burn-in under a bit-error-rate test covers two daily temperature cycles
of the hall before acceptance, and an alert at a symbol error rate of 1e-6, far above a
healthy link's, flags a degrading cable early enough to swap it in a maintenance window.

Sources: InfiniBand Architecture Specification, IBTA; NVIDIA DGX SuperPOD cabling design guide.

## Example
```yaml
tiers:
  - {name: leaf, switch: qm9700, count: 16, downlinks: 32, uplinks: 32, cable: dac}
  - {name: spine, switch: qm9700, count: 8, downlinks: 64, cable: transceiver}
cabling:
  burn_in: 24 h              # NET007: below 48 h
  symbol_error_alert: 1e-6
```

## Fix
Burn in every optical link for 48 h under a bit-error-rate test before acceptance, and alert
on symbol error rates of 1e-6 or lower: `cabling: {burn_in: 48 h, symbol_error_alert: 1e-6}`.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, Duration, Fabric, Option, Violation, rule
from dclint.api import DesignPath as Path
from dclint.units import fmt

from ._shared import CablingRule

OPTICAL = frozenset({"aoc", "transceiver"})


@rule("NET007", "optical-cable-unqualified", consequence="capacity")
class OpticalCableUnqualified(CablingRule):
    options = {
        "min_burn_in": Option("48 h", Duration, "Shortest bit-error-rate burn-in of optical links"),
        "max_symbol_error_alert": Option(
            1e-6, float, "Highest symbol error rate the link monitoring may alert at"
        ),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        least, alert_at = ctx["min_burn_in"], ctx["max_symbol_error_alert"]
        for f, fabric in enumerate(design.fabrics):
            found = _optical(f, fabric)
            if found is None:
                continue
            anchor, kinds = found
            uses = f"fabric {fabric.id} uses optical links ({kinds})"
            cabling = fabric.cabling
            burn_in = cabling.burn_in if cabling else None
            if burn_in is None or burn_in.m_as("h") < least.m_as("h"):
                have = (
                    f"a burn-in of {fmt(burn_in.to('h'))}" if burn_in is not None else "no burn-in"
                )
                yield Violation(
                    ("fabrics", f, "cabling", "burn_in") if burn_in is not None else anchor,
                    f"{uses} with {have}, less bit-error-rate burn-in than required",
                    subject=fabric.id,
                    measured=burn_in.to("h") if burn_in is not None else None,
                    limit=least.to("h"),
                    fix=f"burn in every optical link for {fmt(least.to('h'))} before acceptance",
                )
            alert = cabling.symbol_error_alert if cabling else None
            if alert is None or alert > alert_at * (1 + 1e-9):
                have = f"alerts only at {alert:g}" if alert else "has no symbol-error alert"
                yield Violation(
                    ("fabrics", f, "cabling", "symbol_error_alert") if alert else anchor,
                    f"{uses} and its link monitoring {have}"
                    + (
                        ", above the symbol error rate it must alert at"
                        if alert
                        else "; it must alert at a symbol error rate at or below the limit"
                    ),
                    subject=fabric.id,
                    measured=alert,
                    limit=alert_at,
                    fix=f"alert on symbol error rates above {alert_at:g}",
                )


def _optical(f: int, fabric: Fabric) -> tuple[Path, str] | None:
    """Where the fabric first names an optical cable, and the optical kinds it uses. Read as a
    stream: an explicit fabric's 100,000 links built as (path, kind) pairs were 7 MB of a
    100,000-GPU design's check at its peak."""
    base: Path = ("fabrics", f)
    links = fabric.links
    default = fabric.cabling is not None and (
        not (fabric.tiers or links)
        or any(t.cable is None for t in fabric.tiers)
        or any(link.cable is None for link in links)
    )
    first: Path | None = None
    kinds: set[str] = set()

    def seen(path: Path | None, kind: str | None) -> None:
        nonlocal first
        if kind in OPTICAL:
            kinds.add(kind)
            if first is None and path is not None:
                first = path

    if default and fabric.cabling is not None:  # the default applies
        seen((*base, "cabling", "optics"), fabric.cabling.optics)
    for t, tier in enumerate(fabric.tiers):
        seen((*base, "tiers", t, "cable") if first is None else None, tier.cable)
    for k, link in enumerate(links):
        if link.cable in OPTICAL:
            seen((*base, "links", k, "cable") if first is None else None, link.cable)
    if first is None:
        return None
    return first, ", ".join(sorted(kinds))
