"""`dclint plan --vary ...`: the facility what-if grid as text, Markdown or JSON (a line at a
time, read from the grid's store as it goes), or as an HTML page with cost against days drawn
in SVG (hand-written, no plotting library): every point, the Pareto front joined and filled."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from dclint.analysis.grid.facility import (
    GridPoint,
    GridReport,
    Setup,
    _head,
    _point_data,
    _row,
    as_data,
    days_cell,
    point_name,
    table,
)
from dclint.escaping import HTML_CSP, finite_data, finite_json, markdown_text, printable
from dclint.escaping import html_text as escape
from dclint.figures import percent

__all__ = [
    "render",
    "render_html",
    "render_stream",
    "write_html",
    "write_json",
    "write_markdown",
    "write_text",
]


def render(
    setup: Setup, paths: list[str], points: list[GridPoint], fmt_name: str, note: str = ""
) -> str:
    if fmt_name == "json":
        data = as_data(setup, paths, points)
        if note:
            data["coverage"] = note
        return finite_json(data)
    head, rows = table(paths, points)
    md = fmt_name == "markdown"
    cell = markdown_text if md else printable
    head, rows = [cell(c) for c in head], [[cell(c) for c in r] for r in rows]
    if md:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
    else:
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                 for r in [head, *rows]]  # fmt: skip
    title = f"What-if grid of {setup.file}" + (
        f", workload {setup.workload}" if setup.workload else ""
    )
    errors = [cell(line) for p in points for line in _below(paths, p)]
    ceiling = _Ceiling()
    for p in points:
        ceiling.add(p)
    errors += [cell(line) for line in ceiling.line()]
    foot = "front: * = on the Pareto front of cost (TCO, else run cost) against days"
    notes = [note] if note else []
    title = "## " + markdown_text(title) if md else printable(title)
    return "\n".join([title, "", *lines, "", *errors, *notes, foot]) + "\n"


class _Ceiling:
    """The points whose best layout predicts an MFU above the best any calibration run of its
    GPU generation and class published, counted as the points go by, and said in one line
    under the table, as `dclint plan` says it of the layouts it lists."""

    def __init__(self) -> None:
        self.above, self.searched, self.top = 0, 0, 0.0
        self.run: tuple[float, str] | None = None

    def add(self, p: GridPoint) -> None:
        b = p.best
        if not b:
            return
        self.searched += 1
        if b.get("above_calibrated_mfu") and b.get("calibrated_mfu"):
            self.above += 1
            self.top = max(self.top, float(b["mfu"]))
            self.run = (float(b["calibrated_mfu"]["mfu"]), str(b["calibrated_mfu"]["run"]))

    def line(self) -> list[str]:
        if not self.above or self.run is None:
            return []
        best, run = self.run
        return [
            f"outside what dclint has seen measured: the best layouts of {self.above} of "
            f"{self.searched} points predict more than {percent(best)} MFU "
            f"(up to {percent(self.top)}), "
            f"the best MFU any calibration run of this GPU generation and class published "
            f"({run}); read their days as a ranking, not as a duration to expect"
        ]


def _below(paths: list[str], p: GridPoint) -> list[str]:
    """A point's lines under the table: its errors, and what its cost leaves out for want of
    an exchange rate (the point is then off the front)."""
    name = point_name(paths, p.values)
    lines = [f"{name}: error: {e}" for e in p.errors]
    if p.omits:
        left = "; ".join(n.split(": declare ", 1)[0] for n in p.omits)
        lines.append(f"{name}: cost not comparable, off the front: {left}")
    return lines


def render_stream(
    setup: Setup,
    paths: list[str],
    points: Callable[[], Iterator[GridPoint]],
    fmt_name: str,
    note: str = "",
) -> Iterator[str]:
    """`render` for text, Markdown and JSON, a line at a time, reading the points as it goes
    (`points` iterates them afresh from the store each call: the text table's column widths
    take a first pass), so a grid of any size is printed without holding it. The same text as
    `render`, byte for byte."""
    if fmt_name == "json":
        yield from _json_stream(setup, paths, points, note)
        return
    md = fmt_name == "markdown"
    cell = markdown_text if md else printable
    head = [cell(c) for c in _head(paths)]
    title = f"What-if grid of {setup.file}" + (
        f", workload {setup.workload}" if setup.workload else ""
    )
    yield ("## " + markdown_text(title) if md else printable(title)) + "\n\n"
    errors: list[str] = []
    ceiling = _Ceiling()
    if md:
        yield "| " + " | ".join(head) + " |\n"
        yield "|" + "---|" * len(head) + "\n"
        for p in points():
            yield "| " + " | ".join(cell(c) for c in _row(p)) + " |\n"
            errors.extend(cell(line) for line in _below(paths, p))
            ceiling.add(p)
    else:
        widths = [len(c) for c in head]
        for p in points():
            widths = [max(w, len(cell(c))) for w, c in zip(widths, _row(p), strict=True)]
            errors.extend(cell(line) for line in _below(paths, p))
            ceiling.add(p)

        def line(r: list[str]) -> str:
            return "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() + "\n"

        yield line(head)
        for p in points():
            yield line([cell(c) for c in _row(p)])
    foot = "front: * = on the Pareto front of cost (TCO, else run cost) against days"
    errors += [cell(line) for line in ceiling.line()]
    yield "\n" + "".join(f"{e}\n" for e in errors) + (f"{note}\n" if note else "") + foot + "\n"


def _json_stream(
    setup: Setup, paths: list[str], points: Callable[[], Iterator[GridPoint]], note: str
) -> Iterator[str]:
    """`json.dumps(as_data(...), indent=2)` with the points written one by one."""
    mark = "\0points\0"  # stands for the points in the skeleton, then cut out
    data: dict[str, Any] = {**as_data(setup, paths, []), "points": [mark]}
    if note:
        data["coverage"] = note
    skeleton = json.dumps(finite_data(data), indent=2, ensure_ascii=False, allow_nan=False)
    before, after = skeleton.split("\n    " + json.dumps(mark) + "\n", 1)
    first = True
    for p in points():
        point = finite_data(_point_data(paths, p))
        text = json.dumps(point, indent=2, ensure_ascii=False, allow_nan=False)
        yield (before + "\n" if first else ",\n") + "    " + text.replace("\n", "\n    ")
        first = False
    if first:  # no point: an empty list, as json.dumps writes it
        yield before.removesuffix("[") + "[]" + after.removeprefix("  ]") + "\n"
        return
    yield "\n" + after + "\n"


W, H, PAD = 640, 400, 72
MAX_LABELS = 12  # front points labelled on the chart; the table names every point


def _short(path: str) -> str:
    """`site.pue` -> `pue`, `fabrics.compute.tiers.spine.count` -> `spine count`: the last
    words of a varied path, enough to tell the axes apart on a label."""
    parts = [p for p in path.replace("[", ".").replace("]", "").split(".") if p]
    return " ".join(parts[-2:]) if len(parts) > 2 else parts[-1] if parts else path


def _finite(x: float | None) -> bool:
    return x is not None and math.isfinite(x) and abs(x) < 1e300  # its scale stays finite


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    if high <= low:
        return [low]
    step = (high - low) / (count - 1)
    return [low + i * step for i in range(count)]


def _svg(points: list[GridPoint], paths: list[str]) -> str:
    known = [p for p in points if _finite(p.cost) and _finite(p.days)]  # no inf in the SVG
    if not known:
        return "<p>No point has both days and a cost to draw.</p>"
    ax = _Axes.around(known)
    currency = escape(known[0].currency or "")
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
        f'viewBox="0 0 {W} {H}" role="img" aria-label="cost against days">',
        *_axes_drawn(ax, known, currency),
        *_points_drawn(ax, known, paths, currency),
        "</svg>",
    ]
    return "\n".join(out)


@dataclass(frozen=True)
class _Axes:
    """The chart's ranges: days across (x0..x1), cost up (y0..y1)."""

    x0: float
    x1: float
    y0: float
    y1: float

    @classmethod
    def around(cls, known: list[GridPoint]) -> _Axes:
        """Ranges 2% wider than the points' (10% round a single value)."""
        xs = [float(p.days or 0.0) for p in known]
        ys = [float(p.cost or 0.0) for p in known]
        x0, x1 = min(xs), max(xs)
        y0, y1 = min(ys), max(ys)
        x0, x1 = (x0 * 0.98, x1 * 1.02) if x1 > x0 else (x0 * 0.9, x0 * 1.1 + 1e-9)
        y0, y1 = (y0 * 0.98, y1 * 1.02) if y1 > y0 else (y0 * 0.9, y0 * 1.1 + 1e-9)
        return cls(x0, x1, y0, y1)

    def px(self, x: float) -> float:
        return PAD + (x - self.x0) / (self.x1 - self.x0) * (W - 2 * PAD)

    def py(self, y: float) -> float:
        return H - PAD - (y - self.y0) / (self.y1 - self.y0) * (H - 2 * PAD)


def _axes_drawn(ax: _Axes, known: list[GridPoint], currency: str) -> list[str]:
    """The two axes, their ticks and their names."""
    out = [
        f'<line x1="{PAD}" y1="{H - PAD}" x2="{W - PAD}" y2="{H - PAD}" stroke="#333"/>',
        f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{H - PAD}" stroke="#333"/>',
    ]
    for t in _ticks(ax.x0, ax.x1):
        out.append(
            f'<text x="{ax.px(t):.1f}" y="{H - PAD + 18}" font-size="11" '
            f'text-anchor="middle">{t:,.2f}</text>'
        )
    y1 = ax.y1
    scale, unit = (1e6, " M") if y1 >= 1e6 else (1e3, " k") if y1 >= 1e4 else (1.0, "")
    for t in _ticks(ax.y0, ax.y1):
        out.append(
            f'<text x="{PAD - 6}" y="{ax.py(t) + 4:.1f}" font-size="11" '
            f'text-anchor="end">{t / scale:,.4g}{unit}</text>'
        )
    out.append(
        f'<text x="{W / 2}" y="{H - 16}" font-size="12" text-anchor="middle">'
        "training time in days (each point's fastest valid layout)</text>"
    )
    out.append(
        f'<text x="12" y="{H / 2}" font-size="12" text-anchor="middle" '
        f'transform="rotate(-90 12 {H / 2})">{_cost_name(known)} ({currency})</text>'
    )
    return out


def _points_drawn(ax: _Axes, known: list[GridPoint], paths: list[str], currency: str) -> list[str]:
    """The Pareto front's line, every point, and the front's labels."""
    px, py = ax.px, ax.py
    out = []
    front = sorted((p for p in known if p.pareto), key=lambda p: float(p.days or 0.0))
    if len(front) > 1:
        line = " ".join(f"{px(float(p.days or 0)):.1f},{py(float(p.cost or 0)):.1f}" for p in front)
        out.append(f'<polyline points="{line}" fill="none" stroke="#c33" stroke-width="1.5"/>')
    for p in known:
        x, y = px(float(p.days or 0.0)), py(float(p.cost or 0.0))
        label = escape(point_name(paths, p.values))
        fill = "#c33" if p.pareto else "#fff"
        out.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{fill}" stroke="#c33">'
            f"<title>{label}: {escape(days_cell(p))}, {p.cost:,.0f} {currency}</title></circle>"
        )
    for n, p in enumerate(front[:MAX_LABELS]):  # the front's points say what they vary
        x, y = px(float(p.days or 0.0)), py(float(p.cost or 0.0))
        short = ", ".join(f"{_short(k)} {v}" for k, v in zip(paths, p.values, strict=True))
        dy = -9 if n % 2 == 0 else 15  # alternate above and below: neighbours do not overlap
        out.append(
            f'<text x="{x + 7:.1f}" y="{y + dy:.1f}" font-size="10" fill="#822">'
            f"{escape(short)}</text>"
        )
    return out


def _cost_name(points: list[GridPoint]) -> str:
    return "total cost of ownership" if any(p.tco is not None for p in points) else "run cost"


def render_html(
    setup: Setup,
    paths: list[str],
    points: list[GridPoint],
    head: list[str],
    rows: list[list[str]],
    note: str = "",
) -> str:
    """A self-contained page: the chart, then the grid's table."""
    cells = "".join(f"<th>{escape(c)}</th>" for c in head)
    trs = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    ceiling = _Ceiling()
    for p in points:
        ceiling.add(p)
    below = [line for p in points for line in _below(paths, p)] + ceiling.line()
    notes = "".join(f"<p>{escape(line)}.</p>\n" for line in below)
    title = escape(f"What-if grid of {setup.file}, workload {setup.workload}")
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{HTML_CSP}">'
        f"<title>{title}</title><style>body{{font-family:sans-serif;margin:2em}}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}"
        "</style></head><body>\n"
        f"<h1>{title}</h1>\n{_svg(points, paths)}\n"
        "<p>Filled: on the Pareto front of cost (TCO, else run cost) against days.</p>\n"
        + (f"<p>{escape(note)}.</p>\n" if note else "")
        + f"<table><thead><tr>{cells}</tr></thead><tbody>{trs}</tbody></table>\n"
        + notes
        + "</body></html>\n"
    )


def write_text(report: GridReport) -> Iterator[str]:
    return render_stream(report.setup, report.paths, report.points, "text", report.note)


def write_markdown(report: GridReport) -> Iterator[str]:
    return render_stream(report.setup, report.paths, report.points, "markdown", report.note)


def write_json(report: GridReport) -> Iterator[str]:
    return render_stream(report.setup, report.paths, report.points, "json", report.note)


def write_html(report: GridReport) -> str:
    """The page draws every point at once: the points are read whole."""
    points = list(report.points())
    return render_html(
        report.setup, report.paths, points, *table(report.paths, points), report.note
    )
