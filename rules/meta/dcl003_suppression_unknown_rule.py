"""Suppression comment naming a rule that does not exist, or with an invalid date.

## What it does
Reports a `# dclint: ignore[...]` comment whose ids match no known rule, or whose
`until=` is not a date written YYYY-MM-DD. Reported by the engine.

## Why it matters
A typo in a suppression (`ignore[PRW001]`) silently suppresses nothing while looking deliberate.

Sources: ruff, RUF102 invalid-rule-code.

## Example
```yaml
    it_load: 130 kW  # dclint: ignore[PRW001] approved
```

## Fix
Correct the rule id (`dclint rules` lists them) or the date.
"""

from __future__ import annotations

from dclint.api import SUPPRESSION_IDS, rule

from ._shared import ReportedByEngine


@rule(SUPPRESSION_IDS.unknown, "suppression-unknown-rule")
class SuppressionUnknownRule(ReportedByEngine):
    pass
