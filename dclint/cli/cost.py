"""`dclint cost`: projected training time, energy, cost and memory per workload, and TCO."""

from __future__ import annotations

import argparse
from typing import Any

from dclint.cli._shared import add_config, add_output, add_set, emit

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


def run(args: argparse.Namespace) -> int:
    """Each design loaded and calibrated as `dclint review` loads it (the profile its config
    names: --config, else the config found from the design's directory), and checked by the
    rules whose consequence is 'cannot-run' only, under its config's selection: the error the
    review reads as making the projection no figure (dclint.engine.coverage.blocking) is said
    next to the figures."""
    from dclint.analysis.costs import costs
    from dclint.cli._shared import make_engine
    from dclint.engine.coverage import blocking
    from dclint.errors import LoadError
    from dclint.report.registry import renderer

    engine = make_engine(args)
    rules = engine.rules
    engine.cli["ignore"] = tuple(
        rid for rid, cls in rules.items() if getattr(cls, "consequence", "") != "cannot-run"
    )
    designs, blocked = [], []
    for path in args.paths:
        checked = engine.check_file(path)
        if checked.errors:  # -> exit 2 with file:line:col
            raise LoadError(checked.errors)
        designs.append(checked.design)
        blocked.append(blocking(checked.findings, rules))
    result = costs(designs, blocked)
    emit(args, renderer(result, args.format)(result))
    return 0
