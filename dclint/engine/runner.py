"""Run the selected rules over designs and return findings; never prints, never exits."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from dclint.engine.config import Config, config_for, selected, validate_config
from dclint.engine.files import collect
from dclint.engine.findings import DesignResult, Finding, RunResult
from dclint.engine.registry import discover
from dclint.engine.rule import Context, Rule, Violation
from dclint.engine.suppress import Suppression, scan
from dclint.errors import ConfigError, LoadError, Problem
from dclint.model.source import Source, format_path

__all__ = ["Engine", "run"]

UNUSED, NO_REASON, UNKNOWN, EXPIRED = "DCL001", "DCL002", "DCL003", "DCL004"


@dataclass
class Engine:
    """Rules discovered once, configs resolved per directory, then `check()` per file."""

    config: Config | None = None  # an explicit --config (or CLI-built) config for every file
    rules_dirs: tuple[str, ...] = ()
    cli: dict[str, Any] = field(default_factory=dict)  # select/ignore/fail_on from the CLI
    today: date = field(default_factory=date.today)
    overrides: tuple[Any, ...] = ()  # --set values (dclint.loader.overrides), for every file
    warn: Callable[[str], None] | None = None  # told what a found config may not do
    rules: dict[str, type[Rule]] = field(init=False)
    _configs: dict[Path, Config] = field(default_factory=dict, init=False)
    # Resolved configs (CLI values merged in), one per base config, and their typed options.
    # Keyed by id() of a config this dict keeps alive, so an id is never reused while cached
    # (a key of a freed object could come back as another directory's config).
    _resolved: dict[int, tuple[Config, Config]] = field(default_factory=dict, init=False)
    _typed: dict[int, tuple[Config, dict[str, dict[str, Any]]]] = field(
        default_factory=dict, init=False
    )

    def __post_init__(self) -> None:
        dirs = self.rules_dirs + (self.config.rules_dirs if self.config else ())
        self.rules = discover(dirs)

    def config_for(self, file: str) -> Config:
        """The config governing `file` (its directory's, or --config), CLI values merged in:
        the same object for every file it governs."""
        base = self.config or config_for(Path(file), self._configs, self.warn)
        entry = self._resolved.get(id(base))
        if entry is None or entry[0] is not base:
            entry = (base, base.with_cli(**self.cli))
            self._resolved[id(base)] = entry
        return entry[1]

    def options(self, config: Config) -> dict[str, dict[str, Any]]:
        """Every rule's typed options under `config` (validated once per config object)."""
        entry = self._typed.get(id(config))
        if entry is None or entry[0] is not config:
            entry = (config, validate_config(config, self.rules))
            self._typed[id(config)] = entry
        return entry[1]

    def check_file(self, file: str) -> DesignResult:
        from dclint.loader import load

        result = DesignResult(file)
        config = self.config_for(file)
        typed = self.options(config)
        try:
            design = load(file, overrides=self.overrides, max_ids=config.max_ids)
        except LoadError as exc:
            result.errors = exc.problems
            return result
        result.name, result.design = design.name, design
        source = design.source
        assert source is not None
        active = [cls for rid, cls in self.rules.items() if selected(rid, config, file)]
        for cls in active:
            for name, problem in cls.config_problems(design, typed[cls.id]):
                key = f"{cls.id}.{name}"
                raise ConfigError(f"{config.where(key)}: option {key}: {problem} (in {file})")
        located: list[Finding] = []
        found: list[tuple[type[Rule], Violation, Any]] = []
        for cls in active:
            failure = self._run_rule(cls, design, source, config, typed[cls.id], found)
            if failure is not None:
                located.append(failure)
        source.prefetch(v.path for _, v, _ in found)  # every position in one pass over the text
        located.extend(_locate(cls, v, source, severity) for cls, v, severity in found)
        result.findings, result.suppressed = self._suppress(located, source, config, file)
        return result

    def _run_rule(
        self,
        cls: type[Rule],
        design: Any,
        source: Source,
        config: Config,
        options: dict[str, Any],
        found: list[tuple[type[Rule], Violation, Any]],
    ) -> Finding | None:
        """Add the rule's violations to `found`; a rule that raises becomes one error finding."""
        severity = config.rule_settings.get(cls.id, {}).get("severity", cls.severity)
        try:
            violations = list(cls().check(design, Context(options, self.today)))
        except Exception as exc:  # a broken rule becomes a finding, not a crash
            pos = source.locate(())
            return Finding(
                pos.file,
                pos.line,
                pos.column,
                cls.id,
                cls.name,
                "error",
                f"rule {cls.id} failed on {design.name}: {type(exc).__name__}: {exc}",
                "",
                "",
                fix="report this rule's bug",
                tags=("rule-failure",),
            )
        found.extend((cls, v, v.severity or severity) for v in violations)
        return None

    def _suppress(
        self, raw: list[Finding], source: Source, config: Config, file: str
    ) -> tuple[list[Finding], int]:
        # suppression comments of the design and of every file it includes, by (file, line)
        texts = {source.file: source.text, **source.texts}
        comments = {name: found for name, text in texts.items() if (found := scan(text))}
        if not comments:
            return sorted(raw), 0
        kept: list[Finding] = []
        suppressed = 0
        by_line: dict[tuple[str, int], list[Suppression]] = {}
        for name, found in comments.items():
            for s in found:
                for line in s.applies_to:
                    by_line.setdefault((name, line), []).append(s)
        for finding in raw:
            hit = next(
                (
                    s
                    for s in by_line.get((finding.file, finding.line), ())
                    if s.reason
                    and s.bad_until is None
                    and s.covers(finding.rule, finding.line, self.today)
                ),
                None,
            )
            if hit is None:
                kept.append(finding)
            else:
                hit.used.add(finding.rule)
                suppressed += 1
        for name, found in comments.items():
            kept.extend(self._meta(found, name, config, file))
        return sorted(kept), suppressed

    def _meta(
        self, comments: list[Suppression], where: str, config: Config, file: str
    ) -> list[Finding]:
        """DCL001-DCL004 findings for the suppression comments of one file."""
        findings = []
        for s in comments:
            verdict = self._verdict(s)
            if verdict is None:
                continue
            rid, message = verdict
            cls = self.rules.get(rid)
            if cls is None or not selected(rid, config, file):
                continue
            severity = config.rule_settings.get(rid, {}).get("severity", cls.severity)
            findings.append(
                Finding(
                    where,
                    s.line,
                    s.column,
                    rid,
                    cls.name,
                    severity,
                    message,
                    "",
                    f"line {s.line}",
                    fix="remove or correct the suppression comment",
                )
            )
        return findings

    def _verdict(self, s: Suppression) -> tuple[str, str] | None:
        ids = ", ".join(s.ids)
        unknown = [i for i in s.ids if not any(r.startswith(i) for r in self.rules)]
        if unknown or not s.ids:
            return UNKNOWN, f"suppression names unknown rule id {', '.join(unknown) or '(none)'}"
        if s.bad_until is not None:
            return (
                UNKNOWN,
                f"suppression has an invalid date until={s.bad_until} (write until=YYYY-MM-DD)",
            )
        if not s.reason:
            return NO_REASON, f"suppression of {ids} gives no reason"
        if s.expired(self.today):
            return EXPIRED, f"suppression of {ids} expired on {s.until}; its findings are back"
        if not s.used:
            return UNUSED, f"suppression of {ids} suppresses nothing"
        return None


def _fmt(value: Any, digits: int = 4) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        if float(value).is_integer() and abs(value) < 10**15:  # a count: 100,008, not 1e+05
            return f"{int(value):,}"
        return f"{value:.{digits}g}"
    from dclint.units import fmt

    return fmt(value, digits=digits)


def _numbers(v: Violation) -> tuple[str | None, str | None]:
    """Measured and limit as text; more digits where 4 would print them alike (120.001 kW)."""
    measured, limit = _fmt(v.measured), _fmt(v.limit)
    if measured is not None and measured == limit:
        measured, limit = _fmt(v.measured, 8), _fmt(v.limit, 8)
    return measured, limit


def _locate(cls: type[Rule], v: Violation, source: Source, severity: Any) -> Finding:
    pos = source.locate(v.path, key=v.key)
    message = v.message
    origin = source.override_origin(v.path, pos)
    if origin is not None:  # a value a flag set: at the design's line, naming the flag
        pos, flag = origin
        message = f"{message} (value set by {flag})"
    return Finding(
        pos.file,
        pos.line,
        pos.column,
        cls.id,
        cls.name,
        severity,
        message,
        format_path(v.path),
        v.subject,
        *_numbers(v),
        v.fix,
        cls.tags,
    )


def run(paths: list[str], engine: Engine | None = None) -> RunResult:
    """Check every design under `paths`. Raises ConfigError for bad rules or config."""
    engine = engine or Engine()
    exclude = engine.config.exclude if engine.config else ()
    files, missing = collect(paths, exclude)
    result = RunResult()
    for problem in missing:
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
    if not files and not missing:
        raise ConfigError("no design files found in " + ", ".join(paths))
    return result
