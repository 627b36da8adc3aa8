"""The site, and its power: utility, panels/busways and feeds."""

# Annotations are evaluated as written, without `from __future__ import annotations`: pydantic
# reads this module's field types (why: the top of dclint.model.types).
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field
from pydantic import Strict as StrictMode
from pydantic.dataclasses import dataclass
from pydantic_core import PydanticCustomError

from dclint.model.cooling import AirHandlers
from dclint.model.types import (
    RECORD,
    Area,
    Current,
    Dim,
    Duration,
    Fraction,
    Id,
    Length,
    Money,
    Power,
    PricePerEnergy,
    Ref,
    Strict,
    Temperature,
    Voltage,
)
from dclint.units import Q_, Quantity, dimension_of

__all__ = [
    "FLOOR_LOAD",
    "Feed",
    "Hall",
    "Panel",
    "PowerRating",
    "Row",
    "Site",
    "Status",
    "is_apparent",
]


def is_apparent(q: Quantity) -> bool:
    """A power written in VA (kVA, MVA): apparent power, a dimension of its own."""
    return bool(q.dimensionality == dimension_of("VA"))


class _RatingDim(Dim):  # Dim's fields and generated methods serve it: no second @dataclass
    """A rating in real power (W, kW, MW) or apparent power (VA, kVA, MVA), kept as written:
    a kVA figure is converted to real power only through a declared power factor."""

    def _check_dimension(self, q: Quantity) -> None:
        if q.dimensionality not in (dimension_of("W"), dimension_of("VA")):
            raise PydanticCustomError(
                "quantity",
                "expected {kind} in W or VA, e.g. '{example}', got a value in '{units}'",
                {"kind": self.kind, "example": self.example, "units": str(q.units)},
            )


PowerRating = Annotated[Quantity, _RatingDim("1.5 MW", "power or apparent power")]


class _FloorDim(Dim):
    """A floor's uniformly distributed load rating, as a pressure (kPa, kN/m^2, lbf/ft^2) or as
    mass per area (kg/m^2, lb/ft^2), kept as written (mass per area x standard gravity)."""

    def _check_dimension(self, q: Quantity) -> None:
        if q.dimensionality not in (dimension_of("kPa"), dimension_of("kg/m^2")):
            raise PydanticCustomError(
                "quantity",
                "expected {kind} in kPa, kN/m^2 or kg/m^2, e.g. '{example}', got a value in "
                "'{units}'",
                {"kind": self.kind, "example": self.example, "units": str(q.units)},
            )


FLOOR_LOAD = _FloorDim("12 kN/m^2", "floor load rating")
FloorLoad = Annotated[Quantity, FLOOR_LOAD]
_FLOOR = (
    "Uniformly distributed load the {0}'s floor is rated for, in kN/m^2, kPa, kg/m^2 or "
    "lbf/ft^2 (STR001)"
)

Status = Literal["active", "planned"]
AshraeClass = Literal["W17", "W27", "W32", "W40", "W45", "W+"]


_ENVELOPE = (
    "Rack power envelope the {0} is built for (busway tap-offs, power shelves, cooling): the "
    "highest design IT load of one rack in it (PWR001)"
)


class Hall(Strict):
    """A data hall (room) with the rack power envelope it was built for."""

    rack_power_limit: Power | None = Field(None, description=_ENVELOPE.format("hall"))
    description: str | None = None
    dew_point: Temperature | None = Field(
        None,
        description="Highest dew point of the room's air by design (default: the rule's, "
        "15 degC, the ASHRAE recommended envelope's upper limit); liquid loops stay above it "
        "(CLG008)",
    )
    air_handlers: AirHandlers | None = Field(
        None, description="The room's air handlers: what carries its racks' heat to air (CLG010)"
    )
    floor_rating: FloorLoad | None = Field(None, description=_FLOOR.format("hall"))


class Row(Strict):
    """A row of racks (the name racks give in `row`), its hall and its rack power envelope."""

    hall: str | None = Field(None, description="Key of the hall (site.halls) the row stands in")
    rack_power_limit: Power | None = Field(None, description=_ENVELOPE.format("row"))


class Site(Strict):
    name: str | None = None
    rack_power_limit: Power | None = Field(None, description=_ENVELOPE.format("site"))
    floor_rating: FloorLoad | None = Field(None, description=_FLOOR.format("site"))
    halls: dict[str, Hall] = Field(
        default_factory=dict, description="Data halls by key; a rack names its own in `hall`"
    )
    rows: dict[str, Row] = Field(
        default_factory=dict, description="Rows by the name racks give in `row`"
    )
    utility_capacity: PowerRating | None = Field(
        None, description="Utility (grid) capacity, in W or in VA (e.g. '2 MVA')"
    )
    power_factor: float = Field(
        0.95,
        gt=0,
        le=1,
        description="Facility power factor: a utility capacity in VA carries this share in W",
    )
    pue: float = Field(1.3, ge=1.0, le=5.0, description="Power usage effectiveness")
    design_pue: float | None = Field(
        None,
        ge=1.0,
        le=5.0,
        description="PUE on the design day (the site's ASHRAE 0.4% cooling design condition), "
        "when the chillers or dry coolers work hardest: utility and generator capacity are "
        "sized on it (PWR006, PWR012); `pue`, an annual energy ratio (ISO/IEC 30134-2), stays "
        "the energy and cost figure; unset: pue",
    )
    electricity_price: PricePerEnergy | None = None
    currency: str = Field(
        "USD", pattern=r"^[A-Z]{3}$", description="Currency the report totals are given in"
    )
    exchange_rates: dict[str, Money] = Field(
        default_factory=dict,
        description="Value of one unit of a currency, e.g. {USD: '7.2 CNY'}",
    )
    ashrae_class: AshraeClass | None = Field(
        None, description="Facility-water class (ASHRAE W17...W45, W+)"
    )
    uptime_tier: Literal["I", "II", "III", "IV"] | None = None
    gpu_mtbf: Duration | None = Field(
        None,
        description="GPU-hours between job interruptions at this site (a job's MTBF x its "
        "GPUs), e.g. '50000 h'; default 50,687 h: the Llama 3 paper's 419 unexpected "
        "interruptions in 54 days on 16,384 H100 (3.09 h a job at that scale)",
    )
    design_dry_bulb: Temperature | None = Field(
        None,
        description="Design-day outdoor dry bulb: the ASHRAE 0.4% (or extreme) cooling design "
        "condition of the site's climate station (CLG012)",
    )
    design_wet_bulb: Temperature | None = Field(
        None,
        description="Design-day outdoor wet bulb (ASHRAE 0.4% evaporation design condition), "
        "for cooling towers (CLG012)",
    )
    min_temperature: Temperature | None = Field(
        None,
        description="Lowest outdoor temperature the plant must survive: the ASHRAE 99.6% "
        "heating dry bulb or, safer, the extreme annual minimum (CLG013)",
    )

    @property
    def sizing_pue(self) -> tuple[float, str]:
        """The PUE capacity is sized on, and what it is for a message: the design-day PUE
        where declared, else the annual one."""
        if self.design_pue is not None:
            return self.design_pue, f"design-day PUE {self.design_pue:g}"
        return self.pue, f"PUE {self.pue:g} (annual: no site.design_pue declared)"

    @property
    def utility_power(self) -> Quantity | None:
        """The utility capacity as real power in kW: a capacity in VA x the power factor."""
        cap = self.utility_capacity
        if cap is None:
            return None
        if is_apparent(cap):
            return Q_(cap.m_as("kVA") * self.power_factor, "kW")
        return cap.to("kW")


def _phase_count(value: Any) -> Any:
    """A record reads in lax mode, where a Literal[1, 3] would take 3.0 and "3"."""
    if type(value) is not int:
        got = str(value).lower() if type(value) is bool else repr(value)
        raise PydanticCustomError("phases", "expected 1 or 3, got {value}", {"value": got})
    return value


# Records, not Strict models (see dclint.model.types.RECORD): an explicit design lists a feed
# for every rack and path, some 3,000 for 100,000 GPUs, each 1 KB as a model and 170 B as this.
@dataclass(frozen=True, slots=True, kw_only=True, config=RECORD)
class _Circuit:
    """The fields a panel and a feed share: a circuit's voltage, rating and derating."""

    id: Id
    voltage: Voltage = Field(description="Line-to-line for three-phase")
    current_rating: Current
    phases: Annotated[Literal[1, 3], BeforeValidator(_phase_count)] = 3
    power_factor: Annotated[float, StrictMode()] = Field(default=0.95, gt=0, le=1)
    max_utilisation: Fraction = Field(
        default_factory=lambda: Q_(0.8, "dimensionless"),
        description="Continuous-load limit of the breaker (NEC 210.20(A): 80%)",
    )
    path: Annotated[str, StrictMode()] | None = Field(
        default=None, max_length=16, description="Power path, e.g. A or B"
    )
    status: Status = "active"
    ambient_temperature: Temperature | None = Field(
        default=None,
        description="Air temperature around the conductors or busway where they run hottest; "
        "above the reference ambient it derates the capacity by sqrt((Tc - Ta) / (Tc - Tref)) "
        "(NEC 310.15(B)(1), IEC 60364-5-52)",
    )
    conductor_temperature: Temperature | None = Field(
        default=None,
        description="Temperature rating of the conductors (NEC Table 310.16 column 60, 75 or "
        "90 degC; IEC 60364-5-52: PVC 70, XLPE 90 degC); default 75 degC",
    )
    reference_ambient: Temperature | None = Field(
        default=None,
        description="Ambient the current rating holds at: 30 degC (NEC Table 310.16, IEC "
        "60364-5-52), unless declared (a busway maker's rating ambient, e.g. 40 degC)",
    )
    length: Length | None = Field(
        default=None,
        description="One-way length of the conductors or busway that feed it, from the element "
        "above (e.g. 200 m): with conductor_size, its voltage drop (PWR014)",
    )
    conductor_size: Area | None = Field(
        default=None,
        description="Cross-section of one phase conductor (e.g. 150 mm^2); parallel sets in "
        "conductors_per_phase (PWR014)",
    )
    conductor_material: Literal["copper", "aluminium"] = Field(
        default="copper", description="Conductor metal, for its resistivity (PWR014)"
    )
    conductors_per_phase: Annotated[int, StrictMode()] = Field(
        default=1, ge=1, le=64, description="Parallel conductors of conductor_size a phase"
    )


@dataclass(frozen=True, slots=True, kw_only=True, config=RECORD)
class Panel(_Circuit):
    """A panel, switchboard or busway. `fed_by` names the panel upstream (none: the utility)."""

    fed_by: Ref | None = None
    power_capped: Annotated[bool, StrictMode()] = Field(
        default=False,
        description="Power capping holds the racks below to their design IT load: the panel "
        "counts them at their design load, not their catalog peak (max_power)",
    )
    kind: Literal["panel", "busway", "switchboard", "ups"] = "panel"
    rating: PowerRating | None = Field(
        default=None,
        description="Nameplate output of a UPS or transformer, in W or VA ('500 kVA'): the "
        "panel carries no more than it (a VA rating x the panel's power factor)",
    )

    @property
    def rating_kw(self) -> float | None:
        """The nameplate rating as real power in kW, or None."""
        if self.rating is None:
            return None
        if is_apparent(self.rating):
            return float(self.rating.m_as("kVA")) * self.power_factor
        return float(self.rating.m_as("kW"))


@dataclass(frozen=True, slots=True, kw_only=True, config=RECORD)
class Feed(_Circuit):
    """A rack power feed (whip). `id` may be a range such as `feed-a[01-08]`."""

    panel: Ref | None = None
    phase: Literal["L1", "L2", "L3", "L1-L2", "L2-L3", "L3-L1"] | None = Field(
        default=None, description="Leg of a single-phase feed, for phase balance"
    )
