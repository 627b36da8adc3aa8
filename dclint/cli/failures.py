"""`dclint failures DESIGN`: every single failure of the power and cooling plant, what moves
where, the worst survivor and its margin, and the racks lost (an FMEA-style table)."""

from __future__ import annotations

import argparse
from typing import Any

from dclint.cli._shared import add_config, add_format, add_output, add_set, emit, make_engine

__all__ = ["add_parser", "run"]

_HELP = (
    "Plays every single failure the design declares, one at a time: each feed, panel, busway, "
    "switchboard, UPS and UPS module, transformer, the utility and one generator of each set, "
    "each CDU, one pump of each CDU that declares its pumps, one air handler of each hall and "
    "one unit of each heat-rejection set (at the design-day ambient). A rack's load is shared "
    "by its live feeds (A/B cords, distributed-redundant UPS pairs as wired), a catcher takes "
    "over the UPS it backs up, a CDU group's others share a lost CDU's heat. Lists what moves "
    "where, the worst survivor (load against capacity, and the margin) and the racks left "
    "without supply or cooling."
)


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "failures",
        help="play every single failure of the power and cooling plant",
        description=_HELP,
    )
    parser.add_argument("design", help="the design file")
    parser.add_argument(
        "--design-load",
        action="store_true",
        help="load racks with their design IT load, not their catalog max_power",
    )
    parser.add_argument(
        "--maintenance",
        action="store_true",
        help="also play maintenance mode (Tier III/IV): each UPS, transformer, panel, busway "
        "and switchboard out for service, then the worst single failure of another",
    )
    add_format(parser, ("text", "json"))
    add_output(parser, "write the table to FILE (atomically)")
    add_config(parser)
    add_set(parser, "a value of the design")
    return parser


def run(args: argparse.Namespace) -> int:
    from dclint.calc.failures.play import failure_table
    from dclint.loader import load
    from dclint.model.resolve import topology_of

    engine = make_engine(args)
    design = load(args.design, overrides=engine.overrides)
    peak = not args.design_load
    topo = topology_of(design)
    table = failure_table(topo, peak)
    if args.maintenance:
        from dclint.calc.failures.play import maintenance_table

        cases = maintenance_table(topo, peak)
    else:
        cases = None
    if args.format == "json":
        emit(args, _json(design, peak, table, cases))
    else:
        emit(args, _text(design.name, peak, table) + _maintenance_text(cases))
    return 0


def _maintenance_text(cases: Any) -> str:
    """Maintenance mode's table: the element out, the worst failure on top, and its effect."""
    if cases is None:
        return ""
    rows = [("out for maintenance", "worst failure then", "worst survivor", "racks lost")]
    for c in cases:
        lost = str(len(c.racks_lost))
        if c.lost_alone:
            lost += f" ({len(c.lost_alone)} by maintenance alone)"
        name = f"{'UPS' if c.kind == 'ups' else c.kind} {c.maintained}"
        rows.append((name, c.failure or "-", _survivor(c.worst), lost))
    w = [max(len(r[i]) for r in rows) for i in range(3)]
    head = f"Maintenance mode: {len(cases)} elements out for service, each then its worst failure"
    out = ["", head, ""]
    out += [
        f"{r[0].ljust(w[0])}  {r[1].ljust(w[1])}  {r[2].ljust(w[2])}  {r[3]}".rstrip() for r in rows
    ]
    return "\n".join(out) + "\n"


def _survivor(s: Any) -> str:
    if s is None:
        return "-"
    from dclint.units import Q_, fmt

    return (
        f"{s.element} ({s.kind}) {fmt(Q_(s.load, s.unit))} of {fmt(Q_(s.capacity, s.unit))}"
        f" ({s.share:.0%})"
    )


def _margin(s: Any) -> str:
    if s is None:
        return "-"
    from dclint.units import Q_, fmt

    return fmt(Q_(s.margin, s.unit))


def _text(name: str, peak: bool, table: Any) -> str:
    from dclint.calc.failures.play import most_severe_first
    from dclint.report.values import failure_outcomes

    basis = "peak (catalog max_power)" if peak else "design IT load"
    failures = most_severe_first(table.failures)
    out = [
        f"Single failures of {name}: {len(failures)} played, racks at their {basis}; "
        f"{failure_outcomes(failures)}; worst first",
        "",
    ]
    rows = [("failure", "worst survivor", "margin", "racks lost", "what moves where")]
    for f in failures:
        label = f.label
        rows.append(
            (
                label,
                _survivor(f.worst),
                _margin(f.worst),
                str(len(f.racks_lost)),
                f.moves + ("  OVER" if f.overloaded else ""),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        out.append(
            f"{r[0].ljust(widths[0])}  {r[1].ljust(widths[1])}  {r[2].rjust(widths[2])}  "
            f"{r[3].rjust(widths[3])}  {r[4]}".rstrip()
        )
    return "\n".join(out) + "\n"


def _json(design: Any, peak: bool, table: Any, cases: Any = None) -> str:
    from dclint._version import __version__
    from dclint.calc.failures.play import most_severe_first
    from dclint.escaping import finite_json
    from dclint.model.source import format_path

    def at(path: Any) -> str | None:
        if design.source is None:
            return None
        pos = design.source.locate(path)
        return f"{pos.file}:{pos.line}:{pos.column}"

    def survivor(s: Any) -> dict[str, Any] | None:
        if s is None:
            return None
        return {
            "element": s.element,
            "kind": s.kind,
            "path": format_path(s.path),
            "load": s.load,
            "capacity": s.capacity,
            "margin": s.margin,
            "unit": s.unit,
        }

    data = {
        "version": __version__,
        "design": design.name,
        "load": "peak" if peak else "design",
        "failures": [
            {
                "element": f.element,
                "kind": f.kind,
                "plant": f.plant,
                "path": format_path(f.path),
                "at": at(f.path),
                "moves": f.moves,
                "worst_survivor": survivor(f.worst),
                "overloaded": [survivor(s) for s in f.overloaded],
                "racks_lost": list(f.racks_lost),
            }
            for f in most_severe_first(table.failures)
        ],
    }
    if cases is not None:
        data["maintenance"] = [
            {
                "maintained": c.maintained,
                "kind": c.kind,
                "path": format_path(c.path),
                "racks_lost_alone": list(c.lost_alone),
                "worst_failure": c.failure,
                "worst_survivor": survivor(c.worst),
                "racks_lost": list(c.racks_lost),
            }
            for c in cases
        ]
    return finite_json(data)
