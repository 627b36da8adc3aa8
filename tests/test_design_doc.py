"""docs/design-format.md is generated from the models (#30 item 7): it matches them, covers
every section and model, and its examples form a design that checks clean. Each failed before."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import ROOT, TODAY
from dclint.cli import main
from dclint.engine.runner import Engine, run
from dclint.model.design_doc import EXAMPLE, SECTIONS, design_doc, example_of

DOC = ROOT / "docs" / "design-format.md"


def test_the_reference_is_in_sync_with_the_models(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--doc"]) == 0
    assert capsys.readouterr().out == DOC.read_text(encoding="utf-8"), (
        "docs/design-format.md is stale: run `dclint schema --doc > docs/design-format.md`"
    )


def test_every_section_and_model_is_documented() -> None:
    text = design_doc()
    schema = json.loads((ROOT / "schemas" / "design.schema.json").read_text(encoding="utf-8"))
    titles = re.findall(r"^## (\w+)$", text, re.M)
    assert titles == [
        "Site",
        "Power",
        "Racks",
        "Cooling",
        "Fabrics",
        "Storage",
        "Workloads",
        "Cost",
    ]
    assert [t for t, _, _ in SECTIONS] == titles
    covered = {k for _, keys, _ in SECTIONS for k in keys}
    assert {"site", "power", "racks", "cooling", "fabrics", "storage", "workloads", "cost"} <= (
        covered
    )
    models = set(re.findall(r"^#### (\w+) \(model\)$", text, re.M))
    assert models == set(schema["$defs"])
    for name, node in schema["$defs"].items():  # a row a field, in every model's table
        table = text.split(f"#### {name} (model)\n", 1)[1].split("\n#### ", 1)[0]
        rows = re.findall(r"^\| `(\w+)` \|", table, re.M)
        assert sorted(rows) == sorted(node.get("properties", {})), name
    assert (
        "| `it_load` | quantity | power (W, kW, MW) | - | Design IT load (default: the "
        "platform's power x nodes) |" in text
    )
    assert "| `pue` | number | - | `1.3` | Power usage effectiveness |" in text


def test_the_examples_make_a_design_that_checks_clean(tmp_path: Path) -> None:
    path = tmp_path / "example.yaml"
    path.write_text(EXAMPLE, encoding="utf-8")
    result = run([str(path)], Engine(today=TODAY))
    assert [str(e) for e in result.errors] == []
    assert [(f.rule, f.line) for f in result.findings] == []
    cut = "".join(example_of(keys) for _, keys, _ in SECTIONS)
    assert all(line in EXAMPLE.splitlines() for line in cut.splitlines())
    assert example_of(("cost",)) == (
        "cost:\n  gpu_price: 45000 USD\n  depreciation: 3 year\n  software_per_gpu_year: 4500 USD\n"
    )


def test_the_readme_links_the_reference() -> None:
    assert "(docs/design-format.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_quantity_field_names_its_kind() -> None:
    """A quantity's unit column names what it is, as `power (W, kW, MW)` does: floor_rating
    read 'quantity (kN/m^2)', weight 'quantity (kg)' and footprint 'quantity (m^2)'."""
    rows = re.findall(r"^\| `(\w+)` \| quantity \| ([^|]+) \|", design_doc(), re.M)
    assert rows
    assert [name for name, unit in rows if unit.startswith("quantity")] == []
    kinds = {name: unit for name, unit in rows}
    assert kinds["floor_rating"] == "pressure or mass per area (kN/m^2, kPa, kg/m^2, lbf/ft^2)"
    assert kinds["weight"] == "mass (kg, t, lb)"
    assert kinds["footprint"] == "area (m^2, ft^2)"


@pytest.mark.parametrize("value", ["12 kN/m^2", "12 kPa", "1200 kg/m^2", "250 lbf/ft^2"])
def test_the_schema_takes_each_floor_rating_the_model_does(value: str) -> None:
    """The design schema's floor_rating pattern was a pressure's alone: an editor flagged
    '1200 kg/m^2', which dclint reads."""
    schema = json.loads((ROOT / "schemas" / "design.schema.json").read_text(encoding="utf-8"))
    site = schema["$defs"]["Site"]["properties"]["floor_rating"]["anyOf"][0]
    assert re.match(site["pattern"], value), value
