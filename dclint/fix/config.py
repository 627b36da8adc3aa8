"""The safe fixes of a configuration: the `rules-dir` of one found by search is removed, and
ratio options written `2/1`, `2.0:1` or `4:2` are respelled `2:1`.

A config found by searching from a design loads no rule code (a repository's files could
otherwise run code in CI), so its `rules-dir` is ignored and each check warns about it. The
fix removes the key and its value, as written, from the file: in a `.dclint.yaml` the key's
line and the lines of its value (a block list, indented or not); in a `pyproject.toml` the key's
line through the one that closes its array. Nothing else in the file changes. A config named
with --config keeps its `rules-dir`: there it is honoured.

A ratio option (NET001's `limit` and `tier_limits`) reads `2:1`, `2/1`, `2.0:1` and the number
2.0 alike; its text forms are respelled as dclint prints a ratio, `2:1` (any config, found or
named: the value does not change). Only the ratio's text is replaced, inside its quotes if it
has them; a number is left as written.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dclint.fix.text import Edit

__all__ = ["ratio_respellings", "rules_dir_removals"]


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


def ratio_respellings(configs: Iterable[Any], rules: dict[str, Any]) -> list[tuple[str, Edit, str]]:
    """(file, edit, what it does) respelling each ratio option of `configs` written as text
    other than `N:1` (the rule classes in `rules` say which options are ratios)."""
    from dclint.engine.options import parse_ratio, ratio_text

    out: list[tuple[str, Edit, str]] = []
    seen: set[str] = set()
    for config in configs:
        if config is None or config.file is None or config.file in seen:
            continue
        seen.add(config.file)
        wanted: list[tuple[tuple[str, ...], str, str]] = []  # (path, as written, canonical)
        for rule_id, settings in config.rule_settings.items():
            cls = rules.get(rule_id)
            for name, value in settings.items():
                option = cls.options.get(name) if cls is not None else None
                if option is None or option.kind not in ("ratio", "dict:ratio"):
                    continue
                items: list[tuple[tuple[str, ...], Any]] = [((rule_id, name), value)]
                if option.kind == "dict:ratio":
                    items = [((rule_id, name, str(k)), v) for k, v in dict(value).items()]
                for path, raw in items:
                    if not isinstance(raw, str):
                        continue  # a number is not a spelling
                    try:
                        canonical = ratio_text(parse_ratio(raw))
                    except ValueError:
                        continue
                    if raw != canonical:
                        wanted.append((path, raw, canonical))
        if not wanted:
            continue
        try:
            with open(config.file, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError):
            continue
        toml = config.file.endswith(".toml")
        for path, raw, canonical in wanted:
            at = _toml_value(text, path, raw) if toml else _yaml_value(config.file, text, path, raw)
            if at is None:
                continue
            line, column = at
            out.append(
                (
                    config.file,
                    Edit(line, column, line, column + len(raw), canonical),
                    f"{config.file}:{line + 1}: {'.'.join(path)} ratio {raw} respelled "
                    f"{canonical} (as dclint prints ratios)",
                )
            )
    return out


def _yaml_value(file: str, text: str, path: tuple[str, ...], raw: str) -> tuple[int, int] | None:
    """0-based (line, column) where the text of scalar `raw` at `path` starts, inside its
    quotes if it is quoted; None if the text there is not `raw` as written."""
    from dclint.loader.yamlsafe import YamlError, read_yaml

    try:
        _, source = read_yaml(file, text)
        start = source.values.get(path)
    except YamlError:
        return None
    if start is None:
        return None
    lines = text.splitlines()
    line, column = start[0] - 1, start[1] - 1
    if line >= len(lines):
        return None
    here = lines[line]
    quote = here[column : column + 1]
    if quote in ("'", '"'):
        column += 1
        if here[column : column + len(raw) + 1] != raw + quote:
            return None
    elif here[column : column + len(raw)] != raw:
        return None
    return line, column


def _toml_value(text: str, path: tuple[str, ...], raw: str) -> tuple[int, int] | None:
    """0-based (line, column) of the string `raw` given to the last key of `path`
    (`key = "raw"`, the key bare or quoted) inside a [tool.dclint...] table; None if absent."""
    import re

    key = re.escape(path[-1])
    pattern = re.compile(
        rf"(?:^|[\s{{,])(?:{key}|\"{key}\"|'{key}')\s*=\s*([\"'])({re.escape(raw)})\1"
    )
    ours = False
    for number, line in enumerate(text.splitlines()):
        stripped = line.lstrip()
        if stripped.startswith("["):
            ours = stripped.lstrip("[").lstrip().startswith("tool.dclint")
            continue
        if not ours or "#" in line.split(raw, 1)[0]:
            continue  # outside dclint's tables, or in a comment
        found = pattern.search(line)
        if found is not None:
            return number, found.start(2)
    return None
