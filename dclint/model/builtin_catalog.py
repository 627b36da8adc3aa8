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
    """A catalog's GPUs, platforms, switches and NICs by key (built in, or merged with a
    design's `catalog` section)."""

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


# A built-in figure derived from a field a design overrides: a design's `hbm` alone must not be
# shadowed by the built-in nvidia-smi figure that memory rules prefer.
_DERIVED = {"hbm": ("hbm_device",)}
OVERRIDE_SOURCE = "the design's catalog section"


def merge_raw(extra: dict[str, dict[str, dict[str, Any]]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Built-in entries with a design's entries laid over them, field by field."""
    merged = {section: dict(entries) for section, entries in builtin_raw().items()}
    for section, entries in extra.items():
        target = merged.setdefault(section, {})
        for key, fields in entries.items():
            base = target.get(key)
            if isinstance(fields, dict) and isinstance(base, dict):
                target[key] = _lay(base, fields)
            else:
                target[key] = fields
    return merged


def _lay(base: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """One entry overridden: an overridden figure no longer cites the built-in source."""
    out = {**base, **fields}
    sources = dict(base.get("sources") or {})
    for field in fields:
        if field == "sources":
            continue
        sources[field] = OVERRIDE_SOURCE
        for derived in _DERIVED.get(field, ()):
            if derived not in fields:
                out.pop(derived, None)
                sources.pop(derived, None)
    given = fields.get("sources", {})
    # anything but a mapping is left for validation to reject where it was written
    out["sources"] = {**sources, **given} if isinstance(given, dict) else given
    return out
