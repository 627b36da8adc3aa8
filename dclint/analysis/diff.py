"""`dclint diff A B`: design totals side by side, findings that appear or disappear, projections."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dclint.analysis.summary import DesignSummary, summarise
from dclint.analysis.sweep import projections
from dclint.engine.findings import DesignResult, Finding
from dclint.escaping import finite_json, printable
from dclint.escaping import markdown_code as code
from dclint.escaping import markdown_text as md
from dclint.units import Quantity, fmt

__all__ = [
    "Diff",
    "Row",
    "compare",
    "render_json",
    "render_markdown",
    "render_text",
    "row_cells",
    "totals",
]

Value = Quantity | int | float | str | None


@dataclass(frozen=True)
class Row:
    """One compared figure; `a`/`b` None where that design has no such figure."""

    label: str
    a: Value
    b: Value

    @property
    def change(self) -> str:
        a, b = self.a, self.b
        if a is None or b is None or isinstance(a, str) or isinstance(b, str):
            return "" if a == b else "changed"
        if isinstance(a, Quantity) or isinstance(b, Quantity):
            if not (isinstance(a, Quantity) and isinstance(b, Quantity)) or (
                a.dimensionality != b.dimensionality
            ):
                return "changed"  # a figure with a unit against one without, or another unit
            delta = (b - a.to(b.units)).to(b.units)
            mag = float(delta.magnitude)
            return "" if abs(mag) < 1e-9 else ("+" if mag > 0 else "") + fmt(delta)
        if isinstance(a, int) and isinstance(b, int):  # counts: GPUs, racks, switches
            return "" if a == b else f"{b - a:+,d}"
        d = float(b) - float(a)
        return "" if abs(d) < 1e-9 else f"{d:+.2f}"


@dataclass(frozen=True)
class Diff:
    a: str
    b: str
    rows: list[Row]
    new: list[Finding]  # in B only
    gone: list[Finding]  # in A only
    projections: list[Row]


def totals(s: DesignSummary) -> dict[str, Value]:
    """The compared figures of one design, by label."""
    out: dict[str, Value] = {
        "GPUs": s.gpus,
        "racks": s.racks,
        "IT load": s.it_load.to("kW"),
        "PUE": float(s.pue),
        "facility power": s.facility_power.to("kW"),
        "utility capacity": s.utility_capacity.to("kW") if s.utility_capacity else None,
        "cooling capacity (CDUs)": s.cooling_capacity.to("kW"),
        "liquid heat": s.liquid_heat.to("kW"),
    }
    for t in s.tiers:
        if t.ratio is not None:  # top tiers have no uplinks
            out[f"fabric {t.fabric}.{t.tier} down:up"] = t.ratio
    if s.storage is not None:
        out["training storage read"] = s.storage.read_bandwidth.to("GB/s")
        out["storage read demand"] = s.storage.demand.to("GB/s")
    return out


def _key(f: Finding) -> tuple[str, str, str]:
    return f.rule, f.path, f.subject


def compare(a: DesignResult, b: DesignResult, options: tuple[Any, Any] = ({}, {})) -> Diff:
    """Compare two checked designs (both loaded); `options` are each one's typed rule options."""
    ta, tb = totals(summarise(a.design, options[0])), totals(summarise(b.design, options[1]))
    rows = [Row(label, ta.get(label), tb.get(label)) for label in dict.fromkeys([*ta, *tb])]
    ka, kb = {_key(f) for f in a.findings}, {_key(f) for f in b.findings}
    new = [f for f in b.findings if _key(f) not in ka]
    gone = [f for f in a.findings if _key(f) not in kb]
    pa, pb = projections(a.design), projections(b.design)
    proj = []
    for w in dict.fromkeys([*pa, *pb]):
        (da, ca), (db, cb) = pa.get(w, (None, None)), pb.get(w, (None, None))
        proj.append(Row(f"{w} training time", da, db))
        proj.append(Row(f"{w} cost", ca, cb))
    return Diff(a.file, b.file, rows, new, gone, proj)


def _cell(v: Value) -> str:
    if v is None:
        return "-"
    if isinstance(v, Quantity):
        return fmt(v.to("day")) if v.check("[time]") else fmt(v)
    if isinstance(v, float):
        return f"{v:.2f}"
    return str(v)


def _ratio(label: str, v: Value) -> str:
    return f"{v:.2f}:1" if "down:up" in label and isinstance(v, float) else _cell(v)


def _lines(d: Diff) -> list[list[str]]:
    return [
        [r.label, _ratio(r.label, r.a), _ratio(r.label, r.b), r.change]
        for r in [*d.rows, *d.projections]
    ]


row_cells = _lines  # the compared figures as table cells, for the review document


def _finding(f: Finding) -> str:
    return printable(f"{f.rule} {f.path or '-'} ({f.subject or '-'}): {f.message}")


def render_text(d: Diff) -> str:
    head = ["", "A", "B", "change"]
    body = _lines(d)
    body = [[printable(c) for c in r] for r in body]
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(4)]
    out = [f"A: {printable(d.a)}", f"B: {printable(d.b)}", ""]
    for r in [head, *body]:
        cells = [
            r[0].ljust(widths[0]),
            *(c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)),
        ]
        out.append("  ".join(cells).rstrip())
    out.append("")
    for side, found, mark in (("B", d.new, "+"), ("A", d.gone, "-")):
        out.append(f"{heading(side, found)}{':' if found else ''}")
        out.extend(f"  {mark} {_finding(f)}" for f in found)
    return "\n".join(out) + "\n"


def heading(side: str, found: list[Finding]) -> str:
    """`Findings only in B (2)` over the findings, `Findings only in A: none` where there are
    none (no count of 0 over an empty section), in text and Markdown alike."""
    return f"Findings only in {side} ({len(found)})" if found else f"Findings only in {side}: none"


def _md(findings: list[Finding]) -> list[str]:
    return [
        f"- **{md(f.rule)}** {code(f.path or '-')} ({md(f.subject or '-')}): {md(f.message)}"
        for f in findings
    ]


def render_markdown(d: Diff) -> str:
    out = [
        f"## Design comparison\n\nA: {code(d.a)}, B: {code(d.b)}\n",
        "| | A | B | change |",
        "|---|---:|---:|---:|",
    ]
    out.extend(f"| {' | '.join(md(c) for c in r)} |" for r in _lines(d))
    for side, found in (("B", d.new), ("A", d.gone)):
        out.append(f"\n### {heading(side, found)}\n" if found else f"\n{heading(side, found)}")
        out.extend(_md(found))
    return "\n".join(out) + "\n"


def _json(v: Value) -> Any:
    if isinstance(v, Quantity):
        if v.check("[time]"):
            v = v.to("day")
        return {"value": round(float(v.magnitude), 6), "unit": f"{v.units:~}".replace(" ", "")}
    return round(v, 6) if isinstance(v, float) else v


def render_json(d: Diff) -> str:
    from dclint import __version__

    def rows(items: list[Row]) -> list[dict[str, Any]]:
        return [
            {"label": r.label, "a": _json(r.a), "b": _json(r.b), "change": r.change} for r in items
        ]

    data = {
        "version": __version__,
        "a": d.a,
        "b": d.b,
        "totals": rows(d.rows),
        "findings_new": [f.as_dict() for f in d.new],
        "findings_gone": [f.as_dict() for f in d.gone],
        "projections": rows(d.projections),
    }
    return finite_json(data)
