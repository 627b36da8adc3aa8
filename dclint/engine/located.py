"""Turn a rule's violation (or its crash) into a located finding: file, line, column, numbers."""

from __future__ import annotations

from typing import Any

from dclint.engine.findings import Finding
from dclint.engine.rule import Rule, Violation
from dclint.model.source import Source, format_path

__all__ = ["fmt_value", "locate", "rule_failure"]


def rule_failure(cls: type[Rule], design_name: str, source: Source, exc: Exception) -> Finding:
    """One error finding at the design's top for a rule that raised."""
    pos = source.locate(())
    return Finding(
        pos.file,
        pos.line,
        pos.column,
        cls.id,
        cls.name,
        "error",
        f"rule {cls.id} failed on {design_name}: {type(exc).__name__}: {exc}",
        "",
        "",
        fix="report this rule's bug",
        tags=("rule-failure",),
    )


def fmt_value(value: Any, digits: int = 4) -> str | None:
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
    measured, limit = fmt_value(v.measured), fmt_value(v.limit)
    if measured is not None and measured == limit:
        measured, limit = fmt_value(v.measured, 8), fmt_value(v.limit, 8)
    return measured, limit


def locate(cls: type[Rule], v: Violation, source: Source, severity: Any) -> Finding:
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
        changes=v.changes,
    )
