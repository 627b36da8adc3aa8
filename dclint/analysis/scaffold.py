"""`dclint init`: a commented starting design for a platform and a rack count that checks clean."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from dclint.calc.cooling import required_flow
from dclint.model.builtin_catalog import builtin
from dclint.model.site import Feed
from dclint.model.topology import derated_capacity
from dclint.units import Q_, fmt

__all__ = ["DEFAULT_NODE_RACK", "NODES_A_RACK", "scaffold"]

# Air-cooled racks of nodes: four a rack, as NVIDIA's DGX SuperPOD reference architectures
# rack them (DGX H100: four systems, 40.8 kW a rack); fewer where four would pass CLG005's
# 60 kW air limit (DEFAULT_NODE_RACK the most a rack then carries).
NODES_A_RACK = 4
DEFAULT_NODE_RACK = Q_(60, "kW")
_FEED_AMPS = (32, 63, 100, 125, 160, 200, 250, 315, 400)
_PANEL_AMPS = (400, 630, 800, 1000, 1250, 1600, 2000, 2500, 3200, 4000, 5000, 6300)
_ROW = 8  # racks a row: one busway pair and one CDU pair (row CDUs serve up to 8 NVL72 racks)


def _limits(platform: str) -> tuple[float, float]:
    """The rack power limit for `platform` and a feed's headroom in kW, from the rules' own
    defaults (a configured platform limit first)."""
    from dclint.engine.config import default_options
    from dclint.engine.shared import shared_settings

    shared = shared_settings(default_options())
    return shared.rack_limit(platform).m_as("kW"), shared.feed_headroom.m_as("kW")


def _derated(amps: int) -> float:
    feed = Feed(id="x", voltage=Q_(415, "V"), current_rating=Q_(amps, "A"))
    return float(derated_capacity(feed).m_as("kW"))


def _amps(table: tuple[int, ...], kw: float) -> int:
    for amps in table:
        if _derated(amps) >= kw:
            return amps
    raise ValueError(f"{kw:.0f} kW is more than one 415 V / {table[-1]} A circuit carries")


@dataclass(frozen=True)
class _Sizing:
    """What the design is sized from: the platform, the rack count and the figures each part
    of the text quotes."""

    platform: str
    spec: Any  # the catalog's platform
    racks: int
    nodes: int
    load: float  # kW a rack
    peak: float  # kW a rack at the platform's max_power: feeds trip on peaks
    gpus: int
    liquid: bool
    nvl: bool
    rows: list[tuple[int, int]]  # (first, last) rack of each row
    rack_limit: float  # kW: PWR001's limit for the platform
    reserve: float  # kW: a feed's headroom (PWR002)
    feed_amps: int
    panel_amps: int
    pue: float

    def n(self, i: int) -> str:
        """Rack numbers padded alike, so `$n` and the feed ranges agree."""
        return str(i).zfill(len(str(self.racks)))


@dataclass(frozen=True)
class _Fabric:
    """The compute fabric's switch and tiers: (name, count, downlinks, uplinks)."""

    speed: Any  # the NIC speed
    switch: str
    split: str  # ", link_speed: ..." where ports split to a slower NIC's speed (NET003)
    model: Any  # the catalog's switch
    tiers: list[tuple[str, int, int, int]]


def scaffold(platform: str, racks: int, nodes: int | None = None) -> str:
    """The YAML text of a design with `racks` racks of `platform` (ValueError if impossible)."""
    catalog = builtin()
    s = _sizing(catalog, platform, racks, nodes)
    fabric = _fabric(catalog, s)
    L = [
        *_header(s),
        *_site(s, fabric),
        *_power(s),
        *_rack_types(s),
        *_racks(s),
        *(_cooling(s) if s.liquid else []),
        *_fabrics(s, fabric),
        *_storage(s),
        "# workloads:   # add a training run to get projections (time, energy, cost):",
        "#   - {id: llm, model: {parameters: 70e9}, tokens: 2e12, gpus: " + f"{s.gpus}" + "}",
    ]
    return "\n".join(L) + "\n"


def _sizing(catalog: Any, platform: str, racks: int, nodes: int | None) -> _Sizing:
    """The platform's figures for `racks` racks (ValueError for an unknown platform or count)."""
    spec = catalog.platforms.get(platform)
    if spec is None:
        raise ValueError(f"unknown platform '{platform}' (catalog: {', '.join(catalog.platforms)})")
    if not 1 <= racks <= 4096:
        raise ValueError("--racks must be between 1 and 4096")
    if spec.kind == "node":
        most = math.floor(DEFAULT_NODE_RACK.m_as("kW") / (spec.max_power or spec.power).m_as("kW"))
        nodes = nodes or max(1, min(NODES_A_RACK, most))
    else:
        nodes = 1
    load = (spec.power * nodes).m_as("kW")
    liquid = spec.liquid_fraction > 0 or spec.liquid_cooling_required
    nvl = spec.nvl72_class
    peak = max(load, ((spec.max_power or spec.power) * nodes).m_as("kW"))  # feeds trip on peaks
    rows = [(r, min(r + _ROW - 1, racks)) for r in range(1, racks + 1, _ROW)]
    rack_limit, reserve = _limits(platform)
    panel_kw = max(b - a + 1 for a, b in rows) * load + (reserve if nvl else 0.0)
    return _Sizing(
        platform=platform,
        spec=spec,
        racks=racks,
        nodes=nodes,
        load=load,
        peak=peak,
        gpus=spec.gpus * nodes * racks,
        liquid=liquid,
        nvl=nvl,
        rows=rows,
        rack_limit=rack_limit,
        reserve=reserve,
        feed_amps=_amps(_FEED_AMPS, peak),
        panel_amps=_amps(_PANEL_AMPS, panel_kw),
        pue=1.15 if liquid else 1.4,
    )


def _fabric(catalog: Any, s: _Sizing) -> _Fabric:
    """A non-blocking fat tree of one NIC a GPU: its switch (one whose ports run at the NIC's
    speed, else one that splits its ports to it) and its tiers."""
    spec = s.spec
    nic = catalog.nics.get(spec.compute_nic or "")
    speed = nic.speed if nic else Q_(400, "Gb/s")
    switch = next((k for k, m in catalog.switches.items() if m.port_speed == speed), None)
    split = ""  # a NIC slower than every switch's ports: ports split to its speed (NET003)
    if switch is None:
        switch = next(
            (k for k, m in catalog.switches.items() if speed in (m.split_speeds or ())), "qm9700"
        )
        split = f", link_speed: {fmt(speed)}"
    model = catalog.switches[switch]
    radix = model.ports * max(1, round((model.port_speed / speed).m_as("")) if split else 1)
    nics = s.gpus
    leaves = math.ceil(nics / (radix // 2))
    rails = spec.compute_nics if spec.kind == "node" else 0
    if rails > 1:  # rail-optimised: every rail gets the same number of leaves (NET006)
        leaves = math.ceil(leaves / rails) * rails
    leaves += leaves % 2  # leaves x radix/2 uplinks fill whole radix-port switches (NET008)
    half = radix // 2
    if nics <= radix * radix // 2:
        spines = math.ceil(leaves * half / radix)
        tiers = [("leaf", leaves, half, half), ("spine", spines, radix, 0)]
    else:
        cores = math.ceil(leaves * half / radix)
        tiers = [
            ("leaf", leaves, half, half),
            ("spine", leaves, half, half),
            ("core", cores, radix, 0),
        ]
    return _Fabric(speed, switch, split, model, tiers)


def _header(s: _Sizing) -> list[str]:
    spec = s.spec
    return [
        f"# Starting design: {s.racks} x {spec.name} racks"
        + (f" of {s.nodes} nodes" if spec.kind == "node" else "")
        + f", {s.gpus} GPUs.",
        "# Written by `dclint init`; every figure below is a sizing assumption to replace with",
        "# the real one. `dclint check` passes on it as written.",
        "# Editors: `dclint schema > design.schema.json` and a first line",
        "# `# yaml-language-server: $schema=design.schema.json` give completion; a file that",
        "# designs `include:` (a site profile, a rack-type library) takes the fragment schema,",
        "# `dclint schema fragment > fragment.schema.json`, since it has no `name` of its own.",
        "# A `.dclint.yaml` config takes `dclint schema config > config.schema.json` the same way.",
        f"name: {s.platform}-{s.racks}r",
    ]


def _site(s: _Sizing, fabric: _Fabric) -> list[str]:
    # the utility carries the switches too (PWR006 counts every declared IT load)
    each = fabric.model.power.m_as("kW") if fabric.model.power is not None else 0.0
    switches_kw = each * sum(count for _, count, _, _ in fabric.tiers)
    utility = math.ceil((s.load * s.racks + switches_kw) * s.pue * 1.2 / 100) * 100
    comment = (
        "(IT load + switches) x PUE x 1.2 margin" if switches_kw else "IT load x PUE x 1.2 margin"
    )
    hall = "a liquid-cooled" if s.liquid else "an air-cooled"
    L = [
        "site:",
        f"  utility_capacity: {utility} kW   # {comment}",
        f"  pue: {s.pue}   # a planning figure for {hall} hall: replace with your site's",
        "  electricity_price: 0.8 CNY/kWh   # a planning figure: replace with your tariff",
        "  currency: CNY",
        "  exchange_rates: {USD: 7.2 CNY}",
    ]
    if s.liquid:
        L.append(
            "  ashrae_class: W27   # facility water up to 27 degC (ASHRAE TC 9.9 liquid class)"
        )
    if s.load > s.rack_limit:  # above PWR001's default: the hall must be built for these racks
        spec = s.spec
        envelope = max(s.load, (spec.max_power or spec.power).m_as("kW") * s.nodes)
        L.append(
            f"  rack_power_limit: {envelope:g} kW   # the hall must be built for "
            f"{spec.name} racks (PWR001's default is {s.rack_limit:g} kW): replace with your "
            "hall's rack power envelope"
        )
    L.append("")
    return L


def _power(s: _Sizing) -> list[str]:
    """2N: a panel (a busway for NVL72-class racks) a row and path, a feed a rack and path."""
    L = ["power:   # 2N: paths A and B each carry every rack's whole load", "  panels:"]
    for k, _ in enumerate(s.rows, 1):
        for p in "ab":
            L.append(
                f"    - {{id: row{k}-{p}, kind: {'busway' if s.nvl else 'panel'}, voltage: 415 V, "
                f"current_rating: {s.panel_amps} A, path: {p.upper()}}}"
            )
    L.append(
        f"    # {_derated(s.panel_amps):.0f} kW derated a panel for up to {_ROW} racks"
        + (f", keeping {s.reserve:.0f} kW of headroom (PWR002)" if s.nvl else "")
    )
    L.append("  feeds:")
    for k, (a, b) in enumerate(s.rows, 1):
        for p in "ab":
            L.append(
                f"    - {{id: '{p}[{s.n(a)}-{s.n(b)}]', panel: row{k}-{p}, voltage: 415 V, "
                f"current_rating: {s.feed_amps} A, path: {p.upper()}}}"
            )
    L.append(
        f"    # one {s.feed_amps} A feed a path carries {_derated(s.feed_amps):.1f} kW "
        f"for a {fmt(Q_(s.load, 'kW'))} rack"
        + (f" that can draw {fmt(Q_(s.peak, 'kW'))} (catalog max_power)" if s.peak > s.load else "")
    )
    L.append("")
    return L


def _rack_types(s: _Sizing) -> list[str]:
    L = ["rack_types:", "  main:", f"    platform: {s.platform}"]
    if s.spec.kind == "node":
        L.append(f"    nodes: {s.nodes}   # {fmt(Q_(s.load, 'kW'))} a rack")
    if s.liquid:
        heat = Q_(s.load * s.spec.liquid_fraction, "kW")
        flow = required_flow(heat, "water", Q_(10, "K")).m_as("L/min")
        L.append(f"    liquid_cooling_capacity: {math.ceil(s.load / 10) * 10} kW")
        L.append(
            f"    coolant_flow: {math.ceil(flow * 1.05 / 10) * 10} L/min"
            f"   # {fmt(heat)} to liquid at dT 10 K, +5%"
        )
    L.append("")
    return L


def _racks(s: _Sizing) -> list[str]:
    return [
        "racks:",
        f"  - id: 'r[{s.n(1)}-{s.n(s.racks)}]'",
        "    type: main",
        "    feeds: [a$n, b$n]",
        "",
    ]


def _cooling(s: _Sizing) -> list[str]:
    L = [
        "cooling:   # a CDU pair a row (N+1); 32/42 degC secondary loop: the W27 facility",
        "  # water (27 degC) + the CDUs' 5 K approach = 32 degC supply, within the platform's",
        "  # liquid inlet limit; 10 K rise",
        "  cdus:",
    ]
    for k, _ in enumerate(s.rows, 1):
        for j in (1, 2):
            L.append(
                f"    - {{id: cdu-{k}-{j}, capacity: 2000 kW, max_flow: 2125 L/min, "
                f"approach: 5 K, redundancy_group: row-{k}}}"
            )
    L.append("  loops:")
    for k, (a, b) in enumerate(s.rows, 1):
        L.append(
            f"    - {{id: loop-{k}, cdu: cdu-{k}-1, coolant: water, supply_temperature: "
            f"32 degC, return_temperature: 42 degC, racks: ['r[{s.n(a)}-{s.n(b)}]']}}"
        )
    L.append("")
    return L


def _fabrics(s: _Sizing, fabric: _Fabric) -> list[str]:
    L = [
        f"fabrics:   # non-blocking rail-optimised fat tree, one {fmt(fabric.speed)} NIC a GPU",
        "  - id: compute",
        "    kind: compute",
        "    rail_optimised: true",
        "    tiers:",
    ]
    for name, count, down, up in fabric.tiers:
        L.append(
            f"      - {{name: {name}, switch: {fabric.switch}, count: {count}, downlinks: {down}"
            + (f", uplinks: {up}" if up else "")
            + f"{fabric.split}}}"
        )
    L.append("")
    return L


def _storage(s: _Sizing) -> list[str]:
    read = math.ceil(s.gpus * 0.7 / 10) * 10
    hosts = s.racks * s.nodes if s.spec.kind == "node" else s.gpus // 4  # NVL72: 4 GPUs a tray
    return [
        "storage:   # three tiers; ~0.7 GB/s of parallel-FS reads a GPU (SuperPOD-like)",
        "  tiers:",
        f"    - {{id: nvme, kind: node_local, capacity: 4 TB, per_node_read_bandwidth: 50 GB/s, "
        f"nodes: {hosts}}}",
        f"    - {{id: pfs, kind: parallel_fs, capacity: 1 PB, read_bandwidth: {read} GB/s, "
        f"write_bandwidth: {math.ceil(read / 20) * 10} GB/s, feeds_training: true}}",
        "    - {id: s3, kind: object, capacity: 10 PB, read_bandwidth: 100 GB/s, "
        "write_bandwidth: 100 GB/s, checkpoints: true}",
        "",
    ]
