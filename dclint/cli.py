"""The `dclint` command line: parses arguments and hands over to dclint.commands."""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys

from dclint import __version__

__all__ = ["build_parser", "main", "run"]

GC_THRESHOLD = 100_000  # allocations between young collections while a command runs
FORMAT_NAMES = ("text", "json", "sarif", "junit", "github", "markdown", "html")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dclint", description="Lint datacenter designs for AI training clusters."
    )
    parser.add_argument("--version", action="version", version=f"dclint {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser("check", help="check design files or directories")
    check.add_argument("paths", nargs="*", default=["."], metavar="PATH")
    check.add_argument("--select", help="comma-separated rule ids or prefixes to run")
    check.add_argument("--ignore", help="comma-separated rule ids or prefixes to skip")
    check.add_argument("--config", help="config file (pyproject.toml or .dclint.yaml)")
    check.add_argument("--rules-dir", action="append", default=[], help="extra rule modules")
    check.add_argument("--format", default="text", choices=FORMAT_NAMES)
    check.add_argument("--output", "-o", help="write the report to FILE (atomically)")
    check.add_argument("--fail-on", choices=("error", "warning", "info"))
    check.add_argument("--quiet", "-q", action="store_true", help="print nothing when clean")
    check.add_argument("--statistics", action="store_true", help="count findings by rule")
    check.add_argument("--baseline", metavar="FILE", help="report only findings not in FILE")
    check.add_argument("--write-baseline", metavar="FILE", help="record current findings")
    check.add_argument("--today", help=argparse.SUPPRESS)  # fixed date for suppression tests

    sub.add_parser("rules", help="list every rule").add_argument(
        "--rules-dir", action="append", default=[]
    )
    explain = sub.add_parser("explain", help="print a rule's documentation")
    explain.add_argument("rule_id")
    explain.add_argument("--config")
    explain.add_argument("--rules-dir", action="append", default=[])
    sub.add_parser("schema", help="print the design JSON Schema")
    cost = sub.add_parser("cost", help="project training time, energy, cost and TCO")
    cost.add_argument("paths", nargs="+", metavar="DESIGN")
    cost.add_argument("--format", default="text", choices=("text", "json"))
    cost.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        help="override a design value (repeatable)",
    )
    from dclint.consultant_commands import add_arguments

    add_arguments(sub, check)  # check --set/--sweep, diff, capacity, init
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help()
        return 2
    _import_pint_without_numpy()
    # pydantic scans every installed distribution for its plugins (entry points) when the first
    # model's validator is built, some 5 ms of a cold check. The command line owns its process
    # and uses no pydantic plugin; a value the user set is kept.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from dclint import commands

    # A check allocates hundreds of thousands of objects that live until it ends (YAML nodes,
    # models, quantities) and makes almost no cyclic garbage, so the collector's young pass,
    # every 700 allocations, mostly re-scans live objects. A larger first threshold for the
    # run only; whoever called main() gets their own setting back.
    threshold = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD, *threshold[1:])
    try:
        return commands.dispatch(args)
    except KeyboardInterrupt:
        print("dclint: interrupted", file=sys.stderr)
        return 130
    finally:
        gc.set_threshold(*threshold)


def run() -> None:
    """The `dclint` console script and `python -m dclint`: main(), then the process ends without
    tearing the interpreter down (freeing every module and object: ~50 ms of a 0.45 s check of
    a 100,000-GPU design), as mypy does. Output is flushed first; nothing else is pending, since
    reports are written and closed (atomically) before main() returns. A reader that stops
    early (`dclint check | head`) ends the run quietly, with exit code 1."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        code = 1
    with contextlib.suppress(OSError):
        sys.stderr.flush()
    os._exit(code)


def _import_pint_without_numpy() -> None:
    """pint imports numpy when it is installed (~70 ms of a 0.4 s cold run) and dclint never
    hands it arrays. The command line owns its process, so it imports pint with numpy hidden;
    the library (`import dclint`) leaves pint alone, and numpy stays importable afterwards."""
    if "pint" in sys.modules or "numpy" in sys.modules:
        return
    sys.modules["numpy"] = None  # type: ignore[assignment]  # makes `import numpy` fail
    try:
        import pint  # noqa: F401
    finally:
        del sys.modules["numpy"]
