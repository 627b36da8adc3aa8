"""Issue 30 item 4: the results cache of `dclint check` (dclint/cli/_cache.py).

A repeat check of unchanged designs prints what it stored, byte for byte and with the same exit
code in every format, without importing pint or pydantic; any change to a design, a file it
includes, its configuration, the rule set or an option that changes findings checks again; a
cache file that is corrupt, hostile or of another key is ignored."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import EXAMPLES, ROOT, SAMPLES
from dclint.cli import _MODULES, COMMANDS, main
from dclint.cli._cache import DIRECTORY, ENV, FORMATS
from dclint.cli._seal import seal
from dclint.cli.check import FORMAT_NAMES
from dclint.engine.runner import Engine

# the par005 example asks for its layout search in a found config: only the flag turns it on
TODAY = ["--today", "2026-12-02", "--layout-search"]
FRAGMENT = """\
rack_types:
  nvl72:
    platform: gb200-nvl72
    it_load: 125 kW
"""
INCLUDER = """\
name: with-fragment
include: parts/racks.yaml
racks:
  - id: r[1-3]
    type: nvl72
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository (a `.git` marker, no config at its root) with designs that draw a
    roll-up, a priced finding (PAR005's search, on in its folder's config), suppressions
    (waivers and DCL001) and an include; the working directory, the cache on."""
    (tmp_path / ".git").mkdir()
    for name in ("clg006", "dcl001", "par005"):
        shutil.copytree(EXAMPLES / name, tmp_path / name)
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "racks.yaml").write_text(FRAGMENT, encoding="utf-8")
    (tmp_path / "inc.yaml").write_text(INCLUDER, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(ENV, raising=False)
    secrets = tmp_path.parent / f"{tmp_path.name}-xdg"  # the per-user secret, outside the repo
    secrets.mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(secrets))
    return tmp_path


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["check", *TODAY, *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _no_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on, checking a design is a test failure: the run must replay."""

    def refuse(self: Engine, file: str) -> None:
        raise AssertionError(f"{file} was checked, not replayed")

    monkeypatch.setattr(Engine, "check_file", refuse)


def test_the_examples_draw_what_the_cache_must_reproduce(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _check(capsys, "--show-waivers", "--no-cache", ".")
    assert code == 1
    assert "[2 racks of type nvl72: n[1-2]]" in out  # a roll-up, from the rack types
    assert "[the fix saves" in out  # a priced finding
    assert "[waived]" in out and "DCL001" in out  # waivers and a suppression's own finding
    assert "parts/racks.yaml:4:14: PWR001 [error] rack r1 design IT load 125 kW" in out  # included
    assert not (repo / DIRECTORY).exists()  # --no-cache writes nothing


@pytest.mark.parametrize("fmt", FORMAT_NAMES)
def test_a_cached_run_prints_the_same_bytes_and_exit_code(
    fmt: str, repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    flags = ["--format", fmt, "--show-waivers", "--statistics", "--show-source", "."]
    monkeypatch.setenv(ENV, "1")  # as --no-cache, which a review would print in its argv
    cold = _check(capsys, *flags)
    monkeypatch.delenv(ENV)
    first = _check(capsys, *flags)  # checks and stores
    assert list((repo / DIRECTORY).glob("*.json")), "nothing stored"
    assert fmt in FORMATS  # every format replays (issue 54 item 5)
    _no_engine(monkeypatch)
    cached = _check(capsys, *flags)
    assert cold[0] == first[0] == cached[0] == 1
    assert cold[1] == first[1] == cached[1]
    assert cached[2] == cold[2]


def test_exit_code_options_are_applied_to_a_replayed_run(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _check(capsys, "clg006/")
    _no_engine(monkeypatch)
    assert _check(capsys, "--exit-zero", "clg006/")[0] == 0
    assert _check(capsys, "clg006/")[0] == 1
    assert _check(capsys, "--quiet", "clg006/good.yaml")[:2] == (0, "")


def test_a_repeat_check_imports_neither_pint_nor_pydantic(repo: Path) -> None:
    # nor what only a written file or HTML needs (the random names of temporary files, the
    # entity tables), nor any other command's module
    never = ("tempfile", "html")
    others = [f"dclint.cli.{_MODULES.get(c, c)}" for c in COMMANDS if c != "check"]
    script = (
        f"NEVER, COMMANDS = {never!r}, {others!r}\n"
        "import json, sys\n"
        "from dclint.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "sys.stdout.flush()\n"
        "heavy = sorted(m for m in ('pint', 'pydantic', 'numpy') if m in sys.modules)\n"
        "other = sorted(m for m in sys.modules if m.split('.')[0] in NEVER or m in COMMANDS)\n"
        "print(json.dumps(other), file=sys.stderr)\n"
        "print(json.dumps([code, heavy]), file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != ENV}
    argv = [sys.executable, "-c", script, "check", *TODAY, "."]
    runs = []
    for _ in range(2):
        # the folder modified after the run starts (a minute ahead): no run record is made
        # (RACY_NS), so the repeat is the design cache's replay, however slowly the host starts
        # or runs it (a run that starts 2 s after the folder was written records the run,
        # through a temporary file: a replay of that record is another path,
        # tests/test_run_records.py)
        ahead = time.time_ns() + 60 * 10**9
        os.utime(repo, ns=(ahead, ahead))
        runs.append(subprocess.run(argv, capture_output=True, text=True, env=env))
    (cold_code, cold_heavy), (code, heavy) = (json.loads(r.stderr.splitlines()[-1]) for r in runs)
    assert json.loads(runs[1].stderr.splitlines()[-2]) == []
    # the check itself (pint imports numpy too where numpy is installed: sarif-tools brings it)
    assert cold_code == 1 and {"pint", "pydantic"} <= set(cold_heavy)
    assert (code, heavy) == (1, [])  # the repeat: stored findings, same presenter
    assert runs[0].stdout == runs[1].stdout


def _replays(capsys: pytest.CaptureFixture[str], *argv: str) -> bool:
    """Whether `check argv` replays (True) or checks (False), with the same output either way."""
    import dclint.cli._cache as cache

    seen: list[bool] = []
    real = cache.Cache.split

    def spy(self: cache.Cache) -> cache.Split | None:
        got = real(self)
        seen.append(got is not None and not got.missing)  # every design stored unchanged
        return got

    cache.Cache.split = spy  # type: ignore[method-assign]
    try:
        _check(capsys, *argv)
    finally:
        cache.Cache.split = real  # type: ignore[method-assign]
    return seen == [True]


def test_a_changed_fragment_is_checked_again(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _check(capsys, "inc.yaml")
    assert _replays(capsys, "inc.yaml")
    (repo / "parts" / "racks.yaml").write_text(FRAGMENT.replace("125 kW", "100 kW"), "utf-8")
    assert not _replays(capsys, "inc.yaml")
    code, out, _ = _check(capsys, "inc.yaml")
    assert code == 0 and "All checks passed" in out  # the fragment's new load is under 120 kW
    assert _replays(capsys, "inc.yaml")


def test_changed_design_config_options_and_rules_are_checked_again(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = "clg006/bad.yaml"
    _check(capsys, target)
    assert _replays(capsys, target)
    assert not _replays(capsys, "--select", "PWR", target)  # an option that changes findings
    assert _replays(capsys, "--format", "github", target)  # one that only shapes the report
    assert not _replays(capsys, "--today", "2031-01-01", target)  # suppressions expire
    (repo / "clg006" / ".dclint.yaml").write_text("CLG006:\n  severity: warning\n", "utf-8")
    assert not _replays(capsys, target)  # a config now governs it
    code, out, _ = _check(capsys, target)
    assert code == 0 and "[warning]" in out
    assert (repo / "clg006" / DIRECTORY / ".gitignore").read_text() == "*\n"  # beside it
    rules = tmp_path / "myrules"
    rules.mkdir()
    (rules / "x.py").write_text("", "utf-8")
    _check(capsys, "--rules-dir", str(rules), target)
    assert _replays(capsys, "--rules-dir", str(rules), target)
    (rules / "x.py").write_text("# a new rule would be here\n", "utf-8")
    assert not _replays(capsys, "--rules-dir", str(rules), target)
    text = (repo / target).read_text("utf-8")
    (repo / target).write_text(text + "\n", "utf-8")
    assert not _replays(capsys, target)


def test_installed_distributions_are_part_of_the_key(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    site = repo.parent / "site"
    site.mkdir()
    (site / "dclint_pack-1.0.dist-info").mkdir()
    monkeypatch.syspath_prepend(str(site))
    _check(capsys, "clg006/bad.yaml")
    assert _replays(capsys, "clg006/bad.yaml")
    (site / "dclint_pack-1.0.dist-info").rename(site / "dclint_pack-1.1.dist-info")
    assert not _replays(capsys, "clg006/bad.yaml")  # a rule pack upgraded


def test_no_cache_flag_and_environment_turn_it_off(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _check(capsys, "--no-cache", "clg006/bad.yaml")
    assert not (repo / DIRECTORY).exists()
    monkeypatch.setenv(ENV, "1")
    _check(capsys, "clg006/bad.yaml")
    assert not (repo / DIRECTORY).exists()
    monkeypatch.setenv(ENV, "0")
    _check(capsys, "clg006/bad.yaml")
    assert (repo / DIRECTORY).is_dir()
    assert _replays(capsys, "clg006/bad.yaml")
    for flags in (["--fix"], ["--diff"], ["--set", "racks[0].it_load=90 kW"]):
        assert not _replays(capsys, *flags, "clg006/bad.yaml")


def test_designs_that_do_not_load_are_not_stored(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "broken.yaml").write_text("name: b\nracks: [\n", encoding="utf-8")
    first = _check(capsys, "broken.yaml")
    assert first[0] == 2
    assert not _replays(capsys, "broken.yaml")
    assert _check(capsys, "broken.yaml") == first


def _cache_file(repo: Path) -> Path:
    """The cache file of the designs (not a run's record, dclint.cli._runs)."""
    (found,) = (p for p in (repo / DIRECTORY).glob("*.json") if not p.name.startswith("run-"))
    return found


@pytest.mark.parametrize(
    "spoil",
    [
        "garbage",
        "truncated",
        "deep",
        "wrong-types",
        "other-version",
        "huge",
        "fifo",
        "directory",
    ],
)
def test_a_spoiled_cache_file_is_ignored_and_rewritten(
    spoil: str, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = "clg006/bad.yaml"
    expected = _check(capsys, target)
    path = _cache_file(repo)
    text = path.read_text("utf-8")
    data = json.loads(text.split("\n", 1)[1])  # after its seal line
    path.unlink()
    if spoil == "garbage":
        path.write_bytes(b"\x80\x00not json")
    elif spoil == "truncated":
        path.write_text(text[: len(text) // 2], "utf-8")
    elif spoil == "deep":
        path.write_text(seal("[" * 100_000 + "]" * 100_000, data["key"]) or "", "utf-8")
    elif spoil == "wrong-types":
        entry = data["designs"][target]
        entry["findings"][0]["line"] = "12"  # a string where a line number goes
        entry["findings"][0]["message"] = "forged"
        path.write_text(seal(json.dumps(data), data["key"]) or "", "utf-8")  # sealed: the shape
    elif spoil == "other-version":
        data["version"] = "0.0.0"
        data["designs"][target]["findings"] = []
        path.write_text(seal(json.dumps(data), data["key"]) or "", "utf-8")
    elif spoil == "huge":
        with open(path, "wb") as handle:
            handle.truncate(65 * 1024 * 1024)  # sparse: past the bound, read no further
    elif spoil == "fifo":
        os.mkfifo(path)
    elif spoil == "directory":
        path.mkdir()
    assert not _replays(capsys, target)
    assert _check(capsys, target) == expected  # checked again, the same report
    if spoil not in ("fifo", "directory"):
        assert _replays(capsys, target)  # and stored again over the spoiled file


def test_a_cache_folder_that_is_a_symlink_is_not_written_through(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (repo / DIRECTORY).symlink_to(elsewhere, target_is_directory=True)
    assert _check(capsys, "clg006/bad.yaml")[0] == 1
    assert list(elsewhere.iterdir()) == []


def test_the_cache_folder_holds_only_its_files(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _check(capsys, ".")
    names = {p.name for p in (repo / DIRECTORY).iterdir()}
    stored = names - {".gitignore", "CACHEDIR.TAG"}
    assert len(names) == 3 and len(stored) == 1  # no temporary file left
    assert stored.pop().endswith(".json")
    status = subprocess.run(
        ["git", "status", "--porcelain", "--ignored"], cwd=repo, text=True, capture_output=True
    )
    if status.returncode == 0:  # git installed: the folder ignores itself
        assert DIRECTORY not in status.stdout.replace(f"!! {DIRECTORY}/", "")


def test_the_repository_benchmark_runs_with_the_cache_off() -> None:
    """bench/run.py times cold checks: each of its dclint runs says --no-cache, except the
    cached repeat it measures on purpose."""
    text = (ROOT / "bench" / "run.py").read_text("utf-8")
    assert '"check", "--no-cache"' in text


def test_a_changed_calibration_profile_is_checked_again(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The check reads the profile a config names (calibration:), so its text is part of the
    configuration's key, not only its path."""
    profile = "gpus:\n  h100-sxm:\n    compute: 0.85\n    network: 0.6\n    overhead: 50 ms\n"
    where = repo / "cal"
    where.mkdir()
    # the sample's workload on 64 of its GPUs: PAR005's search (--layout-search), once a profile,
    # a third of the cost of one on 320
    text = (SAMPLES / "h100-40node.yaml").read_text(encoding="utf-8")
    assert text.count("    gpus: 320\n") == 1
    (where / "d.yaml").write_text(text.replace("    gpus: 320\n", "    gpus: 64\n"), "utf-8")
    (where / "p.yaml").write_text(profile, encoding="utf-8")
    (where / ".dclint.yaml").write_text("calibration: p.yaml\n", encoding="utf-8")
    _check(capsys, "cal/d.yaml")
    assert _replays(capsys, "cal/d.yaml")
    (where / "p.yaml").write_text(profile.replace("50 ms", "80 ms"), encoding="utf-8")
    assert not _replays(capsys, "cal/d.yaml")


# --- issue 54 item 5: an incremental cache ------------------------------------------------------


def _checked_files(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The designs the runs from here on check (not replay), in order."""
    seen: list[str] = []
    real = Engine.check_file

    def spy(self: Engine, file: str) -> object:
        seen.append(file)
        return real(self, file)

    monkeypatch.setattr(Engine, "check_file", spy)
    return seen


# the formats that store nothing of a design beyond its findings (_cache._extra: None) merge a
# run's checked and stored designs alike: text walks that path in the default tier, SARIF, GitHub
# and GitLab in integration (test_a_cached_run_prints_the_same_bytes_and_exit_code replays each)
SAME_PATH_AS_TEXT = ("sarif", "github", "gitlab")


@pytest.mark.parametrize(
    "fmt",
    [
        pytest.param(f, marks=pytest.mark.integration) if f in SAME_PATH_AS_TEXT else f
        for f in FORMAT_NAMES
    ],
)
def test_one_edited_design_of_many_is_the_only_one_checked(
    fmt: str, repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    flags = ["--format", fmt, "--show-waivers", "--statistics", "."]
    _check(capsys, *flags)  # stores every design
    design = repo / "clg006" / "good.yaml"
    text = design.read_text("utf-8").replace("capacity: 102 kW", "capacity: 40 kW")
    design.write_text(text, "utf-8")  # a new CLG006 error: 40 kW for 102 kW of liquid heat
    monkeypatch.setenv(ENV, "1")
    cold = _check(capsys, *flags)  # what a check without the cache prints now
    monkeypatch.delenv(ENV)
    seen = _checked_files(monkeypatch)
    warm = _check(capsys, *flags)
    assert seen == ["./clg006/good.yaml"]  # of the 7 designs, the edited one
    assert warm == cold and cold[0] == 1
    assert "rack n1 liquid cooling capacity 40 kW is below its" in cold[1]
    assert _check(capsys, *flags) == cold and len(seen) == 1  # then all replayed


def test_a_changed_fragment_checks_only_the_designs_that_include_it(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _check(capsys, ".")
    (repo / "parts" / "racks.yaml").write_text(FRAGMENT.replace("125 kW", "100 kW"), "utf-8")
    monkeypatch.setenv(ENV, "1")
    cold = _check(capsys, ".")
    monkeypatch.delenv(ENV)
    seen = _checked_files(monkeypatch)
    assert _check(capsys, ".") == cold
    assert seen == ["./inc.yaml"]


@pytest.mark.parametrize("fmt", ["junit", "markdown", "html"])
def test_a_design_stored_by_another_format_is_checked_again_then_replayed(
    fmt: str, repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A design stored by a text run lacks what JUnit (why rules do not apply) and a review
    (figures, sections) print of it: the first run in that format checks every design and
    keeps it, the next checks none."""
    _check(capsys, ".")  # text: findings only
    seen = _checked_files(monkeypatch)
    first = _check(capsys, "--format", fmt, ".")
    assert len(seen) == 7 and len(set(seen)) == 7
    again = _check(capsys, "--format", fmt, ".")
    assert len(seen) == 7 and again == first


def test_a_replayed_html_section_takes_its_anchors_from_its_new_place(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sections are ordered by verdict: a design that starts failing moves ahead of stored
    ones, whose sections (kept with their anchors left open) move down a place."""
    import re

    _check(capsys, "--format", "html", ".")
    design = repo / "clg006" / "good.yaml"
    text = design.read_text("utf-8").replace("capacity: 102 kW", "capacity: 40 kW")
    design.write_text(text, "utf-8")
    seen = _checked_files(monkeypatch)
    code, out, _ = _check(capsys, "--format", "html", ".")
    assert seen == ["./clg006/good.yaml"]
    sections = re.findall(r'<section class="design" id="d(\d+)"><h2>([^<]*)</h2>', out)
    assert [int(n) for n, _ in sections] == list(range(7))
    charts = re.findall(r'id="d(\d+)-[a-z]+\d*-t"', out)  # each chart's title, by section
    assert charts and set(charts) <= {n for n, _ in sections}
    monkeypatch.setenv(ENV, "1")
    assert _check(capsys, "--format", "html", ".") == (code, out, "")
