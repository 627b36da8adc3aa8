"""The design's objects expanded from ranges and counts, with every reference resolved."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

from dclint.model.catalog import Platform
from dclint.model.cooling import Cdu, Loop
from dclint.model.site import Feed, Panel
from dclint.model.source import Path
from dclint.units import Q_, Quantity

T = TypeVar("T")

if TYPE_CHECKING:
    from dclint.model.builtin_catalog import Catalog
    from dclint.model.design import Design

__all__ = [
    "CONDUCTOR_TEMPERATURE",
    "REFERENCE_AMBIENT",
    "ChainItem",
    "Derived",
    "FeedItem",
    "PanelItem",
    "Rack",
    "RefError",
    "Topology",
    "ambient_factor",
    "apparent_capacity_kva",
    "derated_capacity",
]


@dataclass(frozen=True)
class RefError:
    """A reference or id problem, at a design path (its key if `key`)."""

    path: Path
    message: str
    key: bool = False


CONDUCTOR_TEMPERATURE = 75.0  # degC: NEC 110.14(C) terminations; the 75 degC column of 310.16
REFERENCE_AMBIENT = 30.0  # degC: the ambient of NEC Table 310.16 and IEC 60364-5-52's tables


def ambient_factor(circuit: Feed | Panel) -> float:
    """The ampacity correction for the circuit's declared ambient temperature, NEC
    310.15(B)(1)'s equation (which IEC 60364-5-52 Table B.52.14's factors follow):
    sqrt((Tc - Ta) / (Tc - Tref)), Tc the conductor rating, Tref the reference ambient; 1 where
    no ambient is declared or it is at or below the reference (never above 1), 0 at or above
    the conductor's rating."""
    ambient = circuit.ambient_temperature
    if ambient is None:
        return 1.0
    ta = float(ambient.m_as("degC"))
    tc = conductor = circuit.conductor_temperature
    tc_c = CONDUCTOR_TEMPERATURE if tc is None else float(conductor.m_as("degC"))  # type: ignore[union-attr]
    ref = circuit.reference_ambient
    tref = REFERENCE_AMBIENT if ref is None else float(ref.m_as("degC"))
    if ta <= tref or tc_c <= tref:
        return 1.0
    if ta >= tc_c:
        return 0.0
    return float(((tc_c - ta) / (tc_c - tref)) ** 0.5)


def derated_capacity(circuit: Feed | Panel, volts: float | None = None) -> Quantity:
    """Real power a circuit carries continuously: sqrt(3) x V(L-L) x I x PF x max utilisation
    for three-phase, V x I x PF x max utilisation for single-phase. `volts` replaces the
    declared voltage (a feed's supply voltage, FeedItem.volts)."""
    return Q_(apparent_capacity_kva(circuit, volts) * circuit.power_factor, "kW")


def apparent_capacity_kva(circuit: Feed | Panel, volts: float | None = None) -> float:
    """Apparent power a circuit carries continuously, in kVA: sqrt(3) x V(L-L) x I x max
    utilisation for three-phase, V x I x max utilisation for single-phase, x the ambient
    correction factor where the circuit declares its ambient temperature (ambient_factor)."""
    phase_factor = 3**0.5 if circuit.phases == 3 else 1.0
    if volts is None:
        volts = circuit.voltage.m_as("V")
    amps = circuit.current_rating.m_as("A")
    share = circuit.max_utilisation.m_as("")  # each factor in a fixed unit: no pint arithmetic
    kva = volts * amps * phase_factor * share / 1000.0
    return kva if circuit.ambient_temperature is None else kva * ambient_factor(circuit)


@dataclass
class PanelItem:
    """A panel of the design (dclint.model.site.Panel), with the feeds and elements it feeds."""

    id: str
    model: Panel
    path: Path
    feeds: list[FeedItem] = field(default_factory=list)
    children: list[PanelItem | ChainItem] = field(default_factory=list)

    @cached_property  # the model is frozen; rules read it once per rack and failure case
    def capacity(self) -> Quantity:
        """The breaker's derated capacity, or the nameplate rating where that is lower."""
        breaker = derated_capacity(self.model)
        rating = self.model.rating_kw
        return breaker if rating is None or rating >= breaker.m_as("kW") else Q_(rating, "kW")

    @property
    def capacity_field(self) -> str:
        """The field that sets the capacity: `rating` where the nameplate binds."""
        rating = self.model.rating_kw
        breaker = derated_capacity(self.model).m_as("kW")
        return "rating" if rating is not None and rating < breaker else "current_rating"

    @property
    def wye(self) -> bool:
        """A three-phase panel: it has a neutral, so a single-phase feed on one leg sees the
        line-to-neutral voltage V(L-L) / sqrt(3)."""
        return self.model.phases == 3


@dataclass
class ChainItem:
    """A transformer or UPS above the panels (dclint.model.power_chain), with the panels and
    elements it feeds."""

    id: str
    kind: str  # "transformer" or "ups"
    model: Any  # dclint.model.power_chain.Transformer or Ups
    path: Path
    children: list[PanelItem | ChainItem] = field(default_factory=list)
    feeds: list[FeedItem] = field(default_factory=list)  # none: feeds hang from panels


@dataclass
class FeedItem:
    """A feed of the design (dclint.model.site.Feed), the racks it powers and its panel."""

    id: str
    model: Feed
    path: Path
    racks: list[Rack] = field(default_factory=list)
    panel: PanelItem | None = None

    @cached_property
    def volts(self) -> float:
        """Voltage across the feed's load, in V. A single-phase feed on a three-phase panel is
        wired line-to-line where its leg says so (`phase: L1-L2`) or its declared voltage is the
        panel's line-to-line voltage (208 V from a 208Y/120 V panel: `wiring`), else
        line-to-neutral (V(L-L) / sqrt(3): 239.6 V on a 415 V panel); it never runs above the
        voltage it declares."""
        own = float(self.model.voltage.m_as("V"))
        if self.model.phases != 1 or self.panel is None or not self.panel.wye:
            return own
        line = float(self.panel.model.voltage.m_as("V"))
        supply = line if self.wiring == "line-to-line" else line / 3**0.5
        return min(own, supply)

    @cached_property
    def wiring(self) -> str:
        """How a single-phase feed on a three-phase panel is wired: as its declared leg says
        (`phase: L1-L2` line-to-line, `phase: L1` line-to-neutral); without one, "line-to-line"
        where its declared voltage equals the panel's line-to-line voltage (within 0.5%,
        dclint's own tolerance for rounding: 208 V on a 208 V panel), else "line-to-neutral";
        "" for a three-phase feed or one without such a panel."""
        if self.model.phases != 1 or self.panel is None or not self.panel.wye:
            return ""
        line = float(self.panel.model.voltage.m_as("V"))
        own = float(self.model.voltage.m_as("V"))
        if self.model.phase:  # a declared leg says it: L1-L2 across two lines, L1 to neutral
            return "line-to-line" if "-" in self.model.phase else "line-to-neutral"
        return "line-to-line" if abs(own - line) <= 0.005 * line else "line-to-neutral"

    @property
    def panel_sets_voltage(self) -> bool:
        """The feed runs below the voltage it declares: its three-phase panel sets it."""
        return self.volts < float(self.model.voltage.m_as("V")) * (1 - 1e-9)

    @cached_property  # the model is frozen; rules read it once per rack and failure case
    def capacity(self) -> Quantity:
        return derated_capacity(self.model, self.volts)

    @cached_property
    def apparent_kva(self) -> float:
        return apparent_capacity_kva(self.model, self.volts)


@dataclass
class Rack:
    """One physical rack. `path` is the `racks` entry that wrote it (shared by a range)."""

    id: str
    number: str
    path: Path
    type_key: str | None
    platform_key: str | None
    platform: Platform | None
    nodes: int
    it_load: Quantity
    liquid_fraction: Quantity
    liquid_cooling_capacity: Quantity | None
    coolant_flow: Quantity | None
    status: str
    feed_ids: list[str]
    origin: dict[str, Path]
    feeds: list[FeedItem] = field(default_factory=list)
    loop: Loop | None = None
    loop_path: Path | None = None
    power_capped: bool = False
    # the rack power envelope the design declares for this rack's row, hall or site,
    # where it was written, and which of them it is ("row r1", "hall h1", "site")
    power_envelope: Quantity | None = None
    power_envelope_path: Path | None = None
    power_envelope_scope: str = ""
    extra_load: Quantity | None = None  # the design's load besides the platform, in it_load
    hall: str | None = None  # the hall (site.halls key) it stands in: its own, else its row's
    weight: Quantity | None = None  # declared, else the platform's (x nodes); None: unknown
    footprint: Quantity | None = None  # declared, else the platform's; None: unknown

    def power_limit(
        self, limit: Quantity, platform_limits: Mapping[str, Quantity]
    ) -> tuple[Quantity, str]:
        """The rack power limit for this rack and what it is: the envelope the design
        declares (row, hall, site), else the configured limit for its platform, else `limit`."""
        if self.power_envelope is not None:
            return self.power_envelope, f"the {self.power_envelope_scope}'s rack power envelope"
        key = self.platform_key or ""
        if key in platform_limits:
            return platform_limits[key], f"the configured limit for {key}"
        return limit, "the rack power limit"

    @property
    def platform_rating(self) -> Quantity | None:
        """The platform's own rated maximum draw for this rack (catalog `max_power` x nodes),
        or None where the catalog gives none."""
        top = self.platform.max_power if self.platform is not None else None
        if top is None or self.platform is None:
            return None
        return Q_(top.m_as("kW") * (self.nodes if self.platform.kind == "node" else 1), "kW")

    @property
    def gpus(self) -> int:
        if self.platform is None:
            return 0
        return self.platform.gpus * (self.nodes if self.platform.kind == "node" else 1)

    def field_path(self, name: str) -> Path:
        """Where the value of a rack field was written: for a field a rack type or platform
        may give (`it_load`, `coolant_flow`, ...), the rack, its type or its platform (the rack
        entry when none wrote it); for a field of the rack entry only (`feeds`, `hall`,
        `row`, `status`, `type`), that field of the entry. Raises ValueError for a name that
        is no rack field (a misspelt name would otherwise point at the wrong line)."""
        from dclint.model.racks import RackFields, RackGroup

        if name in self.origin:
            return self.origin[name]
        if name in RackFields.model_fields:
            return self.path
        if name in RackGroup.model_fields:
            return (*self.path, name)
        known = sorted({*RackGroup.model_fields, *self.origin})
        raise ValueError(
            f"Rack.field_path({name!r}): no such rack field; one of {', '.join(known)}"
        )

    @cached_property
    def peak_load(self) -> Quantity:
        """Most the rack can draw: its platform's catalog `max_power` x nodes where the catalog
        gives one (GB200 NVL72: 132 kW), or the design IT load where that is higher."""
        top = self.platform.max_power if self.platform is not None else None
        if top is None:
            return self.it_load
        nodes = self.nodes if self.platform is not None and self.platform.kind == "node" else 1
        return Q_(max(self.it_load.m_as("kW"), top.m_as("kW") * nodes), "kW")

    @cached_property
    def liquid_heat(self) -> Quantity:
        return Q_(self.it_load.m_as("kW") * self.liquid_fraction.m_as(""), "kW")

    @cached_property
    def air_heat(self) -> Quantity:
        return Q_(self.it_load.m_as("kW") * (1 - self.liquid_fraction.m_as("")), "kW")


@dataclass
class Derived:
    """What dclint.calc and dclint.projection compute from a topology, once per design: rules,
    reports and commands all ask for the same figures. Each figure is kept under the function
    that computes it (with its argument, where it takes one) by `once`, so a figure has the
    type its calculator returns, and the model names none of the calculators' records."""

    _kept: dict[Hashable, Any] = field(default_factory=dict)

    def once(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The figure kept under `key` (the computing function, or (function, argument)),
        computed by `compute` the first time it is asked for."""
        if key in self._kept:
            kept: T = self._kept[key]
            return kept
        value = compute()
        self._kept[key] = value
        return value


@dataclass
class Topology:
    """A design's racks, feeds, panels, power chain, CDUs and loops, expanded and
    cross-referenced (`topology_of`), with the catalog it was resolved against."""

    design: Design
    catalog: Catalog
    racks: list[Rack] = field(default_factory=list)
    rack_by_id: dict[str, Rack] = field(default_factory=dict)
    feeds: dict[str, FeedItem] = field(default_factory=dict)
    panels: dict[str, PanelItem] = field(default_factory=dict)
    chain: dict[str, ChainItem] = field(default_factory=dict)  # transformers and UPS systems
    generators: list[tuple[Any, Path]] = field(default_factory=list)  # power_chain.Generator
    cdus: dict[str, tuple[Cdu, Path]] = field(default_factory=dict)
    loops: list[tuple[Loop, Path, list[Rack]]] = field(default_factory=list)
    derived: Derived = field(default_factory=Derived)

    @property
    def gpus(self) -> int:
        return sum(r.gpus for r in self.racks)

    @property
    def it_load(self) -> Quantity:
        total = sum((r.it_load.m_as("kW") for r in self.racks), 0.0)
        return Q_(total, "kW")
