"""A repository of designs as infrastructure teams lay one out: halls extending a site profile
and including a rack-type library, beside a pyproject.toml, a docker-compose file and other
YAML. A directory check finds the designs, checks fragments through them, skips the rest, and
resolves includes from the including file wherever it is run from."""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

import jsonschema
import pytest
from _hardening import dclint_here

from conftest import ROOT
from dclint.cli import main
from dclint.engine.files import DESIGN_KEYS, says_design
from dclint.loader.yamlsafe import read_yaml

FILES = {
    "pyproject.toml": '[project]\nname = "infra"\nversion = "0.1.0"\n\n'
    '[tool.dclint]\nignore = ["STO004"]\n',
    # a compose file has a top-level `name` too, but no design section
    "docker-compose.yaml": "name: infra\nservices:\n  netbox:\n    image: netbox:v4.1\n",
    ".pre-commit-config.yaml": "repos:\n  - repo: local\n    hooks: [{id: dclint}]\n",
    ".github/workflows/ci.yaml": "name: ci\non: [push]\njobs: {}\n",
    "designs/profiles/site-a.yaml": (
        "# yaml-language-server: $schema=../../schemas/fragment.schema.json\n"
        "site: {utility_capacity: 1.5 MW, pue: 1.15, electricity_price: 0.8 CNY/kWh,"
        " currency: CNY}\n"
        "power:\n"
        "  panels:\n"
        "    - {id: busway-a, voltage: 415 V, current_rating: 2000 A, path: A}\n"
        "  feeds:\n"
        "    - {id: 'tap-a[1-8]', panel: busway-a, voltage: 415 V, current_rating: 250 A,"
        " path: A}\n"
    ),
    "designs/libs/rack-types.yaml": (
        "rack_types:\n"
        "  nvl72: {platform: gb200-nvl72, it_load: 120 kW, coolant_flow: 150 L/min}\n"
        "  nvl72-hot: {platform: gb200-nvl72, it_load: 130 kW, coolant_flow: 150 L/min}\n"
    ),
    "designs/halls/hall-1.yaml": (
        "name: hall-1\n"
        "extends: ../profiles/site-a.yaml\n"
        "include: [../libs/rack-types.yaml]\n"
        "racks:\n"
        "  - {id: 'h1-r[1-4]', type: nvl72, feeds: [tap-a$n]}\n"
    ),
    "designs/halls/hall-2.yaml": (
        "name: hall-2\n"
        "extends: ../profiles/site-a.yaml\n"
        "include: [../libs/rack-types.yaml]\n"
        "racks:\n"
        "  - {id: 'h2-r[1-2]', type: nvl72-hot, feeds: [tap-a$n]}\n"
    ),
    "designs/monitoring/prometheus.yaml": "global:\n  scrape_interval: 15s\n",
}
HOT = (  # the text line's words, which every one-line format prints (finding_message)
    "rack h2-r1 design IT load 130 kW exceeds the rack power limit"
    " (measured 130 kW, limit 120 kW)"
    " [2 racks of type nvl72-hot: h2-r[1-2]] [in 1 of 2 designs that read it: hall-2]"
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "infra"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    return root


def _readme_ci_line() -> list[str]:
    """The README's CI step that fails the job on errors (GitHub annotations)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = [ln.split("- run: ", 1)[1] for ln in readme.splitlines() if "- run: dclint" in ln]
    github = [ln.split("#")[0].split() for ln in lines if "--format github" in ln]
    assert github == [["dclint", "check", "designs/", "--format", "github"]]
    return github[0][1:]


def test_the_readme_ci_line_passes_fragments_and_skips_other_yaml_from_another_cwd(
    repo: Path,
) -> None:
    args = [a.replace("designs/", "../infra/designs/") for a in _readme_ci_line()]
    proc = dclint_here(*args, cwd=repo.parent / "elsewhere")
    assert proc.returncode == 1
    assert proc.stderr == ""
    assert proc.stdout.splitlines() == [
        "::error file=../infra/designs/libs/rack-types.yaml,line=3,col=47,"
        f"title=PWR001 rack-power-over-limit::{HOT}%0AFix: reduce the rack's load or spread it"
        " over more racks; if the hall is built for more, declare its envelope (site, hall or"
        " row `rack_power_limit`)",
        "Found 2 errors in 2 designs; skipped 1 file that is not a design (--show-files lists it).",
    ]


def _check(capsys: pytest.CaptureFixture[str], *args: str, cwd: Path) -> tuple[int, list[str], str]:
    old = os.getcwd()
    os.chdir(cwd)
    try:
        code = main(["check", *args])
    finally:
        os.chdir(old)
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_includes_resolve_from_the_including_file_inside_the_tree(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _check(capsys, "..", cwd=repo / "designs" / "halls")
    assert (code, err) == (1, "")
    assert out == [
        "../libs/rack-types.yaml:3:47: PWR001 [error] rack h2-r1 design IT load 130 kW exceeds"
        " the rack power limit (measured 130 kW, limit 120 kW)"
        " [2 racks of type nvl72-hot: h2-r[1-2]] [in 1 of 2 designs that read it: hall-2]",
        "Found 2 errors in 2 designs; skipped 1 file that is not a design (--show-files lists it).",
    ]


def test_show_files_lists_designs_fragments_and_skipped_files(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _check(capsys, ".", "--show-files", cwd=repo)
    assert (code, err) == (0, "")
    # issue 54: a fragment names every design that includes it
    part = "fragment of 2 designs: ./designs/halls/hall-1.yaml, ./designs/halls/hall-2.yaml"
    assert out == [
        "./designs/halls/hall-1.yaml: design",
        "./designs/halls/hall-2.yaml: design",
        f"./designs/libs/rack-types.yaml: {part}",
        "./designs/monitoring/prometheus.yaml: skipped, not a design",
        f"./designs/profiles/site-a.yaml: {part}",
        "./docker-compose.yaml: skipped, not a design",
    ]


def test_a_file_named_on_the_command_line_is_always_checked(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _check(capsys, "designs/libs/rack-types.yaml", cwd=repo)
    assert code == 2
    assert out == [
        "designs/libs/rack-types.yaml:1:1: error: missing required key 'name' in the design",
        "Found 1 load error in 1 design.",
    ]


def test_a_directory_without_designs_says_what_it_skipped(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _check(capsys, "designs/monitoring", cwd=repo)
    assert (code, out) == (2, [])
    assert err == (
        "dclint: error: no designs found in designs/monitoring (skipped 1 YAML file that is not"
        " a design: a design has a top-level `name` and design sections such as `racks`, or a"
        " `# dclint: design` line)\n"
    )


def test_an_include_outside_the_repository_names_its_root_and_the_fix(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo.parent / "shared.yaml").write_text("site: {pue: 1.2}\n", encoding="utf-8")
    hall = repo / "designs" / "halls" / "hall-1.yaml"
    hall.write_text(hall.read_text().replace("include: [", "include: [../../../shared.yaml, "))
    code, out, _ = _check(capsys, "designs/halls/hall-1.yaml", cwd=repo)
    assert code == 2
    assert out == [
        "designs/halls/hall-1.yaml:3:11: error: include '../../../shared.yaml' points outside"
        f" the repository root {repo} (the directory holding pyproject.toml): move the file"
        " inside it",
        "Found 1 load error in 1 design.",
    ]


def test_git_marks_the_repository_root_above_a_config(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a monorepo: .git at the top, this team's config lower down; includes may reach across
    (repo.parent / ".git").mkdir()
    (repo.parent / "shared.yaml").write_text("site: {pue: 1.2}\n", encoding="utf-8")
    hall = repo / "designs" / "halls" / "hall-1.yaml"
    hall.write_text(hall.read_text().replace("include: [", "include: [../../../shared.yaml, "))
    code, out, _ = _check(capsys, "designs/halls/hall-1.yaml", cwd=repo)
    assert (code, out) == (0, ["All checks passed: 1 design, no findings."])


@pytest.mark.parametrize(
    ("text", "design"),
    [
        ("name: hall\nracks: []\n", True),
        ('"name": hall\n"site": {pue: 1.2}\n', True),  # quoted keys
        ("name: hall\nextends: base.yaml\n", True),
        ("name: infra\nservices: {}\n", False),  # docker-compose
        ("name: ci\non: [push]\njobs: {}\n", False),  # a workflow
        ("name: x\ndescription: y\n", False),  # no design section
        ("racks:\n  - {id: r1, type: t}\n", False),  # a fragment: no name
        ("site:\n  name: hall\n  pue: 1.2\n", False),  # `name` nested, not top-level
        ("# dclint: design\nracks: []\n", True),  # the marker decides
        ("# dclint: fragment\nname: base\nracks: []\n", False),
        ("name: [unclosed\nracks: {\n", True),  # broken YAML: its error is reported
    ],
)
def test_what_says_it_is_a_design(text: str, design: bool) -> None:
    assert says_design(text) is design


def test_design_keys_are_the_models_top_level_sections() -> None:
    from dclint.model.design import Design

    assert set(Design.model_fields) - {"name", "description"} == DESIGN_KEYS


@functools.cache  # checked against the meta-schema and built once a process
def _validator(kind: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((ROOT / "schemas" / f"{kind}.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_fragment_schema_accepts_fragments_the_design_schema_refuses(repo: Path) -> None:
    for name in ("designs/profiles/site-a.yaml", "designs/libs/rack-types.yaml"):
        data, _ = read_yaml(name, (repo / name).read_text(encoding="utf-8"))
        assert list(_validator("fragment").iter_errors(data)) == []
        messages = [e.message for e in _validator("design").iter_errors(data)]
        assert messages == ["'name' is a required property"]
    # still strict: unknown keys, bare numbers, and an id to merge list items by
    bad = {"racks": [{"type": "nvl72", "it_load": 120, "colour": "red"}]}
    assert sorted(e.message for e in _validator("fragment").iter_errors(bad)) == [
        "'id' is a required property",
        "120 is not valid under any of the given schemas",
        "Additional properties are not allowed ('colour' was unexpected)",
    ]
