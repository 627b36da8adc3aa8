"""The assumptions and limits a review states once: the arithmetic dclint assumes, each rule
option in effect with its default and public source, and the projection's own assumptions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from dclint.analysis.assess.assessment import Assessment
from dclint.engine.options import as_written, parse_option
from dclint.report.values import show

__all__ = ["PROJECTION_OF", "Assumption", "assumptions", "projection_assumptions"]

PROJECTION_OF = "projection of"  # the item of a workload projection's line: 'projection of W'


@dataclass(frozen=True)
class Assumption:
    item: str
    value: str
    default: str
    source: str


_WHY = re.compile(r"## Why it matters\s*\n(.*?)(?:\n\s*\n|\n##|$)", re.S)


def _source(cls: Any) -> str:
    """The first sentence of a rule's "Why it matters" that rests on public sources."""
    match = _WHY.search(cls.doc())
    text = " ".join(match.group(1).split()) if match else cls.summary()
    first = re.split(r"(?<=[.)])\s+(?=[A-Z])", text, maxsplit=1)[0]
    return f"{cls.id}: {first or 'dclint' + chr(39) + 's own default'}"


def assumptions(a: Assessment) -> list[Assumption]:
    """The arithmetic dclint assumes, then each option of each rule selected for the design."""
    design, options = a.design, a.options
    assert design is not None
    out = []
    pue_given = "pue" in design.site.model_fields_set
    out.append(
        Assumption(
            "facility power = IT load x PUE",
            f"PUE {design.site.pue:g}",
            "PUE 1.3",
            "design file (site.pue)" if pue_given else "dclint default (site.pue not given)",
        )
    )
    out.append(
        Assumption(
            "circuit capacity = sqrt(3) x V x I x PF x max utilisation",
            "per circuit",
            "PF 0.95, max utilisation 80%",
            "NEC 210.20(A) continuous-load limit; NetBox power-feed default",
        )
    )
    out.append(
        Assumption(
            "feed load",
            "a rack's whole load on each power path",
            "2N",
            "with one path lost the other carries the rack (dclint.calc.power)",
        )
    )
    out.append(
        Assumption(
            "cooling capacity",
            "sum of installed CDU capacity",
            "no N+1 deduction",
            "CDU ratings as declared (cooling.cdus[].capacity)",
        )
    )
    for rid, cls in a.rules.items():
        if not cls.options or not a.selected(rid):
            continue
        for name, opt in cls.options.items():
            default = parse_option(rid, name, opt.type, opt.default)
            value = options.get(rid, {}).get(name, default)
            out.append(
                Assumption(
                    f"{rid}.{name}: {opt.help}",
                    show(as_written(value, opt.kind)),
                    show(as_written(default, opt.kind)),
                    _source(cls),
                )
            )
    return out


# the longest text before a line's first ': ' that names what the line assumes ('FLOPs',
# 'synchronous checkpoint saves', 'batch ramp-up'); a longer one is part of the sentence
HEAD = 40


def projection_assumptions(projections: list[dict[str, Any]]) -> list[Assumption]:
    """The projection's own assumptions, whatever shape it gives them (mapping or list): a
    line of a workload's projection under 'projection of <workload>: <what it assumes>', a
    line of the TCO's under 'TCO'."""
    out: dict[str, Assumption] = {}
    for p in projections:
        items = p.get("assumptions") or {}
        pairs = list(items.items()) if isinstance(items, dict) else list(enumerate(items))
        for key, value in pairs:
            if isinstance(value, dict):
                name = str(value.get("name") or value.get("item") or key)
                a = Assumption(
                    f"projection: {name}",
                    show(value.get("value", "")),
                    show(value.get("default", "-")),
                    str(value.get("source", "dclint.projection")),
                )
            elif isinstance(key, int):  # a line as `dclint cost` prints it, under its owner
                owner = f"{PROJECTION_OF} {p['workload']}" if p.get("workload") else "TCO"
                head, sep, rest = str(value).partition(": ")
                labelled = bool(sep) and len(head) <= HEAD
                a = Assumption(
                    f"{owner}: {head}" if labelled else owner,
                    rest if labelled else str(value),
                    "-",
                    "dclint.projection",
                )
            else:
                a = Assumption(f"projection: {key}", show(value), "-", "dclint.projection")
            out.setdefault(a.item + a.value, a)
    return list(out.values())
