"""`dclint plan`: the layout search's output formats, the --set line, bad input, the --vary grid,
and PAR005's price."""

from __future__ import annotations

import contextlib
import io
import json
import shlex
from pathlib import Path

import pytest

from conftest import EXAMPLES, SAMPLES
from dclint.analysis.grid.facility import GridPoint, pareto
from dclint.analysis.layouts import declared_sentence
from dclint.cli import main
from dclint.loader import load
from dclint.projection.search.plan import Plan, loses_on, plan_layouts

SMALL = str(EXAMPLES / "par005" / "bad.yaml")  # 13B on 64 H100, two workloads
H100 = str(SAMPLES / "h100-40node.yaml")


def _plan(path: str, index: int = 0) -> Plan:
    """The library's answer, for what depends on the step model's constants."""
    design = load(path)
    found = plan_layouts(design, design.workloads[index])
    assert not isinstance(found, str)
    return found


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["plan", *args, "--format", "json"]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def test_json_has_the_issue_keys_best_first(capsys: pytest.CaptureFixture[str]) -> None:
    d = _json(capsys, SMALL, "--workload", "tp8-mb1", "--top", "5")
    assert set(d) >= {"design", "workload", "candidates", "valid", "layouts", "declared"}
    assert (d["design"], d["workload"]) == ("par005-bad", "tp8-mb1")
    layouts = d["layouts"]
    assert isinstance(layouts, list) and len(layouts) == 5
    keys = {"tp", "pp", "vpp", "cp", "ep", "dp", "micro_batch", "recompute", "optimizer"}
    keys |= {"sequence_parallel", "step_time_s", "mfu", "memory_per_gpu_gib", "days", "cost"}
    assert all(keys <= set(x) for x in layouts)
    times = [x["step_time_s"] for x in layouts]
    assert times == sorted(times)
    rejected = d["rejected"]
    assert isinstance(rejected, dict)
    assert d["candidates"] == d["valid"] + sum(rejected.values())  # type: ignore[operator]
    declared = d["declared"]
    assert isinstance(declared, dict)
    plan = _plan(SMALL)
    faster = sum(1 for c in plan.result.valid if c.step_time < plan.declared.step_time)
    assert declared["rank"] == faster + 1 and declared["valid"] is True
    assert declared["gap"] == pytest.approx(declared["step_time_s"] / times[0] - 1)
    assert declared["loses_on"] == loses_on(plan.declared, plan.result.valid[0])
    assert (d["candidates"], d["valid"]) == (17424, 14244)  # the memory model, not the step's


def test_set_line_makes_the_best_layout_the_declared_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = _json(capsys, SMALL, "--workload", "tp8-mb1")
    flags = shlex.split(str(first["set"]))
    again = _json(capsys, SMALL, "--workload", "tp8-mb1", *flags)
    capsys.readouterr()
    declared = again["declared"]
    assert isinstance(declared, dict)
    assert declared["rank"] == 1 and declared["gap"] == 0.0


def test_text_and_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", SMALL, "--workload", "tp8-mb1", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Layouts for workload tp8-mb1 of par005-bad on 64 GPUs: 17,424")
    sentence = declared_sentence(_plan(SMALL))
    assert sentence.startswith("your layout (tp 8, pp 1, vpp 1, cp 1, ep 1, dp 8) is ")
    assert f"\n{sentence}.\n" in out
    assert "  does not fit in GPU memory: 2,124" in out
    assert "--set 'workloads.tp8-mb1.parallel={tp: 2, pp: 1," in out
    assert (
        len([line for line in out.splitlines() if line.lstrip().startswith(("1 ", "2 ", "3 "))])
        == 3
    )
    assert main(["plan", SMALL, "--workload", "tp8-mb1", "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert md.startswith("## Layouts for workload tp8-mb1")
    assert "| rank | tp | pp |" in md


BAD_INPUT = [
    (["--workload", "nope"], "unknown workload 'nope' (workloads: tp8-mb1, tp2-pp2-mb1)"),
    ([], "name the workload with --workload (one of: tp8-mb1, tp2-pp2-mb1)"),
    (["--workload", "tp8-mb1", "--gpus", "many"], "--gpus many: write whole GPU counts"),
    (["--workload", "tp8-mb1", "--top", "0"], "--top 0: print at least one layout"),
    (["--workload", "tp8-mb1", "--set", "workloads[0].model.parameters=3e12"], "no layout of"),
]


@pytest.mark.parametrize(("args", "message"), BAD_INPUT)
def test_bad_input_is_one_error_line_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(["plan", SMALL, *args]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("dclint: e")]
    assert len(err) == 1 and message in err[0], err


def test_workload_without_architecture_is_an_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = (EXAMPLES / "par005" / "good.yaml").read_text(encoding="utf-8")
    path = tmp_path / "d.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["plan", str(path), "--workload", "parameters-only"]) == 2
    assert "model.layers, hidden_size and vocab_size are needed" in capsys.readouterr().err


UPLINKS = "fabrics[0].tiers[0].uplinks=20,5"


# the sample's workload on 128 and 64 of its GPUs: four searches, two-thirds the cost of them on
# 320 and 256 (test_grid_is_the_same_... varies the uplinks on 320)
GRID4 = [H100, "--vary", UPLINKS, "--vary", "workloads[0].gpus=128,64", "--jobs", "1"]


@pytest.fixture(scope="module")
def grid4_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, object], str]:
    """The four-point grid's JSON, computed once for the tests that read it (about 4 CPU-seconds
    a run), and the store it streamed its points into, which `--resume` prints again without
    redoing a point (test_grid_scale); one process and two give the same grid
    (test_grid_is_the_same_...)."""
    store = str(tmp_path_factory.mktemp("grid4") / "grid.db")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["plan", *GRID4, "--store", store, "--format", "json"]) == 0
    data: dict[str, object] = json.loads(out.getvalue())
    return data, store


@pytest.fixture(scope="module")
def grid4(grid4_store: tuple[dict[str, object], str]) -> dict[str, object]:
    return grid4_store[0]


def test_grid_points_in_order_with_findings_and_front(grid4: dict[str, object]) -> None:
    points = grid4["points"]
    assert isinstance(points, list)
    values = [tuple(p["values"].values()) for p in points]
    assert values == [("20", "128"), ("20", "64"), ("5", "128"), ("5", "64")]
    assert [p["by_rule"] for p in points][2] == {"NET001": 1, "NET008": 1}
    assert points[0]["findings"] == 0
    # 2:1 leaf uplinks (5 of 20) slow the 128-GPU run's best layout, never speed it up
    assert points[2]["days"] >= points[0]["days"]
    best = points[0]["best"]
    assert best["tp"] * best["pp"] * best["cp"] * best["dp"] == 128
    assert points[0]["pareto"] is True
    assert points[1]["tco"] == points[0]["tco"] and points[1]["days"] > points[0]["days"]
    assert points[1]["pareto"] is False  # same TCO, more days than on 128 GPUs


@pytest.mark.integration  # the grid twice; test_grid_scale runs --jobs 2 in the default tier
def test_grid_is_the_same_in_one_process_and_in_two(capsys: pytest.CaptureFixture[str]) -> None:
    one = _json(capsys, H100, "--vary", UPLINKS, "--jobs", "1")
    two = _json(capsys, H100, "--vary", UPLINKS, "--jobs", "2")
    assert one == two


def test_pareto_keeps_points_nothing_beats() -> None:
    def point(cost: float | None, days: float | None) -> GridPoint:
        return GridPoint(("x",), {}, [], None, days, None, cost, "USD")

    marked = pareto([point(10, 5), point(8, 6), point(9, 7), point(10, 5), point(None, 1)])
    assert [p.pareto for p in marked] == [True, True, False, True, False]


@pytest.mark.parametrize(("shift", "fires"), [(-1e-6, True), (1e-6, False)])
def test_par005_fires_above_max_gap_only(tmp_path: Path, shift: float, fires: bool) -> None:
    from conftest import TODAY
    from dclint.engine.config import load_config
    from dclint.engine.runner import Engine, run

    gap = _plan(SMALL).gap()  # the first workload's, whatever the step model's constants
    config = tmp_path / ".dclint.yaml"
    config.write_text(f"PAR005: {{search: true, max_gap: {gap + shift!r}}}\n", encoding="utf-8")
    result = run([SMALL], Engine(config=load_config(config), today=TODAY))
    lines = {f.line for f in result.findings if f.rule == "PAR005"}
    assert (19 in lines) is fires


def test_par005_is_priced_by_the_best_layouts_step(capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", SMALL, "--format", "json", "--layout-search"])
    found = json.loads(capsys.readouterr().out)["designs"][0]["findings"]
    impact = next(f["impact"] for f in found if f["rule"] == "PAR005")
    from dclint.loader import load
    from dclint.projection import project_workloads
    from dclint.projection.search.plan import plan_layouts

    design = load(SMALL)
    plan = plan_layouts(design, design.workloads[0])
    assert not isinstance(plan, str)
    wall = project_workloads(design)[0].training_time.m_as("day")
    ratio = plan.result.valid[0].step_time / plan.declared.step_time
    assert impact["days"] == pytest.approx(wall * (1 - ratio), rel=1e-9)
    assert impact["days"] > 1.0  # a fifth of a run of about 7.7 days


@pytest.mark.integration  # the plan benchmark's 10 s wall-clock target
def test_bench_1024_gpus_70b_within_its_target(capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    from conftest import ROOT

    spec = importlib.util.spec_from_file_location("plan_bench", ROOT / "bench" / "plan_bench.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--only", "1024", "--repeat", "1"]) == 0  # 10 s target
    assert "56,064 candidates" in capsys.readouterr().out


def test_grid_html_draws_every_point_and_fills_the_front(
    capsys: pytest.CaptureFixture[str], grid4_store: tuple[dict[str, object], str]
) -> None:
    grid4, store = grid4_store
    points = grid4["points"]
    assert isinstance(points, list)
    assert main(["plan", *GRID4, "--resume", store, "--format", "html"]) == 0
    page = capsys.readouterr().out
    assert page.startswith("<!doctype html>") and "<svg" in page
    assert page.count("<circle") == len(points)
    assert page.count('fill="#c33" stroke') == sum(1 for p in points if p["pareto"])
    assert page.count("<tr>") == len(points) + 1


def test_the_search_as_a_page(capsys: pytest.CaptureFixture[str]) -> None:
    """The layout search prints HTML too (issue 29 item 8): the text's rows and sentences."""
    assert main(["plan", SMALL, "--workload", "tp8-mb1", "--top", "3"]) == 0
    text = capsys.readouterr().out
    assert main(["plan", SMALL, "--workload", "tp8-mb1", "--top", "3", "--format", "html"]) == 0
    page = capsys.readouterr().out
    assert page.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in page
    assert page.count("<tr>") == 4  # the head and three layouts
    best = next(x for x in text.splitlines() if x.strip().startswith("1 "))
    assert "".join(f"<td>{c}</td>" for c in best.split()[:7]) in page


# the 13B example searched on 16 and 32 GPUs costs a CPU-second, the sample on 160 and 320 three
SEVERAL_GPUS = [
    pytest.param(SMALL, "tp8-mb1", "16,32", " on 16 or 32 GPUs: ", id="small"),
    pytest.param(
        H100,
        "llm-13b",
        "160,320",
        " on 160 or 320 GPUs: ",
        id="h100",
        marks=pytest.mark.integration,
    ),
]


@pytest.mark.parametrize(("design", "workload", "gpus", "said"), SEVERAL_GPUS)
def test_several_gpu_counts_get_a_gpus_column(
    capsys: pytest.CaptureFixture[str], design: str, workload: str, gpus: str, said: str
) -> None:
    args = ["plan", design, "--workload", workload, "--top", "40"]
    assert main([*args, "--gpus", gpus]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert said in lines[0]
    assert lines[2].split()[:3] == ["rank", "GPUs", "tp"]
    rows = [line.split() for line in lines[3:43]]
    for row in rows:  # each row's GPU count is its tp x pp x cp x dp
        gpus, tp, pp, cp, dp = (int(row[i].replace(",", "")) for i in (1, 2, 3, 5, 7))
        assert gpus == tp * pp * cp * dp


# a search on the 13B example's 64 GPUs costs half a CPU-second, on the sample's 320 a second:
# the best layout's tp with the default reserve, and with 70% of each GPU's memory kept free
RESERVED = [
    pytest.param([SMALL, "--workload", "tp8-mb1"], 2, 4, id="small"),
    pytest.param([H100], 2, 4, id="h100", marks=pytest.mark.integration),
]


@pytest.mark.parametrize(("args", "tp", "tp_reserved"), RESERVED)
def test_grid_keeps_the_configured_par005_reserve(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    tp: int,
    tp_reserved: int,
) -> None:
    config = tmp_path / "reserve.yaml"
    config.write_text("PAR005: {reserve: 70%}\n", encoding="utf-8")
    default = _json(capsys, *args, "--vary", "site.pue=1.2", "--jobs", "1")
    kept = _json(capsys, *args, "--vary", "site.pue=1.2", "--jobs", "1", "--config", str(config))
    design = load(args[0])
    found = plan_layouts(design, design.workloads[0], reserve=0.7, rank_only=True)
    assert not isinstance(found, str)
    want = found.result.valid[0]
    points, base = kept["points"], default["points"]
    assert isinstance(points, list) and isinstance(base, list)
    best = points[0]["best"]
    assert (best["tp"], best["pp"], best["cp"], best["micro_batch"]) == (
        want.tp, want.pp, want.cp, want.micro_batch,
    )  # fmt: skip
    assert best != base[0]["best"]  # 70% of HBM kept free rules out the default's best
    assert (base[0]["best"]["tp"], best["tp"]) == (tp, tp_reserved)


@pytest.mark.parametrize(("design", "tp", "tp_reserved"), RESERVED)
def test_the_search_keeps_the_configured_reserve_and_checks_the_flags(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    design: list[str],
    tp: int,
    tp_reserved: int,
) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("PAR005:\n  reserve: 70%\n", encoding="utf-8")
    args = ["plan", *design, "--format", "json", "--top", "1"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["layouts"][0]["tp"] == tp
    assert main([*args, "--config", str(config)]) == 0  # 30% of each GPU's memory left
    assert json.loads(capsys.readouterr().out)["layouts"][0]["tp"] == tp_reserved
    assert main([*args, "--select", "ZZZ"]) == 2
    assert capsys.readouterr().err == "dclint: error: --select: 'ZZZ' matches no rule id\n"


def test_plan_counts_the_ramp_up_and_evaluations_as_cost_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """BLOOM as run (ramp-up 0.7704 d, 95 evaluations 0.7917 d in `dclint cost`): plan folded
    both into one overhead factor on the steps, so a layout twice as fast halved the
    evaluations too; they are their own terms, named with cost's figures, and the evaluations
    are the same days on every layout."""
    from test_published_gpu_hours import BLOOM_RUN

    from dclint.projection import project_workloads

    path = tmp_path / "bloom.yaml"
    path.write_text(BLOOM_RUN, encoding="utf-8")
    assert main(["plan", str(path), "--workload", "bloom-176b", "--top", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[-2:] == [
        "days: steps x predicted step, + batch ramp-up (the declared run's 0.7704 d, 0.73% of its "
        "steps) + evaluations (0.7917 d), x checkpoints and failures (the declared run's +1.62%), "
        "as `dclint cost` counts them; cost: GPU-days x that run's cost a GPU-day",
        "days' band: an 80% prediction interval of measured over predicted step time, for a run "
        "on a setup other than dclint's calibration sources (random effects over 160 runs from "
        "all 16 published benchmarks: the Ampere runs come from fewer than the 3 a generation's "
        "own interval needs), dclint's calibration residuals (docs/performance-model.md)",
    ]
    plan = _plan(str(path))
    (proj,) = project_workloads(load(str(path)))
    t = proj.timing
    assert plan.terms.evaluation == pytest.approx(t.evaluation.m_as("day"), rel=1e-12)
    assert plan.terms.rampup == pytest.approx(t.rampup.m_as("day"), rel=1e-12)
    best = plan.result.valid[0]
    steps = plan.steps * best.step_time / 86400
    share = t.rampup / (t.compute + t.communication)
    assert plan.rampup(best).m_as("day") == pytest.approx(steps * share.m_as(""), rel=1e-12)
    assert plan.days(best).m_as("day") == pytest.approx(
        (steps * (1 + share.m_as("")) + t.evaluation.m_as("day")) * (t.wall / t.running).m_as(""),
        rel=1e-12,
    )
