"""`dclint rules`: list every rule with its id, name, severity and summary; `--format json`
adds what a tool needs to configure one: its options (type, default, help), the topics it
covers (its tags), the sources its doc cites, whether it offers a fix, and where it was
found."""

from __future__ import annotations

import argparse
import inspect
import re
from typing import Any

from dclint.cli._shared import add_config, add_format, add_rules_dir, emit, given_config

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser = sub.add_parser("rules", help="list every rule")
    add_rules_dir(parser)
    add_config(parser)
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
    rules = {**rules, **_policies(args, rules)}
    if args.coverage:
        return _coverage(args, rules)
    if args.format == "json":
        import json

        listed = [_described(rule_id, cls) for rule_id, cls in rules.items()]
        emit(args, json.dumps(listed, indent=2, ensure_ascii=False, default=str) + "\n")
        return 0
    # through emit, as every report: a rule from --rules-dir or a policy file is text from
    # elsewhere, and its summary may hold terminal control sequences
    emit(
        args,
        "".join(
            f"{rule_id}  {cls.name:<40} {cls.severity:<8} {cls.summary()}\n"
            for rule_id, cls in rules.items()
        ),
    )
    return 0


_CHANGES = re.compile(r"\bChange\(|\bchanges=")
_CITED = re.compile(r"\(([A-Z][^()`]*?[A-Za-z][^()`]*)\)")


_LISTED = re.compile(r"^Sources: (.+?)\.?\s*(?:\n\s*\n|\n## |\Z)", re.M | re.S)


def _sources(doc: str) -> list[str]:
    """The works the doc lists in its `Sources: A; B.` paragraph (the one form a rule doc
    cites in: 'Sources: Meta, "The Llama 3 Herd of Models", 2024.'), else those its "Why it
    matters" section cites in parentheses, in order: `(NVIDIA GB200 NVL72 documentation)`,
    `(Uptime Institute Global Data Center Survey)`."""
    listed = _LISTED.search(doc)
    if listed:
        # a work may end a line: "...; Meta,\n..." and "...;\nMeta, ..." list the same two
        return [" ".join(s.split()) for s in re.split(r";\s+", listed.group(1)) if s.strip()]
    why = doc.split("## Why it matters", 1)[-1].split("\n## ", 1)[0] if "## Why" in doc else ""
    found = (" ".join(m.group(1).split()) for m in _CITED.finditer(why))
    return list(dict.fromkeys(c for c in found if " " in c and not c[0].isdigit()))


def _offers_fix(cls: Any) -> bool:
    """Whether the rule's findings can carry a fix (`check --fix`, `--unsafe-fixes`): its
    module builds engine.rule.Change edits."""
    module = inspect.getmodule(cls)
    try:
        return module is not None and _CHANGES.search(inspect.getsource(module)) is not None
    except (OSError, TypeError):
        return False


def _described(rule_id: str, cls: Any) -> dict[str, Any]:
    doc = cls.doc()
    return {
        "id": rule_id,
        "name": cls.name,
        "severity": cls.severity,
        "summary": cls.summary(),
        "topics": list(cls.tags),
        "covers": list(getattr(cls, "covers", ())),
        "consequence": getattr(cls, "consequence", ""),
        "options": [
            {
                "name": name,
                "type": option.kind,
                "default": option.default,
                "help": option.help,
                "costly": option.costly,
            }
            for name, option in cls.options.items()
        ],
        "sources": _sources(doc),
        "fix": _offers_fix(cls),
        "origin": cls.origin,
        "explain": f"dclint explain {rule_id}",
    }


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
