"""Inline-SVG charts for the html review, drawn with matplotlib (the optional `html` extra)."""

from __future__ import annotations

import io
import re
import warnings
from typing import Any

from dclint.analysis.summary import DesignSummary
from dclint.errors import ConfigError

__all__ = ["BAR", "LIMIT", "OVER", "charts", "require_matplotlib"]

_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
BAR, OVER, LIMIT = "#2b6cb0", "#c53030", "#dd6b20"  # the pixel test looks for BAR and OVER


def require_matplotlib() -> Any:
    try:
        import matplotlib
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError:
        raise ConfigError("the html format needs matplotlib: pip install 'dclint[html]'") from None
    return matplotlib


def _svg(fig: Any, salt: str) -> str:
    import matplotlib

    buf = io.StringIO()
    # a salt per chart keeps the SVG ids of several charts on one page apart
    with (
        matplotlib.rc_context({"svg.hashsalt": salt, "svg.fonttype": "none"}),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")  # glyphs missing from DejaVu for some names
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    # the RDF metadata block only names namespaces and matplotlib's site: drop it
    return _METADATA.sub("", text[text.index("<svg") :])


def _figure(n: int) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(min(11.0, 4.0 + 0.18 * n), 3.4), dpi=96)
    return fig, fig.add_subplot()


def _labels(ax: Any, names: list[str]) -> None:
    step = max(1, len(names) // 40)  # keep at most ~40 legible labels
    ax.set_xticks(range(0, len(names), step), names[::step], rotation=90, fontsize=7)


def _bars(
    title: str, names: list[str], values: list[float], limits: list[float], unit: str, salt: str
) -> str:
    fig, ax = _figure(len(names))
    colours = [OVER if v > lim * (1 + 1e-9) else BAR for v, lim in zip(values, limits, strict=True)]
    ax.bar(range(len(names)), values, color=colours, width=0.8)
    ax.step(range(len(names)), limits, where="mid", color=LIMIT, linestyle="--", label="limit")
    if len(names) == 1:
        ax.axhline(limits[0], color=LIMIT, linestyle="--")
    ax.set_title(title, fontsize=10)
    ax.set_ylabel(unit)
    ax.legend(fontsize=8, loc="lower right")
    _labels(ax, names)
    if len(names) < 4:  # keep a lone bar from filling the whole chart
        ax.set_xlim(-1.5, len(names) + 0.5)
    ax.set_ylim(0, max([x for x in (*values, *limits, 1e-9) if x == x]) * 1.15)  # skip NaN
    return _svg(fig, salt)


def charts(
    s: DesignSummary | None, cost: dict[str, float], currency: str, prefix: str
) -> list[tuple[str, str]]:
    """(title, svg) of each chart the data allows."""
    out: list[tuple[str, str]] = []
    if s is None:
        return out
    if s.rack_loads:
        out.append(
            (
                "Rack load against the rack limit",
                _bars(
                    "Rack IT load (kW)",
                    [r.id for r in s.rack_loads],
                    [r.it_load.m_as("kW") for r in s.rack_loads],
                    [r.limit.m_as("kW") for r in s.rack_loads],
                    "kW",
                    f"{prefix}-racks",
                ),
            )
        )
    items = [*(("feed " + u.id, u) for u in s.feeds), *(("CDU " + u.id, u) for u in s.cdus)]
    if items:
        out.append(
            (
                "Feed and CDU utilisation against capacity",
                _bars(
                    "Load / capacity (%)",
                    [n for n, _ in items],
                    [u.share * 100 for _, u in items],
                    [100.0] * len(items),
                    "% of capacity",
                    f"{prefix}-util",
                ),
            )
        )
    tiers = [t for t in s.tiers if t.ratio is not None]
    if tiers:
        out.append(
            (
                "Fabric oversubscription per tier",
                _bars(
                    "Downlink : uplink ratio",
                    [f"{t.fabric}.{t.tier}" for t in tiers],
                    [t.ratio or 0.0 for t in tiers],
                    [t.limit if t.limit is not None else float("nan") for t in tiers],  # no limit
                    "down:up",
                    f"{prefix}-fabric",
                ),
            )
        )
    if cost:
        fig, ax = _figure(len(cost))
        names = list(cost)
        ax.barh(range(len(names)), [cost[n] for n in names], color=BAR)
        ax.set_yticks(range(len(names)), names, fontsize=8)
        ax.set_xlabel(currency)
        ax.set_title(f"Cost breakdown ({currency})", fontsize=10)
        out.append(("Cost breakdown", _svg(fig, f"{prefix}-cost")))
    return out
