"""What a review is held to, and what each rule's finding risks: the coverage map and the
consequence classes, both read from the rules' own declarations (`Rule.covers`,
`Rule.consequence`), so neither can drift from the rule pack.

A topic is one row of the map: a standard or guide a datacenter design review is held to,
cited by clause number and title only, and what the row is about. A rule declares the topics
it checks; a topic no rule of the run covers is "not checked", and the review's limitations
say so. Some topics dclint only reports (a figure in the summary, judged by no rule).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CONSEQUENCES",
    "TOPICS",
    "Consequence",
    "CoverageRow",
    "Topic",
    "blocking",
    "consequence_of",
    "coverage",
]


@dataclass(frozen=True)
class Consequence:
    """A class of what a finding risks, in the order a review ranks them."""

    key: str
    label: str


# most serious first: the review's first page ranks by class, then by days and money
CONSEQUENCES = (
    Consequence("single-failure", "loss of load or cooling on a single failure"),
    Consequence("over-rating", "equipment over its rating"),
    Consequence("cannot-run", "the design cannot run the workload as stated"),
    Consequence("capacity", "capacity and headroom"),
    Consequence("performance", "performance and money"),
    Consequence("meta", "the design file itself (suppressions, spelling)"),
)
_RANK = {c.key: i for i, c in enumerate(CONSEQUENCES)}
_UNDECLARED = _RANK["capacity"]  # a plug-in rule that declares none: after the hard limits


def consequence_of(rule: Any) -> tuple[int, str]:
    """(rank, label) of a rule class's declared consequence; a rule declaring none ranks
    with capacity and says it declared none."""
    key = getattr(rule, "consequence", "") or ""
    if key in _RANK:
        return _RANK[key], CONSEQUENCES[_RANK[key]].label
    return _UNDECLARED, "not declared by the rule"


@dataclass(frozen=True)
class Topic:
    """One row of the coverage map. `reported` says what dclint shows about the topic without
    judging it ('' when nothing)."""

    key: str
    standard: str
    clause: str
    topic: str
    reported: str = ""


TOPICS: tuple[Topic, ...] = (
    Topic(
        "uptime.power-redundancy",
        "Uptime Institute Tier Standard: Topology",
        "Tier III/IV",
        "redundant power capacity components and distribution paths",
    ),
    Topic(
        "uptime.cooling-redundancy",
        "Uptime Institute Tier Standard: Topology",
        "Tier III/IV",
        "redundant cooling capacity components and distribution paths",
    ),
    Topic(
        "uptime.fuel",
        "Uptime Institute Tier Standard: Topology",
        "engine-generator fuel",
        "on-site fuel storage and its autonomy",
    ),
    Topic(
        "tia942.electrical",
        "ANSI/TIA-942",
        "electrical systems",
        "utility, transformer, UPS and generator capacity against the load",
        "facility power (IT load x PUE) in the summary",
    ),
    Topic(
        "tia942.floor",
        "ANSI/TIA-942",
        "architectural: floor loading",
        "floor loading under racks",
    ),
    Topic(
        "tia942.pathways",
        "ANSI/TIA-942",
        "telecommunications cabling pathways and spaces",
        "cable trays, pathways, entrance rooms and their separation",
    ),
    Topic(
        "tia942.fire",
        "ANSI/TIA-942; NFPA 75",
        "fire protection",
        "fire detection and suppression",
    ),
    Topic(
        "tia942.security",
        "ANSI/TIA-942",
        "security",
        "physical security and access control",
    ),
    Topic(
        "ashrae.air",
        "ASHRAE TC 9.9 Thermal Guidelines for Data Processing Environments",
        "recommended and allowable envelopes, classes A1-A4",
        "air inlet temperature and heat rejected to air",
    ),
    Topic(
        "ashrae.liquid",
        "ASHRAE TC 9.9 Liquid Cooling Guidelines",
        "facility water classes W17-W45",
        "liquid supply temperature, dew point and condensation",
    ),
    Topic(
        "ashrae.climate",
        "ASHRAE Handbook: Fundamentals, climatic design conditions",
        "0.4% cooling and 99.6% heating design conditions",
        "heat rejection at the design-day ambient, freeze protection of outdoor loops",
    ),
    Topic(
        "iso8528.acceptance",
        "ISO 8528-5",
        "generating sets: load acceptance",
        "generator and UPS step load from a training job's power swings",
    ),
    Topic(
        "nec.continuous",
        "NFPA 70 (NEC)",
        "210.20(A) and 215.3 continuous and noncontinuous loads",
        "branch circuits, feeders and panels held to 80% of their rating",
    ),
    Topic(
        "nec.ampacity",
        "NFPA 70 (NEC)",
        "310.15 ampacities for conductors, ambient correction",
        "conductor ampacity at the declared ambient temperature",
    ),
    Topic(
        "nec.voltage-drop",
        "NFPA 70 (NEC)",
        "215.2(A) informational note, feeder voltage drop",
        "voltage drop over feeder and busway runs",
    ),
    Topic(
        "phase.panel",
        "NFPA 70 (NEC); IEEE 1100",
        "load balance between phases",
        "phase balance of each panel",
    ),
    Topic(
        "phase.pdu",
        "NFPA 70 (NEC); IEEE 1100",
        "load balance between phases",
        "phase balance of each rack PDU",
    ),
    Topic(
        "iec62040.ups",
        "IEC 62040-3",
        "UPS output ratings and stored-energy time",
        "UPS kW rating at the load's power factor, battery autonomy",
    ),
    Topic(
        "ocp.rack-power",
        "OCP Open Rack V3",
        "power shelf and rack power",
        "rack power limit and three-phase supply of high-density racks",
        "each rack's IT load in the summary",
    ),
    Topic(
        "ocp.liquid",
        "OCP Advanced Cooling Solutions",
        "cold plate liquid cooling: flow, temperature and CDU capacity",
        "CDU heat and flow, rack liquid capacity, facility water flow",
    ),
    Topic(
        "nvidia.fabric",
        "NVIDIA DGX SuperPOD reference architecture",
        "compute fabric",
        "non-blocking, rail-optimised compute fabric, switch radix and link speeds",
    ),
    Topic(
        "nvidia.cabling",
        "NVIDIA DGX SuperPOD reference architecture",
        "cabling and optics",
        "optical link qualification and burn-in",
    ),
    Topic(
        "nvidia.storage",
        "NVIDIA DGX SuperPOD reference architecture",
        "storage performance guidance",
        "storage read and write bandwidth, capacity, checkpoint time",
    ),
    Topic(
        "megatron.layout",
        "Megatron-LM (Narayanan et al. 2021)",
        "tensor, pipeline and data parallelism",
        "the parallel layout fits the GPUs, the NVLink domain and the GPU memory",
        "the projected step, training time, energy and cost",
    ),
    Topic(
        "reliability.checkpoint",
        "Young 1974; Daly 2006 (checkpoint intervals)",
        "optimum checkpoint interval against the failure rate",
        "checkpoint interval, restore time and where checkpoints live, at the job's failure rate",
        "goodput and the days failures cost, in the projection",
    ),
    Topic(
        "project.budget",
        "the engagement's own targets",
        "budget and deadline",
        "training cost and time against the declared budget and deadline",
    ),
)
_TOPIC_KEYS = {t.key for t in TOPICS}
# topics the map shows only where a rule of the run covers them
OPTIONAL_TOPICS = {
    "client.standard": Topic(
        "client.standard",
        "the client's standard",
        "site policies",
        "the site's own standards, written as dclint policies",
    ),
}


@dataclass(frozen=True)
class CoverageRow:
    """A topic and the rules of the run that check it (id, name), none: 'not checked'."""

    topic: Topic
    rules: tuple[tuple[str, str], ...]

    @property
    def status(self) -> str:
        if self.rules:
            return "checked"
        return "reported only" if self.topic.reported else "not checked"


def coverage(rules: Mapping[str, Any]) -> list[CoverageRow]:
    """The coverage map of a rule set, in TOPICS order: each topic with the rules declaring it
    (`Rule.covers`). A rule naming a topic TOPICS does not hold adds a row of its own (a
    plug-in's or a site policy's topic), with the topic as the rule writes it."""
    by_topic: dict[str, list[tuple[str, str]]] = {}
    extra: dict[str, Topic] = {}
    for rule_id, cls in sorted(rules.items()):
        for key in getattr(cls, "covers", ()) or ():
            by_topic.setdefault(key, []).append((rule_id, cls.name))
            if key not in _TOPIC_KEYS and key not in extra:
                extra[key] = OPTIONAL_TOPICS.get(key) or Topic(
                    key, getattr(cls, "origin", "") or "plug-in", "-", key
                )
    return [CoverageRow(t, tuple(by_topic.get(t.key, ()))) for t in (*TOPICS, *extra.values())]


def blocking(findings: Any, rules: Mapping[str, Any]) -> Any:
    """The first error whose rule says the design cannot run its workload as stated (a
    partitioned fabric, a layout that does not fit), or None: while it stands, a projected
    training time is not a meaningful figure."""
    for f in findings:
        cls = rules.get(f.rule)
        if f.severity == "error" and getattr(cls, "consequence", "") == "cannot-run":
            return f
    return None
