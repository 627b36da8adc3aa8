"""The html review's charts as hand-written SVG (dclint.report.svg): rack loads by group, load
against capacity of every power, cooling and storage element, the training step, the cost, and
the numbers of any finding no other chart shows."""

from __future__ import annotations

import math
from typing import Any

from dclint.analysis.diagrams import Graph, over_text
from dclint.model.ranges import compact
from dclint.report.review import Review
from dclint.report.svg import ROWS_MOST, TITLE_MOST, Bar, Part, hbars, stacked
from dclint.report.values import predicted_step
from dclint.units import Quantity, fmt

__all__ = ["OVER_HEADER", "charted", "charts", "over_rows"]


def _over_load(r: Review) -> set[str]:
    """The racks a finding judges over on their load: the verdicts are the rules', read from
    the findings on a rack's `it_load` (error or warning), never judged again here."""
    return {
        f.subject
        for f in r.findings
        if f.subject and f.path.endswith(".it_load") and f.severity in ("error", "warning")
    }


def _racks(r: Review) -> list[Bar]:
    """One row per rack group: the span from its lightest to its heaviest rack; red where a
    finding judges one of its racks over its load limit."""
    s = r.summary
    assert s is not None
    groups: dict[str, list[Any]] = {}
    for load in s.rack_loads:
        groups.setdefault(load.group or load.id, []).append(load)
    judged = _over_load(r)
    out = []
    for name, loads in groups.items():
        kw = [x.it_load.m_as("kW") for x in loads]
        limit = max(x.limit.m_as("kW") for x in loads)
        over = [x.id for x in loads if x.id in judged]
        ids = [x.id for x in loads]
        spread = f"{min(kw):.4g}-{max(kw):.4g} kW" if min(kw) < max(kw) else f"{kw[0]:.4g} kW"
        note = f"{len(loads)} racks at {spread}" if len(kw) > 1 else spread
        note += f"; over {limit:.4g} kW: {over_text(over)}" if over else f" (limit {limit:.4g} kW)"
        out.append(
            Bar(
                f"{compact(ids, 2)} {name.split(' @ ')[0]}",
                max(kw) * 1e3,
                limit * 1e3,
                bool(over),
                note,
                min(kw) * 1e3 if len(kw) > 1 else None,
                ",".join(ids) if len(ids) <= 64 else name,
                verdict=bool(over),
            )
        )
    return out


RACK_CHART = "Rack IT load by rack group (span lightest to heaviest) against the rack limit"
OVER_HEADER = ["Figure", "Box or bar", "Over its limit (every one)"]


def over_rows(r: Review) -> list[list[str]]:
    """Every element the figures draw as over its limit, whole (a box or bar names a few or
    counts them; this table, under the figures, names every one and continues across pages):
    the diagrams' boxes, then the rack chart's groups judged over by the findings."""
    rows = []
    for title, g in r.graphs:
        for n in g.nodes:
            ids = list(n.over_members)
            if not ids and n.over:  # an element's box, or alike elements' drawn as one
                ids = list(n.members) or [n.key.split(":", 1)[-1]]
            if ids:
                rows.append([title.split(":")[0], n.title, compact(ids, most=len(ids))])
    if r.summary is not None and r.design is not None:
        judged = _over_load(r)
        groups: dict[str, list[str]] = {}
        for load in r.summary.rack_loads:
            if load.id in judged:
                groups.setdefault(load.group or load.id, []).append(load.id)
        for name, ids in groups.items():
            rows.append(["Rack IT load", name.split(" @ ")[0], compact(ids, most=len(ids))])
    return rows


def _percent(share: float) -> str:
    """A share as a whole percent; a load on no capacity (an infinite share) says so."""
    return f"{share * 100:.0f}%" if math.isfinite(share) else "no capacity"


def _utilisation(graphs: list[tuple[str, Graph]], r: Review) -> list[Bar]:
    """Every diagram element with a capacity, and the storage read path, as % of capacity."""
    out = []
    for _, g in graphs:
        for n in g.nodes:
            if n.share is not None and not n.key.startswith("racks:"):
                out.append(
                    Bar(
                        n.title,
                        n.share * 100,
                        100.0,
                        n.over,
                        f"{_percent(n.share)}: {n.detail}",
                        key=n.key,
                    )
                )
    st = r.summary.storage if r.summary else None
    if st is not None and st.read_bandwidth.magnitude > 0:
        used = float((st.needed / st.read_bandwidth).m_as(""))
        flagged = any(t in r.flagged for t in st.tiers)
        out.append(
            Bar(
                "storage read (demand x factor)",
                used * 100,
                100.0,
                flagged,
                f"{used * 100:.0f}%: {fmt(st.needed)} needed / {fmt(st.read_bandwidth)}",
                key=",".join(st.tiers),
            )
        )
    return out


def charted(r: Review, graphs: list[tuple[str, Graph]]) -> set[str]:
    """Subjects some diagram or chart already shows."""
    ids = {"site", "utility"}
    for _, g in graphs:
        for n in g.nodes:
            ids.add(n.key.split(":", 1)[-1])
            ids.update(n.members)
    if r.summary is not None:
        ids.update(x.id for x in r.summary.rack_loads)
        ids.update(f"{t.fabric}.{t.tier}" for t in r.summary.tiers)
        if r.summary.storage is not None:
            ids.update(r.summary.storage.tiers)
    return ids


def _numbers(r: Review, shown: set[str]) -> list[Bar]:
    """Measured against limit for each finding no other chart shows (same dimension only)."""
    out = []
    for f in r.findings:
        measured, limit = f.measured, f.limit
        if f.subject in shown or not isinstance(measured, Quantity):
            continue
        # text ("2.00:1", "3 of 4") and plain numbers (a count, PAR003's divisor) are no bar
        # to fill, and neither is a share or a value of another dimension than its limit
        if not isinstance(limit, Quantity) or limit.dimensionless:
            continue
        if measured.dimensionality != limit.dimensionality:
            continue
        value = float(measured.m_as(limit.units))
        scale = float(limit.magnitude) or 1.0
        out.append(
            Bar(
                f"{f.rule} {f.subject}",
                value / scale * 100,
                100.0,
                True,
                f"{f.measured_text} against {f.limit_text}",
                key=f.subject,
            )
        )
    return out


def step_title(workload: str, step: str) -> str:
    """The step chart's title, its workload id cut (with an ellipsis) so that the whole title
    fits TITLE_MOST and the step's figure is drawn whole: cut at its end, a long id took the
    figure with it ('..., 2.6\u2026')."""
    head, tail = "Predicted step of ", f", {step}: where the time goes"
    room = max(8, TITLE_MOST - len(head) - len(tail))
    if len(workload) > room:
        workload = workload[: room - 1] + "\u2026"
    return f"{head}{workload}{tail}"


def _bars(title: str, bars: list[Bar], unit: str, chart_id: str) -> list[tuple[str, str]]:
    """(title, svg) of `bars` as one chart, or as several of ROWS_MOST rows each ("(2 of 3)")
    so that each prints on a page at full size."""
    parts = [bars[i : i + ROWS_MOST] for i in range(0, len(bars), ROWS_MOST)]
    if len(parts) == 1:
        return [(title, hbars(title, bars, unit, chart_id))]
    out = []
    for n, part in enumerate(parts, 1):
        named = f"{title} ({n} of {len(parts)})"
        out.append((named, hbars(named, part, unit, f"{chart_id}-{n}")))
    return out


def charts(
    r: Review, cost: dict[str, float], currency: str, prefix: str, what: str = "Cost breakdown"
) -> list[tuple[str, str]]:
    """(title, svg) of each chart the data allows."""
    out: list[tuple[str, str]] = []
    if r.summary is not None and r.summary.rack_loads and r.design is not None:
        out += _bars(RACK_CHART, _racks(r), "W", f"{prefix}-racks")
    util = _utilisation(r.graphs, r)
    if util:
        title = "Load against capacity (%): power, cooling and storage"
        out += _bars(title, util, "%", f"{prefix}-util")
    numbers = _numbers(r, charted(r, r.graphs))
    if numbers:
        title = "Other findings: measured against limit (%)"
        out += _bars(title, numbers, "%", f"{prefix}-nums")
    for i, p in enumerate(r.projections):
        parts = p.get("step_parts") or []
        if parts:
            title = step_title(str(p.get("workload", "")), predicted_step(p))
            chart = stacked(title, [Part(n, v) for n, v in parts], "s", f"{prefix}-step{i}")
            out.append((title, chart))
    if cost:
        title = f"{what} ({currency})"  # the TCO's items or a run's, as html._cost says
        bars = [Bar(k, v, None, False, "") for k, v in cost.items()]
        out += _bars(title, bars, currency, f"{prefix}-cost")
    return out
