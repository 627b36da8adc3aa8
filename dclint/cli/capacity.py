"""`dclint capacity DESIGN --add PLATFORM`: how many more racks of a platform fit, and which
limit binds first."""

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
from dclint.errors import ConfigError

__all__ = ["add_parser", "run"]

_CAPACITY_HELP = (
    "New racks copy the design's first rack of the platform (else its first rack): new feeds "
    "like its feeds on any panel of the same power path, keeping PWR002's headroom on the "
    "design load and within the panel's rating at the racks' peak (PWR008); any CDU "
    "that serves a loop (capacity, and flow Q / (rho cp dT) at the loop's dT; facility water "
    "where declared, CLG007); the UPS systems (spare modules out), catchers and transformers "
    "above the template rack, and the generator sets backing it up (IT x PUE, spare sets out); "
    "its hall's air handlers (CLG010) and floor (STR001) where declared; free first-tier "
    "downlinks of its compute fabrics against its NICs; utility capacity / PUE against the "
    "site's IT load as PWR006 counts it (racks at peak, switches, storage). Storage is "
    "not bound: STO001's demand comes from the workloads, not from racks. The binding limit "
    "says what lifts it."
)


def add_parser(sub: Any) -> argparse.ArgumentParser:
    cap = sub.add_parser(
        "capacity", help="how many more racks of a platform fit", description=_CAPACITY_HELP
    )
    cap.add_argument("design", help="the design file")
    cap.add_argument("--add", required=True, metavar="PLATFORM", help="platform catalog key")
    cap.add_argument("--rack-load", help="IT load of a new rack, e.g. '130 kW'")
    cap.add_argument("--nodes", type=int, help="nodes a rack, for node platforms")
    add_format(cap, ("text", "json", "markdown", "html"))
    add_output(cap, "write the report to FILE (atomically)")
    add_config(cap)
    add_rules_dir(cap)
    add_selection(cap)
    add_set(cap, "a value of the design")
    return cap


def run(args: argparse.Namespace) -> int:
    from dclint.analysis.capacity.headroom import capacity as compute
    from dclint.analysis.capacity.headroom import new_rack
    from dclint.loader import load
    from dclint.report.registry import renderer

    load_q = _rack_values(args)
    engine = make_engine(args)
    design = load(args.design, overrides=engine.overrides)
    try:
        rack = new_rack(design, args.add, args.nodes, load_q)
    except ValueError as exc:
        raise ConfigError(f"--add {args.add}: {exc}") from None
    options = engine.options(engine.config_for(args.design))
    result = compute(design, rack, options, engine.rules)
    lifts = _lifts(design, result)
    emit(args, renderer(result, args.format)(result, lifts))
    return 0


def _lifts(design: Any, c: Any) -> list[str]:
    """What lifts each binding limit, in the order of `c.binding`."""
    from dclint.analysis.capacity.headroom import lift

    return [lift(design, c, lim) for lim in c.binding]


MIN_RACK_LOAD_KW = 0.1  # dclint's own floor: a rack drawing less is no AI rack; counts of
# racks below it run to hundreds of digits (1e-300 kW)


def _rack_values(args: argparse.Namespace) -> Any:
    """--rack-load and --nodes checked as a rack's it_load and nodes in a design are."""
    from pydantic import ValidationError

    from dclint.model.racks import RackFields
    from dclint.model.value_messages import value_message

    values = {"it_load": args.rack_load, "nodes": args.nodes}
    try:
        rack = RackFields.model_validate({k: v for k, v in values.items() if v is not None})
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        flag = {"it_load": "--rack-load", "nodes": "--nodes"}[str(err["loc"][0])]
        given = values[str(err["loc"][0])]
        message = value_message(err)
        raise ConfigError(f"{flag} {str(given)[:40]!r}: {message}") from None
    if rack.it_load is not None and rack.it_load.m_as("kW") < MIN_RACK_LOAD_KW:
        raise ConfigError(
            f"--rack-load {args.rack_load!r}: a rack load under {MIN_RACK_LOAD_KW} kW is not "
            "a rack's IT load (write e.g. '130 kW')"
        )
    return rack.it_load
