"""Layered diagrams (power one-line, cooling, fabric tiers) drawn as inline SVG, layer under
layer two boxes a row, and as Mermaid flowcharts for Markdown (GitHub draws those)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from dclint.analysis.diagrams import Graph, Node
from dclint.escaping import html_text as escape
from dclint.escaping import mermaid_label
from dclint.report.svg import BAR, FONT, OVER, PALE

__all__ = ["mermaid", "svg"]

# Two boxes a row at the SVG's own scale fill a printed page's text width (about 665 CSS px on
# A4 or Letter), so 12 px text prints at 9 pt or more: a layer with more boxes wraps onto rows.
COLS, BOX_W, BOX_H, COL_GAP, ROW_GAP, LAYER_GAP, LINE_H = 2, 305, 62, 26, 16, 36, 14
WIDTH = COLS * BOX_W + (COLS - 1) * COL_GAP
DOWN_MOST = 3  # boxes a layer may have for the Mermaid flowchart to run down the page


def _height(g: Graph) -> int:
    """A box's height: a line or two taller where some box states the consequence of its
    loss."""
    return BOX_H + LINE_H * max((_loss_lines(n) for n in g.nodes), default=0)


def _loss_lines(node: Node) -> int:
    return min(len(_wrap(node.consequence, 44)), 2) if node.consequence else 0


def _positions(
    g: Graph, box_h: int
) -> tuple[dict[str, tuple[float, float]], list[tuple[float, float]]]:
    """Top-left corner of each box, layer under layer in the order `_ordered` gives, COLS boxes
    a row (a row of one is centred), and each row's top and bottom."""
    out: dict[str, tuple[float, float]] = {}
    rows: list[tuple[float, float]] = []
    y = 0.0
    layers: dict[int, list[str]] = {}
    for key, layer in _ordered(g):
        layers.setdefault(layer, []).append(key)
    for n, keys in enumerate(layers.values()):
        if n:
            y += LAYER_GAP - ROW_GAP
        for i in range(0, len(keys), COLS):
            row = keys[i : i + COLS]
            left = (WIDTH - len(row) * BOX_W - (len(row) - 1) * COL_GAP) / 2
            for j, key in enumerate(row):
                out[key] = (left + j * (BOX_W + COL_GAP), y)
            rows.append((y, y + box_h))
            y += box_h + ROW_GAP
    return out, rows


def _ordered(g: Graph) -> list[tuple[str, int]]:
    """Node keys layer by layer, each layer sorted by the mean rank of its parents (the
    barycentre heuristic of layered drawing), so edges cross as little as they can."""
    parents: dict[str, list[str]] = {}
    for a, b, _ in g.edges:
        parents.setdefault(b, []).append(a)
    rank: dict[str, float] = {}
    out: list[tuple[str, int]] = []
    for layer, nodes in g.layers().items():
        keys = [n.key for n in nodes]
        found = [rank[p] for k in keys for p in parents.get(k, []) if p in rank]
        default = sum(found) / len(found) if found else 0.0

        def centre(key: str, default: float = default) -> float:
            ranks = [rank[p] for p in parents.get(key, []) if p in rank]
            return sum(ranks) / len(ranks) if ranks else default

        keys.sort(key=centre)  # stable: ties keep the design's order
        # ranks about the layer's middle, as _positions centres each column
        rank.update({k: i - (len(keys) - 1) / 2 for i, k in enumerate(keys)})
        out += [(k, layer) for k in keys]
    return out


def _box(node: Node, x: float, y: float, box_h: int = BOX_H) -> str:
    colour = OVER if node.over else BAR
    width = 4 if node.binding or node.over else 1.5
    cls = "node over" if node.over else ("node binding" if node.binding else "node")
    fill = "#fff5f5" if node.over else ("#ebf8ff" if node.binding else "#ffffff")
    out = [
        f'<g class="{cls}" data-id="{escape(node.key)}">',
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{BOX_W}" height="{box_h}" rx="4" fill="{fill}" '
        f'stroke="{colour}" stroke-width="{width}"/>',
    ]
    title = node.title + (" [binding]" if node.binding else "")
    if node.rules:
        title += " \u2014 " + ", ".join(node.rules)
    out.append(
        f'<text x="{x + 6:.1f}" y="{y + 17:.1f}" font-weight="bold" '
        f'fill="{OVER if node.over else "#1a202c"}">{escape(_clip(title, 40))}</text>'
    )
    for i, line in enumerate(_wrap(node.detail, 44)[:2]):
        out.append(f'<text x="{x + 6:.1f}" y="{y + 34 + LINE_H * i:.1f}">{escape(line)}</text>')
    for i, line in enumerate(_wrap(node.consequence, 44)[:2] if node.consequence else []):
        out.append(  # what the element's loss takes, in the over colour
            f'<text class="consequence" x="{x + 6:.1f}" y="{y + 34 + LINE_H * (2 + i):.1f}" '
            f'fill="{OVER}">{escape(line)}</text>'
        )
    if node.share is not None and node.share == node.share:  # load against capacity, a gauge
        w = min(max(node.share, 0.0), 1.0) * (BOX_W - 12)  # full for a load on no capacity (inf)
        out.append(
            f'<rect x="{x + 6:.1f}" y="{y + box_h - 7:.1f}" width="{BOX_W - 12}" height="4" '
            f'fill="{PALE}"/><rect x="{x + 6:.1f}" y="{y + box_h - 7:.1f}" width="{w:.1f}" '
            f'height="4" fill="{colour}"/>'
        )
    tip = node.detail + (f"; {node.consequence}" if node.consequence else "")
    out.append(f"<title>{escape(node.title)}: {escape(tip)}</title></g>")
    return "".join(out)


def svg(g: Graph, title: str, chart_id: str) -> str:
    """The graph as one SVG, WIDTH wide: boxes in layers down the page, edges as elbow
    connectors; an edge that skips rows runs down the channel between the columns."""
    box_h = _height(g)
    pos, rows = _positions(g, box_h)
    height = rows[-1][1] + 32 if rows else 32
    tops = [a for a, _ in rows]
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH + 4} {height:.0f}" '
        f'width="{WIDTH + 4}" height="{height:.0f}" role="img" class="diagram {g.name}" '
        f'aria-labelledby="{chart_id}-t" {FONT}>',
        f'<title id="{chart_id}-t">{escape(title)}</title><g transform="translate(2,26)">',
    ]
    channel = WIDTH / 2
    for a, b, _ in g.edges:
        if a not in pos or b not in pos:
            continue
        x1, y1 = pos[a][0] + BOX_W / 2, pos[a][1] + box_h
        x2, y2 = pos[b][0] + BOX_W / 2, pos[b][1]
        # rows are in order of their tops: bisect for the row over b and the row under a
        over_b = bisect_left(tops, y2) - 1
        above = (tops[over_b] + box_h + y2) / 2 if over_b >= 0 else y2 - LAYER_GAP / 2
        under_a = bisect_right(tops, y1)
        if under_a >= len(tops) or tops[under_a] >= y2:  # b's row is the next one down
            path = f"M{x1:.1f},{y1:.1f} V{above:.1f} H{x2:.1f} V{y2:.1f}"
        else:
            below = y1 + (tops[under_a] - y1) / 2
            path = (
                f"M{x1:.1f},{y1:.1f} V{below:.1f} H{channel:.1f} V{above:.1f} H{x2:.1f} V{y2:.1f}"
            )
        out.append(f'<path d="{path}" fill="none" stroke="#a0aec0" stroke-width="1.2"/>')
    out += [_box(n, *pos[n.key], box_h) for n in g.nodes]
    out.append(f'</g><text x="2" y="16" font-weight="bold" font-size="13">{escape(title)}</text>')
    return "".join(out) + "</svg>"


_label = mermaid_label  # quotes, brackets, pipes, `<`, `#` as Mermaid entity codes


def mermaid(g: Graph) -> str:
    """A Mermaid flowchart, down the page as the SVG runs (left to right for wide layers);
    over-limit elements in red, the binding tier bold."""
    ids = {n.key: f"n{i}" for i, n in enumerate(g.nodes)}
    widest = max((len(nodes) for nodes in g.layers().values()), default=0)
    lines = ["```mermaid", "flowchart TD" if widest <= DOWN_MOST else "flowchart LR"]
    for n in g.nodes:
        title = n.title + (" binding" if n.binding else "")
        if n.rules:
            title += " - " + ", ".join(n.rules)
        loss = f"<br/>{_label(n.consequence)}" if n.consequence else ""
        lines.append(f'  {ids[n.key]}["{_label(title)}<br/>{_label(n.detail)}{loss}"]')
    for a, b, label in g.edges:
        if a in ids and b in ids:
            lines.append(f"  {ids[a]} -->{f'|{_label(label)}|' if label else ''} {ids[b]}")
    over = [ids[n.key] for n in g.nodes if n.over]
    binding = [ids[n.key] for n in g.nodes if n.binding and not n.over]
    lines.append("  classDef over fill:#fed7d7,stroke:#c53030,stroke-width:3px,color:#742a2a")
    lines.append("  classDef binding stroke:#2b6cb0,stroke-width:3px")
    if over:
        lines.append(f"  class {','.join(over)} over")
    if binding:
        lines.append(f"  class {','.join(binding)} binding")
    lines.append("```")
    return "\n".join(lines)


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return [_clip(x, width) for x in lines]


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "\u2026"
