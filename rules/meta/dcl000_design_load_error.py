"""Design that cannot be loaded: invalid YAML, a wrong unit, an unknown reference.

## What it does
Names the problems that stop a design from loading: YAML that does not parse or breaks
dclint's strict reading (duplicate keys, merge keys, custom tags), a value of the wrong type, a
number without its unit, a unit of the wrong dimension, a reference to an id that does not
exist. Reported by the loader, each at its file:line:col; the command exits with code 2, and no
rule runs on the design. In SARIF it is the result `DCL000`, so code scanning shows it on the
offending line.

## Why it matters
A design that does not load was not checked: a CI gate must fail rather than pass it. The
strict reading follows YAML 1.2's core schema, so `no`, `on` and `010` stay strings instead of
turning into false, true and 8 as YAML 1.1 readers do.

Sources: YAML 1.2 specification, core schema.

## Example
```yaml
racks:
  - id: r1
    it_load: 120      # no unit: write "120 kW"
    feeds: [tap-z1]   # no feed tap-z1 in power.feeds
```

## Fix
Follow the hint in the message: add the unit, fix the reference, remove the duplicate key.
It cannot be suppressed or ignored: there is nothing to check until the design loads.
"""

from __future__ import annotations

from dclint.api import LOAD_ERROR_ID, rule

from ._shared import ReportedByEngine


@rule(LOAD_ERROR_ID, "design-load-error", consequence="cannot-run")
class DesignLoadError(ReportedByEngine):
    pass
