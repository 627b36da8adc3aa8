"""The design's JSON Schema (draft 2020-12), generated from the pydantic models."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["SCHEMA_ID", "design_schema", "schema_text"]

SCHEMA_ID = "https://dclint.dev/schemas/design.schema.json"


def design_schema() -> dict[str, Any]:
    from dclint.model.design import Design

    schema = Design.model_json_schema(mode="validation")
    out: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
    }
    out.update(schema)
    return out


def schema_text() -> str:
    return json.dumps(design_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
