"""`check --sweep PATH=V1,V2,...`: the checks (and projections) of a design for each value."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from dclint.engine.runner import Engine
from dclint.errors import ConfigError
from dclint.loader.overrides import Override
from dclint.units import Quantity

__all__ = [
    "Projected",
    "Sweep",
    "SweepRow",
    "as_data",
    "projections",
    "run_sweep",
    "split_values",
]


@dataclass(frozen=True)
class SweepRow:
    """One value of the sweep: findings by rule, load errors, (days, cost) by workload."""

    value: str
    counts: dict[str, int]
    errors: list[str] = field(default_factory=list)
    workloads: dict[str, Projected] = field(default_factory=dict)
    # the error that leaves the projections no figure (dclint.engine.coverage.blocking)
    blocked: Any = None
    # the findings at or above the exit threshold (`fail_on`), by rule: what makes `check` exit 1
    failing: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def exit_code(self) -> int:
        """As `check` exits on this value: 2 on a load error or a rule that crashed, 1 on a
        finding at or above the threshold, else 0."""
        return 2 if self.errors else 1 if self.failing else 0


@dataclass(frozen=True)
class Sweep:
    file: str
    path: str
    rows: list[SweepRow]
    fail_on: str = "error"  # the exit threshold of the file's config (CLI values in)

    def exit_code(self) -> int:
        """The exit code of the sweep: its worst row's, as `check` exits on the file."""
        return max((row.exit_code() for row in self.rows), default=0)

    @property
    def rules(self) -> list[str]:
        return sorted({rule for row in self.rows for rule in row.counts})

    @property
    def workloads(self) -> list[str]:
        return list(dict.fromkeys(w for row in self.rows for w in row.workloads))


def split_values(text: str, flag: str = "--sweep") -> tuple[str, list[str]]:
    """`PATH=V1,V2` -> (PATH, [V1, V2]); commas inside [...], {...} or quotes do not split."""
    path, sep, raw = text.partition("=")
    if not sep or not path.strip():
        raise ConfigError(f"{flag} {text}: write PATH=V1,V2,..., e.g. {flag} site.pue=1.1,1.3")
    values, depth, quote, current = [], 0, "", ""
    for char in raw:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 0:
            values.append(current.strip())
            current = ""
            continue
        current += char
    values.append(current.strip())
    if not all(values):
        raise ConfigError(f"{flag} {text}: empty value in the list")
    return path.strip(), values


class Projected(NamedTuple):
    """A workload's training time and run cost as `dclint cost` projects them, and the
    training time's calibration band where the days come from the predicted step (the MFU
    predicted, not declared), as `dclint cost` prints it beside them."""

    days: Quantity | None
    cost: Quantity | None
    band: tuple[Quantity, Quantity] | None = None
    # the declared prices the cost leaves out for want of an exchange rate (Projection's)
    unconverted: tuple[str, ...] = ()


def projections(design: Any) -> dict[str, Projected]:
    """(training time, total cost, band) by workload id, when dclint.projection can project
    them."""
    try:
        from dclint.projection import project_workloads

        found = project_workloads(design)
    except (ImportError, AttributeError):
        return {}
    except Exception:  # a what-if table must not fail because a projection did
        return {}
    out: dict[str, Projected] = {}
    for p in found:
        days = getattr(p, "training_time", None)
        cost = getattr(p, "cost", None)
        out[str(p.workload)] = Projected(
            days.to("day") if days is not None else None,
            cost,
            getattr(p, "training_band", None),  # None where the MFU is not the predicted one
            tuple(getattr(p, "unconverted", ())),
        )
    return out


def point_errors(result: Any) -> list[str]:
    """A grid point's errors: the design's load problems, and each rule that crashed on it (a
    crash is exit 2 in a grid as in `check`, never a point that merely has fewer findings)."""
    errors = [str(e) for e in result.errors]
    errors += [f.message for f in result.findings if "rule-failure" in f.tags]
    return errors


def run_sweep(file: str, engine: Engine, base: tuple[Override, ...], text: str) -> Sweep:
    """Check `file` once per value; `base` (--set) overrides apply first, the sweep's last."""
    from dclint.analysis.grid.runner import engine_at, overrides_at, points, run_batches
    from dclint.engine.coverage import blocking
    from dclint.engine.findings import at_or_above

    path, values = split_values(text)
    fail_on = engine.config_for(file).fail_on

    def row(point: tuple[str, ...]) -> SweepRow:
        at = engine_at(engine, (*base, *overrides_at([path], point, "--sweep")))
        result = at.check_file(file)
        found = [f for f in result.findings if "rule-failure" not in f.tags]
        counts = Counter(f.rule for f in found)
        failing = Counter(f.rule for f in found if at_or_above(f.severity, fail_on))
        errors = point_errors(result)
        work = projections(result.design) if result.design is not None else {}
        blocked = blocking(result.findings, at.rules)
        return SweepRow(
            point[0],
            dict(sorted(counts.items())),
            errors,
            work,
            blocked,
            dict(sorted(failing.items())),
        )

    rows: list[SweepRow] = []
    run_batches(points([(path, values)]), lambda p: p, row, lambda _, done: rows.extend(done))
    return Sweep(file, path, rows, fail_on)


def as_data(sweeps: list[Sweep], reason: Callable[[Any], str] = str) -> dict[str, Any]:
    """The sweeps as JSON data; `reason` words the error that leaves a row's projections no
    figure (the presenter's report.values.not_meaningful)."""
    from dclint._version import __version__

    def workload(
        days: Quantity | None,
        cost: Quantity | None,
        band: tuple[Quantity, Quantity] | None,
        unconverted: tuple[str, ...],
    ) -> dict[str, Any]:
        return {
            "training_days": None if days is None else round(days.m_as("day"), 6),
            "training_days_band": None
            if band is None
            else [round(band[0].m_as("day"), 6), round(band[1].m_as("day"), 6)],
            "cost": None if cost is None else round(float(cost.magnitude), 2),
            "currency": None if cost is None else f"{cost.units:~}",
            "cost_omits": list(unconverted),
        }

    return {
        "version": __version__,
        "sweeps": [
            {
                "file": s.file,
                "path": s.path,
                "fail_on": s.fail_on,
                "exit_code": s.exit_code(),
                "rows": [
                    {
                        "value": r.value,
                        "findings": r.total,
                        "by_rule": r.counts,
                        "failing": r.failing,
                        "errors": r.errors,
                        "workloads": {w: workload(*v) for w, v in r.workloads.items()},
                        "not_meaningful": None
                        if r.blocked is None
                        else {
                            "reason": reason(r.blocked),
                            "rule": r.blocked.rule,
                            "file": r.blocked.file,
                            "line": r.blocked.line,
                            "column": r.blocked.column,
                            "message": r.blocked.message,
                        },
                    }
                    for r in s.rows
                ],
            }
            for s in sweeps
        ],
    }
