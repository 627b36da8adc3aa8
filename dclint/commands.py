"""What each `dclint` command does: builds an Engine or loads designs, then presents results."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

from dclint.errors import ConfigError, DclintError

__all__ = ["dispatch", "write_atomic"]


def dispatch(args: argparse.Namespace) -> int:
    handler = {"check": check, "rules": rules, "explain": explain, "schema": schema, "cost": cost}
    from dclint.consultant_commands import HANDLERS

    handler.update(HANDLERS)  # diff, capacity, init
    try:
        return handler[args.command](args)
    except DclintError as exc:
        print(f"dclint: error: {exc}", file=sys.stderr)
        for problem in getattr(exc, "problems", [])[1:]:
            print(f"dclint: error: {problem}", file=sys.stderr)
        return 2


def _split(value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    return tuple(v.strip() for v in value.split(",") if v.strip())


def _engine(args: argparse.Namespace) -> Any:
    from dclint.engine.config import load_config
    from dclint.engine.runner import Engine

    config = load_config(Path(args.config)) if getattr(args, "config", None) else None
    cli = {
        "select": _split(getattr(args, "select", None)),
        "ignore": _split(getattr(args, "ignore", None)),
        "fail_on": getattr(args, "fail_on", None),
    }
    today = date.fromisoformat(args.today) if getattr(args, "today", None) else date.today()
    from dclint.consultant_commands import overrides

    return Engine(
        config=config,
        rules_dirs=tuple(args.rules_dir),
        cli=cli,
        today=today,
        overrides=overrides(args),
    )


def check(args: argparse.Namespace) -> int:
    from dclint.engine.runner import run
    from dclint.report import formatter

    if getattr(args, "sweep", None):
        from dclint.consultant_commands import sweep

        return sweep(args)
    engine = _engine(args)
    result = run(args.paths, engine)
    result, fixed = _baseline(args, result)
    # the governing config of the first design (CLI values merged in) sets the exit threshold
    fail_on = engine.config_for(result.designs[0].file if result.designs else ".").fail_on
    settings = {
        "quiet": args.quiet,
        "statistics": args.statistics,
        "rules": engine.rules,
        "selected": lambda rid, file: _selected(rid, engine.config_for(file), file),
        "options_for": lambda file: engine.options(engine.config_for(file)),
        "baseline_fixed": fixed,
    }
    settings["design_extras"] = _design_extras()
    text = formatter(args.format)(result, settings)
    if args.output:
        write_atomic(args.output, text)
    elif text:
        sys.stdout.write(text)
    return result.exit_code(fail_on)


def _selected(rule_id: str, config: Any, file: str) -> bool:
    from dclint.engine.config import selected

    return selected(rule_id, config, file)


def _baseline(args: argparse.Namespace, result: Any) -> tuple[Any, list[Any]]:
    """--write-baseline records every current finding; --baseline hides the recorded ones.
    Entries no longer found are named on stderr so the baseline can be pruned."""
    from dclint.engine import baseline

    write, read = getattr(args, "write_baseline", None), getattr(args, "baseline", None)
    if write:
        entries = baseline.entries(result)
        write_atomic(write, baseline.dumps(entries))
        print(f"dclint: wrote {len(entries)} findings to baseline {write}", file=sys.stderr)
        return baseline.apply(result, entries)
    if not read:
        return result, []
    try:
        text = Path(read).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"--baseline {read}: {exc.strerror}") from None
    result, fixed = baseline.apply(result, baseline.loads(text, read))
    for entry in fixed:
        print(
            f"dclint: fixed (no longer found, prune from {read}): {entry.describe()}",
            file=sys.stderr,
        )
    return result, fixed


def write_atomic(path: str, text: str) -> None:
    """Write `text` to `path` through a temporary file and a rename: never a partial file."""
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    except OSError as exc:
        raise ConfigError(f"--output {path}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; an output file follows the umask
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def rules(args: argparse.Namespace) -> int:
    from dclint.engine.registry import discover

    for rule_id, cls in discover(tuple(args.rules_dir)).items():
        print(f"{rule_id}  {cls.name:<40} {cls.severity:<8} {cls.summary()}")
    return 0


def explain(args: argparse.Namespace) -> int:
    from dclint.engine.config import Config, load_config
    from dclint.engine.registry import discover

    found = discover(tuple(args.rules_dir))
    cls = found.get(args.rule_id.upper())
    if cls is None:
        raise ConfigError(f"unknown rule id '{args.rule_id}' (see `dclint rules`)")
    config = load_config(Path(args.config)) if args.config else Config()
    settings = config.rule_settings.get(cls.id, {})
    print(
        f"{cls.id} {cls.name} [{settings.get('severity', cls.severity)}]"
        f"  tags: {', '.join(cls.tags) or '-'}\n"
    )
    print(cls.doc())
    if cls.options:
        print("\n## Options (value in effect, default)")
        for name, opt in cls.options.items():
            value = settings.get(name, opt.default)
            print(f"- {name} = {value!r} (default {opt.default!r}; {opt.kind}): {opt.help}")
    return 0


def schema(args: argparse.Namespace) -> int:
    from dclint.schema import schema_text

    sys.stdout.write(schema_text())
    return 0


def cost(args: argparse.Namespace) -> int:
    from dclint.cost_command import cost as run_cost

    return run_cost(args)


def _design_extras() -> Any:
    from dclint.projection import design_extras

    return design_extras
