"""Configuration: `[tool.dclint]` in pyproject.toml or `.dclint.yaml`, found upward from a design.

Keys: `select`, `ignore` (rule ids or prefixes, like ruff), `per-file-ignores` (glob -> ids),
`fail-on`, `rules-dir`, `exclude` (globs skipped when searching directories), `max-ids` (ids a
design may name through ranges and counts, dclint.model.budget), and one table per rule id
holding `severity` and the rule's options, e.g. ``PWR001 = { limit = "132 kW" }``.

The record and the reading of files live in config_load (re-exported here); this module decides
which rules run on a file and checks ids and options against the rules.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dclint.engine.config_load import CONFIG_NAMES as CONFIG_NAMES
from dclint.engine.config_load import MAX_CONFIG_BYTES as MAX_CONFIG_BYTES
from dclint.engine.config_load import Config, config_for, find_config, load_config, resolved
from dclint.engine.rule import SEVERITIES, Rule
from dclint.errors import ConfigError

__all__ = ["Config", "config_for", "find_config", "load_config", "selected"]


def _matches(rule_id: str, patterns: tuple[str, ...]) -> int:
    """Length of the longest pattern matching `rule_id` (ALL counts as 0), or -1."""
    best = -1
    for p in patterns:
        if p == "ALL":
            best = max(best, 0)
        elif rule_id.startswith(p):
            best = max(best, len(p))
    return best


def selected(rule_id: str, config: Config, file: str | None = None) -> bool:
    """Whether `rule_id` runs: the most specific of select/ignore wins, as in ruff."""
    ignore = config.ignore
    if file is not None and config.per_file_ignores:  # resolving paths costs ~30 us a rule
        rel = _relative(file, config.root)
        for glob, ids in config.per_file_ignores.items():
            if fnmatch.fnmatch(rel, glob) or fnmatch.fnmatch(Path(file).name, glob):
                ignore = ignore + ids
    sel, ign = _matches(rule_id, config.select), _matches(rule_id, ignore)
    return sel >= 0 and sel > ign


def _relative(file: str, root: Path) -> str:
    try:
        return resolved(Path(file)).relative_to(resolved(root)).as_posix()
    except ValueError:
        return Path(file).as_posix()


def validate_config(config: Config, rules: dict[str, type[Rule]]) -> dict[str, dict[str, Any]]:
    """Check ids and options against the rules; return typed options per rule id."""
    from dclint.engine.options import parse_option

    where = config.where
    lists: list[tuple[str, Sequence[str]]] = [("select", config.select), ("ignore", config.ignore)]
    lists.append(("per-file-ignores", _flat(config.per_file_ignores)))
    for key, patterns in lists:
        for pattern in patterns:
            if pattern != "ALL" and not any(r.startswith(pattern) for r in rules):
                raise ConfigError(f"{where(key)}: '{pattern}' matches no rule id")
    for rule_id, settings in config.rule_settings.items():
        if rule_id not in rules:
            raise ConfigError(f"{where(rule_id)}: unknown rule id '{rule_id}'")
        for name, value in settings.items():
            at = where(f"{rule_id}.{name}")
            if name == "severity":
                if value not in SEVERITIES:
                    raise ConfigError(
                        f"{at}: {rule_id}.severity must be one of {', '.join(SEVERITIES)}"
                    )
            elif name not in rules[rule_id].options:
                known = ", ".join(rules[rule_id].options) or "none"
                raise ConfigError(f"{at}: rule {rule_id} has no option '{name}' (options: {known})")
    typed: dict[str, dict[str, Any]] = {}
    for rule_id, cls in rules.items():
        settings = config.rule_settings.get(rule_id, {})
        typed[rule_id] = {}
        for name, opt in cls.options.items():
            try:
                typed[rule_id][name] = parse_option(
                    rule_id, name, opt.kind, settings.get(name, opt.default)
                )
            except ConfigError as exc:  # name the config file and line of a bad value
                if name not in settings:
                    raise
                raise ConfigError(f"{where(f'{rule_id}.{name}')}: {exc}") from None
    return typed


def _flat(mapping: dict[str, tuple[str, ...]]) -> list[str]:
    return [i for ids in mapping.values() for i in ids]


def default_options() -> dict[str, dict[str, Any]]:
    """Every built-in rule's typed options at their defaults: the one home of each limit for
    code outside the rules (capacity, scaffold, summaries) when no configuration is given."""
    from dclint.engine.registry import discover

    return validate_config(Config(), discover())
