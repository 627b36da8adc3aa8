"""Suppression comment that suppresses nothing.

## What it does
Reports a `# dclint: ignore[...]` comment when no finding of the rules it names occurs on its
line (or, for a comment on a line of its own, the line below), and, in a comment that does
suppress something, each id of its list that suppresses nothing (`ignore[PWR001,NET001]` on a
line with only a PWR001 finding reports NET001). Reported by the engine.

## Why it matters
Stale suppressions pile up and hide the next real problem on that line (ruff's RUF100 does the
same for `# noqa`).

Sources: ruff, RUF100 unused-noqa.

## Example
```yaml
    it_load: 100 kW  # dclint: ignore[PWR001] vendor-approved 130 kW rack
```

## Fix
Delete the comment, or move it to the line whose finding it means. `dclint check --fix` does
the safe part: it removes a comment that suppresses nothing, and takes the ids that suppress
nothing out of a list that is otherwise used (`ignore[PWR001,NET001]` becomes
`ignore[PWR001]`), keeping the reason.
"""

from __future__ import annotations

from dclint.api import SUPPRESSION_IDS, rule

from ._shared import ReportedByEngine


@rule(SUPPRESSION_IDS.unused, "unused-suppression", severity="warning")
class UnusedSuppression(ReportedByEngine):
    pass
