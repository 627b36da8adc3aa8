"""Issue 23, item 18: a `rules-dir` in a config found by search runs no code, with a warning;
the same file given with --config loads its rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from _hardening import SMALL, dclint

WARNING = (
    "dclint: warning: {}:1:1: rules-dir ignored in a config found by search (it would run "
    "code); give the file with --config to load its rules"
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "plugins").mkdir()
    marker = tmp_path / "ran"
    (tmp_path / "plugins" / "evil.py").write_text(
        f"open({str(marker)!r}, 'w').close()\n", encoding="utf-8"
    )
    (tmp_path / ".dclint.yaml").write_text("rules-dir: [plugins]\n", encoding="utf-8")
    (tmp_path / "a.yaml").write_text(SMALL, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(SMALL, encoding="utf-8")
    return tmp_path


def test_a_found_configs_rules_dir_is_ignored_with_one_warning(repo: Path) -> None:
    proc, _ = dclint("check", "a.yaml", "b.yaml", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (repo / "ran").exists()
    assert proc.stderr.splitlines() == [WARNING.format(repo / ".dclint.yaml")]


def test_the_same_file_given_with_config_loads_its_rules(repo: Path) -> None:
    proc, _ = dclint("check", "a.yaml", "--config", ".dclint.yaml", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (repo / "ran").exists()  # the control: this config's rules-dir does run code
    assert "warning" not in proc.stderr


# Issue 27 item 6: a config found by search may not turn on work that can run for minutes
# (PAR005's layout search); --layout-search or the same file named with --config may.
PAR005 = Path(__file__).resolve().parent.parent / "rules" / "examples" / "par005"
NOT_RUN = (
    "bad.yaml:{}:5: PAR005 [info] workload {}: layout search not run: {}:3:3 turns it on "
    "(search = true), but that config was found by search, not named with --config, and may "
    "not start work that can run for minutes"
)


def _check(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> list[str]:
    from dclint.cli import main

    monkeypatch.chdir(PAR005)
    assert main(["check", "bad.yaml", "--select", "PAR005", *args]) == 0
    return capsys.readouterr().out.splitlines()


def test_a_found_config_cannot_turn_the_layout_search_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    found = PAR005 / ".dclint.yml"
    assert _check(monkeypatch, capsys) == [
        NOT_RUN.format(12, "tp8-mb1", found),
        NOT_RUN.format(21, "tp2-pp2-mb1", found),
        "Found 2 infos in 1 design.",
    ]


@pytest.mark.parametrize("how", [["--layout-search"], ["--config", ".dclint.yml"]])
def test_the_flag_or_config_turns_the_layout_search_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], how: list[str]
) -> None:
    lines = _check(monkeypatch, capsys, *how)
    assert [line.split(" workload ")[0] for line in lines] == [
        "bad.yaml:19:15: PAR005 [warning]",
        "bad.yaml:28:15: PAR005 [warning]",
        "Found 2 warnings in 1 design.",
    ]


def test_a_found_config_that_leaves_the_search_off_says_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dclint.cli import main

    (tmp_path / ".dclint.yaml").write_text("PAR005: {search: false}\n", encoding="utf-8")
    (tmp_path / "bad.yaml").write_text((PAR005 / "bad.yaml").read_text("utf-8"), "utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "bad.yaml", "--select", "PAR005"]) == 0
    assert capsys.readouterr().out == "All checks passed: 1 design, no findings.\n"
