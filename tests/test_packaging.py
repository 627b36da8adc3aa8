"""The wheel ships the rule pack and data; the pre-commit hook works through real pre-commit."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from conftest import ROOT

# builds a wheel with pip and runs the pre-commit hook in real repositories
pytestmark = pytest.mark.integration

BAD = "name: hot\nracks:\n  - {id: r1, platform: gb200-nvl72, it_load: 130 kW}\n"
LIBRARY = "rack_types:\n  nvl72: {{platform: gb200-nvl72, it_load: {load}}}\n"
HALL = "name: {name}\ninclude: [../libs/racks.yaml]\nracks:\n  - {{id: r1, type: nvl72}}\n"
GOOD = "name: ok\nracks:\n  - {id: r1, platform: gb200-nvl72, it_load: 120 kW}\n"


def test_wheel_contains_rules_examples_and_data(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
        cwd=tmp_path,
    )
    (wheel,) = tmp_path.glob("dclint-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    rule_files = {p.relative_to(ROOT / "rules").as_posix() for p in (ROOT / "rules").rglob("*")}
    shipped = {f"dclint/rules/{n}" for n in rule_files if n.endswith((".py", ".yaml", ".yml"))}
    assert len(shipped) > 200 and shipped <= names  # every family's modules and examples
    assert "dclint/rules/power/examples/pwr001/bad.yaml" in names
    assert "dclint/rules/layout/examples/par005/.dclint.yml" in names
    assert {"dclint/data/catalog.yaml", "dclint/data/units.txt", "dclint/cli/__init__.py"} <= names
    # every module of the package, sub-packages too (dclint.policy was left out of the wheel)
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "dclint").rglob("*.py")}
    assert modules - names == set()
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "[dclint.rules]" in text and "builtin = dclint.rules" in text
    assert "dclint = dclint.cli:run" in text
    assert not any(n.startswith(("tests/", "rules/", "sample_designs/")) for n in names)


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if _exe() is None:
        pytest.fail("pre-commit is not installed (it is in the test extra)")
    repo = tmp_path_factory.mktemp("infra")
    (repo / "designs").mkdir()
    (repo / "designs" / "bad.yaml").write_text(BAD)
    (repo / "designs" / "good.yaml").write_text(GOOD)
    # not a design (a compose file): the hook is passed it and skips it silently
    (repo / "notes.yaml").write_text("services:\n  web: {image: nginx}\n")
    # issue 54: three halls include a rack library kept outside designs/
    (repo / "libs").mkdir()
    (repo / "libs" / "racks.yaml").write_text(LIBRARY.format(load="120 kW"))
    for hall in ("hall-a", "hall-b", "hall-c"):
        (repo / "designs" / f"{hall}.yaml").write_text(HALL.format(name=hall))
    # an archived design the config excludes: pre-commit --all-files passes it, dclint skips it
    (repo / "designs" / "archive").mkdir()
    (repo / "designs" / "archive" / "old.yaml").write_text(BAD)
    (repo / ".dclint.yaml").write_text('exclude: ["designs/archive/*"]\n')
    for args in (
        ["init", "-q"],
        ["add", "."],
        ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"],
    ):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    return repo


def _exe() -> str | None:
    beside = Path(sys.executable).parent / "pre-commit"
    return str(beside) if beside.exists() else shutil.which("pre-commit")


def _try_repo(repo: Path, *files: str) -> subprocess.CompletedProcess[str]:
    exe = _exe()
    assert exe is not None
    env = {**os.environ, "PRE_COMMIT_HOME": str(repo.parent / "pre-commit-home")}
    return subprocess.run(
        [exe, "try-repo", str(ROOT), "dclint", "--files", *files],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def test_pre_commit_hook_fails_on_a_broken_design(hook_repo: Path) -> None:
    proc = _try_repo(hook_repo, "designs/bad.yaml")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "designs/bad.yaml:3:46: PWR001 [error]" in proc.stdout


def test_pre_commit_hook_passes_a_clean_design(hook_repo: Path) -> None:
    proc = _try_repo(hook_repo, "designs/good.yaml", "notes.yaml")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Passed" in proc.stdout


def test_pre_commit_hook_fails_a_library_edit_that_breaks_three_halls(hook_repo: Path) -> None:
    """Issue 54, item 1: the published hook passes a fragment outside designs/ to dclint, which
    checks the three halls including it."""
    library = hook_repo / "libs" / "racks.yaml"
    library.write_text(LIBRARY.format(load="130 kW"))
    try:
        proc = _try_repo(hook_repo, "libs/racks.yaml")
    finally:
        library.write_text(LIBRARY.format(load="120 kW"))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "libs/racks.yaml:2:43: PWR001 [error]" in proc.stdout
    assert "Skipped" not in proc.stdout


def test_pre_commit_hook_keeps_an_excluded_design_excluded(hook_repo: Path) -> None:
    """Issue 54, item 1: the config's exclude holds for the files pre-commit passes."""
    proc = _try_repo(hook_repo, "designs/archive/old.yaml", "designs/good.yaml")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Passed" in proc.stdout


def test_the_hook_runs_the_installed_package_not_a_dclint_folder_in_the_repository(
    hook_repo: Path,
) -> None:
    """Issue 27, item 1: a `dclint/` folder committed in the checked repository is not imported
    by the hook (`python -m` would put the working directory first on sys.path)."""
    planted = hook_repo / "dclint"
    (planted / "cli").mkdir(parents=True)
    for name in ("__init__.py", "cli/__init__.py", "cli/precommit.py", "__main__.py"):
        (planted / name).write_text("print('PLANTED CODE RAN')\nraise SystemExit(0)\n")
    try:
        proc = _try_repo(hook_repo, "designs/bad.yaml")
    finally:
        shutil.rmtree(planted)
    assert "PLANTED CODE RAN" not in proc.stdout + proc.stderr
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "designs/bad.yaml:3:46: PWR001 [error]" in proc.stdout


def test_the_hook_entry_is_a_console_script() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert [h["entry"] for h in hooks] == ["dclint-pre-commit"]
    assert "python -m dclint" not in (ROOT / "README.md").read_text()
