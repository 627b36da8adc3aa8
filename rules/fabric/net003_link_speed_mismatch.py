"""Link whose two ends run at different speeds or protocols: NIC vs switch port, or switch vs
switch.

## What it does
Parametric fabrics: compares the NIC speed (the fabric's `nic_speed`, else its `nic`, else the
platform's compute NIC from the catalog) with the first tier's `link_speed` (default: the
switch's port speed); checks that each tier's switch can run its link speed (its port speed
or one of its `split_speeds`) and that each tier's links run at the speed of the tier above.
Explicit fabrics: checks each `links` entry against the switch ports and the rack NICs it
joins. One finding per tier or per `links` entry.

It also checks the protocol each end runs, where the catalog gives it (a switch's `protocol`, a
NIC's `protocols`): an InfiniBand switch and an Ethernet switch joined by a tier or a link, or a
NIC that does not run its leaf's protocol. Links to `endpoints` nodes are not checked: a gateway
between an InfiniBand and an Ethernet network is declared as an endpoint (`role: gateway`).

## Why it matters
A 400 Gb/s NIC on a port split to 200 Gb/s, or an 800 Gb/s ConnectX-8 on a 400 Gb/s
Quantum-2 port, trains at the slower speed (or does not link up at all): the fabric delivers
half of the bandwidth NET001 and the storage rules assumed. Speeds come from the catalog
(NVIDIA's datasheets: ConnectX-7 400 Gb/s, ConnectX-8 800 Gb/s, QM9700 64 x 400 Gb/s).
InfiniBand and Ethernet are different link layers: a Quantum-2 (InfiniBand) port and a
Spectrum-4 (Ethernet) port do not link at any speed (NVIDIA QM9700 and SN5600 datasheets);
the two networks meet only through a gateway (such as NVIDIA's Skyway InfiniBand-to-Ethernet
gateway) or a router. ConnectX and BlueField adapters run either (VPI, NVIDIA datasheets).

Sources: NVIDIA ConnectX-7, ConnectX-8, QM9700 and SN5600 datasheets.

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
really run at with `nic_speed` when they are configured down. Build each fabric from switches
of one protocol, and join an InfiniBand and an Ethernet network through a gateway endpoint.
"""

from __future__ import annotations

from collections.abc import Iterator

from dclint.api import (
    Context,
    Design,
    Fabric,
    Rack,
    SwitchModel,
    Violation,
    fabric_graph,
    fabric_racks,
    nic_speed,
    port_share,
    rule,
    topology_of,
)
from dclint.api import DesignPath as Path
from dclint.units import Quantity, fmt

from ._shared import FabricRule

_FIX = "match NIC, port and link speeds (or declare the speed the ports are configured to)"
_FIX_PROTOCOL = (
    "build the fabric from switches of one protocol; join an InfiniBand and an Ethernet "
    "network through a gateway declared as an endpoint (role: gateway)"
)
_NAMES = {"infiniband": "InfiniBand", "ethernet": "Ethernet"}


@rule("NET003", "link-speed-mismatch", consequence="cannot-run")
class LinkSpeedMismatch(FabricRule):
    def check(self, design: Design, ctx: Context) -> Iterator[Violation]:
        for f, fabric in enumerate(design.fabrics):
            if fabric.tiers:
                yield from _parametric(design, f, fabric)
                yield from _parametric_protocols(design, f, fabric)
            if fabric.links:
                yield from _explicit(design, f, fabric)
                yield from _explicit_protocols(design, f, fabric)


def _nic_protocols(design: Design, fabric: Fabric, rack: Rack | None) -> tuple[str, list[str]]:
    """The NIC key a rack's links on the fabric use and the protocols it runs (empty:
    unknown, or a `nic_speed` with no NIC named)."""
    key = fabric.nic
    if key is None and fabric.kind == "compute" and rack is not None and rack.platform:
        key = rack.platform.compute_nic
    nic = topology_of(design).catalog.nics.get(key) if key else None
    return (key or "", list(nic.protocols)) if nic is not None else ("", [])


def _parametric_protocols(design: Design, f: int, fabric: Fabric) -> Iterator[Violation]:
    models = topology_of(design).catalog.switches
    protocols = [getattr(models.get(t.switch), "protocol", None) for t in fabric.tiers]
    for t in range(1, len(fabric.tiers)):
        low, high = protocols[t - 1], protocols[t]
        if low is None or high is None or low == high:
            continue
        below, tier = fabric.tiers[t - 1], fabric.tiers[t]
        yield Violation(
            ("fabrics", f, "tiers", t, "switch"),
            f"fabric {fabric.id}: tier {below.name} ({below.switch}) runs {_NAMES[low]} but "
            f"tier {tier.name} ({tier.switch}) runs {_NAMES[high]}: they do not link at any "
            "speed",
            subject=f"{fabric.id}.{tier.name}",
            measured=_NAMES[high],
            limit=_NAMES[low],
            fix=_FIX_PROTOCOL,
        )
    leaf = protocols[0] if protocols else None
    if leaf is None:
        return
    seen: set[str] = set()
    on_fabric: list[Rack | None] = [*fabric_racks(design, fabric)] or [None]
    for rack in on_fabric:
        key, runs = _nic_protocols(design, fabric, rack)
        if not runs or leaf in runs or key in seen:
            continue
        seen.add(key)
        yield Violation(
            ("fabrics", f, "tiers", 0, "switch"),
            f"fabric {fabric.id}: {key} NICs run {' or '.join(_NAMES[p] for p in runs)}, but "
            f"tier {fabric.tiers[0].name} ({fabric.tiers[0].switch}) runs {_NAMES[leaf]}",
            subject=fabric.id,
            measured=" or ".join(_NAMES[p] for p in runs),
            limit=_NAMES[leaf],
            fix=_FIX_PROTOCOL,
        )


def _explicit_protocols(design: Design, f: int, fabric: Fabric) -> Iterator[Violation]:
    models = topology_of(design).catalog.switches
    racks = topology_of(design).rack_by_id
    fg = fabric_graph(design, f)
    problems: dict[int, str] = {}
    for a, b, k in fg.edges():
        if k in problems:
            continue
        runs: list[tuple[str, list[str]]] = []
        for end in (a, b):
            if end in fg.switches:
                key = fg.switches[end][0]
                proto = getattr(models.get(key), "protocol", None)
                runs.append((f"switch {end} ({key})", [proto] if proto else []))
            elif end in racks:
                key, protos = _nic_protocols(design, fabric, racks[end])
                runs.append((f"rack {end} NICs ({key})", protos))
        if len(runs) < 2 or not runs[0][1] or not runs[1][1]:
            continue  # an endpoint node (a gateway, storage) or an unknown protocol
        if set(runs[0][1]) & set(runs[1][1]):
            continue
        problems[k] = "; ".join(
            f"{what} runs {' or '.join(_NAMES[p] for p in protos)}" for what, protos in runs
        )
    for k, text in sorted(problems.items()):
        link = fabric.links[k]
        yield Violation(
            ("fabrics", f, "links", k),
            f"fabric {fabric.id}: link {link.a} - {link.b} joins ends of different protocols, "
            f"which do not link at any speed: {text}",
            subject=f"{link.a}-{link.b}",
            fix=_FIX_PROTOCOL,
        )


def _gbps(q: Quantity) -> str:
    return fmt(q, "Gb/s")


def _splits(model: SwitchModel) -> str:
    return "".join(f" or {_gbps(s)}" for s in model.split_speeds)


def _parametric(design: Design, f: int, fabric: Fabric) -> Iterator[Violation]:
    models = topology_of(design).catalog.switches
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
    models = topology_of(design).catalog.switches
    racks = topology_of(design).rack_by_id
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
