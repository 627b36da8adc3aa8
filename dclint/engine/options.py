"""Parse rule option values from config (strings with units) into typed values."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic import FiniteFloat, TypeAdapter, ValidationError

from dclint.errors import ConfigError
from dclint.model import types as t

__all__ = ["KINDS", "parse_option"]

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
        raise ConfigError(f"option {rule_id}.{name}: {first['msg']} (got {value!r})") from None
    except KeyError:
        raise ConfigError(f"option {rule_id}.{name}: unknown option kind '{kind}'") from None
