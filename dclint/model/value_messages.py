"""Messages for invalid design values: pydantic's errors said in dclint's words.

The loader, the catalog and the command-line flags checked as design values (capacity's
--rack-load and --nodes) all say a bad value the same way.
"""

from __future__ import annotations

import re
from typing import Any

from dclint.model.hints import did_you_mean
from dclint.units import number_text

__all__ = ["value_message"]

_LEADING_ZERO = re.compile(r"^[-+]?0[0-9_]+$")  # 010, 0_1: YAML 1.1 octals, kept as text
_NUMBER = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")
_YAML11_BOOLS = {"yes", "no", "on", "off", "y", "n", "Yes", "No", "On", "Off", "YES", "NO"}


def value_message(err: Any) -> str:
    """One pydantic error on a design value, as dclint says it: what the field takes and
    what it got (`must be at least 1, got 0.5`, `expected a whole number, got 2.5`,
    `expected 'none', 'selective' or 'full', got the string 'ful'; did you mean 'full'?`)."""
    msg = str(err["msg"])
    value = err.get("input")
    if err["type"] == "bool_type" and isinstance(value, str) and value in _YAML11_BOOLS:
        return f"expected true or false, got '{value}' (YAML 1.1 booleans are not read as such)"
    if err["type"] in ("bool_type", "bool_parsing"):
        return f"expected true or false, got {_given(value)}"
    if err["type"] in ("int_type", "float_type") and isinstance(value, str):
        if len(value) >= 20 and value.lstrip("+-").isdigit():  # kept as text: too many digits
            return f"number {value[:40]} is out of range"
        hint = ""
        if _LEADING_ZERO.match(value):
            hint = " (leading zeros are not read as numbers)"
        elif _NUMBER.match(value):
            hint = " (quoted, so it is text: write it without quotes)"
        return f"expected a number, got '{value[:40]}'{hint}"
    if err["type"] == "string_type":
        return f"expected a string, got {type(value).__name__} {str(value)[:40]!r}"
    if err["type"] in ("model_type", "dict_type", "dataclass_type"):
        return f"expected a mapping, got {_kind(value)}"
    if err["type"] == "list_type":
        return f"expected a list, got {_kind(value)}"
    key, words = _BOUNDS.get(err["type"], ("", ""))
    bound = err.get("ctx", {}).get(key)
    if isinstance(bound, (int, float)) and isinstance(value, (int, float)):
        return f"must be {words} {number_text(bound)}, got {number_text(value)}"
    if (
        err["type"] in _WHOLE_NUMBER
        and isinstance(value, float)
        and value.is_integer()
        and abs(value) < 1e18
    ):  # YAML reads 1e3 and 1000.0 as decimal numbers: 'got 1,000' said nothing of why
        got = repr(value) if abs(value) < 1e16 else f"{value:g}"
        return (
            "expected a whole number, written without a decimal point or exponent "
            f"({int(value)}), got {got}"
        )
    if err["type"] in _WHOLE_NUMBER and isinstance(value, (bool, float)):
        got = str(value).lower() if isinstance(value, bool) else number_text(value)
        return f"expected a whole number, got {got}"
    if err["type"] in ("literal_error", "enum") and "expected" in err.get("ctx", {}):
        # YAML's spelling of a boolean choice (pydantic writes Python's)
        choices = _YAML_BOOL.sub(lambda m: m[1].lower(), err["ctx"]["expected"])
        hint = did_you_mean(str(value), re.findall(r"'([^']*)'", choices)) if value else ""
        return f"expected {choices}, got {_given(value)}{hint}"
    return msg[0].lower() + msg[1:] if msg else "invalid value"


# pydantic's bound errors, said as dclint says them ('must be at least 1, got 0.9')
_BOUNDS = {
    "greater_than": ("gt", "greater than"),
    "greater_than_equal": ("ge", "at least"),
    "less_than": ("lt", "less than"),
    "less_than_equal": ("le", "at most"),
}
_WHOLE_NUMBER = ("int_type", "int_from_float", "int_parsing")
_YAML_BOOL = re.compile(r"(?<!')\b(True|False)\b(?!')")


def _given(value: Any) -> str:
    """A value as the design wrote it: `true`, `3.0`, `the string '3'`, `a mapping`."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return repr(value)
    return _kind(value)


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    return {dict: "a mapping", list: "a list", type(None): "nothing"}.get(
        type(value), type(value).__name__
    )
