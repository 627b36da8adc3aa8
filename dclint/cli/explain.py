"""`dclint explain ID`: a rule's documentation and the options in effect."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dclint.cli._shared import add_config, add_rules_dir, emit, given_config
from dclint.errors import ConfigError

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser = sub.add_parser("explain", help="print a rule's documentation")
    parser.add_argument("rule_id", metavar="RULE", help="rule id (PWR001) or name")
    add_config(parser)
    add_rules_dir(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    from dclint.engine.config import config_for, validate_config
    from dclint.engine.registry import discover

    found = discover(tuple(args.rules_dir))
    # the config `check` would find for a design here (#30 item 5), or the one given
    config = given_config(args) or config_for(Path("_"), {})
    if config.policies:  # its site policies are rules too (dclint.policy)
        from dclint.engine.registry import policy_rules

        found = {**found, **policy_rules(config, found, confined=given_config(args) is None)}
    # the options in effect are those `check` would run with: a value `check` refuses (the
    # wrong unit, an option the rule lacks) is the same located error here, not "in effect"
    validate_config(config, found)
    wanted = args.rule_id.strip()
    cls = found.get(wanted.upper()) or next(
        (c for c in found.values() if c.name == wanted.lower()), None
    )
    if cls is None:
        raise ConfigError(f"unknown rule '{args.rule_id}' (see `dclint rules`)")
    settings = config.rule_settings.get(cls.id, {})
    lines = [
        f"{cls.id} {cls.name} [{settings.get('severity', cls.severity)}]"
        f"  tags: {', '.join(cls.tags) or '-'}\n",
        cls.doc(),
    ]
    if cls.options:
        lines.append("\n## Options (value in effect, default)")
        for name, opt in cls.options.items():
            value = settings.get(name, opt.default)
            lines.append(f"- {name} = {value!r} (default {opt.default!r}; {opt.kind}): {opt.help}")
    # through emit, as every report: a rule's doc from --rules-dir or a policy file is text
    # from elsewhere, and may hold terminal control sequences
    emit(args, "\n".join(lines) + "\n")
    return 0
