"""Apply the layout search's best layout to a workload, as a text edit of its design file.

The workload's `parallel` value is replaced with the best layout in flow style, and its
`micro_batch` and `recompute` are set (replaced where written, added below `parallel` where
not); `gpus` is set where the best layout uses fewer GPUs, and `software.sharding` where the
best is a PyTorch FSDP layout (reshard_after_forward, HSDP shard group) the workload's
software does not already run. Everything else in the file stays as written.
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
    from dclint.projection.search.plan import layout_values, plan_layouts, sharding_change

    wl = design.workloads[index]
    plan = plan_layouts(design, wl, reserve=reserve, rank_only=True)
    if isinstance(plan, str):
        return plan
    if not plan.result.valid:
        return f"workload {wl.id}: the search found no valid layout"
    gap = plan.gap() if plan.declared is not None else None
    best = plan.result.valid[0]
    values = layout_values(best, wl.gpus)
    return layout_edits(text, index, wl.id, best, values, gap, sharding_change(wl, best))


def layout_edits(
    text: str,
    index: int,
    wid: str,
    best: Any,
    values: dict[str, str],
    gap: float | None,
    sharding: str | None = None,
) -> LayoutEdit | str:
    """Edits to `text` that set workload `index`'s keys to `values` (layout `best`), and its
    `software.sharding` to `sharding` (flow YAML) where the best layout changes it."""
    found = node_at(text, ("workloads", index))
    if found is None or found[1].flow_style:
        return f"workload {wid} is not written as a block mapping in this file"
    mapping = found[1]
    edits: list[Edit] = []
    if sharding is not None:
        soft = next((v for k, v in mapping.value if k.value == "software"), None)
        if soft is None:
            values = {**values, "software": f"{{sharding: {sharding}}}"}
        else:
            got = _sharding_edit(text, soft, sharding)
            if isinstance(got, str):
                return f"workload {wid}: {got}"
            edits.append(got)
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
    sharded = f", software.sharding {sharding}" if sharding is not None else ""
    summary = (
        f"workload {wid}: layout set to tp {best.tp}, pp {best.pp}, vpp {best.vpp}, "
        f"cp {best.cp}, ep {best.ep}, micro-batch {best.micro_batch}, recompute "
        f"{best.recompute}{sharded}{faster}"
    )
    return LayoutEdit(edits, summary)


def _sharding_edit(text: str, soft: Any, sharding: str) -> Edit | str:
    """The edit that sets `sharding` in the workload's `software` mapping node `soft`: its
    value replaced where written (a block value by the flow one, from its key's colon to its
    last line's end), else the key added (inside a flow mapping's braces, or a line below a
    block mapping's last, at its keys' indentation); the lines around stay as written."""
    import yaml

    if not isinstance(soft, yaml.MappingNode):
        return "its software is not a mapping"
    hit = next(((k, v) for k, v in soft.value if k.value == "sharding"), None)
    if hit is not None:
        key, value = hit
        if value.flow_style or isinstance(value, yaml.ScalarNode):
            start, end = value.start_mark, value.end_mark
            return Edit(start.line, start.column, end.line, end.column, sharding)
        end = _last(value)
        return Edit(key.end_mark.line, key.end_mark.column, end.line, end.column, f": {sharding}")
    if soft.flow_style:  # end_mark is just past the closing brace
        end = soft.end_mark
        sep = ", " if soft.value else ""
        col = end.column - 1
        return Edit(end.line, col, end.line, col, f"{sep}sharding: {sharding}")
    indent = soft.value[0][0].start_mark.column
    at = _last(soft).line + 1
    lines = text.splitlines(keepends=True)
    block = f"{' ' * indent}sharding: {sharding}\n"
    if at >= len(lines) and lines and not lines[-1].endswith("\n"):
        block = "\n" + block
    return Edit(at, 0, at, 0, block)


def _last(node: Any) -> Any:
    """Where a node's last written character ends (a block collection's own end mark is the
    next token's start)."""
    import yaml

    if isinstance(node, yaml.ScalarNode) or node.flow_style or not node.value:
        return node.end_mark
    last = node.value[-1]
    return _last(last[1] if isinstance(node, yaml.MappingNode) else last)
