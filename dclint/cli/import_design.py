"""`dclint import`: a design fragment from NetBox, Nautobot (live or a saved API dump) or a
spreadsheet. The importer is imported only when this command runs; `dclint check` never is."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from typing import Any

from dclint.cli._shared import write_atomic
from dclint.errors import ConfigError, printable

__all__ = ["add_parser", "run"]

SOURCES = ("netbox", "nautobot", "csv", "xlsx")
TOKEN_ENV = {"netbox": "NETBOX_TOKEN", "nautobot": "NAUTOBOT_TOKEN"}
MAX_PROBLEMS = 200  # bad values printed before the rest are counted


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "import",
        help="write a design fragment from NetBox, Nautobot or a spreadsheet",
        description="Read racks, power panels and feeds, devices and cables from where they "
        "live and write them as a dclint design fragment. Workloads and limits go in a design "
        "that `extends:` it.",
    )
    p.add_argument("source", choices=SOURCES, help="where the design lives")
    p.add_argument(
        "location",
        nargs="?",
        help="netbox/nautobot: the server's URL (token from $NETBOX_TOKEN / $NAUTOBOT_TOKEN); "
        "csv/xlsx: the file",
    )
    p.add_argument(
        "--from-file",
        metavar="DUMP",
        help="netbox/nautobot: a saved API dump (JSON or YAML) instead of a server",
    )
    p.add_argument(
        "--map",
        metavar="FILE",
        help="the mapping file (default: ./dclint-import.yaml if present)",
    )
    p.add_argument("--site", help="the site (NetBox) or location (Nautobot) to import")
    p.add_argument(
        "--token-env",
        metavar="NAME",
        help="environment variable holding the API token (default: NETBOX_TOKEN or "
        "NAUTOBOT_TOKEN); the token is never written or printed",
    )
    p.add_argument("--save-dump", metavar="FILE", help="also save what the server answered")
    p.add_argument("--output", "-o", metavar="FILE", help="file to write (default: stdout)")
    p.add_argument(
        "--ledger",
        metavar="FILE",
        help="also write the import's ledger as JSON: for each kind of source object, what "
        "was read, imported, merged and skipped (and why), each by its source reference",
    )
    return p


def _inputs(args: argparse.Namespace) -> list[str]:
    """Every file the import reads: the dump, the mapping (named, or found here), the sheet
    and, for csv, each table's file beside it."""
    from dclint.importer.mapping import DEFAULT_MAPPING, load_mapping

    mapping = args.map or (DEFAULT_MAPPING if os.path.isfile(DEFAULT_MAPPING) else None)
    out = [v for v in (args.from_file, mapping) if v]
    if args.source in ("csv", "xlsx") and args.location:
        from dclint.importer.sheets import input_paths

        out += input_paths(args.location, args.source, load_mapping(args.map)[0])
    return out


def _refuse_aliases(args: argparse.Namespace) -> None:
    """Before anything is read or written: no output is an input or the other output, however
    spelled (`./x` and `x`, a symlink, a hard link)."""
    from dclint.cli._output import _same

    named = (
        ("--output", args.output),
        ("--save-dump", args.save_dump),
        ("--ledger", getattr(args, "ledger", None)),
    )
    outputs = [(f, p) for f, p in named if p]
    for i, (flag, path) in enumerate(outputs):
        for other, second in outputs[i + 1 :]:
            if _same(path, second):
                raise ConfigError(f"{flag} {path} and {other} {second} are one file: give two")
    if not outputs:
        return
    for name in _inputs(args):
        for flag, path in outputs:
            if _same(path, name):
                raise ConfigError(f"{flag} {path} is also an input ({name}): write it elsewhere")


def run(args: argparse.Namespace) -> int:
    from dclint.importer.run import ImportFailed, run_import

    _refuse_aliases(args)
    # A dump of a large site is millions of dicts and lists that live until the import ends,
    # with no cycles among them: the collector's passes over them were a sixth of a 1,000-rack
    # import's time (bench/import_netbox.py). Off for the import; the caller's setting after.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        result = run_import(
            source=args.source,
            location=args.location,
            dump=args.from_file,
            mapping=args.map,
            site=args.site,
            token_env=args.token_env or TOKEN_ENV.get(args.source),
            command=_command(args),
        )
    except ImportFailed as exc:
        shown = exc.problems[:MAX_PROBLEMS]
        for problem in shown:
            print(f"dclint import: error: {printable(str(problem))}", file=sys.stderr)
        if len(exc.problems) > len(shown):
            print(
                f"dclint import: error: ... and {len(exc.problems) - len(shown)} more",
                file=sys.stderr,
            )
        return 2
    finally:
        if was_enabled:
            gc.enable()
    if args.save_dump and result.dump is not None:
        write_atomic(args.save_dump, result.dump, "--save-dump")
    for line in result.report:
        print(f"dclint import: warning: {printable(line)}", file=sys.stderr)
    # the kinds the import left something of out, on stderr (what was read and not written is
    # named, never dropped); a kind imported whole is quiet there: the whole ledger is at the
    # fragment's foot and, with --ledger, in its JSON
    for line in result.ledger:
        print(f"dclint import: ledger: {printable(line)}", file=sys.stderr)
    for line in result.hints:
        print(f"dclint import: hint: {printable(line)}", file=sys.stderr)
    if getattr(args, "ledger", None):
        write_atomic(args.ledger, result.ledger_json(), "--ledger")
    if args.output:
        write_atomic(args.output, result.text)
        print(f"dclint import: wrote {printable(args.output)}")
    else:
        sys.stdout.write(result.text)
    return 0


def _command(args: argparse.Namespace) -> str:
    """The command as the fragment's first line names it: never the token, never an output."""
    parts = ["dclint import", args.source]
    if args.location:  # a server's URL; a sheet by its name (the same bytes from any directory)
        sheet = args.source in ("csv", "xlsx")
        parts.append(os.path.basename(args.location) if sheet else args.location)
    if args.from_file:
        parts.append(f"--from-file {os.path.basename(args.from_file)}")
    if args.map:
        parts.append(f"--map {os.path.basename(args.map)}")
    if args.site:
        parts.append(f"--site {args.site}")
    return printable(" ".join(parts))
