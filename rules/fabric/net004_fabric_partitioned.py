"""Explicit fabric whose racks do not all reach each other (the fabric is partitioned).

## What it does
Builds the graph of an explicit fabric (`switches` and `links`; racks stand for their GPUs'
NICs) and finds its connected parts. The part with the most GPUs is taken as the fabric;
every other part that holds racks (a rack with no link, or a group of racks on switches with
no path to the rest) gives one finding, at its first link or, for an unlinked rack, at the
fabric's `racks` entry that names it. Racks on the fabric are its `racks` list, else every
rack with GPUs. Endpoint nodes (`endpoints` entries with an `id`: storage, management,
gateways) are checked the same way: a group of them that reaches no GPU rack, or one with no
link at all, gives one finding. Parametric fabrics are connected by construction and are not
checked.

## Why it matters
Data-parallel all-reduce and pipeline sends need every GPU of a job to reach every other: a
GPU that cannot is unusable for the job, and a missing spine link found at bring-up delays
the whole cluster. A storage node that reaches no GPU serves no checkpoint, and a subnet
manager (NVIDIA UFM) must reach every switch it configures. The check is exact (graph
connectivity), not a heuristic.

Sources: InfiniBand Architecture Specification, Volume 1, chapter 14, Subnet Management;
opensm(8).

## Example
```yaml
links:
  - {a: r01, b: leaf01, count: 72, speed: 400 Gb/s}
  - {a: r02, b: leaf02, count: 72, speed: 400 Gb/s}   # NET004: leaf02 has no spine link
  - {a: leaf01, b: spine01, count: 72, speed: 400 Gb/s}
```

## Fix
Add the missing links (leaf to spine, rack to leaf), or list on the fabric only the racks that
belong to it (`racks:`).
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    FabricGraph,
    RangeError,
    Violation,
    expand,
    fabric_graph,
    rule,
)
from dclint.api import DesignPath as Path

from .._text import first_ids
from ._shared import FabricRule


@rule("NET004", "fabric-partitioned", consequence="cannot-run")
class FabricPartitioned(FabricRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for f, fabric in enumerate(design.fabrics):
            if not (fabric.switches or fabric.links):
                continue
            fg = fabric_graph(design, f)
            parts = fg.components()
            if len(parts) < 2:
                continue
            gpus = {r.id: r.gpus for r in fg.racks}
            main = sorted(n for n in parts[0] if n in gpus)
            for part in parts[1:]:
                racks = sorted(n for n in part if n in gpus)
                if not racks:
                    yield _stranded(fg, f, fabric.id, part, main, gpus)
                    continue
                cut = sum(gpus[r] for r in racks)
                path, key = _where(fg, f, part, racks[0], fabric.racks)
                yield Violation(
                    path,
                    f"fabric {fabric.id} is partitioned: rack{'s' if len(racks) > 1 else ''} "
                    f"{first_ids(racks)} ({cut} GPUs) cannot reach the {_racks(len(main))} "
                    f"({sum(gpus[r] for r in main)} GPUs) of its largest part",
                    subject=racks[0],
                    measured=float(cut),
                    limit=0.0,
                    fix="add the missing rack-to-leaf or leaf-to-spine links",
                    key=key,
                )


def _stranded(
    fg: FabricGraph, f: int, fabric: str, part: set[str], main: list[str], gpus: dict[str, int]
) -> Violation:
    """A part of endpoint nodes only (storage, management, gateways) that reaches no GPU."""
    nodes = sorted(n for n in part if n in fg.endpoints)
    links = [end.link for node in part for end in fg.incident(node)]
    what = f"endpoint node{'s' if len(nodes) > 1 else ''} {first_ids(nodes)}"
    if links:
        path: Path = ("fabrics", f, "links", min(links))
        text = (
            f"{what} cannot reach the {_racks(len(main))} ({sum(gpus[r] for r in main)} GPUs) "
            "of its largest part"
        )
    else:
        path = ("fabrics", f, "endpoints", fg.endpoints[nodes[0]], "id")
        text = f"{what} {'have' if len(nodes) > 1 else 'has'} no link"
    return Violation(
        path,
        f"fabric {fabric} is partitioned: {text}",
        subject=nodes[0],
        measured=float(len(nodes)),
        limit=0.0,
        fix="link the endpoint nodes to the fabric's leaf switches",
    )


def _racks(n: int) -> str:
    return f"{n} rack" if n == 1 else f"{n} racks"


def _where(
    fg: FabricGraph, f: int, part: set[str], rack: str, listed: list[str] | None
) -> tuple[Path, bool]:
    """The part's first link; else the `racks` entry naming the rack; else the `links` key."""
    links = [end.link for node in part for end in fg.incident(node)]
    if links:
        return ("fabrics", f, "links", min(links)), False
    for j, pattern in enumerate(listed or ()):
        try:
            if any(rid == rack for rid, _ in expand(pattern)):
                return ("fabrics", f, "racks", j), False
        except RangeError:
            continue
    return ("fabrics", f, "links" if fg.edge_count else "id"), True
