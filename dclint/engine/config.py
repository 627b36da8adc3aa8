"""Configuration: `[tool.dclint]` in pyproject.toml or `.dclint.yaml`, found upward from a design.

Keys: `select`, `ignore` (rule ids or prefixes, like ruff), `extend-select` and
`extend-ignore` (added to them, as in ruff), `per-file-ignores` (glob -> ids), `per-file` (glob
-> `ignore` and rule tables: settings for the files the glob matches),
`fail-on`, `rules-dir`, `exclude` (globs skipped when searching directories), `max-ids` (ids a
design may name through ranges and counts, dclint.model.budget), and one table per rule id
holding `severity` and the rule's options, e.g. ``PWR001 = { limit = "132 kW" }``.

This module holds the Config record, how config files are found upward and read (TOML or YAML,
with each key's position), which rules run on a file, and the checks of ids and options against
the rules.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

from dclint.engine.rule import SEVERITIES, Rule, Severity
from dclint.errors import ConfigError
from dclint.loader import configfile
from dclint.loader.configfile import CONFIG_NAMES, MAX_CONFIG_BYTES

__all__ = [
    "CONFIG_NAMES",
    "MAX_CONFIG_BYTES",
    "Config",
    "config_for",
    "find_config",
    "for_file",
    "load_config",
    "resolved",
    "selected",
    "with_per_file",
]

_KEYS = {
    "select",
    "ignore",
    "extend-select",
    "extend-ignore",
    "per-file-ignores",
    "per-file",
    "fail-on",
    "rules-dir",
    "exclude",
    "max-ids",
    "review",
    "calibration",
    "policies",
}
# the review document's front matter (`dclint review`), each a line of text
REVIEW_KEYS = ("title", "client", "project", "author", "reviewer", "revision", "date")


@dataclass(frozen=True)
class Config:
    """dclint's settings for a tree: rule selection, per-file settings, rule options and
    limits, as read from `.dclint.yaml` or `pyproject.toml` (dclint's defaults without one)."""

    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()
    # added to the file's select and ignore (or to the defaults), as in ruff
    extend_select: tuple[str, ...] = ()
    extend_ignore: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # glob -> rule id -> {severity, options}: settings for the files a glob matches (`per-file`;
    # its `ignore` lists are merged into per_file_ignores)
    per_file: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    # the command line's selection, a layer over the file's as in ruff: a --select of its
    # own starts afresh (the file's select, extend-select and ignore dropped); --extend-select
    # and --ignore alone change the file's selection
    cli_select: tuple[str, ...] | None = None
    cli_extend_select: tuple[str, ...] = ()
    cli_ignore: tuple[str, ...] = ()
    fail_on: Severity = "error"
    rules_dirs: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_ids: int | None = None  # None: dclint.model.budget.MAX_IDS
    review: dict[str, str] = field(default_factory=dict)  # front matter of `dclint review`
    # a calibration profile (`dclint calibrate`), resolved from the config's directory
    calibration: str | None = None
    # site policy files and globs (dclint.policy), from the config's directory
    policies: tuple[str, ...] = ()
    rule_settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    # rule id -> {option: where it was set}: costly options a config found by search turned
    # on, which the engine did not (the rule may say so: PAR005's search)
    withheld: dict[str, dict[str, str]] = field(default_factory=dict, compare=False)
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
        """The config with the command line's values; `rule_settings` given there are merged
        into the file's, option by option (a command that needs an option on sets just it).
        `select`, `extend_select` and `ignore` are the command line's layer of the selection
        (`cli_select`, ...): dclint.engine.config.selected reads the layers as ruff does."""
        given = {k: v for k, v in changes.items() if v is not None}
        for key in ("select", "extend_select", "ignore"):
            if key in given:
                given[f"cli_{key}"] = tuple(given.pop(key))
        extra = given.pop("rule_settings", None)
        if extra:
            merged = dict(self.rule_settings)
            for rid, values in extra.items():
                merged[rid] = {**merged.get(rid, {}), **values}
            given["rule_settings"] = merged
        return replace(self, **given)


def find_config(start: Path) -> Path | None:
    """The nearest config file in `start` or a parent (dclint.loader.configfile)."""
    found = configfile.find_config(str(start))
    return None if found is None else Path(found)


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


def _front_matter(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a table of {', '.join(REVIEW_KEYS)}")
    out = {}
    for k, v in value.items():
        if k not in REVIEW_KEYS:
            raise ConfigError(f"{where}.{k}: unknown key (known: {', '.join(REVIEW_KEYS)})")
        if isinstance(v, date):  # YAML reads 2026-12-03 as a date
            v = v.isoformat()
        if not isinstance(v, (str, int, float)) or isinstance(v, bool) or len(str(v)) > 200:
            raise ConfigError(f"{where}.{k}: expected one line of text (200 characters at most)")
        text = str(v)
        if any(ord(c) < 32 for c in text):
            raise ConfigError(f"{where}.{k}: expected one line of text, without control characters")
        out[str(k)] = text
    return out


def _from_mapping(data: dict[str, Any], file: str, root: Path) -> Config:
    settings: dict[str, dict[str, Any]] = {}
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        where = f"{file}: {key}"
        if key in ("select", "ignore", "exclude", "extend-select", "extend-ignore"):
            kwargs[key.replace("-", "_")] = _strings(value, where)
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
        elif key == "review":
            kwargs["review"] = _front_matter(value, where)
        elif key == "calibration":
            if not isinstance(value, str) or not value.strip() or len(value) > 4096:
                raise ConfigError(f"{where}: expected the path of a calibration profile")
            kwargs["calibration"] = str(root / value)
        elif key == "policies":
            kwargs["policies"] = _strings(value, where)
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: expected a mapping of glob to rule ids")
            ignores = {g: _strings(v, f"{where}.{g}") for g, v in value.items()}
            kwargs["per_file_ignores"] = _merged(kwargs.get("per_file_ignores", {}), ignores)
        elif key == "per-file":
            per_file, ignores = _per_file(value, where)
            kwargs["per_file"] = per_file
            kwargs["per_file_ignores"] = _merged(ignores, kwargs.get("per_file_ignores", {}))
        elif key[:1].isupper():
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: expected a table of options, e.g. {{severity = ...}}")
            settings[key] = dict(value)
        else:
            from dclint.model.hints import did_you_mean

            hint = did_you_mean(str(key), _KEYS)  # as for design keys (#30 item 5)
            raise ConfigError(
                f"{where}: unknown config key{hint} (known: {', '.join(sorted(_KEYS))})"
            )
    return Config(rule_settings=settings, file=file, root=root, **kwargs)


def _merged(
    a: dict[str, tuple[str, ...]], b: dict[str, tuple[str, ...]]
) -> dict[str, tuple[str, ...]]:
    out = dict(a)
    for glob, ids in b.items():
        out[glob] = out.get(glob, ()) + ids
    return out


PER_FILE_KEYS = ("ignore", "severity and options of a rule id, e.g. PWR001 = {limit = ...}")


def _per_file(
    value: Any, where: str
) -> tuple[dict[str, dict[str, dict[str, Any]]], dict[str, tuple[str, ...]]]:
    """`per-file`: glob -> {ignore = [ids], RULEID = {severity, options}}, as the rule tables
    and `ignore` of the config's top level, for the files the glob matches (#30 item 5)."""
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a mapping of glob to a table of settings")
    settings: dict[str, dict[str, dict[str, Any]]] = {}
    ignores: dict[str, tuple[str, ...]] = {}
    for glob, table in value.items():
        at = f"{where}.{glob}"
        if not isinstance(glob, str) or not glob.strip():
            raise ConfigError(f"{where}: a glob must be a non-empty string")
        if not isinstance(table, dict):
            raise ConfigError(f"{at}: expected a table of {' and '.join(PER_FILE_KEYS)}")
        for key, item in table.items():
            if key in ("ignore", "extend-ignore"):
                ignores[glob] = ignores.get(glob, ()) + _strings(item, f"{at}.{key}")
            elif isinstance(key, str) and key[:1].isupper():
                if not isinstance(item, dict):
                    raise ConfigError(
                        f"{at}.{key}: expected a table of options, e.g. {{severity = ...}}"
                    )
                settings.setdefault(glob, {})[key] = dict(item)
            else:
                from dclint.model.hints import did_you_mean

                hint = did_you_mean(str(key), ("ignore", "extend-ignore"))
                raise ConfigError(
                    f"{at}: {key}: not a per-file setting{hint} (per-file takes "
                    f"{' and '.join(PER_FILE_KEYS)})"
                )
    return settings, ignores


def config_for(
    design: Path,
    cache: dict[Path, Config],
    warn: Callable[[str], None] | None = None,
    dirs: dict[str, Path] | None = None,
) -> Config:
    """The config that governs a design file (cached per directory). A config found by this
    search loads no rule code: its `rules-dir` is dropped, and `warn` told so (a repository's
    files could otherwise run code in CI); one given with --config keeps it. Nor may it raise
    `max-ids` above dclint's budget (a repository's file could otherwise make a check run for
    minutes): it may only lower it. `dirs` keeps each directory's resolved path for the
    next design named in it."""
    directory = resolved(design).parent if dirs is None else _directory(design, dirs)
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
        config = _budgets_lowered_only(config, warn)
        if found is not None:
            _files_inside_repository(config, found)
        cache[directory] = config
    return cache[directory]


def _files_inside_repository(config: Config, found: Path) -> None:
    """A config found by search names files (its `calibration:` profile) only inside its
    repository root (dclint.loader.compose.repository_root: the nearest directory holding
    `.git`, else the config's own), symlinks resolved; anything else is a ConfigError before
    the file is opened (a repository's config could otherwise make CI read /etc/shadow). A
    config given with --config may name any file."""
    if not config.calibration:
        return
    from dclint.loader.compose import repository_root

    folder = resolved(found).parent
    got = repository_root(folder)
    root = got[0] if got is not None else folder
    target = Path(os.path.realpath(config.calibration))
    if target == root or root in target.parents:
        return
    raise ConfigError(
        f"{config.where('calibration')}: calibration profile {config.calibration} is outside "
        f"the repository root {root}: a config found by search names files only inside it "
        "(give the config with --config to name one elsewhere)"
    )


def _budgets_lowered_only(config: Config, warn: Callable[[str], None] | None) -> Config:
    """A found config's `max-ids` at most dclint's own budget (dclint.model.budget.MAX_IDS)."""
    if config.max_ids is None:
        return config
    from dclint.model.budget import MAX_IDS

    if config.max_ids <= MAX_IDS:
        return config
    if warn is not None:
        warn(
            f"{config.where('max-ids')}: max-ids {config.max_ids:,} ignored in a config found "
            f"by search (it may lower dclint's budget of {MAX_IDS:,} ids, not raise it); give "
            "the file with --config to raise it"
        )
    return replace(config, max_ids=None)


def _directory(design: Path, dirs: dict[str, Path]) -> Path:
    """resolved(design).parent, each directory resolved once: a file that is not a symbolic
    link lies in the resolved directory its path names."""
    head, name = os.path.split(design)
    if name in ("", ".", "..") or os.path.islink(design):
        return resolved(design).parent
    found = dirs.get(head)
    if found is None:
        found = dirs[head] = resolved(Path(head or os.curdir))
    return found


def resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: the path as given
        return path.absolute()


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
                moved = rules[rule_id].moved.get(name)
                hint = f"; it moved to {moved}.{name}" if moved else ""
                raise ConfigError(
                    f"{at}: rule {rule_id} has no option '{name}' (options: {known}){hint}"
                )
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
