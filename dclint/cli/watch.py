"""`dclint check --watch`: check, then check again whenever a design, a fragment it includes or
a configuration file changes, until Ctrl-C. File-system events come from watchfiles (the
`watch` extra), which batches the bursts an editor's save makes; no polling by hand."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from dclint.errors import ConfigError

__all__ = ["watch"]

WATCHED = (".yaml", ".yml", ".toml")  # designs, fragments, .dclint.yaml and pyproject.toml
CLEAR = "\033[2J\033[H"  # erase the screen, cursor home (only on a terminal)


def _relevant(change: tuple[object, str]) -> bool:
    return change[1].endswith(WATCHED)


def watch(args: argparse.Namespace, check: Callable[[argparse.Namespace], int]) -> int:
    """Run `check(args)` now and after each change under the checked paths (their directories
    for files, so a fragment or config beside a design counts). Ctrl-C ends it, exit 0."""
    try:
        from watchfiles import watch as changes
    except ImportError:
        raise ConfigError("--watch needs the watch extra: pip install 'dclint[watch]'") from None
    if getattr(args, "output", None):
        raise ConfigError("--watch prints to the terminal; it does not take -o/--output")
    roots = sorted(
        {str(Path(p) if Path(p).is_dir() else Path(p).parent or Path(".")) for p in args.paths}
    )
    clear = sys.stdout.isatty()

    def once() -> None:
        if clear:
            sys.stdout.write(CLEAR)
        try:
            check(args)
        except ConfigError as exc:  # a broken config while editing: say so and keep watching
            print(f"dclint: error: {exc}", file=sys.stderr)
        print("dclint: watching for changes (Ctrl-C to stop)", file=sys.stderr, flush=True)
        sys.stdout.flush()

    once()
    try:
        for batch in changes(
            *roots, watch_filter=lambda c, p: _relevant((c, p)), raise_interrupt=True
        ):
            if batch:
                once()
    except KeyboardInterrupt:
        print("dclint: stopped watching", file=sys.stderr)
    return 0
