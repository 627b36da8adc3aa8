"""Edits to a design's text at positions dclint knows, never a re-dump of the YAML: comments,
order, quoting and ranges stay as the author wrote them.

An `Edit` replaces the text between two 0-based (line, character) positions, as an editor's
text edit does; `apply` applies several (non-overlapping) to a text. Nodes are found with
PyYAML's composer, which records where each node starts and ends.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["Edit", "apply", "node_at", "suppression_edit"]


@dataclass(frozen=True, order=True)
class Edit:
    """Replace [start, end) with `text`; lines and characters are 0-based."""

    start_line: int
    start_char: int
    end_line: int
    end_char: int
    text: str


def apply(text: str, edits: Iterable[Edit]) -> str:
    """`text` with `edits` applied (last first, so earlier positions stay valid)."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def index(line: int, char: int) -> int:
        if line >= len(lines):
            return len(text)
        return offsets[line] + char

    out = text
    for e in sorted(edits, reverse=True):
        out = (
            out[: index(e.start_line, e.start_char)] + e.text + out[index(e.end_line, e.end_char) :]
        )
    return out


def node_at(text: str, path: tuple[str | int, ...]) -> tuple[Any, Any] | None:
    """The (key node, value node) of `path` in the YAML text (key None for a list item or
    the root), or None where the text does not write it."""
    import yaml

    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    key: Any = None
    for part in path:
        if isinstance(part, int):
            if not isinstance(node, yaml.SequenceNode) or part >= len(node.value):
                return None
            key, node = None, node.value[part]
        else:
            if not isinstance(node, yaml.MappingNode):
                return None
            hit = next((kv for kv in node.value if kv[0].value == part), None)
            if hit is None:
                return None
            key, node = hit
    return key, node


def suppression_edit(text: str, line: int, rule: str, reason: str, until: str = "") -> Edit:
    """A reasoned `# dclint: ignore[RULE]` for a finding on 0-based `line`: added to a
    suppression already on that line, else appended to the line as a comment."""
    import re

    lines = text.splitlines()
    current = lines[line] if line < len(lines) else ""
    existing = re.search(r"#\s*dclint:\s*ignore\[([^\]]*)\]", current)
    if existing is not None:
        ids = [i.strip() for i in existing.group(1).split(",") if i.strip()]
        if rule not in ids:
            ids.append(rule)
        start, end = existing.span(1)
        return Edit(line, start, line, end, ", ".join(ids))
    clean = " ".join(reason.split())
    when = f" until={until}" if until else ""
    comment = f"  # dclint: ignore[{rule}]{when} {clean}"
    return Edit(line, len(current), line, len(current), comment)
