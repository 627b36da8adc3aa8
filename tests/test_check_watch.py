"""`dclint check --watch`: checks, re-checks when a fragment changes, and stops on Ctrl-C with
exit 0 and no traceback (a real process and real file-system events: integration tier)."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

DESIGN = """\
name: watched
include: [racks.yaml]
power:
  feeds:
    - {id: fa, voltage: 415 V, current_rating: 250 A, path: A}
    - {id: fb, voltage: 415 V, current_rating: 250 A, path: B}
"""
FRAGMENT = "racks:\n  - id: r1\n    it_load: {load}\n    feeds: [fa, fb]\n"


def _read_until(proc: subprocess.Popen[str], marker: str, timeout: float = 30) -> str:
    """What the process writes on stdout and stderr until `marker` appears on stderr."""
    sel = selectors.DefaultSelector()
    assert proc.stdout is not None and proc.stderr is not None
    sel.register(proc.stdout, selectors.EVENT_READ, "out")
    sel.register(proc.stderr, selectors.EVENT_READ, "err")
    seen = ""
    deadline = time.monotonic() + timeout
    while marker not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"no {marker!r} within {timeout} s; got {seen!r}"
        for key, _ in sel.select(left):
            line = key.fileobj.readline()  # type: ignore[union-attr]
            seen += line
    sel.close()
    return seen


def test_watch_rechecks_on_a_fragment_change_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    (tmp_path / "hall.yaml").write_text(DESIGN)
    fragment = tmp_path / "racks.yaml"
    fragment.write_text(FRAGMENT.format(load="100 kW"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "dclint", "check", "--watch", "hall.yaml"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        first = _read_until(proc, "watching for changes")
        assert first.startswith("All checks passed: 1 design, no findings.\n")
        time.sleep(0.5)  # the watcher is set up before the change is made
        fragment.write_text(FRAGMENT.format(load="130 kW"))
        second = _read_until(proc, "watching for changes")
        assert "racks.yaml:3:14: PWR001 [error] rack r1 design IT load 130 kW" in second
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
    assert "Traceback" not in out + err
    assert "dclint: stopped watching" in err
