"""`dclint diff`: totals side by side, findings matched by rule, path and subject."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _blocked import BLOCKED, H100, TP3, not_meaningful_at_tp3

import dclint.api
import dclint.projection
from conftest import SAMPLES
from dclint.cli import main

SU = str(SAMPLES / "gb200-superpod-su.yaml")
HOT = str(SAMPLES / "broken-rack-130kw.yaml")


@pytest.fixture(autouse=True)
def _no_projections(monkeypatch: pytest.MonkeyPatch) -> None:
    # projections have their own tests; keep these tables to the design totals
    # and through dclint.api, whose lazy names keep the first value they are asked for:
    # patched there first (and restored after), so the stand-in never stays behind in
    # dclint.api for the tests that run after these in the same process
    monkeypatch.setattr(dclint.api, "project_workloads", lambda design: [])
    monkeypatch.setattr(dclint.projection, "project_workloads", lambda design: [])


def test_diff_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", SU, HOT, "--select", "PWR"]) == 0
    # su1-r8 at 130 kW: IT load 960 -> 970 kW, facility x 1.15: 1104 -> 1115.5 kW,
    # liquid heat 816 -> 816 - 102 + 130 x 0.85 = 824.5 kW; the TCO as `dclint cost` totals
    # it (test_diff_tco_is_dclint_costs)
    assert (
        capsys.readouterr().out
        == f"""A: {SU}
B: {HOT}

                                           A                B        change
GPUs                                     576              576
racks                                      8                8
IT load                               960 kW           970 kW        +10 kW
PUE                                     1.15             1.15
facility power (all racks)           1104 kW          1116 kW      +11.5 kW
utility capacity                     1500 kW          1500 kW
cooling capacity (CDUs)              4000 kW          4000 kW
liquid heat                           816 kW         824.5 kW       +8.5 kW
fabric compute.leaf down:up           1.00:1           1.00:1
training storage read               400 GB/s         400 GB/s
storage read demand                  20 GB/s          20 GB/s
TCO over 3 years             261,192,315 CNY  261,385,868 CNY  +193,553 CNY

Findings only in B (1):
  + PWR001 racks[1].it_load (su1-r8): rack su1-r8 design IT load 130 kW exceeds the rack \
power limit (measured 130 kW, limit 120 kW)
Findings only in A: none
"""
    )


def test_diff_json_is_symmetric(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", HOT, SU, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    totals = {row["label"]: (row["a"], row["b"], row["change"]) for row in data["totals"]}
    assert totals["GPUs"] == (576, 576, "")
    assert totals["IT load"] == (
        {"value": 970.0, "unit": "kW"},
        {"value": 960.0, "unit": "kW"},
        "-10 kW",
    )
    assert totals["training storage read"][2] == ""
    assert data["findings_new"] == []
    gone = {(f["rule"], f["path"], f["subject"]) for f in data["findings_gone"]}
    assert ("PWR001", "racks[1].it_load", "su1-r8") in gone
    assert data["projections"] == []


def test_diff_markdown_and_set(capsys: pytest.CaptureFixture[str]) -> None:
    # --set changes B: the same design with its busways cut to 1800 A loses PWR002's headroom
    code = main(
        [
            "diff",
            SU,
            SU,
            "--format",
            "markdown",
            "--select",
            "PWR002",
            "--set",
            "power.panels[0].current_rating=1800 A",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "| IT load | 960 kW | 960 kW |  |" in out
    # 415 V x 1800 A x sqrt(3) x 0.95 x 0.8 = 983.3 kW; 983.3 - 960 = 23.32 kW < 80 kW
    assert (
        "- **PWR002** `power.panels[0].current_rating` (busway-a): power domain busway-a "
        "keeps 23.32 kW unallocated"
    ) in out
    assert "\n### Findings only in B (1)\n\n- **PWR002**" in out
    assert out.endswith("\n\nFindings only in A: none\n")


@pytest.mark.parametrize("form", ["text", "markdown"])
def test_diff_says_none_for_an_empty_section(form: str, capsys: pytest.CaptureFixture[str]) -> None:
    """No 'Findings only in B (0)' heading over nothing: the same words, 'none', in both
    formats."""
    assert main(["diff", SU, SU, "--select", "PWR", "--format", form]) == 0
    out = capsys.readouterr().out
    assert "(0)" not in out
    assert out.endswith(
        "Findings only in B: none\n" + "\n" * (form == "markdown") + "Findings only in A: none\n"
    )


def test_diff_load_error_exits_2(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", SU, str(SAMPLES / "missing.yaml")]) == 2
    assert "cannot read file" in capsys.readouterr().err


def test_diff_of_designs_with_different_gpu_counts(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 27, item 10: counts that differ are whole numbers (was a traceback)."""
    a, b = SAMPLES / "h100-40node.yaml", SAMPLES / "b200-1000gpu.yaml"
    assert main(["diff", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^GPUs +320 +1,000 +\+680$", out, flags=re.M), out  # as `cost` prints it
    assert re.search(r"^racks +10 +63 +\+53$", out, flags=re.M), out


def test_diff_quotes_a_predicted_training_time_with_its_band(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """B's days come from the predicted step (its mfu taken out): `dclint cost` prints them
    '2.026 d (1.7-2.6 d)', and so does the diff, where it printed '2.026 d' alone; A's
    declared 45% MFU has no band."""
    monkeypatch.undo()  # the real projection
    h100 = str(SAMPLES / "h100-40node.yaml")
    args = ["diff", h100, h100, "--select", "PWR001", "--set", "workloads.llm-13b.mfu=null"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert re.search(
        r"^llm-13b training time +1\.751 d +2\.026 d \(1\.7-2\.6 d\) +\+0\.2753 d$", out, re.M
    )
    assert main([*args, "--format", "json"]) == 0
    (days, _cost) = json.loads(capsys.readouterr().out)["projections"]
    assert "band_a" not in days
    assert days["band_b"] == [{"value": 1.758589, "unit": "d"}, {"value": 2.564946, "unit": "d"}]


def test_diff_says_a_projection_is_not_meaningful_while_the_design_cannot_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """tp 3 on 320 GPUs does not split (PAR001): `dclint cost` and the review say the
    projection is not meaningful until it is fixed; the diff printed B's 1.751 d and
    120,974 CNY as figures."""
    monkeypatch.undo()  # the real projection
    args = ["diff", H100, H100, "--select", "PAR001", "--set", TP3]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert re.search(rf"^llm-13b training time +1\.751 d +{BLOCKED}$", out, re.M), out
    assert re.search(rf"^llm-13b cost +120,974 CNY +{BLOCKED}$", out, re.M), out
    assert main([*args, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "not_meaningful_a" not in data
    assert data["not_meaningful_b"] == not_meaningful_at_tp3()
    assert [r["change"] for r in data["projections"]] == ["", ""]


def test_an_air_cooled_design_has_no_cdu_capacity_not_0_kw(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """h100-40node declares no CDU: the diff printed its cooling capacity as '0 kW', as if
    its CDUs had none; the review's summary says 'no CDUs declared'."""
    assert main(["diff", str(SAMPLES / "h100-40node.yaml"), SU, "--select", "PWR001"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^cooling capacity \(CDUs\) +- +4000 kW +changed$", out, re.M), out
    assert re.search(r"^liquid heat +0 kW +816 kW +\+816 kW$", out, re.M), out


def test_a_finding_in_both_at_other_figures_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """su1-r8 over PWR001's 120 kW in both designs, at 130 kW in A and 125 kW in B: matched
    by rule, path and subject, the finding was in neither 'only in' list and the diff said
    nothing of it; it is listed with the figures that changed."""
    args = ["diff", HOT, HOT, "--select", "PWR001", "--set", "racks.su1-r8.it_load=125 kW"]
    assert main(args) == 0
    assert capsys.readouterr().out.endswith(
        "Findings only in B: none\n"
        "Findings only in A: none\n"
        "Findings in both, changed (1):\n"
        "  ~ PWR001 racks[1].it_load (su1-r8): measured 130 kW -> 125 kW, limit 120 kW\n"
    )
    assert main([*args, "--format", "markdown"]) == 0
    assert capsys.readouterr().out.endswith(
        "\n### Findings in both, changed (1)\n\n"
        "- PWR001 racks\\[1\\].it\\_load (su1-r8): measured 130 kW -\\> 125 kW, limit 120 kW\n"
    )
    assert main([*args, "--format", "json"]) == 0
    (pair,) = json.loads(capsys.readouterr().out)["findings_changed"]
    assert (pair["a"]["measured"], pair["b"]["measured"]) == ("130 kW", "125 kW")
    html = tmp_path / "d.html"
    assert main([*args, "-o", str(html)]) == 0
    page = html.read_text(encoding="utf-8")
    assert "Findings in both, changed (1)" in page
    assert "measured 130 kW -&gt; 125 kW, limit 120 kW" in page


def test_the_pue_is_printed_as_every_report_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    """h100-40node's PUE 1.4 read '1.40' in the diff, beside 'PUE 1.4' in dclint capacity and
    PWR006's message; a ratio keeps NET001's two decimals."""
    h100 = str(SAMPLES / "h100-40node.yaml")
    assert main(["diff", h100, SU, "--select", "PWR001"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^PUE +1\.4 +1\.15 +-0\.25$", out, re.M), out
    assert main(["diff", SU, str(SAMPLES / "broken-fabric-2to1.yaml"), "--select", "PWR001"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^fabric compute\.leaf down:up +1\.00:1 +2\.00:1 +\+1\.00$", out, re.M), out


def test_diff_tco_is_dclint_costs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The diff compared the run's cost and not the TCO a consultant's comparison turns on;
    its TCO row is `dclint cost`'s figure for each design, to the yuan."""
    monkeypatch.undo()  # the real projection: `cost` must not bind the stand-in at import
    assert main(["cost", SU, HOT]) == 0
    tco = re.findall(r"^TCO \S+: ([\d,]+ CNY) over 3 years", capsys.readouterr().out, re.M)
    assert tco == ["261,192,315 CNY", "261,385,868 CNY"]
    assert main(["diff", SU, HOT, "--select", "PWR001", "--format", "json"]) == 0
    (row,) = [r for r in json.loads(capsys.readouterr().out)["totals"] if "TCO" in r["label"]]
    assert row["label"] == "TCO over 3 years"
    assert (row["a"]["value"], row["b"]["value"], row["change"]) == (
        pytest.approx(261_192_315, abs=1),
        pytest.approx(261_385_868, abs=1),
        "+193,553 CNY",
    )


def test_a_finding_is_matched_by_its_entry_not_its_list_position(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--set racks.su1-r3...` splits su1-r[1-7] in three, so su1-r8 moves from racks[1] to
    racks[3]: its PWR001 was listed as gone from A and new in B, though it is in both, the
    same. The subject says which entry a finding is on; the position is left out."""
    args = ["diff", HOT, HOT, "--select", "PWR001", "--set", "racks.su1-r3.it_load=100 kW"]
    assert main(args) == 0
    assert capsys.readouterr().out.endswith("Findings only in B: none\nFindings only in A: none\n")
    # one of two under a key is new: su1-r3 over the limit too, beside su1-r8 in both
    assert main([*args[:-1], "racks.su1-r3.it_load=125 kW"]) == 0
    out = capsys.readouterr().out
    assert "\nFindings only in B (1):\n  + PWR001 racks[1].it_load (su1-r3): " in out
    assert out.endswith("Findings only in A: none\n")


def test_a_finding_on_an_imported_element_names_its_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As `dclint check` does: '(source: NetBox power-feed 8 <...>)' (the diff did not)."""
    design = tmp_path / "d.yaml"
    text = Path(HOT).read_text(encoding="utf-8")
    design.write_text(
        text + "origins:\n  su1-r8: 'NetBox rack 8 <https://netbox.example.com/dcim/racks/8/>'\n",
        encoding="utf-8",
    )
    assert main(["diff", SU, str(design), "--select", "PWR001"]) == 0
    assert capsys.readouterr().out.endswith(
        "power limit (measured 130 kW, limit 120 kW) (source: NetBox rack 8"
        " <https://netbox.example.com/dcim/racks/8/>)\n"
        "Findings only in A: none\n"
    )
    assert main(["diff", SU, str(design), "--select", "PWR001", "--format", "markdown"]) == 0
    assert "(source: NetBox rack 8 \\<https://netbox.example.com/dcim/racks/8/\\>)" in (
        capsys.readouterr().out
    )


def test_a_utility_in_kva_says_how_it_is_compared(capsys: pytest.CaptureFixture[str]) -> None:
    """B declares 1500 kVA: the diff printed '1425 kW' beside A's 1500 kW with no word of the
    kVA or the power factor PWR006 reads it through."""
    args = ["diff", SU, SU, "--select", "PWR001", "--set", "site.utility_capacity=1500 kVA"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert re.search(
        r"^utility capacity +1500 kW +1425 kW \(1500 kVA x PF 0\.95\) +-75 kW$", out, re.M
    ), out
    assert main([*args, "--format", "json"]) == 0
    (row,) = [
        r for r in json.loads(capsys.readouterr().out)["totals"] if r["label"] == "utility capacity"
    ]
    assert (row["b"], row["read_as_b"], "read_as_a" in row) == (
        {"value": 1425.0, "unit": "kW"},
        "1500 kVA x PF 0.95",
        False,
    )
