"""Heat rejection on the design day and freeze protection (dclint.calc.heat_rejection, CLG012,
CLG013): figures are the hand calculations in each comment, within 2% (most exact)."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES
from dclint.calc.failures.play import failure_table
from dclint.calc.heat_rejection import freezing_point, rejection_loads
from dclint.engine.runner import Engine, run
from dclint.loader import load, load_text
from dclint.model.resolve import topology_of


def test_propylene_glycol_freezing_points() -> None:
    assert freezing_point("water", None) == 0.0
    assert freezing_point("propylene_glycol", 0.25) == pytest.approx(-9.6)
    assert freezing_point("propylene_glycol", 0.40) == pytest.approx(-21.1)
    # between 35% (-16.4) and 40% (-21.1): 37.5% -> -18.75 degC
    assert freezing_point("propylene_glycol", 0.375) == pytest.approx(-18.75)


def test_a_dry_cooler_on_the_design_day() -> None:
    topo = topology_of(load(EXAMPLES / "clg012" / "bad.yaml"))
    (dc,) = rejection_loads(topo)
    # 8 x 120 kW x 85% = 816 kW; 600 kW x (45 - 40) / (45 - 35) = 300 kW a unit, 2 working
    assert dc.heat_kw == pytest.approx(816.0, rel=1e-9)
    assert dc.unit_kw == pytest.approx(300.0, rel=1e-9)
    assert dc.firm_kw == pytest.approx(600.0, rel=1e-9)
    lost = next(f for f in failure_table(topo).failures if f.kind == "heat rejection")
    assert lost.worst is not None and lost.worst.capacity == pytest.approx(600.0, rel=1e-9)
    assert lost.overloaded == (lost.worst,)


def test_a_cooler_day_gives_no_credit_and_a_chiller_keeps_its_rating() -> None:
    text = (EXAMPLES / "clg012" / "good.yaml").read_text(encoding="utf-8")
    cool = topology_of(load_text(text.replace("40 degC}", "20 degC}", 1), "d.yaml"))
    dc, ch = rejection_loads(cool)
    assert dc.unit_kw == pytest.approx(600.0, rel=1e-9)  # 25 K / 10 K capped at the rating
    assert ch.unit_kw == pytest.approx(900.0, rel=1e-9)


def test_the_findings_give_the_figures() -> None:
    found = run([str(EXAMPLES / "clg013" / "bad.yaml")], Engine()).findings
    by = {f.subject: f for f in found if f.rule == "CLG013"}
    assert by["dc"].measured.m_as("degC") == pytest.approx(-9.6)
    assert by["dc"].limit.m_as("degC") == pytest.approx(-21.0)
    assert by["dc"].fix.startswith("use 40% propylene glycol (-21.1 degC)")
    assert by["tower"].measured.m_as("degC") == pytest.approx(0.0)
    (heat,) = [
        f
        for f in run([str(EXAMPLES / "clg012" / "bad.yaml")], Engine()).findings
        if f.rule == "CLG012"
    ]
    assert heat.measured.m_as("kW") == pytest.approx(816.0, rel=0.02)
    assert heat.limit.m_as("kW") == pytest.approx(600.0, rel=0.02)


def test_an_unknown_cdu_is_a_load_error() -> None:
    from dclint.errors import LoadError

    text = (
        "name: t\ncooling:\n  heat_rejection:\n"
        "    - {id: dc, kind: dry_cooler, capacity: 100 kW, serves: [cdu-9]}\n"
    )
    with pytest.raises(LoadError) as err:
        load_text(text, "d.yaml")
    assert [str(p) for p in err.value.problems] == ["d.yaml:4:61: unknown CDU 'cdu-9'"]
