"""UPS battery autonomy shorter than the time the generators need to take the load.

## What it does
Flags a UPS whose declared `battery_runtime` (autonomy at its full rated load) is shorter than
`min_runtime` (default 5 min). A UPS without a declared runtime is not checked.

## Why it matters
The battery carries the load from the utility's loss until the generators take it. NFPA 110
Type 10 sets 10 s for a standby set to accept load, but a start can fail and be retried, and
transfer and retransfer switching add their own time; 5 minutes at full load is dclint's
default, the autonomy commonly specified for data-center UPS systems with generator backup
(UPS makers' sizing guides). A longer
runtime at part load does not count: the first failure can come at full load.

Sources: NFPA 110; UPS makers' sizing guides.

## Example
```yaml
power:
  ups:
    - {id: ups-a, rating: 1250 kVA, battery_runtime: 3 min}   # PWR010: under 5 min
```

## Fix
Add battery strings (or a larger cabinet), or set `min_runtime` to what your generator start
and transfer sequence is tested to need: `PWR010 = { min_runtime = "2 min" }`.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import Context, Design, Duration, Option, Ups, Violation, rule, topology_of
from dclint.units import fmt

from ._shared import PowerRule


@rule(
    "PWR010",
    "ups-battery-too-short",
    severity="warning",
    consequence="single-failure",
    covers=("iec62040.ups",),
)
class UpsBatteryTooShort(PowerRule):
    options = {
        "min_runtime": Option("5 min", Duration, "Least battery autonomy at full rated load"),
    }

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        least = ctx["min_runtime"]
        for cid, item in topology_of(design).chain.items():
            model = item.model
            if not isinstance(model, Ups) or model.battery_runtime is None:
                continue
            runtime = model.battery_runtime
            if runtime.m_as("s") >= least.m_as("s") * (1 - 1e-9):
                continue
            yield Violation(
                (*item.path, "battery_runtime"),
                f"UPS {cid} has {fmt(runtime.to('min'))} of battery at full load, under the "
                "time the generators' start and transfer are given",
                subject=cid,
                measured=runtime.to("min"),
                limit=least.to("min"),
                fix="add battery strings, or set min_runtime to the tested start-and-transfer time",
            )
