"""The import's mapping file: its checked-in JSON Schema matches the model, the example
mappings validate, a bad value is one located error; and `dclint check` never imports the
importer (the check stays fast and offline)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import ROOT, SAMPLES
from dclint.cli import main
from dclint.importer.mapping import mapping_schema_text
from dclint.loader.yamlsafe import read_yaml

SCHEMA_FILE = ROOT / "schemas" / "import-mapping.schema.json"
MAPS = sorted((ROOT / "tests" / "integration").glob("*-import.yaml"))


def test_checked_in_schema_is_in_sync_with_the_model() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == mapping_schema_text(), (
        "schemas/import-mapping.schema.json is stale: run "
        "`dclint schema --import-mapping > schemas/import-mapping.schema.json`"
    )


@pytest.mark.parametrize("path", MAPS, ids=lambda p: p.name)
def test_the_example_mappings_validate(path: Path) -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    data, _ = read_yaml(path.name, path.read_text(encoding="utf-8"))
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(data)) == []


def test_schema_refuses_a_current_in_kw() -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    bad = {"panels": {"*": {"current_rating": "800 kW"}}, "device_types": {"x": {"kind": "gpu"}}}
    messages = sorted(e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(bad))
    assert len(messages) == 2
    assert messages[0].startswith("'800 kW' does not match")
    assert messages[1].startswith("'gpu' is not one of ['gpu_node', 'switch'")


def test_a_bad_mapping_value_is_one_located_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mapping = tmp_path / "m.yaml"
    mapping.write_text("site: dc1\npanels:\n  '*': {current_rating: 800}\n", encoding="utf-8")
    dump = tmp_path / "d.json"
    dump.write_text("{}", encoding="utf-8")
    code = main(["import", "netbox", "--from-file", str(dump), "--map", str(mapping)])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0] == (
        f"dclint: error: {mapping}:3:25: panels.*.current_rating: current needs a unit: "
        "write '800 A' or similar (e.g. '60 A')"
    )


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("sheets: [1, 2]\n", ":1:9: sheets: expected a mapping, got a list"),
        ("sheet: {}\n", ":1:1: unknown key 'sheet' in the mapping file; did you mean 'sheets'?"),
        (
            "sheets: {rackz: {columns: {id: Rack}}}\n",
            ":1:10: unknown key 'rackz' in sheets; did you mean 'racks'?",
        ),
        (
            "panels:\n  '*': {current_ratin: 800 A}\n",
            ":2:8: missing required key 'current_rating' in panels.*",
        ),
    ],
)
def test_a_mapping_error_is_said_as_a_designs_is(
    text: str, error: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pydantic's own words ('Input should be a valid dictionary or instance of SheetsMap',
    'Extra inputs are not permitted', 'Field required' at 1:1) where a design's errors say
    what was expected, what a key meant and where."""
    mapping = tmp_path / "m.yaml"
    mapping.write_text(text, encoding="utf-8")
    (tmp_path / "r.csv").write_text("Rack\nr1\n", encoding="utf-8")
    assert main(["import", "csv", str(tmp_path / "r.csv"), "--map", str(mapping)]) == 2
    assert capsys.readouterr().err.splitlines() == [f"dclint: error: {mapping}{error}"]


def test_check_never_imports_the_importer() -> None:
    code = (
        "import sys\n"
        "from dclint.cli import main\n"
        f"main(['check', {str(SAMPLES / 'h100-40node.yaml')!r}, '-q'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('dclint.importer')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=ROOT
    )
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stderr
