"""Turn a rule's violation (or its crash) into a located finding: file, line, column, and the
rule's numbers as it gave them (printed by the presenters)."""

from __future__ import annotations

from typing import Any

from dclint.engine.findings import Finding, value_text
from dclint.engine.rule import Rule, Violation
from dclint.model.source import Source, format_path

__all__ = ["fmt_value", "locate", "rule_failure"]

fmt_value = value_text  # the name tests and older callers know


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
        v.measured,
        v.limit,
        v.fix,
        cls.tags,
        changes=v.changes,
        refs=v.refs,
    )
