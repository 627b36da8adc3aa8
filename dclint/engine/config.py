"""Configuration: `[tool.dclint]` in pyproject.toml or `.dclint.yaml`, found upward from a design.

Keys: `select`, `ignore` (rule ids or prefixes, like ruff), `per-file-ignores` (glob -> ids),
`fail-on`, `rules-dir`, `exclude` (globs skipped when searching directories), `max-ids` (ids a
design may name through ranges and counts, dclint.model.budget), and one table per rule id
holding `severity` and the rule's options, e.g. ``PWR001 = { limit = "132 kW" }``.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from dclint.engine.rule import SEVERITIES, Rule, Severity
from dclint.errors import ConfigError

__all__ = ["Config", "config_for", "find_config", "load_config", "selected"]

CONFIG_NAMES = (".dclint.yaml", ".dclint.yml", "pyproject.toml")
_KEYS = {"select", "ignore", "per-file-ignores", "fail-on", "rules-dir", "exclude", "max-ids"}
MAX_CONFIG_BYTES = 10 * 1024 * 1024


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    fail_on: Severity = "error"
    rules_dirs: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_ids: int | None = None  # None: dclint.model.budget.MAX_IDS
    rule_settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    file: str | None = None
    root: Path = field(default_factory=Path.cwd)
    # "select", "PWR001", "PWR001.limit" -> (line, column) in `file`, for error messages
    positions: dict[str, tuple[int, int]] = field(default_factory=dict, compare=False)

    def where(self, key: str) -> str:
        """`file:line:col` of a config key (or of its table), for a ConfigError."""
        if self.file is None:
            return "command line"
        pos = self.positions.get(key) or self.positions.get(key.split(".")[0])
        return f"{self.file}:{pos[0]}:{pos[1]}" if pos else self.file

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
        return "[tool.dclint" in _read(path)
    except ConfigError:
        return False


def _read(path: Path) -> str:
    """A config file's text: a regular file within MAX_CONFIG_BYTES, UTF-8."""
    from dclint.loader.readfile import FileRejected, read_regular

    try:
        return read_regular(path, MAX_CONFIG_BYTES, "config").decode("utf-8")
    except FileRejected as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: cannot read config: not valid UTF-8") from None


def load_config(path: Path) -> Config:
    """Read and check a config file; ConfigError names the file and the bad key."""
    text = _read(path)
    if path.name == "pyproject.toml":
        import tomllib

        try:
            data = tomllib.loads(text).get("tool", {}).get("dclint", {})
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: invalid TOML: {exc}") from None
        from dclint.engine.toml_positions import toml_positions

        positions = toml_positions(text)
    else:
        from dclint.loader.yamlsafe import EmptyDocument, YamlError, read_yaml

        try:
            data, source = read_yaml(str(path), text)
            positions = {".".join(map(str, k)): v for k, v in source.keys.items() if len(k) <= 2}
        except EmptyDocument:  # an empty or comments-only config is a valid, empty config
            data, positions = {}, {}
        except YamlError as exc:
            raise ConfigError(str(exc.problems[0])) from None
        data = data or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: config must be a mapping")
    config = _from_mapping(data, str(path), path.parent)
    return replace(config, positions=positions)


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
        elif key == "max-ids":
            if type(value) is not int or not 1 <= value <= 10**9:
                raise ConfigError(f"{where}: expected a whole number from 1 to 1,000,000,000")
            kwargs["max_ids"] = value
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


def config_for(
    design: Path, cache: dict[Path, Config], warn: Callable[[str], None] | None = None
) -> Config:
    """The config that governs a design file (cached per directory). A config found by this
    search loads no rule code: its `rules-dir` is dropped, and `warn` told so (a repository's
    files could otherwise run code in CI); one given with --config keeps it."""
    directory = _resolved(design).parent
    if directory not in cache:
        found = find_config(directory)
        config = load_config(found) if found else Config()
        if config.rules_dirs:
            if warn is not None:
                warn(
                    f"{config.where('rules-dir')}: rules-dir ignored in a config found by "
                    "search (it would run code); give the file with --config to load its rules"
                )
            config = replace(config, rules_dirs=())
        cache[directory] = config
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
    if file is not None and config.per_file_ignores:  # resolving paths costs ~30 us a rule
        rel = _relative(file, config.root)
        for glob, ids in config.per_file_ignores.items():
            if fnmatch.fnmatch(rel, glob) or fnmatch.fnmatch(Path(file).name, glob):
                ignore = ignore + ids
    sel, ign = _matches(rule_id, config.select), _matches(rule_id, ignore)
    return sel >= 0 and sel > ign


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: the path as given
        return path.absolute()


def _relative(file: str, root: Path) -> str:
    try:
        return _resolved(Path(file)).relative_to(_resolved(root)).as_posix()
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
