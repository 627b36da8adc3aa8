"""--set overrides (positions, errors, range splits) and the --sweep table."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from _blocked import BLOCKED, H100, not_meaningful_at_tp3

import dclint.api
import dclint.projection
from conftest import SAMPLES
from dclint.analysis.sweep import split_values
from dclint.cli import main
from dclint.engine.runner import Engine
from dclint.errors import ConfigError, LoadError
from dclint.loader import load
from dclint.loader.overrides import parse_overrides
from dclint.model.resolve import topology_of
from dclint.units import Q_, Quantity

SU = str(SAMPLES / "gb200-superpod-su.yaml")


def test_finding_caused_by_override_is_at_the_design_line_and_names_its_flag() -> None:
    engine = Engine(overrides=parse_overrides(["site.pue=1.2", "racks.su1-r8.it_load=130 kW"]))
    result = engine.check_file(SU)
    pwr = [
        (f.file, f.line, f.column, f.path, f.subject) for f in result.findings if f.rule == "PWR001"
    ]
    assert pwr == [(SU, 48, 5, "racks[1].it_load", "su1-r8")]  # the group su1-r8 was split from
    (finding,) = [f for f in result.findings if f.rule == "PWR001"]
    assert finding.message.endswith("(value set by --set racks.su1-r8.it_load=130 kW)")


def test_range_member_is_split_off_with_its_feeds() -> None:
    design = load(SU, overrides=parse_overrides(["racks.su1-r4.it_load=100 kW"]))
    assert [g.id for g in design.racks] == ["su1-r[1-3]", "su1-r4", "su1-r[5-8]"]
    racks = {r.id: r for r in topology_of(design).racks}
    assert racks["su1-r4"].feed_ids == ["tap-a4", "tap-b4"]
    assert racks["su1-r4"].it_load.m_as("kW") == pytest.approx(100)
    assert racks["su1-r5"].it_load.m_as("kW") == pytest.approx(120)
    assert racks["su1-r8"].feed_ids == ["tap-a8", "tap-b8"]
    assert design.source is not None  # later items keep their file positions
    assert design.source.locate(("racks", 2, "type")).line == 49


def test_values_are_read_as_yaml() -> None:
    design = load(SU, overrides=parse_overrides(["site.pue=1.3", "racks[0].feeds=[tap-a$n]"]))
    assert design.site.pue == 1.3
    assert topology_of(design).racks[0].feed_ids == ["tap-a1"]


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (
            ["site.pue=1.2", "racks.su9.it_load=130 kW"],
            "--set:1:2: --set racks.su9.it_load=130 kW: no item with id 'su9' in racks "
            "(ids: su1-r[1-8])",
        ),
        (
            ["site.pue.x=1"],
            "--set:1:1: --set site.pue.x=1: site.pue is the float 1.15, not a mapping or list; "
            "cannot set x",
        ),
        (
            ["racks[3].it_load=1 kW"],
            "--set:1:1: --set racks[3].it_load=1 kW: racks has 1 item, no index 3",
        ),
        (
            ["site.name=x", "site.pue=0.5"],
            "--set:1:2: site.pue: must be at least 1, got 0.5 (value set by --set site.pue=0.5)",
        ),
        (
            ["site.bogus=1"],
            "--set:1:1: unknown key 'bogus' in site (value set by --set site.bogus=1)",
        ),
        (  # a section the flag creates is the flag's: not the design's line 4 (its `site:`)
            ["site.pue=1.2", "bogus.x=1"],
            "--set:1:2: unknown key 'bogus' in the design (value set by --set bogus.x=1)",
        ),
        (  # YAML reads 1e3 as a decimal number: it said 'expected a whole number, got 1,000'
            ["workloads[0].global_batch=1e3"],
            "--set:1:1: workloads[0].global_batch: expected a whole number, written without a "
            "decimal point or exponent (1000), got 1000.0 (value set by --set "
            "workloads[0].global_batch=1e3)",
        ),
        (
            ["site.bogus.x.y=1"],
            "--set:1:1: unknown key 'bogus' in site (value set by --set site.bogus.x.y=1)",
        ),
    ],
)
def test_override_errors_name_the_flag(flags: list[str], expected: str) -> None:
    with pytest.raises(LoadError) as exc:
        load(SU, overrides=parse_overrides(flags))
    assert [str(p) for p in exc.value.problems] == [expected]


def test_a_count_past_the_id_budget_is_the_flags_error() -> None:
    """`--set racks[0].count=100000` (a rack and its two feeds: 300,000 ids) was put at the design's
    line of the racks' range, not at the flag that set the count."""
    with pytest.raises(LoadError) as exc:
        load(SU, overrides=parse_overrides(["site.pue=1.2", "racks[0].count=100000"]))
    ((file, line, column, message),) = [
        (p.file, p.line, p.column, p.message) for p in exc.value.problems
    ]
    assert (file, line, column) == ("--set", 1, 2)
    assert message.startswith("the design names more than 200,000 ids through its ranges")
    assert message.endswith("(value set by --set racks[0].count=100000)")


def test_malformed_flags_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", SU, "--set", "site.pue"]) == 2
    assert "--set site.pue: write PATH=VALUE" in capsys.readouterr().err
    assert main(["check", SU, "--set", "racks.nope.it_load=1 kW"]) == 2
    out = capsys.readouterr()
    assert "--set:1:1: error: --set racks.nope.it_load=1 kW: no item with id 'nope'" in out.out


def test_split_values_keeps_brackets_together() -> None:
    assert split_values("racks[0].feeds=[a, b],[c]") == ("racks[0].feeds", ["[a, b]", "[c]"])
    with pytest.raises(ConfigError):
        split_values("site.pue")


@dataclass
class _FakeProjection:
    workload: str
    training_time: Quantity
    cost: Quantity  # Projection.cost: the priced run's cost_total


def _fake(design: object) -> list[_FakeProjection]:
    # the cost follows the rack load, so the table shows it changing
    load = topology_of(design).racks[0].it_load.m_as("kW")  # type: ignore[attr-defined]
    return [_FakeProjection("llm", Q_(30.0, "day"), Q_(1000 * load, "CNY"))]


def test_sweep_table(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # dclint.api first: its lazy names keep the first value they are asked for
    monkeypatch.setattr(dclint.api, "project_workloads", _fake)
    monkeypatch.setattr(dclint.projection, "project_workloads", _fake)
    code = main(
        [
            "check",
            SU,
            "--select",
            "PWR001,PWR002",
            "--sweep",
            "rack_types.nvl72.it_load=110 kW,120 kW,130 kW",
        ]
    )
    assert code == 1  # as `check` exits on the 130 kW design: it has errors
    # 130 kW: PWR001 on each of the 8 racks; busways 1093 - 8 x 130 = 52.6 kW < 80 kW: PWR002 x 2
    assert capsys.readouterr().out == (
        "Sweep of rack_types.nvl72.it_load on " + SU + "\n"
        "rack_types.nvl72.it_load  findings  PWR001  PWR002  llm days     llm cost\n"
        "110 kW                           0       0       0      30 d  110,000 CNY\n"
        "120 kW                           0       0       0      30 d  120,000 CNY\n"
        "130 kW                          10       8       2      30 d  130,000 CNY\n"
        "rack_types.nvl72.it_load=130 kW: 10 findings at severity error or above: "
        "PWR001 x8, PWR002 x2\n"
    )


def test_sweep_quotes_the_days_as_dclint_cost_does(capsys: pytest.CaptureFixture[str]) -> None:
    """The sweep printed the days to one decimal and without their band ('2.0' and '1.8' where
    `dclint cost` prints '2.026 d (1.7-2.6 d)' and '1.751 d'): the same figure, printed the
    same, with the calibration band where the MFU is predicted."""
    h100 = str(SAMPLES / "h100-40node.yaml")
    assert main(["cost", h100, "--set", "workloads.llm-13b.mfu=null"]) == 0
    assert "training time                     2.026 d (1.7-2.6 d)\n" in capsys.readouterr().out
    sweep = ["check", h100, "--select", "PWR001", "--sweep", "site.pue=1.2,1.4"]
    assert main([*sweep, "--set", "workloads.llm-13b.mfu=null"]) == 0
    assert capsys.readouterr().out == (
        f"Sweep of site.pue on {h100}\n"
        "site.pue  findings         llm-13b days  llm-13b cost\n"
        "1.2              0  2.026 d (1.7-2.6 d)   138,258 CNY\n"
        "1.4              0  2.026 d (1.7-2.6 d)   140,001 CNY\n"
    )
    assert main([*sweep, "--format", "json"]) == 0  # mfu: 45% declared: no band
    rows = json.loads(capsys.readouterr().out)["sweeps"][0]["rows"]
    assert [r["workloads"]["llm-13b"]["training_days_band"] for r in rows] == [None, None]
    assert main(sweep) == 0
    assert "1.4              0       1.751 d   120,974 CNY\n" in capsys.readouterr().out


def test_sweep_says_a_projection_is_not_meaningful_while_the_design_cannot_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """tp 3 on 320 GPUs does not split (PAR001): the row says what `dclint cost` and the
    review say, where it printed 1.751 d and 120,974 CNY as figures."""
    sweep = ["check", H100, "--select", "PAR001", "--sweep", "workloads.llm-13b.parallel.tp=2,3"]
    assert main(sweep) == 1  # PAR001 is an error at tp 3, as `check` exits on it
    rows = capsys.readouterr().out.splitlines()[2:]
    assert [row.split() for row in rows[:2]] == [
        ["2", "0", "0", "1.751", "d", "120,974", "CNY"],
        ["3", "1", "1", *BLOCKED.split(), *BLOCKED.split()],
    ]
    assert rows[2:] == [
        "workloads.llm-13b.parallel.tp=3: 1 finding at severity error or above: PAR001 x1"
    ]
    assert main([*sweep, "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)["sweeps"][0]["rows"]
    assert data[0]["not_meaningful"] is None
    assert data[1]["not_meaningful"] == not_meaningful_at_tp3()


def test_a_sweep_exits_as_check_does_and_says_which_values_fail(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`check --sweep` exited 0 with errors in its rows: it exits as `check` does on each value
    (2 for a value that does not load, else 1 for findings at or above the threshold), the
    worst row's, and names the values that fail."""
    hot = str(SAMPLES / "broken-rack-130kw.yaml")
    sweep = ["check", hot, "--select", "PWR001", "--sweep"]
    assert main([*sweep, "racks.su1-r8.it_load=110 kW,130 kW"]) == 1
    out = capsys.readouterr().out
    assert out.endswith(
        "\nracks.su1-r8.it_load=130 kW: 1 finding at severity error or above: PWR001 x1\n"
    )
    assert main([*sweep, "racks.su1-r8.it_load=110 kW,130 kW", "--exit-zero"]) == 0
    capsys.readouterr()
    assert main([*sweep, "racks.su1-r8.it_load=110 kW", "--fail-on", "warning"]) == 0
    capsys.readouterr()
    assert main([*sweep, "racks.su1-r8.it_load=130 kW,0.5"]) == 2  # a value that does not load
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2:] == [
        "racks.su1-r8.it_load=130 kW: 1 finding at severity error or above: PWR001 x1",
        "racks.su1-r8.it_load=0.5: error: --sweep:1:1: racks[1].it_load: power needs a unit: "
        "write '0.5 kW' or similar (e.g. '120 kW')",
    ]
    assert main([*sweep, "racks.su1-r8.it_load=110 kW,130 kW", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)["sweeps"][0]
    assert (data["fail_on"], data["exit_code"]) == ("error", 1)
    assert [r["failing"] for r in data["rows"]] == [{}, {"PWR001": 1}]


def test_sweep_json_and_bad_value(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["check", SU, "--select", "PWR001", "--format", "json", "--sweep", "site.pue=1.2,0.5"]
    )
    assert code == 2  # a value the design rejects is a load error in its row
    rows = json.loads(capsys.readouterr().out)["sweeps"][0]["rows"]
    assert [(r["value"], r["findings"], r["errors"]) for r in rows] == [
        ("1.2", 0, []),
        ("0.5", 0, ["--sweep:1:1: site.pue: must be at least 1, got 0.5"]),
    ]


def test_a_sweep_never_changes_the_engine_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """The grid runner (dclint.analysis.grid.runner) checks each point with its own engine copy: the
    engine given keeps its overrides while the points run, not only after."""
    from dclint.analysis.sweep import run_sweep
    from dclint.loader.overrides import parse_overrides

    base = tuple(parse_overrides(["site.pue=1.2"]))
    engine = Engine(overrides=base)
    seen = []
    check_file = Engine.check_file

    def spy(self: Engine, file: str) -> object:
        seen.append((self is engine, engine.overrides == base, len(self.overrides)))
        return check_file(self, file)

    monkeypatch.setattr(Engine, "check_file", spy)
    sample = str(SAMPLES / "broken-rack-130kw.yaml")
    sweep = run_sweep(sample, engine, base, "racks[0].it_load=1 kW,2 kW")
    assert [row.value for row in sweep.rows] == ["1 kW", "2 kW"]
    assert seen == [(False, True, 2), (False, True, 2)]


def test_sweep_and_vary_run_through_one_grid_runner(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check --sweep` and `plan --vary` share dclint.analysis.grid.runner.run_batches (#26 item 6:
    the facility grid had its own batch loop)."""
    from dclint.analysis.grid import runner as grid

    seen: list[list[object]] = []
    real = grid.run_batches

    def counted(items, prepare, ask, finish, pool=None):  # type: ignore[no-untyped-def]
        seen.append(list(items))
        return real(items, prepare, ask, finish, pool)

    monkeypatch.setattr(grid, "run_batches", counted)
    assert main(["check", SU, "--sweep", "site.pue=1.2,1.3", "--format", "json"]) == 0
    assert seen == [[("1.2",), ("1.3",)]]
    h100 = str(SAMPLES / "h100-40node.yaml")
    assert main(["plan", h100, "--vary", "site.pue=1.2,1.3,1.4", "--format", "json"]) == 0
    assert seen[1:] == [[0, 1, 2]]  # the facility grid's flat indices
    capsys.readouterr()
