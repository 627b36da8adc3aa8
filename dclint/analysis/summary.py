"""Design-summary figures for the review reports: pure model-layer data, no formatting."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dclint.calc.fabric_tiers import tier_bandwidths
from dclint.calc.power import feed_allocation
from dclint.calc.storage_demand import read_demand, training_tiers
from dclint.engine.shared import Shared, shared_settings
from dclint.model.resolve import topology_of
from dclint.units import Q_, Quantity

if TYPE_CHECKING:
    from dclint.model.design import Design
    from dclint.model.topology import Rack

__all__ = ["DesignSummary", "RackLoad", "StorageCheck", "TierRatio", "Utilisation", "summarise"]


@dataclass(frozen=True)
class RackLoad:
    id: str
    it_load: Quantity
    limit: Quantity
    group: str = ""  # the rack's type (or platform) and row: what the review draws as one bar


@dataclass(frozen=True)
class Utilisation:
    """Load against capacity of one feed (allocated per path) or one CDU (liquid heat)."""

    id: str
    load: Quantity
    capacity: Quantity

    @property
    def share(self) -> float:
        cap = self.capacity.m_as(self.load.units)
        return float(self.load.magnitude / cap) if cap else float("inf")


@dataclass(frozen=True)
class TierRatio:
    fabric: str
    kind: str
    tier: str
    level: int
    switches: int
    down: Quantity
    up: Quantity | None
    limit: float | None  # the NET001 limit, for compute fabrics
    worst: float | None = None  # down:up of the fullest first-tier switch, as NET001 measures

    @property
    def ratio(self) -> float | None:
        if self.up is None or self.up.magnitude == 0:
            return None
        if self.worst is not None:
            return self.worst
        return float((self.down / self.up).m_as("dimensionless"))


@dataclass(frozen=True)
class StorageCheck:
    tiers: tuple[str, ...]
    read_bandwidth: Quantity  # of the tiers that declare a read rate
    demand: Quantity
    factor: float
    unread: tuple[str, ...] = ()  # training tiers that declare no read rate (not 0 GB/s)

    @property
    def needed(self) -> Quantity:
        return (self.demand * self.factor).to("GB/s")


@dataclass(frozen=True)
class DesignSummary:
    name: str
    gpus: int
    racks: int
    it_load: Quantity
    pue: float
    facility_power: Quantity  # IT load x PUE
    utility_capacity: Quantity | None
    liquid_heat: Quantity
    cooling_capacity: Quantity  # installed CDU capacity
    rack_loads: list[RackLoad] = field(default_factory=list)
    feeds: list[Utilisation] = field(default_factory=list)
    cdus: list[Utilisation] = field(default_factory=list)
    tiers: list[TierRatio] = field(default_factory=list)
    storage: StorageCheck | None = None

    @property
    def cooling_margin(self) -> Quantity:
        return (self.cooling_capacity - self.liquid_heat).to("kW")


def summarise(
    design: Design,
    options: dict[str, dict[str, Any]] | None = None,
    rules: dict[str, Any] | None = None,
) -> DesignSummary:
    """The figures a reviewer reads first. `options` are the typed rule options in effect,
    `rules` the rule classes by id, which declare the settings the summary reads (default: the
    built-in pack)."""
    if options is None:
        from dclint.engine.config import default_options

        options = default_options()
    # the rules' options in effect, by concept: never a restated default
    shared = shared_settings(options, rules or None)
    topo = topology_of(design)
    limit, per_platform = shared.rack_power_limit, shared.platform_rack_limits
    racks = [
        RackLoad(
            r.id, r.it_load.to("kW"), r.power_limit(limit, per_platform)[0], rack_group(design, r)
        )
        for r in topo.racks
    ]
    allocation = feed_allocation(topo)
    feeds = [
        Utilisation(fid, allocation[fid].to("kW"), item.capacity.to("kW"))
        for fid, item in topo.feeds.items()
    ]
    heat: dict[str, float] = {}
    for loop, _, loop_racks in topo.loops:
        heat[loop.cdu] = heat.get(loop.cdu, 0.0) + sum(r.liquid_heat.m_as("kW") for r in loop_racks)
    cdus = [
        Utilisation(cid, Q_(heat.get(cid, 0.0), "kW"), cdu.capacity.to("kW"))
        for cid, (cdu, _) in topo.cdus.items()
    ]
    capacity = sum((c.capacity.m_as("kW") for c in cdus), 0.0)
    liquid = sum((r.liquid_heat.m_as("kW") for r in topo.racks), 0.0)
    it_load = topo.it_load.to("kW")
    return DesignSummary(
        name=design.name,
        gpus=topo.gpus,
        racks=len(topo.racks),
        it_load=it_load,
        pue=design.site.pue,
        facility_power=(it_load * design.site.pue).to("kW"),
        utility_capacity=design.site.utility_power,  # real power: a VA capacity x site PF
        liquid_heat=Q_(liquid, "kW"),
        cooling_capacity=Q_(capacity, "kW"),
        rack_loads=racks,
        feeds=feeds,
        cdus=cdus,
        tiers=_tiers(design, shared),
        storage=_storage(design, shared),
    )


def _tiers(design: Design, shared: Shared) -> list[TierRatio]:
    out = []
    for index, fabric in enumerate(design.fabrics):
        for t in tier_bandwidths(design, index):
            limit = shared.tier_limit(fabric.id, t.name)
            out.append(
                TierRatio(
                    fabric.id,
                    fabric.kind,
                    t.name,
                    t.level,
                    t.switches,
                    t.down,
                    t.up,
                    float(limit) if fabric.kind == "compute" else None,
                    t.ratio if t.fullest is not None else None,
                )
            )
    return out


def _storage(design: Design, shared: Shared) -> StorageCheck | None:
    factor = float(shared.storage_read_factor)
    tiers = training_tiers(design)
    if not tiers and not design.workloads:
        return None
    bandwidth = Q_(0.0, "GB/s")
    unread = []
    for _, tier in tiers:
        bw = tier.aggregate("read")
        if bw is not None:
            bandwidth = bandwidth + bw
        else:
            unread.append(tier.id)
    demand = read_demand(design, shared.storage_demand)
    ids = tuple(t.id for _, t in tiers)
    return StorageCheck(ids, bandwidth.to("GB/s"), demand, factor, tuple(unread))


def rack_group(design: Design, rack: Rack) -> str:
    """Group key of a rack: its type (or platform) and its row (or the `racks` entry)."""
    entry = design.racks[int(rack.path[1])] if len(rack.path) > 1 else None
    kind = rack.type_key or rack.platform_key or "rack"
    where = (entry.row if entry is not None and entry.row else None) or (
        entry.id if entry is not None else rack.id
    )
    return f"{kind} @ {where}"
