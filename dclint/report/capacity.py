"""`dclint capacity DESIGN --add PLATFORM` as text, JSON, Markdown or an HTML page: each limit's
room for more racks (dclint.analysis.capacity.headroom), the binding one, and what lifts it."""

from __future__ import annotations

from typing import Any

from dclint.escaping import finite_json

__all__ = ["render_html", "render_json", "render_markdown", "render_text"]


def _capacity_document(c: Any, fmt_name: str, lifts: list[str]) -> str:
    """The capacity report as a document (Markdown or HTML): the text's figures, as a table."""
    from dclint.report.document import Block, write_html, write_markdown
    from dclint.units import fmt

    r = c.rack
    like = f", like rack {r.template.id}" if r.template is not None else ""
    title = f"Capacity of {c.design} for more {r.platform} racks"
    bound = [lim for lim in c.limits if lim.racks is not None]
    first = min(bound, key=lambda x: x.racks or 0) if bound else None
    result = (
        f"{first.racks} more racks ({(first.racks or 0) * r.gpus} GPUs); binding first: "
        f"{first.name} {first.subject}"
        if first is not None
        else "no limit binds"
    )
    parts = [
        Block("h1", title),
        Block(
            "p",
            f"A new rack: {fmt(r.it_load)}, {r.gpus} GPUs, {fmt(r.liquid_heat)} to liquid{like}.",
        ),
        Block(
            "table",
            header=["Limit", "Where", "More racks", "Arithmetic"],
            rows=[
                [lim.name, lim.subject, "-" if lim.racks is None else str(lim.racks), lim.detail]
                for lim in c.limits
            ],
        ),
        Block("p", f"Result: {result}."),
    ]
    if lifts:
        parts.append(
            Block(
                "p",
                "What lifts it: "
                + "; ".join(
                    f"{lim.name} {lim.subject}: {x}"
                    for lim, x in zip(c.binding, lifts, strict=True)
                )
                + ".",
            )
        )
    return write_markdown(parts) if fmt_name == "markdown" else write_html(parts, title)


def _capacity_text(c: Any, lifts: list[str]) -> str:
    from dclint.units import fmt

    r = c.rack
    like = f", like rack {r.template.id}" if r.template is not None else ""
    out = [
        f"Capacity of {c.design} for more {r.platform} racks ({fmt(r.it_load)}, {r.gpus} GPUs, "
        f"{fmt(r.liquid_heat)} to liquid{like})",
        "",
    ]
    rows = [
        (lim.name, lim.subject, "-" if lim.racks is None else str(lim.racks), lim.detail)
        for lim in c.limits
    ]
    widths = [max(len(x[i]) for x in rows) for i in range(3)]
    for name, subject, racks, detail in rows:
        out.append(
            f"{name.ljust(widths[0])}  {subject.ljust(widths[1])}  "
            f"{racks.rjust(widths[2])}  {detail}"
        )
    out.append("")
    if c.racks is None:
        out.append("Result: no limit binds (nothing to compare against).")
    else:
        binding = ", ".join(f"{lim.name} {lim.subject}" for lim in c.binding)
        out.append(
            f"Result: {c.racks} more rack{'s' if c.racks != 1 else ''} "
            f"({c.racks * r.gpus} GPUs); binding first: {binding}"
        )
        out.append("What lifts it:")
        out += [f"  {lim.name} {lim.subject}: {x}" for lim, x in zip(c.binding, lifts, strict=True)]
    return "\n".join(out) + "\n"


def _capacity_json(c: Any, lifts: list[str]) -> str:
    from dclint._version import __version__

    r = c.rack
    data = {
        "version": __version__,
        "design": c.design,
        "platform": r.platform,
        "rack": {
            "it_load_kw": round(r.it_load.m_as("kW"), 6),
            "gpus": r.gpus,
            "nodes": r.nodes,
            "liquid_heat_kw": round(r.liquid_heat.m_as("kW"), 6),
            "template": r.template.id if r.template is not None else None,
        },
        "racks": c.racks,
        "gpus": None if c.racks is None else c.racks * r.gpus,
        "binding": [
            {"limit": lim.name, "subject": lim.subject, "lift": x}
            for lim, x in zip(c.binding, lifts, strict=True)
        ],
        "limits": [
            {"limit": lim.name, "subject": lim.subject, "racks": lim.racks, "detail": lim.detail}
            for lim in c.limits
        ],
    }
    return finite_json(data)


def render_text(c: Any, lifts: list[str]) -> str:
    return _capacity_text(c, lifts)


def render_json(c: Any, lifts: list[str]) -> str:
    return _capacity_json(c, lifts)


def render_markdown(c: Any, lifts: list[str]) -> str:
    return _capacity_document(c, "markdown", lifts)


def render_html(c: Any, lifts: list[str]) -> str:
    return _capacity_document(c, "html", lifts)
