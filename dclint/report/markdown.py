"""Markdown output: a design review per design (summary, findings, projection, assumptions)."""

from __future__ import annotations

import re
from typing import Any

from dclint.analysis.summary import DesignSummary
from dclint.engine.findings import Finding, RunResult
from dclint.report.review import SEVERITY_ORDER, Review, reviews
from dclint.report.text import summary_line
from dclint.report.values import PROJECTION_COLUMNS, breakdown, projection_rows, tco_rows
from dclint.units import fmt

__all__ = ["md", "render", "summary_rows"]

_SPECIAL = re.compile(r"([\\`*_\[\]<>|#~!&])")


def md(text: Any) -> str:
    """Text safe in a markdown paragraph or table cell: punctuation escaped, one line."""
    return _SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def summary_rows(s: DesignSummary) -> list[tuple[str, str]]:
    """(figure, value) rows of the design summary table, shared with the html report."""
    rows = [
        ("GPUs", f"{s.gpus}"),
        ("Racks", f"{s.racks}"),
        ("IT load", fmt(s.it_load)),
        (f"Facility power (IT load x PUE {s.pue:g})", fmt(s.facility_power)),
    ]
    if s.utility_capacity is not None:
        margin = (s.utility_capacity - s.facility_power).to("kW")
        rows.append(("Utility capacity", f"{fmt(s.utility_capacity)} (margin {fmt(margin)})"))
    if s.cdus:
        rows.append(
            (
                "Cooling: liquid heat / CDU capacity",
                f"{fmt(s.liquid_heat)} / "
                f"{fmt(s.cooling_capacity)} (margin {fmt(s.cooling_margin)})",
            )
        )
    else:
        rows.append(("Cooling", f"no CDUs declared; {fmt(s.liquid_heat)} of liquid heat"))
    if s.rack_loads:
        top = max(s.rack_loads, key=lambda r: r.it_load.m_as("kW"))
        rows.append(("Highest rack load", f"{fmt(top.it_load)} ({top.id}; limit {fmt(top.limit)})"))
    for t in s.tiers:
        down = fmt(t.down.to("Tb/s"))
        if t.ratio is None or t.up is None:
            value = f"top tier: {down} down, no uplinks"
        else:
            limit = f"; limit {t.limit:g}:1" if t.limit is not None else ""
            value = f"{t.ratio:.2f}:1 down:up ({down} / {fmt(t.up.to('Tb/s'))}{limit})"
        rows.append((f"Fabric {t.fabric} ({t.kind}) tier {t.tier}", value))
    if s.storage is not None:
        st = s.storage
        rows.append(
            (
                f"Storage read ({', '.join(st.tiers) or 'no training tier'})",
                f"{fmt(st.read_bandwidth)} against demand {fmt(st.demand)} "
                f"({fmt(st.needed)} needed at {st.factor:g}x)",
            )
        )
    return rows


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(md(c) for c in row) + " |" for row in rows]
    return [*lines, ""]


def _finding(f: Finding) -> str:
    numbers = ""
    if f.measured is not None or f.limit is not None:
        numbers = f" (measured {f.measured or '-'}, limit {f.limit or '-'})"
    fix = f" Fix: {md(f.fix)}." if f.fix else ""
    where = md(f"{f.file}:{f.line}:{f.column}")
    return f"- {where} **{f.rule}** {md(f.name)}: {md(f.message + numbers)}.{fix}"


def _design(r: Review) -> list[str]:
    out = [f"## {md(r.name)}", "", f"File: {md(r.file)}", ""]
    if r.summary is not None:
        out += ["### Summary", ""]
        out += _table(["Figure", "Value"], [list(row) for row in summary_rows(r.summary)])
    elif r.summary_error:
        out += [f"Summary not available: {md(r.summary_error)}", ""]
    out += [f"### Findings ({len(r.findings)})", ""]
    if r.errors:
        out += [f"#### Load errors ({len(r.errors)})", ""]
        out += [f"- {md(f'{e.file}:{e.line}:{e.column}')}: {md(e.message)}" for e in r.errors]
        out.append("")
    if not r.findings and not r.errors:
        out += ["No findings.", ""]
    for severity in SEVERITY_ORDER:
        areas = r.groups.get(severity)
        if not areas:
            continue
        count = sum(len(v) for v in areas.values())
        out += [f"#### {severity.capitalize()}s ({count})", ""]
        for area in sorted(areas):
            out += [f"**{md(area)}**", ""] + [_finding(f) for f in areas[area]] + [""]
    if r.projections or r.tco:
        out += ["### Projected training time and cost", ""]
    if r.projections:
        out += _table(list(PROJECTION_COLUMNS), projection_rows(r.projections))
        out += [
            f"Cost breakdown of {md(p.get('workload', ''))}: {md(breakdown(p))}\n"
            for p in r.projections
            if p.get("cost_breakdown")
        ]
    if r.tco:
        out += ["TCO:", "", *_table(["Item", "Value"], tco_rows(r.tco))]
    out += [f"_{md(n)}_" for n in r.notes] + ([""] if r.notes else [])
    if r.assumptions:
        out += ["### Assumptions and limits", ""]
        out += _table(
            ["Assumption", "In effect", "Default", "Source"],
            [[a.item, a.value, a.default, a.source] for a in r.assumptions],
        )
    return out


def render(result: RunResult, settings: dict[str, Any]) -> str:
    out = ["# dclint design review", "", md(summary_line(result)), ""]
    for review in reviews(result, settings):
        out += _design(review)
    fixed = settings.get("baseline_fixed") or []
    if fixed:
        out += [f"## Baseline: {len(fixed)} entries no longer occur", ""]
        out += [f"- {md(e.describe())}" for e in fixed] + [""]
    return "\n".join(out).rstrip("\n") + "\n"
