"""The assessment stage (dclint.analysis.assess.assessment): one typed record a design that the
CLI, every report format and the library entry point read, so `dclint.run()` and `dclint check`
agree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import dclint
from dclint.analysis.assess.assessment import Assessment, assess
from dclint.cli import main
from dclint.engine.config import Config
from dclint.engine.runner import Engine
from dclint.engine.runner import run as run_engine
from dclint.projection import Projection, Tco
from dclint.units import Quantity

ROOT = Path(__file__).resolve().parent.parent
H100 = ROOT / "sample_designs" / "h100-40node.yaml"
RACK130 = ROOT / "sample_designs" / "broken-rack-130kw.yaml"
MISSING = ROOT / "sample_designs" / "no-such-design.yaml"


def _slow_checkpoints() -> Engine:
    from dclint.loader.overrides import parse_overrides

    return Engine(overrides=tuple(parse_overrides(["storage.tiers[1].write_bandwidth=1 GB/s"])))


def test_library_run_returns_priced_findings(capsys: pytest.CaptureFixture[str]) -> None:
    run = dclint.run(str(H100), _slow_checkpoints())
    (sto002,) = [f for f in run.findings if f.rule == "STO002"]
    assert sto002.impact is not None
    main(
        ["check", str(H100), "--set", "storage.tiers[1].write_bandwidth=1 GB/s", "--format", "json"]
    )
    (cli,) = [
        f
        for f in json.loads(capsys.readouterr().out)["designs"][0]["findings"]
        if f["rule"] == "STO002"
    ]
    assert sto002.impact.as_dict() == cli["impact"]


def test_assessment_is_typed_and_computed_once() -> None:
    run = dclint.run([str(H100)])
    (a,) = run.designs
    assert isinstance(a, Assessment)
    assert a.summary is not None and a.summary.gpus == 320
    assert isinstance(a.summary.it_load, Quantity)
    projected = a.projected
    assert [type(p) for p in projected.projections] == [Projection]
    assert isinstance(projected.tco, Tco)
    assert a.projected is projected  # kept, not recomputed by the next presenter
    titles = [title.split(":")[0] for title, _ in a.diagrams.graphs]
    assert titles == ["Power one-line", "Fabric tiers"]  # air-cooled: no CDU, no cooling loops
    assert a.diagrams is a.diagrams


def test_a_design_that_does_not_load_is_assessed_without_figures() -> None:
    run = dclint.run([str(MISSING), str(RACK130)])
    missing, rack = run.designs
    assert missing.design is None and missing.errors
    assert missing.summary is None and missing.summary_error == ""
    assert missing.projected.projections == () and missing.diagrams.graphs == ()
    assert [f.rule for f in rack.findings] == ["PWR001"]
    assert run.exit_code() == 2


def test_text_report_computes_no_projection() -> None:
    """Assess once, present many: a presenter pays only for what it reads."""
    engine = Engine()
    result = run_engine([str(RACK130)], engine)
    run = assess(result, engine)
    assert "projected" not in vars(run.designs[0])  # nothing priced, nothing asked yet
    from dclint.report import formatter
    from dclint.report.view import View

    formatter("text")(run, View())
    assert "projected" not in vars(run.designs[0])
    formatter("json")(run, View())
    assert "projected" in vars(run.designs[0])


def test_options_and_selection_follow_the_config() -> None:
    config = Config(rule_settings={"PWR001": {"limit": "140 kW"}}, select=("PWR",))
    run = dclint.run(str(RACK130), Engine(config=config))
    (a,) = run.designs
    assert run.findings == []  # 130 kW is under a 140 kW limit
    assert a.options["PWR001"]["limit"].m_as("kW") == 140
    assert a.selected("PWR001") and not a.selected("NET001")
    assert a.summary is not None
    assert {r.limit.m_as("kW") for r in a.summary.rack_loads} == {140}


def test_finding_values_stay_quantities_until_printed() -> None:
    (f,) = dclint.run(str(RACK130)).findings
    assert isinstance(f.measured, Quantity) and isinstance(f.limit, Quantity)
    assert (f.measured.m_as("kW"), f.limit.m_as("kW")) == (130, 120)
    assert (f.measured_text, f.limit_text) == ("130 kW", "120 kW")
    data = f.as_dict()
    assert (data["measured_value"], data["measured_unit"]) == (130.0, "kW")
    assert (data["limit_value"], data["limit_unit"]) == (120.0, "kW")


def test_ratio_text_has_no_number_field(tmp_path: Path) -> None:
    (f,) = dclint.run(str(ROOT / "sample_designs" / "broken-fabric-2to1.yaml")).findings
    assert (f.measured_text, f.limit_text) == ("2.00:1", "1:1")
    data = f.as_dict()
    assert (data["measured_value"], data["measured_unit"]) == (None, None)


@pytest.mark.parametrize(("severity", "marked"), [("error", True), ("info", False)])
def test_an_info_finding_draws_no_element_over(tmp_path: Path, severity: str, marked: bool) -> None:
    """busway-a raised to busway-b's 2,000 A: each carries its load (no PWR008) and keeps 132 kW
    unallocated, short of a configured 150 kW: the one-line marks both for PWR002 as an error,
    neither as an info remark."""
    from dclint.engine.config import load_config
    from dclint.loader.overrides import parse_overrides

    config = tmp_path / "dclint.yaml"
    config.write_text(f"PWR002: {{severity: {severity}, headroom: 150 kW}}\n", encoding="utf-8")
    engine = Engine(
        config=load_config(config),
        overrides=tuple(parse_overrides(["power.panels[0].current_rating=2000 A"])),
    )
    (a,) = dclint.run(str(ROOT / "sample_designs" / "broken-feed-headroom.yaml"), engine).designs
    assert [(f.rule, f.severity, f.subject) for f in a.findings] == [
        ("PWR002", severity, "busway-a"),
        ("PWR002", severity, "busway-b"),
    ]
    # alike now, the two busways are one box
    panels = [n for _, g in a.diagrams.graphs for n in g.nodes if n.key.startswith("panel:")]
    assert [(n.title, n.over, n.rules) for n in panels] == [
        ("2 x busway-a, busway-b (busway)", marked, ("PWR002",) if marked else ())
    ]
