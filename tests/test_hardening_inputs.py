"""Issue 23, items 6-8: inputs that are small but never finish (include diamonds, FIFOs, devices,
a backtracking regex over pyproject.toml) answer quickly or are refused with exit 2."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from _hardening import LIMIT_S, SMALL, dclint, dclint_here, error_lines

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def _diamond(tmp_path: Path, depth: int) -> Path:
    """design.yaml includes f0, and each f<i> includes f<i+1> three times: `depth` files in
    all, the design included. Read naively, the bottom file is read 3**(depth-2) times."""
    files = depth - 1
    for i in range(files):
        body = (
            "name: leaf\n"
            if i == files - 1
            else f"include: [{', '.join([f'f{i + 1}.yaml'] * 3)}]\n"
        )
        (tmp_path / f"f{i}.yaml").write_text(body, encoding="utf-8")
    design = tmp_path / "design.yaml"
    design.write_text("include: [f0.yaml]\n" + SMALL, encoding="utf-8")
    return design


@pytest.mark.integration  # wall-clock bound
def test_an_include_diamond_reads_each_file_once(tmp_path: Path) -> None:
    _diamond(tmp_path, 16)  # the deepest allowed: 3**14 reads of the bottom file, naively
    proc, took = dclint("check", "design.yaml", cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert took < LIMIT_S


@pytest.mark.integration  # wall-clock bound
def test_an_include_diamond_one_level_too_deep_is_an_error(tmp_path: Path) -> None:
    _diamond(tmp_path, 17)
    proc, took = dclint("check", "design.yaml", cwd=tmp_path, timeout=120)
    lines = error_lines(proc)
    assert lines[0] == "f14.yaml:1:11: error: includes nested deeper than 16 files"
    assert took < LIMIT_S


def test_a_file_reached_again_deeper_still_counts_its_depth(tmp_path: Path) -> None:
    # a.yaml includes the chain c1 .. c14 directly (resolved at depth 2: 15 files, fine) and
    # again through b.yaml, where the same chain would make 17 files
    for i in range(1, 15):
        body = "name: x\n" if i == 14 else f"include: c{i + 1}.yaml\n"
        (tmp_path / f"c{i}.yaml").write_text(body, encoding="utf-8")
    (tmp_path / "b.yaml").write_text("include: b2.yaml\n", encoding="utf-8")
    (tmp_path / "b2.yaml").write_text("include: c1.yaml\n", encoding="utf-8")
    (tmp_path / "design.yaml").write_text("include: [c1.yaml, b.yaml]\n" + SMALL, "utf-8")
    proc = dclint_here("check", "design.yaml", cwd=tmp_path)
    assert error_lines(proc) == ["b2.yaml:1:10: error: includes nested deeper than 16 files"]


@pytest.mark.integration  # wall-clock bound
@needs_fifo
@pytest.mark.parametrize("how", ["given", "included", "searched"])
def test_a_fifo_named_yaml_is_refused_not_waited_on(tmp_path: Path, how: str) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")
    include = "include: pipe.yaml\n" if how == "included" else ""
    (tmp_path / "design.yaml").write_text(include + SMALL, encoding="utf-8")
    target = {"given": "pipe.yaml", "included": "design.yaml", "searched": "."}[how]
    proc, took = dclint("check", target, cwd=tmp_path, timeout=20)
    lines = error_lines(proc)
    message = "is a FIFO (named pipe), not a design file"
    assert lines == [f"{'./' if how == 'searched' else ''}pipe.yaml:1:1: error: {message}"]
    assert took < LIMIT_S


@pytest.mark.integration  # wall-clock bound
@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("--config", "/dev/zero: is a character device, not a config file"),
        ("--baseline", "--baseline /dev/zero: is a character device, not a baseline file"),
    ],
)
def test_a_device_as_config_or_baseline_is_refused(tmp_path: Path, flag: str, message: str) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    (tmp_path / "design.yaml").write_text(SMALL, encoding="utf-8")
    proc, took = dclint("check", "design.yaml", flag, "/dev/zero", cwd=tmp_path, timeout=20)
    assert error_lines(proc) == [f"dclint: error: {message}"]
    assert took < LIMIT_S


@pytest.mark.integration  # wall-clock bound
@needs_fifo
@pytest.mark.parametrize("flag", ["--config", "--baseline"])
def test_a_fifo_as_config_or_baseline_is_refused(tmp_path: Path, flag: str) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "design.yaml").write_text(SMALL, encoding="utf-8")
    proc, took = dclint("check", "design.yaml", flag, "pipe", cwd=tmp_path, timeout=20)
    [line] = error_lines(proc)
    assert "pipe: is a FIFO (named pipe), not a " in line
    assert took < LIMIT_S


@pytest.mark.parametrize(
    ("name", "limit"),
    [("design.yaml", 10 * 1024 * 1024), ("base.json", 64 * 1024 * 1024)],
)
def test_inputs_over_their_size_limit_are_refused_unread(
    tmp_path: Path, name: str, limit: int
) -> None:
    (tmp_path / "design.yaml").write_text(SMALL, encoding="utf-8")
    with open(tmp_path / name, "ab") as handle:  # sparse: costs no disk
        handle.truncate(limit + 1)
    args = ("design.yaml",) if name == "design.yaml" else ("design.yaml", "--baseline", name)
    proc = dclint_here("check", *args, cwd=tmp_path)
    kind = "design" if name == "design.yaml" else "baseline"
    [line] = error_lines(proc)
    assert line.endswith(f"file is over the {limit:,}-byte limit for a {kind}"), line


def test_a_config_over_the_limit_is_refused(tmp_path: Path) -> None:
    (tmp_path / "design.yaml").write_text(SMALL, encoding="utf-8")
    with open(tmp_path / "big.yaml", "ab") as handle:
        handle.truncate(10 * 1024 * 1024 + 1)
    proc = dclint_here("check", "design.yaml", "--config", "big.yaml", cwd=tmp_path)
    assert error_lines(proc) == [
        "dclint: error: big.yaml: file is over the 10,485,760-byte limit for a config"
    ]


@pytest.mark.integration  # wall-clock bound
@pytest.mark.parametrize(
    "line",
    [
        "[" + " " * 4000,  # the backtracking case
        "[tool.dclint.X" + " " * 4000,
        '"a" ' * 20000,
        "a" * 100000,
        "PWR001 = { " + "x = 1, " * 20000 + "}",
    ],
)
def test_pyproject_positions_are_found_in_linear_time(tmp_path: Path, line: str) -> None:
    (tmp_path / "design.yaml").write_text(SMALL, encoding="utf-8")
    text = f'[tool.dclint]\nselect = ["PWR"]\n[tool.x]\nnote = """\n{line}\n"""\n'
    text += "[tool.dclint.PWR001]\nmaximum = 1\n"
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    proc, took = dclint("check", "design.yaml", cwd=tmp_path)
    # the error names the line of the bad option, found past the hostile one
    [error] = error_lines(proc)
    assert error.endswith(
        "pyproject.toml:8:1: rule PWR001 has no option 'maximum' (options: limit, platform_limits)"
    )
    assert took < LIMIT_S


def test_pyproject_positions_skip_multiline_strings() -> None:
    from dclint.engine.toml_positions import toml_positions

    text = (
        '[tool.dclint]\nselect = ["PWR"]\nx = """\n[tool.dclint.FAKE]\nlimit = 1\n"""\n'
        '  PWR001 = { limit = "132 kW", "severity" = "warning" }\n[tool.dclint.NET001]\n'
        "limit = 2\n[tool.other]\nz = 1\n"
    )
    assert toml_positions(text) == {
        "select": (2, 1),
        "x": (3, 1),
        "PWR001": (7, 3),
        "PWR001.limit": (7, 14),
        "PWR001.severity": (7, 32),
        "NET001": (8, 2),
        "NET001.limit": (9, 1),
    }


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"[" * 100000, "JSON nested too deeply"),
        (b'{"findings": [], "version": ' + b"9" * 5000 + b"}", "Exceeds the limit"),
        (b'{"findings": [], "version": 1, "x": "\xff"}', "not valid UTF-8 (byte 37)"),
    ],
)
def test_a_hostile_baseline_is_one_error_line(tmp_path: Path, content: bytes, reason: str) -> None:
    (tmp_path / "design.yaml").write_text(SMALL, encoding="utf-8")
    (tmp_path / "b.json").write_bytes(content)
    [line] = error_lines(dclint_here("check", "design.yaml", "--baseline", "b.json", cwd=tmp_path))
    assert line.startswith("dclint: error: ") and reason in line, line
    json.dumps(line)  # a plain line
