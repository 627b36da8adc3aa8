"""Pydantic field types for quantities: each declares its dimension and rejects bare numbers."""

# Annotations are evaluated as written in the model modules, without `from __future__ import
# annotations`: pydantic would compile and evaluate each field's annotation string when the
# class is made (about 340 of them, some 5 ms of a cold check).
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic import Strict as StrictMode
from pydantic_core import PydanticCustomError, core_schema

from dclint.units import (
    Q_,
    Quantity,
    QuantityError,
    dimension_of,
    narrow_hint,
    parse_quantity,
    unit_text,
)

__all__ = [
    "RECORD",
    "Area",
    "Bandwidth",
    "BoardPower",
    "Compute",
    "Count",
    "Current",
    "Dim",
    "Duration",
    "Energy",
    "Flow",
    "Fraction",
    "Id",
    "Information",
    "Length",
    "Mass",
    "Money",
    "PositiveInt",
    "Power",
    "Pressure",
    "PricePerEnergy",
    "Ref",
    "Strict",
    "Temperature",
    "TemperatureDelta",
    "Voltage",
    "empty_list",
    "fields_of",
]

_QUANTITY_PATTERN = r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?\s*[^\s].*$"
# The largest magnitude a design may write, in the field's own unit: beyond it arithmetic overflows.
_MAX_MAGNITUDE = 1e21  # _TOO_BIG says it
# The smallest nonzero magnitude, in the field's own unit: below it a division overflows to
# infinity ('5e-324 h' of checkpoint interval made a save time 'inf%' of it)
_MIN_MAGNITUDE = 1e-21  # _TOO_SMALL says it
# The same bounds in pint's base units (g, m, s, bit): a prefix cannot carry a value past them
# ('1e-21 yB/s' is 8e-45 b/s; '1e21 YW' 1e45 W), though its digits are within the bounds above
_BASE_BOUNDS = (1e-30, 1e30)  # _TOO_BIG_BASE and _TOO_SMALL_BASE say them
# what the out-of-range errors say the range is
_TOO_BIG = ": dclint reads magnitudes up to 1e21 in the unit written"
_TOO_SMALL = ": a nonzero magnitude is at least 1e-21 in the unit written"
_TOO_BIG_BASE = ": at most 1e30 in SI base units (g, m, s, bit), the prefix applied"
_TOO_SMALL_BASE = ": at least 1e-30 in SI base units (g, m, s, bit), the prefix applied"
MIN_KELVIN = 200  # -73 degC: an absolute temperature in K below it is a difference misread
_SEEN_LIMIT = 4096  # distinct texts each field kind remembers as valid


@lru_cache(maxsize=512)
def _base_factor(units: Any) -> float:
    """What one of `units` is in pint's base units (1 kW -> 1e6 g m^2/s^3), once a unit."""
    return abs(float(Q_(1.0, units).to_base_units().magnitude))


def _absolute_zero(units: Any) -> float:
    """0 K in `units` (-273.15 for degC); compared in the value's own unit, as the scales all
    increase with heat. It runs once per distinct text (Dim remembers the texts that passed)."""
    return float(Q_(0.0, "kelvin").to(Q_(1.0, units).units).magnitude)


class Strict(BaseModel):
    """Base of every design model: unknown keys are errors, values are immutable once loaded.
    Schemas are built on first use, not at import (a cold check imports every model)."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, strict=True, populate_by_name=True, defer_build=True
    )


# A record: a frozen, slotted pydantic dataclass for the entries a design holds by the ten
# thousand (an explicit fabric's switches and links), at a fifth of a model's memory. Pydantic
# reads a dataclass from a mapping only in lax mode, so each record field carries `Strict()`.
RECORD = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)


def empty_list() -> list[Any]:
    """A new empty list: the design models' default factory for lists, in place of `list`.
    Building a validator, pydantic reads each default factory's signature (does it take the
    validated data?); `list`'s is parsed from its text signature, about 0.15 ms a field (21
    fields, some 3 ms of a cold check of the sample), a function's is read in microseconds."""
    return []


def fields_of(cls: Any) -> dict[str, Any]:
    """Field infos of a design model or record (a Strict model or a `record` dataclass)."""
    found = getattr(cls, "__pydantic_fields__", None)
    return found if isinstance(found, dict) else {}


@dataclass(frozen=True)
class Dim:
    """Annotated metadata for a quantity field: ``Annotated[Quantity, Dim("120 kW", "power")]``."""

    example: str
    kind: str
    positive: bool = True  # zero and negative values are errors
    absolute_temperature: bool = False
    delta_temperature: bool = False
    currency: bool = False  # any currency dimension (each currency is its own)
    # text -> its Quantity, for texts that passed: "415 V" is written on every feed. Sharing
    # one Quantity per text is not new (parse_quantity caches too); nothing in dclint changes a
    # Quantity in place (pint's `//=` would), and rule code must not either.
    _seen: dict[str, Quantity] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            self.validate,
            serialization=core_schema.plain_serializer_function_ser_schema(
                _dump, when_used="json-unless-none"
            ),
        )

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> dict[str, Any]:
        return {
            "type": "string",
            "pattern": _QUANTITY_PATTERN,
            "description": f'{self.kind} with its unit, e.g. "{self.example}"',
            "examples": [self.example],
        }

    def validate(self, value: Any) -> Quantity:
        if type(value) is str and (known := self._seen.get(value)) is not None:
            return known
        q = self._validate(value)
        if type(value) is str and len(self._seen) < _SEEN_LIMIT:
            self._seen[value] = q
        return q

    def _validate(self, value: Any) -> Quantity:
        if isinstance(value, Quantity):
            q = value
        elif isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise _error(f"expected {self.kind} as a string with a unit, e.g. '{self.example}'")
        elif isinstance(value, (int, float)):
            raise _error(
                f"{self.kind} needs a unit: write '{value} {self.example.split(' ', 1)[1]}'"
                f" or similar (e.g. '{self.example}')"
            )
        else:
            try:
                q = parse_quantity(value)
            except QuantityError as exc:
                said = narrow_hint(str(exc), self.example.split(" ", 1)[1])
                raise _error(f"{said}; expected {self.kind}, e.g. '{self.example}'") from None
        self._check_dimension(q)
        mag = float(q.magnitude)
        if not math.isfinite(mag) or abs(mag) > _MAX_MAGNITUDE:
            raise _error(f"{self.kind} {value!s} is out of range{_TOO_BIG}")
        if mag != 0 and abs(mag) < _MIN_MAGNITUDE:
            raise _error(f"{self.kind} {value!s} is out of range (too small){_TOO_SMALL}")
        if mag != 0 and not self.absolute_temperature:
            base = abs(mag) * _base_factor(q._units)
            if base > _BASE_BOUNDS[1]:
                raise _error(f"{self.kind} {value!s} is out of range{_TOO_BIG_BASE}")
            if base < _BASE_BOUNDS[0]:
                raise _error(f"{self.kind} {value!s} is out of range (too small){_TOO_SMALL_BASE}")
        if self.absolute_temperature and mag <= _absolute_zero(q._units):
            raise _error(f"{self.kind} '{value}' is at or below absolute zero")
        if self.absolute_temperature and mag < MIN_KELVIN and str(q._units) == "kelvin":
            raise _error(  # K is the documented unit of differences: '32 K' meant 32 degC
                f"{self.kind} '{value}' is {mag - 273.15:.2f} degC, colder than any data "
                f"hall (under {MIN_KELVIN} K, dclint's own bound); K is for temperature "
                f"differences: write an absolute temperature in degC, e.g. '{self.example}'"
            )
        if self.positive and not self.absolute_temperature and mag <= 0:
            raise _error(f"{self.kind} must be greater than zero, got '{value}'")
        return q

    def _check_dimension(self, q: Quantity) -> None:
        unit_name = "*".join(name for name, _ in q.unit_items())
        if self.currency:
            money, rest = _split_currency(dict(q.dimensionality))
            _, wanted = _split_currency(dict(dimension_of(self.example.split(" ", 1)[1])))
            if money != 1 or rest != wanted:
                raise _error(f"expected {self.kind} in a currency, e.g. '{self.example}'")
            return
        if q.dimensionality != dimension_of(self.example.split(" ", 1)[1]):
            raise _error(f"expected {self.kind}, e.g. '{self.example}', got a value in '{q.units}'")
        if self.absolute_temperature and unit_name.startswith("delta_"):
            raise _error(f"expected an absolute temperature, e.g. '{self.example}'")
        if self.delta_temperature and unit_name in ("degree_Celsius", "degree_Fahrenheit"):
            raise _error(
                f"a temperature difference is written in K or delta_degC, e.g. '{self.example}'"
            )


def _split_currency(dims: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """(number of currency dimensions with power 1, the other dimensions)."""
    money = [k for k in dims if k.startswith("[currency_")]
    ok = 1 if len(money) == 1 and dims[money[0]] == 1 else (0 if not money else -1)
    return ok, {k: v for k, v in dims.items() if not k.startswith("[currency_")}


def _error(message: str) -> PydanticCustomError:
    return PydanticCustomError("quantity", message)


def _dump(q: Quantity) -> str:
    # unit_text, not pint's `~` format: "32 °C" and "5 Δ°C" would not load back
    return f"{q.magnitude:.12g} {unit_text(q.units)}"


class _Fraction:
    """A share: ``80%`` or a number from 0 to 1; stored as a dimensionless Quantity (0.8)."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            self.validate,
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda q: f"{q.m_as('percent'):.12g}%", when_used="json-unless-none"
            ),
        )

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> dict[str, Any]:
        return {
            "anyOf": [
                {"type": "number", "minimum": 0, "maximum": 1},
                {"type": "string", "pattern": r"^\s*\d+(\.\d*)?\s*%\s*$"},
            ],
            "description": "a share: '80%' or a number from 0 to 1",
        }

    def validate(self, value: Any) -> Quantity:
        if isinstance(value, Quantity):
            q = value.to("dimensionless")
        elif isinstance(value, bool):
            raise _error("expected a share such as '80%' or 0.8")
        elif isinstance(value, (int, float)):
            if not 0 <= value <= 1 or not math.isfinite(value):
                raise _error(f"a share as a number is from 0 to 1; for percent write '{value}%'")
            q = Q_(float(value), "dimensionless")
        elif isinstance(value, str):
            try:
                q = parse_quantity(value)
            except QuantityError as exc:
                raise _error(f"{exc}; expected a share such as '80%'") from None
            if q.dimensionality:
                raise _error(f"expected a share such as '80%', got '{value}'")
            q = q.to("dimensionless")
        else:
            raise _error("expected a share such as '80%' or 0.8")
        if not 0 <= q.magnitude <= 1:
            raise _error(f"a share must be between 0% and 100%, got '{value}'")
        return q


Power = Annotated[Quantity, Dim("120 kW", "power")]
BoardPower = Annotated[Quantity, Dim("700 W", "power")]  # a GPU's: its hint says watts
Voltage = Annotated[Quantity, Dim("415 V", "voltage")]
Current = Annotated[Quantity, Dim("60 A", "current")]
Energy = Annotated[Quantity, Dim("2622 kWh", "energy")]
Flow = Annotated[Quantity, Dim("150 L/min", "volume flow")]
Temperature = Annotated[Quantity, Dim("32 degC", "temperature", absolute_temperature=True)]
TemperatureDelta = Annotated[Quantity, Dim("5 K", "temperature difference", delta_temperature=True)]
Information = Annotated[Quantity, Dim("1 PB", "data size")]
Bandwidth = Annotated[Quantity, Dim("400 Gb/s", "bandwidth")]
Compute = Annotated[Quantity, Dim("989 TFLOPS", "compute rate")]
Duration = Annotated[Quantity, Dim("3 year", "duration")]
Money = Annotated[Quantity, Dim("30000 USD", "amount of money", currency=True)]
PricePerEnergy = Annotated[Quantity, Dim("0.8 CNY/kWh", "electricity price", currency=True)]
Mass = Annotated[Quantity, Dim("1360 kg", "mass")]
Area = Annotated[Quantity, Dim("0.64 m^2", "area")]
Length = Annotated[Quantity, Dim("200 m", "length")]
Pressure = Annotated[Quantity, Dim("150 kPa", "pressure")]
Fraction = Annotated[Quantity, _Fraction()]

_ID_RE = r"^[A-Za-z0-9][A-Za-z0-9_.:$\-\[\]]*$"
Id = Annotated[str, StrictMode(), Field(pattern=_ID_RE, max_length=128)]
Ref = Annotated[str, StrictMode(), Field(pattern=_ID_RE, max_length=128)]
PositiveInt = Annotated[int, StrictMode(), Field(gt=0, le=10**9)]
Count = Annotated[float, Field(gt=0, le=1e18, allow_inf_nan=False)]
