"""The safe fix for a configuration found by search: its `rules-dir` is removed.

A config found by searching from a design loads no rule code (a repository's files could
otherwise run code in CI), so its `rules-dir` is ignored and each check warns about it. The
fix removes the key and its value, as written, from the file: in a `.dclint.yaml` the key's
line and the lines of its value (a block list, indented or not); in a `pyproject.toml` the key's
line through the one that closes its array. Nothing else in the file changes. A config named
with --config is never touched: there `rules-dir` is honoured.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dclint.fix.text import Edit

__all__ = ["rules_dir_removals"]


def rules_dir_removals(configs: Iterable[Any]) -> list[tuple[str, Edit, str]]:
    """(file, edit, what it does) removing `rules-dir` from each found config that writes it
    (`configs`: the found configs, as `Engine` caches them)."""
    out: list[tuple[str, Edit, str]] = []
    seen: set[str] = set()
    for config in configs:
        pos = config.positions.get("rules-dir")
        if config.file is None or pos is None or config.file in seen:
            continue
        seen.add(config.file)
        try:
            with open(config.file, encoding="utf-8") as handle:
                lines = handle.read().splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        first = pos[0] - 1
        if not 0 <= first < len(lines):
            continue
        toml = config.file.endswith(".toml")
        last = _toml_end(lines, first) if toml else _yaml_end(lines, first, pos[1] - 1)
        out.append(
            (
                config.file,
                Edit(first, 0, last + 1, 0, ""),
                f"{config.file}:{pos[0]}: rules-dir removed (ignored in a config found by "
                "search; give the file with --config to load its rules)",
            )
        )
    return out


def _yaml_end(lines: list[str], first: int, column: int) -> int:
    """The last line of the YAML value whose key is on line `first` at `column`: the lines
    after it that are indented deeper, or at the key's column and starting a list item."""
    last = first
    for i in range(first + 1, len(lines)):
        line = lines[i]
        stripped = line.lstrip()
        if not stripped:
            continue
        indent = len(line) - len(stripped)
        if indent > column or (indent == column and stripped.startswith("- ")):
            last = i
            continue
        break
    return last


def _toml_end(lines: list[str], first: int) -> int:
    """The line that closes the TOML value starting on line `first` (an array may span
    lines; brackets inside strings are not counted)."""
    depth = 0
    for i in range(first, len(lines)):
        quote: str | None = None
        text = lines[i] if i > first else lines[i].split("=", 1)[-1]
        for ch in text:
            if quote is not None:
                if ch == quote:
                    quote = None
            elif ch in "\"'":
                quote = ch
            elif ch == "#":
                break
            elif ch == "[":
                depth += 1
            elif ch == "]":
                depth -= 1
        if depth <= 0:
            return i
    return first
