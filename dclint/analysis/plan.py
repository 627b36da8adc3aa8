"""`dclint plan DESIGN --vary PATH=V1,V2,...`: the facility what-if grid and its Pareto front.

Each point of the grid (every combination of the --vary values, the last --vary varying
fastest) is the design with those values applied after any --set: its findings, the fastest
valid layout of the workload (`dclint.projection.search_design`) with its days and run cost
(energy and depreciation), and the design's TCO (`dclint.projection.tco`: the declared and
priced capital items and running costs over the period). The Pareto front is the points no
other point beats on both cost (TCO, or the run cost where no TCO item is priced) and days.
Points run in parallel processes; the output keeps the grid's order.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from dataclasses import replace
from typing import Any

from dclint.analysis.plan_records import GridPoint, Setup
from dclint.errors import ConfigError

__all__ = ["GridPoint", "Setup", "pareto", "render", "run_grid", "table"]


def _engine(setup: Setup, values: tuple[str, ...], paths: list[str]) -> Any:
    from datetime import date
    from pathlib import Path

    from dclint.analysis.grid import overrides_at
    from dclint.engine.config import load_config
    from dclint.engine.runner import Engine
    from dclint.loader.overrides import parse_override

    overrides = [parse_override(t, i) for i, t in enumerate(setup.sets, start=1)]
    overrides += overrides_at(paths, values, "--vary")
    return Engine(
        config=load_config(Path(setup.config)) if setup.config else None,
        rules_dirs=setup.rules_dirs,
        cli=setup.cli,
        today=date.fromisoformat(setup.today) if setup.today else date.today(),
        overrides=tuple(overrides),
    )


def evaluate(setup: Setup, paths: list[str], values: tuple[str, ...]) -> GridPoint:
    """One point: check the design with the values applied, then search its layouts."""
    from dclint.analysis.layouts import as_data
    from dclint.projection import tco
    from dclint.projection.search_design import plan_layouts

    engine = _engine(setup, values, paths)
    result = engine.check_file(setup.file)
    counts = dict(sorted(Counter(f.rule for f in result.findings).items()))
    errors = [str(e) for e in result.errors]
    design = result.design
    if design is None:
        return GridPoint(values, counts, errors, None, None, None, None, None, "not loaded")
    wl = pick_workload(design, setup.workload)
    t = tco(design)
    total = float(t.total.magnitude) if t.items else None
    reserve = engine.options(engine.config_for(setup.file))["PAR005"]["reserve"].m_as("")
    found = plan_layouts(design, wl, setup.by, reserve=reserve, rank_only=True)  # best is exact
    if isinstance(found, str) or not found.result.valid:
        note = found if isinstance(found, str) else "no layout fits"
        return GridPoint(values, counts, errors, None, None, None, total, t.currency, note)
    best = as_data(found, 1)["layouts"][0]
    return GridPoint(values, counts, errors, best, best["days"], best["cost"], total, t.currency)


def pick_workload(design: Any, name: str | None) -> Any:
    """The workload called `name`, or the design's only one; ConfigError otherwise."""
    ids = [w.id for w in design.workloads]
    if name is None:
        if len(ids) == 1:
            return design.workloads[0]
        raise ConfigError(
            f"{design.name}: name the workload with --workload (one of: {', '.join(ids)})"
            if ids
            else f"{design.name}: the design declares no workloads"
        )
    if name not in ids:
        raise ConfigError(
            f"{design.name}: unknown workload '{name}' (workloads: {', '.join(ids) or 'none'})"
        )
    return design.workloads[ids.index(name)]


def pareto(points: list[GridPoint]) -> list[GridPoint]:
    """The points marked: those no other point beats on cost and days (both known)."""
    known = [(p.cost, p.days) for p in points if p.cost is not None and p.days is not None]

    def beaten(cost: float, days: float) -> bool:
        return any(c <= cost and d <= days and (c < cost or d < days) for c, d in known)

    return [
        replace(p, pareto=p.cost is not None and p.days is not None and not beaten(p.cost, p.days))
        for p in points
    ]


def run_grid(setup: Setup, varies: list[tuple[str, list[str]]], jobs: int) -> list[GridPoint]:
    """Every point of the grid (dclint.analysis.grid, shared with `check --sweep`), marked."""
    from dclint.analysis import grid

    paths = [p for p, _ in varies]
    at = functools.partial(evaluate, setup, paths)
    return pareto(grid.run_grid(at, grid.points(varies), jobs))


def as_data(setup: Setup, paths: list[str], points: list[GridPoint]) -> dict[str, Any]:
    return {
        "design": setup.file,
        "workload": setup.workload,
        "vary": paths,
        "points": [
            {
                "values": dict(zip(paths, p.values, strict=True)),
                "findings": sum(p.counts.values()),
                "by_rule": p.counts,
                "errors": p.errors,
                "best": p.best,
                "days": p.days,
                "run_cost": p.run_cost,
                "tco": p.tco,
                "currency": p.currency,
                "note": p.note or None,
                "pareto": p.pareto,
            }
            for p in points
        ],
    }


def _money(value: float | None, currency: str | None) -> str:
    return "-" if value is None else f"{value:,.0f} {currency or ''}".rstrip()


def table(paths: list[str], points: list[GridPoint]) -> tuple[list[str], list[list[str]]]:
    """The grid's header and rows as text cells."""
    head = [*paths, "findings", "rules", "best layout", "days", "run cost", "TCO", "front"]
    rows = []
    for p in points:
        b = p.best
        layout = (
            f"tp{b['tp']} pp{b['pp']} vpp{b['vpp']} cp{b['cp']} ep{b['ep']} mb{b['micro_batch']}"
            if b
            else p.note or "-"
        )
        rules = ",".join(f"{r}x{n}" for r, n in p.counts.items()) or "-"
        found = "error" if p.errors else str(sum(p.counts.values()))
        days = "-" if p.days is None else f"{p.days:,.2f}"
        rows.append(
            [*p.values, found, rules, layout, days, _money(p.run_cost, p.currency),
             _money(p.tco, p.currency), "*" if p.pareto else ""]
        )  # fmt: skip
    return head, rows


def render(setup: Setup, paths: list[str], points: list[GridPoint], fmt_name: str) -> str:
    if fmt_name == "json":
        return json.dumps(as_data(setup, paths, points), indent=2, ensure_ascii=False) + "\n"
    head, rows = table(paths, points)
    if fmt_name == "html":
        from dclint.analysis.plan_chart import render_html

        return render_html(setup, paths, points, head, rows)
    md = fmt_name == "markdown"
    if md:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
    else:
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                 for r in [head, *rows]]  # fmt: skip
    title = f"What-if grid of {setup.file}" + (
        f", workload {setup.workload}" if setup.workload else ""
    )
    errors = [f"{', '.join(p.values)}: error: {e}" for p in points for e in p.errors]
    foot = "front: * = on the Pareto front of cost (TCO, else run cost) against days"
    return "\n".join(["## " + title if md else title, "", *lines, "", *errors, foot]) + "\n"
