"""Link whose two ends run at different speeds: NIC vs switch port, or switch vs switch.

## What it does
Parametric fabrics: compares the NIC speed (the fabric's `nic_speed`, else its `nic`, else the
platform's compute NIC from the catalog) with the first tier's `link_speed` (default: the
switch's port speed); checks that each tier's switch can run its link speed (its port speed
or one of its `split_speeds`) and that each tier's links run at the speed of the tier above.
Explicit fabrics: checks each `links` entry against the switch ports and the rack NICs it
joins. One finding per tier or per `links` entry.

## Why it matters
A 400 Gb/s NIC on a port split to 200 Gb/s, or an 800 Gb/s ConnectX-8 on a 400 Gb/s
Quantum-2 port, trains at the slower speed (or does not link up at all): the fabric delivers
half of the bandwidth NET001 and the storage rules assumed. Speeds come from the catalog
(NVIDIA's datasheets: ConnectX-7 400 Gb/s, ConnectX-8 800 Gb/s, QM9700 64 x 400 Gb/s).

## Example
```yaml
fabrics:
  - id: compute
    kind: compute
    nic: connectx-8           # 800 Gb/s
    tiers:
      - name: leaf
        switch: qm9700        # NET003: 400 Gb/s ports
        count: 4
        downlinks: 32
```

## Fix
Choose a switch (or a split speed) that matches the NICs, or declare the speed the NICs
really run at with `nic_speed` when they are configured down.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.calc.fabric_graph import fabric_graph, fabric_racks, nic_speed, port_share
from dclint.engine.rule import Context, Rule, Violation
from dclint.model.catalog import SwitchModel
from dclint.model.design import Design
from dclint.model.fabric import Fabric
from dclint.model.source import Path
from dclint.model.topology import Rack
from dclint.units import Quantity, fmt

_FIX = "match NIC, port and link speeds (or declare the speed the ports are configured to)"


class LinkSpeedMismatch(Rule):
    id = "NET003"
    name = "link-speed-mismatch"
    severity = "error"
    tags = ("fabric",)
    needs = ("fabric",)
    options = {}

    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for f, fabric in enumerate(design.fabrics):
            if fabric.tiers:
                yield from _parametric(design, f, fabric)
            if fabric.links:
                yield from _explicit(design, f, fabric)


def _gbps(q: Quantity) -> str:
    return fmt(q, "Gb/s")


def _splits(model: SwitchModel) -> str:
    return "".join(f" or {_gbps(s)}" for s in model.split_speeds)


def _parametric(design: Design, f: int, fabric: Fabric) -> Iterator[Violation]:
    models = design.topology.catalog.switches
    speeds: list[Quantity] = []
    for t, tier in enumerate(fabric.tiers):
        model = models.get(tier.switch)
        if model is None:
            return
        speed = tier.link_speed or model.port_speed
        speeds.append(speed)
        path: Path = ("fabrics", f, "tiers", t, "link_speed" if tier.link_speed else "switch")
        if port_share(model, speed) is None:
            yield Violation(
                path,
                f"fabric {fabric.id} tier {tier.name}: {tier.switch} ports run at "
                f"{_gbps(model.port_speed)}{_splits(model)}, not at the tier's link speed "
                f"{_gbps(speed)}",
                subject=f"{fabric.id}.{tier.name}",
                measured=speed.to("Gb/s"),
                limit=model.port_speed.to("Gb/s"),
                fix=_FIX,
            )
        elif t > 0 and abs(speed.m_as("Gb/s") - speeds[t - 1].m_as("Gb/s")) > 1e-9:
            below = fabric.tiers[t - 1].name
            yield Violation(
                path,
                f"fabric {fabric.id}: tier {below} uplinks run at {_gbps(speeds[t - 1])} but "
                f"tier {tier.name} downlinks at {_gbps(speed)}",
                subject=f"{fabric.id}.{tier.name}",
                measured=speed.to("Gb/s"),
                limit=speeds[t - 1].to("Gb/s"),
                fix=_FIX,
            )
    first, leaf = speeds[0], fabric.tiers[0]
    seen: set[str] = set()
    racks: list[Rack | None] = [*fabric_racks(design, fabric)] or [None]
    for rack in racks:
        nic = nic_speed(design, fabric, rack)
        if nic is None or abs(nic[0].m_as("Gb/s") - first.m_as("Gb/s")) <= 1e-9:
            continue
        label = f"{nic[1]} NICs" if nic[1] != "nic_speed" else "NICs (nic_speed)"
        if label in seen:
            continue
        seen.add(label)
        path = ("fabrics", f, "tiers", 0, "link_speed" if leaf.link_speed else "switch")
        if nic[1] == "nic_speed":
            path = ("fabrics", f, "nic_speed")
        yield Violation(
            path,
            f"fabric {fabric.id}: {label} run at {_gbps(nic[0])} but land on tier "
            f"{leaf.name} ports at {_gbps(first)}",
            subject=fabric.id,
            measured=nic[0].to("Gb/s"),
            limit=first.to("Gb/s"),
            fix=_FIX,
        )


def _explicit(design: Design, f: int, fabric: Fabric) -> Iterator[Violation]:
    models = design.topology.catalog.switches
    racks = design.topology.rack_by_id
    fg = fabric_graph(design, f)
    problems: dict[int, list[str]] = {}
    for a, b, k in fg.edges():
        speed = fabric.links[k].speed
        for end in {a, b}:
            if end in fg.switches:
                key = fg.switches[end][0]
                model = models.get(key)
                if model is not None and port_share(model, speed) is None:
                    text = f"switch {end} ({key}) runs {_gbps(model.port_speed)}{_splits(model)}"
                    problems.setdefault(k, []).append(text)
            elif end in racks:
                nic = nic_speed(design, fabric, racks[end])
                if nic is not None and abs(nic[0].m_as("Gb/s") - speed.m_as("Gb/s")) > 1e-9:
                    text = f"rack {end} NICs ({nic[1]}) run {_gbps(nic[0])}"
                    problems.setdefault(k, []).append(text)
    for k, texts in sorted(problems.items()):
        unique = sorted(set(texts))
        more = f" and {len(unique) - 2} more" if len(unique) > 2 else ""
        link = fabric.links[k]
        yield Violation(
            ("fabrics", f, "links", k, "speed"),
            f"fabric {fabric.id}: link {link.a} - {link.b} runs at {_gbps(link.speed)}, but "
            f"{'; '.join(unique[:2])}{more}",
            subject=f"{link.a}-{link.b}",
            measured=link.speed.to("Gb/s"),
            fix=_FIX,
        )
