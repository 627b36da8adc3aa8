"""Issue 23, item 1: no file under the cache directories can make dclint run code.
Issue 48, item 3: no file under them can make dclint print a verdict it did not reach (the
results cache and its run records are sealed with a per-user secret, dclint/cli/_seal.py)."""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pint
import pytest

from dclint.cli import _runs, main
from dclint.cli._runs import DIRECTORY
from dclint.cli._seal import index_paths, seal

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


@pytest.mark.integration  # fresh processes with planted cache directories
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
    # nothing read back, nothing written but the results cache's secret (issue 48): 32 bytes,
    # mode 0600, beside the planted pint folder and never read as a pickle
    secret = cache / "dclint" / "results-key"
    assert set(after) - set(before) <= {secret}
    assert {p: after[p] for p in before} == before
    if secret.exists():
        assert len(secret.read_bytes()) == 32 and secret.stat().st_mode & 0o777 == 0o600


@pytest.mark.integration
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


# --- issue 48 item 3: a cache that cannot lie ---------------------------------------------------

BAD = ROOT / "rules" / "cooling" / "examples" / "clg006" / "bad.yaml"
TODAY = ["--today", "2026-12-02"]
VIOLATION = "CLG006 [error]"  # 3 of them, and a PWR finding, in the example


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository holding a violating design (no config: the cache at its root), the
    working directory; the user's secret in a folder of its own, outside the repository."""
    work = tmp_path / "repo"
    work.mkdir()
    (work / ".git").mkdir()
    shutil.copy(BAD, work / "bad.yaml")
    monkeypatch.chdir(work)
    monkeypatch.delenv("DCLINT_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return work


def _check(capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["check", *TODAY, "bad.yaml"])
    return code, capsys.readouterr().out


def _forge(folder: Path, seal_it: bool = True) -> None:
    """Every file of a cache folder rewritten to claim the design passed (no findings; a run
    record printing "All checks passed" with exit code 0), sealed with this user's secret
    (as if this user's own dclint had written it) or, without `seal_it`, keeping its old seal
    line (an edit in place)."""
    for path in folder.glob("*.json"):
        head, body = path.read_text("utf-8").split("\n", 1)
        data = json.loads(body)
        if not path.name.startswith("run-"):
            for entry in data["designs"].values():
                entry.update(findings=[], waivers=[], suppressed=0)
        else:
            data.update(out="All checks passed: 1 design, no findings.\n", code=0)
        text = json.dumps(data)
        path.write_text(seal(text, data["key"]) if seal_it else f"{head}\n{text}", "utf-8")


FIRST: list[str] = []  # the first check's report, which every later check must print again


def _cached(repo: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A first check, which stores the design's findings and its run's record."""
    code, out = _check(capsys)
    assert code == 1 and out.count(VIOLATION) == 3 and "Found 4 errors in 1 design." in out
    FIRST[:] = [out]
    folder = repo / DIRECTORY
    assert sorted(p.name.startswith("run-") for p in folder.glob("*.json")) == [False, True]
    return folder


def _replay() -> int | None:
    """What the console script's fast path (a run record) makes of the same command line."""
    return _runs.replay(["check", *TODAY, "bad.yaml"])


def test_a_forged_but_sealed_cache_is_believed_so_the_seal_is_what_guards(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The control for the tests below: a forgery sealed with the user's own secret is replayed
    (the plant is live); only the folder checks stand between it and the verdict there."""
    _forge(_cached(repo, capsys))
    assert _check(capsys) == (0, "All checks passed: 1 design, no findings.\n")
    assert _replay() == 0


def test_an_entry_edited_in_place_is_a_miss_never_a_verdict(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _forge(_cached(repo, capsys), seal_it=False)
    assert _replay() is None
    assert _check(capsys) == (1, FIRST[0])


def test_an_entry_sealed_with_another_users_secret_is_a_miss(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _cached(repo, capsys)
    monkeypatch.setenv("XDG_CACHE_HOME", str(repo.parent / "attacker"))  # another secret
    _forge(folder)
    monkeypatch.setenv("XDG_CACHE_HOME", str(repo.parent / "xdg"))
    assert _replay() is None
    assert _check(capsys) == (1, FIRST[0])


def test_a_planted_entry_through_a_symlinked_folder_is_never_read(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _cached(repo, capsys)
    _forge(folder)
    elsewhere = repo.parent / "world-writable"
    folder.rename(elsewhere)
    folder.symlink_to(elsewhere, target_is_directory=True)
    before = {p.name: p.read_bytes() for p in elsewhere.iterdir()}
    assert _replay() is None
    assert _check(capsys) == (1, FIRST[0])
    assert {p.name: p.read_bytes() for p in elsewhere.iterdir()} == before  # nor written


def test_a_planted_file_that_is_a_symlink_is_never_read(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _cached(repo, capsys)
    _forge(folder)
    for path in folder.glob("*.json"):
        target = repo.parent / path.name
        path.rename(target)
        path.symlink_to(target)
    assert _replay() is None
    assert _check(capsys) == (1, FIRST[0])


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_a_cache_file_of_another_owner_is_never_read(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _cached(repo, capsys)
    _forge(folder)
    for path in folder.glob("*.json"):
        os.chown(path, 4242, -1)
    assert _replay() is None
    assert _check(capsys) == (1, FIRST[0])


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("index_version", ["2", "4"])
def test_a_cache_folder_tracked_by_git_is_neither_read_nor_written(
    index_version: str, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / ".git").rmdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q", "."], check=True)
    subprocess.run([*git, "update-index", "--index-version", index_version], check=True)
    folder = _cached(repo, capsys)
    _forge(folder)
    subprocess.run([*git, "add", "-f", "bad.yaml", DIRECTORY], check=True)
    subprocess.run([*git, "commit", "-qm", "a cache someone committed"], check=True)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert _replay() is None
    assert _check(capsys) == (1, FIRST[0])
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # nor written


def test_the_index_reader_finds_every_path_in_each_format(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    names = ["a", ".dclint.yaml", ".dclint_cache-x/y", ".dclint_cache/.gitignore", "s/t/u.yaml"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name, "utf-8")
    subprocess.run(["git", "-C", str(tmp_path), "add", "-f", *names], check=True)
    for version in ("2", "3", "4"):
        subprocess.run(
            ["git", "-C", str(tmp_path), "update-index", "--index-version", version], check=True
        )
        data = (tmp_path / ".git" / "index").read_bytes()
        # git writes version 2 when asked for 3 and no entry needs 3's extended flags
        assert int.from_bytes(data[4:8], "big") == int(version) or version == "3"
        assert [p.decode() for p in index_paths(data)] == sorted(names)


def test_no_secret_no_cache(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = repo.parent / "not-a-folder"
    blocker.write_text("", "utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # the secret's folder cannot be made
    assert _check(capsys)[0] == 1
    assert not (repo / DIRECTORY).exists()  # nothing stored, nothing to replay
    secret_file = repo.parent / "xdg" / "dclint" / "results-key"
    monkeypatch.setenv("XDG_CACHE_HOME", str(repo.parent / "xdg"))
    assert _check(capsys)[0] == 1
    assert len(secret_file.read_bytes()) == 32
    assert secret_file.stat().st_mode & 0o777 == 0o600
    assert secret_file.parent.stat().st_mode & 0o777 == 0o700
