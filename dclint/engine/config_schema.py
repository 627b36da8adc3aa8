"""The configuration's JSON Schema (draft 2020-12), generated from what the config reader
accepts (dclint.engine.config) and from the built-in rules' options, so an editor
completes `.dclint.yaml` keys and rule tables and flags `PWR001: {limit: 132 kg}` as it is
typed. `dclint schema config` prints it; schemas/config.schema.json holds it."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["CONFIG_ID", "config_schema", "config_schema_text"]

CONFIG_ID = "urn:dclint:schema:config:1"
_DRAFT = "https://json-schema.org/draft/2020-12/schema"

# an option's kind -> an example unit of its dimension (dclint.model.schema.unit_pattern)
_UNITS = {
    "power": "kW",
    "bandwidth": "Gb/s",
    "duration": "year",
    "temperature": "degC",
    "temperature_delta": "K",
    "flow": "L/min",
    "information": "PB",
    "mass": "kg",
    "area": "m^2",
    "length": "m",
}
_IDS = {
    "type": "array",
    "items": {"type": "string"},
    "description": "Rule ids or prefixes (PWR001, PWR, ALL), as a list or comma-separated text",
}


def _ids(description: str) -> dict[str, Any]:
    return {"anyOf": [_IDS, {"type": "string"}], "description": description}


def _kind(kind: str) -> dict[str, Any]:
    """The schema of an option value of `kind` (dclint.engine.options.KINDS)."""
    if kind.startswith("dict:"):
        return {"type": "object", "additionalProperties": _kind(kind[5:])}
    if kind.startswith("list:"):
        return {"type": "array", "items": _kind(kind[5:])}
    if kind in _UNITS:
        return {"$ref": f"#/$defs/{kind}"}
    return {
        "share": {
            "anyOf": [
                {"type": "string", "pattern": r"^\s*\d+(\.\d*)?\s*%\s*$"},
                {"type": "number", "minimum": 0, "maximum": 1},
            ],
            "description": "a share: a percentage ('80%') or a number from 0 to 1",
        },
        "ratio": {
            "anyOf": [
                {"type": "string", "pattern": r"^\s*\d+(\.\d*)?\s*([:/]\s*\d+(\.\d*)?\s*)?$"},
                {"type": "number", "exclusiveMinimum": 0},
            ],
            "description": "a down:up ratio as dclint prints it, '2:1' (or 2/1, 2.0)",
        },
    }.get(kind) or _plain(kind)


def _plain(kind: str) -> dict[str, Any]:
    """A kind without a unit (float, positive, count, int, bool, str): its pydantic type's
    own schema; {} (anything) for a kind pydantic cannot describe."""
    from pydantic import TypeAdapter

    from dclint.engine.options import KINDS

    try:
        out: dict[str, Any] = TypeAdapter(KINDS[kind]).json_schema()
    except Exception:  # a kind added later that has no JSON Schema of its own
        return {}
    return out


def _quantity(kind: str) -> dict[str, Any]:
    from dclint.model.schema import KINDS, unit_pattern

    unit = _UNITS[kind]
    what, units = KINDS.get(unit, (kind.replace("_", " "), unit))
    return {
        "type": "string",
        "pattern": unit_pattern(unit),
        "description": f"{what} with its unit ({units})",
    }


def _rule(cls: Any) -> dict[str, Any]:
    from dclint.engine.rule import SEVERITIES

    props: dict[str, Any] = {
        "severity": {"enum": list(SEVERITIES), "description": "the rule's severity"}
    }
    for name, option in cls.options.items():
        prop = dict(_kind(option.kind))
        prop["description"] = " ".join(option.help.split())
        if isinstance(option.default, (str, int, float, bool)):
            prop["default"] = option.default
        props[name] = prop
    return {
        "type": "object",
        "description": f"{cls.id} {cls.name}: {cls.summary()}",
        "properties": props,
        "additionalProperties": False,
    }


def config_schema() -> dict[str, Any]:
    """The schema of `.dclint.yaml` (and of `[tool.dclint]` in pyproject.toml)."""
    from dclint.engine.config import REVIEW_KEYS
    from dclint.engine.registry import discover

    rules = discover((), plugins=False)  # the built-in rules: the same schema everywhere
    rule_refs = {rid: {"$ref": f"#/$defs/{rid}"} for rid in sorted(rules)}
    ignore = _ids("rules not to run on the files the glob matches")
    per_file = {
        "type": "object",
        "properties": {"ignore": ignore, "extend-ignore": ignore, **rule_refs},
        "additionalProperties": False,
    }
    properties: dict[str, Any] = {
        "select": _ids("rules to run (default ALL); the most specific id or prefix wins"),
        "ignore": _ids("rules not to run"),
        "extend-select": _ids("rules to run as well as those selected"),
        "extend-ignore": _ids("rules not to run, as well as those ignored"),
        "per-file-ignores": {
            "type": "object",
            "additionalProperties": _ids("rules not to run on the files the glob matches"),
            "description": "glob (from the config's folder, or a file name) -> rule ids",
        },
        "per-file": {
            "type": "object",
            "additionalProperties": per_file,
            "description": "glob -> `ignore` and rule tables for the files the glob matches",
        },
        "fail-on": {
            "enum": ["error", "warning", "info"],
            "default": "error",
            "description": "lowest severity that makes the exit code 1",
        },
        "rules-dir": {
            "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}],
            "description": "folders of extra rule modules (only from a file named with --config)",
        },
        "exclude": {
            "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}],
            "description": "globs of files a directory search skips (named files are checked)",
        },
        "max-ids": {
            "type": "integer",
            "minimum": 1,
            "maximum": 10**9,
            "description": "ids a design may name through ranges and counts (default 200,000)",
        },
        "review": {
            "type": "object",
            "properties": {k: {"type": ["string", "number"]} for k in REVIEW_KEYS},
            "additionalProperties": False,
            "description": "the front matter of `dclint review`",
        },
        "calibration": {
            "type": "string",
            "description": "a calibration profile (`dclint calibrate`), from the config's folder",
        },
        "policies": {
            "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}],
            "description": "site policy files and globs (docs/policies.md), from the config's "
            "folder",
        },
        **rule_refs,
    }
    defs: dict[str, Any] = {kind: _quantity(kind) for kind in _UNITS}
    defs.update({rid: _rule(cls) for rid, cls in sorted(rules.items())})
    return {
        "$schema": _DRAFT,
        "$id": CONFIG_ID,
        "title": "DclintConfig",
        "description": (
            "dclint's configuration: `.dclint.yaml`, or `[tool.dclint]` in pyproject.toml "
            "with the same keys"
        ),
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "$defs": defs,
    }


def config_schema_text() -> str:
    """The schema as checked in under schemas/ (sorted keys, two-space indent)."""
    return json.dumps(config_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
