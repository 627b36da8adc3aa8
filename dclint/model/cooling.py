"""Cooling: coolant distribution units (CDUs) and the loops that carry their coolant to racks."""

# Annotations are evaluated as written, without `from __future__ import annotations`: pydantic
# reads this module's field types (why: the top of dclint.model.types).
from typing import Literal

from pydantic import Field

from dclint.model.types import (
    Flow,
    Fraction,
    Id,
    PositiveInt,
    Power,
    Pressure,
    Ref,
    Strict,
    Temperature,
    TemperatureDelta,
    empty_list,
)

__all__ = ["AirHandlers", "Cdu", "Coolant", "Cooling", "HeatRejection", "Loop", "PumpPoint"]

Coolant = Literal["water", "pg25"]


class PumpPoint(Strict):
    """One point of a pump curve: the head the pumps give outside the CDU at a flow."""

    flow: Flow
    head: Pressure = Field(description="Available head (pressure) at that flow, e.g. 250 kPa")


class Cdu(Strict):
    id: Id
    capacity: Power = Field(description="Rated heat capacity at the stated approach")
    max_flow: Flow
    approach: TemperatureDelta | None = Field(
        None, description="Secondary supply minus facility supply at rated load (e.g. 5 K)"
    )
    facility_supply_temperature: Temperature | None = Field(
        None,
        description="Facility (primary) water supply temperature at the CDU; unset: the upper "
        "limit of the site's ASHRAE class",
    )
    redundancy_group: str | None = Field(None, description="CDUs that back each other up (N+1)")
    facility_flow: Flow | None = Field(
        None,
        description="Facility (primary) water flow through the CDU's heat exchanger at design "
        "(e.g. 1500 L/min); with facility_temperature_rise, the heat it can pass (CLG007)",
    )
    facility_temperature_rise: TemperatureDelta | None = Field(
        None,
        description="Facility water return minus supply across the CDU at design (e.g. 10 K)",
    )
    facility_coolant: Coolant = Field(
        "water", description="Facility (primary) fluid, for its density and specific heat"
    )
    pumps: PositiveInt | None = Field(
        None,
        description="Secondary-loop pumps in the CDU, a count; `max_flow` is what the duty "
        "pumps (pumps - redundant_pumps) move (CLG011)",
    )
    pump_curve: list[PumpPoint] | None = Field(
        None,
        description="The secondary pumps' curve from the maker's data: available head outside "
        "the CDU at rising flows (CLG014)",
    )
    power: Power | None = Field(
        None,
        description="Electrical input of the CDU (its pumps and controls) at design, e.g. "
        "15 kW: its heat joins the liquid heat it passes (CLG001); with fed_by, its power "
        "joins that element's load (PWR009). Facility load: in the PUE, not the site's IT load",
    )
    fed_by: list[Ref] | None = Field(
        None,
        description="Power elements (panels, UPS systems) the CDU is fed from, each carrying an "
        "equal share (PWR009, dclint failures); unset: on no declared element",
    )
    redundant_pumps: int = Field(
        0,
        ge=0,
        le=63,
        description="Spare pumps (N+1: 1), a count: the flow is pumped without them (CLG011)",
    )


class Loop(Strict):
    id: Id
    cdu: Ref
    coolant: Coolant = "water"
    supply_temperature: Temperature
    return_temperature: Temperature
    racks: list[Ref] = Field(
        default_factory=empty_list, description="Rack ids or ranges, e.g. r[01-08]"
    )
    air_cooler: Literal["rear_door", "in_row"] | None = Field(
        None,
        description="The loop feeds liquid-to-air coolers whose air goes back to the room: "
        "rear-door heat exchangers or in-row coils (CLG009); unset: the racks' cold plates",
    )
    coil_approach: TemperatureDelta | None = Field(
        None,
        description="Air leaving the loop's liquid-to-air coils minus the loop's supply "
        "(e.g. 3 K); unset: from coil_effectiveness where declared, else 0 K (CLG009)",
    )
    pressure_drop: Pressure | None = Field(
        None,
        description="Pressure drop of the loop outside the CDU (piping, manifolds, the racks' "
        "cold plates or coils) at the flow its racks need (CLG014)",
    )
    coil_effectiveness: Fraction | None = Field(
        None,
        description="The coils' air-side effectiveness, (air in - air out) / (air in - water "
        "in), e.g. 70%: with the racks' air temperature rise it gives the coil approach (CLG009)",
    )
    air_temperature_rise: TemperatureDelta | None = Field(
        None,
        description="Air temperature rise through the loop's racks, exhaust minus inlet (e.g. "
        "15 K); default: the hall's air_handlers.temperature_rise (CLG009)",
    )


class AirHandlers(Strict):
    """A room's air handlers (CRAH units, fan walls): `count` units, `redundant` of them spare."""

    capacity: Power = Field(
        description="Sensible cooling capacity of one unit at the room's design air temperatures"
    )
    count: PositiveInt = Field(description="Units serving the room, a count")
    redundant: int = Field(
        0,
        ge=0,
        le=10**6,
        description="Spare units (N+1: 1), a count: the heat is carried without them",
    )
    airflow: Flow | None = Field(
        None, description="Air one unit moves, in m^3/s or CFM (e.g. '25000 CFM')"
    )
    temperature_rise: TemperatureDelta | None = Field(
        None,
        description="Air temperature rise across the racks, hot aisle minus cold aisle (e.g. "
        "12 K): the airflow the room's air heat needs at it",
    )


class HeatRejection(Strict):
    """Units that reject the facility water's heat outdoors: dry coolers, cooling towers or
    chillers, `count` alike, `redundant` of them spare."""

    id: Id
    kind: Literal["dry_cooler", "cooling_tower", "chiller"]
    capacity: Power = Field(description="Heat one unit rejects at its rated conditions")
    count: PositiveInt = Field(1, description="Units, a count")
    redundant: int = Field(
        0,
        ge=0,
        le=10**6,
        description="Spare units (N+1: 1), a count: the heat is rejected without them",
    )
    rated_ambient: Temperature | None = Field(
        None,
        description="Ambient the capacity is rated at: dry bulb for a dry cooler, wet bulb "
        "for a cooling tower (CLG012)",
    )
    entering_temperature: Temperature | None = Field(
        None,
        description="Fluid entering the unit at design (the facility water's return): with "
        "rated_ambient, the capacity at the design-day ambient scales with entering minus "
        "ambient (CLG012)",
    )
    serves: list[Ref] | None = Field(
        None, description="CDU ids whose facility water it cools (default: every CDU)"
    )
    coolant: Literal["water", "propylene_glycol"] = Field(
        "water", description="Fluid in its outdoor circuit (CLG013)"
    )
    glycol_share: Fraction | None = Field(
        None,
        description="Propylene glycol share of the fluid, by mass unless glycol_share_basis "
        "says volume, e.g. 35% (CLG013)",
    )
    glycol_share_basis: Literal["mass", "volume"] = Field(
        "mass",
        description="Whether glycol_share is by mass (weight, as makers' tables list it first) "
        "or by volume (as a fill is often mixed): 40% by volume is 40.4% by mass (CLG013)",
    )
    outdoor: bool | None = Field(
        None,
        description="Its fluid runs outdoors, exposed to the site's minimum temperature; "
        "default: yes for dry coolers and cooling towers, no for chillers (CLG013)",
    )


class Cooling(Strict):
    cdus: list[Cdu] = Field(default_factory=empty_list)
    loops: list[Loop] = Field(default_factory=empty_list)
    heat_rejection: list[HeatRejection] = Field(
        default_factory=empty_list,
        description="Dry coolers, cooling towers and chillers rejecting the facility water's "
        "heat (CLG012, CLG013)",
    )
