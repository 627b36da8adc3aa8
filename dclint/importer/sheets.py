"""Spreadsheets (csv, xlsx): placeholder until the column map lands."""

from __future__ import annotations

from dclint.errors import ConfigError
from dclint.importer.inventory import Inventory
from dclint.importer.mapping import Mapping

__all__ = ["read_sheet"]


def read_sheet(path: str, kind: str, mapping: Mapping) -> Inventory:
    raise ConfigError(f"import {kind}: not yet")
