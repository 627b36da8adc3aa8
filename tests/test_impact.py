"""Priced findings: days and money of the design as it is minus the design with the limit met."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dclint.cli import main
from dclint.engine.findings import Finding
from dclint.engine.rule import Remedy, Rule
from dclint.projection import project_workloads
from dclint.units import Q_, fmt

H100 = "sample_designs/h100-40node.yaml"
SLOW_LUSTRE = ["--set", "storage.tiers[1].write_bandwidth=1 GB/s"]
FABRIC = "sample_designs/broken-fabric-2to1.yaml"
NOT_RAILS = ["--set", "fabrics[0].rail_optimised=false"]


def _check(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    main(["check", *args, "--format", "json"])
    design: dict[str, object] = json.loads(capsys.readouterr().out)["designs"][0]
    return design


def test_slow_checkpoint_is_priced_at_the_target(capsys: pytest.CaptureFixture[str]) -> None:
    d = _check(capsys, H100, *SLOW_LUSTRE)
    (f,) = [f for f in d["findings"] if f["rule"] == "STO002"]  # type: ignore[attr-defined]
    (p,) = d["projections"]  # type: ignore[misc]
    running = p["compute_days"] + p["communication_days"]
    ckpt = p["checkpoint_days"]
    lost = p["failure_days"] / (running + ckpt)
    # 182 GB at 1 GB/s is 182 s a save; at the 90 s target the saves take 90/182 of that
    assert f["impact"]["days"] == pytest.approx(ckpt * (1 - 90 / 182) * (1 + lost), rel=1e-6)
    assert f["impact"]["currency"] == "CNY"
    share = f["impact"]["days"] / p["training_days"]
    assert f["impact"]["cost"] == pytest.approx(p["cost_total"] * share, rel=1e-6)


def test_oversubscribed_tier_is_priced_by_the_step_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from dclint.loader import load
    from dclint.loader.overrides import parse_overrides
    from dclint.projection.predict import predict
    from dclint.projection.training import hardware_of

    d = _check(capsys, FABRIC, *NOT_RAILS)
    (f,) = [f for f in d["findings"] if f["rule"] == "NET001"]  # type: ignore[attr-defined]
    (p,) = d["projections"]  # type: ignore[misc]
    design = load(FABRIC, overrides=parse_overrides(["fabrics[0].rail_optimised=false"]))
    wl = design.workloads[0]
    hw = hardware_of(design, wl.platform)
    assert not isinstance(hw, str)
    asis, flat = predict(design, wl, hw), predict(design, wl, hw, nonblocking=True)
    assert not isinstance(asis, str) and not isinstance(flat, str)
    # 18-way DP, 8 apart, spans 144 GPUs: past a 32-GPU leaf, so the 2:1 tier halves its rate
    assert asis.breakdown["dp"] > flat.breakdown["dp"]
    ratio = flat.step_time.m_as("s") / asis.step_time.m_as("s")
    running = p["compute_days"] + p["communication_days"]
    lost = p["failure_days"] / (running + p["checkpoint_days"])
    # a save an interval of running time: the faster run takes its saves fewer by the ratio
    held = running + p["checkpoint_days"]
    assert f["impact"]["days"] == pytest.approx(held * (1 - ratio) * (1 + lost), rel=1e-6)
    assert f["impact"]["days"] > 0


def test_rail_optimised_fabric_keeps_traffic_under_the_leaves(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Rails keep the data-parallel traffic under the leaves: the 2:1 tier costs the declared
    run (its measured 40% MFU) no time, so the finding carries no impact (not "saves 0 d,
    0 CNY") and says why, in JSON and in the text, instead of a silent null."""
    d = _check(capsys, FABRIC)
    (f,) = [f for f in d["findings"] if f["rule"] == "NET001"]  # type: ignore[attr-defined]
    assert "impact" not in f
    assert f["impact_note"] == RAILS_NOTE
    main(["check", FABRIC])
    out = capsys.readouterr().out
    assert "NET001" in out and "the fix saves" not in out
    assert f"(measured 2.00:1, limit 1:1) [{RAILS_NOTE}]" in out


RAILS_NOTE = (
    "costs the declared run no training time: the step-time model's step is the same at 1:1 "
    "(what its collectives send across the oversubscribed tier fits its uplinks, jobs packed "
    "or spread over the switch groups); rail-optimised, NVLink carries each GPU's traffic to "
    "its rail's leaves"
)
STORAGE = "sample_designs/broken-storage-half.yaml"


def test_storage_above_the_demand_costs_no_training_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """300 GB/s against a 200 GB/s demand is below the 3x headroom (600 GB/s), not below the
    demand: the GPUs are fed, the finding says so and carries no impact."""
    d = _check(capsys, STORAGE)
    (f,) = d["findings"]  # type: ignore[misc]
    assert f["rule"] == "STO001" and "impact" not in f
    assert f["impact_note"] == (
        "costs no training time at the workloads' read demand: the storage reads 300 GB/s "
        "against a demand of 200 GB/s; the 3x headroom is for bursts (data loading and jobs "
        "starting at once)"
    )


@pytest.mark.parametrize(("read", "short"), [("100 GB/s", 2.0), ("150 GB/s", 4 / 3)])
def test_storage_below_the_demand_idles_the_gpus(
    read: str, short: float, capsys: pytest.CaptureFixture[str]
) -> None:
    """Reads below the demand feed the GPUs bandwidth / demand of the data they need: the
    run's steps take demand / bandwidth as long as projected, and the fix gives them back
    (saves held x (short - 1) x (1 + lost), the saves one an interval of running time)."""
    d = _check(capsys, STORAGE, "--set", f"storage.tiers[1].read_bandwidth={read}")
    (f,) = d["findings"]  # type: ignore[misc]
    (p,) = d["projections"]  # type: ignore[misc]
    assert p["evaluation_days"] == 0 and p["rampup_days"] == 0
    held = p["compute_days"] + p["communication_days"] + p["checkpoint_days"]
    lost = p["failure_days"] / held
    days = held * (short - 1) * (1 + lost)
    assert f["impact"]["days"] == pytest.approx(days, rel=1e-9)
    assert f["impact"]["cost"] == pytest.approx(
        p["cost_total"] * days / p["training_days"], rel=1e-9
    )
    assert "impact_note" not in f
    # no evaluations or ramp-up: the whole projected run stretches, at half the demand by one
    # run (136.6 d), at three quarters by a third of it
    assert f["impact"]["days"] == pytest.approx(p["training_days"] * (short - 1), rel=1e-9)


def test_impact_under_a_hundredth_of_a_day_is_no_impact(monkeypatch: pytest.MonkeyPatch) -> None:
    """Float noise (1.421e-14 d) and anything under MIN_DAYS is no impact, days and cost, and
    the finding says so: float noise that it costs the run nothing, a saving under MIN_DAYS
    its figures (it printed neither a price nor a note); at MIN_DAYS the impact stays, its cost
    the same share of the run's."""
    from dclint.analysis import impact as priced
    from dclint.loader import load

    design = load(H100)
    projections = project_workloads(design)
    finding = Finding("f.yaml", 1, 1, "STO002", "n", "error", "m", "p", "s")
    saved = {"days": 0.0}

    def fixed(p: Any, _running: float, _checkpoint: float) -> float:
        return float(p.training_time.m_as("day")) - saved["days"]

    class Fixing(Rule):
        @classmethod
        def remedy(cls, *_: Any) -> Remedy:  # type: ignore[override]
            return Remedy()

    monkeypatch.setattr(priced, "_fixed_wall", fixed)
    (p,) = projections
    saved["days"] = 1.421e-14
    assert priced._impact(design, finding, projections, Fixing, {}) == (
        None,
        "costs the projected run no training time",
        None,
    )
    saved["days"] = 0.0099
    cost = p.cost_total.m_as("CNY") * 0.0099 / p.training_time.m_as("day")
    none, note, tiny = priced._impact(design, finding, projections, Fixing, {})
    assert (none, note) == (
        None,
        f"costs the projected run under 0.01 d: 0.0099 d, {fmt(Q_(cost, 'CNY'))}",
    )
    assert tiny is not None  # the note's figures, for a tool (impact_under_floor)
    assert tiny.as_dict() == {
        "days": pytest.approx(0.0099, rel=1e-9),
        "cost": pytest.approx(cost, rel=1e-9),
        "currency": "CNY",
    }
    saved["days"] = priced.MIN_DAYS
    kept, _, under = priced._impact(design, finding, projections, Fixing, {})
    assert under is None
    assert kept is not None and kept.days.m_as("day") == pytest.approx(0.01)
    share = 0.01 / p.training_time.m_as("day")
    assert kept.cost is not None
    assert kept.cost.m_as("CNY") == pytest.approx(p.cost_total.m_as("CNY") * share, rel=1e-9)


def test_impact_in_sarif_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", H100, *SLOW_LUSTRE, "--format", "sarif"])
    sarif = json.loads(capsys.readouterr().out)
    (result,) = sarif["runs"][0]["results"]
    assert result["properties"]["impact"]["currency"] == "CNY"
    assert result["properties"]["impact"]["days"] > 0
    # the price in words wherever a reader reads the finding (a pull request's annotations,
    # GitLab's code quality widget and code scanning dropped it)
    assert result["message"]["text"].endswith("[the fix saves 0.02234 d, 1544 CNY]")
    main(["check", H100, *SLOW_LUSTRE])
    assert "[the fix saves 0.02234 d, 1544 CNY]" in capsys.readouterr().out
    main(["check", H100, *SLOW_LUSTRE, "--format", "github"])
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("::error")]
    assert "[the fix saves 0.02234 d, 1544 CNY]%0AFix: " in line
    main(["check", H100, *SLOW_LUSTRE, "--format", "gitlab"])
    (entry,) = json.loads(capsys.readouterr().out)
    assert "[the fix saves 0.02234 d, 1544 CNY] Fix: " in entry["description"]


def test_findings_without_a_projection_carry_no_impact(
    capsys: pytest.CaptureFixture[str],
) -> None:
    d = _check(capsys, "rules/layout/examples/par002/bad.yaml")
    assert all("impact" not in f for f in d["findings"])  # type: ignore[attr-defined]


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_the_review_prices_a_finding(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A 2:1 leaf that is not rail-optimised slows the data-parallel sync: the review says
    what the fix saves, as text and JSON do."""
    from dclint.cli import main

    flags = ["--set", "fabrics[0].rail_optimised=false", "--select", "NET001"]
    design = "sample_designs/broken-fabric-2to1.yaml"
    main(["check", design, *flags, "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    (finding,) = data["designs"][0]["findings"]
    impact = finding["impact"]
    assert impact["days"] > 0.01 and impact["currency"] == "CNY"
    main(["check", design, *flags, "--format", fmt])
    out = capsys.readouterr().out
    assert f"The fix saves {impact['days']:.4g} d" in out


def test_ecmp_and_spread_placement_reach_the_step_model() -> None:
    """`routing: ecmp` (the default on Ethernet switches) charges the tiers Meta's collision
    factor, kept when NET001's 1:1 is priced; `placement: spread` spreads jobs over the
    fabric's GPUs."""
    from dclint.loader import load
    from dclint.loader.overrides import parse_overrides
    from dclint.projection.collectives import Links
    from dclint.projection.predict import inputs, predict
    from dclint.projection.training import hardware_of

    def design_with(*sets: str) -> tuple[Any, Any, Any]:
        design = load(FABRIC, overrides=parse_overrides(["fabrics[0].rail_optimised=false", *sets]))
        wl = design.workloads[0]
        hw = hardware_of(design, wl.platform)
        assert not isinstance(hw, str)
        return design, wl, hw

    notes: list[str] = []
    got = inputs(*design_with("fabrics[0].routing=ecmp", "fabrics[0].placement=spread"), notes)
    assert not isinstance(got, str)
    assert got[2].links == Links(72, 720e9, 40e9, ((32, 2.0),), 1.4, 576, 282e9)
    assert any("(Gangidi et al., SIGCOMM 2024" in n for n in notes)
    adaptive, ecmp = design_with(), design_with("fabrics[0].routing=ecmp")
    for nonblocking in (False, True):
        a, e = predict(*adaptive, nonblocking=nonblocking), predict(*ecmp, nonblocking=nonblocking)
        assert not isinstance(a, str) and not isinstance(e, str)
        assert e.breakdown["dp"] > a.breakdown["dp"]
    # the default: InfiniBand switches route adaptively; Ethernet ones hash
    notes = []
    got = inputs(*design_with(), notes)
    assert not isinstance(got, str) and got[2].links.collision == 1.0
    eth = inputs(*design_with(*(f"fabrics[0].tiers[{i}].switch=sn5600" for i in (0, 1))), notes)
    assert not isinstance(eth, str) and eth[2].links.collision == 1.4
    assert eth[2].links.spread == 0  # packed unless declared


# The DP-heavy pair of issue 51: 13B on 512 H100, tp 2 / dp 256, a 2:1 leaf tier of 4 groups
# of 128 GPUs, not rail-optimised (docs/performance-model.md, practitioner claim 2)
PAIR = """
name: net001-pair
site: {electricity_price: 0.1 USD/kWh}
cost: {gpu_price: 25000 USD}
racks:
  - {id: "r[001-064]", platform: dgx-h100, nodes: 1}
fabrics:
  - id: compute
    kind: compute
{placement}    tiers:
      - {name: leaf, switch: qm9700, count: 4, downlinks: 128, uplinks: 64}
workloads:
  - id: llm-13b
    model: {parameters: 13e9, layers: 40, hidden_size: 5120, attention_heads: 40,
            vocab_size: 32000}
    tokens: 1e12
    sequence_length: 4096
    global_batch: 1024
    gpus: 512
    parallel: {tp: 2, pp: 1, dp: 256}
"""


def _pair(tmp_path: Any, capsys: pytest.CaptureFixture[str], placement: str) -> dict[str, Any]:
    path = tmp_path / "pair.yaml"
    path.write_text(PAIR.replace("{placement}", placement))
    d = _check(capsys, str(path), "--select", "NET001")
    (f,) = d["findings"]  # type: ignore[misc]
    return f  # type: ignore[no-any-return]


def test_net001_without_a_placement_is_priced_packed_to_spread(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """No placement stated: packed, a ring leaves its group on 2 of 64 hops and the 2:1 tier
    costs nothing; spread over the 4 groups it binds. The finding carries both ends, each the
    price of the design stating that placement; the text and the review say both."""
    open_end = _pair(tmp_path, capsys, "")["impact"]
    spread = _pair(tmp_path, capsys, "    placement: spread\n")["impact"]
    packed = _pair(tmp_path, capsys, "    placement: packed\n")
    assert "impact" not in packed
    assert packed["impact_note"] == (
        "costs the declared run no training time: the step-time model's step is the same at "
        "1:1 (what its collectives send across the oversubscribed tier fits its uplinks, as "
        "placed)"
    )
    assert open_end["days"] == 0.0 and open_end["cost"] == 0.0
    low, high = open_end["range"]["days"]
    assert low == 0.0
    assert high == pytest.approx(spread["days"], rel=1e-9)
    assert high == pytest.approx(0.33566, rel=1e-4)
    assert open_end["range"]["cost"][1] == pytest.approx(spread["cost"], rel=1e-9)
    assert open_end["range"]["cost"][1] > 0
    assert open_end["range"]["assumption"] == [
        "jobs packed under the switch groups",
        "spread over them; the fabric states no placement",
    ]
    path = tmp_path / "pair.yaml"
    path.write_text(PAIR.replace("{placement}", ""))
    main(["check", str(path), "--select", "NET001"])
    out = capsys.readouterr().out
    assert "the fix saves 0 d" in out and "to 0.3357 d" in out
    main(["review", str(path), "--select", "NET001", "--format", "markdown"])
    review = capsys.readouterr().out
    assert "(jobs packed under the switch groups) to 0.3357 d" in review


def test_the_reports_say_why_a_finding_costs_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    """Markdown and the review print the note where a priced finding would print its price."""
    main(["check", FABRIC, "--format", "markdown"])
    assert f"Costs{RAILS_NOTE[5:]}." in capsys.readouterr().out
    main(["review", FABRIC, "--format", "markdown"])
    assert f"It {RAILS_NOTE}." in capsys.readouterr().out


def test_the_note_survives_the_results_cache(
    tmp_path: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stored design's finding reads back with its note: the second check prints what the
    first did."""
    import shutil

    work = tmp_path / "repo"
    work.mkdir()
    (work / ".git").mkdir()
    shutil.copy(STORAGE, work / "d.yaml")
    monkeypatch.chdir(work)
    monkeypatch.delenv("DCLINT_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    outs = []
    for fmt_name in ("text", "text", "json", "json"):
        main(["check", "d.yaml", "--format", fmt_name])
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and outs[2] == outs[3]
    assert "[costs no training time at the workloads' read demand: " in outs[1]
    (f,) = json.loads(outs[3])["designs"][0]["findings"]
    assert f["impact_note"].startswith("costs no training time at the workloads' read demand")


@pytest.mark.parametrize(
    ("prices", "capex"),
    [
        # 18 leaves x 16 more uplinks; 6 more spines of 48 downlinks take the 576
        (
            ["cost.switch_price=30000 USD", "cost.link_price=1000 USD"],
            " (capital cost 288 links x 1000 USD + 6 switches x 30,000 USD = 468,000 USD)",
        ),
        # in the site's currency through its rate (1 USD = 7.2 CNY): 2,073,600 + 1,200,000 CNY
        (
            ["cost.switch_price=200000 CNY", "cost.link_price=1000 USD"],
            " (capital cost 288 links x 1000 USD + 6 switches x 200,000 CNY = 3,273,600 CNY)",
        ),
        (["cost.link_price=1000 USD"], " (capital cost 288 links x 1000 USD)"),
        # no rate from EUR: the parts as declared, no sum
        (
            ["cost.switch_price=30000 EUR", "cost.link_price=1000 USD"],
            " (capital cost 288 links x 1000 USD + 6 switches x 30,000 EUR)",
        ),
        (
            ["cost.link_price=1000 USD", "cost.transceiver_price=900 USD"],
            " (capital cost 288 links x 1000 USD, transceivers not counted)",
        ),
        ([], ""),
    ],
)
def test_net001_fix_states_its_capital_cost(prices: list[str], capex: str) -> None:
    """Where the design prices switches and links, the fix that names the uplinks and spines
    says what they cost (the rule alone: pricing the run is the tests above)."""
    from dclint.engine.rule import Context
    from dclint.loader import load
    from dclint.loader.overrides import parse_overrides
    from dclint.rules.fabric.net001_fabric_oversubscribed import FabricOversubscribed

    design = load(FABRIC, overrides=parse_overrides(prices))
    rule = FabricOversubscribed()
    (v,) = rule.check(design, Context({"limit": 1.0, "tier_limits": {}}))
    assert v.fix == (
        "give each leaf switch 32 uplinks (now 16) and the spine tier 12 switches (now 6) "
        "to meet 1:1" + capex
    )


def test_a_saving_under_the_floor_says_its_figures_in_every_format(
    tmp_path: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """broken-fabric-2to1 not rail-optimised, its leaves at 30 uplinks (1.07:1) under a spine
    that takes them, jobs packed: the 1:1 step saves 0.006732 d (0.00746 d at MAMF's GEMM
    rates), under MIN_DAYS. NET001's note came only where the step ratio was exactly 1.0, so
    this finding printed neither a price nor a note; it says what it costs, from the step
    model's two steps, in every format, the review's sentence and read back from the results
    cache."""
    from dclint.analysis.impact import MIN_DAYS
    from dclint.loader import load
    from dclint.projection.predict import predict
    from dclint.projection.training import hardware_of

    work = tmp_path / "repo"
    work.mkdir()
    (work / ".git").mkdir()
    text = Path(FABRIC).read_text(encoding="utf-8")
    for old, new in (
        ("rail_optimised: true", "rail_optimised: false\n    placement: packed"),
        ("uplinks: 16  # expect: NET001", "uplinks: 30"),
        ("count: 6\n", "count: 12\n"),
    ):
        assert old in text
        text = text.replace(old, new, 1)
    (work / "d.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(work)
    monkeypatch.delenv("DCLINT_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    outs = {}
    for fmt_name in ("text", "text", "json", "json", "sarif", "markdown", "html"):
        main(["check", "d.yaml", "--select", "NET001", "--format", fmt_name])
        out = capsys.readouterr().out
        assert outs.setdefault(fmt_name, out) == out  # the replay prints what the check did
    (d,) = json.loads(outs["json"])["designs"]
    (f,) = d["findings"]
    (p,) = d["projections"]
    design = load("d.yaml")
    wl = design.workloads[0]
    hw = hardware_of(design, wl.platform)
    assert not isinstance(hw, str)
    asis, flat = predict(design, wl, hw), predict(design, wl, hw, nonblocking=True)
    assert not isinstance(asis, str) and not isinstance(flat, str)
    ratio = flat.step_time.m_as("s") / asis.step_time.m_as("s")
    held = p["compute_days"] + p["communication_days"] + p["checkpoint_days"]
    days = held * (1 - ratio) * (1 + p["failure_days"] / held)
    assert 0 < days < MIN_DAYS
    cost = p["cost_total"] * days / p["training_days"]
    note = f"costs the projected run under 0.01 d: {fmt(Q_(days, 'day'))}, {fmt(Q_(cost, 'CNY'))}"
    assert "impact" not in f and f["impact_note"] == note
    assert note == "costs the projected run under 0.01 d: 0.006732 d, 1289 CNY"
    # the note's figures for a tool, as `impact` carries a price (JSON and SARIF, the replay's)
    assert f["impact_under_floor"] == {
        "days": pytest.approx(days, rel=1e-9),
        "cost": pytest.approx(cost, rel=1e-9),
        "currency": "CNY",
    }
    assert f"(measured 1.07:1, limit 1:1) [{note}]\n" in outs["text"]
    (result,) = json.loads(outs["sarif"])["runs"][0]["results"]
    assert result["message"]["text"].endswith(f"(measured 1.07:1, limit 1:1) [{note}]")
    assert result["properties"]["impactNote"] == note
    assert result["properties"]["impactUnderFloor"] == f["impact_under_floor"]
    sentence = f" Costs the projected run under 0.01 d: {note.split(': ', 1)[1]}."
    assert sentence in outs["markdown"] and sentence in outs["html"]
    main(["review", "d.yaml", "--select", "NET001", "--format", "markdown"])
    assert f" It {note}." in capsys.readouterr().out


def test_a_blocked_run_prices_no_finding(capsys: pytest.CaptureFixture[str]) -> None:
    """PAR006's example: workload llm-70b-vpp cannot run as stated (PAR003, an error), so the
    design's projection is not meaningful, as the review says of its figures and its ranked
    prices. `dclint check` still printed llm-70b's bubble at '[the fix saves 1.838 d, 25,770
    USD]' in every format; the finding now says it has no price until PAR003 is fixed,
    and the review gives the same words."""
    from conftest import EXAMPLES

    bad = str(EXAMPLES / "par006" / "bad.yaml")
    note = (
        "has no price until PAR003 layout-not-divisible is fixed (the design cannot run its "
        "workload as stated)"
    )
    d = _check(capsys, bad)
    found = [f for f in d["findings"] if f["rule"] == "PAR006"]  # type: ignore[attr-defined]
    assert [f.get("impact_note") for f in found] == [note, note]
    assert all("impact" not in f for f in found)
    main(["check", bad])
    assert f"(measured 88.24%, limit 50%) [{note}]\n" in capsys.readouterr().out
    main(["check", bad, "--format", "markdown"])
    assert f"lower pp. H{note[1:]}.\n" in capsys.readouterr().out
    main(["review", bad, "--format", "markdown"])
    review = capsys.readouterr().out
    assert f" It {note}." in review and "not meaningful until PAR003" in review


def test_the_blocking_error_keeps_its_price_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """h100-40node at tp 16: PAR002 (tp across the 8-GPU NVLink domain) is the error that
    blocks the run, and its fix is priced; the review's ranked table printed '-' for it while
    its sentence and `dclint check` gave the price. Every place now gives the JSON's price."""
    text = Path(H100).read_text(encoding="utf-8")
    assert "    parallel: {tp: 8, pp: 1}\n" in text
    path = tmp_path / "tp16.yaml"
    path.write_text(text.replace("{tp: 8, pp: 1}", "{tp: 16, pp: 1}"), encoding="utf-8")
    d = _check(capsys, str(path))
    (f,) = [f for f in d["findings"] if f["rule"] == "PAR002"]  # type: ignore[attr-defined]
    days, cost = fmt(Q_(f["impact"]["days"], "day")), fmt(Q_(f["impact"]["cost"], "CNY"))
    main(["check", str(path)])
    assert f"[the fix saves {days}, {cost}]\n" in capsys.readouterr().out
    main(["review", str(path), "--format", "markdown"])
    review = capsys.readouterr().out
    assert f"| PAR002 tensor-parallel-crosses-nvlink | error | 1 | {days} | {cost} |" in review
    assert f" It costs {days} and {cost} of the projected run." in review


def test_a_ranged_saving_under_the_floor_keeps_no_float_noise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ranged saving (NET001 without a placement: as placed, or spread) under MIN_DAYS whose
    low end is float noise prints that end as 0, as a ranged saving above the floor does: the
    note read 'under 0.01 d: 1.421e-14 d, 2.7e-12 CNY (as placed) to 0.005 d, ...' and
    `impact_under_floor` carried the noise."""
    from dclint.analysis import impact as priced
    from dclint.loader import load

    design = load(H100)
    projections = project_workloads(design)
    finding = Finding("f.yaml", 1, 1, "NET001", "n", "error", "m", "p", "s")

    def fixed(p: Any, running: float, _checkpoint: float) -> float:
        return float(p.training_time.m_as("day")) - (1.421e-14 if running == 1.0 else 0.005)

    class Ranged(Rule):
        @classmethod
        def remedy(cls, *_: Any) -> Remedy:  # type: ignore[override]
            return Remedy(alternative=(1.0, 0.5), label="as placed", other="spread")

    monkeypatch.setattr(priced, "_fixed_wall", fixed)
    (p,) = projections
    none, note, tiny = priced._impact(design, finding, projections, Ranged, {})
    high = p.cost_total.m_as("CNY") * 0.005 / p.training_time.m_as("day")
    assert none is None and tiny is not None
    assert note == (
        f"costs the projected run under 0.01 d: 0 d, 0 CNY (as placed) to 0.005 d, "
        f"{fmt(Q_(high, 'CNY'))} (spread)"
    )
    assert (tiny.days.m_as("day"), tiny.cost is not None and tiny.cost.m_as("CNY")) == (0.0, 0.0)
