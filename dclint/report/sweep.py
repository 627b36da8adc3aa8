"""`check --sweep PATH=V1,V2,...` as text or JSON: one table a swept file
(`dclint.analysis.sweep.Sweep`)."""

from __future__ import annotations

from dclint.analysis.sweep import Projected, Sweep, as_data
from dclint.escaping import finite_json
from dclint.report.values import cost_quoted, days_quoted, not_meaningful
from dclint.units import Quantity, fmt

__all__ = ["render_json", "render_text"]


def _q(q: Quantity | None, unit: str | None = None) -> str:
    return "-" if q is None else fmt(q, unit)


def _table(sweep: Sweep) -> tuple[list[str], list[list[str]]]:
    head = [sweep.path, "findings", *sweep.rules]
    for w in sweep.workloads:
        head += [f"{w} days", f"{w} cost"]
    body = []
    for row in sweep.rows:
        cells = [row.value, "error" if row.errors else str(row.total)]
        cells += [str(row.counts.get(rule, 0)) for rule in sweep.rules]
        for w in sweep.workloads:
            work = row.workloads.get(w, Projected(None, None))
            if row.blocked is not None:  # as the review and `dclint cost` say
                cells += [not_meaningful(row.blocked)] * 2
                continue
            days = "-" if work.days is None else days_quoted(work.days, work.band)
            cells += [days, cost_quoted(work.cost, work.unconverted)]
        body.append(cells)
    return head, body


def _failing(failing: dict[str, int], fail_on: str) -> str:
    """'10 findings at severity error or above: PWR001 x8, PWR002 x2': what makes a value
    fail as `check` fails (exit 1)."""
    n = sum(failing.values())
    rules = ", ".join(f"{rule} x{count}" for rule, count in failing.items())
    return f"{n} finding{'s' if n != 1 else ''} at severity {fail_on} or above: {rules}"


def render_text(sweeps: list[Sweep]) -> str:
    out = []
    for sweep in sweeps:
        head, body = _table(sweep)
        widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
        out.append(f"Sweep of {sweep.path} on {sweep.file}")
        for cells in [head, *body]:
            first = cells[0].ljust(widths[0])
            rest = [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
            out.append("  ".join([first, *rest]).rstrip())
        for row in sweep.rows:
            out.extend(f"{sweep.path}={row.value}: error: {e}" for e in row.errors)
            if row.failing and not row.errors:
                out.append(f"{sweep.path}={row.value}: {_failing(row.failing, sweep.fail_on)}")
        out.append("")
    return "\n".join(out)


def render_json(sweeps: list[Sweep]) -> str:
    return finite_json(as_data(sweeps, not_meaningful))
