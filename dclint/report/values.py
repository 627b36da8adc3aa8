"""How the review shows values and the projection's figures: units, currencies, shares."""

from __future__ import annotations

import re
from typing import Any

from dclint.figures import figures, percent
from dclint.units import Q_, Quantity, days_quoted, fmt, fmt_band

__all__ = [
    "MONEY_KEYS",
    "NO_ACTIVATIONS",
    "PROJECTION_COLUMNS",
    "band",
    "breakdown",
    "cost_quoted",
    "days_band",
    "days_quoted",
    "days_text",
    "failure_outcomes",
    "left_out",
    "mfu_text",
    "micro_signed",
    "money",
    "not_meaningful",
    "omitted_rows",
    "predicted_step",
    "projection_rows",
    "share",
    "show",
    "tco_rows",
    "time_terms",
]

PROJECTION_COLUMNS = (
    "Workload",
    "GPUs",
    "MFU",
    "Training days",
    "GPU-hours",
    "Energy (MWh)",
    "Memory per GPU (GiB)",
    "Cost",
)
MONEY_KEYS = {"total", "per_gpu_year", "items", "cost_total", "cost_breakdown"}
# a figure in microseconds as the projection's assumption lines write it, in plain ASCII as
# `dclint cost`'s text prints a step part ('74 us a GEMM', svg.si's micro 'u')
_MICROSECONDS = re.compile(r"(\d) us(?![\w-])")  # not 'us-east-1'


def failure_outcomes(failures: Any) -> str:
    """What single failures do, as `dclint failures` and the review's FMEA say it: '3
    overload a survivor, 1 leaves racks without supply or cooling'."""
    over = sum(1 for f in failures if f.overloaded)
    lost = sum(1 for f in failures if f.racks_lost)
    return (
        f"{over} overload{'s' * (over == 1)} a survivor, {lost} leave{'s' * (lost == 1)} racks "
        "without supply or cooling"
    )


def micro_signed(text: str) -> str:
    """An assumption line as Markdown, HTML and the review print it: its microseconds with the
    micro sign, as their step tables print a step part ('263 µs'): '74 us a GEMM' -> '74 µs a
    GEMM'. The plain text keeps 'us'."""
    return _MICROSECONDS.sub("\\1 \u00b5s", text)


def show(value: Any) -> str:
    """A value as a reviewer reads it: quantities with units, numbers to 4 figures."""
    if isinstance(value, Quantity):
        # a share: unitless (a parsed `Share` option: 0.1) or in percent (`10 %`)
        if value.unitless or str(value.units) == "percent":
            return f"{value.m_as('dimensionless') * 100:.4g}%"
        return fmt(value)
    if isinstance(value, bool) or value is None:
        return {True: "yes", False: "no", None: "-"}[value]
    if isinstance(value, int):  # a count, thousands separated as `dclint cost` prints it: 8,192
        return f"{value:,}"
    if isinstance(value, float):  # as `fmt` prints a quantity: 2,009,000 GPU-hours, 168.6
        return figures(value)  # (9999.7 printed '1e+04' here, '10,000' in `dclint cost`)
    if isinstance(value, dict):
        return ", ".join(f"{k} = {show(v)}" for k, v in value.items()) or "-"
    if isinstance(value, (list, tuple)):
        return ", ".join(show(v) for v in value) or "-"
    return str(value)


def money(value: Any, currency: str) -> str:
    """A cost: plain numbers are in the projection's currency, so say which."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and currency:
        return f"{show(value)} {currency}"
    return show(value)


def share(value: Any) -> str:
    """A share as a percentage: 0.1 -> `10%`; anything else as `show` gives it."""
    if isinstance(value, float) and 0 <= value <= 1:
        return f"{value * 100:.3g}%"
    return show(value)


def mfu_text(value: Any) -> str:
    """An MFU as `dclint cost` prints it, to 4 figures: 0.4808 -> '48.08%', 0.45 -> '45%'
    (the review printed 48.1% and, for the same run, 45.0% in its layout table)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return percent(value)
    return show(value)


band = fmt_band  # a range as a consultant quotes it (dclint.units, shared with the editor)


def days_text(days: float) -> str:
    """Training days as the review prints them, in every table and sentence: '136.6 d'."""
    return f"{show(float(days))} d"


def cost_quoted(cost: Quantity | None, unconverted: tuple[str, ...] = ()) -> str:
    """A run's cost in a what-if table or `dclint diff`, saying what it leaves out for want
    of an exchange rate, as `dclint cost`'s assumptions do: '92,201 CNY (electricity cost
    omitted: no exchange rate from EUR to CNY)'; '-' where nothing is priced."""
    return ("-" if cost is None else fmt(cost)) + left_out(unconverted)


def left_out(unconverted: tuple[str, ...]) -> str:
    """' (electricity cost omitted: no exchange rate from EUR to CNY)': what a cost leaves
    out, the projection's notes without their advice; '' where it leaves nothing out."""
    if not unconverted:
        return ""
    return f" ({'; '.join(n.split(': declare ', 1)[0] for n in unconverted)})"


def days_band(p: dict[str, Any]) -> str:
    """' (31-41 d)': the training days' band where the days come from the predicted step
    (MFU predicted, not declared), as the projection gives it (JSON `training_days_band`,
    Projection.training_band); '' otherwise."""
    low_high = p.get("training_days_band")
    if not isinstance(low_high, list | tuple) or len(low_high) != 2:
        return ""
    return f" ({band(low_high[0], low_high[1])} d)"


def mfu_band(p: dict[str, Any]) -> str:
    """' (37-57%)': the predicted MFU's band, where the MFU is the predicted one."""
    u = p.get("uncertainty")
    source = str(p.get("mfu_source") or "")
    if not isinstance(u, dict) or not u.get("mfu") or not source.startswith("predicted"):
        return ""
    low, high = u["mfu"]
    return f" ({band(100 * low, 100 * high)}%)"


# what a memory figure says of itself when the architecture leaves the activations unestimated
# (the assumptions' 'activations not estimated: ...' says why), in `dclint cost` and the review
NO_ACTIVATIONS = " (excl. activations: not estimated)"


def not_meaningful(f: Any) -> str:
    """'not meaningful until PAR003 layout-not-divisible is fixed': what the review and
    `dclint cost` say of a projection while `f`, an error that says the design cannot run its
    workload as stated (dclint.engine.coverage.blocking), stands."""
    return f"not meaningful until {f.rule} {f.name} is fixed"


def projection_rows(projections: list[dict[str, Any]], blocked: str = "") -> list[list[str]]:
    """One row per projected workload, in PROJECTION_COLUMNS order; predicted MFU and days
    carry their uncertainty band. Where the design cannot run its workload as stated,
    `blocked` says so in place of every figure that rests on the run ('not meaningful until
    NET004 fabric-partitioned is fixed')."""
    rows = []
    for p in projections:
        if blocked:
            rows.append([show(p.get("workload")), show(p.get("gpus")), *[blocked] * 6])
            continue
        memory = p.get("memory_per_gpu_gib")
        without = ""
        if isinstance(memory, dict):
            without = "" if "activations" in memory else NO_ACTIVATIONS
            memory = memory.get("total")
        rows.append(
            [
                show(p.get("workload")),
                show(p.get("gpus")),
                mfu_text(p.get("mfu")) + mfu_band(p),
                (
                    days_text(p["training_days"])
                    if isinstance(p.get("training_days"), (int, float))
                    else show(p.get("training_days"))
                )
                + days_band(p),
                show(p.get("gpu_hours")),
                show(p.get("energy_mwh")),
                show(memory) + without,
                money(p.get("cost_total"), str(p.get("currency") or ""))
                if p.get("cost_breakdown")
                else "-",  # nothing priced: no cost, not a free run
            ]
        )
    return rows


# the terms of the training time, in `dclint cost`'s order and words
TIME_TERMS = (
    ("compute", "compute_days"),
    ("communication", "communication_days"),
    ("batch ramp-up", "rampup_days"),
    ("evaluations", "evaluation_days"),
    ("checkpoints", "checkpoint_days"),
    ("failures", "failure_days"),
)


def time_terms(p: dict[str, Any]) -> str:
    """'Training time of W, 1.751 d: compute 1.736 d, checkpoints 0.002194 d, failures
    0.0128 d; a step of 2.268 s at MFU 45% (declared).': the terms the days add up, those a
    workload has ('' without training days)."""
    days = p.get("training_days")
    if not isinstance(days, (int, float)):
        return ""
    terms = ", ".join(
        f"{label} {days_text(p[key])}"
        for label, key in TIME_TERMS
        if isinstance(p.get(key), (int, float)) and p[key] > 0
    )
    text = f"Training time of {p.get('workload', '')}, {days_text(days)}{days_band(p)}: {terms}"
    step = p.get("step_time_s")
    if isinstance(step, (int, float)):
        source = str(p.get("mfu_source") or "").split(" ", 1)[0]
        text += f"; a step of {fmt(Q_(step, 's'))} at MFU {mfu_text(p.get('mfu'))} ({source})"
    return text + "."


def predicted_step(p: dict[str, Any]) -> str:
    """'2.586 s (2.12-2.78 s)': the predicted step with its band, as `dclint cost` prints it
    ('' without a prediction)."""
    step = p.get("step_time_predicted_s")
    if not isinstance(step, (int, float)):
        return ""
    text = fmt(Q_(step, "s"))
    u = p.get("uncertainty")
    if isinstance(u, dict) and u.get("step_time_s"):
        low, high = u["step_time_s"]
        text += f" ({band(low, high, 3)} s)"
    return text


def breakdown(p: dict[str, Any]) -> str:
    items = p.get("cost_breakdown") or {}
    currency = str(p.get("currency") or "")
    return ", ".join(f"{k} {money(v, currency)}" for k, v in items.items())


def omitted_rows(why: dict[str, list[str]]) -> list[tuple[str, str]]:
    """('omitted (no exchange rate from EUR to CNY)', 'electricity'): a TCO's omitted items
    (Tco.omissions), a line for each reason, as `dclint cost` and the review print them."""
    return [(f"omitted ({reason})", ", ".join(names)) for reason, names in why.items()]


def tco_rows(tco: dict[str, Any]) -> list[list[str]]:
    """The review's TCO table from the JSON record, the rows `dclint cost`'s Markdown and HTML
    give it (report.cost): 'total' with its period and GPUs, an item a row, 'per GPU-year',
    'break-even' where there is one, then what it omits (the review printed the record's keys,
    'period years 3', 'gpus 8208', 'break even months -')."""
    currency = str(tco.get("currency") or "")
    items = tco.get("items") or {}
    total = money(tco.get("total"), currency) if items else "- (nothing priced)"
    years, gpus = tco.get("period_years"), tco.get("gpus")
    if isinstance(years, (int, float)):
        total += f" over {years:g} years"
    if isinstance(gpus, int):
        total += f", {gpus:,} GPUs"
    rows = [["total", total]]
    rows += [[name, money(value, currency)] for name, value in items.items()]
    if tco.get("per_gpu_year") is not None and items:
        rows.append(["per GPU-year", money(tco["per_gpu_year"], currency)])
    if tco.get("break_even_months") is not None:
        rows.append(["break-even", f"{tco['break_even_months']:.1f} months"])
    rows += [[label, names] for label, names in omitted_rows(tco.get("omitted_why") or {})]
    return rows
