"""`dclint check --show-settings PATH`: the configuration resolved for one design, as ruff's
`--show-settings` prints it: the config file that governs it (or none), the selection layer by
layer, the `per-file` globs that match it, and every rule that runs on it with its severity
and options as typed (quantities with their units). Text, or JSON with --format json."""

from __future__ import annotations

import argparse
import json
from typing import Any

from dclint.errors import ConfigError

__all__ = ["settings_of", "show_settings"]


def settings_of(file: str, engine: Any) -> dict[str, Any]:
    """The resolved configuration of `file` under `engine` (JSON-ready)."""
    from dclint.engine.config import for_file, selected
    from dclint.engine.options import as_written
    from dclint.model.budget import MAX_IDS

    config = engine.config_for(file)
    typed = engine.options(config)
    base = engine.config
    rules: dict[str, Any] = {}
    for rid, cls in sorted(engine.rules.items()):
        if not selected(rid, config, file):
            continue
        options = {n: as_written(typed[rid][n], o.kind) for n, o in cls.options.items()}
        severity = config.rule_settings.get(rid, {}).get("severity", cls.severity)
        rules[rid] = {"severity": severity, "options": options}
    out: dict[str, Any] = {
        "file": file,
        "config": config.file,
        "isolated": base is not None and base.file is None,
        "select": list(config.select),
        "extend-select": list(config.extend_select),
        "ignore": list(config.ignore),
        "extend-ignore": list(config.extend_ignore),
        "command-line": {
            "select": None if config.cli_select is None else list(config.cli_select),
            "extend-select": list(config.cli_extend_select),
            "ignore": list(config.cli_ignore),
        },
        "per-file-ignores": {g: list(ids) for g, ids in config.per_file_ignores.items()},
        "per-file": list(for_file(config, file)),  # the globs whose settings apply here
        "fail-on": config.fail_on,
        "exclude": list(config.exclude),
        "max-ids": config.max_ids if config.max_ids is not None else MAX_IDS,
        "rules-dir": [*engine.rules_dirs, *config.rules_dirs],
        "calibration": config.calibration,
        "review": dict(config.review),
        "rules": rules,
        "not-selected": sorted(r for r in engine.rules if r not in rules),
    }
    return out


def _text(settings: dict[str, Any]) -> str:
    """TOML-like lines: `key = value` (values as JSON), then one table a rule."""
    lines = [
        f"Resolved settings for: {settings['file']}",
        f"Settings path: {settings['config'] or 'none (dclint defaults)'}",
        "",
    ]
    for key, value in settings.items():
        if key in ("file", "config", "rules"):
            continue
        lines.append(f"{key} = {json.dumps(value, ensure_ascii=False)}")
    for rid, rule in settings["rules"].items():
        lines += ["", f"[rules.{rid}]", f"severity = {json.dumps(rule['severity'])}"]
        for name, value in rule["options"].items():
            lines.append(f"{name} = {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines) + "\n"


def show_settings(args: argparse.Namespace) -> int:
    """The settings of the first design under the paths (as ruff takes the first file)."""
    from dclint.cli._shared import emit, make_engine
    from dclint.engine.runner import find_files
    from dclint.errors import LoadError

    if args.format not in ("text", "json"):
        raise ConfigError("--show-settings prints text or json (--format text|json)")
    engine = make_engine(args)
    found = find_files(args.paths, engine)
    if found.problems:
        raise LoadError(found.problems)
    if not found.files:
        raise ConfigError(f"--show-settings: no design found in {', '.join(args.paths)}")
    settings = settings_of(found.files[0], engine)
    if args.format == "json":
        from dclint.escaping import finite_json

        emit(args, finite_json(settings))
    else:
        emit(args, _text(settings))
    return 0
