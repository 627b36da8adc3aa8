"""Every report format: every sample design in one run, escaping, empty runs, load errors."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from dclint.analysis.assess.assessment import assess
from dclint.cli import main
from dclint.engine.findings import RunResult
from dclint.engine.runner import Engine
from dclint.report import FORMATS, formatter
from dclint.report.view import View

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "sample_designs").glob("*.yaml"))
NAME = 'Hall "A": 数据中心 <b>&amp; 100%'
NEEDS_MPL = {"html"}


def odd_design(tmp_path: Path) -> Path:
    """The GB200 sample renamed with quotes, a colon, non-ASCII and markup, one rack at 130 kW,
    in a file whose name has a comma, a colon and non-ASCII."""
    text = (ROOT / "sample_designs" / "gb200-superpod-su.yaml").read_text(encoding="utf-8")
    text = text.replace("name: gb200-superpod-su", f"name: {json.dumps(NAME)}", 1)
    text = text.replace("    it_load: 120 kW\n", "    it_load: 130 kW\n", 1)
    path = tmp_path / "设计 a,b:c.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def broken_design(tmp_path: Path) -> Path:
    path = tmp_path / "broken.yaml"
    path.write_text("name: broken\nracks:\n  - id: r1\n    it_load: twelve\n", encoding="utf-8")
    return path


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["check", *args, "--today", "2026-12-02"])
    return code, capsys.readouterr().out


def _skip_without(fmt: str) -> None:
    if fmt in NEEDS_MPL:
        pytest.importorskip("numpy")  # the html extra


def test_every_format_is_registered() -> None:
    from dclint.cli import FORMAT_NAMES

    assert set(FORMATS) == set(FORMAT_NAMES)


# every sample checked again for each format: the default tier prints them as text, JSON,
# Markdown and HTML; the other formats' renderers meet real findings in the integration tier
# and small runs here (test_empty_run, test_load_error_is_reported, test_odd_names...)
SAMPLE_RUN_FORMATS = {"text", "json", "markdown", "html"}


@pytest.mark.parametrize(
    "fmt",
    [
        f if f in SAMPLE_RUN_FORMATS else pytest.param(f, marks=pytest.mark.integration)
        for f in sorted(FORMATS)
    ],
)
def test_every_sample_design_in_one_run(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    _skip_without(fmt)
    code, out = run_cli([*map(str, SAMPLES), "--format", fmt], capsys)
    assert code == 1  # the broken-* samples have errors
    if fmt in ("json", "sarif"):
        json.loads(out)
    if fmt == "junit":
        assert len(ET.fromstring(out).findall("testsuite")) == len(SAMPLES)
    for rule in ("NET001", "PWR001", "PWR002", "STO001"):
        assert rule in out
    if fmt in ("markdown", "html"):
        for sample in SAMPLES:
            assert sample.stem in out  # each sample's `name` is its file stem


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_empty_run(fmt: str) -> None:
    _skip_without(fmt)
    out = formatter(fmt)(assess(RunResult(), Engine()), View())
    assert isinstance(out, str)
    if fmt in ("json", "sarif"):
        json.loads(out)
    if fmt == "junit":
        assert ET.fromstring(out).get("tests") == "0"


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_load_error_is_reported(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _skip_without(fmt)
    broken = broken_design(tmp_path)
    code, out = run_cli(
        [str(broken), str(ROOT / "sample_designs" / "gb200-superpod-su.yaml"), "--format", fmt],
        capsys,
    )
    assert code == 2
    assert "twelve" in out  # the loader quotes the bad value


@pytest.mark.parametrize("fmt", ["json", "sarif", "junit", "markdown", "html"])
def test_odd_names_survive_escaping(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _skip_without(fmt)
    code, out = run_cli([str(odd_design(tmp_path)), "--format", fmt], capsys)
    assert code == 1
    if fmt in ("json", "sarif"):
        data = json.loads(out)
        if fmt == "json":
            assert data["designs"][0]["name"] == NAME
    elif fmt == "junit":
        assert ET.fromstring(out).find("testsuite").get("name") == NAME  # type: ignore[union-attr]
    elif fmt == "html":
        assert "Hall &quot;A&quot;: 数据中心 &lt;b&gt;&amp;amp; 100%" in out
        assert "<b>" not in out
    else:
        assert 'Hall "A": 数据中心 \\<b\\>\\&amp; 100%' in out
    assert "PWR001" in out
