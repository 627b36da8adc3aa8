"""`dclint rules`: list every rule with its id, name, severity and summary."""

from __future__ import annotations

import argparse
from typing import Any

from dclint.cli._shared import add_format, add_rules_dir, emit

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser = sub.add_parser("rules", help="list every rule")
    add_rules_dir(parser)
    add_format(parser, ("text", "json"))
    parser.add_argument(
        "--coverage",
        action="store_true",
        help="the coverage map: each standard's topic, the rules that check it, or 'not checked'",
    )
    return parser


def _coverage(args: argparse.Namespace, rules: dict[str, Any]) -> int:
    from dclint.engine.coverage import coverage

    rows = coverage(rules)
    if args.format == "json":
        import json

        listed = [
            {
                "topic": r.topic.key,
                "standard": r.topic.standard,
                "clause": r.topic.clause,
                "about": r.topic.topic,
                "status": r.status,
                "rules": [{"id": i, "name": n} for i, n in r.rules],
                "reported": r.topic.reported,
            }
            for r in rows
        ]
        emit(args, json.dumps(listed, indent=2, ensure_ascii=False) + "\n")
        return 0
    lines = []
    for r in rows:
        what = ", ".join(i for i, _ in r.rules) or r.topic.reported or "-"
        lines.append(
            f"{r.status:<14} {r.topic.standard}, {r.topic.clause}: {r.topic.topic} [{what}]"
        )
    emit(args, "\n".join(lines) + "\n")
    return 0


def run(args: argparse.Namespace) -> int:
    from dclint.engine.registry import discover

    rules = discover(tuple(args.rules_dir))
    if args.coverage:
        return _coverage(args, rules)
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
