"""Parse rule option values from config (strings with units) into typed values."""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Annotated, Any, get_args, get_origin

from pydantic import BeforeValidator, Field, FiniteFloat, TypeAdapter, ValidationError

from dclint.errors import ConfigError
from dclint.model import types as t
from dclint.units import Quantity, fmt, number_text

__all__ = [
    "KINDS",
    "Count",
    "Positive",
    "Ratio",
    "Share",
    "as_written",
    "kind_name",
    "parse_option",
    "parse_ratio",
    "ratio_text",
]

# a ratio as written: "2:1", "2/1", "2.0:1", "3 : 2", or a plain number ("2")
_NUM = r"(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"


@lru_cache(maxsize=1)
def _ratio() -> re.Pattern[str]:
    """A ratio as written (compiled on first use: the options' defaults are numbers)."""
    return re.compile(rf"^\s*(?P<up>{_NUM})\s*(?:[:/]\s*(?P<down>{_NUM})\s*)?$")


def parse_ratio(value: Any) -> float:
    """A down:up ratio as a number: `2:1`, `2/1`, `2.0:1` and `4:2` are all 2.0, as is the
    plain number 2 (dclint prints ratios as `2:1`, and reads them back as written)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError("a ratio is a number or text such as 2:1")
    if isinstance(value, str):
        found = _ratio().match(value)
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


def as_written(value: Any, kind: str) -> Any:
    """A typed option value as a config writes it, JSON-ready: a quantity with its unit
    (`120 kW`), a share as a percentage (`90%`), a ratio as `2:1`, mappings and lists item by
    item, anything else as it is. `check --show-settings` prints it; the review's assumptions
    table shows it (through `show`)."""
    if kind.startswith(("dict:", "list:")):
        inner = kind[5:]
        if isinstance(value, dict):
            return {str(k): as_written(v, inner) for k, v in value.items()}
        return [as_written(v, inner) for v in value]
    if kind == "ratio":
        return ratio_text(value)
    if kind == "share" and isinstance(value, Quantity):
        return f"{value.m_as('dimensionless') * 100:g}%"
    if isinstance(value, Quantity):
        return fmt(value)
    return value


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
    "length": t.Length,
    "share": t.Fraction,
    "float": FiniteFloat,  # NaN would compare false with every value: a rule silently off
    "positive": Positive,
    "count": Count,
    "ratio": Ratio,  # a down:up ratio: 2:1, 2/1, 2.0:1 or 2.0
    "int": int,
    "bool": bool,
    "str": str,
}


# the metadata whose pydantic schema is its own `validate`, called as a plain function
_PLAIN_VALIDATORS = (t.Dim, type(get_args(t.Fraction)[1]))
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


_UNREAD = object()


def _direct(tp: Any, value: Any) -> Any:
    """`value` read as `tp` without building a pydantic adapter, where the adapter would do no
    more than this: a quantity type's own validator (a `Dim` or a share's, which its adapter
    calls as a plain function), or a value already of exactly the plain type asked for (a
    finite float for a float). _UNREAD otherwise, and for any value the validator refuses:
    the adapter then reads it and words the error. Every rule's defaults are read on every
    check; building their 18 adapters was about 1% of a cold check of one small design."""
    if tp is Ratio:
        try:
            return parse_ratio(value)  # a finite float above 0, which float reads as itself
        except ValueError:
            return _UNREAD
    if tp is Count:
        return value if type(value) is int and 1 <= value <= 10**9 else _UNREAD
    if tp is Positive:
        ok = type(value) is float and math.isfinite(value) and value > 0
        return value if ok else _UNREAD
    origin = get_origin(tp)
    if origin is dict and type(value) is dict and get_args(tp)[0] is str:
        inner = get_args(tp)[1]
        out = {}
        for key, item in value.items():
            read = _direct(inner, item)
            if type(key) is not str or read is _UNREAD:
                return _UNREAD
            out[key] = read
        return out
    if origin is Annotated:
        args = get_args(tp)
        if len(args) == 2 and args[0] is Quantity and type(args[1]) in _PLAIN_VALIDATORS:
            try:
                return args[1].validate(value)
            except Exception:  # the adapter reads it again and says why
                return _UNREAD
        return _UNREAD
    if tp in (bool, int, str) and type(value) is tp:
        return value
    if tp is float and type(value) is float and math.isfinite(value):
        return value
    return _UNREAD


def parse_option(rule_id: str, name: str, tp: Any, value: Any) -> Any:
    """The typed value of option `name` of `rule_id`, read as `tp` (an option type, or the
    name of a kind); ConfigError names both on failure, and what the option takes."""
    if not isinstance(tp, str):
        direct = _direct(tp, value)
        if direct is not _UNREAD:
            return direct
    declared = _typed(tp) if isinstance(tp, str) and _known(tp) else _finite(tp)
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
        where = name + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"])
        leaf = _leaf(declared, first["loc"])
        raise ConfigError(f"option {rule_id}.{where}: {_reason(first, leaf)}") from None


def _known(kind: str) -> bool:
    try:
        _typed(kind)
    except KeyError:
        return False
    return True


def _leaf(tp: Any, loc: Any) -> Any:
    """The type of the value at `loc` (keys of a table, indexes of a list) of a `tp` option."""
    for _ in loc:
        origin, args = get_origin(tp), get_args(tp)
        if origin is dict and len(args) == 2:
            tp = args[1]
        elif origin is list and len(args) == 1:
            tp = args[0]
        else:
            break
    return tp


# pydantic's error types, by what the value should have been
_WHOLE = {"int_type", "int_parsing", "int_from_float", "int_parsing_size"}
_NUMBERS = {"float_type", "float_parsing", "finite_number"}
_BOUNDS = {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}
_EXPECTED = {
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "text",
    "dict_type": "a table of names to values",
    "list_type": "a list",
}


def _reason(err: Any, tp: Any) -> str:
    """What is wrong with the value, as dclint's own messages say it: what the option takes,
    with its range, and what it got (`expected a whole number from 1 to 1,000,000,000, got
    1e+16`); a message of dclint's own types (units, shares, ratios) as they wrote it."""
    kind, value = err["type"], err.get("input")
    got = _given(value)
    if kind in _WHOLE or kind in _NUMBERS or kind in _BOUNDS:
        whole = get_args(tp)[:1] == (int,) or tp is int or kind in _WHOLE
        bounds, finite = _range(tp)
        noun = "a whole number" if whole else "a finite number" if finite else "a number"
        return f"expected {noun}{bounds}, got {got}"
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {got}"
    message = str(err["msg"]).removeprefix("Value error, ")
    message = message[0].lower() + message[1:] if message else "invalid value"
    if "got " in message or (isinstance(value, str) and repr(value) in message):
        return message  # dclint's own messages quote what they got
    return f"{message}, got {got}"


def _range(tp: Any) -> tuple[str, bool]:
    """The bounds an Annotated number type declares, as text (` from 1 to 1,000,000,000`,
    ` above 0`), and whether it refuses infinity and NaN."""
    low = high = ""
    finite = tp is float or tp is FiniteFloat
    for meta in get_args(tp)[1:]:
        for item in getattr(meta, "metadata", [meta]):
            for attr, text in (("ge", "at least"), ("gt", "above")):
                if getattr(item, attr, None) is not None:
                    low = f"{text} {number_text(getattr(item, attr))}"
            for attr, text in (("le", "at most"), ("lt", "below")):
                if getattr(item, attr, None) is not None:
                    high = f"{text} {number_text(getattr(item, attr))}"
            finite = finite or getattr(item, "allow_inf_nan", True) is False
    if low.startswith("at least") and high.startswith("at most"):
        return f" from {low.removeprefix('at least ')} to {high.removeprefix('at most ')}", finite
    words = " and ".join(w for w in (low, high) if w)
    return (f" {words}" if words else ""), finite


def _given(value: Any) -> str:
    """What a config value was, for a message: `1e+16`, `'abc'`, `true`, `a table`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return number_text(value)
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:37] + "...")
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, (list, tuple)):
        return "a list"
    return type(value).__name__
