"""Issue 30 item 5, the rest of ruff's habits: --isolated, --show-settings, extend-select and
extend-ignore, the GitLab Code Quality format and per-file options. Each failed before."""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from dclint.cli import main

ROOT = Path(__file__).resolve().parent.parent
BROKEN = ROOT / "sample_designs" / "broken-rack-130kw.yaml"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding the 130 kW design (PWR001 at line 53) and a config; the cwd."""
    shutil.copy(BROKEN, tmp_path / "hall.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _config(repo: Path, text: str) -> Path:
    path = repo / ".dclint.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _found(capsys: pytest.CaptureFixture[str]) -> list[tuple[str, int]]:
    (design,) = json.loads(capsys.readouterr().out)["designs"]
    return [(f["rule"], f["line"]) for f in design["findings"]]


# --- --isolated ---------------------------------------------------------------------------


def test_isolated_reads_no_config(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _config(repo, "ignore: [PWR001]\n")
    assert main(["check", "hall.yaml", "--format", "json"]) == 0
    assert _found(capsys) == []
    assert main(["check", "hall.yaml", "--format", "json", "--isolated"]) == 1
    assert _found(capsys) == [("PWR001", 53)]
    # the command line still selects, as ruff's --isolated keeps its flags
    assert main(["check", "hall.yaml", "--isolated", "--ignore", "PWR001"]) == 0


def test_isolated_with_a_config_file_is_an_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(repo, "ignore: [PWR001]\n")
    assert main(["check", "hall.yaml", "--isolated", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"dclint: error: --config {config} cannot be used with --isolated (which reads no "
        "config file); drop one of them\n"
    )


def test_explain_isolated_shows_the_defaults(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(repo, "PWR001: {severity: warning}\n")
    assert main(["explain", "PWR001"]) == 0
    assert capsys.readouterr().out.startswith("PWR001 rack-power-over-limit [warning]")
    assert main(["explain", "PWR001", "--isolated"]) == 0
    assert capsys.readouterr().out.startswith("PWR001 rack-power-over-limit [error]")


# --- the GitLab Code Quality format ---------------------------------------------------------

# the fields GitLab's "Code Quality report format" requires of each entry (GitLab's docs)
CODE_QUALITY = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "description": {"type": "string", "minLength": 1},
            "check_name": {"type": "string", "minLength": 1},
            "fingerprint": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {
                "type": "object",
                "required": ["path", "lines"],
                "properties": {
                    "path": {"type": "string", "pattern": "^[^/.]"},
                    "lines": {
                        "type": "object",
                        "required": ["begin"],
                        "properties": {"begin": {"type": "integer", "minimum": 1}},
                    },
                },
            },
        },
    },
}


def test_gitlab_code_quality_report(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import jsonschema

    (repo / "bad.yaml").write_text("name: bad\nracks: [{id: r1, it_load: 120}]\n", "utf-8")
    assert main(["check", "hall.yaml", "bad.yaml", "--format", "gitlab"]) == 2
    report = json.loads(capsys.readouterr().out)
    jsonschema.validate(report, CODE_QUALITY)
    shape = [(e["check_name"], e["severity"], e["location"]["path"]) for e in report]
    assert [(e["location"]["lines"]["begin"]) for e in report] == [53, 2]
    assert shape == [("PWR001", "major", "hall.yaml"), ("DCL000", "blocker", "bad.yaml")]
    assert report[0]["description"] == (
        "PWR001 rack-power-over-limit: rack su1-r8 design IT load 130 kW exceeds the rack "
        "power limit (measured 130 kW, limit 120 kW) Fix: "
        + report[0]["description"].split(" Fix: ", 1)[1]
    )
    # stable: the same findings give the same fingerprints, and no two entries share one
    main(["check", "hall.yaml", "bad.yaml", "--format", "gitlab"])
    again = json.loads(capsys.readouterr().out)
    assert [e["fingerprint"] for e in again] == [e["fingerprint"] for e in report]
    assert len({e["fingerprint"] for e in report}) == len(report)


# --- extend-select and extend-ignore ------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "argv", "found"),
    [
        # extend-select adds to the file's select; extend-ignore to its ignore
        ("select: [PWR002]\nextend-select: [PWR001]\n", [], [("PWR001", 53)]),
        ("extend-ignore: [PWR001]\n", [], []),
        ("ignore: [PWR]\nextend-ignore: [NET]\n", [], []),
        # the most specific pattern wins across select and extend-select, as in ruff
        ("ignore: [PWR]\nextend-select: [PWR001]\n", [], [("PWR001", 53)]),
        # the command line is a layer over the file's: a --select of its own starts afresh,
        ("ignore: [PWR001]\n", ["--select", "PWR"], [("PWR001", 53)]),
        # --extend-select and --ignore alone change what the file selected
        ("ignore: [PWR001]\n", ["--ignore", "NET"], []),
        ("ignore: [PWR001]\n", ["--extend-select", "PWR001"], [("PWR001", 53)]),
        ("extend-select: [PWR001]\nselect: [NET]\n", ["--ignore", "PWR001"], []),
    ],
)
def test_extend_select_and_extend_ignore(
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    config: str,
    argv: list[str],
    found: list[tuple[str, int]],
) -> None:
    _config(repo, config)
    main(["check", "hall.yaml", "--format", "json", *argv])
    assert _found(capsys) == found


def test_extend_select_in_pyproject(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "pyproject.toml").write_text(
        '[tool.dclint]\nselect = ["NET"]\nextend-select = ["PWR001"]\n', encoding="utf-8"
    )
    assert main(["check", "hall.yaml", "--format", "json"]) == 1
    assert _found(capsys) == [("PWR001", 53)]


def test_an_extend_select_matching_no_rule_is_an_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(repo, "select: [ALL]\nextend-ignore: [PWX]\n")
    assert main(["check", "hall.yaml"]) == 2
    assert capsys.readouterr().err == (f"dclint: error: {config}:2:1: 'PWX' matches no rule id\n")
    assert main(["check", "hall.yaml", "--extend-select", "PWX", "--isolated"]) == 2
    assert capsys.readouterr().err == "dclint: error: --extend-select: 'PWX' matches no rule id\n"


# --- per-file options -----------------------------------------------------------------------


def test_per_file_options_fit_one_design(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A 132 kW limit for the one hall built for it: the folder passes, the twin still fails."""
    (repo / "designs").mkdir()
    shutil.move(repo / "hall.yaml", repo / "designs" / "hall.yaml")
    shutil.copy(BROKEN, repo / "designs" / "twin.yaml")
    _config(repo, "per-file:\n  designs/hall.yaml:\n    PWR001: {limit: 132 kW}\n")
    assert main(["check", "designs", "--format", "json"]) == 1
    designs = json.loads(capsys.readouterr().out)["designs"]
    assert [(d["file"], [(f["rule"], f["line"]) for f in d["findings"]]) for d in designs] == [
        ("designs/hall.yaml", []),
        ("designs/twin.yaml", [("PWR001", 53)]),
    ]


def test_per_file_ignore_and_severity_in_pyproject(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(BROKEN, repo / "twin.yaml")
    (repo / "pyproject.toml").write_text(
        "[tool.dclint]\n"
        'select = ["ALL"]\n'
        '[tool.dclint.per-file."hall.yaml"]\n'
        'ignore = ["PWR001"]\n'
        '[tool.dclint.per-file."twin*"]\n'
        'PWR001 = { severity = "warning" }\n',
        encoding="utf-8",
    )
    assert main(["check", "hall.yaml", "twin.yaml"]) == 0  # a warning alone exits 0
    assert (
        capsys.readouterr()
        .out.splitlines()[0]
        .startswith("twin.yaml:53:14: PWR001 [warning] rack su1-r8")
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "per-file:\n  '*.yaml':\n    ignre: [PWR001]\n",
            "per-file.*.yaml: ignre: not a per-file setting; did you mean 'ignore'? (per-file "
            "takes ignore and severity and options of a rule id, e.g. PWR001 = {limit = ...})",
        ),
        (
            "per-file:\n  '*.yaml':\n    PWR999: {limit: 1 kW}\n",
            ".dclint.yaml:2:3: per-file '*.yaml': unknown rule id 'PWR999'",
        ),
        (
            "per-file:\n  'nothing-matches/*':\n    PWR001: {limit: 132 kg}\n",
            ".dclint.yaml:2:3: per-file 'nothing-matches/*': option PWR001.limit: expected power",
        ),
        ("per-file: [a]\n", "per-file: expected a mapping of glob to a table of settings"),
    ],
)
def test_a_bad_per_file_setting_is_an_error(
    repo: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    _config(repo, text)
    assert main(["check", "hall.yaml"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith(f"dclint: error: {repo / '.dclint.yaml'}")


# --- --show-settings ------------------------------------------------------------------------


def test_show_settings_as_json(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(
        repo,
        "ignore: [NET]\nextend-ignore: [STO]\nfail-on: warning\n"
        "PWR002: {severity: warning}\n"
        "per-file:\n  hall.yaml:\n    PWR001: {limit: 132 kW}\n",
    )
    argv = ["check", "hall.yaml", "--show-settings", "--format", "json"]
    argv += ["--extend-select", "NET001"]
    assert main(argv) == 0
    settings = json.loads(capsys.readouterr().out)
    assert settings["file"] == "hall.yaml"
    assert settings["config"] == str(config)
    assert (settings["ignore"], settings["extend-ignore"]) == (["NET"], ["STO"])
    assert settings["command-line"] == {"select": None, "extend-select": ["NET001"], "ignore": []}
    assert settings["per-file"] == ["hall.yaml"]
    assert settings["fail-on"] == "warning"
    assert settings["rules"]["PWR001"] == {
        "severity": "error",
        "options": {"limit": "132 kW", "platform_limits": {}},
    }
    assert settings["rules"]["PWR002"]["severity"] == "warning"
    assert settings["rules"]["NET001"]["options"]["limit"] == "1:1"
    assert "NET002" in settings["not-selected"] and "STO001" in settings["not-selected"]
    assert not any(r.startswith(("NET002", "STO")) for r in settings["rules"])


def test_show_settings_as_text_and_isolated(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _config(repo, "PWR001: {limit: 100 kW}\n")
    assert main(["check", ".", "--show-settings", "--isolated"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "Resolved settings for: ./hall.yaml\nSettings path: none (dclint defaults)\n\n"
        "isolated = true\n"
    )
    assert '[rules.PWR001]\nseverity = "error"\nlimit = "120 kW"\n' in out
    assert 'protocol_efficiency = "90%"\n' in out  # a share as a percentage
    assert main(["check", ".", "--show-settings", "--format", "sarif"]) == 2
    assert capsys.readouterr().err == (
        "dclint: error: --show-settings prints text or json (--format text|json)\n"
    )


# --- the configuration's JSON Schema --------------------------------------------------------


@functools.cache  # checked against the meta-schema and built once a process
def _config_validator() -> Any:
    import jsonschema

    schema = json.loads((ROOT / "schemas" / "config.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_config_schema_is_in_sync(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "config"]) == 0
    assert capsys.readouterr().out == (ROOT / "schemas" / "config.schema.json").read_text(
        encoding="utf-8"
    ), (
        "schemas/config.schema.json is stale: run "
        "`dclint schema config > schemas/config.schema.json`"
    )


@pytest.mark.parametrize(
    ("config", "errors"),
    [
        (
            {
                "select": ["ALL"],
                "extend-ignore": "STO004",
                "fail-on": "warning",
                "PWR001": {"limit": "132 kW", "severity": "warning"},
                "NET001": {"tier_limits": {"compute.spine": "7:1"}},
                "per-file": {"designs/hall-7.yaml": {"PWR001": {"limit": "142 kW"}}},
            },
            [],
        ),
        (
            {"fail-onn": "error"},
            ["Additional properties are not allowed ('fail-onn' was unexpected)"],
        ),
        (
            {"PWR001": {"limt": "1 kW"}},
            ["Additional properties are not allowed ('limt' was unexpected)"],
        ),
        ({"per-file": {"*": {"PWR001": {"limit": "132 kg"}}}}, ["'132 kg' does not match"]),
        ({"NET001": {"limit": "7 to 1"}}, ["'7 to 1' is not valid under any of the given schemas"]),
    ],
)
def test_the_config_schema_marks_what_dclint_refuses(
    config: dict[str, Any], errors: list[str]
) -> None:
    messages = [e.message for e in _config_validator().iter_errors(config)]
    assert [m[: len(want)] for m, want in zip(messages, errors, strict=False)] == errors
    assert len(messages) == len(errors)


def test_every_config_in_the_repository_validates() -> None:
    from dclint.loader.yamlsafe import read_yaml

    found = [p for p in ROOT.glob("**/.dclint.y*ml") if ".venv" not in p.parts]
    assert found
    for path in found:
        data, _ = read_yaml(str(path), path.read_text(encoding="utf-8"))
        assert [e.message for e in _config_validator().iter_errors(data)] == [], path
