"""Heat rejection on the design day and freeze protection (dclint.calc.heat_rejection, CLG012,
CLG013): figures are the hand calculations in each comment, within 2% (most exact)."""

from __future__ import annotations

from pathlib import Path

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


@pytest.mark.parametrize(
    ("share", "mass", "volume"),
    [
        # by MASS, the table's own points (ASHRAE Handbook - Fundamentals ch. 31 Table 5; Dow's
        # DOWFROST guide): 20% -7.1, 30% -12.7, 40% -21.1, 50% -33.5 degC. By VOLUME, the same
        # table's volume column, linear between its points:
        # 20% vol: 19.4% (-7.1) .. 24.4% (-9.6): -7.1 - 2.5 x 0.6 / 5.0 = -7.40
        # 30% vol: 29.4% (-12.7) .. 34.4% (-16.4): -12.7 - 3.7 x 0.6 / 5.0 = -13.144
        # 40% vol: 39.6% (-21.1) .. 44.7% (-26.7): -21.1 - 5.6 x 0.4 / 5.1 = -21.539
        # 50% vol: 49.9% (-33.5) .. 55.0% (-41.1): -33.5 - 7.6 x 0.1 / 5.1 = -33.649
        (0.20, -7.1, -7.40),
        (0.30, -12.7, -13.144),
        (0.40, -21.1, -21.5392),
        (0.50, -33.5, -33.6490),
    ],
)
def test_glycol_freezing_points_by_mass_and_by_volume(
    share: float, mass: float, volume: float
) -> None:
    assert freezing_point("propylene_glycol", share) == pytest.approx(mass, abs=1e-9)
    assert freezing_point("propylene_glycol", share, "mass") == pytest.approx(mass, abs=1e-9)
    assert freezing_point("propylene_glycol", share, "volume") == pytest.approx(volume, abs=1e-3)


def test_the_freeze_finding_says_by_mass_or_by_volume(tmp_path: Path) -> None:
    text = (
        "name: freeze\n"
        "site: {min_temperature: -20 degC}\n"
        "cooling:\n  heat_rejection:\n"
        "    - {id: dc, kind: dry_cooler, capacity: 600 kW, coolant: propylene_glycol,"
        " glycol_share: 40%, glycol_share_basis: volume}\n"
    )
    path = tmp_path / "d.yaml"
    path.write_text(text, encoding="utf-8")
    # 40% by volume freezes at -21.54 degC: not 3 K below -20 degC (-23 degC) -> CLG013
    (finding,) = [f for f in run([str(path)], Engine()).findings if f.rule == "CLG013"]
    assert finding.message == (
        "dry cooler set dc's outdoor fluid (40% propylene glycol by volume) freezes at -21.5 "
        "degC, not 3 K below the site's minimum -20 degC (freezing points: ASHRAE Handbook - "
        "Fundamentals, ch. 31, Table 5)"
    )
    assert finding.measured.m_as("degC") == pytest.approx(-21.539, abs=1e-3)


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
    assert by["dc"].fix.startswith("use 40% propylene glycol by mass (-21.1 degC)")
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
