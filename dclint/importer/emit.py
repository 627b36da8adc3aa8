"""A Fragment written as dclint YAML: the same input gives the same bytes (no date, no
dictionary order left to chance), so a re-import diffs cleanly in git."""

from __future__ import annotations

import json
import re
from typing import Any

from dclint.importer.build import Entry, Fragment

__all__ = ["as_data", "emit"]

_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:$/%\-\[\] ]*$")
_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}
_NUMBER = re.compile(r"^[-+]?(\d[\d_]*)?(\.\d*)?([eE][-+]?\d+)?$|^0[xXoObB]")


def _scalar(value: Any, flow: bool = False) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    text = str(value)
    if (
        _PLAIN.match(text)
        and text.lower() not in _YAML_WORDS
        and not _NUMBER.match(text)
        and not text.endswith(" ")
        and ": " not in text
        and " #" not in text
    ):
        if flow and any(c in text for c in "[]{},"):
            return f"'{text}'"  # a flow indicator inside [..] or {..} needs quotes
        return text
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a YAML double-quoted one


def _value(value: Any, flow: bool = False) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(v, flow=True) for v in value) + "]"
    return _scalar(value, flow)


def _comment(text: str) -> str:
    return "  # " + text.replace("\n", " ")  # texts are sanitized; a newline cannot pass


def _entry(entry: Entry, indent: str) -> list[str]:
    fields = {k: v for k, v in entry.fields.items() if k != "__flow__"}
    if entry.fields.get("__flow__"):
        inner = ", ".join(f"{k}: {_value(v, flow=True)}" for k, v in fields.items())
        return [f"{indent}- {{{inner}}}{_comment(entry.comment)}"]
    lines = []
    for i, (key, value) in enumerate(fields.items()):
        lead = f"{indent}- " if i == 0 else f"{indent}  "
        line = f"{lead}{key}: {_value(value)}"
        if i == 0:
            line += _comment(entry.comment)
        lines.append(line)
    return lines


def emit(frag: Fragment, command: str) -> str:
    out = [
        f"# Written by `{command}`. Do not edit: run the import again.",
        "# Workloads, storage and limits the source does not hold go in a design that",
        "# `extends:` this file; the import never touches that one.",
        f"name: {_scalar(frag.name)}",
    ]
    if frag.site:
        out += ["site:", f"  name: {_scalar(frag.site)}"]
    if frag.panels or frag.feeds:
        out.append("power:")
        if frag.panels:
            out.append("  panels:")
            for e in frag.panels:
                out += _entry(e, "    ")
        if frag.feeds:
            out.append("  feeds:")
            for e in frag.feeds:
                out += _entry(e, "    ")
    if frag.rack_types:
        out.append("rack_types:")
        for key in sorted(frag.rack_types):
            out.append(f"  {_scalar(key)}:")
            for k, v in frag.rack_types[key].items():
                out.append(f"    {k}: {_value(v)}")
    if frag.racks:
        out.append("racks:")
        for e in frag.racks:
            out += _entry(e, "  ")
    if frag.fabric is not None:
        out.append("fabrics:")
        out.append(f"  - id: {_scalar(frag.fabric['id'])}")
        out.append(f"    kind: {frag.fabric['kind']}")
        out.append("    switches:")
        for e in frag.switches:
            out += _entry(e, "      ")
        if frag.links:
            out.append("    links:")
            for e in frag.links:
                out += _entry(e, "      ")
    if frag.origins:
        out.append("origins:  # where each element came from; findings on it name it")
        for key, origin in frag.origins:
            out.append(f"  {_scalar(key)}: {_scalar(origin)}")
    if frag.unmapped:
        out.append("# Not imported, device types the mapping file does not name (devices):")
        for key, count in frag.unmapped.items():
            out.append(f"#   {key}: {count}")
    if frag.notes:
        out.append("# Not imported:")
        out += [f"#   {note}" for note in frag.notes]
    if frag.ledger.kinds:
        out += [line.replace("\n", " ") for line in frag.ledger.comment()]
    return "\n".join(out) + "\n"


def as_data(frag: Fragment) -> dict[str, Any]:
    """The design `emit` writes, as the plain data its YAML reads back to: what the import
    checks loads before it writes."""

    def items(entries: list[Entry]) -> list[dict[str, Any]]:
        return [{k: v for k, v in e.fields.items() if k != "__flow__"} for e in entries]

    out: dict[str, Any] = {"name": frag.name}
    if frag.site:
        out["site"] = {"name": frag.site}
    if frag.panels or frag.feeds:
        out["power"] = {
            k: items(v) for k, v in (("panels", frag.panels), ("feeds", frag.feeds)) if v
        }
    if frag.rack_types:
        out["rack_types"] = {k: dict(v) for k, v in frag.rack_types.items()}
    if frag.racks:
        out["racks"] = items(frag.racks)
    if frag.fabric is not None:
        fabric: dict[str, Any] = {**frag.fabric, "switches": items(frag.switches)}
        if frag.links:
            fabric["links"] = items(frag.links)
        out["fabrics"] = [fabric]
    if frag.origins:
        out["origins"] = dict(frag.origins)
    return out
