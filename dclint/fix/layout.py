"""Apply the layout search's best layout to a workload, as a text edit of its design file.

The workload's `parallel` value is replaced with the best layout in flow style, and its
`micro_batch` and `recompute` are set (replaced where written, added below `parallel` where
not); `gpus` is set where the best layout uses fewer GPUs. Everything else in the file stays
as written.
"""

from __future__ import annotations

from typing import Any

from dclint.fix.text import Edit, node_at
from dclint.model.defaults import MEMORY_RESERVE

__all__ = ["LayoutEdit", "best_layout_edits", "layout_edits"]


class LayoutEdit:
    """The edits that make a workload run the best layout, and one line saying what changed."""

    def __init__(self, edits: list[Edit], summary: str) -> None:
        self.edits = edits
        self.summary = summary


def best_layout_edits(
    design: Any, text: str, index: int, reserve: float = MEMORY_RESERVE
) -> LayoutEdit | str:
    """Edits to `text` (the design file that writes workload `index`) applying the best valid
    layout, or why there is none to apply."""
    from dclint.projection.search.plan import layout_values, plan_layouts

    wl = design.workloads[index]
    plan = plan_layouts(design, wl, reserve=reserve, rank_only=True)
    if isinstance(plan, str):
        return plan
    if not plan.result.valid:
        return f"workload {wl.id}: the search found no valid layout"
    gap = plan.gap() if plan.declared is not None else None
    return layout_edits(
        text, index, wl.id, plan.result.valid[0], layout_values(plan.result.valid[0], wl.gpus), gap
    )


def layout_edits(
    text: str, index: int, wid: str, best: Any, values: dict[str, str], gap: float | None
) -> LayoutEdit | str:
    """Edits to `text` that set workload `index`'s keys to `values` (layout `best`)."""
    found = node_at(text, ("workloads", index))
    if found is None or found[1].flow_style:
        return f"workload {wid} is not written as a block mapping in this file"
    mapping = found[1]
    edits: list[Edit] = []
    anchor = None  # the last line of `parallel` (or of the workload's first key)
    indent = mapping.value[0][0].start_mark.column if mapping.value else 4
    for key, value in mapping.value:
        if key.value == "parallel":
            anchor = value.end_mark.line if value.end_mark.column else value.end_mark.line - 1
    missing = []
    for name, new in values.items():
        hit = next(((k, v) for k, v in mapping.value if k.value == name), None)
        if hit is None:
            missing.append(name)
            continue
        v = hit[1]
        edits.append(
            Edit(v.start_mark.line, v.start_mark.column, v.end_mark.line, v.end_mark.column, new)
        )
    if missing:
        if anchor is None:
            anchor = mapping.value[0][1].end_mark.line if mapping.value else mapping.start_mark.line
        lines = text.splitlines(keepends=True)
        at = min(anchor + 1, len(lines))
        block = "".join(f"{' ' * indent}{name}: {values[name]}\n" for name in missing)
        if at == len(lines) and lines and not lines[-1].endswith("\n"):
            block = "\n" + block
        edits.append(Edit(at, 0, at, 0, block))
    faster = f" (the declared one was {gap:.1%} slower a step, predicted)" if gap else ""
    summary = (
        f"workload {wid}: layout set to tp {best.tp}, pp {best.pp}, vpp {best.vpp}, "
        f"cp {best.cp}, ep {best.ep}, micro-batch {best.micro_batch}, recompute "
        f"{best.recompute}{faster}"
    )
    return LayoutEdit(edits, summary)
