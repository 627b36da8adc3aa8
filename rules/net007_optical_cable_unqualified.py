"""Active optical cables without a 48 h bit-error-rate burn-in or a symbol-error alert.

## What it does
For every fabric that uses active optical cables (`cabling.optics: aoc`, or any link with
`cable: aoc`), checks `cabling.burn_in` (at least `min_burn_in`, default 48 h) and
`cabling.symbol_error_alert` (declared and at most `max_symbol_error_alert`, default 1e-6).
A missing or short burn-in is one finding and a missing or too lax alert another, at the
value when declared, else at `cabling.optics` or the first AOC link.

## Why it matters
AOCs fail young and intermittently: one flapping AOC stopped an 800-GPU cluster for 12 h
(founding memo). The memo's practice is a 48 h bit-error-rate burn-in before acceptance and
link monitoring that alerts on symbol errors above 1e-6, so a degrading cable is swapped in a
maintenance window instead of killing a job.

## Example
```yaml
cabling:
  optics: aoc
  burn_in: 24 h              # NET007: below 48 h
  symbol_error_alert: 1e-6
```

## Fix
Burn in every AOC for 48 h under a bit-error-rate test before acceptance, and alert on symbol
error rates of 1e-6 or lower: `cabling: {burn_in: 48 h, symbol_error_alert: 1e-6}`.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.engine.rule import Context, Option, Rule, Violation
from dclint.model.design import Design
from dclint.model.fabric import Fabric
from dclint.model.source import Path
from dclint.units import fmt


class OpticalCableUnqualified(Rule):
    id = "NET007"
    name = "optical-cable-unqualified"
    severity = "error"
    tags = ("fabric", "cabling")
    options = {
        "min_burn_in": Option("48 h", "duration", "Shortest bit-error-rate burn-in of AOCs"),
        "max_symbol_error_alert": Option(
            1e-6, "float", "Highest symbol error rate the link monitoring may alert at"
        ),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        least, alert_at = ctx["min_burn_in"], ctx["max_symbol_error_alert"]
        for f, fabric in enumerate(design.fabrics):
            anchor = _aoc_anchor(f, fabric)
            if anchor is None:
                continue
            cabling = fabric.cabling
            burn_in = cabling.burn_in if cabling else None
            if burn_in is None or burn_in.m_as("h") < least.m_as("h"):
                have = (
                    f"a burn-in of {fmt(burn_in.to('h'))}" if burn_in is not None else "no burn-in"
                )
                yield Violation(
                    ("fabrics", f, "cabling", "burn_in") if burn_in is not None else anchor,
                    f"fabric {fabric.id} uses active optical cables with {have}; at least "
                    f"{fmt(least.to('h'))} of bit-error-rate burn-in is required",
                    subject=fabric.id,
                    measured=burn_in.to("h") if burn_in is not None else None,
                    limit=least.to("h"),
                    fix=f"burn in every AOC for {fmt(least.to('h'))} before acceptance",
                )
            alert = cabling.symbol_error_alert if cabling else None
            if alert is None or alert > alert_at * (1 + 1e-9):
                have = f"alerts only at {alert:g}" if alert else "has no symbol-error alert"
                yield Violation(
                    ("fabrics", f, "cabling", "symbol_error_alert") if alert else anchor,
                    f"fabric {fabric.id} uses active optical cables and its link monitoring "
                    f"{have}; it must alert at a symbol error rate of {alert_at:g} or lower",
                    subject=fabric.id,
                    measured=alert,
                    limit=alert_at,
                    fix=f"alert on symbol error rates above {alert_at:g}",
                )


def _aoc_anchor(f: int, fabric: Fabric) -> Path | None:
    """Where the fabric says it uses AOCs, or None if it does not."""
    if fabric.cabling is not None and fabric.cabling.optics == "aoc":
        return ("fabrics", f, "cabling", "optics")
    for k, link in enumerate(fabric.links):
        if link.cable == "aoc":
            return ("fabrics", f, "links", k, "cable")
    return None
