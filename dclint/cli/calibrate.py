"""`dclint calibrate DESIGN RUNS...`: fit the step model's constants to measured steps.

RUNS are CSV files (one run a row: layout, GPUs, measured step_time) or Megatron-LM / NeMo
training logs (dclint.loader.runs). Prints the fitted constants, each run's error with the
model's own constants, with the fit, and held out (predicted by a fit to the other runs), and
with --profile writes the calibration profile a config names as `calibration: FILE`.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from dclint.cli._shared import emit

if TYPE_CHECKING:
    from dclint.analysis.calibrate import GpuFit

__all__ = ["add_parser", "run"]

_HELP = (
    "Fits, for each GPU the runs use, three constants by bounded least squares on the relative "
    "step-time error: compute (x the model's matmul, attention and HBM rates, 0.5-1.5), network "
    "(x its NVLink and network bandwidths, 0.1-2) and overhead (seconds added to every step, "
    "0-60 s). Each run is the design's workload with the run's layout, GPUs and batch. The "
    "held-out error predicts each run with a fit to the others. Name the written profile in "
    ".dclint.yaml as 'calibration: FILE': cost, plan, review and check then use it, for the "
    "GPUs it holds only."
)


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "calibrate", help="fit the step model to measured steps", description=_HELP
    )
    parser.add_argument("design", metavar="DESIGN", help="design file (the cluster and workload)")
    parser.add_argument(
        "runs",
        nargs="+",
        metavar="RUNS",
        help="CSV of runs (step_time with its unit, and any of workload, gpus, tp, pp, cp, ep, "
        "vpp, dp, micro_batch, global_batch, sequence_length, recompute, name), or a "
        "Megatron-LM / NeMo training log",
    )
    parser.add_argument("--workload", metavar="NAME", help="workload id (default: the only one)")
    parser.add_argument(
        "--profile", metavar="FILE", help="write the fitted calibration profile to FILE (YAML)"
    )
    parser.add_argument("--format", default="text", choices=("text", "json"), help="output format")
    return parser


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:+.1%}"


def _text(fits: list[GpuFit], design: str) -> str:
    from dclint.model.calibration import BOUNDS
    from dclint.projection.calibrate import NAMES

    out: list[str] = []
    for f in fits:
        out.append(f"calibration of {f.gpu} from {len(f.rows)} runs ({design}):")
        for name, value, moved in zip(NAMES, f.fit.constants, f.fit.determined, strict=True):
            low, high = BOUNDS[name]
            shown = f"{value * 1e3:.4g} ms a step" if name == "overhead" else f"x{value:.4g}"
            limits = f"{low:g}-{high:g} s" if name == "overhead" else f"{low:g}-{high:g}"
            at_bound = " (at its bound)" if moved and value in (low, high) else ""
            note = "" if moved else " (not determined by these runs: kept)"
            out.append(f"  {name:<9}{shown:<18}bounds {limits}{at_bound}{note}")
        header = ("run", "workload", "measured", "model", "fitted", "held out")
        rows = [header] + [
            (
                r.run.label,
                r.workload,
                f"{r.run.step_time:.4g} s",
                f"{r.model:.4g} s ({_pct(r.model_error)})",
                f"{r.fitted:.4g} s ({_pct(r.fitted_error)})",
                _pct(r.held_out),
            )
            for r in f.rows
        ]
        widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
        out += [
            "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
            for row in rows
        ]
        held = f.holdout_error
        out.append(
            f"  mean absolute error: model {f.model_error:.1%}, fitted "
            f"{f.fit.mean_absolute_error:.1%}, held out "
            + (f"{held:.1%}" if held is not None else "- (one run: nothing to hold out)")
        )
        if f.warning:
            out.append(f"  warning: {f.warning}")
    return "\n".join(out) + "\n"


def _json(fits: list[GpuFit]) -> str:
    from dclint.escaping import finite_json
    from dclint.projection.calibrate import NAMES

    data = [
        {
            "gpu": f.gpu,
            "constants": {
                "compute": f.fit.constants[0],
                "network": f.fit.constants[1],
                "overhead_s": f.fit.constants[2],
            },
            "determined": dict(zip(NAMES, f.fit.determined, strict=True)),
            "mean_absolute_error": {
                "model": f.model_error,
                "fitted": f.fit.mean_absolute_error,
                "held_out": f.holdout_error,
            },
            "warning": f.warning,
            "runs": [
                {
                    "run": r.run.label,
                    "at": r.run.where,
                    "workload": r.workload,
                    "measured_s": r.run.step_time,
                    "model_s": r.model,
                    "fitted_s": r.fitted,
                    "held_out_error": r.held_out,
                }
                for r in f.rows
            ],
        }
        for f in fits
    ]
    return finite_json({"calibration": data})


def run(args: argparse.Namespace) -> int:
    from dclint.analysis.calibrate import calibrate, profile
    from dclint.loader import load
    from dclint.loader.runs import read_runs

    runs = [r for path in args.runs for r in read_runs(path)]  # ConfigError: located, exit 2
    design = load(args.design)  # LoadError: exit 2, located
    fits = calibrate(design, runs, args.workload)
    if args.profile:
        from dclint.cli._output import write_atomic
        from dclint.loader.calibration import profile_text

        sources = ", ".join(args.runs)
        write_atomic(args.profile, profile_text(profile(fits, args.profile, sources)), "--profile")
    emit(args, _json(fits) if args.format == "json" else _text(fits, args.design))
    return 0
