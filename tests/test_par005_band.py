"""PAR005 quotes the step model's calibration band next to the predicted steps it compares
(issue 29 item 9), in the text, SARIF and GitHub outputs alike: a consultant never quotes a
layout's gap without how far either prediction may be from a measured step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dclint.cli import main
from dclint.engine.registry import discover
from dclint.projection.uncertainty import BANDS, band_for_gpu
from dclint.units import fmt_factors

ROOT = Path(__file__).resolve().parent.parent
BAD = str(ROOT / "rules" / "layout" / "examples" / "par005" / "bad.yaml")
BAND = "calibration band 0.868-1.266x"


def test_the_band_is_the_hopper_calibration_band() -> None:
    """The example's workloads (13B dense, Megatron-family by default, on 64 H100) are inside
    the Hopper dense domain, so PAR005 quotes the Hopper generation's band, as the table holds
    it: what BAND pins as printed."""
    band = band_for_gpu("h100-sxm", False, None, 64)
    assert not band.outside
    low, high, runs, _ = BANDS["hopper"]
    assert (band.low_factor, band.high_factor, band.runs) == (low, high, runs)
    assert f"calibration band {fmt_factors(low, high)}x" == BAND


@pytest.mark.parametrize("fmt", ["text", "sarif", "github"])
def test_par005_quotes_the_band_in_every_format(
    fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", BAD, "--select", "PAR005", "--format", fmt, "--layout-search"]) == 0
    out = capsys.readouterr().out
    if fmt == "sarif":
        results = json.loads(out)["runs"][0]["results"]
        messages = [r["message"]["text"] for r in results]
    else:
        messages = [line for line in out.splitlines() if "PAR005" in line]
    assert len(messages) == 2
    for message in messages:
        assert f"a step, predicted; {BAND}); it loses most on" in message


def test_the_default_gap_is_about_the_models_mean_absolute_error() -> None:
    """PAR005's doc: the 10% default is about the step model's mean absolute error on its 164
    calibration runs, 8.6% (Megatron family 10.1% over 89, PyTorch-native 6.8% over 75)."""
    from test_calibration import PYTORCH, error, runs

    errors = [(r.design.name in PYTORCH, abs(error(r))) for r in runs()]
    every = [e for _, e in errors]
    megatron = [e for native, e in errors if not native]
    native = [e for native, e in errors if native]
    got = [(len(s), round(100 * sum(s) / len(s), 1)) for s in (every, megatron, native)]
    assert got == [(164, 8.6), (89, 10.1), (75, 6.8)]
    # the rule's doc quotes them (it said 7.0% for the PyTorch-native runs after they moved)
    (n, mae), (n_meg, mae_meg), (n_nat, mae_nat) = got
    doc = " ".join(discover()["PAR005"].doc().split())
    assert (
        f"mean absolute error on its {n} calibration runs ({mae}%: the Megatron family's "
        f"{n_meg} runs {mae_meg}%, the PyTorch-native {n_nat} {mae_nat}%;"
    ) in doc
