"""Configuration: `[tool.dclint]` in pyproject.toml or `.dclint.yaml`, found upward from a design.

Keys: `select`, `ignore` (rule ids or prefixes, like ruff), `extend-select` and
`extend-ignore` (added to them, as in ruff), `per-file-ignores` (glob -> ids), `per-file` (glob
-> `ignore` and rule tables: settings for the files the glob matches),
`fail-on`, `rules-dir`, `exclude` (globs skipped when searching directories), `max-ids` (ids a
design may name through ranges and counts, dclint.model.budget), and one table per rule id
holding `severity` and the rule's options, e.g. ``PWR001 = { limit = "132 kW" }``.

The record and the reading of files live in config_load (re-exported here); this module decides
which rules run on a file and checks ids and options against the rules.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from dclint.engine.config_load import CONFIG_NAMES as CONFIG_NAMES
from dclint.engine.config_load import MAX_CONFIG_BYTES as MAX_CONFIG_BYTES
from dclint.engine.config_load import Config, config_for, find_config, load_config, resolved
from dclint.engine.rule import SEVERITIES, Rule
from dclint.errors import ConfigError

__all__ = [
    "Config",
    "config_for",
    "find_config",
    "for_file",
    "load_config",
    "selected",
    "with_per_file",
]


def _matches(rule_id: str, patterns: tuple[str, ...]) -> int:
    """Length of the longest pattern matching `rule_id` (ALL counts as 0), or -1."""
    best = -1
    for p in patterns:
        if p == "ALL":
            best = max(best, 0)
        elif rule_id.startswith(p):
            best = max(best, len(p))
    return best


def _decision(rule_id: str, select: tuple[str, ...], ignore: tuple[str, ...]) -> bool | None:
    """One layer's word on `rule_id`: the most specific pattern matching it wins, an ignore
    over a select of the same length (as ruff); None when no pattern of the layer matches."""
    sel, ign = _matches(rule_id, select), _matches(rule_id, ignore)
    if sel < 0 and ign < 0:
        return None
    return sel > ign


def selected(rule_id: str, config: Config, file: str | None = None) -> bool:
    """Whether `rule_id` runs, read as ruff reads its selection, layer by layer: the config
    file's (`select` with `extend-select`, `ignore` with `extend-ignore`), then the command
    line's (a --select of its own starts afresh; --extend-select and --ignore alone change
    what the file selected), then the file's `per-file-ignores` (and `per-file` ignores),
    which always win. Within a layer the most specific pattern wins."""
    ignore = config.ignore + config.extend_ignore
    on = bool(_decision(rule_id, config.select + config.extend_select, ignore))
    if config.cli_select is not None:
        on = bool(
            _decision(rule_id, config.cli_select + config.cli_extend_select, config.cli_ignore)
        )
    else:
        word = _decision(rule_id, config.cli_extend_select, config.cli_ignore)
        on = on if word is None else word
    if on and file is not None and config.per_file_ignores:  # resolving paths: ~30 us a rule
        for glob in _globs(file, config, config.per_file_ignores):
            if _matches(rule_id, config.per_file_ignores[glob]) >= 0:
                return False
    return on


def _globs(file: str, config: Config, table: dict[str, Any]) -> list[str]:
    """The globs of `table` matching `file` (its path from the config's folder, or its name)."""
    rel, name = _relative(file, config.root), Path(file).name
    return [g for g in table if fnmatch.fnmatch(rel, g) or fnmatch.fnmatch(name, g)]


def for_file(config: Config, file: str) -> tuple[str, ...]:
    """The `per-file` globs whose settings apply to `file`, in the config's order."""
    if not config.per_file:
        return ()
    return tuple(_globs(file, config, config.per_file))


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
    lists += [("extend-select", config.extend_select), ("extend-ignore", config.extend_ignore)]
    lists.append(("per-file-ignores", _flat(config.per_file_ignores)))
    cli = [("--select", config.cli_select or ()), ("--extend-select", config.cli_extend_select)]
    for key, patterns in [*lists, *cli, ("--ignore", config.cli_ignore)]:
        for pattern in patterns:
            if pattern != "ALL" and not any(r.startswith(pattern) for r in rules):
                at = key if key.startswith("--") else where(key)
                raise ConfigError(f"{at}: '{pattern}' matches no rule id")
    tables = [(glob, ids) for glob, ids in config.per_file.items()]  # their own words first
    for glob, table in [*tables, (None, config.rule_settings)]:
        _check_settings(config, rules, table, glob)
    typed: dict[str, dict[str, Any]] = {}
    for rule_id, cls in rules.items():
        settings = config.rule_settings.get(rule_id, {})
        typed[rule_id] = {}
        for name, opt in cls.options.items():
            try:
                typed[rule_id][name] = parse_option(
                    rule_id, name, opt.type, settings.get(name, opt.default)
                )
            except ConfigError as exc:  # name the config file and line of a bad value
                if name not in settings:
                    raise
                raise ConfigError(f"{where(f'{rule_id}.{name}')}: {exc}") from None
    return typed


def _check_settings(
    config: Config,
    rules: dict[str, type[Rule]],
    table: dict[str, dict[str, Any]],
    glob: str | None,
) -> None:
    """Rule ids, severities, option names and option values of a table of rule settings (the
    config's top level, or the `per-file` table of `glob`, named in messages)."""
    from dclint.engine.options import parse_option

    def where(key: str) -> str:
        if glob is None:
            return config.where(key)
        pos = config.positions.get(f"per-file.{glob}") or config.positions.get("per-file")
        at = f"{config.file}:{pos[0]}:{pos[1]}" if pos and config.file else str(config.file)
        return f"{at}: per-file '{glob}'"

    for rule_id, settings in table.items():
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
            elif glob is not None:  # a per-file value is typed here, whether a file matches
                option = rules[rule_id].options[name]
                try:
                    parse_option(rule_id, name, option.kind, value)
                except ConfigError as exc:
                    raise ConfigError(f"{at}: {exc}") from None


def _flat(mapping: dict[str, tuple[str, ...]]) -> list[str]:
    return [i for ids in mapping.values() for i in ids]


def with_per_file(config: Config, globs: tuple[str, ...]) -> Config:
    """`config` with the rule settings of the `per-file` `globs` merged in, option by option,
    in the config's order (a later glob's value wins); the command line's stay on top."""
    merged = {rid: dict(values) for rid, values in config.rule_settings.items()}
    positions = dict(config.positions)
    for glob in globs:
        for rid, values in config.per_file[glob].items():
            merged.setdefault(rid, {}).update(values)
            pos = config.positions.get(f"per-file.{glob}")
            if pos is not None:  # an error in a merged value points at its glob
                positions.update({f"{rid}.{name}": pos for name in values})
    return replace(config, rule_settings=merged, positions=positions)


def default_options() -> dict[str, dict[str, Any]]:
    """Every built-in rule's typed options at their defaults: the one home of each limit for
    code outside the rules (capacity, scaffold, summaries) when no configuration is given."""
    from dclint.engine.registry import discover

    return validate_config(Config(), discover())
