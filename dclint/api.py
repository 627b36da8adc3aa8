"""Everything a rule may use, in one import: `from dclint.api import ...`.

A rule (built-in or a third party's) is a `Rule` subclass in a module whose docstring is its
doc; `check(design, ctx)` yields `Violation`s. The built-in rules import nothing else of dclint
but `dclint.units` (tests/test_architecture.py), so what they can do a third party's rule can.
The names come in five facets (`FACETS` lists each one's names):

- **rule surface** (stable): `Rule` and `rule` (the decorator that declares one's id, name
  and metadata), `Option` with its typed values (`Count`, `Positive`, `Ratio`, `Share`, and
  the quantity types `Power`, `Duration`, `Temperature`, ...),
  `Context` (options and the run's date), `Violation` (what a rule reports, with its `Change`
  fixes: `rating_change`, `entry_copies_change`, `next_ids`), `Severity`, `RULE_ID`,
  `USER_PREFIX`; for a rule whose findings can be priced, `Rule.remedy` returns a `Remedy`
  (what fixing a `Finding` does to a workload's projected run), built with `step_ratio` and
  `checkpoint_ratio`; the errors (`ConfigError`, `LoadError`, `LOAD_ERROR_ID`) and the ids of
  the findings the engine reports itself (`SUPPRESSION_IDS`, `UNIT_SPELLING_ID`); quantities
  (`Quantity`, `Q_` builds one: ``Q_(120, "kW")``, `fmt` prints one compactly);
- **design and topology** (stable): `Design` and its parts (`Workload`, `Fabric`,
  `StorageTier`, `Cdu`, `Loop`, `SwitchModel`, `Ups`, `Transformer`, `Generator`), its
  resolved `Topology` from `topology_of(design)` (`Rack` with its `feeds`, `FeedItem`,
  `PanelItem`; `Rack.field_path(name)` says where a rack's field was written, and raises on a
  name that is no rack field), design paths (`DesignPath`) and id ranges (`expand`,
  `RangeError`);
- **facts** (stable): `facts(design)` gives `Facts` (feed allocation and capacity, CDU loads,
  fabric graphs and tier bandwidths, workload projections), computed once a design;
  `project_workloads`, `Projection`, `tco`, `Tco`, `convert`, `hardware_of`, `band_for_gpu`;
- **calculators** (provisional: their names and signatures may change in a minor release,
  with a note in the changelog): the power, power-chain, cooling, air, fabric, PCIe,
  checkpoint and storage calculators the facts are built from (`feed_allocation`,
  `chain_loads`, `cdu_loads`, `fabric_graph`, `tier_bandwidths`, ...) and their records;
- **layout predicates**: the parallel layout checks PAR003 and the layout search share
  (`CHECKS`, `HEADS_TP`, `LAYERS_PP`, ...) and the search's helpers (`plan_layouts`,
  `Candidate`, `best_ratio`, `set_line`, ...).

Rule ids match `RULE_ID` (two to five capital letters, three digits: ``PWR001``). Ids that
begin with `USER_PREFIX` ("X": ``XPWR001``, ``XAB001``) are reserved for users' own rules:
no built-in rule will ever take one, so a plug-in's ids never collide with a future release.
docs/writing-rules.md walks a plug-in from an empty folder to a tested package.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the checker sees every name; a run imports one when it is first asked for
    from dclint.calc.air import AIR, RoomAir, air_flow_needed, room_air
    from dclint.calc.checkpoints import (
        checkpoint_size,
        checkpoint_tier,
        count_text,
        data_tiers,
        drain_tier,
        restore_tier,
        save_time,
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
    from dclint.calc.failures.play import (
        Failure,
        FailureTable,
        Survivor,
        failure_table,
        sharing_text,
    )
    from dclint.calc.heat_rejection import (
        PG_FREEZING_POINTS,
        RejectionLoad,
        freezing_point,
        rejection_loads,
    )
    from dclint.calc.it_load import ItPart, default_note, it_parts, it_total_kw, it_total_text
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
    from dclint.calc.pumps import PumpMatch, head_at, pump_matches
    from dclint.calc.storage_demand import (
        WorkloadDemand,
        samples_per_second,
        training_tiers,
        workload_demands,
    )
    from dclint.calc.voltage_drop import IEC_SIZES_MM2, VoltageDrop, voltage_drops
    from dclint.engine.changes import entry_copies_change, next_ids, rating_change
    from dclint.engine.findings import Finding, Impact
    from dclint.engine.options import Count, Positive, Ratio, Share
    from dclint.engine.registry import RULE_ID, USER_PREFIX
    from dclint.engine.rule import (
        Change,
        Context,
        Option,
        Remedy,
        Rule,
        Severity,
        Violation,
        rule,
    )
    from dclint.engine.spelling import UNIT_SPELLING_ID
    from dclint.engine.suppress import SUPPRESSION_IDS
    from dclint.errors import LOAD_ERROR_ID, ConfigError, DclintError, LoadError
    from dclint.model.catalog import SwitchModel
    from dclint.model.cooling import Cdu, Loop
    from dclint.model.defaults import CHECKPOINT_BYTES_PER_PARAMETER, MEMORY_RESERVE
    from dclint.model.design import Design
    from dclint.model.fabric import Fabric
    from dclint.model.power_chain import Generator, Transformer, Ups, rating_kw
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
        Length,
        Mass,
        Power,
        Temperature,
        TemperatureDelta,
    )
    from dclint.model.workload import Workload
    from dclint.projection import (
        CurrencyError,
        Projection,
        Tco,
        project_workloads,
        tco,
        unprojected,
    )
    from dclint.projection.layout_checks import (
        BATCH_MB_DP,
        CHECKS,
        EP_DP_CP,
        FFN_TP,
        HEADS_TP,
        INTERLEAVED_MB,
        LAYERS_PP,
        MOE_SP,
        PIPELINE_ZERO,
        SEQ_CP,
        SEQ_TP,
        ZERO_PP,
        Check,
        framework_split,
    )
    from dclint.projection.money import convert, sum_amounts
    from dclint.projection.reliability import days_text, run_of
    from dclint.projection.remedies import (
        checkpoint_ratio,
        placement_open,
        spread_design,
        step_ratio,
    )
    from dclint.projection.search.plan import (
        SearchRefused,
        best_ratio,
        layout_values,
        loses_on,
        ordinal,
        plan_layouts,
        set_line,
    )
    from dclint.projection.search.records import Candidate
    from dclint.projection.training import hardware_of
    from dclint.projection.uncertainty import band_for_gpu
    from dclint.units import Q_, Quantity, fmt, fmt_apart, fmt_factors

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
    "IEC_SIZES_MM2",
    "INTERLEAVED_MB",
    "LAYERS_PP",
    "LOAD_ERROR_ID",
    "MEMORY_RESERVE",
    "MOE_SP",
    "PG_FREEZING_POINTS",
    "PIPELINE_ZERO",
    "Q_",
    "RULE_ID",
    "SEQ_CP",
    "SEQ_TP",
    "SUPPRESSION_IDS",
    "UNIT_SPELLING_ID",
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
    "Failure",
    "FailureCase",
    "FailureTable",
    "FeedItem",
    "Finding",
    "Flow",
    "GenerationLoad",
    "Generator",
    "Impact",
    "Information",
    "ItPart",
    "Length",
    "LoadError",
    "Loop",
    "Mass",
    "Option",
    "PanelItem",
    "Positive",
    "Power",
    "Projection",
    "PumpMatch",
    "Quantity",
    "Rack",
    "RangeError",
    "Ratio",
    "RejectionLoad",
    "Remedy",
    "RoomAir",
    "Rule",
    "SearchRefused",
    "Severity",
    "Share",
    "StorageTier",
    "Survivor",
    "SwitchModel",
    "Tco",
    "Temperature",
    "TemperatureDelta",
    "TierBandwidth",
    "Topology",
    "Transformer",
    "Ups",
    "Violation",
    "VoltageDrop",
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
    "days_text",
    "default_note",
    "down_ports",
    "drain_tier",
    "endpoint_ports",
    "entry_copies_change",
    "expand",
    "fabric_graph",
    "fabric_racks",
    "facility_supply",
    "facts",
    "failure_cases",
    "failure_table",
    "fat_tree_endpoints",
    "feed_allocation",
    "feed_capacity_kw",
    "fmt",
    "fmt_apart",
    "fmt_factors",
    "framework_split",
    "freezing_point",
    "generation_loads",
    "hardware_of",
    "head_at",
    "is_apparent",
    "it_parts",
    "it_total_kw",
    "it_total_text",
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
    "placement_open",
    "plan_layouts",
    "port_share",
    "ports_at",
    "project_workloads",
    "pump_matches",
    "rack_load_kw",
    "rack_power_limit",
    "racks_below",
    "rating_change",
    "rating_kw",
    "rating_text",
    "rejection_loads",
    "required_flow",
    "restore_tier",
    "room_air",
    "rule",
    "run_of",
    "samples_per_second",
    "save_time",
    "set_line",
    "sharing_text",
    "site_load",
    "size_unit",
    "spread_design",
    "step_ratio",
    "sum_amounts",
    "tco",
    "tier_bandwidths",
    "tier_links",
    "topology_of",
    "training_tiers",
    "unprojected",
    "ups_below",
    "voltage_drops",
    "workload_demands",
]

# The API's facets, each a promise of its own (see the module doc); every exported name is in
# exactly one (tests/test_api_lazy.py)
FACETS: dict[str, tuple[str, ...]] = {
    "rule surface": (
        "Length",
        "Area",
        "Bandwidth",
        "Change",
        "ConfigError",
        "Context",
        "Count",
        "DclintError",
        "Duration",
        "Finding",
        "Flow",
        "Impact",
        "Information",
        "LOAD_ERROR_ID",
        "LoadError",
        "Mass",
        "Option",
        "Positive",
        "Power",
        "Q_",
        "Quantity",
        "RULE_ID",
        "Ratio",
        "Remedy",
        "Rule",
        "SUPPRESSION_IDS",
        "Severity",
        "Share",
        "Temperature",
        "TemperatureDelta",
        "UNIT_SPELLING_ID",
        "USER_PREFIX",
        "Violation",
        "checkpoint_ratio",
        "entry_copies_change",
        "fmt",
        "fmt_apart",
        "fmt_factors",
        "next_ids",
        "rating_change",
        "rule",
        "step_ratio",
    ),
    "design and topology": (
        "rating_kw",
        "CHECKPOINT_BYTES_PER_PARAMETER",
        "Cdu",
        "Design",
        "DesignPath",
        "Fabric",
        "FeedItem",
        "Generator",
        "Loop",
        "MEMORY_RESERVE",
        "PanelItem",
        "Rack",
        "RangeError",
        "StorageTier",
        "SwitchModel",
        "Topology",
        "Transformer",
        "Ups",
        "Workload",
        "expand",
        "is_apparent",
        "topology_of",
    ),
    "facts": (
        "CurrencyError",
        "Facts",
        "Projection",
        "Tco",
        "band_for_gpu",
        "convert",
        "facts",
        "hardware_of",
        "project_workloads",
        "sum_amounts",
        "tco",
        "unprojected",
    ),
    "calculators (provisional)": (
        "Failure",
        "FailureTable",
        "IEC_SIZES_MM2",
        "ItPart",
        "PG_FREEZING_POINTS",
        "PumpMatch",
        "RejectionLoad",
        "Survivor",
        "VoltageDrop",
        "days_text",
        "drain_tier",
        "failure_table",
        "freezing_point",
        "head_at",
        "default_note",
        "it_parts",
        "it_total_kw",
        "it_total_text",
        "placement_open",
        "pump_matches",
        "rejection_loads",
        "restore_tier",
        "run_of",
        "samples_per_second",
        "save_time",
        "sharing_text",
        "spread_design",
        "voltage_drops",
        "AIR",
        "ASHRAE_SUPPLY_LIMITS",
        "COOLANTS",
        "CduLoad",
        "ElementLoad",
        "EndpointPorts",
        "FabricGraph",
        "FailureCase",
        "GenerationLoad",
        "RoomAir",
        "TierBandwidth",
        "WorkloadDemand",
        "air_flow_needed",
        "cdu_loads",
        "chain_feeds",
        "chain_loads",
        "checkpoint_size",
        "checkpoint_tier",
        "clos_endpoints",
        "count_text",
        "data_tiers",
        "down_ports",
        "endpoint_ports",
        "fabric_graph",
        "fabric_racks",
        "facility_supply",
        "failure_cases",
        "fat_tree_endpoints",
        "feed_allocation",
        "feed_capacity_kw",
        "generation_loads",
        "load_basis",
        "loop_delta",
        "loop_halls",
        "nic_speed",
        "normal_feed_load_kw",
        "panel_allocation",
        "pcie_link",
        "port_share",
        "ports_at",
        "rack_load_kw",
        "rack_power_limit",
        "racks_below",
        "rating_text",
        "required_flow",
        "room_air",
        "site_load",
        "size_unit",
        "tier_bandwidths",
        "tier_links",
        "training_tiers",
        "ups_below",
        "workload_demands",
    ),
    "layout predicates": (
        "INTERLEAVED_MB",
        "BATCH_MB_DP",
        "CHECKS",
        "Candidate",
        "Check",
        "EP_DP_CP",
        "FFN_TP",
        "HEADS_TP",
        "LAYERS_PP",
        "MOE_SP",
        "PIPELINE_ZERO",
        "SEQ_CP",
        "SEQ_TP",
        "SearchRefused",
        "ZERO_PP",
        "best_ratio",
        "framework_split",
        "layout_values",
        "loses_on",
        "ordinal",
        "plan_layouts",
        "set_line",
    ),
}

# Where each name lives: `from dclint.api import X` imports X's module only, so a check
# imports what the rules it runs use (the layout search only when PAR005 searches)
_MODULE = {
    "AIR": "dclint.calc.air",
    "ASHRAE_SUPPLY_LIMITS": "dclint.calc.cooling",
    "Area": "dclint.model.types",
    "BATCH_MB_DP": "dclint.projection.layout_checks",
    "INTERLEAVED_MB": "dclint.projection.layout_checks",
    "Bandwidth": "dclint.model.types",
    "CHECKPOINT_BYTES_PER_PARAMETER": "dclint.model.defaults",
    "CHECKS": "dclint.projection.layout_checks",
    "COOLANTS": "dclint.calc.cooling",
    "Candidate": "dclint.projection.search.records",
    "Cdu": "dclint.model.cooling",
    "CduLoad": "dclint.calc.cooling",
    "Change": "dclint.engine.rule",
    "Check": "dclint.projection.layout_checks",
    "framework_split": "dclint.projection.layout_checks",
    "LOAD_ERROR_ID": "dclint.errors",
    "SUPPRESSION_IDS": "dclint.engine.suppress",
    "UNIT_SPELLING_ID": "dclint.engine.spelling",
    "ConfigError": "dclint.errors",
    "Context": "dclint.engine.rule",
    "Count": "dclint.engine.options",
    "CurrencyError": "dclint.projection",
    "DclintError": "dclint.errors",
    "Design": "dclint.model.design",
    "DesignPath": "dclint.model.source",
    "Duration": "dclint.model.types",
    "EP_DP_CP": "dclint.projection.layout_checks",
    "ElementLoad": "dclint.calc.power_chain",
    "EndpointPorts": "dclint.calc.fabric_tiers",
    "FFN_TP": "dclint.projection.layout_checks",
    "Fabric": "dclint.model.fabric",
    "FabricGraph": "dclint.calc.fabric_graph",
    "FailureCase": "dclint.calc.power_chain",
    "PumpMatch": "dclint.calc.pumps",
    "head_at": "dclint.calc.pumps",
    "pump_matches": "dclint.calc.pumps",
    "rating_kw": "dclint.model.power_chain",
    "PG_FREEZING_POINTS": "dclint.calc.heat_rejection",
    "RejectionLoad": "dclint.calc.heat_rejection",
    "freezing_point": "dclint.calc.heat_rejection",
    "rejection_loads": "dclint.calc.heat_rejection",
    "IEC_SIZES_MM2": "dclint.calc.voltage_drop",
    "VoltageDrop": "dclint.calc.voltage_drop",
    "voltage_drops": "dclint.calc.voltage_drop",
    "ItPart": "dclint.calc.it_load",
    "it_parts": "dclint.calc.it_load",
    "default_note": "dclint.calc.it_load",
    "it_total_kw": "dclint.calc.it_load",
    "it_total_text": "dclint.calc.it_load",
    "Failure": "dclint.calc.failures.play",
    "FailureTable": "dclint.calc.failures.play",
    "Survivor": "dclint.calc.failures.play",
    "failure_table": "dclint.calc.failures.play",
    "sharing_text": "dclint.calc.failures.play",
    "FeedItem": "dclint.model.topology",
    "Finding": "dclint.engine.findings",
    "Flow": "dclint.model.types",
    "GenerationLoad": "dclint.calc.power_chain",
    "Generator": "dclint.model.power_chain",
    "HEADS_TP": "dclint.projection.layout_checks",
    "Impact": "dclint.engine.findings",
    "Information": "dclint.model.types",
    "LAYERS_PP": "dclint.projection.layout_checks",
    "LoadError": "dclint.errors",
    "Loop": "dclint.model.cooling",
    "MEMORY_RESERVE": "dclint.model.defaults",
    "MOE_SP": "dclint.projection.layout_checks",
    "Mass": "dclint.model.types",
    "Option": "dclint.engine.rule",
    "PIPELINE_ZERO": "dclint.projection.layout_checks",
    "PanelItem": "dclint.model.topology",
    "Positive": "dclint.engine.options",
    "Power": "dclint.model.types",
    "Projection": "dclint.projection",
    "Q_": "dclint.units",
    "Quantity": "dclint.units",
    "RULE_ID": "dclint.engine.registry",
    "Rack": "dclint.model.topology",
    "RangeError": "dclint.model.ranges",
    "Ratio": "dclint.engine.options",
    "Remedy": "dclint.engine.rule",
    "RoomAir": "dclint.calc.air",
    "Rule": "dclint.engine.rule",
    "SEQ_CP": "dclint.projection.layout_checks",
    "SEQ_TP": "dclint.projection.layout_checks",
    "SearchRefused": "dclint.projection.search.plan",
    "Severity": "dclint.engine.rule",
    "Share": "dclint.engine.options",
    "StorageTier": "dclint.model.storage",
    "SwitchModel": "dclint.model.catalog",
    "Tco": "dclint.projection",
    "Temperature": "dclint.model.types",
    "TemperatureDelta": "dclint.model.types",
    "TierBandwidth": "dclint.calc.fabric_tiers",
    "Topology": "dclint.model.topology",
    "Transformer": "dclint.model.power_chain",
    "USER_PREFIX": "dclint.engine.registry",
    "Ups": "dclint.model.power_chain",
    "Violation": "dclint.engine.rule",
    "Workload": "dclint.model.workload",
    "WorkloadDemand": "dclint.calc.storage_demand",
    "ZERO_PP": "dclint.projection.layout_checks",
    "air_flow_needed": "dclint.calc.air",
    "band_for_gpu": "dclint.projection.uncertainty",
    "best_ratio": "dclint.projection.search.plan",
    "cdu_loads": "dclint.calc.cooling",
    "chain_feeds": "dclint.calc.power_chain",
    "chain_loads": "dclint.calc.power_chain",
    "checkpoint_ratio": "dclint.projection.remedies",
    "checkpoint_size": "dclint.calc.checkpoints",
    "checkpoint_tier": "dclint.calc.checkpoints",
    "clos_endpoints": "dclint.calc.fabric_graph",
    "convert": "dclint.projection.money",
    "sum_amounts": "dclint.projection.money",
    "count_text": "dclint.calc.checkpoints",
    "data_tiers": "dclint.calc.checkpoints",
    "down_ports": "dclint.calc.fabric_graph",
    "endpoint_ports": "dclint.calc.fabric_tiers",
    "entry_copies_change": "dclint.engine.changes",
    "expand": "dclint.model.ranges",
    "fabric_graph": "dclint.calc.fabric_graph",
    "fabric_racks": "dclint.calc.fabric_graph",
    "facility_supply": "dclint.calc.cooling",
    "failure_cases": "dclint.calc.power_chain",
    "fat_tree_endpoints": "dclint.calc.fabric_graph",
    "feed_allocation": "dclint.calc.power",
    "feed_capacity_kw": "dclint.calc.power",
    "fmt": "dclint.units",
    "fmt_apart": "dclint.units",
    "fmt_factors": "dclint.units",
    "generation_loads": "dclint.calc.power_chain",
    "hardware_of": "dclint.projection.training",
    "is_apparent": "dclint.model.site",
    "layout_values": "dclint.projection.search.plan",
    "load_basis": "dclint.calc.power",
    "loop_delta": "dclint.calc.cooling",
    "loop_halls": "dclint.calc.cooling",
    "loses_on": "dclint.projection.search.plan",
    "next_ids": "dclint.engine.changes",
    "nic_speed": "dclint.calc.fabric_graph",
    "normal_feed_load_kw": "dclint.calc.power",
    "ordinal": "dclint.projection.search.plan",
    "panel_allocation": "dclint.calc.power",
    "pcie_link": "dclint.calc.pcie",
    "plan_layouts": "dclint.projection.search.plan",
    "port_share": "dclint.calc.fabric_graph",
    "ports_at": "dclint.calc.fabric_graph",
    "project_workloads": "dclint.projection",
    "rack_load_kw": "dclint.calc.power",
    "rack_power_limit": "dclint.calc.power",
    "racks_below": "dclint.calc.power",
    "rating_change": "dclint.engine.changes",
    "rating_text": "dclint.calc.power",
    "required_flow": "dclint.calc.cooling",
    "room_air": "dclint.calc.air",
    "rule": "dclint.engine.rule",
    "placement_open": "dclint.projection.remedies",
    "set_line": "dclint.projection.search.plan",
    "site_load": "dclint.calc.power",
    "size_unit": "dclint.calc.checkpoints",
    "spread_design": "dclint.projection.remedies",
    "step_ratio": "dclint.projection.remedies",
    "tco": "dclint.projection",
    "tier_bandwidths": "dclint.calc.fabric_tiers",
    "tier_links": "dclint.calc.fabric_tiers",
    "topology_of": "dclint.model.resolve",
    "training_tiers": "dclint.calc.storage_demand",
    "unprojected": "dclint.projection",
    "ups_below": "dclint.calc.power_chain",
    "workload_demands": "dclint.calc.storage_demand",
    "restore_tier": "dclint.calc.checkpoints",
    "save_time": "dclint.calc.checkpoints",
    "drain_tier": "dclint.calc.checkpoints",
    "run_of": "dclint.projection.reliability",
    "days_text": "dclint.projection.reliability",
    "samples_per_second": "dclint.calc.storage_demand",
    "Length": "dclint.model.types",
}
_RENAMED = {"DesignPath": "Path"}


def __getattr__(name: str) -> Any:
    """Import a name's module when the name is first asked for, and keep the name here."""
    module = _MODULE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), _RENAMED.get(name, name))
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


@dataclass(frozen=True)
class Facts:
    """A design's resolved facts, typed. Each is computed on first use and kept for the
    design (rules, reports and commands ask for the same figures), so asking twice is free."""

    design: Design

    @property
    def topology(self) -> Topology:
        """Racks, feeds, panels, CDUs and loops with their references resolved."""
        from dclint.model.resolve import topology_of

        return topology_of(self.design)

    def feed_allocation(self, peak: bool = False) -> dict[str, Quantity]:
        """Load allocated to each feed (a rack's whole load on each of its power paths);
        `peak` takes the racks' peak load instead of their design load."""
        from dclint.calc.power import feed_allocation

        return feed_allocation(self.topology, peak)

    @property
    def feed_capacity_kw(self) -> dict[str, float]:
        """Derated capacity of each feed, in kW."""
        from dclint.calc.power import feed_capacity_kw

        return feed_capacity_kw(self.topology)

    @property
    def cdu_loads(self) -> dict[str, CduLoad]:
        """Heat and flow each CDU carries, against its capacity."""
        from dclint.calc.cooling import cdu_loads

        return cdu_loads(self.topology)

    def fabric_graph(self, index: int) -> FabricGraph:
        """The switch graph of `design.fabrics[index]`."""
        from dclint.calc.fabric_graph import fabric_graph

        return fabric_graph(self.design, index)

    def tier_bandwidths(self, index: int) -> list[TierBandwidth]:
        """Down- and uplink bandwidth of each tier of `design.fabrics[index]`."""
        from dclint.calc.fabric_tiers import tier_bandwidths

        return tier_bandwidths(self.design, index)

    @property
    def projections(self) -> list[Projection]:
        """The projected run of each workload that can be projected."""
        from dclint.projection import project_workloads

        return project_workloads(self.design)

    @property
    def unprojected(self) -> list[tuple[str, str]]:
        """(workload id, why) for each workload that cannot be projected."""
        from dclint.projection import unprojected

        return unprojected(self.design)


def facts(design: Design) -> Facts:
    """The resolved facts of `design` (see `Facts`)."""
    return Facts(design)
