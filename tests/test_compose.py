"""Composition: `extends` and `include` merge files, and every value keeps its own position."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import dclint
from conftest import TODAY
from dclint.engine.runner import Engine, run
from dclint.errors import LoadError
from dclint.model.resolve import topology_of

PROFILE = """site:
  pue: 1.15
  currency: CNY
rack_types:
  nvl72:
    platform: gb200-nvl72
    it_load: 130 kW
racks:
  - id: r1
    type: nvl72
  - id: r2
    type: nvl72
"""


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "profiles").mkdir()
    (tmp_path / "client").mkdir()
    (tmp_path / "profiles" / "site.yaml").write_text(PROFILE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _write(path: Path, text: str) -> str:
    path.write_text(text)
    return os.path.relpath(path)


def test_later_values_override_and_lists_of_ids_merge_by_id(tree: Path) -> None:
    plan = _write(
        tree / "client" / "plan.yaml",
        "name: plan\nextends: ../profiles/site.yaml\nsite:\n  pue: 1.3\n"
        "racks:\n  - id: r2\n    it_load: 100 kW\n  - id: r3\n    type: nvl72\n",
    )
    design = dclint.load(plan)
    assert design.site.pue == 1.3
    assert design.site.currency == "CNY"
    loads = {r.id: r.it_load.m_as("kW") for r in topology_of(design).racks}
    assert loads == {"r1": 130.0, "r2": 100.0, "r3": 130.0}


def test_findings_on_inherited_values_point_at_the_file_that_set_them(tree: Path) -> None:
    plan = _write(tree / "client" / "plan.yaml", "name: plan\ninclude: [../profiles/site.yaml]\n")
    result = run([plan], Engine(today=TODAY))
    located = sorted({(f.rule, f.file, f.line, f.column) for f in result.findings})
    assert located == [("PWR001", os.path.join("profiles", "site.yaml"), 7, 14)]
    assert [f.subject for f in result.findings] == ["r1", "r2"]


def test_suppression_in_an_included_file_applies_there(tree: Path) -> None:
    text = PROFILE.replace("130 kW", "130 kW  # dclint: ignore[PWR001] vendor 132 kW racks")
    (tree / "profiles" / "site.yaml").write_text(text)
    plan = _write(tree / "client" / "plan.yaml", "name: plan\ninclude: [../profiles/site.yaml]\n")
    assert run([plan], Engine(today=TODAY)).findings == []


def _problems(path: str) -> list[str]:
    with pytest.raises(LoadError) as info:
        dclint.load(path)
    return [str(p) for p in info.value.problems]


def test_missing_include_is_an_error_at_its_line(tree: Path) -> None:
    plan = _write(tree / "client" / "plan.yaml", "name: p\ninclude:\n  - ../profiles/nope.yaml\n")
    assert _problems(plan) == [f"{plan}:3:5: included file '../profiles/nope.yaml' does not exist"]


def test_include_cycle_is_an_error(tree: Path) -> None:
    a = _write(tree / "client" / "a.yaml", "name: a\nextends: b.yaml\n")
    _write(tree / "client" / "b.yaml", "extends: a.yaml\nsite: {pue: 1.2}\n")
    assert _problems(a) == [
        f"{os.path.join('client', 'b.yaml')}:1:10: include cycle: a.yaml -> b.yaml -> a.yaml"
    ]


def test_include_outside_the_tree_or_not_yaml_is_refused(tree: Path) -> None:
    plan = _write(
        tree / "client" / "plan.yaml",
        "name: p\ninclude:\n  - /etc/passwd.yaml\n  - ../../../etc/x.yaml\n  - notes.txt\n",
    )
    assert _problems(plan) == [
        f"{plan}:3:5: include '/etc/passwd.yaml' must be a relative path",
        f"{plan}:4:5: include '../../../etc/x.yaml' points outside the design's directory tree"
        f" {tree / 'client'} (no .git, .dclint.yaml or pyproject.toml above it marks a"
        " repository root: put one at the top of the tree)",
        f"{plan}:5:5: include must be a relative path to a .yaml file, got 'notes.txt'",
    ]


def test_error_in_an_included_file_points_into_it(tree: Path) -> None:
    (tree / "profiles" / "site.yaml").write_text("site:\n  pue: lots\n")
    plan = _write(tree / "client" / "plan.yaml", "name: p\nextends: ../profiles/site.yaml\n")
    assert _problems(plan) == [
        f"{os.path.join('profiles', 'site.yaml')}:2:8: site.pue: expected a number, got 'lots'"
    ]
