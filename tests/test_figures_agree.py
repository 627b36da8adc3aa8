"""One figure, the same in every format: a run's training time, energy, cost, step time and its
band, MFU, a finding's measured value, limit and price (or why it has none) read alike in text,
JSON, SARIF, GitHub, GitLab, JUnit, Markdown and HTML, for `dclint check`, `cost`, `failures`,
`diff`, `plan` and the review. Each command runs once a design and format (a module fixture that
runs what a test asks for, once); JSON gives the machine values, dclint's own formatters
(dclint.units.fmt, dclint.figures, report.values) print them, and every other format must print
that string. A format that rounds otherwise is a presenter's bug, never a tolerance here. The
sample designs run in the default tier, the reference designs in the integration tier."""

from __future__ import annotations

import contextlib
import html
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from dclint.cli import main
from dclint.engine.findings import value_text
from dclint.figures import percent
from dclint.projection.uncertainty import CEILINGS
from dclint.report.values import days_text, mfu_text, money, predicted_step, show, tco_rows
from dclint.units import Q_, days_quoted, fmt, fmt_band

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_designs"
DESIGNS = sorted(p.stem for p in SAMPLES.glob("*.yaml"))
# the reference designs too, in the integration tier: their 22 designs' check and cost in
# every format take 4 CPU-seconds, more than the default tier's share for this file
REFERENCES = sorted(p.stem for p in (ROOT / "tests" / "reference_designs").glob("*.yaml"))
PATHS = {
    **{n: ROOT / "tests" / "reference_designs" / f"{n}.yaml" for n in REFERENCES},
    **{n: SAMPLES / f"{n}.yaml" for n in DESIGNS},
}
EVERY = [*DESIGNS, *(pytest.param(n, marks=pytest.mark.integration) for n in REFERENCES)]
CHECK = ("text", "json", "sarif", "github", "gitlab", "junit", "markdown", "html")
COST = ("text", "json", "markdown", "html")
# `dclint diff A B`: h100-40node against the designs whose findings carry a price or a note
A = "h100-40node"
PAIRED = ("broken-fabric-2to1", "broken-storage-half", "moe-1.7t-nvl72")
# `dclint review` (its layout search on: PAR005 prices each): every sample, moe-1.7t-nvl72 (its
# search of 1.3 million layouts takes 2.6 CPU-seconds; REL001's price on it is checked in every
# `dclint check` format above) and the reference designs in the integration tier
REVIEWED = [
    *(
        n if n != "moe-1.7t-nvl72" else pytest.param(n, marks=pytest.mark.integration)
        for n in DESIGNS
    ),
    *(pytest.param(n, marks=pytest.mark.integration) for n in REFERENCES),
]


def _run(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(list(argv))
    return out.getvalue()


def plain(fmt_name: str, out: str) -> str:
    """What a reader of `fmt_name` reads: escapes undone, markup and structure taken off."""
    if fmt_name == "sarif":
        runs = json.loads(out)["runs"]
        return "\n".join(r["message"]["text"] for run in runs for r in run["results"])
    if fmt_name == "gitlab":
        return "\n".join(i["description"] for i in json.loads(out))
    if fmt_name == "junit":
        root = ET.fromstring(out)
        return "\n".join(
            f"{e.get('message', '')}\n{e.text or ''}" for e in root.iter() if e.tag == "failure"
        )
    if fmt_name == "github":
        lines = (line.split("::", 2)[-1] for line in out.splitlines())
        return "\n".join(
            line.replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%") for line in lines
        )
    if fmt_name.startswith("markdown"):
        return re.sub(r"\\(.)", r"\1", out)
    if fmt_name == "html":
        return html.unescape(re.sub(r"<[^>]+>", "", out))
    return out


class Printed(dict[tuple[str, str, str], str]):
    """(design, command, format) -> what the command printed, run on first asking, once."""

    def __missing__(self, key: tuple[str, str, str]) -> str:
        name, command, fmt_name = key
        path = str(PATHS[name])
        if command == "search":  # the check the review runs: PAR005's layout search on
            out = _run("check", "--layout-search", "--format", fmt_name, path)
        elif command == "plan":  # the layouts a search ranks first
            out = _run("plan", "--top", "5", "--format", fmt_name, path)
        elif command == "diff":
            out = _run("diff", "--format", fmt_name, str(PATHS[A]), path)
        else:
            out = _run(command, "--format", fmt_name, path)
        self[key] = out
        return out


@pytest.fixture(scope="module")
def printed() -> Printed:
    return Printed()


def impact_text(impact: dict[str, Any]) -> str:
    """A finding's price from its JSON record, as dclint's formatter prints days and money."""
    currency = impact["currency"]

    def saved(days: float, cost: float | None) -> str:
        return fmt(Q_(days, "day")) + ("" if cost is None else f", {fmt(Q_(cost, currency))}")

    if "range" not in impact:
        return f"the fix saves {saved(impact['days'], impact['cost'])}"
    r = impact["range"]
    (low, high), (c_low, c_high), (label, other) = r["days"], r["cost"], r["assumption"]
    return f"the fix saves {saved(low, c_low)} ({label}) to {saved(high, c_high)} ({other})"


def _firsts(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The findings a report prints: the first of each defect (a roll-up prints one)."""
    out = []
    for d in data["defects"]:
        i, j = d["findings"][0]
        out.append(data["designs"][i]["findings"][j])
    return out


def _wanted(f: dict[str, Any]) -> list[str]:
    """What every format prints of a finding's JSON record: '(measured M, limit L)', its price
    as dclint's formatter prints the days and money, or its note."""
    wanted = [f"(measured {f['measured'] or '-'}, limit {f['limit'] or '-'})"]
    if f["measured"] is None and f["limit"] is None:
        wanted = []
    if "impact" in f:
        wanted.append(impact_text(f["impact"]))
    if "impact_note" in f:
        wanted.append(f["impact_note"])
    return wanted


def _finds(fmt_name: str, text: str, wanted: str) -> bool:
    """Whether `text` prints `wanted`; Markdown and HTML may open a sentence with it (the
    check's 'The fix saves 2.334 d, ...')."""
    return wanted in text or (
        fmt_name in ("markdown", "html") and wanted[:1].upper() + wanted[1:] in text
    )


@pytest.mark.parametrize("name", EVERY)
def test_a_findings_figures_read_alike_in_every_format(name: str, printed: Printed) -> None:
    """Measured value, limit and price (or why there is none) of each finding, as JSON holds
    them, in every format `dclint check` writes."""
    data = json.loads(printed[name, "check", "json"])
    for f in _firsts(data):
        for fmt_name in CHECK[:1] + CHECK[2:]:  # JSON is where the figures come from
            text = plain(fmt_name, printed[name, "check", fmt_name])
            for w in _wanted(f):
                assert _finds(fmt_name, text, w), (name, f["rule"], fmt_name, w)


@pytest.mark.parametrize("name", PAIRED)
def test_diff_prints_a_findings_figures_as_check_does(name: str, printed: Printed) -> None:
    """`dclint diff`'s findings carry `dclint check`'s price (or note) in every format: it
    printed REL001 on moe-1.7t-nvl72 without '[the fix saves 2.334 d, 6,356,180 CNY]', and
    NET001 on broken-fabric-2to1 without why it costs the run nothing."""
    checked = json.loads(printed[name, "check", "json"])["designs"][0]["findings"]
    new = json.loads(printed[name, "diff", "json"])["findings_new"]
    assert new == checked  # the same records, impact and note included
    assert any("impact" in f or "impact_note" in f for f in new)
    # each text line is `dclint check`'s words for the finding, after its rule, path and subject
    said = [line.split("] ", 1)[1] for line in printed[name, "check", "text"].splitlines()[:-1]]
    assert len(said) == len(new)
    lines = [
        f"  + {f['rule']} {f['path']} ({f['subject']}): {w}" for f, w in zip(new, said, strict=True)
    ]
    assert set(lines) <= set(printed[name, "diff", "text"].splitlines())
    for f in new:
        for fmt_name in ("text", "markdown", "html"):
            text = plain(fmt_name, printed[name, "diff", fmt_name])
            for w in _wanted(f):
                assert _finds(fmt_name, text, w), (name, f["rule"], fmt_name, w)


def _text_rows(out: str) -> dict[str, list[str]]:
    """`dclint cost`'s table as label -> a value a workload, columns found by the header."""
    # past the lines that say a design's projection is not meaningful (an error blocks it)
    lines = out[out.index("workload ") :].split("\n\n", 1)[0].splitlines()
    header = lines[0]
    names = header.split()[1:]
    starts = [header.index(f"  {n}") + 2 for n in names]  # workload names are distinct here
    rows: dict[str, list[str]] = {}
    for line in lines[1:]:
        cells = [line[a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)]
        rows.setdefault(line[: starts[0]].strip(), cells)
    return rows


def _doc_rows(fmt_name: str, out: str) -> dict[str, list[str]]:
    """The first table of a Markdown or HTML cost report: label -> a value a workload."""
    rows: dict[str, list[str]] = {}
    if fmt_name == "markdown":
        for line in out[out.index("\n|   | ") + 1 :].split("\n\n", 1)[0].splitlines()[2:]:
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            rows.setdefault(re.sub(r"\\(.)", r"\1", cells[0]), cells[1:])
        return {k: [re.sub(r"\\(.)", r"\1", c) for c in v] for k, v in rows.items()}
    table = out.split("<table>", 1)[1].split("</table>", 1)[0]
    for tr in re.findall(r"<tr>(.*?)</tr>", table)[1:]:
        cells = [html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", tr)]
        rows.setdefault(cells[0].strip(), cells[1:])
    return rows


def _expected(p: dict[str, Any]) -> dict[str, str]:
    """A projection's figures from its JSON record, as dclint's formatters print them."""
    band = p.get("training_days_band")
    days = Q_(p["training_days"], "day")
    low_high = None if band is None else (Q_(band[0], "day"), Q_(band[1], "day"))
    out = {
        "training time": days_quoted(days, low_high),
        "GPUs": f"{show(p['gpus'])} x {p['gpu']}",
        "energy": fmt(Q_(p["energy_mwh"], "MWh")),
        "GPU-hours": fmt(Q_(p["gpu_hours"], "hour")),
        "goodput": fmt(Q_(p["goodput"] * 100, "percent")),
        "step time": "-" if p["step_time_s"] is None else fmt(Q_(p["step_time_s"], "s")),
        "MFU": f"{mfu_text(p['mfu'])} ({p['mfu_source'].split(' ', 1)[0]})",
        "cost total": money(p["cost_total"], p["currency"]) if p["cost_breakdown"] else "-",
    }
    if p.get("step_time_predicted_s") is not None:
        out["predicted step"] = predicted_step(p)
    return out


@pytest.mark.parametrize("name", EVERY)
def test_cost_prints_its_json_figures_alike_in_every_format(name: str, printed: Printed) -> None:
    """`dclint cost`'s training time, energy, cost, step and its band, MFU, GPU-hours and
    goodput: JSON's value as dclint's formatter prints it is the string text, Markdown and
    HTML print, each workload's column."""
    data = json.loads(printed[name, "cost", "json"])
    if not data["projections"]:  # no workload projected: no table in any format
        assert not printed[name, "cost", "text"].startswith("workload ")
        assert "<th></th>" not in printed[name, "cost", "html"]
        return
    tables = {
        "text": _text_rows(printed[name, "cost", "text"]),
        **{f: _doc_rows(f, printed[name, "cost", f]) for f in ("markdown", "html")},
    }
    for i, p in enumerate(data["projections"]):
        for label, value in _expected(p).items():
            for fmt_name, rows in tables.items():
                assert rows[label][i] == value, (name, p["workload"], label, fmt_name)


def _overview(fmt_name: str, out: str) -> dict[str, str]:
    """The overview's row of a one-design `dclint check` document: column -> cell."""
    if fmt_name == "markdown":
        lines = out.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith("| Design | Verdict"))
        header, row = (
            [re.sub(r"\\(.)", r"\1", c.strip()) for c in lines[j].strip("|").split(" | ")]
            for j in (at, at + 2)
        )
    else:
        table = out.split('<table class="overview">', 1)[1].split("</table>", 1)[0]
        header = [html.unescape(c) for c in re.findall(r"<th>(.*?)</th>", table)]
        row = [
            html.unescape(re.sub("<[^>]+>", "", c)) for c in re.findall(r"<td>(.*?)</td>", table)
        ]
    return dict(zip(header, row, strict=True))


def _summary_gpus(fmt_name: str, out: str) -> str:
    """The 'GPUs' row of a document's summary figures."""
    if fmt_name == "markdown":
        return re.findall(r"^\| GPUs \| (.*) \|$", out, re.MULTILINE)[0]
    return re.findall(r"<tr><td>GPUs</td><td>(.*?)</td></tr>", out)[0]


@pytest.mark.parametrize("name", EVERY)
@pytest.mark.parametrize("fmt_name", ["markdown", "html"])
def test_the_overview_prints_the_figures_the_sections_print(
    name: str, fmt_name: str, printed: Printed
) -> None:
    """The overview's GPUs as the summary figures print them (it printed '8208' above the
    summary's '8,208' for moe-1.7t-nvl72), its days and cost as the projection prints them."""
    out = printed[name, "check", fmt_name]
    row = _overview(fmt_name, out)
    assert row["GPUs"] == _summary_gpus(fmt_name, out)
    (design,) = json.loads(printed[name, "check", "json"])["designs"]
    runs = design.get("projections") or []
    days = [p["training_days"] for p in runs if p["training_days"]]
    costs = [p["cost_total"] for p in runs if p["cost_total"]]
    if row["Training days (longest workload)"] == "-" and days:  # an error blocks the run
        assert f"not meaningful until {design['findings'][0]['rule']} " in plain(fmt_name, out)
        return
    assert row["Training days (longest workload)"] == (fmt(Q_(max(days), "day")) if days else "-")
    currency = runs[0]["currency"] if runs else ""
    total = fmt(Q_(sum(costs), currency)) if costs else "-"
    assert row["Training cost (all workloads)"] == total


def test_the_overview_prints_a_small_cost_as_the_projection_does() -> None:
    """A run costing under 10,000: the overview rounded the sum to units ('169 CNY') where the
    projection's table and `dclint cost` print its 4 figures ('168.6 CNY')."""
    path = str(SAMPLES / "h100-40node.yaml")
    cheap = ["--set", "cost.gpu_price=10 USD", "--set", "site.electricity_price=0.01 CNY/kWh"]
    page = _run("check", "--format", "markdown", *cheap, path)
    assert _overview("markdown", page)["Training cost (all workloads)"] == "168.6 CNY"
    assert "| llm-13b | 320 | 45% | 1.751 d | 13,445 | 13.18 | 12.97 | 168.6 CNY |" in page
    assert "\ncost total                        168.6 CNY\n" in _run("cost", *cheap, path)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (9999.7, "10,000 d"),
        (12_345.6, "12,346 d"),
        (168.64, "168.6 d"),
        (0.0074601, "0.00746 d"),
        (3_709_599.95, "3,709,600 d"),
    ],
)
def test_a_number_prints_as_a_quantity_of_it_does(value: float, expected: str) -> None:
    """One print of a figure (dclint.figures): the review's tables (`show`: days, MWh, GiB),
    its sentences (`days_text`) and a finding's plain measured value print a number as `fmt`
    prints the quantity, which `dclint cost` and the price print. `show` printed 9,999.7 days
    '1e+04' beside fmt's '10,000 d', and a measured 12,345.6 read '1.235e+04'."""
    printed = fmt(Q_(value, "day"))
    assert f"{show(value)} d" == days_text(value) == f"{value_text(value)} d" == printed
    assert printed == expected


def test_the_micro_sign_and_a_whole_percent_print_as_words_and_figures_do() -> None:
    """'us' becomes 'µs' only as a unit after a figure, never inside a word ('2 us-east-1', a
    region in a source, read '2 µs-east-1'); a share of 100 prints '10,000%' as `figures`
    prints 10,000 ('1e+04%' before)."""
    from dclint.figures import percent
    from dclint.report.values import micro_signed

    assert micro_signed("74 us a GEMM; 2 us-east-1; 5 us.") == "74 µs a GEMM; 2 us-east-1; 5 µs."
    assert (percent(100.0), percent(0.4808), percent(0.45)) == ("10,000%", "48.08%", "45%")


def _ranked(fmt_name: str, out: str) -> list[tuple[str, str, str]]:
    """The review's ranked defects: (rule id, days, money) as its table prints them."""
    rows: list[tuple[str, str, str]] = []
    head = "| \\# | Design |" if fmt_name == "markdown" else "<th>Days</th><th>Money</th></tr>"
    if head not in out:  # nothing found, nothing ranked
        return rows
    if fmt_name == "markdown":
        for line in out.split(head, 1)[1].splitlines()[2:]:
            if not line.startswith("|"):
                break
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            rows.append((cells[3].split()[0], cells[6], cells[7]))
        return sorted(rows)
    table = out.split(head, 1)[1].split("</tbody>", 1)[0]
    for tr in re.findall(r"<tr>(.*?)</tr>", table):
        cells = [html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", tr)]
        rows.append((cells[3].split()[0], cells[6], cells[7]))
    return sorted(rows)


def _price_cells(f: dict[str, Any]) -> tuple[str, str]:
    """A finding's days and money as the review's table should print its JSON price."""
    impact = f.get("impact")
    if impact is None:
        return "-", "-"
    currency = impact["currency"]
    if "range" in impact:
        days = " to ".join(fmt(Q_(d, "day")) for d in impact["range"]["days"])
        costs = impact["range"]["cost"]
        money = "-" if costs[0] is None else " to ".join(fmt(Q_(c, currency)) for c in costs)
        return days, money
    cost = impact["cost"]
    return fmt(Q_(impact["days"], "day")), "-" if cost is None else fmt(Q_(cost, currency))


@pytest.mark.parametrize("name", REVIEWED)
@pytest.mark.parametrize("fmt_name", ["markdown", "html"])
def test_the_review_prints_the_checks_figures(name: str, fmt_name: str, printed: Printed) -> None:
    """The review (its layout search on) against `dclint check --layout-search --format
    json`: each finding's measured value, limit and price or note in its entry, its days and
    money in the ranked table; the projection's days, MFU and cost as `dclint cost` prints
    them."""
    out = printed[name, "review", fmt_name]
    text = plain(fmt_name, out)
    data = json.loads(printed[name, "search", "json"])
    for f in _firsts(data):
        for w in _wanted(f):
            assert _finds(fmt_name, text, w), (name, f["rule"], w)
    priced = sorted((f["rule"], *_price_cells(f)) for f in _firsts(data))
    assert _ranked(fmt_name, out) == priced, name
    projections = data["designs"][0].get("projections") or []
    cost = _text_rows(printed[name, "cost", "text"]) if projections else {}
    for i, p in enumerate(projections):
        mfu = cost["MFU"][i].split(" (", 1)[0]
        if p["mfu_source"].startswith("predicted"):  # with its band, as 'MFU predicted' gives it
            mfu = cost["MFU predicted"][i]
        blocked = json.loads(printed[name, "cost", "json"])["not_meaningful"]
        cells = [
            p["workload"],
            show(p["gpus"]),
            mfu,
            cost["training time"][i],
            cost["GPU-hours"][i].removesuffix(" h"),  # the column names the unit
            cost["energy"][i].removesuffix(" MWh"),
            cost["memory/GPU"][i].replace(" GiB", "", 1),
            cost["cost total"][i],
        ]
        if blocked:  # an error says the run cannot be as stated: no figure, and why
            cells[2:] = [blocked[0]["reason"]] * 6
        row = "| " + " | ".join(cells) + " |"
        if fmt_name == "html":
            row = "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>"
        assert row in out, (name, row)


def _steps(out: str) -> dict[str, dict[str, str]]:
    """The review's (a check's Markdown) step tables: workload -> part -> its time and share
    as `dclint cost` joins them ('263 µs (0%)')."""
    tables = {}
    for block in out.split("\nPredicted step of ")[1:]:
        workload = block.split(",", 1)[0]
        table = block.split("| Part | Time | Share |\n|---|---|---|\n", 1)[1].split("\n\n")[0]
        cells = [line.strip("|").split(" | ") for line in table.splitlines()]
        tables[workload] = {c[0].strip(): f"{c[1].strip()} ({c[2].strip()})" for c in cells}
    return tables


@pytest.mark.parametrize("name", EVERY)
def test_cost_prints_the_step_parts_as_the_review_does(name: str, printed: Printed) -> None:
    """A part of the predicted step reads in `dclint cost`'s Markdown and HTML as in the
    review's step table ('263 µs'; they printed moe-1.7t-nvl72's data-parallel comm. '263 us'
    beside the review's '263 µs'), and in the plain text with 'u' for the micro prefix."""
    review = _steps(printed[name, "check", "markdown"])
    projections = json.loads(printed[name, "cost", "json"])["projections"]
    predicted = [p["workload"] for p in projections if p["step_time_predicted_s"] is not None]
    assert sorted(review) == sorted(predicted)
    if not predicted:  # no predicted step anywhere (a declared MFU without the model's inputs)
        return
    tables = {f: _doc_rows(f, printed[name, "cost", f]) for f in ("markdown", "html")}
    text = _text_rows(printed[name, "cost", "text"])
    for i, p in enumerate(projections):
        for part, value in review.get(p["workload"], {}).items():
            assert tables["markdown"][part][i] == tables["html"][part][i] == value, (name, part)
            assert text[part][i] == value.replace("\u00b5", "u"), (name, part)
    assert (
        any("\u00b5s" in v for t in review.values() for v in t.values()) or name != "moe-1.7t-nvl72"
    )


@pytest.mark.parametrize("name", EVERY)
def test_cost_prints_the_tco_the_review_prints(name: str, printed: Printed) -> None:
    """`dclint cost`'s TCO in text, Markdown and HTML is the review's table (values.tco_rows)
    of the JSON record, row for row: one formatter, where cost kept two of its own."""
    (tco,) = json.loads(printed[name, "cost", "json"])["tco"]
    rows = tco_rows(tco)
    text = ("\n" + printed[name, "cost", "text"]).split(f"\nTCO {tco['design']}: ", 1)[1]
    assert text.splitlines() == [rows[0][1], *(f"  {k}: {v}" for k, v in rows[1:])]
    page = printed[name, "cost", "html"].split("<th>Item</th><th>Value</th></tr>", 1)[1]
    cells = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td></tr>", page.split("</table>", 1)[0])
    assert [[html.unescape(c) for c in r] for r in cells] == rows


def test_a_band_separates_thousands_as_its_point_does() -> None:
    """A band's ends take thousands separators where `fmt` gives its point one (from 10,000):
    dgx-h100-superpod-4su's 405B run read '1673 d (1,200-2,000 d)'."""
    days = days_quoted(Q_(1673.2, "day"), (Q_(1190.0, "day"), Q_(1990.0, "day")))
    assert days == "1673 d (1100-2000 d)"
    assert fmt_band(9_950.0, 12_100.0) == "9900-13,000"  # as fmt prints 9900 and 13,000
    assert (fmt(Q_(9900.0, "d")), fmt(Q_(13_000.0, "d"))) == ("9900 d", "13,000 d")


def test_a_layouts_mfu_prints_as_every_mfu_does(tmp_path: Path) -> None:
    """A layout's predicted MFU to 4 figures, as `dclint cost` prints an MFU (dclint.figures.
    percent), in `dclint plan`'s table and sentences and the review's: h100-40node without its
    declared MFU at a global batch of 1,280 read '57.55%' in the review's layout table and
    'the best layout's predicted MFU, 57.5%' in the sentence under it, and '57.5%' in plan (at
    MAMF's GEMM rates; 54.53% everywhere now, 54.54% at fef8168, 54.68% before the attention rates
    by sequence length); the
    calibration ceiling beside it read '49.0%'."""
    text = (SAMPLES / "h100-40node.yaml").read_text(encoding="utf-8")
    assert "    mfu: 45%\n" in text and "global_batch: 960\n" in text
    text = text.replace("    mfu: 45%\n", "").replace("global_batch: 960\n", "global_batch: 1280\n")
    path = tmp_path / "h100-predicted.yaml"
    path.write_text(text, encoding="utf-8")
    best = json.loads(_run("plan", "--top", "1", "--format", "json", str(path)))["layouts"][0]
    mfu = percent(best["mfu"])
    assert mfu == "54.53%"
    plan = _run("plan", "--top", "1", str(path))
    row = plan.splitlines()[3].split()
    assert row[0] == "1" and row[13] == mfu
    # the ceiling it is above, the best MFU a Hopper dense calibration run published, prints
    # as the MFU beside it does (it read '49.0%' beside '54.68%')
    top = percent(CEILINGS[("hopper", False)][0])
    assert top == "49%"
    assert f"predicts more than {top} MFU (up to {mfu});" in plan
    review = _run("review", "--format", "markdown", str(path))
    assert f"| none | {fmt(Q_(best['step_time_s'], 's'))} | {mfu} | " in review
    assert f"the best layout's predicted MFU, {mfu}, is above {top}, the best MFU" in review


@pytest.mark.parametrize("name", EVERY)
def test_failures_prints_its_json_figures(name: str, printed: Printed) -> None:
    """`dclint failures`: each failure's worst survivor, its load against capacity and its
    margin, as dclint's formatter prints JSON's numbers, on the failure's own text row."""
    data = json.loads(printed[name, "failures", "json"])
    rows = printed[name, "failures", "text"].splitlines()
    for f in data["failures"]:
        s = f["worst_survivor"]
        if s is None:
            continue
        unit = s["unit"]
        load, capacity = fmt(Q_(s["load"], unit)), fmt(Q_(s["capacity"], unit))
        said = f"{s['element']} ({s['kind']}) {load} of {capacity}"
        margin = fmt(Q_(s["margin"], unit))
        assert any(said in r and f"  {margin}  " in r for r in rows), (name, f["element"])


def _plan_row(layout: dict[str, Any]) -> list[str]:
    """A layout's step, MFU, memory, days and cost from `dclint plan`'s JSON, as dclint's
    formatters print them."""
    low_high = layout["days_band"]
    band = None if low_high is None else tuple(Q_(d, "day") for d in low_high)
    cost = layout["cost"]
    return [
        fmt(Q_(layout["step_time_s"], "s")),
        percent(layout["mfu"]),
        fmt(Q_(layout["memory_per_gpu_gib"], "GiB")),
        days_quoted(Q_(layout["days"], "day"), band),  # type: ignore[arg-type]
        "-" if cost is None else fmt(Q_(cost, layout["currency"])),
    ]


@pytest.mark.parametrize("fmt_name", ["text", "markdown", "html"])
def test_plan_prints_its_json_figures(fmt_name: str, printed: Printed) -> None:
    """`dclint plan`'s layouts (h100-40node, its top 5): each row's step, MFU, memory, days
    with their band and cost, JSON's values as dclint's formatters print them, in text,
    Markdown and HTML; the declared layout's step is `dclint cost`'s predicted step."""
    data = json.loads(printed[A, "plan", "json"])
    out = printed[A, "plan", fmt_name]
    if fmt_name == "text":
        rows = [re.split(r"\s{2,}", line.strip()) for line in out.splitlines()[3:8]]
    elif fmt_name == "markdown":
        rows = [line.strip("|").split(" | ") for line in out.splitlines()[4:9]]
    else:
        body = out.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
        rows = [re.findall(r"<td>(.*?)</td>", tr) for tr in re.findall(r"<tr>(.*?)</tr>", body)]
    assert len(data["layouts"]) == 5
    for rank, (layout, row) in enumerate(zip(data["layouts"], rows, strict=False), 1):
        cells = [html.unescape(c).strip() for c in row]
        assert cells[0] == str(rank) and cells[-5:] == _plan_row(layout), (fmt_name, rank)
    (p,) = json.loads(printed[A, "cost", "json"])["projections"]
    assert data["declared"]["step_time_s"] == p["step_time_predicted_s"]
    step = fmt(Q_(p["step_time_predicted_s"], "s"))
    assert f"(the step model's: {step} and " in plain(fmt_name, out)


@pytest.mark.parametrize("name", EVERY)
def test_sarif_properties_carry_the_json_price(name: str, printed: Printed) -> None:
    """A CI hook reading SARIF's properties gets JSON's machine values: each result's price
    (`impact`) or why it has none (`impactNote`; it carried the price only, so a finding that
    costs nothing, or has no price while an error blocks the run, read as unpriced), and a
    saving under the pricing floor's figures (`impactUnderFloor`)."""
    findings = _firsts(json.loads(printed[name, "check", "json"]))
    results = json.loads(printed[name, "check", "sarif"])["runs"][0]["results"]
    assert len(results) == len(findings)
    for f, r in zip(findings, results, strict=True):
        props = r["properties"]
        assert (
            r["ruleId"],
            props.get("impact"),
            props.get("impactNote"),
            props.get("impactUnderFloor"),
        ) == (f["rule"], f.get("impact"), f.get("impact_note"), f.get("impact_under_floor"))


@pytest.mark.parametrize("name", PAIRED)
@pytest.mark.parametrize("fmt_name", ["text", "markdown", "html"])
def test_diff_quotes_the_runs_as_cost_does(name: str, fmt_name: str, printed: Printed) -> None:
    """`dclint diff`'s B column: each workload's training time and cost, and the TCO, as
    `dclint cost` prints them for B, in each format the comparison is written in."""
    out = printed[name, "diff", fmt_name]
    out = html.unescape(out) if fmt_name == "html" else plain(fmt_name, out)
    cost = json.loads(printed[name, "cost", "json"])
    text = _text_rows(printed[name, "cost", "text"])
    (tco,) = cost["tco"]
    quoted = {"TCO over 3 years": tco_rows(tco)[0][1].split(" over ", 1)[0]}
    for i, p in enumerate(cost["projections"]):
        quoted[f"{p['workload']} training time"] = text["training time"][i]
        quoted[f"{p['workload']} cost"] = text["cost total"][i]
    for label, value in quoted.items():
        if fmt_name == "markdown":
            row = rf"\| {re.escape(label)} \| [^|]+ \| {re.escape(value)} \| "
            assert re.search(row, out), (name, label, value)
        elif fmt_name == "html":
            row = rf"<tr><td>{re.escape(label)}</td><td>[^<]+</td><td>{re.escape(value)}</td>"
            assert re.search(row, out), (name, label, value)
        else:
            line = next(x for x in out.splitlines() if x.startswith(label))
            assert f" {value} " in f"{line} " or line.endswith(value), (name, fmt_name, label)


@pytest.mark.parametrize("name", EVERY)
def test_assumptions_print_microseconds_as_their_format_does(name: str, printed: Printed) -> None:
    """A projection's assumption line prints a figure in microseconds as the rest of its format
    does: 'us' in the plain text (as JSON holds the line), 'µs' in `dclint cost`'s Markdown and
    HTML, the check's HTML assumptions table and the review's appendix, as their step tables
    print a part ('263 µs').
    moe-1.7t-nvl72's '74 us a GEMM' printed 'us' in all of them."""
    from dclint.projection.step.records import HOST_EXPERT_GEMM_SECONDS

    cost = json.loads(printed[name, "cost", "json"])
    lines = [a for p in cost["projections"] for a in p["assumptions"]]
    micro = [a for a in lines if re.search(r"\d us\b", a)]
    gemm = f", {HOST_EXPERT_GEMM_SECONDS * 1e6:.0f} us a GEMM ("
    assert any(gemm in a for a in micro) or name != "moe-1.7t-nvl72"
    docs = {
        "cost markdown": plain("markdown", printed[name, "cost", "markdown"]),
        "cost html": plain("html", printed[name, "cost", "html"]),
        "check html": plain("html", printed[name, "check", "html"]),
    }
    if name == "moe-1.7t-nvl72":  # the review's appendix (PWR001 alone: no layout search)
        review = _run("review", "--select", "PWR001", "--format", "markdown", str(PATHS[name]))
        docs["review markdown"] = plain("markdown", review)
    for line in micro:
        assert line in printed[name, "cost", "text"], (name, line)
        signed = re.sub(r"(\d) us\b", "\\1 \u00b5s", line)
        # the check's table gives a labelled line's head in its own cell
        head, _, rest = signed.partition(": ")
        cell = rest if len(head) <= 40 else signed
        for where, text in docs.items():
            table = where in ("check html", "review markdown")
            assert (cell if table else signed) in text, (name, where, line)
            assert line not in text, (name, where, line)
    signed_gemm = gemm.replace(" us ", " \u00b5s ")
    assert all(signed_gemm in t for t in docs.values()) or name != "moe-1.7t-nvl72"
