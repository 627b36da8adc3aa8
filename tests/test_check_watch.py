"""`dclint check --watch`: checks, re-checks when a fragment changes, and stops on Ctrl-C with
exit 0 and no traceback (a real process and real file-system events: integration tier)."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable
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


_PENDING: dict[int, str] = {}  # what a process wrote after the marker a read stopped at


def _read_until(proc: subprocess.Popen[str], marker: str, timeout: float = 30) -> str:
    """What the process writes on stdout and stderr until `marker` appears on stderr (up to the
    end of its line; the rest is kept for the next read). The pipes are read raw: a buffered
    readline can hold a second line the selector then never reports."""
    assert proc.stdout is not None and proc.stderr is not None
    fds = {proc.stdout.fileno(): "out", proc.stderr.fileno(): "err"}
    sel = selectors.DefaultSelector()
    for fd, name in fds.items():
        sel.register(fd, selectors.EVENT_READ, name)
    seen = _PENDING.pop(proc.pid, "")
    deadline = time.monotonic() + timeout
    try:
        while marker not in seen:
            left = deadline - time.monotonic()
            assert left > 0, f"no {marker!r} within {timeout} s; got {seen!r}"
            assert sel.get_map(), f"the process closed its output before {marker!r}: {seen!r}"
            for key, _ in sel.select(left):
                chunk = os.read(key.fd, 65536)  # type: ignore[arg-type]
                if not chunk:
                    sel.unregister(key.fd)
                seen += chunk.decode("utf-8", "replace")
    finally:
        sel.close()
    cut = seen.find("\n", seen.index(marker)) + 1 or len(seen)
    if seen[cut:]:
        _PENDING[proc.pid] = seen[cut:]
    return seen[:cut]


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


def _round(proc: subprocess.Popen[str], done: Callable[[str], bool], rounds: int = 4) -> str:
    """The output of the first re-check that `done` accepts (an editor's save, or a write,
    may come as two batches of events: each is a round)."""
    for _ in range(rounds):
        text = _read_until(proc, "watching for changes")
        if done(text):
            return text
    raise AssertionError(f"no such round in {rounds}; the last was {text!r}")


def test_watch_follows_a_fragment_and_a_config_outside_the_designs_folder(tmp_path: Path) -> None:
    """The fragment lives in ../lib and the config at the repository's top: neither is in the
    watched design's folder, and a change to either re-checks it."""
    (tmp_path / "designs").mkdir()
    (tmp_path / "lib").mkdir()
    (tmp_path / "designs" / "hall.yaml").write_text(
        DESIGN.replace("include: [racks.yaml]", "include: [../lib/racks.yaml]")
    )
    fragment = tmp_path / "lib" / "racks.yaml"
    fragment.write_text(FRAGMENT.format(load="100 kW"))
    config = tmp_path / ".dclint.yaml"
    config.write_text("ignore: [CST]\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "dclint", "check", "--watch", "designs/hall.yaml"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        first = _read_until(proc, "watching for changes")
        assert first.startswith("All checks passed: 1 design, no findings.\n")
        time.sleep(0.5)
        fragment.write_text(FRAGMENT.format(load="130 kW"))
        second = _round(proc, lambda text: "PWR001" in text)
        assert "lib/racks.yaml:3:14: PWR001 [error] rack r1 design IT load 130 kW" in second
        time.sleep(0.5)
        config.write_text("ignore: [CST, PWR001]\n")
        third = _round(proc, lambda text: "All checks passed" in text)
        assert "All checks passed: 1 design, no findings.\n" in third
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
    assert "Traceback" not in out + err
