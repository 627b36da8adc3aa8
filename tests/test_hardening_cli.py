"""Issue 23, items 9-12 and 17: every flag given garbage ends in one error line (never a
traceback), and an output never destroys an input or replaces what it should write through."""

from __future__ import annotations

import argparse
import os
import re
import stat
import threading
from pathlib import Path

import pytest
from _hardening import SMALL, dclint_here

from dclint.cli import build_parser, main

SAMPLE = Path(__file__).resolve().parent.parent / "sample_designs" / "gb200-superpod-su.yaml"
GARBAGE = [
    "garbage",
    "",
    "-1",
    "0",
    "1e-300 kW",
    "-5 kW",
    "9" * 5000,
    "\x1b]0;x\x07\n::error::x",
    "racks[" + "9" * 5000 + "]=1",
    "racks.r[1-" + "9" * 30 + "].it_load=1 kW",
    "/dev/zero",
    ".",
    "nope/none.yaml",
    "x" * 300,
]
ERROR_LINE = re.compile(r"^(dclint( \w+)?: error: |\S+:\d+:\d+: error: )")
# the arguments each command needs besides the flag under test
BASE = {
    "check": ["d.yaml"],
    "cost": ["d.yaml"],
    "diff": ["d.yaml", "d.yaml"],
    "capacity": ["d.yaml", "--add", "gb200-nvl72"],
    "init": ["--platform", "gb200-nvl72", "--racks", "2"],
    "explain": ["PWR001"],
    "plan": ["d.yaml"],
}


def _flags() -> list[tuple[str, str]]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = []
    for name, command in sub.choices.items():
        for action in command._actions:
            if action.option_strings and action.nargs != 0:
                out.append((name, action.option_strings[-1]))
    return out


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)  # an exception here is the traceback the user would have seen
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "d.yaml").write_text(SMALL, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(("command", "flag"), _flags())
def test_every_flag_with_garbage_is_one_error_line_or_runs(
    work: Path, capsys: pytest.CaptureFixture[str], command: str, flag: str
) -> None:
    for value in GARBAGE:
        args = list(BASE.get(command, []))
        if flag in args:  # a required flag: give the garbage in its place
            at = args.index(flag)
            del args[at : at + 2]
        code, out, err = _run([command, *args, f"{flag}={value}"], capsys)
        assert code in (0, 1, 2), (value, code, err)
        # said on stderr, or located in the report (a design that does not load); a sweep
        # reports a value it cannot apply in its own row of the table, by design
        if code == 2 and flag != "--sweep":
            assert any(map(ERROR_LINE.match, (out + err).splitlines())), (value, out, err)
        for name in os.listdir(work):  # an output named by garbage is removed for the next run
            if name != "d.yaml":
                path = work / name
                if path.is_file() or path.is_symlink():
                    path.unlink()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--today", "garbage"], "--today 'garbage': expected a date, e.g. 2026-12-31"),
        (["--set", "racks[" + "9" * 5000 + "]=1"], "list index 99999999999999999999... is too"),
        (["--rules-dir", "x" * 5000], "not a directory"),
        (["-o", "."], "--output .: is a directory"),
        (["--write-baseline", "."], "--write-baseline .: is a directory"),
    ],
)
def test_garbage_that_used_to_raise(
    work: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = _run(["check", "d.yaml", *argv], capsys)
    assert code == 2
    [line] = [x for x in err.splitlines() if not x.startswith("dclint: --set:")]
    assert line.startswith("dclint: error: ") and message in line, line


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_a_full_disk_is_one_error_line(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["check", "d.yaml", "-o", "/dev/full"], capsys)
    assert (code, err) == (2, "dclint: error: --output /dev/full: No space left on device\n")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "d.yaml", "-o", "d.yaml"], "--output d.yaml is also an input"),
        (["check", ".", "-o", "d.yaml"], "--output d.yaml is a design being checked"),
        (["check", "d.yaml", "--baseline", "b.json", "-o", "b.json"], "is also an input"),
        (["check", "d.yaml", "--config", "c.yaml", "-o", "c.yaml"], "is also an input"),
        (
            ["check", "d.yaml", "--write-baseline", "b.json", "-o", "b.json"],
            "--write-baseline b.json is also --output",
        ),
        (["check", "d.yaml", "--write-baseline", "d.yaml"], "is also an input"),
        (["init", "--platform", "gb200-nvl72", "--racks", "2", "-o", "d.yaml", "--force"], ""),
    ],
)
def test_an_output_that_is_an_input_is_refused_and_nothing_changes(
    work: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    (work / "b.json").write_text('{"tool": "dclint", "version": 1, "findings": []}\n', "utf-8")
    (work / "c.yaml").write_text("select: [ALL]\n", "utf-8")
    before = {p.name: p.read_bytes() for p in work.iterdir()}
    code, _, err = _run(argv, capsys)
    if argv[0] == "init":  # init writes a design: the one output that may replace a design
        assert code == 0, err
        return
    assert code == 2
    assert err.startswith("dclint: error: ") and message in err, err
    assert {p.name: p.read_bytes() for p in work.iterdir()} == before


def test_output_to_dev_null_leaves_it_a_device(work: Path, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    code, _, _ = _run(["check", "d.yaml", "-o", os.devnull], capsys)
    assert code == 0
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_output_through_a_symlink_writes_its_target(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (work / "real.txt").write_text("old\n", "utf-8")
    (work / "link.txt").symlink_to("real.txt")
    assert _run(["check", "d.yaml", "-o", "link.txt"], capsys)[0] == 0
    assert (work / "link.txt").is_symlink()
    assert (work / "real.txt").read_text("utf-8") == "All checks passed: 1 design, no findings.\n"


def test_output_keeps_an_existing_files_mode(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = work / "report.txt"
    report.write_text("old\n", "utf-8")
    report.chmod(0o600)
    assert _run(["check", "d.yaml", "-o", "report.txt"], capsys)[0] == 0
    assert stat.S_IMODE(report.stat().st_mode) == 0o600
    assert report.read_text("utf-8").startswith("All checks passed")
    umask = os.umask(0o022)
    try:
        assert _run(["check", "d.yaml", "-o", "new.txt"], capsys)[0] == 0
    finally:
        os.umask(umask)
    assert stat.S_IMODE((work / "new.txt").stat().st_mode) == 0o644


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_output_to_a_fifo_is_written_into_it(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(work / "pipe")
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append((work / "pipe").read_bytes()))
    reader.start()
    assert _run(["check", "d.yaml", "-o", "pipe"], capsys)[0] == 0
    reader.join(10)
    assert got == [b"All checks passed: 1 design, no findings.\n"]
    assert stat.S_ISFIFO(os.stat(work / "pipe").st_mode)


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--rack-load", "-5 kW", "--rack-load '-5 kW': power must be greater than zero"),
        ("--rack-load", "0 kW", "--rack-load '0 kW': power must be greater than zero"),
        ("--rack-load", "1e-5 kW", "--rack-load '1e-5 kW': a rack load under 0.1 kW"),
        ("--rack-load", "1e-300 kW", "--rack-load '1e-300 kW': power 1e-300 kW is out of range"),
        ("--rack-load", "130 kg", "expected power, e.g. '120 kW', got a value in 'kg'"),
        ("--nodes", "0", "--nodes '0': must be greater than 0, got 0"),
        ("--nodes", "-1", "--nodes '-1': must be greater than 0, got -1"),
    ],
)
def test_capacity_flags_are_validated_as_design_values(
    work: Path, capsys: pytest.CaptureFixture[str], flag: str, value: str, message: str
) -> None:
    argv = ["capacity", str(SAMPLE), "--add", "gb200-nvl72", f"{flag}={value}"]
    code, out, err = _run(argv, capsys)
    assert (code, out) == (2, "")
    assert err.startswith("dclint: error: ") and message in err, err


GPUS64 = ("--set", "workloads[0].gpus=64")  # the grid's layout search on 64 GPUs, not 320


@pytest.mark.parametrize(
    "argv",
    [
        ("check", "plugin-rule-raises.yaml", "--sweep", "racks[0].it_load=10kW,20kW"),
        ("plan", "../../sample_designs/h100-40node.yaml", "--vary", "site.pue=1.2,1.3", *GPUS64),
    ],
)
def test_a_crashing_rule_is_exit_2_in_a_grid(argv: tuple[str, ...]) -> None:
    """Issue 27, item 14: a rule that raises is exit 2 in `check --sweep` and `plan --vary`, as
    in `check`; each point says which rule failed."""
    corpus = Path(__file__).resolve().parent / "corpus"
    proc = dclint_here(*argv, "--rules-dir", "plugins", cwd=corpus)
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout.count("error: rule TST901 failed on ") == 2, proc.stdout
