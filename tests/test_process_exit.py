"""The console script's exit: output flushed, the exit code kept, no teardown, and a reader
that stops early (`dclint check | head`) ends the run without a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # how a real `dclint` process ends: its own process each

BUFFERED = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
BAD = "name: hot\nracks:\n  - {id: r1, platform: gb200-nvl72, it_load: 130 kW}\n"


def test_findings_are_flushed_before_the_process_ends(tmp_path: Path) -> None:
    design = tmp_path / "hot.yaml"
    design.write_text(BAD, encoding="utf-8")
    cmd = [sys.executable, "-m", "dclint", "check", str(design)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=BUFFERED)
    assert done.returncode == 1  # stdout is a pipe, block-buffered: lost unless flushed
    assert f"{design}:3:46: PWR001 [error]" in done.stdout
    assert done.stdout.endswith("Found 1 error in 1 design.\n") and done.stderr == ""
    code = "from dclint.cli import run; import atexit; atexit.register(print, 'teardown'); run()"
    cmd = [sys.executable, "-c", code, "--version"]
    done = subprocess.run(cmd, capture_output=True, text=True, env=BUFFERED)
    assert (done.returncode, done.stdout) == (0, f"dclint {_version()}\n")  # no atexit run


@pytest.mark.parametrize("unbuffered", [False, True])  # fails at the last flush, or at a write
def test_a_reader_that_stops_early_ends_the_run_quietly(tmp_path: Path, unbuffered: bool) -> None:
    design = tmp_path / "hot.yaml"
    design.write_text(BAD, encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "dclint", "check", str(design)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**BUFFERED, **({"PYTHONUNBUFFERED": "1"} if unbuffered else {})},
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before dclint writes a byte
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 1
    assert err == ""  # no BrokenPipeError traceback, no "Exception ignored" line


def _version() -> str:
    from dclint import __version__

    return __version__
