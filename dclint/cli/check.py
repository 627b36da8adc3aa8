"""`dclint check`: lint design files or directories and print a report."""

from __future__ import annotations

import argparse
import os
import sys
from datetime import date
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
    grid_size,
    make_engine,
    parse_today,
    write_atomic,
)
from dclint.errors import ConfigError, LoadError

__all__ = ["FORMAT_NAMES", "MAX_POINTS", "add_parser", "run"]

# the longest body GitHub accepts for an issue or pull-request comment
GITHUB_COMMENT_LIMIT = 65_536
FORMAT_NAMES = (
    "text",
    "json",
    "sarif",
    "junit",
    "github",
    "gitlab",
    "markdown",
    "markdown-summary",
    "html",
)


def add_parser(sub: Any) -> argparse.ArgumentParser:
    check = sub.add_parser("check", help="check design files or directories")
    check.add_argument(
        "paths", nargs="*", default=["."], metavar="PATH", help="design files or directories"
    )
    add_selection(check)
    add_config(check)
    add_rules_dir(check)
    check.add_argument(
        "--format", "--output-format", default="text", choices=FORMAT_NAMES, help="report format"
    )
    add_output(check, "write the report to FILE (atomically)")
    check.add_argument(
        "--fail-on",
        choices=("error", "warning", "info"),
        help="lowest severity that makes the exit code 1 (default: from config, else error)",
    )
    check.add_argument(
        "--exit-zero",
        action="store_true",
        help="exit 0 even when findings are reported (broken input still exits 2)",
    )
    check.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour text output (auto: on a terminal, unless NO_COLOR is set)",
    )
    check.add_argument(
        "--show-source",
        action="store_true",
        help="print the offending YAML line under each finding, with a caret",
    )
    check.add_argument(
        "--stdin-filename",
        metavar="PATH",
        help="with PATH '-': the name of the design read from standard input (its positions, "
        "the config found for it, its per-file settings and its includes' folder)",
    )
    check.add_argument("--quiet", "-q", action="store_true", help="print nothing when clean")
    check.add_argument(
        "--force-exclude",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="apply the config's `exclude` to files named on the command line too (as ruff's; "
        "the pre-commit hook turns it on)",
    )
    check.add_argument(
        "--show-files",
        action="store_true",
        help="list the files found and whether each is checked, without checking",
    )
    check.add_argument(
        "--show-settings",
        action="store_true",
        help="print the configuration resolved for the first design found, without checking",
    )
    check.add_argument("--statistics", action="store_true", help="count findings by rule")
    check.add_argument(
        "--show-waivers",
        action="store_true",
        help="list suppressed and baselined findings with their reason and expiry",
    )
    check.add_argument("--baseline", metavar="FILE", help="report only findings not in FILE")
    check.add_argument("--write-baseline", metavar="FILE", help="record current findings")
    check.add_argument("--today", help=argparse.SUPPRESS)  # fixed date for suppression tests
    add_set(check, "a design value before checking")
    check.add_argument(
        "--layout-search",
        action="store_true",
        help="run PAR005's layout search (seconds a workload; a config found by search may "
        "not turn it on, one named with --config may)",
    )
    check.add_argument(
        "--sweep",
        action="append",  # given twice is an error (sweep), never the last one silently
        metavar="PATH=V1,V2,...",
        help="check once per value and print one table",
    )
    check.add_argument(
        "--max-points",
        type=int,
        default=MAX_POINTS,
        metavar="N",
        help=f"refuse a --sweep of more than N values (default {MAX_POINTS:,})",
    )
    from dclint.cli.fixes import add_arguments

    add_arguments(check)
    check.add_argument(
        "--watch",
        action="store_true",
        help="check again whenever a design, fragment or config changes (Ctrl-C stops)",
    )
    check.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the results cache (.dclint_cache/)",
    )
    return check


def run(args: argparse.Namespace) -> int:
    from dclint.cli import _import_pint_without_numpy

    if "-" in args.paths:
        _import_pint_without_numpy()
        return _check_stdin(args)
    if getattr(args, "stdin_filename", None):
        raise ConfigError("--stdin-filename names the design read from standard input: add '-'")
    cache = _cache_usable(args)
    if not cache:
        _import_pint_without_numpy()  # as for every command (dclint.cli.main)
    if getattr(args, "sweep", None):
        return sweep(args)
    if getattr(args, "watch", False):
        from dclint.cli.watch import watch

        args.watch = False  # each round is one ordinary check, never from the cache
        args.no_cache = True
        return watch(args, run)
    if getattr(args, "show_files", False):
        return show_files(args)
    if getattr(args, "show_settings", False):
        from dclint.cli.settings import show_settings

        return show_settings(args)
    if not cache:
        return _run(args, None)
    from dclint.cli._runs import Snapshot

    given = str(Path(args.config)) if getattr(args, "config", None) else None
    snapshot = Snapshot(args.paths, given)  # before anything is read: a run record's base
    watched = _Watched(sys.stderr)
    sys.stderr = watched  # type: ignore[assignment]
    try:
        return _run(args, snapshot, watched)
    finally:
        if sys.stderr is watched:
            sys.stderr = watched.stream


class _Watched:
    """Standard error, noting whether anything was written (a run that warned is not
    recorded: its replay would not warn)."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.written = False

    def write(self, text: str) -> int:
        self.written = self.written or bool(text)
        return int(self.stream.write(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def _cache_usable(args: argparse.Namespace) -> bool:
    """Whether this check reads and writes the results cache; with --no-cache, answered
    without importing the cache's module (hashing, its records: a few milliseconds of a cold
    check)."""
    if getattr(args, "no_cache", False):
        return False
    from dclint.cli import _cache

    return _cache.usable(args)


def _run(args: argparse.Namespace, snapshot: Any, watched: _Watched | None = None) -> int:
    from dclint.cli import _import_pint_without_numpy

    engine = make_engine(args, defer_rules=snapshot is not None)
    store = None
    if snapshot is not None:
        from dclint.cli import _cache

        store = _cache.Cache(args, engine, snapshot, watched)
        if args.format in _cache.FORMATS:
            split = store.split()
            if split is not None and not split.missing:
                return _report(args, store.replayed(split, []), [], store)
            if split is not None and len(split.missing) < len(split.files):
                return _incremental(args, engine, store, split)
    _import_pint_without_numpy()
    engine.rules  # noqa: B018 - a bad rule pack is an error before anything is checked
    return _check(args, engine, store)


def _check_stdin(args: argparse.Namespace) -> int:
    """`dclint check -`: the design text on standard input (at most the design size limit),
    checked as the file --stdin-filename names would be (positions, config discovery,
    per-file settings, includes); what writes files or reads many is refused."""
    from dclint.analysis.assess.assessment import assess
    from dclint.cli.fixes import fixing
    from dclint.engine.findings import DesignResult, RunResult
    from dclint.loader.yamlsafe import MAX_BYTES, YamlError, decode

    if args.paths != ["-"]:
        raise ConfigError("'-' (standard input) is checked alone: name no other path")
    for flag, on in (
        ("--fix, --diff and --add-suppressions", fixing(args)),
        ("--watch", getattr(args, "watch", False)),
        ("--sweep", getattr(args, "sweep", None)),
        ("--show-files", getattr(args, "show_files", False)),
        ("--write-baseline", getattr(args, "write_baseline", None)),
    ):
        if on:
            raise ConfigError(f"{flag} work on files, not on standard input")
    name = args.stdin_filename or "-"
    engine = make_engine(args)
    raw = sys.stdin.buffer.read(MAX_BYTES + 1)
    try:
        text = decode(name, raw)
    except YamlError as exc:
        checked = DesignResult(name, errors=exc.problems)
    else:
        checked = engine.check_text(name, text)
    result = RunResult(designs=[checked])
    result.rule_failures = sum("rule-failure" in f.tags for f in checked.findings)
    result, fixed = _baseline(args, result)
    return _report(args, assess(result, engine), fixed)


def _incremental(args: argparse.Namespace, engine: Any, store: Any, split: Any) -> int:
    """Check only the designs the cache does not hold unchanged (one edited design of many
    costs about one design's check), store them, and report the whole run as a check would."""
    from dclint.analysis.assess.assessment import price_findings
    from dclint.cli import _import_pint_without_numpy
    from dclint.engine.findings import RunResult

    _import_pint_without_numpy()
    engine.rules  # noqa: B018 - a bad rule pack is an error before anything is checked
    checked = [_check_one(engine, file) for file in split.missing]
    fresh = RunResult(designs=checked)
    price_findings(fresh, engine)  # as assess() prices a full run's findings
    assessed = None
    if store.prints_designs():  # what the format prints of the checked designs beyond their
        from dclint.analysis.assess.assessment import assess  # findings, as a full run's

        assessed = assess(fresh, engine, priced=False).designs
    store.store(fresh, assessed)
    return _report(args, store.replayed(split, checked, assessed), [], store)


def _check_one(engine: Any, file: str) -> Any:
    """One design checked, as dclint.engine.runner.run checks each (a design nested past
    Python's recursion limit is a load error)."""
    try:
        return engine.check_file(file)
    except RecursionError:
        from dclint.engine.findings import DesignResult
        from dclint.errors import Problem

        return DesignResult(file, errors=[Problem(file, 1, 1, "design too deeply nested to check")])


def _check(args: argparse.Namespace, engine: Any, store: Any) -> int:
    from dclint.analysis.assess.assessment import assess
    from dclint.engine.runner import run as run_engine

    result = run_engine(args.paths, engine)
    result, fixed = _baseline(args, result)
    from dclint.cli.fixes import fixing

    if fixing(args):
        from dclint.cli.fixes import run_fixes

        code = run_fixes(args, result, engine)
        if code is not None:  # --diff: the diff is the report
            return _diff_code(result, code)
        args.fix = args.diff = False
        args.add_suppressions = None
        args.no_cache = True
        return run(args)  # report what is left, from the files as now written
    if getattr(args, "write_baseline", None):  # says what it recorded instead of a report
        return 2 if result.errors or result.rule_failures else 0
    assessed = assess(result, engine)
    if store is not None:
        store.store(result, assessed.designs)
        assessed.designs = store.presented(assessed.designs)  # a review laid out once
    return _report(args, assessed, fixed, store)


def _diff_code(result: Any, code: int) -> int:
    """--diff's exit code: 2 with each load error on stderr when a design did not load (as a
    plain check exits; nothing could be fixed in it), else the diff's (1 when non-empty)."""
    if not result.errors and not result.rule_failures:
        return code
    from dclint.errors import printable

    for e in result.errors:
        print(printable(f"{e.file}:{e.line}:{e.column}: error: {e.message}"), file=sys.stderr)
    if result.rule_failures:
        n = result.rule_failures
        print(f"dclint: error: {n} rule{'s' if n != 1 else ''} failed", file=sys.stderr)
    return 2


def _report(args: argparse.Namespace, assessed: Any, fixed: list[Any], store: Any = None) -> int:
    """The report of a run's assessment (or of one replayed from the cache) and the exit code;
    with the results cache (`store`), the run's record (dclint.cli._runs) too."""
    from dclint.report.registry import renderer
    from dclint.report.view import View

    argv = getattr(args, "argv", None)
    view = View(
        color=_color(args),
        show_source=args.show_source,
        quiet=args.quiet,
        statistics=args.statistics,
        show_waivers=args.show_waivers,
        argv=tuple(argv) if argv is not None else None,
        today=getattr(args, "today", None),
        baseline_fixed=tuple(fixed),
    )
    text = renderer(assessed, args.format)(assessed, view)
    if args.format == "markdown" and len(text) > GITHUB_COMMENT_LIMIT:
        print(
            f"dclint: warning: the Markdown report is {len(text):,} characters, past GitHub's "
            f"{GITHUB_COMMENT_LIMIT:,}-character limit for a comment; post "
            "--format markdown-summary instead (the counts and the top findings)",
            file=sys.stderr,
        )
    shown = emit(args, text, colour=view.color)
    code = assessed.exit_code()  # the first design's config (CLI values in) sets the threshold
    code = 0 if code == 1 and args.exit_zero else code
    if store is not None:
        store.record(shown, code)
    return int(code)


def _color(args: argparse.Namespace) -> bool:
    """Colour for text on a terminal; never into a file, a pipe, or with NO_COLOR set;
    FORCE_COLOR (set, not empty) colours a pipe too (as ruff and pytest read it)."""
    if args.color != "auto":
        return bool(args.color == "always")
    if getattr(args, "output", None) or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty()


def _baseline(args: argparse.Namespace, result: Any) -> tuple[Any, list[Any]]:
    """--write-baseline records every current finding; --baseline hides the recorded ones.
    Entries no longer found are named so the baseline can be pruned: in the report (text,
    Markdown, HTML), else as warnings on stderr."""
    write, read = getattr(args, "write_baseline", None), getattr(args, "baseline", None)
    if not write and not read:
        return result, []
    from dclint.engine import baseline

    today = parse_today(args.today) if getattr(args, "today", None) else date.today()
    if write:
        entries = baseline.entries(result, by=_who(), on=today)
        write_atomic(write, baseline.dumps(entries), "--write-baseline")
        n = len(entries)
        print(f"dclint: recorded {n} finding{'s' if n != 1 else ''} in {write}")  # the report
        return baseline.apply(result, entries, today=today, where=write)
    if not read:
        return result, []
    result, fixed = baseline.apply(result, baseline.load_file(read), today=today, where=read)
    if args.format not in ("text", "markdown", "html"):
        for entry in fixed:
            print(
                f"dclint: warning: no longer found, prune from {read}: {entry.describe()}",
                file=sys.stderr,
            )
    return result, fixed


def _who() -> str:
    """Who records a baseline: the login name, where the system knows it."""
    import getpass

    try:
        return getpass.getuser()
    except Exception:  # no USER, LOGNAME or passwd entry
        return ""


def sweep(args: argparse.Namespace) -> int:
    """`check --sweep PATH=V1,V2,...`: one check a value, one table."""
    from dclint.analysis.sweep import run_sweep, split_values
    from dclint.engine.files import collect

    if len(args.sweep) > 1:  # argparse kept the last alone: the others were dropped
        shown = ", ".join(f"--sweep {t}" for t in args.sweep)
        raise ConfigError(
            f"{shown}: a sweep varies one path; give its values in one --sweep "
            "(--sweep PATH=V1,V2), or every combination of several with dclint plan --vary"
        )
    text = args.sweep[0]
    if args.max_points < 1:
        raise ConfigError(f"--max-points {args.max_points}: allow at least one point")
    grid_size([split_values(text)], args.max_points, "--sweep")  # before any work
    engine = make_engine(args)
    if engine.overrides:
        from dclint.loader.overrides import forbid_swept

        forbid_swept(engine.overrides, [split_values(text)[0]], "--sweep")
    files, missing = collect(args.paths, ())
    if missing:
        raise LoadError(list(missing))
    if not files:
        raise ConfigError("no design files found in " + ", ".join(args.paths))
    if args.format not in ("text", "json"):
        raise ConfigError("--sweep prints text or json (--format text|json)")
    from dclint.report.registry import renderer

    sweeps = [run_sweep(f, engine, engine.overrides, text) for f in files]
    emit(args, renderer(sweeps, args.format)(sweeps))
    code = max(s.exit_code() for s in sweeps)  # as `check` exits: 2 load errors, 1 findings
    return 0 if code == 1 and args.exit_zero else code


def show_files(args: argparse.Namespace) -> int:
    """`check --show-files`: every YAML file the search met and its role: a design; a
    fragment, with every design that includes or extends it (a fragment outside the searched
    paths too); excluded by the config's `exclude`; or skipped, not a design. Nothing is
    checked."""
    from dclint.engine.files import includers
    from dclint.engine.runner import find_files
    from dclint.errors import printable

    found = find_files(args.paths, make_engine(args))
    if found.problems:
        raise LoadError(found.problems)
    users = includers(found.files)
    lines = [(f, "design") for f in found.files]
    listed = {os.path.realpath(f) for f in found.files}
    for file in found.skipped:
        listed.add(os.path.realpath(file))
        by = users.get(Path(file).resolve())
        lines.append((file, _fragment_role(by) if by else "skipped, not a design"))
    lines += [(f, "excluded (the config's exclude)") for f in found.excluded]
    listed |= {os.path.realpath(f) for f in found.excluded}
    cwd = Path.cwd()
    for path, by in users.items():  # fragments outside the searched paths
        if str(path) not in listed and not path.is_relative_to(Path(args.paths[0]).resolve()):
            shown = os.path.relpath(path, cwd) if path.is_relative_to(cwd.parent) else str(path)
            lines.append((shown, _fragment_role(by)))
    emit(args, "".join(f"{printable(f)}: {what}\n" for f, what in sorted(lines)))
    return 0


def _fragment_role(by: list[str]) -> str:
    n = len(by)
    return f"fragment of {n} design{'s' if n != 1 else ''}: {', '.join(by)}"
