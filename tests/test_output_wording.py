"""What the outputs say, read as a reader reads them: a figure printed apart from its limit
where it is over it, with its unit, once."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from conftest import EXAMPLES, ROOT, SAMPLES
from dclint.cli import main
from dclint.report.github import escape_data
from dclint.units import Q_, fmt_apart


def test_fmt_apart_prints_the_digits_that_tell_a_figure_from_its_limit() -> None:
    assert fmt_apart(Q_(10.001, "kW"), Q_(10, "kW")) == "10.001 kW"
    assert fmt_apart(Q_(80.00004, "kW"), Q_(80, "kW")) == "80.00004 kW"
    assert fmt_apart(Q_(132, "kW"), Q_(109.3, "kW")) == "132 kW"  # 4 figures where they do
    assert fmt_apart(Q_(80_000.4, "W"), Q_(80, "kW")) == "80000.4 W"  # in the figure's unit
    assert fmt_apart(Q_(0.0800004, "MW"), Q_(80, "kW"), "kW") == "80.0004 kW"


def test_pwr003_never_prints_a_feed_load_equal_to_its_capacity(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Feed s2 carries 10.001 kW against 200 V x 50 A at PF 1, 10 kW: the message said
    'carries 10 kW', above its capacity of 10 kW, where the numbers after it say 10.001 kW."""
    bad = str(EXAMPLES / "pwr003/bad.yaml")
    assert main(["check", "--isolated", "--select", "PWR003", bad]) == 1
    line = next(x for x in capsys.readouterr().out.splitlines() if " feed s2 " in x)
    assert line == (
        f"{bad}:30:23: PWR003 [error] feed s2 carries 10.001 kW (no power path) (rack r5 at its "
        "design IT load: no catalog max_power known), above its derated capacity (200 V x 50 A "
        "single-phase at 100%: 10 kVA x PF 1) (measured 10.001 kW, limit 10 kW)"
    )


ROLLED = (
    "rack su1-r1 design IT load 130 kW exceeds the rack power limit (value set by --set "
    "rack_types.nvl72.it_load=130 kW) (measured 130 kW, limit 120 kW) [8 racks of type nvl72: "
    "su1-r[1-8]]"
)
FIX = (
    "reduce the rack's load or spread it over more racks; if the hall is built for more, "
    "declare its envelope (site, hall or row `rack_power_limit`)"
)


def _run(capsys: pytest.CaptureFixture[str], fmt_name: str) -> str:
    su = str(SAMPLES / "gb200-superpod-su.yaml")
    args = ["check", su, "--select", "PWR001", "--set", "rack_types.nvl72.it_load=130 kW"]
    assert main([*args, "--format", fmt_name]) == 1
    return capsys.readouterr().out


def test_sarif_gitlab_junit_and_github_say_what_the_text_line_says(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One message builder (dclint.report.text.finding_message) for every one-line format: the
    SARIF and JUnit messages lacked '(measured 130 kW, limit 120 kW)', and GitHub and GitLab
    put the roll-up before the figures where the text line puts it after."""
    text = _run(capsys, "text").splitlines()[0]
    assert text == f"{SAMPLES / 'gb200-superpod-su.yaml'}:43:14: PWR001 [error] {ROLLED}"
    (result,) = json.loads(_run(capsys, "sarif"))["runs"][0]["results"]
    assert result["message"]["text"] == ROLLED
    (entry,) = json.loads(_run(capsys, "gitlab"))
    assert entry["description"] == f"PWR001 rack-power-over-limit: {ROLLED} Fix: {FIX}"
    github = _run(capsys, "github").splitlines()[0]
    assert github.endswith("::" + escape_data(f"{ROLLED}\nFix: {FIX}"))
    failure = ET.fromstring(_run(capsys, "junit")).find(".//failure")
    assert failure is not None
    assert failure.get("message") == f"8 findings; first: {ROLLED.rsplit(' [', 1)[0]}"


def test_plan_says_outside_what_dclint_has_seen_measured_once() -> None:
    """h100-40node declares 45% MFU: carried to the best layout it is 61.06%, above the 49%
    any Hopper dense calibration run published, and the listed layouts predict up to 52.76%.
    `dclint plan` said so in two sentences, one of them inside the declared-MFU sentence; it
    says it in one, and with a ceiling between the two (55%) only of the declared MFU."""
    from dataclasses import replace

    from dclint.analysis.layouts import ceiling_sentence, used_sentence
    from dclint.loader import load
    from dclint.projection.search.plan import plan_layouts

    design = load(SAMPLES / "h100-40node.yaml")
    plan = plan_layouts(design, design.workloads[0])
    assert not isinstance(plan, str)
    used = used_sentence(plan)
    assert used is not None and "outside" not in used
    assert ceiling_sentence(plan, 10) == (
        "outside what dclint has seen measured: 10 of the layouts listed predict more than "
        "49% MFU (up to 52.76%), and your declared MFU 45% carried to the best layout comes "
        "to 61.06%; 49% is the best MFU any calibration run of this GPU generation and class "
        "published (megatron-core-0.8-h100: gpt-16b): read them as a ranking, not as a "
        "throughput to expect"
    )
    between = replace(plan, ceiling=(0.5612, "a run at 56.12%"))
    assert ceiling_sentence(between, 10) == (
        "outside what dclint has seen measured: your declared MFU 45% carried to the best "
        "layout comes to 61.06%, more than 56.12% MFU; 56.12% is the best MFU any calibration "
        "run of this GPU generation and class published (a run at 56.12%): read it as a ranking, "
        "not as a throughput to expect"
    )
    assert ceiling_sentence(replace(plan, ceiling=(0.62, "a run at 62%")), 10) is None


def test_plan_and_its_grid_print_days_with_their_unit_and_band(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`dclint plan` and `plan --vary` printed a layout's days as a bare '1.47', where every
    layout's days are predicted (steps x the step model's step): '1.489 d (1.2-1.9 d)', as
    `dclint cost` quotes a predicted time (report.values.days_quoted, the one formatter), the
    band the projection's (Band.scaled of the same factors)."""
    h100 = str(SAMPLES / "h100-40node.yaml")
    assert main(["plan", h100, "--top", "1"]) == 0
    row = capsys.readouterr().out.splitlines()[3]
    assert row == (
        "   1   2   1    1   1   1  160   2       none  on  distributed  1.934 s  52.76%   "
        "64.23 GiB  1.493 d (1.2-1.9 d)  103,174 CNY"
    )
    assert main(["plan", h100, "--top", "1", "--format", "json"]) == 0
    best = json.loads(capsys.readouterr().out)["layouts"][0]
    assert [round(x, 4) for x in best["days_band"]] == [1.296, 1.8902]
    assert best["days_band"][0] < best["days"] < best["days_band"][1]
    grid = ["plan", h100, "--vary", "site.pue=1.2", "--jobs", "1"]
    assert main([*grid, "--format", "markdown"]) == 0
    assert capsys.readouterr().out.splitlines()[4] == (
        "| 1.2 | 0 | - | tp2 pp1 vpp1 cp1 ep1 mb2 | 1.493 d (1.2-1.9 d) | 101,889 CNY | "
        "75,986,934 CNY | \\* |"
    )
    assert main([*grid, "--format", "html"]) == 0  # the chart's point says it as the table
    assert "<title>site.pue=1.2: 1.493 d (1.2-1.9 d), 75,986,934 CNY</title>" in (
        capsys.readouterr().out
    )


def test_a_layouts_band_is_the_projections_band() -> None:
    """The plan's band for a layout's days scales them by the factors the projection's own
    prediction carries for the declared run (one band, computed in one place)."""
    from dclint.loader import load
    from dclint.projection import project_workloads
    from dclint.projection.search.plan import plan_layouts

    design = load(SAMPLES / "h100-40node.yaml")
    plan = plan_layouts(design, design.workloads[0])
    assert not isinstance(plan, str)
    (run,) = project_workloads(design)
    assert run.timing.prediction is not None
    band = run.timing.prediction.band
    best = plan.result.valid[0]
    days = plan.days(best)
    assert plan.days_band(best) == (days * band.low_factor, days * band.high_factor)


def _fp8_lines(path: str, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """Each workload's 'step model: ...' assumption line, as `dclint cost` prints it."""
    main(["cost", "--isolated", path, "--format", "json"])
    return {
        p["workload"]: next(a for a in p["assumptions"] if a.startswith("step model: "))
        for p in json.loads(capsys.readouterr().out)["projections"]
    }


def test_an_fp8_runs_assumptions_name_the_software_that_casts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """torchao's Float8 runs under TorchTitan (tests/calibration/torchao-float8-h100.yaml)
    printed 'fp8 Transformer Engine: FP8 GEMM operands cast with their transpose' though no
    Transformer Engine runs them: each says torchao's recipe, the bytes the step model charges
    its casts (the cast-transpose's and the recipe's amax read) and the FP8 all-gather where
    declared; a Transformer Engine run (moe-1.7t-nvl72, Megatron-Core's recipe) keeps its
    line, and a bf16 run has none."""
    from dclint.projection.efficiency import FP8_CAST_BYTES, FP8_TRANSPOSE_BYTES
    from dclint.projection.step.records import FP8_RECIPE_BYTES, FSDP_FP8_GATHER_BYTES

    lines = _fp8_lines(str(ROOT / "tests" / "calibration" / "torchao-float8-h100.yaml"), capsys)
    assert "; fp8 " not in lines["llama3-8b-bf16"]
    for workload, recipe, gather in (
        (
            "llama3-8b-tensorwise-fp8-all-gather",
            "tensorwise",
            f"; FSDP all-gathers the weights in FP8, {FSDP_FP8_GATHER_BYTES:g} B a parameter "
            "(enable_fsdp_float8_all_gather)",
        ),
        ("llama3-8b-rowwise", "rowwise", ""),
    ):
        line = lines[workload]
        assert "Transformer Engine: FP8 GEMM operands" not in line
        assert (
            f"; fp8 torchao Float8 training, {recipe} scaling: the converted Linear layers' GEMM "
            f"operands cast to FP8 with their transpose ({FP8_CAST_BYTES:g} B an element, and "
            f"{FP8_RECIPE_BYTES[recipe]:g} B for the amax: torchao float8 {recipe} scaling, "
            f"below); attention in BF16 (torchao converts nn.Linear modules only){gather}; "
            "fp8 output layer "
        ) in line, workload
    (te,) = _fp8_lines(str(SAMPLES / "moe-1.7t-nvl72.yaml"), capsys).values()
    assert (
        f"; fp8 Transformer Engine: FP8 GEMM operands cast with their transpose "
        f"({FP8_CAST_BYTES:g} B an element; {FP8_CAST_BYTES - FP8_TRANSPOSE_BYTES:g} B on "
        "Blackwell under delayed or current scaling, which write no transpose there), the MLP's "
        "second GEMM input and an MoE layer's routed tokens cast too (Megatron-Core's "
        "TERowParallelLinear and TEGroupedMLP); attention in BF16; fp8 output layer "
    ) in te


@pytest.mark.parametrize(
    ("software", "recipe_line"),
    [
        ("", ""),  # Megatron-Core's preset: delayed scaling, no bytes beyond the cast
        (
            "    software: {preset: nemo-25.11}\n",  # its fp8_recipe current, read in FP4 too
            "; and 2 B an element for fp8_recipe current's scaling",
        ),
    ],
)
def test_an_fp4_runs_assumptions_say_what_the_model_charges_for_fp4(
    capsys: pytest.CaptureFixture[str], tmp_path: object, software: str, recipe_line: str
) -> None:
    """An FP4 run (moe-1.7t-nvl72 at fp4) printed FP8's line, 'fp8 Transformer Engine: FP8
    GEMM operands cast with their transpose': it names NVFP4 and the bytes the step model
    charges its casts, FP8's cast-transpose (dclint's own) and the declared fp8_recipe's scaling
    bytes, which the step model reads in FP4 runs too (FP8_RECIPE_BYTES)."""
    from pathlib import Path

    from dclint.projection.efficiency import FP8_CAST_BYTES

    text = (SAMPLES / "moe-1.7t-nvl72.yaml").read_text(encoding="utf-8")
    assert text.count("    precision: fp8\n") == 1
    path = Path(str(tmp_path)) / "fp4.yaml"
    path.write_text(text.replace("    precision: fp8\n", "    precision: fp4\n" + software))
    (line,) = _fp8_lines(str(path), capsys).values()
    assert "; fp8 " not in line
    assert (
        "; fp4 Transformer Engine NVFP4: GEMM operands cast with their transpose, charged at "
        f"FP8's {FP8_CAST_BYTES:g} B an element (dclint's own: NVFP4's 4-bit elements and their "
        f"E4M3 scales not counted apart); attention in BF16{recipe_line}; fp4 output layer "
    ) in line
