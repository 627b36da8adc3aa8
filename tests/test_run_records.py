"""Issue 30's speed target for the results cache: run records (dclint/cli/_runs.py).

A `check` that used the results cache records what it printed; a repeat of the same command
line (the console script's path: dclint.cli._runs.replay, before argparse) prints the same
bytes with the same exit code while nothing it depends on changed, and runs the check as
before (None) when anything did; it imports neither argparse nor the engine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES
from dclint.cli import _runs, main
from dclint.cli._cache import DIRECTORY, ENV
from dclint.cli._seal import seal

TODAY = ["--today", "2026-12-02"]
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
    """A repository (`.git`, no config at its root) with a design that has findings (its
    folder's config sets a rule's severity), a clean one and one that includes a fragment."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "pwr").mkdir()
    for name in ("bad.yaml", "good.yaml"):
        text = (EXAMPLES / "pwr001" / name).read_text("utf-8")
        (tmp_path / "pwr" / name).write_text(text, "utf-8")
    (tmp_path / "pwr" / ".dclint.yaml").write_text("PWR001:\n  severity: warning\n", "utf-8")
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
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _replay(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int | None, str]:
    code = _runs.replay(["check", *argv])
    return code, capsys.readouterr().out


def _records(repo: Path) -> list[Path]:
    return sorted((repo / DIRECTORY).glob(f"{_runs.PREFIX}*.json"))


ARGS = [*TODAY, "pwr/bad.yaml", "inc.yaml", "pwr/good.yaml"]


@pytest.mark.parametrize("flags", [[], ["--format", "github"], ["--exit-zero"], ["-q"]])
def test_a_repeat_prints_the_same_bytes_and_exit_code(
    flags: list[str], repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _replay(capsys, *flags, *ARGS) == (None, "")  # nothing recorded yet
    code, out, err = _check(capsys, *flags, *ARGS)
    assert (code, err) == (0 if flags == ["--exit-zero"] else 1, "")
    if "-q" not in flags:
        assert "PWR001" in out and "parts/racks.yaml" in out
    assert len(_records(repo)) == 1
    assert _replay(capsys, *flags, *ARGS) == (code, out)
    assert _check(capsys, *flags, *ARGS) == (code, out, "")  # replayed by design, the same


def test_another_command_line_is_not_replayed(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _check(capsys, *ARGS)
    assert _replay(capsys, "--format", "github", *ARGS)[0] is None  # another report
    assert _replay(capsys, "--select", "PWR", *ARGS)[0] is None  # other findings
    assert _replay(capsys, *ARGS[:-1])[0] is None  # fewer designs
    assert _replay(capsys, *ARGS)[0] == 1


def test_any_change_it_depends_on_runs_the_check(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def recorded() -> bool:
        _check(capsys, *ARGS)
        return _replay(capsys, *ARGS)[0] is not None

    assert recorded()
    design = repo / "pwr" / "good.yaml"
    design.write_text(design.read_text("utf-8") + "\n# a comment\n", "utf-8")
    assert _replay(capsys, *ARGS)[0] is None  # a design
    assert recorded()
    (repo / "parts" / "racks.yaml").write_text(FRAGMENT.replace("125", "100"), "utf-8")
    assert _replay(capsys, *ARGS)[0] is None  # a file a design includes
    assert recorded()
    (repo / "pwr" / ".dclint.yaml").write_text("PWR001:\n  severity: info\n", "utf-8")
    assert _replay(capsys, *ARGS)[0] is None  # a config
    assert recorded()
    (repo / "parts" / ".dclint.yaml").write_text("fail-on: warning\n", "utf-8")
    (repo / ".dclint.yaml").write_text("fail-on: info\n", "utf-8")
    assert _replay(capsys, *ARGS)[0] is None  # a config now governs inc.yaml
    assert recorded()
    today = _runs._today
    monkeypatch.setattr(_runs, "_today", lambda: "2099-01-01")
    assert _replay(capsys, *ARGS)[0] is None  # another day (suppressions expire)
    monkeypatch.setattr(_runs, "_today", today)  # (not undo(): the cache stays on, as set)
    assert _replay(capsys, *ARGS)[0] is not None
    monkeypatch.setenv("NO_COLOR", "1")
    assert _replay(capsys, *ARGS)[0] is None  # colour may differ
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv(ENV, "1")
    assert _replay(capsys, *ARGS)[0] is None  # the cache is off
    monkeypatch.delenv(ENV)
    assert _replay(capsys, *ARGS)[0] == _check(capsys, *ARGS)[0]


def test_runs_that_are_not_recorded(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    _check(capsys, *TODAY, "pwr")  # a directory modified less than 2 s ago (RACY_NS)
    _check(capsys, *TODAY, "--no-cache", "pwr/bad.yaml")
    _check(capsys, *TODAY, "-o", "report.txt", "pwr/bad.yaml")
    _check(capsys, *TODAY, "--rules-dir", str(EXAMPLES.parent), "pwr/bad.yaml")
    (repo / "broken.yaml").write_text("name: b\nracks: [\n", encoding="utf-8")
    assert _check(capsys, *TODAY, "broken.yaml")[0] == 2
    (repo / "warned").mkdir()
    (repo / "warned" / "d.yaml").write_text((repo / "pwr" / "bad.yaml").read_text("utf-8"))
    (repo / "warned" / ".dclint.yaml").write_text("max-ids: 100000000\n", "utf-8")
    _, _, err = _check(capsys, *TODAY, "warned/d.yaml")
    assert "max-ids 100,000,000 ignored" in err  # a warning, which a replay would not print
    assert _records(repo) == []
    elsewhere = tmp_path_factory.mktemp("no-repository")  # no config, no .git: no cache folder
    (elsewhere / "d.yaml").write_text((repo / "pwr" / "bad.yaml").read_text("utf-8"))
    os.chdir(elsewhere)
    _check(capsys, *TODAY, "d.yaml")
    assert _replay(capsys, *TODAY, "d.yaml")[0] is None


def _aged(*folders: Path) -> None:
    """Set the folders' modification time an hour back (past RACY_NS): a record of a search
    through them is made."""
    for folder in folders:
        info = folder.stat()
        os.utime(folder, ns=(info.st_atime_ns, info.st_mtime_ns - 3600 * 10**9))


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "gitlab", "html"])
def test_a_directory_is_replayed_in_every_format(
    fmt: str, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`dclint check .` (issue 54 item 5): the searched directories are stat'ed, not searched,
    and every format's report replays."""
    (repo / "notes.yaml").write_text("services: {}\n", "utf-8")  # YAML, not a design
    for folder in (repo, repo / "pwr"):  # made before the folders are aged (pwr/ has a config)
        (folder / DIRECTORY).mkdir(mode=0o700)
    _aged(repo, repo / "pwr", repo / "parts")
    argv = [*TODAY, "--format", fmt, "."]
    code, out, err = _check(capsys, *argv)
    assert (code, err) == (1, "") and len(_records(repo)) == 1
    assert _replay(capsys, *argv) == (code, out)
    record = json.loads(_records(repo)[0].read_text("utf-8").split("\n", 1)[1])
    searched = sorted(d for d, *_ in record["dirs"])
    assert searched == [".", "./parts", "./pwr"]  # not .git, not the cache folder
    assert "./notes.yaml" in dict(record["digests"])  # met, though no design


def test_what_a_directorys_search_finds_anew_runs_the_check(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for folder in (repo, repo / "pwr"):
        (folder / DIRECTORY).mkdir(mode=0o700)

    def recorded() -> bool:
        _aged(repo, *(d for d in repo.iterdir() if d.is_dir() and d.name[0] != "."))
        _check(capsys, *TODAY, ".")
        return _replay(capsys, *TODAY, ".")[0] is not None

    assert recorded()
    new = repo / "pwr" / "copy.yaml"
    new.write_text((repo / "pwr" / "good.yaml").read_text("utf-8"), "utf-8")
    assert _replay(capsys, *TODAY, ".")[0] is None  # a design added in a subfolder
    assert recorded()
    notes = repo / "parts" / "notes.yaml"
    notes.write_text("services: {}\n", "utf-8")
    assert _replay(capsys, *TODAY, ".")[0] is None  # any YAML added
    assert recorded()
    notes.write_text("name: n\nracks: []\n", "utf-8")  # now says it is a design
    assert _replay(capsys, *TODAY, ".")[0] is None  # a YAML file that was no design edited
    assert recorded()
    new.unlink()
    assert _replay(capsys, *TODAY, ".")[0] is None  # a design removed
    assert recorded()
    (repo / "pwr").chmod(0o500)  # the change time
    try:
        assert _replay(capsys, *TODAY, ".")[0] is None
    finally:
        (repo / "pwr").chmod(0o700)
    assert recorded()
    (repo / "sub").mkdir()
    assert _replay(capsys, *TODAY, ".")[0] is None  # a folder added
    assert recorded()
    (repo / "sub" / ".dclint.yaml").write_text("fail-on: info\n", "utf-8")
    assert _replay(capsys, *TODAY, ".")[0] is None  # a config added (a hidden file)
    assert recorded()
    assert _replay(capsys, *TODAY, "./")[0] is None  # another command line


def test_a_record_of_markdown_keeps_the_commits_it_printed(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from dclint.report import commits

    seen = {"commit": "0123456789ab"}
    monkeypatch.setattr(commits, "_git", lambda folder, *args: _fake_git(seen, args))
    argv = [*TODAY, "--format", "markdown", "pwr/bad.yaml"]
    code, out, _ = _check(capsys, *argv)
    assert "0123456789ab" in out
    assert _replay(capsys, *argv) == (code, out)
    seen["commit"] = "ba9876543210"  # a new commit: the report would say so
    assert _replay(capsys, *argv)[0] is None
    assert "ba9876543210" in _check(capsys, *argv)[1]


def _fake_git(seen: dict[str, str], args: tuple[str, ...]) -> str:
    if args[0] == "rev-parse":
        return f"/nowhere\n{seen['commit']}abcdef\n"
    return ""


def test_a_config_changed_during_the_check_is_not_recorded(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = repo / "pwr" / ".dclint.yaml"
    real = _runs.Snapshot.__init__

    def then_edit(self: _runs.Snapshot, paths: list[str], given: str | None) -> None:
        real(self, paths, given)  # digests taken; the check reads the config after this
        config.write_text("PWR001:\n  severity: info\n", "utf-8")

    monkeypatch.setattr(_runs.Snapshot, "__init__", then_edit)
    _check(capsys, *ARGS)
    assert _records(repo) == []


def test_a_config_given_is_hashed_as_a_found_one(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "given.yaml").write_text("fail-on: warning\n", "utf-8")
    flags = ["--config", "./given.yaml", *ARGS]
    code, out, _ = _check(capsys, *flags)
    assert code == 1 and _replay(capsys, *flags) == (code, out)
    (repo / "given.yaml").write_text("fail-on: error\n", "utf-8")
    assert _replay(capsys, *flags)[0] is None


@pytest.mark.parametrize(
    "spoil",
    ["garbage", "deep", "wrong-code", "forged-key", "no-designs", "not-pairs", "directory"],
)
def test_a_spoiled_record_is_no_record(
    spoil: str, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _check(capsys, *ARGS)
    (path,) = _records(repo)
    data = json.loads(path.read_text("utf-8").split("\n", 1)[1])  # after its seal line

    def sealed(changed: dict[str, object]) -> str:  # with the user's own seal: the shape
        return seal(json.dumps({**data, **changed}), data["key"]) or ""

    path.unlink()
    if spoil == "garbage":
        path.write_bytes(b"\x80\x00not json")
    elif spoil == "deep":
        path.write_text(seal("[" * 100_000 + "]" * 100_000, data["key"]) or "", "utf-8")
    elif spoil == "wrong-code":
        path.write_text(sealed({"code": 2}), "utf-8")
    elif spoil == "forged-key":
        path.write_text(sealed({"key": "0" * 64}), "utf-8")
    elif spoil == "no-designs":
        path.write_text(sealed({"designs": []}), "utf-8")
    elif spoil == "not-pairs":
        path.write_text(sealed({"digests": [["a", "b", "c"]]}), "utf-8")
    elif spoil == "directory":
        path.mkdir()
    assert _replay(capsys, *ARGS) == (None, "")


def test_only_the_latest_records_are_kept(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_runs, "MAX_RUNS", 2)
    codes = {d: _check(capsys, *TODAY, d)[0] for d in ("pwr/bad.yaml", "pwr/good.yaml", "inc.yaml")}
    assert len(_records(repo)) == 2
    assert _replay(capsys, *TODAY, "inc.yaml")[0] == codes["inc.yaml"] == 1
    assert _replay(capsys, *TODAY, "pwr/good.yaml")[0] == codes["pwr/good.yaml"] == 0
    assert _replay(capsys, *TODAY, "pwr/bad.yaml")[0] is None  # the oldest, removed


def test_the_console_scripts_repeat_imports_no_parser_and_no_engine(repo: Path) -> None:
    script = (
        "import json, sys\n"
        "from dclint.cli import _replay_or_main\n"
        "sys.argv[0] = 'dclint'\n"
        "code = _replay_or_main()\n"
        "sys.stdout.flush()\n"
        "seen = sorted(m for m in ('argparse', 'typing', 'dclint.engine', 'dclint.report',"
        " 'hashlib', 'yaml', 'pint', 'pydantic') if m in sys.modules)\n"
        "print(json.dumps([code, seen]), file=sys.stderr)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != ENV}
    argv = [sys.executable, "-c", script, "check", *ARGS]
    runs = [subprocess.run(argv, capture_output=True, text=True, env=env) for _ in range(2)]
    (cold_code, cold_seen), (code, seen) = (json.loads(r.stderr.splitlines()[-1]) for r in runs)
    assert cold_code == 1 and {"argparse", "dclint.engine", "pint"} <= set(cold_seen)
    assert (code, seen) == (1, [])
    assert runs[0].stdout == runs[1].stdout and "PWR001" in runs[1].stdout


def test_a_cold_check_spends_nothing_on_records(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--no-cache (no record is ever made with it) and a working directory without a cache
    folder yet skip the record's key (dclint's files listed and hashed) altogether."""

    def refuse(argv: list[str], day: str) -> str:
        raise AssertionError("the key was computed")

    monkeypatch.setattr(_runs, "run_key", refuse)
    assert _runs.replay(["check", "--no-cache", *ARGS]) is None
    assert not (repo / DIRECTORY).exists()
    assert _runs.replay(["check", *ARGS]) is None
