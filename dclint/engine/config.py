"""Configuration: `[tool.dclint]` in pyproject.toml or `.dclint.yaml`, found upward from a design.

Keys: `select`, `ignore` (rule ids or prefixes, like ruff), `per-file-ignores` (glob -> ids),
`fail-on`, `rules-dir`, `exclude` (globs skipped when searching directories), and one table per
rule id holding `severity` and the rule's options, e.g. ``PWR001 = { limit = "132 kW" }``.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from dclint.engine.rule import SEVERITIES, Rule, Severity
from dclint.errors import ConfigError

__all__ = ["Config", "config_for", "find_config", "load_config", "selected"]

CONFIG_NAMES = (".dclint.yaml", ".dclint.yml", "pyproject.toml")
_KEYS = {"select", "ignore", "per-file-ignores", "fail-on", "rules-dir", "exclude"}


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    fail_on: Severity = "error"
    rules_dirs: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    rule_settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    file: str | None = None
    root: Path = field(default_factory=Path.cwd)

    def with_cli(self, **changes: Any) -> Config:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def find_config(start: Path) -> Path | None:
    """The nearest config file in `start` or a parent directory."""
    for directory in (start, *start.parents):
        for name in CONFIG_NAMES:
            candidate = directory / name
            if not candidate.is_file():
                continue
            if name != "pyproject.toml" or _pyproject_has_section(candidate):
                return candidate
    return None


def _pyproject_has_section(path: Path) -> bool:
    try:
        return "[tool.dclint" in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def load_config(path: Path) -> Config:
    """Read and check a config file; ConfigError names the file and the bad key."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config: {exc}") from None
    if path.name == "pyproject.toml":
        import tomllib

        try:
            data = tomllib.loads(text).get("tool", {}).get("dclint", {})
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    else:
        from dclint.loader.yamlsafe import YamlError, read_yaml

        try:
            data, _ = read_yaml(str(path), text)
        except YamlError as exc:
            raise ConfigError(str(exc.problems[0])) from None
        data = data or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: config must be a mapping")
    return _from_mapping(data, str(path), path.parent)


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: expected a list of strings")
    return tuple(value)


def _from_mapping(data: dict[str, Any], file: str, root: Path) -> Config:
    settings: dict[str, dict[str, Any]] = {}
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        where = f"{file}: {key}"
        if key in ("select", "ignore", "exclude"):
            kwargs[key] = _strings(value, where)
        elif key == "rules-dir":
            dirs = _strings(value, where)
            kwargs["rules_dirs"] = tuple(str((root / d).resolve()) for d in dirs)
        elif key == "fail-on":
            if value not in SEVERITIES:
                raise ConfigError(f"{where}: expected one of {', '.join(SEVERITIES)}")
            kwargs["fail_on"] = value
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: expected a mapping of glob to rule ids")
            kwargs["per_file_ignores"] = {g: _strings(v, f"{where}.{g}") for g, v in value.items()}
        elif key[:1].isupper():
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: expected a table of options, e.g. {{severity = ...}}")
            settings[key] = dict(value)
        else:
            raise ConfigError(f"{where}: unknown config key (known: {', '.join(sorted(_KEYS))})")
    return Config(rule_settings=settings, file=file, root=root, **kwargs)


def config_for(design: Path, cache: dict[Path, Config]) -> Config:
    """The config that governs a design file (cached per directory)."""
    directory = design.resolve().parent
    if directory not in cache:
        found = find_config(directory)
        cache[directory] = load_config(found) if found else Config()
    return cache[directory]


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
    if file is not None:
        rel = _relative(file, config.root)
        for glob, ids in config.per_file_ignores.items():
            if fnmatch.fnmatch(rel, glob) or fnmatch.fnmatch(Path(file).name, glob):
                ignore = ignore + ids
    sel, ign = _matches(rule_id, config.select), _matches(rule_id, ignore)
    return sel >= 0 and sel > ign


def _relative(file: str, root: Path) -> str:
    try:
        return Path(file).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(file).as_posix()


def validate_config(config: Config, rules: dict[str, type[Rule]]) -> dict[str, dict[str, Any]]:
    """Check ids and options against the rules; return typed options per rule id."""
    from dclint.engine.options import parse_option

    where = config.file or "command line"
    for pattern in (*config.select, *config.ignore, *_flat(config.per_file_ignores)):
        if pattern != "ALL" and not any(r.startswith(pattern) for r in rules):
            raise ConfigError(f"{where}: '{pattern}' matches no rule id")
    for rule_id, settings in config.rule_settings.items():
        if rule_id not in rules:
            raise ConfigError(f"{where}: unknown rule id '{rule_id}'")
        for name, value in settings.items():
            if name == "severity":
                if value not in SEVERITIES:
                    raise ConfigError(
                        f"{where}: {rule_id}.severity must be one of {', '.join(SEVERITIES)}"
                    )
            elif name not in rules[rule_id].options:
                known = ", ".join(rules[rule_id].options) or "none"
                raise ConfigError(
                    f"{where}: rule {rule_id} has no option '{name}' (options: {known})"
                )
    typed: dict[str, dict[str, Any]] = {}
    for rule_id, cls in rules.items():
        settings = config.rule_settings.get(rule_id, {})
        typed[rule_id] = {
            name: parse_option(rule_id, name, opt.kind, settings.get(name, opt.default))
            for name, opt in cls.options.items()
        }
    return typed


def _flat(mapping: dict[str, tuple[str, ...]]) -> list[str]:
    return [i for ids in mapping.values() for i in ids]
