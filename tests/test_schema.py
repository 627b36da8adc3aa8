"""The checked-in JSON Schema matches the models and validates the sample designs."""

from __future__ import annotations

import functools
import json

import jsonschema
import pytest

from conftest import ROOT, SAMPLES
from dclint.loader.yamlsafe import read_yaml
from dclint.model.schema import SCHEMAS, schema_text

SCHEMA_FILE = ROOT / "schemas" / "design.schema.json"


@pytest.mark.parametrize("kind", sorted(SCHEMAS))
def test_checked_in_schemas_are_in_sync_with_the_models(kind: str) -> None:
    file = ROOT / "schemas" / SCHEMAS[kind][0]
    assert file.read_text(encoding="utf-8") == schema_text(kind), (
        f"schemas/{file.name} is stale: run `dclint schema {kind} > schemas/{file.name}`"
    )


def test_the_schema_command_offers_every_schema() -> None:
    from dclint.cli.schema import KINDS

    # the config's is the engine's, the policy file's dclint.policy's
    assert sorted(KINDS) == sorted([*SCHEMAS, "config", "policy"])
    checked_in = {p.name for p in (ROOT / "schemas").glob("*.json")}
    assert {file for file, _ in SCHEMAS.values()} <= checked_in


@functools.cache  # checked against the meta-schema and built once a process, not once a test
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


def _properties(schema: dict[str, object]) -> list[tuple[str, dict[str, object]]]:
    defs = schema["$defs"]
    assert isinstance(defs, dict)
    out = []
    for model, node in [("Design", schema), *defs.items()]:
        for name, prop in node.get("properties", {}).items():
            out.append((f"{model}.{name}", prop))
    return out


def test_every_property_is_described_quantities_with_their_units() -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    props = _properties(schema)
    assert len(props) > 150
    assert [name for name, prop in props if not prop.get("description")] == []
    by_name = dict(_properties(schema))
    assert by_name["RackGroup.it_load"]["description"] == (
        "Design IT load (default: the platform's power x nodes); power with its unit "
        '(W, kW, MW), e.g. "120 kW"'
    )
    assert "volume flow with its unit (L/min" in str(by_name["Cdu.max_flow"]["description"])
    assert "a whole number (no unit)" in str(by_name["Tier.count"]["description"])
    # every quantity names its unit: each property holding a quantity pattern says "unit"
    for name, prop in props:
        if "examples" in json.dumps(prop):
            assert "unit" in str(prop["description"]), name


def test_schema_id_is_not_a_placeholder_domain() -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert schema["$id"] == "urn:dclint:schema:design:1"


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("130 kW", True),
        ("1.5 MW", True),
        ("130000 W", True),
        ("130 bananas", False),
        ("130 V", False),  # a unit, of the wrong dimension
        ("130 kVA", False),  # apparent power is not a rack's IT load
        ("130 kWh", False),
        ("130", False),
    ],
)
def test_quantity_patterns_accept_only_their_dimension(value: str, ok: bool) -> None:
    doc = {"name": "x", "racks": [{"id": "r1", "it_load": value}]}
    assert (list(_validator().iter_errors(doc)) == []) is ok


def test_each_kind_of_quantity_checks_its_dimension() -> None:
    good = {
        "site": {"utility_capacity": "2 MVA", "electricity_price": "0.8 CNY/kWh"},
        "cooling": {
            "cdus": [{"id": "c", "capacity": "2 MW", "max_flow": "120 m^3/h", "approach": "5 K"}],
            "loops": [
                {
                    "id": "l",
                    "cdu": "c",
                    "supply_temperature": "32 degC",
                    "return_temperature": "104 degF",
                }
            ],
        },
    }
    assert list(_validator().iter_errors({"name": "x", **good})) == []
    bad = json.loads(json.dumps(good))
    bad["site"]["electricity_price"] = "0.8 CNY/kW"  # a price per power, not per energy
    bad["cooling"]["cdus"][0]["max_flow"] = "120 m^3"  # a volume, not a flow
    bad["cooling"]["cdus"][0]["approach"] = "5 degC"  # a temperature, not a difference
    bad["cooling"]["loops"][0]["supply_temperature"] = "32 K/s"
    bad["cooling"]["loops"][0]["return_temperature"] = "42 °C"  # dclint reads ASCII: 42 degC
    errors = list(_validator().iter_errors({"name": "x", **bad}))
    assert sorted(e.instance for e in errors) == [
        "0.8 CNY/kW",
        "120 m^3",
        "32 K/s",
        "42 °C",
        "5 degC",
    ]


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("1 PB", True),
        ("1 Pb", True),
        ("1 TiB", True),
        ("1 pb", False),  # pint's picobit: dclint refuses it as ambiguous, so does the schema
        ("1 pB", False),
        ("3 mb", False),  # a millibit
        ("3 MB", True),
    ],
)
def test_a_data_unit_under_a_sub_unit_prefix_is_flagged_as_dclint_refuses_it(
    value: str, ok: bool
) -> None:
    from dclint.errors import LoadError
    from dclint.loader.load import load_text

    doc = {"name": "x", "storage": {"tiers": [{"id": "t", "capacity": value}]}}
    schema_ok = not [e for e in _validator().iter_errors(doc) if e.instance == value]
    assert schema_ok is ok
    try:
        load_text(f"name: x\nstorage:\n  tiers:\n    - {{id: t, capacity: {value}}}\n", "d.yaml")
        loaded = True
    except LoadError as exc:
        loaded = not any("capacity" in p.message for p in exc.problems)
    assert loaded is ok  # the schema and dclint agree


def test_a_bandwidth_in_mbps_is_flagged() -> None:
    def flagged(value: str) -> list[object]:
        doc = {"name": "x", "storage": {"tiers": [{"id": "t", "read_bandwidth": value}]}}
        return [e.instance for e in _validator().iter_errors(doc) if isinstance(e.instance, str)]

    assert flagged("100 mbps") == ["100 mbps"]  # a millibit a second
    assert flagged("100 Mbps") == []
