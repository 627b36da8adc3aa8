"""Parse rule option values from config (strings with units) into typed values."""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Annotated, Any, get_args, get_origin

from pydantic import BeforeValidator, Field, FiniteFloat, TypeAdapter, ValidationError

from dclint.errors import ConfigError
from dclint.model import types as t

__all__ = [
    "KINDS",
    "Count",
    "Positive",
    "Ratio",
    "Share",
    "kind_name",
    "parse_option",
    "parse_ratio",
    "ratio_text",
]

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
Share = t.Fraction  # a share of a whole: `10%`, `0.1`
# a multiple or a divisor: zero or less would divide by zero or turn the rule off
Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
Count = Annotated[int, Field(ge=1, le=10**9)]  # a count that divides: 1 or more

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
    "positive": Positive,
    "count": Count,
    "ratio": Ratio,  # a down:up ratio: 2:1, 2/1, 2.0:1 or 2.0
    "int": int,
    "bool": bool,
    "str": str,
}


_NAMES: dict[Any, str] = {tp: name for name, tp in KINDS.items()}
_NAMES[float] = "float"  # read as a finite float


def kind_name(tp: Any) -> str:
    """The name of an option type: ``power`` for Power, ``dict:ratio`` for dict[str, Ratio];
    a kind name is itself."""
    if isinstance(tp, str):
        return tp
    origin, args = get_origin(tp), get_args(tp)
    if origin is dict and len(args) == 2 and args[0] is str:
        return f"dict:{kind_name(args[1])}"
    if origin is list and len(args) == 1:
        return f"list:{kind_name(args[0])}"
    try:
        return _NAMES[tp]
    except (KeyError, TypeError):
        return getattr(tp, "__name__", repr(tp))


def _typed(kind: str) -> Any:
    """The type a kind name reads as (KeyError: no such kind)."""
    if kind.startswith("dict:"):
        return dict[str, _typed(kind[5:])]  # type: ignore[misc]
    if kind.startswith("list:"):
        return list[_typed(kind[5:])]  # type: ignore[misc]
    return KINDS[kind]


@lru_cache(maxsize=64)
def _adapter(tp: Any) -> TypeAdapter[Any]:
    return TypeAdapter(_typed(tp) if isinstance(tp, str) else tp)


def _finite(tp: Any) -> Any:
    """`tp` with a plain float read as a finite one (NaN compares false with every value)."""
    if tp is float:
        return FiniteFloat
    origin, args = get_origin(tp), get_args(tp)
    if origin is dict and len(args) == 2:  # keys are names
        return dict[str, _finite(args[1])]  # type: ignore[misc]
    if origin is list and len(args) == 1:
        return list[_finite(args[0])]  # type: ignore[misc]
    return tp


def parse_option(rule_id: str, name: str, tp: Any, value: Any) -> Any:
    """The typed value of option `name` of `rule_id`, read as `tp` (an option type, or the
    name of a kind); ConfigError names both on failure."""
    try:
        adapter = _adapter(tp if isinstance(tp, str) else _finite(tp))
    except (KeyError, TypeError):
        raise ConfigError(
            f"option {rule_id}.{name}: unknown option type {kind_name(tp)!r}"
        ) from None
    try:
        return adapter.validate_python(value)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        message = str(first["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"option {rule_id}.{name}: {message} (got {value!r})") from None
