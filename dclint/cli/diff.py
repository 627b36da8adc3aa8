"""`dclint diff A B`: compare two designs' totals, findings and projections."""

from __future__ import annotations

import argparse
from typing import Any

from dclint.cli._shared import (
    add_config,
    add_format,
    add_output,
    add_rules_dir,
    add_selection,
    add_set,
    emit,
    make_engine,
)
from dclint.errors import LoadError

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser = sub.add_parser("diff", help="compare two designs: totals, findings, projections")
    parser.add_argument("a", metavar="A", help="the design as it is")
    parser.add_argument("b", metavar="B", help="the design it is compared with")
    add_format(parser, ("text", "markdown", "json", "html"))
    add_output(parser, "write the report to FILE (atomically)")
    add_config(parser)
    add_rules_dir(parser)
    add_selection(parser)
    add_set(parser, "a value of B")
    return parser


def checked(engine: Any, file: str) -> Any:
    """A design's check result, its findings priced as `dclint check` prices them (a finding
    in the comparison says what it costs, as it does in the check); a design that does not
    load is an error (exit 2)."""
    from dclint.analysis.assess.assessment import price_design

    result = engine.check_file(file)
    if result.errors:
        raise LoadError(result.errors)
    price_design(result, engine)
    return result


def run(args: argparse.Namespace) -> int:
    from dclint.analysis import diff as compare

    engine = make_engine(args)
    sets, engine.overrides = engine.overrides, ()
    a = checked(engine, args.a)
    engine.overrides = sets  # --set changes B: "the client's plan vs. the counter-proposal"
    b = checked(engine, args.b)
    opts = (engine.options(engine.config_for(a.file)), engine.options(engine.config_for(b.file)))
    d = compare.compare(a, b, opts, engine.rules)
    from dclint.report.registry import renderer

    write = renderer(d, args.format)
    if args.format == "html":
        emit(args, write(d, (a.name or a.file, b.name or b.file)))
        return 0
    emit(args, write(d))
    return 0
