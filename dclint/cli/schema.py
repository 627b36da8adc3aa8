"""`dclint schema`: print the design JSON Schema."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser("schema", help="print the design JSON Schema")
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

    sys.stdout.write(schema_text())
    return 0
