"""Write a Design back as YAML text that `load_text` reads to an equal model."""

from __future__ import annotations

from typing import Any

import yaml
from pydantic import BaseModel

from dclint.loader.scalars import plain
from dclint.model.types import fields_of
from dclint.units import Quantity, unit_text

__all__ = ["dump"]


def dump(design: BaseModel) -> str:
    """YAML text for `design`: every value that differs from its default, quantities with
    their units at full precision, strings quoted wherever they would read as something else."""
    return yaml.dump(_data(design), Dumper=_Dumper, sort_keys=False, allow_unicode=True)


def _data(value: Any) -> Any:
    fields = fields_of(type(value))
    if fields:  # a model or a record
        out = {}
        for name, info in fields.items():
            item = getattr(value, name)
            if item is None and info.default is None:
                continue
            key = info.alias or name
            out[key] = _data(item)
        return out
    if isinstance(value, Quantity):
        magnitude = float(value.magnitude)
        if value.dimensionless:  # a Fraction: written as a share from 0 to 1
            return float(value.to("dimensionless").magnitude)
        return f"{magnitude:.17g} {unit_text(value.units)}"
    if isinstance(value, dict):
        return {str(k): _data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_data(v) for v in value]
    return value


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    # dclint's loader reads plain scalars by its own strict schema: quote what it would not
    # read back as this very string (`1e3`, `true`, `~`, '' ...), and what YAML 1.1 would.
    plain_ok = plain(text) == text and isinstance(plain(text), str)
    node = dumper.represent_str(text)
    if not plain_ok and node.style is None:
        node.style = "'"
    return node


_Dumper.add_representer(str, _str)
