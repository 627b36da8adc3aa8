"""Markdown output: the design review as a pull-request comment: an overview of every design,
then per design its findings (one defect on many racks rolled up), with the summary, Mermaid
diagrams and projection folded in <details>; the assumptions once, folded."""

from __future__ import annotations

import re
from typing import Any

from dclint.analysis.assess.assessment import RunAssessment
from dclint.analysis.summary import DesignSummary
from dclint.engine.rollup import Rollup, impact_note_sentence, impact_sentence, measured_limit
from dclint.escaping import markdown_text
from dclint.report.assumptions import PROJECTION_OF
from dclint.report.drawing import mermaid
from dclint.report.fixes import fix_words, fix_yaml
from dclint.report.meta import metadata
from dclint.report.review import (
    OVERVIEW_COLUMNS,
    SEVERITY_ORDER,
    Review,
    merged_assumptions,
    reviews,
)
from dclint.report.svg import si
from dclint.report.text import summary_line
from dclint.report.values import (
    PROJECTION_COLUMNS,
    breakdown,
    predicted_step,
    projection_rows,
    tco_rows,
    time_terms,
)
from dclint.report.view import View
from dclint.units import fmt

__all__ = [
    "design_section",
    "md",
    "overview",
    "render",
    "rollup_line",
    "section",
    "slug",
    "summary_rows",
]

SUBJECTS = 100  # subjects listed under a rolled-up entry; a PR comment has a size limit


def md(text: Any) -> str:
    """Text safe in a markdown paragraph or table cell: punctuation escaped, one line, control
    characters written as escapes (dclint.escaping.markdown_text)."""
    return markdown_text(text)


def summary_rows(s: DesignSummary) -> list[tuple[str, str]]:
    """(figure, value) rows of the design summary table, shared with the html report."""
    rows = [
        ("GPUs", f"{s.gpus:,}"),
        ("Racks", f"{s.racks:,}"),
        ("IT load", fmt(s.it_load)),
        (f"Facility power (all racks: IT load x PUE {s.pue:g})", fmt(s.facility_power)),
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
        need = f"demand {fmt(st.demand)} ({fmt(st.needed)} needed at {st.factor:g}x)"
        unread = f"{', '.join(st.unread)} declares no read rate" if st.unread else ""
        if st.unread and len(st.unread) == len(st.tiers):  # no figure, not 0 GB/s
            value = f"not declared ({unread}); {need}"
        else:
            value = f"{fmt(st.read_bandwidth)} against {need}" + (f"; {unread}" if unread else "")
        rows.append((f"Storage read ({', '.join(st.tiers) or 'no training tier'})", value))
    return rows


def _table(header: list[str] | tuple[str, ...], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(md(c) for c in row) + " |" for row in rows]
    return [*lines, ""]


def _fold(summary: str, body: list[str]) -> list[str]:
    """A folded section: GitHub renders the markdown inside once a blank line follows."""
    return [f"<details><summary>{md(summary)}</summary>", "", *body, "</details>", ""]


def rollup_line(r: Rollup, full: bool = True) -> str:
    """One entry a defect: location, rule, name, how many and which, message, numbers, fix."""
    f = r.first
    numbers = measured_limit(f) if full else ""
    words = fix_words(f)
    fix = f" Fix: {md(words)}." if words and full else ""
    if f.impact is not None:  # what the finding costs: days and money of the projected run
        fix += f" **{md(impact_sentence(f))}.**"
    elif f.impact_note:  # a priced rule's finding that costs the run nothing, and why
        fix += f" {md(impact_note_sentence(f))}."
    scope = f"**{md(r.scope())}**, e.g.: " if r.count > 1 else ""
    source = f" (source: {md(f.origin)})" if f.origin else ""  # an imported element's
    line = (
        f"- {md(r.where)} **{f.rule}** {md(f.name)}: {scope}{md(f.message + numbers)}{source}.{fix}"
    )
    change = fix_yaml(f) if full else ""
    if change:  # the design change, as the item's own code block
        line += "\n\n  ```yaml\n" + "".join(f"  {ln}\n" for ln in change.splitlines()) + "  ```"
    return line


def slug(title: str) -> str:
    """The anchor GitHub gives a heading."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def _findings(r: Review) -> list[str]:
    out = [f"### Findings ({len(r.findings)})", ""]
    if r.errors:
        out += [f"#### Load errors ({len(r.errors)})", ""]
        out += [f"- {md(f'{e.file}:{e.line}:{e.column}')}: {md(e.message)}" for e in r.errors]
        out.append("")
    if not r.findings and not r.errors:
        out += ["No findings.", ""]
    for severity in SEVERITY_ORDER:
        areas = r.rolled.get(severity)
        if not areas:
            continue
        count = sum(x.count for v in areas.values() for x in v)
        out += [f"#### {severity.capitalize()}s ({count})", ""]
        for area in sorted(areas):
            out += [f"**{md(area)}**", ""]
            for x in areas[area]:
                out.append(rollup_line(x))
                if x.count > 1:
                    out += [
                        "",
                        *_fold(
                            f"All {x.count} subjects",
                            [
                                f"- {md(f'{g.file}:{g.line}:{g.column}')} {md(g.subject)}"
                                for g in x.findings[:SUBJECTS]
                            ]
                            + [f"- and {x.count - SUBJECTS} more"] * (x.count > SUBJECTS),
                        ),
                    ]
            out.append("")
    return out


def _projection(r: Review) -> list[str]:
    out: list[str] = []
    if r.projections:
        out += _table(list(PROJECTION_COLUMNS), projection_rows(r.projections, r.blocked))
        if not r.blocked:  # the terms of a figure that is no figure are none
            out += [f"{md(time_terms(p))}\n" for p in r.projections if time_terms(p)]
        out += [
            f"Cost breakdown of {md(p.get('workload', ''))}: {md(breakdown(p))}\n"
            for p in r.projections
            if p.get("cost_breakdown")
        ]
        for p in r.projections:
            parts = p.get("step_parts") or []
            total = sum(v for _, v in parts) or 1.0
            if parts:
                out += [f"Predicted step of {md(p.get('workload', ''))}, {predicted_step(p)}:", ""]
                out += _table(
                    ["Part", "Time", "Share"],
                    [[n, si(v, "s"), f"{100 * v / total:.0f}%"] for n, v in parts],
                )
    if r.tco:
        out += ["TCO:", "", *_table(["Item", "Value"], tco_rows(r.tco))]
    return out


def _design(r: Review) -> list[str]:
    out = [f"## {md(r.name)}", "", f"File: {md(r.file)}. Verdict: **{md(r.verdict)}**.", ""]
    out += _findings(r)  # findings first: what a reader acts on
    if r.summary is not None:
        rows = [list(row) for row in summary_rows(r.summary)]
        out += _fold("Summary figures", _table(["Figure", "Value"], rows))
    elif r.summary_error:
        out += [f"Summary not available: {md(r.summary_error)}", ""]
    if r.graphs:
        body = []
        for title, graph in r.graphs:
            body += [f"**{md(title)}**", "", mermaid(graph), ""]
        from dclint.report.charts import OVER_HEADER, over_rows

        over = over_rows(r)
        if over:
            body += [f"Over their limit in the figures above ({len(over)}):", ""]
            body += _table(OVER_HEADER, over)
        out += _fold("Diagrams: " + ", ".join(t.split(":")[0].lower() for t, _ in r.graphs), body)
    projection = _projection(r)
    if projection:
        out += _fold("Projected training time and cost", projection)
    out += [f"_{md(n)}_" for n in r.notes] + ([""] if r.notes else [])
    return out


design_section = _design  # one design's body, for the review document


def section(r: Review) -> list[str]:
    """One design's lines in the review: as a run printed them (a design read back from the
    results cache), else laid out now."""
    if r.shown is not None and "markdown" in r.shown.sections:
        return list(r.shown.sections["markdown"])
    return _design(r)


def overview(items: list[Review], links: bool = True) -> list[str]:
    """The overview table, a row a design; `links` to each design's section."""
    rows = [r.overview() for r in items]
    for row, r in zip(rows, items, strict=True):
        row[0] = f"[{md(r.name)}](#{slug(md(r.name))})" if links else md(r.name)
    lines = ["| " + " | ".join(OVERVIEW_COLUMNS) + " |", "|" + "---|" * len(OVERVIEW_COLUMNS)]
    lines += ["| " + " | ".join([row[0], *(md(c) for c in row[1:])]) + " |" for row in rows]
    return [*lines, ""]


def render(run: RunAssessment, view: View) -> str:
    items = reviews(run)
    out = ["# dclint design review", "", md(summary_line(run.result)), "", "## Overview", ""]
    out += overview(items)
    contents = [f"[{md(r.name)}](#{slug(md(r.name))})" for r in items]
    out += [
        "Contents: " + " · ".join([*contents, "[Assumptions and limits](#assumptions-and-limits)"]),
        "",
    ]
    out += _fold(
        "Run details: date, version, configuration, commit, command line",
        _table(
            ["Item", "Value"],
            [list(x) for x in metadata(items, view)],
        ),
    )
    for review in items:
        out += section(review)
    # a comment's size is bounded (GitHub: 65,536 characters): each workload's projection
    # lines are the review document's and `dclint cost`'s, said so here
    header, rows = merged_assumptions(items, projections=False)
    if rows:
        out += ["## Assumptions and limits", ""]
        out += _fold(f"{len(rows)} assumptions and limits in effect", _table(header, rows))
        if any(a.item.startswith(PROJECTION_OF) for r in items for a in r.assumptions):
            out += [
                "Each workload's projection rests on the assumptions `dclint cost DESIGN` and "
                "`dclint review DESIGN` list.",
                "",
            ]
    fixed = view.baseline_fixed
    if fixed:
        out += [f"## Baseline: {len(fixed)} entries no longer occur", ""]
        out += [f"- {md(e.describe())}" for e in fixed] + [""]
    return "\n".join(out).rstrip("\n") + "\n"
