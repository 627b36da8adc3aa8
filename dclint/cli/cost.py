"""`dclint cost`: projected training time, energy, cost and memory per workload, and TCO."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from dclint.cli._shared import add_set, overrides

if TYPE_CHECKING:
    from dclint.projection import Projection, Tco

__all__ = ["add_parser", "run"]

ROWS: tuple[tuple[str, Any], ...] = (
    ("design", lambda p: p.design),
    ("GPUs", lambda p: f"{p.gpus} x {p.gpu}"),
    ("precision", lambda p: p.precision),
    ("FLOPs (model)", lambda p: f"{p.flops.model.m_as('FLOP'):.3g} FLOP"),
    ("MFU", lambda p: f"{p.timing.mfu.m_as('percent'):.4g}%"),
    ("compute", lambda p: _fmt(p.timing.compute, "day")),
    ("communication", lambda p: _fmt(p.timing.communication, "day")),
    ("checkpoints", lambda p: _fmt(p.timing.checkpoint, "day")),
    ("training time", lambda p: _fmt(p.training_time, "day")),
    ("goodput", lambda p: f"{p.timing.goodput.m_as('percent'):.1f}%"),
    ("GPU-hours", lambda p: _fmt(p.gpu_hours, "hour")),
    ("facility power", lambda p: _fmt(p.facility_power, "kW")),
    ("energy", lambda p: _fmt(p.energy, "MWh")),
    ("TFLOPS/W", lambda p: f"{p.efficiency.m_as('TFLOPS/W'):.3g}"),
    ("cost total", lambda p: _fmt(p.cost_total)),
    ("memory/GPU", lambda p: _fmt(p.memory.total, "GiB")),
)


def _fmt(q: Any, unit: str | None = None) -> str:
    from dclint.units import fmt

    return fmt(q, unit)


def _table(projections: list[Projection]) -> str:
    header = ["workload", *(p.workload for p in projections)]
    rows = [header] + [[name, *(str(get(p)) for p in projections)] for name, get in ROWS]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    )


def _tco_text(t: Tco) -> str:
    from dclint.units import fmt

    lines = [f"TCO {t.design}: {fmt(t.total)} over {t.period.m_as('year'):g} years, {t.gpus} GPUs"]
    lines += [f"  {name}: {fmt(value)}" for name, value in t.items.items()]
    per = t.per_gpu_year
    if per is not None:
        lines.append(f"  per GPU-year: {fmt(per)}")
    if t.break_even is not None:
        lines.append(f"  break-even: {t.break_even.m_as('month'):.1f} months")
    if t.omitted:
        lines.append(f"  omitted (not declared): {', '.join(t.omitted)}")
    return "\n".join(lines)


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser = sub.add_parser("cost", help="project training time, energy, cost and TCO")
    parser.add_argument("paths", nargs="+", metavar="DESIGN")
    parser.add_argument("--format", default="text", choices=("text", "json"), help="output format")
    add_set(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    from dclint.loader import load
    from dclint.projection import project_workloads, tco, unprojected

    sets = overrides(args)
    # LoadError -> exit 2 with file:line:col
    designs = [load(path, overrides=sets) for path in args.paths]
    projections = [p for d in designs for p in project_workloads(d)]
    if args.format == "json":
        data = {
            "projections": [p.as_dict() for p in projections],
            "unprojected": [
                {"design": d.name, "workload": w, "reason": r}
                for d in designs
                for w, r in unprojected(d)
            ],
            "tco": [tco(d).as_dict() for d in designs],
        }
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        return 0
    out = [_table(projections)] if projections else []
    for p in projections:
        out.append(
            f"\nassumptions for {p.workload}:\n" + "\n".join(f"  - {a}" for a in p.assumptions)
        )
    for d in designs:
        out += [f"\n{d.name}: {w} not projected: {r}" for w, r in unprojected(d)]
        out.append("\n" + _tco_text(tco(d)))
    sys.stdout.write("\n".join(out).lstrip("\n") + "\n")
    return 0
