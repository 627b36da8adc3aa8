"""Quantity written in a spelling other than dclint's.

## What it does
Reports a quantity that dclint reads but that is not written as dclint writes it: the unit
spelled out or by an alias (`120 kilowatts`, `10 l/min`, `5 hr`, `40 celsius`), `bps` for
`b/s` (`400 Gbps`), or the number glued to its unit (`120kW`). Reported by the engine, which
scans the design's text (and its included files) for the values of quantity fields, the items
of lists of them (`split_speeds: [400Gbps]`) and the values of tables of them
(`exchange_rates: {USD: 7.2CNY}`).

## Why it matters
One spelling per unit makes designs easy to read, search and compare: `grep '400 Gb/s'` finds
every 400 Gb/s link, and a reviewer never has to stop at `l` (litre or the digit 1?). The SI
Brochure (BIPM, 9th edition, section 5.4.3) writes a space between the number and its unit;
`%` stays glued (`80%`), as dclint prints it. Units with several usual spellings are left as
written: the time units from the day up, tokens, currency codes and `U`/`RU`. A unit in
the wrong letter case (`120 KW`) is not read at all: `mW` and `MW` are a factor of 10^9 apart,
so it is a load error (DCL000) whose hint names the one spelling that fits (`did you mean
'kW'?`), where only one does.

Sources: BIPM, The International System of Units (SI Brochure), 9th edition, section 5.4.3.

## Example
```yaml
    it_load: 120kW          # 120 kW
    coolant_flow: 90 l/min  # 90 L/min
    link_speed: 400 Gbps    # 400 Gb/s
```

## Fix
Write the number, a space and the unit's symbol. `dclint check --fix` does it (a safe fix):
it replaces the value's text only, inside its quotes, keeping the comment after it; the number
stays as written (`1.20 MW`), and a respelling that would not read back to the same quantity
is not offered. Where two fixes would rewrite one text, the first is made and the second is
reported as not fixed (run `--fix` again).
"""

from __future__ import annotations

from dclint.api import UNIT_SPELLING_ID, rule

from ._shared import ReportedByEngine


@rule(UNIT_SPELLING_ID, "unit-spelling", severity="info")
class UnitSpelling(ReportedByEngine):
    pass
