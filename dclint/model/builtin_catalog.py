"""The built-in hardware catalog, merged with a design's additions and overrides."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Generic, TypeVar

import yaml

from dclint.model.catalog import CatalogData, Gpu, Nic, Platform, SwitchModel

__all__ = ["SECTIONS", "Catalog", "builtin_raw", "merge_raw"]

SECTIONS = ("gpus", "platforms", "switches", "nics")


@dataclass(frozen=True)
class Catalog:
    gpus: Mapping[str, Gpu]
    platforms: Mapping[str, Platform]
    switches: Mapping[str, SwitchModel]
    nics: Mapping[str, Nic]

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


_Entry = TypeVar("_Entry", Gpu, Platform, SwitchModel, Nic)


class _Entries(Mapping[str, _Entry], Generic[_Entry]):
    """A section of the built-in catalog whose entries are validated when first read: a check
    reads the few its design names (a platform, its GPU, a switch, a NIC) of the dozens
    catalog.yaml holds, and validating them all was about 1% of a cold check of one small
    design. Each entry validates as it would inside CatalogData (tests/test_catalog.py
    compares them)."""

    def __init__(self, raw: dict[str, Any], model: type[_Entry]) -> None:
        self._raw = raw
        self._model: type[_Entry] = model
        self._done: dict[str, _Entry] = {}

    def __getitem__(self, key: str) -> _Entry:
        found = self._done.get(key)
        if found is None:
            found = self._model.model_validate(self._raw[key], strict=False)
            self._done[key] = found
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def __contains__(self, key: object) -> bool:
        return key in self._raw

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._model.__name__}: {', '.join(self._raw)})"


@lru_cache(maxsize=1)
def builtin() -> Catalog:
    """The package's catalog, each entry validated on first use."""
    raw = builtin_raw()
    return Catalog(
        _Entries(raw.get("gpus", {}), Gpu),
        _Entries(raw.get("platforms", {}), Platform),
        _Entries(raw.get("switches", {}), SwitchModel),
        _Entries(raw.get("nics", {}), Nic),
    )


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
