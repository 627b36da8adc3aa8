"""Parse rule option values from config (strings with units) into typed values."""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, FiniteFloat, TypeAdapter, ValidationError

from dclint.errors import ConfigError
from dclint.model import types as t

__all__ = ["KINDS", "parse_option", "parse_ratio", "ratio_text"]

# a ratio as written: "2:1", "2/1", "2.0:1", "3 : 2", or a plain number ("2")
_NUM = r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_RATIO = re.compile(rf"^\s*(?P<up>{_NUM})\s*(?:[:/]\s*(?P<down>{_NUM})\s*)?$")


def parse_ratio(value: Any) -> float:
    """A down:up ratio as a number: `2:1`, `2/1`, `2.0:1` and `4:2` are all 2.0, as is the
    plain number 2 (dclint prints ratios as `2:1`, and reads them back as written)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError("a ratio is a number or text such as 2:1")
    if isinstance(value, str):
        found = _RATIO.match(value)
        if found is None:
            raise ValueError(f"'{value}' is not a ratio: write it as 2:1, 2/1 or 2.0")
        number = float(found["up"])
        if found["down"] is not None:
            below = float(found["down"])
            number = number / below if below else math.inf
    else:
        number = float(value)
    if not math.isfinite(number) or number <= 0:
        raise ValueError("a ratio must be finite and above 0, such as 2:1")
    return number


def ratio_text(value: float) -> str:
    """The canonical spelling of a ratio, as reports print it: 2.0 -> `2:1`, 1.5 -> `1.5:1`."""
    return f"{value:g}:1"


Ratio = Annotated[float, BeforeValidator(parse_ratio)]

KINDS: dict[str, Any] = {
    "power": t.Power,
    "bandwidth": t.Bandwidth,
    "duration": t.Duration,
    "temperature": t.Temperature,
    "temperature_delta": t.TemperatureDelta,
    "flow": t.Flow,
    "information": t.Information,
    "mass": t.Mass,
    "area": t.Area,
    "share": t.Fraction,
    "float": FiniteFloat,  # NaN would compare false with every value: a rule silently off
    # a multiple or a divisor: zero or less would divide by zero or turn the rule off
    "positive": Annotated[float, Field(gt=0, allow_inf_nan=False)],
    "count": Annotated[int, Field(ge=1, le=10**9)],  # a count that divides: 1 or more
    "ratio": Ratio,  # a down:up ratio: 2:1, 2/1, 2.0:1 or 2.0
    "int": int,
    "bool": bool,
    "str": str,
}


@lru_cache(maxsize=64)
def _adapter(kind: str) -> TypeAdapter[Any]:
    if kind.startswith("dict:"):
        return TypeAdapter(dict[str, KINDS[kind[5:]]])  # type: ignore[misc,arg-type]
    if kind.startswith("list:"):
        return TypeAdapter(list[KINDS[kind[5:]]])  # type: ignore[misc,arg-type]
    return TypeAdapter(KINDS[kind])


def parse_option(rule_id: str, name: str, kind: str, value: Any) -> Any:
    """The typed value of option `name` of `rule_id`; ConfigError names both on failure."""
    try:
        return _adapter(kind).validate_python(value)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        message = str(first["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"option {rule_id}.{name}: {message} (got {value!r})") from None
    except KeyError:
        raise ConfigError(f"option {rule_id}.{name}: unknown option kind '{kind}'") from None
