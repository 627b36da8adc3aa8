"""`dclint cost`: projected training time, energy, cost and memory per workload, and TCO."""

from __future__ import annotations

import argparse
from typing import Any

from dclint.cli._shared import add_config, add_output, add_set, emit, overrides

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser = sub.add_parser("cost", help="project training time, energy, cost and TCO")
    parser.add_argument("paths", nargs="+", metavar="DESIGN", help="design files")
    parser.add_argument(
        "--format",
        default="text",
        choices=("text", "json", "markdown", "html"),
        help="output format",
    )
    add_output(parser, "write the report to FILE (atomically)")
    add_set(parser)
    add_config(parser)
    return parser


def _calibrate(args: argparse.Namespace, designs: list[Any]) -> None:
    """Each design gets the calibration profile its config names (--config, else the config
    found from the design's directory)."""
    from pathlib import Path

    from dclint.cli._shared import given_config
    from dclint.engine.config import config_for
    from dclint.engine.runner import calibrate

    given = given_config(args)
    cache: dict[Any, Any] = {}
    for path, design in zip(args.paths, designs, strict=True):
        calibrate(design, given or config_for(Path(path), cache))


def run(args: argparse.Namespace) -> int:
    from dclint.analysis.costs import costs
    from dclint.loader import load
    from dclint.report.registry import renderer

    sets = overrides(args)
    # LoadError -> exit 2 with file:line:col
    designs = [load(path, overrides=sets) for path in args.paths]
    _calibrate(args, designs)
    result = costs(designs)
    emit(args, renderer(result, args.format)(result))
    return 0
