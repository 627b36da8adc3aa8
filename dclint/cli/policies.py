"""`dclint policies check [PATH...]` and `dclint policies test [PATH...]`: site policies
(dclint.policy) validated, and their examples run.

PATH is a policy file or a directory of them (its *.yaml and *.yml); without one, the policies
the config names (--config's, or the one found from the working directory). `check` exits 0
when every file reads, 2 (each problem at its line) otherwise; `test` exits 1 when an example
does not behave (a `pass` example the policy flags, a `fail` example it does not), naming it.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dclint.cli._shared import add_config, add_rules_dir, given_config
from dclint.errors import ConfigError

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "policies", help="check site policy files, or run their examples"
    )
    parser.add_argument(
        "action",
        choices=("check", "test"),
        help="check: validate; test: run each policy's examples",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="policy files or directories (default: the config's policies)",
    )
    add_config(parser)
    add_rules_dir(parser)
    return parser


def _files(args: argparse.Namespace) -> tuple[list[str], bool]:
    """The policy files to read, and whether examples must stay inside the repository."""
    from dclint.policy import policy_files

    if args.paths:
        out: list[str] = []
        for path in args.paths:
            p = Path(path)
            if p.is_dir():
                out += sorted(str(f) for f in p.iterdir() if f.suffix in (".yaml", ".yml"))
            elif p.exists():
                out.append(path)
            else:
                raise ConfigError(f"{path}: no such policy file or directory")
        return out, False
    from dclint.engine.config import config_for

    given = given_config(args)
    config = given or config_for(Path("_"), {})
    if not config.policies:
        raise ConfigError(
            "no policy files: name them (dclint policies check FILE) or list them in the "
            "config's `policies`"
        )
    return policy_files(config, confined=given is None), given is None


def run(args: argparse.Namespace) -> int:
    from dclint.engine.registry import discover
    from dclint.policy import load_policies

    files, confined = _files(args)
    if not files:
        raise ConfigError("no policy files found")
    policies = load_policies(files, discover(tuple(args.rules_dir)))
    if args.action == "check":
        print(
            f"{len(policies)} polic{'y' if len(policies) == 1 else 'ies'} in {len(files)} "
            f"file{'s' if len(files) != 1 else ''}: ok"
        )
        return 0
    from dclint.policy.examples import run_examples

    outcomes = run_examples(policies, confined)
    failed = [o for o in outcomes if not o.ok]
    for o in outcomes:
        status = "ok  " if o.ok else "FAIL"
        print(
            f"{status} {o.policy.id} {o.example.label} ({o.where})"
            + (f": {o.detail}" if not o.ok else "")
        )
    untested = [p.id for p in policies if not any(e.outcome == "fail" for e in p.examples)]
    if untested:
        print(f"note: no failing example for {', '.join(untested)}")
    print(f"{len(outcomes) - len(failed)} of {len(outcomes)} examples behave")
    return 1 if failed else 0
