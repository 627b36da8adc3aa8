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


SNIPPETS = dict(re.findall(r"^```python example=(\S+)\n(.*?)^```", DOC, re.M | re.S))


def _snippet(name: str) -> dict[str, object]:
    namespace: dict[str, object] = {"__name__": f"writing_rules_{name}"}
    exec(compile(SNIPPETS[name], f"writing-rules.md:{name}", "exec"), namespace)
    return namespace


def _bad_design(tmp_path: Path) -> object:
    from dclint.loader import load

    path = tmp_path / "bad.yaml"
    path.write_text(FILES[f"{EXAMPLES}/bad.yaml"], encoding="utf-8")
    return load(str(path))


def test_the_fixes_section_offers_the_change_it_describes(tmp_path: Path) -> None:
    """The page's `Change` example: rack r02 (41 kW written on the rack) gets one unsafe
    change, its it_load to 40 kW at racks[1].it_load."""
    from dclint.api import Q_, Change, Context

    rule = _snippet("fixes")["RackCappedAtHouseLimit"]
    found = list(rule().check(_bad_design(tmp_path), Context({"limit": Q_(40, "kW")})))  # type: ignore[operator]
    assert [(v.subject, v.path) for v in found] == [("r02", ("racks", 1, "it_load"))]
    assert found[0].changes == (
        Change("40 kW", "rack r02 it_load -> 40 kW", path=("racks", 1, "it_load")),
    )
    assert not found[0].changes[0].safe


def test_the_needs_and_remedy_section_works_as_written(tmp_path: Path) -> None:
    """The page's `needs`/`remedy` example: it does not apply to a design with no workload;
    on the 40-node sample (9.1 s saves) a 5 s limit flags llm-13b, and fixing it scales the
    run's checkpoint time by 5/9.1."""
    from types import SimpleNamespace

    from dclint.api import Q_, Context, facts
    from dclint.loader import load

    rule = _snippet("remedy")["CheckpointSaveTooSlow"]
    assert rule.inapplicable(_bad_design(tmp_path)) == "the design declares no training workload"  # type: ignore[attr-defined]
    assert rule.priced()  # type: ignore[attr-defined]
    design = load(str(ROOT / "sample_designs" / "h100-40node.yaml"))
    options = {"limit": Q_(5, "s")}
    found = list(rule().check(design, Context(options)))  # type: ignore[operator]
    assert [(v.subject, round(v.measured.m_as("s"), 3)) for v in found] == [("llm-13b", 9.1)]
    assert list(rule().check(design, Context({"limit": Q_(60, "s")}))) == []  # type: ignore[operator]
    projection = facts(design).projections[0]
    remedy = rule.remedy(design, SimpleNamespace(subject="llm-13b"), projection, options)  # type: ignore[attr-defined]
    assert remedy.running == 1.0
    assert remedy.checkpoint == pytest.approx(5 / 9.1, rel=1e-3)


def test_the_attribute_form_declares_the_walkthrough_rule(tmp_path: Path) -> None:
    """The page's class-attribute example is the walkthrough's `@rule` rule, field for field."""
    decorated = _rule_class(_write(tmp_path))
    attributes = _snippet("attributes")["RackOverHouseLimit"]
    keys = ("id", "name", "severity", "tags", "consequence", "covers", "needs", "options")
    assert [getattr(attributes, k) for k in keys] == [getattr(decorated, k) for k in keys]
    assert (decorated.id, decorated.severity, decorated.tags) == ("XHS001", "warning", ("power",))  # type: ignore[attr-defined]
