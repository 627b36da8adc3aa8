"""`dclint check --watch`: check, then check again whenever a design, a fragment it includes or
a configuration file changes, until Ctrl-C. File-system events come from watchfiles (the
`watch` extra), which batches the bursts an editor's save makes; no polling by hand.

Watched: each checked directory, each checked file's directory, the directory of every file
the designs include or extend (a fragment library beside the designs' folder), and the config
each design's directory finds (`.dclint.yaml` or `pyproject.toml` up the tree) or --config
names. After each change the set is worked out again, so a new include is watched too."""

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
        while True:
            roots = _roots(args)
            for batch in changes(
                *roots, watch_filter=lambda c, p: _relevant((c, p)), raise_interrupt=True
            ):
                if batch:
                    once()
                    if _roots(args) != roots:
                        break  # an include or a config came or went: watch the new set
            else:
                break
    except KeyboardInterrupt:
        print("dclint: stopped watching", file=sys.stderr)
    return 0


def _roots(args: argparse.Namespace) -> list[str]:
    """What to watch: the checked paths' directories, the directories of the files their
    designs include or extend (followed through fragments), and their configs."""
    from dclint.engine.config import find_config
    from dclint.engine.files import find_designs

    roots: set[Path] = set()
    for p in args.paths:
        path = Path(p)
        roots.add(path if path.is_dir() else path.parent)
    todo = [Path(f).resolve() for f in find_designs(list(args.paths)).files]
    seen: set[Path] = set()
    while todo:
        file = todo.pop()
        if file in seen:
            continue
        seen.add(file)
        roots.add(file.parent)
        todo.extend(_references(file))
    configs = {find_config(d.resolve()) for d in roots if d.exists()}
    if getattr(args, "config", None):
        configs.add(Path(args.config))
    watched = {str(r.resolve()) for r in roots if r.exists()}
    watched |= {str(c.resolve()) for c in configs if c is not None}  # the file, not its tree
    return sorted(watched)


def _references(file: Path) -> list[Path]:
    """The files `file` includes or extends, resolved from its directory (none if it does
    not read: the check reports that)."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    if "include" not in text and "extends" not in text:
        return []
    from dclint.loader.yamlsafe import read_yaml

    try:
        data, _ = read_yaml(str(file), text)
    except Exception:  # a file being typed: the check says what is wrong with it
        return []
    if not isinstance(data, dict):
        return []
    out = []
    for key in ("extends", "include"):
        refs = data.get(key)
        for ref in refs if isinstance(refs, list) else [refs]:
            if isinstance(ref, str) and ref.endswith((".yaml", ".yml")):
                out.append((file.parent / ref).resolve())
    return out
