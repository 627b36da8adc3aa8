"""Everything a rule may use, in one import: `from dclint.api import ...`.

A rule (built-in or a third party's) is a `Rule` subclass in a module whose docstring is its
doc; `check(design, ctx)` yields `Violation`s. This module names what such a rule may read and
build, and nothing in it changes between minor releases without a deprecation:

- the rule surface: `Rule`, `Option` (a typed option), `Context` (options and the run's date),
  `Violation` (what a rule reports), `Severity`, `RULE_ID`, `USER_PREFIX`; for a rule whose
  findings can be priced, `Rule.remedy` returns a `Remedy` (what fixing a `Finding` does to a
  workload's projected run), with `step_ratio` and `checkpoint_ratio` to build one;
- the design: `Design` and its parts (`Workload`, `Fabric`, `StorageTier`, `Cdu`, `Loop`,
  `SwitchModel`), its resolved `Topology` (`Rack`, `FeedItem`, `PanelItem`), design paths
  (`DesignPath`) and id ranges (`expand`, `RangeError`);
- its resolved facts, typed and computed once a design: `facts(design)` gives `Facts`
  (feed allocation and capacity, CDU loads, fabric graphs and tier bandwidths, workload
  projections), and the calculators behind them (the layout search's helpers among them,
  and `CHECKS`, the layout checks PAR003 and the search share);
- quantities: `Quantity`, `Q_` (build one: ``Q_(120, "kW")``), `fmt` (print one compactly).

Rule ids match `RULE_ID` (two to five capital letters, three digits: ``PWR001``). Ids that
begin with `USER_PREFIX` ("X": ``XPWR001``, ``XAB001``) are reserved for users' own rules:
no built-in rule will ever take one, so a plug-in's ids never collide with a future release.
docs/writing-rules.md walks a plug-in from an empty folder to a tested package.
"""

from __future__ import annotations

from dataclasses import dataclass

from dclint.calc.air import AIR, RoomAir, air_flow_needed, room_air
from dclint.calc.checkpoints import (
    checkpoint_size,
    checkpoint_tier,
    count_text,
    data_tiers,
    size_unit,
)
from dclint.calc.cooling import (
    ASHRAE_SUPPLY_LIMITS,
    COOLANTS,
    CduLoad,
    cdu_loads,
    facility_supply,
    loop_delta,
    loop_halls,
    required_flow,
)
from dclint.calc.fabric_graph import (
    FabricGraph,
    clos_endpoints,
    down_ports,
    fabric_graph,
    fabric_racks,
    fat_tree_endpoints,
    nic_speed,
    port_share,
    ports_at,
)
from dclint.calc.fabric_tiers import (
    EndpointPorts,
    TierBandwidth,
    endpoint_ports,
    tier_bandwidths,
    tier_links,
)
from dclint.calc.pcie import pcie_link
from dclint.calc.power import (
    feed_allocation,
    feed_capacity_kw,
    load_basis,
    normal_feed_load_kw,
    panel_allocation,
    rack_load_kw,
    rack_power_limit,
    racks_below,
    rating_text,
    site_load,
)
from dclint.calc.power_chain import (
    ElementLoad,
    FailureCase,
    GenerationLoad,
    chain_feeds,
    chain_loads,
    failure_cases,
    generation_loads,
    ups_below,
)
from dclint.calc.storage_demand import WorkloadDemand, training_tiers, workload_demands
from dclint.engine.changes import entry_copies_change, next_ids, rating_change
from dclint.engine.findings import Finding, Impact
from dclint.engine.options import Count, Positive, Ratio, Share
from dclint.engine.registry import RULE_ID, USER_PREFIX
from dclint.engine.rule import Change, Context, Option, Remedy, Rule, Severity, Violation
from dclint.errors import ConfigError, DclintError, LoadError
from dclint.model.catalog import SwitchModel
from dclint.model.cooling import Cdu, Loop
from dclint.model.defaults import CHECKPOINT_BYTES_PER_PARAMETER, MEMORY_RESERVE
from dclint.model.design import Design
from dclint.model.fabric import Fabric
from dclint.model.power_chain import Generator, Transformer, Ups
from dclint.model.ranges import RangeError, expand
from dclint.model.resolve import topology_of
from dclint.model.site import is_apparent
from dclint.model.source import Path as DesignPath
from dclint.model.storage import StorageTier
from dclint.model.topology import FeedItem, PanelItem, Rack, Topology
from dclint.model.types import (
    Area,
    Bandwidth,
    Duration,
    Flow,
    Information,
    Mass,
    Power,
    Temperature,
    TemperatureDelta,
)
from dclint.model.workload import Workload
from dclint.projection import CurrencyError, Projection, Tco, project_workloads, tco, unprojected
from dclint.projection.layout_checks import (
    BATCH_MB_DP,
    CHECKS,
    EP_DP_CP,
    FFN_TP,
    HEADS_TP,
    LAYERS_PP,
    MOE_SP,
    PIPELINE_ZERO,
    SEQ_CP,
    SEQ_TP,
    ZERO_PP,
    Check,
)
from dclint.projection.money import convert
from dclint.projection.remedies import checkpoint_ratio, step_ratio
from dclint.projection.search_design import (
    SearchRefused,
    best_ratio,
    layout_values,
    loses_on,
    ordinal,
    plan_layouts,
    set_line,
)
from dclint.projection.search_records import Candidate
from dclint.projection.training import hardware_of
from dclint.projection.uncertainty import band_for_gpu
from dclint.units import Q_, Quantity, fmt

__all__ = [
    "AIR",
    "ASHRAE_SUPPLY_LIMITS",
    "BATCH_MB_DP",
    "CHECKPOINT_BYTES_PER_PARAMETER",
    "CHECKS",
    "COOLANTS",
    "EP_DP_CP",
    "FFN_TP",
    "HEADS_TP",
    "LAYERS_PP",
    "MEMORY_RESERVE",
    "MOE_SP",
    "PIPELINE_ZERO",
    "Q_",
    "RULE_ID",
    "SEQ_CP",
    "SEQ_TP",
    "USER_PREFIX",
    "ZERO_PP",
    "Area",
    "Bandwidth",
    "Candidate",
    "Cdu",
    "CduLoad",
    "Change",
    "Check",
    "ConfigError",
    "Context",
    "Count",
    "CurrencyError",
    "DclintError",
    "Design",
    "DesignPath",
    "Duration",
    "ElementLoad",
    "EndpointPorts",
    "Fabric",
    "FabricGraph",
    "Facts",
    "FailureCase",
    "FeedItem",
    "Finding",
    "Flow",
    "GenerationLoad",
    "Generator",
    "Impact",
    "Information",
    "LoadError",
    "Loop",
    "Mass",
    "Option",
    "PanelItem",
    "Positive",
    "Power",
    "Projection",
    "Quantity",
    "Rack",
    "RangeError",
    "Ratio",
    "Remedy",
    "RoomAir",
    "Rule",
    "SearchRefused",
    "Severity",
    "Share",
    "StorageTier",
    "SwitchModel",
    "Tco",
    "Temperature",
    "TemperatureDelta",
    "TierBandwidth",
    "Topology",
    "Transformer",
    "Ups",
    "Violation",
    "Workload",
    "WorkloadDemand",
    "air_flow_needed",
    "band_for_gpu",
    "best_ratio",
    "cdu_loads",
    "chain_feeds",
    "chain_loads",
    "checkpoint_ratio",
    "checkpoint_size",
    "checkpoint_tier",
    "clos_endpoints",
    "convert",
    "count_text",
    "data_tiers",
    "down_ports",
    "endpoint_ports",
    "entry_copies_change",
    "expand",
    "fabric_graph",
    "fabric_racks",
    "facility_supply",
    "facts",
    "failure_cases",
    "fat_tree_endpoints",
    "feed_allocation",
    "feed_capacity_kw",
    "fmt",
    "generation_loads",
    "hardware_of",
    "is_apparent",
    "layout_values",
    "load_basis",
    "loop_delta",
    "loop_halls",
    "loses_on",
    "next_ids",
    "nic_speed",
    "normal_feed_load_kw",
    "ordinal",
    "panel_allocation",
    "pcie_link",
    "plan_layouts",
    "port_share",
    "ports_at",
    "project_workloads",
    "rack_load_kw",
    "rack_power_limit",
    "racks_below",
    "rating_change",
    "rating_text",
    "required_flow",
    "room_air",
    "set_line",
    "site_load",
    "size_unit",
    "step_ratio",
    "tco",
    "tier_bandwidths",
    "tier_links",
    "topology_of",
    "training_tiers",
    "unprojected",
    "ups_below",
    "workload_demands",
]


@dataclass(frozen=True)
class Facts:
    """A design's resolved facts, typed. Each is computed on first use and kept for the
    design (rules, reports and commands ask for the same figures), so asking twice is free."""

    design: Design

    @property
    def topology(self) -> Topology:
        """Racks, feeds, panels, CDUs and loops with their references resolved."""
        return topology_of(self.design)

    def feed_allocation(self, peak: bool = False) -> dict[str, Quantity]:
        """Load allocated to each feed (a rack's whole load on each of its power paths);
        `peak` takes the racks' peak load instead of their design load."""
        return feed_allocation(self.topology, peak)

    @property
    def feed_capacity_kw(self) -> dict[str, float]:
        """Derated capacity of each feed, in kW."""
        return feed_capacity_kw(self.topology)

    @property
    def cdu_loads(self) -> dict[str, CduLoad]:
        """Heat and flow each CDU carries, against its capacity."""
        return cdu_loads(self.topology)

    def fabric_graph(self, index: int) -> FabricGraph:
        """The switch graph of `design.fabrics[index]`."""
        return fabric_graph(self.design, index)

    def tier_bandwidths(self, index: int) -> list[TierBandwidth]:
        """Down- and uplink bandwidth of each tier of `design.fabrics[index]`."""
        return tier_bandwidths(self.design, index)

    @property
    def projections(self) -> list[Projection]:
        """The projected run of each workload that can be projected."""
        return project_workloads(self.design)

    @property
    def unprojected(self) -> list[tuple[str, str]]:
        """(workload id, why) for each workload that cannot be projected."""
        return unprojected(self.design)


def facts(design: Design) -> Facts:
    """The resolved facts of `design` (see `Facts`)."""
    return Facts(design)
