"""The records a run produces: findings, per-design results, and the run summary."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import TYPE_CHECKING, Any

from dclint.engine.severity import Severity
from dclint.errors import Problem
from dclint.figures import figures

if TYPE_CHECKING:
    from dclint.units import Quantity

__all__ = [
    "SEVERITY_RANK",
    "DesignResult",
    "Finding",
    "Impact",
    "RunResult",
    "Value",
    "Waiver",
    "at_or_above",
    "number_and_unit",
    "value_text",
]

SEVERITY_RANK = {"error": 3, "warning": 2, "info": 1}

# What a finding measured or its limit: a Quantity, a plain number (a count, a ratio), or text
# where no number says it ("2.00:1", "3 of 4"); None when the rule gives none.
Value = Any


def at_or_above(severity: str, fail_on: str) -> bool:
    """Whether a finding of `severity` fails a run whose threshold is `fail_on` (exit 1)."""
    return SEVERITY_RANK[severity] >= SEVERITY_RANK[fail_on]


def value_text(value: Value, digits: int = 4) -> str | None:
    """A measured value or limit as a report prints it: ``132 kW``, a count with thousands
    separators (``100,008``), a number to `digits` significant figures, text as it is."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        if float(value).is_integer() and abs(value) < 10**15:  # a count: 100,008, not 1e+05
            return f"{int(value):,}"
        return figures(float(value), digits)  # as a quantity's: 12,346, where it said 1.235e+04
    from dclint.units import fmt

    return fmt(value, digits=digits)


def _texts(measured: Value, limit: Value) -> tuple[str | None, str | None]:
    """Measured and limit as text; more digits where 4 would print them alike (120.001 kW)."""
    m, lim = value_text(measured), value_text(limit)
    if m is not None and m == lim:
        m, lim = value_text(measured, 8), value_text(limit, 8)
    return m, lim


def number_and_unit(value: Value) -> tuple[float | None, str | None]:
    """A value as (number, unit) for machine-readable output: a Quantity's magnitude and unit
    expression (``kW``, ``Gb/s``: `dclint.units.unit_text`), a plain number with unit ``""``,
    (None, None) for text or no value."""
    if value is None or isinstance(value, (str, bool)):
        return None, None
    if isinstance(value, (int, float)):
        return float(value), ""
    from dclint.units import unit_text

    return float(value.magnitude), unit_text(value.units)


@dataclass(frozen=True)
class Impact:
    """What a finding costs: training days and money of the design as it is minus the same
    design with the finding fixed as its rule's fix says: the limit met, or PAR005's best
    layout, REL001's Young/Daly interval (dclint.analysis.impact sets it)."""

    days: Quantity
    cost: Quantity | None
    currency: str
    # a range where the design leaves an assumption open (NET001's placement): `days` and
    # `cost` under `label`, these under `other`
    days_high: Quantity | None = None
    cost_high: Quantity | None = None
    label: str = ""
    other: str = ""

    @property
    def most_days(self) -> float:
        """The larger end of the days saved (the one figure without a range)."""
        high = self.days_high.m_as("day") if self.days_high is not None else 0.0
        return max(self.days.m_as("day"), high)

    def as_dict(self) -> dict[str, Any]:
        cost = self.cost.m_as(self.currency) if self.cost is not None else None
        out: dict[str, Any] = {
            "days": self.days.m_as("day"),
            "cost": cost,
            "currency": self.currency,
        }
        if self.days_high is not None:
            high = self.cost_high.m_as(self.currency) if self.cost_high is not None else None
            out["range"] = {
                "assumption": [self.label, self.other],
                "days": [self.days.m_as("day"), self.days_high.m_as("day")],
                "cost": [cost, high],
            }
        return out

    def text(self) -> str:
        from dclint.units import fmt

        money = f", {fmt(self.cost)}" if self.cost is not None else ""
        if self.days_high is None:
            return f"the fix saves {fmt(self.days, 'day')}{money}"
        high = f", {fmt(self.cost_high)}" if self.cost_high is not None else ""
        return (
            f"the fix saves {fmt(self.days, 'day')}{money} ({self.label}) to "
            f"{fmt(self.days_high, 'day')}{high} ({self.other})"
        )


@dataclass(frozen=True, order=True)
class Finding:
    """One violation, located. Sorts by file, line, column, rule id.

    `measured` and `limit` are the values the rule gave (a Quantity, a plain number, or text
    such as "2.00:1"); `measured_text` and `limit_text` print them as reports do ("132 kW").
    `path` is the design path (``racks[0].it_load``), `subject` the object at fault (a rack
    id, a feed id).
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
    measured: Value = field(default=None, compare=False)
    limit: Value = field(default=None, compare=False)
    fix: str = field(default="", compare=False)
    tags: tuple[str, ...] = field(default=(), compare=False)
    refs: tuple[str, ...] = field(default=(), compare=False)  # other objects it is about
    impact: Impact | None = field(default=None, compare=False)
    # why a finding of a rule that prices its findings carries no impact (the fix saves the
    # projected run nothing, and the rule says why: Remedy.note)
    impact_note: str = field(default="", compare=False)
    # what the fix saves where that is under the pricing floor (dclint.analysis.impact's
    # MIN_DAYS): no price, the figures `impact_note` prints, as `impact` would carry them
    impact_under_floor: Impact | None = field(default=None, compare=False)
    origin: str | None = field(default=None, compare=False)  # an imported element's source
    changes: tuple[Any, ...] = field(default=(), compare=False)  # engine.rule.Change: its fixes

    @property
    def measured_text(self) -> str | None:
        return self._texts[0]

    @property
    def limit_text(self) -> str | None:
        return self._texts[1]

    @cached_property
    def _texts(self) -> tuple[str | None, str | None]:
        # formatted once: every presenter and the roll-up read them (a unit's text is slow)
        return _texts(self.measured, self.limit)

    def numbers(self, name: str) -> tuple[float | None, str | None]:
        """`measured` or `limit` (`name`) as (number, unit): number_and_unit."""
        return number_and_unit(self.measured if name == "measured" else self.limit)

    def as_dict(self) -> dict[str, Any]:
        """JSON values: `measured` and `limit` as text, each with its number and unit beside
        (`measured_value`, `measured_unit`; None where the value is text or absent)."""
        measured, measured_unit = self.numbers("measured")
        limit, limit_unit = self.numbers("limit")
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
            "measured": self.measured_text,
            "measured_value": measured,
            "measured_unit": measured_unit,
            "limit": self.limit_text,
            "limit_value": limit,
            "limit_unit": limit_unit,
            "fix": self.fix,
            **({"impact": self.impact.as_dict()} if self.impact is not None else {}),
            **({"impact_note": self.impact_note} if self.impact_note else {}),
            **(
                {"impact_under_floor": self.impact_under_floor.as_dict()}
                if self.impact_under_floor is not None
                else {}
            ),
            **({"origin": self.origin} if self.origin else {}),
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
    includes: tuple[str, ...] = ()  # the files it includes or extends, directly or not
    # rack id -> its type (or platform) key, for reports' roll-ups; set by the assessment
    # (dclint.analysis.assess.assessment), so that presenters never resolve the design themselves
    rack_kinds: dict[str, str] = field(default_factory=dict)


@dataclass
class RunResult:
    """What a run found: each design's result, the rules that failed and the files skipped."""

    designs: list[DesignResult] = field(default_factory=list)
    rule_failures: int = 0
    # YAML files found in the directories searched that are not designs and that no design
    # checked includes (dclint.engine.files: a docker-compose file, a workflow)
    skipped: list[str] = field(default_factory=list)

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
        return 1 if any(at_or_above(f.severity, fail_on) for f in self.findings) else 0
