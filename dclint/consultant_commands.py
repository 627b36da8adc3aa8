"""Consultant commands: `check --set/--sweep`, `diff`, `capacity` and `init` (parsers, handlers)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from dclint.errors import ConfigError, LoadError

__all__ = ["HANDLERS", "add_arguments", "overrides", "sweep"]

_CAPACITY_HELP = (
    "New racks copy the design's first rack of the platform (else its first rack): new feeds "
    "like its feeds on any panel of the same power path, keeping PWR002's headroom; any CDU "
    "that serves a loop (capacity, and flow Q / (rho cp dT) at the loop's dT); free first-tier "
    "downlinks of its compute fabrics against its NICs; utility capacity / PUE. Storage is "
    "not bound: STO001's demand comes from the workloads, not from racks."
)


def add_arguments(sub: Any, check: argparse.ArgumentParser) -> None:
    """Add --set/--sweep to `check`, and the diff, capacity and init subcommands."""
    check.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        help="override a design value before checking (repeatable)",
    )
    check.add_argument(
        "--sweep", metavar="PATH=V1,V2,...", help="check once per value and print one table"
    )
    diff = sub.add_parser("diff", help="compare two designs: totals, findings, projections")
    diff.add_argument("a", metavar="A")
    diff.add_argument("b", metavar="B")
    diff.add_argument("--format", default="text", choices=("text", "markdown", "json"))
    cap = sub.add_parser(
        "capacity", help="how many more racks of a platform fit", description=_CAPACITY_HELP
    )
    cap.add_argument("design")
    cap.add_argument("--add", required=True, metavar="PLATFORM", help="platform catalog key")
    cap.add_argument("--rack-load", help="IT load of a new rack, e.g. '130 kW'")
    cap.add_argument("--nodes", type=int, help="nodes a rack, for node platforms")
    cap.add_argument("--format", default="text", choices=("text", "json"))
    init = sub.add_parser("init", help="write a starting design that checks clean")
    init.add_argument("--platform", required=True)
    init.add_argument("--racks", type=int, required=True)
    init.add_argument("--nodes", type=int, help="nodes a rack, for node platforms")
    init.add_argument("--output", "-o", help="file to write (default: standard output)")
    init.add_argument("--force", action="store_true", help="overwrite an existing --output")
    for parser in (diff, cap):
        parser.add_argument("--config")
        parser.add_argument("--rules-dir", action="append", default=[])
        parser.add_argument("--select", help="comma-separated rule ids or prefixes to run")
        parser.add_argument("--ignore", help="comma-separated rule ids or prefixes to skip")
        parser.add_argument(
            "--set",
            action="append",
            default=[],
            metavar="PATH=VALUE",
            help="override a value of B (diff) or of the design (capacity)",
        )


def overrides(args: argparse.Namespace) -> tuple[Any, ...]:
    """The --set flags, parsed; each named on stderr with the position findings give it."""
    from dclint.loader.overrides import parse_overrides

    parsed = parse_overrides(getattr(args, "set", None) or [])
    for ov in parsed:
        print(f"dclint: --set:1:{ov.index} is --set {ov.text}", file=sys.stderr)
    return parsed


def _engine(args: argparse.Namespace) -> Any:
    from dclint.commands import _engine as make

    return make(args)


def sweep(args: argparse.Namespace) -> int:
    from dclint.engine.files import collect
    from dclint.whatif import render_json, render_text, run_sweep

    engine = _engine(args)
    files, missing = collect(args.paths, ())
    if missing:
        raise LoadError(list(missing))
    if not files:
        raise ConfigError("no design files found in " + ", ".join(args.paths))
    if args.format not in ("text", "json"):
        raise ConfigError("--sweep prints text or json (--format text|json)")
    sweeps = [run_sweep(f, engine, engine.overrides, args.sweep) for f in files]
    text = render_json(sweeps) if args.format == "json" else render_text(sweeps)
    _emit(args, text)
    return 2 if any(r.errors for s in sweeps for r in s.rows) else 0


def _emit(args: argparse.Namespace, text: str) -> None:
    from dclint.commands import write_atomic

    if getattr(args, "output", None):
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)


def _checked(engine: Any, file: str) -> Any:
    result = engine.check_file(file)
    if result.errors:
        raise LoadError(result.errors)
    return result


def diff(args: argparse.Namespace) -> int:
    from dclint import diff as compare

    engine = _engine(args)
    sets, engine.overrides = engine.overrides, ()
    a = _checked(engine, args.a)
    engine.overrides = sets  # --set changes B: "the client's plan vs. the counter-proposal"
    b = _checked(engine, args.b)
    opts = (engine.options(engine.config_for(a.file)), engine.options(engine.config_for(b.file)))
    d = compare.compare(a, b, opts)
    render = {
        "text": compare.render_text,
        "markdown": compare.render_markdown,
        "json": compare.render_json,
    }[args.format]
    sys.stdout.write(render(d))
    return 0


def capacity(args: argparse.Namespace) -> int:
    from dclint.capacity import capacity as compute
    from dclint.capacity import new_rack
    from dclint.loader import load
    from dclint.units import parse_quantity

    engine = _engine(args)
    design = load(args.design, overrides=engine.overrides)
    load_q = None
    if args.rack_load:
        try:
            load_q = parse_quantity(args.rack_load)
            load_q.to("kW")
        except Exception:
            raise ConfigError(
                f"--rack-load {args.rack_load}: write a power, e.g. '130 kW'"
            ) from None
    try:
        rack = new_rack(design, args.add, args.nodes, load_q)
    except ValueError as exc:
        raise ConfigError(f"--add {args.add}: {exc}") from None
    result = compute(design, rack, engine.options(engine.config_for(args.design)))
    sys.stdout.write(_capacity_json(result) if args.format == "json" else _capacity_text(result))
    return 0


def _capacity_text(c: Any) -> str:
    from dclint.units import fmt

    r = c.rack
    like = f", like rack {r.template.id}" if r.template is not None else ""
    out = [
        f"Capacity of {c.design} for more {r.platform} racks ({fmt(r.it_load)}, {r.gpus} GPUs, "
        f"{fmt(r.liquid_heat)} to liquid{like})",
        "",
    ]
    rows = [
        (lim.name, lim.subject, "-" if lim.racks is None else str(lim.racks), lim.detail)
        for lim in c.limits
    ]
    widths = [max(len(x[i]) for x in rows) for i in range(3)]
    for name, subject, racks, detail in rows:
        out.append(
            f"{name.ljust(widths[0])}  {subject.ljust(widths[1])}  "
            f"{racks.rjust(widths[2])}  {detail}"
        )
    out.append("")
    if c.racks is None:
        out.append("Result: no limit binds (nothing to compare against).")
    else:
        binding = ", ".join(f"{lim.name} {lim.subject}" for lim in c.binding)
        out.append(
            f"Result: {c.racks} more rack{'s' if c.racks != 1 else ''} "
            f"({c.racks * r.gpus} GPUs); binding first: {binding}"
        )
    return "\n".join(out) + "\n"


def _capacity_json(c: Any) -> str:
    from dclint import __version__

    r = c.rack
    data = {
        "version": __version__,
        "design": c.design,
        "platform": r.platform,
        "rack": {
            "it_load_kw": round(r.it_load.m_as("kW"), 6),
            "gpus": r.gpus,
            "nodes": r.nodes,
            "liquid_heat_kw": round(r.liquid_heat.m_as("kW"), 6),
            "template": r.template.id if r.template is not None else None,
        },
        "racks": c.racks,
        "gpus": None if c.racks is None else c.racks * r.gpus,
        "binding": [{"limit": lim.name, "subject": lim.subject} for lim in c.binding],
        "limits": [
            {"limit": lim.name, "subject": lim.subject, "racks": lim.racks, "detail": lim.detail}
            for lim in c.limits
        ],
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def init(args: argparse.Namespace) -> int:
    from dclint.scaffold import scaffold

    try:
        text = scaffold(args.platform, args.racks, args.nodes)
    except ValueError as exc:
        raise ConfigError(f"init: {exc}") from None
    if not args.output:
        sys.stdout.write(text)
        return 0
    target = Path(args.output)
    if target.exists() and not args.force:
        raise ConfigError(f"--output {args.output} exists; pass --force to overwrite it")
    from dclint.commands import write_atomic

    write_atomic(args.output, text)
    print(f"dclint: wrote {args.output} ({args.racks} racks of {args.platform})", file=sys.stderr)
    return 0


HANDLERS = {"diff": diff, "capacity": capacity, "init": init}
