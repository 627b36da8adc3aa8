"""`dclint cost`: text table side by side, JSON keys, load errors, and check's projections."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT
from dclint.cli import main

KEYS = {
    "design",
    "workload",
    "flops",
    "gpus",
    "mfu",
    "training_days",
    "gpu_hours",
    "energy_mwh",
    "currency",
    "cost_total",
    "cost_breakdown",
    "memory_per_gpu_gib",
    "assumptions",
}


def test_json_has_the_stable_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cost", "sample_designs/h100-40node.yaml", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (proj,) = data["projections"]
    assert set(proj) >= KEYS
    assert proj["workload"] == "llm-13b"
    # 1.7379 d of steps and checkpoint saves (causal attention count), + failures: half the 2 h
    # interval redone and a 10 min restart per failure, at the Llama 3 rate on 320 GPUs
    # (MTBF 158.37 h)
    lost = (3600 + 600) / 3600 / 158.37
    assert proj["training_days"] == pytest.approx(1.7379 * (1 + lost), rel=1e-3)
    assert proj["failure_days"] == pytest.approx(1.7379 * lost, rel=1e-3)
    assert proj["mfu_source"] == "declared (workload.mfu)"
    assert proj["mfu_predicted"] == pytest.approx(0.3889, rel=1e-3)
    assert set(proj["step_breakdown"]) >= {"compute", "recompute", "tp", "pp_bubble", "dp"}
    # 13e9 / tp 8 = 1.625e9 parameters a GPU: bf16 weights 2 B (3.027 GiB), fp32 gradients 4 B
    # (6.054 GiB), optimizer 12 B sharded over dp 40 (distributed optimizer, 0.454 GiB), and
    # activations with sequence parallelism on (the default with tp > 1), from the shapes
    # (SwiGLU, f = 13,824 = 2.7 h: 10 + 4 + 4 + 2 x 2.7 x 3 = 34.2 s b h / t): 3.340 GiB, and the
    # logits of one micro-batch on the (only) last stage: 4096 x 32000 / tp 8 x 6 B = 0.0916 GiB
    memory = proj["memory_per_gpu_gib"]
    assert memory["weights"] == pytest.approx(1.625e9 * 2 / 2**30, rel=1e-3)
    assert memory["gradients"] == pytest.approx(1.625e9 * 4 / 2**30, rel=1e-3)
    assert memory["optimizer"] == pytest.approx(1.625e9 * 12 / 40 / 2**30, rel=1e-3)
    act = 4096 * 5120 * 34.2 / 8 * 40 + 4096 * 32000 / 8 * 6
    assert memory["activations"] == pytest.approx(act / 2**30, rel=1e-9)
    assert memory["total"] == pytest.approx((1.625e9 * (6 + 12 / 40) + act) / 2**30, rel=1e-9)
    assert data["tco"][0]["omitted"] == [
        "network",
        "storage",
        "power_cooling_infrastructure",
        "building",
        "software",
        "staff",
    ]


def test_text_puts_designs_side_by_side(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["cost", "sample_designs/h100-40node.yaml", "sample_designs/b200-1000gpu.yaml"]) == 0
    )
    out = capsys.readouterr().out
    header = out.splitlines()[0].split()
    assert header == ["workload", "llm-13b", "llm-300b"]
    assert "training time                     1.751 d" in out
    assert "TCO b200-1000gpu:" in out


def test_load_error_exits_2_with_position(
    tmp_path: object, capsys: pytest.CaptureFixture[str], write
) -> None:  # type: ignore[no-untyped-def]
    path = write("name: x\nracks: 3\n")
    assert main(["cost", str(path)]) == 2
    assert f"{path}:2:8:" in capsys.readouterr().err


def test_check_json_includes_projections(capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", "sample_designs/gb200-superpod-su.yaml", "--format", "json"])
    design = json.loads(capsys.readouterr().out)["designs"][0]
    (proj,) = design["projections"]
    assert proj["workload"] == "llama-70b-pretrain"
    assert proj["currency"] == "CNY"
    assert design["tco"]["gpus"] == 576


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_tiny_nics_per_gpu_is_no_prediction_not_a_traceback(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 48: one NIC for 10^300 GPUs makes the step model's step 3.726e+298 s, an MFU that
    underflows to 0; `cost` divided the declared MFU by it (ZeroDivisionError). Now there is no
    prediction, said in the assumptions, and the declared 40% still gives the 136.6 days."""
    text = (ROOT / "sample_designs" / "gb200-superpod-su.yaml").read_text("utf-8")
    design = tmp_path / "d.yaml"
    design.write_text(text.replace("nics_per_gpu: 1\n", "nics_per_gpu: 1e-300\n"), "utf-8")
    assert main(["cost", str(design), "--format", fmt]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    note = "step model not used: its step of 3.726e+298 s is an MFU of 0%, not a prediction"
    if fmt == "json":
        (proj,) = json.loads(out)["projections"]
        assert proj["mfu_predicted"] is None and proj.get("mfu_gap") is None
        assert note in proj["assumptions"]
        assert proj["training_days"] == pytest.approx(136.6, abs=0.05)
    else:
        assert "MFU predicted                     -\n" in out
        assert "training time                     136.6 d\n" in out
        assert f"  - {note}\n" in out


def test_a_run_nothing_prices_has_no_cost_not_a_free_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # BLOOM declares no electricity price, GPU price or system price: `cost` printed
    # "cost total 0 USD", the review 0 USD and `diff` 0 USD on both sides
    from test_published_gpu_hours import BLOOM, BLOOM_RUN

    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(BLOOM, encoding="utf-8")
    b.write_text(BLOOM_RUN, encoding="utf-8")
    assert main(["cost", str(b)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "cost total                        -" in out
    assert "  - electricity cost omitted: site.electricity_price not declared" in out
    main(["diff", str(a), str(b), "--ignore", "PAR003"])
    (row,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("bloom-176b cost")]
    assert row.split() == ["bloom-176b", "cost", "-", "-"]
    # PAR003 (70 layers over pp 12) leaves the projection no figure, as `dclint cost` says
    main(["diff", str(a), str(b)])
    (row,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("bloom-176b cost")]
    blocked = "not meaningful until PAR003 layout-not-divisible is fixed"
    assert row.split() == ["bloom-176b", "cost", *blocked.split(), *blocked.split()]
    # nor is its TCO a free one: `cost` and the review said '0 USD over 3 years'
    assert main(["cost", str(b)]) == 0
    assert "TCO bloom-176b: - (nothing priced) over 3 years, 0 GPUs" in capsys.readouterr().out
    doc = tmp_path / "r.md"
    assert main(["review", str(b), "-o", str(doc), "--today", "2026-12-06"]) == 0
    review = doc.read_text(encoding="utf-8")
    # the rows `dclint cost` gives its TCO (the review printed '| per gpu year | - |')
    assert "| total | - (nothing priced) over 3 years, 0 GPUs |\n| omitted" in review
    # a priced run keeps its figure
    assert main(["cost", str(ROOT / "sample_designs" / "h100-40node.yaml")]) == 0
    assert "cost total                        120,974 CNY" in capsys.readouterr().out.splitlines()


def test_json_gives_an_unpriced_run_a_null_cost_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The JSON said `cost_total: 0` for a run nothing prices (read as free); it is null beside
    `cost_unpriced`, the omitted prices as the assumptions name them. A priced run has no
    reason and its figure."""
    from test_published_gpu_hours import BLOOM_RUN

    design = tmp_path / "b.yaml"
    design.write_text(BLOOM_RUN, encoding="utf-8")
    assert main(["cost", str(design), "--format", "json"]) == 0
    (proj,) = json.loads(capsys.readouterr().out)["projections"]
    assert proj["cost_total"] is None
    assert proj["cost_breakdown"] == {}
    assert proj["cost_unpriced"] == (
        "nothing priced: electricity cost omitted: site.electricity_price not declared; "
        "hardware depreciation omitted: cost.gpu_price (or system_price) missing"
    )
    priced = ROOT / "sample_designs" / "h100-40node.yaml"
    assert main(["cost", str(priced), "--format", "json"]) == 0
    (proj,) = json.loads(capsys.readouterr().out)["projections"]
    assert proj["cost_total"] == pytest.approx(120974, abs=0.5)
    assert proj["cost_unpriced"] is None


def test_a_tier_without_a_read_rate_is_named_not_read_as_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # BLOOM's gpfs declares its write bandwidth alone: the review's summary and diff printed
    # its read as 0 GB/s
    from test_published_gpu_hours import BLOOM, BLOOM_RUN

    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(BLOOM, encoding="utf-8")
    b.write_text(BLOOM_RUN, encoding="utf-8")
    main(["diff", str(a), str(b)])
    out = capsys.readouterr().out.splitlines()
    (row,) = [x for x in out if x.startswith("training storage read")]
    # A declares no storage (0 GB/s of no tier); B a tier that states no read rate
    assert row.split() == ["training", "storage", "read", "0", "GB/s", "-", "changed"]
    doc = tmp_path / "r.md"
    assert main(["review", str(b), "-o", str(doc)]) == 0
    assert (
        "| Storage read (gpfs) | not declared (gpfs declares no read rate); demand 0.000204 GB/s "
        "(0.000612 GB/s needed at 3x) |"
    ) in doc.read_text(encoding="utf-8")


def test_a_predicted_mfu_is_printed_once_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # h100-40node without its declared MFU: the MFU used is the prediction, and `cost`
    # printed it as 39.47% in one row and 39.5% in the next (40.53% since Hopper attention ran
    # at cuDNN's rate, 38.88% since its GEMMs ran at a layer's shapes back to back)
    text = (ROOT / "sample_designs" / "h100-40node.yaml").read_text(encoding="utf-8")
    design = tmp_path / "h100.yaml"
    design.write_text(text.replace("    mfu: 45%\n", ""), encoding="utf-8")
    assert main(["cost", str(design)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "MFU                               38.88% (predicted)" in out
    assert "MFU predicted                     38.88% (30-45%)" in out


def test_costs_look_up_the_projection_at_call_time() -> None:
    # tests/test_diff.py stands in for dclint.projection.project_workloads: dclint cost's
    # projections see the stand-in while it stands and the real function after, whichever
    # module was imported first (no test depends on the order the suite runs in)
    import dclint.projection
    from dclint.analysis.costs import costs
    from dclint.loader import load

    design = load(str(ROOT / "sample_designs" / "h100-40node.yaml"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dclint.projection, "project_workloads", lambda design: [])
        assert costs([design]).projections == []
    assert [p.workload for p in costs([design]).projections] == ["llm-13b"]
