"""Issue 27, item 13: odd surroundings are one error line (where one can be written) and the
right exit code, never a traceback: an ASCII-only terminal encoding, a deleted working
directory, standard output onto a full device or closed, standard error closed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DESIGN = str(ROOT / "sample_designs" / "h100-40node.yaml")
HOT = str(ROOT / "sample_designs" / "broken-rack-130kw.yaml")


def _run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, **kw: object):  # type: ignore[no-untyped-def]
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "dclint", *args],
        cwd=cwd,
        env=full,
        timeout=120,
        stdin=subprocess.DEVNULL,
        **kw,  # type: ignore[arg-type]
    )


# one process each; the report formats write through the same stream: text in the default
# tier, the other two with the integration tier's real processes
@pytest.mark.parametrize(
    "fmt",
    ["text", *(pytest.param(f, marks=pytest.mark.integration) for f in ("markdown", "html"))],
)
def test_an_ascii_terminal_gets_escapes_not_a_traceback(fmt: str) -> None:
    proc = _run(
        "check", HOT, "--format", fmt, env={"PYTHONIOENCODING": "ascii"}, capture_output=True
    )
    assert proc.returncode == 1, proc.stderr
    assert b"Traceback" not in proc.stderr
    proc.stdout.decode("ascii")  # every byte ASCII


def test_a_deleted_working_directory(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-c", "import os,sys,time; sys.stdin.read(1); os.execv(sys.executable, "
         "[sys.executable, '-m', 'dclint', 'check', sys.argv[1]])", DESIGN],
        cwd=gone, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    gone.rmdir()
    _, err = proc.communicate(b"x", timeout=120)
    assert proc.returncode == 2, err
    assert err.decode().splitlines() == [
        "dclint: error: the working directory is gone (No such file or directory); "
        "cd to an existing one"
    ]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_standard_output_onto_a_full_device() -> None:
    with open("/dev/full", "wb") as full:
        proc = _run("check", HOT, stdout=full, stderr=subprocess.PIPE)
    assert proc.returncode == 2
    assert proc.stderr.decode().splitlines() == [
        "dclint: error: cannot write the output: No space left on device"
    ]


def test_standard_output_closed(tmp_path: Path) -> None:
    code = "import os, subprocess, sys; os.close(1); sys.exit(subprocess.call(sys.argv[1:]))"
    argv = [sys.executable, "-c", code, sys.executable, "-m", "dclint", "check", HOT]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(argv, env=env, capture_output=False, stderr=subprocess.PIPE, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.decode().splitlines() == [
        "dclint: error: standard output is closed; give --output FILE or open it"
    ]
    out = tmp_path / "r.txt"
    proc = subprocess.run([*argv, "-o", str(out)], env=env, stderr=subprocess.PIPE, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "PWR001" in out.read_text()


def test_standard_error_closed() -> None:
    code = "import os, subprocess, sys; os.close(2); sys.exit(subprocess.call(sys.argv[1:]))"
    argv = [sys.executable, "-c", code, sys.executable, "-m", "dclint", "check", "nope.yaml"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(argv, env=env, capture_output=True, timeout=120)
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stdout
