"""Projected cost above the budget a workload or the design declares.

## What it does
Compares each workload's projected cost (electricity for its energy at the site's price and
PUE, plus straight-line depreciation of its GPUs for the training period) with
`workload.budget`, and the cluster's TCO over `cost.tco_period` with `cost.budget`. Amounts
in other currencies are converted only through `site.exchange_rates`; a budget that cannot
be converted, or a workload's budget where the design prices nothing of its run (no
electricity price, GPU price or system price: its cost is unknown, not zero), is reported as
unchecked.

## Why it matters
Cost spreadsheets drop units: a daily power cost written as MW x 24 x price, labelled in
10k-CNY, is off by 10^5 (MWh vs kWh, CNY vs 10k-CNY). A projection carried in units and
compared with the budget before the hardware is ordered catches both the arithmetic and the
plan. Depreciation is straight line over `cost.depreciation`: 3 years by default, dclint's own
default, half the 6-year server lives the largest clouds now book (Microsoft from fiscal 2023,
Alphabet from 2023, Amazon from 2024, 5 years for part of its fleet from 2025), since GPU
generations turn over in about two years; set your own in config.

Sources: Microsoft Form 10-K 2022 (servers and network equipment 4 -> 6 years); Alphabet Form
10-K 2022 (servers 4 -> 6 years); Amazon Form 10-K 2023 (servers 5 -> 6 years) and 2024.

## Example
```yaml
site: {electricity_price: 0.8 CNY/kWh, currency: CNY, exchange_rates: {USD: 7.2 CNY}}
cost: {gpu_price: 30000 USD}
workloads:
  - id: llm-13b
    budget: 50000 CNY   # CST001: projected 112,590 CNY
```

## Fix
Raise the budget, shorten the run (fewer tokens, higher MFU, lower precision), or cut the
cost items (cheaper power, a longer depreciation life if the hardware really lasts longer).
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    CurrencyError,
    Design,
    Violation,
    convert,
    project_workloads,
    rule,
    tco,
)
from dclint.units import Quantity, fmt

from ._shared import CostRule


def _unchecked(path: tuple[str | int, ...], what: str, exc: Exception) -> Violation:
    return Violation(
        path,
        f"{what} budget cannot be checked: {exc}",
        severity="warning",
        fix="declare the exchange rate in site.exchange_rates",
    )


def _money(q: Quantity, currency: str) -> str:
    return fmt(q.to(currency), digits=4)


@rule("CST001", "budget-exceeded", needs=("workload", "budget"))
class BudgetExceeded(CostRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        rates, currency = design.site.exchange_rates, design.site.currency
        for p in project_workloads(design):
            budget = design.workloads[p.index].budget
            if budget is None:
                continue
            path: tuple[str | int, ...] = ("workloads", p.index, "budget")
            try:
                limit = convert(budget, currency, rates)
            except CurrencyError as exc:
                yield _unchecked(path, f"workload {p.workload}", exc)
                continue
            if p.cost_unpriced is not None:
                yield Violation(
                    path,
                    f"workload {p.workload} budget cannot be checked: {p.cost_unpriced}",
                    subject=p.workload,
                    severity="warning",
                    fix="declare site.electricity_price and cost.gpu_price (or system_price)",
                )
                continue
            if p.cost_total.m_as(currency) > limit.m_as(currency):
                parts = ", ".join(f"{k} {_money(v, currency)}" for k, v in p.cost_breakdown.items())
                yield Violation(
                    path,
                    f"workload {p.workload} projected cost {_money(p.cost_total, currency)} "
                    f"({parts or 'no items'}) over {p.training_time.m_as('day'):.1f} days "
                    "exceeds its budget",
                    subject=p.workload,
                    measured=p.cost_total,
                    limit=limit,
                    fix="raise the budget or shorten or cheapen the run",
                )
        if design.cost.budget is None:
            return
        path = ("cost", "budget")
        try:
            limit = convert(design.cost.budget, currency, rates)
        except CurrencyError as exc:
            yield _unchecked(path, "design", exc)
            return
        t = tco(design)
        if t.total.m_as(currency) > limit.m_as(currency):
            omitted = f"; not counted: {', '.join(t.omitted)}" if t.omitted else ""
            yield Violation(
                path,
                f"{t.period.m_as('year'):g}-year TCO {_money(t.total, currency)} for {t.gpus} "
                f"GPUs exceeds the budget{omitted}",
                subject=design.name,
                measured=t.total,
                limit=limit,
                fix="raise the budget or reduce the cluster or its cost items",
            )
