"""The `dclint` command line: one parser built from the command table, then the command's run()."""

from __future__ import annotations

import contextlib
import os
import sys

from dclint._version import __version__

# typing.TYPE_CHECKING without importing typing (milliseconds of every start, the cached one too)
TYPE_CHECKING = False

if TYPE_CHECKING:
    import argparse
    from typing import Any

__all__ = ["COMMANDS", "FORMAT_NAMES", "build_parser", "dispatch", "finish", "main", "run"]

GC_THRESHOLD = 100_000  # allocations between young collections while a command runs
# One table of commands: each module has add_parser(subparsers) and run(args) -> int.
COMMANDS = (
    "check",
    "rules",
    "explain",
    "schema",
    "cost",
    "calibrate",
    "diff",
    "capacity",
    "init",
    "plan",
    "server",
    "review",
    "import",
    "failures",
    "policies",
)
_MODULES = {"import": "import_design"}  # a command whose name is a Python keyword


def _module(name: str) -> Any:
    import importlib

    return importlib.import_module(f"dclint.cli.{_MODULES.get(name, name)}")


_PARSERS: dict[str | None, argparse.ArgumentParser] = {}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """dclint's parser: every command's subparser, or with `only` (a command's name) that
    command's alone, so that a run imports no other command's module (each import is a few
    milliseconds of every start; the usage and that command's help are the same). Built once a
    process for each `only` (1 to 8 ms): main() called again from Python, as the test suite
    does some 3,000 times, parses with the same parser; parsing leaves a parser as it was (no
    command mutates its namespace's defaults: a test checks that a second parse is the first)."""
    key = only if only in COMMANDS else None
    built = _PARSERS.get(key)
    if built is None:
        built = _PARSERS[key] = _build_parser(key)
    return built


def _build_parser(only: str | None) -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(
        prog="dclint", description="Lint datacenter designs for AI training clusters."
    )
    parser.add_argument(
        "--version", "-V", action="version", version=f"dclint {__version__}", help="print version"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    names = (only,) if only in COMMANDS else COMMANDS
    parser.set_defaults(subparsers={name: _module(name).add_parser(sub) for name in names})
    return parser


def _command(argv: list[str]) -> str | None:
    """The command an argument list names: its first argument when that is a command (dclint's
    own options, --version and --help, end the run before any command runs); None otherwise,
    and the whole parser is built (the list of commands, or the error naming them)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


def dispatch(args: argparse.Namespace) -> int:
    """Run the command; a DclintError (bad input, bad config) is one error line and exit 2."""
    from dclint.cli._output import refuse_clobbering
    from dclint.errors import DclintError

    try:
        from dclint.loader.readfile import remember_reads

        if args.command != "server":  # a long session writes no output: nothing to note
            remember_reads()  # every file the command reads: no output is written over one
        refuse_clobbering(args)  # before any work: an output must not overwrite an input
        code: int = _module(args.command).run(args)
        return code
    except DclintError as exc:
        print(f"dclint: error: {exc}", file=sys.stderr)
        for problem in getattr(exc, "problems", [])[1:]:
            print(f"dclint: error: {problem}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(_command(sys.argv[1:] if argv is None else argv))
    try:
        args, unknown = parser.parse_known_args(argv)
        if unknown and args.command is not None:  # the subcommand's usage, not dclint's
            args.subparsers[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
        elif unknown:
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help()
        return 2
    args.argv = list(sys.argv[1:] if argv is None else argv)  # a review prints its command line
    from dclint.cli._format import choose_format
    from dclint.errors import ConfigError

    try:
        choose_format(args, args.subparsers[args.command])  # --format, else -o's suffix
    except ConfigError as exc:
        print(f"dclint: error: {exc}", file=sys.stderr)
        return 2
    del args.subparsers
    if args.command != "check":  # check imports pint when it checks (not when it replays)
        _import_pint_without_numpy(args.command)
    # pydantic scans every installed distribution for its plugins (entry points) when the first
    # model's validator is built, some 5 ms of a cold check. The command line owns its process
    # and uses no pydantic plugin; a value the user set is kept.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    # A check allocates hundreds of thousands of objects that live until it ends (YAML nodes,
    # models, quantities) and makes almost no cyclic garbage, so the collector's young pass,
    # every 700 allocations, mostly re-scans live objects. A larger first threshold for the
    # run only; whoever called main() gets their own setting back.
    import gc

    threshold = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD, *threshold[1:])
    try:
        return dispatch(args)
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
    early (`dclint check | head`) ends the run quietly, with exit code 1. A `check` command
    line that the results cache recorded (dclint.cli._runs) is replayed before anything else
    is imported. The process keeps main()'s larger garbage collection threshold to its end:
    main() gives its caller's setting back, and here that made the next allocation collect the
    whole young generation the command had made (about 30 million instructions of a cold
    check of one small design, 1.6%) just before the process ends."""
    import gc

    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    finish(_replay_or_main)


def _replay_or_main() -> int:
    argv = sys.argv[1:]
    if argv[:1] == ["check"] and "--no-cache" not in argv:  # no record is made without it
        from dclint.cli._runs import replay

        code = replay(argv)
        if code is not None:
            return code
    return main()


def finish(entry: Any) -> None:
    """Run `entry()` for its exit code, flush the output, and end the process (os._exit).

    The process's surroundings are checked first, each a one-line error and exit 2 rather than
    a traceback: a closed standard error is replaced by /dev/null (nothing can be said), a
    closed standard output is an error (the report has nowhere to go), a working directory
    that was deleted is an error. Text the terminal's encoding cannot carry
    (PYTHONIOENCODING=ascii) is written as backslash escapes, and a failed write (/dev/full)
    is one error line."""
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - ends with the process
    code = _surroundings()
    if code is None:
        try:
            code = entry()
            sys.stdout.flush()
        except BrokenPipeError:
            code = 1
        except OSError as exc:  # the report could not be written: a full disk, /dev/full
            if exc.filename is not None:  # a path no check foresaw (not the output's write)
                from dclint.errors import printable

                _say(f"{printable(os.fsdecode(exc.filename))}: {exc.strerror or exc}")
            else:
                _say(f"cannot write the output: {exc.strerror or exc}")
            code = 2
    with contextlib.suppress(OSError):
        sys.stderr.flush()
    os._exit(code)


def _say(message: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        print(f"dclint: error: {message}", file=sys.stderr, flush=True)


def _surroundings() -> int | None:
    """2 (after one error line) when the process cannot run: no standard output, no working
    directory; None when it can. Standard streams escape what their encoding cannot write."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    if sys.stdout is None:
        if not any(a in ("-o", "--output") or a.startswith("--output=") for a in sys.argv):
            _say("standard output is closed; give --output FILE or open it")
            return 2
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - the report goes to --output
    try:
        os.getcwd()
    except OSError as exc:
        _say(f"the working directory is gone ({exc.strerror or exc}); cd to an existing one")
        return 2
    return None


def _import_pint_without_numpy(command: str = "check") -> None:
    """pint imports numpy and dask when they are installed (~70 ms and ~65 ms of a 0.4 s cold
    run: dask brings its config, psutil and jinja2) and dclint never hands it arrays. The
    command line owns its process, so it imports pint with them hidden; the library (`import
    dclint`) leaves pint alone, and both stay importable afterwards. `plan`, whose grid may run
    on a dask cluster, keeps pint's dask support."""
    if "pint" in sys.modules:
        return
    hidden = [m for m in ("numpy", "dask") if m not in sys.modules]
    if command == "plan":
        hidden = [m for m in hidden if m != "dask"]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # makes `import name` fail
    try:
        import pint  # noqa: F401
    finally:
        for name in hidden:
            del sys.modules[name]


def __getattr__(name: str) -> Any:  # FORMAT_NAMES lives with `check`; read it lazily
    if name == "FORMAT_NAMES":
        return _module("check").FORMAT_NAMES
    raise AttributeError(name)
