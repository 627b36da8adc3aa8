"""`dclint rules`: list every rule with its id, name, severity and summary."""

from __future__ import annotations

import argparse
from typing import Any

from dclint.cli._shared import add_rules_dir

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser = sub.add_parser("rules", help="list every rule")
    add_rules_dir(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    from dclint.engine.registry import discover

    for rule_id, cls in discover(tuple(args.rules_dir)).items():
        print(f"{rule_id}  {cls.name:<40} {cls.severity:<8} {cls.summary()}")
    return 0
