"""Which config file governs a directory: the nearest `.dclint.yaml`, `.dclint.yml` or
`pyproject.toml` with a `[tool.dclint` table, in it or a parent. Plain paths and `os` only, so
that the results cache's replay (dclint.cli._runs) finds configs as a check does without
importing the engine."""

from __future__ import annotations

import os

from dclint.loader.readfile import FileRejected, read_regular

__all__ = ["CONFIG_NAMES", "MAX_CONFIG_BYTES", "find_config"]

CONFIG_NAMES = (".dclint.yaml", ".dclint.yml", "pyproject.toml")
MAX_CONFIG_BYTES = 10 * 1024 * 1024


def find_config(start: str) -> str | None:
    """The nearest config file in the directory `start` (resolved) or a parent."""
    directory = start
    while True:
        for name in CONFIG_NAMES:
            candidate = os.path.join(directory, name)
            if not os.path.isfile(candidate):  # never raises: a parent may be unsearchable
                continue
            if name != "pyproject.toml" or _has_section(candidate):
                return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _has_section(path: str) -> bool:
    """Whether a pyproject.toml holds dclint's table (one that cannot be read holds none)."""
    try:
        return "[tool.dclint" in read_regular(path, MAX_CONFIG_BYTES, "config").decode("utf-8")
    except (FileRejected, UnicodeDecodeError):
        return False
