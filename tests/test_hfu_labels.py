"""Each MFU has its HFU beside it on the same count and basis, labelled by what it is, in
`dclint cost`'s text as in its JSON: BLOOM counts its MFU on hardware FLOPs (mfu_basis), so
its HFUs equal its MFUs (it printed 'MFU predicted 58.67%' above 'HFU predicted 58.4%', the
step model's own count); h100-40node's selective recomputation puts each HFU above its MFU."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_published_gpu_hours import BLOOM_RUN

from dclint.cli import main

H100 = str(Path(__file__).resolve().parent.parent / "sample_designs" / "h100-40node.yaml")
KEYS = ("mfu", "hfu", "mfu_predicted", "hfu_predicted", "mfu_convention")


def _rows(out: str) -> dict[str, str]:
    return {
        line[:34].rstrip(): line[34:] for line in out.splitlines() if line[:3] in ("MFU", "HFU")
    }


def _json(path: str, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["cost", "--format", "json", path]) == 0
    p = json.loads(capsys.readouterr().out)["projections"][0]
    return {k: p[k] for k in KEYS}


def test_bloom_hfu_is_its_mfu_on_hardware_flops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bloom.yaml"
    path.write_text(BLOOM_RUN, "utf-8")
    assert main(["cost", str(path)]) == 0
    assert _rows(capsys.readouterr().out) == {
        "MFU": "48.08% (declared)",
        "HFU at the MFU": "48.08%",
        "MFU predicted": "58.58% (48-69%) (declared -18%)",
        "HFU predicted": "58.58%",
        "MFU/HFU counted": "exact count, non-causal attention; hardware FLOPs",
    }
    d = _json(str(path), capsys)
    assert d["hfu"] == d["mfu"] == pytest.approx(150 / 312)  # achieved_flops / A100 peak
    assert d["hfu_predicted"] == d["mfu_predicted"] == pytest.approx(0.5858, abs=5e-5)


def test_h100_hfu_adds_the_recomputation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cost", H100]) == 0
    assert _rows(capsys.readouterr().out) == {
        "MFU": "45% (declared)",
        "HFU at the MFU": "45.92%",
        "MFU predicted": "38.88% (30-45%) (declared +16%)",
        "HFU predicted": "39.68%",
        "MFU/HFU counted": "exact count, causal attention; model FLOPs",
    }
    d = _json(H100, capsys)
    assert d["hfu"] == pytest.approx(0.4592, abs=5e-5)
    assert d["hfu_predicted"] == pytest.approx(0.3968, abs=5e-5)
    assert d["mfu_convention"] == "exact count, causal attention; model FLOPs"
