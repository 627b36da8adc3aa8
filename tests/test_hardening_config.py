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
