"""Issue 27, items 9, 11, 12, 13 and 15: includes and design paths that cannot be resolved,
numbers that would overflow, file names that are not UTF-8, the what-if page's policy."""

from __future__ import annotations

import json
import os
import xml.dom.minidom
from pathlib import Path

import pytest
from _hardening import SMALL, dclint, dclint_here

from dclint.cli import main
from dclint.cli.precommit import main as hook
from dclint.escaping import HTML_CSP, finite_json

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_designs" / "h100-40node.yaml"


def _repo(tmp_path: Path, include: str) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "d.yaml").write_text(f"include: [{include}]\n{SMALL}", encoding="utf-8")
    return tmp_path


def test_an_include_through_a_symlink_loop_is_a_finding_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(_repo(tmp_path, "loop1.yaml"))
    (tmp_path / "loop1.yaml").symlink_to("loop2.yaml")
    (tmp_path / "loop2.yaml").symlink_to("loop1.yaml")
    expected = [
        "d.yaml:1:11: error: include 'loop1.yaml': symbolic link loop",
        "Found 1 load error in 1 design.",
    ]
    assert main(["check", "d.yaml"]) == 2
    assert capsys.readouterr().out.splitlines() == expected
    # the hook (which reads every YAML of the repository for includes) says the same, and
    # names the changed link itself (a file that cannot be read is checked, to say why)
    assert hook(["d.yaml", "loop1.yaml"]) == 2
    assert capsys.readouterr().out.splitlines() == [
        "loop1.yaml:1:1: error: cannot read file: symbolic link loop",
        expected[0],
        "Found 2 load errors in 2 designs.",
    ]


def test_an_include_whose_name_is_too_long_is_a_finding_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    name = "/".join(["a" * 200] * 30) + ".yaml"
    monkeypatch.chdir(_repo(tmp_path, name))
    assert hook(["d.yaml"]) == 2
    assert capsys.readouterr().out.splitlines() == [
        f"d.yaml:1:11: error: include '{'a' * 100}...{name[-16:]}': cannot read file: File "
        "name too long",
        "Found 1 load error in 1 design.",
    ]


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("d" * 300 + ".yaml", "File name too long"),
        ("/".join(["e" * 200] * 25) + ".yaml", "File name too long"),
    ],
)
def test_a_design_path_that_cannot_be_resolved_is_one_located_error(
    name: str, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", name]) == 2
    out = capsys.readouterr()
    assert out.out.splitlines() == [
        f"{name}:1:1: error: cannot read file: {reason}",
        "Found 1 load error in 1 design.",
    ]
    assert hook([name]) == 2
    assert (
        capsys.readouterr().out.splitlines()[0] == f"{name}:1:1: error: cannot read file: {reason}"
    )


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0,
    reason="running as root: chmod 000 does not stop root from searching the directory",
)
def test_a_design_under_an_unsearchable_directory(tmp_path: Path) -> None:
    (tmp_path / "locked" / "in").mkdir(parents=True)
    (tmp_path / "locked" / "in" / "d.yaml").write_text(SMALL, encoding="utf-8")
    (tmp_path / "locked").chmod(0)
    try:
        proc, _ = dclint("check", "locked/in/d.yaml", cwd=tmp_path)
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert proc.returncode == 2
    assert proc.stdout.splitlines() == [
        "locked/in/d.yaml:1:1: error: cannot read file: Permission denied",
        "Found 1 load error in 1 design.",
    ]


def test_an_unexpected_path_error_names_the_path_not_the_output(tmp_path: Path) -> None:
    proc, _ = dclint(
        "check", "d.yaml", cwd=tmp_path, env={"PYTHONPATH": f"{ROOT}:{ROOT / 'tests'}"}
    )
    assert proc.returncode == 2  # not found: the ordinary located error
    from dclint.cli import finish

    def raises() -> int:
        raise PermissionError(13, "Permission denied", "/srv/x/.dclint.yaml")

    child = os.fork()
    if child == 0:  # finish() ends its process: run it in a child, stderr to a file
        import sys

        sys.stderr = open(tmp_path / "err", "w", encoding="utf-8")  # noqa: SIM115
        finish(raises)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 2
    assert (tmp_path / "err").read_text(encoding="utf-8") == (
        "dclint: error: /srv/x/.dclint.yaml: Permission denied\n"
    )


def test_tiny_values_never_make_infinity_and_json_has_no_nan(tmp_path: Path) -> None:
    assert finite_json({"a": float("inf"), "b": [float("nan"), 1.5], "c": (2, "x")}) == (
        '{\n  "a": null,\n  "b": [\n    null,\n    1.5\n  ],\n  "c": [\n    2,\n    "x"\n  ]\n}\n'
    )
    proc = dclint_here(
        "check", str(SAMPLE), "--format", "json", "--set",
        "workloads.llm-13b.checkpoint.interval=5e-324 h", cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["designs"][0]["errors"][0]["message"] == (
        "workloads[0].checkpoint.interval: duration 5e-324 h is out of range (too small): a "
        "nonzero magnitude is at least 1e-21 in the unit written "
        "(value set by --set workloads.llm-13b.checkpoint.interval=5e-324 h)"
    )


@pytest.mark.parametrize("fmt", ["json", "sarif", "junit"])
def test_a_file_name_that_is_not_utf8_keeps_every_format_valid(
    tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    name = os.fsdecode(b"bad\xff.yaml")
    Path(name).write_text(SMALL.replace("120 kW", "130 kW"), encoding="utf-8")
    assert main(["check", ".", "--select", "PWR001", "--format", fmt, "-o", "out"]) == 1
    text = Path("out").read_text(encoding="utf-8")
    if fmt == "junit":
        xml.dom.minidom.parseString(text)
        assert 'file="./bad\\udcff.yaml"' in text
    elif fmt == "sarif":
        result = json.loads(text)["runs"][0]["results"][0]
        location = result["locations"][0]["physicalLocation"]["artifactLocation"]
        assert location == {"uri": "bad%FF.yaml", "uriBaseId": "%SRCROOT%"}
    else:
        assert json.loads(text)["designs"][0]["file"] == "./bad\\udcff.yaml"


def test_a_baseline_of_a_file_name_that_is_not_utf8_reads_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path(os.fsdecode(b"bad\xff.yaml")).write_text(SMALL.replace("120", "130"), encoding="utf-8")
    assert main(["check", ".", "--select", "PWR001", "--write-baseline", "b.json"]) == 0
    assert '"file": "bad\\udcff.yaml"' in Path("b.json").read_text(encoding="utf-8")
    assert main(["check", ".", "--select", "PWR001", "--baseline", "b.json"]) == 0
    assert capsys.readouterr().out.endswith("no findings; 1 finding waived.\n")


def test_the_what_if_page_carries_the_reviews_content_security_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the sample's workload on 64 of its GPUs: the pages' heads do not depend on the world size,
    # and the layout searches of the grid and the review cost a third of those on 320
    sample = [str(SAMPLE), "--set", "workloads[0].gpus=64"]
    code = main(["plan", *sample, "--vary", "site.pue=1.2,1.3", "--jobs", "1", "--format", "html"])
    assert code == 0
    page = capsys.readouterr().out
    assert page.count(f'<meta http-equiv="Content-Security-Policy" content="{HTML_CSP}">') == 1
    assert main(["review", *sample, "--format", "html", "-o", str(tmp_path / "r.html")]) == 0
    assert f'content="{HTML_CSP}"' in (tmp_path / "r.html").read_text(encoding="utf-8")
