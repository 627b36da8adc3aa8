"""Shared by the issue 23 hardening tests: the real CLI in a fresh process, with a time bound."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Generous for a slow machine: it is there to catch a hang or a quadratic, not to benchmark
LIMIT_S = 5.0
SMALL = "name: t\nracks:\n  - id: r01\n    platform: gb200-nvl72\n    it_load: 120 kW\n"


def dclint(
    *args: str, cwd: Path, timeout: float = 60, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], float]:
    """`python -m dclint ARGS` in `cwd`: the finished process and its wall time."""
    extra = os.environ.get("PYTHONPATH")
    full = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *([extra] if extra else [])])}
    full.update(env or {})
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "dclint", *args],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    return proc, time.perf_counter() - start


def dclint_here(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`dclint ARGS` in `cwd` run by main() in this process, as a finished process: for what a
    command says and its exit code where the process itself is not what is tested (a fresh
    interpreter costs about a CPU-second of the default tier's budget)."""
    from dclint.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return subprocess.CompletedProcess(["dclint", *args], code, out.getvalue(), err.getvalue())


def error_lines(proc: subprocess.CompletedProcess[str]) -> list[str]:
    """The output lines of a run that must have failed cleanly (exit 2, no traceback): load
    errors are part of the report on stdout, others on stderr."""
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out, out
    assert proc.returncode == 2, out
    lines = (proc.stdout + proc.stderr).splitlines()
    return [line for line in lines if not line.startswith(("dclint: --set:", "Found "))]
