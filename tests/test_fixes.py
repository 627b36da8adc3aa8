"""`check --fix`, `--unsafe-fixes`, `--diff`, `--fix-includes`, `--add-suppressions` and
`plan --apply`: each fix's exact edit, comments and order kept, nothing written outside the
file checked unless asked; every test fails before its fix existed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dclint.cli import main

ROOT = Path(__file__).resolve().parent.parent

FEEDS = """\
name: pw
power:
  feeds:
    # the A side
    - {id: fa, voltage: 415 V, current_rating: 100 A, path: A}
    - id: fb
      voltage: 415 V
      current_rating: 100 A   # B side
      path: B
racks:
  - id: r1
    it_load: 90 kW
    feeds: [fa, fb]
"""

STALE = """\
name: stale
power:
  feeds:
    - {id: fa, voltage: 415 V, current_rating: 250 A, path: A}
    - {id: fb, voltage: 415 V, current_rating: 250 A, path: B}
# dclint: ignore[PWR003] until=2020-01-01 waived for the pilot
racks:
  - {id: r1, it_load: 100 kW, feeds: [fa, fb]}  # dclint: ignore[NET001] no fabric yet
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _check(*argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["check", "--today", "2026-12-03", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_safe_fix_removes_stale_suppressions_and_reports_what_is_left(work, capsys) -> None:
    (work / "d.yaml").write_text(STALE)
    code, out, err = _check("--fix", "d.yaml", capsys=capsys)
    assert (work / "d.yaml").read_text() == STALE.replace(
        "# dclint: ignore[PWR003] until=2020-01-01 waived for the pilot\n", ""
    ).replace("  # dclint: ignore[NET001] no fabric yet", "")
    assert out.splitlines() == [
        "d.yaml:6: DCL004 fixed: removed the expired suppression of PWR003",
        "d.yaml:8: DCL001 fixed: removed the unused suppression of NET001",
        "All checks passed: 1 design, no findings.",
    ]
    assert (code, err) == (0, "")


def test_unsafe_fixes_need_the_flag_and_raise_ratings_to_a_standard_size(work, capsys) -> None:
    (work / "d.yaml").write_text(FEEDS)
    code, out, err = _check("--fix", "d.yaml", capsys=capsys)
    assert (work / "d.yaml").read_text() == FEEDS  # nothing safe to do
    assert code == 1
    assert err == (
        "dclint: 3 more fixes would change the design; see them with --diff --unsafe-fixes, "
        "apply with --fix --unsafe-fixes\n"
    )
    code, out, _ = _check("--fix", "--unsafe-fixes", "d.yaml", capsys=capsys)
    # 90 kW on 54.63 kW at 100 A needs 164.7 A: the next NEC 240.6(A) rating is 175 A,
    # written where each feed writes it, the flow mapping and the comment kept
    assert (work / "d.yaml").read_text() == FEEDS.replace("100 A", "175 A")
    assert out.splitlines()[:2] == [
        "d.yaml:5: PWR003 fixed: feed fa current_rating 100 A -> 175 A (the next standard "
        "rating, NEC 240.6(A)) to carry 90 kW",
        "d.yaml:8: PWR003 fixed: feed fb current_rating 100 A -> 175 A (the next standard "
        "rating, NEC 240.6(A)) to carry 90 kW",
    ]
    assert out.splitlines()[-1] == "All checks passed: 1 design, no findings."
    assert code == 0


def test_diff_writes_nothing_and_exits_1(work, capsys) -> None:
    (work / "d.yaml").write_text(FEEDS)
    code, out, _ = _check("--diff", "--unsafe-fixes", "d.yaml", capsys=capsys)
    assert code == 1
    assert (work / "d.yaml").read_text() == FEEDS
    assert "-    - {id: fa, voltage: 415 V, current_rating: 100 A, path: A}" in out.splitlines()
    assert "+      current_rating: 175 A   # B side" in out.splitlines()


def test_net001_fix_adds_the_uplinks_and_spines_it_states(work, capsys) -> None:
    text = (ROOT / "sample_designs" / "broken-fabric-2to1.yaml").read_text()
    (work / "f.yaml").write_text(text.replace("../schemas", "schemas"))
    code, out, _ = _check("--select", "NET001", "--fix", "--unsafe-fixes", "f.yaml", capsys=capsys)
    assert out.splitlines() == [  # a line each fix, saying what it changed
        "f.yaml:84: NET001 fixed: tier leaf uplinks 16 -> 32 a switch for 1:1",
        "f.yaml:84: NET001 fixed: tier spine count 6 -> 12 switches to take the uplinks",
        "All checks passed: 1 design, no findings.",
    ]
    new = (work / "f.yaml").read_text().splitlines()
    at = new.index("        uplinks: 32  # expect: NET001")  # 32 down : 32 up on each leaf
    assert new[at + 1 : at + 5] == [
        "      - name: spine",
        "        switch: qm9700",
        "        count: 12",  # 18 leaves x 32 uplinks = 576 = 12 spines x 48 downlinks
        "        downlinks: 48",
    ]
    assert code == 0


def test_a_fix_in_a_fragment_needs_fix_includes(work, capsys) -> None:
    power, racks = FEEDS.replace("name: pw\n", "").split("racks:")
    (work / "d.yaml").write_text("name: inc\ninclude: [power.yaml]\nracks:" + racks)
    (work / "power.yaml").write_text(power)
    before = (work / "power.yaml").read_text()
    code, _, err = _check("--fix", "--unsafe-fixes", "d.yaml", capsys=capsys)
    assert (work / "power.yaml").read_text() == before
    assert "the value is written in power.yaml (an included file): fix it there, or run " in err
    code, _, _ = _check("--fix", "--unsafe-fixes", "--fix-includes", "d.yaml", capsys=capsys)
    assert (work / "power.yaml").read_text() == before.replace("100 A", "175 A")
    assert code == 0


def test_add_suppressions_writes_a_reasoned_comment_per_finding(work, capsys) -> None:
    (work / "d.yaml").write_text(FEEDS)
    code, out, _ = _check("--add-suppressions", "accepted at adoption", "d.yaml", capsys=capsys)
    lines = (work / "d.yaml").read_text().splitlines()
    assert lines[4].endswith("path: A}  # dclint: ignore[PWR003] accepted at adoption")
    assert (
        lines[7]
        == "      current_rating: 100 A   # B side  # dclint: ignore[PWR003] accepted at adoption"
    )
    assert lines[12] == "    feeds: [fa, fb]  # dclint: ignore[PWR004] accepted at adoption"
    # the three findings are waived now, and the run says so (issue 29's waiver register)
    assert out.splitlines()[-1] == "All checks passed: 1 design, no findings; 3 findings waived."
    assert code == 0


def _h100_64_text() -> str:
    """The H100 sample's text, its workload on 64 of its 320 GPUs: a layout search a third the
    cost, and what the fixes write does not depend on the world size."""
    text = (ROOT / "sample_designs" / "h100-40node.yaml").read_text()
    assert text.count("    gpus: 320\n") == 1
    return text.replace("    gpus: 320\n", "    gpus: 64\n")


def _h100_on_64_gpus(work: Path) -> Any:
    """_h100_64_text() as h.yaml in `work`, loaded."""
    import dclint

    (work / "h.yaml").write_text(_h100_64_text())
    return dclint.load(work / "h.yaml")


def test_plan_apply_writes_the_best_layout(work, capsys) -> None:
    original = _h100_on_64_gpus(work)
    assert main(["plan", "h.yaml", "--apply"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("h.yaml: workload llm-13b: layout set to tp ")
    import dclint

    wl = dclint.load(work / "h.yaml").workloads[0]
    from dclint.projection.search.plan import plan_layouts

    plan = plan_layouts(original, original.workloads[0], rank_only=True)
    assert not isinstance(plan, str)
    best = plan.result.valid[0]
    assert (wl.parallel.tp, wl.parallel.pp, wl.micro_batch, wl.recompute) == (
        best.tp,
        best.pp,
        best.micro_batch,
        best.recompute,
    )
    assert main(["plan", "h.yaml", "--apply", "--vary", "site.pue=1.2,1.3"]) == 2


YAML_CONFIG = """# our config
fail-on: error
rules-dir:
- rules   # local rules
- more
select: [PWR]
"""
TOML_CONFIG = """[project]
name = "x"

[tool.dclint]
fail-on = "error"
rules-dir = [
  "rules",  # ours
  "b]",
]
select = ["PWR"]
"""


@pytest.mark.parametrize(
    ("name", "text", "kept", "line"),
    [
        (".dclint.yaml", YAML_CONFIG, "# our config\nfail-on: error\nselect: [PWR]\n", 3),
        (
            "pyproject.toml",
            TOML_CONFIG,
            '[project]\nname = "x"\n\n[tool.dclint]\nfail-on = "error"\nselect = ["PWR"]\n',
            6,
        ),
    ],
)
def test_safe_fix_removes_rules_dir_from_a_found_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, kept: str, line: int
) -> None:
    """A found config's rules-dir is ignored (it would run code) and warned about on every
    check; `--fix` removes the key and its whole value, leaving the rest as written."""
    design = tmp_path / "d.yaml"
    design.write_text((ROOT / "sample_designs" / "h100-40node.yaml").read_text("utf-8"), "utf-8")
    config = tmp_path / name
    config.write_text(text, encoding="utf-8")
    assert main(["check", str(design), "--diff"]) == 1
    assert config.read_text(encoding="utf-8") == text  # --diff writes nothing
    capsys.readouterr()
    assert main(["check", str(design), "--fix"]) == 0
    out = capsys.readouterr().out
    assert f"{config}:{line}: rules-dir removed (ignored in a config found by search" in out
    assert config.read_text(encoding="utf-8") == kept
    assert main(["check", str(design)]) == 0
    assert "rules-dir" not in capsys.readouterr().err  # no warning left to give


def test_a_config_named_with_config_keeps_its_rules_dir(tmp_path: Path) -> None:
    """With --config the rules-dir is honoured, so the fix leaves it alone."""
    design = tmp_path / "d.yaml"
    design.write_text((ROOT / "sample_designs" / "h100-40node.yaml").read_text("utf-8"), "utf-8")
    (tmp_path / "rules").mkdir()
    (tmp_path / "more").mkdir()
    config = tmp_path / ".dclint.yaml"
    config.write_text(YAML_CONFIG, encoding="utf-8")
    assert main(["check", str(design), "--config", str(config), "--fix"]) == 0
    assert config.read_text(encoding="utf-8") == YAML_CONFIG


CDUS = """\
name: cdu
rack_types:
  liquid: {it_load: 100 kW, liquid_fraction: 100%}
racks:
  - {id: 'a[1-6]', type: liquid}
  - {id: 'b[1-12]', type: liquid}
cooling:
  cdus:
    # row 1: one CDU out leaves 600 kW for 600 kW of racks
    - id: cdu-1
      capacity: 600 kW   # the larger
      max_flow: 2125 L/min
      redundancy_group: row-1
    - {id: cdu-2, capacity: 400 kW, max_flow: 2125 L/min, redundancy_group: row-1}
    - {id: cdu-9, capacity: 500 kW, max_flow: 1000 L/min, redundancy_group: row-2}
  # the loops
  loops:
    - {id: la, cdu: cdu-1, supply_temperature: 32 degC, return_temperature: 42 degC,
       racks: ['a[1-6]']}
    - {id: lb, cdu: cdu-9, supply_temperature: 32 degC, return_temperature: 42 degC,
       racks: ['b[1-12]']}
"""


def test_clg002_fix_adds_copies_of_the_cdu_the_finding_names(work, capsys) -> None:
    """Unsafe: row-1 (600 kW of racks, 400 kW left with cdu-1 out) gets one copy of cdu-1
    with the next free id; row-2 (one CDU, 1,200 kW, 1,729 L/min) gets as many copies of
    cdu-9 as heat and flow both need with one out: 1,200 / 500 kW -> 3 (the flow, 1,729 /
    1,000 L/min, needs 2). Comments, order and the other entries stay; CLG002 passes after."""
    (work / "d.yaml").write_text(CDUS)
    code, out, err = _check("--select", "CLG002", "--fix", "d.yaml", capsys=capsys)
    assert (work / "d.yaml").read_text() == CDUS and code == 1
    assert "3 more fixes would change the design" in err  # row-2's heat and flow share one
    code, out, _ = _check("--select", "CLG002", "--fix", "--unsafe-fixes", "d.yaml", capsys=capsys)
    added = (
        "    - {id: cdu-3, capacity: 600 kW, max_flow: 2125 L/min, redundancy_group: row-1}\n"
        "    - {id: cdu-10, capacity: 500 kW, max_flow: 1000 L/min, redundancy_group: row-2}\n"
        "    - {id: cdu-11, capacity: 500 kW, max_flow: 1000 L/min, redundancy_group: row-2}\n"
        "    - {id: cdu-12, capacity: 500 kW, max_flow: 1000 L/min, redundancy_group: row-2}\n"
    )
    anchor = "redundancy_group: row-2}\n"
    assert (work / "d.yaml").read_text() == CDUS.replace(anchor, anchor + added)
    assert out.splitlines() == [
        "d.yaml:11: CLG002 fixed: CDU group row-1: added cdu-3, a copy of cdu-1 (600 kW, "
        "2125 L/min), for N+1",
        "d.yaml:15: CLG002 fixed: CDU group row-2: added cdu-10, cdu-11, cdu-12, copies of "
        "cdu-9 (500 kW, 1000 L/min), for N+1",
        "All checks passed: 1 design, no findings.",
    ]
    assert code == 0


def test_clg002_fix_in_a_flow_list_and_the_finding_states_it(work, capsys) -> None:
    text = (
        CDUS.replace(
            """  cdus:
    # row 1: one CDU out leaves 600 kW for 600 kW of racks
    - id: cdu-1
      capacity: 600 kW   # the larger
      max_flow: 2125 L/min
      redundancy_group: row-1
    - {id: cdu-2, capacity: 400 kW, max_flow: 2125 L/min, redundancy_group: row-1}
    - {id: cdu-9, capacity: 500 kW, max_flow: 1000 L/min, redundancy_group: row-2}
""",
            """  cdus: [{id: cdu-1, capacity: 600 kW, max_flow: 2125 L/min,
          redundancy_group: row-1},
         {id: cdu-2, capacity: 400 kW, max_flow: 2125 L/min, redundancy_group: row-1}]  # two
""",
        )
        .replace("cdu: cdu-9", "cdu: cdu-2")
        .replace("'b[1-12]'", "'b[1-2]'")
    )
    (work / "d.yaml").write_text(text)
    code, out, _ = _check("--select", "CLG002", "--format", "json", "d.yaml", capsys=capsys)
    assert "add a CDU like cdu-1 to the group (cdu-3), use larger CDUs" in out
    code, out, _ = _check("--select", "CLG002", "--fix", "--unsafe-fixes", "d.yaml", capsys=capsys)
    assert (work / "d.yaml").read_text() == text.replace(
        "row-1}]  # two",
        "row-1}, {id: cdu-3, capacity: 600 kW, max_flow: 2125 L/min, redundancy_group: row-1}]"
        "  # two",
    )
    assert code == 0


IDLE = """\
name: idle
racks:
  - id: r1
    platform: gb200-nvl72
    it_load: 130 kW  # dclint: ignore[NET001, PWR001, STO] vendor-built 132 kW rack
  - id: r2
    platform: gb200-nvl72
    it_load: 130 kW  # dclint: ignore[PWR001,NET001] vendor-built 132 kW rack
"""


def test_safe_fix_removes_the_unused_ids_of_a_used_suppression(work, capsys) -> None:
    """DCL001 names each id of a used ignore[...] list that suppresses nothing; the safe fix
    takes those ids out of the list (one edit for both idle ids of a comment), keeps the
    used id, the reason and the list's separator style, and the check is clean after."""
    (work / "d.yaml").write_text(IDLE)
    code, out, err = _check("--fix", "d.yaml", capsys=capsys)
    assert (work / "d.yaml").read_text() == IDLE.replace(
        "ignore[NET001, PWR001, STO]", "ignore[PWR001]"
    ).replace("ignore[PWR001,NET001]", "ignore[PWR001]")
    assert out.splitlines() == [
        "d.yaml:5: DCL001 fixed: removed the unused ids NET001, STO from "
        "ignore[NET001, PWR001, STO]",
        "d.yaml:8: DCL001 fixed: removed the unused id NET001 from ignore[PWR001, NET001]",
        "All checks passed: 1 design, no findings; 2 findings waived.",
    ]
    assert (code, err) == (0, "")


RATIO_YAML = """# fabric limits
NET001:
  limit: 2/1   # accepted oversubscription
  tier_limits:
    "compute.leaf": '2.0:1'
PWR001: {limit: 140 kW}
"""
RATIO_TOML = """[tool.dclint]
fail-on = "error"

[tool.dclint.NET001]
limit = 2.0  # accepted oversubscription
tier_limits = { "compute.leaf" = '4:2' }
"""


@pytest.mark.parametrize("limit", ['"2:1"', "2:1", '"2/1"', "'2.0:1'", "4:2"])
def test_net001_reads_a_ratio_as_dclint_prints_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], limit: str
) -> None:
    """NET001 prints 'limit 1:1' once; its limit option reads back 2:1 (quoted, or plain: dclint's
    YAML reads 2:1 as text, not sexagesimal 121), 2/1, 2.0:1 and 4:2 alike
    (and the number 2.0, as before).
    The sample runs 2.00:1 on its leaves: a limit of 2:1 passes it."""
    design = tmp_path / "f.yaml"
    text = (ROOT / "sample_designs" / "broken-fabric-2to1.yaml").read_text("utf-8")
    design.write_text(text.replace("../schemas", "schemas"), "utf-8")
    config = tmp_path / ".dclint.yaml"
    config.write_text(f"NET001:\n  limit: {limit}\n", "utf-8")
    assert main(["check", "--select", "NET001", str(design)]) == 0
    config.write_text("NET001:\n  limit: 1.5:1\n", "utf-8")
    assert main(["check", "--select", "NET001", str(design)]) == 1
    out = capsys.readouterr().out
    assert "115.2 Tb/s up (measured 2.00:1, limit 1.5:1) [costs the declared run no" in out
    assert out.count("1.5:1") == 1


@pytest.mark.parametrize("limit", ["'2:0'", "'two'", "'-2:1'", "0"])
def test_a_bad_ratio_is_one_located_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], limit: str
) -> None:
    design = tmp_path / "d.yaml"
    design.write_text((ROOT / "sample_designs" / "h100-40node.yaml").read_text("utf-8"), "utf-8")
    (tmp_path / ".dclint.yaml").write_text(f"NET001:\n  limit: {limit}\n", "utf-8")
    assert main(["check", str(design)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dclint: error: {tmp_path / '.dclint.yaml'}:2:3: option NET001.limit: ")
    assert "ratio" in err and "Traceback" not in err and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("name", "text", "fixed", "lines"),
    [
        (
            ".dclint.yaml",
            RATIO_YAML,
            RATIO_YAML.replace("2/1", "2:1").replace("'2.0:1'", "'2:1'"),
            [
                ":3: NET001.limit ratio 2/1 respelled 2:1 (as dclint prints ratios)",
                ":5: NET001.tier_limits.compute.leaf ratio 2.0:1 respelled 2:1 (as dclint "
                "prints ratios)",
            ],
        ),
        (
            "pyproject.toml",
            RATIO_TOML,
            RATIO_TOML.replace("'4:2'", "'2:1'"),
            [
                ":6: NET001.tier_limits.compute.leaf ratio 4:2 respelled 2:1 (as dclint "
                "prints ratios)"
            ],
        ),
    ],
)
def test_safe_fix_respells_ratios_as_dclint_prints_them(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    text: str,
    fixed: str,
    lines: list[str],
) -> None:
    """`2/1`, `2.0:1` and `4:2` become `2:1`, inside their quotes where quoted; a number
    (2.0), the other keys and the comments stay; --diff shows it and writes nothing; a
    second --fix has nothing left to do."""
    design = tmp_path / "d.yaml"
    design.write_text((ROOT / "sample_designs" / "h100-40node.yaml").read_text("utf-8"), "utf-8")
    config = tmp_path / name
    config.write_text(text, encoding="utf-8")
    assert main(["check", str(design), "--diff"]) == 1
    assert config.read_text(encoding="utf-8") == text
    capsys.readouterr()
    assert main(["check", str(design), "--fix"]) == 0
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if "respelled" in line] == [
        f"{config}{line}" for line in lines
    ]
    assert config.read_text(encoding="utf-8") == fixed
    assert main(["check", str(design), "--diff"]) == 0


def test_ratio_respelling_also_fixes_a_config_named_with_config(tmp_path: Path) -> None:
    design = tmp_path / "d.yaml"
    design.write_text((ROOT / "sample_designs" / "h100-40node.yaml").read_text("utf-8"), "utf-8")
    config = tmp_path / "lint.yaml"
    config.write_text("NET001: {limit: '1.50:1'}\n", encoding="utf-8")
    assert main(["check", str(design), "--config", str(config), "--fix"]) == 0
    assert config.read_text(encoding="utf-8") == "NET001: {limit: '1.5:1'}\n"


SPELLED = """\
name: spelled
power:
  feeds:
    - {id: fa, voltage: 415 volts, current_rating: 250 A, path: A}  # was it_load: 120kW
    - id: fb
      voltage: '415V'
      current_rating: 250 amps   # B side
      path: B
racks:
  # it_load: 90kW in the pilot
  - {id: r1, it_load: 100kW, feeds: [fa, fb]}
"""


def test_unit_spellings_are_reported_where_written(work, capsys) -> None:
    (work / "d.yaml").write_text(SPELLED)
    code, out, err = _check("d.yaml", capsys=capsys)
    assert out.splitlines() == [
        "d.yaml:4:25: DCL005 [info] voltage is written '415 volts'; dclint writes it '415 V'",
        "d.yaml:6:17: DCL005 [info] voltage is written '415V'; dclint writes it '415 V'",
        "d.yaml:7:23: DCL005 [info] current_rating is written '250 amps'; dclint writes it '250 A'",
        "d.yaml:11:23: DCL005 [info] it_load is written '100kW'; dclint writes it '100 kW'",
        "Found 4 infos in 1 design.",
    ]
    assert (code, err) == (0, "")


def test_safe_fix_respells_units_as_dclint_writes_them(work, capsys) -> None:
    (work / "d.yaml").write_text(SPELLED)
    code, out, err = _check("--fix", "d.yaml", capsys=capsys)
    # only the values' text changes: quotes, comments and the flow mappings stay
    assert (work / "d.yaml").read_text() == (
        SPELLED.replace("415 volts", "415 V")
        .replace("'415V'", "'415 V'")
        .replace("250 amps", "250 A")
        .replace("it_load: 100kW", "it_load: 100 kW")
    )
    assert out.splitlines() == [
        "d.yaml:4: DCL005 fixed: respelled 415 volts as 415 V",
        "d.yaml:6: DCL005 fixed: respelled 415V as 415 V",
        "d.yaml:7: DCL005 fixed: respelled 250 amps as 250 A",
        "d.yaml:11: DCL005 fixed: respelled 100kW as 100 kW",
        "All checks passed: 1 design, no findings.",
    ]
    assert (code, err) == (0, "")


def test_unit_spelling_in_a_fragment_is_fixed_there_only_with_fix_includes(work, capsys) -> None:
    (work / "d.yaml").write_text(
        "name: inc\ninclude: [racks.yaml]\npower:\n  feeds:\n"
        "    - {id: fa, voltage: 415 V, current_rating: 250 A, path: A}\n"
    )
    (work / "racks.yaml").write_text("racks:\n  - {id: r1, it_load: 100 kilowatts, feeds: [fa]}\n")
    code, out, err = _check("--fix", "d.yaml", capsys=capsys)
    assert (work / "racks.yaml").read_text().endswith("it_load: 100 kilowatts, feeds: [fa]}\n")
    assert "racks.yaml:2: DCL005: the value is written in racks.yaml (an included file)" in err
    code, out, err = _check("--fix", "--fix-includes", "d.yaml", capsys=capsys)
    assert (work / "racks.yaml").read_text().endswith("it_load: 100 kW, feeds: [fa]}\n")
    assert out.splitlines()[0] == "racks.yaml:2: DCL005 fixed: respelled 100 kilowatts as 100 kW"
    assert (code, err) == (0, "")


@pytest.mark.parametrize(
    ("written", "respelled"),
    [
        ("120kW", "120 kW"),
        ("120  kW", "120 kW"),
        ("120 kilowatts", "120 kW"),
        ("400 Gbps", "400 Gb/s"),
        ("3.2 Tbps", "3.2 Tb/s"),
        ("90 l/min", "90 L/min"),
        ("40 celsius", "40 degC"),
        ("5 hr", "5 h"),
        ("1000 kilogram", "1000 kg"),
        ("1.20e3 kilowatt", "1.20e3 kW"),  # the number as written
        ("3 microwatt", "3 µW"),
        # already dclint's spelling, or several usual spellings, or not read the same
        ("1.2 MW", None),
        ("80%", None),
        ("30 days", None),
        ("10 min", None),
        ("100 RMB", None),
        ("2.5e6 token/s", None),
        ("10 delta_degC", None),
        ("3 uW", None),
        ("5 Gbps/port", None),  # Gb/s/port would read differently
        ("120 KW", None),  # not a unit dclint reads: a load error, not a spelling
        ("r01", None),
    ],
)
def test_respelled_keeps_the_number_and_the_quantity(written: str, respelled: str | None) -> None:
    from dclint.engine.spelling import respelled as respell

    assert respell(written) == respelled


def test_values_written_as_dclint_writes_them_are_not_parsed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """DCL005 judges a unit's spelling once, not each value: a design of 20,000 racks with
    distinct loads spent seconds parsing every value's quantity again (#27 item 7's probe)."""
    import dclint.units
    from dclint.engine.spelling import respelled as respell

    calls = []
    parse = dclint.units.parse_quantity
    monkeypatch.setattr(dclint.units, "parse_quantity", lambda t: calls.append(t) or parse(t))
    respell.cache_clear()
    assert [respell(f"{100 + i / 1000:.3f} kW") for i in range(500)] == [None] * 500
    assert calls == []
    assert respell("100.001 kilowatts") == "100.001 kW"
    assert calls == ["100.001 kilowatts", "100.001 kW"]  # a respelling is still checked


N_PLUS_1 = """\
name: n1
power:
  feeds:
    - {id: f1, voltage: 415 V, current_rating: 60 A, path: A}
    - {id: f2, voltage: 415 V, current_rating: 60 A, path: A}  # whip 2
    - {id: f3, voltage: 415 V, current_rating: 60 A, path: A}
racks:
  - id: r01
    it_load: 80 kW
    feeds: [f1, f2, f3]
"""


def test_pwr004_fix_raises_every_feed_a_single_failure_overloads(work, capsys) -> None:
    """N+1 feeds on one path: 80 kW on three share 26.67 kW each (PWR003 passes), but with
    any one lost the other two carry 40 kW each, above 32.78 kW at 60 A. Each feed is raised
    to 80 A, the next NEC 240.6(A) size past 60 A x 40 / 32.78 = 73.2 A; raising only the
    survivor of the worst case would leave the rack losing its redundancy when another fails."""
    (work / "d.yaml").write_text(N_PLUS_1)
    code, out, err = _check("--fix", "d.yaml", capsys=capsys)
    assert err == (
        "dclint: 1 more fix would change the design; see it with --diff --unsafe-fixes, "
        "apply with --fix --unsafe-fixes\n"
    )
    code, out, err = _check("--fix", "--unsafe-fixes", "d.yaml", capsys=capsys)
    assert (work / "d.yaml").read_text() == N_PLUS_1.replace("60 A", "80 A")
    assert out.splitlines() == [
        f"d.yaml:10: PWR004 fixed: feed {f} current_rating 60 A -> 80 A (the next standard "
        "rating, NEC 240.6(A)) to carry 40 kW"
        for f in ("f1", "f2", "f3")
    ] + ["All checks passed: 1 design, no findings."]
    assert (code, err) == (0, "")


def test_par005_fix_applies_the_best_layout_and_says_so(work, capsys) -> None:
    """`check --fix --unsafe-fixes` makes PAR005's fix: the search's best layout written into
    the workload (as `plan --apply`), one line per value changed, and PAR005 passes after."""
    import dclint
    from dclint.projection.search.plan import plan_layouts

    original = _h100_on_64_gpus(work)
    text = (work / "h.yaml").read_text()
    plan = plan_layouts(original, original.workloads[0], rank_only=True)
    assert not isinstance(plan, str)
    best = plan.result.valid[0]
    assert (best.tp, best.micro_batch) != (8, 1)  # the declared layout is not the best
    args = ("--select", "PAR005", "--layout-search", "--fix", "--unsafe-fixes", "h.yaml")
    code, out, err = _check(*args, capsys=capsys)
    wl = dclint.load(work / "h.yaml").workloads[0]
    assert (wl.parallel.tp, wl.parallel.pp, wl.micro_batch, wl.recompute) == (
        best.tp,
        best.pp,
        best.micro_batch,
        best.recompute,
    )
    lines = out.splitlines()
    assert lines[0].startswith(
        f"h.yaml:99: PAR005 fixed: workload llm-13b parallel: {{tp: {best.tp}, pp: {best.pp}, "
    )
    assert lines[1:] == [
        f"h.yaml:99: PAR005 fixed: workload llm-13b micro_batch: {best.micro_batch}",
        f"h.yaml:99: PAR005 fixed: workload llm-13b recompute: {best.recompute}",
        "All checks passed: 1 design, no findings.",
    ]
    # only the layout's lines changed: every other line is as written
    old, new = text.splitlines(), (work / "h.yaml").read_text().splitlines()
    changed = [line for line in new if line not in old]
    assert [c.split(":")[0].strip() for c in changed] == ["micro_batch", "parallel", "recompute"]
    assert (code, err) == (0, "")


# --- issue 48: a fix keeps the file as its author keeps it, and says only what it wrote --------

FORMS = {  # how a file is kept: (BOM, line ending, final newline)
    "lf": (b"", b"\n", True),
    "crlf": (b"", b"\r\n", True),
    "bom-crlf": (b"\xef\xbb\xbf", b"\r\n", True),
    "bom-lf-no-final-newline": (b"\xef\xbb\xbf", b"\n", False),
    "crlf-no-final-newline": (b"", b"\r\n", False),
}


def _kept(text: str, form: str) -> bytes:
    """`text` (LF, a final newline) as a file kept in `form`."""
    bom, newline, final = FORMS[form]
    body = text if final else text[:-1]
    return bom + body.replace("\n", newline.decode()).encode("utf-8")


@pytest.mark.parametrize("form", FORMS)
def test_fix_keeps_line_endings_bom_and_final_newline(form: str, work, capsys) -> None:
    (work / "d.yaml").write_bytes(_kept(SPELLED, form))
    code, out, err = _check("--fix", "d.yaml", capsys=capsys)
    fixed = (
        SPELLED.replace("415 volts", "415 V")
        .replace("'415V'", "'415 V'")
        .replace("250 amps", "250 A")
        .replace("it_load: 100kW", "it_load: 100 kW")
    )
    assert (work / "d.yaml").read_bytes() == _kept(fixed, form)  # only the 4 values changed
    assert len(out.splitlines()) == 5 and out.endswith(
        "All checks passed: 1 design, no findings.\n"
    )
    assert (code, err) == (0, "")


@pytest.mark.parametrize("form", FORMS)
def test_add_suppressions_keeps_the_file_as_kept(form: str, work, capsys) -> None:
    (work / "lf.yaml").write_text(FEEDS)
    (work / "d.yaml").write_bytes(_kept(FEEDS, form))
    for name in ("lf.yaml", "d.yaml"):
        _check("--add-suppressions", "accepted at adoption", name, capsys=capsys)
    expected = (work / "lf.yaml").read_text()
    assert expected.count("# dclint: ignore[") == 3  # three findings waived
    assert (work / "d.yaml").read_bytes() == _kept(expected, form)


@pytest.mark.parametrize("form", ["crlf", "bom-crlf", "crlf-no-final-newline"])
def test_plan_apply_keeps_line_endings_bom_and_final_newline(form: str, work, capsys) -> None:
    text = _h100_64_text()
    (work / "lf.yaml").write_text(text)
    (work / "h.yaml").write_bytes(_kept(text, form))
    assert main(["plan", "lf.yaml", "--apply"]) == 0
    assert main(["plan", "h.yaml", "--apply"]) == 0
    capsys.readouterr()
    expected = (work / "lf.yaml").read_text()
    assert expected != text  # the layout changed
    assert (work / "h.yaml").read_bytes() == _kept(expected, form)


def test_mixed_line_endings_are_not_fixed_and_say_so(work, capsys) -> None:
    raw = SPELLED.replace("\n", "\r\n", 3).encode()  # three CRLF, then LF
    (work / "d.yaml").write_bytes(raw)
    code, out, err = _check("--fix", "d.yaml", capsys=capsys)
    assert (work / "d.yaml").read_bytes() == raw
    assert "fixed" not in out and out.count("DCL005") == 4
    assert err == (
        "dclint: not fixed: d.yaml: it mixes line endings (3 CRLF, 8 LF); "
        "its fixes were not applied\n"
    )
    assert code == 0  # DCL005 is info


def test_a_fix_that_would_break_the_yaml_is_not_said_fixed(work, capsys) -> None:
    """A tab before a comment: the respelled value would not parse, so nothing is written and
    nothing is said fixed (it was: 'DCL005 fixed' over an unchanged file)."""
    text = "name: t\nracks:\n  - id: r01\n    platform: gb200-nvl72\n    it_load: 120kW\t# c\n"
    (work / "t.yaml").write_text(text)
    code, out, err = _check("--fix", "t.yaml", capsys=capsys)
    assert (work / "t.yaml").read_text() == text
    assert out == (
        "t.yaml:5:14: DCL005 [info] it_load is written '120kW'; dclint writes it '120 kW'\n"
        "Found 1 info in 1 design.\n"
    )
    assert err == "dclint: not fixed: t.yaml: the fixes would not leave valid YAML; not applied\n"
    assert code == 0


@pytest.mark.parametrize("when", ["after the check", "before the write"])
def test_a_file_changed_during_the_check_is_not_fixed(
    when: str, work, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone saves the design while the check runs: the fixes, planned on what the check read,
    are not written over the new text, and not said fixed."""
    from dclint.fix import apply, files

    (work / "d.yaml").write_text(SPELLED)
    edited = SPELLED.replace("name: spelled", "name: edited meanwhile")
    if when == "after the check":
        real = apply.plan_fixes

        def plan(*a: object, **k: object) -> object:
            (work / "d.yaml").write_text(edited)
            return real(*a, **k)  # type: ignore[arg-type]

        monkeypatch.setattr(apply, "plan_fixes", plan)
        why = "it changed since it was checked; its fixes were not applied"
    else:
        real_encode = files.encode

        def encode(kept: files.Kept, new: str) -> bytes:
            (work / "d.yaml").write_text(edited)
            return real_encode(kept, new)

        monkeypatch.setattr(files, "encode", encode)
        why = "it changed since it was checked; its fixes were not applied"
    code, out, err = _check("--fix", "d.yaml", capsys=capsys)
    assert (work / "d.yaml").read_text() == edited
    assert "fixed" not in out and out.count("DCL005 [info]") == 4
    assert err == f"dclint: not fixed: d.yaml: {why}\n"
    assert code == 0


def test_plan_apply_on_a_file_changed_since_it_was_read_writes_nothing(
    work, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dclint.fix import files

    text = _h100_64_text()
    (work / "h.yaml").write_text(text)
    real = files.read

    def read(path: str) -> files.Kept:
        (work / "h.yaml").write_text(text + "# saved meanwhile\n")
        return real(path)

    monkeypatch.setattr(files, "read", read)
    assert main(["plan", "h.yaml", "--apply"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "dclint: error: h.yaml: it changed since it was read; the layout was not applied\n"
    )
    assert (work / "h.yaml").read_text() == text + "# saved meanwhile\n"
