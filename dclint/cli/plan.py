"""`dclint plan`: the fastest parallel layouts of a workload, or a facility what-if grid."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dclint.cli._shared import (
    MAX_POINTS,
    add_config,
    add_output,
    add_rules_dir,
    add_selection,
    add_set,
    emit,
    grid_jobs,
    grid_size,
    make_engine,
    overrides,
    parse_today,
    split,
)
from dclint.errors import ConfigError

__all__ = ["MAX_GPU_COUNTS", "MAX_POINTS", "add_parser", "run"]

MAX_GPU_COUNTS = 64  # --gpus values: each is a whole layout search


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "plan", help="search the parallel layouts of a workload, or vary the facility"
    )
    parser.add_argument("design", metavar="DESIGN", help="design file")
    parser.add_argument("--workload", metavar="NAME", help="workload id (default: the only one)")
    parser.add_argument("--top", type=int, default=10, help="layouts to print (default 10)")
    parser.add_argument(
        "--by", default="time", choices=("time", "cost"), help="rank by step time or by cost"
    )
    parser.add_argument(
        "--gpus",
        metavar="N[,N...]",
        help="GPU counts to search (default: the workload's gpus); cost ranks differ from "
        "time ranks only across GPU counts",
    )
    parser.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="PATH=V1,V2,...",
        help="what-if grid over design values (repeatable: every combination)",
    )
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="processes for --vary points"
    )
    parser.add_argument(
        "--max-points",
        type=int,
        default=MAX_POINTS,
        metavar="N",
        help=f"refuse a --vary grid (or --sample) of more than N points (default {MAX_POINTS:,})",
    )
    parser.add_argument(
        "--executor",
        metavar="NAME",
        help="where --vary points run: process (default), dask (a local cluster), "
        "dask://HOST:PORT, ray, ray://HOST:PORT",
    )
    parser.add_argument(
        "--store",
        metavar="FILE",
        help="stream --vary points into this SQLite file as they finish (resumes if it holds "
        "this grid)",
    )
    parser.add_argument("--resume", metavar="FILE", help="resume the --vary grid in this store")
    parser.add_argument(
        "--sample", type=int, metavar="N", help="evaluate a Latin-hypercube sample of N points"
    )
    parser.add_argument(
        "--refine", action="store_true", help="with --sample: add the front's neighbours"
    )
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    parser.add_argument(
        "--format",
        default="text",
        choices=("text", "json", "markdown", "html"),
        help="output format (html: the search as a page; --vary grids with a chart of cost "
        "against days)",
    )
    add_set(parser)
    add_config(parser)
    add_rules_dir(parser)
    add_selection(parser)
    parser.add_argument("--today", help="date for expiring suppressions (YYYY-MM-DD)")
    parser.add_argument(
        "--apply",
        action="store_true",
        help="write the best layout into the workload in DESIGN (comments and order kept)",
    )
    add_output(parser, "write the report to FILE")
    return parser


def _worlds(text: str | None) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        worlds = tuple(sorted({int(v) for v in text.split(",") if v.strip()}))
    except ValueError:
        raise ConfigError(
            f"--gpus {text[:60]}: write whole GPU counts, e.g. --gpus 256,512"
        ) from None
    if not worlds or min(worlds) < 1:
        raise ConfigError(f"--gpus {text[:60]}: GPU counts must be 1 or more")
    if len(worlds) > MAX_GPU_COUNTS:
        raise ConfigError(
            f"--gpus: {len(worlds):,} GPU counts, more than {MAX_GPU_COUNTS} (each is a whole "
            "layout search); give fewer"
        )
    from dclint.model.workload import MAX_GPUS  # imports pydantic and pint: not at parse time

    if max(worlds) > MAX_GPUS:
        raise ConfigError(
            f"--gpus: {max(worlds):,} GPUs is more than dclint's bound of {MAX_GPUS:,} a workload"
        )
    return worlds


def run(args: argparse.Namespace) -> int:
    from dclint.analysis.grid.facility import pick_workload
    from dclint.loader import load

    if args.top < 1:
        raise ConfigError(f"--top {args.top}: print at least one layout")
    if args.jobs < 1:
        raise ConfigError(f"--jobs {args.jobs}: use 1 or more processes")
    if args.max_points < 1:
        raise ConfigError(f"--max-points {args.max_points}: allow at least one point")
    if args.today:  # checked here: a --vary grid reads it in its worker processes
        parse_today(args.today)
    worlds = _worlds(args.gpus)  # before the design is read: a list past its bound is refused
    if args.vary and getattr(args, "apply", False):
        raise ConfigError("--apply writes one layout; a --vary grid has one a point")
    if args.vary:
        from dclint.analysis.sweep import split_values

        if args.gpus:
            raise ConfigError("--gpus applies to the layout search, not to a --vary grid")
        varies = [split_values(text, "--vary") for text in args.vary]
        paths = [path for path, _ in varies]
        twice = sorted({p for p in paths if paths.count(p) > 1})
        if twice:  # the last would set it at every point: the other axis a column of nothing
            raise ConfigError(
                f"--vary {', '.join(twice)}: a path is one axis; give all its values in one "
                "--vary (PATH=V1,V2,...)"
            )
        count = grid_size(varies, args.max_points, "--vary", sampled=bool(args.sample))
        sets = overrides(args)
        if sets:
            from dclint.loader.overrides import forbid_swept

            forbid_swept(sets, paths, "--vary")
        design = load(args.design, overrides=sets)  # LoadError: exit 2, located
        return _grid(args, pick_workload(design, args.workload).id, varies, count)
    # the engine checks --config, --select and --ignore, and gives the memory reserve in
    # effect for this design (the search keeps that much of each GPU's memory free)
    engine = make_engine(args)
    design = load(args.design, overrides=engine.overrides)
    from dclint.engine.runner import calibrate

    calibrate(design, engine.config_for(args.design))  # the config's calibration profile
    wl = pick_workload(design, args.workload)
    reserve = engine.shared(engine.config_for(args.design)).memory_reserve.m_as("")
    from dclint.projection.search.plan import plan_layouts
    from dclint.report.registry import renderer

    found = plan_layouts(design, wl, args.by, worlds, reserve=reserve)
    if isinstance(found, str):
        raise ConfigError(f"{args.design}: workload {wl.id}: {found}")
    if not found.result.valid:
        why = ", ".join(f"{r} ({n:,})" for r, n in found.result.rejected.items())
        raise ConfigError(
            f"{args.design}: workload {wl.id}: no layout of its {found.result.candidates:,} "
            f"candidates is valid: {why}"
        )
    if getattr(args, "apply", False):
        return _apply(args, design, wl, found)
    emit(args, renderer(found, args.format)(found, args.top))
    return 0


def _apply(args: argparse.Namespace, design: Any, wl: Any, found: Any) -> int:
    """`plan --apply`: the best layout written into the design file that holds the workload."""
    from dclint.cli._output import write_atomic
    from dclint.fix import files
    from dclint.fix.layout import layout_edits
    from dclint.fix.text import apply
    from dclint.projection.search.plan import layout_values, sharding_change

    if args.set:
        raise ConfigError("--apply writes the design file; it does not take --set values")
    best = found.result.valid[0]
    gap = found.gap() if found.declared is not None else None
    # the file as its author keeps it (line endings, BOM, final newline: dclint.fix.files), and
    # as the plan read it: a file changed since is not written
    try:
        kept = files.read(args.design)
    except (OSError, UnicodeDecodeError, files.NotKept) as exc:
        raise ConfigError(f"{args.design}: {exc}; the layout was not applied") from None
    source = getattr(design, "source", None)
    if source is not None and not files.same_text(kept, source.text):
        raise ConfigError(
            f"{args.design}: it changed since it was read; the layout was not applied"
        )
    text = kept.text
    index = design.workloads.index(wl)
    sharding = sharding_change(wl, best)
    got = layout_edits(text, index, wl.id, best, layout_values(best, wl.gpus), gap, sharding)
    if isinstance(got, str):
        raise ConfigError(f"{args.design}: {got}")
    same = _same_layout(best, found.declared) and sharding is None
    stale = [] if same else _measured_edits(text, index)

    def replace(path: str, data: bytes) -> None:
        write_atomic(path, data, "--apply", replaces_input=True)

    edits = [*got.edits, *(e for _, e in stale)]
    why = files.write(args.design, kept, files.encode(kept, apply(text, edits)), replace)
    if why is not None:
        raise ConfigError(f"{args.design}: {why}; the layout was not applied")
    print(f"{args.design}: {got.summary}")
    if stale:
        names = ", ".join(f"{k}: {v}" for (k, v), _ in stale)
        it = "they" if len(stale) > 1 else "it"
        print(
            f"{args.design}: workload {wl.id}: removed the declared {names} (measured on the "
            f"old layout, {it} no longer describe{'' if len(stale) > 1 else 's'} the new one; "
            f"measure the new layout and declare {'them' if len(stale) > 1 else 'it'} again)"
        )
    return 0


# a workload's declared performance inputs: measured on one layout (an MFU, a step time, a
# throughput), each sets the projection in place of the model; another layout makes them stale
MEASURED_INPUTS = (
    "mfu",
    "achieved_flops",
    "step_time",
    "tokens_per_second",
    "communication_overhead",
)
_LAYOUT = ("tp", "pp", "vpp", "cp", "ep", "micro_batch", "recompute")


def _same_layout(best: Any, declared: Any) -> bool:
    if declared is None:
        return False
    return all(getattr(best, a, None) == getattr(declared, a, None) for a in _LAYOUT)


def _measured_edits(text: str, index: int) -> list[tuple[tuple[str, str], Any]]:
    """((key, value as written), the edit removing its line) for each measured input workload
    `index` declares in block style in `text` (a flow-style workload is left to --apply's own
    refusal)."""
    from dclint.fix.text import Edit, node_at

    found = node_at(text, ("workloads", index))
    if found is None or found[1].flow_style:
        return []
    lines = text.splitlines()
    out = []
    for key, value in found[1].value:
        if key.value not in MEASURED_INPUTS:
            continue
        line = key.start_mark.line
        if lines[line][: key.start_mark.column].strip():  # not alone on its line: left
            continue
        end = value.end_mark.line + (1 if value.end_mark.column else 0)
        end = max(end, line + 1)
        written = text[value.start_mark.index : value.end_mark.index].strip()
        out.append(((str(key.value), written), Edit(line, 0, end, 0, "")))
    return out


def _grid(
    args: argparse.Namespace, workload: str, varies: list[tuple[str, list[str]]], count: int
) -> int:
    """`plan --vary`: `varies` (PATH, values) of `count` points, already within --max-points."""
    from dclint.analysis.grid.facility import GridPoint, GridReport, Setup, coverage, run_grid
    from dclint.report.registry import renderer

    setup = Setup(
        args.design,
        workload,
        tuple(args.set),
        args.config,
        tuple(args.rules_dir),
        {
            "select": split(args.select),
            "ignore": split(args.ignore),
            "extend_select": split(getattr(args, "extend_select", None)),
        },
        args.today,
        args.by,
        bool(getattr(args, "isolated", False)),
    )
    if args.sample is not None and args.sample < 1:
        raise ConfigError(f"--sample {args.sample}: evaluate at least one point")
    if args.refine and not args.sample:
        raise ConfigError("--refine searches around a sample's front: give --sample N")
    if args.sample is not None and args.sample > args.max_points:
        raise ConfigError(
            f"--sample {args.sample:,}: more than --max-points {args.max_points:,}; sample fewer "
            "points or raise --max-points"
        )
    evaluated = min(count, args.sample) if args.sample else count
    store = args.resume or args.store
    if args.resume and not Path(args.resume).is_file():
        raise ConfigError(f"--resume {args.resume}: no such store (start one with --store)")
    run = run_grid(
        setup,
        varies,
        grid_jobs(args.jobs, evaluated, args.executor),
        store=store,
        executor=args.executor,
        sample=args.sample,
        refine=args.refine,
        seed=args.seed,
    )
    paths = [p for p, _ in varies]
    note = coverage(run.store.count(), run.total)
    try:
        if args.format == "html":  # the chart draws every point at once
            points = run.points()
            report = GridReport(setup, paths, lambda: iter(points), note)
            emit(args, renderer(report, args.format)(report))
            return 2 if any(p.errors for p in points) else 0
        failed = [False]

        def stored() -> Iterator[GridPoint]:  # read from the store, never held whole
            for _, point in run.store.points():
                failed[0] = failed[0] or bool(point.errors)
                yield point

        report = GridReport(setup, paths, stored, note)
        emit(args, renderer(report, args.format)(report))
        return 2 if failed[0] else 0
    finally:
        run.store.close()
