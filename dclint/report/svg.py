"""Hand-written SVG for the html review: bar charts with SI-prefixed axes, no plotting library."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from dclint.escaping import html_text as escape

__all__ = [
    "BAR",
    "LIMIT",
    "OVER",
    "ROWS_MOST",
    "Bar",
    "Part",
    "hbars",
    "nice_ticks",
    "si",
    "stacked",
]

BAR, OVER, LIMIT, PALE = "#2b6cb0", "#c53030", "#dd6b20", "#bee3f8"
PALETTE = ("#2b6cb0", "#dd6b20", "#38a169", "#805ad5", "#d69e2e", "#319795", "#e53e3e", "#718096")
_PREFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))
_MONEY_PREFIXES = {"T": "tn", "G": "bn"}
FONT = 'font-family="system-ui,sans-serif" font-size="12"'


def si(value: float, unit: str = "", digits: int = 3, micro: str = "\u00b5") -> str:
    """A number with an SI prefix, never an exponent: 1.5e8 -> '150 M', 0.25 -> '0.25'; '-'
    for a number that is not finite (NaN, infinity). `micro`: the micro prefix ('u' in the
    plain-ASCII text outputs, as '74 us a GEMM' in `dclint cost`'s assumptions)."""
    if not math.isfinite(value):
        return "-"
    # rounded first, so a value that rounds up to the next prefix takes it: 0.9996 s is '1 s',
    # not '1e+03 ms'
    value = float(f"{value:.{digits}g}")
    money = len(unit) == 3 and unit.isalpha() and unit.isupper()  # "150 M CNY", not "MCNY"
    for scale, prefix in _PREFIXES:
        if abs(value) >= scale:
            text = f"{value / scale:.{digits}g}"
            if "e" in text:  # beyond the largest prefix: whole units of it, grouped
                text = f"{value / scale:,.0f}"
            if money:  # as a finance reader writes money: '2.66 bn CNY', not '2.66 G CNY'
                return f"{text} {_MONEY_PREFIXES.get(prefix, prefix)} {unit}"
            return f"{text} {prefix}{unit}"
    if unit and unit != "%" and not money and 0 < abs(value) < 1:
        for scale, prefix in ((1e-3, "m"), (1e-6, micro)):  # 0.000575 s -> 575 µs
            if abs(value) >= scale:
                return f"{value / scale:.{digits}g} {prefix}{unit}"
    text = f"{value:.{digits}g}" if value else "0"
    if "e" in text:  # tiny numbers: plain decimals
        text = f"{value:.6f}".rstrip("0").rstrip(".")
    return f"{text} {unit}".rstrip()


# the largest value an axis reaches: its round top tick stays finite (1e308 would round to inf)
AXIS_MOST = 1e300


def nice_ticks(top: float, count: int = 5) -> list[float]:
    """Round tick values from 0 to at least `top` (1, 2, 2.5 or 5 x a power of ten apart)."""
    if top <= 0 or not math.isfinite(top):
        return [0.0, 1.0]
    top = min(top, AXIS_MOST)
    raw = top / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    n = math.ceil(top / step - 1e-9)
    return [i * step for i in range(n + 1)]


@dataclass(frozen=True)
class Bar:
    """One row of a horizontal bar chart: a value against an optional limit. `low` draws the
    span from the smallest to the largest of a group (a distribution, not one bar a rack)."""

    label: str
    value: float
    limit: float | None = None
    flagged: bool = False
    note: str = ""
    low: float | None = None
    key: str = ""  # the element's id, kept in the SVG (data-id) for readers and tests
    verdict: bool | None = None  # over its limit by the findings (None: judged by the bar)

    @property
    def over(self) -> bool:
        if self.verdict is not None:
            return self.verdict
        return self.flagged or (self.limit is not None and self.value > self.limit * (1 + 1e-9))


def _drawn(value: float | None, most: float) -> float | None:
    """Where a value is drawn on an axis that ends at `most`: past its end (an infinite
    value: a load on no capacity) at the end, NaN not at all (None). No SVG attribute is ever
    `inf` or `nan`."""
    if value is None or value != value:
        return None
    return max(min(value, most), -most)


def _text(x: float, y: float, text: str, anchor: str = "start", extra: str = "") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>{escape(text)}</text>'


def _head(width: float, height: float, chart_id: str, title: str) -> list[str]:
    """A chart's opening tag, its accessible title and the title drawn in bold."""
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-labelledby="{chart_id}-t" {FONT}>',
        f'<title id="{chart_id}-t">{escape(title)}</title>',
        _text(0, 16, _clip(title, TITLE_MOST), extra=' font-weight="bold"'),
    ]


CHART_W = 640  # a printed page's text width at the SVG's own scale: 12 px text prints at 9 pt
# characters of a chart's drawn title (its <title> keeps them all): past CHART_W the SVG cuts
# the text off unmarked (a 60-character workload id cut 'Predicted step of ..., 2.62 s (1.89-2'
# mid-figure). dclint's own figure: the samples' longest title, 80 characters, prints 404 pt
# of the chart's 480 (5.05 pt a character, bold 9 pt), so 88 take some 445 pt; the longest
# title printed today is whole
TITLE_MOST = 88
ROWS_MOST = 18  # bars a chart holds and still fits a printed page at that scale


def hbars(title: str, bars: Sequence[Bar], unit: str, chart_id: str) -> str:
    """Horizontal bars, CHART_W wide: each row's label and note on a line above its bar (never
    over the data), the limit drawn as a tick on the bar; red where a value is over its limit
    or flagged."""
    plot_w, row_h = CHART_W - 10, 36
    known = [v for b in bars for v in (b.value, b.limit or 0.0) if math.isfinite(v)]
    ticks = nice_ticks(max([*known, 1e-12]))
    scale = plot_w / ticks[-1]
    height = 40 + row_h * len(bars) + 24
    out = _head(CHART_W, height, chart_id, title)
    base = 30
    for t in ticks:
        x = t * scale
        out.append(
            f'<line x1="{x:.1f}" y1="{base}" x2="{x:.1f}" y2="{base + row_h * len(bars)}" '
            'stroke="#e2e8f0"/>'
        )
        tick = f"{si(t)}%" if unit == "%" else si(t, unit)
        anchor = "start" if t == 0 else ("end" if t == ticks[-1] else "middle")
        out.append(_text(x, base + row_h * len(bars) + 16, tick, anchor, ' fill="#4a5568"'))
    for i, b in enumerate(bars):
        y = base + i * row_h
        colour = OVER if b.over else BAR
        cls = "bar over" if b.over else "bar"
        out.append(_text(0, y + 13, _clip(b.label, 38), extra=' font-weight="bold"'))
        note = b.note or si(b.value, unit)
        out.append(
            _text(
                CHART_W, y + 13, _clip(note, 52), "end",
                f' fill="{OVER if b.over else "#1a202c"}"',
            )
        )  # fmt: skip
        value, low = _drawn(b.value, ticks[-1]), _drawn(b.low, ticks[-1])
        low = None if low is None else max(low, 0.0)
        limit = _drawn(b.limit, ticks[-1])
        if value is None:  # no number to draw: the note says why
            continue
        if low is not None and low < value:
            out.append(
                f'<rect x="0" y="{y + 18}" width="{low * scale:.1f}" height="12" fill="{PALE}"/>'
            )
        start = low * scale if low is not None and low < value else 0.0
        end = max(value, 0.0) * scale
        out.append(
            f'<rect class="{cls}" data-id="{escape(b.key or b.label)}" x="{start:.1f}" '
            f'y="{y + 18}" width="{max(end - start, 1.0):.1f}" height="12" fill="{colour}"/>'
        )
        if limit is not None:
            lx = limit * scale
            out.append(
                f'<line class="limit" x1="{lx:.1f}" y1="{y + 15}" x2="{lx:.1f}" y2="{y + 33}" '
                f'stroke="{LIMIT}" stroke-width="2" stroke-dasharray="4 2"/>'
            )
    out.append("</svg>")
    return "".join(out)


@dataclass(frozen=True)
class Part:
    name: str
    value: float


def stacked(title: str, parts: Sequence[Part], unit: str, chart_id: str) -> str:
    """One horizontal bar split into parts, each named in a key below the bar (not over it),
    CHART_W wide."""
    plot_w = CHART_W - 110
    parts = [p for p in parts if math.isfinite(p.value)]  # NaN or infinity: no share to draw
    total = min(sum(max(p.value, 0.0) for p in parts), AXIS_MOST) or 1e-12
    rows = math.ceil(len(parts) / 2)
    height = 84 + 20 * rows
    out = _head(CHART_W, height, chart_id, title)
    x = 0.0
    for i, p in enumerate(parts):
        w = min(max(p.value, 0.0) / total, 1.0) * plot_w
        out.append(
            f'<rect class="part" data-id="{escape(p.name)}" x="{x:.1f}" y="26" '
            f'width="{w:.1f}" height="22" fill="{PALETTE[i % len(PALETTE)]}"/>'
        )
        x += w
    out.append(_text(plot_w + 8, 42, f"{si(total, unit)} in all"))
    for i, p in enumerate(parts):
        kx, ky = (i % 2) * (CHART_W // 2), 70 + (i // 2) * 20
        out.append(
            f'<rect x="{kx}" y="{ky - 10}" width="12" height="12" '
            f'fill="{PALETTE[i % len(PALETTE)]}"/>'
        )
        share = 100 * min(max(p.value, 0.0) / total, 1.0)
        text = _clip(f"{p.name}: {si(p.value, unit)} ({share:.0f}%)", 44)
        out.append(_text(kx + 18, ky, text))
    out.append("</svg>")
    return "".join(out)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "\u2026"
