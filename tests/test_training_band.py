"""The training days' calibration band is computed in one place (Projection.training_band)
and every printer reads it: `dclint cost` computed its own from the step model's factors, the
review its own from the JSON's, beside analysis.sweep's for `dclint diff` and `check --sweep`."""

from __future__ import annotations

import json
import re

import pytest

from conftest import SAMPLES
from dclint.cli import main
from dclint.projection.uncertainty import Band
from dclint.projection.workloads import Projection
from dclint.units import Q_

H100 = str(SAMPLES / "h100-40node.yaml")
PREDICTED = ["--set", "workloads.llm-13b.mfu=null"]  # the MFU the step model predicts


def _printed(capsys: pytest.CaptureFixture[str]) -> dict[str, list[str]]:
    """Every 'N d (L-H d)' each command prints for the h100 sample at its predicted MFU."""
    runs = {
        "cost": ["cost", H100, *PREDICTED],
        "diff": ["diff", H100, H100, *PREDICTED],
        "sweep": ["check", H100, "--sweep", "workloads.llm-13b.mfu=null"],
        "review": ["review", H100, *PREDICTED, "--format", "markdown"],
    }
    out = {}
    for name, argv in runs.items():
        main(argv)
        text = capsys.readouterr().out
        out[name] = re.findall(r"\d[\d.,]* d \([\d.,]+-[\d.,]+ d\)", text)
    return out


def test_every_printer_prints_the_projections_band(capsys: pytest.CaptureFixture[str]) -> None:
    printed = _printed(capsys)
    # the review's plan table gives the best layout's band too (1.471 d), from the plan
    assert {name: found[:1] for name, found in printed.items()} == {
        name: ["2.026 d (1.7-2.6 d)"] for name in printed
    }
    assert main(["cost", H100, *PREDICTED, "--format", "json"]) == 0
    (p,) = json.loads(capsys.readouterr().out)["projections"]
    low, high = p["training_days_band"]
    assert (round(low, 3), round(high, 3)) == (1.759, 2.565)  # 2.026 d x 0.869 and x 1.267


def test_the_band_has_one_source(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in band reaches every printer: none computes its own."""
    real = Projection.training_band

    def stand_in(p: Projection) -> object:
        return None if real.fget(p) is None else (Q_(1.0, "day"), Q_(3.0, "day"))

    monkeypatch.setattr(Projection, "training_band", property(stand_in))
    printed = _printed(capsys)
    assert {name: found[:1] for name, found in printed.items()} == {
        name: ["2.026 d (1.0-3.0 d)"] for name in printed
    }


def test_the_review_layout_rows_scale_by_the_same_band(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Band.scaled is the one arithmetic: the review's layout table computed its days' and
    cost's bands itself from the factors. With a stand-in band of x0.5 to x2 every printer,
    and the review's declared layout (the projection's own days), says the same."""
    # 1.011-4.044 d, printed rounded outward
    monkeypatch.setattr(Band, "scaled", lambda band, value: (value * 0.5, value * 2))
    printed = _printed(capsys)
    assert {name: found[:1] for name, found in printed.items()} == {
        name: ["2.026 d (1.0-4.1 d)"] for name in printed
    }
    main(["review", H100, *PREDICTED, "--format", "markdown"])
    rows = [r for r in capsys.readouterr().out.splitlines() if r.startswith("| declared | tp 8")]
    assert [r.split(" | ")[-2:] for r in rows] == [
        ["2.026 d (1.0-4.1 d)", "140,001 CNY (70,000-290,000 CNY) |"]
    ]


def test_a_searched_layout_carries_the_band_of_its_own_context_parallelism() -> None:
    """`dclint plan` picked each layout's band by its GPU count alone, so a PyTorch-native
    layout at CP 4 printed the in-domain Hopper band where `dclint cost` of the same layout
    gives the envelope (PyTorch context parallel beyond 2 ranks is outside the calibration
    domain). TorchTitan's 8B at CP 4 on 8 H100: the plan's band for the declared layout is
    the projection's; a CP 2 layout of the same search keeps the Hopper band."""
    from dclint.loader import load
    from dclint.projection import project_workloads
    from dclint.projection.search.plan import plan_layouts
    from dclint.projection.uncertainty import BANDS

    design = load(SAMPLES.parent / "tests" / "calibration" / "torchtitan-h100.yaml")
    wl = next(w for w in design.workloads if w.id == "llama31-8b-8-cp4-128k")
    found = plan_layouts(design, wl, "time", None, reserve=0.1)
    assert not isinstance(found, str)
    (proj,) = [p for p in project_workloads(design) if p.workload == wl.id]
    declared = found.band(found.declared)
    assert declared == proj.timing.prediction.band
    assert (declared.low_factor, declared.high_factor, declared.runs) == (0.721, 1.995, 0)
    assert declared.outside == (
        "PyTorch context parallel 4: calibrated on rings of up to 2 ranks; beyond, published "
        "runs are slower than predicted by a cost the model does not explain",
    )
    cp2 = next(c for c in found.result.valid if c.cp == 2)
    low, high, _, _ = BANDS["hopper"]
    assert (found.band(cp2).low_factor, found.band(cp2).high_factor) == (low, high)
    # the review's layout table: each row scaled by its own layout's band, as plan gives it
    # (both rows took the declared layout's)
    from dclint.analysis.assess.review import Layout

    lay = Layout(wl.id, found, band=declared, projection=proj)
    for c, band in ((found.declared, declared), (cp2, found.band(cp2))):
        row = lay.row(c)
        assert row.days_band == band.scaled(row.days)
    assert lay.row(cp2).days_band != declared.scaled(lay.row(cp2).days)


def test_context_parallel_by_all_gather_is_outside_the_domain_at_any_size() -> None:
    """Every calibration run with context parallelism is a ring (TorchTitan's, Transformer
    Engine's p2p), so a run that all-gathers K and V (cp_comm_type all_gather, Llama 3's) is
    outside the domain at CP 2 too, whatever its framework, where a ring of 2 is inside it; CP 1
    is no context parallelism at all."""
    from dclint.projection.uncertainty import BANDS, ENVELOPE, band_for_gpu

    hopper = BANDS["hopper"][:2]
    for framework in ("torchtitan", "megatron-core"):
        ring2 = band_for_gpu("h100-sxm", False, framework, 64, 2, "p2p")
        gather1 = band_for_gpu("h100-sxm", False, framework, 64, 1, "all_gather")
        gather2 = band_for_gpu("h100-sxm", False, framework, 64, 2, "all_gather")
        assert (ring2.low_factor, ring2.high_factor, ring2.outside) == (*hopper, ())
        assert (gather1.low_factor, gather1.high_factor, gather1.outside) == (*hopper, ())
        assert (gather2.low_factor, gather2.high_factor) == ENVELOPE[:2]
        assert gather2.outside == (
            "context parallel 2 by all-gather of K and V: no calibration run all-gathers them "
            "(the calibration's context parallel runs are rings)",
        )


def test_a_searched_layout_carries_the_band_of_its_declared_cp_comm_type() -> None:
    """`dclint plan` picks each layout's band with the workload's cp_comm_type, as `dclint
    cost` does: TorchTitan's 8B at 128K on 8 H100 declared with all-gather context parallel
    gives its CP 2 layouts the envelope (no calibration run all-gathers K and V), where the
    ring's CP 2 layouts keep the Hopper band."""
    from dclint.loader import load
    from dclint.projection.search.plan import plan_layouts
    from dclint.projection.uncertainty import BANDS, ENVELOPE

    design = load(SAMPLES.parent / "tests" / "calibration" / "torchtitan-h100.yaml")
    wl = next(w for w in design.workloads if w.id == "llama31-8b-8-cp4-128k")
    assert wl.software is not None
    gather = wl.model_copy(
        update={"software": wl.software.model_copy(update={"cp_comm_type": "all_gather"})}
    )
    swapped = design.model_copy(
        update={"workloads": [gather if w is wl else w for w in design.workloads]}
    )
    bands = []
    for d, w in ((design, wl), (swapped, gather)):
        found = plan_layouts(d, w, "time", None, reserve=0.1)
        assert not isinstance(found, str)
        cp2 = next(c for c in found.result.valid if c.cp == 2)
        got = found.band(cp2)
        assert got is not None
        bands.append((got.low_factor, got.high_factor, bool(got.outside)))
    assert bands == [(*BANDS["hopper"][:2], False), (*ENVELOPE[:2], True)]


def test_plan_says_where_its_days_bands_come_from() -> None:
    """Under its table `dclint plan` names each band the listed layouts carry, once, as
    `dclint cost`'s assumptions do: TorchTitan's 8B at 128K on 8 H100, whose best layouts
    keep CP 4, gets the envelope and why; nothing else said its 560-1,600 d."""
    from dclint.analysis.layouts import band_sentence
    from dclint.loader import load
    from dclint.projection.search.plan import plan_layouts

    design = load(SAMPLES.parent / "tests" / "calibration" / "torchtitan-h100.yaml")
    wl = next(w for w in design.workloads if w.id == "llama31-8b-8-cp4-128k")
    found = plan_layouts(design, wl, "time", None, reserve=0.1)
    assert not isinstance(found, str)
    assert {c.cp for c in found.result.valid[:3]} == {4}
    assert band_sentence(found, 3) == (
        "days' band: outside the calibration domain (PyTorch context parallel 4: calibrated on "
        "rings of up to 2 ranks; beyond, published runs are slower than predicted by a cost "
        "the model does not explain): the envelope of all 164 calibration runs, dclint's "
        "calibration residuals (docs/performance-model.md)"
    )
