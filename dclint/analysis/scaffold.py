"""`dclint init`: a commented starting design for a platform and a rack count that checks clean."""

from __future__ import annotations

import math

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


def scaffold(platform: str, racks: int, nodes: int | None = None) -> str:
    """The YAML text of a design with `racks` racks of `platform` (ValueError if impossible)."""
    catalog = builtin()
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
    gpus = spec.gpus * nodes * racks
    liquid = spec.liquid_fraction > 0 or spec.liquid_cooling_required
    nvl = spec.nvl72_class
    width = len(str(racks))

    def n(i: int) -> str:  # rack numbers padded alike, so `$n` and the feed ranges agree
        return str(i).zfill(width)

    peak = max(load, ((spec.max_power or spec.power) * nodes).m_as("kW"))  # feeds trip on peaks
    feed_amps = _amps(_FEED_AMPS, peak)
    rows = [(r, min(r + _ROW - 1, racks)) for r in range(1, racks + 1, _ROW)]
    rack_limit, reserve = _limits(platform)
    panel_kw = max(b - a + 1 for a, b in rows) * load + (reserve if nvl else 0.0)
    panel_amps = _amps(_PANEL_AMPS, panel_kw)
    pue = 1.15 if liquid else 1.4
    nic = catalog.nics.get(spec.compute_nic or "")
    speed = nic.speed if nic else Q_(400, "Gb/s")
    switch = next((k for k, s in catalog.switches.items() if s.port_speed == speed), None)
    split = ""  # a NIC slower than every switch's ports: ports split to its speed (NET003)
    if switch is None:
        switch = next(
            (k for k, s in catalog.switches.items() if speed in (s.split_speeds or ())), "qm9700"
        )
        split = f", link_speed: {fmt(speed)}"
    model = catalog.switches[switch]
    radix = model.ports * max(1, round((model.port_speed / speed).m_as("")) if split else 1)
    L: list[str] = []
    add = L.append
    add(
        f"# Starting design: {racks} x {spec.name} racks"
        + (f" of {nodes} nodes" if spec.kind == "node" else "")
        + f", {gpus} GPUs."
    )
    add("# Written by `dclint init`; every figure below is a sizing assumption to replace with")
    add("# the real one. `dclint check` passes on it as written.")
    add("# Editors: `dclint schema > design.schema.json` and a first line")
    add("# `# yaml-language-server: $schema=design.schema.json` give completion; a file that")
    add("# designs `include:` (a site profile, a rack-type library) takes the fragment schema,")
    add("# `dclint schema fragment > fragment.schema.json`, since it has no `name` of its own.")
    add("# A `.dclint.yaml` config takes `dclint schema config > config.schema.json` the same way.")
    add(f"name: {platform}-{racks}r")
    add("site:")
    add("__UTILITY__")  # written once the fabric's switches are counted
    hall = "a liquid-cooled" if liquid else "an air-cooled"
    add(f"  pue: {pue}   # a planning figure for {hall} hall: replace with your site's")
    add("  electricity_price: 0.8 CNY/kWh   # a planning figure: replace with your tariff")
    add("  currency: CNY")
    add("  exchange_rates: {USD: 7.2 CNY}")
    if liquid:
        add("  ashrae_class: W27   # facility water up to 27 degC (ASHRAE TC 9.9 liquid class)")
    if load > rack_limit:  # above PWR001's default: the hall must be built for these racks
        envelope = max(load, (spec.max_power or spec.power).m_as("kW") * nodes)
        add(
            f"  rack_power_limit: {envelope:g} kW   # the hall must be built for "
            f"{spec.name} racks (PWR001's default is {rack_limit:g} kW): replace with your "
            "hall's rack power envelope"
        )
    add("")
    add("power:   # 2N: paths A and B each carry every rack's whole load")
    add("  panels:")
    for k, _ in enumerate(rows, 1):
        for p in "ab":
            add(
                f"    - {{id: row{k}-{p}, kind: {'busway' if nvl else 'panel'}, voltage: 415 V, "
                f"current_rating: {panel_amps} A, path: {p.upper()}}}"
            )
    add(
        f"    # {_derated(panel_amps):.0f} kW derated a panel for up to {_ROW} racks"
        + (f", keeping {reserve:.0f} kW of headroom (PWR002)" if nvl else "")
    )
    add("  feeds:")
    for k, (a, b) in enumerate(rows, 1):
        for p in "ab":
            add(
                f"    - {{id: '{p}[{n(a)}-{n(b)}]', panel: row{k}-{p}, voltage: 415 V, "
                f"current_rating: {feed_amps} A, path: {p.upper()}}}"
            )
    add(
        f"    # one {feed_amps} A feed a path carries {_derated(feed_amps):.1f} kW "
        f"for a {fmt(Q_(load, 'kW'))} rack"
        + (f" that can draw {fmt(Q_(peak, 'kW'))} (catalog max_power)" if peak > load else "")
    )
    add("")
    add("rack_types:")
    add("  main:")
    add(f"    platform: {platform}")
    if spec.kind == "node":
        add(f"    nodes: {nodes}   # {fmt(Q_(load, 'kW'))} a rack")
    if liquid:
        heat = Q_(load * spec.liquid_fraction, "kW")
        flow = required_flow(heat, "water", Q_(10, "K")).m_as("L/min")
        add(f"    liquid_cooling_capacity: {math.ceil(load / 10) * 10} kW")
        add(
            f"    coolant_flow: {math.ceil(flow * 1.05 / 10) * 10} L/min"
            f"   # {fmt(heat)} to liquid at dT 10 K, +5%"
        )
    add("")
    add("racks:")
    add(f"  - id: 'r[{n(1)}-{n(racks)}]'")
    add("    type: main")
    add("    feeds: [a$n, b$n]")
    add("")
    if liquid:
        add("cooling:   # a CDU pair a row (N+1); 32/42 degC secondary loop: the W27 facility")
        add("  # water (27 degC) + the CDUs' 5 K approach = 32 degC supply, within the platform's")
        add("  # liquid inlet limit; 10 K rise")
        add("  cdus:")
        for k, _ in enumerate(rows, 1):
            for j in (1, 2):
                add(
                    f"    - {{id: cdu-{k}-{j}, capacity: 2000 kW, max_flow: 2125 L/min, "
                    f"approach: 5 K, redundancy_group: row-{k}}}"
                )
        add("  loops:")
        for k, (a, b) in enumerate(rows, 1):
            add(
                f"    - {{id: loop-{k}, cdu: cdu-{k}-1, coolant: water, supply_temperature: "
                f"32 degC, return_temperature: 42 degC, racks: ['r[{n(a)}-{n(b)}]']}}"
            )
        add("")
    nics = gpus
    leaves = math.ceil(nics / (radix // 2))
    rails = spec.compute_nics if spec.kind == "node" else 0
    if rails > 1:  # rail-optimised: every rail gets the same number of leaves (NET006)
        leaves = math.ceil(leaves / rails) * rails
    leaves += leaves % 2  # leaves x radix/2 uplinks fill whole radix-port switches (NET008)
    add(f"fabrics:   # non-blocking rail-optimised fat tree, one {fmt(speed)} NIC a GPU")
    add("  - id: compute")
    add("    kind: compute")
    add("    rail_optimised: true")
    add("    tiers:")
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
    for name, count, down, up in tiers:
        add(
            f"      - {{name: {name}, switch: {switch}, count: {count}, downlinks: {down}"
            + (f", uplinks: {up}" if up else "")
            + f"{split}}}"
        )
    add("")
    # the utility carries the switches too (PWR006 counts every declared IT load)
    each = model.power.m_as("kW") if model.power is not None else 0.0
    switches_kw = each * sum(count for _, count, _, _ in tiers)
    utility = math.ceil((load * racks + switches_kw) * pue * 1.2 / 100) * 100
    comment = (
        "(IT load + switches) x PUE x 1.2 margin" if switches_kw else "IT load x PUE x 1.2 margin"
    )
    L[L.index("__UTILITY__")] = f"  utility_capacity: {utility} kW   # {comment}"
    read = math.ceil(gpus * 0.7 / 10) * 10
    hosts = racks * nodes if spec.kind == "node" else gpus // 4  # NVL72: 4 GPUs a tray
    add("storage:   # three tiers; ~0.7 GB/s of parallel-FS reads a GPU (SuperPOD-like)")
    add("  tiers:")
    add(
        f"    - {{id: nvme, kind: node_local, capacity: 4 TB, per_node_read_bandwidth: 50 GB/s, "
        f"nodes: {hosts}}}"
    )
    add(
        f"    - {{id: pfs, kind: parallel_fs, capacity: 1 PB, read_bandwidth: {read} GB/s, "
        f"write_bandwidth: {math.ceil(read / 20) * 10} GB/s, feeds_training: true}}"
    )
    add(
        "    - {id: s3, kind: object, capacity: 10 PB, read_bandwidth: 100 GB/s, "
        "write_bandwidth: 100 GB/s, checkpoints: true}"
    )
    add("")
    add("# workloads:   # add a training run to get projections (time, energy, cost):")
    add("#   - {id: llm, model: {parameters: 70e9}, tokens: 2e12, gpus: " + f"{gpus}" + "}")
    return "\n".join(L) + "\n"
