"""A price in a currency the site has no exchange rate for is left out of the cost, and
`dclint cost` says so in its assumptions; the what-if tables (`check --sweep`, `plan --vary`)
and `dclint diff`, which print the cost without the assumptions, printed the smaller total as
if complete: 1 EUR/kWh cost 110,433 CNY against 120,974 CNY at 0.8 CNY/kWh, and the grid put
it alone on the Pareto front. They now say what the cost leaves out, and the grid keeps such a
point off the front."""

from __future__ import annotations

import json

import pytest

from conftest import SAMPLES
from dclint.cli import main
from dclint.loader import load
from dclint.loader.overrides import parse_overrides
from dclint.projection import project_workloads, tco

H100 = str(SAMPLES / "h100-40node.yaml")
EUR = "site.electricity_price=1 EUR/kWh"
LEFT = "electricity cost omitted: no exchange rate from EUR to CNY"
ADVICE = ": declare site.exchange_rates, e.g. {EUR: '<value> CNY'}"


def test_the_projection_and_the_tco_name_what_they_could_not_convert() -> None:
    design = load(H100, overrides=parse_overrides([EUR]))
    (p,) = project_workloads(design)
    assert p.unconverted == (LEFT + ADVICE,)
    assert LEFT + ADVICE in p.assumptions
    assert "electricity" not in p.cost_breakdown
    t = tco(design)
    assert t.unconverted == ("electricity omitted: no exchange rate from EUR to CNY" + ADVICE,)
    assert "electricity" in t.omitted
    assert tco(load(H100)).unconverted == ()


def test_the_sweep_says_what_a_cost_leaves_out(capsys: pytest.CaptureFixture[str]) -> None:
    sweep = ["check", H100, "--select", "PWR001", "--sweep", EUR + ",0.8 CNY/kWh"]
    assert main(sweep) == 0
    rows = capsys.readouterr().out.splitlines()[2:]
    cell = ["1.751", "d", "110,433", "CNY", *f"({LEFT})".split()]
    assert rows[0].split()[-len(cell) :] == cell
    assert rows[1].split()[-4:] == ["1.751", "d", "120,974", "CNY"]
    assert main([*sweep, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)["sweeps"][0]["rows"]
    assert [r["workloads"]["llm-13b"]["cost_omits"] for r in data] == [[LEFT + ADVICE], []]


def test_the_diff_says_so_and_compares_no_partial_cost(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["diff", H100, H100, "--select", "PWR001", "--set", EUR]
    assert main(args) == 0
    out = capsys.readouterr().out
    (row,) = [line for line in out.splitlines() if line.startswith("llm-13b cost")]
    assert row.split("  ")[-1] == "not comparable"  # it said -10,541 CNY
    assert f"120,974 CNY  110,433 CNY ({LEFT})" in row
    (tco,) = [line for line in out.splitlines() if line.startswith("TCO over 3 years")]
    assert tco.split("  ")[-1] == "not comparable"
    assert "69,120,000 CNY (electricity omitted: no exchange rate from EUR to CNY)" in tco
    assert main([*args, "--format", "json"]) == 0
    (cost,) = [
        r for r in json.loads(capsys.readouterr().out)["projections"] if "cost" in r["label"]
    ]
    assert (cost["change"], cost["omits_b"], "omits_a" in cost) == (
        "not comparable",
        [LEFT + ADVICE],
        False,
    )


def test_the_grid_keeps_a_partial_cost_off_the_front(capsys: pytest.CaptureFixture[str]) -> None:
    grid = ["plan", H100, "--vary", EUR + ",0.8 CNY/kWh", "--jobs", "1"]
    assert main(grid) == 0
    out = capsys.readouterr().out.splitlines()
    # 1 EUR/kWh: the TCO and run cost without electricity (69,120,000 and 92,201 CNY) were
    # the cheaper, and the point the front: it is now the 0.8 CNY/kWh point
    assert [line.endswith("*") for line in out[3:5]] == [False, True]
    assert out[6] == (
        f"{EUR}: cost not comparable, off the front: TCO: electricity omitted: no exchange rate "
        f"from EUR to CNY; run cost: {LEFT}"
    )
    assert main([*grid, "--format", "json"]) == 0
    points = json.loads(capsys.readouterr().out)["points"]
    assert [(p["pareto"], len(p["cost_omits"])) for p in points] == [(False, 2), (True, 0)]


def test_dclint_cost_says_why_a_declared_item_is_out_of_the_tco(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The TCO listed a price given in EUR as 'omitted (not declared)', and with every price
    in EUR totalled '0 CNY over 3 years' and '0 CNY' a GPU-year: a free cluster."""
    gpu = "cost.gpu_price=30000 EUR"
    assert main(["cost", H100, "--set", EUR]) == 0
    out = capsys.readouterr().out
    assert out.endswith(
        "  omitted (not declared): network, storage, power_cooling_infrastructure, building, "
        "software, staff\n"
        "  omitted (no exchange rate from EUR to CNY): electricity\n"
    )
    assert main(["cost", H100, "--set", EUR, "--set", gpu]) == 0
    tco = capsys.readouterr().out.split("\nTCO ", 1)[1].splitlines()
    assert tco[:1] + tco[-1:] == [
        "h100-40node: - (nothing priced) over 3 years, 320 GPUs",
        "  omitted (no exchange rate from EUR to CNY): hardware, electricity",
    ]
    assert not any("per GPU-year" in line for line in tco)
    assert main(["cost", H100, "--set", EUR, "--set", gpu, "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert "| total | - (nothing priced) over 3 years, 320 GPUs |" in md
    assert "| omitted (no exchange rate from EUR to CNY) | hardware, electricity |" in md


def test_the_review_says_why_as_dclint_cost_does(capsys: pytest.CaptureFixture[str]) -> None:
    """The review's TCO table listed the price given in EUR under 'omitted' with the items
    the design does not declare; it now gives the rows `dclint cost` gives, from Tco.omissions."""
    rows = [
        "| omitted (not declared) | network, storage, power\\_cooling\\_infrastructure, "
        "building, software, staff |",
        "| omitted (no exchange rate from EUR to CNY) | electricity |",
    ]
    assert main(["cost", H100, "--set", EUR, "--format", "markdown"]) == 0
    cost = capsys.readouterr().out.splitlines()
    assert main(["review", H100, "--set", EUR, "--format", "markdown"]) == 0
    review = capsys.readouterr().out.splitlines()
    for document in (cost, review):
        assert [line for line in document if line.startswith("| omitted")] == rows
