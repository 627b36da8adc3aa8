"""Hostile and broken input through the real CLI: a clean message at file:line:col, never a crash.

Each case in tests/corpus/cases.txt names a file, extra arguments, the exit code, where the first
message must be, how many located messages there must be and how the first one starts. The
default tier runs each case in-process through `cli.main()`; the integration tier runs it again
as `python -m dclint` in a fresh process, within a time bound.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from _hardening import LIMIT_S, dclint_here
from _hardening import dclint as run_dclint

from dclint.cli import main

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
LOCATED = re.compile(
    r"^(?:dclint: error: )?(?P<at>\S+?:\d+:\d+): (?:error: |[A-Z]{2,5}\d{3} \[\w+\] )?(?P<msg>.*)$"
)


def _cases() -> list[tuple[str, str, int, str, int, str]]:
    rows = []
    for line in (CORPUS / "cases.txt").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, args, code, at, count, fragment = (part.strip() for part in line.split(" | ", 5))
        rows.append((name, "" if args == "-" else args, int(code), at, int(count), fragment))
    return rows


CASES = _cases()


def dclint(*args: str, cwd: Path = CORPUS) -> tuple[subprocess.CompletedProcess[str], float]:
    """`python -m dclint ARGS` in the corpus (or `cwd`): the process and its wall time."""
    return run_dclint(*args, cwd=cwd)


def here(*args: str, cwd: Path = CORPUS) -> subprocess.CompletedProcess[str]:
    """`dclint ARGS` run by main() in this process, in the corpus (or `cwd`): what a command says
    and its exit code where the process itself is not what is tested (a fresh interpreter costs
    about a CPU-second)."""
    return dclint_here(*args, cwd=cwd)


def located(proc: subprocess.CompletedProcess[str] | str) -> list[tuple[str, str]]:
    lines = (proc if isinstance(proc, str) else proc.stdout + proc.stderr).splitlines()
    return [(m["at"], m["msg"]) for m in map(LOCATED.match, lines) if m]


def assert_clean(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr


def test_corpus_is_complete() -> None:
    listed = {case[0] for case in CASES}
    on_disk = {p.name for p in CORPUS.glob("*.yaml")}
    assert listed == on_disk
    assert len(CASES) >= 60


def _expect(text: str, returned: int, code: int, at: str, count: int, fragment: str) -> None:
    assert "Traceback" not in text, text
    messages = located(text)
    assert returned == code, text
    assert messages, text
    assert messages[0][0] in at.split(" or "), messages  # libyaml and PyYAML may differ
    assert messages[0][1].startswith(fragment), messages[0]
    assert len(messages) == count, messages


@pytest.mark.parametrize(("name", "args", "code", "at", "count", "fragment"), CASES)
def test_case(
    name: str,
    args: str,
    code: int,
    at: str,
    count: int,
    fragment: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(CORPUS)
    returned = main(["check", name, *args.split()])
    out = capsys.readouterr()
    _expect(out.out + out.err, returned, code, at, count, fragment)


@pytest.mark.integration
@pytest.mark.parametrize(("name", "args", "code", "at", "count", "fragment"), CASES)
def test_case_in_a_process(
    name: str, args: str, code: int, at: str, count: int, fragment: str
) -> None:
    proc, seconds = dclint("check", name, *args.split())
    _expect(proc.stdout + proc.stderr, proc.returncode, code, at, count, fragment)
    assert seconds < LIMIT_S


@pytest.mark.integration  # wall-clock bound
def test_fifty_megabyte_file_is_refused_quickly(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with big.open("w", encoding="utf-8") as handle:
        handle.write("name: big\nracks:\n")
        row = "  - {id: r%07d, it_load: 10 kW}\n"
        for i in range(50 * 1024 * 1024 // len(row % 0) + 1):
            handle.write(row % i)
    assert big.stat().st_size > 50 * 1024 * 1024
    proc, seconds = dclint("check", str(big))
    assert_clean(proc)
    assert proc.returncode == 2
    assert located(proc) == [(f"{big}:1:1", "file is over the 10,485,760-byte limit for a design")]
    assert seconds < LIMIT_S


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0,
    reason="running as root: chmod 000 does not stop root from reading the file",
)
def test_unreadable_file(tmp_path: Path) -> None:
    design = tmp_path / "locked.yaml"
    design.write_text("name: t\n", encoding="utf-8")
    design.chmod(0)
    try:
        proc = here("check", str(design))
    finally:
        design.chmod(0o644)
    assert_clean(proc)
    assert proc.returncode == 2
    assert located(proc) == [(f"{design}:1:1", "cannot read file: Permission denied")]


@pytest.mark.integration  # wall-clock bound
def test_directory_symlink_loop_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "d.yaml").write_text(
        "name: t\nracks:\n  - {id: r01, it_load: 130 kW}\n", encoding="utf-8"
    )
    (tmp_path / "a" / "b" / "up").symlink_to(tmp_path / "a", target_is_directory=True)
    (tmp_path / "a" / "self").symlink_to(tmp_path / "a", target_is_directory=True)
    proc, seconds = dclint("check", "a", "--select", "PWR001", cwd=tmp_path)
    assert_clean(proc)
    assert proc.returncode == 1
    assert [at for at, _ in located(proc)] == ["a/b/d.yaml:3:24"]
    assert seconds < LIMIT_S


def test_a_symlink_to_itself_given_by_name(tmp_path: Path) -> None:
    (tmp_path / "loop.yaml").symlink_to(tmp_path / "loop.yaml")
    proc = here("check", "loop.yaml", cwd=tmp_path)
    assert_clean(proc)
    assert proc.returncode == 2
    assert located(proc) == [("loop.yaml:1:1", "cannot read file: symbolic link loop")]


def test_output_is_not_created_by_a_failing_run(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    config = CORPUS / "config" / "bad-option-value.yaml"
    proc = here(
        "check", "bom-loads.yaml", "--config", str(config), "--format", "json", "-o", str(out)
    )
    assert_clean(proc)
    assert proc.returncode == 2
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind either


def test_output_keeps_the_old_file_when_a_run_fails(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    out.write_text("previous report\n", encoding="utf-8")
    proc = here("check", "bom-loads.yaml", "--rules-dir", "no-such-dir", "-o", str(out))
    assert_clean(proc)
    assert proc.returncode == 2
    assert out.read_text(encoding="utf-8") == "previous report\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_output_replaces_the_file_on_success(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    out.write_text("previous report\n", encoding="utf-8")
    proc = here("check", "bom-loads.yaml", "--select", "PWR001", "--format", "json", "-o", str(out))
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert '"PWR001"' in out.read_text(encoding="utf-8")
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_output_into_a_missing_directory_is_a_clean_error(tmp_path: Path) -> None:
    proc = here("check", "bom-loads.yaml", "-o", str(tmp_path / "nope" / "r.txt"))
    assert_clean(proc)
    assert proc.returncode == 2
    assert "--output" in proc.stderr


def test_write_atomic_interrupted_leaves_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dclint.cli import _output as commands
    from dclint.errors import ConfigError

    out = tmp_path / "report.txt"
    out.write_text("old\n", encoding="utf-8")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(commands.os, "replace", broken_replace)
    with pytest.raises(ConfigError, match="No space left on device"):  # one error line, exit 2
        commands.write_atomic(str(out), "new report\n")
    assert out.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.txt"]
