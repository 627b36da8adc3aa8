"""`dclint review`: the document's story, read from its Markdown (the HTML and PDF are laid out
from the same blocks): front matter, the executive summary ranked by consequence, scope,
layout, headroom, waivers and the comparison with a counter-design."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from dclint.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_designs"
H100 = str(SAMPLES / "h100-40node.yaml")
FABRIC = str(SAMPLES / "broken-fabric-2to1.yaml")


def review(tmp_path: Path, *args: str) -> str:
    out = tmp_path / "review.md"
    assert main(["review", *args, "-o", str(out), "--today", "2026-12-02"]) == 0
    return out.read_text(encoding="utf-8")


def section(text: str, title: str) -> list[str]:
    """The lines of the section headed `title`, to the next heading of its level or above."""
    lines = text.splitlines()
    start = next(i for i, x in enumerate(lines) if x.lstrip("#").strip() == title)
    level = len(lines[start]) - len(lines[start].lstrip("#"))
    end = next(
        (
            i
            for i in range(start + 1, len(lines))
            if lines[i].startswith("#") and len(lines[i]) - len(lines[i].lstrip("#")) <= level
        ),
        len(lines),
    )
    return lines[start + 1 : end]


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> str:
    return review(tmp_path_factory.mktemp("r"), FABRIC, H100, "--client", "ACME", "--revision", "B")


def test_summary_ranks_by_class_then_severity_then_days_then_money(two: str) -> None:
    body = section(two, "Executive summary")
    table = [x for x in body if x.startswith("| ") and x[2].isdigit()]
    perf = "performance and money"
    # the 2:1 fabric fails the check: it ranks above the two layouts the warnings price, though
    # it carries no price of its own (it ranked last)
    assert table == [
        f"| 1 | broken-fabric-2to1 | {perf} | NET001 fabric-oversubscribed | error | 1 | - | - |",
        f"| 2 | broken-fabric-2to1 | {perf} | PAR005 layout-slower-than-best | warning | 1 "
        "| 27.18 d | 5,204,838 CNY |",
        f"| 3 | h100-40node | {perf} | PAR005 layout-slower-than-best | warning | 1 | 0.4605 d "
        "| 31,822 CNY |",
    ]
    # the days each costs as the finding's own line prints them, in the same document
    assert "**The fix saves 27.18 d, 5,204,838 CNY.**" in two
    assert "**The fix saves 0.4605 d, 31,822 CNY.**" in two
    top = [x for x in body if x[:3] in ("1. ", "2. ", "3. ")]
    assert len(top) == 3  # the top three, each with its figures, where, and its fix in words
    assert top[1].endswith(
        "broken-fabric-2to1.yaml:130 (PAR005 layout-slower-than-best). Fix: "
        "run the best layout: the design change below. It costs 27.18 d and 5,204,838 CNY of the "
        "projected run."
    )
    # the 2:1 fabric costs its rail-optimised run nothing, and its item says why
    assert top[0].endswith("Fix: give each leaf switch 32 uplinks (now 16) and the spine tier "
                           "12 switches (now 6) to meet 1:1. It costs the declared run no "
                           "training time: the step-time model's step is the same at 1:1 (what "
                           "its collectives send across the oversubscribed tier fits its "
                           "uplinks, jobs packed or spread over the switch groups); "
                           "rail-optimised, NVLink carries each GPU's traffic to its rail's "
                           "leaves.")  # fmt: skip
    assert "--set" not in two  # the flags are the command line's, not the document's
    # the PAR005 item's design change, as YAML under it
    first = body.index(top[1])
    assert body[first + 1 : first + 8] == [
        "",
        "   ```yaml",
        "   workloads:",
        "     - # [0] llama-70b-pretrain",
        "       parallel: {tp: 2, pp: 1, vpp: 1, cp: 1, ep: 1, sequence_parallel: true, "
        "distributed_optimizer: true, zero_stage: 2}",
        "       micro_batch: 1",
        "       recompute: none",
    ]


def test_front_matter_from_flags_and_config(two: str, tmp_path: Path) -> None:
    assert two.startswith("# Design review: broken-fabric-2to1 and h100-40node for ACME\n")
    assert "| Client | ACME |" in two and "| Revision | B |" in two
    assert "| Date | 2026-12-02 |" in two
    config = tmp_path / "c.yaml"
    config.write_text(
        "review:\n  title: Audit of the 2-SU plan\n  client: Globex\n  author: J. Doe\n",
        encoding="utf-8",
    )
    text = review(tmp_path, H100, "--config", str(config), "--client", "Initech")
    assert text.startswith("# Audit of the 2-SU plan\n")
    assert "| Client | Initech |" in text  # the flag wins over the config
    assert "| Prepared by | J. Doe |" in text


def test_bad_review_block_is_one_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("review:\n  titel: x\n", encoding="utf-8")
    assert main(["review", H100, "--config", str(config), "-o", str(tmp_path / "r.md")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dclint: error: {config}: review.titel: unknown key (known: title,")
    assert not (tmp_path / "r.md").exists()


def test_scope_says_what_was_not_checked(two: str) -> None:
    h100 = section(two, "h100-40node")
    scope = section("\n".join(h100), "Scope: what was checked and what was not")
    rows = {r.split(" | ")[0].strip("| "): r for r in scope if r.startswith("| ")}
    assert rows["cooling"] == (
        "| cooling | partly checked | 2 of 14 rules applied; CLG001, CLG002, CLG003, CLG004, "
        "CLG007, CLG008, CLG009, CLG011, CLG014: the design declares no CDUs or loops; CLG010: the "
        "design "
        "declares no air handlers (site.halls.\\<hall\\>.air\\_handlers); CLG012, CLG013: the "
        "design declares no heat rejection (cooling.heat\\_rejection) |"
    )
    assert rows["cost and schedule"] == (
        "| cost and schedule | not checked | CST001: the design declares no budget; CST002: the "
        "design declares no deadline |"
    )
    assert rows["power"].startswith("| power | checked | 15 rules applied")
    assert rows["upstream power"] == (
        "| upstream power | not modelled | not modelled beyond panels and the site's utility "
        "capacity: the design declares nothing above its panels |"
    )


def test_layout_and_headroom(two: str) -> None:
    h100 = "\n".join(section(two, "h100-40node"))
    layout = section(h100, "Parallel layout: the best found against the declared one")
    assert layout[1] == (
        "Workload llm-13b: 27,066 valid layouts of 56,832 searched; your layout (tp 8, pp 1, vpp "
        "1, cp 1, ep 1, dp 40) is 4,151st of 27,066, 35.7% slower than the best; it loses on "
        "compute."
    )
    # the review recommends the best layout: it says, as `dclint plan` does of the layouts it
    # lists, that its MFU is above any calibration run's of its GPU class (it did not): the MFU
    # its table gives, the declared 45% carried to the best layout (the model's 52.76% before)
    assert (
        "Outside what dclint has seen measured: the best layout's MFU at your declared MFU, "
        "61.06%, is above 49%, the best MFU any calibration run of this GPU generation and "
        "class published (megatron-core-0.8-h100: gpt-16b); read it as a ranking, not as a "
        "throughput to expect."
    ) in layout
    # the gap as PAR005's finding in the same document states it (it said 37% beside 36.6%)
    assert "on 320 GPUs, 35.7% slower than the best (2.625 s against 1.934 s a step" in h100
    rows = [x for x in layout if x.startswith(("| declared", "| best"))]
    assert [r.split(" | ")[:2] for r in rows] == [
        ["| declared", "tp 8, pp 1, vpp 1, cp 1, ep 1, dp 40, mb 1"],
        ["| best", "tp 2, pp 1, vpp 1, cp 1, ep 1, dp 160, mb 2"],
    ]
    head = section(h100, "Capacity headroom")
    assert head[1] == (
        # the panels carry the 10 racks at their peak, 408 kW of 437 kW: PWR008 binds with
        # the leaf ports (it said PWR002's 2 racks on the design load were next to bind)
        "More hgx-h100 racks like the design's first (34 kW, 32 GPUs): 0 more fit; panel rating "
        "(PWR008) (path A) binds first. What lifts it: +1 panel like pdu-panel-a (437 kW "
        "derated): +10 racks. Fabric ports (compute.leaf) binds at 0 racks as well, so lifting "
        "either alone adds no rack."
    )


def test_a_tie_for_the_binding_limit_is_said(tmp_path: Path) -> None:
    # gb200-superpod-su: PWR002's headroom and the leaf ports both allow 0 more racks; the
    # review said a busway lifts it by 8 racks, then 'Next to bind: fabric ports at 0 racks'
    body = review(tmp_path, str(SAMPLES / "gb200-superpod-su.yaml"))
    head = section(body, "Capacity headroom")
    assert head[1] == (
        "More gb200-nvl72 racks like the design's first (120 kW, 72 GPUs): 0 more fit; power "
        "headroom (PWR002) (path A) binds first. What lifts it: +1 busway like busway-a (1093 kW "
        "derated, PWR002's headroom kept): +8 racks. Panel rating (PWR008) (path A) binds at 0 "
        "racks as well, so lifting either alone adds no rack."
    )


def test_against_a_counter_design(tmp_path: Path) -> None:
    counter = tmp_path / "counter.yaml"
    text = Path(H100).read_text(encoding="utf-8")
    text = text.replace("name: h100-40node", "name: counter", 1)
    text = text.replace("micro_batch: 1", "micro_batch: 2").replace(
        "{tp: 8, pp: 1}", "{tp: 2, pp: 1}"
    )
    counter.write_text(text, encoding="utf-8")
    body = review(tmp_path, H100, "--against", str(counter))
    diff = section(body, "Counter-design: counter against h100-40node")
    assert diff[1].startswith("What changes from h100-40node (A) to counter (B)")
    text = "\n".join(diff)
    assert "### Findings only in A (1)" in text
    assert "### Findings only in B: none" in text
    assert text.index("only in B") < text.index("only in A")


def test_waivers_in_the_review(tmp_path: Path) -> None:
    design = tmp_path / "d.yaml"
    text = (SAMPLES / "broken-rack-130kw.yaml").read_text(encoding="utf-8")
    design.write_text(
        text.replace(
            "it_load: 130 kW  # expect: PWR001",
            "it_load: 130 kW  # dclint: ignore[PWR001] until=2027-06-30 vendor-built, HPE spec",
        ),
        encoding="utf-8",
    )
    body = review(tmp_path, str(design), "--select", "PWR001")
    assert "Found no" not in body
    waivers = section(body, "Waivers (1): findings accepted, not reported")
    (row,) = [x for x in waivers if x.startswith("| ")][1:]
    assert row.startswith("| ") and ":53 | PWR001 | rack su1-r8 design IT load 130 kW" in row
    assert row.endswith(":53, until 2027-06-30: vendor-built, HPE spec |")
    assert "All checks passed: 1 design, no findings; 1 finding waived." in body


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("r.odt", "--output {out}: write .html, .pdf, .md, .docx or .xlsx, or name --format"),
    ],
)
def test_output_suffix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, message: str
) -> None:
    out = tmp_path / name
    assert main(["review", H100, "-o", str(out)]) == 2
    assert capsys.readouterr().err == f"dclint: error: {message.format(out=out)}\n"


def test_a_declared_field_nothing_reads_is_named() -> None:
    """broken-fabric-2to1 declares site.uptime_tier: while no rule of the run reads it, the
    scope says so (rather than letting a reader think the tier was checked); once a rule's
    module names the field (this test module does), the line is gone."""
    from dclint.analysis.assess.review import scope
    from dclint.engine.registry import discover
    from dclint.loader import load

    design = load(FABRIC)
    pwr001 = discover()["PWR001"]  # its module does not read the tier

    def lines(rules: dict[str, Any]) -> list[tuple[str, str, str]]:
        found = scope(design, rules, lambda rid: True)
        return [(x.family, x.status, x.detail) for x in found if x.family.startswith("site.")]

    assert lines({"PWR001": pwr001}) == [
        (
            "site.uptime_tier",
            "not yet read",
            "declared (III) but no rule or calculation reads it yet: it does not change any "
            "finding or figure of this review",
        )
    ]
    assert lines({"PWR001": pwr001, "TST001": ReadsTheTier}) == []


class ReadsTheTier:
    """A stand-in rule whose module reads site.uptime_tier."""

    needs = ()

    @classmethod
    def inapplicable(cls, design: Any, options: Any = None) -> str:
        return ""


def test_risk_first_and_no_projection_on_a_design_that_cannot_run(tmp_path: Path) -> None:
    """A panel over its rating and a layout the model cannot split rank above capacity and
    money, and the projection of a run that cannot happen as stated is not printed as a
    figure (the issue: 'parallel layout could be faster' stood above two panel overloads, and
    the review projected 25.89 days on a partitioned fabric)."""
    text = (SAMPLES / "broken-feed-headroom.yaml").read_text(encoding="utf-8")
    assert text.count("parallel: {tp: 8, pp: 4, cp: 1}") == 1
    design = tmp_path / "d.yaml"
    design.write_text(text.replace("pp: 4, cp: 1}", "pp: 3, cp: 1}"), encoding="utf-8")
    out = tmp_path / "review.md"
    assert main(["review", str(design), "-o", str(out), "--today", "2026-12-02"]) == 0
    body = out.read_text(encoding="utf-8")
    summary = section(body, "Executive summary")
    table = [x.split(" | ")[2:4] for x in summary if x.startswith("| ") and x[2].isdigit()]
    assert table == [
        ["equipment over its rating", "PWR008 panel-overloaded"],
        ["the design cannot run the workload as stated", "PAR003 layout-not-divisible"],
        ["capacity and headroom", "PWR002 power-headroom-too-small"],
    ]
    blocked = "not meaningful until PAR003 layout-not-divisible is fixed"
    row = next(x for x in body.splitlines() if x.startswith("| llama-70b-pretrain | 576 |"))
    assert row == "| llama-70b-pretrain | 576 | " + " | ".join([blocked] * 6) + " |"
    assert "Not meaningful until PAR003 layout-not-divisible is fixed" in body
    # the back matter: what was read, what was not checked, who signs
    assert section(body, "Scope and method")[1].endswith("/d.yaml (broken-feed-headroom).")
    limits = "\n".join(section(body, "Limitations and coverage"))
    assert "Not checked by this review: on-site fuel storage and its autonomy;" in limits
    assert "| NFPA 70 (NEC) | 210.20(A) and 215.3 continuous and noncontinuous loads |" in limits
    assert "| checked | PWR003 feed-overloaded, PWR008 panel-overloaded |" in limits
    assert section(body, "Sign-off")[3:5] == [
        "| Role | Name | Signature | Date |",
        "|---|---|---|---|",
    ]


@pytest.mark.parametrize("output", [False, True])
def test_a_design_that_does_not_load_is_one_error_line_and_exit_2(
    output: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 48: `review` of a design that does not load exited 2 printing nothing (with -o)
    or only the document; now standard error says why, in check's one line."""
    design = tmp_path / "broken.yaml"
    design.write_text("name: b\nracks:\n  - id: r1\n    type: nope\n", encoding="utf-8")
    target = tmp_path / "r.md"
    argv = ["review", str(design), *(["-o", str(target)] if output else [])]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert err == f"dclint: error: {design}:4:11: unknown rack type 'nope'\n"
    if output:
        assert out == "" and "unknown rack type" in target.read_text("utf-8")
    else:
        assert "<strong>does not load</strong>" in out


def test_the_appendix_keeps_every_line_of_the_projection_and_the_tco(tmp_path: Path) -> None:
    # each line `dclint cost` prints under "assumptions for W", and the TCO's, is a row of its
    # own: the table keyed them all as one item, and printed the TCO's last line alone
    from test_published_gpu_hours import BLOOM_RUN

    design = tmp_path / "bloom.yaml"
    design.write_text(BLOOM_RUN, encoding="utf-8")
    body = section(review(tmp_path, str(design)), "Appendix: assumptions and sources")
    rows = [x for x in body if x.startswith("| projection of") or x.startswith("| TCO")]
    assert len(rows) == 16 + 2  # the 16 lines `dclint cost` prints, the TCO's 2
    item = "| projection of bloom-176b"
    assert (  # where the band of the predicted step comes from, once, with the assumptions
        f"{item}: band of the predicted step | an 80% prediction interval of measured over "
        "predicted step time, for a run on a setup other than dclint's calibration sources "
        "(random effects over 160 runs from all 16 published benchmarks: the Ampere runs come "
        "from fewer than the 3 a generation's own interval needs), dclint's calibration "
        "residuals (docs/performance-model.md) | - | dclint.projection |"
    ) in rows
    assert (
        f"{item}: evaluations | one every 1,000 steps, 12 min each, 95 in 95,151 steps: "
        "0.792 d | - | dclint.projection |"
    ) in rows
    assert (
        f"{item}: synchronous checkpoint saves | 40 s each, 886 saves to gpfs | - | "
        "dclint.projection |"
    ) in rows
    assert any(x.startswith(f"{item}: batch ramp-up | 192 to 2048 sequences by 16") for x in rows)
    assert rows[-2:] == [
        "| TCO | period 3 years (default) | - | dclint.projection |",
        "| TCO | capital items counted in full within the period | - | dclint.projection |",
    ]


def test_the_training_time_shows_its_terms_as_the_cost_prints_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # BLOOM as run: its batch ramp-up and evaluations were rows of `dclint cost` and nowhere
    # in the review, which printed 109.4 d with no term it adds up
    from test_published_gpu_hours import BLOOM_RUN

    design = tmp_path / "bloom.yaml"
    design.write_text(BLOOM_RUN, encoding="utf-8")
    assert main(["cost", str(design)]) == 0
    rows = (re.match(r"(\S.*?)\s{2,}(.*)$", x) for x in capsys.readouterr().out.splitlines())
    cost = {m.group(1): m.group(2) for m in rows if m}  # 'batch ramp-up': '0.7704 d'
    terms = ("compute", "batch ramp-up", "evaluations", "checkpoints", "failures")
    shown = ", ".join(f"{t} {cost[t]}" for t in terms)
    assert shown == (
        "compute 106.1 d, batch ramp-up 0.7704 d, evaluations 0.7917 d, checkpoints 0.4102 d, "
        "failures 1.331 d"
    )
    # PAR003 (70 layers on pp 12, as BLOOM's recipe counts its embedding) voids the figure
    body = review(tmp_path, str(design))
    assert "Training time of" not in body
    body = review(tmp_path, str(design), "--ignore", "PAR003")
    assert (
        f"Training time of bloom-176b, {cost['training time']}: {shown}; a step of "
        f"105.1 s at MFU {cost['MFU'].split()[0]} (declared)."
    ) in body
    assert "Predicted step of bloom-176b, 86.22 s (73.8-104 s):" in body
    assert cost["MFU"] == "48.08% (declared)"  # the review printed it as 48.1%
    assert "| bloom-176b | 384 | 48.08% | 109.4 d |" in body


def test_the_step_table_names_the_predicted_step(two: str) -> None:
    h100 = "\n".join(section(two, "h100-40node"))
    assert (
        "Training time of llm-13b, 1.751 d: compute 1.736 d, checkpoints 0.002194 d, failures "
        "0.0128 d; a step of 2.268 s at MFU 45% (declared)."
    ) in h100
    assert "Predicted step of llm-13b, 2.625 s (2.27-3.33 s):" in h100
    # the declared MFU as the projection's table prints it (the layout table printed 45.0%)
    assert (
        "| declared | tp 8, pp 1, vpp 1, cp 1, ep 1, dp 40, mb 1 | selective | 2.268 s | 45% |"
        in h100
    )
