"""The built-in hardware catalog, merged with a design's additions and overrides."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from dclint.model.catalog import CatalogData, Gpu, Nic, Platform, SwitchModel

__all__ = ["SECTIONS", "Catalog", "builtin_raw", "merge_raw"]

SECTIONS = ("gpus", "platforms", "switches", "nics")


@dataclass(frozen=True)
class Catalog:
    gpus: dict[str, Gpu]
    platforms: dict[str, Platform]
    switches: dict[str, SwitchModel]
    nics: dict[str, Nic]

    @classmethod
    def from_data(cls, data: CatalogData) -> Catalog:
        return cls(data.gpus, data.platforms, data.switches, data.nics)


@lru_cache(maxsize=1)
def builtin_raw() -> dict[str, dict[str, dict[str, Any]]]:
    """The package's catalog.yaml as plain data (read once per process)."""
    text = (resources.files("dclint") / "data" / "catalog.yaml").read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data: dict[str, dict[str, dict[str, Any]]] = yaml.load(text, Loader=loader)
    return data


@lru_cache(maxsize=1)
def builtin() -> Catalog:
    return Catalog.from_data(CatalogData.model_validate(builtin_raw(), strict=False))


def merge_raw(extra: dict[str, dict[str, dict[str, Any]]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Built-in entries with a design's entries laid over them, field by field."""
    merged = {section: dict(entries) for section, entries in builtin_raw().items()}
    for section, entries in extra.items():
        target = merged.setdefault(section, {})
        for key, fields in entries.items():
            base = target.get(key, {})
            target[key] = {**base, **fields} if isinstance(fields, dict) else fields
    return merged
