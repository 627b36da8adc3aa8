"""`dclint rules`: list every rule with its id, name, severity and summary."""

from __future__ import annotations

import argparse
from typing import Any

from dclint.cli._shared import add_config, add_format, add_rules_dir, emit, given_config

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser = sub.add_parser("rules", help="list every rule")
    add_rules_dir(parser)
    add_config(parser)
    add_format(parser, ("text", "json"))
    return parser


def run(args: argparse.Namespace) -> int:
    from dclint.engine.registry import discover

    rules = discover(tuple(args.rules_dir))
    rules = {**rules, **_policies(args, rules)}
    if args.format == "json":
        import json

        listed = [
            {"id": rule_id, "name": cls.name, "severity": cls.severity, "summary": cls.summary()}
            for rule_id, cls in rules.items()
        ]
        emit(args, json.dumps(listed, indent=2, ensure_ascii=False) + "\n")
        return 0
    for rule_id, cls in rules.items():
        print(f"{rule_id}  {cls.name:<40} {cls.severity:<8} {cls.summary()}")
    return 0


def _policies(args: argparse.Namespace, rules: dict[str, Any]) -> dict[str, Any]:
    """The site policies (dclint.policy) of the config given, or found from here as `check`
    finds a design's: each is listed as a rule."""
    from pathlib import Path

    from dclint.engine.config import config_for

    given = given_config(args)
    config = given or config_for(Path("_"), {})
    if not config.policies:
        return {}
    from dclint.engine.registry import policy_rules

    return policy_rules(config, rules, confined=given is None)
