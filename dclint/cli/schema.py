"""`dclint schema [KIND]`: print a JSON Schema: a design's (the default) or a fragment's."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["KINDS", "add_parser", "run"]

KINDS = ("design", "fragment")  # dclint.model.schema.SCHEMAS, named without importing it


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "schema", help="print a JSON Schema (design, or fragment: a file designs include)"
    )
    parser.add_argument(
        "kind",
        nargs="?",
        default="design",
        choices=KINDS,
        help="which schema (default: design); schemas/KIND.schema.json holds each",
    )
    parser.add_argument(
        "--import-mapping",
        action="store_true",
        help="print the JSON Schema of `dclint import`'s mapping file instead",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    if getattr(args, "import_mapping", False):
        from dclint.importer.mapping import mapping_schema_text

        sys.stdout.write(mapping_schema_text())
        return 0
    from dclint.model.schema import schema_text

    sys.stdout.write(schema_text(getattr(args, "kind", "design")))
    return 0
