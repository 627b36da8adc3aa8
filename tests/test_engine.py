"""The engine: configuration, selection, suppressions, plugin rules, failures and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import TODAY
from dclint.cli import main
from dclint.engine.config import Config, load_config
from dclint.engine.runner import Engine, run
from dclint.errors import ConfigError

HOT = "name: hot\nracks:\n  - id: r01\n    platform: gb200-nvl72\n    it_load: 130 kW\n"


def findings(path: Path, **kwargs: object) -> list[tuple[str, int, str]]:
    result = run([str(path)], Engine(today=TODAY, **kwargs))  # type: ignore[arg-type]
    return [(f.rule, f.line, f.severity) for f in result.findings]


def test_pyproject_config_sets_option_and_severity(write) -> None:  # type: ignore[no-untyped-def]
    design = write(HOT)
    write('[tool.dclint]\nPWR001 = { limit = "132 kW" }\n', "pyproject.toml")
    assert findings(design) == []
    write('[tool.dclint]\nPWR001.severity = "warning"\n', "pyproject.toml")
    assert findings(design) == [("PWR001", 5, "warning")]


def test_dclint_yaml_found_from_a_parent_directory(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / ".dclint.yaml").write_text("ignore: [PWR]\n")
    design = tmp_path / "sub" / "d.yaml"
    design.write_text(HOT)
    assert findings(design) == []


def test_select_ignore_most_specific_wins(write) -> None:  # type: ignore[no-untyped-def]
    design = write(HOT)
    assert findings(design, cli={"ignore": ("PWR",)}) == []
    assert findings(design, cli={"ignore": ("PWR",), "select": ("PWR001",)}) == [
        ("PWR001", 5, "error")
    ]
    assert findings(design, cli={"select": ("NET",)}) == []


def test_per_file_ignores(write) -> None:  # type: ignore[no-untyped-def]
    design = write(HOT, "partial.yaml")
    write("per-file-ignores:\n  'partial*.yaml': [PWR001]\n", ".dclint.yaml")
    assert findings(design) == []


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("PWR999 = { limit = 1 }", "unknown rule id 'PWR999'"),
        ('PWR001 = { limt = "1 kW" }', "rule PWR001 has no option 'limt' (options: limit"),
        ('PWR001 = { limit = "120 kg" }', "option PWR001.limit: expected power"),
        ('select = ["XYZ"]', "'XYZ' matches no rule id"),
        ('fail-on = "fatal"', "fail-on: expected one of error, warning, info"),
        ("colour = 1", "colour: unknown config key"),
    ],
)
def test_bad_config_is_an_error(write, config: str, message: str) -> None:  # type: ignore[no-untyped-def]
    design = write(HOT)
    write(f"[tool.dclint]\n{config}\n", "pyproject.toml")
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(".", r"\.")):
        run([str(design)], Engine(today=TODAY))


def test_rule_that_raises_becomes_a_finding_and_exit_2(write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    rules = tmp_path / "myrules"
    rules.mkdir()
    (rules / "boom.py").write_text(
        '"""Boom.\n\n## What it does\nx\n## Why it matters\nx\n## Example\nx\n## Fix\nx\n"""\n'
        "from dclint.engine.rule import Rule\n\n"
        "class Boom(Rule):\n    id = 'TST001'\n    name = 'always-fails'\n\n"
        "    def check(self, design, ctx):\n        raise KeyError('racks')\n"
    )
    design = write(HOT)
    result = run([str(design)], Engine(today=TODAY, rules_dirs=(str(rules),)))
    failed = [f for f in result.findings if f.rule == "TST001"]
    assert [(f.line, f.severity, f.message) for f in failed] == [
        (1, "error", "rule TST001 failed on hot: KeyError: 'racks'")
    ]
    assert result.exit_code("error") == 2


def test_duplicate_rule_id_names_both_sources(tmp_path: Path) -> None:
    rules = tmp_path / "dup"
    rules.mkdir()
    (rules / "mine.py").write_text(
        "from dclint.engine.rule import Rule\n\n"
        "class Mine(Rule):\n    id = 'PWR001'\n    name = 'my-rack-rule'\n"
    )
    with pytest.raises(
        ConfigError,
        match=r"duplicate rule id PWR001: defined by built-in pack: "
        r"dclint\.rules\.power\.pwr001_rack_power_over_limit and by --rules-dir",
    ):
        Engine(rules_dirs=(str(rules),))


def test_suppression_on_line_and_above_and_reason_required(write) -> None:  # type: ignore[no-untyped-def]
    text = (
        "name: s\nracks:\n  - id: r01\n    platform: gb200-nvl72\n"
        "    it_load: 130 kW  # dclint: ignore[PWR001] vendor 132 kW rack\n"
        "  - id: r02\n    platform: gb200-nvl72\n"
        "    # dclint: ignore[PWR001] same rack model\n"
        "    it_load: 131 kW\n"
    )
    assert findings(write(text)) == []


def test_exit_codes_and_fail_on(write) -> None:  # type: ignore[no-untyped-def]
    hot = write(HOT)
    clean = write("name: ok\nracks:\n  - {id: r1, platform: gb200-nvl72}\n", "ok.yaml")
    bad = write("name: [\n", "bad.yaml")
    assert main(["check", "-q", str(clean)]) == 0
    assert main(["check", "-q", str(hot)]) == 1
    assert main(["check", "-q", str(bad)]) == 2
    assert main(["check", "-q", "--select", "PWR001", "--fail-on", "error", str(hot)]) == 1
    write('[tool.dclint]\nPWR001.severity = "info"\n', "pyproject.toml")
    assert main(["check", "-q", str(hot)]) == 0
    assert main(["check", "-q", "--fail-on", "info", str(hot)]) == 1
    assert main(["check", "--nope"]) == 2


def test_text_output_line_and_summary(write, capsys) -> None:  # type: ignore[no-untyped-def]
    hot = write(HOT)
    main(["check", str(hot)])
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"{hot}:5:14: PWR001 [error] rack r01 design IT load 130 kW exceeds the rack power "
        "limit (measured 130 kW, limit 120 kW)",
        "Found 1 error in 1 design.",
    ]


def test_quiet_prints_nothing_when_clean(write, capsys) -> None:  # type: ignore[no-untyped-def]
    clean = write("name: ok\nracks:\n  - {id: r1, platform: gb200-nvl72}\n")
    assert main(["check", "--quiet", str(clean)]) == 0
    assert capsys.readouterr().out == ""


def test_json_output_keys(write, capsys) -> None:  # type: ignore[no-untyped-def]
    hot = write(HOT)
    bad = write("name: t\nsite:\n  pue: high\n", "bad.yaml")
    main(["check", "--format", "json", str(hot), str(bad)])
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {"version", "designs"}
    first, second = data["designs"]
    assert first["name"] == "hot" and first["errors"] == []
    finding = first["findings"][0]
    assert {
        k: finding[k]
        for k in (
            "rule",
            "name",
            "severity",
            "line",
            "column",
            "path",
            "subject",
            "measured",
            "measured_value",
            "measured_unit",
            "limit",
            "limit_value",
            "limit_unit",
        )
    } == {
        "rule": "PWR001",
        "name": "rack-power-over-limit",
        "severity": "error",
        "line": 5,
        "column": 14,
        "path": "racks[0].it_load",
        "subject": "r01",
        "measured": "130 kW",
        "measured_value": 130.0,
        "measured_unit": "kW",
        "limit": "120 kW",
        "limit_value": 120.0,
        "limit_unit": "kW",
    }
    assert second["errors"] == [
        {
            "file": str(bad),
            "line": 3,
            "column": 8,
            "message": "site.pue: expected a number, got 'high'",
        }
    ]


def test_output_is_deterministic_and_sorted(write, capsys) -> None:  # type: ignore[no-untyped-def]
    design = write(HOT + "  - {id: r00, platform: gb200-nvl72, it_load: 200 kW}\n")
    main(["check", "--format", "json", str(design)])
    first = capsys.readouterr().out
    main(["check", "--format", "json", str(design)])
    assert capsys.readouterr().out == first
    lines = [f["line"] for f in json.loads(first)["designs"][0]["findings"]]
    assert lines == sorted(lines)


def test_missing_path_is_exit_2(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["check", "does/not/exist.yaml"]) == 2
    assert "does/not/exist.yaml:1:1: error: no such file or directory" in capsys.readouterr().out


def test_config_file_loader_rejects_non_mapping(tmp_path: Path) -> None:
    path = tmp_path / ".dclint.yaml"
    path.write_text("- a\n")
    with pytest.raises(ConfigError, match="config must be a mapping"):
        load_config(path)
    assert Config().select == ("ALL",)


def test_boundary_numbers_are_printed_apart(write, capsys) -> None:  # type: ignore[no-untyped-def]
    design = write("name: b\nracks:\n  - {id: r1, platform: gb200-nvl72, it_load: 120.001 kW}\n")
    main(["check", str(design)])
    assert capsys.readouterr().out.splitlines()[0] == (
        f"{design}:3:46: PWR001 [error] rack r1 design IT load 120.001 kW exceeds the rack power "
        "limit (measured 120.001 kW, limit 120 kW)"
    )


def test_counts_print_whole_and_other_numbers_to_four_digits() -> None:
    from dclint.engine.runner import _fmt

    assert _fmt(100008.0) == "100,008"  # NET005's endpoints, not 1e+05
    assert _fmt(65536) == "65,536"
    assert _fmt(0.123456) == "0.1235"
    assert _fmt(2.5e20) == "2.5e+20"


@pytest.mark.parametrize(("preset", "after"), [(None, "__all__"), ("logfire", "logfire")])
def test_the_command_line_turns_pydantic_plugins_off_unless_told(
    preset: str | None,
    after: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", preset or "")  # undone after the test
    if preset is None:
        monkeypatch.delenv("PYDANTIC_DISABLE_PLUGINS")
    assert main(["rules"]) == 0
    import os

    assert os.environ["PYDANTIC_DISABLE_PLUGINS"] == after


def test_the_command_line_collects_garbage_less_often_and_only_while_it_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gc

    from dclint import cli

    seen: list[tuple[int, ...]] = []

    def dispatch(args: object) -> int:
        seen.append(gc.get_threshold())
        return 0

    monkeypatch.setattr(cli, "dispatch", dispatch)
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        assert main(["rules"]) == 0
        assert seen == [(cli.GC_THRESHOLD, 10, 10)]
        assert gc.get_threshold() == (700, 10, 10)  # the caller's setting is back
    finally:
        gc.set_threshold(*before)


_DOC = '"""X.\n\n## What it does\nx\n## Why it matters\nx\n## Example\nx\n## Fix\nx\n"""\n'


def _rule(rule_id: str, name: str, limit: str) -> str:
    """A rule module flagging each rack's it_load above `limit` (an expression)."""
    return (
        _DOC + "from dclint.api import Rule, Violation, topology_of\n"
        f"{limit}\n\n"
        f"class R(Rule):\n    id = '{rule_id}'\n    name = '{name}'\n\n"
        "    def check(self, design, ctx):\n"
        "        for rack in topology_of(design).racks:\n"
        "            if rack.it_load.m_as('kW') > LIMIT:\n"
        "                yield Violation(rack.field_path('it_load'), f'{rack.id} over', "
        "subject=rack.id)\n"
    )


def test_a_rules_dir_loads_as_a_package_with_its_family_folders(write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A --rules-dir laid out as the built-in pack (a family folder whose rules import their
    `_shared` helpers relatively; examples beside them) loads whole, as when installed: its
    folders were not searched, and a relative import failed."""
    pack = tmp_path / "house"
    (pack / "power" / "examples" / "xpw001").mkdir(parents=True)
    (pack / "power" / "_shared.py").write_text("HOUSE_KW = 125\n")
    (pack / "power" / "xpw001_house_rack.py").write_text(
        _rule("XPW001", "house-rack", "from ._shared import HOUSE_KW as LIMIT")
    )
    (pack / "power" / "examples" / "xpw001" / "not_a_rule.py").write_text("raise SystemExit\n")
    (pack / "xst001_top.py").write_text(_rule("XST001", "top-level", "LIMIT = 129"))
    (pack / "_private.py").write_text("raise SystemExit\n")
    design = write(HOT)
    for _ in range(2):  # loaded afresh each time, as a server re-reads an edited pack
        result = run([str(design)], Engine(today=TODAY, rules_dirs=(str(pack),)))
        assert sorted((f.rule, f.line) for f in result.findings) == [
            ("PWR001", 5),
            ("XPW001", 5),
            ("XST001", 5),
        ]
        assert {f.message for f in result.findings if f.rule[0] == "X"} == {"r01 over"}
    (pack / "power" / "_shared.py").write_text("HOUSE_KW = 131\n")
    result = run([str(design)], Engine(today=TODAY, rules_dirs=(str(pack),)))
    assert sorted(f.rule for f in result.findings) == ["PWR001", "XST001"]


def test_a_rules_dir_module_that_fails_to_import_is_named(tmp_path: Path) -> None:
    pack = tmp_path / "house"
    (pack / "cooling").mkdir(parents=True)
    (pack / "cooling" / "xcl001_bad.py").write_text("from ._missing import X\n")
    with pytest.raises(
        ConfigError,
        match=r"xcl001_bad\.py: cannot import rule module: ModuleNotFoundError: No module named",
    ):
        Engine(rules_dirs=(str(pack),))


def test_a_rules_summary_is_its_docs_first_paragraph_not_its_first_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`dclint rules` cut CLG008's summary where its docstring wraps: 'Liquid loop supplied
    colder than the room's dew point plus a margin: pipes and cold plates' (CLG009, CLG010 and
    NET003 the same); the summary is the first paragraph, its lines joined."""
    assert main(["rules"]) == 0
    lines = [line.split(None, 3) for line in capsys.readouterr().out.splitlines()]
    summaries = {rid: summary for rid, _name, _severity, summary in lines}
    assert summaries["CLG008"] == (
        "Liquid loop supplied colder than the room's dew point plus a margin: pipes and cold "
        "plates sweat."
    )
    assert summaries["NET003"] == (
        "Link whose two ends run at different speeds or protocols: NIC vs switch port, or "
        "switch vs switch."
    )


def test_rules_and_explain_escape_a_rules_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`dclint rules` and `dclint explain` printed a --rules-dir rule's doc as it was, an
    OSC sequence (retitling the terminal) and all; they go through the reports' guard."""
    doc = '"""Evil \\x1b]0;owned\\x07 summary.\n\n## What it does\nx\n## Why it matters\nx\n'
    doc += '## Example\nx\n## Fix\nx\n"""\n'
    (tmp_path / "esc001.py").write_text(
        doc + "from dclint.api import Rule\n\n\nclass R(Rule):\n    id = 'ESC001'\n"
        "    name = 'escape-summary'\n\n    def check(self, design, ctx):\n"
        "        return iter(())\n",
        encoding="utf-8",
    )
    assert main(["rules", "--rules-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert (
        "escape-summary                           error    Evil \\x1b]0;owned\\x07 summary." in out
    )
    assert main(["explain", "ESC001", "--rules-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert out.startswith(
        "ESC001 escape-summary [error]  tags: -\n\nEvil \\x1b]0;owned\\x07 summary."
    )
