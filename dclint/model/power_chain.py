"""The power chain above the panels: transformers, UPS systems and generators.

Each element names the element above it with `fed_by` (a transformer, a UPS, or a panel,
switchboard or busway; none: the utility), as panels do; panels may name a transformer or a
UPS as their `fed_by`. Generators stand in for the utility: `serves` names the element they back
up (none: the whole site)."""

# Annotations are evaluated as written, without `from __future__ import annotations`: pydantic
# reads this module's field types (why: the top of dclint.model.types).
from typing import Annotated, Literal

from pydantic import Field
from pydantic import Strict as StrictMode
from pydantic.dataclasses import dataclass

from dclint.model.site import Feed, Panel, PowerRating, Status, is_apparent
from dclint.model.types import (
    RECORD,
    Duration,
    Fraction,
    Id,
    Power,
    Ref,
    Strict,
    Temperature,
    empty_list,
)
from dclint.units import Q_, Quantity

__all__ = ["Generator", "PowerSection", "Transformer", "Ups", "rating_kw"]


def rating_kw(rating: Quantity, power_factor: float) -> float:
    """A rating as real power in kW: a VA rating x the power factor of the load it carries."""
    if is_apparent(rating):
        return float(rating.m_as("kVA")) * power_factor
    return float(rating.m_as("kW"))


_PF = Field(
    default=0.95,
    gt=0,
    le=1,
    description="Power factor of the load the element carries: a kVA rating carries this share "
    "in kW (0.95, the factor Nautobot's power port model uses, unless declared)",
)
_PATH = Field(default=None, max_length=16, description="Power path, e.g. A or B")
_FED_BY = Field(
    default=None,
    description="Id of the element upstream (transformer, UPS, panel or switchboard); none: "
    "the utility",
)


@dataclass(frozen=True, slots=True, kw_only=True, config=RECORD)
class Transformer:
    """A transformer (utility or step-down), rated in kVA (IEC 60076-1, IEEE C57.12)."""

    id: Id
    rating: PowerRating = Field(description="Nameplate rating, in VA ('2500 kVA') or W")
    power_factor: Annotated[float, StrictMode()] = _PF
    fed_by: Ref | None = _FED_BY
    path: Annotated[str, StrictMode()] | None = _PATH
    status: Status = "active"
    ambient_temperature: Temperature | None = Field(
        default=None, description="Ambient air temperature where the element is installed"
    )


@dataclass(frozen=True, slots=True, kw_only=True, config=RECORD)
class Ups:
    """A UPS system: a frame of `modules` power modules, `redundant_modules` of them spare
    (N+1: 1). Its output is the least of the frame's kVA (x PF) and kW and of the modules left
    with the spares out. A `catches` list makes it a catcher (block-redundant reserve) that takes
    over the load of any one of the UPS systems named."""

    id: Id
    rating: PowerRating = Field(description="Frame output rating in VA ('1250 kVA') or W")
    power: Power | None = Field(
        default=None, description="Frame output limit in W where the maker gives one ('1250 kW')"
    )
    module_rating: PowerRating | None = Field(
        default=None, description="Output rating of one power module, in VA or W ('250 kVA')"
    )
    modules: Annotated[int, StrictMode()] = Field(
        default=1, ge=1, le=64, description="Power modules in the frame, a count (no unit)"
    )
    redundant_modules: Annotated[int, StrictMode()] = Field(
        default=0,
        ge=0,
        le=63,
        description="Modules that are spare (N+1: 1), a count: the load is carried without them",
    )
    power_factor: Annotated[float, StrictMode()] = _PF
    efficiency: Fraction = Field(
        default_factory=lambda: Q_(0.96, "dimensionless"),
        description="Output over input power at the load: the element above carries the load "
        "divided by it (96%: double-conversion UPS at half load and above, makers' datasheets)",
    )
    battery_runtime: Duration | None = Field(
        default=None, description="Battery autonomy at the UPS's full rated load ('5 min')"
    )
    catches: list[Ref] = Field(
        default_factory=empty_list,
        description="UPS systems whose load this one (a catcher) takes over if one of them fails",
    )
    fed_by: Ref | None = _FED_BY
    path: Annotated[str, StrictMode()] | None = _PATH
    status: Status = "active"

    @property
    def output_kw(self) -> float:
        """What the UPS delivers with its spare modules out: the least of the frame rating (x
        PF where in VA), the frame `power`, and the modules left x the module rating."""
        limits = [rating_kw(self.rating, self.power_factor)]
        if self.power is not None:
            limits.append(float(self.power.m_as("kW")))
        if self.module_rating is not None:
            left = self.modules - self.redundant_modules
            limits.append(left * rating_kw(self.module_rating, self.power_factor))
        return max(min(limits), 0.0)


@dataclass(frozen=True, slots=True, kw_only=True, config=RECORD)
class Generator:
    """A set of `count` identical generators, `redundant` of them spare (N+1: 1), each rated at
    the site (ISO 8528-1: altitude and temperature derated) in its rating class."""

    id: Id
    site_rating: PowerRating = Field(
        description="One generator's output at the site's altitude and temperature (ISO 8528-1 "
        "site rating), in W or VA"
    )
    rating_class: Literal["standby", "prime", "continuous", "data_center_continuous"] = Field(
        default="prime",
        description="ISO 8528-1 rating class of `site_rating` (ESP standby, PRP prime, COP "
        "continuous; DCC data-center continuous as makers publish it)",
    )
    count: Annotated[int, StrictMode()] = Field(
        default=1, ge=1, le=1000, description="Generators in the set, a count"
    )
    redundant: Annotated[int, StrictMode()] = Field(
        default=0, ge=0, le=999, description="Spare generators in the set (N+1: 1), a count"
    )
    power_factor: Annotated[float, StrictMode()] = Field(
        default=0.8,
        gt=0,
        le=1,
        description="Power factor a kVA site rating is given at (ISO 8528-1 rates sets at 0.8)",
    )
    step_load: Fraction | None = Field(
        default=None,
        description="Largest load step one set accepts at once, as a share of its site rating "
        "(ISO 8528-5 load acceptance: the maker's declared first step, e.g. 35%); unset: "
        "the step-load rule's default",
    )
    serves: Ref | None = Field(
        default=None,
        description="Id of the element (transformer, switchboard) the set backs up; none: the site",
    )
    path: Annotated[str, StrictMode()] | None = _PATH
    status: Status = "active"

    @property
    def firm_kw(self) -> float:
        """Output with the spare generators out: (count - redundant) x one set's site rating."""
        return max(self.count - self.redundant, 0) * rating_kw(self.site_rating, self.power_factor)


class PowerSection(Strict):
    panels: list[Panel] = Field(default_factory=empty_list)
    feeds: list[Feed] = Field(default_factory=empty_list)
    transformers: list[Transformer] = Field(
        default_factory=empty_list, description="Transformers, each `fed_by` the element above"
    )
    ups: list[Ups] = Field(
        default_factory=empty_list, description="UPS systems, each `fed_by` the element above"
    )
    generators: list[Generator] = Field(
        default_factory=empty_list, description="Generator sets backing up the utility"
    )
    load_swing: Fraction | None = Field(
        None,
        description="Share of the racks' load a synchronous training job drops and restores "
        "within a second, between compute and communication phases (e.g. 50%): the step the "
        "generators see (PWR015); unset: not checked",
    )
    swing_smoothing: Fraction | None = Field(
        None,
        description="Share of that swing the racks' own energy storage and ramp limits absorb "
        "(platform power smoothing, e.g. GB300's) (PWR015)",
    )
