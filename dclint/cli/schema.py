"""`dclint schema`: print the design JSON Schema."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser("schema", help="print the design JSON Schema")
    return parser


def run(args: argparse.Namespace) -> int:
    from dclint.model.schema import schema_text

    sys.stdout.write(schema_text())
    return 0
