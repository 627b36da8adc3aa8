"""The checked-in JSON Schema matches the models and validates the sample designs."""

from __future__ import annotations

import json

import jsonschema
import pytest

from conftest import ROOT, SAMPLES
from dclint.loader.yamlsafe import read_yaml
from dclint.model.schema import schema_text

SCHEMA_FILE = ROOT / "schemas" / "design.schema.json"


def test_checked_in_schema_is_in_sync_with_the_models() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(), (
        "schemas/design.schema.json is stale: run `dclint schema > schemas/design.schema.json`"
    )


def _validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.glob("*.yaml")))
def test_schema_validates_every_sample(sample: str) -> None:
    # read as dclint reads it (YAML 1.2 core numbers: 15e12 is a float, as in editors' YAML 1.2)
    data, _ = read_yaml(sample, (SAMPLES / sample).read_text(encoding="utf-8"))
    errors = sorted(e.message for e in _validator().iter_errors(data))
    assert errors == []


def test_schema_rejects_unknown_keys_and_bare_numbers() -> None:
    doc = {"name": "x", "racks": [{"id": "r1", "it_load": 120, "colour": "red"}]}
    messages = sorted(e.message for e in _validator().iter_errors(doc))
    assert messages == [
        "120 is not valid under any of the given schemas",
        "Additional properties are not allowed ('colour' was unexpected)",
    ]
