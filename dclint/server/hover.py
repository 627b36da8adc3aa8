"""What dclint computed at a place in a design: the text an editor shows on hover.

A position maps to the design path written there (the deepest value or key on that line at or
before the cursor); the path names an element (a rack entry, a feed, a fabric tier, a workload)
and the element's computed figures come from the same calculators the rules read. Findings on
the line add their rule's one-line doc and the `dclint explain` command.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path as FsPath
from typing import Any

from dclint.model.resolve import topology_of
from dclint.server.workspace import Diagnostic

__all__ = ["hover_text", "path_at"]

DesignPath = tuple[str | int, ...]


def path_at(source: Any, file: str, line: int, column: int) -> DesignPath | None:
    """The design path written at 1-based (line, column) of `file`, or None."""
    target = FsPath(file).resolve()
    best: tuple[int, int, DesignPath] | None = None
    main = FsPath(source.file).resolve()
    for table in (source.values, source.keys):
        for path, (ln, col) in table.items():
            if ln != line or col > column:
                continue
            where = source.files.get(path)
            here = FsPath(where).resolve() if where is not None else main
            if here != target:
                continue
            rank = (col, len(path))
            if best is None or rank > best[:2]:
                best = (col, len(path), path)
    return best[2] if best is not None else None


def hover_text(
    design: Any, path: DesignPath | None, findings: Iterable[Diagnostic], rules: dict[str, Any]
) -> str | None:
    """Markdown for the hover: the element's computed figures, then the findings' rule docs."""
    parts: list[str] = []
    if design is not None and path:
        try:
            facts = _facts(design, path)
        except Exception:  # a hover never fails the editor: figures are extra
            facts = []
        parts.extend(facts)
        try:
            value = _value_fact(design, path, rules)
        except Exception:
            value = None
        if value:
            parts.append(value)
    for d in findings:
        cls = rules.get(d.rule)
        summary = cls.summary() if cls is not None else d.rule
        parts.append(f"**{d.rule}** {summary}  \n`dclint explain {d.rule}` for the whole rule")
    return "\n\n".join(parts) if parts else None


# the section a path is in -> what a rule `needs` of a design to read it (its `needs`)
_SECTION_NEEDS = {
    "racks": "racks",
    "rack_types": "racks",
    "cooling": "cooling",
    "fabrics": "fabric",
    "storage": "storage",
    "workloads": "workload",
    "feeds": "feeds",
    "panels": "panels",
    "air_handlers": "air_handlers",
    "site": "site_power",
}


def _value_at(design: Any, path: DesignPath) -> Any:
    """The loaded value at `path` in the design model (None where the model has none)."""
    node = design
    for part in path:
        if isinstance(part, int):
            if not isinstance(node, (list, tuple)) or part >= len(node):
                return None
            node = node[part]
        elif isinstance(node, dict):
            node = node.get(part)
        else:
            node = getattr(node, part, None)
        if node is None:
            return None
    return node


def _value_fact(design: Any, path: DesignPath, rules: dict[str, Any]) -> str | None:
    """For a value with a unit (any section: CDU, site, storage, fabric): the value as dclint
    read it, in base units, and the rules that read its section."""
    import pint

    value = _value_at(design, path)
    if not isinstance(value, pint.Quantity):
        return None
    dotted = ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in path).replace(".[", "[")
    line = f"**{dotted}** = {_fmt(value)}" + _in_base(value)
    section = path[1] if path[0] == "power" and len(path) > 1 else path[0]
    need = _SECTION_NEEDS.get(str(section))
    readers = sorted(rid for rid, cls in rules.items() if need and need in cls.needs)
    if readers:
        line += f"  \nread by {', '.join(readers)}"
    return line


# the unprefixed unit a value is shown in beside its own, by dimension (SI, and bits and bytes)
_BASE_UNITS = ("W", "J", "V", "A", "s", "m", "m**2", "kg", "Pa", "L/s", "K", "B", "b/s", "B/s")


def _in_base(value: Any) -> str:
    """' (1.5e+06 W in base units)', or '' for a value of no dimension listed."""
    from dclint.units import parse_unit

    if value.units == parse_unit("degC") or str(value.units).startswith("delta_"):
        return ""
    for unit in _BASE_UNITS:
        target = parse_unit(unit)
        if value.dimensionality == target.dimensionality:
            base = value.to(target)
            return f" ({base.magnitude:.6g} {unit.replace('**2', '²')} in base units)"
    return ""


def _facts(design: Any, path: DesignPath) -> list[str]:
    head = path[0]
    if head == "racks" and len(path) >= 2 and isinstance(path[1], int):
        return _racks(design, path[:2])
    if head == "power" and len(path) >= 3 and path[1] == "feeds" and isinstance(path[2], int):
        return _feeds(design, path[:3])
    if head == "power" and len(path) >= 3 and path[1] == "panels" and isinstance(path[2], int):
        return _panels(design, path[:3])
    if head == "fabrics" and len(path) >= 2 and isinstance(path[1], int):
        return _tiers(design, path)
    if head == "workloads" and len(path) >= 2 and isinstance(path[1], int):
        return _workload(design, path[1])
    return []


def _fmt(q: Any, unit: str | None = None) -> str:
    from dclint.units import fmt

    return fmt(q, unit)


def _racks(design: Any, entry: DesignPath) -> list[str]:
    from dclint.units import Q_

    racks = [r for r in topology_of(design).racks if tuple(r.path) == entry]
    if not racks:
        return []
    first = racks[0]
    name = first.id if len(racks) == 1 else f"{first.id} .. {racks[-1].id} ({len(racks)} racks)"
    platform = first.platform_key or "no platform"
    nodes = (
        f" x {first.nodes}" if first.platform is not None and first.platform.kind == "node" else ""
    )
    design_kw = max(r.it_load.m_as("kW") for r in racks)
    peak_kw = max(r.peak_load.m_as("kW") for r in racks)
    limit = _rack_limit(design, first)
    lines = [
        f"**rack {name}**: {platform}{nodes}, {first.gpus} GPUs a rack",
        f"- design IT load {_fmt(Q_(design_kw, 'kW'))}, peak {_fmt(Q_(peak_kw, 'kW'))}"
        + (f" against the rack limit {limit}" if limit else ""),
        f"- heat to liquid {_fmt(first.liquid_heat)}, to air {_fmt(first.air_heat)}",
    ]
    if first.feed_ids:
        lines.append(f"- feeds: {', '.join(first.feed_ids)}")
    return ["\n".join(lines)]


def _rack_limit(design: Any, rack: Any) -> str:
    """The rack power limit in effect by default for this rack: its row's, hall's or site's
    envelope, else its platform's, else the rack limit (a config may change the last two)."""
    try:
        from dclint.engine.config import default_options
        from dclint.engine.shared import shared_settings

        shared = shared_settings(default_options())
        limit = rack.power_limit(shared.rack_power_limit, shared.platform_rack_limits)[0]
        return _fmt(limit)
    except Exception:
        return ""


def _feeds(design: Any, entry: DesignPath) -> list[str]:
    from dclint.calc.power import feed_allocation
    from dclint.units import Q_

    topo = topology_of(design)
    feeds = [f for f in topo.feeds.values() if tuple(f.path) == entry]
    if not feeds:
        return []
    design_alloc = feed_allocation(topo, False)
    peak_alloc = feed_allocation(topo, True)
    lines = []
    for feed in feeds[:8]:
        cap = feed.capacity
        load = design_alloc.get(feed.id, Q_(0.0, "kW"))
        peak = peak_alloc.get(feed.id, Q_(0.0, "kW"))
        racks = ", ".join(r.id for r in feed.racks) or "no rack"
        lines.append(
            f"- **feed {feed.id}**: derated capacity {_fmt(cap, 'kW')} at {feed.volts:.1f} V; "
            f"allocated {_fmt(load, 'kW')} (design), {_fmt(peak, 'kW')} (peak); feeds {racks}"
        )
    if len(feeds) > 8:
        lines.append(f"- ... and {len(feeds) - 8} more feeds written by this entry")
    return ["\n".join(lines)]


def _panels(design: Any, entry: DesignPath) -> list[str]:
    topo = topology_of(design)
    panels = [p for p in topo.panels.values() if tuple(p.path) == entry]
    return [
        f"**panel {p.id}**: capacity {_fmt(p.capacity, 'kW')}; "
        f"{len(p.feeds)} feeds, {len(p.children)} panels below"
        for p in panels
    ]


def _tiers(design: Any, path: DesignPath) -> list[str]:
    from dclint.calc.fabric_tiers import tier_bandwidths

    index = path[1]
    assert isinstance(index, int)
    tiers = tier_bandwidths(design, index)
    wanted = None
    if len(path) >= 4 and path[2] == "tiers" and isinstance(path[3], int):
        wanted = path[3]
    lines = []
    for i, t in enumerate(tiers):
        if wanted is not None and i != wanted:
            continue
        ratio = f"{t.ratio:.2f}:1 (down:up)" if t.ratio is not None else "no uplinks (top tier)"
        up = _fmt(t.up, "Tb/s") if t.up is not None else "-"
        note = f"; {t.note}" if t.note else ""
        lines.append(
            f"- **tier {t.name}** ({t.switches} switches): {_fmt(t.down, 'Tb/s')} down, "
            f"{up} up, oversubscription {ratio}{note}"
        )
    return ["\n".join(lines)] if lines else []


def _workload(design: Any, index: int) -> list[str]:
    from dclint.projection import project_workloads, unprojected

    wl = design.workloads[index]
    for p in project_workloads(design):
        if p.index != index:
            continue
        t = p.timing
        lines = [f"**workload {p.workload}** on {p.gpus} x {p.gpu}"]
        if t.prediction is not None and t.mfu_predicted is not None:
            from dclint.units import fmt_band

            # as `dclint cost` prints them: the step and the MFU with their calibrated bands, the
            # MFU on the workload's FLOP basis (mfu_basis) and the HFU on the same count, to 4
            # figures; the memory in GiB
            pred, mfu, hfu = t.prediction, t.mfu_predicted.m_as(""), p.hfu_predicted
            seconds = pred.step_time.m_as("s")
            step_band = fmt_band(*pred.band.step_time(seconds), 3)
            low, high = pred.band.mfu(mfu)
            lines.append(
                f"- predicted step {_fmt(pred.step_time, 's')} ({step_band} s), MFU predicted"
                f" {mfu * 100:.4g}% ({fmt_band(100 * low, 100 * high)}%)"
                + ("" if hfu is None else f" (HFU {hfu * 100:.4g}%)")
            )
        elif t.prediction_note:
            lines.append(f"- step time not predicted: {t.prediction_note}")
        memory = _fmt(t.memory.total, "GiB")
        if t.memory.activations is None:
            memory += " (excl. activations: not estimated)"
        lines.append(f"- memory a GPU {memory}")
        # a run the design prices nothing of has no cost, not a cost of 0 (`dclint cost`: '-')
        cost = "- (nothing priced)" if p.cost is None else _fmt(p.cost)
        lines.append(f"- training time {_fmt(p.training_time, 'day')}, cost {cost}")
        return ["\n".join(lines)]
    for name, reason in unprojected(design):
        if name == wl.id:
            return [f"**workload {name}**: not projected: {reason}"]
    return []
