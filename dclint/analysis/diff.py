"""`dclint diff A B`: design totals side by side, findings that appear or disappear, projections."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dclint.analysis.summary import DesignSummary, summarise
from dclint.analysis.sweep import Projected, projections
from dclint.engine.findings import DesignResult, Finding
from dclint.units import Quantity, fmt

__all__ = [
    "Diff",
    "Row",
    "compare",
    "totals",
]

Value = Quantity | int | float | str | None


@dataclass(frozen=True)
class Row:
    """One compared figure; `a`/`b` None where that design has no such figure."""

    label: str
    a: Value
    b: Value
    # a predicted training time's calibration band (low, high), as `dclint cost` prints it
    band_a: tuple[Quantity, Quantity] | None = None
    band_b: tuple[Quantity, Quantity] | None = None
    # a cost's declared prices left out for want of an exchange rate (Projection.unconverted)
    omits_a: tuple[str, ...] = ()
    omits_b: tuple[str, ...] = ()
    # how a figure was read from what the design declares: '1500 kVA x PF 0.95'
    note_a: str = ""
    note_b: str = ""

    @property
    def change(self) -> str:
        a, b = self.a, self.b
        if self.omits_a != self.omits_b:  # a total that leaves out what the other counts
            return "not comparable"
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
        if abs(d) < 1e-9:
            return ""
        # a ratio as NET001 prints it (2.00:1), the PUE as every report does (1.4)
        return f"{d:+.2f}" if "down:up" in self.label else f"{d:+.4g}"


@dataclass(frozen=True)
class Diff:
    a: str
    b: str
    rows: list[Row]
    new: list[Finding]  # in B only
    gone: list[Finding]  # in A only
    projections: list[Row]
    # the error that says a design cannot run its workload as stated (a layout that does not
    # split, a partitioned fabric): while it stands its projections are no figure
    # (dclint.engine.coverage.blocking), as the review and `dclint cost` say
    blocked_a: Finding | None = None
    blocked_b: Finding | None = None
    # findings in both (same rule, path and subject) whose measured value, limit or severity
    # differs: (A's, B's) -- a rack over its limit in both, at 130 kW in A and 200 kW in B
    changed: tuple[tuple[Finding, Finding], ...] = ()


def totals(s: DesignSummary) -> dict[str, Value]:
    """The compared figures of one design, by label."""
    out: dict[str, Value] = {
        "GPUs": s.gpus,
        "racks": s.racks,
        "IT load": s.it_load.to("kW"),
        "PUE": float(s.pue),
        "facility power (all racks)": s.facility_power.to("kW"),
        "utility capacity": s.utility_capacity.to("kW") if s.utility_capacity else None,
        # installed CDU capacity (no N+1 deduction, as the assumptions say); an air-cooled
        # design has none, not '0 kW' of it
        "cooling capacity (CDUs)": s.cooling_capacity.to("kW") if s.cdus else None,
        "liquid heat": s.liquid_heat.to("kW"),
    }
    for t in s.tiers:
        if t.ratio is not None:  # top tiers have no uplinks
            out[f"fabric {t.fabric}.{t.tier} down:up"] = t.ratio
    if s.storage is not None:
        st = s.storage
        declared = not st.tiers or len(st.unread) < len(st.tiers)  # else no figure, not 0
        out["training storage read"] = st.read_bandwidth.to("GB/s") if declared else None
        out["storage read demand"] = s.storage.demand.to("GB/s")
    return out


_INDEX = re.compile(r"\[\d+\]")


def _key(f: Finding) -> tuple[str, str, str]:
    """A finding's identity across two designs: its rule, subject and design path with the
    list positions out (`power.feeds[].current_rating`): an entry's position moves when one
    before it is added, removed or split off a range (`--set power.feeds.pf-a01...` splits
    pf-a[01-07]), and the subject (a feed's, a rack's id) says which entry it is."""
    return f.rule, _INDEX.sub("[]", f.path), f.subject


def compare(
    a: DesignResult,
    b: DesignResult,
    options: tuple[Any, Any] = ({}, {}),
    rules: Mapping[str, Any] | None = None,
) -> Diff:
    """Compare two checked designs (both loaded); `options` are each one's typed rule options,
    `rules` the rule classes by id (each one's `consequence` says which errors leave a
    projection no figure)."""
    from dclint.engine.coverage import blocking

    ta, tb = totals(summarise(a.design, options[0])), totals(summarise(b.design, options[1]))
    notes = (_read_as(a.design), _read_as(b.design))
    rows = [
        Row(
            label,
            ta.get(label),
            tb.get(label),
            note_a=notes[0].get(label, ""),
            note_b=notes[1].get(label, ""),
        )
        for label in dict.fromkeys([*ta, *tb])
    ]
    rows.append(_tco_row(a.design, b.design))
    gone, new, changed = _matched(a.findings, b.findings)
    pa, pb = projections(a.design), projections(b.design)
    proj = []
    none = Projected(None, None)
    for w in dict.fromkeys([*pa, *pb]):
        wa, wb = pa.get(w, none), pb.get(w, none)
        proj.append(Row(f"{w} training time", wa.days, wb.days, wa.band, wb.band))
        proj.append(
            Row(f"{w} cost", wa.cost, wb.cost, omits_a=wa.unconverted, omits_b=wb.unconverted)
        )
    rules = rules or {}
    return Diff(
        a.file,
        b.file,
        rows,
        new,
        gone,
        proj,
        blocking(a.findings, rules),
        blocking(b.findings, rules),
        changed,
    )


def _read_as(design: Any) -> dict[str, str]:
    """How a compared figure was read, by label, where the design declares it otherwise: a
    utility capacity in kVA is compared in kW through the site's power factor, as PWR006
    compares it ('1500 kVA x PF 0.95')."""
    from dclint.model.site import is_apparent

    site = design.site
    if site.utility_capacity is not None and is_apparent(site.utility_capacity):
        return {"utility capacity": f"{fmt(site.utility_capacity)} x PF {site.power_factor:g}"}
    return {}


def _tco_row(a: Any, b: Any) -> Row:
    """Each design's TCO as `dclint cost` totals it ('-' where it prices nothing), saying
    what it leaves out for want of an exchange rate; over its period, in the label where the
    periods agree, beside each figure where they do not."""
    from dclint.projection import tco

    def one(design: Any) -> tuple[Quantity | None, float, tuple[str, ...]]:
        try:
            t = tco(design)
        except Exception:  # a comparison must not fail because a projection did
            return None, 0.0, ()
        return (t.total if t.items else None), t.period.m_as("year"), t.unconverted

    (xa, ya, oa), (xb, yb, ob) = one(a), one(b)
    if ya == yb or xa is None or xb is None:
        years = ya if xa is not None else yb
        return Row(f"TCO over {years:g} years", xa, xb, omits_a=oa, omits_b=ob)
    return Row(
        "TCO",
        f"{fmt(xa)} over {ya:g} years",
        f"{fmt(xb)} over {yb:g} years",
        omits_a=oa,
        omits_b=ob,
    )


def _matched(
    a: list[Finding], b: list[Finding]
) -> tuple[list[Finding], list[Finding], tuple[tuple[Finding, Finding], ...]]:
    """(only in A, only in B, in both with other figures): the findings of one key paired in
    order, each once (two under one key in B against one in A: one is new)."""
    by_key: dict[tuple[str, str, str], list[Finding]] = {}
    for g in b:
        by_key.setdefault(_key(g), []).append(g)
    gone, paired, changed = [], set(), []
    for f in a:
        others = by_key.get(_key(f))
        if not others:
            gone.append(f)
            continue
        g = others.pop(0)
        paired.add(id(g))
        if (f.measured_text, f.limit_text, f.severity) != (
            g.measured_text,
            g.limit_text,
            g.severity,
        ):
            changed.append((f, g))
    new = [g for g in b if id(g) not in paired]
    return gone, new, tuple(changed)
