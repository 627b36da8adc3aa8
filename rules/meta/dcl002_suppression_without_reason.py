"""Suppression comment without a reason.

## What it does
Reports a `# dclint: ignore[...]` comment that gives no reason after the rule ids. Such a
comment suppresses nothing. Reported by the engine.

## Why it matters
A design review must be able to see why a limit was waived; a bare suppression hides a problem
without an argument anyone can check.

Sources: eslint-plugin-eslint-comments, require-description.

## Example
```yaml
    it_load: 130 kW  # dclint: ignore[PWR001]
```

## Fix
Say why: `# dclint: ignore[PWR001] rack built for 132 kW (HPE spec sheet), approved 2026-10`.
"""

from __future__ import annotations

from dclint.api import SUPPRESSION_IDS, rule

from ._shared import ReportedByEngine


@rule(SUPPRESSION_IDS.no_reason, "suppression-without-reason")
class SuppressionWithoutReason(ReportedByEngine):
    pass
