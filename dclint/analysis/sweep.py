"""`check --sweep PATH=V1,V2,...`: the checks (and projections) of a design for each value."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from dclint.engine.runner import Engine
from dclint.errors import ConfigError
from dclint.loader.overrides import Override
from dclint.units import Quantity

__all__ = [
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
    workloads: dict[str, tuple[Quantity | None, Quantity | None]] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass(frozen=True)
class Sweep:
    file: str
    path: str
    rows: list[SweepRow]

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


def projections(design: Any) -> dict[str, tuple[Quantity | None, Quantity | None]]:
    """(training time, total cost) by workload id, when dclint.projection can project them."""
    try:
        from dclint.projection import project_workloads

        found = project_workloads(design)
    except (ImportError, AttributeError):
        return {}
    except Exception:  # a what-if table must not fail because a projection did
        return {}
    out: dict[str, tuple[Quantity | None, Quantity | None]] = {}
    for p in found:
        days = getattr(p, "training_time", None)
        cost = getattr(p, "cost", None)
        out[str(p.workload)] = (days.to("day") if days is not None else None, cost)
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

    path, values = split_values(text)

    def row(point: tuple[str, ...]) -> SweepRow:
        at = engine_at(engine, (*base, *overrides_at([path], point, "--sweep")))
        result = at.check_file(file)
        counts = Counter(f.rule for f in result.findings if "rule-failure" not in f.tags)
        errors = point_errors(result)
        work = projections(result.design) if result.design is not None else {}
        return SweepRow(point[0], dict(sorted(counts.items())), errors, work)

    rows: list[SweepRow] = []
    run_batches(points([(path, values)]), lambda p: p, row, lambda _, done: rows.extend(done))
    return Sweep(file, path, rows)


def as_data(sweeps: list[Sweep]) -> dict[str, Any]:
    from dclint._version import __version__

    def workload(days: Quantity | None, cost: Quantity | None) -> dict[str, Any]:
        return {
            "training_days": None if days is None else round(days.m_as("day"), 6),
            "cost": None if cost is None else round(float(cost.magnitude), 2),
            "currency": None if cost is None else f"{cost.units:~}",
        }

    return {
        "version": __version__,
        "sweeps": [
            {
                "file": s.file,
                "path": s.path,
                "rows": [
                    {
                        "value": r.value,
                        "findings": r.total,
                        "by_rule": r.counts,
                        "errors": r.errors,
                        "workloads": {w: workload(*v) for w, v in r.workloads.items()},
                    }
                    for r in s.rows
                ],
            }
            for s in sweeps
        ],
    }
