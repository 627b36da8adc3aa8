"""The power chain's arithmetic (dclint.calc.power_chain): exact loads, capacities and the
consequence of each single failure, on the rule examples."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES
from dclint.calc.power_chain import chain_loads, failure_cases, generation_loads
from dclint.loader import load
from dclint.model.resolve import topology_of


def _topo(rule: str, name: str):  # type: ignore[no-untyped-def]
    return topology_of(load(EXAMPLES / rule / name))


def test_a_transformer_carries_the_ups_output_over_its_efficiency() -> None:
    topo = _topo("pwr011", "good.yaml")
    loads = chain_loads(topo)
    assert loads["ups-a"].load_kw == pytest.approx(1056.0)  # 8 x 132 kW, each once
    assert loads["ups-a"].capacity_kw == pytest.approx(1187.5)  # 5 of 6 x 250 kVA x 0.95
    assert loads["tx-1"].load_kw == pytest.approx(1100.0)  # 1,056 / 0.96
    assert loads["tx-1"].capacity_kw == pytest.approx(1187.5)  # 1,250 kVA x 0.95
    design = chain_loads(topo, peak=False)
    assert design["tx-1"].load_kw == pytest.approx(1000.0)  # 960 / 0.96


def test_n_plus_1_modules_carry_the_load_on_n() -> None:
    loads = chain_loads(_topo("pwr009", "bad.yaml"))
    assert loads["ups-a"].capacity_kw == pytest.approx(1000.0)  # 4 x 250 kW: one spare
    assert loads["ups-a"].racks == 8


def test_generation_carries_it_times_pue_with_the_spare_out() -> None:
    gens = {g.generator.id: g for g in generation_loads(_topo("pwr012", "good.yaml"))}
    assert gens["gen"].load_kw == pytest.approx(1267.2)  # 1,056 kW x 1.2
    assert gens["gen"].firm_kw == pytest.approx(3200.0)  # 2 x 2,000 kVA x 0.8
    assert gens["gen-b"].it_kw == pytest.approx(1056.0)  # bus-b carries every rack on path B
    assert gens["gen-b"].firm_kw == pytest.approx(1280.0)


def test_every_single_failure_is_played() -> None:
    cases = {c.element: c for c in failure_cases(_topo("pwr013", "bad.yaml"))}
    assert cases["pdu-1"].racks_lost == ("r1",)
    assert cases["ups-1"].racks_lost == ("r2", "r3")
    assert cases["ups-1"].load_lost_kw == pytest.approx(200.0)
    assert cases["f4"].racks_lost == ("r4",)
    assert cases["bus-a"].racks_lost == ()
    assert cases["bus-a"].racks_degraded == ("r2", "r3")
    assert cases["a2"].racks_degraded == ("r2",)


def test_a_ups_a_catcher_backs_up_is_ridden_through() -> None:
    cases = {c.element: c for c in failure_cases(_topo("pwr013", "good.yaml"))}
    assert "ups-1" not in cases
    assert cases["ups-a"].racks_lost == ()
    assert cases["ups-a"].racks_degraded == ("r1", "r2", "r3")


def test_chain_references_are_checked() -> None:
    from dclint.errors import LoadError
    from dclint.loader import load_text

    text = (
        "name: t\npower:\n  ups:\n    - {id: u1, rating: 100 kVA, fed_by: tx9, catches: [u9]}\n"
        "  generators:\n    - {id: g, site_rating: 100 kW, serves: nowhere}\n"
        "  panels:\n    - {id: p1, fed_by: u1, voltage: 415 V, current_rating: 100 A}\n"
    )
    with pytest.raises(LoadError) as err:
        load_text(text, "d.yaml")
    assert [str(p) for p in err.value.problems] == [
        "d.yaml:4:41: unknown power element 'tx9'",
        "d.yaml:4:56: unknown UPS 'u9'",
        "d.yaml:6:44: unknown power element 'nowhere'",
    ]
