"""The core schema for plain YAML scalars, and the scalar tags a design may use.

`no`, `on`, `1:30` and `010` stay strings rather than turning into booleans, sexagesimal or
octal numbers (YAML 1.1's traps); only `true`/`false` are booleans and only decimal numbers are
numbers. Integers of 20 digits or more stay strings (an id, not a count).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["CORE", "SCALAR_TAGS", "plain", "tagged"]

CORE = "tag:yaml.org,2002:"
SCALAR_TAGS = {CORE + t for t in ("str", "int", "float", "bool", "null")}
_INT_RE = re.compile(r"^[-+]?(0|[1-9][0-9]*)$")
_FLOAT_RE = re.compile(r"^[-+]?((0|[1-9]\d*)(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")
_NULLS = {"", "~", "null", "Null", "NULL"}
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}
_TYPES = {"int": int, "float": float, "bool": bool, "null": type(None)}


def plain(text: str) -> Any:
    """The value of a plain (unquoted, untagged) scalar."""
    if text in _NULLS:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if _INT_RE.match(text):
        return int(text) if len(text) < 20 else text
    if _FLOAT_RE.match(text):
        return float(text)
    return text


def tagged(tag: str, text: str) -> tuple[Any, str | None]:
    """The value of a scalar with an explicit core tag in SCALAR_TAGS (`!!int 3`), or None and
    why it is not one (`!!int abc`)."""
    name = tag[len(CORE) :]
    if name == "str":
        return text, None
    value = plain(text)
    if name == "float" and isinstance(value, int) and not isinstance(value, bool):
        return float(value), None
    if not isinstance(value, _TYPES[name]) or (name == "int" and isinstance(value, bool)):
        return None, f"'{text[:40]}' is not a valid !!{name}"
    return value, None
