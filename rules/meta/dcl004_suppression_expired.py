"""Suppression comment past its expiry date.

## What it does
Reports a `# dclint: ignore[...] until=YYYY-MM-DD reason` comment after its date; the findings
it used to suppress are reported again. Reported by the engine.

## Why it matters
Waivers are granted for a time ("until the second busway is installed"); an expiry date makes
the design come back for review instead of carrying the waiver forever.

Sources: OWASP Dependency-Check, suppression file's until attribute.

## Example
```yaml
    it_load: 130 kW  # dclint: ignore[PWR001] until=2026-01-31 temporary until busway B
```

## Fix
Fix the finding, or renew the waiver with a new date and reason.
"""

from __future__ import annotations

from dclint.api import SUPPRESSION_IDS, rule

from ._shared import ReportedByEngine


@rule(SUPPRESSION_IDS.expired, "suppression-expired", severity="warning")
class SuppressionExpired(ReportedByEngine):
    pass
