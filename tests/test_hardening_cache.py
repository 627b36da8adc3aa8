"""Issue 23, item 1: no file under the cache directories can make dclint run code."""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pint
import pytest

pytestmark = pytest.mark.integration  # fresh processes with planted cache directories

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_designs" / "gb200-superpod-su.yaml"
UNITS = ROOT / "dclint" / "data" / "units.txt"


class _Payload:
    """Unpickling this creates the marker file: a stand-in for a shell command."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.marker), "w"))


def _plant(folder: Path, marker: Path) -> list[Path]:
    """Let pint write its real cache into `folder`, then replace every pickle with the payload."""
    pint.UnitRegistry(str(UNITS), cache_folder=str(folder))
    pickles = sorted(folder.rglob("*.pickle"))
    for path in pickles:
        path.write_bytes(pickle.dumps(_Payload(marker)))
    return pickles


def _env(cache: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DCLINT_NO_CACHE"}
    env.update(XDG_CACHE_HOME=str(cache), HOME=str(home))
    return env


def test_a_planted_pickle_in_the_cache_directory_runs_nothing(tmp_path: Path) -> None:
    cache, home, marker = tmp_path / "cache", tmp_path / "home", tmp_path / "ran"
    home.mkdir()
    # The planted files sit where dclint's cache used to be, and under the names pint gives them
    planted = []
    for base in (cache / "dclint" / f"pint-{pint.__version__}", home / ".cache" / "dclint"):
        planted += _plant(base, marker)
    assert len(planted) == 4
    # Control: pint pointed at that folder does run the payload, so the plant is live
    with contextlib.suppress(Exception):  # pint then chokes on what the payload returned
        pint.UnitRegistry(str(UNITS), cache_folder=str(planted[0].parent))
    assert marker.exists()
    marker.unlink()
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}

    commands = [
        [sys.executable, "-m", "dclint", "check", str(SAMPLE)],
        [sys.executable, "-c", "import dclint.units"],
    ]
    for command in commands:
        done = subprocess.run(command, env=_env(cache, home), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert not marker.exists(), command

    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before  # nothing read back, nothing written: no cache at all


def test_units_without_a_cache_are_dclints_own(tmp_path: Path) -> None:
    probe = (
        "from dclint.units import parse_quantity as q, ureg; "
        "print(q('400 Gb/s').m_as('GB/s'), q('1 b').m_as('bit'), q('32 degC').m_as('K'), "
        "ureg.parse_units('U'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env=_env(tmp_path / "cache", tmp_path),
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == "50.0 1.0 305.15 U\n"
    assert not list(tmp_path.rglob("*"))
