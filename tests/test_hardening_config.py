"""Issue 23, item 18: a `rules-dir` in a config found by search runs no code, with a warning;
the same file given with --config loads its rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from _hardening import SMALL, dclint_here

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
    proc = dclint_here("check", "a.yaml", "b.yaml", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (repo / "ran").exists()
    assert proc.stderr.splitlines() == [WARNING.format(repo / ".dclint.yaml")]


def test_the_same_file_given_with_config_loads_its_rules(repo: Path) -> None:
    proc = dclint_here("check", "a.yaml", "--config", ".dclint.yaml", cwd=repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (repo / "ran").exists()  # the control: this config's rules-dir does run code
    assert "warning" not in proc.stderr


# Issue 27 item 6: a config found by search may not turn on work that can run for minutes
# (PAR005's layout search); --layout-search or the same file named with --config may.
PAR005 = Path(__file__).resolve().parent.parent / "rules" / "layout" / "examples" / "par005"
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


# --- issue 48: a config found by search names files only inside its repository ----------------

PROFILE = "gpus:\n  h100-sxm:\n    compute: 0.85\n    network: 0.6\n    overhead: 50 ms\n"


@pytest.fixture
def calibrated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    """A repository (`.git`) in tmp_path/repo holding an H100 design, a profile beside it and
    one outside it; the working directory. Returns it and the profiles the check opened."""
    import dclint.loader.calibration as calibration
    from conftest import SAMPLES

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".git").mkdir()
    (repo / "d.yaml").write_text((SAMPLES / "h100-40node.yaml").read_text("utf-8"), "utf-8")
    (repo / "p.yaml").write_text(PROFILE, "utf-8")
    (tmp_path / "outside.yaml").write_text(PROFILE, "utf-8")
    opened: list[str] = []
    real = calibration.read_calibration

    def spy(path: str, named_at: str | None = None) -> object:
        opened.append(path)
        return real(path, named_at)

    monkeypatch.setattr(calibration, "read_calibration", spy)
    monkeypatch.chdir(repo)
    return repo, opened


@pytest.mark.parametrize(
    ("named", "shown"),
    [
        ("/etc/passwd", "/etc/passwd"),
        ("../outside.yaml", "{repo}/../outside.yaml"),
        ("link.yaml", "{repo}/link.yaml"),  # a symlink in the repository to a file outside
    ],
)
@pytest.mark.parametrize("command", ["check", "cost"])
def test_a_found_config_naming_a_profile_outside_the_repository_is_one_error(
    named: str,
    shown: str,
    command: str,
    calibrated: tuple[Path, list[str]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    from dclint.cli import main

    repo, opened = calibrated
    (repo / "link.yaml").symlink_to(repo.parent / "outside.yaml")
    (repo / ".dclint.yaml").write_text(f"calibration: {named}\n", "utf-8")
    assert main([command, "d.yaml"]) == 2
    out, err = capsys.readouterr()
    assert (out, opened) == ("", [])  # nothing reported, the file never opened
    assert err == (
        f"dclint: error: {repo}/.dclint.yaml:1:1: calibration profile "
        f"{shown.format(repo=repo)} is outside the repository root {repo}: a config found by "
        "search names files only inside it (give the config with --config to name one "
        "elsewhere)\n"
    )


def test_a_profile_inside_or_named_with_config_is_read(
    calibrated: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    """The controls: inside the repository a found config's profile is read; --config may name
    one anywhere."""
    from dclint.cli import main

    repo, opened = calibrated
    (repo / ".dclint.yaml").write_text("calibration: p.yaml\n", "utf-8")
    assert main(["cost", "d.yaml"]) == 0
    assert opened == [str(repo / "p.yaml")]
    config = repo.parent / "given.yaml"
    config.write_text("calibration: outside.yaml\n", "utf-8")
    assert main(["cost", "--config", str(config), "d.yaml"]) == 0
    assert opened[1:] == [str(repo.parent / "outside.yaml")]
    capsys.readouterr()
