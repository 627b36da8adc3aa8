"""What several commands share: their common flags (defined once), the engine they build from
those flags, and how a report reaches its output."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from datetime import date
from pathlib import Path
from typing import Any

from dclint.cli._output import write_atomic
from dclint.errors import ConfigError

__all__ = [
    "MAX_POINTS",
    "add_config",
    "add_format",
    "add_output",
    "add_rules_dir",
    "add_selection",
    "add_set",
    "emit",
    "given_config",
    "grid_jobs",
    "grid_size",
    "make_engine",
    "overrides",
    "parse_today",
    "split",
    "write_atomic",
]


MAX_POINTS = 10_000  # grid points (plan --vary, check --sweep) by default: hours of checks
SAMPLED_GRID = 10**15  # points of a grid --sample draws from: indexes fit SQLite's integers


def add_config(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help="config file (pyproject.toml or .dclint.yaml)")
    parser.add_argument(
        "--isolated",
        action="store_true",
        help="ignore every config file: dclint's defaults and the command line only (as ruff)",
    )


def given_config(args: argparse.Namespace) -> Any:
    """The config the command line gives for every file: --config's, dclint's defaults with
    --isolated (no config file is searched for, as ruff's --isolated), else None (each file's
    own, found upward from it). --config and --isolated together are an error, as in ruff."""
    path, isolated = getattr(args, "config", None), getattr(args, "isolated", False)
    if path and isolated:
        raise ConfigError(
            f"--config {path} cannot be used with --isolated (which reads no config file); "
            "drop one of them"
        )
    from dclint.engine.config import Config, load_config

    if isolated:
        return Config()
    return load_config(Path(path)) if path else None


def add_rules_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules-dir", action="append", default=[], help="extra rule modules (repeatable)"
    )


def add_selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--select", help="comma-separated rule ids or prefixes to run")
    parser.add_argument("--ignore", help="comma-separated rule ids or prefixes to skip")
    parser.add_argument(
        "--extend-select",
        metavar="IDS",
        help="rule ids or prefixes to run as well as those selected (as ruff)",
    )


def add_set(parser: argparse.ArgumentParser, what: str = "a design value") -> None:
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        help=f"override {what} (repeatable)",
    )


def add_format(parser: argparse.ArgumentParser, choices: tuple[str, ...]) -> None:
    parser.add_argument(
        "--format", "--output-format", default=choices[0], choices=choices, help="output format"
    )


def add_output(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument("--output", "-o", metavar="FILE", help=help)


def split(value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    return tuple(v.strip() for v in value.split(",") if v.strip())


def overrides(args: argparse.Namespace) -> tuple[Any, ...]:
    """The --set flags, parsed. Nothing is echoed: a finding a flag caused, or an error at
    its position (--set:1:N), spells the flag out."""
    if not getattr(args, "set", None):
        return ()  # the parser imports PyYAML: not for a check replayed from the cache
    from dclint.loader.overrides import parse_overrides

    return parse_overrides(getattr(args, "set", None) or [])


def make_engine(args: argparse.Namespace, defer_rules: bool = False) -> Any:
    """An Engine from the flags a command has: --config or --isolated, --rules-dir,
    --select/--ignore, --fail-on, --today, --set and --layout-search (its rules discovered on
    first use with `defer_rules`)."""
    from dclint.engine.runner import Engine

    config = given_config(args)
    cli = {
        "select": split(getattr(args, "select", None)),
        "ignore": split(getattr(args, "ignore", None)),
        "extend_select": split(getattr(args, "extend_select", None)),
        "fail_on": getattr(args, "fail_on", None),
    }
    today = parse_today(args.today) if getattr(args, "today", None) else date.today()
    return Engine(
        config=config,
        rules_dirs=tuple(getattr(args, "rules_dir", ())),
        cli=cli,
        today=today,
        overrides=overrides(args),
        warn=_warn_once(),
        defer_rules=defer_rules,
        costly=getattr(args, "layout_search", False),
        force_exclude=getattr(args, "force_exclude", False),
    )


def _warn_once() -> Any:
    """A warning printer for the engine: each message on stderr once."""
    said: set[str] = set()

    def warn(message: str) -> None:
        if message not in said:
            said.add(message)
            print(f"dclint: warning: {message}", file=sys.stderr)

    return warn


def grid_size(
    varies: list[tuple[str, list[str]]], most: int, flag: str, sampled: bool = False
) -> int:
    """The points of a grid (the product of its lists' lengths), checked before anything is
    built: past `most` (--max-points) a ConfigError. A grid that is `sampled` may be larger,
    up to SAMPLED_GRID points (each point's index is stored as a 64-bit integer)."""
    lengths = [len(values) for _, values in varies]
    count = 1
    for n in lengths:
        count *= n
    bound, name = (
        (SAMPLED_GRID, "dclint's bound for a sampled grid")
        if sampled
        else (
            most,
            "--max-points",
        )
    )
    if count > bound:
        shown = f"{count:,}" if count <= 10**18 else "over 10^18"
        raise ConfigError(
            f"{flag}: the grid has {shown} points ({' x '.join(map(str, lengths[:8]))}"
            f"{' x ...' if len(lengths) > 8 else ''}), more than {name} {bound:,}; give "
            "fewer values"
            + ("" if sampled else ", or raise --max-points")
            + (", or evaluate a sample with --sample N" if flag == "--vary" and not sampled else "")
        )
    return count


def grid_jobs(jobs: int, points: int, executor: str | None = None) -> int:
    """--jobs as run: never more processes than the grid has points, nor (on this machine)
    than it has CPUs; a remote cluster (`dask://HOST`, `ray://HOST`) has its own."""
    import os

    capped = min(jobs, max(1, points))
    if executor is None or "://" not in executor:
        capped = min(capped, os.cpu_count() or 1)
    return capped


def parse_today(text: str) -> date:
    """--today's date; anything else is a ConfigError (one line, exit 2)."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ConfigError(f"--today {text[:40]!r}: expected a date, e.g. 2026-12-31") from None


def emit(args: argparse.Namespace, text: str | Iterable[str], *, colour: bool = False) -> str:
    """A report to --output (atomically) if given, else to standard output; through
    dclint.escaping.output_text, the last guard against raw control characters and CI
    commands from free text. `text` may come in whole lines as it is made (a large what-if
    grid), each guarded and written in turn. Returns the text as written (whole), "" for lines."""
    from dclint.escaping import output_text

    fmt = getattr(args, "format", None) or "text"
    if not isinstance(text, str):
        chunks = (output_text(chunk, fmt, colour=colour) for chunk in text)
        if getattr(args, "output", None):
            write_atomic(args.output, chunks)
        else:
            for chunk in chunks:
                sys.stdout.write(chunk)
        return ""
    text = output_text(text, fmt, colour=colour)
    if getattr(args, "output", None):
        write_atomic(args.output, text)
    elif text:
        sys.stdout.write(text)
    return text
