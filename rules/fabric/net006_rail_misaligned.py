"""Rail-optimised fabric whose rails do not each have leaf switches of their own.

## What it does
In a rail-optimised fabric, NIC k of every node (rail k) lands on the leaf switches of rail k,
so same-rank GPUs of different nodes meet one hop apart. dclint's model of that:

- With `rails` declared (rail name -> its leaf switch ids; explicit form): a leaf must belong
  to one rail only; every rack link must land on a rail leaf; and each rack must put the same
  number of links on every rail (one NIC a node a rail).
- Parametric form (`rail_optimised: true`, no `rails`): with nodes of R compute NICs
  (`nics_per_gpu` x the node's GPUs), the leaf tier must split into R equal groups (leaf
  count a multiple of R, else some leaf carries two rails), and each group's downlinks must
  hold one NIC of every node. Rack-scale platforms (NVL72) are not checked in this form: any
  GPU reaches any of the rack's NICs over NVLink, so declare `rails` to have them checked.

## Why it matters
NVIDIA's SuperPODs are rail-optimised (NVIDIA DGX SuperPOD H100 reference architecture:
4 SU = 32 leaf + 16 spine QM9700 for 8 rails): NCCL's rail-local all-reduce rings stay
within a leaf. A NIC on the wrong rail, or a leaf shared by two rails, sends that traffic
through the spines, where it competes with everything else and adds a hop of latency to
every step.

Sources: NVIDIA DGX SuperPOD H100 reference architecture.

## Example
```yaml
fabrics:
  - id: compute
    kind: compute
    rail_optimised: true
    tiers:
      - name: leaf
        switch: qm9700
        count: 10        # NET006: 10 leaves do not split over 8 rails (HGX H100 nodes)
        downlinks: 32
        uplinks: 32
```

## Fix
Give every rail the same whole number of leaves (16 for 40 HGX nodes: 2 a rail), and cable
NIC k of every node to the leaves of rail k.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    Fabric,
    RangeError,
    Violation,
    expand,
    fabric_graph,
    fabric_racks,
    rule,
)

from ._shared import FabricRule

_FIX = "give each rail its own leaves and cable NIC k of every node to rail k"


@rule("NET006", "rail-misaligned", severity="warning", consequence="performance")
class RailMisaligned(FabricRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for f, fabric in enumerate(design.fabrics):
            if fabric.rails:
                yield from _declared(design, f, fabric)
            elif fabric.rail_optimised and fabric.tiers and fabric.kind == "compute":
                yield from _parametric(design, f, fabric)


def _parametric(design: Design, f: int, fabric: Fabric) -> Iterator[Violation]:
    racks = fabric_racks(design, fabric)
    shapes = {r.platform.gpus for r in racks if r.platform is not None}
    if not racks or len(shapes) != 1 or any(r.platform.kind != "node" for r in racks if r.platform):
        return
    rails = round(shapes.pop() * fabric.nics_per_gpu)
    nodes = sum(r.nodes for r in racks)
    leaf = fabric.tiers[0]
    if rails < 1:
        return
    if leaf.count % rails:
        yield Violation(
            ("fabrics", f, "tiers", 0, "count"),
            f"fabric {fabric.id}: {leaf.count} {leaf.name} switches do not split evenly over "
            f"{rails} rails ({rails} NICs a node): some leaf carries NICs of two rails",
            subject=f"{fabric.id}.{leaf.name}",
            measured=float(leaf.count),
            limit=float(rails * max(1, -(-leaf.count // rails))),
            fix=_FIX,
        )
        return
    per_rail = leaf.count // rails * leaf.downlinks
    leaves = f"{leaf.count // rails} {leaf.name} switch{'' if leaf.count == rails else 'es'}"
    if per_rail < nodes:
        yield Violation(
            ("fabrics", f, "tiers", 0, "downlinks"),
            f"fabric {fabric.id}: each of {rails} rails has {leaves}, whose downlinks are "
            f"fewer in all than its {nodes} NICs (one a node)",
            subject=f"{fabric.id}.{leaf.name}",
            measured=float(nodes),
            limit=float(per_rail),
            fix=_FIX,
        )


def _declared(design: Design, f: int, fabric: Fabric) -> Iterator[Violation]:
    rails = fabric.rails or {}
    owner: dict[str, str] = {}
    for rail, patterns in rails.items():
        for j, pattern in enumerate(patterns):
            for sid in _ids(pattern):
                if owner.setdefault(sid, rail) != rail:
                    yield Violation(
                        ("fabrics", f, "rails", rail, j),
                        f"fabric {fabric.id}: leaf {sid} is on rails {owner[sid]} and {rail}",
                        subject=sid,
                        fix=_FIX,
                    )
    fg = fabric_graph(design, f)
    off_rail: dict[int, list[str]] = {}  # link entry -> "rack -> switch" landing on no rail
    for rack in fg.racks:
        counts = dict.fromkeys(rails, 0)
        first: int | None = None
        for end in fg.incident(rack.id):
            first = end.link if first is None else min(first, end.link)
            on = owner.get(end.other)
            if on is None:
                off_rail.setdefault(end.link, []).append(f"{rack.id} -> {end.other}")
            else:
                counts[on] += end.count
        if first is not None and len(set(counts.values())) > 1:
            spread = ", ".join(f"{r}: {n}" for r, n in counts.items())
            yield Violation(
                ("fabrics", f, "links", first),
                f"fabric {fabric.id}: rack {rack.id} spreads its NIC links unevenly over the "
                f"rails ({spread} links); a rail-optimised node has one NIC on every rail",
                subject=rack.id,
                measured=float(min(counts.values())),
                limit=float(max(counts.values())),
                fix=_FIX,
            )
    for k, ends in sorted(off_rail.items()):
        more = f" and {len(ends) - 1} more" if len(ends) > 1 else ""
        yield Violation(
            ("fabrics", f, "links", k),
            f"fabric {fabric.id}: NIC links {ends[0]}{more} land on a switch that is on no rail",
            subject=ends[0].split(" ->")[0],
            fix=_FIX,
        )


def _ids(pattern: str) -> list[str]:
    try:
        return [i for i, _ in expand(pattern)]
    except RangeError:
        return []
