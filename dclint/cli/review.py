"""`dclint review DESIGN... [--against COUNTER] -o review.html|review.pdf|review.md`: the
document a consultant hands to a client. The layout search is always on (PAR005 prices a slow
layout); the front matter comes from flags, else the config's `review:` table."""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path
from typing import Any

from dclint.cli._shared import (
    add_config,
    add_rules_dir,
    add_selection,
    add_set,
    make_engine,
    parse_today,
    write_atomic,
)
from dclint.errors import ConfigError

__all__ = ["add_parser", "run"]

FORMATS = {
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
    ".md": "markdown",
    ".docx": "docx",
    ".xlsx": "xlsx",
}
FILE_ONLY = ("pdf", "docx", "xlsx")  # formats written to a file, never to standard output


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "review",
        help="write the design review document (HTML, PDF or Markdown)",
        description="One document per engagement: front matter, an executive summary ranked by "
        "what each finding costs, then per design its scope, findings, projection, best "
        "layout, capacity headroom and waivers; the comparison with --against; assumptions "
        "and sources in an appendix.",
    )
    parser.add_argument("paths", nargs="+", metavar="DESIGN", help="design files")
    parser.add_argument("--against", metavar="COUNTER", help="a counter-design to compare with")
    parser.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        help="the document: .html, .pdf, .md, .docx or .xlsx (default: stdout)",
    )
    parser.add_argument(
        "--format",
        choices=("html", "pdf", "markdown", "docx", "xlsx"),
        help="document format (default: from the --output suffix, else html); docx: an "
        "editable Word copy, xlsx: the findings register",
    )
    parser.add_argument("--paper", choices=("A4", "Letter"), default="A4", help="PDF paper size")
    parser.add_argument(
        "--ledger",
        action="append",
        default=[],
        metavar="FILE",
        help="an import's ledger (the JSON `dclint import --ledger FILE` wrote), for the "
        "appendix 'Import ledger'; repeatable. Default: the ledger an import wrote at the foot "
        "of the design file or of a fragment it extends or includes",
    )
    for name in ("title", "client", "project", "author", "reviewer", "revision", "date"):
        parser.add_argument(
            f"--{name}", help=f"front matter: {name} (default: config review.{name})"
        )
    add_selection(parser)
    add_config(parser)
    add_rules_dir(parser)
    add_set(parser, "a value of the designs")
    parser.add_argument("--today", help=argparse.SUPPRESS)
    return parser


def _format(args: argparse.Namespace) -> str:
    if args.format:
        return str(args.format)
    if args.output:
        suffix = Path(args.output).suffix.lower()
        if suffix not in FORMATS:
            raise ConfigError(
                f"--output {args.output}: write .html, .pdf, .md, .docx or .xlsx, or name --format"
            )
        return FORMATS[suffix]
    return "html"


def run(args: argparse.Namespace) -> int:
    from dclint.analysis.assess import review as rd
    from dclint.engine.runner import run as run_engine

    fmt = _format(args)
    if fmt in FILE_ONLY and not args.output:
        raise ConfigError(f"--format {fmt} writes a file: give --output review.{fmt}")
    if fmt == "pdf":
        from dclint.report.pdf import find_browser

        find_browser()  # before any work: the renderer is there, or one error line
    engine = make_engine(args)
    # the review always runs the costly work (the layout search: a slow layout is a priced
    # finding), as check --layout-search does
    engine.costly = True
    paths = [*args.paths, *([args.against] if args.against else [])]
    result = run_engine(paths, engine)
    today = parse_today(args.today) if args.today else date.today()
    first = result.designs[0].file if result.designs else "."
    given = dict(engine.config_for(first).review)
    given.update({k: getattr(args, k) for k in rd.FRONT_FIELDS if getattr(args, k)})
    # the one entry into analysis/: the document, every figure computed (the report lays out)
    ledgers = find_ledgers([d.file for d in result.designs], args.ledger)
    doc = rd.review(result, engine, given, today, against=bool(args.against), ledgers=ledgers)
    run = doc.run

    from dclint.report.registry import renderer

    write = renderer(doc, fmt)
    if fmt in FILE_ONLY:
        from dclint.cli._output import refuse_input

        refuse_input(args.output, "--output")  # as write_atomic does for the other formats
    if fmt == "pdf":
        write(doc, run, args.output, args.paper)
    elif fmt in FILE_ONLY:
        write(doc, run, args.output)
    else:
        _emit(args, write(doc, run))
    # the document reports them too, but whoever runs the command (a CI log, -o a file) sees
    # the exit code 2 with its reason: one line a load error, as check and main print them
    for problem in result.errors:
        print(f"dclint: error: {problem}", file=sys.stderr)
    if result.rule_failures:
        print(
            f"dclint: error: {result.rule_failures} rule failure(s): see the review's findings",
            file=sys.stderr,
        )
    return 2 if result.errors or result.rule_failures else 0


FOOT_MOST = 64 * 1024 * 1024  # bytes of a file read for its ledger


def find_ledgers(files: list[str], given: list[str]) -> list[Any]:
    """The ledgers of the imports behind the reviewed designs (dclint.importer.ledger's
    ReadLedger): each `--ledger FILE` given (JSON, every object named); else the foot of each
    file an import wrote among the design files and the fragments they extend or include."""
    import json

    from dclint.engine.files import included_by
    from dclint.importer.ledger import read_foot, read_json
    from dclint.loader.readfile import FileRejected, read_regular

    out = []
    for name in given:
        try:
            data = json.loads(read_regular(Path(name), FOOT_MOST, "ledger").decode("utf-8"))
            out.append(read_json(data, name))
        except (FileRejected, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"--ledger {name}: {exc}") from None
    if given:
        return out
    seen: set[Path] = set()
    for design in files:
        own = Path(design).resolve()
        for path in [own, *included_by([design])]:
            if path in seen:
                continue
            seen.add(path)
            try:
                text = read_regular(path, FOOT_MOST).decode("utf-8", errors="replace")
            except (FileRejected, OSError):  # the check reports an unreadable design
                continue
            found = read_foot(text, design if path == own else str(path))
            if found is not None:
                out.append(found)
    return out


def _emit(args: argparse.Namespace, text: str) -> None:
    if args.output:
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
