"""`dclint cost` as text, JSON, Markdown or an HTML page: projected training time, energy,
cost and memory per workload, and each design's TCO, as dclint.analysis.costs computed them."""

from __future__ import annotations

from typing import Any

from dclint.analysis.costs import Costs
from dclint.analysis.steps import STEP_PARTS
from dclint.escaping import finite_json
from dclint.report.svg import si
from dclint.report.values import (
    NO_ACTIVATIONS,
    band,
    days_quoted,
    mfu_text,
    micro_signed,
    not_meaningful,
    predicted_step,
    tco_rows,
)

__all__ = ["render_html", "render_json", "render_markdown", "render_text"]


def _source(p: Any) -> str:
    return p.timing.mfu_source.split(" ", 1)[0]


def _hfu(value: float | None) -> str:
    """An HFU as the MFU beside it prints (mfu_text), '-' where there is none."""
    return "-" if value is None else mfu_text(value)


def _predicted(p: Any) -> str:
    t = p.timing
    if t.mfu_predicted is None:
        return "-"
    text = mfu_text(t.mfu_predicted.m_as(""))  # as the MFU row: one figure, one print
    if t.prediction is not None:
        low, high = t.prediction.band.mfu(t.mfu_predicted.m_as(""))
        text += f" ({band(100 * low, 100 * high)}%)"
    if not t.mfu_source.startswith("predicted"):
        gap = t.mfu.m_as("") / t.mfu_predicted.m_as("") - 1
        text += f" (declared {gap:+.0%})"
    return text


def _training(p: Any) -> str:
    """The training time, with its band where it comes from the predicted step."""
    return days_quoted(p.training_time, p.training_band)


def _part_row(key: str) -> Any:
    return lambda p, micro="u": _part(p, key, micro)


def _part(p: Any, key: str, micro: str = "u") -> str:
    """A part of the predicted step: its seconds and share; `micro` the micro prefix ('u' in
    the plain text, 'µ' in Markdown and HTML, as the review's step table prints it)."""
    pred = p.timing.prediction
    if pred is None or key not in pred.breakdown:
        return "-"
    seconds = pred.breakdown[key].m_as("s")
    return f"{si(seconds, 's', micro=micro)} ({seconds / pred.step_time.m_as('s'):.0%})"


OVERHEAD = STEP_PARTS["overhead"][0]  # a row only when a calibration profile adds one
# the power of the workload's share of the racks x PUE (its GPUs: the assumptions' 'power'
# line), not the review summary's 'Facility power (all racks: ...)' of every rack
POWER = "facility power (workload's GPUs)"


def _rows(projections: list[Any]) -> list[tuple[str, Any]]:
    """ROWS, without the calibrated overhead's when no projection has one."""
    calibrated = any(
        p.timing.prediction is not None and "overhead" in p.timing.prediction.breakdown
        for p in projections
    )
    shown = {
        label
        for label, term in OPTIONAL_TERMS.items()
        if any(term(p).magnitude > 0 for p in projections)
    }
    return [
        r
        for r in ROWS
        if (calibrated or r[0] != f"  {OVERHEAD}") and (r[0] not in OPTIONAL_TERMS or r[0] in shown)
    ]


# terms of the training time a row only when a workload declares what makes them (a batch-size
# ramp-up, evaluations, a communication_overhead: a predicted step's communication is in its
# MFU and among its parts above; a row 'communication 0 d' under moe-1.7t's 'expert all-to-all
# 895 ms (30%)' read as none, and the review's terms leave a zero term out)
OPTIONAL_TERMS: dict[str, Any] = {
    "communication": lambda p: p.timing.communication,
    "batch ramp-up": lambda p: p.timing.rampup,
    "evaluations": lambda p: p.timing.evaluation,
}


ROWS: tuple[tuple[str, Any], ...] = (
    ("design", lambda p: p.design),
    ("GPUs", lambda p: f"{p.gpus:,} x {p.gpu}"),
    ("precision", lambda p: p.precision),
    ("FLOPs (model)", lambda p: f"{p.flops.model.m_as('FLOP'):.3g} FLOP"),
    # MFU and HFU as JSON's mfu, hfu, mfu_predicted, hfu_predicted and mfu_convention: the HFU
    # beside each MFU on its count and basis (never below it; equal on hardware FLOPs)
    ("MFU", lambda p: f"{mfu_text(p.timing.mfu.m_as(''))} ({_source(p)})"),
    ("HFU at the MFU", lambda p: _hfu(p.hfu)),
    ("MFU predicted", lambda p: _predicted(p)),
    ("HFU predicted", lambda p: _hfu(p.hfu_predicted)),
    ("MFU/HFU counted", lambda p: p.mfu_convention),
    ("step time", lambda p: _fmt(p.timing.step_time, "s") if p.timing.step_time else "-"),
    # the review's one formatter of the predicted step and its band, over the JSON keys
    ("predicted step", lambda p: predicted_step(p.as_dict()) or "-"),
    # the step's parts in the review's words and order (STEP_PARTS), a part's time as its table
    # prints it ('176 ms', where this printed '0.176 s' beside the review's 'tensor-parallel
    # comm. 176 ms' for h100-40node's 'TP comm.')
    *((f"  {label}", _part_row(key)) for key, (label, _) in STEP_PARTS.items()),
    ("compute", lambda p: _fmt(p.timing.compute, "day")),
    ("communication", lambda p: _fmt(p.timing.communication, "day")),
    ("batch ramp-up", lambda p: _fmt(p.timing.rampup, "day")),
    ("evaluations", lambda p: _fmt(p.timing.evaluation, "day")),
    ("checkpoints", lambda p: _fmt(p.timing.checkpoint, "day")),
    ("failures", lambda p: _fmt(p.timing.failures, "day")),
    ("training time", lambda p: _training(p)),
    ("goodput", lambda p: _fmt(p.timing.goodput, "percent")),  # as REL001 prints it
    ("GPU-hours", lambda p: _fmt(p.gpu_hours, "hour")),
    (POWER, lambda p: _fmt(p.facility_power, "kW")),
    ("energy", lambda p: _fmt(p.energy, "MWh")),
    ("TFLOPS/W", lambda p: f"{p.efficiency.m_as('TFLOPS/W'):.3g}"),
    ("cost total", lambda p: "-" if p.cost is None else _fmt(p.cost)),
    ("memory/GPU", lambda p: _memory(p)),
)


def _memory(p: Any) -> str:
    """The memory a GPU holds, saying so when it leaves the activations out."""
    text = _fmt(p.memory.total, "GiB")
    return text + (NO_ACTIVATIONS if p.memory.activations is None else "")


def _fmt(q: Any, unit: str | None = None) -> str:
    from dclint.units import fmt

    return fmt(q, unit)


def _table(projections: list[Any]) -> str:
    header = ["workload", *(p.workload for p in projections)]
    rows = [header] + [
        [name, *(str(get(p)) for p in projections)] for name, get in _rows(projections)
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    )


def _tco_text(t: Any) -> str:
    """The TCO as text: the review's rows (values.tco_rows, the one formatter of a TCO),
    'TCO h100-40node: 77,131,423 CNY over 3 years, 320 GPUs' and an indented line a row."""
    total, *rest = tco_rows(t.as_dict())
    return "\n".join([f"TCO {t.design}: {total[1]}", *(f"  {k}: {v}" for k, v in rest)])


def _blocked(c: Costs) -> list[str]:
    """Per design whose projection is no figure, what the review says of it, the error and its
    place: 'bloom-176b: projection not meaningful until PAR003 layout-not-divisible is fixed:
    d.yaml:24:27: workload bloom-176b: 70 layers do not split over pp 12 stages (...)'."""
    return [
        f"{d.name}: projection {not_meaningful(b)}: {b.file}:{b.line}:{b.column}: {b.message}"
        for d in c.designs
        if (b := d.blocked) is not None
    ]


def _document(c: Costs, fmt_name: str) -> str:
    """The cost report as a document (Markdown or HTML): the same figures as the text."""
    from dclint.report.document import Block, write_html, write_markdown

    projections = c.projections
    title = "Training time, energy and cost"
    parts = [Block("h1", title)]
    parts += [Block("p", line) for line in _blocked(c)]
    if projections:
        header = ["", *(p.workload for p in projections)]
        # a step part as the review's step table prints it ('263 µs', where this printed
        # '263 us' in the Markdown beside the review's '263 µs' for moe-1.7t's DP comm.)
        steps = {f"  {label}" for label, _ in STEP_PARTS.values()}
        rows = [
            [name, *(str(get(p, "\u00b5") if name in steps else get(p)) for p in projections)]
            for name, get in _rows(projections)
        ]
        parts.append(Block("table", header=header, rows=rows))
    for p in projections:
        parts.append(Block("h3", f"Assumptions for {p.workload}"))
        parts.append(Block("ul", items=[micro_signed(a) for a in p.assumptions]))
    for d in c.designs:
        parts += [Block("p", f"{d.name}: {w} not projected: {r}") for w, r in d.unprojected]
        parts.append(Block("h2", f"TCO of {d.name}"))
        parts.append(Block("table", header=["Item", "Value"], rows=tco_rows(d.tco.as_dict())))
    return write_markdown(parts) if fmt_name == "markdown" else write_html(parts, title)


def render_markdown(c: Costs) -> str:
    return _document(c, "markdown")


def render_html(c: Costs) -> str:
    return _document(c, "html")


def render_json(c: Costs) -> str:
    data = {
        "projections": [p.as_dict() for p in c.projections],
        "unprojected": [
            {"design": d.name, "workload": w, "reason": r}
            for d in c.designs
            for w, r in d.unprojected
        ],
        "tco": [d.tco.as_dict() for d in c.designs],
        "not_meaningful": [
            {
                "design": d.name,
                "reason": not_meaningful(b),
                "rule": b.rule,
                "file": b.file,
                "line": b.line,
                "column": b.column,
                "message": b.message,
            }
            for d in c.designs
            if (b := d.blocked) is not None
        ],
    }
    return finite_json(data)


def render_text(c: Costs) -> str:
    projections = c.projections
    out = [line + "\n" for line in _blocked(c)]
    out += [_table(projections)] if projections else []
    for p in projections:
        out.append(
            f"\nassumptions for {p.workload}:\n" + "\n".join(f"  - {a}" for a in p.assumptions)
        )
    for d in c.designs:
        out += [f"\n{d.name}: {w} not projected: {r}" for w, r in d.unprojected]
        out.append("\n" + _tco_text(d.tco))
    return "\n".join(out).lstrip("\n") + "\n"
