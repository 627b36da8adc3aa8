"""The records a run produces: findings, per-design results, and the run summary."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any

from dclint.engine.rule import Severity
from dclint.errors import Problem

if TYPE_CHECKING:
    from dclint.units import Quantity

__all__ = ["SEVERITY_RANK", "DesignResult", "Finding", "Impact", "RunResult", "Waiver"]

SEVERITY_RANK = {"error": 3, "warning": 2, "info": 1}


@dataclass(frozen=True)
class Impact:
    """What a finding costs: training days and money of the design as it is minus the same
    design with the finding's limit met (dclint.analysis.impact sets it)."""

    days: Quantity
    cost: Quantity | None
    currency: str

    def as_dict(self) -> dict[str, Any]:
        cost = self.cost.m_as(self.currency) if self.cost is not None else None
        return {"days": self.days.m_as("day"), "cost": cost, "currency": self.currency}

    def text(self) -> str:
        from dclint.units import fmt

        money = f", {fmt(self.cost)}" if self.cost is not None else ""
        return f"meeting the limit saves {fmt(self.days, 'day')}{money}"


@dataclass(frozen=True, order=True)
class Finding:
    """One violation, located. Sorts by file, line, column, rule id.

    `measured` and `limit` are the formatted quantities ("132 kW"), `path` the design path
    (``racks[0].it_load``), `subject` the object at fault (a rack id, a feed id).
    """

    file: str
    line: int
    column: int
    rule: str
    name: str = field(compare=False)
    severity: Severity = field(compare=False)
    message: str = field(compare=False)
    path: str = field(compare=True)
    subject: str = field(compare=True)
    measured: str | None = field(default=None, compare=False)
    limit: str | None = field(default=None, compare=False)
    fix: str = field(default="", compare=False)
    tags: tuple[str, ...] = field(default=(), compare=False)
    impact: Impact | None = field(default=None, compare=False)
    changes: tuple[Any, ...] = field(default=(), compare=False)  # engine.rule.Change: its fixes

    def as_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "name": self.name,
            "severity": self.severity,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "path": self.path,
            "subject": self.subject,
            "measured": self.measured,
            "limit": self.limit,
            "fix": self.fix,
            **({"impact": self.impact.as_dict()} if self.impact is not None else {}),
        }


@dataclass(frozen=True)
class Waiver:
    """A finding the run found and did not report: an inline suppression comment or a baseline
    entry accepts it. `where` is the comment's file:line or the baseline file; `until` when
    the waiver lapses; `by` and `on` who recorded it and when, where known."""

    finding: Finding
    kind: str  # "inline" or "baseline"
    reason: str
    where: str
    until: date | None = None
    by: str = ""
    on: date | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "reason": self.reason,
            "where": self.where,
            "until": self.until.isoformat() if self.until else None,
            "by": self.by or None,
            "on": self.on.isoformat() if self.on else None,
            "finding": self.finding.as_dict(),
        }


@dataclass
class DesignResult:
    """Everything a run learnt about one design file."""

    file: str
    name: str | None = None
    findings: list[Finding] = field(default_factory=list)
    errors: list[Problem] = field(default_factory=list)
    design: Any = None  # the loaded Design, for reports and projections
    suppressed: int = 0
    waivers: list[Waiver] = field(default_factory=list)


@dataclass
class RunResult:
    designs: list[DesignResult] = field(default_factory=list)
    rule_failures: int = 0

    @property
    def findings(self) -> list[Finding]:
        return [f for d in self.designs for f in d.findings]

    @property
    def waivers(self) -> list[Waiver]:
        return [w for d in self.designs for w in d.waivers]

    @property
    def errors(self) -> list[Problem]:
        return [e for d in self.designs for e in d.errors]

    def exit_code(self, fail_on: Severity) -> int:
        """0 clean, 1 findings at or above `fail_on`, 2 load/config errors or rule failures."""
        if self.errors or self.rule_failures:
            return 2
        floor = SEVERITY_RANK[fail_on]
        return 1 if any(SEVERITY_RANK[f.severity] >= floor for f in self.findings) else 0
