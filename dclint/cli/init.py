"""`dclint init`: write a starting design that checks clean."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from dclint.cli._shared import add_output, write_atomic
from dclint.errors import ConfigError

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    init = sub.add_parser("init", help="write a starting design that checks clean")
    init.add_argument("--platform", required=True, help="platform catalog key, e.g. gb200-nvl72")
    init.add_argument("--racks", type=int, required=True, help="number of racks")
    init.add_argument("--nodes", type=int, help="nodes a rack, for node platforms")
    add_output(init, "file to write (default: standard output)")
    init.add_argument("--force", action="store_true", help="overwrite an existing --output")
    return init


def run(args: argparse.Namespace) -> int:
    from dclint.analysis.scaffold import scaffold

    try:
        text = scaffold(args.platform, args.racks, args.nodes)
    except ValueError as exc:
        raise ConfigError(f"init: {exc}") from None
    if not args.output:
        sys.stdout.write(text)
        return 0
    if os.path.lexists(args.output) and not args.force:  # lexists: False for a name too long
        raise ConfigError(f"--output {args.output} exists; pass --force to overwrite it")
    write_atomic(args.output, text)
    print(f"dclint: wrote {args.output} ({args.racks} racks of {args.platform})")
    return 0
