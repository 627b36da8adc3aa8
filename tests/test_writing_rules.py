"""docs/writing-rules.md works as written: its files, written out, are a rule pack whose rule
the example checker (dclint.testing) passes and `dclint check` reports as the page says; in the
integration tier the pack is built into a wheel, installed, and run through its entry point."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from dclint.cli import main
from dclint.testing import check_doc, check_examples, example_problems

DOC = (ROOT / "docs" / "writing-rules.md").read_text(encoding="utf-8")
FILES = dict(re.findall(r"^```\w+ file=(\S+)\n(.*?)^```", DOC, re.M | re.S))
PRINTS = re.search(r"`dclint check` prints[^\n]*\n[^\n]*\n\n```text\n(.*?)```", DOC, re.S)
RULE = "dclint_house_rules/xhs001_rack_over_house_limit.py"
EXAMPLES = "dclint_house_rules/examples/xhs001"


def _write(folder: Path) -> Path:
    for name, text in FILES.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def _rule_class(folder: Path) -> type:
    spec = importlib.util.spec_from_file_location("walkthrough_xhs001", folder / RULE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its docstring is the rule's doc
    spec.loader.exec_module(module)
    rule: type = module.RackOverHouseLimit
    return rule


def test_the_page_names_every_file_of_its_tree() -> None:
    assert set(FILES) == {
        "pyproject.toml",
        "dclint_house_rules/__init__.py",
        RULE,
        f"{EXAMPLES}/good.yaml",
        f"{EXAMPLES}/bad.yaml",
        "tests/test_rules.py",
    }
    assert PRINTS is not None


def test_the_rule_passes_the_example_checker(tmp_path: Path) -> None:
    folder = _write(tmp_path)
    rule = _rule_class(folder)
    check_doc(rule)
    check_examples(rule, folder / EXAMPLES)
    # the checker can fail: a bad example whose mark is on the wrong line
    bad = folder / EXAMPLES / "bad.yaml"
    bad.write_text(bad.read_text().replace("  # expect: XHS001", ""), encoding="utf-8")
    assert example_problems(rule, folder / EXAMPLES) == [
        "bad.yaml: marks no XHS001 finding",
        "bad.yaml: missing [], unexpected [('XHS001', 6)]",
    ]


def test_check_prints_what_the_page_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _write(tmp_path)
    monkeypatch.chdir(folder)
    code = main(["check", "--rules-dir", "dclint_house_rules", f"{EXAMPLES}/bad.yaml"])
    assert PRINTS is not None
    assert (code, capsys.readouterr().out) == (0, PRINTS.group(1))  # a warning fails nothing


@pytest.mark.integration  # builds a wheel and installs it with pip
def test_the_pack_builds_installs_and_runs(tmp_path: Path) -> None:
    folder = _write(tmp_path / "dclint-house-rules")
    dist, site = tmp_path / "dist", tmp_path / "site"
    build = [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(folder)]
    subprocess.run(build, check=True, capture_output=True, cwd=tmp_path)
    (wheel,) = dist.glob("dclint_house_rules-0.1.0-*.whl")
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site)]
    subprocess.run([*pip, str(wheel)], check=True, capture_output=True)
    env = {**os.environ, "PYTHONPATH": str(site)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, *args], cwd=folder, env=env, capture_output=True, text=True
        )

    listed = run("-m", "dclint", "rules")
    assert "XHS001" in listed.stdout and "rack-over-house-limit" in listed.stdout
    checked = run("-m", "dclint", "check", f"{EXAMPLES}/bad.yaml")
    assert PRINTS is not None
    assert (checked.returncode, checked.stdout) == (0, PRINTS.group(1)), checked.stderr
    tested = run("-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "tests")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "2 passed" in tested.stdout
