"""Run the selected rules over designs and return findings; never prints, never exits."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dclint.engine.config import (
    Config,
    config_for,
    for_file,
    selected,
    validate_config,
    with_per_file,
)
from dclint.engine.files import Found, find_designs
from dclint.engine.findings import DesignResult, Finding, RunResult
from dclint.engine.located import fmt_value as _fmt  # noqa: F401  (tests read it here)
from dclint.engine.located import locate, rule_failure
from dclint.engine.registry import discover
from dclint.engine.rule import Context, Rule, Violation
from dclint.engine.spelling import unit_spellings
from dclint.engine.suppress import (  # noqa: F401  (the DCL ids, re-exported)
    EXPIRED,
    NO_REASON,
    UNKNOWN,
    UNUSED,
    apply_suppressions,
)
from dclint.errors import ConfigError, LoadError, Problem
from dclint.model.source import Source

if TYPE_CHECKING:  # a check reads no shared setting: the module is imported when one is
    from dclint.engine.shared import Shared

__all__ = ["Engine", "find_files", "not_included", "run"]


@dataclass
class Engine:
    """Rules discovered once, configs resolved per directory, then `check()` per file."""

    config: Config | None = None  # an explicit --config (or CLI-built) config for every file
    rules_dirs: tuple[str, ...] = ()
    cli: dict[str, Any] = field(default_factory=dict)  # select/ignore/fail_on from the CLI
    today: date = field(default_factory=date.today)
    overrides: tuple[Any, ...] = ()  # --set values (dclint.loader.overrides), for every file
    warn: Callable[[str], None] | None = None  # told what a found config may not do
    defer_rules: bool = False  # discover the rules on first use, not now (a cached replay)
    costly: bool = False  # turn every costly option on (Option.costly; --layout-search)
    # `exclude` holds for files named on the command line too (--force-exclude, the hook's)
    force_exclude: bool = False
    _rules: dict[str, type[Rule]] | None = field(default=None, init=False, repr=False)
    _configs: dict[Path, Config] = field(default_factory=dict, init=False)
    _dirs: dict[str, Path] = field(default_factory=dict, init=False)  # directory -> resolved
    # Resolved configs (CLI values merged in), one per base config, and their typed options.
    # Keyed by id() of a config this dict keeps alive, so an id is never reused while cached
    # (a key of a freed object could come back as another directory's config).
    _resolved: dict[int, tuple[Config, Config]] = field(default_factory=dict, init=False)
    _typed: dict[int, tuple[Config, dict[str, dict[str, Any]]]] = field(
        default_factory=dict, init=False
    )
    _trusted: dict[int, tuple[Config, Config]] = field(default_factory=dict, init=False)
    # a config with the `per-file` settings of some globs merged in, by (id(base), globs)
    _per_file: dict[tuple[int, tuple[str, ...]], tuple[Config, Config]] = field(
        default_factory=dict, init=False
    )
    # the rules of a config naming site policies (dclint.policy): the discovered rules and
    # its policies, by id(config) as above
    _with_policies: dict[int, tuple[Config, dict[str, type[Rule]]]] = field(
        default_factory=dict, init=False
    )

    def __post_init__(self) -> None:
        if not self.defer_rules:
            self.rules  # noqa: B018 - a bad rule pack is an error before anything is checked

    @property
    def rules(self) -> dict[str, type[Rule]]:
        """Every rule by id, discovered on first use (a check replayed from the results cache
        imports no rule)."""
        if self._rules is None:
            dirs = self.rules_dirs + (self.config.rules_dirs if self.config else ())
            self._rules = discover(dirs)
        return self._rules

    def rules_for(self, config: Config) -> dict[str, type[Rule]]:
        """The rules that run under `config`: every rule discovered, and the site policies it
        names (dclint.policy, imported only then). Each policy is added to `rules` too, for
        the presenters; a policy of another config runs only under its own."""
        if not config.policies:
            return self._without_policies()
        entry = self._with_policies.get(id(config))
        if entry is None or entry[0] is not config:
            from dclint.engine.registry import policy_rules

            base = self._without_policies()
            found = policy_rules(config, base, confined=self.config is None)
            for rid, cls in found.items():
                other, policy = self.rules.get(rid), getattr(cls, "policy", None)
                if other is not None and getattr(other, "policy", None) != policy:
                    where = getattr(policy, "where_text", config.where("policies"))
                    raise ConfigError(f"{where}: policy id {rid} is taken by {other.origin}")
                self.rules[rid] = cls
            entry = (config, {**base, **found})
            self._with_policies[id(config)] = entry
        return entry[1]

    def policy_files(self) -> set[str]:
        """The real paths of the site policy files the run has read (dclint.policy)."""
        return {
            os.path.realpath(policy.file)
            for cls in self.rules.values()
            if (policy := getattr(cls, "policy", None)) is not None
        }

    def _without_policies(self) -> dict[str, type[Rule]]:
        """`rules` less the site policies added to it (a config that names none runs none)."""
        rules = self.rules
        if not any(getattr(cls, "policy", None) is not None for cls in rules.values()):
            return rules
        return {k: v for k, v in rules.items() if getattr(v, "policy", None) is None}

    def config_for(self, file: str) -> Config:
        """The config governing `file` (its directory's, or --config), the settings of the
        `per-file` globs matching it and then the CLI values merged in: the same object for
        every file it governs alike."""
        base = self.config or config_for(Path(file), self._configs, self.warn, self._dirs)
        globs = for_file(base, file)
        if globs:
            key = (id(base), globs)
            derived = self._per_file.get(key)
            if derived is None or derived[0] is not base:
                derived = (base, with_per_file(base, globs))
                self._per_file[key] = derived
            base = derived[1]
        entry = self._resolved.get(id(base))
        if entry is None or entry[0] is not base:
            entry = (base, base.with_cli(**self.cli))
            self._resolved[id(base)] = entry
        return entry[1]

    def trusted(self, config: Config) -> Config:
        """`config` as checked: its costly options (Option.costly: PAR005's layout search) on
        with `costly` (--layout-search), and off where only a config found by search turned
        them on (recorded in `withheld` for the rule to report). Done here, not in config_for,
        so that a check replayed from the results cache discovers no rule."""
        entry = self._trusted.get(id(config))
        if entry is not None and entry[0] is config:
            return entry[1]
        given = self.cli.get("rule_settings") or {}
        settings = {rid: dict(values) for rid, values in config.rule_settings.items()}
        withheld: dict[str, dict[str, str]] = {}
        for rid, cls in self.rules.items():
            for name, option in cls.options.items():
                if not option.costly:
                    continue
                if self.costly and option.kind == "bool":
                    settings.setdefault(rid, {})[name] = True
                elif self.config is None and not given.get(rid, {}).get(name):
                    value = settings.get(rid, {}).get(name)
                    if value is not None and _turned_on(rid, name, option, value):
                        del settings[rid][name]
                        withheld.setdefault(rid, {})[name] = config.where(f"{rid}.{name}")
        out = config
        if withheld or settings != config.rule_settings:
            out = replace(config, rule_settings=settings, withheld=withheld)
        self._trusted[id(config)] = (config, out)
        return out

    def options(self, config: Config) -> dict[str, dict[str, Any]]:
        """Every rule's typed options under `config` (validated once per config object)."""
        entry = self._typed.get(id(config))
        if entry is None or entry[0] is not config:
            entry = (config, validate_config(self.trusted(config), self.rules_for(config)))
            self._typed[id(config)] = entry
        return entry[1]

    def shared(self, config: Config) -> Shared:
        """The settings code outside the rules reads (a rack's power limit, the memory reserve,
        ...) under `config`, by concept (dclint.engine.shared)."""
        from dclint.engine.shared import shared_settings

        return shared_settings(self.options(config), self.rules)

    def found_configs(self) -> list[Config]:
        """The configs found by searching from the designs checked so far (not --config)."""
        return list(self._configs.values())

    def check_file(self, file: str) -> DesignResult:
        return self.check_text(file, None)

    def check_text(self, file: str, text: str | None, read_part: Any = None) -> DesignResult:
        """Check `file`, or `text` as if it were that file's content (an editor's unsaved
        buffer); `read_part` reads included files (default: from disk)."""
        from dclint.loader import load
        from dclint.loader.load import load_text, read_text

        result = DesignResult(file)
        config = self.config_for(file)
        typed = self.options(config)
        try:
            if text is None and read_part is None:
                design = load(file, overrides=self.overrides, max_ids=config.max_ids)
            else:
                design = load_text(
                    read_text(file, file) if text is None else text,
                    file,
                    overrides=self.overrides,
                    max_ids=config.max_ids,
                    read_part=read_part,
                )
        except LoadError as exc:
            result.errors = exc.problems
            return result
        calibrate(design, config)
        result.name, result.design = design.name, design
        source = design.source
        assert source is not None
        result.includes = tuple(source.texts)
        rules = self.rules_for(config)
        active = [cls for rid, cls in rules.items() if selected(rid, config, file)]
        for cls in active:
            for name, problem in cls.config_problems(design, typed[cls.id]):
                key = f"{cls.id}.{name}"
                raise ConfigError(f"{config.where(key)}: option {key}: {problem} (in {file})")
        located: list[Finding] = []
        found: list[tuple[type[Rule], Violation, Any]] = []
        for cls in active:
            failure = self._run_rule(cls, design, source, config, typed, found)
            if failure is not None:
                located.append(failure)
        source.prefetch(v.path for _, v, _ in found)  # every position in one pass over the text
        located.extend(locate(cls, v, source, severity) for cls, v, severity in found)
        if design.origins:  # an imported design: each finding names its element's source
            located = _with_origins(located, design.origins)
        located.extend(unit_spellings(source, config, file, rules))
        result.findings, result.waivers = apply_suppressions(
            located, source, config, file, rules, self.today
        )
        result.suppressed = len(result.waivers)
        return result

    def _run_rule(
        self,
        cls: type[Rule],
        design: Any,
        source: Source,
        config: Config,
        typed: dict[str, dict[str, Any]],
        found: list[tuple[type[Rule], Violation, Any]],
    ) -> Finding | None:
        """Add the rule's violations to `found`; a rule that raises becomes one error finding."""
        severity = config.rule_settings.get(cls.id, {}).get("severity", cls.severity)
        try:
            withheld = self.trusted(config).withheld.get(cls.id, {})
            context = Context(typed[cls.id], self.today, typed, withheld)
            violations = list(cls().check(design, context))
        except Exception as exc:  # a broken rule becomes a finding, not a crash
            return rule_failure(cls, design.name, source, exc)
        found.extend((cls, v, v.severity or severity) for v in violations)
        return None


def _turned_on(rid: str, name: str, option: Any, value: Any) -> bool:
    """Whether a config's value of a costly option turns its work on (a bad value is left for
    validate_config to report)."""
    from dclint.engine.options import parse_option

    try:
        return bool(parse_option(rid, name, option.type, value))
    except ConfigError:
        return False


def _with_origins(found: list[Finding], origins: dict[str, str]) -> list[Finding]:
    from dclint.model.origins import origin_table

    table = origin_table(origins)
    return [replace(f, origin=table[f.subject]) if f.subject in table else f for f in found]


def _excluded(file: str, config: Config) -> bool:
    """Whether a file found in a searched directory matches its config's `exclude`: a glob
    on its path from the config's directory, or on its name (files named on the command line
    are checked anyway unless exclusion is forced: find_files)."""
    if not config.exclude or config.file is None:
        return False
    try:
        rel = Path(file).resolve().relative_to(config.root.resolve()).as_posix()
    except (OSError, ValueError):
        rel = Path(file).as_posix()
    name = Path(file).name
    return any(fnmatch.fnmatch(rel, g) or fnmatch.fnmatch(name, g) for g in config.exclude)


def find_files(paths: list[str], engine: Engine) -> Found:
    """The designs to check under `paths` and the YAML skipped, less what the configs exclude
    (--config's `exclude`, else each found file's own config's). A file named on the command
    line is checked even when excluded, unless the engine forces exclusion (--force-exclude,
    as ruff's): then it is `excluded` too."""
    found = find_designs(paths, engine.config.exclude if engine.config else ())
    given = {os.path.normpath(p) for p in paths}

    def excluded(f: str, named_too: bool) -> bool:
        if os.path.normpath(f) in given and not named_too:
            return False
        return _excluded(f, engine.config if engine.config else engine.config_for(f))

    if engine.config is None or engine.force_exclude:
        force = engine.force_exclude
        out = [f for f in found.files + found.skipped if excluded(f, force)]
        found.excluded.extend(out)
        gone = set(out)
        found.files = [f for f in found.files if f not in gone]
        found.skipped = [f for f in found.skipped if f not in gone]
    return found


def run(paths: list[str], engine: Engine | None = None) -> RunResult:
    """Check every design under `paths` (see dclint.engine.files for which files are designs).
    Raises ConfigError for bad rules or config, or when no design is found."""
    engine = engine or Engine()
    found = find_files(paths, engine)
    files = found.files
    result = RunResult()
    for problem in found.problems:
        result.designs.append(DesignResult(problem.file, errors=[problem]))
    for file in files:
        try:
            design_result = engine.check_file(file)
        except ConfigError:
            raise
        except RecursionError:
            design_result = DesignResult(
                file, errors=[Problem(file, 1, 1, "design too deeply nested to check")]
            )
        result.designs.append(design_result)
        result.rule_failures += sum("rule-failure" in f.tags for f in design_result.findings)
    if not files and not found.problems and not found.excluded:
        raise ConfigError(f"no designs found in {', '.join(paths)}{_skipped_note(found.skipped)}")
    result.skipped = not_included(found.skipped, result.designs)
    if result.skipped and engine.policy_files():  # a config's site policies are no stray YAML
        named = engine.policy_files()
        result.skipped = [f for f in result.skipped if os.path.realpath(f) not in named]
    return result


def not_included(skipped: list[str], designs: list[DesignResult]) -> list[str]:
    """The files skipped as not designs that none of `designs` includes."""
    included = {os.path.realpath(i) for d in designs for i in d.includes}
    return [f for f in skipped if os.path.realpath(f) not in included]


def _skipped_note(skipped: list[str]) -> str:
    if not skipped:
        return ""
    n = len(skipped)
    return (
        f" (skipped {n} YAML file{'s' if n != 1 else ''} that {'are' if n != 1 else 'is'} not "
        "a design: a design has a top-level `name` and design sections such as `racks`, or a "
        "`# dclint: design` line)"
    )


def calibrate(design: Any, config: Config) -> None:
    """Give `design` the calibration profile `config` names (its `calibration:` key), if any:
    its predictions then use the profile's constants for the GPUs the profile holds."""
    if config.calibration:
        from dclint.loader.calibration import read_calibration

        design.calibrate(read_calibration(config.calibration, config.where("calibration")))
